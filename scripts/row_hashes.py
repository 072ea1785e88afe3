"""Hashes of the rows that fixed runs give: the check that a change to the kernels or their
dispatch leaves every row as it was (issue 12's "same seed, same rows").

    python scripts/row_hashes.py > before.txt   # on the old code
    python scripts/row_hashes.py > after.txt    # on the new code
    diff before.txt after.txt                   # no output: the same rows

Each line is ``name sha256`` of the frame's Arrow IPC bytes (column names, types and values).
Not a test: the runs are larger than the suite's, and pimc's take a while.

    python scripts/row_hashes.py --parquet > before.txt   # the same through the datasets written

``--parquet``: the runs that can write a dataset (simulate, sessions) write one (``out=``, small
chunks, through the run driver and its writer thread) and are read back (``dataset.scan``, in
chunk order, one chunk): the check that the write path keeps every value and type. Its hashes
are those of the read-back frames, not the in-memory ones (their chunking differs).
"""
import hashlib
import io
import sys
import time

import dokosim


def digest(frame) -> str:
    """sha256 of a frame's Arrow IPC bytes."""
    buf = io.BytesIO()
    frame.write_ipc(buf, compression="uncompressed")
    return hashlib.sha256(buf.getvalue()).hexdigest()


RUNS = {
    "random_ddv": lambda: dokosim.simulate(200_000, seed=1, strategy="random"),
    "random_calls": lambda: dokosim.simulate(50_000, seed=2, strategy="random",
                                             params={"*": {"p_call": 0.3, "p_reserve": 0.2}}),
    "simple_club": lambda: dokosim.simulate(100_000, seed=3, rules="club", strategy="simple"),
    "heuristic_ddv": lambda: dokosim.simulate(50_000, seed=4, strategy="heuristic"),
    "mixed_seats": lambda: dokosim.simulate(30_000, seed=5, strategy="heuristic,simple,random,simple"),
    "forced_queens_solo": lambda: dokosim.simulate(30_000, seed=6, strategy="heuristic",
                                                   contract="queens_solo", declarer=2),
    "fixed_hand": lambda: dokosim.simulate(20_000, seed=7, strategy="heuristic",
                                           fixed_hand=(1, "QC QC TH TH QS JC JS AD AD TD KD 9D")),
    "keep_play": lambda: dokosim.simulate(5_000, seed=8, strategy="simple,heuristic,simple,heuristic",
                                          keep_play=True),
    "pimc_mixed": lambda: dokosim.simulate(200, seed=9, strategy="pimc,heuristic,pimc,heuristic"),
    "sessions_club": lambda: dokosim.simulate_sessions(100, seed=10, rules="club", strategy="heuristic"),
    "sessions_five_bock": lambda: dokosim.simulate_sessions(
        50, seed=11, rules={"preset": "ddv", "five_players": True, "bock": ["tie"]}, strategy="simple"),
    "sessions_five_mixed_no_calls": lambda: dokosim.simulate_sessions(
        30, seed=14, rules={"preset": "club", "five_players": True},
        strategy="heuristic,simple,random,simple,heuristic", calls=False),
    "probe_re": lambda: dokosim.probe_calls(20_000, level="re", seed=12, strategy="heuristic"),
    "probe_no90": lambda: dokosim.probe_calls(20_000, level="no90", seed=13, strategy="simple"),
    "net_club": lambda: dokosim.simulate(20_000, seed=15, rules="club", strategy="net"),
    "pimc_solver_mixed": lambda: dokosim.simulate(40, seed=16, strategy="pimc_solver,heuristic,net,heuristic"),
    "solve_deals": lambda: _solver_rows(),
}


def _solver_rows():
    """The solver's rows: solve --deals (exact eyes, every contract) and value --deals (bands),
    without the one column that is not a function of (seed, deal_id) (``ms``)."""
    from dokosim.dd.deal_solves import solve_deals
    from dokosim.dd.deal_solves import value_deals
    import polars as pl
    solved = solve_deals(30, seed=17, exact=True, node_limit=2_000_000)
    valued = value_deals(20, seed=18, node_limit=2_000_000).drop("ms")
    return pl.concat([solved.select(pl.all().cast(pl.Utf8)).unpivot(index=[]),
                      valued.select(pl.all().cast(pl.Utf8)).unpivot(index=[])])


def main(names):
    """Print ``name hash`` for the runs named (all without names), the time of each on stderr."""
    for name in names or RUNS:
        t = time.perf_counter()
        h = digest(RUNS[name]())
        print(f"{name} {h}", flush=True)
        print(f"{name}: {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)


PARQUET_RUNS = {
    "random_ddv": lambda out: dokosim.simulate(200_000, seed=1, strategy="random", out=out, chunk_size=30_000),
    "random_normal_no_calls": lambda out: dokosim.simulate(300_000, seed=1, strategy="random", contract="normal",
                                                           calls=False, out=out, chunk_size=70_000, threads=1),
    "simple_club": lambda out: dokosim.simulate(100_000, seed=3, rules="club", strategy="simple", out=out,
                                                chunk_size=25_000),
    "heuristic_ddv": lambda out: dokosim.simulate(50_000, seed=4, strategy="heuristic", out=out, chunk_size=20_000),
    "fixed_hand": lambda out: dokosim.simulate(20_000, seed=7, strategy="heuristic", out=out, chunk_size=6_000,
                                               fixed_hand=(1, "QC QC TH TH QS JC JS AD AD TD KD 9D")),
    "keep_play": lambda out: dokosim.simulate(5_000, seed=8, strategy="simple,heuristic,simple,heuristic",
                                              keep_play=True, out=out, chunk_size=2_000),
    "sessions_club": lambda out: dokosim.simulate_sessions(100, seed=10, rules="club", strategy="heuristic",
                                                           out=out, chunk_size=30),
}


def main_parquet(names):
    """``--parquet``: each run of PARQUET_RUNS named (all without names) writes its dataset and
    is read back (dataset.scan, one chunk); ``name hash`` of that frame, the time on stderr."""
    import tempfile
    from pathlib import Path
    for name in names or PARQUET_RUNS:
        t = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            PARQUET_RUNS[name](Path(tmp) / "ds")
            h = digest(dokosim.dataset.scan(Path(tmp) / "ds").collect().rechunk())
        print(f"{name} {h}", flush=True)
        print(f"{name}: {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    if "--parquet" in sys.argv[1:]:
        main_parquet([a for a in sys.argv[1:] if a != "--parquet"])
    else:
        main(sys.argv[1:])
