"""dokosim.Game: the simulator's deals step by step, records replayed action by action, the API."""
import itertools
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from dokosim.game.agents import Agent
from dokosim.game.game import (
    ACTION_NAMES, N_ACTIONS, OBSERVATION_LEN, Game, GameError, action_id, action_name,
)
from dokosim.records.record import score_objects
from dokosim.run.simulate import simulate

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _play(game, agents):
    while not game.is_terminal():
        seat = game.current_player
        game.apply_action(agents[seat].act(game))
    return game


@pytest.mark.parametrize(("rules", "strategy", "params"), [
    ("ddv", "random", {"p_reserve": 0.3, "p_call": 0.2}),
    ({"preset": "club", "throw_in": True}, "simple", {}),
])
def test_play_through_game_is_the_simulators_deal(rules, strategy, params):
    """A Python loop (legal actions, an Agent chooses, apply_action) gives the records and scores
    of `simulate` with the same seed: for random with random reservations and calls (solos,
    marriages, calls), and for simple under the club rules (poverty's exchange, the redeal of a
    throw-in, piglets)."""
    n = 600
    df = simulate(n, seed=11, rules=rules, strategy=strategy, keep_play=True, params={"*": params})
    agent = Agent(strategy, **params)
    records = df["record"].to_list()
    scores = df.select(f"score_{s}" for s in range(4)).rows()
    contracts = Counter()
    for i in range(n):
        game = Game(rules, seed=11, deal_id=i)
        while not game.is_terminal():
            action = agent.act(game)
            assert action in game.legal_actions()
            game.apply_action(action)
        assert game.to_record() == json.loads(records[i]), i
        assert tuple(game.returns()) == scores[i], i
        contracts[game.to_record()["contract"]["type"]] += 1
    if strategy == "random":
        assert contracts["solo"] > 0 and contracts["marriage"] > 0
    else:
        assert contracts["poverty"] > 0 and df["redeals"].sum() > 0


def test_the_same_choices_give_the_same_scores_from_a_python_rng():
    """A Python agent drawing from its own stream plays other deals than the simulator (the deal
    loop's agents draw from the deal's stream): its records still score as dokosim score does."""
    rng = np.random.default_rng(5)
    records, returns = [], []
    for i in range(200):
        game = Game(seed=2, deal_id=i)
        while not game.is_terminal():
            game.apply_action(int(rng.choice(game.legal_actions())))
        records.append(game.to_record())
        returns.append(game.returns())
    assert [out["score"] for out in score_objects(records)] == returns


def test_every_oracle_record_replays_action_by_action(oracle_lines):
    """Every record of tests/data/oracle through Game.from_record (reservations, calls and cards
    as actions): dokosim score's result, or its error kind and seat for the broken ones."""
    records = [line["record"] for _, line in oracle_lines]
    outputs = score_objects(records)
    broken = 0
    for record, out in zip(records, outputs):
        if out["ok"]:
            game = Game.from_record(record)
            assert game.is_terminal()
            result = game.result()
            for key in ("score", "winner", "eyes", "tricks", "contract", "re_seats", "game_value"):
                assert result[key] == out[key], (key, record)
            assert game.to_record()["play"] == [c.upper() for c in record["play"]]
        else:
            broken += 1
            with pytest.raises(GameError) as info:
                Game.from_record(record)
            assert info.value.kind == out["kind"], (info.value, out)
            if "seat" in out:
                assert info.value.seat == out["seat"], (info.value, out)
    assert broken == 40


def test_an_unfinished_record_continues_where_it_stopped():
    df = simulate(20, seed=4, strategy="heuristic", keep_play=True)
    for rec in df["record"].to_list():
        record = json.loads(rec)
        half = Game.from_record(record, upto=21)
        assert half.to_record()["play"] == record["play"][:21]
        short = {**record, "play": record["play"][:21],
                 "announcements": [a for a in record["announcements"] if a["cards_played"] <= 21]}
        again = Game.from_record(short)
        assert again.observation(0) == Game.from_record(short).observation(0)
        for card in record["play"][21:]:
            while again.phase == "call":
                again.apply_action(action_id("pass"))
            again.apply_action(action_id(card))
        assert again.is_terminal()
        # the calls after card 21 were not replayed: without them the deal scores as the record without them
        expect = score_objects([{**record, "announcements": short["announcements"]}])[0]["score"]
        assert again.returns() == expect


def test_a_bad_action_names_itself_and_the_legal_ones():
    game = Game(seed=1)
    with pytest.raises(GameError, match=r"action QC is not legal for seat 0 in the reservation phase; "
                                         r"legal: healthy, diamonds_solo"):
        game.apply_action(action_id("QC"))
    with pytest.raises(GameError, match="action 99 is not legal"):
        game.apply_action(99)
    with pytest.raises(GameError, match="not legal"):
        game.apply_action("healthy")
    for _ in range(4):
        game.apply_action(action_id("healthy"))
    assert game.phase in ("call", "card")
    while game.phase == "call":
        game.apply_action(action_id("pass"))
    hand = set(game.hand(game.current_player))
    missing = next(ACTION_NAMES[t] for t in range(24) if ACTION_NAMES[t] not in hand)
    with pytest.raises(GameError, match=rf"action {missing} .*\(not_in_hand\); legal: ") as info:
        game.apply_action(action_id(missing))
    assert info.value.kind == "not_in_hand"


def test_action_names_round_trip():
    assert [action_id(action_name(a)) for a in range(N_ACTIONS)] == list(range(N_ACTIONS))
    assert action_name(action_id("10h")) == "TH"
    assert action_name(action_id("Queens_Solo")) == "queens_solo"
    with pytest.raises(GameError, match="unknown action 'hello'"):
        action_id("hello")
    with pytest.raises(GameError, match="integers 0 to 42"):
        action_name(43)


def test_clone_is_independent_and_replays_the_same():
    game = Game(seed=9, deal_id=3)
    agents = [Agent("heuristic")] * 4
    for _ in range(30):
        game.apply_action(agents[0].act(game))
    copy = game.clone()
    a = _play(game, agents).to_record()
    assert copy.to_record()["play"] == a["play"][:len(copy.to_record()["play"])]
    assert _play(copy, agents).to_record() == a  # the stream is cloned too


def test_observation_and_tensor():
    game = Game(seed=3, deal_id=1, hands=None)
    agents = [Agent("simple")] * 4
    for _ in range(4 + 10):
        game.apply_action(agents[0].act(game))
    seat = game.current_player
    obs = game.observation(seat)
    assert obs["hand"] == game.hand(seat) and obs["legal_actions"] == game.legal_actions()
    assert sum(len(t["cards"]) for t in obs["tricks"]) + len(obs["trick"]) == obs["cards_played"]
    other = (seat + 1) % 4
    assert game.observation(other)["legal_actions"] == []
    x = game.observation_tensor(seat)
    assert x.shape == (OBSERVATION_LEN,) and x.dtype == np.float32
    assert x[:24].sum() == len(obs["hand"])
    assert x[24:120].sum() == obs["cards_played"]
    from dokosim.engine import game_state as gs
    legal = np.flatnonzero(x[gs.OBS_LEGAL:gs.OBS_LEGAL + N_ACTIONS]).tolist()
    assert legal == game.legal_actions()
    assert game.observation_tensor(other)[gs.OBS_LEGAL:gs.OBS_LEGAL + N_ACTIONS].sum() == 0


def test_fixed_hands_and_dealer():
    record = json.loads(simulate(1, seed=8, strategy="simple", keep_play=True)["record"][0])
    game = Game(hands=record["hands"], dealer=2)
    assert game.current_player == 0 and game.phase == "reservation"
    for _ in range(4):
        game.apply_action(action_id("healthy"))
    while game.phase == "call":
        game.apply_action(action_id("pass"))
    assert game.current_player == 3  # the dealer's left leads
    with pytest.raises(GameError, match="hand 1: a third ") as info:
        Game(hands=[record["hands"][0], record["hands"][0]] + record["hands"][2:])
    assert info.value.kind == "not_the_pack"
    with pytest.raises(GameError, match="hand 1 must hold 12 cards"):
        Game(hands=[record["hands"][0], "QC"] + record["hands"][2:])


def test_resample_keeps_what_the_seat_has_seen():
    game = Game(seed=21, deal_id=0)
    agents = [Agent("heuristic")] * 4
    for _ in range(4 + 22):
        if game.is_terminal():
            break
        game.apply_action(agents[0].act(game))
    seat = game.current_player
    before = game.observation(seat)
    counts = [len(game.hand(s)) for s in range(4)]
    rng = np.random.default_rng(1)
    seen_others = set()
    for _ in range(20):
        new = game.resample(seat, rng)
        assert new.observation(seat) == before
        assert [len(new.hand(s)) for s in range(4)] == counts
        pack = Counter(c for s in range(4) for c in new.hand(s))
        played = Counter(c for t in before["tricks"] for _, c in t["cards"]) + Counter(c for _, c in before["trick"])
        assert pack + played == Counter({ACTION_NAMES[t]: 2 for t in range(24)})
        seen_others.add(tuple(tuple(new.hand(s)) for s in range(4) if s != seat))
        _play(new, agents)  # the sample is a deal that plays on
        assert new.is_terminal() and sum(new.returns()) == 0
    assert len(seen_others) > 1


def test_the_docs_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = (DOCS / "game.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert len(blocks) >= 3
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/game.md", "exec"), namespace)  # noqa: S102 (the docs' own code)


def test_the_documented_tensor_layout_is_the_kernels():
    from dokosim.engine import game_state as gs
    text = (DOCS / "game.md").read_text()
    rows = re.findall(r"^\| (\d+) \| (\d+) \| ", text, re.MULTILINE)
    offsets = [(int(a), int(b)) for a, b in rows]
    names = ["OBS_HAND", "OBS_PLAYED", "OBS_TRICK", "OBS_SEAT", "OBS_PLAYER", "OBS_DEALER", "OBS_LEADER",
             "OBS_KNOWN_RE", "OBS_KNOWN_KO", "OBS_LEVELS", "OBS_CONTRACT", "OBS_PHASE", "OBS_OWN_PARTY",
             "OBS_LEGAL", "OBS_EYES", "OBS_TRICKS_LEFT"]
    assert [o for o, _ in offsets] == [getattr(gs, n) for n in names]
    assert all(o + n == nxt for (o, n), (nxt, _) in itertools.pairwise(offsets))
    assert offsets[-1][0] + offsets[-1][1] == OBSERVATION_LEN
    assert f"OBSERVATION_LEN = {OBSERVATION_LEN}`" in text


GAME_COMPILATIONS = r"""
import json, sys
from numba.core.registry import CPUDispatcher
from dokosim import Agent, Game
agents = [Agent(n) for n in ("random", "simple", "heuristic", "pimc")]
for deal_id in range(4):
    game = Game("club", seed=1, deal_id=deal_id)
    while not game.is_terminal():
        game.apply_action(agents[game.current_player].act(game))
    game.observation_tensor(0)
    Game.from_record(game.to_record())
Game(seed=2).resample(1, 0)
misses = {}
for name, module in list(sys.modules.items()):
    for attr, value in vars(module).items() if name.startswith("dokosim") else ():
        if isinstance(value, CPUDispatcher) and value.stats.cache_misses:
            misses[f"{name}.{attr}"] = value.stats.cache_misses
print(json.dumps(misses))
"""


@pytest.mark.subprocess
def test_game_and_agents_load_their_kernels_from_the_cache():
    """After the suite's warm-up (dokosim.kernels.compile_all), a fresh interpreter playing
    through Game with every built-in Agent compiles nothing and announces nothing."""
    import os
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", GAME_COMPILATIONS], check=False, capture_output=True, text=True,
                          env={**os.environ, "DOKOSIM_QUIET_COMPILE": ""})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {}
    assert "dokosim: compiling" not in proc.stderr, proc.stderr
