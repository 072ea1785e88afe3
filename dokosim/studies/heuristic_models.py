"""Fitting heuristic's hand models (``strategies/heuristic.MODELS``) on simulated deals:
``python -m dokosim.studies.heuristic_models`` prints a new array to paste into MODELS.

Solo kind k: deals forced to that solo with seat 0 the soloist (target: Re wins). Re and
Kontra: normal deals without calls, each seat's hand against its side's result.
"""
from __future__ import annotations

import numpy as np

from ..engine.cards import SOLO_SCHEME
from ..strategies.heuristic import M_KO, M_KO151, M_RE, M_RE151, MODELS
from ..strategies.cardcount import N_FEATURES, features_batch


def _fit_logistic(x, y, l2=1e-2, iters=40):
    """Logistic regression by Newton steps with a small ridge; returns the weights."""
    w = np.zeros(x.shape[1])
    eye = np.eye(x.shape[1]) * l2
    eye[0, 0] = 0.0
    for _ in range(iters):
        z = np.clip(x @ w, -30, 30)
        p = 1.0 / (1.0 + np.exp(-z))
        g = x.T @ (p - y) + eye @ w
        h = (x * (p * (1 - p))[:, None]).T @ x + eye + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(h, g)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    return w


def _features(hands, scheme, leads):
    out = np.zeros((len(hands), N_FEATURES))
    features_batch(np.ascontiguousarray(hands, dtype=np.int64), scheme,
                   np.ascontiguousarray(leads, dtype=np.int64), out)
    return out


def _fit_tail(x, y, floor=0.03):
    """Fit on everything, then again on the hands the first fit gives a real chance: the
    decisions are made in the tail, where one fit for all hands is least accurate."""
    w = _fit_logistic(x, y)
    p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
    keep = p >= floor
    if keep.sum() > 2000 and y[keep].sum() > 200:
        w = _fit_logistic(x[keep], y[keep])
    return w


def calibrate(deals=300_000, seed=2024, rules="ddv", verbose=True):
    """Fit MODELS on simulated deals played by this strategy; returns the new array.

    Solo kind k: ``deals`` deals forced to that solo with seat 0 the soloist
    (target: Re wins). Re and Kontra: ``deals`` normal deals without calls,
    each seat's hand against its side's result. Paste the result into MODELS.
    """
    from ..engine.cards import SOLO_KINDS
    from ..run.simulate import simulate
    models = MODELS.copy()
    for kind, name in enumerate(SOLO_KINDS):
        df = simulate(deals, seed=seed + kind, rules=rules, strategy="heuristic",
                      contract=f"{name}_solo", declarer=0)
        leads = ((df["dealer"].to_numpy() + 1) % 4 == 0).astype(np.int64)
        x = _features(df["hand_0"].to_numpy(), int(SOLO_SCHEME[kind]), leads)
        y = (df["winner"] == "re").to_numpy().astype(float)
        models[kind] = _fit_tail(x, y)
        if verbose:
            p = 1.0 / (1.0 + np.exp(-np.clip(x @ models[kind], -30, 30)))
            for thr in (0.5, 0.6, 0.7):
                sel = p >= thr
                print(f"{name:11} win {y.mean():.3f}; p>={thr}: {sel.mean():.4f} of hands, "
                      f"won {y[sel].mean() if sel.any() else float('nan'):.3f}")
    df = simulate(deals, seed=seed + 99, rules=rules, strategy="heuristic", contract="normal", calls=False)
    df = df.filter(df["contract"] == "normal")
    xs, ys, sides, ys151 = [], [], [], []
    re_won = (df["winner"] == "re").to_numpy()
    ko_won = (df["winner"] == "kontra").to_numpy()
    re_mask = df["re_mask"].to_numpy()
    for s in range(4):
        leads = ((df["dealer"].to_numpy() + 1) % 4 == s).astype(np.int64)
        xs.append(_features(df[f"hand_{s}"].to_numpy(), 3, leads))
        is_re = (re_mask >> s) & 1 == 1
        ys.append(np.where(is_re, re_won, ko_won).astype(float))
        sides.append(is_re)
        eyes = df["eyes_re"].to_numpy().astype(int)
        ys151.append(np.where(is_re, eyes >= 151, 240 - eyes >= 151).astype(float))
    x, y, side = np.concatenate(xs), np.concatenate(ys), np.concatenate(sides)
    y151 = np.concatenate(ys151)
    models[M_RE] = _fit_logistic(x[side], y[side])
    models[M_KO] = _fit_logistic(x[~side], y[~side])
    models[M_RE151] = _fit_logistic(x[side], y151[side])
    models[M_KO151] = _fit_logistic(x[~side], y151[~side])
    if verbose:
        print(f"normal: Re wins {re_won.mean():.3f}, Re 151+ {y151[side].mean():.3f}, Kontra 151+ {y151[~side].mean():.3f}")
        np.set_printoptions(precision=4, suppress=True, linewidth=150)
        print(repr(models))
    return models


if __name__ == "__main__":
    calibrate()
