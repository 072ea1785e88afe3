"""Dealing and the reservations: which contract a deal is played under."""
import numpy as np

from .cards import C_MARRIAGE, C_NORMAL, C_POVERTY, C_SOLO_BASE, CLASS_MASK, SCHEME_NORMAL, TRUMP
from .bits import popcount
from .jit import inline_kernel, kernel
from .layout import (
    R_NO_NINES, R_POVERTY, R_SOLO_MASK, R_THROW_IN, REDEAL, RES_HEALTHY, RES_MARRIAGE, RES_POVERTY,
    RES_THROW_IN,
)
from .play import QC_MASK
from .rng import scale_below, step

NINES = np.int64(sum(3 << (2 * (6 * suit + 5)) for suit in range(4)))
KINGS = np.int64(sum(3 << (2 * (6 * suit + 2)) for suit in range(4)))
NORMAL_TRUMPS = CLASS_MASK[SCHEME_NORMAL, TRUMP]


@inline_kernel
def deal_hands(rng, deck, hands, dealer, no_nines):
    """Shuffle the pack with ``rng`` and deal it out, starting at the dealer's left.

    48 cards, 12 each; with ``no_nines`` the eight nines are left out: 40 cards, 10 each.
    """
    n = 0
    for c in range(48):
        if not (no_nines and (NINES >> c) & 1):
            deck[n] = c
            n += 1
    # the stream's state in two locals for the shuffle (the same draws as below(rng, i + 1)):
    # kept in the array, each draw waited for its store and reload, a chain through all 47
    s0 = rng[0]
    s1 = rng[1]
    for i in range(n - 1, 0, -1):
        out, s0, s1 = step(s0, s1)
        j = scale_below(out, i + 1)
        x = deck[i]
        deck[i] = deck[j]
        deck[j] = x
    rng[0] = s0
    rng[1] = s1
    size = n // 4
    for s in range(4):
        hand = np.int64(0)
        for i in range(size * s, size * s + size):
            hand |= np.int64(1) << deck[i]
        hands[(dealer + 1 + s) & 3] = hand


@inline_kernel
def may_declare_poverty(hand):
    """Three trumps or fewer, counted as in a normal game (AD is a trump)."""
    return popcount(hand & NORMAL_TRUMPS) <= 3


@inline_kernel
def may_throw_in(hand, no_nines):
    """Five nines or more (five kings or more without nines)."""
    return popcount(hand & (KINGS if no_nines else NINES)) >= 5


@inline_kernel
def reservation_options(hand, rules):
    """Bit mask of the reservations a hand may make (bit RES_HEALTHY, 1 + solo kind,
    RES_MARRIAGE, and with the house rules RES_POVERTY, RES_THROW_IN)."""
    m = np.int64(1) << RES_HEALTHY
    m |= (rules[R_SOLO_MASK] & 127) << 1
    if (hand & QC_MASK) == QC_MASK:
        m |= np.int64(1) << RES_MARRIAGE
    if rules[R_POVERTY] and may_declare_poverty(hand):
        m |= np.int64(1) << RES_POVERTY
    if rules[R_THROW_IN] and may_throw_in(hand, rules[R_NO_NINES]):
        m |= np.int64(1) << RES_THROW_IN
    return m


@inline_kernel
def resolve_reservations(choices, dealer, out):
    """Contract from the four seats' choices; the earlier speaker wins among equals.

    Priority: solo > poverty > marriage > throw-in (RULES.md 1.3 and part 2).
    Writes (contract code or REDEAL, declarer) into out[0], out[1].
    """
    out[0] = C_NORMAL
    out[1] = -1
    best = 0
    for i in range(4):
        seat = (dealer + 1 + i) & 3
        ch = choices[seat]
        rank = 0
        if 1 <= ch <= 7:
            rank = 4
        elif ch == RES_POVERTY:
            rank = 3
        elif ch == RES_MARRIAGE:
            rank = 2
        elif ch == RES_THROW_IN:
            rank = 1
        if rank > best:
            best = rank
            out[1] = seat
            if rank == 4:
                out[0] = C_SOLO_BASE + ch - 1
            elif rank == 3:
                out[0] = C_POVERTY
            elif rank == 2:
                out[0] = C_MARRIAGE
            else:
                out[0] = REDEAL


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


@inline_kernel
def poverty_pass_error(hand, passed):
    """True unless ``passed`` is 3 cards of ``hand`` holding all its trumps (normal count)."""
    return popcount(passed) != 3 or (passed & ~hand) != 0 or (hand & NORMAL_TRUMPS & ~passed) != 0


@inline_kernel
def poverty_return_error(hand, returned):
    """True unless ``returned`` is 3 cards of the acceptor's hand (after receiving)."""
    return popcount(returned) != 3 or (returned & ~hand) != 0


@inline_kernel
def exchange_cards(hands, poor, partner, passed, returned):
    """Move the passed cards to the acceptor and the returned ones to the poor player."""
    hands[poor] = (hands[poor] & ~passed) | returned
    hands[partner] = (hands[partner] | passed) & ~returned
