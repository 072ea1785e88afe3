"""dokosim audit (docs/audit.md): each audited card's values against dokosim.solve on the record
cut before it, the best card losing nothing, the aggregation against a plain computation, and the
command's errors."""
from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from dokosim.dd.audit import audit_records, summarize
from dokosim.cli import main
from dokosim.run.simulate import simulate
from dokosim.dd.solve import Solver, solve
from dokosim.stats import mean_interval, ratio_interval, t_critical

TRICKS = 3  # positions with 3 tricks left solve in well under a millisecond


@pytest.fixture(scope="module")
def records():
    """Complete records: random play (its random reservations give solos), a forced marriage and
    a hearts solo, under simple."""
    recs = simulate(6, seed=11, strategy="random", keep_play=True)["record"].to_list()
    recs += simulate(2, seed=12, strategy="simple", keep_play=True, contract="marriage")["record"].to_list()
    recs += simulate(2, seed=13, strategy="simple", keep_play=True, contract="hearts_solo")["record"].to_list()
    return [json.loads(r) for r in recs]


@pytest.fixture(scope="module")
def audited(records):
    return audit_records(records, TRICKS)


def test_values_equal_solve_on_the_cut_record(records, audited):
    assert audited.height == len(records) * 4 * TRICKS
    solver = Solver()
    for row in audited.iter_rows(named=True):
        rec = records[row["deal_id"]]
        n = row["card"]
        cut = {**rec, "play": rec["play"][:n],
               "announcements": [a for a in rec.get("announcements", []) if a["cards_played"] <= n]}
        out = solve(cut, solver=solver)
        assert out["ok"], out
        assert out["to_move"] == row["seat"]
        assert row["best"] == out["eyes_re"], (row, out)
        assert row["played"] == out["card_values"][rec["play"][n]], (row, out)
        assert row["trick"] == n // 4 + 1
    # what the deals hold: some card lost eyes, both roles of a normal game and a soloist
    assert (audited["loss"] > 0).any()
    assert set(audited["role"]) == {"Re", "Kontra", "soloist"}


def test_losses_are_never_negative_and_are_the_gap(audited):
    assert (audited["loss"] >= 0).all()
    assert (audited["loss"] == (audited["best"] - audited["played"]).abs()).all()
    crossed = (audited["best"] >= 121) != (audited["played"] >= 121)
    assert (audited["swing"] == crossed.cast(pl.Int64)).all()


def test_the_best_card_loses_nothing(records):
    """Replay each deal's last tricks with a best card at every step (found by dokosim.solve):
    every audited card then loses 0, and Re's eyes stay the first position's value."""
    solver = Solver()
    best_lines = []
    for rec in records[:5]:
        first = len(rec["play"]) - 4 * TRICKS
        play = list(rec["play"][:first])
        base = {**rec, "announcements": [a for a in rec.get("announcements", []) if a["cards_played"] <= first]}
        while len(play) < len(rec["play"]):
            out = solve({**base, "play": play}, solver=solver)
            play.append(next(c for c, v in out["card_values"].items() if v == out["eyes_re"]))
        best_lines.append({**base, "play": play})
    cards = audit_records(best_lines, TRICKS)
    assert (cards["loss"] == 0).all()
    assert (cards["best"] == cards["played"]).all()
    for d, part in cards.group_by("deal_id"):
        assert part["best"].n_unique() == 1


def test_aggregation_equals_a_plain_computation():
    """A hand-made frame: two strategies, deals of 1-3 exact cards and some cards with bands only
    (trick 9, no eyes), two roles, bands not answered for some cards."""
    rng = np.random.default_rng(5)
    rows = []
    for deal in range(40):
        for strategy in ("a", "b"):
            for k in range(1 + deal % 3):
                rows.append({"deal_id": deal, "strategy": strategy, "trick": 11 + k % 2,
                             "role": "Re" if (deal + k) % 2 else "Kontra",
                             "loss": int(rng.integers(0, 12)) * (strategy == "b" or k == 0),
                             "swing": int(rng.integers(0, 4) == 0), "band_swing": int(rng.integers(0, 3) == 0)})
            if deal % 4 == 0:
                rows.append({"deal_id": deal, "strategy": strategy, "trick": 9, "role": "Re", "loss": None,
                             "swing": None, "band_swing": None if deal % 8 == 0 else int(rng.integers(0, 2))})
    frame = pl.DataFrame(rows)
    out = summarize(frame)
    for strategy in ("a", "b"):
        for by, column in (("all", None), ("trick", "trick"), ("role", "role")):
            mine = frame.filter(pl.col("strategy") == strategy)
            levels = ["all"] if column is None else sorted(set(mine[column]))
            for level in levels:
                group = mine if column is None else mine.filter(pl.col(column) == level)
                got = out.filter((pl.col("strategy") == strategy) & (pl.col("by") == by)
                                 & (pl.col("level") == str(level))).row(0, named=True)
                banded = group.filter(pl.col("band_swing").is_not_null())
                band_deals = sorted(set(banded["deal_id"]))
                assert got["band_cards"] == banded.height
                assert got["band_answered"] == pytest.approx(banded.height / group.height)
                if len(band_deals) >= 2:
                    bs = np.array([banded.filter(pl.col("deal_id") == d)["band_swing"].sum() for d in band_deals], float)
                    bc = np.array([banded.filter(pl.col("deal_id") == d).height for d in band_deals], float)
                    b = 1000 * bs.sum() / bc.sum()
                    b_half = t_critical(len(band_deals) - 1) * math.sqrt(
                        ((1000 * bs - b * bc) ** 2).sum() / (len(band_deals) * (len(band_deals) - 1))) / bc.mean()
                    assert got["band_swings_per_1000"] == pytest.approx(b)
                    assert got["band_swing_lo"] == pytest.approx(b - b_half)
                part = group.filter(pl.col("loss").is_not_null())
                if part.height == 0:
                    assert math.isnan(got["eyes_lost_per_card"]) and got["cards"] == 0
                    continue
                deals = sorted(set(part["deal_id"]))
                loss = np.array([part.filter(pl.col("deal_id") == d)["loss"].sum() for d in deals], float)
                count = np.array([part.filter(pl.col("deal_id") == d).height for d in deals], float)
                r = loss.sum() / count.sum()
                resid = loss - r * count
                se = math.sqrt((resid ** 2).sum() / (len(deals) * (len(deals) - 1))) / count.mean()
                half = t_critical(len(deals) - 1) * se
                assert got["deals"] == len(set(group["deal_id"])) and got["cards"] == part.height
                assert got["eyes_lost_per_card"] == pytest.approx(r)
                assert got["lo"] == pytest.approx(r - half) and got["hi"] == pytest.approx(r + half)
                assert got["error_share"] == pytest.approx(float((part["loss"] > 0).mean()))
                swings = np.array([part.filter(pl.col("deal_id") == d)["swing"].sum() for d in deals], float)
                w = 1000 * swings.sum() / count.sum()
                w_half = t_critical(len(deals) - 1) * math.sqrt(
                    ((1000 * swings - w * count) ** 2).sum() / (len(deals) * (len(deals) - 1))) / count.mean()
                assert got["swings_per_1000"] == pytest.approx(w)
                assert got["swing_lo"] == pytest.approx(w - w_half) and got["swing_hi"] == pytest.approx(w + w_half)
    assert out.height == 2 * (1 + 3 + 2)


def test_equal_cards_per_deal_give_the_t_interval_of_per_deal_means():
    rng = np.random.default_rng(9)
    loss = rng.integers(0, 40, size=50).astype(float)
    mean, lo, hi, deals, cards = ratio_interval(loss, np.full(50, 4))
    plain = mean_interval(loss / 4)
    assert (deals, cards) == (50, 200)
    assert mean == pytest.approx(plain.mean) and lo == pytest.approx(plain.lo) and hi == pytest.approx(plain.hi)


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    root = tmp_path_factory.mktemp("audit")
    simulate(12, seed=3, strategy="simple,random,simple,random", keep_play=True, out=str(root / "kept"))
    simulate(12, seed=3, strategy="simple", out=str(root / "plain"))
    (root / "empty").mkdir()
    return root


def _error(result):
    lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert result.exit_code == 2, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert len(lines) == 1, result.output
    return lines[0]


@pytest.mark.parametrize("argv, names", [
    (["{root}/empty"], "is not a dokosim dataset"),
    (["{root}/missing"], "is not a directory"),
    (["{root}/plain"], "--keep-play"),
    (["{root}/kept", "--tricks", "0"], "--tricks"),
    (["{root}/kept", "--tricks", "13"], "--tricks"),
    (["{root}/kept", "--out", "{root}/kept.dokosim/manifest.json"], "manifest.json"),
    (["{root}/kept", "--out", "{root}/kept"], "new or empty"),
])
def test_cli_errors(datasets, argv, names):
    result = CliRunner().invoke(main, ["audit", *[a.format(root=datasets) for a in argv]])
    assert names in _error(result)


def test_cli_audits_a_mixed_dataset(datasets):
    result = CliRunner().invoke(main, ["audit", str(datasets / "kept"), "--tricks", "2", "--json",
                                       "--out", str(datasets / "report")])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["deals"] == 12 and out["cards"] == 12 * 8 and out["solves"] == 12 * 9
    overall = {r["strategy"]: r for r in out["summary"] if r["by"] == "all"}
    assert set(overall) == {"simple", "random"}
    assert all(r["cards"] == 12 * 4 for r in overall.values())
    cards = pl.read_parquet(datasets / "report" / "cards.parquet")
    assert cards.height == 12 * 8 and set(cards["trick"]) == {11, 12}
    # seats 0 and 2 played simple, 1 and 3 random
    assert set(cards.filter(pl.col("strategy") == "simple")["seat"]) == {0, 2}
    assert (datasets / "report" / "summary.md").read_text().count("| simple |") == 1 + 2 + len(
        set(cards.filter(pl.col("strategy") == "simple")["role"]))


def test_duplicate_ranking_orders_pairs_not_played_through_others():
    from dokosim.studies.play_errors import duplicate_ranking
    diffs = [-2.0, -3.0, -1.8, -2.0, -0.5]
    pairs = pl.DataFrame({"a": ["random", "random", "simple", "simple", "heuristic"],
                          "b": ["simple", "heuristic", "heuristic", "pimc", "pimc"],
                          "diff_a_minus_b": diffs, "diff_lo": [d - 0.1 for d in diffs],
                          "diff_hi": [d + 0.1 for d in diffs]})
    names = ["random", "simple", "heuristic", "pimc"]
    assert duplicate_ranking(pairs, names) == ["pimc", "heuristic", "simple", "random"]
    # pimc against heuristic missing: pimc and heuristic are not ordered
    assert duplicate_ranking(pairs.filter(~((pl.col("a") == "heuristic") & (pl.col("b") == "pimc"))), names) is None
    # a cycle (random beats pimc, which beats heuristic, which beats random) is no ranking
    cycle = pairs.vstack(pl.DataFrame({"a": ["random"], "b": ["pimc"], "diff_a_minus_b": [0.1],
                                       "diff_lo": [0.05], "diff_hi": [0.15]}))
    assert duplicate_ranking(cycle, names) is None
    # a difference whose interval covers 0 orders nothing: heuristic and pimc are then unordered
    unsure = pairs.with_columns(pl.when(pl.col("b") == "pimc").then(pl.lit(0.3)).otherwise(pl.col("diff_hi"))
                                .alias("diff_hi"))
    assert duplicate_ranking(unsure, names) is None


def test_the_study_writes_its_table_and_chart(tmp_path, monkeypatch):
    from dokosim.studies import play_errors
    monkeypatch.setenv("DOKOSIM_STUDY_DATA", str(tmp_path / "data"))
    (tmp_path / "strategies").mkdir()
    pl.DataFrame({"a": ["random"], "b": ["simple"], "deals": [10], "diff_a_minus_b": [-2.0], "diff_lo": [-2.1],
                  "diff_hi": [-1.9]}).write_csv(
        tmp_path / "strategies" / "pairs.csv")
    res = play_errors.run(deals=8, seed=4, quiet=True, results=tmp_path, candidates=("random", "simple"), tricks=2)
    table = pl.read_csv(tmp_path / "strategies" / "play_errors.csv")
    assert table.filter(pl.col("by") == "all")["strategy"].to_list() == ["random", "simple"]
    assert table.filter(pl.col("by") == "trick")["level"].cast(pl.Int64).unique().sort().to_list() == [11, 12]
    assert (table.filter(pl.col("by") == "all")["cards"] == 8 * 8).all()
    text = (tmp_path / "strategies" / "play_errors.md").read_text()
    assert "Only the cards of the last 2 tricks" in text and "Duplicate ranking (pairs.md, best first): simple > random" in text
    assert (tmp_path / "strategies" / "play_errors.png").stat().st_size > 0
    assert res["comparison"] in text
