"""Strategies: duplicate tournaments (``dokosim.tournament``) between every pair of
random, simple and heuristic (when it is registered and compiles).

    dokosim study strategies [--deals 20000] [--seed 0]

Writes results/strategies/: pairs (Markdown, CSV: each pair's mean difference
in points per deal per seat with its 95% interval), strategies.png.
``--strategy`` does not apply (every pair is played); ``--scheduler`` /
``--cluster`` run the tournaments on Dask.
"""
from __future__ import annotations

import itertools

import numpy as np
import polars as pl

from .common import footnote, plt, results_dir, rules_label, say, write_table

STUDY = "strategies"
DEFAULT_DEALS = 20_000
CANDIDATES = ("random", "simple", "heuristic")
RULES = {"preset": "ddv"}


def available() -> tuple[list[str], list[str]]:
    """(the candidates that resolve, notes on those that do not)."""
    from dokosim.strategies.registry import resolve
    names, notes = [], []
    for name in CANDIDATES:
        try:
            resolve(name)
            names.append(name)
        except Exception as exc:  # a strategy still in progress
            notes.append(f"{name}: not played ({type(exc).__name__}: {exc})")
    return names, notes


def run(deals=None, strategy="simple", seed=0, results=None, quiet=False, charts=True, **sim) -> dict:
    from dokosim.tournament import tournament
    deals = deals or DEFAULT_DEALS
    out = results_dir(results, STUDY)
    names, notes = available()
    rows = []
    for a, b in itertools.combinations(names, 2):
        say(quiet, f"strategies: {a} vs {b}, {deals} deals x 6 seatings")
        try:
            r = tournament([a, b], deals, seed, RULES, **sim)
        except Exception as exc:  # e.g. a draft strategy that does not compile
            notes.append(f"{a} vs {b}: not played ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})")
            continue
        d = r.diff[f"{a}-{b}"]
        rows.append({"a": a, "b": b, "deals": deals, "a_mean": r.mean[a].mean, "a_lo": r.mean[a].lo,
                     "a_hi": r.mean[a].hi, "diff_a_minus_b": d.mean, "diff_lo": d.lo, "diff_hi": d.hi})
    table = pl.DataFrame(rows) if rows else pl.DataFrame()
    note = (f"Duplicate tournaments, {deals:,} deals per pair, each in the 6 seatings (seed {seed}, rules "
            f"{rules_label(RULES)}). Points per deal per seat; 95% t intervals over per-deal values "
            "(docs/tournament.md)." + ("" if not notes else " " + " ".join(notes)))
    write_table(table, out / "pairs", "Strategies: pairwise duplicate tournaments", note)
    if charts and rows:
        p = plt()
        fig, ax = p.subplots(figsize=(7.5, 4.2))
        labels = [f"{r['a']} - {r['b']}" for r in rows]
        m = np.array([r["diff_a_minus_b"] for r in rows])
        err = np.array([[r["diff_a_minus_b"] - r["diff_lo"] for r in rows],
                        [r["diff_hi"] - r["diff_a_minus_b"] for r in rows]])
        ax.barh(labels, m, xerr=err, capsize=6, color="#7aa6c2", edgecolor="#2b506e")
        ax.axvline(0, color="black", lw=0.8)
        ax.set_xlabel("A - B, points per deal per seat (95% interval)")
        ax.set_title("Pairwise duplicate tournaments")
        footnote(fig, f"{deals:,} deals per pair x 6 seatings, rules {rules_label(RULES)}, seed {seed}; "
                      f"strategies: {', '.join(names)}")
        fig.tight_layout(rect=(0, 0.05, 1, 1))
        fig.savefig(out / "strategies.png", dpi=110)
        p.close(fig)
    return {"pairs": table, "notes": notes}


if __name__ == "__main__":
    from .cli import script_main
    script_main(STUDY)
