"""Best play for the deal's score, with every hand known and no further calls (docs/solver.md).

The eyes solver (``eyes.py``) plays for eyes. A deal's score also counts the thresholds the
calls set, schwarz (tricks, not eyes) and the extra points (fox, doppelkopf, Charlie, against
the queens, RULES.md 1.7), and a side that maximises its eyes may give one of those away. This
search plays for the score itself: a fail-soft alpha-beta over single cards on the eyes
solver's workspace (``make_move`` / ``undo_move``, so ``play_card`` makes every trick), which
scores each complete deal with the rules' own ``tally_deal`` (what ``score_deal`` scores a
deal with). The value searched is Re's game value as the rules settle it (RULES.md 1.7's V as
Re scores it: positive when Re wins, before a soloist's tripling); it is zero-sum, so a seat in
``st[H_RE_MASK]`` maximises it and the others minimise it, as in the eyes solver.

A transposition table at trick boundaries (``new_score_table``) holds bounds on the value still
to come. That value depends on the cards each seat holds, the leader, the parties, the calls,
Re's eyes so far and whether each side has taken a trick (schwarz); the extra points already
taken only add to the deal's value (RULES.md 1.7 nets them), so an entry stores the value less
them and serves every position with the same key whatever those were. The key is exact (the
four hands and all of that), so the table never confuses two positions. Otherwise the search
is plain: one move for the two copies of a card and nothing more (cards adjacent in rank are
not equivalent here: a jack of clubs wins Charlie where a jack of spades does not), the
table's move first, then the history of cut-offs; no quick bounds. It is exact within its node
budget (the workspace's ``W_LIMIT``), which a few tricks from the end allows and the first
card of a deal does not.
"""
import numpy as np

from ..engine.cards import CONTRACT_IS_SOLO
from ..engine.bits import lowest_bit_index
from ..engine.jit import decision_kernel, inline_kernel
from ..engine.layout import (
    H_CONTRACT, H_RE_MASK, I_CHARLIE, I_DOPPELKOPF, P_CLARIFIED, P_HAND_SIZE, P_LEVEL_KO, P_LEVEL_RE,
    P_NPLAYED, P_TRICK, P_TURN,
)
from ..engine.play import legal_mask
from ..engine.scoring import WEIGHTS, tally_deal, tally_trick, tally_tricks
from .table import HASH_MULT
from .workspace import (
    INF, MAX_MOVES, W_ABORTED, W_GEN, W_HIST, W_LIMIT, W_MOVES, W_NODES, make_move, undo_move, views,
)


# one move for the two copies of a card: bit 2t+1 is dropped when bit 2t is there too
EVEN_CARDS = 0x555555555555
# the search's frame at card index n: W_MOVES + MAX_MOVES * n + F_*
F_ALPHA = 0
F_BETA = 1
F_BEST = 2
F_MOVES = 3  # the moves still to search
F_MAXI = 4
F_SEAT = 5
F_CARD = 6  # the move being searched
F_SLOT = 7  # the table entry of a trick boundary, -1 none
F_PAST = 8  # Re's extra points so far less Kontra's (the table stores the value less these)
F_LO = 9    # the window the frame searched with, after the table's bounds narrowed it
F_HI = 10
F_TTMOVE = 11  # the table's best move, searched first
F_BESTMOVE = 12
F_META = 13  # the table key's last word
F_TALLIED = 14  # 1 when F_PAST, F_EYES and F_TRICKS_RE hold the tricks so far (a trick boundary)
F_EYES = 15  # Re's eyes so far + 2**16 x Re's tricks so far

# the table (new_score_table): entries of E_LEN words: the four hands, then what else the
# value to come depends on, then the bounds and the best move
E_LEN = 6
E_META = 4
E_VALUE = 5
BOUND_OFFSET = 128  # bounds stored as value + 128 in 8 bits; 0 and 255: no bound
SCORE_TT_BITS = 18


def new_score_table(bits: int = SCORE_TT_BITS) -> np.ndarray:
    """The best-score search's transposition table: 2**bits entries of E_LEN int64."""
    return np.zeros((1 << bits) * E_LEN, dtype=np.int64)


@inline_kernel
def _open_frame(ws, tt, items, root, pos, alpha, beta):
    """Start the search of the position ``pos`` (the workspace's, ``views``) at the current card
    index in the window (alpha, beta). At a trick boundary the table may settle it: returns (True,
    its bound) then, else (False, 0)."""
    st, hands, plays, play_seat, trick_winner, _, fclass, cmask = pos
    n = st[P_NPLAYED]
    f = W_MOVES + MAX_MOVES * n
    seat = st[P_TURN] & 3
    maxi = (st[H_RE_MASK] >> seat) & 1
    ws[f + F_SLOT] = -1
    ws[f + F_TTMOVE] = -1
    ws[f + F_TALLIED] = 0
    if n & 3 == 0 and st[P_CLARIFIED] and tt.shape[0] > 0:
        # the value to come depends on the hands, the leader, the parties, the calls, Re's eyes
        # so far and whether each side has a trick yet; the extra points so far only add to it.
        # Those of the tricks so far: the frame a trick before plus the trick just taken.
        g = f - 4 * MAX_MOVES
        if n - 4 >= root and ws[g + F_TALLIED]:
            for i in range(I_DOPPELKOPF, I_CHARLIE):
                items[0, i] = 0
                items[1, i] = 0
            e, won = tally_trick(st, plays, play_seat, trick_winner, items, st[P_TRICK] - 1)
            eyes_re = (ws[g + F_EYES] & 0xFFFF) + e
            tricks_re = (ws[g + F_EYES] >> 16) + won
            past = ws[g + F_PAST]
        else:
            eyes_re, tricks_re = tally_tricks(st, plays, play_seat, trick_winner, items, st[P_TRICK])
            past = 0
        for i in range(I_DOPPELKOPF, I_CHARLIE):
            past += WEIGHTS[i] * (items[0, i] - items[1, i])
        ws[f + F_TALLIED] = 1
        ws[f + F_EYES] = eyes_re | (tricks_re << 16)
        meta = (seat | ((1 if tricks_re > 0 else 0) << 2) | ((1 if st[P_TRICK] > tricks_re else 0) << 3) | (eyes_re << 4)
                | (st[H_RE_MASK] << 12) | (st[P_LEVEL_RE] << 16) | (st[P_LEVEL_KO] << 19)
                | (CONTRACT_IS_SOLO[st[H_CONTRACT]] << 22) | (ws[W_GEN] << 23))
        h = meta * HASH_MULT
        for j in range(4):
            h = (h ^ hands[j] ^ (h >> 31)) * HASH_MULT
        slot = ((h >> 20) & ((tt.shape[0] // E_LEN) - 1)) * E_LEN
        ws[f + F_SLOT] = slot
        ws[f + F_PAST] = past
        ws[f + F_META] = meta
        if (tt[slot + E_META] == meta and tt[slot] == hands[0] and tt[slot + 1] == hands[1]
                and tt[slot + 2] == hands[2] and tt[slot + 3] == hands[3]):
            entry = tt[slot + E_VALUE]
            lo = entry & 255
            hi = (entry >> 8) & 255
            ws[f + F_TTMOVE] = ((entry >> 16) & 127) - 1
            if lo > 0:
                lo += past - BOUND_OFFSET
                if lo >= beta:
                    return True, lo
                alpha = max(alpha, lo)
            if hi < 255:
                hi += past - BOUND_OFFSET
                if hi <= alpha:
                    return True, hi
                beta = min(beta, hi)
            if alpha >= beta:
                return True, alpha
    legal = legal_mask(st, hands[seat], plays, fclass, cmask)
    ws[f + F_ALPHA] = alpha
    ws[f + F_BETA] = beta
    ws[f + F_LO] = alpha
    ws[f + F_HI] = beta
    ws[f + F_BEST] = -INF if maxi else INF
    ws[f + F_MOVES] = legal & ~((legal & (legal >> 1) & EVEN_CARDS) << 1)
    ws[f + F_MAXI] = maxi
    ws[f + F_SEAT] = seat
    ws[f + F_BESTMOVE] = -1
    return False, 0


@inline_kernel
def _close_frame(ws, tt, hands, n):
    """The frame at card index ``n`` is done: store its value in the table (a trick boundary)."""
    f = W_MOVES + MAX_MOVES * n
    slot = ws[f + F_SLOT]
    best = ws[f + F_BEST]
    if slot >= 0 and -100 < best < 100:
        v = best - ws[f + F_PAST] + BOUND_OFFSET
        lo = 0 if best <= ws[f + F_LO] else v
        hi = 255 if best >= ws[f + F_HI] else v
        if 0 < v < 255:
            tt[slot] = hands[0]
            tt[slot + 1] = hands[1]
            tt[slot + 2] = hands[2]
            tt[slot + 3] = hands[3]
            tt[slot + E_META] = ws[f + F_META]
            tt[slot + E_VALUE] = lo | (hi << 8) | ((ws[f + F_BESTMOVE] + 1) << 16)
    return best


@inline_kernel
def _close_child(ws, n, v):
    """The value ``v`` of a move searched from the frame at card index ``n``."""
    f = W_MOVES + MAX_MOVES * n
    if ws[f + F_MAXI]:
        if v > ws[f + F_BEST]:
            ws[f + F_BEST] = v
            ws[f + F_BESTMOVE] = ws[f + F_CARD]
            if v > ws[f + F_ALPHA]:
                ws[f + F_ALPHA] = v
    elif v < ws[f + F_BEST]:
        ws[f + F_BEST] = v
        ws[f + F_BESTMOVE] = ws[f + F_CARD]
        if v < ws[f + F_BETA]:
            ws[f + F_BETA] = v
    if ws[f + F_ALPHA] >= ws[f + F_BETA]:
        ws[W_HIST + 48 * ws[f + F_SEAT] + ws[f + F_CARD]] += (48 - n) * (48 - n)


@decision_kernel
def score_search(ws, tt, items, alpha, beta):
    """Re's game value (RULES.md 1.7, as Re scores it, before solo tripling) of the deal under
    best play for the score from the workspace's position, fail-soft: exact when it lies
    strictly between ``alpha`` and ``beta``, else a bound on that side. ``tt``: the table
    (``new_score_table``; an empty array for none). ``items`` (2 x N_ITEMS) is scratch for the
    rules' ``tally_deal``, which scores each complete deal. The search keeps its frames in the
    workspace's move lists, not in recursion: a recursive version crashed when numba loaded it
    from its cache. Past the workspace's node limit it sets ``ws[W_ABORTED]`` and returns 0.
    The position is unchanged on return."""
    pos, rules = views(ws)
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
    root = st[P_NPLAYED]
    end = 4 * st[P_HAND_SIZE]
    ws[W_NODES] += 1
    if root == end:
        return tally_deal(st, plays, play_seat, trick_winner, items)[2]
    done, v = _open_frame(ws, tt, items, root, pos, alpha, beta)
    if done:
        return v
    n = root
    while True:
        f = W_MOVES + MAX_MOVES * n
        m = ws[f + F_MOVES]
        if m != 0 and ws[f + F_ALPHA] < ws[f + F_BETA]:
            # the table's move, then the move with the most cut-offs so far (the history
            # heuristic), the lowest first
            c = ws[f + F_TTMOVE]
            if c < 0 or not (m >> c) & 1:
                hist = W_HIST + 48 * ws[f + F_SEAT]
                c = lowest_bit_index(m)
                rest = m & (m - 1)
                while rest:
                    x = lowest_bit_index(rest)
                    rest &= rest - 1
                    if ws[hist + x] > ws[hist + c]:
                        c = x
            ws[f + F_MOVES] = m & ~(np.int64(1) << c)
            ws[f + F_CARD] = c
            make_move(ws, pos, rules, c)
            ws[W_NODES] += 1
            if ws[W_LIMIT] > 0 and ws[W_NODES] > ws[W_LIMIT]:
                ws[W_ABORTED] = 1
                while st[P_NPLAYED] > root:
                    undo_move(ws, st, hands, plays)
                return 0
            if n + 1 == end:
                v = tally_deal(st, plays, play_seat, trick_winner, items)[2]
                undo_move(ws, st, hands, plays)
                _close_child(ws, n, v)
            else:
                done, v = _open_frame(ws, tt, items, root, pos, ws[f + F_ALPHA], ws[f + F_BETA])
                if done:
                    undo_move(ws, st, hands, plays)
                    _close_child(ws, n, v)
                else:
                    n += 1
        else:
            v = _close_frame(ws, tt, hands, n)
            if n == root:
                return v
            undo_move(ws, st, hands, plays)
            n -= 1
            _close_child(ws, n, v)


@decision_kernel
def solve_score_values(ws, tt, items, values):
    """Re's game value under best play for the score from the workspace's position (as
    ``score_search``), and in ``values[c]`` the value after physical card ``c`` of the seat to
    move and best play after it, for every legal ``c`` (-INF for the others). Each card is
    searched with the full window, so each value is exact. Past the node limit it returns 0
    with ``ws[W_ABORTED]`` set."""
    pos, rules = views(ws)
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
    for c in range(48):
        values[c] = -INF
    seat = st[P_TURN] & 3
    maxi = (st[H_RE_MASK] >> seat) & 1 == 1
    legal = legal_mask(st, hands[seat], plays, fclass, cmask)
    best = -INF if maxi else INF
    m = legal
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        if c & 1 and (legal >> (c - 1)) & 1:
            values[c] = values[c - 1]
            continue
        make_move(ws, pos, rules, c)
        v = score_search(ws, tt, items, -INF, INF)
        undo_move(ws, st, hands, plays)
        if ws[W_ABORTED]:
            return 0
        values[c] = v
        if (maxi and v > best) or (not maxi and v < best):
            best = v
    return best
