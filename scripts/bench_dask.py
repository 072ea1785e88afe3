"""Benchmark (not a test): the Dask backend against the in-process run, same plan, to Parquet.

    python scripts/bench_dask.py [--deals 20000000] [--workers 2] [--chunk-size 250000]

Plays ``--deals`` deals with ``simple`` at every seat (DDV rules, seed 1) into a
temporary Parquet directory twice: in process on all threads, then on a
LocalCluster of ``--workers`` one-thread worker processes. The cluster is
started and its workers' kernels loaded before the clock starts. Prints both
throughputs and their ratio (acceptance: Dask / in-process >= 0.85).
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path


def warm(plan_kwargs: dict) -> int:
    """On a worker: load (or compile) the kernel of the plan and play a few deals."""
    from dokosim.run.simulator import Simulator, make_plan
    Simulator(make_plan(1000, **plan_kwargs)).rows(0, 1000)
    return 1000


def timed_run(label: str, deals: int, **kwargs) -> float:
    """Deals per second of one simulate(..., out=<temporary directory>) call."""
    from dokosim.run.simulate import simulate
    out = Path(tempfile.mkdtemp(prefix="dokosim_bench_dask_")) / "run"
    try:
        t = time.perf_counter()
        simulate(deals, out=out, **kwargs)
        wall = time.perf_counter() - t
        assert len(list(out.glob("part-*.parquet"))) == -(-deals // kwargs["chunk_size"])
    finally:
        shutil.rmtree(out.parent)
    rate = deals / wall
    print(f"{label:44} {deals:>12,} deals {wall:8.1f} s {rate:12,.0f} deals/s", flush=True)
    return rate


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=20_000_000, help="deals per run (default 20 million)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    ap.add_argument("--chunk-size", type=int, default=250_000, help="deals per chunk (default 250,000)")
    args = ap.parse_args()

    import numba
    from distributed import Client, LocalCluster

    from dokosim.run.simulate import simulate
    plan_kwargs = dict(seed=1, strategy="simple", rules="ddv")
    common = dict(chunk_size=args.chunk_size, quiet=True, **plan_kwargs)
    print(f"cores: {numba.config.NUMBA_NUM_THREADS}; {args.deals:,} deals, simple at all seats, "
          f"chunks of {args.chunk_size:,}, to Parquet")

    simulate(1000, **plan_kwargs)  # compile / load in this process
    local = timed_run(f"in process, {numba.get_num_threads()} threads", args.deals, **common)

    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      protocol="tcp", dashboard_address=":0") as cluster, \
            Client(cluster, set_as_default=False) as client:
        client.run(warm, plan_kwargs)  # start-up and kernel loading excluded from the timing
        dask = timed_run(f"Dask LocalCluster, {args.workers} x 1-thread workers", args.deals,
                         scheduler=cluster.scheduler_address, **common)
    print(f"ratio Dask / in process: {dask / local:.3f} (acceptance: >= 0.85)")


if __name__ == "__main__":
    main()
