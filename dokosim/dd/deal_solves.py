"""``dokosim solve --deals N --seed S --out DIR``: simulated deals solved double-dummy from their
first card, for par studies (docs/solver.md, "Deals under every contract" and "Bands and the game
value"): ``solve_deals`` (whether Re reaches 121, and its eyes, under every contract kind) and
``value_deals`` (``--value``: the band of Re's eyes and the game value, by the band search of
``dd/band.py``).

Deal ``deal_id`` of ``seed`` holds the same cards whatever contract is forced (the simulator deals
from (seed, deal_id) alone), so each deal is replayed once per contract kind with ``declarer`` as
the soloist (normal: the deal as dealt, Re the QC holders) and solved from the first card, every
hand open, no calls. A solve past ``node_limit`` nodes gives a null (the normal game from the
first card often does: docs/solver.md, Speed). Both share the argument checks, the simulators of
each contract and the chunk loop through the run driver (run/driver.py).
"""
from __future__ import annotations

import functools
import json
import time
from pathlib import Path

import polars as pl

from ..engine.cards import SOLO_KINDS
from ..validation import SimulationError, check_bool, check_int, check_path_value, check_seed, shown

CONTRACTS = ("normal", *[f"{k}_solo" for k in SOLO_KINDS])
MAX_SOLVE_DEALS = 10_000_000
MAX_DEALS_NODE_LIMIT = 10**12  # nodes per solve of solve_deals / value_deals
SETTINGS = "solve.json"


class SolveDealsError(SimulationError):
    """A bad argument of ``solve_deals`` or ``value_deals`` (a SimulationError, so a ValueError)."""


def columns(contracts=CONTRACTS) -> list[str]:
    """The dataset's columns of ``solve_deals`` for ``contracts``, in order (docs/solver.md describes each)."""
    cols = ["deal_id", "dealer", "hand_0", "hand_1", "hand_2", "hand_3", "declarer", "declarer_re_normal"]
    for k in contracts:
        cols += [f"re_eyes_{k}", f"re_wins_{k}"]
    return cols


def allowed_contracts(rules) -> tuple[str, ...]:
    """The contracts of ``CONTRACTS`` that ``rules`` allow: normal and the solos of ``rules.solos``."""
    return ("normal", *[f"{k}_solo" for k in SOLO_KINDS if k in rules.solos])


SOLVE_KEYS = ("kind", "deals", "seed", "rules", "declarer", "node_limit", "exact", "first", "contracts", "chunk")

COLUMNS = ("deal_id", "contract", "declarer", "re_mask", "band", "band_lo", "band_hi", "winner", "value_re",
           "eyes_lo", "eyes_hi", "nodes", "ms", "answered")
"""The dataset's columns of ``value_deals``, in order (docs/solver.md describes each)."""
VALUE_KEYS = ("kind", "deals", "seed", "rules", "declarer", "node_limit", "bands", "first", "contracts", "chunk",
              "search")  # which deals a node limit answers depends on the search's version


def _checked(deals, seed, declarer, node_limit, first, chunk, exact=None) -> tuple[int, int, int, int, int, int]:
    """(deals, seed, declarer, node_limit, first, chunk) checked: SolveDealsError naming a bad one
    (``exact``, when given, is checked after node_limit)."""
    deals = check_int("deals", deals, 1, MAX_SOLVE_DEALS, SolveDealsError, f"an integer from 1 to {MAX_SOLVE_DEALS:,}")
    seed = check_seed(seed, SolveDealsError)
    declarer = check_int("declarer", declarer, 0, 3, SolveDealsError, "a seat 0-3")
    node_limit = check_int("node_limit", node_limit, 0, MAX_DEALS_NODE_LIMIT, SolveDealsError,
                           "an integer from 0 (no limit) to 10**12")
    if exact is not None:
        exact = check_bool("exact", exact, SolveDealsError)
    first = check_int("first", first, 0, 2**62 - 1, SolveDealsError)
    chunk = check_int("chunk", chunk, 1, MAX_SOLVE_DEALS, SolveDealsError, f"an integer from 1 to {MAX_SOLVE_DEALS:,}")
    return deals, seed, declarer, node_limit, first, chunk


def _checked_output(out, quiet, contracts):
    """``out`` (a path, or None) checked before any work (a number, bytes or an over-long name),
    ``quiet`` a bool and ``contracts`` a list or tuple when given: SolveDealsError naming a bad one.
    Returns ``out``."""
    if out is not None:
        out = check_path_value("out", out, SolveDealsError)
    check_bool("quiet", quiet, SolveDealsError)
    if contracts is not None and not isinstance(contracts, (list, tuple)):
        raise SolveDealsError(f"contracts={shown(contracts)} is not valid: a list of contract names "
                              f"({', '.join(CONTRACTS)})")
    return out


def _rules_and_contracts(rules, contracts, every_by_default: bool = True):
    """(the Rules of ``rules``, ``contracts`` in the order of ``CONTRACTS``): deals of four only,
    and only contracts the rules allow (``None``, with ``every_by_default``: every one they allow)."""
    from ..rules import rules_from_object
    rules = rules_from_object(rules)
    if rules.five_players or rules.bock:
        raise SolveDealsError("rules: five_players and bock belong to sessions; solve --deals plays deals of four")
    allowed = allowed_contracts(rules)
    if contracts is None and every_by_default:
        contracts = allowed
    elif isinstance(contracts, str) or not contracts or not all(isinstance(k, str) for k in contracts) \
            or any(k not in allowed for k in contracts):
        raise SolveDealsError(f"contracts={contracts!r} is not valid: a list of {', '.join(allowed)} "
                              "(the contracts these rules allow)")
    return rules, tuple(k for k in CONTRACTS if k in contracts)


def _chunks(deals, first, chunk) -> list:
    """The run driver's chunks of deals first .. first+deals-1, ``chunk`` deals each."""
    from ..run.driver import Chunk
    return [Chunk(i, first + i * chunk, min(chunk, deals - i * chunk)) for i in range(-(-deals // chunk))]


def _simulators(contracts, deals, first, seed, rules, declarer) -> dict:
    """A Simulator per contract of ``contracts`` that replays deals 0 .. first+deals-1 of ``seed``
    under it with ``declarer`` the soloist, no calls, keeping each deal's record."""
    from ..run.simulator import Simulator, make_plan
    return {k: Simulator(make_plan(first + deals, seed, rules, "random", contract=k, declarer=declarer,
                                   calls=False, keep_play=True)) for k in contracts}


def _records(sims: dict, first: int, count: int) -> dict:
    """Each simulator's game records (JSON text) of deals first .. first+count-1, in deal order."""
    return {k: sim.frame(first, count).sort("deal_id")["record"].to_list() for k, sim in sims.items()}


def _drive(chunks, out, plan, solve_chunk, tools, quiet) -> pl.DataFrame:
    """Run ``solve_chunk`` over ``chunks`` through the run driver (driver.run_dataset: ``out``
    checked, then created or verified before ``tools()`` builds the simulators and the solver;
    the chunks done in it skipped) with a progress bar; without ``out`` the rows, else the
    settings (``plan.manifest``) with the time written to ``solve.json`` and the rows read back
    from the dataset."""
    from ..run.driver import Progress, meta_dir, run_dataset, write_json_atomic
    run = run_dataset(chunks, solve_chunk, out, plan, setup=tools, progress=Progress(quiet, bar={"unit": " deals"}))
    if run.directory is None:
        return pl.concat(run.frames)
    start = tools()[-1]
    write_json_atomic(meta_dir(run.directory) / SETTINGS, {**plan.manifest, "seconds": round(time.perf_counter() - start, 3)})
    from ..run.dataset import scan
    return scan(run.directory).collect()


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
    from ..run.driver import RunPlan
    from .solve import Solver
    deals, seed, declarer, node_limit, first, chunk = _checked(deals, seed, declarer, node_limit, first, chunk,
                                                               exact=exact)
    exact = check_bool("exact", exact, SolveDealsError)
    out = _checked_output(out, quiet, contracts)
    rules, contracts = _rules_and_contracts(rules, contracts)
    settings = {"kind": "solve_deals", "deals": deals, "seed": seed, "rules": rules.to_dict(), "declarer": declarer,
                "node_limit": node_limit, "exact": exact, "first": first, "contracts": list(contracts),
                "chunk": chunk, "columns": columns(contracts)}
    @functools.cache
    def tools():  # once the output is checked and opened: the simulators, the solver, the start time
        return (_simulators(("normal", *contracts), deals, first, seed, rules, declarer), Solver(node_limit=node_limit),
                time.perf_counter())
    schema = {"deal_id": pl.Int64, "dealer": pl.Int8, "declarer": pl.Int8, "declarer_re_normal": pl.Boolean,
              **{f"hand_{s}": pl.String for s in range(4)},
              **{f"re_eyes_{k}": pl.Int16 for k in contracts}, **{f"re_wins_{k}": pl.Boolean for k in contracts}}

    def solve_chunk(part) -> pl.DataFrame:
        sims, solver, _ = tools()
        start_id, n = part.first, part.count
        rows = {c: [] for c in columns(contracts)}
        per_contract = _records(sims, start_id, n)
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

    return _drive(_chunks(deals, first, chunk), out, RunPlan(settings, SOLVE_KEYS, error=SolveDealsError), solve_chunk,
                  tools, quiet)


def value_deals(deals: int, seed: int = 0, out=None, rules="ddv", declarer: int = 0,
                node_limit: int = 10_000_000, contracts=("normal",), bands: str = "value",
                quiet: bool = True, chunk: int = 100, first: int = 0) -> pl.DataFrame:
    """Deals ``first`` .. ``first``+``deals``-1 of ``seed``, each solved from its first card under
    each of ``contracts`` (a subset of ``CONTRACTS``; default the normal game) with
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
    from ..run.driver import RunPlan
    from ..solver.eyes import SEARCH_VERSION
    from .band import EDGES, WINNERS, band_label, value_edges, value_of_band
    from .solve import Solver
    deals, seed, declarer, node_limit, first, chunk = _checked(deals, seed, declarer, node_limit, first, chunk)
    out = _checked_output(out, quiet, contracts)
    if contracts is None:
        raise SolveDealsError(f"contracts=None is not valid: a list of contract names ({', '.join(CONTRACTS)})")
    if not isinstance(bands, str) or bands not in ("value", "all"):
        raise SolveDealsError(f"bands={bands!r} is not valid: 'value' (the edges the score uses without calls) or 'all'")
    rules, contracts = _rules_and_contracts(rules, contracts, every_by_default=False)
    edges = EDGES if bands == "all" else value_edges(0, 0)
    settings = {"kind": "value_deals", "deals": deals, "seed": seed, "rules": rules.to_dict(), "declarer": declarer,
                "node_limit": node_limit, "bands": bands, "first": first, "contracts": list(contracts),
                "chunk": chunk, "columns": list(COLUMNS), "search": SEARCH_VERSION}
    @functools.cache
    def tools():  # once the output is checked and opened: the simulators, the solver, the start time
        return _simulators(contracts, deals, first, seed, rules, declarer), Solver(node_limit=node_limit), time.perf_counter()
    schema = {"deal_id": pl.Int64, "contract": pl.String, "declarer": pl.Int8, "re_mask": pl.Int8,
              "band": pl.String, "band_lo": pl.Int16, "band_hi": pl.Int16, "winner": pl.String,
              "value_re": pl.Int16, "eyes_lo": pl.Int16, "eyes_hi": pl.Int16, "nodes": pl.Int64, "ms": pl.Float64, "answered": pl.Boolean}

    def solve_chunk(part) -> pl.DataFrame:
        sims, solver, _ = tools()
        rows = {c: [] for c in COLUMNS}
        per_contract = _records(sims, part.first, part.count)
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

    return _drive(_chunks(deals, first, chunk), out,
                  RunPlan(settings, VALUE_KEYS, rows_per_unit=len(contracts), error=SolveDealsError), solve_chunk, tools,
                  quiet)
