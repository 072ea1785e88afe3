"""The solo odds model: a logistic regression per solo kind of P(win) (and a linear fit of the
soloist's score) on what the hand holds, fitted by the solo_odds study and read by the advisor
(package data, ``solo_odds_model.json``)."""
from __future__ import annotations

import json
import math
from importlib import resources

import numpy as np
import polars as pl

from .common import FEATURES, hand_features

SEAT = 0
HOLDOUT = 5  # deal_id % HOLDOUT == 0: held out from the fit
MODEL_TERMS = ("trumps", "trumps2", "top", "plain_aces", "plain_tens", "voids", "longest",
               "trumps_x_top", "leads")
PACKAGE_MODEL = "solo_odds_model.json"  # the advisor's model: package data of dokosim.studies
MIN_CALIBRATION = 0.90  # share of held-out hands whose model P(win) lies in the simulated interval


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
