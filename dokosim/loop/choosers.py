"""The strategies' decisions as the deal loop asks them: the one border where a position is
unpacked into the plug-in ABI's arrays (docs/strategies.md): here for the inlined strategies, in
``call_decision`` (loop/strategy_call.py) for the others, which takes the position as the seat sees
it (a ``View``, engine/position.py).

``strategies`` is the strategy table (loop/strategy_call.py), ``sid`` a row of it; ``random``
and ``simple`` are inlined here, every other strategy is called through its C entry point.
"""
from ..engine.jit import inline_kernel
from ..engine.layout import PUBLIC_LEN
from ..engine.position import View
from ..strategies import random_player, simple
from ..strategies.common import default_exchange
from .strategy_call import (
    INLINE_NONE, INLINE_RANDOM, INLINE_SIMPLE, T_CALL, T_CARD, T_EXCHANGE, T_INLINE, T_RESERVE, call_choice,
    call_decision,
)


@inline_kernel
def choose_reservation(strategies, sid, seat, hand, options, pub, rules, params, rng):
    """The reservation of strategy ``sid`` (a row of the strategy table)."""
    inline = strategies[sid, T_INLINE]
    if inline == INLINE_RANDOM:
        return random_player.reserve(seat, hand, options, pub, rules, params, rng)
    if inline == INLINE_SIMPLE:
        return simple.reserve(seat, hand, options, pub, rules, params, rng)
    return call_choice(strategies[sid, T_RESERVE], seat, hand, options, pub, rules, params, rng)


@inline_kernel
def choose_exchange(strategies, sid, seat, hand, phase, pub, rules, params, rng):
    """The poverty exchange step ``phase`` of strategy ``sid``."""
    if strategies[sid, T_INLINE] != INLINE_NONE:  # random and simple have no exchange of their own
        return default_exchange(seat, hand, phase, pub, rules, params, rng)
    return call_choice(strategies[sid, T_EXCHANGE], seat, hand, phase, pub, rules, params, rng)


@inline_kernel
def choose_call_inline(inline, strategies, sid, seat, legal, pos, rules, params, rng):
    """The call (0: none, else the level) of strategy ``sid`` for ``seat`` in position ``pos``;
    ``inline`` is strategies[sid, T_INLINE] (the deal loop looks it up once per deal)."""
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
    if inline == INLINE_RANDOM:
        return random_player.call(seat, hands[seat], legal, st[:PUBLIC_LEN], plays, play_seat, trick_winner, power,
                                  fclass, cmask, rules, params, rng)
    if inline == INLINE_SIMPLE:
        return simple.call(seat, hands[seat], legal, st[:PUBLIC_LEN], plays, play_seat, trick_winner, power, fclass,
                           cmask, rules, params, rng)
    return call_decision(strategies[sid, T_CALL], seat, hands[seat], legal,
                         View(st[:PUBLIC_LEN], plays, play_seat, trick_winner, power, fclass, cmask), rules, params, rng)


@inline_kernel
def choose_card_inline(inline, strategies, sid, seat, legal, pos, rules, params, rng):
    """The card of strategy ``sid`` for ``seat`` in position ``pos``, as choose_call_inline."""
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
    if inline == INLINE_RANDOM:
        return random_player.card(seat, hands[seat], legal, st[:PUBLIC_LEN], plays, play_seat, trick_winner, power,
                                  fclass, cmask, rules, params, rng)
    if inline == INLINE_SIMPLE:
        return simple.card(seat, hands[seat], legal, st[:PUBLIC_LEN], plays, play_seat, trick_winner, power, fclass,
                           cmask, rules, params, rng)
    return call_decision(strategies[sid, T_CARD], seat, hands[seat], legal,
                         View(st[:PUBLIC_LEN], plays, play_seat, trick_winner, power, fclass, cmask), rules, params, rng)


@inline_kernel
def choose_call(strategies, sid, seat, legal, pos, rules, params, rng):
    """The call (0: none, else the level) of strategy ``sid``."""
    return choose_call_inline(strategies[sid, T_INLINE], strategies, sid, seat, legal, pos, rules, params, rng)


@inline_kernel
def choose_card(strategies, sid, seat, legal, pos, rules, params, rng):
    """The card of strategy ``sid``."""
    return choose_card_inline(strategies[sid, T_INLINE], strategies, sid, seat, legal, pos, rules, params, rng)
