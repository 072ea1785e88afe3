"""Where the solver's search spends its time: samples of ``perf`` binned by address in the
search's machine code (not a test; docs/solver.md, round 5).

    rm -rf /tmp/nc && NUMBA_CACHE_DIR=/tmp/nc perf record -e cpu-clock -F 2000 -o /tmp/perf.data \\
        taskset -c 0 python scripts/solver_profile.py run [--set start121] [--n 30] [--cap 3000000]
    perf script -i /tmp/perf.data -F ip | python scripts/solver_profile.py bins /tmp/code_*search*.bin

``run`` solves the bench's positions (``scripts/solver_nodes.py``'s sets) after writing
/tmp/perf-PID.map and the search's code to /tmp/code_NAME_ADDRESS.bin (``cpu_per_deal.py
--perf-map``; the kernels must be compiled in this process, hence the empty NUMBA_CACHE_DIR).
``bins`` reads the sampled addresses and prints the 64-byte blocks of the dumped code with the
most samples (offsets into the code: ``objdump -D -b binary -mi386:x86-64 FILE`` to read them);
of several dumps it takes the one with the lowest address (the function itself).
"""
import argparse
import collections
import re
import sys

sys.path.insert(0, "scripts")


def run(args) -> None:
    import time

    from cpu_per_deal import write_perf_map
    from solver_nodes import SETS, positions

    from dokosim.dd.solve import Solver
    cards, kind = SETS[args.set]
    every = positions(max(args.n, 20))
    solver = Solver(node_limit=args.cap)
    solver.load(every[24][-1])
    solver.eyes()
    solver.reaches(121)
    write_perf_map(dump=("search",))
    start = time.process_time()
    for state in every[cards][:args.n]:
        solver.load(state)
        solver.reaches(121) if kind == "reaches" else solver.eyes()
    print(f"{args.n} solves in {time.process_time() - start:.2f} s CPU")


def bins(args) -> None:
    dump = min(args.code, key=lambda f: int(re.search(r"_([0-9a-f]+)\.bin$", f).group(1), 16))
    base = int(re.search(r"_([0-9a-f]+)\.bin$", dump).group(1), 16)
    with open(dump, "rb") as f:
        size = len(f.read())
    counts = collections.Counter()
    total = inside = 0
    for line in sys.stdin:
        try:
            ip = int(line.split()[0], 16)
        except (IndexError, ValueError):
            continue
        total += 1
        if base <= ip < base + size:
            inside += 1
            counts[(ip - base) // 64 * 64] += 1
    print(f"{dump}: {inside} of {total} samples in the search")
    for offset, n in counts.most_common(args.top):
        print(f"{offset:#7x} {n:7d} {100 * n / max(1, inside):5.1f}%")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("run")
    r.add_argument("--set", default="start121")
    r.add_argument("--n", type=int, default=30)
    r.add_argument("--cap", type=int, default=3_000_000)
    b = sub.add_parser("bins")
    b.add_argument("code", nargs="+")
    b.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    run(args) if args.mode == "run" else bins(args)


if __name__ == "__main__":
    main()
