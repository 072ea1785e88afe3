"""Poverty (Armut, house rule): when accepting a poverty pays, and what a poverty is worth to the
poor player, the acceptor and the table, against the same deals played without the poverty rule.

    dokosim study poverty [--deals 400000] [--strategy heuristic] [--seed 0]

1. **When to accept** (under ``heuristic``). The same deals with every poverty accepted by the
   first player asked (``accept_trumps`` 0: the poor player's left-hand neighbour): the acceptor's
   score by its hand strength (heuristic's quantity: trumps, TH and QC counted 1.5), against 0 for
   a refusal (a redeal). The refusal rule "accept from strength T" is fitted as the T that
   maximises the acceptor's mean score per poverty offered (``fit_threshold``; 95% bootstrap
   interval), other quantities a player can see are compared held out, and a duplicate tournament
   of heuristic with the fitted T against the rule before this study (``OLD_ACCEPT``, 7) says
   whether it pays at the table.
2. **What a poverty is worth.** Per player (``simple``, ``heuristic`` with the fitted rule and
   with the old one, ``pimc`` on a subsample): every poverty declared at a deal's first dealing
   is paired with the same deal without the poverty rule; the poor player's, the acceptor's and
   the table's (the two others') paired gain, by trumps passed, by trumps returned and by the
   fox, and the refusal rate, each with its 95% interval.

Writes results/poverty/ (docs/studies.md lists the files).
"""
from __future__ import annotations

import numpy as np
import polars as pl

from dokosim.engine.deal import NORMAL_TRUMPS

from ..run.players import STRONGEST_FAST
from .common import footnote, plt, popcount, results_dir, rules_label, say, type_mask, write_table
from ..stats import mean_ci, wilson
from .data import dataset
from .skills import skill_bids, skill_tag

STUDY = "poverty"
DEFAULT_DEALS = 400_000
RULES_POVERTY = {"preset": "ddv", "poverty": True}
RULES_NORMAL = {"preset": "ddv"}
FOX = type_mask("AD")
TOP_TRUMPS = type_mask("TH", "QC")  # what heuristic's poverty_strength counts 1.5
PIMC_SHARE = 0.00625  # pimc plays 0.625% of the study's deals per dataset (2,500 at the default size)
MIN_PIMC_DEALS = 400
# pimc plays only deals where some seat may declare a poverty (3 trumps or fewer): every poverty
# deal is one, so the per-poverty figures keep their distribution, and ~83% of them are poverties
# (7% without the condition)
PIMC_WHERE = " or ".join(f"trumps({s}) <= 3" for s in range(4))
OLD_ACCEPT = 7.0      # heuristic's accept_trumps before this study (issue 15): nobody ever refused
ACCEPT_ALL = 0.0      # every hand accepts: the poor player's left-hand neighbour takes every poverty
NEVER = 15.0          # accept_trumps that no hand reaches (at most 12 trumps + 4 x 0.5)
TOURNAMENT_DEALS = 50_000
SWEEP_STEPS = (-1.0, -0.5, 0.5, 1.0)  # the tournament sweep around the fitted threshold
BOOTSTRAP = 1_000
MIN_BIN = 100         # strengths with fewer poverties are left out of the chart
TOP_WEIGHTS = (0.0, 0.5, 1.0, 1.5, 2.0)  # quantities compared: trumps + w x (TH, QC held)
HEURISTIC_WEIGHT = 0.5
GROUPS = (("all", None), ("trumps passed", "trumps_passed"), ("trumps returned", "trumps_returned"),
          ("fox passed", "fox_passed"))


# ------------------------------------------------------------------ hands
def strength(hands, weight: float = HEURISTIC_WEIGHT) -> np.ndarray:
    """A hand's trumps (normal game) plus ``weight`` for each TH and QC it holds: at the default
    weight heuristic's ``poverty_strength``, the quantity ``accept_trumps`` is compared with."""
    h = np.asarray(hands, dtype=np.int64)
    t = h & np.int64(NORMAL_TRUMPS)
    return popcount(t) + weight * popcount(t & np.int64(TOP_TRUMPS))


# ------------------------------------------------------------------ the fit
def rule_values(s: np.ndarray, score: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """For each threshold t of ``candidates``: the mean over all poverties offered of the
    acceptor's score when it accepts from strength t (``s >= t``) and refuses (0, a redeal) below."""
    order = np.argsort(s, kind="stable")
    ss, sc = s[order], score[order].astype(float)
    tail = np.concatenate([np.cumsum(sc[::-1])[::-1], [0.0]])  # tail[i] = sum of sc[i:]
    return tail[np.searchsorted(ss, candidates, side="left")] / max(len(s), 1)


def fit_threshold(s, score, bootstrap: int = BOOTSTRAP, seed: int = 0) -> dict:
    """The refusal rule fitted from poverties offered to hands of strength ``s`` that accepted
    and scored ``score``: the threshold T (one of the strengths seen, or NEVER) that maximises the
    acceptor's mean score per poverty offered when it accepts from T and refuses below (a refused
    poverty is redealt: 0); the smallest T among equal values. Where the mean score by strength
    rises through 0, T is the first strength whose poverties score above 0 on average. 95%
    interval: percentiles of T over ``bootstrap`` resamples of the poverties. Returns {threshold,
    lo, hi, value, value_lo, value_hi, accept_share}."""
    s = np.asarray(s, dtype=float)
    score = np.asarray(score, dtype=float)
    cand = np.concatenate([np.unique(s), [NEVER]])
    v = rule_values(s, score, cand)
    best = int(np.argmax(v))  # the first maximum: the smallest threshold among equals
    t = float(cand[best])
    x = np.where(s >= t, score, 0.0)
    m, mlo, mhi = mean_ci(x)
    out = {"threshold": t, "lo": t, "hi": t, "value": m, "value_lo": mlo, "value_hi": mhi,
           "accept_share": float((s >= t).mean()) if s.size else float("nan")}
    if bootstrap and s.size > 1:
        rng = np.random.default_rng(seed)
        idx = np.searchsorted(cand, s)
        n = s.size
        ts = np.empty(bootstrap)
        for b in range(bootstrap):
            w = np.bincount(rng.integers(0, n, n), minlength=n)
            per = np.bincount(idx, weights=score * w, minlength=cand.size)
            vb = np.cumsum(per[::-1])[::-1]  # sum of the scores accepted from each candidate
            ts[b] = cand[int(np.argmax(vb))]
        out["lo"] = float(np.quantile(ts, 0.025, method="lower"))
        out["hi"] = float(np.quantile(ts, 0.975, method="higher"))
    return out


def by_strength(fit_frame: pl.DataFrame, check: pl.DataFrame | None, threshold: float | None) -> pl.DataFrame:
    """Per strength of the hand asked first (the poor player's left-hand neighbour): the
    poverties, its mean score when it accepts (``fit_frame``: every poverty accepted) and the
    pair's win rate; ``rule_value``: the acceptor's mean score per poverty offered under "accept
    from this strength"; and, under the fitted rule (``check``), its mean score where it refused
    (0 when redealt, the other side's score when a later player accepted)."""
    s = fit_frame["left_strength"].to_numpy()
    score = fit_frame["pair_score"].to_numpy().astype(float)
    wins = fit_frame["pair_wins"].to_numpy()
    vals = np.unique(s)
    rv = rule_values(s, score, vals)
    rows = []
    for v, r in zip(vals, rv):
        g = s == v
        m, lo, hi = mean_ci(score[g])
        p, plo, phi = wilson(int(wins[g].sum()), int(g.sum()))
        x = np.where(s >= v, score, 0.0)
        _, rlo, rhi = mean_ci(x)
        row = {"strength": float(v), "poverties": int(g.sum()), "accept_score": m, "accept_lo": lo,
               "accept_hi": hi, "pair_win_rate": float(p), "pair_win_lo": float(plo), "pair_win_hi": float(phi),
               "rule_value": float(r), "rule_value_lo": rlo, "rule_value_hi": rhi,
               "refused": 0, "refuse_score": float("nan"), "refuse_lo": float("nan"), "refuse_hi": float("nan")}
        if check is not None and threshold is not None and v < threshold:
            c = check.filter((pl.col("left_strength") == v) & (pl.col("position") != 1))
            row["refused"] = c.height
            if c.height:
                row["refuse_score"], row["refuse_lo"], row["refuse_hi"] = mean_ci(c["left_score"].to_numpy())
        rows.append(row)
    return pl.DataFrame(rows)


def compare_quantities(fit_frame: pl.DataFrame, weights=TOP_WEIGHTS) -> pl.DataFrame:
    """Which quantity a player sees decides best: trumps + w x (TH, QC held), for each w. Cross-
    fitted: the threshold is fitted on the poverties of even deal ids and scored on the odd ones,
    and the other way round; ``heldout_value`` is the acceptor's mean score per poverty offered
    under the rule fitted on the other half, ``diff`` its paired difference from heuristic's
    quantity (w 0.5), both with 95% intervals."""
    hands = fit_frame["left_hand"].to_numpy()
    score = fit_frame["pair_score"].to_numpy().astype(float)
    even = fit_frame["deal_id"].to_numpy() % 2 == 0
    held = {}
    rows = []
    for w in weights:
        q = strength(hands, w)
        x = np.zeros(q.size)
        ts = []
        for train in (even, ~even):
            t = fit_threshold(q[train], score[train], bootstrap=0)["threshold"]
            ts.append(t)
            test = ~train
            x[test] = np.where(q[test] >= t, score[test], 0.0)
        held[w] = x
        m, lo, hi = mean_ci(x)
        full = fit_threshold(q, score, bootstrap=0)
        rows.append({"quantity": f"trumps + {w:g} x (TH, QC)", "weight": float(w), "threshold_even": ts[0],
                     "threshold_odd": ts[1], "threshold_all": full["threshold"],
                     "accept_share": full["accept_share"], "heldout_value": m, "heldout_lo": lo, "heldout_hi": hi})
    base = held.get(HEURISTIC_WEIGHT)
    for r in rows:
        if base is None:
            r["diff"] = r["diff_lo"] = r["diff_hi"] = float("nan")
        else:
            r["diff"], r["diff_lo"], r["diff_hi"] = mean_ci(held[r["weight"]] - base)
    return pl.DataFrame(rows)


def tournament_check(threshold: float, deals: int, seed: int, quiet: bool, against: float = OLD_ACCEPT,
                     **sim) -> dict:
    """Duplicate tournament of heuristic accepting from ``threshold`` (``heuristic#1``) against
    heuristic accepting from ``against`` (``heuristic#2``; default OLD_ACCEPT), rules ddv +
    poverty, ``deals`` deals in the 6 seatings: {threshold, old, deals, diff, lo, hi} (points per
    deal per seat, #1 - #2, 95% t interval)."""
    from ..run.tournament import tournament
    say(quiet, f"poverty: heuristic accepting from {threshold:g} against from {against:g}, "
               f"{deals} deals x 6 seatings")
    r = tournament(["heuristic", "heuristic"], deals, seed, RULES_POVERTY,
                   params={"heuristic#1": {"accept_trumps": threshold},
                           "heuristic#2": {"accept_trumps": against}}, **sim)
    d = r.diff["heuristic#1-heuristic#2"]
    return {"threshold": threshold, "old": against, "deals": deals, "diff": float(d.mean),
            "lo": float(d.lo), "hi": float(d.hi)}


def sweep_thresholds(fitted: float) -> list[float]:
    """The thresholds played against the fitted one in the sweep: one and half a trump either
    side, and never accepting (the old rule is the main tournament)."""
    out = [fitted + d for d in SWEEP_STEPS] + [NEVER]
    return [t for t in dict.fromkeys(out) if 0.0 <= t <= NEVER and t not in (fitted, OLD_ACCEPT)]


# ------------------------------------------------------------------ the datasets
WITH_COLS = ["deal_id", "hand_0", "hand_1", "hand_2", "hand_3", "contract", "declarer", "winner",
             "score_0", "score_1", "score_2", "score_3", "redeals", "poverty_partner", "poverty_passed",
             "poverty_returned"]


def _load(name: str, deals: int, strategy: str, seed: int, rules, accept=None, where=None, **sim) -> pl.DataFrame:
    extra = {}
    tag = name
    # pimc declares and accepts by heuristic's rules (PIMC_BIDS): its poverties are then declared on
    # the deals the every-poverty-accepted run names (``declared``)
    params = skill_bids(strategy)
    tag += skill_tag(strategy)
    if accept is not None:
        params["accept_trumps"] = float(accept)
        tag += f"_accept{accept:g}"
    if params:
        extra["params"] = {strategy: params}
    if where is not None:
        extra["where"] = where
        tag += "_poor"
    cols = WITH_COLS if rules == RULES_POVERTY else ["deal_id", "hand_0", "hand_1", "hand_2", "hand_3",
                                                       "contract", "score_0", "score_1", "score_2", "score_3"]
    return dataset(f"{STUDY}/{tag}", deals, seed, strategy, rules, **extra, **sim).select(cols).collect()


def _seat_pick(m: np.ndarray, seat: np.ndarray) -> np.ndarray:
    return m[np.arange(len(seat)), seat]


def declared(with_df: pl.DataFrame, decl_df: pl.DataFrame | None, without_df: pl.DataFrame) -> pl.DataFrame:
    """Every poverty declared at a deal's first dealing, paired with the same deal without the rule.

    ``with_df``: the run under the poverty rule; ``decl_df``: a run of the same deals whose
    reservations are the same and where every poverty is accepted (heuristic with ACCEPT_ALL):
    it names the poor player of a poverty ``with_df`` refused (its row is a later dealing); None:
    ``with_df``'s own accepted poverties (a player that never refuses). One row per poverty:
    ``accepted``; ``position`` (1-3: which player asked accepted; 0 refused); the poor player's,
    the acceptor's and the table's (mean of the two others) score with the poverty (a refused
    poverty: 0 for every seat) and on the same deal without the rule, and their differences
    (``*_gain``); trumps passed and returned, fox passed; the left-hand neighbour's strength and
    score; the strength of each player asked, in the order asked (``strength_1`` .. ``strength_3``)."""
    src = decl_df if decl_df is not None else with_df
    decl = src.filter((pl.col("contract") == "poverty") & (pl.col("redeals") == 0)).select(
        "deal_id", pl.col("declarer").alias("poor"), pl.col("poverty_passed").alias("passed"),
        *[pl.col(f"hand_{s}").alias(f"d_hand_{s}") for s in range(4)])
    j = decl.join(with_df, on="deal_id", how="inner")
    if j.height != decl.height:
        raise AssertionError("the run under the poverty rule must hold every deal of its declarations")
    accepted = ((j["contract"] == "poverty") & (j["redeals"] == 0)).to_numpy()
    refused = (j["redeals"] > 0).to_numpy()
    if not (accepted | refused).all():
        raise AssertionError("a declared poverty must be played or redealt (different reservations?)")
    if not ((j["declarer"] == j["poor"]) & (j["poverty_passed"] == j["passed"])).to_numpy()[accepted].all():
        raise AssertionError("the declarations run must have the same poor player and cards passed")
    if decl_df is not None:
        own = with_df.filter((pl.col("contract") == "poverty") & (pl.col("redeals") == 0)).height
        if own != int(accepted.sum()):
            raise AssertionError("every poverty accepted at a first dealing must be a declared one")
    b = without_df.rename({c: f"b_{c}" for c in without_df.columns if c != "deal_id"})
    j = j.join(b, on="deal_id", how="inner")
    # a refused poverty's row is a later dealing: its dealt hands are the without-rule run's
    hands = np.stack([j[f"b_hand_{s}"].to_numpy() for s in range(4)], axis=1)
    same = np.stack([j[f"hand_{s}"].to_numpy() for s in range(4)], axis=1) == hands
    dealt = np.stack([j[f"d_hand_{s}"].to_numpy() for s in range(4)], axis=1) == hands
    if not (same[accepted].all() and dealt.all()):
        raise AssertionError("the same seed must deal the same hands")
    poor = j["poor"].to_numpy().astype(np.int64)
    acc = np.where(accepted, j["poverty_partner"].to_numpy(), -1).astype(np.int64)
    score = np.stack([j[f"score_{s}"].to_numpy() for s in range(4)], axis=1).astype(float)
    normal = np.stack([j[f"b_score_{s}"].to_numpy() for s in range(4)], axis=1).astype(float)
    pair = np.where(accepted, _seat_pick(score, poor), 0.0)
    acc_seat = np.where(accepted, acc, (poor + 1) % 4)  # any seat for the refused (masked below)
    poor_normal = _seat_pick(normal, poor)
    acc_normal = _seat_pick(normal, acc_seat)
    table_normal = (normal.sum(axis=1) - poor_normal - acc_normal) / 2
    left = (poor + 1) % 4
    position = np.where(accepted, (acc - poor) % 4, 0)
    passed = j["passed"].to_numpy()
    returned = j["poverty_returned"].to_numpy()
    nan = np.full(len(poor), np.nan)
    return pl.DataFrame({
        "deal_id": j["deal_id"].to_numpy(), "poor": poor, "acceptor": acc, "accepted": accepted,
        "position": position,
        "trumps_passed": popcount(passed & np.int64(NORMAL_TRUMPS)),
        "fox_passed": (passed & np.int64(FOX)) != 0,
        "trumps_returned": popcount(returned & np.int64(NORMAL_TRUMPS)),
        "pair_score": pair, "pair_wins": accepted & (j["winner"] == "re").to_numpy(),
        "poor_poverty": pair, "poor_normal": poor_normal, "poor_gain": pair - poor_normal,
        "acceptor_poverty": np.where(accepted, pair, nan), "acceptor_normal": np.where(accepted, acc_normal, nan),
        "acceptor_gain": np.where(accepted, pair - acc_normal, nan),
        "table_poverty": np.where(accepted, -pair, nan), "table_normal": np.where(accepted, table_normal, nan),
        "table_gain": np.where(accepted, -pair - table_normal, nan),
        "left_hand": _seat_pick(hands, left), "left_strength": strength(_seat_pick(hands, left)),
        **{f"strength_{k}": strength(_seat_pick(hands, (poor + k) % 4)) for k in (1, 2, 3)},
        "left_score": np.where(accepted, np.where(acc == left, pair, -pair), 0.0),
        "acceptor_strength": np.where(accepted, strength(_seat_pick(hands, acc_seat)), nan),
    }).with_columns(pl.when(pl.col("accepted")).then(pl.col("trumps_returned")).otherwise(None)
                    .alias("trumps_returned"))


# ------------------------------------------------------------------ tables
ROLES = (("poor", "poor player"), ("acceptor", "acceptor"), ("table", "table (each of the two others)"))


def value_stats(g: pl.DataFrame) -> dict:
    """Accepted poverties of ``g``: their number, the pair's score and win rate, and each role's
    mean paired gain against the same deals without the rule (95% intervals)."""
    a = g.filter(pl.col("accepted"))
    out = {"poverties": a.height}
    m, lo, hi = mean_ci(a["pair_score"].to_numpy())
    out.update(pair_score=m, pair_score_lo=lo, pair_score_hi=hi)
    p, plo, phi = wilson(int(a["pair_wins"].sum()), a.height) if a.height else (np.nan,) * 3
    out.update(pair_win_rate=float(p), pair_win_lo=float(plo), pair_win_hi=float(phi))
    for who, _ in ROLES:
        m, lo, hi = mean_ci(a[f"{who}_gain"].to_numpy())
        out.update({f"{who}_gain": m, f"{who}_gain_lo": lo, f"{who}_gain_hi": hi})
    return out


def declared_stats(g: pl.DataFrame) -> dict:
    """Declared poverties of ``g``: how many were refused (95% Wilson interval) and the poor
    player's mean score and paired gain per declared poverty (a refused one scores 0)."""
    n = g.height
    k = int((~g["accepted"]).sum())
    p, lo, hi = wilson(k, n) if n else (np.nan,) * 3
    out = {"declared": n, "refused": k, "refusal_rate": float(p), "refusal_lo": max(float(lo), 0.0),
           "refusal_hi": min(float(hi), 1.0)}
    for col, name in (("poor_poverty", "poor_score"), ("poor_gain", "poor_value")):
        m, mlo, mhi = mean_ci(g[col].to_numpy())
        out.update({name: m, f"{name}_lo": mlo, f"{name}_hi": mhi})
    return out


def grouped(frames: dict[str, pl.DataFrame], stats, groups=GROUPS) -> pl.DataFrame:
    """``stats`` per player (frames' keys), for all poverties and per value of each grouping."""
    rows = []
    for player, f in frames.items():
        for label, col in groups:
            if col is None:
                rows.append({"player": player, "group": label, "value": "all", **stats(f)})
                continue
            for v in sorted(f[col].drop_nulls().unique().to_list()):
                g = f.filter(pl.col(col) == v)
                rows.append({"player": player, "group": label, "value": str(v).lower(), **stats(g)})
    return pl.DataFrame(rows)


def position_check(check: pl.DataFrame) -> pl.DataFrame:
    """Under the fitted rule: which player asked took the poverty (1 the poor player's left-hand
    neighbour ... 3 its right-hand one, 0 nobody: redealt), how often, with the acceptor's mean
    strength and score, and the left-hand neighbour's mean score where it refused."""
    rows = []
    n = check.height
    for pos in (1, 2, 3, 0):
        g = check.filter(pl.col("position") == pos)
        p, lo, hi = wilson(g.height, n) if n else (np.nan,) * 3
        m, mlo, mhi = mean_ci(g["pair_score"].to_numpy()) if pos else (0.0, 0.0, 0.0)
        rows.append({"taken_by": {1: "1st asked (left)", 2: "2nd asked (across)", 3: "3rd asked (right)",
                                  0: "nobody (redeal)"}[pos],
                     "poverties": g.height, "share": float(p), "share_lo": float(lo), "share_hi": float(hi),
                     "acceptor_strength": float(g["acceptor_strength"].mean()) if pos and g.height else float("nan"),
                     "acceptor_score": m, "acceptor_lo": mlo, "acceptor_hi": mhi})
    r = check.filter(pl.col("position") != 1)
    m, lo, hi = mean_ci(r["left_score"].to_numpy())
    rows.append({"taken_by": "left-hand neighbour's score where it refused", "poverties": r.height,
                 "share": float("nan"), "share_lo": float("nan"), "share_hi": float("nan"),
                 "acceptor_strength": float("nan"), "acceptor_score": m, "acceptor_lo": lo, "acceptor_hi": hi})
    return pl.DataFrame(rows)


def headlines(f: pl.DataFrame, played_share, deals: int, skill: str) -> list[dict]:
    """The skills rows of one skill level: how often a poverty is played and refused, and what
    it is worth to the poor player, the acceptor and the table (all, fox passed or not).
    ``played_share``: (poverties played at a first dealing, deals), or None (a conditioned run)."""
    from .skills import row
    rows = []
    if played_share is None:
        rows.append(row("share of deals played as a poverty", skill, deals, None, None, None, "share"))
    else:
        p, lo, hi = wilson(*played_share)
        rows.append(row("share of deals played as a poverty", skill, deals, p, lo, hi, "share"))
    d = declared_stats(f)
    rows.append(row("refusal rate of declared poverties", skill, deals, d["refusal_rate"], d["refusal_lo"],
                    d["refusal_hi"], "share"))
    rows.append(row("poor player: gain per declared poverty (refused: 0)", skill, deals, d["poor_value"],
                    d["poor_value_lo"], d["poor_value_hi"], "points per poverty deal"))
    for label, g in (("all", f), ("fox passed", f.filter(pl.col("fox_passed"))),
                     ("no fox passed", f.filter(~pl.col("fox_passed")))):
        st = value_stats(g)
        roles = ROLES if label == "all" else ROLES[:2]
        for who, word in roles:
            rows.append(row(f"{word}: gain per poverty played ({label})", skill, deals, st[f"{who}_gain"],
                            st[f"{who}_gain_lo"], st[f"{who}_gain_hi"], "points per poverty deal"))
        if label == "all":
            rows.append(row("the pair's score with the poverty", skill, deals, st["pair_score"],
                            st["pair_score_lo"], st["pair_score_hi"], "points per poverty deal"))
            rows.append(row("the pair wins the poverty", skill, deals, st["pair_win_rate"],
                            st["pair_win_lo"], st["pair_win_hi"], "share"))
    return rows


# ------------------------------------------------------------------ the study
def _heuristic_default_accept() -> float:
    from ..loop.registry import param_specs
    return float(param_specs("heuristic")["accept_trumps"].default)


class _Study:
    """What ``run``'s steps share: its settings, and its datasets, each loaded once (the deals
    without the poverty rule per strategy, and heuristic accepting every poverty: its declarations)."""

    def __init__(self, deals: int, seed: int, quiet: bool, out, bootstrap: int, n_tour: int, sim: dict):
        self.deals, self.seed, self.quiet, self.out, self.sim = deals, seed, quiet, out, sim
        self.bootstrap, self.n_tour = bootstrap, n_tour
        self.without = {}
        self.decl = {}

    def normal(self, strat: str, n: int, where) -> pl.DataFrame:
        """``strat`` at every seat on n deals (dealt under ``where``) without the poverty rule."""
        cache = self.without.setdefault((n, where), {})
        if strat not in cache:
            cache[strat] = _load("without_poverty", n, strat, self.seed, RULES_NORMAL, where=where, **self.sim)
        return cache[strat]

    def accept_all(self, n: int, where) -> pl.DataFrame:
        """heuristic at every seat accepting every poverty, on the same deals."""
        if (n, where) not in self.decl:
            self.decl[(n, where)] = _load("with_poverty", n, "heuristic", self.seed, RULES_POVERTY,
                                          accept=ACCEPT_ALL, where=where, **self.sim)
        return self.decl[(n, where)]


def _fit(data: _Study):
    """Step 1 (heuristic only: its accept_trumps is the rule): (fit, fit_frame, quantities), or
    Nones when there are fewer than two poverties to fit."""
    deals = data.deals
    say(data.quiet, f"poverty: every poverty accepted (heuristic, accept_trumps {ACCEPT_ALL:g}), {deals} deals")
    fit_frame = declared(data.accept_all(deals, None), None, data.normal("heuristic", deals, None))
    if fit_frame.height < 2:
        return None, fit_frame, None
    fit = fit_threshold(fit_frame["left_strength"].to_numpy(), fit_frame["pair_score"].to_numpy(), data.bootstrap,
                        data.seed)
    return fit, fit_frame, compare_quantities(fit_frame)


def _players(strategy: str, skills, deals: int, sizes: dict, fitting: bool, threshold) -> dict:
    """Step 2's players by label: (strategy, deals, where, accept_trumps, skill), the study's
    strategy and each skill level (heuristic, when fitted, with the fitted rule and the one before)."""
    players = {}
    for skill in dict.fromkeys((strategy, *skills)):
        n = deals if skill == strategy else sizes.get(skill, deals)
        where = PIMC_WHERE if skill == "pimc" else None
        if skill == "heuristic" and fitting:
            players[f"heuristic (accept_trumps {threshold:g}, fitted)"] = ("heuristic", n, where, threshold, skill)
            players[f"heuristic (accept_trumps {OLD_ACCEPT:g}, before)"] = ("heuristic", n, where, OLD_ACCEPT, None)
        else:
            players[skill] = (skill, n, where, None, skill)
    return players


def _play(data: _Study, players: dict, skills, h_default: float):
    """Step 2: each player's poverties against the same deals without the rule: (frames by label,
    the summary's figures by label, the skill levels' headline rows)."""
    frames, shares, skill_rows = {}, {}, []
    for label, (strat, n, where, accept, skill) in players.items():
        say(data.quiet, f"poverty: {label}, {n} deals per dataset" + (" (deals with a hand of 3 trumps or fewer)"
                                                                 if where else ""))
        w = _load("with_poverty", n, strat, data.seed, RULES_POVERTY, accept=accept, where=where, **data.sim)
        decl = data.accept_all(n, where) if strat in ("heuristic", "pimc") else None
        f = declared(w, decl, data.normal(strat, n, where))
        frames[label] = f
        first = w.filter((pl.col("contract") == "poverty") & (pl.col("redeals") == 0)).height
        shares[label] = {"strategy": strat, "accept_trumps": accept if accept is not None else
                         (h_default if strat in ("heuristic", "pimc") else float("nan")),
                         "deals": n, "dealt": "a hand with 3 trumps or fewer" if where else "all deals",
                         "played_first": first, "refused_unattributed": 0 if decl is not None else
                         int((w["redeals"] > 0).sum())}
        if skill is not None and skill in skills:
            skill_rows += headlines(f, None if where else (first, n), n, skill)
    return frames, shares, skill_rows


def _write_fit_tables(data: _Study, fit: dict, fit_frame: pl.DataFrame, quantities: pl.DataFrame, frames: dict,
                      base: str, h_default: float):
    """Step 3, the fit's part: accept_by_strength, the tournaments (``n_tour`` deals each on seed + 1),
    the fit, accept_quantities and accept_check. Returns (by strength, tournament, sweep)."""
    deals, seed, n_tour, quiet, out, sim = data.deals, data.seed, data.n_tour, data.quiet, data.out, data.sim
    threshold = fit["threshold"]
    tour = None
    fit_note = (base + f"{deals:,} deals with heuristic at every seat accepting every poverty (accept_trumps "
                f"{ACCEPT_ALL:g}: the poor player's left-hand neighbour, asked first, takes it): "
                f"{fit_frame.height:,} poverties. `strength`: that neighbour's trumps with TH and QC counted "
                "1.5 (heuristic's `accept_trumps` quantity), from its hand as dealt. `accept_score`: its "
                "mean score when it accepts (a refusal redeals: 0); `rule_value`: its mean score per poverty "
                "offered when it accepts from this strength and refuses below. `refuse_score`: under the "
                f"fitted rule (accept from {threshold:g}), the same neighbour's mean score on the same deals "
                "where it refused (0 when nobody took the poverty, minus the pair's score when a later "
                "player did). 95% normal intervals for means, Wilson for the win rate.")
    st = by_strength(fit_frame, frames[next(k for k in frames if "fitted" in k)], threshold)
    write_table(st, out / "accept_by_strength", "When accepting a poverty pays: the acceptor's score by "
                "its hand strength", fit_note)
    sweep = []
    if n_tour >= 2:  # on seed + 1: deals the fit has not seen
        tour = tournament_check(threshold, n_tour, seed + 1, quiet, **sim)
        sweep = [tournament_check(t, n_tour, seed + 1, quiet, against=threshold, **sim)
                 for t in sweep_thresholds(threshold)]
        _write_tournaments([tour, *sweep], seed + 1, out)
    _write_fit(fit, tour, fit_frame.height, deals, seed, data.bootstrap, h_default, out)
    write_table(quantities, out / "accept_quantities", "Which hand quantity to accept by (held out)",
                base + f"The {fit_frame.height:,} poverties of accept_by_strength (every poverty accepted by "
                "the first player asked). For each quantity trumps + w x (TH, QC held) the accept-from "
                "threshold is fitted on the even deal ids and scored on the odd ones, and the other way "
                "round (`threshold_even`, `threshold_odd`; `threshold_all` and `accept_share`: fitted on "
                "all). `heldout_value`: the acceptor's mean score per poverty offered under the rule "
                "fitted on the other half; `diff`: paired difference from heuristic's quantity (w 0.5). "
                "95% normal intervals.")
    write_table(position_check(frames[next(k for k in frames if "fitted" in k)]), out / "accept_check",
                f"Under the fitted rule (accept from {threshold:g}): who takes the poverty",
                base + f"{deals:,} deals, heuristic at every seat accepting from strength {threshold:g}; "
                "the poverties declared at a first dealing. `share`: of the declared poverties (Wilson "
                "interval); `acceptor_score`: the pair's mean score (95% interval); last row: the left-hand "
                "neighbour's mean score on the poverties it refused (0 when redealt, minus the pair's score "
                "when a later player took it), the value of refusing that the fit counts as 0.")
    return st, tour, sweep


def _write_player_tables(frames: dict, shares: dict, base: str, h_default: float, out):
    """Step 3, the players' part: value, declared and summary. Returns (value, declared, summary)."""
    note_players = ("Players: each at every seat; `pimc` plays only deals with a hand of 3 trumps or fewer "
                    f"(`{PIMC_WHERE}`, which every poverty deal satisfies, so the per-poverty figures keep their "
                    "distribution); its reservations and poverty decisions are heuristic's defaults "
                    f"(accept_trumps {h_default:g}). ")
    value = grouped(frames, value_stats)
    write_table(value, out / "value", "What a poverty played is worth to the poor player, the acceptor and the table",
                base + note_players + "Rows: poverties declared and accepted at a deal's first dealing. "
                "`pair_score`: the pair's score with the poverty (the poor player's and the acceptor's; each "
                "of the two others scores minus it); `*_gain`: the mean difference from the same seat's score "
                "on the same deal without the poverty rule (table: the mean of the two others); the pair's "
                "win rate. Groups: trumps passed by the poor player, trumps among the 3 cards returned, fox "
                "(AD) passed. 95% normal intervals, Wilson for the win rate.", digits=3)
    decl_table = grouped(frames, declared_stats, GROUPS[:2] + GROUPS[3:])
    write_table(decl_table, out / "declared", "Declared poverties: how often refused, and what they are worth "
                "to the poor player", base + note_players + "Rows: every poverty declared at a deal's first "
                "dealing. A refused poverty is redealt: it scores 0 for every seat (`poor_score`), and "
                "`poor_value` is the poor player's score minus its score on the same deal without the rule. "
                "Refusal rate: 95% Wilson interval; means: 95% normal intervals.", digits=3)
    summary = pl.DataFrame([{"player": k, **v, "declared": frames[k].height,
                             "accepted": int(frames[k]["accepted"].sum()),
                             "refused": int((~frames[k]["accepted"]).sum())} for k, v in shares.items()])
    write_table(summary, out / "summary", "Poverty: the players and their datasets",
                base + note_players + "`played_first`: poverties played at a first dealing; `declared`, "
                "`accepted`, `refused`: poverties declared at a first dealing; `refused_unattributed`: "
                "redeals of a player without a declarations run (a player that never refuses has none).",
                digits=3)
    return value, decl_table, summary


def run(deals=None, strategy=STRONGEST_FAST, seed=0, results=None, quiet=False, charts=True, skills=None,
        pimc_deals=None, tournament_deals=None, bootstrap=BOOTSTRAP, **sim) -> dict:
    """Fit the refusal rule (under heuristic), measure the poverties' value per player, and write
    the tables and charts to ``results/poverty/``: the study's ``strategy`` and each of ``skills``
    (default SKILLS; pimc on ``pimc_deals`` deals per dataset, default PIMC_SHARE of ``deals``,
    dealt under PIMC_WHERE), and the fitted rule's tournaments (``tournament_deals`` each, default
    TOURNAMENT_DEALS but at most ``deals``; 0: none)."""
    from .skills import SKILLS, skill_deals, write_skills
    deals = deals or DEFAULT_DEALS
    out = results_dir(results, STUDY)
    skills = SKILLS if skills is None else tuple(skills)
    sizes = skill_deals(deals, PIMC_SHARE, MIN_PIMC_DEALS, pimc_deals)
    n_tour = min(TOURNAMENT_DEALS, deals) if tournament_deals is None else tournament_deals
    say(quiet, f"poverty: {deals} deals with the poverty rule and {deals} without")
    data = _Study(deals, seed, quiet, out, bootstrap, n_tour, sim)

    # 1. the fit (heuristic only: its accept_trumps is the rule)
    fit = fit_frame = quantities = tour = None
    fitting = strategy == "heuristic"
    if fitting:
        fit, fit_frame, quantities = _fit(data)
        fitting = fit is not None
    threshold = fit["threshold"] if fit else None

    # 2. the players: the study's strategy and each skill level
    h_default = _heuristic_default_accept()
    frames, shares, skill_rows = _play(data, _players(strategy, skills, deals, sizes, fitting, threshold), skills,
                                       h_default)

    # 3. tables and charts
    base = (f"Seed {seed}, rules {rules_label(RULES_POVERTY)} against the same deals under "
            f"{rules_label(RULES_NORMAL)}. ")
    if fitting:
        st, tour, sweep = _write_fit_tables(data, fit, fit_frame, quantities, frames, base, h_default)
    value, decl_table, summary = _write_player_tables(frames, shares, base, h_default, out)
    if charts:
        if fitting:
            _chart_fit(st, fit, h_default, out / "accept_by_strength.png",
                       f"{fit_frame.height:,} poverties in {deals:,} deals (seed {seed}), heuristic at every seat, "
                       f"every poverty accepted by the first player asked; rules {rules_label(RULES_POVERTY)}; "
                       f"bars and bands: 95% intervals; strengths with >= {MIN_BIN} poverties")
        _chart_value(value, out / "value.png", "seed " + str(seed) + "; " + ", ".join(
            f"{k}: {frames[k]['accepted'].sum():,} poverties" for k in frames) + "; error bars: 95% intervals")
    skill_note = (f"Each skill level at every seat, seed {seed}, rules {rules_label(RULES_POVERTY)} against "
                  f"{rules_label(RULES_NORMAL)} on the same deals; gains are paired differences (95% normal "
                  "intervals), shares with 95% Wilson intervals. `heuristic` accepts from its fitted "
                  f"strength ({threshold if threshold is not None else h_default:g}); `pimc` plays the cards "
                  f"only (its reservations and poverty decisions are heuristic's defaults, accept_trumps "
                  f"{h_default:g}) and only deals with a hand of 3 trumps or fewer, so its share of poverty "
                  "deals is not measured (its reservations are heuristic's: the same share).")
    if skill_rows:
        write_skills(skill_rows, out, "Poverty: headline figures by skill level", skill_note, chart=charts,
                     foot=f"seed {seed}; deals per dataset: " + ", ".join(
                         f"{k} {sizes.get(k, deals):,}" for k in skills))
    return {"fit": fit, "fit_frame": fit_frame, "quantities": quantities, "tournament": tour,
            "sweep": sweep if fitting else [],
            "frames": frames, "value": value, "declared": decl_table, "summary": summary,
            "skills": skill_rows, "by_strength": st if fitting else None}


def tournament_command(t: dict, seed: int) -> str:
    """The ``dokosim tournament`` command line of a tournament_check result."""
    return (f"dokosim tournament heuristic heuristic --deals {t['deals']} --seed {seed} --rule poverty=true "
            f"--param heuristic#1:accept_trumps={t['threshold']:g} --param heuristic#2:accept_trumps={t['old']:g}")


def _write_tournaments(tours: list[dict], seed: int, out) -> None:
    """accept_tournaments.md/.csv: the fitted rule against the old one, and the sweep around it."""
    rows = [{"heuristic#1 accepts from": t["threshold"], "heuristic#2 accepts from": t["old"], "deals": t["deals"],
             "diff": t["diff"], "lo": t["lo"], "hi": t["hi"], "command": f"`{tournament_command(t, seed)}`"}
            for t in tours]
    write_table(pl.DataFrame(rows), out / "accept_tournaments", "Duplicate tournaments of the refusal rule",
                f"heuristic against heuristic with another accept_trumps (`{NEVER:g}`: never accepts), each "
                f"{tours[0]['deals']:,} deals x 6 seatings, seed {seed} (the fit's deals were seed {seed - 1}), "
                f"rules {rules_label(RULES_POVERTY)}. First row: the fitted rule against the one before this "
                "study (the test that decides the default); then each neighbouring threshold against the "
                "fitted one. `diff`: heuristic#1 - heuristic#2 in points per deal per seat, 95% t interval.",
                digits=4)


def _write_fit(fit: dict, tour: dict | None, n: int, deals: int, seed: int, bootstrap: int, default: float,
               out) -> None:
    """accept_fit.md/.csv: the fitted threshold with its interval, the rules' values per poverty
    offered, and the tournament against the old rule."""
    verdict = ""
    if tour is not None:
        verdict = (" **The fitted rule wins: the interval is above zero.**" if tour["lo"] > 0 else
                   " The fitted rule loses: the interval is below zero." if tour["hi"] < 0 else
                   " No difference shown: the interval holds zero.")
        verdict = (f" Duplicate tournament, heuristic accepting from {tour['threshold']:g} (`heuristic#1`) "
                   f"against accepting from {tour['old']:g} (`heuristic#2`), {tour['deals']:,} deals x 6 "
                   f"seatings, seed {seed + 1} (deals the fit has not seen), rules {rules_label(RULES_POVERTY)}: "
                   "difference "
                   f"**{tour['diff']:+.4f} [{tour['lo']:+.4f}, {tour['hi']:+.4f}]** points per deal per seat "
                   f"(95% t interval; `{tournament_command(tour, seed + 1)}`; the sweep around the fit: "
                   "accept_tournaments.md)."
                   + verdict)
    rows = [{"parameter": "accept_trumps", "before": OLD_ACCEPT, "fitted": fit["threshold"], "fitted_lo": fit["lo"],
             "fitted_hi": fit["hi"], "default_now": default,
             "tournament_diff": tour["diff"] if tour else float("nan"),
             "tournament_lo": tour["lo"] if tour else float("nan"),
             "tournament_hi": tour["hi"] if tour else float("nan")}]
    note = (f"The refusal rule fitted from {n:,} poverties in {deals:,} deals (seed {seed}) where the first player "
            "asked accepts every poverty (accept_by_strength.md): the threshold T of heuristic's strength "
            "(trumps, TH and QC counted 1.5) that maximises the acceptor's mean score per poverty offered when "
            "it accepts from T and refuses below (a refused poverty is redealt: 0). `fitted_lo`, `fitted_hi`: "
            f"95% percentile interval of T over {bootstrap:,} bootstrap resamples of the poverties. Per poverty "
            f"offered, accepting from {fit['threshold']:g} is worth {fit['value']:+.3f} [{fit['value_lo']:+.3f}, "
            f"{fit['value_hi']:+.3f}] to the first player asked, who then accepts "
            f"{100 * fit['accept_share']:.1f}% of them. `default_now`: heuristic's default accept_trumps in this "
            f"code.{verdict} The default changes only when that interval is above zero.")
    write_table(pl.DataFrame(rows), out / "accept_fit", "The refusal rule: heuristic's accept_trumps fitted", note)


def _chart_fit(st: pl.DataFrame, fit: dict, default: float, path, foot: str) -> None:
    p = plt()
    g = st.filter(pl.col("poverties") >= MIN_BIN)
    fig, axes = p.subplots(1, 2, figsize=(12, 4.8))
    ax = axes[0]
    x = g["strength"].to_numpy()
    m = g["accept_score"].to_numpy()
    ax.errorbar(x, m, yerr=[m - g["accept_lo"].to_numpy(), g["accept_hi"].to_numpy() - m], fmt="o-", ms=4,
                capsize=3, color="#2b6ea6", label="accept (every poverty accepted)")
    r = g.filter(pl.col("refused") >= MIN_BIN)
    if r.height:
        rm = r["refuse_score"].to_numpy()
        ax.errorbar(r["strength"].to_numpy() + 0.08, rm, yerr=[rm - r["refuse_lo"].to_numpy(),
                    r["refuse_hi"].to_numpy() - rm], fmt="s", ms=4, capsize=3, color="#c2553a",
                    label="refuse, under the fitted rule")
    for a in axes:
        a.axhline(0, color="black", lw=0.8)
        a.axvspan(fit["lo"] - 0.25, fit["hi"] + 0.25, color="#2b6ea6", alpha=0.12,
                  label=f"fit's 95% interval: {fit['lo']:g}-{fit['hi']:g}")
        a.axvline(fit["threshold"], color="#2b6ea6", ls="--", lw=1.2, label=f"fitted: accept from {fit['threshold']:g}")
        a.axvline(OLD_ACCEPT, color="0.5", ls=":", lw=1.2, label=f"before: accept from {OLD_ACCEPT:g}")
        a.set_xlabel("strength of the hand asked first (trumps, TH and QC count 1.5)")
        a.grid(alpha=0.3)
    ax.set_ylabel("its mean score on the poverty")
    ax.set_title("the acceptor's score by its strength")
    ax.legend(fontsize=8)
    ax = axes[1]
    ax.plot(x, g["rule_value"].to_numpy(), "o-", ms=4, color="#2b6ea6")
    ax.fill_between(x, g["rule_value_lo"].to_numpy(), g["rule_value_hi"].to_numpy(), color="#2b6ea6", alpha=0.25)
    ax.set_ylabel("mean score per poverty offered")
    ax.set_title("the rule 'accept from this strength'")
    ax.legend(fontsize=8)
    fig.suptitle("When accepting a poverty pays (heuristic)")
    footnote(fig, foot)
    fig.tight_layout(rect=(0, 0.04, 1, 0.95))
    fig.savefig(path, dpi=110)
    p.close(fig)


PLAYER_COLOR = {"simple": "#9a9a9a", "heuristic": "#2b6ea6", "heuristic (before": "#8fb8de", "pimc": "#c2553a"}


def _chart_value(value: pl.DataFrame, path, foot: str) -> None:
    p = plt()
    players = list(dict.fromkeys(value["player"].to_list()))
    spare = iter(["#6a9a4a", "#aa77bb", "#d4a017", "#555555"])
    colors = [PLAYER_COLOR.get(n.split(" ")[0] + (" (before" if "before" in n else ""), None) or next(spare, "#777777")
              for n in players]
    groups = [g for g, _ in GROUPS if g != "all"]
    fig, axes = p.subplots(len(ROLES), len(groups), figsize=(14, 10), sharey="row")
    width = 0.8 / max(len(players), 1)
    for i, (who, word) in enumerate(ROLES):
        for k, grp in enumerate(groups):
            ax = axes[i, k]
            sub = value.filter(pl.col("group") == grp)
            keys = list(dict.fromkeys(sub["value"].to_list()))
            for j, pl_name in enumerate(players):
                r = sub.filter((pl.col("player") == pl_name) & (pl.col("poverties") >= 20))
                xs, ms, lo, hi = [], [], [], []
                for kk, key in enumerate(keys):
                    rr = r.filter(pl.col("value") == key)
                    if rr.height and rr[f"{who}_gain"][0] == rr[f"{who}_gain"][0]:
                        xs.append(kk + (j - (len(players) - 1) / 2) * width)
                        ms.append(rr[f"{who}_gain"][0])
                        lo.append(rr[f"{who}_gain"][0] - rr[f"{who}_gain_lo"][0])
                        hi.append(rr[f"{who}_gain_hi"][0] - rr[f"{who}_gain"][0])
                if xs:
                    ax.bar(xs, ms, width, yerr=[lo, hi], capsize=2, color=colors[j],
                           label=pl_name if (i, k) == (0, 0) else None)
            ax.set_xticks(range(len(keys)), keys)
            ax.axhline(0, color="black", lw=0.8)
            ax.grid(axis="y", alpha=0.3)
            if i == len(ROLES) - 1:
                ax.set_xlabel(grp)
            if k == 0:
                ax.set_ylabel(f"{word}:\ngain per poverty", fontsize=9)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("What a poverty played is worth, against the same deals without the poverty rule "
                 "(groups with >= 20 poverties)")
    footnote(fig, foot)
    fig.tight_layout(rect=(0, 0.03, 1, 0.96))
    fig.savefig(path, dpi=110)
    p.close(fig)
