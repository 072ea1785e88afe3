"""Par: how often each contract is a double-dummy win for the declarer, over 100,000 deals.

Each deal of ``seed`` is solved from its first card with every hand open (``solve_deals``,
docs/solver.md) under every solo with seat 0 as the soloist, and under the normal contract:
does Re (the soloist; in the normal game the QC holders) reach 121 under best play by both
sides? A solve past its node limit gives no answer, and the table says how many did not.

    dokosim study par [--deals 100000] [--seed 0]

Writes results/par/: par (Markdown, CSV), par.png. Not part of ``dokosim study all`` (about
half an hour on two cores). ``--strategy`` does not apply (nobody's play is simulated: best play
by both sides).
"""
from __future__ import annotations

import functools
import os
import time

import numpy as np
import polars as pl

from .common import footnote, plt, results_dir, say, write_table
from ..stats import wilson

STUDY = "par"
DEFAULT_DEALS = 100_000
CHUNK = 500
MAX_PAR_DEALS = 10**8
SOLO_NODE_LIMIT = 1_000_000   # a solo from the first card: almost always decided well within it
NORMAL_NODE_LIMIT = 50_000    # the normal game: a small budget, the unresolved share is reported
DECLARER = 0
RULES = {"preset": "ddv"}


def _solve_chunk(seed, chunk):
    """Worker: the chunk's deals solved (solos and the normal game, each with its limit)."""
    first, n = chunk.first, chunk.count
    from ..dd.deal_solves import CONTRACTS, solve_deals
    solos = solve_deals(n, seed, rules=RULES, declarer=DECLARER, node_limit=SOLO_NODE_LIMIT,
                        contracts=[k for k in CONTRACTS if k != "normal"], first=first, chunk=n)
    normal = solve_deals(n, seed, rules=RULES, declarer=DECLARER, node_limit=NORMAL_NODE_LIMIT,
                         contracts=["normal"], first=first, chunk=n)
    keep = ["deal_id", "declarer_re_normal"] + [c for c in solos.columns if c.startswith("re_wins_")]
    return solos.select(keep).join(normal.select("deal_id", "re_wins_normal"), on="deal_id")


PAR_KEYS = ("kind", "seed", "deals", "chunk", "rules", "declarer", "solo_node_limit", "normal_node_limit")


def solve_all(deals: int, seed: int, jobs: int, quiet: bool, directory=None) -> pl.DataFrame:
    """Every deal's answers, computed in ``jobs`` worker processes (chunks of CHUNK deals) and
    written as each is solved to the run directory ``directory`` (the run driver's; by default
    under the study datasets' directory, named by seed, deals and the plan's hash): an interrupted
    run, run again, loses at most the chunks that were being solved."""
    from ..run.driver import Chunk, plan_hash
    from .data import data_root
    chunks = [Chunk(i, first, min(CHUNK, deals - first)) for i, first in enumerate(range(0, deals, CHUNK))]
    manifest = {"kind": "par", "seed": seed, "deals": deals, "chunk": CHUNK, "rules": RULES,
                "declarer": DECLARER, "solo_node_limit": SOLO_NODE_LIMIT, "normal_node_limit": NORMAL_NODE_LIMIT}
    # the plan's hash in the name: a run with other limits or chunks goes to a directory of its own
    directory = directory or data_root() / f"par_s{seed}_n{deals}_{plan_hash(manifest, PAR_KEYS)[:8]}"
    return solve_in_pool(chunks, functools.partial(_solve_chunk, seed), directory, manifest, PAR_KEYS, jobs, quiet)


def solve_in_pool(chunks, worker, directory, manifest: dict, keys, jobs: int, quiet: bool) -> pl.DataFrame:
    """The run driver's run (driver.run_dataset) of ``chunks`` to the run directory ``directory``
    (``manifest``, its identity ``keys``): each chunk not yet there solved by ``worker(chunk)`` (a
    module function or a partial of one: it pickles) in ``jobs`` spawned processes (each ends with
    its parent; executors.ProcessPool) and written as soon as it is solved, with a progress bar
    over the deals; returns the whole run, sorted by deal_id."""
    from ..run.dataset import scan
    from ..run.driver import Progress, RunPlan, run_dataset
    from ..run.executors import LOST, ProcessPool
    run = run_dataset(chunks, worker, directory, RunPlan(manifest, keys),
                      executor=ProcessPool(jobs, LOST.replace("finished", "solved")),
                      progress=Progress(quiet, bar={"unit": " deals"}))
    return scan(run.directory).collect().sort("deal_id")


def table(frame: pl.DataFrame) -> pl.DataFrame:
    """Per contract: deals, answered (within the node limit), Re's double-dummy wins among them
    with a 95% Wilson interval; plus 'any solo' (the declarer wins at least one solo)."""
    rows = []
    kinds = [c[len("re_wins_"):] for c in frame.columns if c.startswith("re_wins_")]
    for k in kinds:
        col = frame[f"re_wins_{k}"]
        answered = int(col.is_not_null().sum())
        wins = int(col.sum() or 0)
        p, lo, hi = wilson(wins, answered)
        rows.append({"contract": k, "re": "soloist (seat 0)" if k != "normal" else "the QC holders",
                     "deals": frame.height, "answered": answered, "re_wins": wins,
                     "win_share": float(p), "lo": float(lo), "hi": float(hi), "node_limit":
                     NORMAL_NODE_LIMIT if k == "normal" else SOLO_NODE_LIMIT})
    solos = [f"re_wins_{k}" for k in kinds if k != "normal"]
    any_win = frame.select(pl.any_horizontal(solos).alias("w"))["w"]  # null only if no True and some null
    answered = int(any_win.is_not_null().sum())
    wins = int(any_win.sum() or 0)
    p, lo, hi = wilson(wins, answered)
    rows.append({"contract": "any solo", "re": "soloist (seat 0)", "deals": frame.height, "answered": answered,
                 "re_wins": wins, "win_share": float(p), "lo": float(lo), "hi": float(hi),
                 "node_limit": SOLO_NODE_LIMIT})
    return pl.DataFrame(rows)


def run(deals=None, strategy="heuristic", seed=0, results=None, quiet=False, charts=True, jobs=None,
        **sim) -> dict:
    """Solve ``deals`` deals (default 100,000) and write results/par/ (par.md, par.csv, par.png)."""
    deals = deals or DEFAULT_DEALS
    if deals > MAX_PAR_DEALS:  # the plan lists every chunk: 10**13 deals would not fit in memory
        from .common import StudyError
        raise StudyError(f"--deals {deals:,} is too many for the par study: at most {MAX_PAR_DEALS:,} "
                         "(every deal is solved from its first card)")
    jobs = jobs or min(2, os.cpu_count() or 1)
    out = results_dir(results, STUDY)
    say(quiet, f"par: {deals:,} deals, every solo and the normal game solved from the first card, {jobs} processes")
    start = time.time()
    frame = solve_all(deals, seed, jobs, quiet)
    seconds = time.time() - start
    summary = table(frame)
    write_outputs(out, summary, deals, seed, float(frame["declarer_re_normal"].mean()), seconds, jobs, charts)
    say(quiet, f"par: {deals:,} deals in {seconds:.0f} s -> {out}")
    return {"deals": deals, "seconds": seconds, "summary": summary}


def write_outputs(out, summary: pl.DataFrame, deals: int, seed: int, declarer_re: float, seconds: float,
                  jobs: int, charts: bool = True) -> None:
    """par.md / par.csv (the shares in percent) and par.png from the summary ``table`` gives."""
    summary = summary.with_columns((pl.col(c) * 100).alias(c) for c in ("win_share", "lo", "hi")).rename(
        {"win_share": "win_pct", "lo": "lo_pct", "hi": "hi_pct"})
    note = (f"Deals 0-{deals - 1:,} of seed {seed} (rules ddv, the dealer deal_id % 4), each solved from its first "
            "card with every hand open, no calls (`dokosim.solve_deals`, docs/solver.md): under each solo with "
            "seat 0 as the soloist, and under the normal contract (Re: the two holders of QC; seat 0 is one of "
            f"them in {declarer_re:.1%} of the deals). re_wins: deals where Re reaches 121 under best play by "
            "both sides, among those answered within the node limit; their share with a 95% Wilson interval over "
            "the answered deals (win_pct, lo_pct, hi_pct: percent). 'any solo': seat 0 wins at least one solo with open cards (answered when one "
            "is won or all seven are answered). A deal whose solve ran past the limit is not answered: the "
            "normal game's answered share is small because its limit is (the normal game from the first card "
            "is the solver's hardest case), and its win share is that of the answered deals, which are the "
            "clearer ones, so it is not an estimate for all deals. Not in the table: which contract is best "
            "for the declarer by score, and Re's mean double-dummy eyes in the normal game: both need exact "
            f"eyes from the first card, beyond this solver's budget today (docs/solver.md, Speed). Took {seconds:.0f} s "
            f"in {jobs} processes. Regenerate: `dokosim study par` (docs/studies.md).")
    write_table(summary, out / "par", "Par: double-dummy wins by contract", note)
    if charts:
        p = plt()
        fig, ax = p.subplots(figsize=(8, 4))
        s = summary.filter(pl.col("contract") != "normal")
        y = s["win_pct"].to_numpy()
        err = np.clip(np.array([y - s["lo_pct"].to_numpy(), s["hi_pct"].to_numpy() - y]), 0, None)
        ax.bar(s["contract"].to_list(), y, yerr=err, capsize=5, color="#7aa6c2", edgecolor="#2b506e")
        ax.set_ylabel("deals the soloist wins with open cards (%)")
        ax.set_title(f"Solos won double-dummy by seat 0, {deals:,} random deals (95% intervals)", fontsize=10)
        ax.tick_params(axis="x", rotation=30)
        footnote(fig, "dokosim study par: every hand open, best play by both sides, no calls (results/par/par.md)")
        fig.tight_layout()
        fig.savefig(out / "par.png", dpi=110)
        p.close(fig)
