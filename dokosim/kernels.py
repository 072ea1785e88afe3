"""The compiled kernels: which there are, and compiling them all once (``dokosim compile``).

dokosim compiles a handful of kernels, each once per machine (numba's on-disk cache, stamped
with the package's source, see engine/jit.py): the deal loop (simulate, sessions and call
probes in one kernel, loop/sim_loop.run_chunk), the record replay, and each strategy that is not
inlined in the loop (heuristic, pimc and users' plug-ins, see loop/strategy_call.py). Any
combination of strategies at any seats, in any command, reuses them.

``compile_all`` (``dokosim compile``) compiles every built-in kernel ahead of use, for a cluster
image, a notebook server or CI; engine/jit.py tells the user, before a kernel compiles, what is
compiling and about how long it takes.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Kernel:
    """A built-in kernel that ``dokosim compile`` compiles: a label and how to compile it."""

    what: str
    run: Callable[[], None]


def _deal_loop():
    from .run.simulate import simulate
    simulate(8, seed=0, strategy="random,simple,random,simple", quiet=True)
    simulate(8, seed=0, strategy="random", quiet=True, where="trumps(0) >= 0")  # the conditional deal


# one deal as GAME_RECORD.md writes it (the first of examples/records.jsonl), to compile the replay
SAMPLE_RECORD = {'announcements': [{'call': 're', 'cards_played': 1, 'seat': 3},
                                   {'call': 'no90', 'cards_played': 9, 'seat': 0},
                                   {'call': 'no60', 'cards_played': 13, 'seat': 0}],
                 'contract': {'type': 'normal'},
                 'dealer': 3,
                 'hands': ['TH AD TS QC 9D QS KD KD JH QH JC 9S', 'JD QS 9H JH JS JS QD AC 9C KH TC AS',
                           'JC QD 9H QH 9S KS KC AC 9C KS AS AH', 'AD TH AH TD QC 9D JD KC TD TS TC KH'],
                 'play': ['TH', 'JD', 'JC', 'AD', 'AD', 'QS', 'QD', 'TH', 'AH', 'TS', '9H', '9H', 'TD', 'QC',
                          'JH', 'QH', '9D', 'JS', '9S', 'QC', '9D', 'QS', 'JS', 'KS', 'KD', 'QD', 'KC', 'JD',
                          'AC', 'AC', 'KC', 'KD', 'JH', '9C', '9C', 'TD', 'QH', 'KH', 'KS', 'TS', 'JC', 'TC',
                          'AS', 'TC', '9S', 'AS', 'AH', 'KH'],
                 'rules': 'ddv'}


def _record_replay():
    from .records.record import score_objects
    score_objects([SAMPLE_RECORD])


def _solver():
    from .dd.solve import solve
    solve({**SAMPLE_RECORD, "play": SAMPLE_RECORD["play"][:44]})
    from .dd.audit import audit_records
    audit_records([SAMPLE_RECORD], tricks=2)  # its audit_line (dokosim audit)
    from .dd.solve import best_score
    best_score({**SAMPLE_RECORD, "play": SAMPLE_RECORD["play"][:44]})  # the best-score search


def _vector_game():
    from .game.vector import VectorGame
    vec = VectorGame(2)
    vec.step(vec.random_actions())
    vec.observe(dtype="uint8")
    vec.observe()


def _game():
    from .game.agents import Agent
    from .game.game import Game
    game = Game(seed=0)
    game.apply_action(Agent("random").act(game))
    game.observation_tensor(0)
    game.resample(0, 0)


def _advice():
    from .game.game import Game
    from .rules import rules_from_object
    from .studies.advise import parse_hand
    from .studies.advise_calls import call_advice
    from .studies.advise_poverty import accept_advice, give_advice
    game = Game(seed=0)
    while game.phase == "reservation":
        game.apply_action(game.legal_actions()[0])  # healthy
    call_advice(game, deals=2, threads=1)
    poor = parse_hand("AD 9D AC AC TC KC AS TS KS AH KH 9H", rules_from_object("club"))
    accept_advice(poor, seat=1, poor=0, rules="club", deals=2, threads=1)
    give_advice(poor, seat=0, rules="club", deals=2, threads=1)


def _strategy(name):
    def run():
        from .loop.registry import compiled_strategy, resolve
        compiled_strategy(resolve(name).module_path)
    return run


KERNELS = (
    Kernel("the deal loop", _deal_loop),
    Kernel("the heuristic strategy", _strategy("heuristic")),
    Kernel("the pimc strategy", _strategy("pimc")),
    Kernel("the ismcts strategy", _strategy("ismcts")),
    Kernel("the net strategy", _strategy("net")),
    Kernel("the record replay", _record_replay),
    Kernel("the double-dummy solver", _solver),
    Kernel("the game kernels", _game),
    Kernel("the batched game", _vector_game),
    Kernel("the advice kernels", _advice),
)


def _compile_one(index: int) -> tuple[int, float]:
    t = time.perf_counter()
    KERNELS[index].run()
    return index, time.perf_counter() - t


def _compile_in_worker(index: int) -> tuple[int, float]:
    os.environ["DOKOSIM_QUIET_COMPILE"] = "1"  # the parent process reports
    return _compile_one(index)


def compile_all(jobs: int = 1, progress=None) -> dict[str, float]:
    """Compile (or load from the cache) every built-in kernel; returns seconds per kernel.

    ``jobs`` > 1 compiles in that many worker processes (numba compiles on one core per
    process). ``progress(what, seconds)`` is called as each kernel is done.
    """
    done: dict[str, float] = {}
    if jobs <= 1:
        for i in range(len(KERNELS)):
            _, seconds = _compile_one(i)
            done[KERNELS[i].what] = seconds
            if progress:
                progress(KERNELS[i].what, seconds)
        return done
    # KERNELS' order: the loop, the longest, first; heuristic before pimc, which calls its kernels
    from .run.workers import WorkerPool
    with WorkerPool(jobs) as pool:  # Ctrl-C: the workers stopped at once
        for _, (i, seconds) in pool.run(_compile_in_worker, range(len(KERNELS))):
            done[KERNELS[i].what] = seconds
            if progress:
                progress(KERNELS[i].what, seconds)
    return done
