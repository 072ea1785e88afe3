"""``dokosim study swings`` and ``dokosim study par_normal`` (issue 34): what they write is what
the audit and ``value_deals`` find on the same deals."""
import polars as pl
import pytest

from dokosim.dd.deal_solves import value_deals
from dokosim.solver.eyes import SEARCH_VERSION
from dokosim.studies import par_normal, swings

pytestmark = pytest.mark.e2e  # end to end


def test_par_normal_counts_what_value_deals_finds(tmp_path, monkeypatch):
    monkeypatch.setenv("DOKOSIM_STUDY_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(par_normal, "CHUNK", 3)  # two chunks through the worker pool
    out = par_normal.run(deals=6, seed=2, results=tmp_path, quiet=True, jobs=1, node_limit=2_000_000)
    table = pl.read_csv(tmp_path / "par" / "normal.csv")
    assert (tmp_path / "par" / "normal.png").stat().st_size > 0
    rows = value_deals(6, 2, node_limit=2_000_000)
    assert rows.drop("ms").equals(par_normal.solve_all(6, 2, 1, True, 2_000_000).drop("ms"))
    answered = rows.filter(pl.col("answered"))
    assert table["deals"].sum() == answered.height
    for r in table.iter_rows(named=True):
        assert r["deals"] == (answered["band"] == r["band"]).sum()
    w = out["wins"]
    assert w["re_wins"] == (rows["eyes_lo"] >= 121).sum()
    assert w["decided_121"] == w["re_wins"] + (rows["eyes_hi"] <= 120).sum()
    assert w["bracket_lo"] <= w["bracket_hi"]
    assert "Answered" in (tmp_path / "par" / "normal.md").read_text()


def test_swings_audits_every_trick(tmp_path, monkeypatch):
    monkeypatch.setenv("DOKOSIM_STUDY_DATA", str(tmp_path / "data"))
    swings.run(deals=3, seed=1, results=tmp_path, quiet=True, candidates=("random", "simple"), node_limit=100_000,
               jobs=1)
    table = pl.read_csv(tmp_path / "strategies" / "swings.csv")
    assert (tmp_path / "strategies" / "swings.png").stat().st_size > 0
    for name in ("random", "simple"):
        tricks = table.filter((pl.col("strategy") == name) & (pl.col("by") == "trick")).with_columns(
            pl.col("level").cast(pl.Int64))
        assert tricks["level"].to_list() == list(range(1, 13))
        late = tricks.filter(pl.col("level") >= 7)
        assert (late["band_answered"] == 1.0).all() and (late["band_cards"] == 12).all()
        assert tricks["band_cards"].sum() <= 3 * 48
    first = (tmp_path / "data" / f"swings_random_s1_n3_audit12_100000_s{SEARCH_VERSION}" / "done.json").stat().st_mtime_ns
    swings.run(deals=3, seed=1, results=tmp_path, quiet=True, candidates=("random", "simple"), node_limit=100_000,
               jobs=1)  # the audits written before are read back, not run again
    assert (tmp_path / "data" / f"swings_random_s1_n3_audit12_100000_s{SEARCH_VERSION}" / "done.json").stat().st_mtime_ns == first
    assert pl.read_csv(tmp_path / "strategies" / "swings.csv").equals(table)
