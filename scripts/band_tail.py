"""The tail of the band search from the first card: how many deals a node limit answers, for
every limit up to ``--cap`` at once (docs/solver.md, Speed, "How far the goal is").

    python scripts/band_tail.py [--deals 50] [--cap 300000000]

Deals: the bench's line (iv) (seed 14, random normal games, no calls, from the first card), one
thread, the game value's edges without calls. One line per deal (deal, band or None past the
cap, nodes, CPU seconds), then the share answered within each limit and the CPU time it took.
"""
import argparse
import json
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--cap", type=int, default=300_000_000)
    args = ap.parse_args()
    import numpy as np

    from dokosim.dd.band import value_edges
    from dokosim.dd.solve import Solver
    from dokosim.records.record import replay_detail
    from dokosim.run.simulate import simulate
    df = simulate(args.deals, seed=14, strategy="random", contract="normal", calls=False, keep_play=True)
    solver = Solver(node_limit=args.cap)
    edges = value_edges(0, 0)
    nodes, secs, answered = [], [], []
    for i, rec in enumerate(json.loads(r) for r in df["record"]):
        solver.load(replay_detail({**rec, "play": []})["state"])
        n0, t = solver.nodes, time.process_time()
        band = solver.band(edges=edges)
        nodes.append(solver.nodes - n0)
        secs.append(time.process_time() - t)
        answered.append(band is not None)
        print(i, band, nodes[-1], round(secs[-1], 2), flush=True)
    nodes, secs, answered = np.array(nodes), np.array(secs), np.array(answered)
    print(f"{len(nodes)} deals, {answered.sum()} answered within {args.cap:,} nodes; "
          f"{1e9 * secs[answered].sum() / max(1, nodes[answered].sum()):.0f} ns per node")
    for limit in (1_000_000, 3_000_000, 10_000_000, 30_000_000, 100_000_000, 300_000_000, 1_000_000_000):
        if limit > args.cap:
            break
        ok = answered & (nodes <= limit)
        print(f"  within {limit:>13,} nodes: {ok.sum():3d} of {len(nodes)} answered"
              f" (median CPU of those {np.median(secs[ok]) if ok.any() else float('nan'):.2f} s)")


if __name__ == "__main__":
    main()
