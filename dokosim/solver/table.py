"""The transposition table (``new_table``, keys up to relative rank by ``_rank_key``, two-entry
buckets) and the payoff-similarity table's entries in the workspace: where an entry is, what it
holds, storing a search's bounds in both."""
import numpy as np

from ..engine.bits import lowest_bit_index, popcount
from ..engine.jit import inline_kernel
from .workspace import RKC_BITS, W_ATTR_NE, W_CLASSES, W_GEN, W_LEN, W_RKC, W_SIM_MASK, W_TIE

TT_BITS_DEFAULT = 20
# a table entry: key, then lo | hi << 8 | (best lead + 1) << 16 | cards left << 23 | generation << 29
HASH_MULT = -4658895280553007687  # 0xBF58476D1CE4E5B9 as a signed int64
KEY_SLOTS = (1 << 48) - 1  # the slots of a table key (above them: the seat to lead and the Re seats)


def new_table(bits: int = TT_BITS_DEFAULT) -> np.ndarray:
    """A transposition table of 2**bits entries (16 bytes each; allocate once, reuse)."""
    return np.zeros(2 << bits, dtype=np.int64)


@inline_kernel
def _class_rank_key(ws, k, rem, attr):
    """One class's part of ``_rank_key``: ``rem`` (the class's slots held, non-empty) up to
    relative rank, greedily; ``rem`` itself when the greedy scan finds no such set."""
    cls = ws[W_CLASSES + k]
    key = np.int64(0)
    q = lowest_bit_index(cls) & 63
    end = q + popcount(cls)
    prev_r = -1
    prev_c = -1
    m = rem
    while m:
        r = lowest_bit_index(m) & 63
        m &= m - 1
        a = ws[attr + r]
        tie_r = prev_r >= 0 and (ws[W_TIE + r] >> prev_r) & 1 == 1
        while q < end:
            if ws[attr + q] == a and (prev_c < 0 or ((ws[W_TIE + q] >> prev_c) & 1 == 1) == tie_r):
                break
            q += 1
        if q == end:
            return rem
        key |= np.int64(1) << q
        prev_c = q
        prev_r = r
        q += 1
    return key


@inline_kernel
def _rank_key(ws, live, attr):
    """The cards held at a trick boundary (``live``, as slots) up to relative rank: a set of
    slots of the same deal in which every class holds, weakest first, the same sequence of
    (owner, eyes, Dulle or not, tied with the one before or not) as ``live``. Positions with the
    same sequences play alike (trick winners, legal cards, eyes, parties), so they share a
    table entry. Each class's part is the lowest such set of its slots (greedy, slot by slot),
    or the class's live slots themselves when the greedy scan finds none (they have the same
    sequence too). A class's part depends only on its live slots and the deal, so it is cached
    (``W_RKC``, entries tagged with the table generation, which changes with the deal): the scan
    was a sixth of the search's time."""
    key = np.int64(0)
    gen = ws[W_GEN]
    for k in range(5):
        rem = live & ws[W_CLASSES + k]
        if rem == 0:
            continue
        tag = rem | (np.int64(k) << 48) | (np.int64(attr == W_ATTR_NE) << 51)
        i = W_RKC + 3 * (((tag * HASH_MULT) >> 40) & ((1 << RKC_BITS) - 1))
        if ws[i] == tag and ws[i + 1] == gen:
            key |= ws[i + 2]
        else:
            part = _class_rank_key(ws, k, rem, attr)
            ws[i] = tag
            ws[i + 1] = gen
            ws[i + 2] = part
            key |= part
    return key



@inline_kernel
def _table_index(tt, key):
    """The first of the two entries (a bucket) where ``key`` may be stored."""
    h = (key ^ (key >> 29)) * HASH_MULT
    return (h >> 24) & ((tt.shape[0] >> 1) - 2)



@inline_kernel
def _probe(ws, tt, key, left):
    """(index, found) of ``key`` (``left`` cards to play) in the table: the entry of its bucket
    that holds it for this deal (found), else the one to store it in: the first, unless that
    holds a deeper position of this deal."""
    gen = ws[W_GEN]
    i = _table_index(tt, key)
    if tt[2 * i] != key or (tt[2 * i + 1] >> 29) != gen:
        i += 1
    if tt[2 * i] == key and (tt[2 * i + 1] >> 29) == gen:
        return i, True
    i -= 1
    old = tt[2 * i + 1]
    if (old >> 29) == gen and ((old >> 23) & 63) > left:
        i += 1
    return i, False


@inline_kernel
def _sim_index(ws, akey):
    """The payoff-similarity entry (its first word in the workspace) for ``akey`` (the key
    without eyes)."""
    return W_LEN + 3 * ((((akey ^ (akey >> 29)) * HASH_MULT) >> 24) & ws[W_SIM_MASK])


@inline_kernel
def _bounds_of(best, alpha, beta, lo, hi):
    """The bounds (lo, hi) a fail-soft search's ``best`` in the window (alpha, beta) leaves of
    a value known to lie in [lo, hi]."""
    if best <= alpha:
        hi = best
    elif best >= beta:
        lo = best
    else:
        lo = best
        hi = best
    return lo, hi


@inline_kernel
def _store(ws, tt, i, key, word, si, akey):
    """Store ``key`` and its entry's ``word`` (bounds, best move, cards left, generation) in the
    table's entry ``i`` and, with ``si`` >= 0, in the payoff-similarity entry ``si`` (key without
    eyes ``akey``)."""
    tt[2 * i] = key
    tt[2 * i + 1] = word
    if si >= 0:
        ws[si] = akey
        ws[si + 1] = key & KEY_SLOTS
        ws[si + 2] = word
