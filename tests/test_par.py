"""`dokosim.par` and `dokosim solve --par` (issue 14): which reservations of a record's deal win
with every hand open.

Each answer is checked against a path tested on its own: `solve --deals` (whose rows equal
`dokosim.solve` on the records of each contract, tests/test_solve_deals.py) gives the same
normal-game and solo answers for the same deal and declarer; a hand that wins every trick wins
its solo; a deal moved to a five-player table has the same par with its seats renamed."""
import json
import subprocess
import sys

import pytest

import dokosim
from dokosim.solve_deals import solve_deals
from test_five_player_records import as_five_players

DEALS = 4


@pytest.fixture(scope="module")
def solved_deals():
    """Deals 0..DEALS-1 of seed 3 with seat 1 as soloist, and each deal as a record."""
    frame = solve_deals(DEALS, seed=3, declarer=1, node_limit=200_000)
    records = [{"rules": "ddv", "dealer": row["dealer"], "hands": [row[f"hand_{s}"] for s in range(4)],
                "contract": {"type": "normal"}, "play": []} for row in frame.iter_rows(named=True)]
    return frame, records


def test_par_equals_solve_deals_for_every_contract(solved_deals):
    frame, records = solved_deals
    for row, record in zip(frame.iter_rows(named=True), records):
        out = dokosim.par(record, node_limit=200_000)
        assert out["ok"] is True
        assert out["normal"] == row["re_wins_normal"]
        for kind in dokosim.Rules().solos:
            assert out["solos"]["1"][kind] == row[f"re_wins_{kind}_solo"], (row["deal_id"], kind)
        assert set(out["solos"]) == {"0", "1", "2", "3"}
        winning = [[s, k] for s in range(4) for k, won in out["solos"][str(s)].items() if won]
        assert out["winning_solos"] == winning
        answers = [out["normal"], *([out["marriage"]] if "marriage" in out else []),
                   *[v for seat in out["solos"].values() for v in seat.values()]]
        assert out["unknown"] == sum(v is None for v in answers)


def test_a_hand_that_takes_every_trick_wins_its_solo():
    # seat 0: both aces of every suit and both tens of clubs and spades. Without trumps
    # (fleischlos) nobody can beat these cards, so seat 0 takes every trick, whoever leads.
    hands = ["AC AC TC TC AS AS TS TS AH AH AD AD",
             "QC QC QS QS QH QH QD QD JC JC JS JS",
             "JH JH JD JD KC KC KS KS KH KH KD KD",
             "9C 9C 9S 9S 9H 9H 9D 9D TH TH TD TD"]
    out = dokosim.par({"rules": "ddv", "dealer": 3, "hands": hands}, node_limit=0)
    assert out["solos"]["0"]["fleischlos"] is True
    assert [0, "fleischlos"] in out["winning_solos"]
    # seat 1 holds both QC: the normal game is a silent marriage, and a marriage is answered
    assert "marriage" in out and out["marriage"] in (True, False)


def test_par_at_a_five_player_table_renames_the_seats(solved_deals):
    _, records = solved_deals
    record = records[0]
    out4 = dokosim.par(record, node_limit=200_000)
    rec5, seat = as_five_players(record, dealer=2)
    out5 = dokosim.par(rec5, node_limit=200_000)
    assert out5["normal"] == out4["normal"]
    assert set(out5["solos"]) == {str(seat[s]) for s in range(4)}
    for s in range(4):
        assert out5["solos"][str(seat[s])] == out4["solos"][str(s)]


def test_bad_records_and_limits():
    assert dokosim.par("{not json")["ok"] is False
    bad = dokosim.par({"rules": "ddv", "dealer": 3, "hands": ["QC"] * 4})
    assert bad["ok"] is False and "error" in bad
    with pytest.raises(ValueError, match="node_limit"):
        dokosim.par({"rules": "ddv", "dealer": 3, "hands": []}, node_limit=-1)


def test_cli_par_lines_and_usage_errors(tmp_path):
    # complete records: the main solve gives the record's own eyes, the par solves the deal
    from pathlib import Path
    examples = Path(__file__).resolve().parents[1] / "examples" / "records.jsonl"
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
                          ([str(path), "--node-limit", "5"], "--node-limit belongs to --deals N")):
        bad = subprocess.run([sys.executable, "-m", "dokosim.cli", "solve", *args], capture_output=True, text=True)
        assert bad.returncode == 2, bad.stderr
        assert message in bad.stderr and "Traceback" not in bad.stderr
