"""``dokosim.probe_calls``: a call made or not made from the same position (the announcements study).

Each deal is played as the simulator plays it up to a random moment at which some player may
make a call of the chosen level; from that position the deal is played on twice with the same
random stream (common random numbers): once with that player making the call there, once
without it. A denial includes the calls below it, so "without" means with the calls up to
``level - 1`` (made there too if the side stood lower) and the two branches differ by the one
step. The caller's side is then frozen at its level for the rest of the deal in both branches,
so the difference between the branches is the call alone; the other side calls as its
strategies decide. Only normal games are probed.
The kernel is ``run_chunk`` (MODE_PROBES) in ``dokosim/loop/sim_loop.py``, its item ``loop/probes.play_probe``; the rules are the engine's.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numba
import numpy as np
import polars as pl

from .conditions import DEFAULT_MAX_TRIES
from .simulate import SimulationError
from .simulator import make_plan
from ..validation import check_bool, check_path, check_threads
from ..engine.jit import ensure_loop
from .driver import Chunk, Progress, RunPlan, chunks_of, run_dataset
from .outputs import PROBES_OWNER, check_file
from ..loop.registry import MAX_PARAMS, simulation_kernel, strategy_table

CALL_LEVELS = {"re": 1, "no90": 2, "no60": 3, "no30": 4, "schwarz": 5}
LEVEL_NAMES = {v: k for k, v in CALL_LEVELS.items()}
PROBE_CHUNK = 100_000
PROBE_KEYS = ("kind", "level", "probes_only", "seed", "deals", "chunk_size", "rules", "strategies", "params",
              "schema_version", "conditions")


def parse_level(level) -> int:
    """A call level from 1-5 or its name (``re`` = Re or Kontra, ``no90``, ``no60``, ``no30``,
    ``schwarz``); SimulationError naming the valid ones otherwise."""
    if isinstance(level, str) and level.lower() in CALL_LEVELS:
        return CALL_LEVELS[level.lower()]
    if isinstance(level, (int, np.integer)) and not isinstance(level, bool) and 1 <= level <= 5:
        return int(level)
    raise SimulationError(f"level={level!r} is not valid: an unknown call level; valid: 1-5 or "
                          f"{', '.join(CALL_LEVELS)}")


def probe_calls(deals: int, level="re", seed: int = 0, rules="ddv", strategy="heuristic", *,
                params=None, threads=None, chunk_size: int = PROBE_CHUNK, quiet=True,
                probes_only=True, hands=None, where=None, where_path=None,
                max_tries=DEFAULT_MAX_TRIES, out=None):
    """Play ``deals`` deals to a call opportunity of ``level`` and on both ways; one row per probe.

    Columns (see docs/simulate.md, "Call probes"): ``deal_id``, ``level``, ``seat`` (the caller),
    ``side`` (0 Re, 1 Kontra); what the caller sees at that moment: ``cards_played``,
    ``cards_held``, ``trumps``, ``top_trumps`` (TH, QC, QS), ``plain_aces``, ``plain_tens``,
    ``voids`` (plain suits), ``eyes_own`` / ``eyes_opp`` (eyes taken so far by the seats the
    caller knows to be on its side / the other), ``partner_known``, ``level_own``, ``level_opp``;
    and the outcome of each branch, ``*_with`` and ``*_without``: ``score`` (the caller's),
    ``success`` (what the call promises was reached: the win for Re/Kontra, the opponents under
    90/60/30 eyes, or without a trick), ``win``, ``eyes_side``, ``level_opp`` (the other side's
    final call level) and ``value`` (the game value). ``probes_only=False`` keeps the deals
    without an opportunity (seat -1). Rows depend only on (seed, deal_id). ``hands``, ``where``,
    ``where_path``: conditions on the deal, as for ``simulate`` (docs/conditions.md). ``out``: a
    Parquet file to write the probes to instead of returning them (its path is returned); the
    chunks are kept in ``FILE.parts`` (the run driver's directory) until the file is whole, so an
    interrupted call, made again, resumes.
    """
    lv = parse_level(level)
    plan = make_plan(deals, seed, rules, strategy, params, chunk_size=chunk_size, hands=hands, where=where,
                     where_path=where_path, max_tries=max_tries)
    threads = check_threads(threads)
    check_bool("quiet", quiet)
    probes_only = check_bool("probes_only", probes_only)
    check_path("out", out)
    if threads is not None:
        numba.set_num_threads(threads)
    if out is not None:  # checked before any work: the file, then (the run driver) the directory of its chunks
        check_file(out, "out", PROBES_OWNER)

    @functools.cache
    def kernel():  # after the run directory is opened, before the first chunk
        plan.measure_conditions(quiet)
        module = simulation_kernel()
        table, strategy_ids = strategy_table(plan.strategies)
        param_table = np.zeros((4, MAX_PARAMS), dtype=np.float64)
        for seat, s in enumerate(plan.strategies):
            param_table[seat] = s.param_vector()
        return (module, ensure_loop(module.run_chunk, "the deal loop"),
                module.Run(module.MODE_PROBES, plan.seed, 1, 4, 0, lv, plan.control(), plan.rules.packed()),
                module.Seats(table, strategy_ids, param_table))

    def probe(chunk: Chunk) -> pl.DataFrame:
        module, loop, run_spec, seats = kernel()
        rows = np.zeros((chunk.count, module.PROBE_LEN), dtype=np.int64)
        if chunk.count:
            loop(run_spec, chunk.first, chunk.count, min(chunk.count, 4 * numba.get_num_threads()), seats,
                 module.Rows(rows, *module.no_logs()))
        if probes_only:
            rows = rows[rows[:, 2] >= 0]
        return pl.DataFrame({name: rows[:, i].astype(np.int64 if name == "deal_id" else np.int16)
                             for i, name in enumerate(module.PROBE_COLUMNS)})

    # the probes' manifest is the plan before its conditions are measured (measured by kernel())
    manifest = {**plan.manifest(), "kind": "probes", "level": lv, "probes_only": probes_only}
    if out is not None:  # a condition that can never hold: refused before the directory binds to it
        plan.measure_conditions(quiet)
    run = run_dataset(chunks_of(plan.deals, plan.chunk_size), probe, None if out is None else parts_directory(out),
                      RunPlan(manifest, PROBE_KEYS), setup=kernel,
                      progress=Progress(quiet, bar={"unit": " deals", "unit_scale": True}))
    if run.directory is not None:
        return _assemble(run.directory, Path(out), probe)
    return pl.concat(run.frames) if run.frames else probe(Chunk(0, 0, 0))


def parts_directory(out) -> Path:
    """Where ``probe_calls(out=FILE)`` keeps its chunks until the file is whole: ``FILE.parts``, a
    run directory of the run driver, resumed by the same call."""
    return Path(str(out) + ".parts")


def _assemble(parts: Path, out: Path, probe) -> Path:
    """The probes file ``out`` from the run directory ``parts``, one chunk in memory at a time,
    written under a temporary name (with dokosim's marker) and renamed; then ``parts`` goes, with
    its manifest and ledger."""
    import pyarrow.parquet as pq

    from .dataset_files import resolve
    from .driver import remove_run, write_parquet
    from .outputs import MARKER_KEY, marker, replace_atomically

    files = resolve(parts).files  # literal paths inside parts, the ledger's chunks of this run only
    if not files:  # no deal asked for: an empty file with the probes' columns
        replace_atomically(out, lambda tmp: write_parquet(probe(Chunk(0, 0, 0)), tmp,
                                                          {MARKER_KEY: marker(PROBES_OWNER)}))
        remove_run(parts)
        return out

    def write(tmp):
        schema = pq.read_schema(files[0]).with_metadata({MARKER_KEY: marker(PROBES_OWNER)})
        from .driver import PARQUET_CODEC
        codec, level = PARQUET_CODEC
        with pq.ParquetWriter(tmp, schema, compression=codec, compression_level=level, write_statistics=False) as w:
            for f in files:
                w.write_table(pq.read_table(f).replace_schema_metadata(schema.metadata))
    replace_atomically(out, write)
    remove_run(parts)
    return out
