"""`dokosim solve --score`: each line carries `dokosim.best_score`'s answer (its search is tested
against a plain minimax in tests/solver/test_best_score.py); bad lines and usage give one-line errors."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import dokosim

pytestmark = pytest.mark.subprocess  # starts a dokosim process

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "records.jsonl"


def _solve(*args):
    return subprocess.run([sys.executable, "-m", "dokosim.cli", "solve", *args], capture_output=True, text=True)


def test_score_lines_equal_the_api(tmp_path):
    records = [json.loads(x) for x in EXAMPLES.read_text().splitlines()[:3]]
    # a complete record, and positions with 2 and 5 tricks left (the default budget answers both)
    inputs = [records[0], {**records[1], "play": records[1]["play"][:40]},
              {**records[2], "play": records[2]["play"][:28]}]
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in inputs) + "not json\n")
    run = _solve(str(path), "--score")
    assert run.returncode == 1, run.stderr  # the last line is refused
    outs = [json.loads(x) for x in run.stdout.splitlines()]
    assert len(outs) == 4
    for record, out in zip(inputs, outs):
        expected = dokosim.best_score(record)
        assert expected["ok"] and out["ok"]
        assert out["score"] == {k: v for k, v in expected.items() if k in ("value_re", "card_values")}
        # the eyes part of the line is solve's, unchanged by --score
        assert out["eyes_re"] == dokosim.solve(record)["eyes_re"]
    assert outs[1]["score"]["card_values"] and set(outs[1]["score"]["card_values"]) == set(outs[1]["card_values"])
    # a complete record's value is its own score as dokosim score gives it (seat 0's share)
    scored = dokosim.score([records[0]])[0]
    share = 3 if scored["soloist"] is not None and scored["soloist"] == 0 else 1
    sign = 1 if 0 in scored["re_seats"] else -1
    assert outs[0]["score"]["value_re"] * share * sign == scored["score"][0]
    assert outs[3]["ok"] is False and outs[3]["kind"] == "bad_json"


def test_score_budget_and_usage(tmp_path):
    record = json.loads(EXAMPLES.read_text().splitlines()[0])
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({**record, "play": record["play"][:12]}) + "\n")  # 9 tricks left
    run = _solve(str(path), "--score", "--node-limit", "2000")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["score"] == {"value_re": None, "card_values": None, "over_node_limit": True}
    assert out["eyes_re"] is None  # the same limit for the record's own position
    bad = _solve("--score", "--deals", "3", "--out", str(tmp_path / "o"))
    assert bad.returncode == 2 and "not both" in bad.stderr and "Traceback" not in bad.stderr
