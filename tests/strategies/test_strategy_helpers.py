"""The strategies' shared helpers (dokosim/strategies/common.py) against plain references: the fast
forms (branch-free ``extreme_card``, one-pass ``winning_cards``) must choose exactly what the
plain loops choose, or ``simple``'s rows would change."""
import numpy as np
import pytest
from numba import njit

from dokosim.engine.cards import CLASS_MASK, EYES, FOLLOW_CLASS, POWER, SCHEME_NORMAL, T_9D, T_AD, TRUMP
from dokosim.engine.layout import P_NPLAYED, PUBLIC_LEN
from dokosim.engine.play import PIGLET_POWER, SUPERPIGLET_POWER
from dokosim.strategies.common import add_lowest_keys, extreme_card, trick_eyes_so_far, winning_cards


@njit(cache=True)
def _extreme(mask, power, fclass, highest):
    return extreme_card(mask, power, fclass, highest)


@njit(cache=True)
def _add_lowest(chosen, pool, count, short_suits, keep_aces):
    return add_lowest_keys(chosen, pool, count, short_suits, keep_aces)


@njit(cache=True)
def _winners(cards, pub, plays, power, fclass):
    return winning_cards(cards, pub, plays, power, fclass)


@njit(cache=True)
def _trick_eyes(pub, plays):
    return trick_eyes_so_far(pub, plays)


def extreme_reference(mask, power, fclass, highest):
    """The plain loop: the first card (lowest index) with the best key wins."""
    best, best_key = -1, 0
    for c in range(48):
        if not (mask >> c) & 1:
            continue
        key = int(power[c]) + (1000 if fclass[c] == TRUMP else 0)
        if not highest:
            key = key * 16 + int(EYES[c])
        if best < 0 or (highest and key > best_key) or (not highest and key < best_key):
            best, best_key = c, key
    return best


def would_win_reference(card, trick, power, fclass):
    """Whether ``card`` beats every card of ``trick`` (the cards played so far, led card first)."""
    if not trick:
        return True
    led = fclass[trick[0]]
    k = fclass[card]
    for c in trick:
        if fclass[c] == TRUMP:
            if k != TRUMP or power[card] <= power[c]:
                return False
        elif fclass[c] == led and k != TRUMP and (k != led or power[card] <= power[c]):
            return False
    return True


def random_tables(rng):
    """A scheme's ranking, with the piglets' raised powers half of the time."""
    scheme = int(rng.integers(POWER.shape[0]))
    power = POWER[scheme].astype(np.int64).copy()
    if scheme == SCHEME_NORMAL and rng.random() < 0.5:
        power[[2 * T_AD, 2 * T_AD + 1]] = PIGLET_POWER
        if rng.random() < 0.5:
            power[[2 * T_9D, 2 * T_9D + 1]] = SUPERPIGLET_POWER
    return power, FOLLOW_CLASS[scheme].astype(np.int64).copy()


@pytest.mark.parametrize("highest", [True, False])
def test_extreme_card_equals_the_plain_loop(highest):
    rng = np.random.default_rng(5)
    for _ in range(3000):
        power, fclass = random_tables(rng)
        mask = int(rng.integers(0, 1 << 48)) & int(rng.integers(0, 1 << 48))  # sparse and dense masks
        got = _extreme(np.int64(mask), power, fclass, highest)
        assert got == extreme_reference(mask, power, fclass, highest), (mask, highest)
    assert _extreme(np.int64(0), power, fclass, highest) == -1


def test_winning_cards_equals_would_win_card_by_card():
    rng = np.random.default_rng(6)
    pub = np.zeros(PUBLIC_LEN, dtype=np.int64)
    plays = np.zeros(48, dtype=np.int64)
    checked_nonempty = 0
    for _ in range(4000):
        power, fclass = random_tables(rng)
        cards = rng.permutation(48)
        tricks_done = int(rng.integers(0, 11))
        in_trick = int(rng.integers(0, 4))
        n = 4 * tricks_done + in_trick
        plays[:n] = cards[:n]
        pub[P_NPLAYED] = n
        trick = [int(c) for c in cards[4 * tricks_done:n]]
        candidates = 0
        for c in cards[n:n + 12]:
            candidates |= 1 << int(c)
        got = int(_winners(np.int64(candidates), pub, plays, power, fclass))
        want = sum(1 << c for c in range(48)
                   if (candidates >> c) & 1 and would_win_reference(c, trick, power, fclass))
        assert got == want, (trick, candidates)
        checked_nonempty += want != 0 and trick != []
    assert checked_nonempty > 1000  # the positions test both outcomes, not only empty tricks


def test_trick_eyes_so_far_is_the_sum_over_the_trick():
    rng = np.random.default_rng(7)
    pub = np.zeros(PUBLIC_LEN, dtype=np.int64)
    plays = np.zeros(48, dtype=np.int64)
    for _ in range(500):
        cards = rng.permutation(48)
        n = int(rng.integers(0, 48))
        plays[:n] = cards[:n]
        pub[P_NPLAYED] = n
        start = n - n % 4
        assert _trick_eyes(pub, plays) == sum(int(EYES[c]) for c in cards[start:n])


def add_lowest_reference(chosen, pool, count, short_suits, keep_aces):
    """The two loops add_lowest_keys replaced: add_cheapest's (the fewest eyes, the first card on a
    tie) and heuristic.plain_short_first's (100 per card of the suit left in the pool plus the
    eyes, 1000 more for an ace with keep_aces; the first card on a tie)."""
    while bin(chosen).count("1") < count and pool:
        best = -1
        best_key = 1 << 30
        for c in range(48):
            if not (pool >> c) & 1:
                continue
            if short_suits:
                key = 100 * bin(pool & int(CLASS_MASK[3, c // 12])).count("1") + int(EYES[c])
                if keep_aces and EYES[c] == 11:
                    key += 1000
                better = key < best_key
            else:
                key = int(EYES[c])
                better = best < 0 or key < best_key
            if better:
                best_key = key
                best = c
        chosen |= 1 << best
        pool &= ~(1 << best)
    return chosen


def test_add_lowest_keys_equals_the_loops_it_replaced():
    rng = np.random.default_rng(9)
    for _ in range(3000):
        pool = int(rng.integers(0, 1 << 48)) & int(rng.integers(0, 1 << 48))
        chosen = int(rng.integers(0, 1 << 48)) & int(rng.integers(0, 1 << 48)) & int(rng.integers(0, 1 << 48))
        chosen &= ~pool
        count = int(rng.integers(0, 16))
        for short_suits, keep_aces in ((False, False), (True, False), (True, True)):
            got = _add_lowest(np.int64(chosen), np.int64(pool), count, short_suits, keep_aces)
            assert got == add_lowest_reference(chosen, pool, count, short_suits, keep_aces), (chosen, pool, count)
