"""Solo odds: P(win) and the soloist's score of the seven solo kinds, by what the hand holds.

    dokosim study solo_odds [--deals 200000] [--strategy simple] [--seed 0]
    python -m analysis.solo_odds [--deals N] ...   (the same)

Every kind is played on the same deals (same seed, seat 0 declares a forced
voluntary solo), so the kinds are compared on identical hands. Writes to
results/solo_odds/: win and score tables by trumps and by the other features,
the trumps x top-trumps table, win_vs_trumps.png, score_vs_trumps.png,
heatmap_trumps_top.png, model.json (a logistic regression per kind, with
held-out AUC) and calibration.md/.csv (the model's P(win) against the advisor's
simulation on held-out hands, ``calibration.py``). Run from the checkout with the default results directory, it also refreshes
the advisor's copy of the model, ``dokosim/studies/solo_odds_model.json`` (package data).
"""
from __future__ import annotations

import json
import math
from importlib import resources

import numpy as np
import polars as pl

from dokosim.cards import SOLO_KINDS

from .common import (
    FEATURES, checkout_root, footnote, group_stats, hand_features, plt, results_dir, rules_label, say,
    write_table,
)
from .data import dataset

STUDY = "solo_odds"
DEFAULT_DEALS = 200_000
RULES = {"preset": "ddv"}
SEAT = 0
HOLDOUT = 5  # deal_id % HOLDOUT == 0: held out from the fit
MODEL_TERMS = ("trumps", "trumps2", "top", "plain_aces", "plain_tens", "voids", "longest",
               "trumps_x_top", "leads")
PACKAGE_MODEL = "solo_odds_model.json"  # the advisor's model: package data of dokosim.studies


def leads(dealer, seat: int = SEAT):
    """1 where ``seat`` leads to the first trick of a voluntary solo (the dealer's left), else 0."""
    return ((np.asarray(dealer, dtype=np.int64) + 1) % 4 == seat).astype(np.int8)


def kind_frame(kind: str, deals: int, strategy: str, seed: int, **sim) -> pl.DataFrame:
    """One row per deal of the forced ``kind`` solo: features, win, soloist score."""
    d = dataset(f"{STUDY}/{kind}", deals=deals, seed=seed, strategy=strategy, rules=RULES,
                contract=f"{kind}_solo", declarer=SEAT, **sim)
    frame = d.select("deal_id", "dealer", f"hand_{SEAT}", "winner", f"score_{SEAT}").collect()
    feats = hand_features(frame[f"hand_{SEAT}"].to_numpy(), kind)
    feats["leads"] = leads(frame["dealer"].to_numpy())
    return pl.DataFrame({
        "deal_id": frame["deal_id"], "kind": pl.repeat(kind, frame.height, eager=True),
        "hand": frame[f"hand_{SEAT}"],
        **{k: pl.Series(k, v, dtype=pl.Int8) for k, v in feats.items()},
        "win": frame["winner"] == "re", "score": frame[f"score_{SEAT}"].cast(pl.Int32),
    })


# ------------------------------------------------------------------ model
def design(f: dict) -> np.ndarray:
    """Model matrix (intercept first, then MODEL_TERMS) from hand features and ``leads``
    (arrays or scalars)."""
    t = np.asarray(f["trumps"], dtype=float)
    cols = [np.ones_like(t), t, t * t, f["top"], f["plain_aces"], f["plain_tens"], f["voids"],
            f["longest"], t * np.asarray(f["top"], dtype=float), np.broadcast_to(f["leads"], t.shape)]
    return np.column_stack([np.asarray(c, dtype=float) for c in cols])


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float = 1e-3, iters: int = 50) -> np.ndarray:
    """Logistic regression by Newton's method with a small ridge (not on the intercept)."""
    beta = np.zeros(X.shape[1])
    pen = np.full(X.shape[1], l2 * len(y))
    pen[0] = 0.0
    for _ in range(iters):
        eta = np.clip(X @ beta, -30, 30)
        p = 1 / (1 + np.exp(-eta))
        grad = X.T @ (y - p) - pen * beta
        w = p * (1 - p)
        hess = (X * w[:, None]).T @ X + np.diag(pen)
        step = np.linalg.solve(hess, grad)
        beta += step
        if np.max(np.abs(step)) < 1e-9:
            break
    return beta


def predict_proba(beta, X) -> np.ndarray:
    """The logistic model's P(win) for each row of the model matrix ``X``."""
    return 1 / (1 + np.exp(-np.clip(np.asarray(X) @ np.asarray(beta), -30, 30)))


def auc(y: np.ndarray, score: np.ndarray) -> tuple[float, float, float]:
    """ROC AUC (Mann-Whitney, ties averaged) with a 95% Hanley-McNeil interval."""
    y = np.asarray(y, dtype=bool)
    ranks = pl.Series(score).rank("average").to_numpy()
    n1, n0 = int(y.sum()), int((~y).sum())
    if n1 == 0 or n0 == 0:
        return float("nan"), float("nan"), float("nan")
    a = (ranks[y].sum() - n1 * (n1 + 1) / 2) / (n1 * n0)
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    se = math.sqrt((a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n0 - 1) * (q2 - a * a)) / (n1 * n0))
    return float(a), float(a - 1.96 * se), float(a + 1.96 * se)


def fit_kind(df: pl.DataFrame) -> dict:
    """Fit on deal_id % HOLDOUT != 0, report AUC on the held-out fifth."""
    test = (df["deal_id"] % HOLDOUT == 0).to_numpy()
    feats = {k: df[k].to_numpy().astype(float) for k in (*FEATURES, "leads")}
    X = design(feats)
    y = df["win"].to_numpy().astype(float)
    beta = fit_logistic(X[~test], y[~test])
    p = predict_proba(beta, X[test])
    a, lo, hi = auc(y[test], p)
    # the mean soloist score as a linear function of the same terms (least squares)
    s = df["score"].to_numpy().astype(float)
    gamma, *_ = np.linalg.lstsq(X[~test], s[~test], rcond=None)
    return {"terms": ["intercept", *MODEL_TERMS], "coef": [float(b) for b in beta],
            "score_coef": [float(g) for g in gamma],
            "auc_heldout": a, "auc_ci95": [lo, hi], "train_deals": int((~test).sum()),
            "heldout_deals": int(test.sum()), "heldout_win_rate": float(y[test].mean())}


def load_model(path=None) -> dict:
    """The fitted models: ``path``, else the advisor's copy (package data, PACKAGE_MODEL)."""
    if path is not None:
        return json.loads(open(path).read())
    return json.loads(resources.files(__package__).joinpath(PACKAGE_MODEL).read_text())


def predict(model: dict, hand: int, kind: str, on_lead: bool = True) -> tuple[float, float]:
    """(P(win), expected soloist score) of a hand mask as soloist of ``kind`` by the fitted model;
    ``on_lead``: the soloist leads to the first trick (sits at the dealer's left)."""
    f = hand_features(np.array([hand], dtype=np.int64), kind)
    f["leads"] = np.array([int(bool(on_lead))])
    X = design(f)
    m = model["kinds"][kind]
    return float(predict_proba(m["coef"], X)[0]), float((X @ np.asarray(m["score_coef"]))[0])


# ------------------------------------------------------------------ study
def run(deals=None, strategy="simple", seed=0, results=None, quiet=False, charts=True,
        calibration_hands=None, calibration_deals=None, **sim) -> dict:
    """Simulate the seven forced solos, write the tables, charts, model.json and the model's
    calibration (``calibration_hands`` held-out hands per kind, 0: none) to
    ``results/solo_odds/`` (and the advisor's copy of the model, from the checkout's default
    results); returns the frames, tables and model."""
    from . import calibration
    from .advise import MIN_CALIBRATION
    deals = deals or DEFAULT_DEALS
    cal_hands = calibration.default_hands(deals) if calibration_hands is None else calibration_hands
    cal_deals = calibration_deals or calibration.DEFAULT_DEALS
    out = results_dir(results, STUDY)
    frames = []
    for kind in SOLO_KINDS:
        say(quiet, f"solo_odds: {kind} solo, {deals} deals")
        frames.append(kind_frame(kind, deals, strategy, seed, **sim))
    df = pl.concat(frames)
    note = (f"{deals:,} deals per kind (the same hands for every kind: seed {seed}, seat 0 declares), "
            f"strategy `{strategy}` at every seat, rules {rules_label(RULES)}. Win rate with a 95% "
            "Wilson interval, mean soloist score with a 95% normal interval. For fleischlos the "
            "`trumps` column counts the aces.")
    by_trumps = group_stats(df, ["kind", "trumps"])
    by_trumps = by_trumps.with_columns(pl.col("kind").cast(pl.Enum(list(SOLO_KINDS)))).sort("kind", "trumps")
    write_table(by_trumps, out / "win_by_trumps", "Solo win rate and soloist score by trumps", note)
    by_tt = group_stats(df, ["kind", "trumps", "top"]).with_columns(
        pl.col("kind").cast(pl.Enum(list(SOLO_KINDS)))).sort("kind", "trumps", "top")
    write_table(by_tt, out / "win_by_trumps_top", "Solo win rate by trumps and top trumps",
                note + " Top trumps: TH and the queens (suit solos), QC QS (queens), JC JS (jacks), "
                "tens (fleischlos).")
    feat_tables = []
    for feat in ("top", "plain_aces", "plain_tens", "voids", "longest"):
        g = group_stats(df, ["kind", feat]).rename({feat: "value"}).with_columns(
            pl.lit(feat).alias("feature"), pl.col("value").cast(pl.Int64))
        feat_tables.append(g.select("kind", "feature", *[c for c in g.columns if c not in ("kind", "feature")]))
    by_feat = pl.concat(feat_tables).with_columns(pl.col("kind").cast(pl.Enum(list(SOLO_KINDS)))).sort(
        "kind", "feature", "value")
    write_table(by_feat, out / "win_by_feature", "Solo win rate by each hand feature", note)
    overall = group_stats(df, ["kind"]).with_columns(pl.col("kind").cast(pl.Enum(list(SOLO_KINDS)))).sort("kind")
    write_table(overall, out / "overall", "Solo win rate and soloist score, all hands", note)

    model = {"study": STUDY, "deals_per_kind": deals, "seed": seed, "strategy": strategy,
             "rules": RULES, "holdout": f"deal_id % {HOLDOUT} == 0", "kinds": {}}
    for kind in SOLO_KINDS:
        model["kinds"][kind] = fit_kind(df.filter(pl.col("kind") == kind))
    cal = None
    if cal_hands > 0:
        say(quiet, f"solo_odds: calibration, {cal_hands} held-out hands per kind x {cal_deals} deals")
        cal, model["calibration"] = calibration.calibrate(model, df, strategy, seed, RULES, cal_hands,
                                                          cal_deals)
        command = f"dokosim study solo_odds --deals {deals} --strategy {strategy} --seed {seed}"
        cal.write_csv(out / "calibration.csv", float_precision=6)
        (out / "calibration.md").write_text(calibration.render(model["calibration"], command,
                                                               MIN_CALIBRATION))
    (out / "model.json").write_text(json.dumps(model, indent=1) + "\n")
    if results is None and checkout_root() is not None:  # the checkout's results: the advisor's model too
        resources.files(__package__).joinpath(PACKAGE_MODEL).write_text(json.dumps(model, indent=1) + "\n")
    auc_rows = pl.DataFrame({
        "kind": list(SOLO_KINDS),
        "auc_heldout": [model["kinds"][k]["auc_heldout"] for k in SOLO_KINDS],
        "auc_lo": [model["kinds"][k]["auc_ci95"][0] for k in SOLO_KINDS],
        "auc_hi": [model["kinds"][k]["auc_ci95"][1] for k in SOLO_KINDS],
        "heldout_deals": [model["kinds"][k]["heldout_deals"] for k in SOLO_KINDS],
    })
    write_table(auc_rows, out / "model_auc", "Logistic model of P(win): AUC on held-out deals",
                note + f" Fitted on deal_id % {HOLDOUT} != 0, tested on the rest (95% Hanley-McNeil "
                "interval). Terms: " + ", ".join(MODEL_TERMS) + ".")
    if charts:
        _charts(df, by_trumps, by_tt, out, f"{deals:,} deals per kind (same hands), strategy "
                f"'{strategy}', rules {rules_label(RULES)}, seed {seed}; bands: 95% intervals")
    return {"frame": df, "by_trumps": by_trumps, "by_trumps_top": by_tt, "model": model, "auc": auc_rows,
            "calibration": cal}


def _charts(df, by_trumps, by_tt, out, foot):
    p = plt()
    colors = p.get_cmap("tab10")
    for what, col, lo, hi, fname, ylabel in (
            ("win rate", "win_rate", "win_lo", "win_hi", "win_vs_trumps.png", "P(soloist wins)"),
            ("mean soloist score", "mean_score", "score_lo", "score_hi", "score_vs_trumps.png",
             "mean soloist score")):
        fig, ax = p.subplots(figsize=(9, 5.5))
        for i, kind in enumerate(SOLO_KINDS):
            g = by_trumps.filter((pl.col("kind") == kind) & (pl.col("deals") >= 30))
            x = g["trumps"].to_numpy()
            ax.plot(x, g[col].to_numpy(), "o-", color=colors(i), label=kind + (" (aces)" if kind == "fleischlos" else ""),
                    ms=3)
            ax.fill_between(x, g[lo].to_numpy(), g[hi].to_numpy(), color=colors(i), alpha=0.2)
        ax.set_xlabel("trumps in the soloist's hand (fleischlos: aces)")
        ax.set_ylabel(ylabel)
        ax.set_title(f"Solo {what} by trump count, per solo kind")
        ax.grid(alpha=0.3)
        if col == "mean_score":
            ax.axhline(0, color="0.5", lw=0.8)
        ax.legend(fontsize=8)
        footnote(fig, foot + " (bins with >= 30 deals)")
        fig.tight_layout(rect=(0, 0.03, 1, 1))
        fig.savefig(out / fname, dpi=110)
        p.close(fig)

    fig, axes = p.subplots(2, 4, figsize=(15, 7.5))
    for ax, kind in zip(axes.flat, SOLO_KINDS):
        g = by_tt.filter((pl.col("kind") == kind) & (pl.col("deals") >= 30))
        tmax = int(g["trumps"].max()) + 1
        hmax = int(g["top"].max()) + 1
        grid = np.full((hmax, tmax), np.nan)
        for t, h, w in g.select("trumps", "top", "win_rate").iter_rows():
            grid[h, t] = w
        im = ax.imshow(grid, origin="lower", cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
        for t, h, w in g.select("trumps", "top", "win_rate").iter_rows():
            ax.text(t, h, f"{100 * w:.0f}", ha="center", va="center", fontsize=6)
        ax.set_xticks(range(tmax))
        ax.set_yticks(range(hmax))
        ax.set_title(f"{kind} solo", fontsize=10)
        ax.set_xlabel("aces" if kind == "fleischlos" else "trumps", fontsize=8)
        ax.set_ylabel({"queens": "QC+QS", "jacks": "JC+JS", "fleischlos": "tens"}.get(kind, "TH + queens"),
                      fontsize=8)
    axes.flat[-1].axis("off")
    fig.colorbar(im, ax=axes.flat[-1], fraction=0.5, label="P(soloist wins)")
    fig.suptitle("Solo win rate (%) by trumps x top trumps (cells with >= 30 deals)")
    footnote(fig, foot)
    fig.tight_layout(rect=(0, 0.03, 1, 0.96))
    fig.savefig(out / "heatmap_trumps_top.png", dpi=110)
    p.close(fig)


if __name__ == "__main__":
    from .cli import script_main
    script_main(STUDY)
