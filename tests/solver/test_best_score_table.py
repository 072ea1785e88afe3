"""best_score's transposition table changes nothing but the work: the same values and card
values as the search without it (tests/solver/test_best_score.py checks that search against a plain
minimax), also when one Solver's table carries entries from other positions of the deal (whose
tricks so far, and so extra points so far, differ), from other calls and from other contracts
of the same hands."""
import json

import pytest

import dokosim
from dokosim.game.game import Game, action_name
from dokosim.records.record import replay_detail
from dokosim.dd.solve import Solver

PASS = dokosim.action_id("pass")


@pytest.fixture(scope="module")
def records():
    frame = dokosim.simulate(24, seed=5, strategy="simple", calls=True, keep_play=True, quiet=True)
    return [json.loads(r) for r in frame["record"]]


def _values(solver, record, cards):
    solver.load(replay_detail({**record, "play": record["play"][:cards]})["state"])
    out = solver.score_values()
    assert out is not None
    value, values = out
    return value, values.tolist()


def test_the_table_gives_the_plain_search_s_values(records):
    plain = Solver(score_table_bits=0)
    with_table = Solver()
    compared = 0
    for record in records[:16]:
        for left in (4, 5):
            cards = len(record["play"]) - 4 * left
            assert _values(with_table, record, cards) == _values(plain, record, cards)
            compared += 1
    assert compared == 32


def test_a_shared_table_across_positions_calls_and_contracts(records):
    shared = Solver()
    with_calls = [r for r in records if r.get("announcements")][:4]
    assert len(with_calls) == 4
    for record in with_calls:
        # later positions of one deal meet entries stored from earlier ones, reached by other
        # tricks (other eyes, foxes and doppelkopf tricks so far) and with fewer calls made
        for cards in (24, 28, 32, 36):
            assert _values(shared, record, cards) == _values(Solver(), record, cards)
        # the same record without its calls: other levels, same generation of the table
        quiet = {**record, "announcements": []}
        assert _values(shared, quiet, 28) == _values(Solver(), quiet, 28)
    # the same hands under another contract, through the same table
    record = records[0]
    for contract in ({"type": "normal"}, {"type": "solo", "kind": "diamonds", "seat": 1, "compulsory": False},
                     {"type": "solo", "kind": "jacks", "seat": 2, "compulsory": False}):
        deal = {**record, "contract": contract, "play": _first_legal_line(record, contract, 28), "announcements": []}
        assert _values(shared, deal, 28) == _values(Solver(), deal, 28)


def _first_legal_line(record, contract, cards):
    """``cards`` cards of the deal under ``contract``, each the first legal card, no calls."""
    game = Game.from_record({**record, "contract": contract, "play": [], "announcements": []})
    play = []
    while len(play) < cards:
        if game.phase == "call":
            game.apply_action(PASS)
            continue
        action = game.legal_actions()[0]
        play.append(action_name(action))
        game.apply_action(action)
    return play
