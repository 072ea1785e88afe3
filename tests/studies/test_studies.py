"""The studies (dokosim.studies, dokosim study, dokosim advise) at small sizes, fixed seeds."""
import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from dokosim.studies import solo_model, solo_odds
from dokosim.studies.common import hand_features
from dokosim.stats import wilson

pytestmark = pytest.mark.e2e  # end to end

REPO = Path(__file__).resolve().parents[2]

SOLO_KINDS = ("diamonds", "hearts", "spades", "clubs", "queens", "jacks", "fleischlos")
DEALS = 10_000
MIN_BIN = 100  # trump counts with fewer deals are not compared


@pytest.fixture(scope="module")
def solo(tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    import os
    old = os.environ.get("DOKOSIM_STUDY_DATA")
    os.environ["DOKOSIM_STUDY_DATA"] = str(data)
    try:
        yield solo_odds.run(deals=DEALS, strategy="simple", seed=11, quiet=True, charts=False,
                            results=tmp_path_factory.mktemp("results"), calibration_hands=3,
                            calibration_deals=200, skills=("simple", "pimc"), pimc_deals=12,
                            key_hands=2)
    finally:
        if old is None:
            del os.environ["DOKOSIM_STUDY_DATA"]
        else:
            os.environ["DOKOSIM_STUDY_DATA"] = old


def test_same_hands_for_every_kind(solo):
    df = solo["frame"]
    hands = [df.filter(pl.col("kind") == k).sort("deal_id")["hand"].to_numpy() for k in SOLO_KINDS]
    assert all((h == hands[0]).all() for h in hands)
    assert len(set(hands[0][:100].tolist())) == 100


@pytest.mark.parametrize("kind", SOLO_KINDS)
def test_win_rate_rises_with_trumps(solo, kind):
    """Consecutive trump counts: no drop larger than 2.6 standard errors; and the best-populated
    high count wins clearly (non-overlapping 95% intervals) more than the low one."""
    g = solo["by_trumps"].filter((pl.col("kind") == kind) & (pl.col("deals") >= MIN_BIN)).sort("trumps")
    assert g.height >= 3
    p = g["win_rate"].to_numpy()
    n = g["deals"].to_numpy().astype(float)
    se = np.sqrt(np.maximum(p * (1 - p), 0.25 / n) / n)  # floor: a 0% bin still has uncertainty
    for i in range(len(p) - 1):
        drop = p[i] - p[i + 1]
        assert drop < 2.6 * math.hypot(se[i], se[i + 1]), (kind, g["trumps"][i], p[i], p[i + 1])
    assert g["win_lo"][-1] > g["win_hi"][0], (kind, g)


@pytest.mark.parametrize("kind", SOLO_KINDS)
def test_model_auc_heldout(solo, kind):
    m = solo["model"]["kinds"][kind]
    assert m["heldout_deals"] == DEALS // 5
    assert m["auc_heldout"] > 0.75, (kind, m["auc_heldout"], m["auc_ci95"])


def test_model_predicts_more_trumps_better(solo):
    """The fitted model itself: a hand with all the top trumps beats a weak one."""
    from dokosim.studies.advise import parse_hand
    from dokosim.rules import Rules
    strong = parse_hand("TH TH QC QC QS QS QH QH JC JC AC AS", Rules())
    weak = parse_hand("9C 9C KC KS 9S 9S KH 9H 9H KD JD 9D", Rules())
    for kind in ("diamonds", "clubs", "queens"):
        ps, _ = solo_model.predict(solo["model"], strong, kind)
        pw, _ = solo_model.predict(solo["model"], weak, kind)
        assert ps > 0.5 > 0.05 > pw, (kind, ps, pw)


def test_hand_features():
    from dokosim.studies.advise import parse_hand
    from dokosim.rules import Rules
    h = parse_hand("TH QC QC JD AD AD AC TC TS 9S KH 9H", Rules())
    f = {k: int(v[0]) for k, v in hand_features(np.array([h], dtype=np.int64), "diamonds").items()}
    assert f == {"trumps": 6, "top": 3, "plain_aces": 1, "plain_tens": 2, "voids": 0, "longest": 2}
    f = {k: int(v[0]) for k, v in hand_features(np.array([h], dtype=np.int64), "fleischlos").items()}
    assert f["trumps"] == 3 and f["top"] == 3 and f["voids"] == 0 and f["longest"] == 4


def test_wilson_interval():
    p, lo, hi = wilson(50, 100)
    assert p == 0.5 and abs(lo - 0.4038) < 1e-3 and abs(hi - 0.5962) < 1e-3


@pytest.mark.parametrize("hand, message", [
    ("QC QS TH", "12 cards"),
    ("QC QS TH JD AD AD AC TC TS 9S KH 9X", "unknown card"),
    ("QC QC QC JD AD KD AC TC TS 9S KH 9H", "three times"),
    ("QC QS TH JD AD AD AC TC TS 9S KH 9H 9D", "got 13"),
])
def test_advise_bad_hands(hand, message):
    from dokosim.cli import main
    r = CliRunner().invoke(main, ["advise", "--hand", hand])
    assert r.exit_code == 2, r.output
    assert message in r.output
    assert "Traceback" not in r.output


def test_unknown_study():
    from dokosim.cli import main
    r = CliRunner().invoke(main, ["study", "nonsense"])
    assert r.exit_code == 2 and "unknown study" in r.output


def test_study_answers_with_the_strongest_fast_player_by_default(monkeypatch, tmp_path):
    """Issue 45: with no --strategy, ``dokosim study`` (the CLI, run_study and the full tables of
    each study of ``all`` that plays one strategy) runs STRONGEST_FAST; --strategy heuristic is passed on."""
    import inspect

    import dokosim.studies as studies
    from dokosim.cli import main
    from dokosim.run.players import STRONGEST_FAST
    from dokosim.studies import announcements, poverty
    assert STRONGEST_FAST != "heuristic"  # else this test could not fail
    for run in (studies.run_study, solo_odds.run, poverty.run, announcements.run):
        assert inspect.signature(run).parameters["strategy"].default == STRONGEST_FAST, run
    seen = []
    monkeypatch.setattr(studies, "run_study", lambda name, **kw: seen.append((name, kw["strategy"])))
    monkeypatch.setenv("DOKOSIM_STUDY_DATA", str(tmp_path / "data"))
    for extra in ([], ["--strategy", "heuristic"]):
        r = CliRunner().invoke(main, ["study", "all", "--results", str(tmp_path / "results"), *extra])
        assert r.exit_code == 0, r.output
    assert seen == [("all", STRONGEST_FAST), ("all", "heuristic")]
    help_text = " ".join(CliRunner().invoke(main, ["study", "--help"]).output.split())
    assert f"[default: {STRONGEST_FAST}]" in help_text and "strongest fast player" in help_text


def test_advise_json_strong_hand():
    """Ten normal-game trumps with both TH and four queens: a suit solo is worth more than
    playing healthy (tripled), and the JSON holds an interval around every estimate."""
    import json

    from dokosim.cli import main
    r = CliRunner().invoke(main, ["advise", "--hand", "TH TH QC QS QH QD JC JS AD TD KD AC",
                                  "--deals", "1000", "--seed", "5", "--strategy", "simple", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    opts = out["options"]
    assert set(opts) == {"healthy", *[f"{k}_solo" for k in SOLO_KINDS]}  # no both QC, no poverty rule
    for e in opts.values():
        assert e["deals"] == 1000
        assert e["win_ci95"][0] <= e["win_chance"] <= e["win_ci95"][1]
        assert e["score_ci95"][0] <= e["expected_score"] <= e["score_ci95"][1]
    assert out["recommendation"].endswith("_solo") and out["recommendation"] not in (
        "queens_solo", "jacks_solo", "fleischlos_solo")
    assert opts["diamonds_solo"]["score_ci95"][0] > opts["healthy"]["score_ci95"][1]
    assert opts["jacks_solo"]["score_ci95"][1] < 0


def test_advise_marriage_and_poverty_options():
    from dokosim.studies.advise import options, parse_hand
    from dokosim.rules import rules_from_object
    club = rules_from_object({"preset": "ddv", "poverty": True})
    poor = parse_hand("QC QC AS AS TS KS 9S AH AH KH 9H 9C", club)  # 2 trumps, both QC
    assert options(poor, club)[-2:] == ["marriage", "poverty"]
    assert "poverty" not in options(poor, rules_from_object("ddv"))


# ------------------------------------------------------------------ the advisor's model
def test_calibration_rows_of_held_out_hands(solo):
    """3 held-out hands per kind, each simulated 200 times: the row says whether the model's
    P(win) lies in the simulated Wilson interval, and the summary counts those rows."""
    cal, summary = solo["calibration"], solo["model"]["calibration"]
    assert cal.height == 3 * len(SOLO_KINDS) == summary["hands"]
    assert (cal["deal_id"] % solo_model.HOLDOUT == 0).all()  # never fitted on
    inside = (cal["sim_lo"] <= cal["model_p"]) & (cal["model_p"] <= cal["sim_hi"])
    assert (inside == cal["inside"]).all()
    assert summary["inside"] == int(inside.sum())
    assert summary["share_inside"] == pytest.approx(inside.mean())
    assert summary["deals_per_hand"] == 200 and set(summary["per_kind"]) == set(SOLO_KINDS)
    for row in cal.iter_rows(named=True):
        assert row["sim_lo"] <= row["sim_p"] <= row["sim_hi"]
        assert 0 < row["model_p"] < 1


def test_calibration_summary_of_a_known_table():
    from dokosim.studies.calibration import render, summarise
    table = pl.DataFrame({"kind": ["queens"] * 4 + ["jacks"] * 6,
                          "model_p": [0.5] * 10, "sim_p": [0.5, 0.5, 0.9, 0.1] + [0.5] * 5 + [0.8],
                          "inside": [True, True, False, False] + [True] * 5 + [False]})
    s = summarise(table, 4000)
    assert (s["hands"], s["inside"]) == (10, 7) and s["share_inside"] == pytest.approx(0.7)
    assert s["per_kind"]["queens"]["share_inside"] == 0.5 and s["per_kind"]["jacks"]["hands"] == 6
    assert s["max_abs_gap"] == pytest.approx(0.4)
    assert s["share_ci95"][0] < 0.7 < s["share_ci95"][1]
    text = render(s, "dokosim study solo_odds", 0.9)
    assert "7 of 10 = 70.0%" in text and "**not shown**" in text and "`dokosim study solo_odds`" in text


def test_calibration_size_follows_the_study():
    from dokosim.studies.calibration import default_hands
    assert (default_hands(200_000), default_hands(1000), default_hands(10_000)) == (40, 1, 2)


def test_lead_feature():
    assert solo_odds.leads(np.array([0, 1, 2, 3])).tolist() == [0, 0, 0, 1]  # seat 0 leads: dealer 3


PACKAGED_MODEL = solo_model.load_model()


def _fake_model(strategy, share):
    model = PACKAGED_MODEL
    model = dict(model, strategy=strategy, rules={"preset": "ddv"})
    model["calibration"] = None if share is None else {"hands": 70, "share_inside": share}
    return model


@pytest.mark.parametrize("strategy, share, shown, words", [
    ("heuristic", 0.95, True, "for 95% of 70 held-out hands"),
    ("heuristic", 0.5, False, "only 50% (needs 90%"),
    ("heuristic", None, False, "has not been measured"),
    ("simple", 0.95, False, "fitted under strategy 'simple'"),
])
def test_model_is_shown_only_when_calibrated_for_the_strategy(monkeypatch, strategy, share, shown, words):
    from dokosim.rules import rules_from_object
    from dokosim.studies import advise
    monkeypatch.setattr(solo_model, "load_model", lambda path=None: _fake_model(strategy, share))
    model, note = advise.usable_model("heuristic", rules_from_object("ddv"))
    assert (model is not None) == shown and words in note, note
    assert advise.usable_model("heuristic", rules_from_object("club"))[0] is None


@pytest.mark.parametrize("share", [0.95, 0.5])
def test_advise_shows_the_model_only_when_calibrated(monkeypatch, share):
    """End to end under the strategy the model was fitted for (heuristic): the model column and
    model_win_chance appear with a calibrated model and not with an uncalibrated one; each option
    keeps its expected score and interval either way."""
    from dokosim.cli import main
    monkeypatch.setattr(solo_model, "load_model", lambda path=None: _fake_model("heuristic", share))
    args = ["advise", "--hand", "QC QS QH JC JS TH AD TD KD AC TC AS", "--deals", "200", "--strategy", "heuristic"]
    r = CliRunner().invoke(main, [*args, "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["strategy"] == "heuristic" and out["model_shown"] == (share >= 0.9)
    solos = [e for o, e in out["options"].items() if o.endswith("_solo")]
    assert all(("model_win_chance" in e) == (share >= 0.9) for e in solos)
    assert all(e["score_ci95"][0] <= e["expected_score"] <= e["score_ci95"][1]
               for e in out["options"].values())
    text = CliRunner().invoke(main, args).output
    assert ("model P(win)" in text.splitlines()[1]) == (share >= 0.9)
    assert text.splitlines()[-2] == out["model_note"] and text.splitlines()[-1].startswith("Recommendation")


def test_advise_answers_with_the_strongest_fast_player_and_names_it():
    """With no --strategy, advise plays every seat with STRONGEST_FAST (the round robin's winner,
    docs/strategies.md) and its first line says so; a named strategy is named instead."""
    from dokosim.cli import main
    from dokosim.run.players import STRONGEST_FAST
    args = ["advise", "--hand", "QC QS QH JC JS TH AD TD KD AC TC AS", "--deals", "50"]
    out = json.loads(CliRunner().invoke(main, [*args, "--json"]).output)
    assert out["strategy"] == STRONGEST_FAST
    first = CliRunner().invoke(main, args).output.splitlines()[0]
    assert first.startswith(f"answered by {STRONGEST_FAST} at every seat (the default"), first
    first = CliRunner().invoke(main, [*args, "--strategy", "simple"]).output.splitlines()[0]
    assert first.startswith("answered by simple at every seat;"), first


def test_advise_only_and_outcomes_give_the_same_deals_per_option():
    """only= rates a subset; outcomes= returns each deal's score, whose mean is expected_score,
    and the subset's figures equal the full run's (common random numbers); an option the hand
    may not make is refused naming the ones it may."""
    from dokosim.rules import Rules
    from dokosim.studies import StudyError
    from dokosim.studies.advise import advise, parse_hand
    hand = parse_hand("QC QS QH JC JS TH AD TD KD AC TC AS", Rules())
    full = advise(hand, strategy="simple", deals=60, seed=5)
    scores = {}
    part = advise(hand, strategy="simple", deals=60, seed=5, only=["healthy", "jacks_solo"], outcomes=scores)
    assert list(part["options"]) == ["healthy", "jacks_solo"] and set(scores) == {"healthy", "jacks_solo"}
    for opt in part["options"]:
        assert part["options"][opt] == full["options"][opt]
        assert scores[opt].shape == (60,) and abs(scores[opt].mean() - part["options"][opt]["expected_score"]) < 1e-9
    with pytest.raises(StudyError, match="'marriage' is not one this hand may make; it may make healthy"):
        advise(hand, strategy="simple", deals=60, seed=5, only=["marriage"])


def test_packaged_model_fits_the_design():
    """The advisor's model is package data and has a coefficient per term of the design."""
    model = solo_model.load_model()
    assert set(model["kinds"]) == set(SOLO_KINDS)
    for m in model["kinds"].values():
        assert m["terms"] == ["intercept", *solo_model.MODEL_TERMS] and len(m["coef"]) == len(m["terms"])
    from dokosim.rules import Rules
    from dokosim.studies.advise import parse_hand
    hand = parse_hand("QC QS QH JC JS TH AD TD KD AC TC AS", Rules())
    assert 0 < solo_model.predict(model, hand, "diamonds")[0] < 1


def test_results_go_to_the_current_directory_outside_a_checkout(monkeypatch, tmp_path):
    from dokosim.studies import common, data
    assert common.checkout_root() == REPO and common.project_root() == REPO
    monkeypatch.setattr(common, "PACKAGE_DIR", tmp_path / "site-packages" / "dokosim")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DOKOSIM_STUDY_DATA", raising=False)
    assert common.checkout_root() is None and common.project_root() == tmp_path
    assert data.data_root() == tmp_path / "data" / "studies"
    assert common.results_dir(None, "solo_odds") == tmp_path / "results" / "solo_odds"


# ------------------------------------------------------------------ announcements
@pytest.fixture(scope="module")
def announcements(tmp_path_factory):
    from dokosim.studies import announcements as ann
    return ann.run(deals=20_000, strategy="simple", seed=4, quiet=True, charts=False,
                   results=tmp_path_factory.mktemp("results"), skills=("simple",))


def test_announcements_tables(announcements):
    summary = announcements["break_even"]
    levels = ["Re/Kontra", "no 90", "no 60", "no 30", "schwarz"]
    assert summary["level"].to_list() == [f"{lv}{side}" for lv in levels
                                          for side in ("", ": Re side", ": Kontra side")]
    assert (summary["probes"] > 200).all()
    both = summary.filter(~pl.col("level").str.contains(":"))
    assert (both["probes"] > 1000).all()
    assert both["scoring_alone"].to_list() == pytest.approx([1 / 2, 8 / 9, 11 / 12, 14 / 15, 17 / 18])
    for lv in levels:  # the two sides' probes make up the level's
        n = dict(zip(summary["level"], summary["probes"]))
        assert n[lv] == n[f"{lv}: Re side"] + n[f"{lv}: Kontra side"]


def test_re_kontra_gain_rises_and_breaks_even_near_the_middle(announcements):
    """Calling Re/Kontra costs with a poor chance and pays with a good one; the break-even
    chance lies well inside (0, 1)."""
    g = announcements["by_chance"].filter((pl.col("level") == "Re/Kontra") & (pl.col("probes") >= 100))
    assert g["gain_hi"][0] < 0
    # one bin of ~100 probes is too noisy to stand alone: pool the bins from chance 0.7 on
    top = g.filter(pl.col("chance_from") >= 0.7)
    weight = top["probes"].to_numpy().astype(float)
    se = (top["gain_hi"] - top["gain_lo"]).to_numpy() / (2 * 1.96)
    pooled = (weight * top["mean_gain"].to_numpy()).sum() / weight.sum()
    pooled_se = math.sqrt(((weight * se) ** 2).sum()) / weight.sum()
    assert pooled - 2 * pooled_se > 0, top
    assert np.corrcoef(g["mean_chance"].to_numpy(), g["mean_gain"].to_numpy())[0, 1] > 0.8
    row = announcements["break_even"].row(0, named=True)
    assert 0.35 < row["break_even"] < 0.75
    assert 0.3 < row["break_even_lo"] < row["break_even_hi"] < 0.8


def test_announcement_chance_is_calibrated(announcements):
    """The cross-fitted estimate matches the observed made-good rate bin by bin (4 standard
    errors plus 0.03 for the model's own misfit)."""
    g = announcements["by_chance"].filter(pl.col("probes") >= 200)
    assert g.height >= 10
    p = g["made_good"].to_numpy()
    se = np.sqrt(np.maximum(p * (1 - p), 0.01) / g["probes"].to_numpy())
    assert (np.abs(p - g["mean_chance"].to_numpy()) < 4 * se + 0.03).all(), g


def test_break_even_finds_a_known_crossing_on_synthetic_probes():
    """Gain 4 * (chance - 0.6) plus unit noise: the crossing is found at 0.6 and its bootstrap
    interval covers it; the four ways of not crossing are told apart."""
    from dokosim.studies.announcements import break_even
    rng = np.random.default_rng(11)
    chance = rng.uniform(0, 1, 50_000)
    gain = 4 * (chance - 0.6) + rng.normal(0, 1, chance.size)
    point, lo, hi, note = break_even(chance, gain, seed=1)
    assert abs(point - 0.6) < 0.03 and lo < 0.6 < hi and hi - lo < 0.1, (point, lo, hi)
    assert note.startswith("sign change in 0.55-0.65")
    assert break_even(chance, -1 - chance, 1)[3] == "never pays up to chance 1.00"
    assert break_even(chance, 1 + chance, 1)[3] == "pays at every chance seen"
    assert break_even(chance, 0.5 - chance, 1)[3] == "crosses zero only from above"
    few = break_even(chance[:50], gain[:50], 1)
    assert math.isnan(few[0]) and few[3] == "too few probes"


def test_announcements_skills_rows(announcements):
    """One break-even row per level and side and one mean-gain row per level, each the summary's
    own figure; under simple, no re-tuning tournament (it is heuristic's)."""
    rows = [r for r in announcements["skills"] if r["skill"] == "simple"]
    summary = announcements["break_even"]
    be = {r["figure"]: r for r in rows if r["figure"].startswith("break-even: ")}
    assert len(be) == summary.height
    for r in summary.iter_rows(named=True):
        got = be[f"break-even: {r['level']}"]
        assert got["deals"] == 20_000
        assert got["estimate"] == r["break_even"] or (math.isnan(got["estimate"]) and math.isnan(r["break_even"]))
    assert sum(r["figure"].startswith("mean gain of calling") for r in rows) == 5
    assert announcements["retune"] is None


# ------------------------------------------------------------------ skill levels
def test_skill_deals():
    from dokosim.studies.skills import skill_deals
    assert skill_deals(200_000, 0.01, 200) == {"simple": 200_000, "heuristic": 200_000, "pimc": 2_000}
    assert skill_deals(1_000, 0.01, 200)["pimc"] == 200
    assert skill_deals(100, 0.01, 200)["pimc"] == 100  # never more than the study's size


def test_skills_side_by_side_and_files(tmp_path):
    from dokosim.studies.skills import row, write_skills
    rows = [row("a", "simple", 10, 0.5, 0.4, 0.6, "share"), row("a", "pimc", 5, 0.7, 0.5, 0.9, "share"),
            row("b", "heuristic", 10, None, None, None, "points"), row("b", "simple", 10, -1.0, -2.0, 0.0, "points"),
            row("c", "simple", 10, 0.0, 1e-17, 0.3, "share")]  # a 0% Wilson interval's rounding: drawn
    wide = write_skills(rows, tmp_path, "t", "n", chart=True)
    assert wide.columns == ["figure", "simple", "heuristic", "pimc"]
    assert wide.row(0) == ("a", "0.500 [0.400, 0.600]", "", "0.700 [0.500, 0.900]")
    assert wide.row(1) == ("b", "-1.000 [-2.000, 0.000]", "n/a", "")
    long = pl.read_csv(tmp_path / "skills_long.csv")
    assert long.height == 5 and long["deals"].to_list() == [10, 5, 10, 10, 10]
    assert "Deals per dataset: `simple` 10, `heuristic` 10, `pimc` 5." in (tmp_path / "skills.md").read_text()
    assert (tmp_path / "skills.png").stat().st_size > 0


def test_solo_skills_rows(solo):
    """Every kind has its headline rows under each skill run; simple's are the study's own
    tables, pimc's come from its own small datasets (12 deals per kind)."""
    rows = solo["skills"]
    assert {r["skill"] for r in rows} == {"simple", "pimc"}
    for kind in SOLO_KINDS:
        for skill, n in (("simple", DEALS), ("pimc", 12)):
            r = [x for x in rows if x["skill"] == skill and x["figure"] == f"{kind}: win rate, all hands"]
            assert len(r) == 1 and r[0]["deals"] == n
            assert -1e-12 <= r[0]["lo"] <= r[0]["estimate"] + 1e-12 <= r[0]["hi"] + 2e-12 <= 1 + 2e-12
    overall = solo["skills_by_trumps"].filter(pl.col("skill") == "pimc")
    assert overall["deals"].sum() == 12 * len(SOLO_KINDS)
    # at the key count pimc plays 2 hands held there, 4 deals each (key_count_sample)
    key = [x for x in rows if x["skill"] == "pimc" and x["figure"] == "queens: win rate, 5 queens"]
    assert len(key) == 1 and key[0]["deals"] == 2 * 4 and -1e-12 <= key[0]["lo"] <= key[0]["estimate"] <= key[0]["hi"]


def test_key_count_sample_holds_the_hands_at_the_count(solo):
    """key_count_sample under simple on 3 hands at 10 trumps: a suit solo with 10 trumps is won
    sometimes and not always; the gain over healthy is the solo score minus the healthy one."""
    r = solo_odds.key_count_sample(solo["frame"], "clubs", "simple", seed=3, hands=3, deals=40)
    assert r["hands"] == 3 and r["deals"] == 120
    assert 0 <= r["win_lo"] <= r["win_rate"] <= r["win_hi"] <= 1
    assert r["mean_gain"] < r["mean_score"] + 12  # the healthy game scores at most +12 per deal


def test_solo_gain_is_solo_minus_healthy(solo):
    """The gain column is the solo score minus the same deal's normal-game score at seat 0."""
    bt = solo["by_trumps"]
    assert {"mean_gain", "gain_lo", "gain_hi"} <= set(bt.columns)
    g = bt.filter(pl.col("deals") >= 500)
    assert (g["gain_lo"] <= g["mean_gain"]).all() and (g["mean_gain"] <= g["gain_hi"]).all()
    # a weak suit solo loses far more than the same hand played healthy
    weak = bt.filter((pl.col("kind") == "clubs") & (pl.col("trumps") == 5)).row(0, named=True)
    assert weak["gain_hi"] < -3


def test_pays_from_on_a_known_table():
    """The rule of thumb: the smallest count whose interval is above 0 and from which every
    populated count has a positive mean; a late dip below 0 moves it up; never: None."""
    from dokosim.studies.solo_odds import pays_from
    t = pl.DataFrame({"trumps": [6, 7, 8, 9, 10, 11], "deals": [900, 800, 700, 600, 500, 50],
                      "mean": [-5.0, 0.5, 2.0, 1.5, 3.0, -9.0], "lo": [-6.0, -0.1, 1.0, 0.5, 2.0, -20.0]})
    assert pays_from(t, "lo", "mean") == 8  # 7's interval holds 0; 11 has too few deals to count
    t2 = t.with_columns(pl.Series("mean", [-5.0, 0.5, 2.0, -0.2, 3.0, 9.0]))
    assert pays_from(t2, "lo", "mean") == 10
    assert pays_from(t.with_columns(pl.col("lo") - 10), "lo", "mean") is None


def test_rules_of_thumb_of_the_study(solo):
    """A rule per kind and kind of rule; where a count is found, the figures at that count hold
    it (score interval above 0, or gain interval above 0) and the sentence quotes them."""
    from dokosim.studies.solo_odds import thumb_sentence
    th = solo["rules_of_thumb"]
    assert th.height == 2 * len(SOLO_KINDS)
    for r in th.iter_rows(named=True):
        s = thumb_sentence(r)
        assert r["kind"] in s
        if r["count"] is not None:
            lo = r["score_lo"] if r["rule"] == "pays_from" else r["gain_lo"]
            assert lo > 0 and f"from {r['count']} " in s and "%" in s
        else:
            assert "never" in s
    # under simple at this size no populated count of a weak kind pays: jacks solos with 4 jacks lose
    bt = solo["by_trumps"].filter((pl.col("kind") == "jacks") & (pl.col("trumps") == 4)).row(0, named=True)
    assert bt["deals"] >= 500 and bt["score_hi"] < 0
    jacks = th.filter((pl.col("kind") == "jacks") & (pl.col("rule") == "pays_from"))["count"][0]
    assert jacks is None or jacks > 4


# ------------------------------------------------------------------ poverty and strategies
def test_poverty_headlines(tmp_path, monkeypatch):
    """The poverty study's skills rows at a small size under a player that never refuses: shares
    in [0, 1] with their intervals, and the gains the value table gives."""
    from dokosim.studies import poverty
    monkeypatch.setenv("DOKOSIM_STUDY_DATA", str(tmp_path / "data"))
    res = poverty.run(deals=4_000, strategy="simple", seed=3, quiet=True, charts=False,
                      results=tmp_path / "r", skills=("simple",))
    assert res["fit"] is None and res["tournament"] is None  # simple has no refusal rule to fit
    rows = {r["figure"]: r for r in res["skills"]}
    share = rows["share of deals played as a poverty"]
    summary = res["summary"].row(0, named=True)
    assert share["estimate"] == pytest.approx(summary["played_first"] / 4_000)
    assert 0.01 < share["lo"] < share["estimate"] < share["hi"] < 0.15
    f = res["frames"]["simple"]
    assert f["accepted"].all() and rows["refusal rate of declared poverties"]["estimate"] == 0.0
    gain = (f["poor_poverty"] - f["poor_normal"]).mean()
    assert rows["poor player: gain per poverty played (all)"]["estimate"] == pytest.approx(gain)
    assert (tmp_path / "r" / "poverty" / "skills.md").is_file()


@pytest.fixture(scope="module")
def poverty_study(tmp_path_factory):
    """The poverty study under heuristic at a small size: the fit, the fitted and the old rule,
    pimc on a few conditioned deals, a short tournament."""
    import os
    from dokosim.studies import poverty
    old = os.environ.get("DOKOSIM_STUDY_DATA")
    os.environ["DOKOSIM_STUDY_DATA"] = str(tmp_path_factory.mktemp("data"))
    try:
        yield poverty.run(deals=6_000, strategy="heuristic", seed=4, quiet=True, charts=False,
                          results=tmp_path_factory.mktemp("results"), skills=("heuristic", "pimc"),
                          pimc_deals=100, tournament_deals=60, bootstrap=50)
    finally:
        if old is None:
            del os.environ["DOKOSIM_STUDY_DATA"]
        else:
            os.environ["DOKOSIM_STUDY_DATA"] = old


def test_poverty_strength_is_heuristics_quantity():
    """The study's strength is what heuristic compares accept_trumps with, hand for hand."""
    from dokosim.studies.poverty import strength
    from dokosim.strategies.heuristic import poverty_strength
    rng = np.random.default_rng(3)
    hands = np.array([int(sum(1 << int(c) for c in rng.choice(48, 12, replace=False))) for _ in range(300)],
                     dtype=np.int64)
    assert [poverty_strength(h) for h in hands] == strength(hands).tolist()
    assert strength(np.array([0], dtype=np.int64), 2.0)[0] == 0


def test_fit_threshold_on_a_known_crossing():
    """The mean score by strength crosses 0 between 10 and 10.5: the fitted rule accepts from 10.5
    (exactly without noise; with noise the bootstrap interval holds it); all-negative scores give
    NEVER, all-positive the smallest strength."""
    from dokosim.studies.poverty import NEVER, fit_threshold, rule_values
    s = np.repeat(np.arange(4.0, 14.5, 0.5), 300)
    exact = 2.0 * (s - 10.25)
    f = fit_threshold(s, exact, bootstrap=20)
    assert (f["threshold"], f["lo"], f["hi"]) == (10.5, 10.5, 10.5)
    assert f["value"] == pytest.approx(exact[s >= 10.5].sum() / s.size)
    assert f["accept_share"] == pytest.approx((s >= 10.5).mean())
    noisy = exact + np.random.default_rng(1).normal(0, 3, s.size)
    g = fit_threshold(s, noisy, bootstrap=200)
    assert g["lo"] <= 10.5 <= g["hi"] and g["hi"] - g["lo"] <= 1.0, g
    assert g["value_lo"] <= g["value"] <= g["value_hi"]
    assert fit_threshold(s, -1.0 - 0 * s, bootstrap=0)["threshold"] == NEVER
    assert fit_threshold(s, 1.0 + 0 * s, bootstrap=0)["threshold"] == 4.0
    # by hand: strengths 1, 2, 2, 3 scoring -2, 1, -3, 5: accept from 2 -> (1 - 3 + 5) / 4
    v = rule_values(np.array([2.0, 1.0, 3.0, 2.0]), np.array([1.0, -2.0, 5.0, -3.0]), np.array([1.0, 2.0, 3.0, NEVER]))
    assert v.tolist() == [0.25, 0.75, 1.25, 0.0]


def test_poverty_refusals_follow_the_fitted_threshold(poverty_study):
    """In play, heuristic with the fitted accept_trumps does what the parameter says: the player
    who takes a poverty is the first one asked whose strength reaches it, and a poverty is redealt
    exactly when nobody's does; under the old rule (7) nobody refuses."""
    t = poverty_study["fit"]["threshold"]
    frames = poverty_study["frames"]
    fitted = frames[next(k for k in frames if "fitted" in k)]
    before = frames[next(k for k in frames if "before" in k)]
    st = np.stack([fitted[f"strength_{k}"].to_numpy() for k in (1, 2, 3)], axis=1)
    first = np.where((st >= t).any(axis=1), np.argmax(st >= t, axis=1) + 1, 0)
    assert (fitted["position"].to_numpy() == first).all()
    assert 0 < (first == 0).sum() < fitted.height  # some refused, some taken
    assert (fitted["acceptor_strength"].drop_nans().to_numpy() >= t).all()
    assert before["accepted"].all() and before.height == fitted.height  # the same declarations
    refused = fitted.filter(~pl.col("accepted"))
    assert (refused["poor_poverty"] == 0).all()
    assert np.allclose(refused["poor_gain"].to_numpy(), -refused["poor_normal"].to_numpy())
    a = fitted.filter(pl.col("accepted"))  # zero-sum in both worlds: the gains cancel
    total = a["poor_gain"] + a["acceptor_gain"] + 2 * a["table_gain"]
    assert np.allclose(total.to_numpy(), 0.0)


def test_poverty_tables_hold_their_estimates(poverty_study):
    """Every interval of the value, declared, by-strength and skills tables holds its estimate;
    the fit's interval holds the threshold; rule_value at the threshold is the fit's value; the
    tournament's interval holds its difference; pimc's share of poverty deals is not measured."""
    def inside(df, est, lo, hi):
        d = df.filter(pl.col(lo).is_not_nan() & pl.col(lo).is_not_null())
        assert d.height and ((d[lo] <= d[est] + 1e-12) & (d[est] <= d[hi] + 1e-12)).all(), (est, d)
    r = poverty_study
    for who in ("poor", "acceptor", "table"):
        inside(r["value"], f"{who}_gain", f"{who}_gain_lo", f"{who}_gain_hi")
    inside(r["value"], "pair_score", "pair_score_lo", "pair_score_hi")
    inside(r["value"], "pair_win_rate", "pair_win_lo", "pair_win_hi")
    inside(r["declared"], "refusal_rate", "refusal_lo", "refusal_hi")
    inside(r["declared"], "poor_value", "poor_value_lo", "poor_value_hi")
    bs = r["by_strength"]
    inside(bs, "accept_score", "accept_lo", "accept_hi")
    inside(bs, "rule_value", "rule_value_lo", "rule_value_hi")
    inside(bs, "refuse_score", "refuse_lo", "refuse_hi")
    fit = r["fit"]
    assert fit["lo"] <= fit["threshold"] <= fit["hi"]
    assert bs.filter(pl.col("strength") == fit["threshold"])["rule_value"][0] == pytest.approx(fit["value"])
    tour = r["tournament"]
    assert tour["lo"] <= tour["diff"] <= tour["hi"] and tour["threshold"] == fit["threshold"]
    assert r["sweep"] and all(t["lo"] <= t["diff"] <= t["hi"] and t["old"] == fit["threshold"] for t in r["sweep"])
    skills = pl.DataFrame(r["skills"])
    inside(skills, "estimate", "lo", "hi")
    pimc_share = skills.filter((pl.col("skill") == "pimc") & (pl.col("figure") == "share of deals played as a poverty"))
    assert math.isnan(pimc_share["estimate"][0])
    assert r["frames"]["pimc"].height >= 4  # 8 conditioned deals: mostly poverties
    q = r["quantities"]
    assert q.filter(pl.col("weight") == 0.5)["diff"][0] == 0.0
    inside(q, "heldout_value", "heldout_lo", "heldout_hi")


def test_poverty_sweep_thresholds():
    """The sweep plays a trump and half a trump either side of the fit and never accepting, inside
    the parameter's range, without the fit itself or the old rule (the main tournament)."""
    from dokosim.studies.poverty import sweep_thresholds
    assert sweep_thresholds(10.5) == [9.5, 10.0, 11.0, 11.5, 15.0]
    assert sweep_thresholds(7.5) == [6.5, 8.0, 8.5, 15.0]
    assert sweep_thresholds(15.0) == [14.0, 14.5]


def test_poverty_tournament_against_the_old_rule_itself_is_zero():
    """The same threshold on both sides: both copies play alike, the difference is 0 exactly."""
    from dokosim.studies.poverty import OLD_ACCEPT, tournament_check
    t = tournament_check(OLD_ACCEPT, 30, 1, True)
    assert t["diff"] == pytest.approx(0.0, abs=1e-12) and t["lo"] == pytest.approx(0.0, abs=1e-12)


def test_strategies_pimc_pairs_play_fewer_deals(tmp_path):
    from dokosim.studies import strategies
    res = strategies.run(deals=40, seed=2, quiet=True, charts=False, results=tmp_path,
                         candidates=("random", "simple", "pimc"), pimc_deals=3)
    t = res["pairs"]  # pimc does not play random
    assert t.select("a", "b", "deals").rows() == [("random", "simple", 40), ("simple", "pimc", 3)]
    assert (t["diff_lo"] <= t["diff_a_minus_b"]).all() and (t["diff_a_minus_b"] <= t["diff_hi"]).all()


# ------------------------------------------------------------------ re-tuning heuristic's calls
def test_retuned_params_from_break_even():
    from dokosim.studies.announcements import retuned_params
    s = pl.DataFrame({"level": ["Re/Kontra", "Re/Kontra: Re side", "no 90", "no 60"],
                      "break_even": [0.5234, 0.6, float("nan"), 0.97]})
    assert retuned_params(s) == {"call_win": 0.523}  # no 90 has no crossing: deny_win stays
    s2 = s.with_columns(pl.Series("break_even", [0.5234, 0.6, 0.912, 0.97]))
    assert retuned_params(s2) == {"call_win": 0.523, "deny_win": 0.912}


def test_retune_tournament_is_duplicate():
    """Re-tuned to today's defaults, both heuristic copies play alike: the difference is 0
    exactly; re-tuned to never call, the copies differ and the interval holds the mean."""
    from dokosim.studies.announcements import retune
    same = retune(pl.DataFrame({"level": ["Re/Kontra"], "break_even": [0.6]}), 30, 1, True)
    assert same["params"] == {"call_win": 0.6} and same["defaults"] == {"call_win": 0.6}
    assert same["diff"] == pytest.approx(0.0, abs=1e-12)
    other = retune(pl.DataFrame({"level": ["Re/Kontra"], "break_even": [1.0]}), 30, 1, True)
    assert other["diff"] != 0.0 and other["lo"] <= other["diff"] <= other["hi"]


def test_rules_of_thumb_given_the_aces(solo):
    """The rule per kind and number of plain aces: each row's figures are those of the
    by-trumps-and-aces table at its count, and its sentence names the aces."""
    from dokosim.studies.solo_odds import rules_of_thumb, thumb_sentence
    bta = solo["by_trumps_aces"]
    th = rules_of_thumb(bta, "plain_aces")
    assert set(th["given"].unique()) == {"plain_aces"}
    for r in th.filter(pl.col("count").is_not_null()).iter_rows(named=True):
        at = bta.filter((pl.col("kind") == r["kind"]) & (pl.col("plain_aces") == r["given_value"])
                        & (pl.col("trumps") == r["count"])).row(0, named=True)
        assert at["mean_score"] == r["mean_score"] and at["deals"] == r["deals"]
        assert f"with {r['given_value']} plain ace" in thumb_sentence(r)
    assert "fleischlos" not in th["kind"].to_list()  # its count is the aces already


def test_break_even_with_pimc_bins_on_few_synthetic_probes():
    """pimc's coarse bins (0.1, >= 40 probes) find the known crossing from 2,000 probes, with a
    wider interval that still covers it; the default bins find none there (too few per bin)."""
    from dokosim.studies.announcements import PIMC_BIN_EDGES, PIMC_MIN_BIN, break_even
    rng = np.random.default_rng(5)
    chance = rng.uniform(0, 1, 2_000)
    gain = 4 * (chance - 0.6) + rng.normal(0, 1, chance.size)
    point, lo, hi, note = break_even(chance, gain, 1, PIMC_BIN_EDGES, PIMC_MIN_BIN)
    assert lo < 0.6 < hi and abs(point - 0.6) < 0.1 and note.startswith("sign change in 0.50-0.70"), (point, lo, hi, note)
    assert break_even(chance[:1_500], gain[:1_500], 1)[3] == "too few probes"


def test_skill_columns_pin_pimc_bids(monkeypatch, tmp_path):
    """The skill columns' pimc (solo_odds, calibration, announcements, strategies, play_errors)
    declares, accepts and calls by heuristic's rules: every run it starts hands over
    ``search_bids=0`` for pimc (as the results' notes say) and no params for another strategy."""
    import dokosim.run.call_probe as call_probe
    import dokosim.run.simulate as simulate_module
    import dokosim.run.tournament as tournament_module
    from dokosim.studies import announcements, calibration, data, play_errors, solo_odds, strategies

    class Captured(BaseException):  # not an Exception: the strategies study notes those and goes on
        pass

    seen = []

    def capture(*args, **kw):
        seen.append(kw.get("params"))
        raise Captured

    pinned = {"pimc": {"search_bids": 0}}
    monkeypatch.setattr(solo_odds, "dataset", capture)
    monkeypatch.setattr(call_probe, "probe_calls", capture)
    monkeypatch.setattr(tournament_module, "tournament", capture)
    monkeypatch.setattr(data, "dataset", capture)
    monkeypatch.setattr(simulate_module, "simulate", capture)
    calls = [lambda s: solo_odds.kind_frame("clubs", 100, s, 0), lambda s: solo_odds.normal_frame(100, s, 0),
             lambda s: announcements.probe_levels(100, s, 0, (1,), True),
             lambda s: play_errors.run(deals=100, results=tmp_path, quiet=True, charts=False, candidates=(s,))]
    for call in calls:
        for strategy, expected in (("pimc", pinned), ("heuristic", None)):
            seen.clear()
            with pytest.raises(Captured):
                call(strategy)
            assert seen == [expected], (strategy, seen)
    seen.clear()
    with pytest.raises(Captured):
        strategies.run(deals=100, results=tmp_path, quiet=True, charts=False, candidates=("heuristic", "pimc"))
    assert seen == [pinned]
    frame = pl.DataFrame({"kind": ["clubs"], "deal_id": [0], "hand": [0], "leads": [0]})
    for strategy, expected in (("pimc", pinned), ("heuristic", None)):
        seen.clear()
        with pytest.raises(Captured):
            calibration.calibrate({}, frame, strategy, 0, {"preset": "ddv"}, 1, 10)
        assert seen == [expected]


def test_frontier_runs_every_part_small(tmp_path):
    """The frontier study end to end at a two-hundredth of its sizes under random, heuristic and
    pimc: rows for every part and every skill that plays it (poverty: the players that take a
    poverty by a rule), each finite estimate inside its interval, and the files the README and
    docs read."""
    from dokosim.studies import frontier
    skills = ("random", "heuristic", "pimc")
    frontier.run(results=tmp_path / "r", data=tmp_path / "d", quiet=True, scale=0.005, skills=skills)
    out = tmp_path / "r" / "frontier"
    f = pl.read_csv(out / "frontier.csv")
    assert set(f.select("study", "skill").unique().iter_rows()) == (
        {(s, k) for s in ("solo_odds", "announcements") for k in skills} | {("poverty", "heuristic"), ("poverty", "pimc")})
    assert (f["n"] > 0).all()
    measured = f.filter(pl.col("estimate").is_not_nan())
    assert measured.height >= 0.9 * f.height  # a break-even point may not be found at this size
    assert (measured["lo"] <= measured["estimate"] + 1e-9).all() and (measured["estimate"] <= measured["hi"] + 1e-9).all()
    for name in ("frontier_settled.md", "summary.md", "readme_tables.md", "advice.md", "solo_odds.png"):
        assert (out / name).is_file(), name
    # a search player's solo row grows by blocks until its score interval is narrow enough (or the cap)
    block = max(10, int(frontier.SIZES["solo"]["pimc"] * 0.005))
    target = frontier.target_width("soloist's mean score") / 0.005 ** 0.5
    scores = f.filter((pl.col("skill") == "pimc") & (pl.col("figure") == "soloist's mean score"))
    for r in scores.iter_rows(named=True):
        blocks, rest = divmod(r["n"], block)
        assert rest == 0 and 1 <= blocks <= frontier.MAX_SOLO_BLOCKS, r
        assert r["hi"] - r["lo"] <= target or blocks == frontier.MAX_SOLO_BLOCKS, r
    assert (f.filter((pl.col("skill") == "heuristic") & (pl.col("study") == "solo_odds"))["n"] ==
            max(10, int(frontier.SIZES["solo"]["heuristic"] * 0.005))).all()
