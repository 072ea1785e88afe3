"""The advisor's answer for one decision, from the outcomes of its options on the same sampled
deals: each option's win chance (95% Wilson interval over the deals played), mean score (95%
interval) and its gain over a baseline option deal by deal (a paired 95% interval: the options
were played on the same deals), the recommendation, and the table ``dokosim advise`` prints."""
from __future__ import annotations

import math

import numpy as np

from ..loop.advice import REDEALT, WON
from ..stats import mean_ci, wilson


def _number(x: float) -> float | None:
    """``x`` as a JSON number, None for NaN (no interval from fewer than two deals)."""
    return None if x is None or math.isnan(x) else float(x)


def option_entry(scores: np.ndarray, status: np.ndarray, baseline: np.ndarray | None = None) -> dict:
    """One option's row: ``scores`` and ``status`` (one per sampled deal) summed up; ``baseline``:
    the baseline option's scores on the same deals, for the paired gain."""
    played = status != REDEALT
    p, lo, hi = wilson(int((status == WON).sum()), int(played.sum()))
    m, slo, shi = mean_ci(scores)
    if played.any():  # at no or all wins, rounding puts a bound a hair past 0 or 1, or short of p
        lo, hi = max(0.0, min(float(lo), float(p))), min(1.0, max(float(hi), float(p)))
    entry = {"deals": int(scores.size), "win_chance": _number(p), "win_ci95": [_number(lo), _number(hi)],
             "expected_score": _number(m), "score_ci95": [_number(slo), _number(shi)]}
    if not played.all():
        entry["redealt"] = float(1 - played.mean())
    if baseline is not None:
        g, glo, ghi = mean_ci(scores - baseline)
        entry["gain"] = _number(g)
        entry["gain_ci95"] = [_number(glo), _number(ghi)]
    return entry


def summarize(names: list[str], scores: np.ndarray, status: np.ndarray, baseline: int = 0) -> dict:
    """``{"options": {name: entry}, "baseline": name, "recommendation": name,
    "recommendation_text": line}`` for the options ``names`` (the columns of ``scores`` and
    ``status``), each gain measured against option ``baseline``."""
    options = {}
    for j, name in enumerate(names):
        options[name] = option_entry(scores[:, j], status[:, j], None if j == baseline else scores[:, baseline])
    ranked = sorted(range(len(names)), key=lambda j: -scores[:, j].mean())
    best = ranked[0]
    e = options[names[best]]
    text = f"Recommendation: {names[best]} (expected score {e['expected_score']:+.2f}"
    if e["win_chance"] is not None:
        text += f", win chance {100 * e['win_chance']:.0f}%"
    text += ")"
    if len(ranked) > 1:
        second = ranked[1]
        g, lo, hi = mean_ci(scores[:, best] - scores[:, second])
        if not math.isnan(lo) and lo > 0:
            text += (f"; better than {names[second]} by {g:+.2f} [{lo:+.2f}, {hi:+.2f}] points a deal "
                     "on the same deals")
        else:
            text += f"; not clearly better than {names[second]} at {scores.shape[0]} deals"
    return {"options": options, "baseline": names[baseline], "recommendation": names[best],
            "recommendation_text": text}


def _win(e) -> str:
    """The win chance and its interval, 26 characters ("n/a" when no deal was played)."""
    if e["win_chance"] is None:
        return f"{'n/a':>10} {'':15}"
    lo, hi = e["win_ci95"]
    return f"{100 * e['win_chance']:9.1f}% [{100 * lo:5.1f}, {100 * hi:5.1f}]%"


def _pts(x, width: int = 7) -> str:
    return f"{'n/a':>{width}}" if x is None else f"{x:+{width}.2f}"


def render_options(result: dict, width: int = 22) -> list[str]:
    """The table of ``result["options"]`` (as ``summarize`` makes them): a header and a row per
    option (its redeal share on a line of its own when it has one)."""
    base = result["baseline"]
    width = max(width, *(len(name) for name in result["options"]))
    lines = [f"{'option':{width}} {'win chance':>10} {'95% interval':>15} {'exp. score':>10} {'95% interval':>17} "
             f"{'gain vs ' + base:>{max(16, len(base) + 8)}} {'95% interval':>17}"]
    for name, e in result["options"].items():
        row = (f"{name:{width}} {_win(e)} "
               f"{_pts(e['expected_score'], 10)} [{_pts(e['score_ci95'][0])}, {_pts(e['score_ci95'][1])}]")
        if "gain" in e:
            row += (f" {_pts(e['gain'], max(16, len(base) + 8))} [{_pts(e['gain_ci95'][0])}, "
                    f"{_pts(e['gain_ci95'][1])}]")
        lines.append(row.rstrip())
        if "redealt" in e:
            lines.append(f"{'':{width}} nobody took the poverty in {100 * e['redealt']:.1f}% of the deals "
                         "(redealt, counted 0; left out of the win chance)")
    return lines


def fit_note(result: dict) -> list[str]:
    """A line saying how many sampled deals could not be made to fit what the table saw (none
    when all did)."""
    if result.get("fitted", 1.0) >= 1.0:
        return []
    return [f"{100 * (1 - result['fitted']):.1f}% of the sampled deals were kept without fitting what the table "
            "saw (the bids and calls) after the sampler's tries"]
