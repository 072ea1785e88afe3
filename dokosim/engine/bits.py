"""Bit operations on int64 masks, compiled to single instructions via LLVM intrinsics.

``nth_set_bit`` uses the x86 BMI2 instruction ``pdep`` where the machine has it
(numba compiles for the host CPU, and its cache is keyed by CPU), and a short
loop elsewhere.
"""
import llvmlite.binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .jit import inline_kernel


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


@intrinsic
def _pdep(typingctx, source, mask):
    sig = types.int64(types.int64, types.int64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = builder.module.declare_intrinsic("llvm.x86.bmi.pdep.64", fnty=ir.FunctionType(i64, [i64, i64]))
        return builder.call(fn, args)

    return sig, codegen


def _host_has_bmi2() -> bool:
    try:
        return bool(llvm.get_host_cpu_features().get("bmi2"))
    except Exception:  # a platform llvmlite cannot ask: use the portable loop
        return False


HAS_BMI2 = _host_has_bmi2()

if HAS_BMI2:
    @inline_kernel
    def nth_set_bit(mask, n):
        """Index of the n-th (0-based) set bit of mask, counting from the lowest."""
        return lowest_bit_index(_pdep(1 << n, mask))
else:
    @inline_kernel
    def nth_set_bit(mask, n):
        """Index of the n-th (0-based) set bit of mask, counting from the lowest."""
        for _ in range(n):
            mask &= mask - 1
        return lowest_bit_index(mask)


@intrinsic
def prefetch(typingctx, arr, index):
    """A hint to bring the cache line of ``arr``'s element ``index`` (counted in the flat,
    C-contiguous order) into the cache for writing; it changes no value. ``index`` must lie in
    the array."""
    sig = types.void(arr, types.intp)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0")
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), i8p)
        builder.call(fn, [ptr, ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def atomic_add(typingctx, arr, index, value):
    """Add ``value`` to the int64 ``arr[index]`` atomically (whatever thread does the same at the
    same time); returns the value before."""
    sig = types.int64(arr, types.intp, types.int64)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.atomic_rmw("add", builder.gep(ary.data, [args[1]]), args[2], "seq_cst")

    return sig, codegen


@intrinsic
def store_u64(typingctx, arr, index, value):
    """Store the int64 ``value`` as 8 bytes (little-endian, unaligned) at byte ``index`` of the
    1-byte-per-element array ``arr`` (uint8 or int8); ``index + 8`` must not pass its end."""
    sig = types.void(arr, types.intp, types.int64)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(64).as_pointer())
        builder.store(args[2], ptr, align=1)
        return context.get_dummy_value()

    return sig, codegen


BYTE_LSB = 0x0101010101010101   # bit 0 of each byte
PAIR_LSB = 0x0303030303030303   # bits 0-1 of each byte

if HAS_BMI2:
    @inline_kernel
    def bytes_of_bits(x):
        """Bits 0-7 of ``x`` as eight bytes 0/1 of an int64 (byte k = bit k)."""
        return _pdep(x & 0xFF, BYTE_LSB)

    @inline_kernel
    def bytes_of_pairs(x):
        """Bits 0-15 of ``x`` as eight bit pairs counted: byte k of the int64 = bit 2k + bit 2k+1."""
        return _pdep((x & 0x5555) + ((x >> 1) & 0x5555), PAIR_LSB)
else:
    @inline_kernel
    def bytes_of_bits(x):
        """Bits 0-7 of ``x`` as eight bytes 0/1 of an int64 (byte k = bit k)."""
        out = 0
        for k in range(8):
            out |= ((x >> k) & 1) << (8 * k)
        return out

    @inline_kernel
    def bytes_of_pairs(x):
        """Bits 0-15 of ``x`` as eight bit pairs counted: byte k of the int64 = bit 2k + bit 2k+1."""
        out = 0
        for k in range(8):
            out |= (((x >> (2 * k)) & 1) + ((x >> (2 * k + 1)) & 1)) << (8 * k)
        return out
