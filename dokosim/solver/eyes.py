"""Double-dummy solver: the eyes Re takes from a position under best play by both sides, with
every hand known and no further calls (docs/solver.md). This module is the solver's public face:
the entry points (``solve_eyes``, ``solve_reaches``, ``solve_card_values``, ``audit_line``) and
every name the rest of the package takes from the solver; the search lives in the modules
beside it, split along the seams of a double-dummy solver:

- ``workspace.py``: the workspace's layout (``W_*``), ``new_workspace``, ``load_position``, the
  views of the position's arrays, ``make_move`` / ``undo_move`` and their undo stack;
- ``moves.py``: equivalent and quasi-equivalent cards and the trick facts of the move ordering;
- ``bounds.py``: quick tricks, later tricks and the payoff-similarity bound (``_eye_shift``);
- ``table.py``: the transposition table (``new_table``, ``_rank_key``) and the
  payoff-similarity table's entries;
- ``endgame.py``: the last two or three tricks by a plain minimax (``_two_tricks``,
  ``_three_tricks``: one minimax compiled twice);
- ``search.py``: the alpha-beta driver (``search``).

The rules come from the play kernels only: ``legal_mask`` gives the cards a seat may play,
``play_card`` puts a card on the table (trick winner through ``best_offset``, the marriage's
clarification, the Dulle rule, piglets through the deal's ``power`` table), and the search
undoes a card by restoring ``st`` and the hand. The value searched is Re's eyes in the tricks
still to be completed (the trick on the table included); eyes are zero-sum between Re and
Kontra, so a seat in ``st[H_RE_MASK]`` maximises it and the others minimise it. Before a
marriage is clarified only the marriage player is in that mask; a seat joins Re when
``play_card`` says so (the kernels' parties at every moment).

Techniques: fail-soft alpha-beta over single cards (``make_move`` / ``undo_move``; once the
parties are settled the undo stack keeps only what ``play_card`` changes), the last trick
scored without search and the last two by a plain minimax (``_two_tricks``; the last three by
``_three_tricks`` when the table and the bounds do not answer), a transposition
table at trick boundaries (key: the cards still held up to relative rank (``_rank_key``), the
seat to lead and the Re seats; value: bounds on Re's eyes to come and the best lead; two-entry
buckets, the first kept for the deeper position) and beside it, in the workspace, a
payoff-similarity table (key: the same without the eyes; a hit bounds the value by the stored
bounds widened by the eye differences, ``_eye_shift``), quick bounds at every node (no eyes left to
win, and at a trick boundary the leader's sure trump tricks, its plain-suit quick tricks and
the later tricks of the side holding the top trump), one move per class of equivalent cards
(cards of one seat with the same eyes between which no other seat holds a card of the class,
nor has one on the table; the two copies of a card are the simplest case), quasi-equivalent
cards (the same with different eyes: skipped when the other's bound plus or minus the
difference decides the window; and skipped outright when the trick in play surely goes to one side,
the card with fewer eyes for that side: the exact dominance rule), move ordering from the open hands (the table's move, a lead
no opponent can beat, a lead a partner surely takes, trumps, the history of cut-offs;
following: a card that surely takes the trick, smearing on a partner's safe card or one still
to come, cheap winners, the fewest eyes), and the exact value
by null-window searches (the first at a guess, then bisecting the range the bounds leave).

Everything a search needs lives in two int64 arrays the caller allocates once and passes in:
the workspace (``new_workspace``, layout ``W_*`` in ``workspace.py``: the position's arrays, the
card slots, the undo stack and the move lists) and the transposition table (``new_table``). A
table entry is tagged with a generation that ``load_position`` advances when the deal changes,
so one table serves many solves without clearing; positions of one deal share their entries.

Entry points: ``load_position`` (copy a position in), ``solve_eyes``, ``solve_reaches`` and
``solve_card_values``; all eyes they return are Re's final eyes (tricks already taken
included).
"""
from ..engine.bits import lowest_bit_index
from ..engine.jit import decision_kernel, inline_kernel
from ..engine.layout import H_RE_MASK, P_HAND_SIZE, P_NPLAYED, P_TURN
from ..engine.play import legal_mask
from .moves import _class_tops, _equivalent_above
from .search import search
from .table import HASH_MULT, KEY_SLOTS, TT_BITS_DEFAULT, new_table  # noqa: F401 (public here)
from .workspace import (  # noqa: F401 (the layout is public here)
    INF, MAX_MOVES, PLAYS_LEN, STATS, W_ABORTED, W_CMASK, W_FCLASS, W_GEN, W_HANDS, W_HELD, W_HIST, W_LEN,
    W_LIMIT, W_LIVE, W_MOVES, W_NODES, W_PLAY_SEAT, W_PLAYS, W_POWER, W_RULES, W_SIM_MASK, W_ST, W_STATS,
    W_THREE, W_TRICK_WINNER, _eyes_to_come, load_position, make_move, new_workspace, past_eyes, undo_move,
    views,
)

SEARCH_VERSION = 8  # the search's round (docs/solver.md, Speed): raise it when a change moves node counts, on which a node-limited run's answers depend
THREE_ROOT_CARDS = 36  # _three_tricks pays with up to 9 tricks left at the root, not from the first card (docs/solver.md, round 6)


@inline_kernel
def _three_from_root(ws):
    """Set ``ws[W_THREE]`` for a solve from the current position: the last three tricks by
    ``_three_tricks`` only in a solve from at most ``THREE_ROOT_CARDS`` cards left (docs/solver.md,
    round 6)."""
    left = 4 * ws[W_ST + P_HAND_SIZE] - ws[W_ST + P_NPLAYED]
    ws[W_THREE] = 1 if left <= THREE_ROOT_CARDS else 0


@decision_kernel
def exact_to_come(ws, tt, guess):
    """Re's exact eyes in the tricks still to be completed: null-window searches until the bounds
    meet, the first at ``guess``, then each halving the range left (the fail-soft bounds of a
    search narrow it further; MTD(f)'s steps from the last bound took 4 times as many searches)."""
    _three_from_root(ws)
    lo = 0
    hi = _eyes_to_come(ws)
    beta = min(max(guess, lo + 1), hi)
    while lo < hi:
        g = search(ws, tt, beta - 1, beta)
        if ws[W_ABORTED]:
            return -1
        if g < beta:
            hi = g
        else:
            lo = g
        beta = (lo + hi + 1) // 2
    return lo


@decision_kernel
def exact_full_window(ws, tt):
    """Re's exact eyes in the tricks still to be completed: one alpha-beta search over the whole
    range (an alternative to MTD(f), for the benchmarks)."""
    _three_from_root(ws)
    return search(ws, tt, -1, _eyes_to_come(ws) + 1)


@decision_kernel
def solve_eyes(ws, tt):
    """Re's final eyes under best play from the loaded position (-1 when the search ran past the
    node limit ``ws[W_LIMIT]``)."""
    v = exact_to_come(ws, tt, _eyes_to_come(ws) // 2)
    return -1 if ws[W_ABORTED] else past_eyes(ws) + v


@decision_kernel
def solve_reaches(ws, tt, threshold):
    """Whether Re ends with at least ``threshold`` eyes under best play (one null-window search;
    meaningless when ``ws[W_ABORTED]`` is set after it: the search ran past the node limit)."""
    need = threshold - past_eyes(ws)
    if need <= 0:
        return True
    if need > _eyes_to_come(ws):
        return False
    _three_from_root(ws)
    return search(ws, tt, need - 1, need) >= need


@decision_kernel
def solve_card_values(ws, tt, values):
    """values[c] = Re's final eyes under best play after the seat to move plays physical card c
    now, for every legal c (both copies of a card held twice); -1 for the other cards. Returns
    Re's final eyes under best play (the best value for the seat to move), or -1 when the search
    ran past the node limit ``ws[W_LIMIT]`` (``values`` is then incomplete)."""
    pos, rules = views(ws)
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
    for c in range(48):
        values[c] = -1
    past = past_eyes(ws)
    seat = st[P_TURN] & 3
    maxi = (st[H_RE_MASK] >> seat) & 1 == 1
    legal = legal_mask(st, hands[seat], plays, fclass, cmask)
    mine = ws[W_HELD + seat]
    live = ws[W_LIVE]
    best = -1 if maxi else INF
    guess = _eyes_to_come(ws) // 2
    # the strongest card of each class of equivalent cards first, then the rest copy it
    m = _class_tops(ws, mine, live, legal)
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        gain = make_move(ws, pos, rules, c)
        v = past + gain + exact_to_come(ws, tt, guess - gain)
        guess = v - past
        undo_move(ws, st, hands, plays)
        if ws[W_ABORTED]:
            return -1
        values[c] = v
        if (maxi and v > best) or (not maxi and v < best):
            best = v
    m = legal
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        d = c
        while values[d] < 0:
            d = _equivalent_above(ws, mine, live, d)
        values[c] = values[d]
    return best


@decision_kernel
def audit_line(ws, tt, cards, first, count, seat_out, best_out, played_out, loss_out):
    """Play error of each card of a deal against double-dummy play (``dokosim audit``,
    docs/audit.md). The workspace holds a position of the deal (``load_position``, normally the
    one before the first card); ``cards[i]`` is the i-th card played from it (either copy of a
    card held twice). The cards before index ``first`` are put on the table unaudited, then for
    each of the ``count`` cards after: ``seat_out`` the seat that played it, ``best_out`` Re's
    final eyes under best play from the position before it (the value of the best card for the
    mover), ``played_out`` Re's final eyes after it and best play after it, ``loss_out`` the eyes
    the card gave away from the mover's side (best - played for a seat of ``st[H_RE_MASK]``,
    played - best for the others; never negative). One exact solve per card and one more
    before the first: the value after a card is the value of the position before the next one,
    and all of them are positions of one deal, so they share the table's entries. Returns the
    number of cards audited, or -1 when a search ran past the node limit ``ws[W_LIMIT]``."""
    pos, rules = views(ws)
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
    for i in range(first):
        make_move(ws, pos, rules, cards[i])
    past = past_eyes(ws)
    v = past + exact_to_come(ws, tt, _eyes_to_come(ws) // 2)
    if ws[W_ABORTED]:
        return -1
    for k in range(count):
        seat = st[P_TURN] & 3
        maxi = (st[H_RE_MASK] >> seat) & 1 == 1
        past = past_eyes(ws)
        gain = make_move(ws, pos, rules, cards[first + k])
        to_come = exact_to_come(ws, tt, v - past - gain)
        if ws[W_ABORTED]:
            return -1
        played = past + gain + to_come
        seat_out[k] = seat
        best_out[k] = v
        played_out[k] = played
        loss_out[k] = v - played if maxi else played - v
        v = past_eyes(ws) + to_come  # the value of the position before the next card
    return count
