"""``dokosim solve --deals N --value --out DIR``: the game value of simulated deals from their first
card, by the band search (``dd/band.py``; docs/solver.md, "Bands and the game value").

Deal ``deal_id`` of ``seed`` holds the same cards whatever contract is forced (the simulator deals
from (seed, deal_id) alone), so each deal is played under each contract asked for (``declarer``
the soloist; normal: the deal as dealt, Re the QC holders) and solved from its first card with
every hand open and no calls. One row per deal and contract.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import polars as pl

from ..validation import check_bool, check_int, check_path_value, check_seed, shown
from .solve_deals import CONTRACTS, MAX_SOLVE_DEALS, SETTINGS, SolveDealsError, allowed_contracts

COLUMNS = ("deal_id", "contract", "declarer", "re_mask", "band", "band_lo", "band_hi", "winner", "value_re",
           "eyes_lo", "eyes_hi", "nodes", "ms", "answered")
"""The dataset's columns, in order (docs/solver.md describes each)."""
VALUE_KEYS = ("kind", "deals", "seed", "rules", "declarer", "node_limit", "bands", "first", "contracts", "chunk",
              "search")  # which deals a node limit answers depends on the search's version


def value_deals(deals: int, seed: int = 0, out=None, rules="ddv", declarer: int = 0,
                node_limit: int = 10_000_000, contracts=("normal",), bands: str = "value",
                quiet: bool = True, chunk: int = 100, first: int = 0) -> pl.DataFrame:
    """Deals ``first`` .. ``first``+``deals``-1 of ``seed``, each solved from its first card under
    each of ``contracts`` (a subset of ``solve_deals.CONTRACTS``; default the normal game) with
    ``declarer`` as the soloist: one row per deal and contract, ``COLUMNS``. ``band`` /
    ``band_lo`` / ``band_hi``: the band of Re's final eyes under best play by both sides (no
    calls; ``bands="value"``: the bands that score differently without calls, so "90-120";
    "all": every band of ``band.BANDS``); ``winner`` and ``value_re``: what that band scores
    (RULES.md 1.7 as Re scores it, no fox, doppelkopf or Charlie; ``dd.band.game_value``);
    ``nodes``: the searches' nodes; ``ms``: their CPU milliseconds (the one column that is not a
    function of (seed, deal_id)); ``answered``: False when the searches ran past ``node_limit``
    nodes together (0: no limit), the band and value then null; ``eyes_lo`` / ``eyes_hi``: what the
    searches that finished proved of Re's final eyes (the band's ends when answered; say 121 / 240
    when the search at 121 finished and the next did not). ``re_mask``: Re's seats as bits
    (before a marriage is clarified: the marriage player's). ``out``: a directory for the Parquet
    dataset through the run driver (a part file per ``chunk`` deals; the same call resumes it).
    Returns the rows."""
    from ..engine.layout import H_RE_MASK
    from ..records.record import replay_detail
    from ..rules import rules_from_object
    from ..run.simulator import Simulator, make_plan
    from .band import EDGES, WINNERS, band_label, value_edges, value_of_band
    from .solve import Solver
    deals = check_int("deals", deals, 1, MAX_SOLVE_DEALS, SolveDealsError, f"an integer from 1 to {MAX_SOLVE_DEALS:,}")
    seed = check_seed(seed, SolveDealsError)
    declarer = check_int("declarer", declarer, 0, 3, SolveDealsError, "a seat 0-3")
    node_limit = check_int("node_limit", node_limit, 0, 10**12, SolveDealsError, "an integer from 0 (no limit)")
    first = check_int("first", first, 0, 2**62 - 1, SolveDealsError)
    chunk = check_int("chunk", chunk, 1, MAX_SOLVE_DEALS, SolveDealsError, f"an integer from 1 to {MAX_SOLVE_DEALS:,}")
    if out is not None:  # a path checked before any work (a number, bytes or an over-long name: TypeError, OSError)
        out = check_path_value("out", out, SolveDealsError)
    check_bool("quiet", quiet, SolveDealsError)
    if not isinstance(contracts, (list, tuple)):
        raise SolveDealsError(f"contracts={shown(contracts)} is not valid: a list of contract names ({', '.join(CONTRACTS)})")
    if not isinstance(bands, str) or bands not in ("value", "all"):
        raise SolveDealsError(f"bands={bands!r} is not valid: 'value' (the edges the score uses without calls) or 'all'")
    rules = rules_from_object(rules)
    if rules.five_players or rules.bock:
        raise SolveDealsError("rules: five_players and bock belong to sessions; solve --deals plays deals of four")
    allowed = allowed_contracts(rules)
    if isinstance(contracts, str) or not contracts or not all(isinstance(k, str) for k in contracts) \
            or any(k not in allowed for k in contracts):
        raise SolveDealsError(f"contracts={contracts!r} is not valid: a list of {', '.join(allowed)} "
                              "(the contracts these rules allow)")
    contracts = tuple(k for k in CONTRACTS if k in contracts)
    edges = EDGES if bands == "all" else value_edges(0, 0)
    from ..run.driver import Chunk, ChunkStore, run_chunks
    from ..solver.eyes import SEARCH_VERSION
    chunks = [Chunk(i, first + i * chunk, min(chunk, deals - i * chunk)) for i in range(-(-deals // chunk))]
    settings = {"kind": "value_deals", "deals": deals, "seed": seed, "rules": rules.to_dict(), "declarer": declarer,
                "node_limit": node_limit, "bands": bands, "first": first, "contracts": list(contracts),
                "chunk": chunk, "columns": list(COLUMNS), "search": SEARCH_VERSION}
    store = None if out is None else ChunkStore.open(Path(out), settings, VALUE_KEYS, chunks,
                                                     rows_per_unit=len(contracts), error=SolveDealsError)
    sims = {k: Simulator(make_plan(first + deals, seed, rules, "random", contract=k, declarer=declarer,
                                   calls=False, keep_play=True)) for k in contracts}
    solver = Solver(node_limit=node_limit)
    start = time.perf_counter()
    schema = {"deal_id": pl.Int64, "contract": pl.String, "declarer": pl.Int8, "re_mask": pl.Int8,
              "band": pl.String, "band_lo": pl.Int16, "band_hi": pl.Int16, "winner": pl.String,
              "value_re": pl.Int16, "eyes_lo": pl.Int16, "eyes_hi": pl.Int16, "nodes": pl.Int64, "ms": pl.Float64, "answered": pl.Boolean}

    def solve_chunk(part: Chunk) -> pl.DataFrame:
        rows = {c: [] for c in COLUMNS}
        per_contract = {k: sim.frame(part.first, part.count).sort("deal_id")["record"].to_list()
                        for k, sim in sims.items()}
        for i in range(part.count):
            for k in contracts:
                detail = replay_detail({**json.loads(per_contract[k][i]), "play": [], "announcements": []})
                st = detail["state"][0]
                solver.load(detail["state"])
                n0 = solver.nodes
                t = time.process_time()
                band = solver.band(edges=edges)
                ms = 1000 * (time.process_time() - t)
                winner, value = (None, None) if band is None else value_of_band(band, st)
                rows["deal_id"].append(part.first + i)
                rows["contract"].append(k)
                rows["declarer"].append(declarer)
                rows["re_mask"].append(int(st[H_RE_MASK]))
                rows["band"].append(None if band is None else band_label(band))
                rows["band_lo"].append(None if band is None else band[0])
                rows["band_hi"].append(None if band is None else band[1])
                rows["winner"].append(None if winner is None else WINNERS[winner])
                rows["value_re"].append(value)
                rows["eyes_lo"].append(solver.bounds[0])
                rows["eyes_hi"].append(solver.bounds[1])
                rows["nodes"].append(solver.nodes - n0)
                rows["ms"].append(round(ms, 3))
                rows["answered"].append(band is not None)
        return pl.DataFrame(rows, schema=schema)

    from ..run.progress import progress_bar
    done = 0 if store is None else sum(c.count for c in chunks if c.index in store.done)
    with progress_bar(quiet, total=deals, initial=done, unit=" deals") as bar:
        frames = run_chunks(chunks, solve_chunk, store, bar.update)
    if store is None:
        return pl.concat(frames)
    from ..run.driver import meta_dir, write_json_atomic
    write_json_atomic(meta_dir(store.directory) / SETTINGS, {**settings, "seconds": round(time.perf_counter() - start, 3)})
    from ..run.dataset import scan
    return scan(store.directory).collect()
