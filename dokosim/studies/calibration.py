"""Is the solo_odds model's P(win) one number with the advisor's simulation?

For held-out hands of the solo_odds study (``deal_id % HOLDOUT == 0``, never fitted on), each
hand is played as ``dokosim advise`` plays it: ``deals`` deals with the hand fixed at the
soloist's seat (the dealer of its deal, so the lead is the same as in the study), the other
cards at random, the solo forced, the study's strategy at every seat. The model is calibrated
for the advisor if its P(win) falls inside the simulated 95% Wilson interval for at least
``advise.MIN_CALIBRATION`` of the hands; ``dokosim advise`` shows it only then.
"""
from __future__ import annotations

import polars as pl

from ..engine.cards import SOLO_KINDS
from ..stats import wilson
from .skills import skill_params

DEALS_PER_HAND = 5000  # the study's deals per held-out hand calibrated (200,000 deals: 40 hands per kind)
DEFAULT_DEALS = 4000  # simulated deals per hand: the advisor's default, so the same interval width


def default_hands(study_deals: int) -> int:
    """Held-out hands per solo kind for a study of ``study_deals`` deals per kind: one per
    DEALS_PER_HAND, at least one (the calibration then costs 0.8 of the study's deals)."""
    return max(1, study_deals // DEALS_PER_HAND)


def calibrate(model: dict, frame: pl.DataFrame, strategy: str, seed: int, rules,
              hands: int, deals: int = DEFAULT_DEALS) -> tuple[pl.DataFrame, dict]:
    """One row per held-out hand (kind, deal_id, model P(win), simulated win chance and its 95%
    interval, inside) and the summary stored in model.json under ``calibration``.

    ``frame`` is the solo_odds study's frame (deal_id, kind, hand, leads); the first ``hands``
    held-out deals of each kind are used."""
    from ..run.simulate import simulate

    from .solo_model import HOLDOUT, SEAT, predict
    rows = []
    for kind in SOLO_KINDS:
        held = (frame.filter((pl.col("kind") == kind) & (pl.col("deal_id") % HOLDOUT == 0))
                .sort("deal_id").head(hands))
        for deal_id, hand, on_lead in held.select("deal_id", "hand", "leads").iter_rows():
            dealer = (SEAT - 1) % 4 if on_lead else SEAT  # any dealer that gives the same lead
            df = simulate(deals, seed, rules, strategy, dealer=dealer, fixed_hand=(SEAT, int(hand)),
                          contract=f"{kind}_solo", declarer=SEAT, params=skill_params(strategy), quiet=True)
            wins = int((df["winner"] == "re").sum())
            p, lo, hi = wilson(wins, deals)
            lo, hi = min(float(lo), float(p)), max(float(hi), float(p))  # rounding: lo was 1e-18 > 0 = p
            pm, _ = predict(model, int(hand), kind, on_lead=bool(on_lead))
            rows.append({"kind": kind, "deal_id": int(deal_id), "leads": int(on_lead), "model_p": pm,
                         "sim_p": float(p), "sim_lo": float(lo), "sim_hi": float(hi),
                         "inside": bool(lo <= pm <= hi)})
    table = pl.DataFrame(rows)
    return table, summarise(table, deals)


def summarise(table: pl.DataFrame, deals: int) -> dict:
    """The share of hands whose model P(win) lies inside the simulated interval (overall, with
    its Wilson interval, and per kind) and the mean absolute gap between the two estimates."""
    n = table.height
    k = int(table["inside"].sum())
    share, lo, hi = wilson(k, n)
    gap = (table["model_p"] - table["sim_p"]).abs()
    per_kind = {kind: {"hands": g.height, "share_inside": float(g["inside"].mean()),
                       "mean_abs_gap": float((g["model_p"] - g["sim_p"]).abs().mean())}
                for (kind,), g in table.group_by("kind", maintain_order=True)}
    return {"hands": n, "inside": k, "share_inside": float(share), "share_ci95": [float(lo), float(hi)],
            "mean_abs_gap": float(gap.mean()), "max_abs_gap": float(gap.max()),
            "deals_per_hand": deals, "per_kind": per_kind,
            "heldout": "the first held-out deals (deal_id % 5 == 0) of each kind"}


def render(summary: dict, command: str, min_share: float) -> str:
    """calibration.md: the figure, the verdict for ``dokosim advise`` and the command."""
    s = summary
    shown = s["share_inside"] >= min_share
    lines = ["# Calibration of the solo_odds model against the advisor's simulation", "",
             f"Command: `{command}`", "",
             f"On {s['hands']} held-out hands ({s['hands'] // len(s['per_kind'])} per solo kind, never "
             f"fitted on), each simulated {s['deals_per_hand']:,} times as `dokosim advise` does, the "
             f"model's P(win) fell inside the simulated 95% interval for **{s['inside']} of "
             f"{s['hands']} = {100 * s['share_inside']:.1f}%** [95% interval "
             f"{100 * s['share_ci95'][0]:.1f}, {100 * s['share_ci95'][1]:.1f}]. Mean absolute gap "
             f"between the two: {100 * s['mean_abs_gap']:.1f} points (largest "
             f"{100 * s['max_abs_gap']:.1f}).", "",
             f"`dokosim advise` shows the model only when this share is at least "
             f"{100 * min_share:.0f}%: it is **{'shown' if shown else 'not shown'}**.", "",
             "| kind | hands | share inside | mean abs. gap |", "|---|---|---|---|"]
    for kind, k in s["per_kind"].items():
        lines.append(f"| {kind} | {k['hands']} | {100 * k['share_inside']:.1f}% | "
                     f"{100 * k['mean_abs_gap']:.1f} |")
    return "\n".join(lines) + "\n"

