"""``dokosim solve`` reads its input as ``dokosim score`` does (issue 32, item 5): bytes split at
``\\n`` only, each line decoded on its own, so a line that is not UTF-8, holds a lone ``\\r`` or
a ``\\x1c`` is one error line and the line numbers of the others stay intact."""
import json
from pathlib import Path

from click.testing import CliRunner

from dokosim.cli import main as cli

GOOD = (Path(__file__).resolve().parents[2] / "examples" / "records.jsonl").read_bytes().splitlines()[0]


def test_solve_numbers_every_line_and_names_each_bad_one(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join([GOOD, b"\xff\xfe bad", b"abc\rdef", b"\x1c", b"", GOOD]) + b"\n")
    result = CliRunner().invoke(cli, ["solve", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [o["line"] for o in lines] == [1, 2, 3, 4, 6]
    assert [o["ok"] for o in lines] == [True, False, False, False, True]
    assert "not UTF-8" in lines[1]["error"] and all(o["kind"] == "bad_json" for o in lines[1:4])
    score = CliRunner().invoke(cli, ["score", str(path)])
    assert [json.loads(line)["line"] for line in score.output.splitlines()] == [1, 2, 3, 4, 6]


def test_audit_refuses_a_record_that_breaks_a_rule_with_the_rule():
    """issue 32, item 6: a card the player does not hold (or may not play) is refused with the
    rule, never audited as a negative loss."""
    import pytest

    from dokosim.dd.audit import audit_records
    from dokosim.records.record import RecordError
    record = json.loads(GOOD)
    good = audit_records([record], 1)
    assert good.height == 4 and (good["loss"] >= 0).all()
    play = list(record["play"])
    play[-1], play[-2] = play[-2], play[-1]  # the last trick's cards swapped between two players
    with pytest.raises(RecordError, match="record 0"):
        audit_records([{**record, "play": play}], 1)


def test_show_exits_1_on_a_record_that_breaks_a_rule():
    """issue 32, item 9: the deal is shown with the error named, and the exit status says it
    (examples/records.jsonl line 4 breaks the follow-suit rule; line 1 is a clean deal)."""
    records = str(Path(__file__).resolve().parents[2] / "examples" / "records.jsonl")
    good = CliRunner().invoke(cli, ["show", records, "--line", "1"])
    assert good.exit_code == 0, good.output
    bad = CliRunner().invoke(cli, ["show", records, "--line", "4"])
    assert bad.exit_code == 1 and "error (follow_suit)" in bad.output, bad.output


def test_a_huge_integer_field_is_reported_as_the_integer_given():
    """issue 32, item 9: orjson reads 10**30 as 1e+30; the error names the integer as written."""
    record = json.loads(GOOD)
    text = json.dumps({**record, "dealer": 10**30})
    result = CliRunner().invoke(cli, ["score", "-"], input=text + "\n")
    out = json.loads(result.output.splitlines()[0])
    assert not out["ok"] and "got 1000000000000000000000000000000" in out["error"], out
