"""What a new user waits for: each command's wall time from empty kernel caches (issue 12).

    python scripts/coldstart.py            # the whole table (about 10 minutes on 2 cores)
    python scripts/coldstart.py --quick    # smaller runs, same steps

Part 1 starts from empty caches (a fresh NUMBA_CACHE_DIR and DOKOSIM_CACHE_DIR in a temporary
directory) and runs the README main job, then the other commands one after the other, as a
new user would. Part 2 starts from empty caches again, runs ``dokosim compile``, then the
same commands. For each step it prints the wall time, which kernels it compiled (the numba
cache files it wrote) and, in part 2, the time to start playing (the same command on a tiny
run). Not a test: the figures depend on the machine.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HAND = "QC QC TH TH QS JC JS AD AD TD KD 9D"


def commands(quick: bool) -> list[tuple[str, list[str], list[str]]]:
    """(label, the command, a tiny run of it that only measures start-up)."""
    k = 10 if quick else 1
    return [
        ("README main job: simulate --deals 1000000 --strategy simple",
         ["simulate", "--deals", str(1_000_000 // k), "--strategy", "simple"],
         ["simulate", "--deals", "100", "--strategy", "simple"]),
        ("simulate --deals 1000000 --strategy heuristic",
         ["simulate", "--deals", str(1_000_000 // k), "--strategy", "heuristic"],
         ["simulate", "--deals", "100", "--strategy", "heuristic"]),
        ("tournament heuristic simple --deals 20000",
         ["tournament", "heuristic", "simple", "--deals", str(20_000 // k)],
         ["tournament", "heuristic", "simple", "--deals", "10"]),
        ("advise --hand ...", ["advise", "--hand", HAND], ["advise", "--hand", HAND, "--deals", "10"]),
        ("session --rounds 10 --strategy heuristic",
         ["session", "--rounds", "10", "--strategy", "heuristic"],
         ["session", "--rounds", "1", "--strategy", "heuristic"]),
        ("probe-calls --level re --deals 10000 --strategy heuristic",
         ["probe-calls", "--level", "re", "--deals", str(10_000 // k), "--strategy", "heuristic"],
         ["probe-calls", "--level", "re", "--deals", "10", "--strategy", "heuristic"]),
        ("tournament pimc heuristic --deals 20",
         ["tournament", "pimc", "heuristic", "--deals", "20" if not quick else "4"],
         ["tournament", "pimc", "heuristic", "--deals", "2"]),
    ]


def cache_files(root: Path) -> set[str]:
    """The names of numba's cache files (index and data) under ``root``."""
    return {p.name for p in root.rglob("*.nb[ic]")} if root.exists() else set()


def run(argv: list[str], env: dict, numba_cache: Path) -> tuple[float, list[str], int]:
    """(wall seconds, the functions compiled, exit code) of ``dokosim argv``."""
    before = cache_files(numba_cache)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dokosim.cli", *argv], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t
    if proc.returncode:
        print(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "(no message)", file=sys.stderr)
    new = sorted(cache_files(numba_cache) - before)
    # file names: <module>.<function>-<line>.py311[.N].nbi|nbc; keep module.function
    compiled = sorted({".".join(n.split(".")[:2]).split("-")[0] for n in new})
    return seconds, compiled, proc.returncode


def fresh_env(tmp: Path, name: str) -> tuple[dict, Path]:
    """An environment with empty kernel caches under tmp/name, and its numba cache directory."""
    root = tmp / name
    if root.exists():
        shutil.rmtree(root)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(root / "numba"), DOKOSIM_CACHE_DIR=str(root / "dokosim"))
    env.pop("DOKOSIM_QUIET_COMPILE", None)
    return env, root / "numba"


def show(label: str, seconds: float, compiled: list[str], rc: int, start: float | None = None) -> None:
    """One line of the table."""
    what = ", ".join(compiled) if compiled else "nothing"
    tail = f"; starts playing in {start:.1f} s" if start is not None else ""
    status = "" if rc == 0 else f" (exit {rc})"
    print(f"{label:60} {seconds:7.1f} s{status}; compiled: {what}{tail}", flush=True)


def main() -> None:
    """Part 1, then part 2 (see the module's docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a tenth of the deals (the compile times stay)")
    args = ap.parse_args()
    steps = commands(args.quick)
    with tempfile.TemporaryDirectory(prefix="dokosim-coldstart-") as tmpdir:
        tmp = Path(tmpdir)
        print("part 1: empty caches, the commands one after the other")
        env, numba_cache = fresh_env(tmp, "part1")
        for label, argv, _ in steps:
            show(label, *run(argv, env, numba_cache))
        print("\npart 2: empty caches, dokosim compile, then the same commands")
        env, numba_cache = fresh_env(tmp, "part2")
        show("dokosim compile", *run(["compile", "--quiet"], env, numba_cache))
        for label, argv, tiny in steps:
            seconds, compiled, rc = run(argv, env, numba_cache)
            start = run(tiny, env, numba_cache)[0] if tiny else None
            show(label, seconds, compiled, rc, start)


if __name__ == "__main__":
    main()
