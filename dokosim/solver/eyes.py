"""Double-dummy solver: the eyes Re takes from a position under best play by both sides, with
every hand known and no further calls (docs/solver.md).

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
the workspace (``new_workspace``, layout ``W_*`` below: the position's arrays, the card slots,
the undo stack and the move lists) and the transposition table (``new_table``). A table entry
is tagged with a generation that ``load_position`` advances when the deal changes, so one
table serves many solves without clearing; positions of one deal share their entries.

Entry points: ``load_position`` (copy a position in), ``solve_eyes``, ``solve_reaches`` and
``solve_card_values``; all eyes they return are Re's final eyes (tricks already taken
included).
"""
import numpy as np

from ..engine.cards import EYES, T_TH
from ..engine.bits import lowest_bit_index, popcount
from ..engine.jit import decision_kernel, inline_kernel
from ..engine.layout import (
    H_LED_MASK, H_RE_MASK, P_CLARIFIED, P_HAND_SIZE, P_KNOWN_KO, P_KNOWN_RE, P_LEADER, P_MARRIAGE_SEAT,
    P_NPLAYED, P_TRICK, P_TURN, R_DULLE, R_LEN, ST_LEN,
)
from ..engine.play import best_offset, card_beats, legal_mask, play_card

# ---- the workspace (one int64 array)
W_ST = 0                           # the position's st, then its other arrays, as play_card takes them
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
W_THREE = W_ABORTED + 1            # 1: the last three tricks by _three_tricks (set per solve by _three_from_root)
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
SEARCH_VERSION = 8  # the search's round (docs/solver.md, Speed): raise it when a change moves node counts, on which a node-limited run's answers depend
THREE_ROOT_CARDS = 36  # _three_tricks pays with up to 9 tricks left at the root, not from the first card (docs/solver.md, round 6)
STATS = False  # compile the statistics counters in (development)
S_NODES, S_TT_CUT, S_QUICK_CUT, S_CUT, S_CUT_IDX, S_CUT_FIRST, S_ALL, S_ALL_MOVES, S_TRIVIAL, S_TT_PROBE, S_TT_FOUND, S_QUASI, S_DOMINATED, S_SIM_FOUND, S_SIM_CUT = range(15)

EYE_VALUES = (0, 2, 3, 4, 10, 11)  # the eyes a card may have, ascending
TT_BITS_DEFAULT = 20
# a table entry: key, then lo | hi << 8 | (best lead + 1) << 16 | cards left << 23 | generation << 29
HASH_MULT = -4658895280553007687  # 0xBF58476D1CE4E5B9 as a signed int64
INF = 100000
KEY_SLOTS = (1 << 48) - 1  # the slots of a table key (above them: the seat to lead and the Re seats)


def new_workspace(sim_bits: int = 0) -> np.ndarray:
    """A solver workspace (allocate once, pass to every solve), with a payoff-similarity table of
    2**sim_bits entries (none for 0)."""
    ws = np.zeros(W_LEN + (3 << sim_bits if sim_bits else 0), dtype=np.int64)
    ws[W_SIM_MASK] = (1 << sim_bits) - 1 if sim_bits else 0
    return ws


def new_table(bits: int = TT_BITS_DEFAULT) -> np.ndarray:
    """A transposition table of 2**bits entries (16 bytes each; allocate once, reuse)."""
    return np.zeros(2 << bits, dtype=np.int64)


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
def load_position(ws, st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules):
    """Copy a position (the arrays play_card takes) into the workspace ``ws`` and prepare the
    search. Advances the table generation unless the position belongs to the same deal (same
    dealt hands, tables, rules and marriage) as the one loaded before."""
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
def _equivalent_above(ws, mine, live, c):
    """The next stronger card of the seat holding ``c`` that plays exactly like ``c`` (same class
    and eyes, no card of another seat between them or tied with either, in hand or on the
    table), or -1."""
    s = ws[W_SLOT + c] & 63
    above = live & ws[W_CLASS + s] & ~((np.int64(2) << s) - 1)
    if above == 0:
        return -1
    p = lowest_bit_index(above) & 63
    if not (mine >> p) & 1:
        return -1
    d = ws[W_CARD + p]
    if EYES[d] != EYES[c]:
        return -1
    if (ws[W_TIE + p] & live & ~mine) != 0 or (ws[W_TIE + s] & live & ~mine) != 0:
        return -1
    return d


@inline_kernel
def _beats(x, y, power, fclass, dulle, last):
    """Whether card ``x`` played after card ``y`` beats it (``y`` winning the trick so far; the
    rules' ``card_beats``); False when ``x`` is -1."""
    if x < 0:
        return False
    return card_beats(x & 63, y & 63, power, fclass, dulle, last)


@inline_kernel
def _strongest_answer(ws, s, cls):
    """The strongest card seat ``s`` may play to a trick of class-slots ``cls``: its highest card
    of the class, or when void its highest trump; -1 when it holds neither."""
    held = ws[W_HELD + s]
    answers = held & cls
    if answers == 0:
        answers = held & ws[W_CLASSES + 4]
    if answers == 0:
        return -1
    return ws[W_CARD + _highest_bit_index(answers)]


@inline_kernel
def _no_opponent_beats(ws, plays, n, card, cls, seat, re_mask, power, fclass, dulle, last):
    """Whether no opponent of ``seat``'s side beats ``card`` with its strongest answer to a trick
    of class-slots ``cls``."""
    side = (re_mask >> seat) & 1
    for j in range(1, 4):
        s = (seat + j) & 3
        if ((re_mask >> s) & 1) != side and _beats(_strongest_answer(ws, s, cls), card, power,
                                                   fclass, dulle, last):
            return False
    return True


@inline_kernel
def _safe_lead(ws, plays, n, c, seat, re_mask, power, fclass, dulle, last):
    """Whether card ``c`` led by ``seat`` wins the trick whatever the opponents play (each
    opponent's strongest answer: the highest card of the suit led, or when void the highest
    trump, does not beat it)."""
    return _no_opponent_beats(ws, plays, n, c, ws[W_CLASSES + fclass[c]], seat, re_mask, power, fclass, dulle,
                              last)


@inline_kernel
def _partner_lead(ws, plays, n, c, seat, re_mask, power, fclass, dulle, last):
    """Whether a partner of ``seat`` has an answer to the lead ``c`` (its strongest: the highest
    card of the suit led, or when void its highest trump) that beats ``c`` and that no opponent's
    strongest answer beats (for the move ordering only: the seats' order in the trick is not
    considered)."""
    cls = ws[W_CLASSES + fclass[c]]
    side = (re_mask >> seat) & 1
    for j in range(1, 4):
        p = (seat + j) & 3
        if ((re_mask >> p) & 1) != side:
            continue
        pc = _strongest_answer(ws, p, cls)
        if _beats(pc, c, power, fclass, dulle, last) and \
                _no_opponent_beats(ws, plays, n, pc, cls, seat, re_mask, power, fclass, dulle, last):
            return True
    return False


@inline_kernel
def _trick_fixed(ws, plays, n, k, c, seat, re_mask, power, fclass, dulle, last, top_card, threat1, threat2,
                 partner_wins, safe_partner, partner_can_beat):
    """1 when the trick in play surely goes to the side of ``seat`` if it plays ``c`` now, -1 when
    surely to the other side, 0 when the seats after it decide (``k`` cards on the table; the
    trick's facts as ``search`` finds them: its winning card, the opponents' strongest answers
    still to come, whether a partner's winning card is safe, whether a partner still to play
    can beat the trick). By each seat's strongest answer, as the move ordering judges them."""
    if k == 0:
        return 1 if _safe_lead(ws, plays, n, c, seat, re_mask, power, fclass, dulle, last) else 0
    if _beats(c, top_card, power, fclass, dulle, last):
        if not (_beats(threat1, c, power, fclass, dulle, last) or _beats(threat2, c, power, fclass, dulle, last)):
            return 1
        return 0
    if partner_wins:
        return 1 if safe_partner else 0
    return 0 if partner_can_beat else -1


@inline_kernel
def _quasi_equivalent(ws, mine, live, x, y):
    """Whether cards ``x`` and ``y`` of the seat holding ``mine`` play alike but for their eyes:
    the same class, and no other seat holds, or has on the table, a card of the class ranking
    between them or tied with either. Then every line of play after one maps to a line after
    the other with the same trick winners, so the two values differ by at most the difference
    of their eyes (the trick each goes to changes by that much)."""
    sx = ws[W_SLOT + x]
    sy = ws[W_SLOT + y]
    cls = ws[W_CLASS + sx]
    if (cls >> sy) & 1 == 0:
        return False
    lo = min(sx, sy)
    hi = max(sx, sy)
    between = ((np.int64(1) << hi) - 1) & ~((np.int64(2) << lo) - 1)
    others = live & ~mine
    return (others & cls & between) == 0 and ((ws[W_TIE + sx] | ws[W_TIE + sy]) & others) == 0


@inline_kernel
def make_move(ws, st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules, c):
    """Play card ``c`` for the seat to move in the workspace's position: save what ``play_card``
    may change of ``st`` and the live slots at the card index (the undo stack), ``play_card``,
    and keep the slots held, the eyes held and the live slots current. Returns the eyes Re gains
    by the move (the trick's eyes if it completes the trick and Re wins it, else 0).
    ``undo_move`` takes it back.

    Once the parties are settled ``play_card`` changes only the fields saved here (the cards
    played, the turn, the led class, the tricks, the leader, and what the table knows of the
    parties); before a marriage's clarification it may change more, so all of ``st`` is saved."""
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
    played = play_card(st, hands, c, plays, play_seat, trick_winner, power, fclass, cmask, rules)
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
    eyes = 0
    m = sure
    while m:
        eyes += EYES[ws[W_CARD + lowest_bit_index(m)]]
        m &= m - 1
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
def _options(legal):
    """The cards of ``legal`` with one copy of each card type held twice (they play alike)."""
    return legal & ~((legal & 0x555555555555) << 1)


@inline_kernel
def _two_tricks(n, lead, re, hands, plays, power, fclass, cmask, dulle, alpha, beta):
    """Re's eyes in the last two tricks, from their first card (index ``n``, led by ``lead``; Re
    the seats of ``re``), fail-soft in (alpha, beta) as ``search``: a plain minimax over both
    copies of a card as one, each level stopping at the window's edge, the last trick forced.
    Only once the parties are settled (the caller checks)."""
    h0 = hands[lead]
    h1 = hands[(lead + 1) & 3]
    h2 = hands[(lead + 2) & 3]
    h3 = hands[(lead + 3) & 3]
    # Re's seats, by their place from the leader
    r0 = (re >> lead) & 1
    r1 = (re >> ((lead + 1) & 3)) & 1
    r2 = (re >> ((lead + 2) & 3)) & 1
    r3 = (re >> ((lead + 3) & 3)) & 1
    rel = r0 | (r1 << 1) | (r2 << 2) | (r3 << 3)
    max0 = r0 == 1
    max1 = r1 == 1
    max2 = r2 == 1
    max3 = r3 == 1
    total = 0
    m = h0 | h1 | h2 | h3
    while m:
        total += EYES[lowest_bit_index(m)]
        m &= m - 1
    best0 = -1 if max0 else INF
    m0 = _options(h0)
    while m0:
        a = lowest_bit_index(m0)
        m0 &= m0 - 1
        plays[n] = a
        o0 = lowest_bit_index(h0 ^ (np.int64(1) << a))
        led = cmask[fclass[a]]
        l1 = h1 & led
        if l1 == 0:
            l1 = h1
        best1 = -1 if max1 else INF
        m1 = _options(l1)
        while m1:
            b = lowest_bit_index(m1)
            m1 &= m1 - 1
            plays[n + 1] = b
            o1 = lowest_bit_index(h1 ^ (np.int64(1) << b))
            l2 = h2 & led
            if l2 == 0:
                l2 = h2
            best2 = -1 if max2 else INF
            m2 = _options(l2)
            while m2:
                c = lowest_bit_index(m2)
                m2 &= m2 - 1
                plays[n + 2] = c
                o2 = lowest_bit_index(h2 ^ (np.int64(1) << c))
                l3 = h3 & led
                if l3 == 0:
                    l3 = h3
                best3 = -1 if max3 else INF
                e3 = EYES[a] + EYES[b] + EYES[c]
                m3 = _options(l3)
                while m3:
                    d = lowest_bit_index(m3)
                    m3 &= m3 - 1
                    plays[n + 3] = d
                    o3 = lowest_bit_index(h3 ^ (np.int64(1) << d))
                    w = best_offset(plays, n, 4, power, fclass, dulle, False)
                    e1 = e3 + EYES[d]
                    # the last trick, led by the winner: each seat's other card
                    if w == 0:
                        plays[n + 4] = o0
                        plays[n + 5] = o1
                        plays[n + 6] = o2
                        plays[n + 7] = o3
                    elif w == 1:
                        plays[n + 4] = o1
                        plays[n + 5] = o2
                        plays[n + 6] = o3
                        plays[n + 7] = o0
                    elif w == 2:
                        plays[n + 4] = o2
                        plays[n + 5] = o3
                        plays[n + 6] = o0
                        plays[n + 7] = o1
                    else:
                        plays[n + 4] = o3
                        plays[n + 5] = o0
                        plays[n + 6] = o1
                        plays[n + 7] = o2
                    w2 = (w + best_offset(plays, n + 4, 4, power, fclass, dulle, True)) & 3
                    v = (e1 if (rel >> w) & 1 else 0) + (total - e1 if (rel >> w2) & 1 else 0)
                    if max3:
                        if v > best3:
                            best3 = v
                        if best3 >= beta:
                            break
                    else:
                        if v < best3:
                            best3 = v
                        if best3 <= alpha:
                            break
                if max2:
                    if best3 > best2:
                        best2 = best3
                    if best2 >= beta:
                        break
                else:
                    if best3 < best2:
                        best2 = best3
                    if best2 <= alpha:
                        break
            if max1:
                if best2 > best1:
                    best1 = best2
                if best1 >= beta:
                    break
            else:
                if best2 < best1:
                    best1 = best2
                if best1 <= alpha:
                    break
        if max0:
            if best1 > best0:
                best0 = best1
            if best0 >= beta:
                break
        else:
            if best1 < best0:
                best0 = best1
            if best0 <= alpha:
                break
    return best0


@decision_kernel
def _three_tricks(n, lead, re, hands, plays, power, fclass, cmask, dulle, alpha, beta):
    """Re's eyes in the last three tricks, from their first card, fail-soft in (alpha, beta):
    the first of them by a plain minimax as ``_two_tricks`` (both copies of a card as one, each
    level stopping at the window's edge), the other two by ``_two_tricks``. Parties settled."""
    h0 = hands[lead]
    h1 = hands[(lead + 1) & 3]
    h2 = hands[(lead + 2) & 3]
    h3 = hands[(lead + 3) & 3]
    r0 = (re >> lead) & 1
    r1 = (re >> ((lead + 1) & 3)) & 1
    r2 = (re >> ((lead + 2) & 3)) & 1
    r3 = (re >> ((lead + 3) & 3)) & 1
    rel = r0 | (r1 << 1) | (r2 << 2) | (r3 << 3)
    max0 = r0 == 1
    max1 = r1 == 1
    max2 = r2 == 1
    max3 = r3 == 1
    best0 = -1 if max0 else INF
    m0 = _options(h0)
    while m0:
        a = lowest_bit_index(m0)
        m0 &= m0 - 1
        plays[n] = a
        led = cmask[fclass[a]]
        l1 = h1 & led
        if l1 == 0:
            l1 = h1
        best1 = -1 if max1 else INF
        m1 = _options(l1)
        while m1:
            b = lowest_bit_index(m1)
            m1 &= m1 - 1
            plays[n + 1] = b
            l2 = h2 & led
            if l2 == 0:
                l2 = h2
            best2 = -1 if max2 else INF
            m2 = _options(l2)
            while m2:
                c = lowest_bit_index(m2)
                m2 &= m2 - 1
                plays[n + 2] = c
                l3 = h3 & led
                if l3 == 0:
                    l3 = h3
                best3 = -1 if max3 else INF
                e3 = EYES[a] + EYES[b] + EYES[c]
                m3 = _options(l3)
                while m3:
                    d = lowest_bit_index(m3)
                    m3 &= m3 - 1
                    plays[n + 3] = d
                    w = best_offset(plays, n, 4, power, fclass, dulle, False)
                    e1 = e3 + EYES[d]
                    base = e1 if (rel >> w) & 1 else 0
                    hands[lead] = h0 ^ (np.int64(1) << a)
                    hands[(lead + 1) & 3] = h1 ^ (np.int64(1) << b)
                    hands[(lead + 2) & 3] = h2 ^ (np.int64(1) << c)
                    hands[(lead + 3) & 3] = h3 ^ (np.int64(1) << d)
                    v = base + _two_tricks(n + 4, (lead + w) & 3, re, hands, plays, power, fclass, cmask, dulle,
                                           alpha - base, beta - base)
                    hands[lead] = h0
                    hands[(lead + 1) & 3] = h1
                    hands[(lead + 2) & 3] = h2
                    hands[(lead + 3) & 3] = h3
                    if max3:
                        if v > best3:
                            best3 = v
                        if best3 >= beta:
                            break
                    else:
                        if v < best3:
                            best3 = v
                        if best3 <= alpha:
                            break
                if max2:
                    if best3 > best2:
                        best2 = best3
                    if best2 >= beta:
                        break
                else:
                    if best3 < best2:
                        best2 = best3
                    if best2 <= alpha:
                        break
            if max1:
                if best2 > best1:
                    best1 = best2
                if best1 >= beta:
                    break
            else:
                if best2 < best1:
                    best1 = best2
                if best1 <= alpha:
                    break
        if max0:
            if best1 > best0:
                best0 = best1
            if best0 >= beta:
                break
        else:
            if best1 < best0:
                best0 = best1
            if best0 <= alpha:
                break
    return best0


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
    m = sure
    while m:
        eyes += EYES[ws[W_CARD + lowest_bit_index(m)]]
        m &= m - 1
        count += 1
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
    eyes = 0
    m = masters
    while m:
        eyes += EYES[ws[W_CARD + lowest_bit_index(m)]]
        m &= m - 1
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


@inline_kernel
def _table_index(tt, key):
    """The first of the two entries (a bucket) where ``key`` may be stored."""
    h = (key ^ (key >> 29)) * HASH_MULT
    return (h >> 24) & ((tt.shape[0] >> 1) - 2)


@decision_kernel
def search(ws, tt, alpha, beta):
    """Re's eyes in the tricks still to be completed from the workspace's position (the trick on
    the table included), fail-soft: the exact value when it lies strictly between ``alpha`` and
    ``beta``, else a bound on the side of the window it fell (an upper bound <= alpha, a lower
    bound >= beta). The position is unchanged on return."""
    st = ws[W_ST:W_ST + ST_LEN]
    hands = ws[W_HANDS:W_HANDS + 4]
    plays = ws[W_PLAYS:W_PLAYS + PLAYS_LEN]
    play_seat = ws[W_PLAY_SEAT:W_PLAY_SEAT + 48]
    trick_winner = ws[W_TRICK_WINNER:W_TRICK_WINNER + 12]
    power = ws[W_POWER:W_POWER + 48]
    fclass = ws[W_FCLASS:W_FCLASS + 48]
    cmask = ws[W_CMASK:W_CMASK + 5]
    rules = ws[W_RULES:W_RULES + R_LEN]
    ws[W_NODES] += 1
    if ws[W_LIMIT] > 0 and ws[W_NODES] > ws[W_LIMIT]:
        ws[W_ABORTED] = 1
        return 0
    n = st[P_NPLAYED]
    if STATS:
        ws[W_STATS + 48 * S_NODES + n] += 1
    k = n & 3
    tt_move = -1
    sure_slots = np.int64(0)
    slot_i = -1
    key = np.int64(0)
    lo = 0
    hi = INF
    akey = np.int64(0)
    si = -1
    if k == 0:
        left = 4 * st[P_HAND_SIZE] - n
        if left == 0:
            return 0
        if left == 4:
            # the last trick: every card is forced
            if st[P_CLARIFIED]:
                # the parties are settled: the winner by the rules' best_offset, without play_card
                lead = st[P_TURN] & 3
                eyes = 0
                for j in range(4):
                    c = lowest_bit_index(hands[(lead + j) & 3])
                    plays[n + j] = c
                    eyes += EYES[c]
                w = (lead + best_offset(plays, n, 4, power, fclass, rules[R_DULLE], True)) & 3
                return eyes if (st[H_RE_MASK] >> w) & 1 else 0
            gain = 0
            for j in range(4):
                c = lowest_bit_index(hands[st[P_TURN] & 3])
                gain += make_move(ws, st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules, c)
            for j in range(4):
                undo_move(ws, st, hands, plays)
            return gain
        rem = ws[W_HAND_EYES]
        if left == 8 and st[P_CLARIFIED] and beta > 0 and alpha < rem:
            # the last two tricks: a plain minimax, cheaper than the table
            return _two_tricks(n, st[P_TURN] & 3, st[H_RE_MASK], hands, plays, power, fclass, cmask,
                               rules[R_DULLE], alpha, beta)
        if beta <= 0 or alpha >= rem:
            if STATS:
                ws[W_STATS + 48 * S_TRIVIAL + n] += 1
        if beta <= 0:
            return 0
        if alpha >= rem:
            return rem
        if STATS:
            ws[W_STATS + 48 * S_TT_PROBE + n] += 1
        key = _rank_key(ws, ws[W_LIVE], W_ATTR) | (st[P_TURN] << 48) | (st[H_RE_MASK] << 50)
        slot_i = _table_index(tt, key)
        hi = rem
        if tt[2 * slot_i] != key or (tt[2 * slot_i + 1] >> 29) != ws[W_GEN]:
            slot_i += 1
        entry = tt[2 * slot_i + 1]
        if tt[2 * slot_i] == key and (entry >> 29) == ws[W_GEN]:
            lo = entry & 255
            hi = (entry >> 8) & 255
            tt_move = ((entry >> 16) & 127) - 1
            if STATS:
                ws[W_STATS + 48 * S_TT_FOUND + n] += 1
                if lo >= beta or hi <= alpha or lo == hi:
                    ws[W_STATS + 48 * S_TT_CUT + n] += 1
            if lo >= beta:
                return lo
            if hi <= alpha or lo == hi:
                return hi
            alpha = max(alpha, lo)
            beta = min(beta, hi)
        else:
            # not found: store in the first entry of the bucket unless it holds a deeper position of this deal
            slot_i -= 1
            old = tt[2 * slot_i + 1]
            if (old >> 29) == ws[W_GEN] and ((old >> 23) & 63) > left:
                slot_i += 1
        # quick tricks: the leader's side surely takes the eyes of its top trumps' tricks. Before
        # a marriage's clarification a trick won by a seat outside Re moves it to Re, so only
        # Re's lower bounds hold then (its tricks stay Re's).
        leader = st[P_TURN] & 3
        re_mask = st[H_RE_MASK]
        settled = st[P_CLARIFIED] != 0
        sure_slots = _sure_trumps(ws, leader, ws[W_LIVE])
        sure = max(_sure_trump_eyes(ws, leader, sure_slots), _quick_eyes(ws, leader, sure_slots))
        if STATS:
            if ((re_mask >> leader) & 1 and sure >= beta) or (settled and not (re_mask >> leader) & 1 and rem - sure <= alpha):
                ws[W_STATS + 48 * S_QUICK_CUT + n] += 1
        if (re_mask >> leader) & 1:
            if sure >= beta:
                return sure
        elif settled and rem - sure <= alpha:
            return rem - sure
        # later tricks: a trump of the side holding the top trump that ranks above every
        # opponent's trump (not tied with one) wins the trick it is played in, whoever leads
        # (its partner may only take the trick instead); a seat's masters are in distinct
        # tricks, and each other seat gives a card to each of those tricks
        holder = _top_trump_holder(ws, ws[W_LIVE])
        if holder >= 0 and (settled or (re_mask >> holder) & 1):
            later = _side_master_eyes(ws, holder, re_mask, ws[W_LIVE])
            if STATS:
                if ((re_mask >> holder) & 1 and later >= beta) or (not (re_mask >> holder) & 1 and rem - later <= alpha):
                    ws[W_STATS + 48 * S_QUICK_CUT + n] += 1
            if (re_mask >> holder) & 1:
                if later >= beta:
                    return later
            elif rem - later <= alpha:
                return rem - later
        if ws[W_SIM_MASK] > 0:
            # payoff-similarity: a stored position with the same cards up to relative rank
            # but other eyes bounds this one's value within the eye differences
            akey = _rank_key(ws, ws[W_LIVE], W_ATTR_NE) | (st[P_TURN] << 48) | (st[H_RE_MASK] << 50)
            si = W_LEN + 3 * ((((akey ^ (akey >> 29)) * HASH_MULT) >> 24) & ws[W_SIM_MASK])
            if ws[si] == akey and (ws[si + 2] >> 29) == ws[W_GEN]:
                dn, up = _eye_shift(ws, key & KEY_SLOTS, ws[si + 1])
                e = ws[si + 2]
                slo = (e & 255) - dn
                shi = ((e >> 8) & 255) + up
                if STATS:
                    ws[W_STATS + 48 * S_SIM_FOUND + n] += 1
                    if slo >= beta or shi <= alpha:
                        ws[W_STATS + 48 * S_SIM_CUT + n] += 1
                if slo >= beta:
                    return slo
                if shi <= alpha or slo >= shi:
                    return shi
                if slo > alpha:
                    alpha = slo
                if shi < beta:
                    beta = shi
        if left == 12 and settled and ws[W_THREE]:
            # the last three tricks: a plain minimax once the table has no answer
            best = _three_tricks(n, leader, re_mask, hands, plays, power, fclass, cmask, rules[R_DULLE], alpha, beta)
            if best <= alpha:
                hi = best
            elif best >= beta:
                lo = best
            else:
                lo = best
                hi = best
            tt[2 * slot_i] = key
            tt[2 * slot_i + 1] = lo | (hi << 8) | ((tt_move + 1) << 16) | (12 << 23) | (ws[W_GEN] << 29)
            if si >= 0:
                ws[si] = akey
                ws[si + 1] = key & KEY_SLOTS
                ws[si + 2] = tt[2 * slot_i + 1]
            return best
    else:
        # Re takes between 0 and every eye still to come (the trick on the table included)
        to_come = ws[W_HAND_EYES] + _table_eyes(plays, n)
        if STATS and (beta <= 0 or alpha >= to_come):
            ws[W_STATS + 48 * S_TRIVIAL + n] += 1
        if beta <= 0:
            return 0
        if alpha >= to_come:
            return to_come
    seat = st[P_TURN] & 3
    re_mask = st[H_RE_MASK]
    maxi = (re_mask >> seat) & 1 == 1
    legal = legal_mask(st, hands[seat], plays, fclass, cmask)
    mine = ws[W_HELD + seat]
    live = ws[W_LIVE]
    base = W_MOVES + MAX_MOVES * n
    hist = W_HIST + 48 * seat
    # the trick so far, for the move ordering
    start = n - k
    dulle = rules[R_DULLE]
    last = st[P_TRICK] == st[P_HAND_SIZE] - 1
    partner_wins = False
    safe_partner = False
    partner_later = False
    partner_can_beat = False
    threat1 = -1
    threat2 = -1
    top_card = -1
    if k > 0:
        o = best_offset(plays, start, k, power, fclass, dulle, last)
        w = play_seat[start + o]
        partner_wins = ((re_mask >> w) & 1) == ((re_mask >> seat) & 1)
        top_card = plays[start + o]
        # the strongest card each opponent still to play in this trick may play
        led_slots = ws[W_CLASSES + fclass[plays[start]]]
        for j in range(1, 4 - k):
            s = (seat + j) & 3
            if ((re_mask >> s) & 1) == ((re_mask >> seat) & 1):
                continue
            t = _strongest_answer(ws, s, led_slots)
            if t < 0:
                continue
            if threat1 < 0:
                threat1 = t
            else:
                threat2 = t
        if partner_wins:
            safe_partner = not (_beats(threat1, top_card, power, fclass, dulle, last)
                                or _beats(threat2, top_card, power, fclass, dulle, last))
        else:
            for j in range(1, 4 - k):
                s = (seat + j) & 3
                if ((re_mask >> s) & 1) == ((re_mask >> seat) & 1) and \
                        _beats(_strongest_answer(ws, s, led_slots), top_card, power, fclass, dulle, last):
                    partner_can_beat = True
            # a partner still to play whose strongest card beats the trick's and no opponent's
            # strongest card (order in the trick not considered): smear on it
            for j in range(1, 4 - k):
                s = (seat + j) & 3
                if ((re_mask >> s) & 1) != ((re_mask >> seat) & 1):
                    continue
                pc = _strongest_answer(ws, s, led_slots)
                if (_beats(pc, top_card, power, fclass, dulle, last)
                        and not _beats(threat1, pc, power, fclass, dulle, last)
                        and not _beats(threat2, pc, power, fclass, dulle, last)):
                    partner_later = True
    nm = 0
    m = legal
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        if _equivalent_above(ws, mine, live, c) >= 0:
            continue
        if k == 0:
            # the table's lead, then a card no opponent can beat, then by the history of cut-offs
            if c == tt_move:
                score = 1 << 20
            else:
                if _safe_lead(ws, plays, n, c, seat, re_mask, power, fclass, dulle, last):
                    score = (1 << 19) + (EYES[c] << 14) + min(ws[hist + c], (1 << 14) - 1)
                elif _partner_lead(ws, plays, n, c, seat, re_mask, power, fclass, dulle, last):
                    score = (1 << 18) + (EYES[c] << 13) + min(ws[hist + c], (1 << 13) - 1)
                else:
                    if fclass[c] == 4:
                        score = (1 << 17) + (power[c] << 8) + min(ws[hist + c], 255)
                    else:
                        score = min(ws[hist + c], (1 << 17) - 1)
        else:
            wins = _beats(c, top_card, power, fclass, dulle, last)
            safe = wins and not (_beats(threat1, c, power, fclass, dulle, last)
                                 or _beats(threat2, c, power, fclass, dulle, last))
            if partner_wins and safe_partner:
                # the partner's card holds: smear eyes, overtaking last
                score = (1 << 10) if wins else (2 << 10) + EYES[c]
            elif safe:
                # a card that takes the trick whatever the opponents after it play: the lowest
                # such first (the most eyes when the last to play)
                score = (3 << 10) + (64 + EYES[c] if k == 3 else 300 - power[c])
            elif wins:
                score = (2 << 10) + 300 - power[c]
            elif partner_later:
                score = (2 << 10) + 320 + EYES[c]
            else:
                score = (1 << 10) + 64 - EYES[c]
        v = score * 64 + c
        j = nm
        while j > 0 and ws[base + j - 1] < v:
            ws[base + j] = ws[base + j - 1]
            j -= 1
        ws[base + j] = v
        nm += 1
    best = -1 if maxi else INF
    best_move = -1
    a = alpha
    b = beta
    vals = W_VALS + MAX_MOVES * n
    settled_now = st[P_CLARIFIED] != 0
    for i in range(nm):
        c = ws[base + i] & 63
        # a card that plays like one searched before except for its eyes (no other seat's card
        # between them, in hand or on the table) is worth at most the difference more or less;
        # and no more than it when this trick surely goes to the mover's side (fixed 1) and it has
        # fewer eyes, or surely to the other side (fixed -1) and it has more: every line after it
        # maps to one after the other card, which gives the difference to the same side now and
        # keeps the card of the other eyes for a later trick
        skip = False
        fixed = 2  # not yet known
        for j in range(i):
            x = ws[base + j] & 63
            d = EYES[x] - EYES[c]
            vx = ws[vals + j]
            if d != 0 and settled_now and _quasi_equivalent(ws, mine, live, x, c):
                if fixed == 2:
                    fixed = _trick_fixed(ws, plays, n, k, c, seat, re_mask, power, fclass, dulle, last, top_card,
                                         threat1, threat2, partner_wins, safe_partner, partner_can_beat)
                if (fixed == 1 and d > 0) or (fixed == -1 and d < 0):
                    skip = True
                    v = vx
                    if STATS:
                        ws[W_STATS + 48 * S_DOMINATED + n] += 1
                    break
            if d < 0:
                d = -d
            if (vx + d <= a if maxi else vx - d >= b) and _quasi_equivalent(ws, mine, live, x, c):
                skip = True
                v = vx + d if maxi else vx - d
                break
        if skip:
            ws[vals + i] = v
            if STATS:
                ws[W_STATS + 48 * S_QUASI + n] += 1
            if (maxi and v > best) or (not maxi and v < best):
                best = v
            continue
        gain = make_move(ws, st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules, c)
        v = gain + search(ws, tt, a - gain, b - gain)
        undo_move(ws, st, hands, plays)
        if ws[W_ABORTED]:
            return 0
        ws[vals + i] = v
        if maxi:
            if v > best:
                best = v
                best_move = c
                a = max(a, v)
        else:
            if v < best:
                best = v
                best_move = c
                b = min(b, v)
        if a >= b:
            ws[hist + c] += (4 * st[P_HAND_SIZE] - n) * (4 * st[P_HAND_SIZE] - n)
            if STATS:
                ws[W_STATS + 48 * S_CUT + n] += 1
                ws[W_STATS + 48 * S_CUT_IDX + n] += i
                if i == 0:
                    ws[W_STATS + 48 * S_CUT_FIRST + n] += 1
            break
    if STATS and a < b:
        ws[W_STATS + 48 * S_ALL + n] += 1
        ws[W_STATS + 48 * S_ALL_MOVES + n] += nm
    if k == 0:
        if best <= alpha:
            hi = best
        elif best >= beta:
            lo = best
        else:
            lo = best
            hi = best
        tt[2 * slot_i] = key
        tt[2 * slot_i + 1] = lo | (hi << 8) | ((best_move + 1) << 16) | ((4 * st[P_HAND_SIZE] - n) << 23) | (ws[W_GEN] << 29)
        if si >= 0:
            ws[si] = akey
            ws[si + 1] = key & KEY_SLOTS
            ws[si + 2] = tt[2 * slot_i + 1]
    return best


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
def _three_from_root(ws):
    """Set ``ws[W_THREE]`` for a solve from the current position: ``_three_tricks`` only in a
    solve from at most ``THREE_ROOT_CARDS`` cards left (docs/solver.md, round 6)."""
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
    m = legal
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        if _equivalent_above(ws, mine, live, c) >= 0:
            continue
        gain = make_move(ws, st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules, c)
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
    st = ws[W_ST:W_ST + ST_LEN]
    hands = ws[W_HANDS:W_HANDS + 4]
    plays = ws[W_PLAYS:W_PLAYS + PLAYS_LEN]
    play_seat = ws[W_PLAY_SEAT:W_PLAY_SEAT + 48]
    trick_winner = ws[W_TRICK_WINNER:W_TRICK_WINNER + 12]
    power = ws[W_POWER:W_POWER + 48]
    fclass = ws[W_FCLASS:W_FCLASS + 48]
    cmask = ws[W_CMASK:W_CMASK + 5]
    rules = ws[W_RULES:W_RULES + R_LEN]
    for i in range(first):
        make_move(ws, st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules, cards[i])
    past = past_eyes(ws)
    v = past + exact_to_come(ws, tt, _eyes_to_come(ws) // 2)
    if ws[W_ABORTED]:
        return -1
    for k in range(count):
        seat = st[P_TURN] & 3
        maxi = (st[H_RE_MASK] >> seat) & 1 == 1
        past = past_eyes(ws)
        gain = make_move(ws, st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules,
                         cards[first + k])
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
