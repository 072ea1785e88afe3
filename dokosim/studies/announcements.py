"""Announcement thresholds: what a call gains as a function of the caller's chance at that moment.

    dokosim study announcements [--deals 400000] [--strategy heuristic] [--seed 0]
    python -m analysis.announcements [--deals N] ...

For each call level (Re/Kontra, no 90, no 60, no 30, schwarz), ``dokosim.probe_calls`` plays
``deals`` normal deals to a random moment at which some player may make that call, then plays
the position on twice with common random numbers: with the call, and without it (with only
the calls below it). The gain of a probe is the caller's score with the call minus without.

The caller's chance at that moment is estimated from what the caller can see (hand make-up,
eyes taken so far by the seats it knows to be on either side, calls so far, cards played) by a
logistic regression of "made good without the call" (the win for Re/Kontra; the opponents
under 90/60/30 eyes; the opponents without a trick for schwarz), cross-fitted on two halves of
the deals so that no probe is scored by a model fitted on it. Probes are binned by that
estimate; the break-even point is where the mean gain against the estimate crosses zero (locally, between the two bins around the sign change), with a 95% bootstrap
interval. The scoring alone puts it at 1/2 for Re/Kontra
and 8/9, 11/12, 14/15, 17/18 for the denials (if calling changed nothing else).

Writes to results/announcements/: by_chance.{md,csv} (per level and bin: probes, mean
estimate, observed success rate, mean gain, intervals), break_even.{md,csv} (every level for
both sides together and for the Re and the Kontra side apart), gain_vs_chance.png, and the
break-even points under simple, heuristic and pimc side by side (skills.md, skills.png; pimc on a
subsample of PIMC_LEVELS).
"""
from __future__ import annotations

import numpy as np
import polars as pl

from ..run.players import STRONGEST_FAST
from .common import footnote, plt, results_dir, rules_label, say, write_table
from ..stats import mean_ci, wilson
from .skills import skill_params
from .solo_model import auc, fit_logistic, predict_proba

STUDY = "announcements"
DEFAULT_DEALS = 400_000
RULES = {"preset": "ddv"}
LEVELS = (1, 2, 3, 4, 5)
LEVEL_LABEL = {1: "Re/Kontra", 2: "no 90", 3: "no 60", 4: "no 30", 5: "schwarz"}
# break-even chance from the scoring alone (the brief's figures, derived in docs/studies.md)
THEORY = {1: 1 / 2, 2: 8 / 9, 3: 11 / 12, 4: 14 / 15, 5: 17 / 18}
FEATURES = ("cards_played", "trumps", "top_trumps", "plain_aces", "plain_tens", "voids", "eyes_own",
            "eyes_opp", "partner_known", "level_own", "level_opp", "side")
BIN_EDGES = np.linspace(0.0, 1.0, 21)
MIN_BIN = 100  # bins with fewer probes are not used for the crossing nor drawn
BOOTSTRAP = 400
PIMC_SHARE = 0.00625  # pimc probes 0.625% of the study's deals (2,500 at the default size) ...
MIN_PIMC_DEALS = 200
PIMC_LEVELS = (1, 2)
# pimc's few probes: bins of 0.1 with >= 40 probes (the break-even point's interval shows the cost)
PIMC_BIN_EDGES = np.linspace(0.0, 1.0, 11)
PIMC_MIN_BIN = 40
RETUNE_DEALS = 20_000  # the duplicate tournament of the re-tuned heuristic against today's
# heuristic's call thresholds and the call level each one decides (docs/strategies.md)
RETUNE_PARAMS = {"call_win": 1, "deny_win": 2}  # ... for Re/Kontra and no 90 only (the higher calls are too rare at that size)


def design(df: pl.DataFrame) -> np.ndarray:
    """The model's design matrix: an intercept and the caller's view at the moment."""
    cols = [np.ones(df.height)] + [df[f].cast(pl.Float64).to_numpy() for f in FEATURES]
    cols.append(df["trumps"].cast(pl.Float64).to_numpy() ** 2)
    cols.append((df["eyes_own"] - df["eyes_opp"]).cast(pl.Float64).to_numpy() ** 2 / 100.0)
    return np.column_stack(cols)


def cross_fitted_chance(df: pl.DataFrame) -> tuple[np.ndarray, float, float, float]:
    """P(made good without the call) for every probe, each from the model fitted on the other
    half of the deals (deal_id parity); and the AUC of those estimates with its interval."""
    X = design(df)
    y = df["success_without"].cast(pl.Float64).to_numpy()
    fold = (df["deal_id"].to_numpy() & 1).astype(bool)
    chance = np.empty(df.height)
    for held in (False, True):
        train = fold != held
        if y[train].min() == y[train].max():  # nothing to fit: the training half's rate
            chance[~train] = y[train].mean()
            continue
        beta = fit_logistic(X[train], y[train])
        chance[~train] = predict_proba(beta, X[~train])
    if y.min() == y.max():
        return chance, float("nan"), float("nan"), float("nan")
    return (chance, *auc(y, chance))


def break_even(chance: np.ndarray, gain: np.ndarray, seed: int, edges=BIN_EDGES,
               min_bin: int = MIN_BIN) -> tuple[float, float, float, str]:
    """Where the mean gain crosses from below zero to above it, as the estimated chance rises.

    The gain is not linear in the chance (a denial that fails costs most where the side would
    have won without it), so the crossing is found locally: the highest pair of neighbouring
    bins (each with at least ``min_bin`` probes; bins ``edges``) whose mean gains go from
    negative to positive; a line fitted to the probes of those two bins and the next bin on each
    side gives the point, and a bootstrap over those probes its 95% interval. Returns (point, lo, hi, note); NaN with a note when the mean gain
    never crosses zero within the data.
    """
    bins = np.clip(np.digitize(chance, edges) - 1, 0, len(edges) - 2)
    counts = np.bincount(bins, minlength=len(edges) - 1)
    sums = np.bincount(bins, weights=gain, minlength=len(edges) - 1)
    full = np.flatnonzero(counts >= min_bin)
    if full.size == 0:
        return float("nan"), float("nan"), float("nan"), "too few probes"
    means = sums[full] / counts[full]
    crossing = [j for j in range(len(full) - 1) if means[j] < 0 <= means[j + 1]]
    if not crossing:
        top = edges[full[-1] + 1]
        if (means < 0).all():
            return float("nan"), float("nan"), float("nan"), f"never pays up to chance {top:.2f}"
        if (means >= 0).all():
            return float("nan"), float("nan"), float("nan"), "pays at every chance seen"
        return float("nan"), float("nan"), float("nan"), "crosses zero only from above"
    j = crossing[-1]
    window = full[max(j - 1, 0):j + 3]  # the two bins around the sign change and one more each side
    sel = np.isin(bins, window)
    c, g = chance[sel], gain[sel]

    def zero(ci, gi):
        b, a = np.polyfit(ci, gi, 1)
        return -a / b if b > 0 else float("nan")
    point = zero(c, g)
    rng = np.random.default_rng(seed)
    boots = np.array([zero(c[i], g[i]) for i in (rng.integers(0, c.size, c.size) for _ in range(BOOTSTRAP))])
    lo, hi = np.nanpercentile(boots, [2.5, 97.5])
    return (float(point), float(lo), float(hi),
            f"sign change in {edges[full[j]]:.2f}-{edges[full[j + 1] + 1]:.2f}, "
            f"line fitted on {edges[window[0]]:.2f}-{edges[window[-1] + 1]:.2f}")


def level_tables(df: pl.DataFrame, level: int, seed: int, edges=BIN_EDGES,
                 min_bin: int = MIN_BIN) -> tuple[pl.DataFrame, dict]:
    """The binned table and the break-even rows of one call level (both sides, then each side),
    with bins ``edges`` and at least ``min_bin`` probes per bin used for the crossing."""
    chance, auc_value, auc_lo, auc_hi = cross_fitted_chance(df)
    gain = (df["score_with"] - df["score_without"]).cast(pl.Float64).to_numpy()
    success = df["success_without"].to_numpy().astype(float)
    bins = np.clip(np.digitize(chance, edges) - 1, 0, len(edges) - 2)
    rows = []
    for k in range(len(edges) - 1):
        sel = bins == k
        n = int(sel.sum())
        if n == 0:
            continue
        g, g_lo, g_hi = mean_ci(gain[sel])
        s, s_lo, s_hi = wilson(success[sel].sum(), n)
        rows.append({"level": LEVEL_LABEL[level], "chance_from": edges[k], "chance_to": edges[k + 1],
                     "probes": n, "mean_chance": float(chance[sel].mean()),
                     "made_good": float(s), "made_good_lo": float(s_lo), "made_good_hi": float(s_hi),
                     "mean_gain": g, "gain_lo": g_lo, "gain_hi": g_hi})
    table = pl.DataFrame(rows)

    def summary_row(label, sel):
        point, lo, hi, how = break_even(chance[sel], gain[sel], seed + level, edges, min_bin)
        g_all, g_all_lo, g_all_hi = mean_ci(gain[sel])
        opp_more = (df["level_opp_with"] > df["level_opp_without"]).to_numpy()[sel]
        return {"level": label, "probes": int(sel.sum()), "break_even": point,
                "break_even_lo": lo, "break_even_hi": hi, "scoring_alone": THEORY[level],
                "crossing": how, "mean_gain": g_all, "mean_gain_lo": g_all_lo,
                "mean_gain_hi": g_all_hi, "made_good_without": float(success[sel].mean()),
                "opp_called_more_with": float(opp_more.mean()),
                "win_with": float(df["win_with"].to_numpy()[sel].mean()),
                "win_without": float(df["win_without"].to_numpy()[sel].mean()),
                "model_auc": auc_value, "model_auc_lo": auc_lo, "model_auc_hi": auc_hi}
    summaries = [summary_row(LEVEL_LABEL[level], np.ones(df.height, dtype=bool))]
    # Re and Kontra apart: a Kontra call also hands Re the 120:120 tie, and the sides' chances differ
    side = df["side"].to_numpy()
    summaries += [summary_row(f"{LEVEL_LABEL[level]}: Re side", side == 0),
                  summary_row(f"{LEVEL_LABEL[level]}: Kontra side", side == 1)]
    return table, summaries


def headlines(summary: pl.DataFrame, skill: str, deals: int) -> list[dict]:
    """The skills rows of one skill level: each break-even point (both sides, Re, Kontra) and
    each level's mean gain of calling."""
    from .skills import row
    rows = []
    for r in summary.iter_rows(named=True):
        rows.append(row(f"break-even: {r['level']}", skill, deals, r["break_even"], r["break_even_lo"],
                        r["break_even_hi"], "chance of making it good"))
    for r in summary.iter_rows(named=True):
        if ":" not in r["level"]:
            rows.append(row(f"mean gain of calling: {r['level']}", skill, deals, r["mean_gain"],
                            r["mean_gain_lo"], r["mean_gain_hi"], "caller's points per probe"))
    return rows


def retuned_params(summary: pl.DataFrame) -> dict:
    """heuristic's call thresholds set from the measured break-even points (both sides): call_win
    from Re/Kontra's, deny_win from no 90's (heuristic says no 60 at deny_win + 0.1, so no 60 is
    not tuned apart); a level without a measured crossing keeps the default."""
    out = {}
    for name, level in RETUNE_PARAMS.items():
        r = summary.filter(pl.col("level") == LEVEL_LABEL[level])
        if r.height and r["break_even"][0] == r["break_even"][0]:
            out[name] = round(float(min(max(r["break_even"][0], 0.0), 1.0)), 3)
    return out


def retune(summary: pl.DataFrame, deals: int, seed: int, quiet: bool, **sim) -> dict:
    """The duplicate tournament of heuristic with the re-tuned call thresholds against today's
    heuristic: {params, deals, diff, lo, hi} (the difference re-tuned - today's, points per deal
    per seat, 95% interval); no tournament when nothing was re-tuned."""
    from ..loop.registry import param_specs
    from ..run.tournament import tournament
    params = retuned_params(summary)
    specs = param_specs("heuristic")
    out = {"params": params, "deals": deals, "diff": float("nan"), "lo": float("nan"), "hi": float("nan"),
           "defaults": {k: specs[k].default for k in params}}
    if not params:
        return out
    say(quiet, f"announcements: re-tuned heuristic {params} against today's, {deals} deals x 6 seatings")
    r = tournament(["heuristic", "heuristic"], deals, seed, RULES, params={"heuristic#1": params}, **sim)
    d = r.diff["heuristic#1-heuristic#2"]
    out.update(diff=float(d.mean), lo=float(d.lo), hi=float(d.hi))
    return out


def probe_levels(deals: int, strategy: str, seed: int, levels, quiet: bool, edges=BIN_EDGES,
                 min_bin: int = MIN_BIN):
    """Probe each level under ``strategy`` at every seat: (binned tables, summary rows, frames)."""
    from ..run.call_probe import probe_calls
    tables, summaries, frames = [], [], {}
    for level in levels:
        say(quiet, f"announcements: {LEVEL_LABEL[level]}, {deals} deals, {strategy}")
        df = probe_calls(deals, level, seed, RULES, strategy, params=skill_params(strategy), quiet=quiet)
        frames[level] = df
        table, rows = level_tables(df, level, seed, edges, min_bin)
        tables.append(table)
        summaries += rows
    return tables, summaries, frames


def run(deals=None, strategy=STRONGEST_FAST, seed=0, results=None, quiet=False, charts=True, skills=None,
        pimc_deals=None, retune_deals=None, **sim) -> dict:
    """Probe every call level, write the tables and chart to ``results/announcements/``, the
    break-even points under each of ``skills`` (default SKILLS; pimc on ``pimc_deals`` deals,
    default PIMC_SHARE of ``deals``, for PIMC_LEVELS only), and, under heuristic, the duplicate
    tournament of the re-tuned call thresholds (``retune_deals``, default RETUNE_DEALS; 0: none)."""
    from .skills import SKILLS, skill_deals, write_skills
    deals = deals or DEFAULT_DEALS
    out = results_dir(results, STUDY)
    if any(v is not None for v in sim.values()):
        say(quiet, "announcements: call probes run in this process (the Dask backends serve simulate)")
    tables, summaries, frames = probe_levels(deals, strategy, seed, LEVELS, quiet)
    by_chance = pl.concat(tables)
    summary = pl.DataFrame(summaries)
    note = (f"{deals:,} deals per call level (seed {seed}), strategy `{strategy}` at every seat, "
            f"rules {rules_label(RULES)}; normal games only. A probe is one call opportunity played "
            "on with and without the call (common random numbers); gain = the caller's score with "
            "minus without. `mean_chance`: the cross-fitted model's P(made good without the call) "
            "from what the caller sees; `made_good`: the observed rate (95% Wilson interval); "
            "gain: mean with a 95% normal interval.")
    write_table(by_chance, out / "by_chance", "Gain of a call by the caller's estimated chance", note)
    write_table(summary, out / "break_even", "Break-even chance of each call: measured and from the "
                "scoring alone", note + " break_even: where the mean gain crosses 0 from below as the "
                f"estimated chance rises (bins of 0.05 with >= {MIN_BIN} probes; a line fitted to the "
                f"probes of the two bins around the sign change and the next bin on each side; 95% bootstrap interval, {BOOTSTRAP} "
                "resamples); `crossing` says where, or why there is none. model_auc: how well the estimate ranks the "
                "probes (95% Hanley-McNeil interval).")
    if charts:
        _chart(by_chance, summary, out, f"{deals:,} deals per level, strategy '{strategy}', rules "
               f"{rules_label(RULES)}, seed {seed}; bands: 95% intervals; bins with >= {MIN_BIN} probes")
    sizes = skill_deals(deals, PIMC_SHARE, MIN_PIMC_DEALS, pimc_deals)
    skill_rows, skill_summaries = [], []
    for skill in (SKILLS if skills is None else skills):
        if skill == strategy and sizes[skill] == deals:
            s_summary = summary
        else:
            if skill == "pimc":
                s_summary = pl.DataFrame(probe_levels(sizes[skill], skill, seed, PIMC_LEVELS, quiet,
                                                      PIMC_BIN_EDGES, PIMC_MIN_BIN)[1])
            else:
                s_summary = pl.DataFrame(probe_levels(sizes[skill], skill, seed, LEVELS, quiet)[1])
        skill_rows += headlines(s_summary, skill, sizes[skill])
        skill_summaries.append(s_summary.with_columns(pl.lit(skill).alias("skill"),
                                                      pl.lit(sizes[skill]).alias("deals")))
    skill_note = (f"Each skill level at every seat, seed {seed}, rules {rules_label(RULES)}: the break-even "
                  "chance (the chance estimated by each skill's own cross-fitted model) with its 95% bootstrap "
                  "interval, and the mean gain of calling per probe (95% normal interval). `pimc` probes "
                  "only " + ", ".join(LEVEL_LABEL[v] for v in PIMC_LEVELS) + f", in bins of 0.1 with >= {PIMC_MIN_BIN} "
                  "probes (its few probes); it plays the cards by search and declares and calls by "
                  "`heuristic`'s rules (`search_bids=0`).")
    write_skills(skill_rows, out, "Announcements: break-even chances by skill level", skill_note,
                 chart=charts, foot=f"seed {seed}; deals per level: " +
                 ", ".join(f"{k} {v:,}" for k, v in sizes.items()))
    if skill_summaries:
        write_table(pl.concat(skill_summaries, how="diagonal_relaxed").select("skill", "deals", *summary.columns),
                    out / "break_even_skills", "Break-even chance of each call, per skill level",
                    skill_note)
    tuned = None
    n_retune = RETUNE_DEALS if retune_deals is None else retune_deals
    if strategy == "heuristic" and n_retune >= 2:
        tuned = retune(summary, n_retune, seed, quiet, **sim)
        _write_retune(tuned, out, seed)
    return {"by_chance": by_chance, "break_even": summary, "frames": frames, "skills": skill_rows,
            "retune": tuned}


def _write_retune(t: dict, out, seed: int) -> None:
    """retune.md/.csv: the re-tuned thresholds, their defaults and the tournament's difference."""
    rows = [{"parameter": k, "default": t["defaults"].get(k), "retuned": v} for k, v in t["params"].items()]
    verdict = ("no threshold was re-tuned (no measured crossing)" if not t["params"] else
               "the re-tuned heuristic wins: the interval is above zero" if t["lo"] > 0 else
               "the re-tuned heuristic loses: the interval is below zero" if t["hi"] < 0 else
               "no difference shown: the interval holds zero, so the defaults stay")
    note = (f"heuristic's call thresholds set from the measured break-even chances (both sides; "
            f"`call_win` from Re/Kontra, `deny_win` from no 90), then a duplicate tournament of the "
            f"re-tuned heuristic (`heuristic#1`) against today's (`heuristic#2`): {t['deals']:,} deals "
            f"x 6 seatings, seed {seed}, rules {rules_label(RULES)}. Difference re-tuned - today's, points "
            f"per deal per seat: **{t['diff']:+.4f} [{t['lo']:+.4f}, {t['hi']:+.4f}]** (95% t interval); "
            f"{verdict}.")
    table = pl.DataFrame(rows, schema={"parameter": pl.Utf8, "default": pl.Float64, "retuned": pl.Float64})
    write_table(table, out / "retune", "Re-tuned call thresholds against today's heuristic", note)


def _chart(by_chance: pl.DataFrame, summary: pl.DataFrame, out, foot: str) -> None:
    p = plt()
    fig, axes = p.subplots(1, len(LEVELS), figsize=(17, 4.2), sharey=False)
    for ax, level in zip(axes, LEVELS):
        label = LEVEL_LABEL[level]
        g = by_chance.filter((pl.col("level") == label) & (pl.col("probes") >= MIN_BIN))
        row = summary.filter(pl.col("level") == label).row(0, named=True)
        if g.height:
            x = g["mean_chance"].to_numpy()
            ax.plot(x, g["mean_gain"].to_numpy(), "o-", ms=3, color="C0", label="measured gain")
            ax.fill_between(x, g["gain_lo"].to_numpy(), g["gain_hi"].to_numpy(), color="C0", alpha=0.25)
        ax.axhline(0, color="0.4", lw=0.8)
        ax.axvline(THEORY[level], color="C3", ls="--", lw=1, label=f"scoring alone {THEORY[level]:.3f}")
        if row["break_even"] == row["break_even"]:  # not NaN
            ax.axvline(row["break_even"], color="C2", lw=1, label=f"measured {row['break_even']:.3f}")
        ax.set_xlim(0, 1)
        ax.set_title(f"{label} ({row['probes']:,} probes)", fontsize=10)
        ax.set_xlabel("estimated chance of making it good")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    axes[0].set_ylabel("mean gain of calling (caller's points)")
    fig.suptitle("What a call gains, by the caller's chance at that moment")
    footnote(fig, foot)
    fig.tight_layout(rect=(0, 0.04, 1, 0.95))
    fig.savefig(out / "gain_vs_chance.png", dpi=110)
    p.close(fig)
