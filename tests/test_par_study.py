"""``dokosim study par``: the counts it writes are those of solve_deals on the same deals."""
import polars as pl

from dokosim.dd.solve_deals import solve_deals
from dokosim.studies import par


def test_the_par_table_counts_what_solve_deals_finds(tmp_path, monkeypatch):
    monkeypatch.setattr(par, "CHUNK", 4)  # two chunks through the worker pool
    par.run(deals=8, seed=5, results=tmp_path, quiet=True, jobs=1)
    table = pl.read_csv(tmp_path / "par" / "par.csv")
    assert (tmp_path / "par" / "par.png").stat().st_size > 0
    from dokosim.dd.solve_deals import CONTRACTS
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
