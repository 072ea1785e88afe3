"""Scenario tests for the session house rules of RULES.md part 2: `bock` and `five_players`.

The deals are the hand-designed card-notation deals of tests/engine/test_scenarios.py (their tricks,
eyes and scores are worked out there, from RULES.md part 1); each is scored here by replaying
its game record through the rules kernels (dokosim.records). The session kernel deals random
cards, so fixed deals enter a session through its own bookkeeping: dokosim.engine.session's
``seat_table`` (who plays a deal) and ``book_deal`` (bock triggers, multiplier, queue, scores,
running totals), the two functions sim_loop.run_block calls around every deal of a session. ``Session``
below books replayed deals one after the other as run_block does.

RULES.md part 2, the rules shown acting:
- bock: triggers tie (120 : 120), lost_announcement (a side that said Re or Kontra did not
  win; a deal nobody wins counts), zero (0 for everyone), lost_solo (silent and failed
  marriages included). Each trigger in a deal adds one bock round (as many deals as players)
  to a queue starting with the next deal; in a bock round every score is doubled; rounds
  queue one after another, never beyond x2. Redealt deals count for nothing.
- five_players: the dealer sits out (no cards, score 0) and the deal passes on as usual.
Every expected number below is worked out by hand in the comment next to it.
"""
import numpy as np
import polars as pl
import pytest

from dokosim.engine.layout import R_BOCK_MASK
from dokosim.engine.session import BOOK_LEN, BOOK_QUEUE, BOOK_TOTAL, book_deal, seat_table
from dokosim.records.record import replay_detail
from dokosim.rules import rules_from_object
from dokosim.run.session import simulate_sessions
from tests.helpers.scenario_util import ann, deal_from_tricks, record, score
from tests.engine.test_scenarios import E1, E2, E3, E45, E6, E7, HEARTS, MAR_NONE, MAR_T3, X0

ALL = ("tie", "lost_announcement", "zero", "lost_solo")


def solo(kind, seat, compulsory=False):
    return {"type": "solo", "kind": kind, "seat": seat, "compulsory": compulsory}


# ---------------------------------------------------------------- the deals
# name -> (record, what the rules kernels must make of it: contract, eyes of Re, winner,
# score per seat as RULES.md 1.7 gives it; then the triggers RULES.md part 2 says it fires)
def _deals():
    e1, e2, e3, e45 = (deal_from_tricks(t) for t in (E1, E2, E3, E45))
    e6, e7, x0, mar0 = (deal_from_tricks(t) for t in (E6, E7, X0, MAR_NONE))
    hearts = deal_from_tricks(HEARTS, "hearts", leader=1)
    mar3 = deal_from_tricks(MAR_T3)
    return {
        # 1.8 ex. 1: Re 160 : 80, V = 1. Nothing fires.
        "re_wins": (record(e1), ("normal", 160, "re", [1, -1, 1, -1]), set()),
        # ex. 1 with Re announced: Re wins V = 3. Re said Re and won: no lost_announcement.
        "re_announced_and_won": (record(e1, announcements=[ann(0, "re", 0)]),
                                 ("normal", 160, "re", [3, -3, 3, -3]), set()),
        # ex. 2: 120 : 120, Kontra wins V = 2. tie.
        "tie": (record(e2), ("normal", 120, "kontra", [-2, 2, -2, 2]), {"tie"}),
        # ex. 2, Re announced: Kontra wins V = 4. tie, and Re said Re and lost.
        "tie_re_announced": (record(e2, announcements=[ann(0, "re", 0)]),
                             ("normal", 120, "kontra", [-4, 4, -4, 4]),
                             {"tie", "lost_announcement"}),
        # ex. 2, Kontra alone announced: Re wins V = 3. tie, and Kontra said Kontra and lost.
        "tie_kontra_announced": (record(e2, announcements=[ann(3, "kontra", 0)]),
                                 ("normal", 120, "re", [3, -3, 3, -3]),
                                 {"tie", "lost_announcement"}),
        # marriage of seat 0, partner seat 3 (clarified in trick 3); Re (seat 3) and Kontra
        # (seat 1) both said it with 9 cards: Re 134 : 106 wins V = 5. Kontra said Kontra and
        # lost: lost_announcement (RULES.md has no "both sides called" trigger of its own;
        # whenever both call, one of them fails to win, so this one covers it).
        "re_and_kontra_re_wins": (record(mar3, {"type": "marriage", "seat": 0},
                                         announcements=[ann(3, "re", 12), ann(1, "kontra", 12)]),
                                  ("marriage", 134, "re", [5, -5, -5, 5]), {"lost_announcement"}),
        # ex. 3: "Re, no 90", Kontra takes 110 and wins V = 5. lost_announcement only.
        "re_no90_lost": (record(e3, announcements=[ann(0, "no90", 0)]),
                         ("normal", 130, "kontra", [-5, 5, -5, 5]), {"lost_announcement"}),
        # ex. 5: both sides up to no 60, 170 : 70, nobody wins, Re +3. "A deal that nobody
        # wins counts": lost_announcement (one trigger, one round, though both sides said it).
        "nobody_wins": (record(e45, announcements=[ann(0, "no60", 0), ann(1, "no60", 0)]),
                        ("normal", 170, None, [3, -3, 3, -3]), {"lost_announcement"}),
        # Re wins 129 : 111 (1), Kontra caught a fox (1): V = 0, every score 0. zero.
        "zero": (record(x0), ("normal", 129, "re", [0, 0, 0, 0]), {"zero"}),
        # ex. 7: diamonds solo 120 : 120, Kontra wins V = 1, soloist -3. tie and lost_solo.
        "solo_tie": (record(e7, solo("diamonds", 1)),
                     ("diamonds_solo", 120, "kontra", [1, -3, 1, 1]), {"tie", "lost_solo"}),
        # ex. 1's cards as a diamonds solo of seat 0: 106 : 134, Kontra wins V = 1. lost_solo.
        "solo_lost": (record(e1, solo("diamonds", 0)),
                      ("diamonds_solo", 106, "kontra", [-3, 1, 1, 1]), {"lost_solo"}),
        # seat 0 holds both QC and says healthy: a silent marriage, 115 : 125, Kontra wins
        # V = 1, soloist -3. A soloist lost (silent marriages included): lost_solo.
        "silent_marriage_lost": (record(mar0), ("silent_marriage", 115, "kontra", [-3, 1, 1, 1]),
                                 {"lost_solo"}),
        # the same cards with the marriage declared: seat 0 wins tricks 1-3, plays alone
        # (failed marriage), 115 : 125, soloist -3. lost_solo.
        "failed_marriage_lost": (record(mar0, {"type": "marriage", "seat": 0}),
                                 ("marriage_solo", 115, "kontra", [-3, 1, 1, 1]), {"lost_solo"}),
        # ex. 6: silent marriage with Re, 216 : 24, soloist +18. Nothing fires.
        "silent_marriage_won": (record(e6, announcements=[ann(0, "re", 0)]),
                                ("silent_marriage", 216, "re", [18, -6, -6, -6]), set()),
        # compulsory hearts solo, soloist "Re, no 30" (needs 211), Kontra "no 90" (needs 151):
        # 190 : 50, nobody wins, soloist +9. Not a lost solo (nobody won, the soloist scores
        # plus), but both sides said Re/Kontra and did not win: lost_announcement.
        "solo_nobody_wins": (record(hearts, solo("hearts", 1, compulsory=True),
                                    announcements=[ann(1, "no30", 0), ann(0, "no90", 0)]),
                             ("hearts_solo", 190, None, [-3, 9, -3, -3]), {"lost_announcement"}),
    }


DEALS = _deals()


def replayed(name):
    """The deal's result row from the rules kernels (and its scored record, checked against
    the hand-computed facts)."""
    rec, (contract, eyes_re, winner, scores), _ = DEALS[name]
    out = score(rec)
    assert out["ok"] and out.get("complete", True), out
    assert (out["contract"], out["eyes"]["re"], out["winner"], out["score"]) == \
        (contract, eyes_re, winner, scores), out
    detail = replay_detail(rec)
    assert detail["error"] == 0
    return detail["res"]


def bock_mask(bock):
    return int(rules_from_object({"preset": "ddv", "bock": list(bock)}, session=True).packed()[R_BOCK_MASK])


TRIGGER_BIT = {name: 1 << i for i, name in enumerate(ALL)}


def trigger_names(bits):
    return {name for name, bit in TRIGGER_BIT.items() if bits & bit}


class Session:
    """Deals booked one after the other as sim_loop.run_block books them (no compulsory
    solos: the deal passes on after every deal). Each deal's record is written for the engine's
    seats 0..3 with the engine's dealer (3 for the deals above: engine seat 0 leads)."""

    def __init__(self, bock=(), players=4):
        self.mask = bock_mask(bock)
        self.players = players
        self.book = np.zeros(BOOK_LEN, dtype=np.int64)
        self.dealer = 0
        self.rows = []

    def seats(self):
        """(engine dealer, table seat of engine seats 0..3) for the next deal."""
        table = np.zeros(4, dtype=np.int64)
        edealer = seat_table(self.dealer, self.players, table)
        return int(edealer), table

    def play(self, name):
        edealer, table = self.seats()
        scores = np.zeros(5, dtype=np.int64)
        mult, trig = book_deal(replayed(name), self.mask, self.players, table, self.book, scores)
        row = {"dealer": self.dealer, "table": table.tolist(), "bock": int(mult),
               "triggers": trigger_names(int(trig)), "queue": int(self.book[BOOK_QUEUE]),
               "scores": scores[:self.players].tolist(),
               "totals": self.book[BOOK_TOTAL:BOOK_TOTAL + self.players].tolist()}
        self.rows.append(row)
        self.dealer = (self.dealer + 1) % self.players
        return row


def check(row, bock, triggers, queue, scores, totals):
    assert (row["bock"], row["triggers"], row["queue"], row["scores"], row["totals"]) == \
        (bock, set(triggers), queue, scores, totals), row


# ================================================================ bock triggers
@pytest.mark.parametrize("name", list(DEALS))
def test_each_deal_fires_exactly_the_triggers_the_spec_names(name):
    """With all four triggers on, a deal fires the triggers listed next to it, each queueing one
    round of four deals; the deal itself is not doubled (the queue starts with the next deal)."""
    _, (_, _, _, scores), expected = DEALS[name]
    s = Session(ALL)
    row = s.play(name)
    check(row, 1, expected, 4 * len(expected), scores, scores)


@pytest.mark.parametrize("name", [n for n, d in DEALS.items() if d[2]])
@pytest.mark.parametrize("trigger", ALL)
def test_a_trigger_counts_only_when_the_rules_name_it(name, trigger):
    _, _, expected = DEALS[name]
    fired = {trigger} & expected
    row = Session([trigger]).play(name)
    assert row["triggers"] == fired and row["queue"] == 4 * len(fired)
    row = Session([t for t in ALL if t != trigger]).play(name)
    assert row["triggers"] == expected - {trigger}
    assert Session([]).play(name)["queue"] == 0


def test_a_tie_makes_the_next_four_deals_bock_deals_with_doubled_scores():
    s = Session(["tie"])
    # 120 : 120, Kontra wins V = 2: not doubled itself; one round = 4 deals queued.
    check(s.play("tie"), 1, {"tie"}, 4, [-2, 2, -2, 2], [-2, 2, -2, 2])
    # Deals 2-5: Re wins V = 1 (ex. 1), doubled to 2.
    check(s.play("re_wins"), 2, (), 3, [2, -2, 2, -2], [0, 0, 0, 0])
    check(s.play("re_wins"), 2, (), 2, [2, -2, 2, -2], [2, -2, 2, -2])
    check(s.play("re_wins"), 2, (), 1, [2, -2, 2, -2], [4, -4, 4, -4])
    check(s.play("re_wins"), 2, (), 0, [2, -2, 2, -2], [6, -6, 6, -6])
    # The round is over: the sixth deal counts once.
    check(s.play("re_wins"), 1, (), 0, [1, -1, 1, -1], [7, -7, 7, -7])


def test_each_trigger_kind_starts_a_round():
    """zero, lost_announcement, lost_solo: each alone, followed by its four doubled deals."""
    for name, base in (("zero", [0, 0, 0, 0]), ("re_no90_lost", [-5, 5, -5, 5]),
                       ("silent_marriage_lost", [-3, 1, 1, 1])):
        s = Session(ALL)
        first = s.play(name)
        assert (first["bock"], first["queue"], first["scores"]) == (1, 4, base)
        rows = [s.play("re_wins") for _ in range(5)]
        assert [r["bock"] for r in rows] == [2, 2, 2, 2, 1]
        assert [r["queue"] for r in rows] == [3, 2, 1, 0, 0]
        # 4 doubled deals of +2 / -2 and one of +1 / -1 after the first deal
        assert rows[-1]["totals"] == [b + s_ for b, s_ in zip(base, [9, -9, 9, -9])]


def test_rounds_queue_one_after_another_and_never_double_twice():
    s = Session(ALL)
    # Deal 1: 120 : 120, V = 2: tie -> 4 deals queued.
    check(s.play("tie"), 1, {"tie"}, 4, [-2, 2, -2, 2], [-2, 2, -2, 2])
    # Deal 2 is a bock deal: "Re, no 90" lost, V = 5, doubled to 10; lost_announcement queues
    # a round behind the 3 deals left: 3 + 4 = 7.
    check(s.play("re_no90_lost"), 2, {"lost_announcement"}, 7,
          [-10, 10, -10, 10], [-12, 12, -12, 12])
    # Deal 3 (bock): diamonds solo 120 : 120 lost, base [1, -3, 1, 1] doubled; tie and
    # lost_solo queue two rounds: 6 + 8 = 14.
    check(s.play("solo_tie"), 2, {"tie", "lost_solo"}, 14, [2, -6, 2, 2], [-10, 6, -10, 14])
    # Deals 4-17: fourteen bock deals, each x2 only (Re wins V = 1 -> 2), however many rounds
    # were queued.
    totals = [-10, 6, -10, 14]
    for left in range(13, -1, -1):
        totals = [t + d for t, d in zip(totals, [2, -2, 2, -2])]
        check(s.play("re_wins"), 2, (), left, [2, -2, 2, -2], totals)
    assert totals == [18, -22, 18, -14]
    # Deal 18: the queue is empty.
    check(s.play("re_wins"), 1, (), 0, [1, -1, 1, -1], [19, -23, 19, -15])


def test_a_trigger_in_the_last_bock_deal_queues_a_fresh_round():
    s = Session(["tie"])
    check(s.play("tie"), 1, {"tie"}, 4, [-2, 2, -2, 2], [-2, 2, -2, 2])
    for _ in range(3):
        s.play("re_wins")
    assert s.rows[-1]["totals"] == [4, -4, 4, -4]
    # the round's last deal is a tie again: doubled (-4 / +4), and 0 + 4 deals queued
    check(s.play("tie"), 2, {"tie"}, 4, [-4, 4, -4, 4], [0, 0, 0, 0])
    assert [s.play("re_wins")["bock"] for _ in range(5)] == [2, 2, 2, 2, 1]


def test_redealt_deals_count_for_nothing_in_the_bock_queue():
    """RULES.md part 2: a redeal (throw-in, a poverty nobody takes) is not played and counts for
    nothing. Records have no redeals, so this runs the real session kernel: a row whose deal was
    dealt again (``redeals`` > 0) during a bock round uses up exactly one bock deal."""
    lively = {"random": {"p_reserve": 0.5, "p_call": 0.1}}
    df = simulate_sessions(400, seed=77, strategy="random,simple,random,simple", params=lively,
                           rules={"preset": "ddv", "bock": list(ALL), "poverty": True,
                                  "throw_in": True}, compulsory=False)
    df = df.sort("session_id", "deal_number").with_columns(
        pl.col("bock_queue").shift(1).over("session_id").fill_null(0).alias("queue_before"))
    redealt = df.filter((pl.col("redeals") > 0) & (pl.col("queue_before") > 0))
    assert redealt.height > 20
    for r in redealt.iter_rows(named=True):
        assert r["bock"] == 2
        assert r["bock_queue"] == r["queue_before"] - 1 + 4 * bin(r["bock_triggers"]).count("1")


# ================================================================ five players
def five_player_row(s, name):
    """Play a deal at a five-player table and check who played it: the four others, clockwise
    from the dealer's left (engine seats 0..3 in play order), the dealer's left neighbour
    leading trick 1 (RULES.md 1.3: the deal is played as usual)."""
    edealer, _ = s.seats()
    row = s.play(name)
    dealer = row["dealer"]
    assert row["table"] == [(dealer + 1 + i) % 5 for i in range(4)]
    first = replay_detail(DEALS[name][0])["play_seat"][0]
    assert first == (edealer + 1) % 4 and row["table"][first] == (dealer + 1) % 5
    assert row["scores"][dealer] == 0
    assert sum(row["scores"]) == 0 and sum(row["totals"]) == 0
    return row


def test_five_players_the_dealer_sits_out_and_a_round_is_five_deals():
    s = Session(["tie"], players=5)
    # Deal 1, dealer 0 sits out; seats 1 2 3 4 play 120 : 120, Kontra (seats 2, 4) wins V = 2.
    check(five_player_row(s, "tie"), 1, {"tie"}, 5, [0, -2, 2, -2, 2], [0, -2, 2, -2, 2])
    # Deals 2-6: one bock round of five deals. Re wins V = 1, doubled: the Re pair is the
    # first and third of the four players from the dealer's left.
    # dealer 1: seats 2 3 4 0 -> Re 2, 4
    check(five_player_row(s, "re_wins"), 2, (), 4, [-2, 0, 2, -2, 2], [-2, -2, 4, -4, 4])
    # dealer 2: seats 3 4 0 1 -> Re 3, 0
    check(five_player_row(s, "re_wins"), 2, (), 3, [2, -2, 0, 2, -2], [0, -4, 4, -2, 2])
    # dealer 3: seats 4 0 1 2 -> Re 4, 1
    check(five_player_row(s, "re_wins"), 2, (), 2, [-2, 2, -2, 0, 2], [-2, -2, 2, -2, 4])
    # dealer 4: seats 0 1 2 3 -> Re 0, 2
    check(five_player_row(s, "re_wins"), 2, (), 1, [2, -2, 2, -2, 0], [0, -4, 4, -4, 4])
    # dealer 0: seats 1 2 3 4 -> Re 1, 3
    check(five_player_row(s, "re_wins"), 2, (), 0, [0, 2, -2, 2, -2], [0, -2, 2, -2, 2])
    # Deal 7, dealer 1 (seats 2 3 4 0): not doubled. Diamonds solo of the second player from
    # the dealer's left, seat 3: 120 : 120, Kontra wins V = 1 -> seat 3 -3, seats 2 4 0 +1;
    # a tie: the next five deals are queued.
    check(five_player_row(s, "solo_tie"), 1, {"tie"}, 5, [1, 0, 1, -3, 1], [1, -2, 3, -5, 3])
