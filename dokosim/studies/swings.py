"""Swings: the cards that change a deal's value under double-dummy play, in all twelve tricks.

Each of random, simple, heuristic, pimc and pimc_solver plays 500 deals at all four seats
(keep-play), and ``dokosim.audit`` with ``tricks=12`` sets every card against the game value's
bands (docs/audit.md): a card swings when Re's best-play band (the band of Re's eyes that the
deal's calls score: 0, 1-29, ..., 90-120, 121-150, ..., 240) differs before and after it. The
last six tricks are solved exactly (their eyes lost per card too); in tricks 1-6 each band search
stops at NODE_LIMIT nodes and its card is then not answered, so the table gives each trick's
answered share, and a trick's swing rate is over its answered cards only (the unanswered ones are
the close deals, where a card is likelier to swing: the early tricks' rates are not estimates for
all cards).

    dokosim study swings [--deals 500] [--seed 0]

Writes results/strategies/: swings (Markdown, CSV), swings.png. The audits of two strategies run
at once (two processes). Not part of ``dokosim study all`` (about an hour on two cores).
"""
from __future__ import annotations

import polars as pl

from .common import by_strategy, results_dir, rules_label, say, trick_chart, write_table

STUDY = "swings"
RESULTS = "strategies"
DEFAULT_DEALS = 500
NODE_LIMIT = 1_000_000
CANDIDATES = ("random", "simple", "heuristic", "pimc", "pimc_solver")
RULES = {"preset": "ddv"}
COLORS = {"random": "#9a9a9a", "simple": "#7aa6c2", "heuristic": "#2b506e", "pimc": "#c2562b",
          "pimc_solver": "#7a2b8c"}
JOBS = 2


def _audit(task):
    """Worker: the audit of one strategy's dataset (its summary and its seconds), written to
    ``out`` (the dataset's name + ``_audit12_<node limit>_s<search version>``: which cards a node
    limit answers depends on the search's version) and read back from there when a run before
    wrote it whole."""
    import json
    from pathlib import Path

    directory, node_limit = task
    from ..dd.audit import audit
    from ..solver.eyes import SEARCH_VERSION
    out = Path(f"{directory}_audit12_{node_limit}_s{SEARCH_VERSION}")
    done = out / "done.json"
    if done.exists():
        return pl.read_csv(out / "summary.csv"), json.loads(done.read_text())["seconds"]
    if out.exists():  # a run cut short: its files are incomplete
        import shutil
        shutil.rmtree(out)
    r = audit(directory, tricks=12, node_limit=node_limit, quiet=True, out=out)
    done.write_text(json.dumps({"seconds": r.seconds}))
    return r.summary, r.seconds


def run(deals=None, strategy="heuristic", seed=0, results=None, quiet=False, charts=True,
        candidates=CANDIDATES, node_limit=NODE_LIMIT, jobs=JOBS, **sim) -> dict:
    """Simulate ``deals`` deals (keep-play) per candidate at all four seats, audit all 12 tricks
    of each (``jobs`` audits at once), write results/strategies/swings.{md,csv,png}."""
    import time

    from .data import dataset, dataset_directory
    from .strategies import available
    deals = deals or DEFAULT_DEALS
    out = results_dir(results, RESULTS)
    names, notes = available(candidates)
    directories = []
    for name in names:
        say(quiet, f"swings: {name}, {deals} deals (keep-play)")
        dataset(STUDY, deals, seed, name, RULES, keep_play=True, quiet=quiet, **sim)
        directories.append(str(dataset_directory(STUDY, deals, seed, name)))
    t0 = time.perf_counter()
    say(quiet, f"swings: auditing {len(names)} strategies, all 12 tricks, {jobs} at once")
    from ..run.workers import WorkerPool
    with WorkerPool(jobs) as pool:  # Ctrl-C or an error: the workers stopped at once
        finished = dict(pool.run(_audit, range(len(directories)), lambda i: ((directories[i], node_limit),)))
    done = [finished[i] for i in range(len(directories))]
    seconds = time.perf_counter() - t0
    audit_seconds = sum(t for _, t in done)  # each audit's own time (read back with a finished audit)
    summary = pl.concat([s for s, _ in done])
    summary = by_strategy(summary, names)
    keep = ["strategy", "by", "level", "deals", "band_cards", "band_answered", "band_swings_per_1000",
            "band_swing_lo", "band_swing_hi", "cards", "eyes_lost_per_card", "lo", "hi"]
    table = summary.select(keep)
    overall = table.filter((pl.col("by") == "trick") & (pl.col("level").cast(pl.Int64, strict=False) >= 7)).group_by(
        "strategy", maintain_order=True).agg(pl.col("band_swings_per_1000").mean().alias("late"))
    late = "; ".join(f"{r['strategy']} {r['late']:.1f}" for r in overall.iter_rows(named=True))
    note = (f"Swings: cards that changed Re's double-dummy band (the band of Re's eyes under best play by "
            f"both sides, every hand open, no further calls, that the deal's calls score: 0, 1-29, 30-59, "
            f"60-89, 90-120 (120 apart when the calls score it), 121-150, 151-180, 181-210, 211-239, 240), "
            f"so the deal's value under best play, per 1,000 answered cards, by trick, with 95% intervals "
            f"over deals (ratio estimator, t). {deals:,} deals per strategy, the strategy at all four seats "
            f"(seed {seed}, rules {rules_label(RULES)}, calls on). Tricks 7-12: exact solves, every card "
            f"answered (eyes lost per card too). Tricks 1-6: each band search stops at {node_limit:,} nodes; "
            f"band_answered is the share of cards answered, and a trick's rate is over those only: the "
            f"unanswered cards lie in the close deals, where a card is likelier to swing, so where few are "
            f"answered the rate is not an estimate for all cards. Mean swings per 1,000 cards over tricks "
            f"7-12 (unweighted mean of the six tricks): {late}. pimc_solver plays as pimc until trick 7 (the "
            f"same seed, so the same cards there). The audits took {audit_seconds:,.0f} s (summed over the "
            f"strategies, {jobs} at a time). Regenerate: `dokosim study swings` (docs/audit.md, docs/studies.md)."
            + ("" if not notes else " " + " ".join(notes)))
    write_table(table, out / STUDY, "Strategies: swings in all 12 tricks against double-dummy play", note)
    if charts and table.height:
        trick_chart(table.filter((pl.col("by") == "trick") & (pl.col("band_answered") >= 0.5)), names,
                    ("band_swings_per_1000", "band_swing_lo", "band_swing_hi"), (2, 0.07),
                    ("swings per 1,000 cards (95% interval)", range(1, 13),
                     "Cards that change the double-dummy game value, by trick"), COLORS,
                    f"{deals:,} deals per strategy, all four seats, {rules_label(RULES)}, seed {seed}; tricks with "
                    f">= half the cards answered ({node_limit:,} nodes a search); dokosim study swings",
                    out / f"{STUDY}.png")
    return {"summary": summary, "seconds": seconds, "notes": notes}
