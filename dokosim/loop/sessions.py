"""Sessions in the deal loop: who plays each deal of a session (five players, compulsory solos),
bock and the running scores, and one session played as one item of a run (``play_session``).

One row per played deal of a session (dokosim.session turns them into columns). Seats are the
table's seats 0..n_players-1; the engine plays the four active ones as its seats 0..3 (five
players: engine seat e is table seat dealer + 1 + e, the engine's dealer is 3).
"""
from collections import namedtuple

import numpy as np

from ..engine.bits import popcount
from ..engine.cards import C_SOLO_BASE
from ..engine.jit import inline_kernel
from ..engine.layout import (
    O_AGAINST_QUEENS, O_CALLS_KO, O_CALLS_RE, O_CHARLIE_KO, O_CHARLIE_RE, O_CLARIFY, O_CONTRACT,
    O_DECLARER, O_DOKO_KO, O_DOKO_RE, O_EYES_RE, O_FIRST_KO, O_FIRST_RE, O_FOX_KO, O_FOX_RE, O_HAND, O_PIGLETS,
    O_POVERTY_PARTNER, O_POVERTY_PASSED, O_POVERTY_RETURNED, O_RE_MASK, O_REDEALS, O_SOLOIST, O_TRICKS_RE,
    O_VALUE, O_WINNER, OUT_LEN, R_BOCK_MASK,
)
from ..engine.scoring import describe_state
from ..engine.session import BOOK_LEN, BOOK_QUEUE, BOOK_TOTAL, book_deal, seat_table
from ..engine.stack import stack_zeros, stack_zeros_2d
from .control import Seats
from .strategy_call import MAX_PARAMS

SESSION_COLUMNS = (
    "session_id", "deal_number", "dealer", "contract", "declarer", "re_mask", "eyes_re",
    "tricks_re", "calls_re", "calls_kontra", "first_call_re", "first_call_kontra", "soloist",
    "clarifying_trick", "winner", "game_value", "fox_re", "fox_kontra", "doppelkopf_re",
    "doppelkopf_kontra", "charlie_re", "charlie_kontra", "against_the_queens", "redeals",
    "poverty_partner", "poverty_passed", "poverty_returned", "piglets", "compulsory_solo",
    "forced_solo", "bock", "bock_triggers", "bock_queue",
    "hand_0", "hand_1", "hand_2", "hand_3", "hand_4",
    "score_0", "score_1", "score_2", "score_3", "score_4",
    "total_0", "total_1", "total_2", "total_3", "total_4",
)
(S_SESSION, S_DEAL_NO, S_DEALER, S_CONTRACT, S_DECLARER, S_RE_MASK, S_EYES_RE, S_TRICKS_RE,
 S_CALLS_RE, S_CALLS_KO, S_FIRST_RE, S_FIRST_KO, S_SOLOIST, S_CLARIFY, S_WINNER, S_VALUE,
 S_FOX_RE, S_FOX_KO, S_DOKO_RE, S_DOKO_KO, S_CHARLIE_RE, S_CHARLIE_KO, S_AGAINST_QUEENS,
 S_REDEALS, S_POVERTY_PARTNER, S_POVERTY_PASSED, S_POVERTY_RETURNED, S_PIGLETS, S_COMPULSORY,
 S_FORCED, S_BOCK, S_BOCK_TRIGGERS, S_BOCK_QUEUE) = range(33)
S_HAND = 33
S_SCORE = 38
S_TOTAL = 43
SESSION_LEN = 48
# deal k of session i draws from the stream (seed, SESSION_STREAM + 64 * i + k)
SESSION_STREAM = np.int64(1) << np.int64(62)
SESSION_MAX_DEALS = 64
# (session column, deal column) pairs that book_session_deal copies as they are, and those that
# name an engine seat, which it turns into the table's seat
COPIED = np.array([
    (S_EYES_RE, O_EYES_RE), (S_TRICKS_RE, O_TRICKS_RE), (S_CALLS_RE, O_CALLS_RE), (S_CALLS_KO, O_CALLS_KO),
    (S_FIRST_RE, O_FIRST_RE), (S_FIRST_KO, O_FIRST_KO), (S_CLARIFY, O_CLARIFY), (S_WINNER, O_WINNER),
    (S_VALUE, O_VALUE), (S_FOX_RE, O_FOX_RE), (S_FOX_KO, O_FOX_KO), (S_DOKO_RE, O_DOKO_RE),
    (S_DOKO_KO, O_DOKO_KO), (S_CHARLIE_RE, O_CHARLIE_RE), (S_CHARLIE_KO, O_CHARLIE_KO),
    (S_AGAINST_QUEENS, O_AGAINST_QUEENS), (S_REDEALS, O_REDEALS), (S_POVERTY_PASSED, O_POVERTY_PASSED),
    (S_POVERTY_RETURNED, O_POVERTY_RETURNED)], dtype=np.int64)
SEATS_COPIED = np.array([(S_DECLARER, O_DECLARER), (S_SOLOIST, O_SOLOIST),
                         (S_POVERTY_PARTNER, O_POVERTY_PARTNER), (S_PIGLETS, O_PIGLETS)], dtype=np.int64)


@inline_kernel
def forced_solos_fit(dealer, owe, deals, n_players):
    """True when the solos owed (table seat mask ``owe``) can all still be played as forced solos
    in ``deals`` deals starting with ``dealer``: each deal the first owing player from the
    dealer's left plays one and the deal passes on (five players: the dealer sits out)."""
    m = owe
    if popcount(m) > deals:
        return False
    d = dealer
    while m:
        found = -1
        for i in range(1, 5):  # four players: i = 4 is the dealer, who plays
            p = (d + i) % n_players
            if (m >> p) & 1:
                found = p
                break
        if found < 0:
            return False
        m ^= np.int64(1) << found
        d = (d + 1) % n_players
    return True


@inline_kernel
def table_seat(table, e):
    """The table seat of engine seat ``e`` (-1 stays -1)."""
    return table[e] if e >= 0 else -1


@inline_kernel
def session_deal_setup(dealer, owe, k, form, seats, ss):
    """Before deal k of a session of ``form`` = (n_deals, n_players, compulsory solos on): who
    plays it (``ss.table``: engine seat -> table seat, and the run's ``seats``' strategies and
    parameters for them into ss.sids, ss.sparams), the engine's dealer, the engine seats that
    still owe a compulsory solo, and the one that must play it now (-1: nobody).
    Returns (engine dealer, owe_mask, force)."""
    n_deals, n_players, _ = form
    strategy_ids, params = seats.ids, seats.params
    table, sids, sparams = ss.table, ss.sids, ss.sparams
    edealer = seat_table(dealer, n_players, table)
    owe_mask = np.int64(0)
    for e in range(4):
        t = table[e]
        if (owe >> t) & 1:
            owe_mask |= np.int64(1) << e
        sids[e] = strategy_ids[t]
        for j in range(MAX_PARAMS):
            sparams[e, j] = params[t, j]
    force = -1
    if owe and not forced_solos_fit((dealer + 1) % n_players, owe, n_deals - k - 1, n_players):
        for i in range(4):  # vorfuehren: the first owing player from the dealer's left
            e = (edealer + 1 + i) & 3
            if (owe_mask >> e) & 1:
                force = e
                break
    return edealer, owe_mask, force


@inline_kernel
def book_session_deal(session_id, k, who, n_players, bock_mask, st, res, ss, row):
    """After deal k of a session (its row in ss.out_row): the compulsory solo it was, bock and
    scores, and the session's ``row``. ``who`` = (dealer, owe, owe_mask, force) of the deal
    (session_deal_setup). Returns (the solos still owed, a table seat mask; whether this deal
    was a compulsory solo)."""
    dealer, owe, owe_mask, force = who
    out_row, table, book, scores = ss.out_row, ss.table, ss.book, ss.scores
    contract = out_row[O_CONTRACT]
    declarer = out_row[O_DECLARER]
    comp = contract >= C_SOLO_BASE and declarer >= 0 and ((owe_mask >> declarer) & 1) == 1
    if comp:
        owe ^= np.int64(1) << table[declarer]
    # bock and scores: this deal's multiplier, then its triggers queue rounds from the
    # next deal on (engine/session.py); res gets the contract and calls next to the score
    describe_state(st, res)
    mult, trig = book_deal(res, bock_mask, n_players, table, book, scores)
    row[S_SESSION] = session_id
    row[S_DEAL_NO] = k
    row[S_DEALER] = dealer
    row[S_CONTRACT] = contract
    re_mask = np.int64(0)
    for e in range(4):
        if (out_row[O_RE_MASK] >> e) & 1:
            re_mask |= np.int64(1) << table[e]
    row[S_RE_MASK] = re_mask
    for j in range(COPIED.shape[0]):  # the deal's own columns, as the deal loop wrote them
        row[COPIED[j, 0]] = out_row[COPIED[j, 1]]
    for j in range(SEATS_COPIED.shape[0]):  # engine seats become table seats
        row[SEATS_COPIED[j, 0]] = table_seat(table, out_row[SEATS_COPIED[j, 1]])
    row[S_COMPULSORY] = 1 if comp else 0
    row[S_FORCED] = 1 if force >= 0 else 0
    row[S_BOCK] = mult
    row[S_BOCK_TRIGGERS] = trig
    row[S_BOCK_QUEUE] = book[BOOK_QUEUE]
    for p in range(5):
        row[S_HAND + p] = 0
        row[S_SCORE + p] = scores[p]
        row[S_TOTAL + p] = book[BOOK_TOTAL + p]
    for e in range(4):
        row[S_HAND + table[e]] = out_row[O_HAND + e]
    return owe, comp




# A thread's scratch for sessions besides the deal's: the deal's row, who sits where with their
# strategies and parameters, the bookkeeping (bock, totals) and the deal's scores.
SessionScratch = namedtuple("SessionScratch", ("out_row", "sids", "sparams", "table", "book", "scores"))


@inline_kernel
def session_scratch():
    """A SessionScratch on the calling kernel's stack (it must stay inlined)."""
    return SessionScratch(stack_zeros(OUT_LEN, np.int64), stack_zeros(4, np.int64),
                          stack_zeros_2d(4, MAX_PARAMS, np.float64), stack_zeros(4, np.int64),
                          stack_zeros(BOOK_LEN, np.int64), stack_zeros(5, np.int64))


@inline_kernel
def begin_session(form, ss):
    """Before the first deal of a session of ``form`` = (n_deals, n_players, compulsory solos on):
    its bookkeeping zeroed. Returns the solos owed (a table seat mask)."""
    _, n_players, compulsory_on = form
    for j in range(BOOK_LEN):
        ss.book[j] = 0
    return (np.int64(1) << n_players) - 1 if compulsory_on else np.int64(0)


@inline_kernel
def session_deal(item, k, dealer, owe, form, seats, ss):
    """Deal k of session ``item`` with the table's ``dealer``: (the deal = (deal_id, engine dealer,
    owe_mask, force), the Seats of the four who play it, from the run's ``seats``). Deal k draws
    from the stream (seed, SESSION_STREAM + SESSION_MAX_DEALS * item + k)."""
    edealer, owe_mask, force = session_deal_setup(dealer, owe, k, form, seats, ss)
    deal_id = SESSION_STREAM + SESSION_MAX_DEALS * item + k
    return (deal_id, np.int64(edealer), owe_mask, np.int64(force)), Seats(seats.strategies, ss.sids, ss.sparams)


@inline_kernel
def end_session_deal(which, deal, table_state, form, rules, st, res, ss, row):
    """After deal k of session ``item``, ``which`` = (item, k) (its deal row in ss.out_row): the
    session's ``row`` (book_session_deal); ``table_state`` = (the table's dealer, the solos owed)
    before the deal. Returns them after it."""
    item, k = which
    dealer, owe = table_state
    owe_mask, force = deal[2], deal[3]
    n_players = form[1]
    owe, comp = book_session_deal(item, k, (dealer, owe, owe_mask, force), n_players, rules[R_BOCK_MASK], st, res,
                                  ss, row)
    if not comp or force >= 0:  # after a compulsory solo (not a forced one) the same dealer deals
        dealer = (dealer + 1) % n_players
    return owe, dealer
