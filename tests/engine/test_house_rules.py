"""House rules (RULES.md part 2), each shown acting in card notation.

Trick winners come from replaying records through the engine (dokosim.records.replay_detail);
the hands are filled up to the full pack around the cards a scenario names.
"""
import math

import numpy as np
import polars as pl
import pytest

from dokosim.engine.cards import SUITS, RANKS
from dokosim.records.record import replay_detail, score_objects
from dokosim.rules import RulesError, rules_from_object
from dokosim.run.simulate import simulate

PACK = [r + s for s in SUITS for r in RANKS for _ in range(2)]


def fill_hands(fixed: list[str], no_nines=False, size=12) -> list[str]:
    """Four hands holding the given cards (space-separated per seat), filled up from the pack."""
    hands = [h.split() for h in fixed]
    rest = [c for c in PACK if not (no_nines and c[0] == "9")]
    for h in hands:
        for c in h:
            rest.remove(c)
    for h in hands:
        while len(h) < size:
            h.append(rest.pop(0))
    return [" ".join(h) for h in hands]


def trick_winners(fixed, play, rules="ddv", contract=None, dealer=3, no_nines=False):
    record = {"rules": rules, "dealer": dealer, "contract": contract or {"type": "normal"},
              "hands": fill_hands(fixed, no_nines, 10 if no_nines else 12), "play": play}
    detail = replay_detail(record)
    assert detail["output"]["ok"], detail["output"]
    return detail["trick_winner"][: len(play) // 4]


# ---------------------------------------------------------------- dulle
DULLE_TRICK = (["TH", "9D", "TH", "KD"], ["TH", "9D", "TH", "KD"])


def test_first_dulle_wins_under_ddv():
    assert trick_winners(*DULLE_TRICK) == [0]


@pytest.mark.parametrize("mode", ["second", "second_except_last"])
def test_second_dulle_takes_the_first(mode):
    assert trick_winners(*DULLE_TRICK, rules={"preset": "ddv", "dulle": mode}) == [2]


def test_second_except_last_keeps_the_first_dulle_in_the_last_trick():
    from dokosim.engine.cards import FOLLOW_CLASS, POWER, SCHEME_NORMAL, parse_card_type
    from dokosim.engine.play import best_offset
    trick = np.array([2 * parse_card_type("TH"), 2 * parse_card_type("9D"),
                      2 * parse_card_type("TH") + 1, 2 * parse_card_type("KD")], dtype=np.int64)
    power, fclass = POWER[SCHEME_NORMAL].copy(), FOLLOW_CLASS[SCHEME_NORMAL].copy()
    assert best_offset(trick, 0, 4, power, fclass, 2, True) == 0    # last trick: first TH
    assert best_offset(trick, 0, 4, power, fclass, 2, False) == 2   # other tricks: second TH
    assert best_offset(trick, 0, 4, power, fclass, 1, True) == 2    # "second": always


def test_dulle_rule_does_not_touch_a_plain_ten_of_hearts():
    # queens solo: TH is a plain heart, identical cards keep "first played wins"
    fixed = ["TH", "9H", "TH", "KH"]
    play = ["TH", "9H", "TH", "KH"]
    solo = {"type": "solo", "kind": "queens", "seat": 0}
    assert trick_winners(fixed, play, rules={"preset": "ddv", "dulle": "second"}, contract=solo) == [0]


# ---------------------------------------------------------------- piglets
PIGLET_FIXED = ["AD AD", "TH", "9D 9D", "KD"]
PIGLET_PLAY = ["AD", "TH", "9D", "KD"]


def test_piglets_rank_above_the_dulle():
    assert trick_winners(PIGLET_FIXED, PIGLET_PLAY) == [1]                       # ddv: TH wins
    assert trick_winners(PIGLET_FIXED, PIGLET_PLAY, rules="club") == [0]         # piglets


def test_super_piglets_rank_above_the_piglets():
    rules = {"preset": "ddv", "schweinchen": True, "superschweinchen": True}
    assert trick_winners(PIGLET_FIXED, PIGLET_PLAY, rules=rules) == [2]


def test_piglets_only_where_diamonds_are_trumps():
    # clubs solo: AD is a plain diamond; TH (trump) takes it
    clubs = {"type": "solo", "kind": "clubs", "seat": 0}
    assert trick_winners(PIGLET_FIXED, PIGLET_PLAY, rules="club", contract=clubs) == [1]
    # diamonds solo: the piglets act
    diamonds = {"type": "solo", "kind": "diamonds", "seat": 0}
    assert trick_winners(PIGLET_FIXED, PIGLET_PLAY, rules="club", contract=diamonds) == [0]


def test_first_piglet_played_beats_the_second():
    fixed = ["AD AD", "TH", "9D", "KD"]
    play = ["AD", "TH", "9D", "KD", "AD"]  # seat 0 won and leads its second piglet
    assert trick_winners(fixed, play, rules="club") == [0]


def test_superschweinchen_needs_schweinchen():
    with pytest.raises(RulesError, match="superschweinchen.*schweinchen"):
        rules_from_object({"preset": "ddv", "superschweinchen": True})


# ---------------------------------------------------------------- poverty
def poverty_record(passed, returned, fixed=None, rules="club", partner=2):
    fixed = fixed or ["", "QC JD 9D AC AC KC TC TC 9C 9C KS KS", "9S 9S 9H", ""]
    return {"rules": rules, "dealer": 3, "hands": fill_hands(fixed),
            "contract": {"type": "poverty", "seat": 1, "partner": partner, "passed": passed,
                         "returned": returned},
            "play": []}


def test_poverty_pairs_the_poor_player_with_the_acceptor():
    (out,) = score_objects([poverty_record(["QC", "JD", "9D"], ["9S", "9S", "9H"])])
    assert out["ok"], out
    assert out["contract"] == "poverty" and out["re_seats"] == [1, 2]


@pytest.mark.parametrize("passed, returned, seat", [
    (["QC", "JD", "AC"], ["9S", "9S", "9H"], 1),   # a trump (9D) kept back
    (["QC", "JD", "9D"], ["AD", "AD", "AD"], 2),   # returns cards it does not hold
])
def test_poverty_exchange_breaking_the_rules_is_refused(passed, returned, seat):
    (out,) = score_objects([poverty_record(passed, returned)])
    assert out["ok"] is False and out["kind"] == "bad_contract" and out["seat"] == seat


def test_poverty_with_four_trumps_or_without_the_option_is_refused():
    four = ["", "QC JD 9D KD AC KC TC TC 9C 9C KS KS", "9S 9S 9H", ""]
    (out,) = score_objects([poverty_record(["QC", "JD", "9D"], ["9S", "9S", "9H"], fixed=four)])
    assert out["kind"] == "bad_contract" and out["seat"] == 1
    (out,) = score_objects([poverty_record(["QC", "JD", "9D"], ["9S", "9S", "9H"], rules="ddv")])
    assert out["kind"] == "bad_contract"


REFUSER = '''
"""simple, except that it never takes a poverty."""
from numba import njit

from dokosim.strategies import simple
from dokosim.strategies.common import EX_ACCEPT, default_exchange

NAME = "refuser"
PARAMS = simple.PARAMS
reserve = simple.reserve
call = simple.call
card = simple.card


@njit(cache=True, inline="always")
def exchange(seat, hand, phase, pub, rules, params, rng):
    if phase == EX_ACCEPT:
        return 0
    return default_exchange(seat, hand, phase, pub, rules, params, rng)
'''


def test_a_refused_poverty_is_redealt_by_the_same_dealer(tmp_path, monkeypatch):
    (tmp_path / "refuser_bot.py").write_text(REFUSER)
    monkeypatch.syspath_prepend(str(tmp_path))
    from dokosim.loop.registry import register_path
    register_path("refuser_bot")
    refused = simulate(4000, seed=12, strategy="refuser", rules="club", dealer=2)
    plain = simulate(4000, seed=12, strategy="simple", rules="ddv", dealer=2)
    assert (refused["contract"] != "poverty").all()
    assert (refused["dealer"] == 2).all()
    redealt = refused["redeals"] > 0
    assert redealt.sum() > 100
    # a redealt deal holds other cards than its first attempt; the others the same cards
    same = (refused["hand_0"] == plain["hand_0"]) & (refused["hand_1"] == plain["hand_1"])
    assert (~same.filter(redealt)).all()
    assert same.filter(~redealt).all()


# ---------------------------------------------------------------- throw-in
def test_throw_in_redeals_hands_with_five_nines():
    from dokosim.engine.cards import parse_hand
    nines = parse_hand("9C 9C 9S 9S 9H 9H 9D 9D")
    rules = {"preset": "ddv", "throw_in": True}
    df = simulate(20000, seed=4, strategy="simple", rules=rules, dealer=0)
    first = simulate(20000, seed=4, strategy="simple", dealer=0)  # attempt 0 of every deal
    had_five = pl.Series([
        any(bin(h & nines).count("1") >= 5 for h in row)
        for row in first.select([f"hand_{s}" for s in range(4)]).iter_rows()])
    outranks = df["contract"].cast(pl.String).str.contains("solo|marriage")  # beats a throw-in
    assert had_five.sum() > 0
    assert ((df["redeals"] >= 1) | outranks).filter(had_five).all()
    assert (df["redeals"] >= 1).filter(had_five).mean() > 0.5
    # simple always throws in: a played deal with five nines was outranked by a solo or marriage
    for row, outranked in zip(df.select([f"hand_{s}" for s in range(4)]).iter_rows(), outranks):
        assert outranked or all(bin(h & nines).count("1") < 5 for h in row)


# ---------------------------------------------------------------- no nines
def four_se(p, n):
    return 4 * math.sqrt(p * (1 - p) / n)


def test_sharp_deals_forty_cards_without_nines():
    from dokosim.engine.cards import NINES_MASK
    df = simulate(50_000, seed=6, strategy="random", rules="sharp", contract="normal", calls=False)
    hands = df.select([f"hand_{s}" for s in range(4)]).to_numpy()
    assert ((hands & int(NINES_MASK)) == 0).all()
    assert all(bin(int(h)).count("1") == 10 for h in hands.ravel()[:4000])
    assert (np.bitwise_or.reduce(hands, axis=1) == (2**48 - 1) ^ int(NINES_MASK)).all()
    # a given hand holds both QC in 3/52 of deals
    qc = 3 << 12
    share = float(np.mean((hands[:, 0] & qc) == qc))
    assert abs(share - 3 / 52) < four_se(3 / 52, len(hands))
    # some player holds 3 trumps or fewer (normal count, 24 trumps) in 12.7% of deals
    from dokosim.engine.cards import CLASS_MASK, SCHEME_NORMAL, TRUMP
    trumps = int(CLASS_MASK[SCHEME_NORMAL, TRUMP])
    poor = [any(bin(int(h) & trumps).count("1") <= 3 for h in row) for row in hands]
    assert abs(np.mean(poor) - 0.127) < four_se(0.127, len(hands)) + 0.0005
