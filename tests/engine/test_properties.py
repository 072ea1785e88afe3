"""Invariants over 100,000 random deals (random reservations, calls and cards).

The follow-suit checker and trick ranking below are written from RULES.md 1.2
and 1.4 alone and share no code with the engine: an independent check.
"""
import json
from collections import Counter

import numpy as np
import polars as pl
import pytest

from dokosim.records.record import score_objects
from dokosim.run.simulate import simulate

pytestmark = pytest.mark.slow  # a long property run

RANKS = "ATKQJ9"
EYES = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0}
QUEENS = ["QC", "QS", "QH", "QD"]
JACKS = ["JC", "JS", "JH", "JD"]


def trump_order(contract: str) -> list[str]:
    """Trumps high to low, from the table of RULES.md 1.2."""
    if contract == "queens_solo":
        return QUEENS
    if contract == "jacks_solo":
        return JACKS
    if contract == "fleischlos_solo":
        return []
    suit = {"clubs_solo": "C", "spades_solo": "S", "hearts_solo": "H"}.get(contract, "D")
    order = ["TH"] + QUEENS + JACKS
    order += [r + suit for r in "ATK9" if r + suit not in order]
    return order


def follow_class(card: str, trumps: list[str]) -> str:
    return "trump" if card in trumps else card[1]


def strength(card: str, trumps: list[str]) -> int:
    if card in trumps:
        return 100 - trumps.index(card)
    return 10 - RANKS.index(card[0])


def check_deal(record: dict, contract: str):
    """Replay one record with the independent checker.

    Returns (eyes per seat, tricks per seat, fox-catching trick winners' seats per fox).
    House rules read from the record: no nines, the Dulle variants, piglets and
    super piglets, a poverty's exchange.
    """
    rules = record["rules"] if isinstance(record["rules"], dict) else {"preset": record["rules"]}
    preset = rules.get("preset", "ddv")
    no_nines = rules.get("no_nines", preset == "sharp")
    piglets_rule = rules.get("schweinchen", preset == "club")
    super_rule = rules.get("superschweinchen", False)
    dulle = rules.get("dulle", "first")
    n = 10 if no_nines else 12
    hands = [Counter(h.split()) for h in record["hands"]]
    pack = sum(hands, Counter())
    ranks = RANKS.replace("9", "") if no_nines else RANKS
    assert all(pack[r + s] == 2 for r in ranks for s in "CSHD") and sum(pack.values()) == 4 * n
    play = record["play"]
    assert Counter(play) == pack, "each card played exactly once"
    c = record["contract"]
    if c["type"] == "poverty":
        poor, partner = c["seat"], c["partner"]
        assert all(x in hands[poor].elements() for x in c["passed"])
        normal_trumps = trump_order("normal")
        assert all(x in c["passed"] for x in hands[poor].elements() if x in normal_trumps)
        hands[poor] -= Counter(c["passed"])
        hands[partner] += Counter(c["passed"])
        assert all(hands[partner][x] >= k for x, k in Counter(c["returned"]).items())
        hands[partner] -= Counter(c["returned"])
        hands[poor] += Counter(c["returned"])
    trumps = trump_order(contract)
    if piglets_rule and "AD" in trumps and any(h["AD"] == 2 for h in hands):
        top = ["AD"]
        super_card = "KD" if no_nines else "9D"
        if super_rule and any(h[super_card] == 2 for h in hands):
            top = [super_card, "AD"]
        trumps = top + [x for x in trumps if x not in top]
    dealer = record["dealer"]
    leader = c["seat"] if c.get("compulsory") else (dealer + 1) % 4
    eyes = [0] * 4
    tricks = [0] * 4
    fox_winners = []
    for t in range(n):
        cards = play[4 * t: 4 * t + 4]
        seats = [(leader + i) % 4 for i in range(4)]
        led = follow_class(cards[0], trumps)
        for seat, card in zip(seats, cards):
            assert hands[seat][card] > 0, f"trick {t + 1}: seat {seat} does not hold {card}"
            if follow_class(card, trumps) != led:
                assert not any(follow_class(h, trumps) == led for h in hands[seat].elements()), \
                    f"trick {t + 1}: seat {seat} reneged with {card}"
            hands[seat][card] -= 1
        best = 0
        for i in range(1, 4):
            a, b = cards[i], cards[best]
            a_cls, b_cls = follow_class(a, trumps), follow_class(b, trumps)
            second_dulle = (a == b == "TH" and a_cls == "trump"
                            and (dulle == "second" or (dulle == "second_except_last" and t < n - 1)))
            if a_cls == "trump" and (b_cls != "trump" or strength(a, trumps) > strength(b, trumps)
                                     or second_dulle):
                best = i
            elif a_cls == led and b_cls != "trump" and strength(a, trumps) > strength(b, trumps):
                best = i
        leader = seats[best]
        eyes[leader] += sum(EYES[x[0]] for x in cards)
        tricks[leader] += 1
        fox_winners += [(seats[i], leader) for i in range(4) if cards[i] == "AD"]
    return eyes, tricks, fox_winners


def test_random_deals_obey_the_invariants(random_deals_with_records):
    df = random_deals_with_records
    assert df.height >= 100_000
    contracts = Counter(df["contract"].to_list())
    # random reservations make every contract kind appear
    for name in ("normal", "silent_marriage", "marriage", "queens_solo", "fleischlos_solo"):
        assert contracts[name] > 100, contracts
    assert df.filter(pl.col("calls_re") > 0).height > 1000
    scores = df.select([f"score_{s}" for s in range(4)]).to_numpy().astype(np.int64)
    assert (scores.sum(axis=1) == 0).all()
    assert ((df["eyes_re"] >= 0) & (df["eyes_re"] <= 240)).all()
    solo = df.filter(pl.col("soloist") >= 0)
    for row in solo.select(["soloist", "game_value", "winner", "score_0", "score_1", "score_2",
                            "score_3"]).iter_rows():
        soloist, value, winner, *score = row
        re_value = value if winner in ("re", "none") else -value
        assert score[soloist] == 3 * re_value
        assert all(score[s] == -re_value for s in range(4) if s != soloist)
    for row in df.filter(pl.col("soloist") < 0).select(["re_mask", "score_0", "score_1", "score_2",
                                                        "score_3"]).iter_rows():
        re_mask, *score = row
        assert bin(re_mask).count("1") == 2
        re_score = [score[s] for s in range(4) if re_mask >> s & 1]
        ko_score = [score[s] for s in range(4) if not re_mask >> s & 1]
        assert re_score[0] == re_score[1] == -ko_score[0] == -ko_score[1]


def test_every_play_is_legal_and_eyes_add_up(random_deals_with_records):
    df = random_deals_with_records.select(["record", "contract", "re_mask", "eyes_re", "tricks_re"])
    for record_json, contract, re_mask, eyes_re, tricks_re in df.iter_rows():
        record = json.loads(record_json)
        eyes, tricks, _ = check_deal(record, contract)
        assert sum(eyes) == 240
        assert sum(eyes[s] for s in range(4) if re_mask >> s & 1) == eyes_re
        assert sum(tricks[s] for s in range(4) if re_mask >> s & 1) == tricks_re


def test_records_of_simulated_deals_score_as_simulated(random_deals_with_records):
    """Scoring a deal's record reproduces the simulator's row (one implementation, two paths)."""
    df = random_deals_with_records.head(20_000)
    outputs = score_objects([json.loads(r) for r in df["record"]])
    for out, row in zip(outputs, df.iter_rows(named=True)):
        assert out["ok"], out
        assert out["contract"] == row["contract"]
        assert out["eyes"]["re"] == row["eyes_re"]
        assert out["score"] == [row[f"score_{s}"] for s in range(4)]
        assert (out["winner"] or "none") == row["winner"]
        assert out["game_value"] == row["game_value"]


def test_legal_calls_agrees_with_call_error_in_every_reachable_state():
    """legal_calls (the simulator's fast form) equals asking call_error level by level."""
    import numpy as np

    from dokosim.engine.cards import C_MARRIAGE, C_NORMAL, C_SOLO_BASE
    from dokosim.engine.layout import E_OK, P_TURN, R_LEN
    from dokosim.engine.play import call_error, legal_calls, legal_mask, make_call, play_card, setup_deal
    from dokosim.engine.position import new_position
    rng = np.random.default_rng(5)
    checked = 0
    for deal in range(300):
        perm = rng.permutation(48)
        pos = new_position()
        st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
        for i, c in enumerate(perm):
            hands[i // 12] |= np.int64(1) << np.int64(c)
        holder = [s for s in range(4) if (hands[s] >> 12) & 3 == 3]  # both QC (type 6 -> cards 12, 13)
        contract, declarer = C_NORMAL, -1
        if holder and deal % 2:
            contract, declarer = C_MARRIAGE, holder[0]
        elif deal % 3 == 0:
            contract, declarer = C_SOLO_BASE + deal % 7, deal % 4
        rules = np.zeros(R_LEN, dtype=np.int64)
        setup_deal(st, hands, 3, contract, declarer, False, power, fclass, cmask)
        for k in range(48):
            for seat in range(4):
                fast = legal_calls(st, hands, seat)
                slow = sum(1 << lv for lv in range(1, 6) if call_error(st, hands, seat, lv, -1) == E_OK)
                assert fast == slow, (deal, k, seat)
                checked += 1
                if fast and rng.random() < 0.08:
                    levels = [lv for lv in range(1, 6) if fast >> lv & 1]
                    make_call(st, hands, seat, int(rng.choice(levels)))
            seat = st[P_TURN]
            legal = [c for c in range(48) if legal_mask(st, hands[seat], plays, fclass, cmask) >> c & 1]
            play_card(pos, int(rng.choice(legal)), rules)
    assert checked == 300 * 48 * 4


HOUSE_PRESETS = {
    "club": "club",
    "sharp": "sharp",
    "everything": {"preset": "ddv", "schweinchen": True, "superschweinchen": True, "poverty": True,
                   "throw_in": True, "dulle": "second_except_last"},
}


@pytest.mark.parametrize("name", list(HOUSE_PRESETS))
def test_invariants_hold_under_every_preset(name):
    """The rules issue's properties under the house-rule presets (30,000 deals each)."""
    df = simulate(30_000, seed=99, strategy="random", rules=HOUSE_PRESETS[name], keep_play=True,
                  params={"*": {"p_reserve": 0.3, "p_call": 0.15}})
    scores = df.select([f"score_{s}" for s in range(4)]).to_numpy().astype(np.int64)
    assert (scores.sum(axis=1) == 0).all()
    solo = df.filter(pl.col("soloist") >= 0)
    for soloist, value, winner, *score in solo.select(
            ["soloist", "game_value", "winner", "score_0", "score_1", "score_2", "score_3"]).iter_rows():
        re_value = value if winner in ("re", "none") else -value
        assert score[soloist] == 3 * re_value and sum(score) == 0
    rows = df.select(["record", "contract", "re_mask", "eyes_re", "tricks_re", "fox_re",
                      "fox_kontra"]).iter_rows()
    for record_json, contract, re_mask, eyes_re, tricks_re, fox_re, fox_kontra in rows:
        record = json.loads(record_json)
        eyes, tricks, fox_winners = check_deal(record, contract)
        assert sum(eyes) == 240
        assert sum(eyes[s] for s in range(4) if re_mask >> s & 1) == eyes_re
        assert sum(tricks[s] for s in range(4) if re_mask >> s & 1) == tricks_re
        if not contract.endswith("solo") and contract != "silent_marriage":
            # a fox (piglets included) is caught by the side winning the trick it was played in
            side = lambda seat: re_mask >> seat & 1  # noqa: E731
            caught = [side(w) for p, w in fox_winners if side(p) != side(w)]
            assert (caught.count(1), caught.count(0)) == (fox_re, fox_kontra)
    outputs = score_objects([json.loads(r) for r in df["record"].head(5000)])
    assert all(o["ok"] and o["score"] == [r[f"score_{s}"] for s in range(4)]
               for o, r in zip(outputs, df.head(5000).iter_rows(named=True)))
    if name != "sharp":
        # random reservations meet a poverty-eligible hand and an acceptor in ~0.1% of deals
        assert df.filter(pl.col("contract") == "poverty").height >= 20
