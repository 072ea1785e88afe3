"""Scratch arrays on the stack: ``stack_zeros(n, dtype)`` and ``stack_zeros_2d(rows, cols, dtype)``.

The deal loop's scratch (game state, hands, plays, ...) lives in the frame of the block kernel
that plays the deals, with sizes fixed at compile time. Against arrays passed in as arguments
or allocated on the heap this tells LLVM that no two of them overlap and what their shapes
are, which is worth about a tenth of random play's speed (docs/internals.md); and such arrays
need no reference counting, so the kernels that use them compile with ``_nrt=False``.

The sizes must be compile-time integers (a module constant or a literal). Each call site
zeroes its buffer when it is reached; the buffer is one per call site and function, valid
until the function returns: never return such an array or keep it past its function.
"""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic


def _literal(n, what):
    if not isinstance(n, types.IntegerLiteral):
        raise TypingError(f"stack_zeros: {what} must be a compile-time integer, got {n}")
    return n.literal_value


def _zeros(context, builder, arrty, shape):
    elty = context.get_data_type(arrty.dtype)
    itemsize = context.get_abi_sizeof(elty)
    count = 1
    for d in shape:
        count *= d
    buf = cgutils.alloca_once(builder, elty, size=count)
    cgutils.memset(builder, buf, ir.Constant(ir.IntType(64), count * itemsize), 0)
    intp = lambda v: context.get_constant(types.intp, v)  # noqa: E731
    strides = [itemsize * (shape[1] if len(shape) == 2 else 1)] + ([itemsize] if len(shape) == 2 else [])
    ary = context.make_array(arrty)(context, builder)
    context.populate_array(ary, data=buf, shape=[intp(d) for d in shape],
                           strides=[intp(s) for s in strides], itemsize=intp(itemsize), meminfo=None)
    return ary._getvalue()


@intrinsic
def stack_zeros(typingctx, n, dtype):
    """A zeroed 1-d array of ``n`` elements of ``dtype`` (np.int64, np.uint64, ...) on the stack."""
    length = _literal(n, "the length")
    arrty = types.Array(dtype.instance_type, 1, "C")

    def codegen(context, builder, signature, args):
        return _zeros(context, builder, arrty, (length,))

    return arrty(n, dtype), codegen


@intrinsic
def stack_zeros_2d(typingctx, rows, cols, dtype):
    """A zeroed C-order (rows x cols) array of ``dtype`` on the stack."""
    shape = (_literal(rows, "rows"), _literal(cols, "cols"))
    arrty = types.Array(dtype.instance_type, 2, "C")

    def codegen(context, builder, signature, args):
        return _zeros(context, builder, arrty, shape)

    return arrty(rows, cols, dtype), codegen
