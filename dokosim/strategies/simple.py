"""``simple``: a short, readable baseline player.

Cards: takes a trick worth taking with its highest winning card (its lowest
when it plays last), leaves tricks its known partner is winning, and otherwise
throws its lowest card; leads a plain ace when it has one, else its lowest card.
Reservations: a solo with many trumps, a marriage when it can, poverty and
throw-in whenever the house rules allow them. Calls: Re or
Kontra with many trumps, never a denial.
"""
from ..engine.cards import ACES_MASK, CLASS_MASK, SOLO_SCHEME, TRUMP
from ..engine.bits import popcount
from ..engine.jit import inline_kernel
from ..engine.layout import P_NPLAYED, RES_HEALTHY, RES_MARRIAGE, RES_POVERTY, RES_THROW_IN
from .common import (
    count_trumps, extreme_card, is_known_partner, trick_eyes_so_far, trick_start, winning_cards,
    winning_seat_so_far,
)

NAME = "simple"
PARAMS = {
    "solo_trumps": (10.0, "trumps needed to declare a suit, queens or jacks solo"),
    "call_trumps": (7.0, "trumps needed to say Re or Kontra"),
    "worth_taking": (10.0, "eyes already in a trick that make it worth winning"),
}
# trumps: a hand holds at most 12 (13: never); eyes: a trick holds at most 44 (4 aces)
PARAM_RANGES = {"solo_trumps": (0.0, 13.0), "call_trumps": (0.0, 13.0), "worth_taking": (0.0, 44.0)}


@inline_kernel
def reserve(seat, hand, options, pub, rules, params, rng):
    best = RES_HEALTHY
    best_trumps = params[0] - 1
    for kind in range(6):  # fleischlos needs aces, not trumps: left out
        if (options >> (1 + kind)) & 1:
            n = popcount(hand & CLASS_MASK[SOLO_SCHEME[kind], TRUMP])
            if n > best_trumps:
                best_trumps = n
                best = 1 + kind
    if best == RES_HEALTHY and (options >> RES_MARRIAGE) & 1:
        return RES_MARRIAGE
    if best == RES_HEALTHY and (options >> RES_POVERTY) & 1:
        return RES_POVERTY  # 3 trumps or fewer: let a partner carry the hand
    if best == RES_HEALTHY and (options >> RES_THROW_IN) & 1:
        return RES_THROW_IN
    return best


@inline_kernel
def call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    if (legal >> 1) & 1 and count_trumps(hand, cmask) >= params[1]:
        return 1
    return 0


@inline_kernel
def card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    n = pub[P_NPLAYED]
    if n == trick_start(pub):
        plain_aces = legal & ACES_MASK & ~cmask[TRUMP]
        if plain_aces:
            return extreme_card(plain_aces, power, fclass, True)
        return extreme_card(legal, power, fclass, False)
    leader = winning_seat_so_far(pub, plays, play_seat, power, fclass, rules)
    if is_known_partner(seat, leader, hand, pub):
        return extreme_card(legal, power, fclass, False)
    winners = winning_cards(legal, pub, plays, power, fclass)
    last = n & 3 == 3
    if winners and (last or trick_eyes_so_far(pub, plays) >= params[2]):
        return extreme_card(winners, power, fclass, not last)
    return extreme_card(legal, power, fclass, False)
