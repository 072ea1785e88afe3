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

A deal plan (``contract``, ``declarer``, ``compulsory``, ``hands``, ``where``, ``where_path``:
``dokosim simulate``'s options of the same names) puts the rare situations a question asks about
into the data: the four hands are those ``dokosim simulate`` deals with the same options (the
conditioned deal of (seed, deal_id)), and a forced contract is declared at the reservations
(``declarer`` says the contract, every other seat healthy; a compulsory solo is owed by the
declarer). The play from there is ``player``'s, valued by the teacher, as without a plan.

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
DEAL_PLAN_KEYS = ("contract", "declarer", "compulsory", "hands", "where", "where_path")  # simulate's names
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


def deal_plan_of(deals: int, seed: int, rules, deal_plan: dict | None):
    """The simulator plan that deals the hands of a deal plan (None without one): simulate's
    validation, so a bad option is refused with simulate's message before any deal is played."""
    if not deal_plan:
        return None
    from ..run.simulator import make_plan
    if not isinstance(deal_plan, dict) or set(deal_plan) - set(DEAL_PLAN_KEYS):
        raise TrainDataError(f"deal_plan={shown(deal_plan)}: None or a dict with keys among "
                             f"{', '.join(DEAL_PLAN_KEYS)}")
    return make_plan(deals, seed, rules, "random", calls=False, **deal_plan)


def _dealt(plan, first: int, count: int) -> list[tuple[int, list[str]]]:
    """(dealer, the four hands in notation) of deals first .. first+count-1 of ``plan``."""
    from ..run.dataset import cards
    from ..run.simulator import Simulator
    frame = cards(Simulator(plan).frame(first, count).select("dealer", "hand_0", "hand_1", "hand_2", "hand_3"))
    return [(int(row[0]), [list(hand) for hand in row[1:]]) for row in frame.iter_rows()]


def _declare(game, plan) -> None:
    """The reservations of a forced contract: the declarer says it, every other seat healthy; a
    forced marriage is the seat's that holds both queens of clubs, and a normal game without one
    (as simulate forces them: loop/dealing.forced_contract)."""
    from ..engine import game_state as gs
    from ..engine.play import both_qc_seat
    from ..game.game import action_id
    g = game._g
    healthy = action_id("healthy")
    declared = action_id(plan.contract) if plan.contract != "normal" else healthy
    declarer = plan.declarer
    if plan.contract == "marriage":
        declarer = int(both_qc_seat(g[gs.O_HANDS:gs.O_HANDS + 4]))  # -1: nobody, a normal game
        declared = declared if declarer >= 0 else healthy
    while g[gs.G_PHASE] == gs.PH_RESERVATION:
        action = declared if int(g[gs.G_PLAYER]) == declarer else healthy
        if not int(g[gs.G_LEGAL]) >> action & 1:
            raise TrainDataError(f"contract={plan.contract!r}: seat {int(g[gs.G_PLAYER])} cannot say "
                                 f"{'it' if action == declared else 'healthy'} in this deal")
        game.apply_action(action)


def _schema(n_features: int) -> dict:
    return {"deal_id": pl.Int64, "seat": pl.Int8, "trick": pl.Int8,
            "features": pl.Array(pl.Float32, n_features), "legal": pl.Int64,
            "values": pl.Array(pl.Float32, 24), "choice": pl.Int8, "outcome": pl.Float32}


def play_chunk(first: int, count: int, seed: int, teacher: str, params: dict, rules,
               player: str | None = None, deal_plan: dict | None = None) -> pl.DataFrame:
    """The rows of deals ``first .. first+count-1`` (see the module doc); ``player`` None: the
    teacher plays; ``deal_plan``: the hands and the forced contract (the module doc)."""
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
    plan = deal_plan_of(first + count, seed, rules, deal_plan)
    dealt = _dealt(plan, first, count) if plan is not None else None
    rows = {k: [] for k in ("deal_id", "seat", "trick", "legal", "choice")}
    features, values, outcome = [], [], []
    for deal_id in range(first, first + count):
        if dealt is None:
            game = Game(rules, seed=seed, deal_id=deal_id)
        else:
            dealer, hands = dealt[deal_id - first]
            game = Game(rules, seed=seed, deal_id=deal_id, dealer=dealer, hands=hands,
                        owes_solo=(plan.declarer,) if plan.compulsory else ())
            if plan.contract is not None:
                _declare(game, plan)
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


def _chunk_rows(seed: int, teacher: str, params: dict, rules, player: str | None, deal_plan: dict | None,
                chunk) -> pl.DataFrame:
    """``play_chunk`` of a run driver's chunk (a module function: a process pool's task pickles)."""
    return play_chunk(chunk.first, chunk.count, seed, teacher, params, rules, player, deal_plan)


def make_data(deals: int, out, seed: int = 0, teacher: str = "pimc", params: dict | None = None,
              rules="ddv", chunk_size: int = DEFAULT_CHUNK, jobs: int = 1, quiet: bool = False,
              player: str | None = None, deal_plan: dict | None = None) -> Path:
    """Play ``deals`` deals of ``seed`` with ``player`` (default: ``teacher``) at every seat and
    write ``teacher``'s values of every card decision to the directory ``out`` (the module doc);
    ``deal_plan`` (a dict of simulate's ``contract``, ``declarer``, ``compulsory``, ``hands``,
    ``where``, ``where_path``) deals and forces the situations to learn from; ``jobs`` worker
    processes play chunks at once. Returns the directory. Resumes a run of the same arguments in
    ``out``."""
    from ..run.driver import Progress, RunPlan, chunks_of, run_dataset
    from ..run.executors import LOST, InProcess, ProcessPool
    from ..strategies.net_features import N_FEATURES
    from ..version import __version__
    deals, seed, strategy, rules_obj, chunk_size = _plan(deals, seed, teacher, params, rules, chunk_size, player)
    if isinstance(deal_plan, dict):  # the options not given are simulate's defaults
        deal_plan = {k: v for k, v in deal_plan.items() if v is not None and v is not False} or None
    plan = deal_plan_of(deals, seed, rules_obj, deal_plan)  # refused here, before the directory
    out = check_path_value("out", out, TrainDataError)
    player = teacher if player is None else player
    jobs = check_int("jobs", jobs, 1, 256, TrainDataError)
    if plan is not None:  # a condition too rare to deal: refused before the directory, as simulate does
        plan.measure_conditions(quiet)
    manifest = {"kind": "train_data", "format": DATA_FORMAT, "seed": seed, "deals": deals,
                "chunk_size": chunk_size, "teacher": teacher, "params": strategy.params,
                "player": None if player == teacher else player,  # None: the teacher (as in runs before --player)
                "rules": rules_obj.to_dict(), "n_features": N_FEATURES, "dokosim_version": __version__}
    keys = DATA_KEYS
    if plan is not None:  # only then an identity key: a plain run's plan is as before
        manifest["deal_plan"] = deal_plan
        keys = DATA_KEYS + ("deal_plan",)
    user_params = {k: float(v) for k, v in (params or {}).items()}
    started = time.time()
    # jobs 1: in this process, chunk k written by the driver's writer thread while k+1 plays
    executor = InProcess() if jobs == 1 else ProcessPool(jobs, LOST + " (with fewer --jobs if memory is short)")
    run_dataset(chunks_of(deals, chunk_size), functools.partial(_chunk_rows, seed, teacher, user_params, rules_obj, player,
                                                           deal_plan),
                Path(out), RunPlan(manifest, keys, rows_per_unit=None), executor=executor,  # rows per deal vary
                progress=Progress(quiet, bar={"unit": "deal", "desc": f"train data ({teacher}" + (
                    ")" if player == teacher else f" on {player}'s deals)")}))
    if not quiet:
        print(f"dokosim: train data: {deals:,} deals in {Path(out)} ({time.time() - started:.0f} s this run)",
              file=sys.stderr)
    return Path(out)
