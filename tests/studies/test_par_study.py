"""``dokosim study par``: the counts it writes are those of solve_deals on the same deals, and an
interrupted run, run again, loses at most one chunk of work."""
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from dokosim.dd.deal_solves import solve_deals
from dokosim.studies import par

pytestmark = pytest.mark.e2e  # end to end


def test_the_par_table_counts_what_solve_deals_finds(tmp_path, monkeypatch):
    monkeypatch.setenv("DOKOSIM_STUDY_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(par, "CHUNK", 4)  # two chunks through the worker pool
    par.run(deals=8, seed=5, results=tmp_path, quiet=True, jobs=1)
    table = pl.read_csv(tmp_path / "par" / "par.csv")
    assert (tmp_path / "par" / "par.png").stat().st_size > 0
    from dokosim.dd.deal_solves import CONTRACTS
    solos = solve_deals(8, 5, node_limit=par.SOLO_NODE_LIMIT, contracts=[k for k in CONTRACTS if k != "normal"])
    normal = solve_deals(8, 5, node_limit=par.NORMAL_NODE_LIMIT, contracts=["normal"])
    for row in table.iter_rows(named=True):
        k = row["contract"]
        if k == "any solo":
            cols = [c for c in solos.columns if c.startswith("re_wins_") and c != "re_wins_normal"]
            col = solos.select(pl.any_horizontal(cols))[:, 0]
        else:
            col = (normal if k == "normal" else solos)[f"re_wins_{k}"]
        assert row["answered"] == col.is_not_null().sum() and row["re_wins"] == (col.sum() or 0), k
        assert row["lo_pct"] <= row["win_pct"] <= row["hi_pct"] or row["answered"] == 0


def test_an_interrupted_par_run_resumes_and_loses_at_most_one_chunk(tmp_path, monkeypatch):
    """Ctrl-C while the second of three chunks is written: the first stays in the run's ledger;
    the rerun solves only the two others and gives the rows of an uninterrupted run."""
    from dokosim.run import driver
    monkeypatch.setattr(par, "CHUNK", 2)
    whole = par.solve_all(6, 3, 1, True, directory=tmp_path / "whole")
    real, solved = driver.ChunkStore.write, []

    def write(store, chunk, frame):
        solved.append(chunk.index)
        if len(solved) == 2:
            raise KeyboardInterrupt
        return real(store, chunk, frame)

    monkeypatch.setattr(driver.ChunkStore, "write", write)
    with pytest.raises(KeyboardInterrupt):
        par.solve_all(6, 3, 1, True, directory=tmp_path / "cut")
    assert solved == [0, 1]
    solved.clear()
    monkeypatch.setattr(driver.ChunkStore, "write", lambda store, chunk, frame: (solved.append(chunk.index),
                                                                                  real(store, chunk, frame)))
    again = par.solve_all(6, 3, 1, True, directory=tmp_path / "cut")
    assert solved == [1, 2]  # the first chunk's work was kept
    assert_frame_equal(again, whole)
