"""``dokosim solve --deals N --seed S --out DIR``: simulated deals solved double-dummy under every
contract kind, for par studies (docs/solver.md, "Deals under every contract").

Deal ``deal_id`` of ``seed`` holds the same cards whatever contract is forced (the simulator deals
from (seed, deal_id) alone), so each deal is replayed once per contract kind with ``declarer`` as
the soloist (normal: the deal as dealt) and solved from the first card, every hand open, no
calls: Re's final eyes under best play and whether Re reaches 121. A solve past ``node_limit``
nodes gives a null (the normal game from the first card often does: docs/solver.md, Speed).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import polars as pl

from ..engine.cards import SOLO_KINDS
from ..validation import SimulationError, check_bool, check_int, check_path_value, check_seed, shown

CONTRACTS = ("normal", *[f"{k}_solo" for k in SOLO_KINDS])
MAX_SOLVE_DEALS = 10_000_000
SETTINGS = "solve.json"


class SolveDealsError(SimulationError):
    """A bad argument of ``solve_deals`` (a SimulationError, so a ValueError)."""


def columns(contracts=CONTRACTS) -> list[str]:
    """The dataset's columns for ``contracts``, in order (docs/solver.md describes each)."""
    cols = ["deal_id", "dealer", "hand_0", "hand_1", "hand_2", "hand_3", "declarer", "declarer_re_normal"]
    for k in contracts:
        cols += [f"re_eyes_{k}", f"re_wins_{k}"]
    return cols


def allowed_contracts(rules) -> tuple[str, ...]:
    """The contracts of ``CONTRACTS`` that ``rules`` allow: normal and the solos of ``rules.solos``."""
    return ("normal", *[f"{k}_solo" for k in SOLO_KINDS if k in rules.solos])


SOLVE_KEYS = ("kind", "deals", "seed", "rules", "declarer", "node_limit", "exact", "first", "contracts", "chunk")


def solve_deals(deals: int, seed: int = 0, out=None, rules="ddv", declarer: int = 0,
                node_limit: int = 1_000_000, exact: bool = False, quiet: bool = True,
                chunk: int = 100, contracts=None, first: int = 0) -> pl.DataFrame:
    """Deals 0 .. deals-1 of ``seed`` solved under every contract kind (``CONTRACTS``) with
    ``declarer`` as the soloist: one row per deal, ``columns()``. ``re_wins_K``: whether Re (the
    soloist in a solo, the QC holders in the normal game) reaches 121 under best play by both
    sides from the first card; ``re_eyes_K`` (only with ``exact``, else null): Re's final eyes
    under best play; each null when its solve ran past ``node_limit`` nodes (0: no limit). ``out``: a directory for the Parquet dataset, checked before any work:
    a part file per ``chunk`` deals through the run driver (run/driver.py: written whole, entered in
    the ledger ``_chunks.jsonl``; the same call on a partly written directory resumes it), and
    ``solve.json`` with the settings and the time; the rows returned are then read back from it. ``contracts``: a subset of ``CONTRACTS`` (default: every one the rules allow; a solo
    the rules forbid is refused); ``first``: the first deal id (deals first .. first+deals-1).
    Returns the rows."""
    from ..records.record import replay_detail
    from ..rules import rules_from_object
    from ..run.simulator import Simulator, make_plan
    from .solve import Solver
    deals = check_int("deals", deals, 1, MAX_SOLVE_DEALS, SolveDealsError, f"an integer from 1 to {MAX_SOLVE_DEALS:,}")
    seed = check_seed(seed, SolveDealsError)
    declarer = check_int("declarer", declarer, 0, 3, SolveDealsError, "a seat 0-3")
    node_limit = check_int("node_limit", node_limit, 0, 10**12, SolveDealsError, "an integer from 0 (no limit)")
    exact = check_bool("exact", exact, SolveDealsError)
    if out is not None:  # a path checked before any work (a number, bytes or an over-long name: TypeError, OSError)
        out = check_path_value("out", out, SolveDealsError)
    check_bool("quiet", quiet, SolveDealsError)
    if contracts is not None and not isinstance(contracts, (list, tuple)):
        raise SolveDealsError(f"contracts={shown(contracts)} is not valid: a list of contract names ({', '.join(CONTRACTS)})")
    first = check_int("first", first, 0, 2**62 - 1, SolveDealsError)
    chunk = check_int("chunk", chunk, 1, MAX_SOLVE_DEALS, SolveDealsError, f"an integer from 1 to {MAX_SOLVE_DEALS:,}")
    rules = rules_from_object(rules)
    if rules.five_players or rules.bock:
        raise SolveDealsError("rules: five_players and bock belong to sessions; solve --deals plays deals of four")
    allowed = allowed_contracts(rules)
    if contracts is None:
        contracts = allowed
    elif isinstance(contracts, str) or not all(isinstance(k, str) for k in contracts) or not contracts \
            or any(k not in allowed for k in contracts):
        raise SolveDealsError(f"contracts={contracts!r} is not valid: a list of {', '.join(allowed)} "
                              "(the contracts these rules allow)")
    contracts = tuple(k for k in CONTRACTS if k in contracts)
    from ..run.driver import Chunk, ChunkStore, run_chunks
    chunks = [Chunk(i, first + i * chunk, min(chunk, deals - i * chunk)) for i in range(-(-deals // chunk))]
    settings = {"kind": "solve_deals", "deals": deals, "seed": seed, "rules": rules.to_dict(), "declarer": declarer,
                "node_limit": node_limit, "exact": exact, "first": first, "contracts": list(contracts),
                "chunk": chunk, "columns": columns(contracts)}
    store = None if out is None else ChunkStore.open(Path(out), settings, SOLVE_KEYS, chunks,
                                                     error=SolveDealsError)
    sims = {k: Simulator(make_plan(first + deals, seed, rules, "random", contract=k, declarer=declarer,
                                   calls=False, keep_play=True)) for k in ("normal", *contracts)}
    solver = Solver(node_limit=node_limit)
    start = time.perf_counter()

    from ..run.progress import progress_bar
    schema = {"deal_id": pl.Int64, "dealer": pl.Int8, "declarer": pl.Int8, "declarer_re_normal": pl.Boolean,
              **{f"hand_{s}": pl.String for s in range(4)},
              **{f"re_eyes_{k}": pl.Int16 for k in contracts}, **{f"re_wins_{k}": pl.Boolean for k in contracts}}

    def solve_chunk(part: Chunk) -> pl.DataFrame:
        start_id, n = part.first, part.count
        rows = {c: [] for c in columns(contracts)}
        per_contract = {k: sim.frame(start_id, n).sort("deal_id")["record"].to_list() for k, sim in sims.items()}
        for i in range(n):
            records = {k: json.loads(per_contract[k][i]) for k in sims}
            base = records["normal"]
            rows["deal_id"].append(start_id + i)
            rows["dealer"].append(base["dealer"])
            for s in range(4):
                rows[f"hand_{s}"].append(base["hands"][s])
            rows["declarer"].append(declarer)
            details = {k: replay_detail({**records[k], "play": [], "announcements": []}) for k in records}
            rows["declarer_re_normal"].append(bool(details["normal"]["re_mask"] >> declarer & 1))
            for k in contracts:
                if records[k]["hands"] != base["hands"]:  # the dealing must not depend on the contract
                    raise AssertionError(f"deal {start_id + i}: {k} was dealt other cards")
                detail = details[k]
                solver.load(detail["state"])
                wins = solver.reaches(121)
                eyes = solver.eyes() if exact and wins is not None else None
                rows[f"re_eyes_{k}"].append(eyes)
                rows[f"re_wins_{k}"].append(wins)
        return pl.DataFrame(rows, schema=schema).select(columns(contracts))

    done = 0 if store is None else sum(c.count for c in chunks if c.index in store.done)
    with progress_bar(quiet, total=deals, initial=done, unit=" deals") as bar:
        frames = run_chunks(chunks, solve_chunk, store, bar.update)
    if store is None:
        return pl.concat(frames)
    from ..run.driver import meta_dir, write_json_atomic
    write_json_atomic(meta_dir(store.directory) / SETTINGS, {**settings, "seconds": round(time.perf_counter() - start, 3)})
    from ..run.dataset import scan
    return scan(store.directory).collect()
