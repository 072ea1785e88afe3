"""Scenario tests for RULES.md part 1 (the `ddv` preset), written from the spec.

Every deal below is designed by hand: the 12 tricks are written in SEAT order
("seat0 seat1 seat2 seat3"), and `deal_from_tricks` (tests/helpers/scenario_util.py,
independent of the engine) derives who leads, the order the cards hit the
table and the hands, and checks that every card follows suit.  Each deal
lists per trick the winner and the eyes as computed by hand; the tests also
assert those numbers against the independent helper before asking the engine.

Seats: with the default dealer 3, seat 0 leads trick 1.
"""
import pytest

from tests.helpers.scenario_util import (ann, deal_from_tricks, expect, held, pm, record, score,
                                         seat_of_card)

NORMAL = {"type": "normal"}


# Deals scored with announcements and what the rules make of them, each worked out by hand in
# the comment above it: one entry per case, next to its deal; test_scores_as_worked_out runs them.
SCORED = []


def case(deal, recorded, name, **expected):
    """A case of test_scores_as_worked_out: the deal fixture's name, record()'s keywords beyond
    the deal, the case's name, and expect()'s keywords."""
    return pytest.param(deal, recorded, expected, id=name)


def solo(kind, seat, compulsory=False):
    return {"type": "solo", "kind": kind, "seat": seat, "compulsory": compulsory}


def marriage(seat):
    return {"type": "marriage", "seat": seat}


def check_tricks(deal, winners, eyes_re, re_seats):
    """The hand computation written next to each deal, checked once more."""
    assert deal.winners == winners
    assert deal.eyes(set(re_seats)) == eyes_re
    assert deal.eyes(set(range(4)) - set(re_seats)) == 240 - eyes_re


# =====================================================================
# Normal-game deals.  Re = holders of QC = seats 0 and 2 in all of them.
# =====================================================================

# E1: Re 160 : Kontra 80.  Re Charlie (JC of seat 0 wins trick 12); Kontra
# catches seat 0's fox in trick 8, which is also a doppelkopf (41 eyes).
#   t1  s0 AC wins 15 R | t2 s1 AC 35 K | t3 s0 AS 15 R | t4 s2 AS 35 R
#   t5  s2 AH 19 R      | t6 s0 TH 19 R | t7 s0 QC 12 R
#   t8  s1 TH 41 K (AD of s0 caught, doppelkopf)      | t9 s1 JH 4 K
#   t10 s0 QD 18 R (AD of s2, Re's own trick)          | t11 s0 JH 12 R
#   t12 s0 JC 15 R (Charlie)
# Re: 15+15+35+19+19+12+18+12+15 = 160 (9 tricks); Kontra 35+41+4 = 80.
E1 = ["AC 9C KC 9C", "TC AC TC KC", "AS 9S KS 9S", "TS TS AS KS", "KH 9H AH KH",
      "TH QS QC QS", "QC QH QD QH", "AD TH TD TD", "9D JH 9D JD", "QD JS AD JC",
      "JH KD JD KD", "JC 9H JS AH"]
E1_WINNERS = [0, 1, 0, 2, 2, 0, 0, 1, 1, 0, 0, 0]

# E2: Re 120 : Kontra 120, no extra points at all.
#   t1 s0 AC 15 R | t2 s1 AC 35 K | t3 s1 AS 15 K | t4 s0 AS 35 R
#   t5 s0 AH 19 R | t6 s0 TH 15 R | t7 s0 QC 12 R | t8 s2 QS 18 R (AD s0)
#   t9 s1 TH 35 K (AD s3)         | t10 s0 JC 6 R | t11 s1 QH 12 K (first QH)
#   t12 s3 JH 23 K (TD led, JH highest; not Charlie)
# Re 15+35+19+15+12+18+6 = 120 (7 tricks); Kontra 35+15+35+12+23 = 120.
E2 = ["AC 9C KC 9C", "TC AC TC KC", "9S AS 9S KS", "AS TS TS KS", "AH KH 9H KH",
      "TH JD QC 9D", "QC QS JD KD", "AD JC QS JS", "TD TH KD AD", "JC 9D JH JS",
      "QD QH QD QH", "9H TD AH JH"]
E2_WINNERS = [0, 1, 1, 0, 0, 0, 0, 2, 1, 0, 1, 3]

# E3: E2 with 10 eyes moved to Re in the club tricks: t1 "AC TC KC 9C" = 25 R,
# t2 "TC AC 9C KC" = 25 K.  Re 130 : Kontra 110, same winners, no extras.
E3 = ["AC TC KC 9C", "TC AC 9C KC"] + E2[2:]

# E45: E2 with Re also winning t2 (s2 AC, 35) and t3 (s0 AS, 15):
# Re 120 + 35 + 15 = 170 (9 tricks) : Kontra 70, no extras.
E45 = ["AC 9C KC 9C", "TC KC AC TC", "AS 9S 9S KS", "AS TS TS KS"] + E2[4:]
E45_WINNERS = [0, 2, 0, 0, 0, 0, 0, 2, 1, 0, 1, 3]

# X0: E3 with the foxes moved: t8 "TD JC QS JS" (s2 QS, 17 R),
# t9 "AD TH KD AD" (s1 TH 36 K, catching seat 0's AD).  Re 129 : 111.
X0 = E3[:7] + ["TD JC QS JS", "AD TH KD AD"] + E3[9:]
# XNEG: as X0 but t8 "KD JC QS JS" (11 R), t9 "AD TH TD AD" (42 K: fox caught
# AND doppelkopf).  Re 123 : 117.
XNEG = E3[:7] + ["KD JC QS JS", "AD TH TD AD"] + E3[9:]

# X2: Re catches both Kontra foxes, Kontra makes Charlie.
#   t1..t7 as E2 (R 15, K 35, K 15, R 35, R 19, R 15, R 12)
#   t8  "JS AD QS JC": s2 QS 18 R, AD of seat 1 caught
#   t9  "TH TD KD AD": s0 TH 35 R, AD of seat 3 caught
#   t10 "JH 9D JH JS": s3 JS 6 K | t11 s3 QH (first QH) 12 K
#   t12 "9H TD AH JC": s3 leads JC, wins 23 K (Charlie for Kontra)
# Re 15+35+19+15+12+18+35 = 149 (7 tricks); Kontra 35+15+6+12+23 = 91.
X2 = E2[:7] + ["JS AD QS JC", "TH TD KD AD", "JH 9D JH JS", "QD QH QD QH",
               "9H TD AH JC"]


@pytest.fixture(scope="module")
def e1():
    d = deal_from_tricks(E1)
    check_tricks(d, E1_WINNERS, 160, [0, 2])
    return d


@pytest.fixture(scope="module")
def e2():
    d = deal_from_tricks(E2)
    check_tricks(d, E2_WINNERS, 120, [0, 2])
    return d


@pytest.fixture(scope="module")
def e3():
    d = deal_from_tricks(E3)
    check_tricks(d, E2_WINNERS, 130, [0, 2])
    return d


@pytest.fixture(scope="module")
def e45():
    d = deal_from_tricks(E45)
    check_tricks(d, E45_WINNERS, 170, [0, 2])
    return d


# ---------------------------------------------------------------------
# RULES.md 1.8 worked example 1
# ---------------------------------------------------------------------
# Base 1 + 1 (Kontra 80 < 90) = 2; extras Re 1 (Charlie) - Kontra 2
# (fox, doppelkopf) -> V = 1.
SCORED.append(case(
    "e1", dict(), "example1_no_announcements",
    contract="normal", re_seats=[0, 2], eyes=(160, 80), tricks=(9, 3),
    winner="re", value=1,
    points=pm("re:won", "re:under_90", "re:charlie",
              "kontra:fox_caught", "kontra:doppelkopf"),
    score=[1, -1, 1, -1]))


# Same deal, seat 0 says Re before the first card: V = 1 + 1 + 2 + 1 - 2 = 3.
SCORED.append(case(
    "e1", dict(announcements=[ann(0, "re", 0)]), "example1_with_re_announced",
    contract="normal", re_seats=[0, 2], eyes=(160, 80), tricks=(9, 3),
    winner="re", value=3,
    points=pm("re:won", "re:under_90", "re:re_announced", "re:charlie",
              "kontra:fox_caught", "kontra:doppelkopf"),
    score=[3, -3, 3, -3]))


# ---------------------------------------------------------------------
# RULES.md 1.8 worked example 2 (120 : 120), all four variants
# Announcement items count for the side that wins (GAME_RECORD.md: V is the
# winner's item weights minus the loser's).
# ---------------------------------------------------------------------
# Re needs 121 -> Kontra wins: 1 + 1 (against the queens) = 2.
SCORED.append(case(
    "e2", dict(), "example2_no_announcements",
    contract="normal", re_seats=[0, 2], eyes=(120, 120), tricks=(7, 5),
    winner="kontra", value=2,
    points=pm("kontra:won", "kontra:against_the_queens"),
    score=[-2, 2, -2, 2]))


# Kontra wins, 1 + 2 + 1 = 4.
SCORED.append(case(
    "e2", dict(announcements=[ann(0, "re", 0)]), "example2_re_announced_only",
    contract="normal", re_seats=[0, 2], eyes=(120, 120), tricks=(7, 5),
    winner="kontra", value=4,
    points=pm("kontra:won", "kontra:re_announced", "kontra:against_the_queens"),
    score=[-4, 4, -4, 4]))


# Kontra wins, 1 + 2 + 2 + 1 = 6.
SCORED.append(case(
    "e2", dict(announcements=[ann(0, "re", 0), ann(1, "kontra", 0)]), "example2_re_and_kontra_announced",
    contract="normal", re_seats=[0, 2], eyes=(120, 120), tricks=(7, 5),
    winner="kontra", value=6,
    points=pm("kontra:won", "kontra:re_announced", "kontra:kontra_announced",
              "kontra:against_the_queens"),
    score=[-6, 6, -6, 6]))


# Kontra alone announced: Kontra needs 121, Re 120 -> Re wins 1 + 2 = 3.
SCORED.append(case(
    "e2", dict(announcements=[ann(3, "kontra", 0)]), "example2_kontra_announced_only",
    contract="normal", re_seats=[0, 2], eyes=(120, 120), tricks=(7, 5),
    winner="re", value=3,
    points=pm("re:won", "re:kontra_announced"),
    score=[3, -3, 3, -3]))


# ---------------------------------------------------------------------
# RULES.md 1.8 worked examples 3, 4, 5
# ---------------------------------------------------------------------
# "Re, no 90" in one call; Kontra 110 >= 90 wins: 1 + 2 + 1 + 1 = 5.
SCORED.append(case(
    "e3", dict(announcements=[ann(0, "no90", 0)]), "example3_re_no90_kontra_takes_110",
    contract="normal", re_seats=[0, 2], eyes=(130, 110), tricks=(7, 5),
    winner="kontra", value=5,
    points=pm("kontra:won", "kontra:re_announced", "kontra:no90_announced",
              "kontra:against_the_queens"),
    score=[-5, 5, -5, 5]))


# Re "Re, no 90, no 60", Kontra "Kontra"; Kontra 70 >= 60 wins:
# 1 + 2 + 2 + 1 + 1 + 1 = 8.
SCORED.append(case(
    "e45", dict(announcements=[ann(0, "no60", 0), ann(1, "kontra", 0)]),
    "example4_re_no90_no60_kontra_takes_70",
    contract="normal", re_seats=[0, 2], eyes=(170, 70), tricks=(9, 3),
    winner="kontra", value=8,
    points=pm("kontra:won", "kontra:re_announced", "kontra:kontra_announced",
              "kontra:no90_announced", "kontra:no60_announced",
              "kontra:against_the_queens"),
    score=[-8, 8, -8, 8]))


# Both sides up to no 60, 170 : 70.  Both need 181: nobody wins.
# Re: Kontra under 90 (1), 120 vs no 90 (1), 90 vs no 60 (1) = 3; Kontra 0.
SCORED.append(case(
    "e45", dict(announcements=[ann(0, "no60", 0), ann(1, "no60", 0)]), "example5_nobody_wins",
    contract="normal", re_seats=[0, 2], eyes=(170, 70), tricks=(9, 3),
    winner=None, value=3,
    points=pm("re:under_90", "re:reached_120", "re:reached_90"),
    score=[3, -3, 3, -3]))


# ---------------------------------------------------------------------
# RULES.md 1.8 worked example 6: silent marriage 216 : 24
# ---------------------------------------------------------------------
# Seat 0 holds both QC and says healthy (contract normal).  Seat 0 leads and
# wins tricks 1-11; trick 12 (9H led, TD of seat 1 first trump) goes to
# Kontra: 9H + TD + KH + TD = 24.  Foxes of seats 1 and 2 fall in t5 (won by
# seat 0) - irrelevant, a silent marriage has no extra points.
E6 = ["TH QH QH QD", "TH QD JC JC", "QC JS JS JH", "QC JH JD JD", "QS AD AD KD",
      "QS KD 9D 9D", "AC TC TC KC", "AC KC 9C 9C", "AS TS TS KS", "AS KS 9S 9S",
      "AH AH KH 9H", "9H TD KH TD"]


@pytest.fixture(scope="module")
def e6():
    d = deal_from_tricks(E6)
    check_tricks(d, [0] * 11 + [1], 216, [0])
    return d


# V = 1 + 3 (under 90, 60, 30) + 2 = 6; soloist +18, opponents -6 each.
# declarer: a silent marriage is not declared (the player said healthy),
# so GAME_RECORD.md's "seat that declared the contract" is null.
SCORED.append(case(
    "e6", dict(announcements=[ann(0, "re", 0)]), "example6_silent_marriage_re_announced",
    contract="silent_marriage", re_seats=[0], soloist=0, declarer=None,
    eyes=(216, 24), tricks=(11, 1), winner="re", value=6,
    points=pm("re:won", "re:under_90", "re:under_60", "re:under_30",
              "re:re_announced"),
    score=[18, -6, -6, -6]))


def test_silent_marriage_shifts_no_call_limit(e6):
    # Seat 0 leads every trick; at cards_played 4 it holds 11 (Re in time), at
    # 5 it holds 10: too late, a silent marriage shifts nothing.
    assert held(e6, 0, 4) == 11 and held(e6, 0, 5) == 10
    ok = score(record(e6, announcements=[ann(0, "re", 4)]))
    assert ok["ok"] and ok["game_value"] == 6
    late = score(record(e6, announcements=[ann(0, "re", 5)]))
    assert late["ok"] is False
    assert late["kind"] == "announcement_too_late"
    assert (late["seat"], late["call"], late["cards_played"]) == (0, "re", 5)


# ---------------------------------------------------------------------
# RULES.md 1.8 worked example 7: solo without announcements, 120 : 120
# ---------------------------------------------------------------------
# Voluntary diamonds solo of seat 1 (dealer 3: seat 0 leads).
#   t1 s0 AC 15 K | t2 s1 AC 35 R | t3 s1 AS 15 R | t4 s0 AS 35 K
#   t5 s0 AH 19 K | t6 s1 TH 16 R | t7 s0 QC 12 K | t8 s1 TH 16 R
#   t9 s1 QS 11 R | t10 s1 JC 27 R (AD of s0: no fox in a solo)
#   t11 s0 QD 26 K | t12 s0 JS 13 K
# Soloist 35+15+16+16+11+27 = 120; Kontra 15+35+19+12+26+13 = 120.
E7 = ["AC 9C KC 9C", "TC AC TC KC", "9S AS 9S KS", "AS TS TS KS", "AH KH 9H KH",
      "QD TH QC 9D", "QC QS JD KD", "JC TH JS JH", "QH QS QH JD", "AD JC TD KD",
      "QD JH AD TD", "JS 9H AH 9D"]
E7_WINNERS = [0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0]


@pytest.fixture(scope="module")
def e7():
    d = deal_from_tricks(E7)
    check_tricks(d, E7_WINNERS, 120, [1])
    return d


# Kontra wins, V = 1 (no against-the-queens in a solo): soloist -3,
# opponents +1 each.
SCORED.append(case(
    "e7", dict(contract=solo("diamonds", 1)), "example7_solo_120_120",
    contract="diamonds_solo", re_seats=[1], soloist=1, declarer=1,
    eyes=(120, 120), tricks=(6, 6), winner="kontra", value=1,
    points=pm("kontra:won"), score=[1, -3, 1, 1]))


def test_voluntary_solo_is_led_by_dealers_left(e7):
    # With dealer 3 (E7) seat 0 leads although seat 1 is the soloist.  The
    # same play with dealer 0 makes seat 1 the leader: seat 1 holds an AC for
    # the first card, but the second card (9C) is then seat 2's, who has none.
    assert "AC" in e7.hands[1] and "9C" not in e7.hands[2]
    bad = score(record(e7, solo("diamonds", 1), dealer=0))
    assert bad["ok"] is False
    assert bad["kind"] == "not_in_hand"
    assert (bad["seat"], bad["trick"], bad["card_index"], bad["card"]) == (2, 1, 2, "9C")
    ok = score(record(e7, solo("diamonds", 1), dealer=3))
    assert ok["ok"] and ok["eyes"]["re"] == 120


# =====================================================================
# Trump order per contract
# =====================================================================

# DULLE (dealer 0: seat 1 leads).  Trick 1: seat 1 plays the first TH, seat 2
# (Re) the second TH: the first wins (23 eyes to Kontra).
#   t1 s1 TH 23 K | t2 s1 AC 15 K | t3 s0 AC 35 R | t4 s0 AS 15 R
#   t5 s1 AS 35 K | t6 s0 AH 19 R | t7 s2 QC 8 R  | t8 s1 QS 12 K (first QS)
#   t9 s2 JC 19 R (AD s0) | t10 s0 QH 26 R (AD s2) | t11 s1 QS 9 K
#   t12 s3 QD 24 K (TD led)
# Re 35+15+19+8+19+26 = 122 (6 tricks); Kontra 23+15+35+12+9+24 = 118.
# Had the second TH won, Re would have 145.
DULLE = ["QC TH TH 9D", "9C AC KC 9C", "AC TC TC KC", "AS 9S KS 9S", "TS AS TS KS",
         "AH KH 9H KH", "QD JD QC 9D", "QH QS KD JS", "AD JS JC KD", "QH JD AD TD",
         "JH QS JH JC", "9H TD AH QD"]


def test_first_dulle_beats_second_dulle():
    d = deal_from_tricks(DULLE, leader=1)
    check_tricks(d, [1, 1, 0, 0, 1, 0, 2, 1, 2, 0, 1, 3], 122, [0, 2])
    out = score(record(d, dealer=0))
    expect(out, contract="normal", re_seats=[0, 2], eyes=(122, 118), tricks=(6, 6),
           winner="re", value=1, points=pm("re:won"), score=[1, -1, 1, -1])


# QSDEAL: seat 3 has no plain spade but holds QS.  Trick 1 (AS led): seat 3
# discards 9H - legal, QS is a trump and does not follow spades.  Trick 2
# (TS led): seat 3 trumps with QS and wins 34.
#   t1 s0 AS 19 R | t2 s3 QS 34 K | t3 s0 AC 25 R | t4 s1 AC 25 K
#   t5 s1 AH 30 K (first AH) | t6 s0 TH 15 R | t7 s0 QC 12 R
#   t8 s1 TH 26 K (AD s3) | t9 s0 QD 26 R (AD s2) | t10 s0 QH 7 R
#   t11 s1 QD 11 K | t12 s3 TD 10 K (9S led, seat 3 trumps)
# Re 19+25+15+12+26+7 = 104; Kontra 34+25+30+26+11+10 = 136.
QSDEAL = ["AS KS KS 9H", "TS AS TS QS", "AC TC KC 9C", "TC AC 9C KC", "KH AH AH KH",
          "TH JD QC 9D", "QC QH JD KD", "JS TH QS AD", "QD JC AD TD", "QH JH JH 9D",
          "JS QD JC KD", "9H 9S 9S TD"]


def test_queen_of_spades_does_not_follow_spades_in_normal_game():
    d = deal_from_tricks(QSDEAL)
    check_tricks(d, [0, 3, 0, 1, 1, 0, 0, 1, 0, 0, 1, 3], 104, [0, 2])
    assert "QS" in d.hands[3] and not any(c[1] == "S" and c[0] != "Q" for c in d.hands[3])
    out = score(record(d))
    expect(out, contract="normal", re_seats=[0, 2], eyes=(104, 136), tricks=(6, 6),
           winner="kontra", value=2,
           points=pm("kontra:won", "kontra:against_the_queens"),
           score=[-2, 2, -2, 2])


def test_queen_of_spades_may_not_be_played_on_spade_lead_holding_a_spade(e2):
    # E2 trick 3: seat 1 leads AS; seat 2 holds 9S, TS and QS and plays QS.
    assert {"9S", "QS"} <= set(e2.hands[2])
    play = e2.play[:8] + ["AS", "QS"]
    out = score(record(e2, play=play))
    assert out["ok"] is False
    assert out["kind"] == "follow_suit"
    assert (out["seat"], out["trick"], out["card_index"], out["card"]) == (2, 3, 10, "QS")


def test_plain_hearts_have_no_ten_and_unfinished_deal_is_checked(e2):
    # Trick 5 of E2 is AH KH 9H KH: plain hearts A K 9 (TH is a trump).
    # An unfinished record is checked but not scored.
    out = score(record(e2, play=e2.play[:20]))
    assert out["ok"] is True and out["complete"] is False
    assert out["cards_played"] == 20 and out["contract"] == "normal"
    assert sorted(out["re_seats"]) == [0, 2]


# QUEENS: queens solo of seat 2.  Trumps are the 8 queens; TH is a plain heart
# ranking A T K J 9.
#   t1 s0 AC 27 K | t2 s0 AS 27 K | t3 s0 AD 27 K
#   t4 "KH AH TH JH": s1 AH beats the soloist's TH, 27 K
#   t5 s2 QC 12 R | t6 s2 QC 12 R | t7 s2 AC 27 R | t8 s2 AS 27 R | t9 s2 AD 27 R
#   t10 "KH JH TH 9H": soloist's TH (plain) beats KH, 16 R
#   t11 s2 9C (first 9C) 0 R | t12 9H led, s0 AH 11 K
# Soloist 12+12+27+27+27+16 = 121 (7 tricks); Kontra 27*4 + 11 = 119.
# Were TH a trump, the soloist would also take t4: 148.
QUEENS = ["AC TC KC JC", "AS TS KS JS", "AD TD KD JD", "KH AH TH JH", "QH QD QC QD",
          "QS QH QC QS", "TC KC AC JC", "KS JS AS TS", "KD JD AD TD", "KH JH TH 9H",
          "9S 9C 9C 9D", "AH 9S 9H 9D"]


def test_queens_solo_ten_of_hearts_is_a_plain_heart():
    d = deal_from_tricks(QUEENS, "queens")
    check_tricks(d, [0, 0, 0, 1, 2, 2, 2, 2, 2, 2, 2, 0], 121, [2])
    out = score(record(d, solo("queens", 2)))
    expect(out, contract="queens_solo", re_seats=[2], soloist=2, declarer=2,
           eyes=(121, 119), tricks=(7, 5), winner="re", value=1,
           points=pm("re:won"), score=[-1, -1, 3, -1])


# JACKS: jacks solo of seat 1.  Trumps JC JS JH JD; queens and TH are plain
# (A T K Q 9).
#   t1 "AC QC TC KC": soloist's QC follows clubs and loses to AC, 28 K
#   t2 s0 AS 28 K | t3 s0 AD 28 K | t4 "KH TH AH QH": s2 AH 28 K
#   t5 s1 JC 8 R | t6 s1 JC 8 R | t7 s1 AC 28 R | t8 s1 AS 28 R | t9 s1 AD 28 R
#   t10 s1 TH (plain) 17 R | t11 s1 9C 0 R | t12 9H led, s0 AH 11 K
# Soloist 8+8+28+28+28+17 = 117 (7 tricks); Kontra 28*4 + 11 = 123.
JACKS = ["AC QC TC KC", "AS TS KS QS", "AD TD KD QD", "KH TH AH QH", "JH JC JD JS",
         "JS JC JH JD", "TC AC KC QC", "KS AS QS TS", "KD AD QD TD", "KH TH QH 9H",
         "9S 9C 9C 9D", "AH 9H 9S 9D"]


def test_jacks_solo_trumps_are_the_jacks_only():
    d = deal_from_tricks(JACKS, "jacks")
    check_tricks(d, [0, 0, 0, 2, 1, 1, 1, 1, 1, 1, 1, 0], 117, [1])
    out = score(record(d, solo("jacks", 1)))
    expect(out, contract="jacks_solo", re_seats=[1], soloist=1, declarer=1,
           eyes=(117, 123), tricks=(7, 5), winner="kontra", value=1,
           points=pm("kontra:won"), score=[1, -3, 1, 1])


# FLEISCH: fleischlos (aces solo) of seat 3.  No trumps; A T K Q J 9.
#   t1 "QC JC 9C KC": s3 KC beats QC and JC, 9 R
#   t2 s3 AC (first AC) 36 R | t3 s0 TC 15 K | t4 s0 TH 19 K
#   t5 "9H AH JH TH": AH beats the soloist's TH, 23 K | t6 s3 AH 18 R
#   t7 s0 AS 28 K | t8 s1 AS 27 K | t9 s1 QS 5 K | t10 s0 AD 28 K
#   t11 s2 AD 28 K | t12 s2 JD (first JD) 4 K
# Soloist 9+36+18 = 63 (3 tricks) ; Kontra 177.  Under 90, not under 60.
FLEISCH = ["QC JC 9C KC", "AC TC KC AC", "TC 9C JC QC", "TH KH QH JH", "9H AH JH TH",
           "KH 9H QH AH", "AS TS KS QS", "JS AS TS KS", "9S QS JS 9S", "AD TD KD QD",
           "TD KD AD QD", "JD 9D JD 9D"]


def test_fleischlos_has_no_trumps():
    d = deal_from_tricks(FLEISCH, "fleischlos", leader=0)
    check_tricks(d, [3, 3, 0, 0, 1, 3, 0, 1, 1, 0, 2, 2], 63, [3])
    out = score(record(d, solo("fleischlos", 3)))
    expect(out, contract="fleischlos_solo", re_seats=[3], soloist=3, declarer=3,
           eyes=(63, 177), tricks=(3, 9), winner="kontra", value=2,
           points=pm("kontra:won", "kontra:under_90"), score=[2, 2, 2, -6])


# CLUBS: clubs solo of seat 0 (void in diamonds).  AC TC KC 9C are trumps
# below the jacks; diamonds are plain A T K 9.
#   t1 s0 TH 22 R | t2 s3 QS 19 K
#   t3 "KC AD TD KD": KD led, soloist trumps with KC over the (plain) AD, 29 R
#   t4 s0 QC 12 R | t5 s0 AS 25 R | t6 s1 AS 25 K
#   t7 "9C AD TD 9D": AD led, soloist's 9C trumps, 21 R
#   t8 s0 AH 19 R | t9 s0 QC 12 R | t10 s0 TH 25 R | t11 s3 JC 16 K
#   t12 9D led, s1 KD 15 K
# Soloist 22+29+12+25+21+19+12+25 = 165 (8 tricks); Kontra 19+25+16+15 = 75.
CLUBS = ["TH JC TC 9C", "JD QH AC QS", "KC AD TD KD", "QC QD JS KC", "AS TS KS 9S",
         "9S AS KS TS", "9C AD TD 9D", "AH KH 9H KH", "QC QS QH QD", "TH JH JD AC",
         "JS JH TC JC", "9H KD AH 9D"]
CLUBS_WINNERS = [0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 3, 1]


def test_clubs_solo_clubs_are_trumps_diamonds_plain():
    d = deal_from_tricks(CLUBS, "clubs")
    check_tricks(d, CLUBS_WINNERS, 165, [0])
    out = score(record(d, solo("clubs", 0)))
    expect(out, contract="clubs_solo", re_seats=[0], soloist=0, declarer=0,
           eyes=(165, 75), tricks=(8, 4), winner="re", value=2,
           points=pm("re:won", "re:under_90"), score=[6, -2, -2, -2])


def _swap_clubs_spades(trick: str) -> str:
    out = []
    for c in trick.split():
        if c[0] in "ATK9" and c[1] in "CS":
            c = c[0] + ("S" if c[1] == "C" else "C")
        out.append(c)
    return " ".join(out)


def test_spades_solo_spades_are_trumps():
    # The clubs-solo deal with A T K 9 of clubs and spades swapped: the same
    # tricks go the same way in a spades solo (165 : 75).
    tricks = [_swap_clubs_spades(t) for t in CLUBS]
    d = deal_from_tricks(tricks, "spades")
    check_tricks(d, CLUBS_WINNERS, 165, [0])
    out = score(record(d, solo("spades", 0)))
    expect(out, contract="spades_solo", re_seats=[0], soloist=0, declarer=0,
           eyes=(165, 75), tricks=(8, 4), winner="re", value=2,
           points=pm("re:won", "re:under_90"), score=[6, -2, -2, -2])


# HEARTS: compulsory hearts solo of seat 1 (void in diamonds); the soloist
# leads trick 1.  Trumps TH, queens, jacks, AH KH 9H.
#   t1 s1 TH 15 R | t2 s1 TH 26 R | t3 s1 QC 12 R | t4 s1 AC 25 R
#   t5 s0 AC 25 K | t6 "AD 9H TD KD": soloist's 9H trumps the AD, 25 R
#   t7 s1 QC 10 R | t8 s0 AS 25 K | t9 "AD KH TD 9D": KH trumps, 25 R
#   t10 s1 AS 25 R | t11 s1 QS 10 R | t12 s1 JC 17 R
# Soloist 190 (10 tricks) : Kontra 50.
HEARTS = ["JC TH QS 9H", "QH TH JD AH", "JS QC QD KH", "9C AC TC KC", "AC 9C TC KC",
          "AD 9H TD KD", "QD QC JH JD", "AS TS KS 9S", "AD KH TD 9D", "TS AS KS 9S",
          "JH QS JS QH", "KD JC AH 9D"]


@pytest.fixture(scope="module")
def hearts():
    d = deal_from_tricks(HEARTS, "hearts", leader=1)
    check_tricks(d, [1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1], 190, [1])
    return d


def test_compulsory_hearts_solo_soloist_leads(hearts):
    # Kontra 50: under 90 and under 60 -> V = 3; soloist +9.
    assert "TH" not in hearts.hands[0]   # seat 0 could not have led TH
    out = score(record(hearts, solo("hearts", 1, compulsory=True)))
    expect(out, contract="hearts_solo", re_seats=[1], soloist=1, declarer=1,
           eyes=(190, 50), tricks=(10, 2), winner="re", value=3,
           points=pm("re:won", "re:under_90", "re:under_60"), score=[-3, 9, -3, -3])


def test_voluntary_hearts_solo_same_play_is_led_by_wrong_seat(hearts):
    # Not compulsory: the dealer's left (seat 0) leads, and seat 0 has no TH.
    out = score(record(hearts, solo("hearts", 1, compulsory=False)))
    assert out["ok"] is False
    assert out["kind"] == "not_in_hand"
    assert (out["seat"], out["trick"], out["card_index"], out["card"]) == (0, 1, 1, "TH")


# Soloist "Re, no 90, no 60, no 30" (needs 211), Kontra "Kontra, no 90"
# (needs 151): 190 : 50, both miss.  Re collects under 90, under 60 and
# 120 against no 90 = 3; Kontra nothing (50 < 60 < 90 < 120).  Soloist
# +9, opponents -3 each.
SCORED.append(case(
    "hearts", dict(contract=solo("hearts", 1, compulsory=True), announcements=[ann(1, "no30", 0), ann(0, "no90", 0)]),
    "nobody_wins_in_a_solo_soloist_share_tripled",
    contract="hearts_solo", re_seats=[1], soloist=1, declarer=1,
    eyes=(190, 50), tricks=(10, 2), winner=None, value=3,
    points=pm("re:under_90", "re:under_60", "re:reached_120"),
    score=[-3, 9, -3, -3]))


def test_no_extra_points_in_a_solo(e1):
    # E1 as a diamonds solo of seat 0 (same trumps, same tricks): seat 0 wins
    # t1 15, t3 15, t6 19, t7 12, t10 18, t11 12, t12 15 = 106 (7 tricks).
    # Kontra's doppelkopf + fox in t8 and the soloist's JC in the last trick
    # earn nothing; no against-the-queens either.  Kontra 134 wins, V = 1.
    assert e1.eyes({0}) == 106
    out = score(record(e1, solo("diamonds", 0)))
    expect(out, contract="diamonds_solo", re_seats=[0], soloist=0, declarer=0,
           eyes=(106, 134), tricks=(7, 5), winner="kontra", value=1,
           points=pm("kontra:won"), score=[-3, 1, 1, 1])


# =====================================================================
# Marriage (seat 0 holds both QC; dealer 3, seat 0 leads)
# =====================================================================
# Tricks 4-12 are common.  Seat 0 wins t4 AC 35, t5 AD 25, t9 QC 10 (70);
# seat 1 wins t6 AS 35, t7 AD 25, t10 TH 19, t11 QH 10 (89); seat 2 t8 TH 17;
# seat 3 t12 JS 19 (not Charlie).  Each AD is won by the seat that played it.
# Tricks 1-3 (15 eyes each) vary the clarifying trick.
TAIL = ["AC TC TC KC", "AD TD KD 9D", "TS AS TS KS", "9D AD TD KD", "QC JD TH JC",
        "QC QS JD JH", "QH TH QD QS", "JS QH JC QD", "AH JH KH JS"]
TAIL_WINNERS = [0, 0, 1, 1, 2, 0, 1, 1, 3]
MAR_T1 = ["9C AC KC 9C", "AS 9S KS 9S", "AH 9H KH 9H"] + TAIL   # s1 wins t1
MAR_T2 = ["AC 9C KC 9C", "9S 9S AS KS", "AH 9H KH 9H"] + TAIL   # s0, s2 wins t2
MAR_T3 = ["AC 9C KC 9C", "AS 9S KS 9S", "9H KH 9H AH"] + TAIL   # s0, s0, s3 t3
MAR_NONE = ["AC 9C KC 9C", "AS 9S KS 9S", "AH 9H KH 9H"] + TAIL  # s0 wins 1-3


@pytest.fixture(scope="module")
def mar1():
    d = deal_from_tricks(MAR_T1)
    # Re = {0, 1}: 15*3 + 70 + 89 = 204; Kontra 17 + 19 = 36.
    check_tricks(d, [1, 0, 0] + TAIL_WINNERS, 204, [0, 1])
    return d


@pytest.fixture(scope="module")
def mar2():
    d = deal_from_tricks(MAR_T2)
    # Re = {0, 2}: 45 + 70 + 17 = 132; Kontra 89 + 19 = 108.
    check_tricks(d, [0, 2, 0] + TAIL_WINNERS, 132, [0, 2])
    return d


@pytest.fixture(scope="module")
def mar3():
    d = deal_from_tricks(MAR_T3)
    # Re = {0, 3}: 45 + 70 + 19 = 134; Kontra 89 + 17 = 106.
    check_tricks(d, [0, 0, 3] + TAIL_WINNERS, 134, [0, 3])
    return d


@pytest.fixture(scope="module")
def mar0():
    d = deal_from_tricks(MAR_NONE)
    # Seat 0 alone: 45 + 70 = 115; Kontra 125.
    check_tricks(d, [0, 0, 0] + TAIL_WINNERS, 115, [0])
    return d


# Partner = winner of trick 1 (seat 1).  204 : 36 -> 1 + under 90 + under 60.
SCORED.append(case(
    "mar1", dict(contract=marriage(0)), "marriage_clarified_in_trick_1",
    contract="marriage", re_seats=[0, 1], soloist=None, declarer=0,
    eyes=(204, 36), tricks=(10, 2), winner="re", value=3,
    points=pm("re:won", "re:under_90", "re:under_60"), score=[3, 3, -3, -3]))


def test_marriage_trick_1_no_limit_shift(mar1):
    # Clarified in trick 1: nothing shifts.  Seat 1 leads trick 2, so at
    # cards_played 4 it holds 11 (Re in time), at 5 it holds 10 (too late).
    assert held(mar1, 1, 4) == 11 and held(mar1, 1, 5) == 10
    out = score(record(mar1, marriage(0), announcements=[ann(1, "re", 4)]))
    expect(out, contract="marriage", re_seats=[0, 1], soloist=None, declarer=0,
           eyes=(204, 36), tricks=(10, 2), winner="re", value=5,
           points=pm("re:won", "re:under_90", "re:under_60", "re:re_announced"),
           score=[5, 5, -5, -5])
    late = score(record(mar1, marriage(0), announcements=[ann(1, "re", 5)]))
    assert late["ok"] is False and late["kind"] == "announcement_too_late"
    assert (late["seat"], late["call"], late["cards_played"]) == (1, "re", 5)


SCORED.append(case(
    "mar2", dict(contract=marriage(0)), "marriage_clarified_in_trick_2",
    contract="marriage", re_seats=[0, 2], soloist=None, declarer=0,
    eyes=(132, 108), tricks=(7, 5), winner="re", value=1,
    points=pm("re:won"), score=[1, -1, 1, -1]))


def test_marriage_trick_2_limits_drop_by_one(mar2):
    # Seat 2 (partner) says Re at cards_played 8 holding 10 cards (limit 11-1);
    # seat 0 says no 90 at 11 holding 9 (limit 10-1).  Re 132 < 151 misses;
    # Kontra needs 90 (Re's no 90) and has 108: Kontra wins
    # 1 + 2 + 1 + 1 (against the queens) = 5.
    assert held(mar2, 2, 8) == 10 and held(mar2, 0, 11) == 9
    calls = [ann(2, "re", 8), ann(0, "no90", 11)]
    out = score(record(mar2, marriage(0), announcements=calls))
    expect(out, contract="marriage", re_seats=[0, 2], soloist=None, declarer=0,
           eyes=(132, 108), tricks=(7, 5), winner="kontra", value=5,
           points=pm("kontra:won", "kontra:re_announced", "kontra:no90_announced",
                     "kontra:against_the_queens"),
           score=[-5, 5, -5, 5])
    # One card later seat 2 holds 9 < 10: too late even with the shift.
    assert held(mar2, 2, 9) == 9
    late = score(record(mar2, marriage(0), announcements=[ann(2, "re", 9)]))
    assert late["ok"] is False and late["kind"] == "announcement_too_late"
    assert (late["seat"], late["call"], late["cards_played"]) == (2, "re", 9)


SCORED.append(case(
    "mar3", dict(contract=marriage(0)), "marriage_clarified_in_trick_3",
    contract="marriage", re_seats=[0, 3], soloist=None, declarer=0,
    eyes=(134, 106), tricks=(7, 5), winner="re", value=1,
    points=pm("re:won"), score=[1, -1, -1, 1]))


def test_marriage_trick_3_limits_drop_by_two(mar3):
    # After trick 3 everybody holds 9: Re (seat 3) and Kontra (seat 1) are
    # still in time (limit 11-2 = 9).  Both announced: Re needs 121, has 134:
    # 1 + 2 + 2 = 5.
    assert held(mar3, 3, 12) == 9 and held(mar3, 1, 12) == 9
    calls = [ann(3, "re", 12), ann(1, "kontra", 12)]
    out = score(record(mar3, marriage(0), announcements=calls))
    expect(out, contract="marriage", re_seats=[0, 3], soloist=None, declarer=0,
           eyes=(134, 106), tricks=(7, 5), winner="re", value=5,
           points=pm("re:won", "re:re_announced", "re:kontra_announced"),
           score=[5, -5, -5, 5])
    # Seat 3 leads trick 4: at cards_played 13 it holds 8 -> too late.
    assert held(mar3, 3, 13) == 8
    late = score(record(mar3, marriage(0), announcements=[ann(3, "re", 13)]))
    assert late["ok"] is False and late["kind"] == "announcement_too_late"


# Seat 0 wins tricks 1-3: plays alone, scored as a (diamonds) solo with no
# extra points and no against-the-queens.  115 : 125 -> Kontra, V = 1.
SCORED.append(case(
    "mar0", dict(contract=marriage(0)), "marriage_without_partner_is_a_solo",
    contract="marriage_solo", re_seats=[0], soloist=0, declarer=0,
    eyes=(115, 125), tricks=(6, 6), winner="kontra", value=1,
    points=pm("kontra:won"), score=[-3, 1, 1, 1]))


def test_marriage_without_partner_limits_drop_by_two(mar0):
    # Both sides call with 9 cards after trick 3.  Both announced: Kontra
    # needs 120 and has 125: 1 + 2 + 2 = 5; soloist -15.
    assert held(mar0, 0, 12) == 9 and held(mar0, 1, 12) == 9
    calls = [ann(0, "re", 12), ann(1, "kontra", 12)]
    out = score(record(mar0, marriage(0), announcements=calls))
    expect(out, contract="marriage_solo", re_seats=[0], soloist=0, declarer=0,
           eyes=(115, 125), tricks=(6, 6), winner="kontra", value=5,
           points=pm("kontra:won", "kontra:re_announced", "kontra:kontra_announced"),
           score=[-15, 5, 5, 5])


def test_marriage_no_call_before_clarifying_trick(mar2):
    # Clarifying trick is trick 2 (complete at cards_played 8).  A Re at 4
    # (trick 1 complete, marriage player holds 11 - in time by count) is
    # before clarification.
    assert held(mar2, 0, 4) == 11
    out = score(record(mar2, marriage(0), announcements=[ann(0, "re", 4)]))
    assert out["ok"] is False and out["kind"] == "before_clarification"
    assert (out["seat"], out["call"], out["cards_played"]) == (0, "re", 4)


# =====================================================================
# Announcements: level skipping, replies, late replies
# =====================================================================
def test_skip_level_re_then_no60(e45):
    # Seat 0 "re" at 0; partner seat 2 "no60" at 8 holding 10 cards, so the
    # skipped no 90 (limit 10) is still in time and counts.  Re 170 < 181:
    # Kontra needs 60 and has 70: 1 + 2 + 1 + 1 + 1 (against the queens) = 6.
    assert held(e45, 2, 8) == 10
    calls = [ann(0, "re", 0), ann(2, "no60", 8)]
    out = score(record(e45, announcements=calls))
    expect(out, contract="normal", re_seats=[0, 2], eyes=(170, 70), tricks=(9, 3),
           winner="kontra", value=6,
           points=pm("kontra:won", "kontra:re_announced", "kontra:no90_announced",
                     "kontra:no60_announced", "kontra:against_the_queens"),
           score=[-6, 6, -6, 6])


def test_skip_level_not_allowed_when_skipped_level_is_late(e45):
    # At 9 seat 2 holds 9: no 60 itself is in time, the skipped no 90 is not.
    assert held(e45, 2, 9) == 9
    out = score(record(e45, announcements=[ann(0, "re", 0), ann(2, "no60", 9)]))
    assert out["ok"] is False and out["kind"] == "announcement_too_late"
    # `call` names the call as written in the record (our reading).
    assert (out["seat"], out["call"], out["cards_played"]) == (2, "no60", 9)


def test_kontra_reply_allowed_at_10_cards_after_re(e3):
    # Re at 0; seat 1 replies Kontra at 8 holding 10 cards.  130 : 110, both
    # announced: Re needs 121 -> 1 + 2 + 2 = 5.
    assert held(e3, 1, 8) == 10
    out = score(record(e3, announcements=[ann(0, "re", 0), ann(1, "kontra", 8)]))
    expect(out, contract="normal", re_seats=[0, 2], eyes=(130, 110), tricks=(7, 5),
           winner="re", value=5,
           points=pm("re:won", "re:re_announced", "re:kontra_announced"),
           score=[5, -5, 5, -5])


def test_kontra_at_10_cards_without_re_is_too_late(e3):
    out = score(record(e3, announcements=[ann(1, "kontra", 8)]))
    assert out["ok"] is False and out["kind"] == "announcement_too_late"
    assert (out["seat"], out["call"], out["cards_played"]) == (1, "kontra", 8)


def test_kontra_reply_at_9_cards_after_re_is_too_late(e3):
    assert held(e3, 1, 9) == 9
    out = score(record(e3, announcements=[ann(0, "re", 0), ann(1, "kontra", 9)]))
    assert out["ok"] is False and out["kind"] == "announcement_too_late"


def test_kontra_reply_allowed_at_8_cards_after_re_no60(e45):
    # "Re, no 60" at 0; seat 1 says Kontra at 17 holding 8 cards (no 60's
    # limit 9, minus one).  Outcome as worked example 4: V = 8.
    assert held(e45, 1, 17) == 8
    calls = [ann(0, "no60", 0), ann(1, "kontra", 17)]
    out = score(record(e45, announcements=calls))
    expect(out, contract="normal", re_seats=[0, 2], eyes=(170, 70), tricks=(9, 3),
           winner="kontra", value=8,
           points=pm("kontra:won", "kontra:re_announced", "kontra:kontra_announced",
                     "kontra:no90_announced", "kontra:no60_announced",
                     "kontra:against_the_queens"),
           score=[-8, 8, -8, 8])
    # At 18 seat 1 holds 7: too late even as a reply.
    assert held(e45, 1, 18) == 7
    late = score(record(e45, announcements=[ann(0, "no60", 0), ann(1, "kontra", 18)]))
    assert late["ok"] is False and late["kind"] == "announcement_too_late"


def test_late_reply_bars_partners_denial(e3):
    # Seat 1's Kontra at 8 (10 cards) is a late reply; seat 3's no 90 at 8
    # (10 cards, in time by its own limit) is barred.
    assert held(e3, 3, 8) == 10
    calls = [ann(0, "re", 0), ann(1, "kontra", 8), ann(3, "no90", 8)]
    out = score(record(e3, announcements=calls))
    assert out["ok"] is False and out["kind"] == "denial_after_late_reply"
    assert (out["seat"], out["call"], out["cards_played"]) == (3, "no90", 8)


def test_late_reply_bars_denial_in_same_breath(e3):
    # "Kontra, no 90" as one late reply at 8 (10 cards): the implied Kontra is
    # allowed, the no 90 is barred.
    out = score(record(e3, announcements=[ann(0, "re", 0), ann(1, "no90", 8)]))
    assert out["ok"] is False and out["kind"] == "denial_after_late_reply"
    assert (out["seat"], out["call"], out["cards_played"]) == (1, "no90", 8)


def test_reply_in_time_bars_nothing(e3):
    # Kontra at 2 (seat 1 holds 11: an ordinary first call), then no 90 at 8.
    # Re 130: Kontra's no 90 sets Re's target to 90; Kontra needs 151.
    # Re wins: 1 + 2 + 2 + 1 (no 90) + 1 (120 against no 90) = 7.
    assert held(e3, 1, 2) == 11
    calls = [ann(0, "re", 0), ann(1, "kontra", 2), ann(1, "no90", 8)]
    out = score(record(e3, announcements=calls))
    expect(out, contract="normal", re_seats=[0, 2], eyes=(130, 110), tricks=(7, 5),
           winner="re", value=7,
           points=pm("re:won", "re:re_announced", "re:kontra_announced",
                     "re:no90_announced", "re:reached_120"),
           score=[7, -7, 7, -7])


def test_partner_repeating_re_is_no_raise(e2):
    out = score(record(e2, announcements=[ann(0, "re", 0), ann(2, "re", 1)]))
    assert out["ok"] is False and out["kind"] == "no_raise"
    assert (out["seat"], out["call"], out["cards_played"]) == (2, "re", 1)


# =====================================================================
# Extra points
# =====================================================================
def test_extra_points_zero_game_value():
    d = deal_from_tricks(X0)
    check_tricks(d, E2_WINNERS, 129, [0, 2])
    # Re wins (129): 1; Kontra caught a fox: -1.  V = 0, nobody scores.
    out = score(record(d))
    expect(out, contract="normal", re_seats=[0, 2], eyes=(129, 111), tricks=(7, 5),
           winner="re", value=0, points=pm("re:won", "kontra:fox_caught"),
           score=[0, 0, 0, 0])


def test_extra_points_negative_game_value():
    d = deal_from_tricks(XNEG)
    check_tricks(d, E2_WINNERS, 123, [0, 2])
    assert d.tricks[8].points == 42
    # Re wins (123): 1; Kontra fox + doppelkopf (42): -2.  V = -1: the
    # winners score -1 each.
    out = score(record(d))
    expect(out, contract="normal", re_seats=[0, 2], eyes=(123, 117), tricks=(7, 5),
           winner="re", value=-1,
           points=pm("re:won", "kontra:fox_caught", "kontra:doppelkopf"),
           score=[-1, 1, -1, 1])


def test_two_foxes_caught_and_kontra_charlie():
    d = deal_from_tricks(X2)
    check_tricks(d, [0, 1, 1, 0, 0, 0, 0, 2, 0, 3, 3, 3], 149, [0, 2])
    # Re 149 : 91 (not under 90): 1 + 2 foxes - Charlie = 2.
    out = score(record(d))
    expect(out, contract="normal", re_seats=[0, 2], eyes=(149, 91), tricks=(7, 5),
           winner="re", value=2,
           points=pm("re:won", "re:fox_caught", "re:fox_caught", "kontra:charlie"),
           score=[2, -2, 2, -2])


def test_record_play_matches_seat_order_helper(e2):
    # Sanity of the helper itself: trick 3 of E2 is led by seat 1.
    assert seat_of_card(e2, 8) == 1 and e2.play[8] == "AS"


# Re "Re, no 90, no 60, no 30" at 0 (needs 211); Kontra needs 30 and has
# 120.  Kontra: won 1 + Re 2 + three denials 3 + reached 120, 90 and 60
# against no 90 / 60 / 30 (3) + against the queens 1 = 10.
SCORED.append(case(
    "e2", dict(announcements=[ann(0, "no30", 0)]), "kontra_wins_against_re_no30_ladder_is_cumulative",
    contract="normal", re_seats=[0, 2], eyes=(120, 120), tricks=(7, 5),
    winner="kontra", value=10,
    points=pm("kontra:won", "kontra:re_announced", "kontra:no90_announced",
              "kontra:no60_announced", "kontra:no30_announced",
              "kontra:reached_120", "kontra:reached_90", "kontra:reached_60",
              "kontra:against_the_queens"),
    score=[-10, 10, -10, 10]))


# SCHWARZ: E6 turned into a normal game: seat 2 gets one QC (t1 "TH QH QC QD",
# t3 "QH JS JS JH"), and seat 2 trumps the last trick (9H led, s2 TD beats
# s3's 9D).  Re (seats 0, 2) wins all 12 tricks, 240 : 0.  In t5 seat 1's AD
# falls to seat 0 (fox caught by Re); seat 2's AD stays with Re.  No trick
# reaches 40 (max 35), the last trick is won by TD (no Charlie).
SCHWARZ = ["TH QH QC QD", "TH QD JC JC", "QH JS JS JH", "QC JH JD JD", "QS AD AD KD",
           "QS KD 9D TD", "AC TC TC KC", "AC KC 9C 9C", "AS TS TS KS", "AS KS 9S 9S",
           "AH AH KH 9H", "9H KH TD 9D"]


@pytest.fixture(scope="module")
def schwarz():
    d = deal_from_tricks(SCHWARZ)
    check_tricks(d, [0] * 11 + [2], 240, [0, 2])
    return d


# 1 + under 90, 60, 30 + schwarz = 5, + fox caught = 6.
SCORED.append(case(
    "schwarz", dict(), "schwarz_without_announcements",
    contract="normal", re_seats=[0, 2], eyes=(240, 0), tricks=(12, 0),
    winner="re", value=6,
    points=pm("re:won", "re:under_90", "re:under_60", "re:under_30",
              "re:schwarz", "re:fox_caught"),
    score=[6, -6, 6, -6]))


# "Re ... schwarz" in one call at 0: Re needs every trick and gets them.
# 1 + 4 (thresholds) + 2 (Re) + 4 (no 90, 60, 30, schwarz) + 1 (fox) = 12.
SCORED.append(case(
    "schwarz", dict(announcements=[ann(0, "schwarz", 0)]), "schwarz_announced_and_made",
    contract="normal", re_seats=[0, 2], eyes=(240, 0), tricks=(12, 0),
    winner="re", value=12,
    points=pm("re:won", "re:under_90", "re:under_60", "re:under_30",
              "re:schwarz", "re:re_announced", "re:no90_announced",
              "re:no60_announced", "re:no30_announced",
              "re:schwarz_announced", "re:fox_caught"),
    score=[12, -12, 12, -12]))


def test_reply_limit_includes_marriage_shift(mar2):
    # Marriage clarified in trick 2 (limits -1).  Seat 2 says Re at 8 (10
    # cards).  Seat 1 replies Kontra at 13 holding 9: Re's limit 10 minus one.
    assert held(mar2, 1, 13) == 9 and held(mar2, 1, 14) == 8
    calls = [ann(2, "re", 8), ann(1, "kontra", 13)]
    out = score(record(mar2, marriage(0), announcements=calls))
    # 132 : 108, both announced, Re needs 121: 1 + 2 + 2 = 5.
    expect(out, contract="marriage", re_seats=[0, 2], soloist=None, declarer=0,
           eyes=(132, 108), tricks=(7, 5), winner="re", value=5,
           points=pm("re:won", "re:re_announced", "re:kontra_announced"),
           score=[5, -5, 5, -5])
    # The reply was late (9 < 10 cards, shift included): Kontra denials barred.
    barred = score(record(mar2, marriage(0),
                          announcements=calls + [ann(3, "no90", 13)]))
    assert barred["ok"] is False and barred["kind"] == "denial_after_late_reply"
    # One card later (8 cards) the reply itself is too late.
    late = score(record(mar2, marriage(0),
                        announcements=[ann(2, "re", 8), ann(1, "kontra", 14)]))
    assert late["ok"] is False and late["kind"] == "announcement_too_late"


def test_first_call_in_time_with_marriage_shift_bars_nothing(mar3):
    # Clarified in trick 3 (limits -2): Kontra with 9 cards at 12 is an
    # ordinary first call, so seat 1's no 90 at 15 (8 cards, limit 10-2) is
    # allowed.  Re 134 needs 90 (Kontra's no 90); Kontra needs 151.
    # Re wins: 1 + 2 + 2 + 1 (no 90) + 1 (120 against no 90) = 7.
    assert held(mar3, 1, 12) == 9 and held(mar3, 1, 15) == 8
    calls = [ann(3, "re", 12), ann(1, "kontra", 12), ann(1, "no90", 15)]
    out = score(record(mar3, marriage(0), announcements=calls))
    expect(out, contract="marriage", re_seats=[0, 3], soloist=None, declarer=0,
           eyes=(134, 106), tricks=(7, 5), winner="re", value=7,
           points=pm("re:won", "re:re_announced", "re:kontra_announced",
                     "re:no90_announced", "re:reached_120"),
           score=[7, -7, -7, 7])


def test_nobody_wins_extra_points_are_netted(e1):
    # E1 (160 : 80), Re "no 60" (needs 181), Kontra "no 90" (needs 151): both
    # miss.  Re: under 90 (1) + 120 against no 90 (1) + Charlie (1) = 3.
    # Kontra: fox (1) + doppelkopf (1) = 2 (80 reaches neither 120 nor 90).
    # Difference 1 for Re.
    calls = [ann(0, "no60", 0), ann(1, "no90", 0)]
    out = score(record(e1, announcements=calls))
    expect(out, contract="normal", re_seats=[0, 2], eyes=(160, 80), tricks=(9, 3),
           winner=None, value=1,
           points=pm("re:under_90", "re:reached_120", "re:charlie",
                     "kontra:fox_caught", "kontra:doppelkopf"),
           score=[1, -1, 1, -1])


def test_calls_at_same_moment_count_in_list_order(e3):
    # At cards_played 5 seat 0 holds 10 and seat 1 holds 11.  Kontra (seat 1,
    # in time) listed first makes seat 0's Re a valid reply; listed the other
    # way round, seat 0's Re is a first call with 10 cards: too late.
    assert held(e3, 0, 5) == 10 and held(e3, 1, 5) == 11
    out = score(record(e3, announcements=[ann(1, "kontra", 5), ann(0, "re", 5)]))
    expect(out, contract="normal", re_seats=[0, 2], eyes=(130, 110), tricks=(7, 5),
           winner="re", value=5,
           points=pm("re:won", "re:re_announced", "re:kontra_announced"),
           score=[5, -5, 5, -5])
    bad = score(record(e3, announcements=[ann(0, "re", 5), ann(1, "kontra", 5)]))
    assert bad["ok"] is False and bad["kind"] == "announcement_too_late"
    assert (bad["seat"], bad["call"], bad["cards_played"]) == (0, "re", 5)


# MFOX: marriage of seat 0; in trick 1 (a trump trick won by seat 0's QC)
# seat 2 plays an AD; seat 2 wins trick 2 and becomes the partner.
#   t1 s0 QC 18 | t2 s2 AS 15 (clarifies) | t3 s0 AH 15 | t4 s0 AC 15
#   t5 s0 AC 35 | t6 s1 AS 35 | t7 s1 AD 25 | t8 s2 TH 17 | t9 s0 QS 10
#   t10 s1 TH 18 | t11 s1 QH 10 | t12 s1 JH 27
# Re {0, 2}: 18+15+15+15+35+17+10 = 125 (7 tricks); Kontra 35+25+18+10+27 = 115.
MFOX = ["QC 9D AD KD", "9S 9S AS KS", "AH 9H KH 9H", "AC 9C KC 9C", "AC TC TC KC",
        "TS AS TS KS", "9D AD TD KD", "QC JD TH JC", "QS QS JD JH", "QH TH QD JS",
        "JC QH JS QD", "AH JH KH TD"]


def test_marriage_extra_points_by_final_membership():
    # Seat 2's AD fell to seat 0 in trick 1, before seat 2 was known to be the
    # partner: by final membership both are Re, so no fox.  V = 1.
    d = deal_from_tricks(MFOX)
    check_tricks(d, [0, 2, 0, 0, 0, 1, 1, 2, 0, 1, 1, 1], 125, [0, 2])
    out = score(record(d, marriage(0)))
    expect(out, contract="marriage", re_seats=[0, 2], soloist=None, declarer=0,
           eyes=(125, 115), tricks=(7, 5), winner="re", value=1,
           points=pm("re:won"), score=[1, -1, 1, -1])


# Silent marriage (E6), soloist says "Re ... schwarz" at 0: Re needs all
# tricks, Kontra needs at least one trick - and takes trick 12 (24 eyes).
# Kontra wins: 1 + 2 (Re) + 4 (no 90 / 60 / 30 / schwarz); 24 < 30 so no
# "reached" items; no against-the-queens in a solo.  V = 7, soloist -21.
SCORED.append(case(
    "e6", dict(announcements=[ann(0, "schwarz", 0)]), "re_schwarz_announced_kontra_wins_with_one_trick",
    contract="silent_marriage", re_seats=[0], soloist=0, declarer=None,
    eyes=(216, 24), tricks=(11, 1), winner="kontra", value=7,
    points=pm("kontra:won", "kontra:re_announced", "kontra:no90_announced",
              "kontra:no60_announced", "kontra:no30_announced",
              "kontra:schwarz_announced"),
    score=[-21, 7, 7, 7]))


@pytest.mark.parametrize("deal, recorded, expected", SCORED)
def test_scores_as_worked_out(request, deal, recorded, expected):
    """Each case of SCORED: the deal recorded with its announcements scores as worked out."""
    expect(score(record(request.getfixturevalue(deal), **recorded)), **expected)
