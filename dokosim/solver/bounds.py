"""Bounds on Re's eyes to come without search: quick tricks and later tricks at a trick boundary,
and the payoff-similarity bound (``_eye_shift``) between positions that differ only in eyes."""
import numpy as np

from ..engine.cards import EYES
from ..engine.bits import lowest_bit_index, popcount
from ..engine.jit import inline_kernel
from .workspace import EYE_VALUES, W_CARD, W_CLASSES, W_EYE_SLOTS, W_HELD, W_LIVE, W_TIE, _highest_bit_index


@inline_kernel
def _slot_eyes(ws, slots):
    """The eyes of the cards of ``slots``."""
    eyes = 0
    while slots:
        eyes += EYES[ws[W_CARD + lowest_bit_index(slots)]]
        slots &= slots - 1
    return eyes


@inline_kernel
def _least_eyes(ws, slots, count):
    """The sum of the ``count`` smallest eyes among the cards of ``slots`` (all of them if fewer)."""
    total = 0
    for i in range(6):
        if count <= 0:
            break
        have = popcount(slots & ws[W_EYE_SLOTS + i])
        take = min(have, count)
        total += take * EYE_VALUES[i]
        count -= take
    return total


@inline_kernel
def _sure_trumps(ws, leader, live):
    """The slots of the leader's trumps that rank above every other seat's trump, not tied with
    one (at a trick boundary: each wins a trick when led)."""
    trumps = ws[W_CLASSES + 4]
    mine = ws[W_HELD + leader] & trumps
    others = live & trumps & ~mine
    if mine == 0 or others == 0:
        return mine
    top = _highest_bit_index(others)
    return mine & ~((np.int64(2) << top) - 1) & ~ws[W_TIE + top]


@inline_kernel
def _sure_trump_eyes(ws, leader, sure):
    """A lower bound on the eyes the side of ``leader`` takes from a trick boundary (quick
    tricks): the leader's ``sure`` trumps (``_sure_trumps``) win a trick each, led one after
    another, and each other seat then plays its trumps with the fewest eyes, or, out of trumps,
    its cards with the fewest eyes."""
    trumps = ws[W_CLASSES + 4]
    count = popcount(sure)
    if count == 0:
        return 0
    eyes = _slot_eyes(ws, sure)
    for s in range(4):
        if s != leader:
            held = ws[W_HELD + s]
            t = held & trumps
            nt = popcount(t)
            eyes += _least_eyes(ws, t, count)
            if nt < count:
                eyes += _least_eyes(ws, held & ~trumps, count - nt)
    return eyes



@inline_kernel
def _quick_eyes(ws, leader, sure):
    """A lower bound on the eyes the side of ``leader`` takes from a trick boundary (quick
    tricks): its ``sure`` trumps, led first, then in each plain suit a card of the highest rank
    still held, where every other seat must follow or holds no trump (so nobody ruffs; a tie
    goes to the card led). Each other seat gives a card to each of those tricks (at least its
    cards with the fewest eyes). 0 when there is no plain quick trick (``_sure_trump_eyes``
    covers trumps alone better)."""
    trumps = ws[W_CLASSES + 4]
    live = ws[W_LIVE]
    mine = ws[W_HELD + leader]
    count = 0
    eyes = 0
    for k in range(4):
        lk = live & ws[W_CLASSES + k]
        if lk == 0:
            continue
        top = _highest_bit_index(lk)
        card = mine & ws[W_TIE + top] & lk
        if card == 0:
            continue
        ok = True
        for s in range(4):
            if s != leader:
                held = ws[W_HELD + s]
                if (held & lk) == 0 and (held & trumps) != 0:
                    ok = False
        if ok:
            count += 1
            eyes += EYES[ws[W_CARD + lowest_bit_index(card)]]
    if count == 0:
        return 0
    eyes += _slot_eyes(ws, sure)
    count += popcount(sure)
    for s in range(4):
        if s != leader:
            eyes += _least_eyes(ws, ws[W_HELD + s], count)
    return eyes


@inline_kernel
def _top_trump_holder(ws, live):
    """The seat holding the highest trump still held (at a trick boundary), or -1."""
    lt = live & ws[W_CLASSES + 4]
    if lt == 0:
        return -1
    top = _highest_bit_index(lt)
    for s in range(4):
        if (ws[W_HELD + s] >> top) & 1:
            return s
    return -1


@inline_kernel
def _master_eyes(ws, holder, masters):
    """A lower bound on the eyes the side of ``holder`` takes from a trick boundary: each of its
    ``masters`` (trumps above every other seat's, not tied with one) wins the trick it is played
    in, whoever leads, and each other seat gives a card to each of those tricks (at least its
    cards with the fewest eyes)."""
    count = popcount(masters)
    if count == 0:
        return 0
    eyes = _slot_eyes(ws, masters)
    for s in range(4):
        if s != holder:
            eyes += _least_eyes(ws, ws[W_HELD + s], count)
    return eyes


@inline_kernel
def _side_master_eyes(ws, holder, re_mask, live):
    """A lower bound on the eyes the side of ``holder`` (the seat holding the top trump) takes
    from a trick boundary: for each seat of that side, its masters (trumps above every
    opponent's trump, not tied with one; a partner's trump does not count against them) each
    win for the side the trick they are played in, one trick each, and every other seat gives a
    card to each of those tricks (at least its cards with the fewest eyes); the best seat's."""
    trumps = ws[W_CLASSES + 4]
    side = (re_mask >> holder) & 1
    opp = np.int64(0)
    for s in range(4):
        if ((re_mask >> s) & 1) != side:
            opp |= ws[W_HELD + s]
    opp &= live & trumps
    best = 0
    for s in range(4):
        if ((re_mask >> s) & 1) != side:
            continue
        mine = ws[W_HELD + s] & trumps
        if opp != 0:
            top = _highest_bit_index(opp)
            mine &= ~((np.int64(2) << top) - 1) & ~ws[W_TIE + top]
        if mine != 0:
            e = _master_eyes(ws, s, mine)
            if e > best:
                best = e
    return best


@inline_kernel
def _eye_shift(ws, key, other):
    """Two keys (slot sets) whose cards have the same sequences up to relative rank but for
    their eyes, matched card by card, class by class, weakest first: (the eyes ``other``'s cards
    have more, summed; the eyes ``key``'s cards have more, summed). Every line of play after one
    maps to a line after the other with the same trick winners, so Re's eyes to come differ by
    at most the first below and the second above (payoff-similarity, Furtak and Buro 2011)."""
    dn = 0
    up = 0
    for k in range(5):
        cls = ws[W_CLASSES + k]
        a = key & cls
        b = other & cls
        if a == b:
            continue
        while a:
            i = lowest_bit_index(a) & 63
            j = lowest_bit_index(b) & 63
            a &= a - 1
            b &= b - 1
            d = EYES[ws[W_CARD + i]] - EYES[ws[W_CARD + j]]
            if d > 0:
                up += d
            else:
                dn -= d
    return dn, up

