"""Driven by tests/test_argument_checks.py in a subprocess (issue 47): the public functions and
constructors of dokosim.dd, dokosim.dataset, dokosim.game and dokosim.train called with argument
values drawn from a hostile set (wrong types, negative and huge integers, NaN and infinities,
strings, arrays, paths that are not what is asked) in place of each parameter, the others at
their defaults or at a plausible value. Every call must return or raise a dokosim error (a
ValueError subclass, RecordError, or WriteFailed naming a path): any other exception is
printed and counted, and a crash of the process (a signal) fails the test that started it. A
refusal of a parameter of NAMED_RANGES (node_limit) must also be one line naming the value and
the valid range; a node limit that solve_deals or value_deals accept ends the call before it
solves (NoSolve).

Usage: signature_fuzz.py WORKDIR PAIRS_PER_TARGET [TARGET ...]
"""
import inspect
import json
import math
import os
import random
import sys
import time
import traceback
from pathlib import Path

import numpy as np


def hostile_values(work: Path) -> list:
    """Values no parameter of these functions takes as they are, one of each kind."""
    return [None, True, False, -1, 0, 2**31, 2**63, 2**64, -2**63 - 1, 10**30, 1.5, -0.0, math.nan, math.inf,
            -math.inf, 1e300, 1e-300, "", "x", "no", "-1", "[1]", "*", "../..", "\x00", "é" * 300, b"x",
            [], [1, 2], [[]], {}, {"a": 1}, (), object(), np.int64(-1), np.float32("nan"), np.zeros(0),
            np.zeros((2, 3)), np.zeros((2, 1)), np.array([-1, 2**62], dtype=np.int64), np.array(["a"]), np.bool_(True),
            str(work / "missing"), str(work / "a_file.txt"), str(work / "d[1]"), str(work), Path("/proc/self")]


ALLOWED_NAMES = ("RecordError", "WriteFailed")


def allowed(exc: BaseException) -> bool:
    """A dokosim error: a ValueError (every dokosim error but two is one) or those two."""
    return isinstance(exc, ValueError) or type(exc).__name__ in ALLOWED_NAMES


# Parameters whose refusals must also say what is valid: one line naming the parameter and the value
# (``NAME=VALUE``) and holding each of these fragments of the valid range.
NAMED_RANGES = {"node_limit": ("from 0", "10**")}

# Targets whose accepted node limit would start a solve from the first card: any valid limit (0 is
# none, 2**31 is a valid one) may rightly take minutes, so in a call that draws node_limit the solver
# is replaced by NoSolve, and a value that got through every check ends the call there.
SOLVES_FROM_THE_FIRST_CARD = ("solve_deals", "value_deals")


class ChecksPassed(Exception):
    """The arguments got through every check: the call would now solve (NoSolve)."""


class NoSolve:
    """A stand-in for dokosim.dd.solve.Solver: constructed only once the arguments are checked."""

    def __init__(self, *args, **kwargs):
        raise ChecksPassed


def range_problem(exc: BaseException, hit: dict) -> str | None:
    """What a refusal of a NAMED_RANGES parameter drawn in ``hit`` lacks, None if nothing."""
    text = str(exc)
    for name, fragments in NAMED_RANGES.items():
        if name not in hit or f"{name}=" not in text:
            continue
        if "\n" in text:
            return "more than one line"
        missing = [f for f in fragments if f not in text]
        if missing:
            return f"does not name the valid range ({', '.join(missing)})"
    return None


def targets(work: Path) -> dict:
    """name -> (callable, {parameter: plausible value}) for the functions fuzzed."""
    import dokosim
    from dokosim.dd import band, solve
    from dokosim.dd import audit as audit_mod
    from dokosim.game import cards as game_cards
    from dokosim.game import game
    from dokosim.run import dataset
    from dokosim.dd import deal_solves
    from dokosim.game import agents as agents_mod
    from dokosim.game import openspiel as openspiel_mod
    from dokosim.game import rl, vector
    from dokosim.train import data, fit, network
    record = json.loads((Path(__file__).resolve().parents[2] / "examples" / "records.jsonl").read_text().splitlines()[0])
    cut = {**record, "play": record["play"][:40]}
    ds = work / "d[1]"
    if not ds.exists():
        dokosim.simulate(8, seed=1, strategy="random", keep_play=True, out=str(ds), chunk_size=4)
    (work / "a_file.txt").write_text("not a dataset\n")
    frame = dataset.scan(ds).collect()
    return {
        "Solver": (solve.Solver, {}),
        "solve": (solve.solve, {"record": cut, "node_limit": 20_000}),
        "par": (solve.par, {"record": record, "node_limit": 20_000}),
        "best_score": (solve.best_score, {"record": cut, "node_limit": 20_000}),
        "game_value": (band.game_value, {"record": cut, "node_limit": 20_000}),
        "audit": (audit_mod.audit, {"directory": str(ds), "tricks": 1, "exact_tricks": 1, "deals": 2}),
        "scan": (dataset.scan, {"directory": str(ds)}),
        "cards": (dataset.cards, {"frame": frame}),
        "card_id": (game_cards.card_id, {"card": "QC"}),
        "card_name": (game_cards.card_name, {"card": 3}),
        "eyes": (game_cards.eyes, {"card": "QC"}),
        "trumps": (game_cards.trumps, {}),
        "suit": (game_cards.suit, {"card": "QC"}),
        "same_suit": (game_cards.same_suit, {}),
        "trick_winner": (game_cards.trick_winner, {"cards": ["QC", "9H", "AH", "TH"]}),
        "action_name": (game.action_name, {"action": 3}),
        "action_id": (game.action_id, {"text": "QC"}),
        "Game": (game.Game, {}),
        "solve_deals": (deal_solves.solve_deals, {"deals": 1, "node_limit": 200, "contracts": ["normal"]}),
        "value_deals": (deal_solves.value_deals, {"deals": 1, "node_limit": 200}),
        "VectorGame": (vector.VectorGame, {"n": 2}),
        "VectorGame.step": (vector.VectorGame(2, observation=None).step, {"actions": np.zeros(2, np.int64)}),
        "VectorGame.observe": (vector.VectorGame(2, observation=None).observe, {}),
        "Agent": (agents_mod.Agent, {"name": "random"}),
        "Agent.act": (agents_mod.Agent("random").act, {"game": game.Game()}),
        "play_deals": (agents_mod.play_deals, {"deals": 1, "seed": 1, "rules": "ddv", "names": ["random"] * 4}),
        "register_agent": (agents_mod.register_agent, {"name": "fuzz_agent", "agent": agents_mod.LowestCard}),
        "python_agent": (agents_mod.python_agent, {"name": "fuzz_agent"}),
        "reads_hidden": (agents_mod.reads_hidden, {"name": "fuzz_agent"}),
        "opponent_seats": (rl.opponent_seats, {}),
        "DoppelkopfEnv": (rl.DoppelkopfEnv, {}),
        "DoppelkopfParallelEnv": (rl.DoppelkopfParallelEnv, {}),
        "DoppelkopfEnv.reset": (rl.DoppelkopfEnv().reset, {}),
        "DoppelkopfGame": (openspiel_mod.DoppelkopfGame, {"params": {"deals": 4}}),
        "DoppelkopfObserver": (openspiel_mod.DoppelkopfObserver, {}),
        "heldout_rows": (fit.heldout_rows, {"deal_id": np.arange(5), "holdout": 0.1}),
        "legal_mask": (fit.legal_mask, {"legal": np.array([3, 5])}),
        "parquet_files": (fit.parquet_files, {"data_dir": str(ds)}),
        "load_data": (fit.load_data, {"data_dir": str(ds)}),
        "fit": (fit.fit, {"data_dir": str(ds), "out": str(work / "w.npz"), "epochs": 1}),
        "make_data": (data.make_data, {"deals": 1, "out": str(work / "td"), "params": {"samples": 2},
                                       "chunk_size": 1, "quiet": True}),
        "weight_shapes": (network.weight_shapes, {"n_features": 4, "hidden": 2}),
        "validate_weights": (network.validate_weights, {"weights": {}}),
        "forward_numpy": (network.forward_numpy, {"weights": {}, "x": np.zeros((1, 4))}),
    }


def main() -> int:
    work = Path(sys.argv[1])
    calls = int(sys.argv[2])
    chosen = sys.argv[3:]
    os.chdir(work)  # a relative path drawn stays in the scratch directory
    found = targets(work)
    values = hostile_values(work)
    rng = random.Random(47)
    bad = 0
    for name, (fn, plausible) in found.items():
        if chosen and name not in chosen:
            continue
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        names = [p.name for p in params]
        required = [p.name for p in params if p.default is p.empty and p.name not in plausible]
        started = time.perf_counter()
        plan = [{n: v} for n in names for v in values]  # each parameter with each value, alone
        for _ in range(calls):  # and a few with two hostile values at once
            if len(names) > 1:
                pair = rng.sample(names, 2)
                plan.append({n: values[rng.randrange(len(values))] for n in pair})
        for hit in plan:
            kwargs = {p.name: plausible[p.name] for p in params if p.name in plausible}
            kwargs.update({n: values[rng.randrange(len(values))] for n in required if n not in hit})
            kwargs.update(hit)
            no_solve = name in SOLVES_FROM_THE_FIRST_CARD and "node_limit" in hit
            try:
                if no_solve:
                    from unittest import mock

                    from dokosim.dd import solve as solve_module
                    with mock.patch.object(solve_module, "Solver", NoSolve):
                        fn(**kwargs)
                else:
                    fn(**kwargs)
            except ChecksPassed:
                pass  # a valid node limit: the solve would start here
            except Exception as exc:  # noqa: BLE001 (the point: which kinds come out)
                shown = {n: repr(v)[:60] for n, v in kwargs.items() if n in hit or n in required}
                if not allowed(exc):
                    bad += 1
                    first = str(exc).splitlines()[0][:200] if str(exc).strip() else ""
                    print(f"FUZZ {name}({shown}): {type(exc).__name__}: {first}")
                    if os.environ.get("FUZZ_TRACE"):
                        traceback.print_exc()
                elif not str(exc).strip():
                    bad += 1
                    print(f"FUZZ {name}({shown}): a {type(exc).__name__} with no message: {str(exc)[:200]!r}")
                elif problem := range_problem(exc, hit):
                    bad += 1
                    print(f"FUZZ {name}({shown}): the refusal {problem}: {str(exc)[:300]!r}")
        print(f"fuzzed {name}: {len(plan)} calls, {time.perf_counter() - started:.1f} s", flush=True)
    print(f"signature fuzz: done, {bad} bad")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
