"""The simulation plan (everything that decides a run's rows) and the Simulator that plays a
plan's deals in chunks through the deal loop; ``simulate``, sessions, Dask and the other runs use it."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numba
import numpy as np
import polars as pl

from ..version import __version__
from .conditions import (
    DEFAULT_MAX_TRIES, ConditionError, Conditions, measure, parse_conditions, report_acceptance,
)
from ..engine.cards import (
    C_MARRIAGE, C_NORMAL, C_SOLO_BASE, NINES_MASK, SOLO_KINDS, mask_str, parse_card_type,
)
from ..engine.jit import ensure_loop
from ..validation import MAX_DEALS
from .dataset import SCHEMA_VERSION, frame_from_rows
from ..engine.layout import MAX_CALL_LOG, O_DEAL_ID, O_REDEALS, OUT_LEN
from ..rules import Rules, rules_from_object
from ..loop.registry import (
    MAX_PARAMS, Strategy, StrategyError, param_specs, resolve, simulation_kernel, strategy_table,
)
from ..validation import (
    SimulationError, check_bool, check_int, check_optional_int, check_optional_str, check_params, check_seed,
    strategy_names,
)

FORCEABLE = ("normal", "marriage", *[f"{k}_solo" for k in SOLO_KINDS])
DEFAULT_CHUNK = 250_000


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
    conditions: Conditions | None = None  # hands / where / where_path (dokosim.conditions)
    acceptance: dict | None = None  # measured before the run (conditions.measure), for the manifest

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
        control = np.array([-1 if self.dealer is None else self.dealer, forced, self.declarer,
                            int(self.compulsory), int(self.calls), int(self.keep_play), fixed_seat,
                            fixed_mask], dtype=np.int64)
        if self.conditions is None:
            return control
        return np.concatenate([control, self.conditions.block()])

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
            **({"conditions": self.conditions.manifest(), "conditions_acceptance": self.acceptance}
               if self.conditions else {}),
        }

    def measure_conditions(self, quiet: bool = True) -> None:
        """Deal the first deals under the conditions (conditions.measure) for the acceptance rate;
        ConditionError naming the measured rate if the condition is too rare to deal."""
        if self.conditions is not None and self.acceptance is None:
            from ..loop.conditions import measure_acceptance
            ensure_loop(measure_acceptance, "the conditional deal")
            self.acceptance = measure(self.conditions, self.control(), self.seed, self.deals)
            report_acceptance(self.acceptance, quiet)


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
              chunk_size=DEFAULT_CHUNK, fixed_hand=None, hands=None, where=None, where_path=None,
              max_tries=DEFAULT_MAX_TRIES) -> SimulationPlan:
    """Validate simulate's arguments into a plan: SimulationError (StrategyError for a strategy
    or its parameters, RulesError for the rules) naming the bad argument, its value and what is
    valid (dokosim.validation)."""
    deals = check_int("deals", deals, 0, MAX_DEALS, valid=f"an integer from 0, at most {MAX_DEALS:,} per run")
    seed = check_seed(seed)
    chunk_size = check_int("chunk_size", chunk_size, 1, MAX_DEALS)
    names = strategy_names(strategy, 4)
    params = seat_parameters(params, names, 4)
    strategies = [resolve(name, params[seat]) for seat, name in enumerate(names)]
    dealer = check_optional_int("dealer", dealer, 0, 3, valid="None (deal_id mod 4) or a seat 0-3")
    valid_contracts = f"None (the reservations decide) or one of {', '.join(FORCEABLE)}"
    contract = check_optional_str("contract", contract, valid_contracts)
    if contract is not None and contract not in FORCEABLE:
        if contract == "poverty":
            valid_contracts = "a poverty cannot be forced (it needs a poor hand): use rules with " \
                              "poverty=True and let the reservations decide; " + valid_contracts
        raise SimulationError(f"contract={contract!r} is not valid: {valid_contracts}")
    declarer = check_int("declarer", declarer, 0, 3, valid="a seat 0-3 (the declarer of a forced solo)")
    compulsory = check_bool("compulsory", compulsory)
    calls = check_bool("calls", calls)
    keep_play = check_bool("keep_play", keep_play)
    if compulsory and not (contract or "").endswith("_solo"):
        raise SimulationError("compulsory needs a forced solo contract (e.g. contract='queens_solo')")
    rules = rules_from_object(rules)
    for name in ("bock", "five_players"):
        if getattr(rules, name):
            raise SimulationError(f"rules option {name!r} needs a session: use dokosim session "
                                  "(dokosim.simulate_sessions), not simulate")
    if contract is not None and contract.endswith("_solo"):
        check_solo_allowed(contract, declarer, rules)
    fixed = parse_fixed_hand(fixed_hand, rules)
    fixed, conditions = merge_conditions(fixed, hands, where, where_path, rules, contract, max_tries)
    return SimulationPlan(deals, seed, rules, strategies, dealer, contract, declarer, compulsory, calls,
                          keep_play, chunk_size, fixed, conditions)


def merge_conditions(fixed, hands, where, where_path, rules, contract, max_tries):
    """(fixed_hand, Conditions): ``fixed_hand`` joins the other conditions as that seat's whole
    hand; one seat's whole hand alone stays a fixed hand (dealt as fixed_hand always was, so its
    rows do not change)."""
    if fixed is not None and (hands or where is not None or where_path is not None):
        hands = dict(hands or {})
        if fixed[0] in hands or str(fixed[0]) in hands:
            raise ConditionError(f"fixed_hand and hands both give seat {fixed[0]}; give it once")
        hands[fixed[0]] = fixed[1]
        fixed = None
    conditions = parse_conditions(hands, where, where_path, rules, contract, max_tries)
    if conditions is not None and conditions.is_fixed_hand():
        (seat, mask), = conditions.hands.items()
        return (seat, mask), None
    return fixed, conditions


def seat_parameters(params, names: list[str], players: int, error=SimulationError) -> list[dict]:
    """Each seat's parameter overrides from ``params`` (``{seat or strategy name or "*": {name:
    value}}``; for a seat, '*' first, then its strategy's name, then the seat), every key and
    value checked (dokosim.validation.check_params): a seat that is not at the table, a strategy
    not in the run, a parameter the strategy lacks or a value out of its range is refused."""
    run = list(dict.fromkeys(names))
    for name in run:
        param_specs(name)  # an unknown strategy is named as such first
    targets = {"*": run, **{name: [name] for name in run}, **{seat: [names[seat]] for seat in range(players)}}
    keys_valid = f"a seat 0-{players - 1}, a strategy of the run ({', '.join(run)}) or '*'"
    clean = check_params(params, targets, param_specs, keys_valid, error, StrategyError)
    return [{**clean.get("*", {}), **clean.get(name, {}), **clean.get(seat, {})}
            for seat, name in enumerate(names)]


@functools.cache
def contract_check_ready() -> None:
    """Compile (or load) the forced-contract check ``engine.replay.contract_error`` with the deal
    loop, so that a later command with a forced solo (``advise``) compiles nothing of its own; a
    cache load costs milliseconds, once per process."""
    from ..engine.replay import contract_error
    contract_error(np.zeros(4, dtype=np.int64), C_SOLO_BASE, 0, Rules().packed())


def check_solo_allowed(contract: str, declarer: int, rules: Rules) -> None:
    """Refuse a forced solo the rules do not allow (rules option ``solos``), with the rule the
    record scorer applies to a record's contract (``engine.replay.contract_error``, whose
    ``bad_contract`` a record with the same contract gets)."""
    from ..engine.layout import E_OK
    from ..engine.replay import contract_error
    code = C_SOLO_BASE + SOLO_KINDS.index(contract[:-len("_solo")])
    hands = np.zeros(4, dtype=np.int64)  # a solo's legality does not depend on the cards
    if contract_error(hands, code, declarer, rules.packed()) != E_OK:
        allowed = [f"{k}_solo" for k in rules.solos]
        raise SimulationError(f"contract={contract!r} is not valid: these rules do not allow a "
                              f"{contract[:-len('_solo')]} solo (rules option solos={list(rules.solos)}); "
                              f"valid: {', '.join(['normal', 'marriage', *allowed])}")


def check_dealt(redeals: np.ndarray, deal_ids: np.ndarray, max_tries: int) -> None:
    """ConditionError if a deal of a conditioned run found no matching deal in its tries (the
    loop marks it with redeals -1), before its chunk is written."""
    bad = np.flatnonzero(redeals < 0)
    if bad.size:
        raise ConditionError(f"deal {int(deal_ids[bad[0]])} found no deal matching the condition in "
                             f"{max_tries:,} tries; the condition is too rare (raise max_tries)")


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
        self._outs: dict[int, np.ndarray] = {}  # the row buffers: 0, and 1 for frame_later
        self._turn = 1

    def rows(self, first: int, n: int, buffer: int = 0):
        """Simulate deals first .. first+n-1; returns (rows, plays, calls) views of the buffers,
        valid until the next call with the same ``buffer`` (0, or 1: the second row buffer of
        ``frame_later``)."""
        if n > self._capacity:
            keep = n if self.plan.keep_play else 1
            self._outs = {}
            self._plays = np.zeros((keep, 48), dtype=np.int64)
            self._calls = np.zeros((keep, MAX_CALL_LOG, 3), dtype=np.int64)
            self._capacity = n
        if buffer not in self._outs:
            self._outs[buffer] = np.zeros((self._capacity, OUT_LEN), dtype=np.int64)
        out = self._outs[buffer][:n]
        plays = self._plays[:n] if self.plan.keep_play else self._plays
        calls = self._calls[:n] if self.plan.keep_play else self._calls
        if n:
            n_blocks = min(n, 4 * numba.get_num_threads())
            loop = ensure_loop(self.module.run_chunk, "the deal loop")
            contract_check_ready()
            m = self.module
            loop(m.Run(m.MODE_SIMULATE, self.plan.seed, 1, 4, 0, 0, self.control, self.rules), first, n, n_blocks,
                 m.Seats(self.strategy_table, self.strategy_ids, self.params), m.Rows(out, plays, calls))
            if self.plan.conditions is not None:
                check_dealt(out[:, O_REDEALS], out[:, O_DEAL_ID], self.plan.conditions.max_tries)
        return out, plays, calls

    def frame(self, first: int, n: int) -> pl.DataFrame:
        """The dataset rows of deals first .. first+n-1 as a DataFrame."""
        out, plays, calls = self.rows(first, n)
        frame = frame_from_rows(out, [s.name for s in self.plan.strategies])
        if self.plan.keep_play:
            from ..records.record import records_from_rows
            frame = frame.with_columns(pl.Series("record", records_from_rows(self.plan, out, plays, calls)))
        return frame

    def frame_later(self, first: int, n: int):
        """Simulate deals first .. first+n-1 now and return a function that builds their
        DataFrame (for the run driver's writer thread, run_chunks: the rows are typed and
        encoded there while the next chunk is simulated here). The rows alternate between two
        buffers, so a function is valid until the second call after the one that returned it;
        the driver holds at most two chunks. With ``keep_play`` the frame is built at once
        (its records come from the play logs, one buffer)."""
        if self.plan.keep_play:
            return self.frame(first, n)
        self._turn = buffer = 1 - self._turn
        out, _, _ = self.rows(first, n, buffer)
        names = [s.name for s in self.plan.strategies]
        return lambda: frame_from_rows(out, names)


PROGRESS = {"unit": " deals", "unit_scale": True, "smoothing": 0.1}
"""The progress bar of a simulation (driver.Progress's tqdm options), in process or on Dask."""


def measured_manifest(plan: SimulationPlan, quiet: bool) -> dict:
    """The manifest of ``plan`` once its conditions' acceptance rate is measured (the run driver's
    RunPlan.manifest: after the output is checked, before the directory is opened)."""
    plan.measure_conditions(quiet)
    return plan.manifest()
