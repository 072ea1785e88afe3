"""Conditional dealing (issue 17): hands, where, where_path. Conditional frequencies against
exact hypergeometric values, reproducibility with a condition, errors in one line."""
import json
import math
import sys
import textwrap
from math import comb

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal

from dokosim.engine.cards import CLASS_MASK, SCHEME_NORMAL, TRUMP, card_type, mask_str, parse_hand
from dokosim.cli import main as cli
from dokosim.run.conditions import ConditionError, parse_conditions
from dokosim.run.dataset import scan
from dokosim.run.driver import read_manifest
from dokosim.rules import Rules
from dokosim.run.simulate import SimulationError, simulate
from tests.helpers.thread_util import on_one_and_two_threads

TRUMPS = int(CLASS_MASK[SCHEME_NORMAL, TRUMP])
TH = 3 << (2 * card_type("TH"))
QC = 3 << (2 * card_type("QC"))
CHI2_999 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47}  # chi-square critical values at p = 0.001


def hands_of(df) -> np.ndarray:
    return df.select([f"hand_{s}" for s in range(4)]).to_numpy().astype(np.int64)


def count(hands, mask) -> np.ndarray:
    bits = np.bitwise_and(hands, np.int64(mask))
    return np.array([int(x).bit_count() for x in bits.ravel()]).reshape(bits.shape)


def hypergeom(n_all, k_cls, draws):
    """P(X = x), x = 0..draws, X the class cards among ``draws`` cards drawn from ``n_all``."""
    total = comb(n_all, draws)
    return [comb(k_cls, x) * comb(n_all - k_cls, draws - x) / total for x in range(draws + 1)]


def check_frequencies(counts, probs, n):
    """Each frequency within 4 standard errors of its exact value, and a chi-square at p = 0.001."""
    chi2, cells = 0.0, 0
    for x, p in enumerate(probs):
        share = float(np.mean(counts == x))
        se = math.sqrt(p * (1 - p) / n) if p > 0 else 0.0
        assert abs(share - p) <= 4 * se + 1e-12, (x, share, p)
        if p * n >= 5:
            chi2 += (np.sum(counts == x) - p * n) ** 2 / (p * n)
            cells += 1
    assert chi2 < CHI2_999[cells - 1], chi2


def check_deals(hands, hand_size=12):
    assert (np.bitwise_or.reduce(hands, axis=1) == (1 << 48) - 1).all()
    assert (count(hands, (1 << 48) - 1) == hand_size).all()


# ---------------------------------------------------------------- exact values

@pytest.mark.parametrize("where", ["copies(0, 'TH') == 0",        # a count class: dealt directly
                                   "copies(0, 'TH') + 0 == 0"])   # not one: by rejection
def test_seat_1_holds_the_th_as_hypergeometric_given_seat_0_holds_none(where):
    n = 20_000
    df = simulate(n, seed=3, strategy="random", calls=False, where=where)
    hands = hands_of(df)
    check_deals(hands)
    assert (count(hands[:, 0], TH) == 0).all()
    # seat 1's 12 cards are drawn from the 36 others, 2 of them TH
    check_frequencies(count(hands[:, 1], TH), hypergeom(36, 2, 12), n)


def test_trump_count_given_at_least_nine_is_the_truncated_hypergeometric():
    n = 20_000
    df = simulate(n, seed=4, strategy="random", calls=False, where="trumps(0) >= 9")
    hands = hands_of(df)
    check_deals(hands)
    full = hypergeom(48, 26, 12)
    tail = sum(full[9:])
    exact = [0.0] * 9 + [p / tail for p in full[9:]]
    check_frequencies(count(hands[:, 0], TRUMPS), exact, n)
    # the other seats' trumps: the 26 - t others among their 36 cards
    t0 = count(hands[:, 0], TRUMPS)
    assert (t0 + count(hands[:, 1:], TRUMPS).sum(axis=1) == 26).all()


def test_a_partial_hand_is_the_deal_given_that_the_seat_holds_at_least_those_cards():
    # seat 2 holds at least one TH: both TH in P(2) / P(>= 1) of such deals (not the 11/47 of
    # placing one TH and dealing the rest)
    n = 20_000
    df = simulate(n, seed=5, strategy="random", calls=False, hands={2: "TH"})
    hands = hands_of(df)
    check_deals(hands)
    th = count(hands[:, 2], TH)
    assert (th >= 1).all()
    p = hypergeom(48, 2, 12)
    both = p[2] / (p[1] + p[2])
    check_frequencies(th - 1, [1 - both, both], n)


def test_two_seats_asking_for_one_copy_each_get_one_each_and_the_expression_holds_too():
    df = simulate(3_000, seed=6, strategy="random", hands={0: "QC AD", 2: "QC"},
                  where="trumps(1) >= 8 and aces(3) <= 1")
    hands = hands_of(df)
    check_deals(hands)
    assert (count(hands[:, 0], QC) == 1).all() and (count(hands[:, 2], QC) == 1).all()
    assert (count(hands[:, 0], 3 << (2 * card_type("AD"))) >= 1).all()
    assert (count(hands[:, 1], TRUMPS) >= 8).all()
    aces = sum(3 << (2 * card_type(f"A{s}")) for s in "CSHD")
    assert (count(hands[:, 3], aces) <= 1).all()


def test_a_whole_hand_as_hands_gives_the_fixed_hand_rows():
    hand = "QC QS TH JD AD 9D AC TC KS AH 9H 9S"
    assert_frame_equal(simulate(1000, seed=2, strategy="simple", hands={1: hand}),
                       simulate(1000, seed=2, strategy="simple", fixed_hand=(1, hand)))


def test_without_nines_and_under_a_forced_solo_trumps_count_that_solo():
    df = simulate(2000, seed=7, rules="sharp", strategy="random", contract="queens_solo", declarer=0,
                  where="trumps(0) >= 5")
    hands = hands_of(df)
    queens = sum(3 << (2 * card_type(f"Q{s}")) for s in "CSHD")
    assert (count(hands[:, 0], queens) >= 5).all()
    assert (count(hands, (1 << 48) - 1) == 10).all()


# ---------------------------------------------------------------- the same rows however they run

WHERE = "trumps(0) >= 8 and has(2, 'TH')"
KW = {"seed": 9, "strategy": "random,simple,random,simple", "where": WHERE, "hands": {3: "AC"}}


def test_conditioned_rows_do_not_depend_on_threads_or_chunks():
    one, two = on_one_and_two_threads(lambda: simulate(6_000, chunk_size=6_000, **KW),
                                      lambda: simulate(6_000, chunk_size=1_700, **KW))
    assert_frame_equal(one, two)
    assert_frame_equal(simulate(3_000, **KW), one.head(3_000))  # deal ids, not run length
    assert (count(hands_of(one)[:, 0], TRUMPS) >= 8).all()


def test_resume_of_a_conditioned_dataset_gives_the_same_rows_and_checks_the_conditions(tmp_path):
    whole = simulate(4_000, chunk_size=1_000, out=tmp_path / "whole", **KW)
    part = tmp_path / "part"
    simulate(4_000, chunk_size=1_000, out=part, **KW)
    for f in sorted(part.glob("part-*.parquet"))[1:3]:
        f.unlink()  # as a killed run leaves it
    simulate(4_000, chunk_size=1_000, out=part, **KW)
    assert_frame_equal(scan(whole).collect().sort("deal_id"), scan(part).collect().sort("deal_id"))
    manifest = read_manifest(part)
    assert manifest["conditions"]["where"] == WHERE
    assert manifest["conditions"]["hands"] == {"3": "AC"}
    acc = manifest["conditions_acceptance"]
    assert acc["pilot_deals"] == 1000 and 0 < acc["acceptance"] <= 1
    with pytest.raises(ValueError, match="conditions"):
        simulate(4_000, chunk_size=1_000, out=part, **{**KW, "where": "trumps(0) >= 9"})
    with pytest.raises(ValueError, match="conditions"):
        simulate(4_000, chunk_size=1_000, out=part, seed=9, strategy=KW["strategy"])


def test_show_replays_a_deal_of_a_conditioned_dataset_with_its_conditions(tmp_path):
    from dokosim.cli.show import dataset_record, session_record
    from dokosim.run.session import simulate_sessions
    out = simulate(50, out=tmp_path / "run", **KW)
    row = scan(out).filter(pl.col("deal_id") == 17).collect()
    record = dataset_record(out, 17)  # what `dokosim show DIR --deal-id 17` replays
    assert [sorted(h.split()) for h in record["hands"]] == [sorted(mask_str(row[f"hand_{s}"][0]).split())
                                                              for s in range(4)]
    sessions = simulate_sessions(3, seed=2, strategy="simple", where="trumps(2) >= 8", out=tmp_path / "s")
    rows = scan(sessions).filter((pl.col("session_id") == 1) & (pl.col("deal_number") == 5)).collect()
    record = session_record(sessions, 1, 5)
    assert [sorted(h.split()) for h in record["hands"]] == [sorted(mask_str(rows[f"hand_{s}"][0]).split())
                                                              for s in range(4)]


def test_sessions_tournaments_and_probes_take_conditions():
    from dokosim.run.call_probe import probe_calls
    from dokosim.run.session import simulate_sessions
    from dokosim.run.tournament import tournament
    s = simulate_sessions(20, seed=1, strategy="simple", where="trumps(1) >= 7", hands={0: "QC QC"})
    assert (count(s["hand_1"].to_numpy().astype(np.int64), TRUMPS) >= 7).all()
    assert (count(s["hand_0"].to_numpy().astype(np.int64), QC) == 2).all()
    assert (s["contract"] != "normal").all()  # both QC with seat 0: a marriage or a solo, never normal
    t = tournament(["random", "simple"], 200, seed=2, where="aces(2) >= 3")
    assert t.deals == 200
    p = probe_calls(2000, "re", seed=3, strategy="simple", where="trumps(0) >= 8", probes_only=False)
    assert p.height == 2000
    with pytest.raises(SimulationError, match="five_players"):
        simulate_sessions(2, rules=Rules(five_players=True), where="trumps(0) >= 7")


def test_a_conditioned_tournament_reports_and_records_its_acceptance(tmp_path, capsys):
    import json

    from dokosim.run.tournament import tournament
    tournament(["random", "simple"], 50, seed=3, where="trumps(0) >= 9", out=tmp_path / "t", quiet=False)
    assert "dokosim: conditions: 50 deals in" in capsys.readouterr().err
    from dokosim.run.driver import meta_dir
    info = json.loads((meta_dir(tmp_path / "t") / "tournament.json").read_text())
    acc = info["conditions_acceptance"]
    assert acc["pilot_deals"] == 50 and acc["tries"] >= 50 and 0 < acc["acceptance"] <= 1
    assert info["conditions"]["where"] == "trumps(0) >= 9"


def test_tournament_seatings_play_the_same_conditioned_deals():
    a = simulate(300, seed=2, strategy="random", where="aces(2) >= 3")
    b = simulate(300, seed=2, strategy="simple", where="aces(2) >= 3")
    assert_frame_equal(a.select("hand_0", "hand_1", "hand_2", "hand_3"),
                       b.select("hand_0", "hand_1", "hand_2", "hand_3"))


def test_a_user_predicate_from_where_path(tmp_path, monkeypatch):
    plain_clubs = int(CLASS_MASK[SCHEME_NORMAL, 0])  # AC TC KC 9C
    (tmp_path / "my_conditions.py").write_text(textwrap.dedent(f"""
        from numba import njit

        @njit
        def long_clubs(h0, h1, h2, h3):
            n = 0
            m = h1 & {plain_clubs}
            while m:
                m &= m - 1
                n += 1
            return n >= 5
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    df = simulate(1000, seed=8, strategy="random", where_path="my_conditions:long_clubs",
                  where="trumps(0) >= 6")
    hands = hands_of(df)
    assert (count(hands[:, 1], plain_clubs) >= 5).all()
    assert (count(hands[:, 0], TRUMPS) >= 6).all()
    with pytest.raises(ConditionError, match="numba function"):
        (tmp_path / "plain_cond.py").write_text("def f(a, b, c, d):\n    return True\n")
        simulate(10, where_path="plain_cond:f")


COUNT_COMPILATIONS = """
import json, sys
sys.path.insert(0, sys.argv[1])
from numba.core.registry import CPUDispatcher
from dokosim.run.simulate import simulate
df = simulate(500, seed=5, strategy="simple", where_path="my_predicate:no_aces", where="trumps(0) >= 7")
misses = {f"{name}.{attr}": value.stats.cache_misses for name, module in list(sys.modules.items())
          if name.startswith("dokosim") for attr, value in vars(module).items()
          if isinstance(value, CPUDispatcher) and value.stats.cache_misses}
print(json.dumps({"rows": df.height, "misses": misses}))
"""


@pytest.mark.subprocess
def test_a_where_path_predicate_compiles_the_users_code_only(tmp_path):
    import subprocess
    (tmp_path / "my_predicate.py").write_text(
        "from numba import njit\n\n@njit\ndef no_aces(h0, h1, h2, h3):\n    return (h1 & 0x3003003003) == 0\n")
    proc = subprocess.run([sys.executable, "-c", COUNT_COMPILATIONS, str(tmp_path)], capture_output=True,
                          text=True, check=True)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"rows": 500, "misses": {}}, proc.stderr
    assert "compiling" not in proc.stderr


def test_advise_takes_conditions_on_the_other_seats():
    from dokosim.studies.advise import advise
    hand = parse_hand("QC QC TH TH QS JC JS AD AD TD KD 9D")
    result = advise(hand, seat=0, strategy="simple", deals=200, where="trumps(1) == 0")
    assert result["conditions"] == {"where": "trumps(1) == 0"}
    from dokosim.studies.advise import render
    assert "given where trumps(1) == 0" in render(result)
    assert set(result["options"]) >= {"healthy", "queens_solo"}


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("where, needle", [
    ("trumps(0) >=", "unexpected end"),
    ("trumps(4) >= 9", "seat 0-3"),
    ("trump(0) >= 9", "unknown name 'trump'"),
    ("has(1, 'XX')", "'XX' is not a card"),
    ("trumps(0, 'kings') > 3", "not a trump scheme"),
    ("suit(0, 'X') > 3", "not a suit"),
    ("has(0, 'QC', 3)", "copies are 1 or 2"),
    ("trumps(0) >= 9 )", "unexpected ')'"),
    ("trumps(0) # 9", "unexpected '#"),
    ("", "empty"),
])
def test_a_bad_expression_is_one_line_naming_it(where, needle):
    with pytest.raises(ConditionError) as info:
        parse_conditions(where=where, rules=Rules())
    assert needle in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("argv, needle", [
    (["simulate", "--where", "aces(0) >> 2"], "unexpected"),
    (["simulate", "--hand", "5=QC"], "SEAT 0-3"),
    (["simulate", "--hand", "QC QC"], "SEAT=CARDS"),
    (["simulate", "--hand", "0=QC QC", "--hand", "1=QC"], "QC is asked for 3 times"),
    (["simulate", "--hand", "0=QC QX"], "unknown card 'QX'"),
    (["simulate", "--where-path", "nowhere_at_all:f"], "cannot import"),
    (["tournament", "random", "simple", "--where", "tens(9) > 1"], "seat 0-3"),
    (["session", "--rounds", "2", "--where", "eyes(0) >"], "unexpected end"),
    (["probe-calls", "--deals", "10", "--where", "jacks(0) = 2"], "unexpected '= 2'"),
    (["advise", "--hand", "QC QC TH TH QS JC JS AD AD TD KD 9D", "--where", "kings(1 > 2"], "expected ')'"),
    (["advise", "--hand", "QC QC TH TH QS JC JS AD AD TD KD 9D", "--hand", "0=AC"], "yours"),
    (["simulate", "--deals", "10", "--where", "trumps(0) > 12"], "can never hold"),
])
def test_cli_condition_errors_are_one_line_and_exit_2(argv, needle):
    result = CliRunner().invoke(cli, argv + ["--quiet"] if argv[0] not in ("advise",) else argv)
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.strip().splitlines() if ln.startswith("Error")]
    assert len(lines) == 1 and needle in result.output, result.output
    assert "Traceback" not in result.output


def test_an_impossible_condition_ends_with_the_measured_acceptance_not_a_hang():
    with pytest.raises(ConditionError) as info:
        simulate(100, seed=1, where="trumps(0) + trumps(1) > 26", max_tries=200_000)
    text = str(info.value)
    assert "0 matching deals in 200,000 tries (acceptance 0)" in text and "\n" not in text


def test_an_extremely_rare_condition_names_its_measured_rate(tmp_path):
    # 11+ trumps for seat 0 by rejection (about 1 deal in 9,000): not enough in 20,000 tries
    with pytest.raises(ConditionError, match=r"acceptance [0-9.e-]+\)") as info:
        simulate(1000, seed=2, where="trumps(0) + 0 >= 11", max_tries=20_000, out=tmp_path / "d")
    assert "\n" not in str(info.value)
    assert not (tmp_path / "d").exists()  # nothing written before the condition was measured


@pytest.mark.parametrize("argv", [["tournament", "random", "simple", "--deals", "10"],
                                  ["probe-calls", "--deals", "10"]])
def test_a_condition_that_can_never_hold_leaves_no_output_directory(tmp_path, argv):
    """tournament --out made its directory and manifest (binding it to the mistaken --where)
    before it measured the condition; like simulate, nothing is written now."""
    out = tmp_path / ("d.parquet" if argv[0] == "probe-calls" else "d")
    result = CliRunner().invoke(cli, argv + ["--quiet", "--where", "trumps(0) > 20", "--out", str(out)])
    assert result.exit_code == 2 and "can never hold" in result.output, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_cli_reports_the_acceptance_rate(tmp_path):
    result = CliRunner().invoke(cli, ["simulate", "--deals", "500", "--where", "trumps(0) >= 9",
                                      "--json"])
    assert result.exit_code == 0, result.output
    assert "conditions: 500 deals in" in result.output and "dealt directly" in result.output
    info = json.loads(result.output.strip().splitlines()[-1])
    assert info["deals"] == 500


def test_the_docs_predicate_and_examples_run_as_written(tmp_path, monkeypatch):
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "docs" / "conditions.md").read_text()
    block = re.search(r"```python\n# file: my_conditions.py.*?\n(.*?)```", text, re.DOTALL).group(1)
    (tmp_path / "my_conditions.py").write_text(block)
    monkeypatch.syspath_prepend(str(tmp_path))
    df = simulate(300, seed=1, where_path="my_conditions:long_clubs")
    assert (count(hands_of(df)[:, 1], int(CLASS_MASK[SCHEME_NORMAL, 0])) >= 5).all()
    examples = re.search(r"Examples:\n\n```text\n(.*?)```", text, re.DOTALL).group(1)
    for line in examples.strip().splitlines():
        where = re.split(r"\s{3,}", line.strip())[0]
        assert simulate(20, seed=1, where=where).height == 20, where
