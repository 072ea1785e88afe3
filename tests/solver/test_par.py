"""`dokosim.par` and `dokosim solve --par` (issue 14): which reservations of a record's deal win
with every hand open.

Each answer is checked against a path tested on its own: `solve --deals` (whose rows equal
`dokosim.solve` on the records of each contract, tests/solver/test_solve_deals.py) gives the same
normal-game and solo answers for the same deal and declarer; a hand that wins every trick wins
its solo; a deal moved to a five-player table has the same par with its seats renamed."""
import json
import subprocess
import sys

import numpy as np
import pytest

import dokosim
from dokosim.dd.deal_solves import solve_deals
from tests.records.test_five_player_records import as_five_players

DEALS = 3
LIMIT = 200_000


@pytest.fixture(scope="module")
def solved_deals():
    """Deals 0..DEALS-1 of seed 3 solved by `solve --deals` with each seat as the soloist, and
    each deal as a record."""
    frames = [solve_deals(DEALS, seed=3, declarer=seat, node_limit=LIMIT) for seat in range(4)]
    records = [{"rules": "ddv", "dealer": row["dealer"], "hands": [row[f"hand_{s}"] for s in range(4)],
                "contract": {"type": "normal"}, "play": []} for row in frames[0].iter_rows(named=True)]
    return frames, records


def test_par_equals_solve_deals_for_every_contract(solved_deals):
    frames, records = solved_deals
    answered = 0
    for i, record in enumerate(records):
        out = dokosim.par(record, node_limit=LIMIT)
        assert out["ok"] is True
        assert set(out["solos"]) == {"0", "1", "2", "3"}
        for seat in range(4):
            row = frames[seat].row(i, named=True)
            assert row["hand_0"] == frames[0].row(i, named=True)["hand_0"]
            assert out["normal"] == row["re_wins_normal"]
            for kind in dokosim.Rules().solos:
                assert out["solos"][str(seat)][kind] == row[f"re_wins_{kind}_solo"], (i, seat, kind)
                answered += out["solos"][str(seat)][kind] is not None
        winning = [[s, k] for s in range(4) for k, won in out["solos"][str(s)].items() if won]
        assert out["winning_solos"] == winning
        answers = [out["normal"], *([out["marriage"]] if "marriage" in out else []),
                   *[v for seat in out["solos"].values() for v in seat.values()]]
        assert out["unknown"] == sum(v is None for v in answers)
    # most solos are answered within the budget: the comparison is not of nulls
    assert answered >= 0.8 * DEALS * 4 * len(dokosim.Rules().solos)


def test_a_hand_that_takes_every_trick_wins_its_solo():
    # seat 0 (first to lead, dealer 3): both aces of every suit and both tens of clubs and
    # spades. Without trumps (fleischlos) each card it leads is the highest of its suit still
    # out, so it keeps the lead and takes every trick.
    hands = ["AC AC TC TC AS AS TS TS AH AH AD AD",
             "QC QC QS QS QH QH QD QD JC JC JS JS",
             "JH JH JD JD KC KC KS KS KH KH KD KD",
             "9C 9C 9S 9S 9H 9H 9D 9D TH TH TD TD"]
    out = dokosim.par({"rules": "ddv", "dealer": 3, "hands": hands}, node_limit=2_000_000)
    assert out["solos"]["0"]["fleischlos"] is True
    assert [0, "fleischlos"] in out["winning_solos"]
    # seat 1 holds both QC: the normal game is a silent marriage, and a marriage is answered
    assert "marriage" in out and out["marriage"] in (True, False)


def test_par_at_a_five_player_table_renames_the_seats(solved_deals):
    _, records = solved_deals
    record = records[0]
    out4 = dokosim.par(record, node_limit=LIMIT)
    rec5, seat = as_five_players(record, dealer=2)
    out5 = dokosim.par(rec5, node_limit=LIMIT)
    assert out5["normal"] == out4["normal"] and out5.get("marriage") == out4.get("marriage")
    assert set(out5["solos"]) == {str(seat[s]) for s in range(4)}
    for s in range(4):
        assert out5["solos"][str(seat[s])] == out4["solos"][str(s)]


def test_bad_records_and_limits():
    for bad in ("{not json", "[]", "null", "42", [], None):
        out = dokosim.par(bad)
        assert out["ok"] is False and "error" in out
    # a bad card in the play is refused, as solve refuses it
    played = {"rules": "ddv", "dealer": 3, "hands": ["AC AC TC TC AS AS TS TS AH AH AD AD",
                                                      "QC QC QS QS QH QH QD QD JC JC JS JS",
                                                      "JH JH JD JD KC KC KS KS KH KH KD KD",
                                                      "9C 9C 9S 9S 9H 9H 9D 9D TH TH TD TD"], "play": ["QC"]}
    assert dokosim.par(played)["ok"] is False
    assert dokosim.par(played)["kind"] == dokosim.solve(played)["kind"]
    assert dokosim.par({**played, "play": []}, node_limit=np.int64(1000))["node_limit"] == 1000
    bad = dokosim.par({"rules": "ddv", "dealer": 3, "hands": ["QC"] * 4})
    assert bad["ok"] is False and "error" in bad
    with pytest.raises(ValueError, match="node_limit"):
        dokosim.par({"rules": "ddv", "dealer": 3, "hands": []}, node_limit=-1)


@pytest.mark.subprocess
def test_cli_par_lines_and_usage_errors(tmp_path):
    # complete records: the main solve gives the record's own eyes, the par solves the deal
    from pathlib import Path
    examples = Path(__file__).resolve().parents[2] / "examples" / "records.jsonl"
    lines = examples.read_text().splitlines()[:2]
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(lines) + "\n")
    run = subprocess.run([sys.executable, "-m", "dokosim.cli", "solve", str(path), "--par", "--node-limit", "50000"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    outs = [json.loads(x) for x in run.stdout.splitlines()]
    assert len(outs) == 2
    for line, out in zip(lines, outs):
        expected = dokosim.par(json.loads(line), node_limit=50000)
        assert out["par"] == {k: v for k, v in expected.items() if k != "ok"}
        assert out["par"]["node_limit"] == 50000
    for args, message in ((["--par", "--deals", "3", "--out", str(tmp_path / "o")], "not both"),
                          ([str(path), "--seed", "5"], "--seed belongs to --deals N")):
        bad = subprocess.run([sys.executable, "-m", "dokosim.cli", "solve", *args], capture_output=True, text=True)
        assert bad.returncode == 2, bad.stderr
        assert message in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.subprocess
def test_a_node_limit_gives_nulls_for_the_record_s_position(tmp_path):
    from pathlib import Path

    from dokosim.dd.solve import Solver
    examples = Path(__file__).resolve().parents[2] / "examples" / "records.jsonl"
    record = json.loads(examples.read_text().splitlines()[0])
    start = dokosim.solve(record, from_start=True, node_limit=1000)
    assert start["ok"] is True and start["over_node_limit"] is True
    assert start["eyes_re"] is None and start["card_values"] is None and start["to_move"] is not None
    late = {**record, "play": record["play"][:36]}
    exact = dokosim.solve(late)
    assert "over_node_limit" not in exact
    assert dokosim.solve(late, node_limit=10**9) == exact
    # a solver's own limit is restored after the call, and it still solves exactly
    solver = Solver(node_limit=7)
    assert dokosim.solve(late, solver=solver, node_limit=0) == exact
    assert solver.node_limit == 7
    assert dokosim.solve(late, solver=solver)["over_node_limit"] is True
    with pytest.raises(ValueError, match="node_limit=-2"):
        dokosim.solve(late, node_limit=-2)
    path = tmp_path / "start.jsonl"
    path.write_text(json.dumps({**record, "play": []}) + "\n")
    run = subprocess.run([sys.executable, "-m", "dokosim.cli", "solve", str(path), "--node-limit", "1000"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    line = json.loads(run.stdout)
    assert line["over_node_limit"] is True and line["eyes_re"] is None
