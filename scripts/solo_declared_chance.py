"""What a declared solo tells the other seats: heuristic's solo-model chance of the hands pimc
declares solos with (the figure behind pimc_bids.SOLO_DECLARED_CHANCE, docs/strategies.md).

    python scripts/solo_declared_chance.py [--deals 3000] [--seed 11]

Plays DEALS deals with pimc at every seat and prints, over the solos declared (silent marriages
left out), the percentiles of heuristic.win_chance of the soloist's hand for the solo played.
"""
import argparse

import numpy as np
import polars as pl

import dokosim
from dokosim.engine.cards import SOLO_KINDS, SOLO_SCHEME
from dokosim.strategies import heuristic


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    df = dokosim.simulate(args.deals, seed=args.seed, strategy="pimc").filter(pl.col("soloist") >= 0)
    chances = []
    for row in df.iter_rows(named=True):
        name = row["contract"].removesuffix("_solo")
        if name not in SOLO_KINDS:
            continue  # a silent marriage
        kind, soloist = SOLO_KINDS.index(name), row["soloist"]
        leads = 1 if (row["dealer"] + 1) % 4 == soloist else 0
        chances.append(heuristic.win_chance(kind, np.int64(row[f"hand_{soloist}"]), SOLO_SCHEME[kind], leads))
    pct = np.percentile(chances, [5, 10, 25, 50, 75])
    print(f"{len(chances)} solos declared by pimc in {args.deals:,} deals of seed {args.seed}; heuristic's "
          f"chance of the soloist's hand: 5% {pct[0]:.3f}, 10% {pct[1]:.3f}, 25% {pct[2]:.3f}, "
          f"median {pct[3]:.3f}, 75% {pct[4]:.3f}")


if __name__ == "__main__":
    main()
