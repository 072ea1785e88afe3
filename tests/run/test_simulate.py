"""The simulator: reproducibility, resume, statistics against exact values, user strategies."""
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from dokosim.run.dataset import scan
from dokosim.run.driver import read_manifest
from dokosim.run.simulate import SimulationError, simulate
from dokosim.loop.registry import StrategyError
from tests.helpers.thread_util import on_one_and_two_threads


def four_se(p, n):
    return 4 * math.sqrt(p * (1 - p) / n)


def test_some_seat_holds_both_queens_of_clubs_in_11_of_47_deals():
    n = 200_000
    df = simulate(n, seed=7, strategy="random", contract="normal", calls=False)
    share = (df["contract"] == "silent_marriage").mean()
    assert abs(share - 11 / 47) < four_se(11 / 47, n)


def test_random_play_re_wins_at_the_c_floor_rate():
    # c_floor.c: 0.528 over 4 million hands (its own standard error ~0.00025)
    n = 200_000
    df = simulate(n, seed=11, strategy="random", contract="normal", calls=False)
    rate = (df["winner"] == "re").mean()
    assert abs(rate - 0.528) < four_se(0.528, n) + 0.001


def test_rows_do_not_depend_on_threads_or_chunks():
    kwargs = dict(seed=5, strategy="random,simple,random,simple",
                  params={"random": {"p_reserve": 0.3, "p_call": 0.2}})
    one, two = on_one_and_two_threads(lambda: simulate(30_000, chunk_size=30_000, **kwargs),
                                      lambda: simulate(30_000, chunk_size=7_000, **kwargs))
    assert_frame_equal(one, two)
    part = simulate(1_000, seed=5, strategy="random,simple,random,simple").slice(500)
    tail = simulate(1_000, seed=5, strategy="random,simple,random,simple", chunk_size=500)
    assert_frame_equal(part, tail.slice(500))


@pytest.mark.subprocess
def test_dataset_resume_after_kill_gives_identical_rows(tmp_path):
    args = [sys.executable, "-m", "dokosim.cli", "simulate", "--deals", "60000", "--seed", "3",
            "--strategy", "simple", "--chunk-size", "5000", "--quiet"]
    whole = tmp_path / "whole"
    subprocess.run(args + ["--out", str(whole)], check=True)
    killed = tmp_path / "killed"
    proc = subprocess.Popen(args + ["--out", str(killed)])
    deadline = time.time() + 120
    while time.time() < deadline and len(list(killed.glob("part-*.parquet"))) < 2:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    parts = len(list(killed.glob("part-*.parquet")))
    assert parts < 12, "the run finished before it could be killed"
    subprocess.run(args + ["--out", str(killed)], check=True)
    a = scan(whole).sort("deal_id").collect()
    b = scan(killed).sort("deal_id").collect()
    assert a.height == 60_000
    assert_frame_equal(a, b)
    assert not list(killed.glob("*.tmp"))


def test_a_different_command_on_a_dataset_is_refused(tmp_path):
    simulate(1000, seed=1, out=tmp_path / "d", chunk_size=500)
    with pytest.raises(ValueError, match="seed=1"):
        simulate(1000, seed=2, out=tmp_path / "d", chunk_size=500)
    assert read_manifest(tmp_path / "d")["seed"] == 1
    assert scan(tmp_path / "d").collect().height == 1000


def test_bad_arguments_are_refused():
    with pytest.raises(SimulationError, match="deals"):
        simulate(-5)
    with pytest.raises(StrategyError, match="unknown strategy 'nope'"):
        simulate(10, strategy="nope")
    with pytest.raises(SimulationError, match="aces_solo"):
        simulate(10, contract="aces_solo")
    with pytest.raises(StrategyError, match="no parameter"):
        simulate(10, strategy="simple", params={"*": {"bogus": 1}})


@pytest.mark.subprocess
@pytest.mark.parametrize("argv, needle", [
    (["--deals", "-3"], "--deals"),
    (["--strategy", "nosuch"], "unknown strategy 'nosuch'"),
    (["--contract", "aces_solo"], "aces_solo"),
    (["--out", "pyproject.toml"], "is a file"),
    (["--rule", "colour=red"], "unknown rules option 'colour'"),
])
def test_cli_bad_usage_is_one_line_and_exit_2(argv, needle):
    proc = subprocess.run([sys.executable, "-m", "dokosim.cli", "simulate", "--deals", "10", *argv],
                          capture_output=True, text=True, cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert proc.returncode == 2
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr


def test_forced_solo_and_compulsory_lead():
    df = simulate(2000, seed=9, contract="queens_solo", declarer=2, compulsory=True, keep_play=True)
    assert (df["contract"] == "queens_solo").all()
    assert (df["soloist"] == 2).all()
    for rec in df["record"].head(50):
        record = json.loads(rec)
        assert record["contract"] == {"type": "solo", "kind": "queens", "seat": 2, "compulsory": True}


def test_forced_marriage_needs_both_queens_of_clubs():
    df = simulate(5000, seed=4, contract="marriage")
    married = df.filter(pl.col("contract").is_in(["marriage", "marriage_solo"]))
    assert abs(married.height / 5000 - 11 / 47) < four_se(11 / 47, 5000)
    assert (df.filter(~pl.col("contract").is_in(["marriage", "marriage_solo"]))["contract"] == "normal").all()
    assert married.filter(pl.col("contract") == "marriage")["clarifying_trick"].is_in([1, 2, 3]).all()


USER_STRATEGY = '''
"""A user strategy: always plays its highest legal card by index."""
from numba import njit

NAME = "highest_index"
PARAMS = {"unused": (1.0, "a parameter to show they are recorded")}


@njit(cache=True)
def reserve(seat, hand, options, pub, rules, params, rng):
    return 0


@njit(cache=True)
def call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    return 0


@njit(cache=True)
def card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    c = 47
    while not (legal >> c) & 1:
        c -= 1
    return c
'''


def test_user_strategy_from_a_temporary_module_plays_a_full_run(tmp_path, monkeypatch):
    (tmp_path / "my_doko_bot.py").write_text(textwrap.dedent(USER_STRATEGY))
    monkeypatch.syspath_prepend(str(tmp_path))
    from dokosim.loop.registry import register_path
    name = register_path("my_doko_bot")
    assert name == "highest_index"
    out = simulate(3000, seed=2, strategy="highest_index,random,highest_index,random",
                   out=tmp_path / "run", params={0: {"unused": 5}})
    df = scan(out).collect()
    assert df.height == 3000
    assert (df["strategy_0"] == "highest_index").all()
    manifest = read_manifest(out)
    assert manifest["params"][0] == {"unused": 5.0}
    # the strategy really played: seat 0 leads trick 1 when dealer is 3 (deal ids 3, 7, ...)
    again = simulate(40, seed=2, strategy="highest_index,random,highest_index,random", keep_play=True)
    first_cards = [json.loads(r)["play"][0] for r in again.filter(pl.col("dealer") == 3)["record"]]
    for rec, card in zip(again.filter(pl.col("dealer") == 3)["record"], first_cards):
        hand = json.loads(rec)["hands"][0].split()
        # highest physical index = the last card in C S H D, A..9 order held
        order = [r + s for s in "CSHD" for r in "ATKQJ9"]
        assert card == max(hand, key=order.index)


@pytest.mark.subprocess
def test_show_renders_a_dataset_deal_from_the_record_and_by_replay(tmp_path):
    kept = tmp_path / "kept"
    replayed = tmp_path / "replayed"
    simulate(300, seed=8, strategy="simple", out=kept, keep_play=True)
    simulate(300, seed=8, strategy="simple", out=replayed)
    outputs = []
    for d in (kept, replayed):
        proc = subprocess.run([sys.executable, "-m", "dokosim.cli", "show", str(d), "--deal-id", "123"],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
    row = scan(kept).filter(pl.col("deal_id") == 123).collect().row(0, named=True)
    assert f"seat 0: {row['score_0']:+d}" in outputs[0]
    assert f"contract: {row['contract']}" in outputs[0]
    bad = subprocess.run([sys.executable, "-m", "dokosim.cli", "show", str(kept), "--deal-id", "300"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "deals 0 to 299" in bad.stderr


def test_params_from_a_toml_file_reach_the_manifest(tmp_path):
    from click.testing import CliRunner

    from dokosim.cli import main as cli
    from dokosim.run.driver import read_manifest
    toml = tmp_path / "params.toml"
    toml.write_text('[random]\np_reserve = 0.25\n\n[2]\np_call = 0.5\n')
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, ["simulate", "--deals", "200", "--strategy", "random", "--quiet",
                                      "--param", str(toml), "--param", "0:p_call=0.125", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert [p["p_reserve"] for p in read_manifest(out)["params"]] == [0.25] * 4
    assert [p["p_call"] for p in read_manifest(out)["params"]] == [0.125, 0.0, 0.5, 0.0]
    bad = tmp_path / "bad.toml"
    bad.write_text('[random]\np_reserve = "lots"\n')
    result = CliRunner().invoke(cli, ["simulate", "--deals", "10", "--param", str(bad), "--out",
                                      str(tmp_path / "r2")])
    assert result.exit_code == 2 and "not a number" in result.output and "Traceback" not in result.output


def test_package_simulate_stays_the_function():
    """dokosim.simulate is the function on every access, also after its module was imported
    (a module-level __getattr__ handed out the module from the second call on)."""
    import importlib

    import dokosim
    first = dokosim.simulate
    importlib.import_module("dokosim.run.simulate")
    assert callable(first) and dokosim.simulate is first
    assert dokosim.simulate_sessions.__name__ == "simulate_sessions"
