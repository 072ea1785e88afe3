"""Node counts and CPU time of the double-dummy solver on fixed positions, with a check of the
values against a saved run (the development harness of docs/solver.md's speed work).

    python scripts/solver_nodes.py [--sets six,nine,start,start121] [--n 300] [--cap 10000000]
                                   [--save FILE | --check FILE] [--bits 20]

Positions: the deals of ``scripts/bench.py --only solver`` (seed 14, random normal games, no
calls, played by ``random``), cut after 24 cards (``six``: 6 tricks left), 12 (``nine``),
0 (``start``: exact eyes; ``start121``: does Re reach 121; ``band``: the band of the game
value without calls, ``Solver.band``, the cap for all its searches; ``band9`` the same after 12
cards). Node counts are deterministic,
so they compare versions of the search exactly where CPU times on a shared machine do not;
``--check`` fails when a value differs from the saved run's (a solve over the cap is skipped).
"""
import argparse
import json
import time

import numpy as np

SETS = {"six": (24, "eyes"), "nine": (12, "eyes"), "start": (0, "eyes"), "start121": (0, "reaches"),
        "band": (0, "band"), "band9": (12, "band")}


def positions(n, cache="/tmp/solver_positions.npz"):
    """{cards played: [state of deal i]} for the bench's deals (cached in ``cache``, so that a
    change to the solver recompiles the solver alone, not the deal loop and the replay)."""
    import os
    if os.path.exists(cache):
        z = np.load(cache)
        if int(z["n"]) >= n:
            return {cards: [tuple(z[f"{cards}_{i}_{j}"] for j in range(9)) for i in range(n)]
                    for cards in (0, 12, 24, 40)}
    from dokosim.records.record import replay_detail
    from dokosim.run.simulate import simulate
    df = simulate(n, seed=14, strategy="random", contract="normal", calls=False, keep_play=True)
    records = [json.loads(r) for r in df["record"]]
    arrays = {"n": np.array(n)}
    out = {}
    for cards in (0, 12, 24, 40):
        out[cards] = []
        for i, rec in enumerate(records):
            state = tuple(a.copy() for a in replay_detail({**rec, "play": rec["play"][:cards]})["state"])
            out[cards].append(state)
            for j, a in enumerate(state):
                arrays[f"{cards}_{i}_{j}"] = a
    np.savez(cache, **arrays)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="six")
    ap.add_argument("--n", type=int, default=300, help="positions per set (at most)")
    ap.add_argument("--cap", type=int, default=10_000_000, help="node cap per solve")
    ap.add_argument("--bits", type=int, default=20, help="table bits")
    ap.add_argument("--save")
    ap.add_argument("--check")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--passes", type=int, default=1, help="solve each set this many times; times: the fastest pass")
    args = ap.parse_args()
    states = positions(max(args.n, 20))
    from dokosim.dd.solve import Solver
    solver = Solver(table_bits=args.bits, node_limit=args.cap)
    t = time.perf_counter()
    solver.load(states[40][0])
    solver.eyes()
    print(f"compiled or loaded in {time.perf_counter() - t:.1f} s")
    saved = json.load(open(args.check)) if args.check else {}
    out = {}
    bad = 0
    for name in args.sets.split(","):
        cards, kind = SETS[name]
        n = args.n if cards >= 24 else min(args.n, 50 if kind == "band" else 20)
        best = None
        for _ in range(args.passes):
            values, nodes, ms = [], [], []
            run_set(solver, states[cards], n, kind, values, nodes, ms, saved.get(name), name, args.quiet or cards >= 24)
            if best is None or sum(ms) < sum(best[2]):
                best = (values, nodes, ms)
        values, nodes, ms = best
        bad += sum(1 for i, v in enumerate(values) if v is not None and name in saved and saved[name][i] is not None
                   and saved[name][i] != v)
        out[name] = values
        nodes, ms = np.array(nodes), np.array(ms)
        over = sum(v is None for v in values)
        print(f"{name:9} n={n} over cap {over}; nodes median {np.median(nodes):,.0f} mean {nodes.mean():,.0f} "
              f"total {nodes.sum():,}; ms median {np.median(ms):.2f} p99 {np.quantile(ms, 0.99):.1f} "
              f"total {ms.sum():.0f}; {1e6 * ms.sum() / max(1, nodes.sum()):.0f} ns/node", flush=True)
    if args.save:
        json.dump(out, open(args.save, "w"))
    if args.check:
        print("values: " + ("all equal to the saved run" if not bad else f"{bad} differ"))
        raise SystemExit(1 if bad else 0)


def run_set(solver, states, n, kind, values, nodes, ms, saved, name, quiet):
    """Solve the first ``n`` states, appending the value, nodes and CPU ms of each."""
    for i in range(n):
        solver.load(states[i])
        n0 = solver.nodes
        t = time.process_time()
        if kind == "band":
            from dokosim.dd.band import value_edges
            v = solver.band(edges=value_edges(0, 0))
            v = None if v is None else v[0]
        else:
            v = solver.eyes() if kind == "eyes" else solver.reaches(121)
        ms.append(1000 * (time.process_time() - t))
        nodes.append(solver.nodes - n0)
        v = None if v is None else int(v)
        values.append(v)
        if v is not None and saved is not None and saved[i] is not None and v != saved[i]:
            print(f"  {name} #{i}: value {v}, saved {saved[i]}")
        if not quiet:
            print(f"  {name} #{i}: {v} {nodes[-1]:,} nodes {ms[-1]:.0f} ms", flush=True)

if __name__ == "__main__":
    main()
