"""``dokosim.VectorGame``: every row plays exactly the deal a ``Game`` of the same (seed, deal_id)
plays with the same actions, auto-reset included, whatever the thread count."""
import numba
import numpy as np
import pytest

from dokosim.game import N_ACTIONS, OBSERVATION_LEN, Game, GameError
from dokosim.vector import VectorGame


def random_legal(legal, rng):
    """One uniformly random legal action per row."""
    return np.argmax(legal * rng.random(legal.shape), axis=1)


def test_rows_are_games_with_the_same_actions_and_reset_to_their_next_deal():
    n, seed = 6, 11
    vec = VectorGame(n, seed=seed, first_deal_id=100)
    games = [Game(seed=seed, deal_id=100 + i) for i in range(n)]
    episodes = [0] * n
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(700):
        for i, game in enumerate(games):
            assert vec.player[i] == game.current_player
            np.testing.assert_array_equal(vec.obs[i], game.observation_tensor(game.current_player))
            expected = np.zeros(N_ACTIONS, np.int8)
            expected[game.legal_actions()] = 1
            np.testing.assert_array_equal(vec.legal[i], expected)
        actions = random_legal(vec.legal, rng)
        _, _, rewards, done = vec.step(actions)
        for i, game in enumerate(games):
            game.apply_action(int(actions[i]))
            if game.is_terminal():
                assert done[i]
                assert rewards[i].tolist() == game.returns()
                finished += 1
                episodes[i] += 1
                games[i] = Game(seed=seed, deal_id=100 + episodes[i] * n + i)
            else:
                assert not done[i] and not rewards[i].any()
    assert finished >= 3 * n  # a deal is about 60 to 100 decisions: each row went through several
    assert vec.deal_ids().tolist() == [100 + episodes[i] * n + i for i in range(n)]


def run(n, steps, threads):
    numba.set_num_threads(threads)
    try:
        vec = VectorGame(n, rules="club", seed=4)
        rng = np.random.default_rng(1)
        out = []
        for _ in range(steps):
            _, _, rewards, done = vec.step(random_legal(vec.legal, rng))
            out.append((rewards.copy(), done.copy()))
        return out, vec.obs.copy()
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def test_the_thread_count_changes_nothing():
    one, obs1 = run(64, 300, 1)
    two, obs2 = run(64, 300, 2)
    for (r1, d1), (r2, d2) in zip(one, two, strict=True):
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)
    np.testing.assert_array_equal(obs1, obs2)
    assert sum(int(d.sum()) for _, d in one) > 64  # deals ended, rows were reset


def test_an_illegal_action_is_refused_naming_the_row_and_nothing_changes():
    vec = VectorGame(3, seed=2)
    before = vec.obs.copy()
    actions = vec.legal.argmax(axis=1)
    actions[1] = 3  # QC in the reservation phase
    with pytest.raises(GameError, match=r"row 1: action QC is not legal for seat 0; legal: healthy"):
        vec.step(actions)
    np.testing.assert_array_equal(vec.obs, before)
    with pytest.raises(GameError, match="one per row"):
        vec.step([24, 24])
    with pytest.raises(GameError, match="n=0 is not valid"):
        VectorGame(0)
    assert vec.obs.shape == (3, OBSERVATION_LEN)
