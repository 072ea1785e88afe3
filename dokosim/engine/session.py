"""Between the deals of a session: who plays a deal (``five_players``), which bock triggers a
played deal fires, its multiplier, the scores written down and the running totals (RULES.md
part 2, ``bock`` and ``five_players``; docs/sessions.md).

The deal loop (``loop/sessions.play_session``) calls ``seat_table`` before each deal and
``book_deal`` after it. ``book_deal`` depends only on the deal's result (``res``, as
``score_deal`` and ``describe_state`` fill it), so the same bookkeeping can be fed deals
scored from game records (tests/engine/test_session_scenarios.py replays card-notation deals through
the rules kernels and books them one after the other).
"""
from .bits import popcount
from .jit import inline_kernel
from .layout import RES_EYES_RE, RES_LEVEL_KO, RES_LEVEL_RE, RES_SCORE, RES_SOLOIST, RES_WINNER

# bits of the rules' R_BOCK_MASK and of a deal's triggers (rules.BOCK_TRIGGERS order)
BOCK_TIE, BOCK_LOST_ANNOUNCEMENT, BOCK_ZERO, BOCK_LOST_SOLO = 1, 2, 4, 8

# ``book``: what a session carries from deal to deal (zeros before its first deal)
BOOK_QUEUE = 0   # bock deals still queued
BOOK_TOTAL = 1   # 1 .. 5: running total of table seat 0 .. 4
BOOK_LEN = 6


@inline_kernel
def seat_table(dealer, n_players, table):
    """The four players of a deal dealt by table seat ``dealer``: engine seat e (0..3) is
    table seat table[e]; returns the dealer as the engine sees it.

    Four players: the engine's seats are the table's, the dealer deals. Five players: the
    dealer sits out and the four others, clockwise from the dealer's left, are engine seats
    0..3 with engine seat 3 as the engine's dealer, so the dealer's left neighbour speaks first
    and leads (RULES.md 1.3)."""
    if n_players == 5:
        for e in range(4):
            table[e] = (dealer + 1 + e) % 5
        return 3
    for e in range(4):
        table[e] = e
    return dealer


@inline_kernel
def bock_triggers(res, bock_mask):
    """The bock triggers (bits BOCK_*) that the played deal ``res`` fires, among those in
    ``bock_mask``: tie (Re took exactly 120), lost_announcement (a side that said Re or Kontra
    did not win; a deal nobody wins counts; one trigger however many sides), zero (everybody
    scored 0), lost_solo (Kontra won against a soloist: solo, silent or failed marriage)."""
    winner = res[RES_WINNER]
    trig = 0
    if bock_mask & BOCK_TIE and res[RES_EYES_RE] == 120:
        trig |= BOCK_TIE
    if bock_mask & BOCK_LOST_ANNOUNCEMENT and (
            (res[RES_LEVEL_RE] >= 1 and winner != 0) or (res[RES_LEVEL_KO] >= 1 and winner != 1)):
        trig |= BOCK_LOST_ANNOUNCEMENT
    if bock_mask & BOCK_ZERO and (res[RES_SCORE] == 0 and res[RES_SCORE + 1] == 0
                                  and res[RES_SCORE + 2] == 0 and res[RES_SCORE + 3] == 0):
        trig |= BOCK_ZERO
    if bock_mask & BOCK_LOST_SOLO and res[RES_SOLOIST] >= 0 and winner == 1:
        trig |= BOCK_LOST_SOLO
    return trig


@inline_kernel
def book_deal(res, bock_mask, n_players, table, book, scores):
    """Book one played deal of a session: returns (multiplier, triggers).

    The multiplier is 2 while bock deals are queued (this deal is one of them), else 1; then
    each trigger the deal fires queues one bock round (``n_players`` deals) after those already
    queued. ``scores`` (5) gets what each table seat writes down for the deal (the engine's
    score times the multiplier; 0 for a seat not playing) and ``book`` the running totals."""
    mult = 1
    if book[BOOK_QUEUE] > 0:
        mult = 2
        book[BOOK_QUEUE] -= 1
    trig = bock_triggers(res, bock_mask)
    book[BOOK_QUEUE] += popcount(trig) * n_players
    for p in range(5):
        scores[p] = 0
    for e in range(4):
        t = table[e]
        scores[t] = mult * res[RES_SCORE + e]
        book[BOOK_TOTAL + t] += scores[t]
    return mult, trig
