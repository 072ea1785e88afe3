"""Dealing and the reservations: which contract a deal is played under."""
import numpy as np

from ..cards import C_MARRIAGE, C_NORMAL, C_SOLO_BASE
from .jit import inline_kernel, kernel
from .layout import R_NO_NINES, R_SOLO_MASK, RES_HEALTHY, RES_MARRIAGE
from .play import QC_MASK
from .rng import below


@inline_kernel
def deal_hands(rng, deck, hands, dealer):
    """Shuffle the 48 cards with ``rng`` and give 12 to each seat, starting at the dealer's left."""
    for i in range(48):
        deck[i] = i
    for i in range(47, 0, -1):
        j = below(rng, i + 1)
        x = deck[i]
        deck[i] = deck[j]
        deck[j] = x
    for s in range(4):
        hand = np.int64(0)
        for i in range(12 * s, 12 * s + 12):
            hand |= np.int64(1) << deck[i]
        hands[(dealer + 1 + s) & 3] = hand


@kernel
def reservation_options(hand, rules):
    """Bit mask of the reservations a hand may make (bit RES_HEALTHY, 1 + solo kind, RES_MARRIAGE)."""
    m = np.int64(1) << RES_HEALTHY
    m |= (rules[R_SOLO_MASK] & 127) << 1
    if (hand & QC_MASK) == QC_MASK:
        m |= np.int64(1) << RES_MARRIAGE
    return m


@kernel
def resolve_reservations(choices, dealer, out):
    """Contract from the four seats' choices (solo > marriage; earlier speaker first).

    Writes (contract code, declarer) into out[0], out[1].
    """
    out[0] = C_NORMAL
    out[1] = -1
    for i in range(4):
        seat = (dealer + 1 + i) % 4
        ch = choices[seat]
        if 1 <= ch <= 7:
            out[0] = C_SOLO_BASE + ch - 1
            out[1] = seat
            return
    for i in range(4):
        seat = (dealer + 1 + i) % 4
        if choices[seat] == RES_MARRIAGE:
            out[0] = C_MARRIAGE
            out[1] = seat
            return


@kernel
def hands_from_types(hand_types, rules, hands):
    """Masks of four hands given as card types seat by seat (copy 0 goes to the first holder).

    Returns -1 when the hands are exactly the pack, else the type of a card
    that appears more often than the pack has it.
    """
    size = 10 if rules[R_NO_NINES] else 12
    taken = np.int64(0)
    for s in range(4):
        hands[s] = 0
        for i in range(size * s, size * (s + 1)):
            t = hand_types[i]
            c = 2 * t
            if (taken >> c) & 1:
                c += 1
            if (taken >> c) & 1 or (rules[R_NO_NINES] and t % 6 == 5):
                return t
            taken |= np.int64(1) << c
            hands[s] |= np.int64(1) << c
    return -1
