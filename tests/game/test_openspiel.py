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


def test_information_state_tensors_recall_the_order_of_play_and_the_calls():
    """The information state tensor OpenSpiel gives is Game.information_state_tensor: the
    observation, then the cards in the order played (decoded back to the game's play sequence),
    then each call's moment."""
    from dokosim.game.game import INFO_STATE_LEN
    game = pyspiel.load_game("python_doppelkopf", {"seed": 2, "deals": 8})
    assert game.information_state_tensor_size() == INFO_STATE_LEN
    rng = np.random.default_rng(1)
    for deal in range(3):
        state = game.new_initial_state()
        state.apply_action(deal)
        while not state.is_terminal():
            player = state.current_player()
            tensor = np.array(state.information_state_tensor(player), dtype=np.float32)
            assert np.array_equal(tensor, state.game.information_state_tensor(player))
            assert np.array_equal(tensor[:OBSERVATION_LEN], state.game.observation_tensor(player))
            plays = tensor[OBSERVATION_LEN:OBSERVATION_LEN + 48 * 24].reshape(48, 24)
            order = [int(k) for k in plays.argmax(axis=1)[plays.sum(axis=1) > 0]]
            obs = state.game.observation(player, ids=True)
            assert order == [c for t in obs["tricks"] for _, c in t["cards"]] + [c for _, c in obs["trick"]]
            moments = tensor[OBSERVATION_LEN + 48 * 24:].reshape(4, 5)
            for call in obs["calls"]:
                level = {"re": 1, "kontra": 1, "no90": 2, "no60": 3, "no30": 4, "schwarz": 5}[call["call"]]
                assert moments[call["seat"], level - 1] == np.float32((call["cards_played"] + 1) / 49)
            state.apply_action(int(rng.choice(state.legal_actions())))
