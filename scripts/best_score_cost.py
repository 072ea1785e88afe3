"""What ``dokosim.best_score`` costs, and how often playing for eyes costs score (docs/solver.md).

For simulated deals (``simple`` at every seat, with calls) cut with K tricks left, the position's
best play for the score (``Solver.score_values``) and for eyes (``Solver.card_values``): the
nodes and CPU time of the score search, the share answered within a node limit, and the share
of positions where the seat to move's best card for eyes is worse for the score (the score it
gives up, in game points: "some" when one of the cards best for eyes is worse for the score,
"every" when all of them are; the mean is over positions of the eyes-best cards' mean loss).

    python scripts/best_score_cost.py --deals 100 --tricks 3,4,5 --node-limit 1000000
"""
import argparse
import json
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--tricks", default="3,4,5", help="tricks left, comma-separated")
    ap.add_argument("--node-limit", type=int, default=1_000_000)
    ap.add_argument("--score-table-bits", type=int, default=18, help="0: the search without its table")
    args = ap.parse_args()
    import dokosim
    from dokosim.engine.layout import H_RE_MASK, P_TURN
    from dokosim.records.record import replay_detail
    from dokosim.dd.solve import SCORE_ILLEGAL, Solver
    frame = dokosim.simulate(args.deals, seed=args.seed, strategy="simple", calls=True, keep_play=True, quiet=True)
    records = [json.loads(r) for r in frame["record"]]
    solver = Solver(node_limit=args.node_limit, score_table_bits=args.score_table_bits)
    print(f"{args.deals} deals of seed {args.seed} (simple, with calls), node limit {args.node_limit:,}, "
          f"score table bits {args.score_table_bits}")
    for left in (int(x) for x in args.tricks.split(",")):
        nodes, ms, some, every, lost = [], [], 0, 0, []
        answered = compared = 0
        for rec in records:
            cut = len(rec["play"]) - 4 * left
            state = replay_detail({**rec, "play": rec["play"][:cut]})["state"]
            solver.load(state)
            n0 = solver.nodes
            t = time.process_time()
            score = solver.score_values()
            ms.append(1000 * (time.process_time() - t))
            nodes.append(solver.nodes - n0)
            if score is None:
                continue
            answered += 1
            value, score_values = score
            compared += 1
            solver.load(state)
            eyes = solver.card_values()
            if eyes is None:
                compared -= 1
                continue
            st = state[0]
            maxi = (int(st[H_RE_MASK]) >> int(st[P_TURN])) & 1
            # one of the two copies of a card
            legal = [c for c in range(48) if score_values[c] > -SCORE_ILLEGAL
                     and not (c & 1 and score_values[c - 1] > -SCORE_ILLEGAL)]
            eye_values = eyes[1]
            best_eyes = max(eye_values[c] for c in legal) if maxi else min(eye_values[c] for c in legal)
            # the eyes-best cards (ties are common): what each gives up against the best for the score
            gaps = [abs(int(value) - int(score_values[c])) for c in legal if eye_values[c] == best_eyes]
            some += max(gaps) > 0
            every += min(gaps) > 0
            lost.append(float(np.mean(gaps)))
        nodes, ms = np.array(nodes), np.array(ms)
        lost = np.array(lost) if lost else np.zeros(1)
        print(f"{left} tricks left: answered {answered}/{len(records)}; nodes median {np.median(nodes):,.0f}, "
              f"total {nodes.sum():,}, "
              f"p90 {np.percentile(nodes, 90):,.0f}; CPU median {np.median(ms):.2f} ms, p90 {np.percentile(ms, 90):.1f} ms; "
              f"some eyes-best card loses score in {some}/{compared}, every one in {every}/{compared}; "
              f"mean loss of an eyes-best card {lost.mean():.3f} points")


if __name__ == "__main__":
    main()
