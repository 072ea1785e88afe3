"""``dokosim.best_score``: the deal's score (RULES.md 1.7, as Re scores it) under best play for the
score with every hand open and no more calls, checked from outside its search.

The reference is a plain minimax over ``dokosim.Game`` (no pruning, no table, no card
equivalences beyond the game's own card kinds): every legal card at every turn, a ``pass`` at
every call round (no more calls), and at the end of the deal the score the game's own scorer
writes (``Game.result``), read as Re's value: a Re seat's score, a soloist's divided by 3.
Positions: deals played by the simple strategy with calls (fixed seeds), normal games and
forced solos, cut a few tricks before the end.
"""
import json

import pytest

import dokosim
from dokosim import Game
from dokosim.solve import Solver

PASS = dokosim.action_id("pass")
SOLOS = ("queens_solo", "jacks_solo", "fleischlos_solo", "hearts_solo", "clubs_solo", "diamonds_solo")


# ---------------------------------------------------------------------------- helpers
def cut(record: dict, n: int) -> dict:
    """The record after its first ``n`` cards (the calls made up to then kept)."""
    return {**record, "play": record["play"][:n],
            "announcements": [a for a in record.get("announcements", []) if a["cards_played"] <= n]}


def re_value_of(result: dict) -> int:
    """Re's game value as Re scores it, from a finished deal's result: a Re seat's score, the
    soloist's (a single Re seat) divided by 3."""
    re_seats = result["re_seats"]
    value = result["score"][re_seats[0]]
    if len(re_seats) == 1:
        assert value % 3 == 0, result
        value //= 3
    assert all(result["score"][s] == value * (3 if len(re_seats) == 1 else 1) for s in re_seats)
    return value


def score_leaf(game: Game) -> int:
    return re_value_of(game.result())


def eyes_leaf(game: Game) -> int:
    return game.result()["eyes"]["re"]


def _no_calls(game: Game) -> Game:
    """The game past any call round (every seat passes), a copy when anything was passed."""
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
    assert game.phase == "card"
    values = []
    for action in game.legal_actions():
        child = game.clone()
        child.apply_action(action)
        values.append(minimax(child, re_seats, leaf))
    return max(values) if game.current_player in re_seats else min(values)


def reference(record: dict, re_seats: set, leaf=score_leaf) -> tuple[int, int, dict]:
    """(seat to move, value, {card: value after that card}) of the record's position."""
    game = _no_calls(Game.from_record(record))
    assert game.phase == "card"
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
    assert out["ok"] is True and out.get("complete", True) is not False, out
    return out


def settled(record: dict, out: dict) -> bool:
    """Parties known from the deal alone: a solo, or a normal game in which no seat holds both
    QC (the QC holders are Re whatever is played). Marriages and silent marriages are left out."""
    if out["contract"].endswith("_solo") and out["contract"] != "marriage_solo":
        return True
    if out["contract"] != "normal":
        return False
    return all(hand.split().count("QC") < 2 for hand in record["hands"]) if all(
        isinstance(h, str) for h in record["hands"]) else all(list(h).count("QC") < 2 for h in record["hands"])


def records(n: int, seed: int, contract=None, declarer=0) -> list[dict]:
    frame = dokosim.simulate(n, seed=seed, strategy="simple", calls=True, keep_play=True,
                             contract=contract, declarer=declarer)
    return [json.loads(r) for r in frame["record"].to_list()]


@pytest.fixture(scope="module")
def deals():
    """(record, its score output) of complete deals: normal games and solos of several kinds and
    soloists, some with announcements (fixed seeds)."""
    recs = records(60, seed=101)
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
    # the comparison covers solos, normal games and games with calls
    assert len(solos) >= 12 and len(chosen) - len(solos) >= 30 and len(called) >= 10, \
        (len(chosen), len(solos), len(called))
    return chosen


# ---------------------------------------------------------------------------- 1. the reference
def _compare(record, out, left):
    position = cut(record, 48 - left)
    re_seats = set(out["re_seats"])
    seat, value, values = reference(position, re_seats)
    got = dokosim.best_score(position, node_limit=0)
    assert got["ok"] is True and got["complete"] is False, got
    assert got["cards_played"] == 48 - left and got["to_move"] == seat, (position, got)
    assert got["value_re"] == value, (position, got, values)
    assert got["card_values"] == values, (position, got, values)
    return values


def test_best_score_equals_a_plain_minimax_two_tricks_left(settled_deals):
    compared = 0
    for record, out in settled_deals[:48]:
        _compare(record, out, 8)
        compared += 1
    assert compared >= 40


def test_best_score_equals_a_plain_minimax_three_tricks_left(settled_deals):
    # a few normal games and solos, some with calls
    normal = [d for d in settled_deals if d[1]["soloist"] is None]
    solos = [d for d in settled_deals if d[1]["soloist"] is not None]
    chosen = normal[:4] + solos[:4]
    for record, out in chosen:
        _compare(record, out, 12)
    assert any(r.get("announcements") for r, _ in chosen)


def test_the_reference_agrees_with_the_eyes_solver(settled_deals):
    """The reference's search is the one that checks best_score: with eyes at its leaves it gives
    dokosim.solve's values (so it plays the same positions by the same rules)."""
    for record, out in settled_deals[:20]:
        position = cut(record, 40)
        seat, eyes, values = reference(position, set(out["re_seats"]), eyes_leaf)
        solved = dokosim.solve(position)
        assert solved["to_move"] == seat and solved["eyes_re"] == eyes and solved["card_values"] == values


# ---------------------------------------------------------------------------- 2. card values
def test_value_is_the_movers_best_card_value(deals):
    answered = 0
    for record, out in deals:
        re_seats = set(out["re_seats"])
        for left in (8, 16, 20):
            got = dokosim.best_score(cut(record, 48 - left), node_limit=300_000)
            assert got["ok"] is True and got["cards_played"] == 48 - left
            if got.get("over_node_limit"):
                assert got["value_re"] is None and got["card_values"] is None
                continue
            values = list(got["card_values"].values())
            assert values and all(isinstance(v, int) for v in values)
            best = max(values) if got["to_move"] in re_seats else min(values)
            assert got["value_re"] == best, (cut(record, 48 - left), got)
            answered += 1
    assert answered >= 0.8 * 3 * len(deals)


# ---------------------------------------------------------------------------- 3. complete records
def test_a_complete_record_gives_its_own_score(deals):
    for record, out in deals:
        got = dokosim.best_score(record)
        assert got["ok"] is True and got["complete"] is True
        assert got["cards_played"] == 48 and got["to_move"] is None
        re_seat = out["re_seats"][0]
        expected = out["score"][re_seat] // (3 if out["soloist"] is not None else 1)
        assert got["value_re"] == expected, (record, out, got)
    # the values are not all of one sign or size: wins and losses of both sides are covered
    values = {dokosim.best_score(r)["value_re"] for r, _ in deals}
    assert min(values) < 0 < max(values)
