"""The record parser survives any input (issue 13): any JSON value, any bytes, mutated oracle
records. Never an exception, always one output per non-blank input line, each output valid
JSON with ``ok`` (and an error line of a documented kind when not ok).

Property tests (hypothesis, derandomized: the same examples on every run, no database) batch
many lines per example through ``score_lines``; one test feeds 10,000 mutated oracle records
through the CLI in one file."""
import json
import random
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dokosim.records.record import score_lines

ROOT = Path(__file__).resolve().parents[2]
ORACLE = sorted((ROOT / "tests" / "data" / "oracle").glob("*.jsonl"))
KINDS = {"bad_json", "bad_field", "unknown_card", "not_the_pack", "unsupported_rule", "not_in_hand",
         "follow_suit", "marriage_without_qc", "bad_contract", "wrong_side", "before_clarification",
         "no_raise", "announcement_too_late", "denial_after_late_reply"}
JSON_SPACE = b" \t\r\n"

# 5,000 examples in all (1,500 + 1,500 + 2,000), each a batch of lines through one score_lines
# call; values are kept small because hypothesis's drawing (1-5 ms an example here), not the
# scorer (about 1 ms a batch), is what takes the time
FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=1500,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _oracle_records() -> list[dict]:
    return [json.loads(line)["record"] for f in ORACLE for line in f.read_text().splitlines() if line.strip()]


RECORDS = _oracle_records()
FIELD_NAMES = ["rules", "dealer", "hands", "contract", "play", "announcements", "bock", "type", "seat",
               "kind", "compulsory", "partner", "passed", "returned", "call", "cards_played", "preset",
               "dulle", "solos", "poverty", "five_players", "no_nines", "schweinchen"]
WORDS = ["ddv", "club", "sharp", "normal", "marriage", "solo", "poverty", "queens", "re", "kontra",
         "no90", "schwarz", "QC", "10h", "qc", "AS", "ZZ", "", " ", "QC QC", "\r", "\u00e4", "\ud7ff"]
scalars = (st.none() | st.booleans() | st.integers(min_value=-2**64, max_value=2**64)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12) | st.sampled_from(WORDS)
           | st.integers(min_value=-1, max_value=48))
json_values = st.recursive(
    scalars,
    lambda children: (st.lists(children, max_size=4)
                      | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=4), children, max_size=4)),
    max_leaves=6)


def check_outputs(lines: list, outs: list[dict]):
    """One output per non-blank line, in order, each JSON with ok (an error of a known kind)."""
    def blank(line):
        raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
        return not raw.strip(JSON_SPACE)
    numbers = [n for n, line in enumerate(lines, start=1) if not blank(line)]
    assert [o["line"] for o in outs] == numbers
    for out in outs:
        back = orjson.loads(orjson.dumps(out))
        assert back == out and isinstance(out["ok"], bool)
        if not out["ok"]:
            assert out["kind"] in KINDS and isinstance(out["error"], str) and "\n" not in out["error"], out


def paths_of(value, prefix=()):
    """Every path (tuple of keys and indices) into a JSON value, the root included."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths_of(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths_of(v, (*prefix, i))


def replaced(record, path, value, delete=False):
    """The record with the value at ``path`` replaced (or deleted)."""
    rec = orjson.loads(orjson.dumps(record))  # a deep copy, fast
    if not path:
        return value
    parent = rec
    for key in path[:-1]:
        parent = parent[key]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return rec


PATHS = [list(paths_of(record))[1:] for record in RECORDS]


# what a mutation puts in: a scalar, or a list or object of scalars (nested values: above)
flat_values = (scalars | st.lists(scalars, max_size=3)
               | st.dictionaries(st.sampled_from(FIELD_NAMES), scalars, max_size=3))


@st.composite
def mutated_lines(draw):
    """An oracle record with one of its values (at any depth) replaced by another JSON value
    of any type, or deleted; then as a line, maybe truncated, with a byte that is not UTF-8 or
    a \r put in, or as text (str) instead of bytes."""
    which = draw(st.integers(0, len(RECORDS) - 1))
    paths = PATHS[which]
    path = paths[draw(st.integers(0, len(paths) - 1))]
    record = replaced(RECORDS[which], path, draw(flat_values), delete=draw(st.booleans()))
    line = json.dumps(record).encode()
    how = draw(st.sampled_from(["as is", "truncate", "byte", "cr", "text"]))
    if how == "truncate":
        return line[:draw(st.integers(1, len(line)))]
    if how in ("byte", "cr"):
        i = draw(st.integers(0, len(line)))
        inserted = bytes([draw(st.integers(0x80, 0xff))]) if how == "byte" else b"\r"
        return line[:i] + inserted + line[i:]
    return line.decode() if how == "text" else line


@pytest.mark.slow
@FUZZ
@given(st.lists(json_values, min_size=1, max_size=3))
def test_any_json_value_gives_one_json_output_line(values):
    lines = [json.dumps(v) for v in values]
    check_outputs(lines, list(score_lines(lines)))


@pytest.mark.slow
@FUZZ
@given(st.lists(st.binary(max_size=60) | st.sampled_from([b"", b"\r", b" \t\r", b"\x0c", b"\xff{}", b"{\"a\":\r1}"]),
                min_size=1, max_size=8))
def test_any_bytes_give_one_json_output_per_line(lines):
    check_outputs(lines, list(score_lines(lines)))


@pytest.mark.slow
@settings(FUZZ, max_examples=2000)
@given(st.lists(mutated_lines(), min_size=1, max_size=3))
def test_mutated_oracle_records_give_one_json_output_line(lines):
    check_outputs(lines, list(score_lines(lines)))


# ------------------------------------------------------------------ the CLI, 10,000 lines
def mutate_line(rng: random.Random, record: dict) -> bytes:
    """One deterministic mutation of a record, as a line without its newline (never blank)."""
    how = rng.randrange(8)
    paths = list(paths_of(record))[1:]
    path = rng.choice(paths)
    pool = [None, True, False, 0, -1, 3, 4, 5, 47, 48, 2**63, 1.5, "", "QC", "re", "ddv", "solo", [], {},
            ["QC"], {"type": "solo"}, {"preset": []}, [[]], "x" * 200]
    if how <= 2:
        line = json.dumps(replaced(record, path, rng.choice(pool)))
    elif how == 3:
        line = json.dumps(replaced(record, path, None, delete=True))
    else:
        line = json.dumps(record)
    raw = line.encode()
    if how == 4:
        raw = raw[:rng.randrange(1, len(raw))]
    elif how == 5:
        i = rng.randrange(len(raw) + 1)
        raw = raw[:i] + bytes([rng.randrange(0x80, 0x100)]) + raw[i:]
    elif how == 6:
        i = rng.randrange(len(raw) + 1)
        raw = raw[:i] + b"\r" + raw[i:]
    elif how == 7:
        raw = raw.replace(b", ", b",\r ", rng.randrange(1, 6)) + b"\r"  # \r as JSON whitespace, \r\n ending
    return raw if raw.strip(JSON_SPACE) else b"x"


@pytest.mark.subprocess
def test_ten_thousand_mutated_records_through_the_cli_give_ten_thousand_json_lines(tmp_path):
    rng = random.Random(20261201)
    lines = [mutate_line(rng, rng.choice(RECORDS)) for _ in range(10_000)]
    path = tmp_path / "mutated.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    proc = subprocess.run([sys.executable, "-m", "dokosim.cli", "score", str(path)], capture_output=True,
                          cwd=ROOT)
    assert proc.returncode == 1  # some records are refused
    assert b"Traceback" not in proc.stderr, proc.stderr[-2000:]
    outs = [json.loads(line) for line in proc.stdout.decode("utf-8").split("\n")[:-1]]
    assert len(outs) == 10_000
    assert [o["line"] for o in outs] == list(range(1, 10_001))
    assert all(isinstance(o["ok"], bool) for o in outs)
    kinds = {o["kind"] for o in outs if not o["ok"]}
    assert {"bad_json", "bad_field"} <= kinds and len(kinds) >= 6, kinds
    assert 1000 < sum(o["ok"] for o in outs) < 9000
    # the \r-only mutations (how == 7) score like the record itself: \r is JSON whitespace
    assert sum(o["ok"] for o, raw in zip(outs, lines) if raw.endswith(b"\r") and b",\r " in raw) > 500


@pytest.mark.parametrize("line", [b"\xff", b"{\"rules\": \"ddv\"\xc3}", b"\xef\xbb\xbf{}", b"\x00", b"\x0c"])
def test_single_odd_lines(line):
    outs = list(score_lines([line]))
    check_outputs([line], outs)
    assert outs[0]["kind"] == "bad_json"
