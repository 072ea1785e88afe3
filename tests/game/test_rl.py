"""The PettingZoo AEC environment (``dokosim.game.rl``): PettingZoo's own API test, and episodes that are
the Game's deals."""
import numpy as np
import pytest
from pettingzoo.test import api_test  # the rl extra, part of the test extra: CI runs this

from dokosim.game import rl
from dokosim.game.game import N_ACTIONS, OBSERVATION_LEN, Game


def test_pettingzoo_api_test_passes():
    api_test(rl.env(seed=3), num_cycles=2000, verbose_progress=False)


def test_api_test_passes_without_calls_and_under_club_rules():
    api_test(rl.env(rules="club", calls=False, seed=4), num_cycles=500, verbose_progress=False)


def random_episode(env, rng):
    """Play one episode with uniformly random legal actions; the rewards and the actions."""
    rewards = dict.fromkeys(env.possible_agents, 0)
    actions = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        rewards[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        actions.append(action)
        env.step(action)
    return rewards, actions


def test_episodes_are_the_games_deals_and_pay_the_scores():
    env = rl.env(seed=9)
    rng = np.random.default_rng(0)
    env.reset(seed=9)
    for deal_id in range(3):
        if deal_id:
            env.reset()
        rewards, actions = random_episode(env, rng)
        game = Game(seed=9, deal_id=deal_id)
        for a in actions:
            game.apply_action(a)
        assert game.is_terminal()
        assert [rewards[f"player_{s}"] for s in range(4)] == game.returns()
        assert sum(rewards.values()) == 0


def test_observations_are_the_game_tensor_and_the_mask_of_the_agent_to_act():
    env = rl.env(seed=2)
    env.reset(seed=2)
    game = Game(seed=2)
    for _ in range(10):
        agent = env.agent_selection
        seat = int(agent[-1])
        assert seat == game.current_player
        for other in env.possible_agents:
            obs = env.observe(other)
            s = int(other[-1])
            assert obs["observation"].shape == (OBSERVATION_LEN,)
            np.testing.assert_array_equal(obs["observation"], game.observation_tensor(s))
            expected = np.zeros(N_ACTIONS, dtype=np.int8)
            if s == seat:
                expected[game.legal_actions()] = 1
            np.testing.assert_array_equal(obs["action_mask"], expected)
        action = game.legal_actions()[0]
        env.step(action)
        game.apply_action(action)


def test_an_illegal_action_raises_naming_it():
    from dokosim.game.game import GameError, action_id
    env = rl.env(seed=1)
    env.reset(seed=1)
    with pytest.raises(GameError, match="action QC is not legal"):
        env.step(action_id("QC"))  # the reservation phase


def test_the_api_tests_pass_with_built_in_opponents_and_as_a_parallel_env():
    from pettingzoo.test import parallel_api_test
    api_test(rl.env(seed=5, opponents="heuristic"), num_cycles=300, verbose_progress=False)
    api_test(rl.env(seed=6, opponents={1: "simple", 3: "net"}), num_cycles=300, verbose_progress=False)
    parallel_api_test(rl.parallel_env(seed=7), num_cycles=300)
    parallel_api_test(rl.parallel_env(seed=8, opponents="heuristic"), num_cycles=300)


def test_opponents_play_the_simulators_deal_and_only_the_learner_is_asked():
    """With heuristic opponents at seats 1-3 and heuristic's own choices fed for player_0, every
    episode is the simulator's deal of heuristic at every seat (the same scores), and the
    environment asks player_0 only."""
    import dokosim
    from dokosim import Agent
    sim = dokosim.simulate(6, seed=9, strategy="heuristic")
    me = Agent("heuristic")
    aec = rl.env(seed=9, opponents="heuristic")
    par = rl.parallel_env(seed=9, opponents="heuristic")
    for deal_id in range(6):
        aec.reset(seed=9 if deal_id == 0 else None)
        assert aec.possible_agents == ["player_0"]
        for agent in aec.agent_iter():
            _, reward, done, _, _ = aec.last()
            assert agent == "player_0"
            aec.step(None if done else me.act(aec.unwrapped.game))
        assert reward == sim["score_0"][deal_id]
        obs, _ = par.reset(seed=9 if deal_id == 0 else None)
        while par.agents:
            assert obs["player_0"]["action_mask"].any()  # the only agent is always the one to act
            obs, rewards, *_ = par.step({"player_0": me.act(par.game)})
        assert rewards == {"player_0": sim["score_0"][deal_id]}


def test_bad_opponents_are_one_line():
    for bad, needle in [({4: "heuristic"}, "seat 4"), ("nonsense", "nonsense"),
                        ({0: "simple", 1: "simple", 2: "simple", 3: "simple"}, "all four")]:
        with pytest.raises(ValueError, match=needle):
            rl.env(opponents=bad)
