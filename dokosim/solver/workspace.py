"""The solver's workspace: its layout (``W_*``), ``new_workspace``, ``load_position``, the views of
the position's arrays, and ``make_move`` / ``undo_move`` with their undo stack (docs/solver.md).

Everything a search needs but the transposition table (``table.py``) lives in one int64 array
the caller allocates once and passes in: the position's arrays (a ``Position``, engine/position.py),
the card slots, the undo stack, the move lists, the history of cut-offs, the statistics and the
rank-key cache; after ``W_LEN`` the payoff-similarity table (``new_workspace(sim_bits)``).
"""
import numpy as np

from ..engine.cards import EYES, T_TH
from ..engine.bits import lowest_bit_index
from ..engine.jit import decision_kernel, inline_kernel
from ..engine.layout import (
    H_LED_MASK, H_RE_MASK, P_CLARIFIED, P_KNOWN_KO, P_KNOWN_RE, P_LEADER, P_MARRIAGE_SEAT, P_NPLAYED, P_TRICK,
    P_TURN, R_DULLE, R_LEN, ST_LEN,
)
from ..engine.play import play_card
from ..engine.position import Position


# ---- the workspace (one int64 array)
W_ST = 0                           # the position's st, then its other arrays, in Position's order
W_HANDS = W_ST + ST_LEN            # 4
W_PLAYS = W_HANDS + 4              # 48, then 4 spare
PLAYS_LEN = 52
W_PLAY_SEAT = W_PLAYS + PLAYS_LEN  # 48
W_TRICK_WINNER = W_PLAY_SEAT + 48  # 12
W_POWER = W_TRICK_WINNER + 12      # 48
W_FCLASS = W_POWER + 48            # 48
W_CMASK = W_FCLASS + 48            # 5
W_RULES = W_CMASK + 5              # R_LEN
# card slots: each class's cards in consecutive bits, weakest first (equal power adjacent)
W_SLOT = W_RULES + R_LEN           # 48: slot of each physical card
W_CARD = W_SLOT + 48               # 48: physical card of each slot
W_TIE = W_CARD + 48                # 48: per slot, the slots of equal power in its class
W_CLASS = W_TIE + 48               # 48: per slot, the slots of its class
W_HELD = W_CLASS + 48              # 4: each seat's hand as slots
W_LIVE = W_HELD + 4                # slots of the cards held or on the table in the current trick
W_HAND_EYES = W_LIVE + 1           # eyes of the cards still held
W_GEN = W_HAND_EYES + 1            # the table's generation (advanced for each new deal)
W_NODES = W_GEN + 1                # nodes searched (statistics)
W_DEAL = W_NODES + 1               # 4: the hands as dealt (with the cards played), to tell deals apart
W_SIG = W_DEAL + 4                 # a digest of the deal's tables, rules and marriage seat
W_LIMIT = W_SIG + 1                # node limit of a solve (0: none), for capped benchmarks and budgets
W_ABORTED = W_LIMIT + 1            # 1 once a search ran past W_LIMIT (its results are not valid)
W_THREE = W_ABORTED + 1            # 1: the last three tricks by _three_tricks (set per solve by eyes._three_from_root)
W_ATTR = W_THREE + 1               # 48: per slot, what the relative-rank key keeps of its card (owner, eyes, Dulle)
W_CLASSES = W_ATTR + 48            # 5: the slots of each class
W_EYE_SLOTS = W_CLASSES + 5       # 6: the slots of the cards with each value of EYE_VALUES
W_SAVE_LIVE = W_EYE_SLOTS + 6        # 48: W_LIVE before each card index
W_SAVE_FULL = W_SAVE_LIVE + 48     # 48: 1 when all of st was saved at the card index (make_move)
W_SAVE = W_SAVE_FULL + 48          # 48 x ST_LEN: st (or what play_card may change of it) before each card index
MAX_MOVES = 16
W_MOVES = W_SAVE + 48 * ST_LEN     # 48 x MAX_MOVES: the ordered moves at each card index
W_VALS = W_MOVES + 48 * MAX_MOVES  # 48 x MAX_MOVES: the value (or bound) of each move searched
W_HIST = W_VALS + 48 * MAX_MOVES   # 4 x 48: history counts (cut-offs by seat and card)
W_STATS = W_HIST + 4 * 48         # 16 x 48: search statistics by card index (STATS only)
RKC_BITS = 13
W_RKC = W_STATS + 16 * 48          # 3 x 2**RKC_BITS: the rank-key cache (_class_rank_key): class's live slots
#                                    | class << 48, the table generation, that class's part of the key
W_ATTR_NE = W_RKC + 3 * (1 << RKC_BITS)  # 48: per slot, W_ATTR without the eyes (the payoff-similar key)
W_SIM_MASK = W_ATTR_NE + 48        # entries - 1 of the payoff-similarity table after W_LEN (0: none)
# a payoff-similarity entry (3 words from W_LEN + 3 * index): the key without eyes (with the seat
# to lead and the Re seats), the table key's slots (with eyes), the table entry's word
W_LEN = W_SIM_MASK + 1
STATS = False  # compile the statistics counters in (development)
S_NODES, S_TT_CUT, S_QUICK_CUT, S_CUT, S_CUT_IDX, S_CUT_FIRST, S_ALL, S_ALL_MOVES, S_TRIVIAL, S_TT_PROBE, S_TT_FOUND, S_QUASI, S_DOMINATED, S_SIM_FOUND, S_SIM_CUT = range(15)

EYE_VALUES = (0, 2, 3, 4, 10, 11)  # the eyes a card may have, ascending
INF = 100000  # above every value a search returns


def new_workspace(sim_bits: int = 0) -> np.ndarray:
    """A solver workspace (allocate once, pass to every solve), with a payoff-similarity table of
    2**sim_bits entries (none for 0)."""
    ws = np.zeros(W_LEN + (3 << sim_bits if sim_bits else 0), dtype=np.int64)
    ws[W_SIM_MASK] = (1 << sim_bits) - 1 if sim_bits else 0
    return ws


@inline_kernel
def views(ws):
    """The workspace's position and rules as views into it: (a ``Position``, rules), as
    ``play_card`` takes them (``plays`` has PLAYS_LEN cards, the last-tricks minimax's spare)."""
    return (Position(ws[W_ST:W_ST + ST_LEN], ws[W_HANDS:W_HANDS + 4], ws[W_PLAYS:W_PLAYS + PLAYS_LEN],
                     ws[W_PLAY_SEAT:W_PLAY_SEAT + 48], ws[W_TRICK_WINNER:W_TRICK_WINNER + 12],
                     ws[W_POWER:W_POWER + 48], ws[W_FCLASS:W_FCLASS + 48], ws[W_CMASK:W_CMASK + 5]),
            ws[W_RULES:W_RULES + R_LEN])


@inline_kernel
def _slot_of_cards(ws, mask):
    """The slots of the physical cards of ``mask``."""
    out = np.int64(0)
    while mask:
        c = lowest_bit_index(mask)
        mask &= mask - 1
        out |= np.int64(1) << ws[W_SLOT + c]
    return out


@decision_kernel
def load_position(ws, pos, rules):
    """Copy a position (a ``Position``, engine/position.py) and its ``rules`` into the workspace
    ``ws`` and prepare the search. Advances the table generation unless the position belongs to
    the same deal (same dealt hands, tables, rules and marriage) as the one loaded before."""
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
    for i in range(ST_LEN):
        ws[W_ST + i] = st[i]
    for s in range(4):
        ws[W_HANDS + s] = hands[s]
    ws[W_ABORTED] = 0
    n = st[P_NPLAYED]
    for i in range(48):
        ws[W_PLAYS + i] = plays[i] if i < n else 0
        ws[W_PLAY_SEAT + i] = play_seat[i] if i < n else 0
        ws[W_POWER + i] = power[i]
        ws[W_FCLASS + i] = fclass[i]
    for t in range(12):
        ws[W_TRICK_WINNER + t] = trick_winner[t]
    for k in range(5):
        ws[W_CMASK + k] = cmask[k]
    for i in range(R_LEN):
        ws[W_RULES + i] = rules[i]
    # slots: class by class, weakest first, equal power adjacent
    slot = 0
    for k in range(5):
        first = slot
        placed = np.int64(0)
        while True:
            best = -1
            for c in range(48):
                if fclass[c] == k and not (placed >> c) & 1 and (best < 0 or power[c] < power[best]):
                    best = c
            if best < 0:
                break
            placed |= np.int64(1) << best
            ws[W_SLOT + best] = slot
            ws[W_CARD + slot] = best
            slot += 1
        cls = ((np.int64(1) << slot) - 1) ^ ((np.int64(1) << first) - 1)
        ws[W_CLASSES + k] = cls
        for s in range(first, slot):
            ws[W_CLASS + s] = cls
            tie = np.int64(0)
            for s2 in range(first, slot):
                if power[ws[W_CARD + s2]] == power[ws[W_CARD + s]]:
                    tie |= np.int64(1) << s2
            ws[W_TIE + s] = tie
    eyes = 0
    for s in range(4):
        ws[W_HELD + s] = _slot_of_cards(ws, hands[s])
        m = hands[s]
        while m:
            c = lowest_bit_index(m)
            m &= m - 1
            eyes += EYES[c]
    ws[W_HAND_EYES] = eyes
    live = ws[W_HELD] | ws[W_HELD + 1] | ws[W_HELD + 2] | ws[W_HELD + 3]
    for i in range(n - (n & 3), n):
        live |= np.int64(1) << ws[W_SLOT + plays[i]]
    ws[W_LIVE] = live
    # the deal: what each seat held at the start
    same = True
    for s in range(4):
        dealt = hands[s]
        for i in range(n):
            if play_seat[i] == s:
                dealt |= np.int64(1) << plays[i]
        if ws[W_DEAL + s] != dealt:
            same = False
        ws[W_DEAL + s] = dealt
    # per slot, what makes two cards interchangeable in the relative-rank key (_rank_key)
    for sl in range(48):
        c = ws[W_CARD + sl]
        owner = 4
        for s in range(4):
            if (ws[W_DEAL + s] >> c) & 1:
                owner = s
        ws[W_ATTR + sl] = owner * 64 + EYES[c] * 2 + ((c >> 1) == T_TH)
        ws[W_ATTR_NE + sl] = owner * 64 + ((c >> 1) == T_TH)
    for i in range(6):
        m = np.int64(0)
        for sl in range(48):
            if EYES[ws[W_CARD + sl]] == EYE_VALUES[i]:
                m |= np.int64(1) << sl
        ws[W_EYE_SLOTS + i] = m
    # tables, rules and the marriage seat are part of the deal too
    sig = W_SIG
    key = st[P_MARRIAGE_SEAT] + 7 * rules[R_DULLE]
    for c in range(48):
        key = key * 1000003 + power[c] * 7 + fclass[c]
    for i in range(R_LEN):
        key = key * 1000003 + rules[i]
    if ws[sig] != key:
        same = False
    ws[sig] = key
    if not same or ws[W_GEN] == 0:
        ws[W_GEN] += 1
        for i in range(4 * 48):
            ws[W_HIST + i] = 0


@inline_kernel
def make_move(ws, pos, rules, c):
    """Play card ``c`` for the seat to move in the workspace's position ``pos`` (``views``, with its
    ``rules``): save what ``play_card``
    may change of ``st`` and the live slots at the card index (the undo stack), ``play_card``,
    and keep the slots held, the eyes held and the live slots current. Returns the eyes Re gains
    by the move (the trick's eyes if it completes the trick and Re wins it, else 0).
    ``undo_move`` takes it back.

    Once the parties are settled ``play_card`` changes only the fields saved here (the cards
    played, the turn, the led class, the tricks, the leader, and what the table knows of the
    parties); before a marriage's clarification it may change more, so all of ``st`` is saved."""
    st, plays, trick_winner = pos.st, pos.plays, pos.trick_winner
    n = st[P_NPLAYED]
    save = W_SAVE + ST_LEN * n
    if st[P_CLARIFIED]:
        ws[save] = st[P_TURN]
        ws[save + 1] = st[H_LED_MASK]
        ws[save + 2] = st[P_KNOWN_RE]
        ws[save + 3] = st[P_KNOWN_KO]
        ws[save + 4] = st[P_TRICK]
        ws[save + 5] = st[P_LEADER]
        ws[W_SAVE_FULL + n] = 0
    else:
        for j in range(ST_LEN):
            ws[save + j] = st[j]
        ws[W_SAVE_FULL + n] = 1
    live = ws[W_LIVE]
    ws[W_SAVE_LIVE + n] = live
    seat = st[P_TURN] & 3
    played = play_card(pos, c, rules)
    ws[W_HELD + seat] ^= np.int64(1) << ws[W_SLOT + played]
    ws[W_HAND_EYES] -= EYES[played]
    gain = 0
    if n & 3 == 3:
        gone = np.int64(0)
        eyes = 0
        for j in range(n - 3, n + 1):
            eyes += EYES[plays[j]]
            gone |= np.int64(1) << ws[W_SLOT + plays[j]]
        if (st[H_RE_MASK] >> trick_winner[st[P_TRICK] - 1]) & 1:
            gain = eyes
        ws[W_LIVE] = live & ~gone
    return gain


@inline_kernel
def undo_move(ws, st, hands, plays):
    """Take back the last card played by ``make_move``."""
    n = st[P_NPLAYED] - 1
    save = W_SAVE + ST_LEN * n
    if ws[W_SAVE_FULL + n]:
        for j in range(ST_LEN):
            st[j] = ws[save + j]
    else:
        st[P_NPLAYED] = n
        st[P_TURN] = ws[save]
        st[H_LED_MASK] = ws[save + 1]
        st[P_KNOWN_RE] = ws[save + 2]
        st[P_KNOWN_KO] = ws[save + 3]
        st[P_TRICK] = ws[save + 4]
        st[P_LEADER] = ws[save + 5]
    played = plays[n]
    seat = st[P_TURN] & 3
    hands[seat] |= np.int64(1) << played
    ws[W_HELD + seat] |= np.int64(1) << ws[W_SLOT + played]
    ws[W_HAND_EYES] += EYES[played]
    ws[W_LIVE] = ws[W_SAVE_LIVE + n]


@inline_kernel
def _table_eyes(plays, n):
    """Eyes of the cards of the trick on the table (before card index ``n``). Written out for
    the at most three cards: as a loop LLVM made masked gathers of it (8% of the search)."""
    k = n & 3
    total = 0
    if k > 0:
        total += EYES[plays[n - 1] & 63]
        if k > 1:
            total += EYES[plays[n - 2] & 63]
            if k > 2:
                total += EYES[plays[n - 3] & 63]
    return total


@inline_kernel
def _highest_bit_index(mask):
    """Index of the highest set bit of a non-zero ``mask``."""
    while mask & (mask - 1):
        mask &= mask - 1
    return lowest_bit_index(mask)


@inline_kernel
def _eyes_to_come(ws):
    """Eyes still to be won: the cards held and those on the table in the current trick."""
    return ws[W_HAND_EYES] + _table_eyes(ws[W_PLAYS:W_PLAYS + PLAYS_LEN], ws[W_ST + P_NPLAYED])


@decision_kernel
def past_eyes(ws):
    """Re's eyes in the tricks already completed (by the parties as they are: before a marriage
    is clarified every trick went to the marriage player)."""
    re_mask = ws[W_ST + H_RE_MASK]
    eyes = 0
    for t in range(ws[W_ST + P_TRICK]):
        if (re_mask >> ws[W_TRICK_WINNER + t]) & 1:
            for i in range(4 * t, 4 * t + 4):
                eyes += EYES[ws[W_PLAYS + i]]
    return eyes



@inline_kernel
def stat(ws, which, n, add):
    """Add ``add`` to the search statistic ``which`` (``S_*``) at card index ``n`` when STATS is
    compiled in; otherwise the call folds away."""
    if STATS:
        ws[W_STATS + 48 * which + n] += add
