"""Sessions: tournament rounds with compulsory solos (RULES.md 1.3), bock rounds, five players."""
import json
import os
import subprocess
import sys

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from dokosim.engine.cards import CLASS_MASK, SOLO_KINDS, SOLO_SCHEME, TRUMP
from dokosim.run.dataset import scan
from dokosim.run.driver import read_manifest
from dokosim.rules import RulesError
from dokosim.run.session import SessionError, simulate_sessions
from dokosim.run.simulate import simulate
from tests.helpers.thread_util import on_one_and_two_threads

ALL_BOCK = ["tie", "lost_announcement", "zero", "lost_solo"]
# random players that sometimes reserve (voluntary and compulsory solos) and call
LIVELY = {"random": {"p_reserve": 0.08, "p_call": 0.1}}


@pytest.fixture(scope="module")
def four():
    return simulate_sessions(1200, seed=31, strategy="random,simple,random,simple", params=LIVELY,
                             rules={"preset": "ddv", "bock": ALL_BOCK})


@pytest.fixture(scope="module")
def five():
    return simulate_sessions(1000, seed=32, strategy="random,simple,random,simple,random",
                             params=LIVELY, rules={"preset": "club", "bock": ALL_BOCK,
                                                   "five_players": True})


def sessions_of(df):
    return df.sort("session_id", "deal_number").partition_by("session_id", maintain_order=True)


def check_round(rows, players):
    """RULES.md 1.3 on one session's rows."""
    n = rows.height
    assert n == 6 * players
    assert rows["deal_number"].to_list() == list(range(n))
    owes = set(range(players))
    dealer = 0
    for k, r in enumerate(rows.iter_rows(named=True)):
        assert r["dealer"] == dealer, (k, r["dealer"], dealer)
        left = n - k
        solo = r["contract"].endswith("_solo") and r["contract"] != "marriage_solo"
        if r["compulsory_solo"]:
            assert solo and r["declarer"] == r["soloist"] and r["declarer"] in owes
            owes.remove(r["declarer"])
        elif solo:  # a voluntary solo: only after one's compulsory solo
            assert r["declarer"] not in owes
        if players == 4:  # vorfuehren exactly when the owed solos fill the deals left
            assert r["forced_solo"] == (len(owes) + r["compulsory_solo"] == left)
        if r["forced_solo"]:
            assert r["compulsory_solo"]
        if not r["compulsory_solo"] or r["forced_solo"]:
            dealer = (dealer + 1) % players
    assert not owes, "a player did not play a compulsory solo"


def check_scores_and_bock(df, players):
    scores = df.select([f"score_{p}" for p in range(players)]).to_numpy().astype(np.int64)
    totals = df.select([f"total_{p}" for p in range(players)]).to_numpy().astype(np.int64)
    assert (scores.sum(axis=1) == 0).all()
    assert (totals.sum(axis=1) == 0).all()
    for rows in sessions_of(df):
        s = rows.select([f"score_{p}" for p in range(players)]).to_numpy().astype(np.int64)
        t = rows.select([f"total_{p}" for p in range(players)]).to_numpy().astype(np.int64)
        assert (np.cumsum(s, axis=0) == t).all()
        queue = 0
        for r in rows.iter_rows(named=True):
            assert r["bock"] == (2 if queue > 0 else 1)
            base = [r[f"score_{p}"] // r["bock"] for p in range(players)]
            assert all(r[f"score_{p}"] == r["bock"] * base[p] for p in range(players))
            trig = 0
            if r["eyes_re"] == 120:
                trig |= 1
            if (r["calls_re"] >= 1 and r["winner"] != "re") or (r["calls_kontra"] >= 1 and r["winner"] != "kontra"):
                trig |= 2
            if all(b == 0 for b in base):
                trig |= 4
            if r["soloist"] >= 0 and r["winner"] == "kontra":
                trig |= 8
            assert r["bock_triggers"] == trig
            queue = max(queue - 1, 0) + players * bin(trig).count("1")
            assert r["bock_queue"] == queue


def test_every_player_plays_exactly_one_compulsory_solo_in_each_round(four):
    assert four["session_id"].n_unique() == 1200
    for rows in sessions_of(four):
        check_round(rows, 4)
    # both ways of playing it occur: reserved (the same dealer deals again) and forced
    assert four["forced_solo"].sum() > 100
    assert (four["compulsory_solo"] & ~four["forced_solo"]).sum() > 100


def test_scores_sum_to_zero_totals_run_and_bock_doubles_as_queued(four):
    check_scores_and_bock(four, 4)
    assert (four["bock"] == 2).sum() > 1000
    assert set(four["bock"].unique().to_list()) == {1, 2}  # never beyond x2


def test_five_players_the_dealer_sits_out(five):
    assert five["session_id"].n_unique() == 1000
    for rows in sessions_of(five):
        check_round(rows, 5)
    check_scores_and_bock(five, 5)
    for r in five.head(3000).iter_rows(named=True):
        d = r["dealer"]
        assert r[f"score_{d}"] == 0 and r[f"hand_{d}"] == 0
        assert not (r["re_mask"] >> d) & 1
        assert d not in (r["declarer"], r["soloist"], r["poverty_partner"], r["piglets"])
        assert bin(r["re_mask"]).count("1") >= 1
        hands = [r[f"hand_{p}"] for p in range(5) if p != d]
        assert all(bin(h).count("1") == 12 for h in hands)
        assert np.bitwise_or.reduce(np.array(hands, dtype=np.int64)) == (1 << 48) - 1


def test_a_forced_solo_without_a_named_kind_takes_the_kind_with_most_trumps():
    # random players never reserve by default: every compulsory solo is forced, at the end
    df = simulate_sessions(300, seed=4, strategy="random", rules={"preset": "ddv", "solos": ["hearts", "queens", "jacks"]})
    solos = df.filter(pl.col("compulsory_solo"))
    assert solos.height == 4 * 300 and solos["forced_solo"].all()
    assert (solos["deal_number"] >= 20).all()
    kinds = ["hearts", "queens", "jacks"]
    for r in solos.iter_rows(named=True):
        hand = r[f"hand_{r['declarer']}"]
        counts = [bin(hand & int(CLASS_MASK[SOLO_SCHEME[SOLO_KINDS.index(k)], TRUMP])).count("1") for k in kinds]
        assert r["contract"] == f"{kinds[int(np.argmax(counts))]}_solo"


def test_without_compulsory_solos_the_deal_always_passes_on():
    df = simulate_sessions(200, seed=5, strategy="simple", compulsory=False, deals=10)
    assert df.height == 2000
    assert not df["compulsory_solo"].any() and not df["forced_solo"].any()
    assert (df["dealer"] == df["deal_number"] % 4).all()
    assert (df.filter(pl.col("contract").cast(pl.String).str.ends_with("_solo")).height > 0)


def test_rows_depend_only_on_seed_and_session_id():
    kwargs = dict(seed=8, strategy="random,simple,random,simple", params=LIVELY,
                  rules={"preset": "ddv", "bock": ["lost_announcement"]})
    one, two = on_one_and_two_threads(lambda: simulate_sessions(120, chunk_size=120, **kwargs),
                                      lambda: simulate_sessions(120, chunk_size=37, **kwargs))
    assert_frame_equal(one, two)
    shorter = simulate_sessions(50, **kwargs)
    assert_frame_equal(shorter, one.filter(pl.col("session_id") < 50))


def test_dataset_manifest_and_resume(tmp_path):
    kwargs = dict(seed=9, strategy="simple", rules={"preset": "ddv", "five_players": True})
    frame = simulate_sessions(90, **kwargs)
    d = simulate_sessions(90, out=tmp_path / "s", chunk_size=20, **kwargs)
    parts = sorted(d.glob("part-*.parquet"))
    assert len(parts) == 5
    parts[2].unlink()
    simulate_sessions(90, out=tmp_path / "s", chunk_size=20, **kwargs)  # writes the missing chunk
    back = scan(d).sort("session_id", "deal_number").collect()
    assert_frame_equal(back, frame)
    m = read_manifest(d)
    assert m["kind"] == "sessions" and m["players"] == 5 and m["deals_per_session"] == 30
    assert m["rules"] == {"preset": "ddv", "five_players": True}
    with pytest.raises(ValueError, match="seed"):
        simulate_sessions(90, out=tmp_path / "s", chunk_size=20, **{**kwargs, "seed": 10})
    with pytest.raises(ValueError):  # a simulate dataset is not a session dataset
        simulate(100, out=tmp_path / "s")


def test_bock_and_five_players_need_a_session():
    for rules in ({"preset": "ddv", "bock": ["tie"]}, {"preset": "ddv", "five_players": True}):
        with pytest.raises(RulesError) as info:
            simulate(10, rules=rules)
        message = str(info.value)
        assert list(rules)[1] in message and "session" in message and "\n" not in message


@pytest.mark.parametrize("kwargs, needle", [
    (dict(strategy="random,simple"), "give one strategy or 4"),
    (dict(strategy="random,simple", rules={"preset": "ddv", "five_players": True}), "or 5"),
    (dict(deals=3), "at least the number of players"),
    (dict(deals=65), "from 1 to 64"),
    (dict(rules={"preset": "ddv", "solos": []}), "at least one solo kind"),
    (dict(rules={"preset": "ddv", "bock": ["rain"]}), "'rain'"),
])
def test_bad_session_arguments_are_refused(kwargs, needle):
    with pytest.raises((SessionError, RulesError), match=None) as info:
        simulate_sessions(2, **kwargs)
    assert needle in str(info.value)


@pytest.mark.subprocess
def test_cli_session_summary_and_bad_usage(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-m", "dokosim.cli", "session", "--rounds", "30",
                           "--strategy", "simple", "--rule", "bock=['tie','lost_solo']", "--json", "--quiet"],
                          capture_output=True, text=True, cwd=root)
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["sessions"] == 30 and info["deals"] == 720 and info["compulsory_solos"] == 120
    bad = subprocess.run([sys.executable, "-m", "dokosim.cli", "session", "--rounds", "3",
                          "--rule", "bock=['rain']"], capture_output=True, text=True, cwd=root)
    assert bad.returncode == 2 and "'rain'" in bad.stderr and "Traceback" not in bad.stderr
    plain = subprocess.run([sys.executable, "-m", "dokosim.cli", "simulate", "--deals", "3",
                            "--rule", "bock=['tie']"], capture_output=True, text=True, cwd=root)
    assert plain.returncode == 2 and "needs a session" in plain.stderr
