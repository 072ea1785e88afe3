"""The studies' headline figures under each skill level: ``simple``, ``heuristic`` and ``pimc``.

Every study runs its full tables under one strategy (``heuristic`` by default) and its
headline figures under each of SKILLS: ``simple`` and ``heuristic`` at the study's size, ``pimc``
on a subsample (PIMC_SHARE of the study's deals, at least MIN_PIMC_DEALS; pimc plays about 40
deals per second per core, docs/studies.md). A headline row is (figure, skill, deals, estimate,
lo, hi); ``write_skills`` writes them side by side (``skills.md/.csv``, one column per skill),
long (``skills_long.csv``) and draws ``skills.png``.
"""
from __future__ import annotations

import math

import polars as pl

from .common import fmt, footnote, plt, write_table

SKILLS = ("simple", "heuristic", "pimc")
SKILL_COLOR = {"simple": "#9a9a9a", "heuristic": "#2b6ea6", "pimc": "#c2553a"}
PIMC_BIDS = {"search_bids": 0}
"""The skill columns' ``pimc``: the cards by search, the reservations, poverty acceptance and calls
by ``heuristic``'s rules (``search_bids=0``), so that a column differs from ``heuristic``'s by the
card play alone and poverty's declarations are the same as ``heuristic``'s; ``pimc`` deciding its
bids and calls by search is measured by the tournaments of docs/strategies.md."""


def skill_bids(strategy: str) -> dict:
    """``strategy``'s own parameters in a skill column: ``PIMC_BIDS`` for pimc, none otherwise."""
    return dict(PIMC_BIDS) if strategy == "pimc" else {}


def skill_params(strategy: str) -> dict | None:
    """``params`` for ``simulate`` / ``tournament`` / ``probe_calls`` that pin ``PIMC_BIDS`` when
    ``strategy`` is pimc (None otherwise)."""
    bids = skill_bids(strategy)
    return {strategy: bids} if bids else None


def skill_tag(strategy: str) -> str:
    """The dataset-name suffix of a pinned pimc (a dataset made before the pin is not reused)."""
    return "_bids0" if strategy == "pimc" else ""


def skill_deals(study_deals: int, pimc_share: float, min_pimc: int, pimc_deals: int | None = None
                ) -> dict[str, int]:
    """Deals per skill for a study of ``study_deals``: the study's size for simple and heuristic,
    ``pimc_share`` of it (at least ``min_pimc``, at most the study's size) for pimc, or
    ``pimc_deals`` where the caller gives it."""
    pimc = min(study_deals, max(min_pimc, round(study_deals * pimc_share)))
    return {"simple": study_deals, "heuristic": study_deals, "pimc": pimc if pimc_deals is None else pimc_deals}


def row(figure: str, skill: str, deals: int, estimate, lo, hi, unit: str = "") -> dict:
    """One headline row (NaN where a figure could not be measured)."""
    def num(x):
        return float("nan") if x is None else float(x)
    return {"figure": figure, "skill": skill, "deals": int(deals), "estimate": num(estimate),
            "lo": num(lo), "hi": num(hi), "unit": unit}


def side_by_side(rows: list[dict], digits: int = 3) -> pl.DataFrame:
    """One line per figure, one column per skill: 'estimate [lo, hi]' (blank where not run)."""
    figures = list(dict.fromkeys(r["figure"] for r in rows))
    cells = {(r["figure"], r["skill"]): r for r in rows}
    out = {"figure": figures}
    for skill in SKILLS:
        col = []
        for f in figures:
            r = cells.get((f, skill))
            if r is None or math.isnan(r["estimate"]):
                col.append("" if r is None else "n/a")
            elif math.isnan(r["lo"]):
                col.append(fmt(r["estimate"], digits))
            else:
                col.append(f"{fmt(r['estimate'], digits)} [{fmt(r['lo'], digits)}, {fmt(r['hi'], digits)}]")
        out[skill] = col
    return pl.DataFrame(out)


def write_skills(rows: list[dict], out_dir, title: str, note: str, digits: int = 3,
                 chart: bool = True, foot: str = "") -> pl.DataFrame:
    """Write ``skills.md/.csv`` (side by side), ``skills_long.csv`` (figure, skill, deals,
    estimate, lo, hi, unit) and ``skills.png`` (each figure's estimate per skill with its 95% interval)."""
    long = pl.DataFrame(rows, schema={"figure": pl.Utf8, "skill": pl.Utf8, "deals": pl.Int64,
                                      "estimate": pl.Float64, "lo": pl.Float64, "hi": pl.Float64,
                                      "unit": pl.Utf8})
    long.write_csv(out_dir / "skills_long.csv", float_precision=6)
    most = dict(long.group_by("skill").agg(pl.col("deals").max()).rows())
    sizes = ", ".join(f"`{s}` {most[s]:,}" for s in SKILLS if s in most)
    wide = side_by_side(rows, digits)
    write_table(wide, out_dir / "skills", title,
                note + (f" Deals per dataset: {sizes}." if sizes else "") +
                " The numbers: `skills_long.csv`.", digits)
    if chart and long.height:
        _chart(long, out_dir / "skills.png", title, foot)
    return wide


def _chart(long: pl.DataFrame, path, title: str, foot: str) -> None:
    p = plt()
    figures = list(dict.fromkeys(long["figure"].to_list()))
    units = {f: long.filter(pl.col("figure") == f)["unit"][0] for f in figures}
    groups = list(dict.fromkeys(units.values()))  # one panel per unit (chance, points, ...)
    heights = [max(1.2, 0.42 * sum(units[f] == u for f in figures)) for u in groups]
    fig, axes = p.subplots(len(groups), 1, figsize=(9, sum(heights) + 1.2), squeeze=False,
                           gridspec_kw={"height_ratios": heights})
    for ax, unit in zip(axes[:, 0], groups):
        fs = [f for f in figures if units[f] == unit]
        for j, skill in enumerate(SKILLS):
            sub = long.filter(pl.col("skill") == skill)
            for i, f in enumerate(fs):
                r = sub.filter(pl.col("figure") == f)
                if r.height == 0 or math.isnan(r["estimate"][0]):
                    continue
                y = len(fs) - 1 - i + (1 - j) * 0.25
                est, lo, hi = r["estimate"][0], r["lo"][0], r["hi"][0]
                err = None if math.isnan(lo) else [[max(est - lo, 0.0)], [max(hi - est, 0.0)]]
                ax.errorbar([est], [y], xerr=err,
                            fmt="o", ms=4, capsize=3, color=SKILL_COLOR[skill],
                            label=skill if i == 0 or skill not in ax.get_legend_handles_labels()[1] else None)
        ax.set_yticks(range(len(fs)), list(reversed(fs)), fontsize=7)
        ax.set_xlabel(unit or "estimate", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
        if "points" in unit or "gain" in unit:
            ax.axvline(0, color="0.4", lw=0.8)
        handles, labels = ax.get_legend_handles_labels()
        uniq = dict(zip(labels, handles))
        ax.legend(uniq.values(), uniq.keys(), fontsize=7, loc="best")
    fig.suptitle(title + " (95% intervals)", fontsize=10)
    footnote(fig, foot)
    fig.tight_layout(rect=(0, 0.03, 1, 0.97))
    fig.savefig(path, dpi=110)
    p.close(fig)
