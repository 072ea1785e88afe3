"""Issue 47, item 5: ``score`` and every line reader (``solve``, ``show --line``) read a line of at
most 1 MiB (records.lines.MAX_LINE_BYTES): an over-long line is one error line and the next
lines are still read; ``/dev/zero`` ends in one error line, not in a MemoryError."""
import io
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from dokosim.cli import main

ROOT = Path(__file__).resolve().parents[2]
RECORD = (ROOT / "examples" / "records.jsonl").read_bytes().split(b"\n")[0]


def run(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "dokosim.cli", *args], capture_output=True, timeout=300, **kwargs)


def test_an_over_long_line_is_one_error_line_and_the_next_lines_are_scored(tmp_path):
    f = tmp_path / "r.jsonl"
    f.write_bytes(RECORD + b"\n" + b'{"hands": "' + b"x" * (3 << 20) + b'"}\n' + b"[" * (2 << 20) + b"\n" + RECORD + b"\n")
    done = run("score", str(f))
    lines = [json.loads(x) for x in done.stdout.splitlines()]
    assert [x["line"] for x in lines] == [1, 2, 3, 4], done.stderr
    assert lines[0]["ok"] and lines[3]["ok"] and lines[0]["score"] == lines[3]["score"]
    for x in lines[1:3]:
        assert not x["ok"] and x["kind"] == "bad_json" and "too long" in x["error"]
    assert done.returncode == 1 and not done.stderr.strip()


def test_score_of_dev_zero_ends_in_one_line_under_a_memory_limit():
    """A never-ending line: read in pieces up to the skip limit, answered in one line (exit 1),
    never held in memory (the address space limited to 3 GiB, as the issue's reproducer)."""
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
    code = limit + "import sys; sys.argv = ['dokosim', 'score', '/dev/zero']; from dokosim.cli import main; main()"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=300)
    assert done.returncode == 1, done.stderr[-2000:]
    out = [json.loads(x) for x in done.stdout.splitlines()]
    assert len(out) == 1 and out[0]["kind"] == "bad_json" and "rest of the input is not read" in out[0]["error"]
    assert b"Traceback" not in done.stderr


def test_bounded_lines_keeps_every_line_and_its_number():
    from dokosim.records.lines import LineTooLong, bounded_lines
    text = b"a\n" + b"b" * 11 + b"\n\nccc" + b"\n" + b"d" * 10
    got = list(bounded_lines(io.BytesIO(text), limit=10, max_skip=100))
    assert got[0] == b"a\n" and isinstance(got[1], LineTooLong) and got[1].size == 11 and got[1].ended
    assert got[2:] == [b"\n", b"ccc\n", b"d" * 10]
    endless = list(bounded_lines(io.BytesIO(b"z" * 500), limit=10, max_skip=100))
    assert len(endless) == 1 and not endless[0].ended


def test_show_and_solve_read_lines_within_the_limit_too(tmp_path):
    f = tmp_path / "r.jsonl"
    f.write_bytes(b"[" * (2 << 20) + b"\n" + RECORD + b"\n")
    result = CliRunner().invoke(main, ["show", str(f), "--line", "1"])
    assert result.exit_code == 2 and "too long" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(main, ["show", str(f), "--line", "2"])
    assert result.exit_code == 0, result.output
    done = run("solve", str(f), "--node-limit", "1000")
    lines = [json.loads(x) for x in done.stdout.splitlines()]
    assert [x["line"] for x in lines] == [1, 2] and "too long" in lines[0]["error"] and lines[1]["ok"], done.stderr
