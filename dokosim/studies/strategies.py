"""Strategies: duplicate tournaments (``dokosim.tournament``) between every pair of
random, simple, heuristic and pimc (when it is registered and compiles); pimc plays only against
PIMC_OPPONENTS, on PIMC_SHARE of the deals (pimc is about a thousand times slower than heuristic).

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
from .skills import skill_params

STUDY = "strategies"
DEFAULT_DEALS = 20_000
CANDIDATES = ("random", "simple", "heuristic", "pimc")
PIMC_SHARE = 0.02  # a pair with pimc plays 2% of the deals (400 x 6 seatings at the default size) ...
MIN_PIMC_DEALS = 50
PIMC_OPPONENTS = ("simple", "heuristic")  # ... and only against these (against random it says nothing new)
RULES = {"preset": "ddv"}


def available(candidates=CANDIDATES) -> tuple[list[str], list[str]]:
    """(the candidates that resolve, notes on those that do not)."""
    from ..loop.registry import resolve
    names, notes = [], []
    for name in candidates:
        try:
            resolve(name)
            names.append(name)
        except Exception as exc:  # a strategy still in progress
            notes.append(f"{name}: not played ({type(exc).__name__}: {exc})")
    return names, notes


def run(deals=None, strategy="heuristic", seed=0, results=None, quiet=False, charts=True, pimc_deals=None,
        candidates=CANDIDATES, **sim) -> dict:
    """Play every pair of ``candidates`` (pairs with pimc on ``pimc_deals`` deals, default
    PIMC_SHARE of ``deals``) and write the table and chart to ``results/strategies/``."""
    from ..run.tournament import tournament

    from .skills import skill_deals
    deals = deals or DEFAULT_DEALS
    n_pimc = skill_deals(deals, PIMC_SHARE, MIN_PIMC_DEALS, pimc_deals)["pimc"]
    out = results_dir(results, STUDY)
    names, notes = available(candidates)
    rows = []
    for a, b in itertools.combinations(names, 2):
        if "pimc" in (a, b) and not {a, b} & set(PIMC_OPPONENTS):
            continue
        n = n_pimc if "pimc" in (a, b) else deals
        say(quiet, f"strategies: {a} vs {b}, {n} deals x 6 seatings")
        try:
            r = tournament([a, b], n, seed, RULES, params=skill_params("pimc") if "pimc" in (a, b) else None, **sim)
        except Exception as exc:  # e.g. a draft strategy that does not compile
            notes.append(f"{a} vs {b}: not played ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})")
            continue
        d = r.diff[f"{a}-{b}"]
        rows.append({"a": a, "b": b, "deals": n, "a_mean": r.mean[a].mean, "a_lo": r.mean[a].lo,
                     "a_hi": r.mean[a].hi, "diff_a_minus_b": d.mean, "diff_lo": d.lo, "diff_hi": d.hi})
    table = pl.DataFrame(rows) if rows else pl.DataFrame()
    note = (f"Duplicate tournaments, {deals:,} deals per pair ({n_pimc:,} for a pair with pimc), each in the 6 seatings (seed {seed}, rules "
            f"{rules_label(RULES)}). Points per deal per seat; 95% t intervals over per-deal values "
            "(docs/tournament.md)." + (" `pimc` plays the cards by search and declares, accepts and calls by "
                                       "`heuristic`'s rules (`search_bids=0`), so its pairs compare card play."
                                       if "pimc" in names else "") + ("" if not notes else " " + " ".join(notes)))
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
        footnote(fig, f"{deals:,} deals per pair ({n_pimc:,} with pimc) x 6 seatings, rules {rules_label(RULES)}, seed {seed}; "
                      f"strategies: {', '.join(names)}")
        fig.tight_layout(rect=(0, 0.05, 1, 1))
        fig.savefig(out / "strategies.png", dpi=110)
        p.close(fig)
    return {"pairs": table, "notes": notes}
