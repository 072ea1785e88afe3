"""The heuristic and pimc strategies: reservations a hand calls for (solos, marriage, poverty,
throw-in), the poverty exchange, parameters through the simulator, and heuristic beats simple.
(That they read only their observation: tests/strategies/test_strategy_observation.py.)"""
import json

import numpy as np
import pytest

from dokosim.engine.cards import SOLO_KINDS, parse_hand
from dokosim.engine.deal import NORMAL_TRUMPS, poverty_pass_error, poverty_return_error, reservation_options
from dokosim.engine.layout import (
    P_DEALER, P_HAND_SIZE, PUBLIC_LEN, RES_HEALTHY, RES_MARRIAGE, RES_POVERTY, RES_THROW_IN, ST_LEN,
)
from dokosim.rules import Rules
from dokosim.strategies import heuristic, pimc
from dokosim.strategies.common import EX_ACCEPT, EX_PASS, EX_RETURN

RULES = Rules().packed()
HOUSE = Rules(poverty=True, throw_in=True).packed()


def param_vector(module, **overrides):
    v = np.zeros(16)
    for i, (name, (default, _)) in enumerate(module.PARAMS.items()):
        v[i] = overrides.get(name, default)
    return v


def pub(dealer=3):
    st = np.zeros(ST_LEN, dtype=np.int64)
    st[P_DEALER] = dealer
    st[P_HAND_SIZE] = 12
    return st[:PUBLIC_LEN]


def reserve(hand_text, rules=RULES, module=heuristic, **params):
    hand = np.int64(parse_hand(hand_text))
    rng = np.array([5, 6], dtype=np.uint64)
    return module.reserve(0, hand, reservation_options(hand, rules), pub(), rules,
                          param_vector(module, **params), rng)


def exchange(hand, phase, **params):
    rng = np.array([5, 6], dtype=np.uint64)
    return heuristic.exchange(1, np.int64(hand), phase, pub(), HOUSE, param_vector(heuristic, **params), rng)


STRONG = {
    "diamonds": "TH TH QC QS QH JC JS AD AD TD TD KD",
    "hearts": "TH TH QC QS QH JC JS AH AH KH KH 9H",
    "spades": "TH TH QC QS QH JC JS AS AS TS TS KS",
    "clubs": "TH TH QC QS QH JC JS AC AC TC TC KC",
    "queens": "QC QS QS QH QH QD QD AC AC AS AH AD",
    "jacks": "JC JC JS JS JH JH JD AC AC AS AH AD",
    "fleischlos": "AC AC TC TC KC KC AS AS TS TS AH AH",
}
WEAK = "QD 9D KD KC 9C AS KS KS 9H AH KH TC"  # 3 trumps, no QC, nothing high


@pytest.mark.parametrize("kind", SOLO_KINDS)
def test_declares_each_solo_on_a_strong_hand(kind):
    assert reserve(STRONG[kind]) == 1 + SOLO_KINDS.index(kind)
    assert reserve(STRONG[kind], module=pimc) == 1 + SOLO_KINDS.index(kind)
    assert reserve(STRONG[kind], solo_win=1.0) != 1 + SOLO_KINDS.index(kind)  # the threshold decides


def test_marriage_with_both_queens_of_clubs():
    assert reserve("QC QC 9D 9D KC 9C 9S KS 9H 9H KH AC") == RES_MARRIAGE
    assert reserve("QC 9D 9D KD KC 9C 9S KS 9H 9H KH AC") == RES_HEALTHY
    assert reserve(WEAK) == RES_HEALTHY  # no poverty without the house rule


def test_silent_marriage_on_a_hand_that_would_win_a_diamonds_solo():
    strong_both_qc = "QC QC TH TH QS QH JC JS AD AD TD KD"
    assert reserve(strong_both_qc) == RES_HEALTHY  # plays alone, unannounced
    # without the silent option it is declared as a diamonds solo (same trumps, same scoring)
    assert reserve(strong_both_qc, silent_win=1.01) == 1 + SOLO_KINDS.index("diamonds")


def test_poverty_declared_on_a_poor_hand_only():
    assert reserve(WEAK, HOUSE) == RES_POVERTY
    assert reserve(WEAK, HOUSE, poverty_win=0.0) == RES_HEALTHY
    # 3 trumps with both QC: poverty ranks above the marriage and suits such a hand better
    assert reserve("QC QC 9D AC AC TC KC AS AS TS KS 9H", HOUSE) == RES_POVERTY
    # many trumps: no poverty offered, a strong hand stays healthy or declares
    assert reserve("TH QS QH JC JS JD AD TD KD AC AS AH", HOUSE) == RES_HEALTHY


def test_throw_in_with_five_nines_and_a_weak_hand():
    assert reserve("9D 9D 9C 9C 9S KC KS KH AH JD QD TD", HOUSE) == RES_THROW_IN
    assert reserve("9D 9D 9C 9C 9S KC KS KH AH JD QD TD", HOUSE, throw_in_win=0.0) == RES_HEALTHY
    # five nines in a strong Re hand: played
    assert reserve("TH TH QC QS QH JC 9D 9D 9C 9C 9S AH", HOUSE) != RES_THROW_IN


def test_poverty_pass_holds_every_trump_and_keeps_the_aces():
    hand = parse_hand("QD 9D KC AC 9S KS TS 9H 9H KH TC AS")
    passed = exchange(hand, EX_PASS)
    assert not poverty_pass_error(np.int64(hand), np.int64(passed))
    assert passed & hand & NORMAL_TRUMPS == hand & NORMAL_TRUMPS
    plain = passed & ~NORMAL_TRUMPS
    assert plain & parse_hand("AC AS") == 0
    # the shortest plain suit goes first: hearts (9H 9H KH) is 3 long, clubs (KC AC TC) keeps its ace
    assert bin(plain).count("1") == 1


def test_poverty_accept_needs_trumps():
    strong = parse_hand("TH QC QS QH JC JS JH AD TD KD AC 9S")
    weak = parse_hand("QD JD AD 9D KC AC 9S KS TS 9H KH TC")
    assert exchange(strong, EX_ACCEPT) == 1
    assert exchange(weak, EX_ACCEPT) == 0
    assert exchange(strong, EX_ACCEPT, accept_trumps=20.0) == 0


def test_poverty_accept_at_the_fitted_default():
    """The default accept_trumps (10.5, fitted by the poverty study) refuses 10 trumps without TH
    or QC (strength 10) and 9 with TH and QC (10), accepts 10 with a QC (10.5); lowered to 10, the
    threshold takes the 9 with TH and QC too."""
    ten = parse_hand("QS QH QD JC JS JH JD AD TD KD AC 9S")         # 10 trumps, no TH or QC
    ten_top = parse_hand("QC QH QD JC JS JH JD AD TD KD AC 9S")     # 10 trumps with a QC: 10.5
    nine_two = parse_hand("TH QC QD JC JS JH AD TD KD AC 9S 9H")     # 9 trumps with TH and QC: 10
    assert exchange(ten, EX_ACCEPT) == 0
    assert exchange(ten_top, EX_ACCEPT) == 1
    assert exchange(nine_two, EX_ACCEPT) == 0
    assert exchange(nine_two, EX_ACCEPT, accept_trumps=10.0) == 1


def test_poverty_return_gives_back_plain_cards_and_makes_voids():
    received = parse_hand("TH QC QS QH JC JS AC AC TC 9S KH 9H") | parse_hand("9D 9D KD")
    # own hand + 3 received trumps: 15 cards, return 3: spades and hearts, the short suits
    returned = exchange(received, EX_RETURN)
    assert not poverty_return_error(np.int64(received), np.int64(returned))
    assert returned == parse_hand("9S KH 9H")
    # short of plain cards: the lowest trumps fill up
    received = parse_hand("TH QC QS QH JC JS JH AD TD KD AC 9S") | parse_hand("9D 9D KD")
    returned = exchange(received, EX_RETURN)
    assert not poverty_return_error(np.int64(received), np.int64(returned))
    assert returned & ~NORMAL_TRUMPS == parse_hand("AC 9S")


def test_poverty_games_under_house_rules():
    from dokosim.run.simulate import simulate
    df = simulate(3000, seed=5, rules={"preset": "ddv", "poverty": True, "throw_in": True},
                  strategy="heuristic")
    contract = df["contract"].cast(str).to_numpy()
    pov = contract == "poverty"
    assert pov.sum() >= 20  # poverty is declared (and accepted) on the poor hands
    won = (df["winner"].cast(str).to_numpy()[pov] == "re").mean()
    se = np.sqrt(won * (1 - won) / pov.sum())
    # the poor player would play a normal game with 3 trumps or fewer as Kontra (Kontra wins a
    # third of normal games, a hand that poor far less): an accepted poverty does better
    assert won > 1 / 3 - 2 * se
    assert (df["redeals"].to_numpy() > 0).any()  # throw-ins and refused poverties redeal


def test_parameters_reach_the_simulator_and_the_manifest(tmp_path):
    from dokosim.run.simulate import simulate
    out = tmp_path / "run"
    simulate(200, seed=3, strategy="heuristic,heuristic,pimc,heuristic", out=out, quiet=True,
             params={0: {"solo_win": 0.99}, "pimc": {"samples": 3}})
    from dokosim.run.driver import read_manifest
    man = read_manifest(out)
    assert man["params"][0]["solo_win"] == 0.99
    assert man["params"][1]["solo_win"] == heuristic.PARAMS["solo_win"][0]
    assert man["params"][2]["samples"] == 3
    assert list(man["params"][1]) == list(heuristic.PARAMS)
    # and they act: no solos with solo_win 1.0 (an impossible win chance)
    base = simulate(3000, seed=4, strategy="heuristic")
    none = simulate(3000, seed=4, strategy="heuristic", params={"*": {"solo_win": 1.0}})
    declared = [f"{k}_solo" for k in SOLO_KINDS]
    assert base["contract"].cast(str).is_in(declared).sum() > 30
    assert none["contract"].cast(str).is_in(declared).sum() == 0


def test_heuristic_beats_simple():
    from dokosim.run.simulate import simulate
    n = 4000
    a = simulate(n, seed=99, strategy="heuristic,simple,heuristic,simple")
    b = simulate(n, seed=99, strategy="simple,heuristic,simple,heuristic")
    sa = a.select([f"score_{i}" for i in range(4)]).to_numpy().astype(float)
    sb = b.select([f"score_{i}" for i in range(4)]).to_numpy().astype(float)
    diff = ((sa[:, 0] + sa[:, 2] - sa[:, 1] - sa[:, 3]) + (sb[:, 1] + sb[:, 3] - sb[:, 0] - sb[:, 2])) / 4
    se = diff.std(ddof=1) / np.sqrt(n)
    assert diff.mean() - 3 * se > 0, (diff.mean(), se)


def test_unseen_cards_come_from_the_pack_in_use():
    """Without nines the pack has 40 cards: counting the nines as unseen sent heuristic's
    probability table (built for at most 36 unseen cards) out of bounds and let pimc deal nines."""
    from dokosim.engine.cards import NINES_MASK
    from dokosim.rules import rules_from_object
    from dokosim.strategies.cardcount import deck_cards
    sharp = deck_cards(rules_from_object("sharp").packed())
    assert bin(sharp).count("1") == 40 and sharp & int(NINES_MASK) == 0
    assert deck_cards(rules_from_object("ddv").packed()) == 2**48 - 1


@pytest.mark.parametrize("kind, where", [("queens", "trumps(0) >= 6"), ("jacks", "trumps(0) >= 6"),
                                         ("queens", "trumps(0) == 5"), ("jacks", "trumps(0) == 5")])
def test_heuristic_is_no_worse_a_soloist_than_simple_in_queens_and_jacks_solos(kind, where):
    """The blind spot of issue 30: as the soloist of a queens solo with 6 queens heuristic won
    0.254 where simple won 0.418 (it drew trumps and led by the one-trick value). On the same
    hands (paired by deal, the defenders heuristic) its soloist's score is now higher: at 1,500
    deals the interval's half-width is about 0.2 points against a difference of about +1."""
    from dokosim.run.simulate import simulate
    from dokosim.stats import mean_interval
    scores = {s: simulate(1500, seed=21, strategy=f"{s},heuristic,heuristic,heuristic", contract=f"{kind}_solo",
                          declarer=0, where=where)["score_0"].to_numpy().astype(float)
              for s in ("heuristic", "simple")}
    assert mean_interval(scores["heuristic"] - scores["simple"]).lo > 0
