"""Driven by tests/game/test_api_fuzz.py in a subprocess: random calls of Game, VectorGame and the
PettingZoo env with random arguments (wrong shapes, dtypes, sizes, ranges, calls out of order).
Every call must return or raise a documented exception type; anything else fails the hypothesis
run, and a crash of the process (a signal) fails the test that started it."""
import sys

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from dokosim import Game, GameError, VectorGame
from dokosim.game.game import OBSERVATION_LEN

DOCUMENTED = (GameError, ValueError, TypeError)  # GameError is a ValueError; TypeError: wrong arity

ARRAYS = hs.one_of(
    hs.builds(lambda n, dt: np.zeros(n, dt), hs.integers(0, 2 * OBSERVATION_LEN),
              hs.sampled_from([np.float32, np.float64, np.int64, np.int8, np.uint8, np.bool_])),
    hs.builds(lambda n: np.zeros((n, 3), np.float32), hs.integers(0, 5)),
    hs.builds(lambda n: np.zeros(2 * n, np.int64)[::2], hs.integers(0, 20)),
)
VALUES = hs.one_of(hs.integers(-2**70, 2**70), hs.floats(allow_nan=True), hs.text(max_size=4), hs.none(),
                   hs.booleans(), ARRAYS, hs.lists(hs.integers(-5, 100), max_size=10))


def call(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except DOCUMENTED:
        return None


@settings(max_examples=int(sys.argv[1]), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(hs.lists(hs.tuples(hs.sampled_from(["apply", "obs_tensor", "observation", "hand", "resample", "clone",
                                           "legal", "record", "result"]), VALUES, VALUES), max_size=30),
       hs.integers(0, 3))
def game_calls(script, seed):
    game = Game(seed=seed)
    for name, a, b in script:
        if name == "apply":
            legal = game.legal_actions()
            call(game.apply_action, legal[0] if legal and isinstance(a, bool) else a)
        elif name == "obs_tensor":
            call(game.observation_tensor, a, out=b if isinstance(b, np.ndarray) else None)
        elif name == "observation":
            call(game.observation, a)
        elif name == "hand":
            call(game.hand, a)
        elif name == "resample":
            call(game.resample, a)
        elif name == "clone":
            game = game.clone()
        elif name == "legal":
            game.legal_actions()
        elif name == "record":
            call(game.to_record)
        elif name == "result":
            call(game.result)


@settings(max_examples=int(sys.argv[1]), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(hs.lists(hs.tuples(hs.sampled_from(["step", "random", "observe", "game", "expand", "ids"]), VALUES,
                          VALUES), max_size=12),
       hs.integers(1, 6))
def vector_calls(script, n):
    vec = VectorGame(n, seed=1)
    for name, a, b in script:
        if name == "step":
            call(vec.step, vec.random_actions() if a is None else a)
        elif name == "random":
            call(vec.random_actions, out=a if isinstance(a, np.ndarray) else None)
        elif name == "observe":
            call(vec.observe, rows=a if not isinstance(a, (str, float)) else None,
                 out=b if isinstance(b, np.ndarray) else None)
        elif name == "game":
            call(vec.game, a)
        elif name == "expand":
            call(vec.expand, a, out=b if isinstance(b, np.ndarray) else None)
        elif name == "ids":
            vec.deal_ids()


@settings(max_examples=int(sys.argv[1]), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(hs.lists(hs.tuples(hs.sampled_from(["step", "observe", "reset", "last"]), VALUES), max_size=20))
def env_calls(script):
    from dokosim.game.rl import env as make_env
    e = make_env()
    e.reset(seed=3)
    for name, a in script:
        if name == "step":
            legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"]) if e.agents else []
            call(e.step, int(legal[0]) if len(legal) and a is None else a)
        elif name == "observe":
            call(e.observe, a)
        elif name == "reset":
            call(e.reset, seed=a if isinstance(a, int) and not isinstance(a, bool) and 0 <= a < 2**31 else None)
        elif name == "last":
            if e.agents:
                e.last()


if __name__ == "__main__":
    game_calls()
    vector_calls()
    try:
        import pettingzoo  # noqa: F401
    except ImportError:
        print("pettingzoo not installed: the env part not run")
    else:
        env_calls()
    print("api fuzz: done")
