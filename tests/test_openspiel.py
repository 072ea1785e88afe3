"""Doppelkopf in OpenSpiel (``dokosim.game.openspiel``): OpenSpiel's own random simulation test, and the
states are the Game's deals."""
import numpy as np
import pyspiel  # the openspiel extra, part of the test extra: CI runs this

import dokosim.game.openspiel  # noqa: F401  (registers python_doppelkopf)
from dokosim.game.game import OBSERVATION_LEN, Game


def test_openspiel_random_sim_test_passes():
    game = pyspiel.load_game("python_doppelkopf", {"seed": 3, "deals": 64})
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)


def test_a_played_state_is_the_games_deal_with_its_returns_and_observations():
    game = pyspiel.load_game("python_doppelkopf", {"seed": 8, "deals": 16})
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 16
    state.apply_action(5)
    ref = Game(seed=8, deal_id=5)
    rng = np.random.default_rng(1)
    while not state.is_terminal():
        player = state.current_player()
        assert player == ref.current_player
        assert state.legal_actions() == ref.legal_actions()
        obs = np.array(state.observation_tensor(player), dtype=np.float32)
        assert obs.shape == (OBSERVATION_LEN,)
        np.testing.assert_array_equal(obs, ref.observation_tensor(player))
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        ref.apply_action(action)
    assert state.returns() == [float(v) for v in ref.returns()]
    assert sum(state.returns()) == 0
