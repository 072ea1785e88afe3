"""heuristic against simple as the soloist of every solo kind, on the same hands: the soloist's
win rate and score with each, the others heuristic, each kind's hands at its key counts
(``--where`` on seat 0, who declares the forced solo). Paired by deal (same seed, same cards).

    python scripts/soloist_table.py [--deals 5000] [--seed 11] [--declared 1000000]

Prints a Markdown table (docs/strategies.md, "heuristic as soloist"), then how often the solos
heuristic declares itself are won (``--declared`` deals of heuristic at every seat, seed 5).
"""
import argparse

import numpy as np
import polars as pl

import dokosim
from dokosim.stats import mean_interval, wilson

CASES = [("diamonds", "trumps(0) >= 10"), ("hearts", "trumps(0) >= 10"), ("spades", "trumps(0) >= 10"),
         ("clubs", "trumps(0) >= 10"), ("queens", "trumps(0) >= 6"), ("queens", "trumps(0) == 5"),
         ("jacks", "trumps(0) >= 6"), ("jacks", "trumps(0) == 5"), ("fleischlos", "aces(0) >= 6"),
         ("fleischlos", "aces(0) == 5"),
         *[(k, None) for k in ("diamonds", "hearts", "spades", "clubs", "queens", "jacks", "fleischlos")]]


def soloist(kind: str, where, strategy: str, deals: int, seed: int):
    """(won, score) of seat 0 as the soloist of ``kind`` played by ``strategy``, the others heuristic."""
    df = dokosim.simulate(deals, seed=seed, strategy=f"{strategy},heuristic,heuristic,heuristic",
                          contract=f"{kind}_solo", declarer=0, where=where)
    return (df["winner"] == "re").to_numpy().astype(float), df["score_0"].to_numpy().astype(float)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--declared", type=int, default=1_000_000)
    args = parser.parse_args()
    print("| solo | hands | heuristic wins | simple wins | difference [95%] | soloist's score, difference [95%] |")
    print("|---|---|---|---|---|---|")
    for kind, where in CASES:
        wh, sh = soloist(kind, where, "heuristic", args.deals, args.seed)
        ws, ss = soloist(kind, where, "simple", args.deals, args.seed)
        d, g = mean_interval(wh - ws), mean_interval(sh - ss)
        print(f"| {kind} | {where or 'all'} | {np.mean(wh):.3f} | {np.mean(ws):.3f} | "
              f"{d.mean:+.3f} [{d.lo:+.3f}, {d.hi:+.3f}] | {g.mean:+.2f} [{g.lo:+.2f}, {g.hi:+.2f}] |", flush=True)
    df = dokosim.simulate(args.declared, seed=5, strategy="heuristic")
    solos = df.filter(pl.col("contract").cast(pl.String).str.ends_with("_solo"))
    print(f"\nSolos heuristic declared in {args.declared:,} deals (seed 5), won by the soloist:\n")
    print("| solo | declared | won [95%] |")
    print("|---|---|---|")
    for r in (solos.group_by("contract").agg(pl.len().alias("n"), (pl.col("winner") == "re").sum().alias("won"))
              .sort("contract").iter_rows(named=True)):
        p, lo, hi = (float(x) for x in wilson(r["won"], r["n"]))
        print(f"| {r['contract']} | {r['n']:,} | {p:.3f} [{lo:.3f}, {hi:.3f}] |")


if __name__ == "__main__":
    main()
