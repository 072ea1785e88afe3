"""Solo odds: P(win) and the soloist's score of the seven solo kinds, by what the hand holds.

    dokosim study solo_odds [--deals 200000] [--strategy heuristic] [--seed 0]
    python -m analysis.solo_odds [--deals N] ...   (the same)

Every kind is played on the same deals (same seed, seat 0 declares a forced
voluntary solo), so the kinds are compared on identical hands. Writes to
results/solo_odds/: win and score tables by trumps and by the other features,
the trumps x top-trumps table, win_vs_trumps.png, score_vs_trumps.png,
heatmap_trumps_top.png, model.json (a logistic regression per kind, with
held-out AUC) and calibration.md/.csv (the model's P(win) against the advisor's
simulation on held-out hands, ``calibration.py``); the same hands played as a normal game
(for "does the solo beat playing healthy"), rules_of_thumb.md (from which count each kind pays),
win_by_trumps_aces, and the headline figures under simple, heuristic and pimc side by side
(skills.md, skills.png, win_vs_trumps_skills.png; pimc on a subsample). Run from the checkout with the default results directory, it also refreshes
the advisor's copy of the model, ``dokosim/studies/solo_odds_model.json`` (package data).
"""
from __future__ import annotations

import json
from importlib import resources

import numpy as np
import polars as pl

from ..engine.cards import SOLO_KINDS
from ..run.players import STRONGEST_FAST
from .common import (
    checkout_root, footnote, group_stats, hand_features, plt, results_dir, rules_label, say,
    write_table,
)
from .data import dataset
from .skills import skill_params, skill_tag
from .solo_model import HOLDOUT, MODEL_TERMS, PACKAGE_MODEL, SEAT, fit_kind

STUDY = "solo_odds"
DEFAULT_DEALS = 200_000
RULES = {"preset": "ddv"}
PIMC_SHARE = 0.0025  # pimc plays 0.25% of the study's deals per kind (500 at the default size)
MIN_PIMC_DEALS = 50
MIN_GROUP = 100  # trump counts with fewer deals give no rule of thumb and no skills row
# the trump count of each kind at which the skills are compared (a hand a player would consider)
KEY_HANDS, KEY_DEALS = 30, 4  # pimc at the key count: 30 hands of the study drawn there, 4 deals each
MIN_KEY_HANDS = 2  # (30 at the default size, in proportion below it)
KEY_COUNT = {"diamonds": 10, "hearts": 10, "spades": 10, "clubs": 10, "queens": 5, "jacks": 5, "fleischlos": 5}
GIVEN_WORD = {"plain_aces": "plain aces", "top": "top trumps"}
COUNT_WORD = {"queens": "queens", "jacks": "jacks", "fleischlos": "aces"}


def leads(dealer, seat: int = SEAT):
    """1 where ``seat`` leads to the first trick of a voluntary solo (the dealer's left), else 0."""
    return ((np.asarray(dealer, dtype=np.int64) + 1) % 4 == seat).astype(np.int8)


def kind_frame(kind: str, deals: int, strategy: str, seed: int, **sim) -> pl.DataFrame:
    """One row per deal of the forced ``kind`` solo: features, win, soloist score."""
    d = dataset(f"{STUDY}/{kind}{skill_tag(strategy)}", deals=deals, seed=seed, strategy=strategy, rules=RULES,
                contract=f"{kind}_solo", declarer=SEAT, params=skill_params(strategy), **sim)
    frame = d.select("deal_id", "dealer", f"hand_{SEAT}", "winner", f"score_{SEAT}").collect()
    feats = hand_features(frame[f"hand_{SEAT}"].to_numpy(), kind)
    feats["leads"] = leads(frame["dealer"].to_numpy())
    return pl.DataFrame({
        "deal_id": frame["deal_id"], "kind": pl.repeat(kind, frame.height, eager=True),
        "hand": frame[f"hand_{SEAT}"],
        **{k: pl.Series(k, v, dtype=pl.Int8) for k, v in feats.items()},
        "win": frame["winner"] == "re", "score": frame[f"score_{SEAT}"].cast(pl.Int32),
    })


def normal_frame(deals: int, strategy: str, seed: int, **sim) -> pl.DataFrame:
    """Seat 0's score when the same deals are played as a normal game (everybody healthy)."""
    d = dataset(f"{STUDY}/normal{skill_tag(strategy)}", deals=deals, seed=seed, strategy=strategy, rules=RULES,
                contract="normal", declarer=SEAT, params=skill_params(strategy), **sim)
    return d.select("deal_id", pl.col(f"score_{SEAT}").cast(pl.Int32).alias("normal_score")).collect()


def solo_gain(df: pl.DataFrame, normal: pl.DataFrame) -> pl.DataFrame:
    """``df`` with ``gain``: the soloist's score minus seat 0's score on the same deal played as a
    normal game (what declaring the solo gains over playing healthy)."""
    return df.join(normal, on="deal_id").with_columns(
        (pl.col("score") - pl.col("normal_score")).alias("gain"))


def by_count(df: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """group_stats by ``by`` plus the mean gain over a normal game with its 95% interval."""
    g = group_stats(df, by)
    gain = group_stats(df.with_columns(pl.col("win").alias("w2")), by, win="w2", score="gain").select(
        *by, pl.col("mean_score").alias("mean_gain"), pl.col("score_lo").alias("gain_lo"),
        pl.col("score_hi").alias("gain_hi"))
    return g.join(gain, on=by).with_columns(pl.col("kind").cast(pl.Enum(list(SOLO_KINDS)))).sort(by)


def pays_from(g: pl.DataFrame, lo_col: str, mean_col: str) -> int | None:
    """The smallest count from which the figure pays: its 95% interval above 0 at that count and
    its estimate above 0 at every higher count with at least MIN_GROUP deals (None: never)."""
    g = g.filter(pl.col("deals") >= MIN_GROUP).sort("trumps")
    t, lo, m = g["trumps"].to_list(), g[lo_col].to_list(), g[mean_col].to_list()
    for i in range(len(t)):
        if lo[i] > 0 and all(x > 0 for x in m[i:]):
            return int(t[i])
    return None


def rules_of_thumb(by_trumps: pl.DataFrame, given: str | None = None) -> pl.DataFrame:
    """Per kind: the count from which the solo's mean score is above 0 (``pays_from``) and from
    which it beats the same hand played healthy (``beats_healthy_from``), with the win rate,
    mean score and gain at that count and their 95% intervals. ``given``: a second column of
    ``by_trumps`` (``plain_aces``, ``top``): one rule per kind and value of it (column ``given``,
    the value in ``given_value``)."""
    rows = []
    groups = [(kind, None) for kind in SOLO_KINDS] if given is None else [
        (kind, v) for kind in SOLO_KINDS if not (kind == "fleischlos" and given == "plain_aces")  # its aces
        for v in sorted(by_trumps.filter(pl.col("kind") == kind)[given].unique().to_list())]  # are its count
    for kind, value in groups:
        g = by_trumps.filter(pl.col("kind") == kind)
        if given is not None:
            g = g.filter(pl.col(given) == value)
            if g.filter(pl.col("deals") >= MIN_GROUP).height == 0:
                continue
        for what, lo_col, mean_col in (("pays_from", "score_lo", "mean_score"),
                                       ("beats_healthy_from", "gain_lo", "mean_gain")):
            t = pays_from(g, lo_col, mean_col)
            r = {"kind": kind, "rule": what, "count": t, "counts": COUNT_WORD.get(kind, "trumps"),
                 "given": given, "given_value": value}
            at = g.filter(pl.col("trumps") == t).row(0, named=True) if t is not None else {}
            for c in ("deals", "win_rate", "win_lo", "win_hi", "mean_score", "score_lo", "score_hi",
                      "mean_gain", "gain_lo", "gain_hi"):
                r[c] = at.get(c)
            rows.append(r)
    floats = ("win_rate", "win_lo", "win_hi", "mean_score", "score_lo", "score_hi", "mean_gain", "gain_lo",
              "gain_hi")
    table = pl.DataFrame(rows, schema={"kind": pl.Utf8, "rule": pl.Utf8, "count": pl.Int64, "counts": pl.Utf8,
                                       "given": pl.Utf8, "given_value": pl.Int64, "deals": pl.Int64,
                                       **{c: pl.Float64 for c in floats}})
    return table if given is not None else table.drop("given", "given_value")


def thumb_sentence(r: dict) -> str:
    """One rule of thumb in words, with its intervals."""
    kind, what = r["kind"], r["counts"]
    verb = "pays (mean score above 0)" if r["rule"] == "pays_from" else "beats playing the hand healthy"
    cond = ""
    if r.get("given") is not None:
        word = GIVEN_WORD[r["given"]]
        cond = f" with {r['given_value']} {word if r['given_value'] != 1 else word[:-1]}"
    if r["count"] is None:
        return f"a {kind} solo{cond} never {verb} at any count seen"
    fig = (f"mean score {r['mean_score']:+.1f} [{r['score_lo']:+.1f}, {r['score_hi']:+.1f}]"
           if r["rule"] == "pays_from" else
           f"gain over healthy {r['mean_gain']:+.1f} [{r['gain_lo']:+.1f}, {r['gain_hi']:+.1f}]")
    return (f"a {kind} solo{cond} {verb} from {r['count']} {what}: there it wins "
            f"{100 * r['win_rate']:.0f}% [{100 * r['win_lo']:.0f}, {100 * r['win_hi']:.0f}], {fig} "
            f"({r['deals']:,} hands)")


def headlines(by_trumps: pl.DataFrame, overall: pl.DataFrame, skill: str, deals: int) -> list[dict]:
    """The skills rows of one skill level: per kind the win rate and mean score over all hands
    and at its KEY_COUNT, and the gain over healthy at KEY_COUNT."""
    from .skills import row
    rows = []
    for kind in SOLO_KINDS:
        o = overall.filter(pl.col("kind") == kind).row(0, named=True)
        rows.append(row(f"{kind}: win rate, all hands", skill, deals, o["win_rate"], o["win_lo"],
                        o["win_hi"], "P(soloist wins)"))
        k = KEY_COUNT[kind]
        g = by_trumps.filter((pl.col("kind") == kind) & (pl.col("trumps") == k) & (pl.col("deals") >= 30))
        r = g.row(0, named=True) if g.height else {}
        word = COUNT_WORD.get(kind, "trumps")
        rows.append(row(f"{kind}: win rate, {k} {word}", skill, deals, r.get("win_rate"), r.get("win_lo"),
                        r.get("win_hi"), "P(soloist wins)"))
        rows.append(row(f"{kind}: mean score, {k} {word}", skill, deals, r.get("mean_score"),
                        r.get("score_lo"), r.get("score_hi"), "soloist points per deal"))
        rows.append(row(f"{kind}: gain over healthy, {k} {word}", skill, deals, r.get("mean_gain"),
                        r.get("gain_lo"), r.get("gain_hi"), "soloist points per deal"))
    return rows


def key_count_sample(frame: pl.DataFrame, kind: str, skill: str, seed: int, hands: int = KEY_HANDS,
                     deals: int = KEY_DEALS) -> dict:
    """Win rate, mean score and gain over healthy of ``kind`` at its KEY_COUNT under ``skill``,
    from ``hands`` hands held at that count (the first by deal_id in ``frame``, the study's own
    hands, so drawn as a random deal draws them), each played ``deals`` times with the other cards
    at random (``fixed_hand``, the deal's own lead), once as the solo and once healthy on the same
    deals. Estimates are means over hands, intervals 95% normal over the per-hand means (the
    hands are independent draws from the count; a hand's deals are not independent of each
    other). Returns {hands, deals, win_rate, win_lo, win_hi, mean_score, ..., mean_gain, ...}."""
    from ..run.simulate import simulate

    from ..stats import mean_ci
    held = frame.filter((pl.col("kind") == kind) & (pl.col("trumps") == KEY_COUNT[kind])).sort("deal_id").head(hands)
    per_hand = {"win": [], "score": [], "gain": []}
    for hand, on_lead in held.select("hand", "leads").iter_rows():
        dealer = (SEAT - 1) % 4 if on_lead else SEAT
        solo = simulate(deals, seed, RULES, skill, dealer=dealer, fixed_hand=(SEAT, int(hand)),
                        contract=f"{kind}_solo", declarer=SEAT, params=skill_params(skill), quiet=True)
        normal = simulate(deals, seed, RULES, skill, dealer=dealer, fixed_hand=(SEAT, int(hand)),
                          contract="normal", params=skill_params(skill), quiet=True)
        s_solo = solo[f"score_{SEAT}"].cast(pl.Float64).to_numpy()
        per_hand["win"].append(float((solo["winner"] == "re").mean()))
        per_hand["score"].append(float(s_solo.mean()))
        per_hand["gain"].append(float((s_solo - normal[f"score_{SEAT}"].cast(pl.Float64).to_numpy()).mean()))
    out = {"hands": held.height, "deals": held.height * deals}
    for key, name in (("win", "win"), ("score", "score"), ("gain", "gain")):
        m, lo, hi = mean_ci(per_hand[key])
        if key == "win":
            lo, hi = max(lo, 0.0), min(hi, 1.0)
        col = {"win": "win_rate", "score": "mean_score", "gain": "mean_gain"}[key]
        out[col], out[f"{name}_lo"], out[f"{name}_hi"] = m, lo, hi
    return out


def key_count_headlines(frame: pl.DataFrame, skill: str, seed: int, hands: int = KEY_HANDS,
                        deals: int = KEY_DEALS) -> list[dict]:
    """The key-count skills rows of ``skill`` from ``key_count_sample`` (one row per figure)."""
    from .skills import row
    rows = []
    for kind in SOLO_KINDS:
        r = key_count_sample(frame, kind, skill, seed, hands, deals)
        k, word = KEY_COUNT[kind], COUNT_WORD.get(kind, "trumps")
        rows.append(row(f"{kind}: win rate, {k} {word}", skill, r["deals"], r["win_rate"], r["win_lo"],
                        r["win_hi"], "P(soloist wins)"))
        rows.append(row(f"{kind}: mean score, {k} {word}", skill, r["deals"], r["mean_score"], r["score_lo"],
                        r["score_hi"], "soloist points per deal"))
        rows.append(row(f"{kind}: gain over healthy, {k} {word}", skill, r["deals"], r["mean_gain"],
                        r["gain_lo"], r["gain_hi"], "soloist points per deal"))
    return rows


def skill_tables(deals: int, skill: str, seed: int, **sim) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(by_trumps, overall) of the seven kinds under ``skill`` at every seat, with the gain over
    healthy."""
    normal = normal_frame(deals, skill, seed, **sim)
    df = solo_gain(pl.concat([kind_frame(k, deals, skill, seed, **sim) for k in SOLO_KINDS]), normal)
    return by_count(df, ["kind", "trumps"]), by_count(df, ["kind"])


# ------------------------------------------------------------------ study
def run(deals=None, strategy=STRONGEST_FAST, seed=0, results=None, quiet=False, charts=True,
        calibration_hands=None, calibration_deals=None, skills=None, pimc_deals=None, key_hands=None,
        **sim) -> dict:
    """Simulate the seven forced solos (and the same hands played healthy), write the tables,
    rules of thumb, charts, model.json and the model's calibration (``calibration_hands`` held-out
    hands per kind, 0: none) to ``results/solo_odds/`` (and the advisor's copy of the model, from
    the checkout's default results), and the headline figures under each of ``skills`` (default
    SKILLS; pimc on ``pimc_deals`` deals per kind, default PIMC_SHARE of ``deals``, and at the key
    counts on ``key_hands`` hands drawn there, ``key_count_sample``; default KEY_HANDS at the
    default size, in proportion below it, at least MIN_KEY_HANDS); returns the frames, tables and
    model."""
    from . import calibration
    from .solo_model import MIN_CALIBRATION
    from .skills import SKILLS, skill_deals, write_skills
    deals = deals or DEFAULT_DEALS
    if key_hands is None:
        key_hands = max(MIN_KEY_HANDS, min(KEY_HANDS, round(KEY_HANDS * deals / DEFAULT_DEALS)))
    cal_hands = calibration.default_hands(deals) if calibration_hands is None else calibration_hands
    cal_deals = calibration_deals or calibration.DEFAULT_DEALS
    out = results_dir(results, STUDY)
    frames = []
    for kind in SOLO_KINDS:
        say(quiet, f"solo_odds: {kind} solo, {deals} deals")
        frames.append(kind_frame(kind, deals, strategy, seed, **sim))
    df = pl.concat(frames)
    say(quiet, f"solo_odds: the same hands played healthy, {deals} deals")
    dfg = solo_gain(df, normal_frame(deals, strategy, seed, **sim))
    note = (f"{deals:,} deals per kind (the same hands for every kind: seed {seed}, seat 0 declares), "
            f"strategy `{strategy}` at every seat, rules {rules_label(RULES)}. Win rate with a 95% "
            "Wilson interval, mean soloist score and mean gain (the solo's score minus the same "
            "seat's score when the same deal is played as a normal game) with 95% normal "
            "intervals. For fleischlos the `trumps` column counts the aces.")
    by_trumps = by_count(dfg, ["kind", "trumps"])
    write_table(by_trumps, out / "win_by_trumps", "Solo win rate, soloist score and gain over healthy by "
                "trumps", note)
    by_tt = by_count(dfg, ["kind", "trumps", "top"])
    write_table(by_tt, out / "win_by_trumps_top", "Solo win rate and score by trumps and top trumps",
                note + " Top trumps: TH and the queens (suit solos), QC QS (queens), JC JS (jacks), "
                "tens (fleischlos).")
    by_ta = by_count(dfg, ["kind", "trumps", "plain_aces"])
    write_table(by_ta, out / "win_by_trumps_aces", "Solo win rate and score by trumps and plain aces",
                note + " Plain aces: aces that are not trumps (fleischlos: none are).")
    thumbs = rules_of_thumb(by_trumps)
    write_table(thumbs, out / "rules_of_thumb", "Rules of thumb: from which count a solo pays",
                note + f" `pays_from`: the smallest count whose mean score has its 95% interval above 0 "
                f"and whose higher counts (with >= {MIN_GROUP} deals) all have a mean above 0; "
                "`beats_healthy_from`: the same for the gain over the same hand played healthy. "
                "The figures are those at that count.\n\n" +
                "\n".join(f"- {thumb_sentence(r)}" for r in thumbs.iter_rows(named=True)), digits=3)
    for given in ("plain_aces", "top"):
        cond = rules_of_thumb(by_ta if given == "plain_aces" else by_tt, given)
        write_table(cond, out / f"rules_of_thumb_{given}", f"Rules of thumb by {GIVEN_WORD[given]}: from "
                    f"which count a solo pays, given the {GIVEN_WORD[given]}",
                    note + " Rules as in rules_of_thumb.md, within each value of "
                    f"`{given}` (top trumps: TH and the queens in suit solos, QC QS in queens, JC JS in "
                    "jacks, tens in fleischlos).\n\n" +
                    "\n".join(f"- {thumb_sentence(r)}" for r in cond.iter_rows(named=True)
                              if r["count"] is not None), digits=3)
    feat_tables = []
    for feat in ("top", "plain_aces", "plain_tens", "voids", "longest"):
        g = group_stats(df, ["kind", feat]).rename({feat: "value"}).with_columns(
            pl.lit(feat).alias("feature"), pl.col("value").cast(pl.Int64))
        feat_tables.append(g.select("kind", "feature", *[c for c in g.columns if c not in ("kind", "feature")]))
    by_feat = pl.concat(feat_tables).with_columns(pl.col("kind").cast(pl.Enum(list(SOLO_KINDS)))).sort(
        "kind", "feature", "value")
    write_table(by_feat, out / "win_by_feature", "Solo win rate by each hand feature", note)
    overall = by_count(dfg, ["kind"])
    write_table(overall, out / "overall", "Solo win rate and soloist score, all hands", note)

    sizes = skill_deals(deals, PIMC_SHARE, MIN_PIMC_DEALS, pimc_deals)
    skill_rows, skill_by_trumps = [], []
    for skill in (SKILLS if skills is None else skills):
        if skill == strategy and sizes[skill] == deals:
            bt, ov = by_trumps, overall
        else:
            say(quiet, f"solo_odds: headline figures under {skill}, {sizes[skill]} deals per kind")
            bt, ov = skill_tables(sizes[skill], skill, seed, **sim)
        rows = headlines(bt, ov, skill, sizes[skill])
        if skill == "pimc" and key_hands > 0:  # too few pimc deals at the key count: hands drawn there
            say(quiet, f"solo_odds: pimc at the key counts, {key_hands} hands x {KEY_DEALS} deals per kind")
            key = {r["figure"]: r for r in key_count_headlines(df, skill, seed, key_hands)}
            rows = [key.get(r["figure"], r) for r in rows]
        skill_rows += rows
        skill_by_trumps.append(bt.with_columns(pl.lit(skill).alias("skill"), pl.lit(sizes[skill]).alias(
            "deals_per_kind")))
    skills_by_trumps = pl.concat(skill_by_trumps) if skill_by_trumps else None
    skill_note = (f"Each skill level at every seat, the same seed {seed} (so the same hands), rules "
                  f"{rules_label(RULES)}; 95% intervals. Key counts: " +
                  ", ".join(f"{k} {v}" for k, v in KEY_COUNT.items()) + "." +
                  (" `pimc` plays the cards by search and calls by `heuristic`'s rules (`search_bids=0`)."
                   if "pimc" in sizes and (skills is None or "pimc" in skills) else "") +
                  (f" `pimc` at the key counts: {key_hands} of the study's hands held at that count per kind, "
                   f"each played {KEY_DEALS} times as the solo and {KEY_DEALS} times healthy with the other "
                   "cards at random (`deals` counts those solo deals; interval over the per-hand means); "
                   "`simple` and `heuristic` there: all the study's hands at that count."
                   if key_hands > 0 and "pimc" in sizes and (skills is None or "pimc" in skills) else ""))
    if skills_by_trumps is not None:
        write_table(skills_by_trumps.select("skill", "deals_per_kind", *by_trumps.columns),
                    out / "win_by_trumps_skills", "Solo win rate and score by trumps, per skill level",
                    skill_note)
        thumbs_by_skill = pl.concat([rules_of_thumb(skills_by_trumps.filter(pl.col("skill") == sk)).with_columns(
            pl.lit(sk).alias("skill")) for sk in skills_by_trumps["skill"].unique(maintain_order=True)])
        write_table(thumbs_by_skill.select("skill", *thumbs.columns), out / "rules_of_thumb_skills",
                    "Rules of thumb per skill level", skill_note + f" Rules as in rules_of_thumb.md "
                    f"(counts with >= {MIN_GROUP} deals).")
    write_skills(skill_rows, out, "Solo odds: headline figures by skill level", skill_note, chart=charts,
                 foot=f"seed {seed}, rules {rules_label(RULES)}; deals per kind: " +
                 ", ".join(f"{k} {v:,}" for k, v in sizes.items()))

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
        if skills_by_trumps is not None:
            _skills_chart(skills_by_trumps, out, f"seed {seed}, rules {rules_label(RULES)}; deals per "
                          "kind: " + ", ".join(f"{k} {v:,}" for k, v in sizes.items()) +
                          "; bands: 95% intervals; counts with >= 30 deals")
    return {"frame": df, "by_trumps": by_trumps, "by_trumps_top": by_tt, "by_trumps_aces": by_ta,
            "model": model, "auc": auc_rows, "calibration": cal, "rules_of_thumb": thumbs,
            "skills": skill_rows, "skills_by_trumps": skills_by_trumps}


def _skills_chart(sbt: pl.DataFrame, out, foot: str) -> None:
    """win_vs_trumps_skills.png: per kind, the win rate and the gain over healthy by trumps, one
    line per skill level."""
    from .skills import SKILL_COLOR
    p = plt()
    for col, lo, hi, fname, ylabel in (
            ("win_rate", "win_lo", "win_hi", "win_vs_trumps_skills.png", "P(soloist wins)"),
            ("mean_gain", "gain_lo", "gain_hi", "gain_vs_trumps_skills.png", "gain over playing healthy")):
        fig, axes = p.subplots(2, 4, figsize=(15, 7.5))
        for ax, kind in zip(axes.flat, SOLO_KINDS):
            for skill in sbt["skill"].unique(maintain_order=True):
                g = sbt.filter((pl.col("kind") == kind) & (pl.col("skill") == skill) & (pl.col("deals") >= 30))
                x = g["trumps"].to_numpy()
                ax.plot(x, g[col].to_numpy(), "o-", ms=3, color=SKILL_COLOR.get(skill), label=skill)
                ax.fill_between(x, g[lo].to_numpy(), g[hi].to_numpy(), color=SKILL_COLOR.get(skill), alpha=0.2)
            if col == "mean_gain":
                ax.axhline(0, color="0.4", lw=0.8)
            ax.set_title(f"{kind} solo", fontsize=10)
            ax.set_xlabel(COUNT_WORD.get(kind, "trumps"), fontsize=8)
            ax.grid(alpha=0.3)
        axes.flat[0].legend(fontsize=8)
        axes.flat[0].set_ylabel(ylabel)
        axes.flat[-1].axis("off")
        fig.suptitle(f"Solo {ylabel} by count, per skill level at every seat")
        footnote(fig, foot)
        fig.tight_layout(rect=(0, 0.03, 1, 0.96))
        fig.savefig(out / fname, dpi=110)
        p.close(fig)


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
