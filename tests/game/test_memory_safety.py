"""Arrays and integers a user passes to a kernel are checked first (issue 32, item 1): a too-small,
wrongly typed, strided or read-only ``out`` array, or a negative trick count, used to make a kernel
write past an array's end (a segmentation fault that kills the user's Python)."""
import numpy as np
import pytest

from dokosim import Game, GameError, VectorGame
from dokosim.dd.audit import AuditError, audit_records
from dokosim.game.game import OBSERVATION_LEN


def _bad_outs(dtype, n):
    return [np.zeros(n - 1, dtype), np.zeros(max(1, n // 2), dtype), np.zeros(n, np.float64 if dtype != np.float64
                                                                           else np.float32),
            np.zeros(2 * n, dtype)[::2], np.zeros((1, n), dtype), [0.0] * n, _read_only(np.zeros(n, dtype))]


def _read_only(a):
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("case", range(7))
def test_observation_tensor_refuses_an_out_array_it_would_overrun(case):
    game = Game(seed=1)
    out = _bad_outs(np.float32, OBSERVATION_LEN)[case]
    with pytest.raises(GameError, match="out"):
        game.observation_tensor(0, out=out)


def test_observation_tensor_writes_a_valid_out_array():
    game = Game(seed=1)
    out = np.full(OBSERVATION_LEN, -1.0, np.float32)
    assert game.observation_tensor(0, out=out) is out
    assert np.array_equal(out, game.observation_tensor(0))


@pytest.mark.parametrize("case", range(7))
def test_random_actions_refuses_an_out_array_it_would_overrun(case):
    vec = VectorGame(8, seed=2)
    out = _bad_outs(np.int64, 8)[case]
    with pytest.raises(GameError, match="out"):
        vec.random_actions(out=out)
    good = np.zeros(8, np.int64)
    assert vec.random_actions(out=good) is good


@pytest.mark.parametrize("tricks", [-1, 0, 13, 2**63, 1.5, True, "6"])
def test_audit_records_refuses_a_trick_count_outside_1_to_12(tricks):
    with pytest.raises(AuditError, match="tricks"):
        audit_records([], tricks)


def test_vector_step_refuses_what_is_not_an_action_id():
    vec = VectorGame(4, seed=3)
    for bad in ("x", [24.9] * 4, [True] * 4):
        with pytest.raises(GameError, match="action ids"):
            vec.step(bad)
    vec.step(vec.random_actions())  # ids as ints still work


def test_rl_step_refuses_a_fractional_action():
    pytest.importorskip("pettingzoo")
    from dokosim.game.rl import env as make_env
    e = make_env()
    e.reset(seed=1)
    with pytest.raises(GameError, match="action"):
        e.step(24.9)


def test_an_empty_hand_condition_is_refused():
    from dokosim.rules import Rules
    from dokosim.run.conditions import ConditionError, parse_conditions
    with pytest.raises(ConditionError, match="no cards"):
        parse_conditions(hands={0: ""}, rules=Rules())


def test_vector_observe_refuses_a_read_only_out():
    vec = VectorGame(3, seed=4)
    with pytest.raises(GameError, match="out"):
        vec.observe(out=_read_only(np.zeros((3, OBSERVATION_LEN), np.float32)))


def test_rl_step_takes_a_0d_integer_array():
    pytest.importorskip("pettingzoo")
    from dokosim.game.rl import env as make_env
    e = make_env()
    e.reset(seed=1)
    legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
    e.step(np.array(legal[0]))  # as a training loop passes it
    with pytest.raises(GameError):
        e.step(np.array([legal[0]]))


def test_vector_game_size_is_bounded_by_its_limit_and_the_memory_available(monkeypatch):
    """issue 32, item 9: the documented maximum (2**20 rows, about 5 GiB) and, below it, the
    memory this machine has: refused in one line before any allocation."""
    from dokosim.game import vector
    with pytest.raises(GameError, match="1 to 1,048,576"):
        VectorGame(vector.MAX_ROWS + 1)
    monkeypatch.setattr(vector, "available_memory", lambda: 100 * vector.ROW_BYTES)
    with pytest.raises(GameError, match="GiB"):
        VectorGame(101)
    assert VectorGame(100).n == 100
