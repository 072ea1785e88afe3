"""Issue 47, item 3: every public constructor and function of the solver, dataset, game and
training modules checks its arguments before any work or allocation: one ValueError (or
dokosim error) naming the argument, never a signal or another exception."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import dokosim

ROOT = Path(__file__).resolve().parents[2]
RECORD = json.loads((ROOT / "examples" / "records.jsonl").read_text().splitlines()[0])


def test_a_solver_with_a_one_entry_table_is_refused_not_a_segfault():
    """Solver(table_bits=0) made the kernels index past the table's end (SIGSEGV) in game_value,
    solve and par: now one ValueError naming table_bits, before anything is allocated."""
    script = (
        "import json, sys, dokosim\n"
        "from dokosim.dd.solve import Solver\n"
        f"rec = json.loads(open({str(ROOT / 'examples' / 'records.jsonl')!r}).readline())\n"
        "for call in (lambda: dokosim.game_value(rec, solver=Solver(table_bits=0)),\n"
        "             lambda: dokosim.solve({**rec, 'play': rec['play'][:40]}, solver=Solver(table_bits=0)),\n"
        "             lambda: dokosim.par(rec, solver=Solver(table_bits=0))):\n"
        "    try:\n"
        "        call()\n"
        "    except ValueError as exc:\n"
        "        print('refused:', exc)\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"ended by signal {-run.returncode}" if run.returncode < 0 else run.stderr[-2000:]
    assert run.stdout.count("refused: table_bits=0 is not valid") == 3, run.stdout


@pytest.mark.parametrize("kwargs,name", [({"table_bits": 40}, "table_bits"), ({"table_bits": 2.5}, "table_bits"),
                                         ({"node_limit": -5}, "node_limit"), ({"sim_bits": -1}, "sim_bits"),
                                         ({"score_table_bits": "18"}, "score_table_bits")])
def test_solver_arguments_are_checked_before_any_allocation(kwargs, name):
    from dokosim.dd.solve import Solver
    with pytest.raises(ValueError, match=f"^{name}=.* is not valid"):
        Solver(**kwargs)


def test_a_node_limit_set_later_is_checked_too():
    from dokosim.dd.solve import Solver
    solver = Solver(table_bits=4, sim_bits=0, score_table_bits=0)
    with pytest.raises(ValueError, match="node_limit"):
        solver.node_limit = -1
    assert solver.node_limit == 0


@pytest.mark.parametrize("fn", ["game_value", "solve", "best_score"])
@pytest.mark.parametrize("value", ["no", 1, None])
def test_from_start_is_true_or_false_only(fn, value):
    """game_value(from_start="no") was taken as true."""
    with pytest.raises(ValueError, match="from_start"):
        getattr(dokosim, fn)(RECORD, from_start=value)


@pytest.mark.parametrize("fn", ["game_value", "solve", "par"])
def test_a_solver_argument_that_is_no_solver_is_refused(fn):
    with pytest.raises(ValueError, match="solver="):
        getattr(dokosim, fn)(RECORD, solver="fast")


@pytest.mark.parametrize("column", [pl.Series("hand_0", [-1], dtype=pl.Int64),
                                    pl.Series("hand_0", [2**64 - 1], dtype=pl.UInt64),
                                    pl.Series("hand_0", [1 << 48], dtype=pl.Int64),
                                    pl.Series("hand_0", [3.0], dtype=pl.Float64)])
def test_cards_refuses_what_is_no_card_mask(column):
    """dokosim.dataset.cards decoded -1, 2**64-1 and floats without complaint."""
    from dokosim.run.driver import DatasetError
    frame = pl.DataFrame({"hand_0": column, "hand_1": [3], "hand_2": [5], "hand_3": [9]})
    with pytest.raises(DatasetError, match="hand_0"):
        dokosim.dataset.cards(frame)
    with pytest.raises(DatasetError, match="DataFrame"):
        dokosim.dataset.cards("data/run")


def test_training_helpers_check_their_arrays():
    from dokosim.train.fit import TrainError, heldout_rows, legal_mask
    from dokosim.train.network import forward_numpy, weight_shapes
    with pytest.raises(TrainError, match="legal"):
        legal_mask(5)
    with pytest.raises(TrainError, match="deal_id"):
        heldout_rows(np.array([1.5, np.nan]), 0.1)
    with pytest.raises(ValueError, match="hidden"):
        weight_shapes(4, 10**12)
    with pytest.raises(ValueError, match="weights"):
        forward_numpy("w.npz", np.zeros((1, 4)))


def test_public_signatures_fuzzed_end_in_dokosim_errors_only(tmp_path):
    """issue 47's acceptance: the public functions of dokosim.dd, dokosim.dataset, dokosim.game
    and dokosim.train called with hostile argument values (tests/fuzz/signature_fuzz.py, in a
    subprocess): never a signal, never an exception that is not dokosim's."""
    run = subprocess.run([sys.executable, str(ROOT / "tests" / "fuzz" / "signature_fuzz.py"), str(tmp_path), "2"],
                         capture_output=True, text=True, timeout=1200)
    assert run.returncode >= 0, f"killed by signal {-run.returncode}:\n{run.stdout[-3000:]}{run.stderr[-3000:]}"
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "signature fuzz: done, 0 bad" in run.stdout


def test_play_deals_refuses_a_huge_deal_count_at_once():
    """play_deals(2**31, ...) started playing 2**31 deals through Game (the earlier fuzz never ended)."""
    import time

    from dokosim.game.agents import MAX_PLAY_DEALS, play_deals
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"^deals=2147483648 is not valid"):
        play_deals(2**31, 1, "ddv", ["random"] * 4)
    with pytest.raises(ValueError, match=r"^deals="):
        play_deals(MAX_PLAY_DEALS + 1, 1, "ddv", ["random"] * 4)
    assert time.perf_counter() - start < 1


@pytest.mark.parametrize("kwargs,name", [({"first": 2**62 - 1, "deals": 2}, "first"), ({"seed": -1}, "seed"),
                                         ({"names": ["random"] * 3}, "names"),
                                         ({"names": [["random"]] * 4}, r"names\[0\]"),
                                         ({"params": {0: 5}}, "params"), ({"rules": "no such"}, "rules")])
def test_play_deals_checks_its_arguments_before_a_deal(kwargs, name):
    from dokosim.game.agents import play_deals
    args = {"deals": 1, "seed": 1, "rules": "ddv", "names": ["random"] * 4, **kwargs}
    with pytest.raises(ValueError, match=f"^{name}"):
        play_deals(**args)


@pytest.mark.parametrize("fn", ["Agent", "python_agent", "reads_hidden"])
def test_a_player_name_that_is_no_string_is_refused(fn):
    """A list or an array as a name was looked up as a dict key: TypeError."""
    from dokosim.game import agents
    with pytest.raises(ValueError, match=r"^name=\['random'\] is not valid"):
        getattr(agents, fn)(["random"])


def test_the_openspiel_deal_count_is_bounded():
    """deals=2**31 went to GameInfo and a chance_outcomes list of 2**31 entries."""
    openspiel = pytest.importorskip("dokosim.game.openspiel")
    with pytest.raises(ValueError, match=r"^deals=2147483648 is not valid"):
        openspiel.DoppelkopfGame({"deals": 2**31})
    for params, name in (("seed=1", "params"), ({"calls": "no"}, "calls"), ({"rules": 5}, "rules"),
                         ({"seed": -1}, "seed")):
        with pytest.raises(ValueError, match=f"^{name}="):
            openspiel.DoppelkopfGame(params)
    with pytest.raises(ValueError, match="^information_state="):
        openspiel.DoppelkopfObserver("yes")


@pytest.mark.parametrize("fn", ["solve_deals", "value_deals"])
@pytest.mark.parametrize("kwargs,name", [({"node_limit": -1}, "node_limit"), ({"node_limit": 10**13}, "node_limit"),
                                         ({"node_limit": 2.5}, "node_limit"), ({"node_limit": True}, "node_limit"),
                                         ({"out": 5}, "out"),
                                         ({"out": "é" * 300}, "out"), ({"contracts": 5}, "contracts"),
                                         ({"quiet": "no"}, "quiet"), ({"deals": 10**8}, "deals")])
def test_solving_deals_checks_its_arguments_before_any_work(fn, kwargs, name):
    from dokosim.dd.deal_solves import solve_deals
    from dokosim.dd.deal_solves import value_deals
    call = {"solve_deals": solve_deals, "value_deals": value_deals}[fn]
    with pytest.raises(ValueError, match=f"^{name}=") as refused:
        call(**{"deals": 1, **kwargs})
    if name == "node_limit":  # the value and the valid range, in one line
        assert str(refused.value) == (f"node_limit={kwargs['node_limit']!r} is not valid: an integer from 0 "
                                      "(no limit) to 10**12")


@pytest.mark.parametrize("fn", ["solve", "game_value", "best_score", "par"])
@pytest.mark.parametrize("value", [-1, 2.5, True, 10**16, np.zeros((2, 1))])
def test_a_bad_node_limit_is_one_line_naming_the_value_and_the_range(fn, value):
    """np.zeros((2, 1)) as node_limit gave a two-line message (the array's repr); solve, which
    takes None too (the solver's own limit), did not say so."""
    with pytest.raises(ValueError) as refused:
        getattr(dokosim, fn)(RECORD, node_limit=value)
    message = str(refused.value)
    assert "\n" not in message and message.startswith("node_limit=") and "from 0 (no limit) to 10**15" in message
    assert ("None (the solver's own limit) or" in message) == (fn == "solve")


def test_vector_game_observe_and_calls_are_checked():
    """observe(rows=[1.5]) cast the row silently, observe(dtype="x") raised TypeError."""
    from dokosim.game.vector import MAX_ROWS, VectorGame
    with pytest.raises(ValueError, match=r"^n=2147483648 is not valid"):
        VectorGame(2**31)
    with pytest.raises(ValueError, match=r"^n="):
        VectorGame(MAX_ROWS + 1)
    with pytest.raises(ValueError, match="^calls="):
        VectorGame(2, calls="no")
    vec = VectorGame(2, observation=None)
    for rows in ([1.5], [0, 2], [[0]], "0", {0: 1}):
        with pytest.raises(ValueError, match="^rows="):
            vec.observe(rows=rows)
    for dtype in ("x", 5, np.int64, None):
        with pytest.raises(ValueError, match="^dtype="):
            vec.observe(dtype=dtype)
    assert vec.observe(rows=[1], dtype=np.uint8).shape[0] == 1


def test_environments_check_their_arguments_at_construction():
    """seed, calls and rules were first used at reset; a bad reset seed replaced the current one."""
    pytest.importorskip("pettingzoo")
    from dokosim.game.rl import DoppelkopfEnv, DoppelkopfParallelEnv
    for cls in (DoppelkopfEnv, DoppelkopfParallelEnv):
        for kwargs, name in (({"seed": -1}, "seed"), ({"calls": "no"}, "calls"), ({"rules": "no such"}, "rules")):
            with pytest.raises(ValueError, match=f"^{name}"):
                cls(**kwargs)
    env = DoppelkopfEnv(seed=3)
    with pytest.raises(ValueError, match="^seed="):
        env.reset(seed="x")
    env.reset()
    assert env.infos[env.agents[0]]["seed"] == 3


def test_a_tournament_with_python_agents_refuses_more_deals_than_play_deals_takes():
    """Refused before the first seating plays, not when the first Python seating reaches play_deals."""
    from dokosim.game.agents import MAX_PLAY_DEALS, LowestCard, register_agent
    from dokosim.run.tournament import tournament
    register_agent("lowest_card_47b", LowestCard)
    with pytest.raises(ValueError, match="^deals=.* with Python agents"):
        tournament(["lowest_card_47b", "random"], deals=MAX_PLAY_DEALS + 1, quiet=True)
