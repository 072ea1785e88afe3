"""Speed of the deal loop before and after a change, in CPU time, robust to other load.

    python scripts/ab_speed.py BASE_REV [--strategy random] [--pairs 8] [--deals 1000000] [--plan JSON]
                               [--cache DIR]

Wall-clock figures (scripts/bench.py) on a shared 2-core machine move by a third between two runs
of the same code. This script measures CPU seconds (``time.process_time``) per million deals on one
thread, for the code at BASE_REV (a git worktree made for it) and for the working tree, in
alternating pairs of processes (old, new, old, new, ...), each the best of three passes, and prints
the paired ratios new/old with their mean and a 95% interval. Each side compiles its kernels once
into a cache of its own (the first pair waits for that; it is not timed).
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

MEASURE = r"""
import json, sys, time
import numba
numba.set_num_threads(1)
from dokosim.run.simulator import Simulator, make_plan
n, strategy, extra = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
sim = Simulator(make_plan(n + 1000, strategy=strategy, **extra))
sim.rows(0, 1000)  # compile or load, warm
best = float("inf")
for _ in range(3):
    t = time.process_time()
    for first in range(1000, n + 1000, 250_000):
        sim.rows(first, min(250_000, n + 1000 - first))
    best = min(best, time.process_time() - t)
import dokosim
print(dokosim.__file__, file=sys.stderr)
print(best / n * 1e6)
"""


def cpu_seconds_per_million(source: Path, cache: Path, deals: int, strategy: str, extra: str = "{}") -> float:
    """CPU seconds per million deals of ``strategy`` on one thread, the code at ``source``."""
    env = {**os.environ, "PYTHONPATH": str(source), "NUMBA_NUM_THREADS": "1",
           "NUMBA_CACHE_DIR": str(cache / "numba"), "DOKOSIM_CACHE_DIR": str(cache / "dokosim"),
           "DOKOSIM_QUIET_COMPILE": "1"}
    # cwd=source: "python -c" puts the current directory first on sys.path, before PYTHONPATH, so
    # from any other checkout both sides would import that checkout's dokosim
    run = subprocess.run([sys.executable, "-c", MEASURE, str(deals), strategy, extra], env=env, check=True,
                         capture_output=True, text=True, cwd=source)
    imported = Path(run.stderr.split()[-1]).resolve()
    if not imported.is_relative_to(source.resolve()):
        raise SystemExit(f"ab_speed: the run for {source} imported {imported}")
    return float(run.stdout.split()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="git revision to compare the working tree with")
    ap.add_argument("--strategy", default="random")
    ap.add_argument("--pairs", type=int, default=8)
    ap.add_argument("--deals", type=int, default=1_000_000)
    ap.add_argument("--plan", default="{}",
                    help='more make_plan arguments as JSON, e.g. \'{"contract": "normal", "calls": false}\' '
                         '(bench.py\'s figure (a))')
    ap.add_argument("--cache", type=Path, default=None,
                    help="keep each side's compiled kernels here (reused by later runs: kernels are "
                         "cached by source digest); default: a new temporary directory")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dokosim_ab_"))
    caches = args.cache or work
    base = work / "base"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(base), args.base], check=True)
    try:
        sides = {"old": (base, caches / "cache_old"), "new": (REPO, caches / "cache_new")}
        for source, cache in sides.values():  # compile both before timing anything
            cpu_seconds_per_million(source, cache, 1000, args.strategy, args.plan)
        ratios, times = [], {"old": [], "new": []}
        for i in range(args.pairs):
            for name, (source, cache) in sides.items():
                times[name].append(cpu_seconds_per_million(source, cache, args.deals, args.strategy, args.plan))
            ratios.append(times["new"][-1] / times["old"][-1])
            print(f"pair {i + 1}: old {times['old'][-1]:.3f}  new {times['new'][-1]:.3f}  "
                  f"cpu s per million deals, new/old {ratios[-1]:.3f}", flush=True)
        mean = statistics.fmean(ratios)
        half = 1.96 * statistics.stdev(ratios) / math.sqrt(len(ratios)) if len(ratios) > 1 else float("nan")
        print(f"{args.strategy}: new/old CPU time per deal {mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] "
              f"(95%, {len(ratios)} pairs); median {statistics.median(ratios):.3f}; best old "
              f"{min(times['old']):.3f}, best new {min(times['new']):.3f} cpu s per million deals")
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base)], check=False)


if __name__ == "__main__":
    main()
