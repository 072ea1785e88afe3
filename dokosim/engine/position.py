"""The position of a deal as one value: the eight arrays every play kernel reads and writes.

A ``Position`` is a named tuple of int64 arrays (numba types it as a named tuple, so a kernel
takes and passes it as one argument and reads ``pos.hands`` at no cost):

- ``st``: the game state (engine/layout.py; ``st[:PUBLIC_LEN]`` is what every player knows),
- ``hands``: the four hands as 48-bit masks,
- ``plays`` and ``play_seat``: the cards played so far and who played each (48 each),
- ``trick_winner``: the winner of each finished trick (12),
- ``power``, ``fclass`` and ``cmask``: the contract's tables (engine/cards.py: each card's
  power and follow class, each class's card mask).

Makers: ``stack_position`` (inside a kernel, on its stack: engine/stack.py), ``new_position``
(on the heap, in a kernel or in Python), ``copy_position``.
``engine/game_state.py``'s ``game_position`` gives the views of a ``Game`` row.

A ``View`` is what every seat sees of a position, the same arrays less the hidden ones: ``pub``
(``st[:PUBLIC_LEN]``), the cards so far (``plays``, ``play_seat``, ``trick_winner``) and the
tables (``power``, ``fclass``, ``cmask``); no hands. A strategy's internals take a ``View`` (and
the seat's own hand) as one value, made by ``View(pos.st[:PUBLIC_LEN], pos.plays, ...)``. Its
entry points (the plug-in ABI, docs/strategies.md) still take the arrays one by one: the deal
loop's choosers (loop/choosers.py) and the strategy call (loop/strategy_call.py) unpack a view at
that one border, and each built-in strategy's ``call`` and ``card`` pack it again.
"""
from collections import namedtuple

import numpy as np

from .jit import inline_kernel, kernel
from .layout import ST_LEN
from .stack import stack_zeros

Position = namedtuple("Position", ("st", "hands", "plays", "play_seat", "trick_winner", "power", "fclass",
                                   "cmask"))
POSITION_LENGTHS = (ST_LEN, 4, 48, 48, 12, 48, 48, 5)
"""Each field's length, in field order."""
View = namedtuple("View", ("pub", "plays", "play_seat", "trick_winner", "power", "fclass", "cmask"))


@kernel
def new_position():
    """A zeroed position on the heap (``setup_deal`` fills it), in a kernel or in Python."""
    return Position(np.zeros(ST_LEN, dtype=np.int64), np.zeros(4, dtype=np.int64), np.zeros(48, dtype=np.int64),
                    np.zeros(48, dtype=np.int64), np.zeros(12, dtype=np.int64), np.zeros(48, dtype=np.int64),
                    np.zeros(48, dtype=np.int64), np.zeros(5, dtype=np.int64))


@inline_kernel
def stack_position():
    """A zeroed position on the calling kernel's stack (engine/stack.py): it must stay inlined, so
    that the arrays belong to the caller's frame; valid until that kernel returns."""
    return Position(stack_zeros(ST_LEN, np.int64), stack_zeros(4, np.int64), stack_zeros(48, np.int64),
                    stack_zeros(48, np.int64), stack_zeros(12, np.int64), stack_zeros(48, np.int64),
                    stack_zeros(48, np.int64), stack_zeros(5, np.int64))


@inline_kernel
def copy_array(dst, src):
    """dst[:] = src, element by element (a slice assignment may allocate a temporary)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@inline_kernel
def copy_position(dst, src):
    """Every array of position ``dst`` set to ``src``'s."""
    copy_array(dst.st, src.st)
    copy_array(dst.hands, src.hands)
    copy_array(dst.plays, src.plays)
    copy_array(dst.play_seat, src.play_seat)
    copy_array(dst.trick_winner, src.trick_winner)
    copy_array(dst.power, src.power)
    copy_array(dst.fclass, src.fclass)
    copy_array(dst.cmask, src.cmask)
