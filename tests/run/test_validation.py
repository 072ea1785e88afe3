"""The argument validation layer of the Python API, and what the command line makes of it
(issue 13, findings 6, 7 and 10).

Finding 10: wrong types raised raw TypeError / AttributeError (``seed="x"``, ``strategy=123``,
``params="x"``, ``threads="2"``, ...) or were rounded silently (``seed=1.7``, ``chunk_size=2.5``).
Finding 7: parameters for seats or strategies not in the run, and values out of range (``nan``,
probabilities outside [0, 1]) were ignored or accepted. Finding 6: a forced solo the rules forbid
was played anyway. Every bad argument is now a one-line SimulationError (a ValueError) naming the
argument, the value and what is valid, raised before any work (no kernel runs in these tests
except the small contract check, which the suite's compile step has cached).
"""
import math

import pytest
from click.testing import CliRunner

import dokosim
from dokosim.engine.cards import SOLO_KINDS
from dokosim.cli import main as cli
from dokosim.records.record import score_objects
from dokosim.run.session import SessionError, make_session_plan, simulate_sessions
from dokosim.run.simulate import SimulationError
from dokosim.run.simulator import make_plan
from dokosim.loop.registry import BUILTIN, StrategyError
from dokosim.run.tournament import TournamentError, tournament


def one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert "\n" not in message and message
    return message


# ---------------------------------------------------------------------------- finding 10: types

SIMULATE_BAD = [
    ("seed", "x"), ("seed", 1.7), ("seed", True), ("seed", -1), ("seed", 2**63), ("seed", None),
    ("deals", 10.0), ("deals", True), ("deals", "10"),
    ("strategy", 123), ("strategy", ["simple", 7]), ("strategy", None),
    ("params", "x"), ("params", ["x"]),
    ("threads", "2"), ("threads", 1.5), ("threads", 0), ("threads", True),
    ("chunk_size", 2.5), ("chunk_size", 0), ("chunk_size", True), ("chunk_size", "100"),
    ("calls", "no"), ("calls", 1), ("keep_play", "yes"), ("compulsory", 0), ("quiet", "no"),
    ("dealer", 1.0), ("dealer", True), ("dealer", 4), ("dealer", "0"),
    ("declarer", 2.0), ("declarer", True), ("declarer", -1), ("contract", 5), ("out", 123),
]


def refuses_naming_it(run, error, kwargs, name, value):
    """``run(**kwargs, name=value)`` raises ``error`` with one line naming the argument."""
    with pytest.raises(error) as info:
        run(**{**kwargs, name: value})
    assert one_line(info).startswith(f"{name}={value!r} is not valid: ")


@pytest.mark.parametrize("name, value", SIMULATE_BAD)
def test_simulate_refuses_a_bad_argument_naming_it(name, value):
    refuses_naming_it(dokosim.simulate, SimulationError, {"deals": 10}, name, value)


def test_the_message_says_what_is_valid():
    with pytest.raises(SimulationError) as info:
        dokosim.simulate(10, seed="x")
    assert one_line(info) == "seed='x' is not valid: an integer from 0 to 2**63-1"
    with pytest.raises(SimulationError) as info:
        dokosim.simulate(10, chunk_size=2.5)
    assert "an integer from 1" in one_line(info)


def test_numpy_integers_and_bools_are_accepted_as_they_are():
    import numpy as np
    plan = make_plan(np.int64(10), seed=np.uint64(7), chunk_size=np.int32(3), dealer=np.int8(2),
                     calls=np.bool_(False), params={np.int64(1): {"p_call": np.float32(0.5)}})
    assert (plan.deals, plan.seed, plan.chunk_size, plan.dealer, plan.calls) == (10, 7, 3, 2, False)
    assert type(plan.seed) is int and plan.strategies[1].params["p_call"] == 0.5


SESSION_BAD = [
    ("rounds", 1.5), ("rounds", "2"), ("seed", "x"), ("seed", 0.5), ("strategy", 123), ("params", "x"),
    ("deals", 24.0), ("compulsory", "no"), ("calls", None), ("threads", "2"), ("chunk_size", 2.5),
    ("out", 123), ("quiet", 1),
]


@pytest.mark.parametrize("name, value", SESSION_BAD)
def test_sessions_refuse_a_bad_argument_naming_it(name, value):
    refuses_naming_it(dokosim.simulate_sessions, SessionError, {"rounds": 2}, name, value)


TOURNAMENT_BAD = [
    ("strategies", 123), ("strategies", ["simple", 1]), ("deals", 10.5), ("deals", True), ("deals", 1),
    ("seed", "x"), ("seed", 1.7), ("params", "x"), ("threads", "2"), ("quiet", "no"),
]


@pytest.mark.parametrize("name, value", TOURNAMENT_BAD)
def test_tournaments_refuse_a_bad_argument_naming_it(name, value):
    refuses_naming_it(tournament, TournamentError, {"strategies": ["simple", "random"], "deals": 10}, name, value)


def test_every_error_of_the_api_is_a_simulation_error():
    assert issubclass(TournamentError, SimulationError) and issubclass(SessionError, SimulationError)
    assert issubclass(StrategyError, SimulationError) and issubclass(SimulationError, ValueError)


PROBE_BAD = [("seed", 1.7), ("threads", "2"), ("probes_only", "yes"), ("chunk_size", 2.5), ("strategy", 123)]


@pytest.mark.parametrize("name, value", PROBE_BAD)
def test_call_probes_refuse_a_bad_argument_naming_it(name, value):
    refuses_naming_it(dokosim.probe_calls, SimulationError, {"deals": 10, "level": "re"}, name, value)


# ---------------------------------------------------------------------------- finding 7: parameters

@pytest.mark.parametrize("params, needles", [
    ({4: {"solo_trumps": 11}}, ["params key 4", "a seat 0-3", "simple", "'*'"]),
    ({"foo": {"bar": 1}}, ["params key 'foo'", "a seat 0-3", "(simple)"]),
    ({7: {}}, ["params key 7"]),
    ({-1: {"solo_trumps": 11}}, ["params key -1"]),
    ({"random": {"p_call": 0.5}}, ["params key 'random'", "(simple)"]),  # random is not in the run
    ({True: {"solo_trumps": 11}}, ["params key True"]),
    ({0: 11}, ["params[0]=11", "a dict"]),
])
def test_parameters_for_seats_or_strategies_not_in_the_run_are_refused(params, needles):
    with pytest.raises(SimulationError) as info:
        make_plan(10, strategy="simple", params=params)
    message = one_line(info)
    for needle in needles:
        assert needle in message


@pytest.mark.parametrize("value", [1.5, -0.1, math.nan, math.inf, -math.inf, "0.5", None, True])
def test_parameter_values_out_of_their_range_are_refused(value):
    with pytest.raises(StrategyError) as info:
        make_plan(10, strategy="random", params={"random": {"p_call": value}})
    message = one_line(info)
    assert message.startswith(f"params['random']['p_call']={value!r} is not valid: ")
    assert "'p_call' is a number from 0 to 1" in message


def test_a_parameter_a_strategy_lacks_is_refused_with_its_parameters_and_ranges():
    with pytest.raises(StrategyError) as info:
        make_plan(10, strategy="simple,random,simple,random", params={"*": {"p_call": 0.5}})
    message = one_line(info)
    assert "params['*']['p_call']" in message and "strategy 'simple' has no parameter 'p_call'" in message
    assert "solo_trumps (a number from 0 to 13)" in message


def test_whole_number_parameters_are_not_rounded():
    with pytest.raises(StrategyError, match=r"samples.*whole number from 1 to"):
        make_plan(10, strategy="pimc", params={"pimc": {"samples": 2.5}})
    assert make_plan(10, strategy="pimc", params={"pimc": {"samples": 3}}).strategies[0].params["samples"] == 3


def test_every_builtin_parameter_declares_a_range_holding_its_default():
    from dokosim.loop.registry import param_specs
    parameterless = set()
    for name in BUILTIN:
        specs = param_specs(name)
        if not specs:
            parameterless.add(name)
        for spec in specs.values():
            assert math.isfinite(spec.lo) and math.isfinite(spec.hi), (name, spec)
            assert spec.lo <= spec.default <= spec.hi, (name, spec)
    assert not parameterless  # every built-in has parameters (net: its value-head rules)


def test_sessions_check_parameters_against_their_players():
    five = {"preset": "ddv", "five_players": True}
    plan = make_session_plan(2, strategy="simple", params={4: {"solo_trumps": 11}}, rules=five)
    assert plan.strategies[4].params["solo_trumps"] == 11
    with pytest.raises(SessionError, match=r"params key 4 is not valid: a seat 0-3"):
        make_session_plan(2, strategy="simple", params={4: {"solo_trumps": 11}})
    with pytest.raises(SessionError, match=r"params key 5 is not valid: a seat 0-4"):
        simulate_sessions(2, strategy="simple", params={5: {"solo_trumps": 11}}, rules=five)


def test_tournament_parameters_are_checked_per_name_and_report_name():
    with pytest.raises(StrategyError) as info:
        tournament(["simple", "simple"], 10, params={"simple#2": {"solo_trumps": 99}})
    assert "params['simple#2']['solo_trumps']=99 is not valid" in one_line(info)
    with pytest.raises(TournamentError, match=r"params key 'heuristic' is not valid.*valid here: \*, simple"):
        tournament(["simple", "random"], 10, params={"heuristic": {"solo_win": 0.5}})


PLUGIN = '''
from numba import njit

PARAMS = {"free": (1.0, "no range declared"), "share": (0.5, "a probability")}
PARAM_RANGES = {"share": (0.0, 1.0)}


@njit
def reserve(seat, hand, options, pub, rules, params, rng):
    return 0


@njit
def call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    return 0


@njit
def card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    return 0
'''


def test_plug_in_parameters_without_a_range_take_any_finite_number(tmp_path, monkeypatch):
    from dokosim.loop.registry import register
    (tmp_path / "ranged_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    register("ranged", "ranged_plugin")
    plan = make_plan(10, strategy="ranged", params={"ranged": {"free": -1e9}})
    assert plan.strategies[0].params == {"free": -1e9, "share": 0.5}
    with pytest.raises(StrategyError, match=r"'free' is a finite number"):
        make_plan(10, strategy="ranged", params={"ranged": {"free": math.nan}})
    with pytest.raises(StrategyError, match=r"'share' is a number from 0 to 1"):
        make_plan(10, strategy="ranged", params={0: {"share": 2}})
    (tmp_path / "bad_ranges.py").write_text(PLUGIN.replace('"share": (0.0, 1.0)', '"share": (1.0, 0.0)'))
    with pytest.raises(StrategyError, match=r"PARAM_RANGES\['share'\] must be \(lo, hi\)"):
        register("bad_ranges", "bad_ranges")
    (tmp_path / "bad_default.py").write_text(PLUGIN.replace('(0.5, "a probability")', '(2.0, "a probability")'))
    with pytest.raises(StrategyError, match=r"default of share"):
        register("bad_default", "bad_default")


# ---------------------------------------------------------------------------- finding 6: contracts

@pytest.mark.parametrize("kind", SOLO_KINDS)
def test_a_forced_solo_the_rules_forbid_is_refused(kind):
    others = [k for k in SOLO_KINDS if k != kind]
    with pytest.raises(SimulationError) as info:
        make_plan(10, contract=f"{kind}_solo", rules={"preset": "ddv", "solos": others})
    message = one_line(info)
    assert message.startswith(f"contract='{kind}_solo' is not valid: these rules do not allow a {kind} solo")
    assert f"{others[0]}_solo" in message
    assert make_plan(10, contract=f"{kind}_solo", rules={"preset": "ddv", "solos": [kind]}).contract == f"{kind}_solo"


def test_records_refuse_the_same_contract_as_bad_contract():
    """The rule is the record scorer's (engine.replay.contract_error): a record of a hearts solo
    under solos=['queens'] is a bad_contract, and simulate refuses to force it."""
    from dokosim.kernels import SAMPLE_RECORD
    record = {**SAMPLE_RECORD, "rules": {"preset": "ddv", "solos": ["queens"]},
              "contract": {"type": "solo", "kind": "hearts", "seat": 0}, "announcements": []}
    (result,) = score_objects([record])
    assert result["kind"] == "bad_contract", result
    with pytest.raises(SimulationError, match="hearts solo"):
        make_plan(10, contract="hearts_solo", declarer=0, rules=record["rules"])


@pytest.mark.parametrize("kwargs, needle", [
    (dict(contract="poverty", rules="club"), "a poverty cannot be forced"),
    (dict(contract="poverty"), "a poverty cannot be forced"),
    (dict(contract="marriage_solo"), "normal, marriage, diamonds_solo"),
    (dict(contract="queens_solo", declarer=4), "declarer=4 is not valid: a seat 0-3"),
    (dict(contract="queens_solo", declarer=1.0), "declarer=1.0 is not valid"),
    (dict(contract="queens_solo", compulsory=True, rules={"preset": "ddv", "solos": ["jacks"]}),
     "do not allow a queens solo"),
])
def test_other_contracts_the_rules_do_not_allow_are_refused(kwargs, needle):
    with pytest.raises(SimulationError) as info:
        make_plan(10, **kwargs)
    assert needle in one_line(info)


# ---------------------------------------------------------------------------- the command line

def run_cli(args):
    """Run a command that must fail with a usage error; its one ``Error`` line."""
    result = CliRunner().invoke(cli, args)
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert result.exit_code == 2, result.output
    assert len(errors) == 1, result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, (TypeError, AttributeError))
    return errors[0]


@pytest.mark.parametrize("args, needles", [
    (["simulate", "--deals", "10", "--strategy", "simple", "--param", "4:solo_trumps=11"],
     ["params key 4", "a seat 0-3"]),
    (["simulate", "--deals", "10", "--param", "foo:bar=1"], ["params key 'foo'", "random"]),
    (["simulate", "--deals", "10", "--param", "0:p_call=nan"], ["p_call", "nan", "from 0 to 1"]),
    (["simulate", "--deals", "10", "--param", "random:p_call=1.5"], ["p_call", "from 0 to 1"]),
    (["simulate", "--deals", "10", "--param", "random:p_cal=0.5"],
     ["no parameter 'p_cal'", "p_call (a number from 0 to 1)"]),
    (["simulate", "--deals", "10", "--contract", "hearts_solo", "--rule", "solos=['queens']"],
     ["hearts solo", "queens_solo"]),
    (["session", "--rounds", "2", "--param", "4:p_call=0.5"], ["params key 4", "a seat 0-3"]),
    (["probe-calls", "--deals", "10", "--strategy", "random", "--param", "5:p_call=0.5"], ["params key 5"]),
    (["tournament", "simple", "random", "--deals", "10", "--param", "simple:solo_trumps=inf"],
     ["solo_trumps", "from 0 to 13"]),
])
def test_cli_refuses_bad_parameters_and_contracts_in_one_line(args, needles):
    line = run_cli(args)
    for needle in needles:
        assert needle in line, line


def test_cli_refuses_a_params_file_with_a_table_for_a_missing_seat(tmp_path):
    toml = tmp_path / "params.toml"
    toml.write_text("[7]\np_call = 0.5\n")
    assert "params key 7" in run_cli(["simulate", "--deals", "10", "--param", str(toml)])
    toml.write_text("[random]\np_call = nan\n")
    assert "p_call" in run_cli(["simulate", "--deals", "10", "--param", str(toml)])
    toml.write_bytes(b"[random]\np_call = 0.5 # \xff\xfe\n")
    assert "not a UTF-8 text file" in run_cli(["simulate", "--deals", "10", "--param", str(toml)])
