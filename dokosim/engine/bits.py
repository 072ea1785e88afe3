"""Bit operations on int64 masks, compiled to single instructions via LLVM intrinsics."""
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .jit import kernel


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an int64."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def lowest_bit_index(typingctx, x):
    """Index of the lowest set bit of a non-zero int64 (64 for zero)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@kernel
def nth_set_bit(mask, n):
    """Index of the n-th (0-based) set bit of mask, counting from the lowest."""
    for _ in range(n):
        mask &= mask - 1
    return lowest_bit_index(mask)
