"""What a solve costs in pimc's endgame: CPU time of ``solve_card_values`` (every legal card's
value) per position, by tricks left, on positions of deals played by ``heuristic``.

    python scripts/pimc_solver_cost.py [--deals 200] [--bits 14] [--tricks 3,4,5,6] [--limit 0]

A dev harness for docs/strategies.md (pimc's ``solve_tricks`` and ``node_limit``): each position
is a new deal (the table's generation advances), as each of pimc's samples is.
"""
import argparse
import json
import random
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--bits", type=int, default=14)
    ap.add_argument("--tricks", default="3,4,5,6")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    from dokosim.records.record import replay_detail
    from dokosim.run.simulate import simulate
    from dokosim.dd.solve import Solver
    recs = [json.loads(r) for r in simulate(args.deals, seed=args.seed, strategy="heuristic", keep_play=True,
                                             quiet=True)["record"]]
    recs = [r for r in recs if len(r.get("play", [])) == 48]
    rng = random.Random(args.seed)
    solver = Solver(table_bits=args.bits, node_limit=args.limit, sim_bits=0)  # pimc's solver has no payoff-similarity table
    warm = replay_detail({**recs[0], "play": recs[0]["play"][:40]})["state"]
    solver.load(warm)
    solver.card_values()
    for k in [int(x) for x in args.tricks.split(",")]:
        times, nodes, over = [], [], 0
        for r in recs:
            n = 4 * (12 - k) + rng.randrange(4)
            calls = [a for a in r.get("announcements", []) if a["cards_played"] <= n]
            d = replay_detail({**r, "play": r["play"][:n], "announcements": calls})
            if d["error"]:
                continue
            solver.load(d["state"])
            n0 = solver.nodes
            t = time.process_time()
            out = solver.card_values()
            times.append(time.process_time() - t)
            nodes.append(solver.nodes - n0)
            over += out is None
        t = np.array(times) * 1000
        print(f"{k} tricks left: {len(t)} positions, card values median {np.median(t):.3f} ms, mean {t.mean():.3f} ms, "
              f"p90 {np.percentile(t, 90):.2f} ms, p99 {np.percentile(t, 99):.2f} ms, max {t.max():.1f} ms; "
              f"nodes median {int(np.median(nodes)):,}, p99 {int(np.percentile(nodes, 99)):,}; over the limit {over}",
              flush=True)


if __name__ == "__main__":
    main()
