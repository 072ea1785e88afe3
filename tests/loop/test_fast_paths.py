"""The deal loop's fast paths play exactly what its general path plays.

``random`` at every seat, once nobody may call, plays the rest of the deal in a loop of its own
(``sim_loop.play_random_cards``), and the deal loop stops asking ``legal_calls`` once no seat can
call again (``calls_open``). A plug-in that is ``random`` under another name goes through the
strategy table and the general loop instead: with the same seed its rows must be the same.
"""
import numpy as np
import pytest

CLONE = '''
from dokosim.strategies.random_player import PARAM_RANGES, PARAMS, call, card, reserve

NAME = "random_clone"
'''

PLANS = {
    "forced normal, no calls (figure (a))": dict(contract="normal", calls=False),
    "DDV rules, calls": dict(),
    "DDV rules, random calls and reservations": dict(params={"*": {"p_call": 0.2, "p_reserve": 0.1}}),
}


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    import sys

    from dokosim.loop import registry
    root = tmp_path_factory.mktemp("clone")
    (root / "random_clone_bot.py").write_text(CLONE)
    sys.path.insert(0, str(root))
    try:
        yield registry.register_path("random_clone_bot")
    finally:  # other tests in this worker see the built-in strategies only
        registry._EXTRA.pop("random_clone", None)
        sys.path.remove(str(root))


@pytest.mark.parametrize("plan", list(PLANS))
def test_random_rows_equal_those_of_random_through_the_strategy_table(clone, plan):
    from dokosim.run.simulate import simulate
    kwargs = PLANS[plan]
    fast = simulate(20_000, seed=11, strategy="random", **kwargs)
    general = simulate(20_000, seed=11, strategy=clone, **kwargs)
    columns = [c for c in fast.columns if not c.startswith("strategy_")]
    assert fast.select(columns).equals(general.select(columns))
    assert fast["eyes_re"].n_unique() > 100  # not a trivial run
    if "params" in kwargs:  # calls made and reservations held: the general path's branches ran
        assert np.asarray(fast["calls_re"]).max() >= 1 and fast["contract"].n_unique() > 3


def test_random_sessions_and_probes_equal_those_through_the_strategy_table(clone):
    from dokosim.run.call_probe import probe_calls
    from dokosim.run.session import simulate_sessions
    a = simulate_sessions(40, seed=3, strategy="random")
    b = simulate_sessions(40, seed=3, strategy=clone)
    columns = [c for c in a.columns if not c.startswith("strategy")]
    assert a.select(columns).equals(b.select(columns))
    p = probe_calls(3000, level="no90", seed=4, strategy="random")
    q = probe_calls(3000, level="no90", seed=4, strategy=clone)
    columns = [c for c in p.columns if not c.startswith("strategy")]
    assert p.select(columns).equals(q.select(columns))
