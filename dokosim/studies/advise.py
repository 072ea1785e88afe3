"""``dokosim advise``: what each reservation is worth for one hand.

For every reservation the hand may make (healthy, each solo kind the rules
allow, marriage with both QC, poverty under the poverty rule) the other cards
are dealt at random and the deal is played out by the strategy at all four
seats (``dokosim.simulate(..., fixed_hand=(seat, hand))``). Every option uses
the same seed, so the unseen hands are the same deals for every option
(common random numbers). Reports the win chance (95% Wilson interval) and the
mean score (95% normal interval) of the seat, and, for solos, the solo_odds
model's P(win) (package data, ``solo_odds_model.json``) only where that model is calibrated:
fitted under the same strategy and rules, and on held-out hands its P(win) fell inside the
simulated 95% interval for at least MIN_CALIBRATION of them (``dokosim.studies.calibration``).
"""
from __future__ import annotations

import re
import time

import numpy as np
import polars as pl

from ..engine.cards import RANKS, SUITS, SOLO_KINDS, card_type, mask_str

from .common import StudyError, type_mask
from ..stats import mean_ci, wilson
from .solo_model import MIN_CALIBRATION
from ..run.players import STRONGEST_FAST

QC = type_mask("QC")
DEFAULT_STRATEGY = STRONGEST_FAST


def parse_hand(text: str, rules) -> int:
    """The 48-bit mask of a hand in card notation; ValueError with a one-line reason."""
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    mask = 0
    for tok in tokens:
        s = tok.upper()
        if s.startswith("10"):
            s = "T" + s[2:]
        if len(s) != 2 or s[0] not in RANKS or s[1] not in SUITS:
            raise ValueError(f"unknown card {tok!r}: a card is a rank A T K Q J 9 (or 10) and a suit "
                             "C S H D, e.g. QC TH")
        if rules.no_nines and s[0] == "9":
            raise ValueError(f"{s}: there are no nines under these rules (no_nines)")
        c = 2 * card_type(s)
        if mask >> c & 1:
            if mask >> (c + 1) & 1:
                raise ValueError(f"{s} appears three times; the pack has two of each card")
            c += 1
        mask |= 1 << c
    if len(tokens) != rules.hand_size:
        raise ValueError(f"a hand has {rules.hand_size} cards under these rules, got {len(tokens)}")
    return mask


def options(mask: int, rules) -> list[str]:
    """The reservations this hand may make: healthy, solos, marriage, poverty."""
    from dokosim.engine.deal import NORMAL_TRUMPS
    opts = ["healthy"] + [f"{k}_solo" for k in SOLO_KINDS if k in rules.solos]
    if mask & QC == QC:
        opts.append("marriage")
    if rules.poverty and bin(mask & int(NORMAL_TRUMPS)).count("1") <= 3:
        opts.append("poverty")
    return opts


def _seat_outcome(df: pl.DataFrame, seat: int) -> tuple[np.ndarray, np.ndarray]:
    score = df[f"score_{seat}"].cast(pl.Float64).to_numpy()
    is_re = ((df["re_mask"].cast(pl.Int64).to_numpy() >> seat) & 1) == 1
    w = df["winner"].cast(pl.String).to_numpy()
    win = np.where(is_re, w == "re", w == "kontra")
    return score, win


def advise(mask: int, seat: int = 0, dealer: int = 3, rules="ddv", strategy: str = DEFAULT_STRATEGY,
           deals: int = 4000, seed: int = 0, hands=None, where=None, where_path=None, progress=None,
           only=None, outcomes=None) -> dict:
    """Simulate every option; returns the JSON object that ``dokosim advise --json`` prints.

    ``hands`` ({other seat: cards it holds at least}), ``where`` and ``where_path``: what you know
    of the other hands (docs/conditions.md), e.g. ``where="trumps(1) == 0"``: only deals where
    it holds are played. ``trumps(seat)`` counts the trumps of the option being rated.
    ``progress``: called as ``progress(done, total, option)`` before each option is simulated
    and once more at the end (``option`` None), e.g. for a progress bar (dokosim serve).
    ``only``: rate these of the hand's options alone (a StudyError names the ones it may make).
    ``outcomes``: a dict that receives, per option, the seat's score in every deal (as averaged
    in ``expected_score``: 0 where a poverty was refused), for paired comparisons across options.
    """
    if hands and seat in {int(s) for s in hands}:
        raise StudyError(f"hands gives seat {seat}, which is yours (your hand is the one rated)")
    conditions = {k: v for k, v in (("hands", hands), ("where", where), ("where_path", where_path))
                  if v is not None}
    import inspect

    from dokosim.rules import rules_from_object
    from ..run.simulate import SimulationError, simulate
    from ..loop.registry import StrategyError
    rules = rules_from_object(rules)
    if "fixed_hand" not in inspect.signature(simulate).parameters:
        raise StudyError("advise needs dokosim.simulate(..., fixed_hand=(seat, hand)), which this "
                         "version of the simulator lacks")
    model, model_note = usable_model(strategy, rules)
    t0 = time.time()
    result = {"hand": mask_str(mask), "seat": seat, "dealer": dealer, "rules": rules.to_dict(),
              "strategy": strategy, "deals": deals, "seed": seed,
              **({"conditions": {k: (v if k != "hands" else {str(s): c for s, c in v.items()})
                                 for k, v in conditions.items()}} if conditions else {}),
              "options": {},
              "model_shown": model is not None, "model_note": model_note}
    opts = options(mask, rules)
    if only is not None:
        unknown = [o for o in only if o not in opts]
        if unknown:
            raise StudyError(f"option {unknown[0]!r} is not one this hand may make; it may make {', '.join(opts)}")
        opts = [o for o in opts if o in only]
    for done, opt in enumerate(opts):
        if progress is not None:
            progress(done, len(opts), opt)
        kw = {}
        if opt == "healthy":
            kw = {"contract": "normal"}
        elif opt == "marriage":
            kw = {"contract": "marriage"}
        elif opt.endswith("_solo"):
            kw = {"contract": opt, "declarer": seat}
        try:
            df = simulate(deals, seed, rules, strategy, dealer=dealer, fixed_hand=(seat, mask), **kw,
                          **conditions)
        except (SimulationError, StrategyError) as exc:
            raise StudyError(str(exc)) from None
        score, win = _seat_outcome(df, seat)
        entry = {"deals": deals}
        if opt == "poverty":
            refused = df["redeals"].to_numpy() > 0
            declared = refused | ((df["contract"] == "poverty") & (df["declarer"] == seat)).to_numpy()
            score = np.where(refused, 0.0, score)  # refused: the cards are dealt again (worth 0 on average)
            played = ~refused
            entry["refused"] = float(refused.mean())
            entry["declared_share"] = float(declared.mean())
            win = win[played]
            entry["note"] = ("win chance over accepted poverties; a refused poverty is redealt and "
                             "counts 0 in the expected score")
        if outcomes is not None:
            outcomes[opt] = score
        k, n = int(win.sum()), int(win.size)
        p, lo, hi = wilson(k, n)
        m, slo, shi = mean_ci(score)
        entry.update({"win_chance": float(p), "win_ci95": [float(lo), float(hi)],
                      "expected_score": m, "score_ci95": [slo, shi]})
        if opt == "healthy" and mask & QC == QC:
            entry["note"] = "both QC and healthy: a silent marriage (scored as a solo)"
        if opt.endswith("_solo") and model is not None:
            from .solo_model import predict
            pw, ps = predict(model, mask, opt[:-5], on_lead=(dealer + 1) % 4 == seat)
            entry["model_win_chance"] = pw
            entry["model_expected_score"] = ps
        result["options"][opt] = entry
    if progress is not None:
        progress(len(opts), len(opts), None)
    best = max(result["options"], key=lambda o: result["options"][o]["expected_score"])
    ranked = sorted(result["options"], key=lambda o: -result["options"][o]["expected_score"])
    b = result["options"][best]
    sure = len(ranked) < 2 or b["score_ci95"][0] > result["options"][ranked[1]]["score_ci95"][1]
    result["recommendation"] = best
    result["recommendation_text"] = (
        f"Recommendation: {best.replace('_', ' ')} (expected score {b['expected_score']:+.2f}, "
        f"win chance {100 * b['win_chance']:.0f}%)"
        + ("" if sure else f"; not clearly better than {ranked[1].replace('_', ' ')} at {deals} deals"))
    result["seconds"] = round(time.time() - t0, 2)
    return result


def usable_model(strategy: str, rules) -> tuple[dict | None, str]:
    """The solo_odds model (package data) if it may be shown for this strategy and these rules,
    else None; and a one-line note saying which and why."""
    from .solo_model import load_model
    try:
        model = load_model()
    except (OSError, ValueError):
        return None, "model P(win) not shown: the package holds no readable solo_odds model"
    cal = model.get("calibration") or {}
    share = cal.get("share_inside")
    where = "results/solo_odds/calibration.md"
    if model.get("strategy") != strategy or rules.to_dict() != model.get("rules"):
        return None, (f"model P(win) not shown: it was fitted under strategy {model.get('strategy')!r}, "
                      f"rules {model.get('rules')}, not this strategy and these rules")
    if share is None:
        return None, "model P(win) not shown: its calibration has not been measured"
    if share < MIN_CALIBRATION:
        return None, (f"model P(win) not shown: on {cal['hands']} held-out hands it fell inside the "
                      f"simulated 95% interval for only {100 * share:.0f}% (needs "
                      f"{100 * MIN_CALIBRATION:.0f}%; {where})")
    return model, (f"model P(win): inside the simulated 95% interval for {100 * share:.0f}% of "
                   f"{cal['hands']} held-out hands ({where})")


def render(result: dict) -> str:
    """The text ``dokosim advise`` prints: a row per option, the model note, the recommendation."""
    who = result["strategy"]
    why = " (the default: the strongest fast player)" if who == STRONGEST_FAST else ""
    lines = [f"answered by {who} at every seat{why}; hand {result['hand']}  (seat {result['seat']}, "
             f"dealer {result['dealer']}, rules {result['rules']}, {result['deals']} deals per option)",
             f"{'option':18} {'win chance':>10} {'95% interval':>15} {'exp. score':>10} {'95% interval':>17}"
             + (f" {'model P(win)':>12}" if result["model_shown"] else "")]
    if result.get("conditions"):
        given = "; ".join(f"{k} {v}" for k, v in result["conditions"].items())
        lines.insert(1, f"given {given}  (docs/conditions.md)")
    for opt, e in result["options"].items():
        mw = f"{100 * e['model_win_chance']:11.1f}%" if "model_win_chance" in e else ""
        lines.append(f"{opt:18} {100 * e['win_chance']:9.1f}% "
                     f"[{100 * e['win_ci95'][0]:5.1f}, {100 * e['win_ci95'][1]:5.1f}]% "
                     f"{e['expected_score']:+10.2f} [{e['score_ci95'][0]:+7.2f}, {e['score_ci95'][1]:+7.2f}] {mw}")
        if "refused" in e:
            lines.append(f"{'':18} poverty refused in {100 * e['refused']:.1f}% of deals (redealt, counted 0)")
    if any(o.endswith("_solo") for o in result["options"]):
        lines.append(result["model_note"])
    lines.append(result["recommendation_text"])
    return "\n".join(lines)
