"""The band search (``Solver.band``, ``dokosim.game_value``, dd/band.py) against the exact-eyes
solver and a plain minimax, and the band's game value against the rules' scorer.

Positions: the random deals of test_solver (random reservations, marriages and calls), cut
after a fixed number of cards (fixed seed).
"""
import json

import numpy as np
import polars as pl
import pytest

from dokosim.dd.band import BANDS, EDGES, band_between, band_label, band_of, game_value, value_edges
from dokosim.engine.layout import H_RE_MASK, P_TURN, RES_TRICKS_RE, RES_VALUE, RES_WINNER
from dokosim.records.record import replay_detail

from tests.solver.test_solver import cut, positions, random_records, reference_card_values  # noqa: F401 (a fixture)


def test_bands_cover_every_eyes_value_once():
    assert BANDS[0] == (0, 0) and BANDS[-1] == (240, 240) and (120, 120) in BANDS
    assert [band_of(e) for e in range(241)] == [b for b in BANDS for _ in range(b[0], b[1] + 1)]
    assert [lo for lo, _ in BANDS[1:]] == list(EDGES)
    assert band_label((121, 150)) == "121-150" and band_label((120, 120)) == "120"
    with pytest.raises(ValueError, match="241"):
        band_of(241)


def test_every_eyes_value_of_a_band_scores_alike_and_more_eyes_never_score_less():
    """With every combination of calls, the rules' scorer (``settle`` through ``band_value``)
    gives one value per band of ``value_edges`` (so 120 may be left out without calls), and Re's
    value never falls as Re's eyes rise (so the band of best play for eyes is the band of best
    play for this value)."""
    from dokosim.solver.band import band_value
    for is_solo in (0, 1):
        for level_re in range(6):
            for level_ko in range(6):
                edges = value_edges(level_re, level_ko)
                values = [int(band_value(e, 12, level_re, level_ko, is_solo)[1]) for e in range(241)]
                for e in range(241):
                    assert values[e] == values[band_between(e, edges)[0]], (level_re, level_ko, e)
                assert all(a <= b for a, b in zip(values, values[1:])), (level_re, level_ko)
    assert 120 not in value_edges(0, 0) and 120 not in value_edges(1, 1) and 120 in value_edges(0, 1)
    assert band_value(120, 12, 0, 0, 0)[1] == band_value(119, 12, 0, 0, 0)[1] != band_value(121, 12, 0, 0, 0)[1]


def _bands_by_solver(recs, exact_limit):
    """(band searched, band of the exact eyes) for each position the exact solver answers within
    ``exact_limit`` nodes, and the count of positions with calls, solos and marriages among them."""
    from dokosim.dd.solve import Solver
    solver = Solver(table_bits=16)
    pairs, kinds = [], {"calls": 0, "solo": 0, "marriage": 0, "normal": 0}
    for rec in recs:
        state = replay_detail(rec)["state"]
        solver.node_limit = exact_limit
        solver.load(state)
        eyes = solver.eyes()
        if eyes is None:
            continue
        fresh = Solver(table_bits=16)  # the band on a table of its own: no bound from the exact solve
        fresh.load(state)
        pairs.append((fresh.band(), band_of(eyes)))
        kinds["calls"] += bool(rec["announcements"])
        kinds[rec["contract"]["type"]] += 1
    return pairs, kinds


def test_band_equals_the_exact_solvers_band_with_6_to_9_tricks_left(random_records):
    recs = (positions(random_records, 6, 110, seed=11) + positions(random_records[::-1], 7, 100, seed=12)
            + positions(random_records[1::2], 8, 70, seed=13) + positions(random_records[::3], 9, 50, seed=14))
    pairs, kinds = _bands_by_solver(recs, exact_limit=3_000_000)
    assert len(pairs) >= 300, len(pairs)
    assert kinds["calls"] >= 40 and kinds["solo"] >= 100 and kinds["marriage"] >= 20 and kinds["normal"] >= 100
    wrong = [(got, want) for got, want in pairs if got != want]
    assert not wrong
    assert len({want for _, want in pairs}) >= 6  # many bands, not one


def test_band_equals_plain_minimax_with_3_to_4_tricks_left(random_records):
    from dokosim.dd.solve import Solver
    recs = positions(random_records, 3, 60, seed=21) + positions(random_records, 4, 60, seed=22)
    solver = Solver(table_bits=16)
    checked = 0
    for rec in recs:
        state = replay_detail(rec)["state"]
        values = reference_card_values(state)  # every legal card, no pruning: Re's final eyes after it
        maxi = int(state[0][H_RE_MASK]) >> int(state[0][P_TURN]) & 1
        best = (max if maxi else min)(values.values())
        solver.load(state)
        assert solver.band() == band_of(best), rec
        checked += 1
    assert checked == 120


def test_known_bounds_spare_edges_and_keep_the_band(random_records):
    """A band searched from bounds known before (the band before a card) is the same band."""
    from dokosim.dd.solve import Solver
    solver = Solver(table_bits=16)
    for rec in positions(random_records, 5, 40, seed=31):
        solver.load(replay_detail(rec)["state"])
        band = solver.band()
        lo, hi = band
        for prior in ((lo, 240, lo), (0, hi, hi), (max(0, lo - 40), min(240, hi + 40), 121)):
            solver.load(replay_detail(rec)["state"])
            assert solver.band(*prior) == band


def test_game_value_of_a_complete_record_is_its_score_without_extra_points(random_records):
    """A solo has no extra points: its band's value is the scorer's value, whenever schwarz
    agrees with the eyes (a trick of nines is worth no eyes)."""
    checked = 0
    for rec in random_records:
        if rec["contract"]["type"] != "solo":
            continue
        d = replay_detail(rec)
        res = d["res"]
        eyes = game_value(rec)
        tricks = int(res[RES_TRICKS_RE])
        if (eyes["band_lo"] == 240) != (tricks == 12) or (eyes["band_lo"] == 0) != (tricks == 0):
            continue
        value = int(res[RES_VALUE])
        re_value = -value if int(res[RES_WINNER]) == 1 else value
        assert eyes["complete"] and eyes["answered"] and eyes["value_re"] == re_value, rec
        assert eyes["winner"] == ("Re", "Kontra", "none")[int(res[RES_WINNER])]
        checked += 1
    assert checked >= 100


def test_game_value_counts_the_records_calls(random_records):
    """The calls change the value, not the band (the play for eyes); from the first card the
    value counts all the record's calls."""
    called = [r for r in random_records if r["announcements"] and r["contract"]["type"] != "marriage"]
    changed = started = 0
    for rec in called[:60]:
        late = cut(rec, 36)
        with_calls = game_value(late, bands="all")
        without = game_value({**late, "announcements": []}, bands="all")
        assert with_calls["band"] == without["band"]
        if late["announcements"] and with_calls["winner"] != "none":
            assert with_calls["value_re"] != without["value_re"]
            changed += 1
        if rec["contract"]["type"] == "solo" and started < 3:
            start = game_value(rec, from_start=True, node_limit=2_000_000, bands="all")
            assert start["cards_played"] == 0
            if not start["answered"]:
                continue
            silent = game_value({**rec, "announcements": []}, from_start=True, node_limit=0, bands="all")
            assert start["band"] == silent["band"]
            assert start["value_re"] != silent["value_re"] or start["winner"] == "none"
            started += 1
    assert changed >= 10 and started == 3


def test_game_value_node_limit_and_errors():
    from dokosim.run.simulate import simulate
    rec = json.loads(simulate(1, seed=3, strategy="random", keep_play=True, contract="normal",
                              calls=False)["record"][0])
    out = game_value(rec, from_start=True, node_limit=1000)
    assert out["ok"] and not out["answered"] and out["band"] is None and out["value_re"] is None
    assert out["nodes"] >= 1000
    bad = game_value({**rec, "play": ["XX"]})
    assert not bad["ok"]
    with pytest.raises(ValueError, match="node_limit"):
        game_value(rec, node_limit=-1)
    assert game_value(json.dumps(cut(rec, 40)))["answered"]
    assert np.isin(game_value(cut(rec, 40))["band_lo"], [lo for lo, _ in BANDS])


def test_the_audits_bands_equal_fresh_band_searches(random_records):
    """``audit_records`` bands (searched from the band before each card, sharing the table, and
    read from the exact eyes in the exact tricks) against a fresh band search of each position."""
    from dokosim.dd.audit import audit_records
    from dokosim.dd.band import value_edges
    from dokosim.dd.solve import Solver
    from dokosim.engine.layout import P_LEVEL_KO, P_LEVEL_RE
    recs = [r for r in random_records if r["contract"]["type"] in ("normal", "solo") and r["announcements"]][:4]
    recs += [r for r in random_records if r["contract"]["type"] == "marriage"][:2]
    recs += [r for r in random_records if not r["announcements"]][:4]
    cards = audit_records(recs, tricks=7, exact_tricks=3, band_node_limit=0)
    assert cards.height == len(recs) * 28 and cards["band_swing"].null_count() == 0
    assert cards.filter(pl.col("trick") <= 9)["loss"].null_count() == cards.filter(pl.col("trick") <= 9).height
    fresh = Solver(table_bits=16)
    for i, rec in enumerate(recs):
        final = replay_detail(rec)["state"][0]
        edges = value_edges(int(final[P_LEVEL_RE]), int(final[P_LEVEL_KO]))
        mine = cards.filter(pl.col("deal_id") == i).sort("card")
        assert mine["band_after"].to_list()[:-1] == mine["band_before"].to_list()[1:]
        for row in mine.iter_rows(named=True):
            for n, column in ((row["card"], "band_before"), (row["card"] + 1, "band_after")):
                if n == 48:
                    continue
                fresh.load(replay_detail(cut(rec, n))["state"])
                assert band_label(fresh.band(edges=edges)) == row[column], (i, n)
    assert cards["band_swing"].sum() > 0


def test_solve_value_command(tmp_path):
    """``dokosim solve --value`` on records and ``--deals N --value --out DIR``; usage errors exit 2."""
    from click.testing import CliRunner

    from dokosim.cli import main
    from dokosim.dd.deal_solves import COLUMNS
    from pathlib import Path
    examples = Path(__file__).resolve().parents[2] / "examples" / "records.jsonl"
    runner = CliRunner()
    result = runner.invoke(main, ["solve", "--value", "--bands", "all", str(examples)])
    assert result.exit_code == 1, result.output  # two of the example records break a rule (exit 1)
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert len(lines) == 5 and sum(line["ok"] for line in lines) == 3
    for line in lines:
        if line["ok"]:
            assert line["value"]["band"] == band_label(band_of(line["eyes_re"])) and line["value"]["answered"]
        else:
            assert "value" not in line
    out = tmp_path / "values"
    result = runner.invoke(main, ["solve", "--deals", "3", "--value", "--node-limit", "1000", "--out", str(out),
                                  "--contract", "normal", "--contract", "clubs_solo", "--quiet"])
    assert result.exit_code == 0, result.output
    frame = pl.read_parquet(out)
    assert frame.columns == list(COLUMNS) and frame.height == 6
    assert not frame["answered"].any() and frame["band"].null_count() == 6 and (frame["nodes"] > 1000).all()
    for argv in (["solve", "--bands", "all", str(examples)], ["solve", "--deals", "3", "--value", "--out",
                 str(tmp_path / "x"), "--contract", "nonsense"], ["solve", "--contract", "normal", str(examples)]):
        result = runner.invoke(main, argv)
        assert result.exit_code == 2 and "Traceback" not in result.output, argv
