"""CPU seconds per deal of dd_oracle at all four seats, by exact_tricks (docs/solver.md, "dd_oracle").

    python scripts/oracle_cost.py 6 7 8 9                          # 20 DDV deals of seed 1 each, one thread
    python scripts/oracle_cost.py 6 --bands 1 --node-limit 2000000  # the band mode, tried from the first card

One line per exact_tricks: CPU seconds per deal (median, max, total), the share of the cards it
solved, and the median trick of a deal's first solved card.
"""
import argparse
import time

import numpy as np

from dokosim.dd.oracle import DDOracle
from dokosim.game.game import Game

ap = argparse.ArgumentParser()
ap.add_argument("exact_tricks", type=int, nargs="+")
ap.add_argument("--bands", type=int, default=0)
ap.add_argument("--node-limit", type=int, default=0)
ap.add_argument("--deals", type=int, default=20)
args = ap.parse_args()
for k in args.exact_tricks:
    o = DDOracle(exact_tricks=k, bands=args.bands, node_limit=args.node_limit)
    ts, first = [], []
    for d in range(args.deals):
        g = Game("ddv", seed=1, deal_id=d)
        t = time.process_time()
        solved_before = o.exact_cards
        while not g.is_terminal():
            n = o.exact_cards
            g.apply_action(o.act(g))
            if o.exact_cards > n and o.exact_cards - solved_before == 1:
                first.append(g.cards_played // 4 + (g.cards_played % 4 > 0))
        ts.append(time.process_time() - t)
    ts = np.array(ts)
    print(f"{k} bands={args.bands} node_limit={args.node_limit:,}: median {np.median(ts):.3f} s  max {ts.max():.3f} s  "
          f"total {ts.sum():.1f} s; cards solved {o.exact_cards / o.cards:.1%}; first solved card in trick "
          f"{np.median(first) if first else float('nan'):.0f} (median)", flush=True)
