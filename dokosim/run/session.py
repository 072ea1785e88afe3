"""``dokosim.simulate_sessions``: whole sessions (tournament rounds) of deals with the dealer moving on.

A session is a tournament round (RULES.md 1.3): 24 deals with four players, 30
with five, each player owing one compulsory solo; with the house rules ``bock``
(bock rounds double the scores) and ``five_players`` (the dealer sits out).
Sessions run in parallel in the numba kernel ``run_chunk`` (MODE_SESSIONS) of
``sim_loop.py``; the deals of a session run one after the other through the
same per-deal code as ``simulate``. Every row depends only on (seed, session id).
See docs/sessions.md.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numba
import numpy as np
import polars as pl

from ..version import __version__
from .dataset import CONTRACT_ENUM, WINNER_ENUM, typed_column
from .driver import Progress, RunPlan, chunks_of, run_dataset
from ..rules import Rules, rules_from_object
from .conditions import DEFAULT_MAX_TRIES, Conditions, measure, parse_conditions, report_acceptance
from .simulate import SimulationError
from .simulator import PROGRESS, check_dealt, seat_parameters
from ..engine.jit import ensure_loop
from ..validation import MAX_ROUNDS
from ..loop.registry import MAX_PARAMS, Strategy, resolve, simulation_kernel, strategy_table
from ..validation import (
    check_bool, check_int, check_optional_int, check_path, check_seed, check_threads, strategy_names,
)

SESSION_SCHEMA_VERSION = 1
DEFAULT_SESSION_CHUNK = 20_000
SESSION_KEYS = ("kind", "schema_version", "seed", "rounds", "deals_per_session", "players",
                "chunk_size", "rules", "strategies", "params", "compulsory", "calls", "keep_play",
                "conditions")
# the kernel's row layout (loop/sessions.SESSION_COLUMNS); per-player blocks have five slots
_COMMON_TYPES = {
    "session_id": pl.Int64, "deal_number": pl.Int16, "dealer": pl.Int8,
    "contract": CONTRACT_ENUM, "declarer": pl.Int8, "re_mask": pl.Int8, "eyes_re": pl.Int16,
    "tricks_re": pl.Int8, "calls_re": pl.Int8, "calls_kontra": pl.Int8,
    "first_call_re": pl.Int8, "first_call_kontra": pl.Int8, "soloist": pl.Int8,
    "clarifying_trick": pl.Int8, "winner": WINNER_ENUM, "game_value": pl.Int16,
    "fox_re": pl.Int8, "fox_kontra": pl.Int8, "doppelkopf_re": pl.Int8,
    "doppelkopf_kontra": pl.Int8, "charlie_re": pl.Int8, "charlie_kontra": pl.Int8,
    "against_the_queens": pl.Boolean, "redeals": pl.Int16, "poverty_partner": pl.Int8,
    "poverty_passed": pl.Int64, "poverty_returned": pl.Int64, "piglets": pl.Int8,
    "compulsory_solo": pl.Boolean, "forced_solo": pl.Boolean, "bock": pl.Int8,
    "bock_triggers": pl.Int8, "bock_queue": pl.Int16,
}
_PER_PLAYER = (("hand", pl.Int64), ("score", pl.Int16), ("total", pl.Int32))


class SessionError(SimulationError):
    """Bad arguments to simulate_sessions (one-line message naming the bad value)."""


@dataclass
class SessionPlan:
    """Everything that decides the rows of a session run (the dataset manifest's identity)."""

    rounds: int
    seed: int = 0
    rules: Rules = field(default_factory=Rules)
    strategies: list[Strategy] = field(default_factory=list)
    deals_per_session: int = 24
    compulsory: bool = True
    calls: bool = True
    chunk_size: int = DEFAULT_SESSION_CHUNK
    keep_play: bool = False  # each deal's game record in the dataset's ``record`` column
    conditions: Conditions | None = None  # conditions on every deal (dokosim.conditions)
    acceptance: dict | None = None  # measured before the run, for the manifest

    @property
    def players(self) -> int:
        return 5 if self.rules.five_players else 4

    def control(self) -> np.ndarray:
        """sim_loop's control vector: no forced contract, no fixed hand, calls and kept play as asked,
        and the conditions' block."""
        control = np.array([-1, -1, 0, 0, int(self.calls), int(self.keep_play), -1, 0], dtype=np.int64)
        if self.conditions is None:
            return control
        return np.concatenate([control, self.conditions.block()])

    def manifest(self) -> dict:
        return {
            "kind": "sessions", "dokosim_version": __version__,
            "schema_version": SESSION_SCHEMA_VERSION, "seed": self.seed, "rounds": self.rounds,
            "deals_per_session": self.deals_per_session, "players": self.players,
            "chunk_size": self.chunk_size, "rules": self.rules.to_dict(),
            "strategies": [s.name for s in self.strategies],
            "params": [s.params for s in self.strategies], "compulsory": self.compulsory,
            "calls": self.calls, "keep_play": self.keep_play,
            **({"conditions": self.conditions.manifest(), "conditions_acceptance": self.acceptance}
               if self.conditions else {}),
        }


def make_session_plan(rounds: int, seed: int = 0, rules="ddv", strategy="random", params=None,
                      deals=None, compulsory=True, calls=True,
                      chunk_size=DEFAULT_SESSION_CHUNK, keep_play=False, hands=None, where=None,
                      where_path=None, max_tries=DEFAULT_MAX_TRIES) -> SessionPlan:
    """Validate simulate_sessions' arguments into a plan: SessionError (StrategyError for a
    strategy or its parameters, RulesError for the rules) naming the bad argument, its value and
    what is valid (dokosim.validation)."""
    rounds = check_int("rounds", rounds, 0, MAX_ROUNDS, SessionError,
                       f"an integer from 0, at most {MAX_ROUNDS:,} per run")
    seed = check_seed(seed, SessionError)
    chunk_size = check_int("chunk_size", chunk_size, 1, MAX_ROUNDS, SessionError)
    compulsory = check_bool("compulsory", compulsory, SessionError)
    calls = check_bool("calls", calls, SessionError)
    keep_play = check_bool("keep_play", keep_play, SessionError)
    rules = rules_from_object(rules, session=True)
    players = 5 if rules.five_players else 4
    names = strategy_names(strategy, players, SessionError)
    strategies = [resolve(name, overrides) for name, overrides
                  in zip(names, seat_parameters(params, names, players, SessionError), strict=True)]
    deals = check_optional_int("deals", deals, 1, 64, SessionError,
                               "None (6 per player) or an integer from 1 to 64 (deals per session)")
    if deals is None:
        deals = 6 * players
    if compulsory and deals < players:
        raise SessionError(f"deals per session ({deals}) must be at least the number of players "
                           f"({players}) when each owes a compulsory solo (or compulsory=False)")
    if compulsory and not rules.solos:
        raise SessionError("compulsory solos need at least one solo kind in rules option 'solos' "
                           "(or compulsory=False)")
    conditions = parse_conditions(hands, where, where_path, rules, None, max_tries)
    if conditions is not None and players == 5:
        raise SessionError("conditions (hands, where, where_path) need four players: with five_players "
                           "the seats of a deal move with the dealer")
    return SessionPlan(rounds, seed, rules, strategies, deals, compulsory, calls, chunk_size, keep_play,
                       conditions)


class SessionSimulator:
    """A session plan's compiled kernel and output buffer, reused chunk after chunk."""

    def __init__(self, plan: SessionPlan):
        self.plan = plan
        self.module = simulation_kernel()
        self.strategy_table, self.strategy_ids = strategy_table(plan.strategies)
        self.params = np.zeros((plan.players, MAX_PARAMS), dtype=np.float64)
        for seat, s in enumerate(plan.strategies):
            self.params[seat] = s.param_vector()
        self.control = plan.control()
        self.rules = plan.rules.packed()
        self._outs = [np.zeros((0, self.module.SESSION_LEN), dtype=np.int64)] * 2  # frame_later's two
        self._turn = 1
        self._plays, self._calls = self.module.no_logs()

    def rows(self, first: int, n: int, buffer: int = 0) -> np.ndarray:
        """The rows of sessions first .. first+n-1 (n * deals_per_session x SESSION_LEN), a view
        of the buffer valid until the next call with the same ``buffer`` (0, or 1: the second
        buffer of ``frame_later``); with ``keep_play``, each deal's cards and calls are then in
        ``logs(n)``."""
        size = n * self.plan.deals_per_session
        if size > self._outs[buffer].shape[0]:
            self._outs[buffer] = np.zeros((size, self.module.SESSION_LEN), dtype=np.int64)
            if self.plan.keep_play and size > self._plays.shape[0]:
                self._plays = np.zeros((size, 48), dtype=np.int64)
                self._calls = np.zeros((size, self._calls.shape[1], 3), dtype=np.int64)
        out = self._outs[buffer][:size]
        if n:
            n_blocks = min(n, 4 * numba.get_num_threads())
            loop = ensure_loop(self.module.run_chunk, "the deal loop")
            m = self.module
            loop(m.Run(m.MODE_SESSIONS, self.plan.seed, self.plan.deals_per_session, self.plan.players,
                       int(self.plan.compulsory), 0, self.control, self.rules), first, n, n_blocks,
                 m.Seats(self.strategy_table, self.strategy_ids, self.params), m.Rows(out, self._plays, self._calls))
            if self.plan.conditions is not None:
                index = self.module.SESSION_COLUMNS.index
                check_dealt(out[:, index("redeals")], out[:, index("session_id")], self.plan.conditions.max_tries)
        return out

    def logs(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The cards (physical, in play order) and calls (cards_played, engine seat, level; -1
        after the last) of the deals of the last ``rows(first, n)``, a row per deal (keep_play)."""
        size = n * self.plan.deals_per_session
        return self._plays[:size], self._calls[:size]

    def frame(self, first: int, n: int) -> pl.DataFrame:
        """The dataset rows of sessions first .. first+n-1 as a DataFrame."""
        return self._frame(self.rows(first, n), n)

    def frame_later(self, first: int, n: int):
        """Play sessions first .. first+n-1 now and return a function that builds their
        DataFrame (for the run driver's writer thread, as ``Simulator.frame_later``: two buffers
        alternate, so a function is valid until the second call after the one that returned it;
        with ``keep_play`` the frame is built at once, from the play logs)."""
        if self.plan.keep_play:
            return self.frame(first, n)
        self._turn = buffer = 1 - self._turn
        out = self.rows(first, n, buffer)
        return lambda: self._frame(out, n)

    def _frame(self, out: np.ndarray, n: int) -> pl.DataFrame:
        index = {name: i for i, name in enumerate(self.module.SESSION_COLUMNS)}
        cols = {name: typed_column(name, dtype, out[:, index[name]])
                for name, dtype in _COMMON_TYPES.items()}
        for prefix, dtype in _PER_PLAYER:
            for p in range(self.plan.players):
                cols[f"{prefix}_{p}"] = pl.Series(f"{prefix}_{p}", out[:, index[f"{prefix}_{p}"]]).cast(dtype)
        rows = out.shape[0]
        for p, s in enumerate(self.plan.strategies):
            cols[f"strategy_{p}"] = pl.repeat(s.name, rows, eager=True, dtype=pl.String).cast(pl.Categorical)
        if self.plan.keep_play:
            from ..records.record import session_records
            plays, calls = self.logs(n)
            cols["record"] = pl.Series("record", session_records(self.plan, out, index, plays, calls),
                                       dtype=pl.String)
        return pl.DataFrame(cols)


def simulate_sessions(rounds: int, seed: int = 0, rules="ddv", strategy="random", *, deals=None,
                      compulsory=True, calls=True, params=None, out=None, threads=None,
                      chunk_size: int = DEFAULT_SESSION_CHUNK, quiet=True, keep_play=False, hands=None,
                      where=None, where_path=None, max_tries=DEFAULT_MAX_TRIES):
    """Play ``rounds`` sessions (tournament rounds) of ``deals`` deals each (default 24, 30 with
    five players); one row per played deal. Rows depend only on (seed, session_id).

    ``strategy``: one name for everybody, or one per player (4, or 5 with ``five_players``).
    ``compulsory``: each player owes one compulsory solo (RULES.md 1.3); ``False`` plays the
    deals without. ``rules`` may use ``bock`` and ``five_players``. Without ``out`` returns a
    polars DataFrame; with ``out`` writes a Parquet dataset there (``chunk_size`` sessions per
    file), resuming an interrupted run, and returns its path. ``keep_play`` adds a ``record``
    column: each deal's game record (GAME_RECORD.md), which ``dokosim score`` scores as the row.
    ``hands``, ``where``, ``where_path``: conditions every deal of every session satisfies, as
    for ``simulate`` (docs/conditions.md; four players only).
    """
    plan = make_session_plan(rounds, seed, rules, strategy, params, deals, compulsory, calls, chunk_size,
                              keep_play, hands, where, where_path, max_tries)
    threads = check_threads(threads, SessionError)
    check_path("out", out, SessionError)
    check_bool("quiet", quiet, SessionError)
    if threads is not None:
        numba.set_num_threads(threads)
    # the output is checked (and the manifest written) before the strategies compile or a deal is played
    per = plan.deals_per_session
    sim = functools.cache(lambda: SessionSimulator(plan))
    run = run_dataset(chunks_of(plan.rounds, plan.chunk_size), lambda c: sim().frame_later(c.first, c.count), out,
                      RunPlan(lambda: _measured_manifest(plan, quiet), SESSION_KEYS, rows_per_unit=per),
                      setup=sim, progress=Progress(quiet, scale=per, bar=PROGRESS))
    if run.directory is not None:
        return run.directory
    return pl.concat(run.frames) if run.frames else sim().frame(0, 0)


def _measured_manifest(plan: SessionPlan, quiet: bool) -> dict:
    """The manifest of ``plan`` once its conditions' acceptance rate is measured (the run driver's
    RunPlan.manifest: after the output is checked, before the directory is opened)."""
    if plan.conditions is not None:
        from ..loop.conditions import measure_acceptance
        ensure_loop(measure_acceptance, "the conditional deal")
        plan.acceptance = measure(plan.conditions, plan.control(), plan.seed,
                                  plan.rounds * plan.deals_per_session)
        report_acceptance(plan.acceptance, quiet)
    return plan.manifest()

def session_summary(frame: pl.DataFrame, players: int) -> dict:
    """Per-player mean score per deal and per session, compulsory solos and bock, for the CLI."""
    sessions = frame["session_id"].n_unique() if frame.height else 0
    last = frame.filter(pl.col("deal_number") == pl.col("deal_number").max().over("session_id"))
    return {
        "sessions": sessions, "deals": frame.height,
        "mean_total": {f"player_{p}": float(last[f"total_{p}"].mean()) if sessions else None
                       for p in range(players)},
        "mean_score_per_deal": {f"player_{p}": float(frame[f"score_{p}"].cast(pl.Float64).mean())
                                if frame.height else None for p in range(players)},
        "compulsory_solos": int(frame["compulsory_solo"].sum()),
        "forced_solos": int(frame["forced_solo"].sum()),
        "bock_deals": int((frame["bock"] == 2).sum()),
        "compulsory_solo_re_win_rate": float((frame.filter(pl.col("compulsory_solo"))["winner"] == "re").mean())
        if frame["compulsory_solo"].any() else None,
    }
