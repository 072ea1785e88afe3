"""Calling a compiled strategy through its address: how one deal loop serves every strategy.

Each strategy is compiled once, on its own, into four C entry points (numba ``cfunc``,
cached on disk): ``reserve``, ``exchange``, ``call`` and ``card``, with the C signatures
below (arrays passed as pointers to their first element). The deal loop is compiled once
too; it receives a *strategy table* at run time, one row per strategy in use::

    table[sid, T_RESERVE], table[sid, T_EXCHANGE], table[sid, T_CALL], table[sid, T_CARD]
        the entry points' addresses
    table[sid, T_INLINE]
        INLINE_NONE, or INLINE_RANDOM / INLINE_SIMPLE for the two built-ins that the loop
        holds inlined (they are small, and the calls through an address would cost them
        a measurable share of their speed; see docs/internals.md)

``call_decision`` and ``call_choice`` below are the loop's side of the call: numba
intrinsics that pass the arrays' data pointers to the address, so no combination of
strategies is ever a new specialisation of the loop. ``call_decision`` takes the position as the
seat sees it as one value (a ``View``, engine/position.py) and unpacks it into the ABI's arrays.

The array lengths a strategy sees (``pub`` PUBLIC_LEN, ``plays`` 48, ... ) are fixed:
the entry points rebuild the arrays from the pointers with these lengths (ARRAY_LENGTHS).
"""
from llvmlite import ir
from numba import types
from numba.core.errors import TypingError
from numba.extending import intrinsic

from ..engine.layout import PUBLIC_LEN, R_LEN
from ..engine.rng import RNG_LEN

MAX_PARAMS = 16  # a strategy's parameter vector (params[seat]) has this many float64

T_RESERVE, T_EXCHANGE, T_CALL, T_CARD, T_INLINE = range(5)
TABLE_WIDTH = 5
INLINE_NONE, INLINE_RANDOM, INLINE_SIMPLE = range(3)
INLINE_MODULES = {"dokosim.strategies.random_player": INLINE_RANDOM,
                  "dokosim.strategies.simple": INLINE_SIMPLE}

# The entry points' C signatures, as numba type strings: three int64 (seat, hand, and
# options / phase / legal), then pointers to the arrays.
_I = "int64"
_P = "CPointer(int64)"
CHOICE_ARGS = (_I, _I, _I, _P, _P, "CPointer(float64)", "CPointer(uint64)")  # pub, rules, params, rng
DECISION_ARGS = (_I, _I, _I) + (_P,) * 8 + ("CPointer(float64)", "CPointer(uint64)")
ARRAY_LENGTHS = {"pub": PUBLIC_LEN, "plays": 48, "play_seat": 48, "trick_winner": 12, "power": 48,
                 "fclass": 48, "cmask": 5, "rules": R_LEN, "params": MAX_PARAMS, "rng": RNG_LEN}


def _signature(args) -> str:
    return f"int64({', '.join(args)})"


CHOICE_SIGNATURE = _signature(CHOICE_ARGS)
DECISION_SIGNATURE = _signature(DECISION_ARGS)


def _call_through(addr, ints, arrays):
    """The signature and code of an intrinsic call of the C function at ``addr`` with the
    integers ``ints`` (as int64) and the data pointers of ``arrays`` (an argument that is a tuple
    of arrays, a ``View``, passes each of its arrays in turn): returns int64."""
    for a in ints:
        if not isinstance(a, types.Integer):
            raise TypingError(f"strategy entry point: expected an integer argument, got {a}")
    if not isinstance(addr, types.Integer):
        raise TypingError(f"strategy entry point: the address must be an integer, got {addr}")
    flat = [t for a in arrays for t in (a.types if isinstance(a, types.BaseTuple) else (a,))]
    for a, dtype in zip(flat, (types.int64,) * (len(flat) - 2) + (types.float64, types.uint64)):
        if not (isinstance(a, types.Array) and a.dtype == dtype and a.layout == "C"):
            raise TypingError(f"strategy entry point: expected a C-contiguous {dtype} array, got {a}")
    n_ints = len(ints)
    sig = types.int64(addr, *ints, *arrays)

    def codegen(context, builder, signature, llargs):
        values = [context.cast(builder, v, t, types.int64)
                  for v, t in zip(llargs[1:1 + n_ints], signature.args[1:1 + n_ints])]
        for v, t in zip(llargs[1 + n_ints:], signature.args[1 + n_ints:]):
            if isinstance(t, types.BaseTuple):
                for i, member in enumerate(t.types):
                    values.append(context.make_array(member)(context, builder, builder.extract_value(v, i)).data)
            else:
                values.append(context.make_array(t)(context, builder, v).data)
        fnty = ir.FunctionType(ir.IntType(64), [v.type for v in values])
        address = context.cast(builder, llargs[0], signature.args[0], types.intp)
        return builder.call(builder.inttoptr(address, fnty.as_pointer()), values)

    return sig, codegen


@intrinsic
def call_choice(typingctx, addr, seat, hand, options, pub, rules, params, rng):
    """reserve / exchange through the address ``addr`` (``options`` is the phase for exchange)."""
    return _call_through(addr, (seat, hand, options), (pub, rules, params, rng))


@intrinsic
def call_decision(typingctx, addr, seat, hand, legal, view, rules, params, rng):
    """call / card through the address ``addr``: ``view`` (engine/position.py) unpacked into the
    ABI's arrays pub, plays, play_seat, trick_winner, power, fclass and cmask."""
    if not (isinstance(view, types.BaseTuple) and len(view) == 7):
        raise TypingError(f"strategy entry point: expected a View (seven arrays), got {view}")
    return _call_through(addr, (seat, hand, legal), (view, rules, params, rng))


@intrinsic
def array_at(typingctx, pointer, n):
    """The 1-d C array of ``n`` elements (a compile-time integer) at ``pointer`` (a numba
    CPointer): how an entry point rebuilds the arrays it was passed. Built inline in the
    caller, where numba's ``carray`` is a call of its own per array: ten of them per
    decision took a quarter of heuristic's card time."""
    if not isinstance(pointer, types.CPointer):
        raise TypingError(f"array_at: expected a pointer, got {pointer}")
    if not isinstance(n, types.IntegerLiteral):
        raise TypingError(f"array_at: the length must be a compile-time integer, got {n}")
    length = n.literal_value
    arrty = types.Array(pointer.dtype, 1, "C")

    def codegen(context, builder, signature, llargs):
        itemsize = context.get_abi_sizeof(context.get_data_type(arrty.dtype))
        ary = context.make_array(arrty)(context, builder)
        intp = lambda v: context.get_constant(types.intp, v)  # noqa: E731
        context.populate_array(ary, data=llargs[0], shape=[intp(length)], strides=[intp(itemsize)],
                               itemsize=intp(itemsize), meminfo=None)
        return ary._getvalue()

    return arrty(pointer, n), codegen
