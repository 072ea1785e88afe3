"""Par of the normal game: Re's double-dummy win share and band distribution from the first card.

Each deal of ``seed`` is played as the normal game (Re: the two holders of QC; a seat holding
both plays a silent marriage, a solo) and solved from its first card with every hand open and no
calls by the band search (``value_deals``, docs/solver.md "Bands and the game value"): the band
of Re's final eyes that decides the game value without calls (0, 1-29, 30-59, 60-89, 90-120,
121-150, 151-180, 181-210, 211-239, 240), within NODE_LIMIT nodes a deal. A deal past it is not
answered; what its finished searches proved is kept (``eyes_lo`` / ``eyes_hi``), so the win share
is given as a bracket over all deals (the deals whose search at 121 did not finish counted once
as lost, once as won) besides its share among the deals the search at 121 answered.

    dokosim study par_normal [--deals 1000] [--seed 0]

Writes results/par/: normal (Markdown, CSV), normal.png. Not part of ``dokosim study all``.
"""
from __future__ import annotations

import functools
import os
import time

import numpy as np
import polars as pl

from .common import footnote, plt, results_dir, say, write_table
from ..stats import wilson

STUDY = "par_normal"
RESULTS = "par"
DEFAULT_DEALS = 1_000
CHUNK = 50
NODE_LIMIT = 30_000_000
RULES = {"preset": "ddv"}
BANDS = ("0", "1-29", "30-59", "60-89", "90-120", "121-150", "151-180", "181-210", "211-239", "240")
KEYS = ("kind", "seed", "deals", "chunk", "rules", "node_limit", "search")


def _solve_chunk(seed, node_limit, chunk):
    """Worker: the chunk's deals under the normal contract, by the band search."""
    from ..dd.deal_solves import value_deals
    return value_deals(chunk.count, seed, rules=RULES, node_limit=node_limit, contracts=("normal",), first=chunk.first,
                       chunk=chunk.count)


def solve_all(deals: int, seed: int, jobs: int, quiet: bool, node_limit: int = NODE_LIMIT) -> pl.DataFrame:
    """Every deal's row (``deal_solves.COLUMNS``), solved in ``jobs`` processes and written chunk
    by chunk to a run directory under the study datasets' directory (resumable)."""
    from ..run.driver import Chunk, plan_hash
    from .data import data_root
    chunks = [Chunk(i, first, min(CHUNK, deals - first)) for i, first in enumerate(range(0, deals, CHUNK))]
    from ..solver.eyes import SEARCH_VERSION
    # which deals a node limit answers depends on the search's version: a run of another one is not resumed
    manifest = {"kind": STUDY, "seed": seed, "deals": deals, "chunk": CHUNK, "rules": RULES, "node_limit": node_limit,
                "search": SEARCH_VERSION}
    directory = data_root() / f"{STUDY}_s{seed}_n{deals}_{plan_hash(manifest, KEYS)[:8]}"
    from .par import solve_in_pool
    return solve_in_pool(chunks, functools.partial(_solve_chunk, seed, node_limit), directory, manifest, KEYS, jobs,
                         quiet)


def tables(frame: pl.DataFrame) -> tuple[pl.DataFrame, dict]:
    """The band distribution over the answered deals (share with a 95% Wilson interval) and the
    win figures: answered shares, the win share among the deals the search at 121 answered, and
    the bracket over all deals."""
    n = frame.height
    answered = frame.filter(pl.col("answered"))
    rows = []
    for band in BANDS:
        k = int((answered["band"] == band).sum())
        p, lo, hi = wilson(k, max(answered.height, 1))
        rows.append({"band": band, "deals": k, "share": float(p), "lo": float(lo), "hi": float(hi)})
    won = int((frame["eyes_lo"] >= 121).sum())
    lost = int((frame["eyes_hi"] <= 120).sum())
    decided = won + lost
    p, lo, hi = wilson(won, max(decided, 1))
    wins = {"deals": n, "answered": answered.height, "answered_share": answered.height / n,
            "decided_121": decided, "decided_share": decided / n, "re_wins": won,
            "win_share_decided": float(p), "lo": float(lo), "hi": float(hi),
            "bracket_lo": won / n, "bracket_hi": (n - lost) / n,
            "median_ms": float(frame["ms"].median()), "mean_ms": float(frame["ms"].mean())}
    return pl.DataFrame(rows), wins


def run(deals=None, strategy="heuristic", seed=0, results=None, quiet=False, charts=True, jobs=None,
        node_limit=NODE_LIMIT, **sim) -> dict:
    """Solve ``deals`` deals (default 1,000) and write results/par/normal.{md,csv,png}."""
    deals = deals or DEFAULT_DEALS
    jobs = jobs or min(2, os.cpu_count() or 1)
    out = results_dir(results, RESULTS)
    say(quiet, f"par_normal: {deals:,} normal games solved from the first card (band search, "
               f"{node_limit:,} nodes a deal), {jobs} processes")
    start = time.time()
    frame = solve_all(deals, seed, jobs, quiet, node_limit)
    seconds = time.time() - start
    bands, w = tables(frame)
    note = (f"Deals 0-{deals - 1:,} of seed {seed} (rules ddv), each played as the normal game (Re: the QC "
            "holders; a seat with both plays a silent marriage) and solved from its first card with every hand "
            "open, no calls, by the band search (`dokosim solve --deals N --value`, docs/solver.md): the band of "
            "Re's final eyes under best play by both sides that decides the game value without calls, within "
            f"{node_limit:,} nodes a deal. **Answered: {w['answered']:,} of {deals:,} deals "
            f"({w['answered_share']:.1%})**; the distribution below is over those (share with a 95% Wilson "
            "interval) and is not an estimate for all deals: the unanswered deals are the close ones, whose "
            "value lies near a band edge. Does Re win (reach 121)? Decided for "
            f"{w['decided_121']:,} deals ({w['decided_share']:.1%}); Re wins {w['re_wins']:,} of them, "
            f"{w['win_share_decided']:.1%} [{w['lo']:.1%}, {w['hi']:.1%}]; over all {deals:,} deals Re's "
            f"double-dummy win share lies between {w['bracket_lo']:.1%} (every undecided deal lost) and "
            f"{w['bracket_hi']:.1%} (every undecided deal won). CPU time a deal: median {w['median_ms']:.0f} ms, "
            f"mean {w['mean_ms']:.0f} ms. Took {seconds:.0f} s in {jobs} processes. Regenerate: "
            f"`dokosim study par_normal --deals {deals}` (docs/studies.md).")
    pct = bands.with_columns((pl.col(c) * 100).alias(c) for c in ("share", "lo", "hi")).rename(
        {"share": "share_pct", "lo": "lo_pct", "hi": "hi_pct"})
    write_table(pct, out / "normal", "Par of the normal game: Re's double-dummy band from the first card", note)
    if charts:
        p = plt()
        fig, ax = p.subplots(figsize=(8, 4))
        y = pct["share_pct"].to_numpy()
        err = np.clip(np.array([y - pct["lo_pct"].to_numpy(), pct["hi_pct"].to_numpy() - y]), 0, None)
        ax.bar(pct["band"].to_list(), y, yerr=err, capsize=4, color="#7aa6c2", edgecolor="#2b506e")
        ax.set_xlabel("Re's eyes under best play by both sides (band)")
        ax.set_ylabel("share of the answered deals (%)")
        ax.set_title(f"Normal game, double-dummy from the first card: {w['answered']:,} of {deals:,} deals "
                     "answered", fontsize=10)
        footnote(fig, f"dokosim study par_normal: every hand open, no calls, {node_limit:,} nodes a deal; "
                      "unanswered deals are the close ones (results/par/normal.md)")
        fig.tight_layout()
        fig.savefig(out / "normal.png", dpi=110)
        p.close(fig)
    say(quiet, f"par_normal: {deals:,} deals in {seconds:.0f} s -> {out}")
    return {"deals": deals, "seconds": seconds, "bands": bands, "wins": w}
