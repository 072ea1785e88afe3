"""Duplicate tournaments: seatings, statistics against hand computations, coverage, the CLI."""
import json
import math

import polars as pl
import pytest
from click.testing import CliRunner

from dokosim.cli.tournament import tournament as tournament_cmd
from dokosim.run.tournament import (
    TournamentError, labels, per_deal_means, seating_means, seatings, summarize, table, tournament,
)
from dokosim.stats import mean_interval, t_critical


def run_cli(*args):
    return CliRunner().invoke(tournament_cmd, [str(a) for a in args])


# ---------------------------------------------------------------------------- seatings and names

def test_two_strategies_sit_in_the_six_pairs_of_seats():
    plan = seatings(2)
    assert len(plan) == 6
    assert {tuple(s for s in range(4) if seating[s] == 0) for seating in plan} == {
        (0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)}
    assert all(sorted(seating) == [0, 0, 1, 1] for seating in plan)


def test_four_strategies_sit_in_every_order_at_the_table():
    plan = seatings(4)
    assert len(plan) == 24 and len(set(plan)) == 24 and all(sorted(s) == [0, 1, 2, 3] for s in plan)
    for seat in range(4):  # every strategy sits 6 times at every seat
        assert sorted(seating[seat] for seating in plan) == [k for k in range(4) for _ in range(6)]
    behind = [(seating[s], seating[(s + 1) % 4]) for seating in plan for s in range(4)]
    assert all(behind.count((a, b)) == 8 for a in range(4) for b in range(4) if a != b)  # each neighbour


def test_two_copies_of_one_strategy_get_equal_results_on_every_deal():
    """Seat bias: with the four rotations of one order, heuristic#1 - heuristic#2 beside two
    simple differed beyond its interval (as issue 30 reported). Every order is symmetric under swapping
    the copies, so the difference is 0 on every one of 20,000 deals, not only on average."""
    result = tournament(["heuristic", "heuristic", "simple", "simple"], 20_000, seed=1)
    per_deal = result.per_deal
    assert (per_deal["heuristic#1"] == per_deal["heuristic#2"]).all()
    assert (per_deal["simple#1"] == per_deal["simple#2"]).all()
    diff = result.diff["heuristic#1-heuristic#2"]
    assert diff.lo <= 0 <= diff.hi
    assert result.diff["heuristic#1-simple#1"].lo > 0  # and the design still tells strategies apart


def test_a_name_given_twice_is_reported_as_name_1_and_name_2():
    assert labels(["simple", "simple"]) == ["simple#1", "simple#2"]
    assert labels(["simple", "random", "simple", "x"]) == ["simple#1", "random", "simple#2", "x"]
    assert labels(["a", "b"]) == ["a", "b"]


@pytest.mark.parametrize("n", [0, 1, 3, 5])
def test_other_strategy_counts_are_refused(n):
    with pytest.raises(TournamentError, match="2 or 4 strategies"):
        seatings(n)


# ---------------------------------------------------------------------------- statistics by hand

def hand_games():
    """4 deals x the 6 seatings of A, B; strategy A at the seats where seatings(2) says 0.

    deal 0: every seating: A's seats +1 each, B's -1         -> A's seat mean 1 in each seating
    deal 1: seating 0: A +3, +3, B -3, -3; seatings 1-5: all 0 -> 3, 0, 0, 0, 0, 0
    deal 2: all scores 0                                       -> 0 everywhere
    deal 3: seatings 0-2: A +3, +1, B -2, -2 (A's mean 2); seatings 3-5: A +3, +3, B -3, -3 (3)
    """
    rows = []
    for index, seating in enumerate(seatings(2)):
        for deal in range(4):
            if deal == 0:
                a, b = [1, 1], [-1, -1]
            elif deal == 1:
                a, b = ([3, 3], [-3, -3]) if index == 0 else ([0, 0], [0, 0])
            elif deal == 2:
                a, b = [0, 0], [0, 0]
            else:
                a, b = ([3, 1], [-2, -2]) if index < 3 else ([3, 3], [-3, -3])
            a, b = iter(a), iter(b)
            scores = [next(a) if k == 0 else next(b) for k in seating]
            rows.append({"deal_id": deal, "seating": index,
                         **{f"strategy_{s}": "AB"[k] for s, k in enumerate(seating)},
                         **{f"score_{s}": scores[s] for s in range(4)}})
    return pl.DataFrame(rows).sample(fraction=1.0, shuffle=True, seed=1)  # order must not matter


def test_statistics_on_a_hand_computed_table():
    per_deal = per_deal_means(hand_games(), ["A", "B"])
    # per deal, the mean over the 6 seatings of A's seat mean:
    #   deal 0: (1*6)/6 = 1;  deal 1: 3/6 = 0.5;  deal 2: 0;  deal 3: (2+2+2+3+3+3)/6 = 2.5
    # B is the negative (scores sum to zero), so A-B per deal = 2, 1, 0, 5.
    assert per_deal["deal_id"].to_list() == [0, 1, 2, 3]
    assert per_deal["A"].to_list() == [1.0, 0.5, 0.0, 2.5]
    assert per_deal["B"].to_list() == [-1.0, -0.5, 0.0, -2.5]
    means, diffs = summarize(per_deal, ["A", "B"])
    # A: mean (1 + 0.5 + 0 + 2.5)/4 = 1; deviations 0, -0.5, -1, 1.5; sum of squares 3.5;
    #    s^2 = 3.5/3 = 1.16667; standard error sqrt(1.16667/4) = 0.540062;
    #    t(0.975, 3 df) = 3.182446; half width 3.182446 * 0.540062 = 1.718717
    #    -> 95% interval [-0.718717, 2.718717]
    assert means["A"].mean == pytest.approx(1.0)
    assert (means["A"].lo, means["A"].hi) == pytest.approx((-0.718717, 2.718717), abs=1e-6)
    assert (means["B"].lo, means["B"].hi) == pytest.approx((-2.718717, 0.718717), abs=1e-6)
    # A-B: 2, 1, 0, 5: mean 2, twice A's values -> half width 3.437435, interval [-1.437435, 5.437435]
    assert list(diffs) == ["A-B"]
    assert diffs["A-B"].mean == pytest.approx(2.0)
    assert (diffs["A-B"].lo, diffs["A-B"].hi) == pytest.approx((-1.437435, 5.437435), abs=1e-6)


def test_seating_means_of_four_strategies_are_their_seats():
    # the seating (1, 2, 3, 0) puts strategies 1, 2, 3, 0 at seats 0-3
    out = seating_means([[4, -2, 0, -2]], (1, 2, 3, 0), 4)
    assert out.tolist() == [[-2.0, 4.0, -2.0, 0.0]]


def test_t_critical_values_and_degenerate_intervals():
    # tables: t(0.975; 1) 12.7062, (4) 2.7764, (30) 2.0423, (100) 1.9840; normal 1.9600
    assert t_critical(1) == pytest.approx(12.70620, abs=1e-5)
    assert t_critical(4) == pytest.approx(2.776445, abs=1e-6)
    assert t_critical(30) == pytest.approx(2.042272, abs=1e-6)
    assert t_critical(100) == pytest.approx(1.983972, abs=1e-6)
    assert t_critical(10**6) == pytest.approx(1.959966, abs=1e-6)
    assert t_critical(1000) == pytest.approx(t_critical(1001), abs=1e-5)  # the two methods meet
    one = mean_interval([3.0])
    assert one.mean == 3.0 and math.isnan(one.lo)
    flat = mean_interval([2.0, 2.0, 2.0])
    assert (flat.lo, flat.hi) == (2.0, 2.0)


# ---------------------------------------------------------------------------- simulated tournaments

def test_the_difference_interval_covers_zero_95_percent_of_the_time():
    # random against itself plays identical games in every seating (one random stream per deal),
    # so the difference would be exactly 0. With p_call=1e-300, random#2 draws one more random
    # number at each call offer (and calls with probability ~0): the same strategy, other games.
    seeds = 200
    covered = 0
    for seed in range(seeds):
        result = tournament(["random", "random"], 200, seed=seed, params={"random#2": {"p_call": 1e-300}})
        diff = result.diff["random#1-random#2"]
        assert diff.hi > diff.lo  # the games differ
        covered += diff.covers(0.0)
    assert 0.90 * seeds <= covered <= 0.99 * seeds


def test_a_strategy_against_itself_differs_by_exactly_zero():
    result = tournament(["simple", "simple"], 300, seed=5)
    assert result.strategies == ["simple#1", "simple#2"]
    d = result.diff["simple#1-simple#2"]
    assert (d.mean, d.lo, d.hi) == (0.0, 0.0, 0.0)


def test_simple_beats_random():
    result = tournament(["simple", "random"], 3000, seed=2)
    diff = result.diff["simple-random"]
    assert diff.lo > 0
    # two seats each and zero-sum scores: the means are opposite, the difference twice simple's mean
    assert result.mean["simple"].mean == pytest.approx(-result.mean["random"].mean)
    assert diff.mean == pytest.approx(2 * result.mean["simple"].mean)


def test_seatings_play_the_same_cards_and_the_dataset_matches_the_table(tmp_path):
    out = tmp_path / "t"
    result = tournament(["simple", "random", "random", "simple"], 400, seed=9, out=out,
                        params={"random#2": {"p_call": 0.2}})
    assert result.strategies == ["simple#1", "random#1", "random#2", "simple#2"]
    assert len(result.diff) == 6
    games = pl.read_parquet(out / "part-*.parquet")
    assert games.height == 400 * 24
    assert games.columns[:2] == ["deal_id", "seating"]
    hands = games.group_by("deal_id").agg(pl.col("hand_0").n_unique(), pl.col("hand_3").n_unique())
    assert (hands["hand_0"] == 1).all() and (hands["hand_3"] == 1).all()
    assert per_deal_means(games, result.strategies).equals(result.per_deal)
    from dokosim.run.driver import meta_dir
    info = json.loads((meta_dir(out) / "tournament.json").read_text())
    assert info["seating_strategies"][1] == ["simple#1", "random#1", "simple#2", "random#2"]  # (0, 1, 3, 2)


def test_seat_parameters_are_refused():
    with pytest.raises(TournamentError, match="valid here: \\*, simple, random"):
        tournament(["simple", "random"], 10, params={0: {"p_call": 0.5}})


# ---------------------------------------------------------------------------- the command

def test_three_strategies_are_refused_in_one_line():
    result = run_cli("simple", "random", "simple", "--deals", 10)
    assert result.exit_code == 2
    error = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert error == ["Error: give 2 or 4 strategies, got 3: simple random simple"]


def test_json_output_shape():
    result = run_cli("simple", "random", "--deals", 500, "--seed", 3, "--json")
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)  # exactly one JSON object
    assert info["deals"] == 500 and info["strategies"] == ["simple", "random"]
    assert set(info["mean"]) == set(info["ci95"]) == {"simple", "random"}
    lo, hi = info["ci95"]["simple"]
    assert lo < info["mean"]["simple"] < hi
    assert list(info["diff"]) == ["simple-random"]
    assert set(info["diff"]["simple-random"]) == {"mean", "ci95"}


def test_json_names_every_pair_of_four_strategies():
    result = run_cli("simple", "simple", "random", "random", "--deals", 50, "--json")
    info = json.loads(result.stdout)
    assert info["strategies"] == ["simple#1", "simple#2", "random#1", "random#2"]
    assert list(info["diff"]) == ["simple#1-simple#2", "simple#1-random#1", "simple#1-random#2",
                                  "simple#2-random#1", "simple#2-random#2", "random#1-random#2"]


def test_table_out_and_chart(tmp_path):
    out, png = tmp_path / "ds", tmp_path / "means.png"
    result = run_cli("simple", "random", "--deals", 300, "--out", out, "--chart", png)
    assert result.exit_code == 0, result.output
    assert "simple-random" in result.stdout and "95% interval" in result.stdout
    games = pl.read_parquet(out / "part-*.parquet")
    assert games.height == 300 * 6
    assert sorted(games["seating"].unique().to_list()) == list(range(6))
    assert {"score_0", "strategy_3", "contract", "winner"} <= set(games.columns)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = run_cli("simple", "random", "--deals", 300, "--out", out)  # resumed: every seating read back
    assert again.exit_code == 0, again.output
    same = [line for line in result.stdout.splitlines() if "simple-random" in line]
    assert same and same == [line for line in again.stdout.splitlines() if "simple-random" in line]
    other = run_cli("simple", "random", "--deals", 300, "--seed", 9, "--out", out)
    assert other.exit_code == 2 and "holds a run made with seed=" in other.output


def test_the_breakdown_by_contract_matches_a_plain_count(tmp_path):
    """by_contract against a plain loop over the tournament's own games (its --out dataset): each
    group's deals and games, and every difference's mean and interval over per-deal means; the
    groups hold every game once; the text and JSON outputs carry the breakdown."""
    from collections import defaultdict

    from dokosim.run.tournament import CONTRACT_GROUPS, tournament
    names = ["heuristic", "simple", "random", "net"]
    result = tournament(names, 60, seed=8, out=tmp_path / "t")
    games = pl.read_parquet(tmp_path / "t" / "*.parquet")
    assert sum(e["games"] for e in result.by_contract.values()) == games.height == 60 * 24
    per_deal = defaultdict(lambda: defaultdict(list))  # group -> deal -> [per-game value of each name]
    for row in games.iter_rows(named=True):
        value = {n: sum(row[f"score_{s}"] for s in range(4) if row[f"strategy_{s}"] == n) for n in names}
        per_deal[CONTRACT_GROUPS[row["contract"]]][row["deal_id"]].append(value)
    assert set(per_deal) == set(result.by_contract)
    for group, deals in per_deal.items():
        entry = result.by_contract[group]
        assert entry["deals"] == len(deals) and entry["games"] == sum(len(v) for v in deals.values())
        for a, b in (("heuristic", "net"), ("simple", "random")):
            diffs = [sum(g[a] - g[b] for g in gs) / len(gs) for gs in deals.values()]
            want = mean_interval(diffs)
            got = entry["diff"][f"{a}-{b}"]
            assert math.isclose(got.mean, want.mean, abs_tol=1e-9)
            assert (math.isnan(got.lo) and math.isnan(want.lo)) or math.isclose(got.lo, want.lo, abs_tol=1e-9)
    out = json.loads(result.to_json())["by_contract"]
    assert set(out) == set(result.by_contract) and all("heuristic-net" in e["diff"] for e in out.values())
    text = table(result)
    assert "by contract" in text and all(f"\n{g:20} " in text for g in result.by_contract)
