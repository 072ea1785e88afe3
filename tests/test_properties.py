"""Invariants over 100,000 random deals (random reservations, calls and cards).

The follow-suit checker and trick ranking below are written from RULES.md 1.2
and 1.4 alone and share no code with the engine: an independent check.
"""
import json
from collections import Counter

import numpy as np
import polars as pl

from dokosim.records import score_objects

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
    """Replay one record with the independent checker; returns (re-free) eyes per seat."""
    hands = [Counter(h.split()) for h in record["hands"]]
    pack = sum(hands, Counter())
    assert all(pack[r + s] == 2 for r in RANKS for s in "CSHD"), "hands are not the pack"
    play = record["play"]
    assert Counter(play) == pack, "each card played exactly once"
    trumps = trump_order(contract)
    dealer = record["dealer"]
    c = record["contract"]
    leader = c["seat"] if c.get("compulsory") else (dealer + 1) % 4
    eyes = [0] * 4
    tricks = [0] * 4
    for t in range(12):
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
            if a_cls == "trump" and (b_cls != "trump" or strength(a, trumps) > strength(b, trumps)):
                best = i
            elif a_cls == led and b_cls != "trump" and strength(a, trumps) > strength(b, trumps):
                best = i
        leader = seats[best]
        eyes[leader] += sum(EYES[x[0]] for x in cards)
        tricks[leader] += 1
    return eyes, tricks


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
        eyes, tricks = check_deal(record, contract)
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

    from dokosim.cards import C_MARRIAGE, C_NORMAL, C_SOLO_BASE
    from dokosim.engine.layout import E_OK, P_TURN, R_LEN, ST_LEN
    from dokosim.engine.play import call_error, legal_calls, legal_mask, make_call, play_card, setup_deal
    rng = np.random.default_rng(5)
    checked = 0
    for deal in range(300):
        perm = rng.permutation(48)
        hands = np.zeros(4, dtype=np.int64)
        for i, c in enumerate(perm):
            hands[i // 12] |= np.int64(1) << np.int64(c)
        holder = [s for s in range(4) if (hands[s] >> 12) & 3 == 3]  # both QC (type 6 -> cards 12, 13)
        contract, declarer = C_NORMAL, -1
        if holder and deal % 2:
            contract, declarer = C_MARRIAGE, holder[0]
        elif deal % 3 == 0:
            contract, declarer = C_SOLO_BASE + deal % 7, deal % 4
        st = np.zeros(ST_LEN, dtype=np.int64)
        plays = np.zeros(48, dtype=np.int64)
        play_seat = np.zeros(48, dtype=np.int64)
        trick_winner = np.zeros(12, dtype=np.int64)
        power = np.zeros(48, dtype=np.int64)
        fclass = np.zeros(48, dtype=np.int64)
        cmask = np.zeros(5, dtype=np.int64)
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
            play_card(st, hands, int(rng.choice(legal)), plays, play_seat, trick_winner, power, fclass, rules)
    assert checked == 300 * 48 * 4
