"""Confidence intervals, the one place that computes them: Student's t for means (and for the
ratio estimator of a per-card rate over deals), Wilson's score interval for proportions. Plain
Python and numpy; every layer may use it."""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

LEVEL = 0.95
Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054


def t_critical(df: int, level: float = LEVEL) -> float:
    """The two-sided Student t critical value: P(|T| < t) = level with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df > 1000:  # Cornish-Fisher expansion (Abramowitz & Stegun 26.7.5), exact to ~1e-12 here
        x = NormalDist().inv_cdf((1 + level) / 2)
        g = [(x**3 + x) / 4, (5 * x**5 + 16 * x**3 + 3 * x) / 96,
             (3 * x**7 + 19 * x**5 + 17 * x**3 - 15 * x) / 384,
             (79 * x**9 + 776 * x**7 + 1482 * x**5 - 1920 * x**3 - 945 * x) / 92160]
        return x + sum(gi / df**(i + 1) for i, gi in enumerate(g))
    lo, hi = 0.0, 1.0
    while _t_two_sided(hi, df) < level:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if _t_two_sided(mid, df) < level:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13 * hi:
            break
    return (lo + hi) / 2


def _t_two_sided(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with integer ``df`` (Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 1:  # 2/pi * (theta + sin cos (1 + 2/3 c2 + 2*4/(3*5) c2^2 + ...))
        term, total = 1.0, 0.0
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * (2 * k) / (2 * k + 1)
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total) if df > 1 \
            else 2 / math.pi * theta
    term, total = 1.0, 0.0  # sin * (1 + 1/2 c2 + 1*3/(2*4) c2^2 + ...)
    for k in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * k - 1) / (2 * k)
    return math.sin(theta) * total


@dataclass(frozen=True)
class Interval:
    """A mean with its confidence interval."""

    mean: float
    lo: float
    hi: float

    def covers(self, x: float) -> bool:
        return self.lo <= x <= self.hi


def mean_interval(values, level: float = LEVEL) -> Interval:
    """Mean of independent values and its Student t interval (NaN bounds with fewer than 2 values)."""
    v = np.asarray(values, dtype=np.float64)
    n = v.size
    if n == 0:
        return Interval(math.nan, math.nan, math.nan)
    mean = float(v.mean())
    if n < 2:
        return Interval(mean, math.nan, math.nan)
    half = t_critical(n - 1, level) * float(v.std(ddof=1)) / math.sqrt(n)
    return Interval(mean, mean - half, mean + half)


def ratio_interval(loss_per_deal, cards_per_deal, level: float = 0.95):
    """Eyes lost per card over deals and its interval: the ratio estimator sum(loss) / sum(cards)
    with the delta method's standard error, sqrt(sum((L_d - r C_d)^2) / (n (n - 1))) / mean(C),
    and Student's t with n - 1 degrees of freedom (deals with no card counted are left out).
    Returns (mean, lo, hi, deals, cards); NaN bounds with fewer than 2 deals."""
    loss = np.asarray(loss_per_deal, dtype=np.float64)
    cards = np.asarray(cards_per_deal, dtype=np.float64)
    keep = cards > 0
    loss, cards = loss[keep], cards[keep]
    n = loss.size
    if n == 0:
        return math.nan, math.nan, math.nan, 0, 0
    r = float(loss.sum() / cards.sum())
    if n < 2:
        return r, math.nan, math.nan, n, int(cards.sum())
    se = math.sqrt(float(((loss - r * cards) ** 2).sum()) / (n * (n - 1))) / float(cards.mean())
    half = t_critical(n - 1, level) * se
    return r, r - half, r + half, n, int(cards.sum())



def wilson(k, n, z: float = Z95):
    """95% Wilson interval of a proportion k/n (arrays allowed): (p, lo, hi)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        den = 1 + z * z / n
        mid = (p + z * z / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return p, mid - half, mid + half


def mean_ci(values, z: float = Z95):
    """Mean of values and its normal interval (``z`` standard errors; the studies' sizes make t and z
    agree to the digits they print). As a tuple (mean, lo, hi); ``mean_interval`` gives Student's t."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    m = float(x.mean())
    if n < 2:
        return m, float("nan"), float("nan")
    half = z * float(x.std(ddof=1)) / math.sqrt(n)
    return m, m - half, m + half
