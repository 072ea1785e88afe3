"""The advice check (dokosim.studies.advice_check): hand draws, agreement rules, resume."""
from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from dokosim.rules import Rules
from dokosim.studies import StudyError
from dokosim.studies import advice_check as ac
from dokosim.studies.advise import parse_hand
from dokosim.studies.common import hand_features


@pytest.mark.parametrize("index", range(8))
def test_each_hand_is_in_its_category_and_depends_only_on_seed_and_index(index):
    mask, category = ac.draw_hand(3, index)
    assert category == ac.CATEGORIES[index % 4]
    assert bin(mask).count("1") == 12 and mask < 2**48
    assert ac.draw_hand(3, index) == (mask, category)
    assert ac.draw_hand(4, index)[0] != mask
    if category == "suit_solo":
        counts = [int(hand_features([mask], k)["trumps"][0]) for k in ac.SUIT_KINDS]
        assert 9 <= max(counts) <= 11
        assert ac.category_option(mask, category) == f"{ac.SUIT_KINDS[int(np.argmax(counts))]}_solo"
    else:
        kind = {"queens": "queens", "jacks": "jacks", "aces": "fleischlos"}[category]
        assert 5 <= int(hand_features([mask], kind)["trumps"][0]) <= 6


def test_the_suit_asked_about_is_the_longest_in_trumps():
    hand = parse_hand("QC QS JC JS AH AH TH KH KH 9H 9H AC", Rules())  # hearts: 4 + 7 = 11 trumps
    assert ac.category_option(hand, "suit_solo") == "hearts_solo"


def _entry(p, lo, hi, score=0.0):
    return {"win_chance": p, "win_ci95": [lo, hi], "expected_score": score, "score_ci95": [score - 1, score + 1]}


def _record(fast_pick, search_pick, gap, half, fast_win, search_win):
    opts = {"healthy": _entry(0.5, 0.45, 0.55), "jacks_solo": _entry(fast_win, fast_win - 0.02, fast_win + 0.02)}
    sopts = {"healthy": _entry(0.52, 0.45, 0.59), "jacks_solo": _entry(search_win, search_win - 0.07, search_win + 0.07)}
    return {"index": 0, "category": "jacks", "hand": "x",
            "fast": {"net": {"pick": fast_pick, "options": opts}},
            "search": {"pick": search_pick, "options": sopts,
                       "gap_to_pick": {"healthy": [gap, half], "jacks_solo": [0.0, 0.0]}}}


def test_agreement_rules():
    row = ac.agreement(_record("jacks_solo", "jacks_solo", 0, 0, 0.60, 0.66), "net")
    assert row["pick_same"] and row["pick_not_worse"] and row["win_agrees"] and row["healthy_agrees"]
    row = ac.agreement(_record("jacks_solo", "jacks_solo", 0, 0, 0.60, 0.70), "net")  # 0.10 > 0.02 + 0.07
    assert not row["win_agrees"]
    tie = ac.agreement(_record("healthy", "jacks_solo", 1.0, 1.5, 0.6, 0.6), "net")
    assert not tie["pick_same"] and tie["pick_not_worse"] and not tie["search_clear"]  # search can't separate them
    row = ac.agreement(_record("healthy", "jacks_solo", 2.0, 1.5, 0.6, 0.6), "net")
    assert not row["pick_same"] and not row["pick_not_worse"] and row["search_clear"]
    summary = ac.summarize(pl.DataFrame([row, row]))
    same = summary.filter(pl.col("agreement") == "pick_same").row(0, named=True)
    assert same["hands"] == 2 and same["agree"] == 0 and same["lo"] == 0.0 and 0 < same["hi"] < 1
    agree_clear = ac.agreement(_record("jacks_solo", "jacks_solo", 2.0, 1.5, 0.6, 0.6), "net")
    summary = ac.summarize(pl.DataFrame([row, tie, agree_clear, tie]))
    by = {r["agreement"]: r for r in summary.iter_rows(named=True)}
    assert (by["search_clear"]["agree"], by["search_clear"]["hands"]) == (2, 4)
    assert (by["pick_same_where_clear"]["agree"], by["pick_same_where_clear"]["hands"]) == (1, 2)  # ties left out
    assert (by["pick_same"]["agree"], by["pick_same"]["hands"]) == (1, 4)


def test_the_log_resumes_after_the_last_whole_line_and_refuses_other_settings(tmp_path):
    path = tmp_path / "seed0.jsonl"
    log = ac.HandLog(path, {"seed": 0})
    log.add({"index": 0, "x": 1})
    with path.open("a") as fh:
        fh.write('{"index": 1, "x"')  # cut short by an interruption
    again = ac.HandLog(path, {"seed": 0})
    assert list(again.records) == [0]
    assert path.read_text().endswith('"x": 1}\n')
    with pytest.raises(StudyError, match="written with other settings"):
        ac.HandLog(path, {"seed": 1})


@pytest.mark.e2e
def test_a_small_check_end_to_end(tmp_path, monkeypatch):
    """Two hands with a cheap stand-in for the search player: every file is written, the table
    has a row per hand and fast player, and a second run resumes without playing again."""
    monkeypatch.setattr(ac, "SEARCH_PLAYER", "simple")
    kw = dict(seed=1, results=tmp_path / "results", quiet=True, charts=True, hands=2, fast_deals=40,
              data=tmp_path / "data")
    out = ac.run(**kw)
    rows = pl.read_csv(tmp_path / "results" / "advice_check" / "hands.csv")
    assert rows.height == 2 * len(ac.fast_players()) and set(rows["index"]) == {0, 1}
    assert (tmp_path / "results" / "advice_check" / "win_chances.png").stat().st_size > 1000
    for r in rows.iter_rows(named=True):
        assert r["win_lo"] <= r["win"] <= r["win_hi"] and r["search_win_lo"] <= r["search_win"] <= r["search_win_hi"]
    (log,) = (tmp_path / "data").glob("seed1-*.jsonl")
    lines = log.read_text().splitlines()
    record = json.loads(lines[1])
    assert set(record["search"]["options"]) >= {"healthy", record["asked"]}
    monkeypatch.setattr(ac, "check_hand", lambda *a, **k: pytest.fail("a checked hand was played again"))
    assert ac.run(**kw)["summary"] == out["summary"]
    with pytest.raises(StudyError, match="at least 200"):
        ac.run(deals=100, **kw)


@pytest.mark.e2e
def test_other_fast_players_reuse_the_search_and_play_only_what_it_lacks(tmp_path, monkeypatch):
    """A second run with another fast player set (random beside heuristic) keeps search's
    answers of the first run, plays search only for options the first did not, and its records
    equal a run from scratch with the same players."""
    from dokosim.studies import advise as advise_module
    monkeypatch.setattr(ac, "SEARCH_PLAYER", "simple")
    kw = dict(seed=2, quiet=True, charts=False, hands=2, fast_deals=40)
    monkeypatch.setattr(ac, "fast_players", lambda: ("heuristic",))
    ac.run(results=tmp_path / "r1", data=tmp_path / "data", **kw)
    first = {r["index"]: r for r in ac.read_log(next((tmp_path / "data").glob("seed2-*.jsonl"))).values()}
    played = []
    real = advise_module.advise

    def counting(*args, **kwargs):
        if kwargs.get("strategy") == "simple" and kwargs.get("only") is not None:
            played.append(list(kwargs["only"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(advise_module, "advise", counting)
    monkeypatch.setattr(ac, "fast_players", lambda: ("random", "heuristic"))
    ac.run(results=tmp_path / "r2", data=tmp_path / "data", **kw)
    logs = sorted((tmp_path / "data").glob("seed2-*.jsonl"))
    assert len(logs) == 2
    second = [ac.read_log(p) for p in logs if ac.read_log(p)[0]["fast"].keys() == {"random", "heuristic"}][0]
    for i, r in second.items():
        for o, e in first[i]["search"]["options"].items():
            assert r["search"]["options"][o] == e  # kept, not played again
    new_options = [o for i, r in second.items() for o in r["search"]["options"] if o not in first[i]["search"]["options"]]
    assert new_options and sorted(o for call in played for o in call) == sorted(new_options)  # only these played
    monkeypatch.setattr(advise_module, "advise", real)
    scratch = ac.run(results=tmp_path / "r3", data=tmp_path / "fresh", **kw)
    fresh = ac.read_log(next((tmp_path / "fresh").glob("seed2-*.jsonl")))
    for i in fresh:  # each option's search answer is the same whether reused or played afresh
        for o, e in fresh[i]["search"]["options"].items():
            assert second[i]["search"]["options"][o] == e
    assert scratch["summary"]


def test_players_chosen_on_the_command_line_are_the_ones_checked(tmp_path, monkeypatch, capsys):
    """``--players random,simple`` checks those players (their rows, in that order) instead of the
    default answerer and heuristic; an unknown name is one line and exit code 2, before any work."""
    monkeypatch.setattr(ac, "SEARCH_PLAYER", "simple")
    monkeypatch.setattr(ac, "fast_players", lambda: pytest.fail("the default players were used"))
    assert ac.main(["--players", "random,simple", "--hands", "1", "--fast-deals", "40", "--quiet",
                    "--results", str(tmp_path / "r"), "--data", str(tmp_path / "d")]) == 0
    rows = pl.read_csv(tmp_path / "r" / "advice_check" / "hands.csv")
    assert rows["player"].to_list() == ["random", "simple"]
    with pytest.raises(SystemExit) as exit_info:
        ac.main(["--players", "net3,nosuch", "--results", str(tmp_path / "r2"), "--data", str(tmp_path / "d2")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nosuch" in err[0] and "built-in" in err[0]
    assert not (tmp_path / "d2").exists()


@pytest.mark.parametrize("args,named", [(["--fast-deals", "0"], "--fast-deals 0"), (["--seed", "-1"], "--seed -1"),
                                        (["--players", "dd_oracle"], "pimc_solver")])
def test_a_bad_fast_deals_seed_or_player_is_one_line_before_any_work(tmp_path, monkeypatch, capsys, args, named):
    """--fast-deals 0 searched for minutes and logged NaN win chances; --seed -1 was refused only
    after its log file was made; an unknown player's message named three examples, not the choice."""
    monkeypatch.setattr(ac, "check_hand", lambda *a, **k: pytest.fail("a hand was checked"))
    with pytest.raises(SystemExit) as exit_info:
        ac.main(args + ["--hands", "1", "--quiet", "--results", str(tmp_path / "r"), "--data", str(tmp_path / "d")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and named in err[0], err
    assert not (tmp_path / "d").exists() and not (tmp_path / "r").exists()


@pytest.mark.parametrize("option", ["--data", "--results"])
def test_data_or_results_that_is_a_file_is_one_line_not_a_traceback(tmp_path, monkeypatch, capsys, option):
    """--data or --results naming a file ended in a FileExistsError or NotADirectoryError
    traceback (exit 1); now one line naming it, exit code 2, before any hand is checked."""
    monkeypatch.setattr(ac, "check_hand", lambda *a, **k: pytest.fail("a hand was checked"))
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine\n")
    paths = {"--data": str(tmp_path / "d"), "--results": str(tmp_path / "r"), option: str(a_file)}
    with pytest.raises(SystemExit) as exit_info:
        ac.main(["--players", "random", "--hands", "1", "--quiet", *[x for kv in paths.items() for x in kv]])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(a_file) in err[0] and "directories" in err[0], err
    assert a_file.read_text() == "mine\n"
