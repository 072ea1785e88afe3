"""Best play for the deal's score, with every hand known and no further calls (docs/solver.md).

The eyes solver (``solver.py``) plays for eyes. A deal's score also counts the thresholds the
calls set, schwarz (tricks, not eyes) and the extra points (fox, doppelkopf, Charlie, against
the queens, RULES.md 1.7), and a side that maximises its eyes may give one of those away. This
search plays for the score itself: a plain fail-soft alpha-beta over single cards on the
solver's workspace (``make_move`` / ``undo_move``, so ``play_card`` makes every trick), which
scores each complete deal with the rules' own ``tally_deal`` (what ``score_deal`` scores a deal with). The value searched is Re's game
value as ``score_deal`` settles it (RULES.md 1.7's V as Re scores it: positive when Re wins,
before a soloist's tripling); it is zero-sum, so a seat in ``st[H_RE_MASK]`` maximises it and
the others minimise it, as in the eyes solver.

Cheaper than that solver's search it is not: no table, no bounds but the window, one move for
the two copies of a card and nothing more (cards adjacent in rank are not equivalent here: a
jack of clubs wins Charlie where a jack of spades does not). It is exact within its node
budget (the workspace's ``W_LIMIT``), which a few tricks from the end allows and the first card
of a deal does not.
"""
import numpy as np

from .bits import lowest_bit_index
from .jit import decision_kernel, inline_kernel
from .layout import H_RE_MASK, P_HAND_SIZE, P_NPLAYED, P_TURN, R_LEN, ST_LEN
from .play import legal_mask
from .scoring import tally_deal
from .solver import (
    INF, MAX_MOVES, PLAYS_LEN, W_ABORTED, W_CMASK, W_FCLASS, W_HANDS, W_HIST, W_LIMIT, W_MOVES, W_NODES, W_PLAY_SEAT, W_PLAYS,
    W_POWER, W_RULES, W_ST, W_TRICK_WINNER, make_move, undo_move,
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


@inline_kernel
def _open_frame(ws, st, hands, plays, fclass, cmask, alpha, beta):
    """Start the search of the position at the current card index in the window (alpha, beta)."""
    n = st[P_NPLAYED]
    f = W_MOVES + MAX_MOVES * n
    seat = st[P_TURN] & 3
    maxi = (st[H_RE_MASK] >> seat) & 1
    legal = legal_mask(st, hands[seat], plays, fclass, cmask)
    ws[f + F_ALPHA] = alpha
    ws[f + F_BETA] = beta
    ws[f + F_BEST] = -INF if maxi else INF
    ws[f + F_MOVES] = legal & ~((legal & (legal >> 1) & EVEN_CARDS) << 1)
    ws[f + F_MAXI] = maxi
    ws[f + F_SEAT] = seat


@inline_kernel
def _close_child(ws, n, v):
    """The value ``v`` of a move searched from the frame at card index ``n``."""
    f = W_MOVES + MAX_MOVES * n
    if ws[f + F_MAXI]:
        if v > ws[f + F_BEST]:
            ws[f + F_BEST] = v
            if v > ws[f + F_ALPHA]:
                ws[f + F_ALPHA] = v
    elif v < ws[f + F_BEST]:
        ws[f + F_BEST] = v
        if v < ws[f + F_BETA]:
            ws[f + F_BETA] = v
    if ws[f + F_ALPHA] >= ws[f + F_BETA]:
        ws[W_HIST + 48 * ws[f + F_SEAT] + ws[f + F_CARD]] += (48 - n) * (48 - n)


@decision_kernel
def score_search(ws, items, alpha, beta):
    """Re's game value (RULES.md 1.7, as Re scores it, before solo tripling) of the deal under
    best play for the score from the workspace's position, fail-soft: exact when it lies
    strictly between ``alpha`` and ``beta``, else a bound on that side. ``items`` (2 x N_ITEMS)
    is scratch for the rules' ``tally_deal``, which scores each complete deal. The search keeps
    its frames in the workspace's move lists, not in recursion: a recursive version crashed
    when numba loaded it from its cache. Past the
    workspace's node limit it sets ``ws[W_ABORTED]`` and returns 0. The position is unchanged
    on return."""
    st = ws[W_ST:W_ST + ST_LEN]
    hands = ws[W_HANDS:W_HANDS + 4]
    plays = ws[W_PLAYS:W_PLAYS + PLAYS_LEN]
    play_seat = ws[W_PLAY_SEAT:W_PLAY_SEAT + 48]
    trick_winner = ws[W_TRICK_WINNER:W_TRICK_WINNER + 12]
    power = ws[W_POWER:W_POWER + 48]
    fclass = ws[W_FCLASS:W_FCLASS + 48]
    cmask = ws[W_CMASK:W_CMASK + 5]
    rules = ws[W_RULES:W_RULES + R_LEN]
    root = st[P_NPLAYED]
    end = 4 * st[P_HAND_SIZE]
    ws[W_NODES] += 1
    if root == end:
        return tally_deal(st, plays, play_seat, trick_winner, items)[2]
    _open_frame(ws, st, hands, plays, fclass, cmask, alpha, beta)
    n = root
    while True:
        f = W_MOVES + MAX_MOVES * n
        m = ws[f + F_MOVES]
        if m != 0 and ws[f + F_ALPHA] < ws[f + F_BETA]:
            # the move with the most cut-offs so far (the history heuristic), the lowest first
            hist = W_HIST + 48 * (st[P_TURN] & 3)
            c = lowest_bit_index(m)
            rest = m & (m - 1)
            while rest:
                x = lowest_bit_index(rest)
                rest &= rest - 1
                if ws[hist + x] > ws[hist + c]:
                    c = x
            ws[f + F_MOVES] = m & ~(np.int64(1) << c)
            ws[f + F_CARD] = c
            make_move(ws, st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules, c)
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
                _open_frame(ws, st, hands, plays, fclass, cmask, ws[f + F_ALPHA], ws[f + F_BETA])
                n += 1
        else:
            v = ws[f + F_BEST]
            if n == root:
                return v
            undo_move(ws, st, hands, plays)
            n -= 1
            _close_child(ws, n, v)


@decision_kernel
def solve_score_values(ws, items, values):
    """Re's game value under best play for the score from the workspace's position (as
    ``score_search``), and in ``values[c]`` the value after physical card ``c`` of the seat to
    move and best play after it, for every legal ``c`` (-INF for the others). Each card is
    searched with the full window, so each value is exact. Past the node limit it returns 0
    with ``ws[W_ABORTED]`` set."""
    st = ws[W_ST:W_ST + ST_LEN]
    hands = ws[W_HANDS:W_HANDS + 4]
    plays = ws[W_PLAYS:W_PLAYS + PLAYS_LEN]
    play_seat = ws[W_PLAY_SEAT:W_PLAY_SEAT + 48]
    trick_winner = ws[W_TRICK_WINNER:W_TRICK_WINNER + 12]
    power = ws[W_POWER:W_POWER + 48]
    fclass = ws[W_FCLASS:W_FCLASS + 48]
    cmask = ws[W_CMASK:W_CMASK + 5]
    rules = ws[W_RULES:W_RULES + R_LEN]
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
        make_move(ws, st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules, c)
        v = score_search(ws, items, -INF, INF)
        undo_move(ws, st, hands, plays)
        if ws[W_ABORTED]:
            return 0
        values[c] = v
        if (maxi and v > best) or (not maxi and v < best):
            best = v
    return best
