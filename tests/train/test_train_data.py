"""``dokosim train data`` (issue 31, item 1): the teacher's card decisions, every legal card
valued, on the teacher's own deals; and the ``net`` features against a plain reference."""
import numpy as np
import polars as pl
import pytest

import dokosim
from dokosim import Agent
from dokosim.engine import game_state as gs
from dokosim.engine.cards import CONTRACT_NAMES, EYES, TRUMP
from dokosim.engine.layout import (
    P_CONTRACT,
    P_HAND_SIZE,
    P_NPLAYED,
    P_SOLOIST,
    P_TRICK,
    ST_LEN,
)
from dokosim.rules import load_rules
from dokosim.strategies import net_features as nf
from dokosim.train.data import TrainDataError, make_data, play_chunk
from tests.helpers.games import card_decisions


@pytest.fixture(scope="module")
def chunk():
    return play_chunk(0, 3, 5, "pimc", {"samples": 6}, load_rules("ddv"))


def test_rows_are_the_teachers_deals_with_every_legal_card_valued(chunk):
    """The outcome of each row is the seat's score in the deal pimc plays at every seat of
    simulate (the same random stream); values are finite exactly on the legal kinds and the
    kind played is the best of them, as pimc.search chooses (ties between float32 values may
    hide a float64 difference)."""
    sim = dokosim.simulate(3, seed=5, strategy="pimc", params={"pimc": {"samples": 6}})
    assert set(chunk["deal_id"].to_list()) == {0, 1, 2}
    for row in chunk.iter_rows(named=True):
        assert row["outcome"] == sim[f"score_{row['seat']}"][row["deal_id"]]
        legal = [k for k in range(24) if row["legal"] >> k & 1]
        assert len(legal) >= 2  # only decisions with a choice are recorded
        values = np.array(row["values"], dtype=np.float64)
        assert np.isfinite(values[legal]).all()
        assert np.isnan(np.delete(values, legal)).all()
        # the best in float64 (pimc.search), so at least as good as any other in float32
        assert row["choice"] in legal and values[row["choice"]] == max(values[k] for k in legal)
        features = np.array(row["features"])
        assert [k for k in range(24) if features[nf.F_LEGAL + k]] == legal


def _reference_features(g, seat):
    """A plain-Python reading of the blocks of net_features that need no trick logic: hand,
    legal, trumps, played, trick, trick eyes, leader, contract, levels, tricks left, eyes won,
    soloist (the others, WINS, TRICK_WINNER, SIDES, OWN_SIDE and VOIDS, come from the strategies'
    own helpers)."""
    st = g[gs.O_ST:gs.O_ST + ST_LEN]
    out = {}
    hand = int(g[gs.O_HANDS + seat])
    out["hand"] = [((hand >> (2 * k)) & 1) / 2 + ((hand >> (2 * k + 1)) & 1) / 2 for k in range(24)]
    trumps = int(g[gs.O_CMASK + TRUMP])
    out["trumps"] = [1.0 if (trumps >> (2 * k)) & 3 else 0.0 for k in range(24)]
    n = int(st[P_NPLAYED])
    plays = [int(c) for c in g[gs.O_PLAYS:gs.O_PLAYS + n]]
    who = [int(s) for s in g[gs.O_PSEAT:gs.O_PSEAT + n]]
    played = np.zeros((4, 24))
    for c, s in zip(plays, who):
        played[(s - seat) % 4, c // 2] += 0.5
    out["played"] = played.ravel().tolist()
    start = n - n % 4
    trick = np.zeros((3, 24))
    for i in range(start, n):
        trick[i - start, plays[i] // 2] = 1
    out["trick"] = trick.ravel().tolist()
    out["trick_eyes"] = [sum(int(EYES[c]) for c in plays[start:]) / 44]
    leader = np.zeros(4)
    leader[((who[start] if n > start else seat) - seat) % 4] = 1
    out["leader"] = leader.tolist()
    contract = np.zeros(12)
    contract[int(st[P_CONTRACT])] = 1
    out["contract"] = contract.tolist()
    out["tricks_left"] = [(int(st[P_HAND_SIZE]) - int(st[P_TRICK])) / int(st[P_HAND_SIZE])]
    eyes = np.zeros(4)
    for t in range(n // 4):
        eyes[(int(g[gs.O_TW + t]) - seat) % 4] += sum(int(EYES[c]) for c in plays[4 * t:4 * t + 4]) / 240
    out["eyes"] = eyes.tolist()
    soloist = np.zeros(4)
    if st[P_SOLOIST] >= 0:
        soloist[(int(st[P_SOLOIST]) - seat) % 4] = 1
    out["soloist"] = soloist.tolist()
    return out


BLOCKS = {"hand": (nf.F_HAND, 24), "trumps": (nf.F_TRUMPS, 24), "played": (nf.F_PLAYED, 96),
          "trick": (nf.F_TRICK, 72), "trick_eyes": (nf.F_TRICK_EYES, 1), "leader": (nf.F_LEADER, 4),
          "contract": (nf.F_CONTRACT, 12), "tricks_left": (nf.F_TRICKS_LEFT, 1), "eyes": (nf.F_EYES, 4),
          "soloist": (nf.F_SOLOIST, 4)}


def test_features_equal_a_plain_reading_of_the_position():
    """Every card decision of 40 deals played by heuristic (solos included by forcing some): the
    kernel's blocks against the plain reading; the legal block against the Game's legal kinds."""
    from dokosim.loop.teacher_step import position_features
    assert len(CONTRACT_NAMES) == nf.N_CONTRACTS
    agent = Agent("heuristic")
    checked = 0
    for g, seat in card_decisions(agent, seed=11, deals=40):
        x = np.zeros(nf.N_FEATURES, dtype=np.float32)
        position_features(g, x)
        reference = _reference_features(g, seat)
        for name, (at, length) in BLOCKS.items():
            np.testing.assert_allclose(x[at:at + length], reference[name], atol=1e-6, err_msg=name)
        legal = int(g[gs.G_LEGAL])
        assert [k for k in range(24) if x[nf.F_LEGAL + k]] == [k for k in range(24) if legal >> k & 1]
        assert x[nf.F_OWN_SIDE:nf.F_OWN_SIDE + 2].sum() == 1
        assert (x[nf.F_SIDES:nf.F_SIDES + 9].reshape(3, 3).sum(axis=1) == 1).all()
        checked += 1
    assert checked > 40 * 40


def test_a_run_resumes_and_refuses_another_plan(tmp_path, chunk):
    out = tmp_path / "data"
    make_data(3, out, seed=5, params={"samples": 6}, chunk_size=2, quiet=True)
    first = pl.read_parquet(sorted(out.glob("part-*.parquet")))
    assert first.equals(chunk)
    stamp = {p.name: p.stat().st_mtime_ns for p in out.glob("part-*.parquet")}
    make_data(3, out, seed=5, params={"samples": 6}, chunk_size=2, quiet=True)  # nothing to play again
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("part-*.parquet")} == stamp
    with pytest.raises(ValueError, match="seed"):
        make_data(3, out, seed=6, params={"samples": 6}, chunk_size=2, quiet=True)
    with pytest.raises(TrainDataError, match="teacher"):
        make_data(3, tmp_path / "other", teacher="heuristic")


def test_the_command_plays_another_players_deals_with_the_teachers_values(tmp_path):
    """``dokosim train data --player net``: the deals are net's (its cards are played, so every
    row's outcome is the score of net's deal), the values and the choice are still the teacher's;
    the command takes its rules option as the other commands do."""
    from click.testing import CliRunner

    from dokosim.cli import main as cli
    out = tmp_path / "r2"
    result = CliRunner().invoke(cli, ["train", "data", "--deals", "2", "--seed", "5", "--out", str(out),
                                      "--player", "net", "--param", "samples=6", "--rules", "ddv", "--quiet"])
    assert result.exit_code == 0, result.output
    rows = pl.read_parquet(sorted(out.glob("part-*.parquet")))
    sim = dokosim.simulate(2, seed=5, strategy="net")
    for row in rows.iter_rows(named=True):
        assert row["outcome"] == sim[f"score_{row['seat']}"][row["deal_id"]]
        legal = [k for k in range(24) if row["legal"] >> k & 1]
        values = np.array(row["values"], dtype=np.float64)
        assert row["choice"] in legal and values[row["choice"]] == max(values[k] for k in legal)
    bad = CliRunner().invoke(cli, ["train", "data", "--deals", "2", "--out", str(tmp_path / "x"),
                                   "--player", "nonsense"])
    assert bad.exit_code == 2 and "nonsense" in bad.output


@pytest.mark.parametrize("deal_plan", [
    {"contract": "queens_solo", "declarer": 0, "where": "queens(0) >= 5"},
    {"contract": "hearts_solo", "declarer": 1, "compulsory": True, "where": "trumps(1) >= 9"},
    {"contract": "marriage"},
], ids=["queens_solo_where", "compulsory_hearts_solo", "marriage"])
def test_a_deal_plan_gives_the_deals_simulate_plays_with_the_same_options(deal_plan):
    """``train data --contract/--declarer/--compulsory/--where`` (issue 44, item 1): the hands
    are simulate's conditioned deal and the contract is forced as simulate forces it, so with
    ``net`` playing, every row's outcome is the score simulate gives the same deal and seat."""
    rows = play_chunk(0, 2, 5, "pimc", {"samples": 4}, load_rules("ddv"), "net", deal_plan)
    sim = dokosim.simulate(2, seed=5, strategy="net", **deal_plan)
    assert rows.height > 40 and sorted(rows["deal_id"].unique()) == [0, 1]
    for row in rows.iter_rows(named=True):
        assert row["outcome"] == sim[f"score_{row['seat']}"][row["deal_id"]]
        contract = CONTRACT_NAMES[int(np.argmax(row["features"][nf.F_CONTRACT:nf.F_CONTRACT + len(CONTRACT_NAMES)]))]
        assert contract == sim["contract"][row["deal_id"]]
    if deal_plan["contract"].endswith("_solo"):
        assert set(sim["contract"]) == {deal_plan["contract"]}


def test_the_command_refuses_a_bad_deal_plan_in_one_line(tmp_path):
    """A contract that cannot be forced and a condition that does not parse: exit code 2, the
    error in one line naming the value, no traceback, and no directory written."""
    from click.testing import CliRunner

    from dokosim.cli import main as cli
    for extra, named in ((["--contract", "poverty"], "poverty"), (["--where", "queen(0) >= 5"], "queen"),
                         (["--contract", "sevens_solo"], "sevens_solo")):
        out = tmp_path / "x"
        result = CliRunner().invoke(cli, ["train", "data", "--deals", "2", "--out", str(out), *extra])
        assert result.exit_code == 2 and named in result.output, result.output
        errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
        assert len(errors) == 1 and named in errors[0] and "Traceback" not in result.output
        assert not out.exists()


def test_a_condition_that_can_never_hold_is_refused_before_the_directory(tmp_path):
    """--where that no deal meets parsed, so the run made its directory and manifest before the
    first chunk found the condition could not be dealt; the manifest then bound the directory to
    the mistaken --where (the corrected command was refused). Now refused first, as in simulate."""
    from click.testing import CliRunner

    from dokosim.cli import main as cli
    for where in ("trumps(0) > 20", "trumps(0) > 5 and trumps(0) < 3"):
        out = tmp_path / "x"
        result = CliRunner().invoke(cli, ["train", "data", "--deals", "2", "--out", str(out), "--quiet",
                                          "--where", where])
        assert result.exit_code == 2, result.output
        errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
        assert len(errors) == 1 and "can never hold" in errors[0] and "Traceback" not in result.output
        assert not out.exists() and not (tmp_path / "x.dokosim").exists()
