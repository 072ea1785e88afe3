"""``dokosim.simulate``: deal and play many deals, returning a DataFrame or writing a dataset."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np
import polars as pl

from . import __version__
from .cards import C_MARRIAGE, C_NORMAL, C_SOLO_BASE, NINES_MASK, SOLO_KINDS, mask_str, parse_card_type
from .kernels import ensure_loop
from .limits import MAX_DEALS
from .dataset import SCHEMA_VERSION, frame_from_rows, prepare, write_chunk
from .engine.layout import MAX_CALL_LOG, OUT_LEN
from .rules import Rules, rules_from_object
from .strategies.registry import MAX_PARAMS, Strategy, resolve, simulation_kernel, strategy_table

FORCEABLE = ("normal", "marriage", *[f"{k}_solo" for k in SOLO_KINDS])
DEFAULT_CHUNK = 250_000


class SimulationError(ValueError):
    """Bad arguments to simulate (each message names the bad value and what is valid)."""


@dataclass
class SimulationPlan:
    """Everything that decides the rows of a run (the dataset manifest's identity)."""

    deals: int
    seed: int = 0
    rules: Rules = field(default_factory=Rules)
    strategies: list[Strategy] = field(default_factory=list)
    dealer: int | None = None
    contract: str | None = None
    declarer: int = 0
    compulsory: bool = False
    calls: bool = True
    keep_play: bool = False
    chunk_size: int = DEFAULT_CHUNK
    fixed_hand: tuple[int, int] | None = None  # (seat, 48-bit hand mask)

    def control(self) -> np.ndarray:
        """The control vector of sim_loop (CTL_*)."""
        forced = -1
        if self.contract == "normal":
            forced = C_NORMAL
        elif self.contract == "marriage":
            forced = C_MARRIAGE
        elif self.contract is not None:
            forced = C_SOLO_BASE + SOLO_KINDS.index(self.contract[:-len("_solo")])
        fixed_seat, fixed_mask = self.fixed_hand if self.fixed_hand is not None else (-1, 0)
        return np.array([-1 if self.dealer is None else self.dealer, forced, self.declarer,
                         int(self.compulsory), int(self.calls), int(self.keep_play), fixed_seat,
                         fixed_mask], dtype=np.int64)

    def manifest(self) -> dict:
        return {
            "dokosim_version": __version__, "schema_version": SCHEMA_VERSION,
            "seed": self.seed, "deals": self.deals, "chunk_size": self.chunk_size,
            "rules": self.rules.to_dict(), "strategies": [s.name for s in self.strategies],
            "params": [s.params for s in self.strategies], "dealer": self.dealer,
            "contract": self.contract, "declarer": self.declarer if self.contract else None,
            "compulsory": self.compulsory, "calls": self.calls, "keep_play": self.keep_play,
            **({"fixed_hand": [self.fixed_hand[0], self.fixed_hand[1]],
                "fixed_hand_cards": mask_str(self.fixed_hand[1])} if self.fixed_hand else {}),
        }


def parse_fixed_hand(fixed_hand, rules: Rules) -> tuple[int, int] | None:
    """Check ``fixed_hand=(seat, hand)``: hand a 48-bit mask or cards in notation ("QC QS TH ...").

    Returns (seat, mask); SimulationError with a one-line message on a bad value.
    """
    if fixed_hand is None:
        return None
    if not isinstance(fixed_hand, (tuple, list)) or len(fixed_hand) != 2:
        raise SimulationError(f"fixed_hand must be (seat, hand), got {fixed_hand!r}")
    seat, hand = fixed_hand
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or seat not in range(4):
        raise SimulationError(f"fixed_hand seat must be 0-3, got {seat!r}")
    if isinstance(hand, str):
        mask = 0
        for token in hand.split():
            try:
                t = parse_card_type(token)
            except ValueError:
                raise SimulationError(f"fixed_hand: unknown card {token!r}; cards are a rank A T K Q J 9 "
                                      "(or 10) and a suit C S H D, e.g. QC TH") from None
            if mask >> (2 * t) & 1:
                if mask >> (2 * t + 1) & 1:
                    raise SimulationError(f"fixed_hand holds {token.upper()} more than twice; the pack "
                                          "has two of each card")
                mask |= 1 << (2 * t + 1)
            else:
                mask |= 1 << (2 * t)
    elif isinstance(hand, (int, np.integer)) and not isinstance(hand, bool):
        mask = int(hand)
        if not 0 <= mask < 2**48:
            raise SimulationError(f"fixed_hand mask must be a 48-bit hand mask (0 to 2**48-1), got {mask}")
    else:
        raise SimulationError(f"fixed_hand hand must be a 48-bit mask or cards like 'QC QS TH', got {hand!r}")
    n = bin(mask).count("1")
    if n != rules.hand_size:
        raise SimulationError(f"fixed_hand has {n} cards; a hand has {rules.hand_size} under these rules")
    if rules.no_nines and mask & int(NINES_MASK):
        raise SimulationError("fixed_hand holds a nine; the rules say no_nines")
    return int(seat), mask


def make_plan(deals: int, seed: int = 0, rules="ddv", strategy="random", params=None, dealer=None,
              contract=None, declarer=0, compulsory=False, calls=True, keep_play=False,
              chunk_size=DEFAULT_CHUNK, fixed_hand=None) -> SimulationPlan:
    """Validate simulate's arguments into a plan (SimulationError / StrategyError on bad ones)."""
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 0:
        raise SimulationError(f"deals must be a whole number >= 0, got {deals!r}")
    if deals > MAX_DEALS:
        raise SimulationError(f"deals must be at most {MAX_DEALS:,} per run, got {deals:,}")
    if not 0 <= int(seed) < 2**63:
        raise SimulationError(f"seed must be from 0 to 2**63-1, got {seed!r}")
    if chunk_size < 1:
        raise SimulationError(f"chunk size must be >= 1, got {chunk_size!r}")
    names = strategy.split(",") if isinstance(strategy, str) else list(strategy)
    names = [n.strip() for n in names]
    if len(names) == 1:
        names *= 4
    if len(names) != 4:
        raise SimulationError(f"give one strategy or four (one per seat), got {len(names)}: {','.join(names)}")
    params = params or {}
    strategies = []
    for seat, name in enumerate(names):
        overrides = {**params.get("*", {}), **params.get(name, {}), **params.get(seat, {})}
        strategies.append(resolve(name, overrides))
    if dealer is not None and dealer not in range(4):
        raise SimulationError(f"dealer must be a seat 0-3, got {dealer!r}")
    if contract is not None and contract not in FORCEABLE:
        raise SimulationError(f"unknown contract {contract!r}; valid: {', '.join(FORCEABLE)}")
    if declarer not in range(4):
        raise SimulationError(f"declarer must be a seat 0-3, got {declarer!r}")
    if compulsory and not (contract or "").endswith("_solo"):
        raise SimulationError("compulsory needs a forced solo contract (e.g. contract='queens_solo')")
    rules = rules_from_object(rules)
    for name in ("bock", "five_players"):
        if getattr(rules, name):
            raise SimulationError(f"rules option {name!r} needs a session: use dokosim session "
                                  "(dokosim.simulate_sessions), not simulate")
    fixed = parse_fixed_hand(fixed_hand, rules)
    return SimulationPlan(int(deals), int(seed), rules, strategies, dealer,
                          contract, declarer, compulsory, calls, keep_play, int(chunk_size), fixed)


class Simulator:
    """A plan's compiled kernel and output buffers, reused chunk after chunk.

    Reusing the buffers matters: fresh pages for every chunk cost more than
    playing the deals in them.
    """

    def __init__(self, plan: SimulationPlan):
        self.plan = plan
        self.module = simulation_kernel()
        self.strategy_table, self.strategy_ids = strategy_table(plan.strategies)
        self.params = np.zeros((4, MAX_PARAMS), dtype=np.float64)
        for seat, s in enumerate(plan.strategies):
            self.params[seat] = s.param_vector()
        self.control = plan.control()
        self.rules = plan.rules.packed()
        self._capacity = 0

    def rows(self, first: int, n: int):
        """Simulate deals first .. first+n-1; returns (rows, plays, calls) views of the buffers,
        valid until the next call."""
        if n > self._capacity:
            keep = n if self.plan.keep_play else 1
            self._out = np.zeros((n, OUT_LEN), dtype=np.int64)
            self._plays = np.zeros((keep, 48), dtype=np.int64)
            self._calls = np.zeros((keep, MAX_CALL_LOG, 3), dtype=np.int64)
            self._capacity = n
        out = self._out[:n]
        plays = self._plays[:n] if self.plan.keep_play else self._plays
        calls = self._calls[:n] if self.plan.keep_play else self._calls
        if n:
            n_blocks = min(n, 4 * numba.get_num_threads())
            loop = ensure_loop(self.module.run_chunk, "the deal loop")
            loop(self.module.MODE_SIMULATE, self.plan.seed, first, n, n_blocks, 4, 1, 0, 0, self.control,
                 self.rules, self.strategy_table, self.strategy_ids, self.params, out, plays, calls)
        return out, plays, calls

    def frame(self, first: int, n: int) -> pl.DataFrame:
        """The dataset rows of deals first .. first+n-1 as a DataFrame."""
        out, plays, calls = self.rows(first, n)
        frame = frame_from_rows(out, [s.name for s in self.plan.strategies])
        if self.plan.keep_play:
            from .records import records_from_rows
            frame = frame.with_columns(pl.Series("record", records_from_rows(self.plan, out, plays, calls)))
        return frame


def _progress(total: int, quiet: bool, initial: int = 0):
    from tqdm import tqdm
    disable = quiet or not sys.stderr.isatty()
    return tqdm(total=total, initial=initial, unit=" deals", unit_scale=True, disable=disable,
                smoothing=0.1, dynamic_ncols=True)


def simulate(deals: int, seed: int = 0, rules="ddv", strategy="random", *, out=None, threads=None,
             chunk_size: int = DEFAULT_CHUNK, params=None, dealer=None, contract=None, declarer=0,
             compulsory=False, calls=True, keep_play=False, quiet=True, scheduler=None, cluster=None,
             fixed_hand=None):
    """Deal and play ``deals`` deals; each row depends only on (seed, deal_id).

    ``strategy``: a name for all seats, ``"a,b,c,d"`` or a list of four.
    ``params``: ``{seat or name or "*": {param: value}}``. ``contract``: force
    ``normal``, ``marriage`` or ``<kind>_solo`` (declared by seat ``declarer``;
    ``compulsory=True``: the soloist leads). ``calls=False`` switches
    announcements off. Without ``out`` returns a polars DataFrame; with ``out``
    (a directory) writes a Parquet dataset there, resuming an interrupted run,
    and returns its path. ``scheduler`` (a dask.distributed address) or
    ``cluster`` (``"local:N"``) runs the chunks on Dask workers instead, with
    the same rows (see ``dokosim.distributed``). ``fixed_hand=(seat, hand)``: that seat
    always holds exactly ``hand`` (a 48-bit mask or cards like ``"QC QC TH ..."``); the
    other cards are dealt at random from (seed, deal_id).
    """
    plan = make_plan(deals, seed, rules, strategy, params, dealer, contract, declarer, compulsory,
                     calls, keep_play, chunk_size, fixed_hand)
    if scheduler is not None or cluster is not None:
        if threads is not None:
            raise SimulationError("threads applies to in-process runs; Dask workers use their own "
                                  "thread count")
        from .distributed import simulate_on_dask
        return simulate_on_dask(plan, out=out, scheduler=scheduler, cluster=cluster, quiet=quiet)
    if threads is not None:
        if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
            raise SimulationError(f"threads must be from 1 to {numba.config.NUMBA_NUM_THREADS}, got {threads}")
        numba.set_num_threads(threads)
    # the output is checked (and the manifest written) before the strategies compile or a deal is played
    done = None if out is None else prepare(Path(out), plan.manifest())
    sim = Simulator(plan)
    n_chunks = -(-plan.deals // plan.chunk_size)
    bounds = [(i, i * plan.chunk_size, min(plan.chunk_size, plan.deals - i * plan.chunk_size))
              for i in range(n_chunks)]
    if out is None:
        frames = []
        with _progress(plan.deals, quiet) as bar:
            for _, first, n in bounds:
                frames.append(sim.frame(first, n))
                bar.update(n)
        if frames:
            return pl.concat(frames)
        return frame_from_rows(np.zeros((0, OUT_LEN), dtype=np.int64), [s.name for s in plan.strategies])
    directory = Path(out)
    todo = [b for b in bounds if b[0] not in done]
    with _progress(plan.deals, quiet, initial=plan.deals - sum(b[2] for b in todo)) as bar:
        for index, first, n in todo:
            write_chunk(directory, index, sim.frame(first, n))
            bar.update(n)
    return directory


def summary(frame: pl.DataFrame) -> dict:
    """Contracts, win rates and mean values of a run, for the CLI."""
    n = frame.height
    by_contract = (frame.group_by("contract")
                   .agg(pl.len().alias("deals"), (pl.col("winner") == "re").mean().alias("re_wins"),
                        pl.col("game_value").mean().alias("mean_value"))
                   .sort("deals", descending=True))
    return {
        "deals": n,
        "re_win_rate": float((frame["winner"] == "re").mean()) if n else None,
        "mean_game_value": float(frame["game_value"].mean()) if n else None,
        "contracts": {r["contract"]: {"deals": r["deals"], "share": r["deals"] / n,
                                      "re_win_rate": r["re_wins"], "mean_game_value": r["mean_value"]}
                      for r in by_contract.iter_rows(named=True)},
        "mean_score": {f"seat_{s}": float(frame[f"score_{s}"].cast(pl.Float64).mean()) if n else None
                       for s in range(4)},
    }
