"""The writers of the players' standings file (dokosim/run/standings.py): scripts/player_standings.py
records a duplicate result against heuristic, scripts/bench.py --only players --record a speed; each
replaces one section of one player and leaves the rest of the file as it was."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from dokosim.run import standings

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def script(name):
    spec = importlib.util.spec_from_file_location(f"_script_{name}", SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def seeded(tmp_path):
    """A file with net's duplicate and speed and simple's speed."""
    from tests.cli.test_players import duplicate, speed
    path = tmp_path / "standings.json"
    standings.update("net", "duplicate", duplicate(0.5, player="net"), path)
    standings.update("net", "speed", speed(9000.0), path)
    standings.update("simple", "speed", speed(400000.0), path)
    return path


def test_the_tournament_script_records_one_player_and_its_reproducing_command(tmp_path):
    from dokosim.run.tournament import tournament
    path = seeded(tmp_path)
    before = standings.read(path)["players"]
    players = script("player_standings")
    argv = ["--players", "simple", "--deals", "20", "--file", str(path), "--quiet"]
    players.main(argv)
    after = standings.read(path)["players"]
    assert after["net"] == before["net"] and after["simple"]["speed"] == before["simple"]["speed"]
    assert set(after) == {"net", "simple"}
    record = after["simple"]["duplicate"]
    deals, seed = 20, players.DEFAULTS["simple"][1]
    assert 700 <= seed <= 799
    assert record["command"] == f"dokosim tournament simple heuristic --deals {deals} --seed {seed} --rules ddv"
    assert record["recorded_by"] == "python scripts/player_standings.py " + " ".join(argv)
    assert (record["deals"], record["seed"], record["seatings"], record["rules"]) == (deals, seed, 6, {"preset": "ddv"})
    # the command's tournament gives the recorded figures
    result = tournament(["simple", "heuristic"], deals, seed, "ddv")
    diff = result.diff["simple-heuristic"]
    assert (record["diff"], record["ci95"]) == (diff.mean, [diff.lo, diff.hi])
    # a second player leaves the first one's record as it was
    text = json.loads(path.read_text())["players"]["simple"]
    players.main(["--players", "random", "--deals", "20", "--file", str(path), "--quiet"])
    assert json.loads(path.read_text())["players"]["simple"] == text


def test_the_tournament_script_refuses_what_has_no_standing_and_a_damaged_file(tmp_path, capsys):
    players = script("player_standings")
    for name in ("heuristic", "dd_oracle", "nobody"):
        with pytest.raises(SystemExit):
            players.main(["--players", name, "--file", str(tmp_path / "s.json")])
    assert not (tmp_path / "s.json").exists()
    damaged = tmp_path / "damaged.json"
    damaged.write_text("{")
    with pytest.raises(SystemExit, match="damaged"):
        players.main(["--players", "simple", "--deals", "20", "--file", str(damaged)])
    assert damaged.read_text() == "{"


def test_the_bench_records_speeds_without_touching_the_duplicate_results(tmp_path):
    import numba
    path = seeded(tmp_path)
    before = standings.read(path)["players"]
    bench = script("bench")
    threads = numba.get_num_threads()
    try:
        bench.bench_players(1.0, 1e-4, ["random", "simple"], record=True, standings=path,
                            command="python scripts/bench.py --only players --players random,simple --record")
    finally:
        numba.set_num_threads(threads)
    after = standings.read(path)["players"]
    assert after["net"] == before["net"] and set(after["simple"]) == {"speed"}
    for name, deals in (("random", 100), ("simple", 40)):
        s = after[name]["speed"]
        assert s["deals"] == deals and s["threads"] == 1 and s["deals_per_second_per_core"] > 0
        assert s["command"] == "python scripts/bench.py --only players --players random,simple --record"
    assert "duplicate" not in after["random"] and set(after) == {"net", "simple", "random"}
