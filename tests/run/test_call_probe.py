"""Call probes (dokosim.probe_calls, dokosim probe-calls): a position played on with and without
a call, from the same random stream."""
import json

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from dokosim.run.call_probe import parse_level, probe_calls
from dokosim.cli import main
from dokosim.run.simulate import SimulationError, simulate

NO_CALLS = {"*": {"p_call": 0.0}}  # random players that never call: card play ignores the calls


@pytest.fixture(scope="module")
def silent_probes():
    """Probes of every level with random card play and no other calls."""
    return {level: probe_calls(4000, level, seed=5, strategy="random", params=NO_CALLS)
            for level in range(1, 6)}


def test_without_branch_is_the_simulators_deal(silent_probes):
    """Without the call (Re/Kontra: nobody calls), a probe is the deal simulate plays from
    (seed, deal_id): the prefix and the rest come from the same stream."""
    probes = silent_probes[1]
    plain = simulate(4000, seed=5, strategy="random", params=NO_CALLS)
    assert probes.height > 1000
    joined = probes.join(plain, on="deal_id")
    assert joined.height == probes.height
    assert (joined["contract"] == "normal").all()
    seat_score = np.choose(joined["seat"].to_numpy(),
                           [joined[f"score_{s}"].to_numpy() for s in range(4)])
    assert (joined["score_without"].to_numpy() == seat_score).all()
    side_eyes = np.where(joined["side"] == 0, joined["eyes_re"], 240 - joined["eyes_re"])
    assert (joined["eyes_side_without"].to_numpy() == side_eyes).all()


@pytest.mark.parametrize("level", range(1, 6))
def test_branches_share_the_card_play(silent_probes, level):
    """With random card play that ignores calls, both branches take the same tricks."""
    p = silent_probes[level]
    assert p.height > 200, level
    assert (p["eyes_side_with"] == p["eyes_side_without"]).all()
    same = p["success_with"] == p["success_without"]
    if level == 1:  # only Kontra's call at 120:120 turns the game (1.6)
        same = same | ((p["side"] == 1) & (p["eyes_side_with"] == 120))
    assert same.all()
    assert (p["level"] == level).all()
    assert (p["level_opp"] == 0).all() and (p["level_opp_with"] == 0).all()
    assert (p["level_own"] < level).all()


def test_re_kontra_call_moves_the_score_by_two(silent_probes):
    """Re/Kontra adds 2 to the game value (RULES.md 1.7 item 3) and, said by Kontra alone, lets
    Re win with 120 (1.6): so the caller's score moves by exactly 2 unless Kontra's call at
    120:120 turns the game."""
    p = silent_probes[1]
    gain = (p["score_with"] - p["score_without"]).to_numpy()
    win = p["win_with"].to_numpy() == 1
    tie_turned = (p["side"] == 1).to_numpy() & (p["eyes_side_with"] == 120).to_numpy()
    assert (gain[~tie_turned & win] == 2).all()
    assert (gain[~tie_turned & ~win] == -2).all()
    assert tie_turned.sum() > 0
    assert (p.filter(pl.Series(tie_turned))["win_without"] == 1).all()
    assert (p.filter(pl.Series(tie_turned))["win_with"] == 0).all()


@pytest.mark.parametrize("level", range(2, 6))
def test_denial_made_good_adds_one_else_loses(silent_probes, level):
    """A denial made good adds one level (1.7 item 4); one missed loses the game (1.6)."""
    p = silent_probes[level]
    made = p["success_with"].to_numpy() == 1
    gain = (p["score_with"] - p["score_without"]).to_numpy()
    assert (gain[made] == 1).all()
    assert (p["win_with"].to_numpy() == p["success_with"].to_numpy()).all()
    assert (~made).sum() > 0


def test_probe_moments_and_what_the_caller_sees(silent_probes):
    for level, p in silent_probes.items():
        # nobody calls in this fixture: every probe is a first call, made in time
        assert (p["cards_held"] >= 12 - level).all()
        assert (p["trumps"] <= p["cards_held"]).all() and (p["top_trumps"] <= p["trumps"]).all()
        # the moments are spread over the window
        assert p["cards_played"].n_unique() >= min(4 * level + 4, 8)


def test_reproducible_across_threads_and_chunks():
    a = probe_calls(3000, "no90", seed=2, strategy="simple", threads=1)
    b = probe_calls(3000, "no90", seed=2, strategy="simple", threads=2, chunk_size=700)
    assert a.height > 0 and a.equals(b)


def test_heuristic_probes_every_level():
    for level in range(1, 6):
        p = probe_calls(2000, level, seed=3, strategy="heuristic")
        assert p.height > 100, level
        if level == 1:  # answers to the other side's call are probed too, up to card 11
            assert (p["level_opp"] >= 1).sum() > 10 and p["cards_played"].max() > 7


def test_bad_level():
    for bad in (0, 6, "kontra2", True, 1.5):
        with pytest.raises(SimulationError, match="call level"):
            parse_level(bad)
    assert parse_level("Schwarz") == 5 and parse_level(3) == 3


def test_cli(tmp_path):
    r = CliRunner().invoke(main, ["probe-calls", "--level", "no60", "--deals", "2000", "--seed", "1",
                                  "--strategy", "simple", "--json"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.output)
    assert info["level"] == "no60" and info["probes"] > 0 and len(info["mean_gain_ci95"]) == 2
    out = tmp_path / "p.parquet"
    r = CliRunner().invoke(main, ["probe-calls", "--deals", "1000", "--strategy", "simple", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert pl.read_parquet(out).height > 0
    r = CliRunner().invoke(main, ["probe-calls", "--level", "no100"])
    assert r.exit_code == 2 and "no100" in r.output and "schwarz" in r.output
