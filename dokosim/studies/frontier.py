"""The strength frontier: every headline figure under each skill level, in one file.

``dokosim study frontier`` plays the key counts of three studies with conditional dealing
(docs/conditions.md), so that each gets the same number of hands whatever its share of deals,
under each skill level from ``random`` to the strongest affordable, and writes
``results/frontier/frontier.csv`` (columns ``study,figure,kind,count,skill,estimate,lo,hi,n``,
one row per figure and skill), ``frontier_settled.md/.csv`` (the same with the ``settled`` verdict), a chart
per study and ``advice.md`` ("what to tell a club player").

* **solo_odds**: a solo of each kind forced on seat 0 (``--contract <kind>_solo``), dealt with
  exactly ``count`` trumps (aces for fleischlos: ``where="trumps(0) == count"``, which deals
  every hand of that count equally likely: the figure is the win rate over all such hands, no
  weights needed); ``estimate`` the soloist's win rate (Wilson interval) and its mean score
  (Student t; a solo scores three times, so this interval is about 1.7 times as wide as the
  win rate's in points and is not held to +-0.3).
* **poverty**: seat 0 dealt a poor hand (3 trumps or fewer), seat 1 (asked first) dealt a hand of
  the given strength (trumps, TH and QC counted 1.5; heuristic's quantity), every seat accepting
  every poverty; rows where seat 0 declared the poverty and seat 1 took it; ``estimate`` seat 1's
  mean score (a refusal would redeal: 0), Student t interval. The search players decide the
  reservations by heuristic's rules here (``search_bids=0``, so that every skill plays the same
  population of declared poverties) and play the cards by search.
* **announcements**: the call probes of ``dokosim probe-calls`` (a call made or not at the same
  position, both branches played out) for Re/Kontra and no 90 under each skill, the break-even
  chance on that skill's own cross-fitted model (bins of 0.1, bootstrap interval) and the mean
  gain of calling per probe.

A figure is *settled* when the two strongest skills that measured it agree within their
intervals (the intervals overlap) and the strongest's interval is no wider than its target
(``target_width``: 0.06 for a chance, 0.6 points for a score). Each part is a Parquet dataset under ``data/frontier/``
written by the run driver: an interrupted run resumes where it stopped.
"""
from __future__ import annotations

import json
import math
from math import comb
from pathlib import Path

import numpy as np
import polars as pl

from ..stats import mean_interval, wilson
from .common import fmt, footnote, plt, results_dir, say, write_table

SKILLS = ("random", "simple", "heuristic", "net", "net3", "pimc", "pimc_solver")  # weakest first (the last measured answers)
SOLO_COUNTS = {"diamonds": (10, 11), "hearts": (10, 11), "spades": (10, 11), "clubs": (10, 11),
               "queens": (5, 6), "jacks": (5, 6), "fleischlos": (5, 6)}
STRENGTHS = (9.0, 9.5, 10.0, 10.5, 11.0)
# hands per row: the cheap skills at any size; the search players sized for a 95% interval of at
# most +-0.03 on a win rate (1,200 hands: +-0.028 at 0.5) and +-0.3 on a poverty score (score
# standard deviation about 6.5 at strength 9: 2,600 x 1.12 deals give about 2,300 poverties)
SIZES = {"solo": {"random": 20_000, "simple": 20_000, "heuristic": 20_000, "net": 20_000, "net3": 20_000,
                  "pimc": 1_200, "pimc_solver": 1_200},
         "poverty": {"simple": 8_000, "heuristic": 8_000, "pimc": 2_600, "pimc_solver": 2_600},
         "announcements": {"random": 100_000, "simple": 100_000, "heuristic": 100_000, "net": 100_000,
                           "net3": 100_000, "pimc": 60_000}}
# net (and net3) takes or refuses a poverty by heuristic's fixed rule (it has no accept_trumps to set
# to 0), so its poverties would be another population than the other skills': it plays no poverty row
MAX_SOLO_BLOCKS = 4  # a search player's solo row: at most 4 blocks of its size (4,800 hands)
POVERTY_RULES = {"preset": "ddv", "poverty": True}
PROBE_BLOCK = 20_000
SEARCH_PLAYERS = ("pimc", "pimc_solver")
COLUMNS = ("study", "figure", "kind", "count", "skill", "estimate", "lo", "hi", "n")
# the search players' calls as when the figures were made: heuristic's (pimc searched its calls
# from 4 December 2026 on, no difference measured: docs/strategies.md); pinned so that the command
# reproduces the committed datasets
HEURISTIC_CALLS = {"search_calls": 0.0}


def solo_where(kind: str, count: int) -> str:
    return f"aces(0) == {count}" if kind == "fleischlos" else f"trumps(0) == {count}"


def poverty_where(strength: float) -> str:
    twice = int(round(2 * strength))
    return (f"trumps(0, 'normal') <= 3 and trumps(1, 'normal') + trumps(1, 'normal') + copies(1, 'TH') "
            f"+ copies(1, 'QC') == {twice}")


def _dataset(data: Path, key: str, deals: int, seed: int, quiet: bool, **sim) -> pl.DataFrame:
    """Simulate (or resume) one part into ``data/key`` and read it back."""
    from ..run.simulate import simulate
    from ..run.dataset import scan
    path = data / key
    say(quiet, f"frontier: {key}, {deals:,} deals")
    simulate(deals, seed=seed, out=str(path), quiet=quiet, **sim)
    return scan(path).collect()


def solo_rows(skill: str, n: int, seed: int, data: Path, quiet: bool, scale: float = 1.0) -> list[dict]:
    """The solo rows of ``skill``: ``n`` hands per row; a search player's row grows by blocks of
    ``n`` hands (block k from seed + 1000 k, independent deals) until its mean score's interval is
    no wider than the target (0.6 points; at a fraction ``scale`` of the sizes, 0.6 / sqrt(scale))
    or MAX_SOLO_BLOCKS blocks are played: the size follows the figure's standard error."""
    rows = []
    width = target_width("soloist's mean score") / math.sqrt(scale)
    for kind, counts in SOLO_COUNTS.items():
        for count in counts:
            frames = []
            for block in range(MAX_SOLO_BLOCKS if skill in SEARCH_PLAYERS else 1):
                block_seed = seed + 1000 * block
                frames.append(_dataset(data, f"solo_{kind}_{count}_{skill}_{n}_s{block_seed}", n, block_seed, quiet,
                                       strategy=skill, contract=f"{kind}_solo", declarer=0,
                                       where=solo_where(kind, count),
                                       params={skill: HEURISTIC_CALLS} if skill in SEARCH_PLAYERS else None))
                iv = mean_interval(pl.concat(frames)["score_0"].cast(pl.Float64).to_numpy())
                if iv.hi - iv.lo <= width:
                    break
            df = pl.concat(frames)
            won = int((df["winner"] == "re").sum())
            p, lo, hi = wilson(won, df.height)
            rows.append(_row("solo_odds", "solo win rate", kind, count, skill, p, lo, hi, df.height))
            iv = mean_interval(df["score_0"].cast(pl.Float64).to_numpy())
            rows.append(_row("solo_odds", "soloist's mean score", kind, count, skill, iv.mean, iv.lo, iv.hi,
                             df.height))
    return rows


def poverty_rows(skill: str, n: int, seed: int, data: Path, quiet: bool) -> list[dict]:
    params = {"heuristic": {"accept_trumps": 0.0}}
    if skill in SEARCH_PLAYERS:
        params = {skill: {"search_bids": 0.0, "accept_trumps": 0.0, **HEURISTIC_CALLS}}
    rows = []
    for s in STRENGTHS:
        # about 9 in 10 such deals end in seat 0's poverty taken by seat 1 (another seat's solo or
        # poverty comes first in the rest): deal a tenth more
        deals = int(n * 1.12)
        df = _dataset(data, f"poverty_{s:g}_{skill}_{deals}_s{seed}", deals, seed, quiet, strategy=skill,
                      rules=POVERTY_RULES, params=params if skill != "simple" else None,
                      where=poverty_where(s))
        took = df.filter((pl.col("contract") == "poverty") & (pl.col("declarer") == 0)
                         & (pl.col("poverty_partner") == 1))
        iv = mean_interval(took["score_1"].cast(pl.Float64).to_numpy())
        rows.append(_row("poverty", "acceptor's score", "poverty", s, skill, iv.mean, iv.lo, iv.hi, took.height))
    return rows


def announcement_rows(skill: str, n: int, seed: int, data: Path, quiet: bool) -> list[dict]:
    from ..run.call_probe import probe_calls
    from .announcements import LEVEL_LABEL, PIMC_BIN_EDGES, PIMC_MIN_BIN, RULES, level_tables
    rows = []
    # the search players' probes come in blocks of PROBE_BLOCK deals, block k from seed + 1000 k
    # (independent deals), so that a larger size adds blocks instead of playing the first ones again
    blocks = [(seed, n)] if skill not in SEARCH_PLAYERS or n <= PROBE_BLOCK else [
        (seed + 1000 * k, min(PROBE_BLOCK, n - k * PROBE_BLOCK)) for k in range(-(-n // PROBE_BLOCK))]
    for level in (1, 2):
        frames = []
        for block_seed, block_n in blocks:
            path = data / f"probe_{level}_{skill}_{block_n}_s{block_seed}.parquet"
            say(quiet, f"frontier: probes of {LEVEL_LABEL[level]}, {skill}, {block_n:,} deals, seed {block_seed}")
            if not path.exists():
                probe_calls(block_n, level, block_seed, RULES, skill, quiet=quiet, out=str(path),
                            params={skill: HEURISTIC_CALLS} if skill in SEARCH_PLAYERS else None)
            frames.append(pl.read_parquet(path, glob=False, hive_partitioning=False))
        df = pl.concat(frames)
        _, summaries = level_tables(df, level, seed, PIMC_BIN_EDGES, PIMC_MIN_BIN)
        both = summaries[0]
        # a chance lies in [0, 1]: a bootstrap bound past it (a crossing extrapolated beyond the
        # chances seen) is cut there; an interval reaching 1 means the call may never pay
        lo, hi = (None if v is None or math.isnan(v) else min(1.0, max(0.0, v))
                  for v in (both["break_even_lo"], both["break_even_hi"]))
        point = both["break_even"]
        if point is not None and not math.isnan(point) and not 0.0 <= point <= 1.0:
            point = None  # a crossing extrapolated past the chances seen: no estimate
        rows.append(_row("announcements", "break-even chance", LEVEL_LABEL[level], None, skill,
                         point, lo, hi, both["probes"]))
        rows.append(_row("announcements", "mean gain of calling", LEVEL_LABEL[level], None, skill,
                         both["mean_gain"], both["mean_gain_lo"], both["mean_gain_hi"], both["probes"]))
    return rows


def _row(study, figure, kind, count, skill, estimate, lo, hi, n) -> dict:
    def num(x):
        return float("nan") if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)
    return {"study": study, "figure": figure, "kind": kind, "count": None if count is None else float(count),
            "skill": skill, "estimate": num(estimate), "lo": num(lo), "hi": num(hi), "n": int(n)}


PARTS = {"solo": solo_rows, "poverty": poverty_rows, "announcements": announcement_rows}


CHANCE_FIGURES = ("solo win rate", "break-even chance")
COUNT_UNIT = {"queens": "queens", "jacks": "jacks", "fleischlos": "aces"}  # what a solo's count counts


def target_width(figure: str) -> float:
    """The widest 95% interval the strongest skill may have for ``figure`` to count as settled:
    0.06 for a chance (+-3 percentage points), 0.6 points for a score."""
    return 0.06 if figure in CHANCE_FIGURES else 0.6


def settled(frame: pl.DataFrame) -> pl.DataFrame:
    """One line per figure: the two strongest skills that measured it, the strongest skill's
    interval width, and ``settled``: their intervals overlap and the strongest's is no wider than
    ``target_width`` (two wide intervals always overlap and settle nothing)."""
    order = {s: i for i, s in enumerate(SKILLS)}
    out = []
    for key, g in frame.group_by(["study", "figure", "kind", "count"], maintain_order=True):
        g = g.filter(pl.col("lo").is_not_nan() & pl.col("hi").is_not_nan())
        g = g.sort(pl.col("skill").replace_strict(order, return_dtype=pl.Int64))
        if g.height < 2:
            out.append({"study": key[0], "figure": key[1], "kind": key[2], "count": key[3], "strongest": None,
                        "next": None, "width": float("nan"), "settled": False})
            continue
        a, b = g.row(-1, named=True), g.row(-2, named=True)
        precise = a["hi"] - a["lo"] <= target_width(key[1])
        out.append({"study": key[0], "figure": key[1], "kind": key[2], "count": key[3], "strongest": a["skill"],
                    "next": b["skill"], "width": a["hi"] - a["lo"],
                    "settled": bool(precise and a["lo"] <= b["hi"] and b["lo"] <= a["hi"])})
    return pl.DataFrame(out, schema={"study": pl.Utf8, "figure": pl.Utf8, "kind": pl.Utf8, "count": pl.Float64,
                                     "strongest": pl.Utf8, "next": pl.Utf8, "width": pl.Float64,
                                     "settled": pl.Boolean})


def share_of_hands(kind: str, count: int) -> float:
    """The share of hands dealt with exactly ``count`` trumps of a ``kind`` solo (aces for
    fleischlos): hypergeometric, 12 of 48 cards."""
    from .common import trump_mask, popcount
    n_trumps = 8 if kind == "fleischlos" else int(popcount(np.array([trump_mask(kind)]))[0])
    return comb(n_trumps, count) * comb(48 - n_trumps, 12 - count) / comb(48, 12)


def poverty_share(strength: float, deals: int = 200_000, seed: int = 0) -> float:
    """The share of random deals in which seat 0 holds 3 normal trumps or fewer and seat 1 a hand
    of ``strength`` (poverty.strength: trumps, TH and QC counted 1.5): a seeded Monte Carlo
    estimate (its standard error is below 0.01 percentage points at the default size)."""
    from .poverty import strength as hand_strength
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((deals, 48)), axis=1)
    bits = np.int64(1) << order.astype(np.int64)
    seat0 = np.bitwise_or.reduce(bits[:, :12], axis=1)
    seat1 = np.bitwise_or.reduce(bits[:, 12:24], axis=1)
    return float(np.mean((hand_strength(seat0, 0.0) <= 3) & (hand_strength(seat1) == strength)))


def run(deals=None, strategy="heuristic", seed=0, results=None, quiet=False, charts=True, parts=None,
        skills=None, data="data/frontier", scale: float = 1.0, **sim) -> dict:
    """Play every part (``parts``: solo, poverty, announcements) under each of ``skills`` at
    SIZES x ``scale`` and write the frontier files. ``deals`` and ``strategy`` are not used (the
    sizes are per row; every skill is played)."""
    data = Path(data)
    out = results_dir(results, "frontier")
    rows_path = out / "frontier.csv"
    old = pl.read_csv(rows_path) if rows_path.exists() else None
    rows = []
    for part in (parts or PARTS):
        for skill in (skills or SKILLS):
            n = SIZES[part].get(skill)
            if n is None:
                continue
            rows += PARTS[part](skill, max(10, int(n * scale)), seed, data, quiet,
                                **({"scale": scale} if part == "solo" else {}))
    frame = pl.DataFrame(rows, schema={"study": pl.Utf8, "figure": pl.Utf8, "kind": pl.Utf8, "count": pl.Float64,
                                       "skill": pl.Utf8, "estimate": pl.Float64, "lo": pl.Float64,
                                       "hi": pl.Float64, "n": pl.Int64})
    if old is not None and parts is not None:  # a partial run replaces its own rows only
        old = old.with_columns(pl.col("count").cast(pl.Float64), pl.col("kind").cast(pl.Utf8))
        keep = old.join(frame.select("study", "skill").unique(), on=["study", "skill"], how="anti")
        frame = pl.concat([keep.select(COLUMNS), frame.select(COLUMNS)])
    frame = frame.select(COLUMNS)
    frame.write_csv(rows_path)
    verdict = settled(frame)
    write_table(frame.join(verdict.select("study", "figure", "kind", "count", "settled"),
                           on=["study", "figure", "kind", "count"], how="left", nulls_equal=True),
                out / "frontier_settled", "Every headline figure under each skill level",
                f"Seed {seed}; `dokosim study frontier` (docs/studies.md). `n`: hands (solos), poverties "
                "taken (poverty), probes (announcements); 95% intervals (Wilson for win rates, Student t "
                "for scores, bootstrap for break-even chances). `settled`: the two strongest skills that "
                "measured the figure agree within their intervals.")
    write_table(side_by_side(frame, verdict), out / "summary", "The frontier side by side",
                "One line per figure, `estimate [95% interval]` per skill (blank: not played at that "
                "skill), `n` of the strongest skill, and whether the two strongest agree (`settled`).")
    (out / "readme_tables.md").write_text(readme_tables(frame, verdict))
    advice = advice_table(frame, verdict)
    write_table(advice, out / "advice", "What to tell a club player",
                "Each rule with the strongest skill that measured it, its 95% interval and how often a hand "
                "qualifies (the share of dealt hands with that count; for the poverty, of deals where the "
                "first player asked holds that strength facing a poor hand, see the note in docs/studies.md).")
    if charts:
        _charts(frame, out, seed)
    (out / "frontier.json").write_text(json.dumps({"seed": seed, "scale": scale, "sizes": SIZES}, indent=1) + "\n")
    return {"rows": frame.height, "settled": int(verdict["settled"].sum()), "figures": verdict.height}


def side_by_side(frame: pl.DataFrame, verdict: pl.DataFrame) -> pl.DataFrame:
    """One line per figure, one column per skill."""
    lines = []
    for v in verdict.iter_rows(named=True):
        g = frame.filter((pl.col("study") == v["study"]) & (pl.col("figure") == v["figure"])
                         & (pl.col("kind") == v["kind"]) & (pl.col("count").eq_missing(v["count"])))
        line = {"figure": f"{v['figure']}: {v['kind']}" + ("" if v["count"] is None else f" {v['count']:g}")}
        n = None
        for skill in SKILLS:
            r = g.filter(pl.col("skill") == skill)
            if r.height == 0:
                line[skill] = ""
                continue
            r = r.row(0, named=True)
            line[skill] = ("n/a" if math.isnan(r["estimate"]) else
                           f"{fmt(r['estimate'])} [{fmt(r['lo'])}, {fmt(r['hi'])}]" if not math.isnan(r["lo"])
                           else f"{fmt(r['estimate'])} (no interval)")
            if skill == v["strongest"]:
                n = r["n"]
        line["n"] = n
        line["settled"] = "yes" if v["settled"] else "no"
        lines.append(line)
    return pl.DataFrame(lines)


def readme_tables(frame: pl.DataFrame, verdict: pl.DataFrame) -> str:
    """The frontier tables of docs/studies/frontier.md (Markdown, pasted there by
    scripts/readme_frontier.py), one per study, from the frame: each line a figure, a column per
    skill that played the study (`estimate [lo, hi]`), the strongest skill's `n`, and whether the
    figure is settled."""
    wide = side_by_side(frame, verdict)
    parts = []
    for study, title in (("solo_odds", "Solo win rate and the soloist's mean score, seat 0 declaring with exactly "
                                       "that many trumps (aces for fleischlos)"),
                         ("poverty", "A poverty taken by the first player asked: its mean score, by its strength"),
                         ("announcements", "Calls (probes: a call made or not at the same position)")):
        keys = verdict.filter(pl.col("study") == study)
        if keys.height == 0:
            continue
        labels = {f"{v['figure']}: {v['kind']}" + ("" if v["count"] is None else f" {v['count']:g}")
                  for v in keys.iter_rows(named=True)}
        sub = wide.filter(pl.col("figure").is_in(list(labels)))
        skills = [sk for sk in SKILLS if (sub[sk] != "").any()]
        head = ["figure", *[f"`{sk}`" for sk in skills], "n (strongest)", "settled"]
        lines = [f"*{title}*", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in sub.iter_rows(named=True):
            n = "" if r["n"] is None else f"{r['n']:,}"
            lines.append("| " + " | ".join([r["figure"], *[r[sk] for sk in skills], n, r["settled"]]) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def advice_table(frame: pl.DataFrame, verdict: pl.DataFrame) -> pl.DataFrame:
    """The strongest skill's answer per figure, as a rule."""
    lines = []
    for v in verdict.iter_rows(named=True):
        if v["strongest"] is None:
            continue
        r = frame.filter((pl.col("study") == v["study"]) & (pl.col("figure") == v["figure"])
                         & (pl.col("kind") == v["kind"]) & (pl.col("skill") == v["strongest"])
                         & (pl.col("count").eq_missing(v["count"]))).row(0, named=True)
        iv = f"{fmt(r['estimate'])} [{fmt(r['lo'])}, {fmt(r['hi'])}]"
        if v["study"] == "solo_odds" and v["figure"] == "soloist's mean score":
            unit = COUNT_UNIT.get(v["kind"], "trumps")
            sign = "pays" if r["lo"] > 0 else ("costs" if r["hi"] < 0 else "is even, within its interval")
            rule = f"declaring a {v['kind']} solo with {int(v['count'])} {unit} {sign} (points per solo)"
            share = f"{100 * share_of_hands(v['kind'], int(v['count'])):.2f}% of hands"
        elif v["study"] == "solo_odds":
            unit = COUNT_UNIT.get(v["kind"], "trumps")
            verdict_text = "wins more often than not" if r["lo"] > 0.5 else (
                "loses more often than not" if r["hi"] < 0.5 else "a coin flip")
            rule = f"a {v['kind']} solo with {int(v['count'])} {unit}: {verdict_text}"
            share = f"{100 * share_of_hands(v['kind'], int(v['count'])):.2f}% of hands"
        elif v["study"] == "poverty":
            sign = ("pays" if r["lo"] > 0 else "costs" if r["hi"] < 0
                    else "neither pays nor costs, within its interval")
            rule = f"accepting a poverty at strength {v['count']:g} {sign} (a refusal redeals: 0)"
            share = f"{100 * poverty_share(v['count']):.2f}% of deals"
        else:
            if v["figure"] == "break-even chance":
                rule = f"call {v['kind']} when the chance of making it good is above the break-even"
            else:
                sign = "gains" if r["lo"] > 0 else ("loses" if r["hi"] < 0 else "is even")
                rule = f"calling {v['kind']} at every chance {sign} on average"
            share = ""
        lines.append({"rule": rule, "skill": v["strongest"], "estimate": iv, "n": r["n"],
                      "settled": v["settled"], "hands": share})
    return pl.DataFrame(lines)


def _charts(frame: pl.DataFrame, out: Path, seed: int) -> None:
    p = plt()
    colors = {"random": "#c9c9c9", "simple": "#9a9a9a", "heuristic": "#2b6ea6", "net": "#3a9a5b",
              "net3": "#8cc63f", "pimc": "#c2553a", "pimc_solver": "#6a2c91"}
    for study, title, ylabel in (("solo_odds", "Solo win rate at the key counts", "soloist's win rate"),
                                 ("poverty", "Accepting a poverty: the acceptor's score by strength", "score"),
                                 ("announcements", "Calls: break-even chance and mean gain", "")):
        f = frame.filter(pl.col("study") == study)
        if study == "solo_odds":  # the mean scores are in the table; the chart keeps one scale
            f = f.filter(pl.col("figure") == "solo win rate")
        if f.height == 0:
            continue
        labels = list(dict.fromkeys(
            f"{r['figure']}: {r['kind']}" + ("" if r["count"] is None else f" {r['count']:g}")
            for r in f.iter_rows(named=True)))
        fig, ax = p.subplots(figsize=(max(7, 0.6 * len(labels) + 2), 4.5))
        skills = [s for s in SKILLS if s in set(f["skill"].to_list())]
        width = 0.8 / len(skills)
        for i, skill in enumerate(skills):
            xs, ys, los, his = [], [], [], []
            for r in f.filter(pl.col("skill") == skill).iter_rows(named=True):
                label = f"{r['figure']}: {r['kind']}" + ("" if r["count"] is None else f" {r['count']:g}")
                if math.isnan(r["estimate"]):
                    continue
                xs.append(labels.index(label) + (i - (len(skills) - 1) / 2) * width)
                ys.append(r["estimate"])
                los.append(r["estimate"] - (r["lo"] if not math.isnan(r["lo"]) else r["estimate"]))
                his.append((r["hi"] if not math.isnan(r["hi"]) else r["estimate"]) - r["estimate"])
            ax.errorbar(xs, ys, yerr=[los, his], fmt="o", ms=4, capsize=2, color=colors[skill], label=skill)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels([lab.split(": ", 1)[1] if study != "announcements" else lab for lab in labels],
                           rotation=45, ha="right", fontsize=8)
        if study == "solo_odds":
            ax.axhline(0.5, color="#888", lw=0.6)
        if study == "poverty":
            ax.axhline(0.0, color="#888", lw=0.6)
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8)
        footnote(fig, f"dokosim study frontier, seed {seed}; 95% intervals; n per point: results/frontier/frontier.csv")
        fig.tight_layout()
        fig.savefig(out / f"{study}.png", dpi=110)
        p.close(fig)


def main(argv=None) -> int:
    """``python -m dokosim.studies.frontier [--parts solo,poverty] [--skills pimc] [--scale 0.1]``:
    a part of the frontier, or all of it at a fraction of its sizes."""
    import argparse
    ap = argparse.ArgumentParser(prog="python -m dokosim.studies.frontier", description=main.__doc__)
    ap.add_argument("--parts", default=",".join(PARTS), help="comma-separated: " + ", ".join(PARTS))
    ap.add_argument("--skills", default=",".join(SKILLS), help="comma-separated: " + ", ".join(SKILLS))
    ap.add_argument("--scale", type=float, default=1.0, help="a fraction (or multiple) of every size")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--results", default=None, help="the results directory (default: results/ here)")
    ap.add_argument("--data", default="data/frontier", help="where the datasets go (resumed if there)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    parts = [p for p in a.parts.split(",") if p]
    skills = [s for s in a.skills.split(",") if s]
    for p in parts:
        if p not in PARTS:
            ap.error(f"unknown part {p!r}; valid: {', '.join(PARTS)}")
    for s in skills:
        if s not in SKILLS:
            ap.error(f"unknown skill {s!r}; valid: {', '.join(SKILLS)}")
    full = set(parts) == set(PARTS) and set(skills) == set(SKILLS)
    print(run(seed=a.seed, results=a.results, quiet=a.quiet, parts=None if full else parts,
              skills=skills, data=a.data, scale=a.scale))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
