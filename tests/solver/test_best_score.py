"""``dokosim.best_score``: the deal's score (RULES.md 1.7, as Re scores it) under best play for the
score with every hand open and no more calls, checked from outside its search.

The reference is a plain minimax over ``dokosim.Game`` (no pruning, no table, no card
equivalences beyond the game's own card kinds): every legal card at every turn, a ``pass`` at
every call round (no more calls), and at the end of the deal the score the game's own scorer
writes (``Game.result``), read as Re's value: a Re seat's score, the soloist's divided by 3.
Positions: deals played by the simple strategy with calls (fixed seeds), normal games and
forced solos of six kinds and four soloists, cut two and three tricks before the end and in
the middle of those tricks.
"""
import json

import pytest

import dokosim
from dokosim import Game
from dokosim.dd.solve import Solver

PASS = dokosim.action_id("pass")
SOLOS = ("queens_solo", "jacks_solo", "fleischlos_solo", "hearts_solo", "clubs_solo", "diamonds_solo")
# seat 0 holds a winner for every trick; seat 3 only nines and tens of hearts and diamonds
STRONG = ["AC AC TC TC AS AS TS TS AH AH AD AD", "QC QC QS QS QH QH QD QD JC JC JS JS",
          "JH JH JD JD KC KC KS KS KH KH KD KD", "9C 9C 9S 9S 9H 9H 9D 9D TH TH TD TD"]


# ---------------------------------------------------------------------------- helpers
def cut(record: dict, n: int) -> dict:
    """The record after its first ``n`` cards (the calls made up to then kept)."""
    return {**record, "play": record["play"][:n],
            "announcements": [a for a in record.get("announcements", []) if a["cards_played"] <= n]}


def re_value_of(result: dict) -> int:
    """Re's game value as Re scores it, from a finished deal's result (``Game.result`` or a
    ``dokosim.score`` line): a Re seat's score, the soloist's (the only Re seat) divided by 3."""
    re_seats = result["re_seats"]
    factor = 3 if len(re_seats) == 1 else 1
    value = result["score"][re_seats[0]]
    assert value % factor == 0, result
    assert all(result["score"][s] == value for s in re_seats), result
    return value // factor


def score_leaf(game: Game) -> int:
    return re_value_of(game.result())


def eyes_leaf(game: Game) -> int:
    return game.result()["eyes"]["re"]


def _no_calls(game: Game) -> Game:
    """The game past a call round (every seat passes: no more calls), a copy if one was open."""
    if game.phase == "call":
        game = game.clone()
        while game.phase == "call":
            game.apply_action(PASS)
    return game


def minimax(game: Game, re_seats: set, leaf) -> int:
    """Plain minimax without pruning: Re seats maximise ``leaf``, Kontra seats minimise it."""
    game = _no_calls(game)
    if game.is_terminal():
        return leaf(game)
    assert game.phase == "card", game
    values = []
    for action in game.legal_actions():
        child = game.clone()
        child.apply_action(action)
        values.append(minimax(child, re_seats, leaf))
    return max(values) if game.current_player in re_seats else min(values)


def reference(record: dict, re_seats: set, leaf=score_leaf) -> tuple[int, int, dict]:
    """(seat to move, value, {card: value after that card}) of the record's position."""
    game = _no_calls(Game.from_record(record))
    assert game.phase == "card", game
    values = {}
    for action in game.legal_actions():
        child = game.clone()
        child.apply_action(action)
        values[dokosim.action_name(action)] = minimax(child, re_seats, leaf)
    seat = game.current_player
    best = max(values.values()) if seat in re_seats else min(values.values())
    return seat, best, values


def final(record: dict) -> dict:
    out = dokosim.score([record])[0]
    assert out["ok"] is True and out.get("complete", True) is True, out
    return out


def settled(record: dict, out: dict) -> bool:
    """Whether the parties are known at the positions compared (at most 3 tricks left, trick 10 or
    later): for every contract, since a marriage finds its partner (or turns solo) within the
    first three tricks and a silent marriage's soloist holds both QC from the start; the
    reference reads the Re seats from the finished deal."""
    return True


def records(n: int, seed: int, contract=None, declarer=0) -> list[dict]:
    frame = dokosim.simulate(n, seed=seed, strategy="simple", calls=True, keep_play=True,
                             contract=contract, declarer=declarer)
    return [json.loads(r) for r in frame["record"].to_list()]


def mover_prefers(is_re: bool, a: int, b: int) -> bool:
    """Whether the seat to move prefers Re's value a to b (Re maximises, Kontra minimises)."""
    return a > b if is_re else a < b


@pytest.fixture(scope="module")
def deals():
    """(record, its score line) of complete deals: 120 deals whose reservations the strategy made
    (normal games, marriages, solos) and 4 forced solos of each of six kinds, soloists 0-3."""
    recs = records(120, seed=101)
    for i, contract in enumerate(SOLOS):
        recs += records(4, seed=200 + i, contract=contract, declarer=i % 4)
    out = [(r, final(r)) for r in recs]
    assert all(len(r["play"]) == 48 for r, _ in out)
    return out


@pytest.fixture(scope="module")
def settled_deals(deals):
    chosen = [(r, o) for r, o in deals if settled(r, o)]
    solos = [o for _, o in chosen if o["soloist"] is not None]
    called = [r for r, _ in chosen if r.get("announcements")]
    marriages = [o for _, o in chosen if "marriage" in o["contract"]]
    assert len(marriages) >= 5, [o["contract"] for _, o in chosen]
    # the comparison covers solos, normal games and games with calls
    assert len(solos) >= 30 and len(chosen) - len(solos) >= 40 and len(called) >= 40, \
        (len(chosen), len(solos), len(called))
    return chosen


# ---------------------------------------------------------------------------- 1. the reference
def _compare(record: dict, out: dict, left: int) -> bool:
    """best_score against the reference after all but ``left`` cards; whether the cards' values
    differ (the position tests the choice of a card, not only the final score)."""
    position = cut(record, 48 - left)
    seat, value, values = reference(position, set(out["re_seats"]))
    got = dokosim.best_score(position, node_limit=0)
    assert got["ok"] is True and got["complete"] is False, got
    assert got["cards_played"] == 48 - left and got["to_move"] == seat, (position, got)
    assert got["value_re"] == value, (position, got, values)
    assert got["card_values"] == values, (position, got, values)
    return len(set(values.values())) > 1


def test_best_score_equals_a_plain_minimax_two_tricks_left(settled_deals):
    """Every settled deal before trick 11 and after each card of it (8 to 11 cards left)."""
    choices = sum(_compare(record, out, left) for record, out in settled_deals for left in (8, 9, 10, 11))
    # about 60 of these positions give the cards different values
    assert choices >= 40, choices


def test_best_score_equals_a_plain_minimax_three_tricks_left(settled_deals):
    """46 deals before trick 10 (12 cards left), 12 after its first card (11 left in the tricks,
    3 of them the seat's own): normal games, solos and marriages (announced, silent, turned
    solo), with and without calls."""
    normal = [d for d in settled_deals if d[1]["contract"] == "normal"][:20]
    solos = [d for d in settled_deals if d[1]["contract"].endswith("_solo") and "marriage" not in d[1]["contract"]][:20]
    marriages = [d for d in settled_deals if "marriage" in d[1]["contract"]][:6]
    assert len(marriages) == 6
    choices = sum(_compare(record, out, 12) for record, out in normal + solos + marriages)
    choices += sum(_compare(record, out, 13) for record, out in normal[:6] + solos[:6])
    assert any(r.get("announcements") for r, _ in normal) and any(r.get("announcements") for r, _ in solos)
    assert choices >= 10, choices


def test_the_reference_agrees_with_the_eyes_solver(settled_deals):
    """The reference search, with Re's eyes at its leaves, gives dokosim.solve's values: it plays
    the same positions by the same rules as the solvers."""
    for record, out in settled_deals[:30]:
        position = cut(record, 38)
        seat, eyes, values = reference(position, set(out["re_seats"]), eyes_leaf)
        solved = dokosim.solve(position)
        assert (solved["to_move"], solved["eyes_re"], solved["card_values"]) == (seat, eyes, values), position


def test_hand_computed_values_of_a_deal_won_and_lost_schwarz():
    """Seat 0 holds a card that wins every trick in a fleischlos solo (both aces of each suit and the
    tens of clubs and spades) and leads trick 1. RULES.md 1.7 for the soloist seat 0 (schwarz):
    won 1 + under 90, 60, 30 + schwarz = 5; Re said +2; "Re, no 90 ... schwarz" +2 and +4 for the
    four denial levels; Kontra said +2. For the soloist seat 3 (never wins a trick) Kontra wins
    5 (no against the queens in a solo), 7 with a Re or a Kontra call."""
    solo = {"rules": "ddv", "dealer": 3, "hands": STRONG, "play": ["AC", "QC", "KC", "9C"]}

    def call(seat, name):
        return {"seat": seat, "call": name, "cards_played": 0}

    cases = [(0, [], 5), (0, [call(0, "re")], 7), (0, [call(0, "schwarz")], 11),
             (0, [call(0, "schwarz"), call(2, "kontra")], 13),
             (3, [], -5), (3, [call(3, "re")], -7), (3, [call(1, "kontra")], -7)]
    for soloist, calls, value in cases:
        record = {**solo, "contract": {"type": "solo", "kind": "fleischlos", "seat": soloist},
                  "announcements": calls}
        for from_start in (False, True):
            got = dokosim.best_score(record, from_start=from_start, node_limit=5_000_000)
            assert got["ok"] is True and got["complete"] is False, got
            assert got["cards_played"] == (0 if from_start else 4) and got["to_move"] == 0
            assert got["value_re"] == value, (soloist, calls, from_start, got)
            assert got["card_values"] == {c: value for c in ("AC", "TC", "AS", "TS", "AH", "AD")}, got


# ---------------------------------------------------------------------------- 2. card values
def test_value_is_the_movers_best_card_value_and_the_value_after_that_card(deals):
    """value_re is the best of card_values for the seat to move (max for Re, min for Kontra), and
    each card's value is best_score's value of the record with that card played."""
    answered = 0
    for i, (record, out) in enumerate(deals):
        re_seats = set(out["re_seats"])
        for left in (8, 17, 20):
            position = cut(record, 48 - left)
            got = dokosim.best_score(position, node_limit=300_000)
            assert got["ok"] is True and got["cards_played"] == 48 - left
            if got.get("over_node_limit"):
                assert got["value_re"] is None and got["card_values"] is None
                continue
            values = list(got["card_values"].values())
            assert values and all(type(v) is int for v in values), got
            best = max(values) if got["to_move"] in re_seats else min(values)
            assert got["value_re"] == best, (position, got)
            answered += 1
            if i % 4 == 0 and left == 17:
                for card, value in got["card_values"].items():
                    after = dokosim.best_score({**position, "play": position["play"] + [card]}, node_limit=0)
                    assert after["value_re"] == value, (position, card, got, after)
    assert answered >= 0.9 * 3 * len(deals), answered


# ---------------------------------------------------------------------------- 3. complete records
def test_a_complete_record_gives_its_own_score(deals):
    values = set()
    for record, out in deals:
        got = dokosim.best_score(record)
        expected = re_value_of(out)
        sign = {"re": 1, "kontra": -1, None: 1}[out["winner"]]  # nobody wins: the value as Re scores it
        assert expected == sign * out["game_value"], out
        assert got == {"ok": True, "complete": True, "cards_played": 48, "to_move": None,
                       "value_re": expected}, (record, out, got)
        assert dokosim.best_score(json.dumps(record)) == got
        values.add(expected)
    # wins and losses of both sides, of several sizes
    assert min(values) < 0 < max(values) and len(values) >= 6, values


# ---------------------------------------------------------------------------- 4. score is not eyes
def _score_not_eyes(record: dict, out: dict, left: int):
    """The position's cards that are best for eyes (dokosim.solve) but not for the score
    (best_score), with both answers; None when there are none."""
    position = cut(record, 48 - left)
    score = dokosim.best_score(position, node_limit=0)
    eyes = dokosim.solve(position, node_limit=0)
    assert score["to_move"] == eyes["to_move"] and set(score["card_values"]) == set(eyes["card_values"])
    is_re = score["to_move"] in out["re_seats"]
    best_eyes = (max if is_re else min)(eyes["card_values"].values())
    eyes_best = [c for c, v in eyes["card_values"].items() if v == best_eyes]
    losing = [c for c in eyes_best if score["card_values"][c] != score["value_re"]]
    return (position, is_re, eyes_best, losing, score, eyes) if losing else None


def _check_against_reference(position, out, is_re, eyes_best, losing, score, eyes):
    for card in losing:
        assert mover_prefers(is_re, score["value_re"], score["card_values"][card]), (position, score)
    if settled(position, out):
        assert reference(position, set(out["re_seats"]))[1:] == (score["value_re"], score["card_values"])
        assert reference(position, set(out["re_seats"]), eyes_leaf)[1:] == (eyes["eyes_re"], eyes["card_values"])


def test_the_best_card_for_the_score_is_not_always_the_best_card_for_eyes():
    """Among 100 deals cut 4 to 8 cards before the end, some position has a card that makes the
    most eyes for the seat to move but a worse score than value_re (extra points, or eyes that
    cross no threshold, outweigh the eyes); the reference confirms both values."""
    found = []
    for record in records(100, seed=7):
        out = final(record)
        for left in range(4, 9):
            hit = _score_not_eyes(record, out, left)
            if hit:
                found.append(hit)
                _check_against_reference(hit[0], out, *hit[1:])
    assert found


def test_every_card_best_for_eyes_can_lose_score():
    """Stronger: a position in which every card that is best for eyes gives a worse score, among 200
    deals cut 9 and 10 cards before the end (none among the 100 deals above)."""
    found = []
    for record in records(200, seed=7):
        out = final(record)
        for left in (9, 10):
            hit = _score_not_eyes(record, out, left)
            if hit and hit[3] == hit[2]:
                found.append(hit)
                _check_against_reference(hit[0], out, *hit[1:])
    assert found


# ---------------------------------------------------------------------------- 5. errors and limits
def test_bad_records_give_the_error_object():
    bad = dokosim.best_score("{not json")
    assert bad["ok"] is False and bad["kind"] == "bad_json" and bad["error"]
    deal = {"rules": "ddv", "dealer": 3, "hands": STRONG}
    # seat 0 leads a card it does not hold; seat 2 does not follow the clubs lead holding KC
    for play, kind, seat, index in ((["QC"], "not_in_hand", 0, 1), (["AC", "QC", "JH"], "follow_suit", 2, 3)):
        for record in ({**deal, "play": play}, json.dumps({**deal, "play": play})):
            for from_start in (False, True):
                out = dokosim.best_score(record, from_start=from_start)
                assert out["ok"] is False and out["kind"] == kind and out["error"], out
                assert (out["seat"], out["trick"], out["card_index"], out["card"]) == (seat, 1, index, play[-1])
    assert dokosim.best_score({**deal, "hands": ["QC"] * 4})["ok"] is False
    assert dokosim.best_score({**deal, "play": ["XX"]})["kind"] == "unknown_card"
    # a record cut after a legal card is fine, and the same as a JSON string
    good = {**deal, "play": ["AC", "QC", "KC"]}
    assert dokosim.best_score(good) == dokosim.best_score(json.dumps(good)) and dokosim.best_score(good)["ok"]


def test_node_limit(deals):
    record, out = next(d for d in deals if d[1]["contract"] == "normal")
    position = cut(record, 24)  # six tricks left
    over = dokosim.best_score(position, node_limit=1)
    assert over == {"ok": True, "complete": False, "cards_played": 24, "to_move": over["to_move"],
                    "value_re": None, "card_values": None, "over_node_limit": True}
    assert over["to_move"] in range(4)
    assert dokosim.best_score(record, from_start=True, node_limit=1)["cards_played"] == 0
    # the same position with room enough: answered
    small = cut(record, 40)
    answered = dokosim.best_score(small, node_limit=0)
    assert answered["value_re"] is not None and "over_node_limit" not in answered
    assert answered["to_move"] == dokosim.best_score(small, node_limit=1)["to_move"]
    for limit in (-1, 1.5, "1000", None):
        with pytest.raises(ValueError):
            dokosim.best_score(small, node_limit=limit)


def test_a_solver_passed_in_keeps_its_limit_and_gives_the_same_values(deals):
    """One Solver for best_score and solve over positions of the same deals: each answer equals a
    fresh call's, and the solver's own node_limit is unchanged afterwards."""
    solver = Solver(node_limit=777)
    for record, _ in deals[:12]:
        for left in (20, 14, 9):
            position = cut(record, 48 - left)
            shared = dokosim.best_score(position, solver=solver)
            assert shared["value_re"] is not None and shared == dokosim.best_score(position)
            assert solver.node_limit == 777
            assert dokosim.solve(position, solver=solver, node_limit=0) == dokosim.solve(position, node_limit=0)
            assert dokosim.best_score(position, solver=solver, node_limit=0) == dokosim.best_score(position)
            assert solver.node_limit == 777
    over = dokosim.best_score(cut(deals[0][0], 24), solver=solver, node_limit=1)
    assert over["over_node_limit"] is True and solver.node_limit == 777
    # the solver's own limit is not what best_score uses: its default (1,000,000) answers
    assert dokosim.best_score(cut(deals[0][0], 36), solver=Solver(node_limit=1))["value_re"] is not None
