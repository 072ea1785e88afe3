"""``dokosim.simulate``: deal and play many deals, returning a DataFrame or writing a dataset."""
from __future__ import annotations

import functools

import numba
import numpy as np
import polars as pl

from ..engine.layout import OUT_LEN
from ..validation import SimulationError, check_bool, check_optional_str, check_path, check_threads
from .conditions import DEFAULT_MAX_TRIES
from .dataset import IDENTITY_KEYS, frame_from_rows
from .driver import Progress, RunPlan, chunks_of, run_dataset
from .simulator import DEFAULT_CHUNK, FORCEABLE, PROGRESS, Simulator, make_plan, measured_manifest

__all__ = ["simulate", "summary", "SimulationError", "FORCEABLE"]


def simulate(deals: int, seed: int = 0, rules="ddv", strategy="random", *, out=None, threads=None,
             chunk_size: int = DEFAULT_CHUNK, params=None, dealer=None, contract=None, declarer=0,
             compulsory=False, calls=True, keep_play=False, quiet=True, scheduler=None, cluster=None,
             fixed_hand=None, hands=None, where=None, where_path=None, max_tries=DEFAULT_MAX_TRIES):
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
    other cards are dealt at random from (seed, deal_id). Conditions (docs/conditions.md):
    ``hands={seat: "QC TH ..."}`` (each seat holds at least these cards), ``where`` (an
    expression such as ``"trumps(0) >= 9 and has(2, 'TH')"``), ``where_path`` (``"module:function"``,
    an ``@njit`` predicate of the four hand masks): only deals that satisfy all of them are
    played, each still depending only on (seed, deal_id, conditions); a condition too rare to
    deal in ``max_tries`` tries ends with ConditionError naming the measured acceptance rate.
    """
    plan = make_plan(deals, seed, rules, strategy, params, dealer, contract, declarer, compulsory,
                     calls, keep_play, chunk_size, fixed_hand, hands, where, where_path, max_tries)
    threads = check_threads(threads)
    check_path("out", out)
    check_bool("quiet", quiet)
    check_optional_str("scheduler", scheduler, "None or a dask.distributed scheduler address (a string)")
    check_optional_str("cluster", cluster, "None or 'local:N' (N worker processes)")
    if scheduler is not None or cluster is not None:
        if threads is not None:
            raise SimulationError("threads applies to in-process runs; Dask workers use their own "
                                  "thread count")
        from .distributed import simulate_on_dask
        return simulate_on_dask(plan, out=out, scheduler=scheduler, cluster=cluster, quiet=quiet)
    if threads is not None:
        numba.set_num_threads(threads)
    # the output is checked (and the manifest written) before the strategies compile or a deal is played
    sim = functools.cache(lambda: Simulator(plan))
    run = run_dataset(chunks_of(plan.deals, plan.chunk_size), lambda c: sim().frame_later(c.first, c.count), out,
                      RunPlan(lambda: measured_manifest(plan, quiet), IDENTITY_KEYS), setup=sim,
                      progress=Progress(quiet, bar=PROGRESS))
    if run.directory is not None:
        return run.directory
    if run.frames:
        return pl.concat(run.frames)
    return frame_from_rows(np.zeros((0, OUT_LEN), dtype=np.int64), [s.name for s in plan.strategies])

def summary(frame: pl.DataFrame, seed: int | None = None, rules: str | None = None) -> dict:
    """Contracts, win rates and mean values of a run, for the CLI, each with its 95% interval
    (``*_ci``: Wilson intervals for shares and win rates, Student's t for mean values), and what
    produced the rows: the strategy at each seat, and ``seed`` and ``rules`` as given."""
    from ..stats import mean_interval, wilson
    n = frame.height

    def share(k: int, total: int) -> list[float]:
        _, lo, hi = wilson(k, total)
        return [round(float(lo), 6), round(float(hi), 6)]

    def mean(values) -> tuple[float | None, list[float] | None]:
        if len(values) < 2:
            return (float(values.mean()) if len(values) else None), None
        iv = mean_interval(values.to_numpy().astype(float))
        return float(iv.mean), [round(float(iv.lo), 6), round(float(iv.hi), 6)]

    contracts = {}
    for name, group in sorted(frame.group_by("contract"), key=lambda kv: (-kv[1].height, str(kv[0][0]))):
        wins = int((group["winner"] == "re").sum())
        value, value_ci = mean(group["game_value"])
        contracts[name[0]] = {"deals": group.height, "share": group.height / n, "share_ci": share(group.height, n),
                              "re_win_rate": wins / group.height, "re_win_rate_ci": share(wins, group.height),
                              "mean_game_value": value, "mean_game_value_ci": value_ci}
    contract = pl.col("contract").cast(pl.String)
    solos = frame.filter(contract.str.ends_with("_solo") & (contract != "marriage_solo"))
    solo_wins = int((solos["winner"] == "re").sum())
    value, value_ci = mean(frame["game_value"]) if n else (None, None)
    re_wins = int((frame["winner"] == "re").sum())
    strategies = [frame[f"strategy_{s}"][0] if n and f"strategy_{s}" in frame.columns else None for s in range(4)]
    return {
        "deals": n,
        "seed": seed,
        "rules": rules,
        "strategies": strategies,
        "re_win_rate": re_wins / n if n else None,
        "re_win_rate_ci": share(re_wins, n) if n else None,
        "mean_game_value": value,
        "mean_game_value_ci": value_ci,
        "solos": {"deals": solos.height, "share": solos.height / n if n else None,
                  "share_ci": share(solos.height, n) if n else None,
                  "soloist_win_rate": solo_wins / solos.height if solos.height else None,
                  "soloist_win_rate_ci": share(solo_wins, solos.height) if solos.height else None},
        "contracts": contracts,
        "mean_score": {f"seat_{s}": float(frame[f"score_{s}"].cast(pl.Float64).mean()) if n else None
                       for s in range(4)},
    }
