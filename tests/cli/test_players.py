"""dokosim players: every player a run can seat, strongest first by the standings file's measured
duplicate results against heuristic (dokosim/run/standings.py)."""
from __future__ import annotations

import json

from click.testing import CliRunner

from dokosim.cli import main
from dokosim.run import standings

OLD_FIELDS = {"name", "what", "class", "deals_per_second_per_core", "reads_hidden", "default_answerer", "built_in"}


def duplicate(diff, half=0.1, deals=2000, seed=700, player="x"):
    return {"opponent": "heuristic", "diff": diff, "ci95": [diff - half, diff + half], "deals": deals,
            "seatings": 6, "seed": seed, "rules": {"preset": "ddv"},
            "command": f"dokosim tournament {player} heuristic --deals {deals} --seed {seed} --rules ddv",
            "recorded_by": f"python scripts/player_standings.py --players {player}", "seconds": 1.0,
            "date": "2026-12-07", "commit": "0" * 40, "dirty": False}


def speed(rate, deals=100):
    return {"deals_per_second_per_core": rate, "deals": deals, "threads": 1, "clock": "CPU time",
            "command": "python scripts/bench.py --only players --record", "date": "2026-12-07",
            "commit": None, "dirty": False}


def standings_file(tmp_path):
    """ismcts ahead of net ahead of heuristic (0) ahead of simple; pimc, pimc_solver and random not
    measured; speeds for some."""
    path = tmp_path / "standings.json"
    standings.update("net", "duplicate", duplicate(0.5, seed=700, player="net"), path)
    standings.update("simple", "duplicate", duplicate(-1.9, seed=701, player="simple"), path)
    standings.update("ismcts", "duplicate", duplicate(0.86, half=0.3, seed=705, player="ismcts"), path)
    standings.update("net", "speed", speed(9366.0), path)
    standings.update("heuristic", "speed", speed(101234.5), path)
    standings.update("ismcts", "speed", speed(28.4), path)
    return path


def test_players_are_listed_strongest_first_by_the_standings_file(tmp_path):
    from dokosim.game.agents import python_agent, reads_hidden
    from dokosim.loop.registry import BUILTIN, available
    from dokosim.run.players import PLAYERS, STRONGEST_FAST
    path = standings_file(tmp_path)
    r = CliRunner().invoke(main, ["players", "--json", "--standings", str(path)])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    names = [p["name"] for p in rows]
    built_in = [p["name"] for p in rows if p["built_in"]]
    assert built_in == ["ismcts", "net", "heuristic", "simple", "net3", "pimc_solver", "pimc", "random", "dd_oracle"]
    assert set(built_in) == {name for name, _, _ in PLAYERS}
    assert names[:len(built_in)] == built_in  # plug-ins (another test may register one) after the built-ins
    assert [p["standing"] for p in rows[:len(built_in)]] == ["measured", "measured", "reference", "measured",
                                                            "not measured", "not measured", "not measured", "not measured",
                                                            "reads hidden cards"]
    by_name = {p["name"]: p for p in rows}
    recorded = standings.read(path)["players"]
    assert by_name["net"]["vs_heuristic"] == recorded["net"]["duplicate"]
    assert by_name["net"]["speed"] == recorded["net"]["speed"]
    assert by_name["net"]["deals_per_second_per_core"] == 9366.0
    assert by_name["heuristic"]["vs_heuristic"]["diff"] == 0 and by_name["heuristic"]["vs_heuristic"]["reference"]
    assert by_name["pimc"]["vs_heuristic"] is None and by_name["pimc"]["deals_per_second_per_core"] is None
    # the fields rows had before the standings file, as they were
    assert sum(p["default_answerer"] for p in rows) == 1 and by_name[STRONGEST_FAST]["default_answerer"]
    assert len(set(names)) == len(names) and set(BUILTIN) | {"dd_oracle"} <= set(names)
    for p in rows:
        assert OLD_FIELDS | {"standing", "vs_heuristic", "speed"} <= set(p), p
        if p["name"] in available():
            assert not p["reads_hidden"] and p["built_in"] == (p["name"] in BUILTIN), p
        else:
            assert python_agent(p["name"]) is not None and p["reads_hidden"] == reads_hidden(p["name"]), p
    assert by_name["dd_oracle"]["reads_hidden"]

    text = CliRunner().invoke(main, ["players", "--standings", str(path)]).output.splitlines()
    body = text[2:2 + len(rows)]
    assert [line.split()[0] for line in body] == names
    assert body[0].startswith("ismcts") and "+0.860 [+0.560, +1.160] [1]" in body[0] and " 705 " in body[0]
    assert body[names.index(STRONGEST_FAST)].endswith("(answers by default)")
    assert "0 (the reference)" in body[2] and "101,234" in body[2] and "28.4" in body[0]
    notes = text[2 + len(rows):]
    assert notes[0] == ("[1] ismcts: dokosim tournament ismcts heuristic --deals 2000 --seed 705 --rules ddv  "
                        "(2026-12-07, commit 000000000)")
    assert any(n.startswith("deals/s/core: ") and "scripts/bench.py --only players --record" in n for n in notes)
    assert notes[-1].startswith("not measured yet: net3, pimc_solver, pimc, random")


def test_the_shipped_standings_are_valid_and_list_the_built_ins():
    from dokosim.run.players import PLAYERS
    data = standings.read()  # no StandingsError
    assert set(data["players"]) <= {name for name, _, kind in PLAYERS if kind != "reads hidden cards"}
    r = CliRunner().invoke(main, ["players", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert rows[-1 - sum(not p["built_in"] for p in rows)]["name"] == "dd_oracle"
    measured = [p["vs_heuristic"]["diff"] for p in rows if p["standing"] in ("measured", "reference")]
    assert measured == sorted(measured, reverse=True) and 0.0 in measured


def test_a_damaged_standings_file_is_refused_in_one_line(tmp_path):
    path = tmp_path / "standings.json"
    for content in ('{"schema_version": 1, "players": ', json.dumps({**standings.empty(), "players": {
            "net": {"duplicate": {**duplicate(0.5), "ci95": [0.6, 0.7]}}}}), "[]",
                    json.dumps({**standings.empty(), "players": {"net": {"duplicate": duplicate(float("nan"))}}})):
        path.write_text(content)
        for args in (["players", "--standings", str(path)], ["players", "--json", "--standings", str(path)]):
            r = CliRunner().invoke(main, args)
            assert r.exit_code == 1, r.output
            assert r.output.count("\n") == 1 and r.output.startswith("Error: standings file ")
            assert "damaged" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["players", "--standings", str(tmp_path / "missing.json")])
    assert r.exit_code == 1 and r.output.count("\n") == 1 and "no such file" in r.output


def test_a_standings_file_that_is_not_text_is_damaged_not_a_codec_error(tmp_path):
    """Bytes that are not UTF-8 gave "cannot be read: 'utf-8' codec can't decode byte 0xff in
    position 0: invalid start byte"; they are a damaged file like any other."""
    path = tmp_path / "standings.json"
    path.write_bytes(b"\xff\xfe{}")
    r = CliRunner().invoke(main, ["players", "--standings", str(path)])
    assert r.exit_code == 1 and r.output.count("\n") == 1, r.output
    assert "is damaged (not UTF-8 text)" in r.output and "codec" not in r.output


def test_update_checks_the_file_and_the_record_and_leaves_a_damaged_file_alone(tmp_path):
    import pytest
    path = tmp_path / "standings.json"
    path.write_text("{oops")
    with pytest.raises(standings.StandingsError, match="damaged"):
        standings.update("net", "duplicate", duplicate(0.5), path)
    assert path.read_text() == "{oops"
    path.unlink()
    standings.update("net", "speed", speed(10.0), path)
    before = path.read_bytes()
    for section, record in (("duplicate", {**duplicate(0.5), "deals": 1}), ("speed", speed(-1.0)),
                            ("speed", {**speed(1.0), "extra": 1}), ("duplicate", {**duplicate(0.5), "date": "today"}),
                            ("bogus", {})):
        with pytest.raises(standings.StandingsError):
            standings.update("net", section, record, path)
    with pytest.raises(standings.StandingsError, match="0 by definition"):
        standings.update("heuristic", "duplicate", duplicate(0.0), path)
    assert path.read_bytes() == before


def test_a_failed_write_leaves_the_standings_as_they_were(tmp_path, monkeypatch):
    import os

    import pytest
    path = standings_file(tmp_path)
    before = path.read_bytes()

    def fail(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError):
        standings.update("random", "speed", speed(1e6), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["standings.json"]  # no temporary file left
