"""Nodes of each band edge's null-window search from the first card, edge by edge on a fresh
table (docs/solver.md, Speed, round 7): which edges make a deal's band expensive.

    python scripts/band_edges.py [--deals 20] [--cap 10000000] [--edges 121,151,120,90,181]

Deals: the bench's (seed 14, random normal games, no calls, played by ``random``). One line per
deal: for each edge (edge, answer 1/0 or None past the cap, nodes, CPU seconds).
"""
import argparse
import json
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--cap", type=int, default=10_000_000)
    ap.add_argument("--edges", default="121,151,120,90,181")
    args = ap.parse_args()
    from dokosim.dd.solve import Solver
    from dokosim.records.record import replay_detail
    from dokosim.run.simulate import simulate
    from dokosim.solver.eyes import solve_reaches
    df = simulate(args.deals, seed=14, strategy="random", contract="normal", calls=False, keep_play=True)
    solver = Solver(node_limit=args.cap)
    for i, rec in enumerate(json.loads(r) for r in df["record"]):
        state = replay_detail({**rec, "play": []})["state"]
        out = []
        for e in (int(x) for x in args.edges.split(",")):
            solver.load(state)
            solver.clear_tables()  # a fresh table for each edge
            solver._start()
            n0, t = solver.nodes, time.process_time()
            yes = bool(solve_reaches(solver.ws, solver.tt, e))
            out.append((e, None if solver._aborted() else int(yes), solver.nodes - n0,
                        round(time.process_time() - t, 2)))
        print(i, out, flush=True)


if __name__ == "__main__":
    main()
