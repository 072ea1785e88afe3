"""Every deal of the oracle corpus (tests/data/oracle, a copy of shared/oracle) scores as its source says."""
from collections import Counter

from dokosim.records.record import score_objects


def _points(points):
    return Counter((p["side"], p["item"]) for p in points)


def test_every_oracle_line_gives_what_it_expects(oracle_lines):
    assert len(oracle_lines) == 851
    outputs = score_objects([line["record"] for _, line in oracle_lines])
    mismatches = []
    for (name, line), out in zip(oracle_lines, outputs):
        for key, expected in line["expect"].items():
            got = out.get(key)
            if key == "points":
                got, expected = _points(got or []), _points(expected)
            if got != expected:
                mismatches.append((name, line.get("source"), key, expected, got))
    assert mismatches == []


def test_broken_oracle_records_name_the_card(oracle_lines):
    broken = [line for _, line in oracle_lines if line["expect"].get("ok") is False]
    assert len(broken) == 40
    outputs = score_objects([line["record"] for line in broken])
    for line, out in zip(broken, outputs):
        assert out["ok"] is False
        assert out["kind"] == line["expect"]["kind"]
        assert "\n" not in out["error"]
        if "card" in line["expect"]:
            assert line["expect"]["card"] in out["error"]
        if "call" in line["expect"]:
            assert line["expect"]["call"] in out["error"]
