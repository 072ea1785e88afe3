"""One null-window search per deal at its own threshold, for the normal game's mean double-dummy
eyes (docs/solver.md, round 6, "Tried and not kept"; not a test).

    python scripts/threshold_per_deal.py [--deals 240] [--node-limit 1000000] [--seed 0]

Deal d (random normal game, no calls) is asked "does Re reach t_d = 1 + (7 d mod 240) eyes from
the first card?". Over deals 0..239 every threshold appears once, so 240 times the share of
"yes" estimates Re's mean double-dummy eyes without bias; a solve past the node limit is
unanswered, and the bracket of the estimate widens by 240 / deals for each. Prints each deal's
line and the unanswered count by band of thresholds."""
import argparse
import json
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=240)
    ap.add_argument("--node-limit", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    from dokosim.records.record import replay_detail
    from dokosim.run.simulator import Simulator, make_plan
    from dokosim.dd.solve import Solver
    sim = Simulator(make_plan(args.deals, args.seed, "ddv", "random", contract="normal", declarer=0,
                              calls=False, keep_play=True))
    records = sim.frame(0, args.deals).sort("deal_id")["record"].to_list()
    solver = Solver(node_limit=args.node_limit)
    rows = []
    for d, line in enumerate(records):
        t = 1 + (7 * d) % 240
        rec = json.loads(line)
        solver.load(replay_detail({**rec, "play": [], "announcements": []})["state"])
        n0, c0 = solver.nodes, time.process_time()
        answer = solver.reaches(t)
        rows.append((d, t, answer, solver.nodes - n0, time.process_time() - c0))
        print(d, t, answer, solver.nodes - n0, round(rows[-1][4], 4), flush=True)
    print("threshold band, deals, unanswered, yes")
    for lo in range(1, 241, 30):
        band = [r for r in rows if lo <= r[1] < lo + 30]
        print(f"{lo}-{lo + 29}", len(band), sum(r[2] is None for r in band), sum(r[2] is True for r in band))
    nulls = sum(r[2] is None for r in rows)
    yes = sum(r[2] is True for r in rows)
    n = len(rows)
    print(f"unanswered {nulls} of {n}; mean eyes between {240 * yes / n:.1f} and {240 * (yes + nulls) / n:.1f}; "
          f"median nodes {np.median([r[3] for r in rows]):,.0f}")


if __name__ == "__main__":
    main()
