"""Helpers strategies share: what the table shows about the current trick and the parties.

Every helper reads only the observation a seat is given (its own hand, the
public state ``pub`` = ``st[:PUBLIC_LEN]``, the cards played and by whom, and
the deal's public ranking tables).
"""
import numpy as np

from ..engine.cards import CLASS_MASK, EYES, SCHEME_NORMAL, TRUMP
from ..engine.bits import lowest_bit_index, popcount
from ..engine.deal import NORMAL_TRUMPS
from ..engine.jit import inline_kernel
from ..engine.layout import P_KNOWN_KO, P_KNOWN_RE, P_NPLAYED, R_DULLE
from ..engine.play import QC_MASK, best_offset


@inline_kernel
def trick_start(pub):
    n = pub[P_NPLAYED]
    return n & ~3


@inline_kernel
def trick_eyes_so_far(pub, plays):
    """Eyes of the cards in the current trick. Written out for the at most three cards: as a
    loop LLVM vectorised it into masked gathers, slower than the three loads (a tenth of
    heuristic's follow time)."""
    start = trick_start(pub)
    count = pub[P_NPLAYED] - start
    total = 0
    if count > 0:
        total += EYES[plays[start] & 63]
        if count > 1:
            total += EYES[plays[start + 1] & 63]
            if count > 2:
                total += EYES[plays[start + 2] & 63]
    return total


@inline_kernel
def winning_seat_so_far(pub, plays, play_seat, power, fclass, rules):
    """Seat whose card is winning the current trick, -1 if the trick is empty."""
    start = trick_start(pub)
    count = pub[P_NPLAYED] - start
    if count == 0:
        return -1
    return play_seat[start + best_offset(plays, start, count, power, fclass, rules[R_DULLE], False)]


@inline_kernel
def would_win(card, pub, plays, power, fclass):
    """True when ``card`` played now would beat every card already in the trick."""
    start = trick_start(pub)
    n = pub[P_NPLAYED]
    if n == start:
        return True
    led = fclass[plays[start]]
    k = fclass[card]
    for i in range(start, n):
        c = plays[i]
        if fclass[c] == TRUMP:
            if k != TRUMP or power[card] <= power[c]:
                return False
        elif fclass[c] == led:
            if k != TRUMP and (k != led or power[card] <= power[c]):
                return False
    return True


@inline_kernel
def own_side_is_re(seat, hand, pub):
    """The seat's own party as it knows it: Re if it holds a QC or the table knows it is Re."""
    if (pub[P_KNOWN_RE] >> seat) & 1:
        return True
    if (pub[P_KNOWN_KO] >> seat) & 1:
        return False
    return (hand & QC_MASK) != 0


@inline_kernel
def is_known_partner(seat, other, hand, pub):
    """True when the seat knows ``other`` plays on its side."""
    if other == seat:
        return True
    if own_side_is_re(seat, hand, pub):
        return (pub[P_KNOWN_RE] >> other) & 1 == 1
    return (pub[P_KNOWN_KO] >> other) & 1 == 1


@inline_kernel
def count_trumps(hand, cmask):
    """Trumps in a hand under this deal's ranking."""
    return popcount(hand & cmask[TRUMP])


@inline_kernel
def extreme_card(mask, power, fclass, highest):
    """Highest (or lowest) card of a mask by (trump first, power); ties by eyes for the lowest;
    remaining ties: the lowest card index. -1 for an empty mask.

    Branch-free: each card's key and index are packed into one integer (key * 64 + index for
    the lowest, key * 64 + 63 - index for the highest) and the loop keeps a running min / max,
    so the choice costs no mispredicted branches (a third of ``simple``'s time was here)."""
    if mask == 0:
        return -1
    best = np.int64(-1) if highest else np.int64(1) << 62
    m = mask
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        key = power[c] + (1000 if fclass[c] == TRUMP else 0)
        if highest:
            packed = key * 64 + 63 - c
            best = max(best, packed)
        else:
            packed = (key * 16 + EYES[c]) * 64 + c
            best = min(best, packed)
    return 63 - (best & 63) if highest else best & 63


@inline_kernel
def winning_cards(cards, pub, plays, power, fclass):
    """The cards of ``cards`` that, played now, would beat every card already in the trick
    (``would_win`` for each card, in one pass over the trick): all of them on an empty trick;
    when the trick holds a trump, the trumps above its highest trump; else the trumps and the
    cards of the suit led above its highest card."""
    start = trick_start(pub)
    n = pub[P_NPLAYED]
    if n == start:
        return cards
    led = fclass[plays[start]]
    top_trump = np.int64(-1)
    top_led = np.int64(-1)
    for i in range(start, n):
        c = plays[i]
        k = fclass[c]
        if k == TRUMP:
            top_trump = max(top_trump, power[c])
        elif k == led:
            top_led = max(top_led, power[c])
    winners = np.int64(0)
    m = cards
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        k = fclass[c]
        p = power[c]
        wins = (k == TRUMP and p > top_trump) if top_trump >= 0 else (k == TRUMP or (k == led and p > top_led))
        winners |= np.int64(wins) << c
    return winners


@inline_kernel
def add_lowest_keys(chosen, pool, count, short_suits, keep_aces):
    """Add cards of ``pool`` to ``chosen`` until it holds ``count`` cards (or the pool is empty),
    each time the card of the lowest key (the lowest card on a tie): its eyes, plus with
    ``short_suits`` 100 per card of its suit still in the pool (plain cards under the normal
    ranking, where every plain card keeps its suit), plus with ``keep_aces`` 1000 for an ace."""
    while popcount(chosen) < count and pool:
        best = -1
        best_key = 1 << 30
        m = pool
        while m:
            c = lowest_bit_index(m)
            m &= m - 1
            key = EYES[c]
            if short_suits:
                key += 100 * popcount(pool & CLASS_MASK[SCHEME_NORMAL, c // 12])
            if keep_aces and EYES[c] == 11:
                key += 1000
            if key < best_key:
                best_key = key
                best = c
        chosen |= np.int64(1) << best
        pool &= ~(np.int64(1) << best)
    return chosen


@inline_kernel
def add_cheapest(chosen, pool, count):
    """Add cards of ``pool`` with the fewest eyes to ``chosen`` until it holds ``count`` cards."""
    return add_lowest_keys(chosen, pool, count, False, False)


@inline_kernel
def default_pass(hand):
    """Poverty, the poor player: all trumps, filled up with the plain cards of fewest eyes."""
    return add_cheapest(hand & NORMAL_TRUMPS, hand & ~NORMAL_TRUMPS, 3)


@inline_kernel
def default_return(hand):
    """Poverty, the acceptor: three plain cards of the fewest eyes (trumps only when short of plain cards)."""
    returned = add_cheapest(np.int64(0), hand & ~NORMAL_TRUMPS, 3)
    return add_cheapest(returned, hand & NORMAL_TRUMPS, 3)


EX_PASS, EX_ACCEPT, EX_RETURN = 0, 1, 2


@inline_kernel
def default_exchange(seat, hand, phase, pub, rules, params, rng):
    """Poverty decisions for strategies without an ``exchange`` function.

    EX_PASS: the 3 cards to pass (a mask); EX_ACCEPT: 1 to take the poverty
    (with 7 trumps or more, counted as in a normal game); EX_RETURN: the 3 cards to give back.
    """
    if phase == EX_PASS:
        return default_pass(hand)
    if phase == EX_ACCEPT:
        return 1 if popcount(hand & NORMAL_TRUMPS) >= 7 else 0
    return default_return(hand)
