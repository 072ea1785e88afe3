"""``dokosim train data``: a search player's card decisions as training data for ``net``.

Deals ``0 .. deals-1`` of ``seed`` are played through ``dokosim.Game`` by ``player`` at every seat
(the teacher itself by default; another strategy, e.g. ``net``, for a round of data on the
positions that strategy reaches, as in DAgger and expert iteration), and the teacher (``pimc`` or
``pimc_solver``) values every card decision. At every card decision with more than one kind of card to
choose from, a row records what the player saw (``features``: the ``net`` encoding,
strategies/net_features.py), the legal kinds, the search's mean value of every legal kind
(``values``: the score points it expects for the seat, NaN where not legal) and the kind the teacher
would play (``choice``; the card actually played is ``player``'s); once the deal is over, every row of it gets the seat's score (``outcome``). Reservations, the
poverty and calls are ``player``'s own and are not recorded. With the teacher as the player, the
deal is the deal the teacher plays at every seat of ``dokosim simulate`` (the same random
stream); either way every row depends only on (seed, deal_id).

The run is chunked and resumable (the run driver, run/driver.py): ``out`` is a directory of
Parquet files with a manifest and a ledger; an interrupted run, started again with the same
command, plays only the chunks that are missing.
"""
from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

from ..validation import SimulationError, check_int, check_path_value, shown

TEACHERS = ("pimc", "pimc_solver")
DATA_KEYS = ("kind", "format", "seed", "deals", "chunk_size", "teacher", "params", "player", "rules")
DATA_FORMAT = 1
DEFAULT_CHUNK = 50


class TrainDataError(SimulationError):
    """A bad argument of ``make_data`` (one line naming it)."""


def _plan(deals, seed, teacher, params, rules, chunk_size, player=None):
    from ..loop.registry import BUILTIN, resolve
    from ..rules import rules_from_object
    if not isinstance(teacher, str) or teacher not in TEACHERS:
        raise TrainDataError(f"teacher={teacher!r}: the teacher is a search player, one of {', '.join(TEACHERS)}")
    if player is not None and (not isinstance(player, str) or player not in BUILTIN):
        raise TrainDataError(f"player={player!r}: the player is a built-in strategy, one of {', '.join(BUILTIN)}")
    if params is not None and (not isinstance(params, dict) or not all(
            isinstance(k, str) and isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            for k, v in params.items())):
        raise TrainDataError(f"params={shown(params)}: None or a dict of the teacher's parameters, name -> "
                             "number (e.g. {'samples': 40})")
    deals = check_int("deals", deals, 1, 10**9, TrainDataError)
    seed = check_int("seed", seed, 0, 2**63 - 1, TrainDataError)
    chunk_size = check_int("chunk_size", chunk_size, 1, 10**6, TrainDataError)
    rules = rules_from_object(rules)  # a preset name, a dict or Rules (the CLI passes Rules)
    strategy = resolve(teacher, params or {})
    return deals, seed, strategy, rules, chunk_size


def _schema(n_features: int) -> dict:
    return {"deal_id": pl.Int64, "seat": pl.Int8, "trick": pl.Int8,
            "features": pl.Array(pl.Float32, n_features), "legal": pl.Int64,
            "values": pl.Array(pl.Float32, 24), "choice": pl.Int8, "outcome": pl.Float32}


def play_chunk(first: int, count: int, seed: int, teacher: str, params: dict, rules,
               player: str | None = None) -> pl.DataFrame:
    """The rows of deals ``first .. first+count-1`` (see the module doc); ``player`` None: the
    teacher plays."""
    from ..engine import game_state as gs
    from ..engine.jit import ensure_loop
    from ..engine.layout import P_TRICK
    from ..game.agents import Agent
    from ..game.game import Game
    from ..loop.teacher_step import teacher_card
    from ..strategies.net_features import N_FEATURES
    agent = Agent(teacher, **params)
    actor = agent if player is None or player == teacher else Agent(player)
    step = ensure_loop(teacher_card, "the training-data kernels")
    param_vector = agent._params
    min_cards = agent.strategy.params["min_cards"]  # below it pimc plays heuristic's card: not recorded
    rows = {k: [] for k in ("deal_id", "seat", "trick", "legal", "choice")}
    features, values, outcome = [], [], []
    for deal_id in range(first, first + count):
        game = Game(rules, seed=seed, deal_id=deal_id)
        g = game._g
        start = len(rows["deal_id"])
        seats = []
        while g[gs.G_PHASE] != gs.PH_TERMINAL:
            legal = int(g[gs.G_LEGAL])
            seat = int(g[gs.G_PLAYER])
            if (g[gs.G_PHASE] == gs.PH_CARD and legal & (legal - 1)  # a card, more than one kind,
                    and bin(int(g[gs.O_HANDS + seat])).count("1") >= min_cards):  # decided by the search

                f = np.zeros(N_FEATURES, dtype=np.float32)
                v = np.zeros(24, dtype=np.float32)
                kind = int(step(g, game._rng, param_vector, f, v))
                rows["deal_id"].append(deal_id)
                rows["seat"].append(seat)
                rows["trick"].append(int(g[gs.O_ST + P_TRICK]))
                rows["legal"].append(legal)
                rows["choice"].append(kind)
                features.append(f)
                values.append(v)
                seats.append(seat)
                game.apply_action(kind if actor is agent else actor.act(game))
            else:
                game.apply_action(actor.act(game))
        scores = game.returns()
        outcome.extend(float(scores[s]) for s in seats)
        assert len(outcome) == len(rows["deal_id"]) and len(seats) == len(rows["deal_id"]) - start
    n = len(outcome)
    frame = pl.DataFrame({
        **{k: pl.Series(k, v, dtype=_schema(N_FEATURES)[k]) for k, v in rows.items()},
        "features": pl.Series("features", np.array(features, dtype=np.float32).reshape(n, N_FEATURES),
                              dtype=pl.Array(pl.Float32, N_FEATURES)),
        "values": pl.Series("values", np.array(values, dtype=np.float32).reshape(n, 24),
                            dtype=pl.Array(pl.Float32, 24)),
        "outcome": pl.Series("outcome", outcome, dtype=pl.Float32),
    })
    return frame.select(list(_schema(N_FEATURES)))


def _chunk_rows(seed: int, teacher: str, params: dict, rules, player: str | None, chunk) -> pl.DataFrame:
    """``play_chunk`` of a run driver's chunk (a module function: a process pool's task pickles)."""
    return play_chunk(chunk.first, chunk.count, seed, teacher, params, rules, player)


def make_data(deals: int, out, seed: int = 0, teacher: str = "pimc", params: dict | None = None,
              rules="ddv", chunk_size: int = DEFAULT_CHUNK, jobs: int = 1, quiet: bool = False,
              player: str | None = None) -> Path:
    """Play ``deals`` deals of ``seed`` with ``player`` (default: ``teacher``) at every seat and
    write ``teacher``'s values of every card decision to the directory ``out`` (the module doc);
    ``jobs`` worker processes play chunks at once. Returns the directory. Resumes a run of the
    same arguments in ``out``."""
    from ..run.driver import Progress, RunPlan, chunks_of, run_dataset
    from ..run.executors import LOST, InProcess, ProcessPool
    from ..strategies.net_features import N_FEATURES
    from ..version import __version__
    deals, seed, strategy, rules_obj, chunk_size = _plan(deals, seed, teacher, params, rules, chunk_size, player)
    out = check_path_value("out", out, TrainDataError)
    player = teacher if player is None else player
    jobs = check_int("jobs", jobs, 1, 256, TrainDataError)
    manifest = {"kind": "train_data", "format": DATA_FORMAT, "seed": seed, "deals": deals,
                "chunk_size": chunk_size, "teacher": teacher, "params": strategy.params,
                "player": None if player == teacher else player,  # None: the teacher (as in runs before --player)
                "rules": rules_obj.to_dict(), "n_features": N_FEATURES, "dokosim_version": __version__}
    user_params = {k: float(v) for k, v in (params or {}).items()}
    started = time.time()
    # jobs 1: in this process, chunk k written by the driver's writer thread while k+1 plays
    executor = InProcess() if jobs == 1 else ProcessPool(jobs, LOST + " (with fewer --jobs if memory is short)")
    run_dataset(chunks_of(deals, chunk_size), functools.partial(_chunk_rows, seed, teacher, user_params, rules_obj, player),
                Path(out), RunPlan(manifest, DATA_KEYS, rows_per_unit=None), executor=executor,  # rows per deal vary
                progress=Progress(quiet, bar={"unit": "deal", "desc": f"train data ({teacher}" + (
                    ")" if player == teacher else f" on {player}'s deals)")}))
    if not quiet:
        print(f"dokosim: train data: {deals:,} deals in {Path(out)} ({time.time() - started:.0f} s this run)",
              file=sys.stderr)
    return Path(out)
