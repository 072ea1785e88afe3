"""Duplicate tournaments: strategies play the same deals in every seating, so card luck cancels.

Two strategies A, B: every deal is played in the 6 seatings that give two seats
to A (the 6 ways to choose A's pair of seats). Four strategies: in all 24 orders of
the four at the table, so each sits at each seat with each neighbour on each side
equally often, and two copies of one strategy are exchangeable (their results are
equal on every deal). Every seating runs ``simulate`` with the same seed, so every
seating of a deal holds the same cards.

Statistics (see docs/tournament.md): a deal's value for a strategy is the mean,
over the deal's seatings, of the mean score of that strategy's seats. Deals are
independent, seatings of one deal are not, so the 95% interval is a Student t
interval over these per-deal values. The pure functions (``seating_means``,
``per_deal_means``, ``mean_interval``, ``summarize``) take plain tables and can
be used on a tournament dataset read back from ``--out``.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from .conditions import parse_conditions
from ..validation import MAX_DEALS
from .driver import Chunk, ChunkWriter, chunk_name
from .outputs import writing
from ..rules import Rules, rules_from_object
from ..stats import LEVEL, Interval, mean_interval
from ..validation import (
    SimulationError, check_bool, check_int, check_optional_str, check_params, check_seed, check_threads,
    invalid,
)



class TournamentError(SimulationError):
    """Bad arguments to tournament (a SimulationError, so a ValueError; each message names the
    argument, the bad value and what is valid)."""


# ---------------------------------------------------------------------------- seatings and names

def seatings(n_strategies: int) -> list[tuple[int, int, int, int]]:
    """The seatings of a tournament: for each, the index of the strategy at seats 0-3.

    Two strategies: the 6 ways to give two of the four seats to strategy 0.
    Four strategies: all 24 orders at the table. The 4 rotations of one order would keep each
    strategy's neighbours fixed, so that seat order is confounded with the player (two copies
    of one strategy could differ beyond their interval, as issue 30 reported);
    with every order the design is symmetric under swapping any two strategies.
    """
    if n_strategies == 2:
        return [tuple(0 if s in pair else 1 for s in range(4))
                for pair in itertools.combinations(range(4), 2)]
    if n_strategies == 4:
        return list(itertools.permutations(range(4)))
    raise TournamentError(f"a tournament needs 2 or 4 strategies, got {n_strategies}")


def labels(names: list[str]) -> list[str]:
    """Report names: a name given more than once becomes ``name#1``, ``name#2``, ..."""
    counts = {n: names.count(n) for n in names}
    seen: dict[str, int] = {}
    out = []
    for n in names:
        if counts[n] == 1:
            out.append(n)
        else:
            seen[n] = seen.get(n, 0) + 1
            out.append(f"{n}#{seen[n]}")
    return out


def _check_params(params, names: list[str], tags: list[str]) -> dict:
    """``params`` checked (keys: '*', a strategy name or a report name; each parameter and value
    against the strategies the key addresses) and cleaned (validation.check_params)."""
    from ..game.agents import python_agent
    from ..loop.registry import StrategyError
    from ..loop.registry import param_specs as strategy_specs

    def param_specs(name):
        agent = python_agent(name)
        if agent is None:
            return strategy_specs(name)
        specs = getattr(agent, "param_specs", None)  # dd_oracle declares its own
        return specs() if callable(specs) else {}
    targets = {"*": list(dict.fromkeys(names)), **{n: [n] for n in names},
               **{t: [n] for t, n in zip(tags, names, strict=True)}}
    keys_valid = ("a strategy name, a report name or '*' (not a seat: strategies change seats between "
                  f"seatings); valid here: {', '.join(targets)}")
    return check_params(params, targets, param_specs, keys_valid, TournamentError, StrategyError)


def seat_params(seating, names: list[str], tags: list[str], params: dict) -> dict[int, dict]:
    """Per-seat parameter overrides of one seating: '*', then the strategy name, then its report name."""
    out = {}
    for seat, k in enumerate(seating):
        out[seat] = {**params.get("*", {}), **params.get(names[k], {}),
                     **(params.get(tags[k], {}) if tags[k] != names[k] else {})}
    return out


# ---------------------------------------------------------------------------- statistics

def seating_means(scores: np.ndarray, seating, n_strategies: int) -> np.ndarray:
    """Per deal, the mean score of each strategy's seats in one seating.

    ``scores``: (deals, 4) scores by seat; ``seating``: strategy index per seat.
    Returns (deals, n_strategies).
    """
    scores = np.asarray(scores, dtype=np.float64)
    seating = np.asarray(seating)
    return np.stack([scores[:, seating == k].mean(axis=1) for k in range(n_strategies)], axis=1)


def per_deal_means(games: pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """The per-deal table: deal_id and, per strategy, its mean over seatings of its seats' mean score.

    ``games``: one row per deal and seating with columns deal_id, seating,
    strategy_0..3 (report names) and score_0..3 (a tournament's ``--out`` dataset).
    Every seating must hold the same deals.
    """
    games = games.sort("seating", "deal_id")
    total = None
    parts = games.partition_by("seating", maintain_order=True)
    for part in parts:
        seat_names = [part[f"strategy_{s}"][0] for s in range(4)]
        unknown = [n for n in seat_names if n not in names]
        if unknown:
            raise TournamentError(f"strategy {unknown[0]!r} in the games is not one of {', '.join(names)}")
        seating = [names.index(n) for n in seat_names]
        scores = part.select(f"score_{s}" for s in range(4)).to_numpy()
        means = seating_means(scores, seating, len(names))
        total = means if total is None else total + means
    deal_ids = parts[0]["deal_id"] if parts else pl.Series("deal_id", [], dtype=pl.Int64)
    values = total / len(parts) if parts else np.zeros((0, len(names)))
    return pl.DataFrame({"deal_id": deal_ids, **{n: values[:, i] for i, n in enumerate(names)}})


def summarize(per_deal: pl.DataFrame, names: list[str], level: float = LEVEL):
    """Means and intervals of each strategy and of every pairwise difference A-B.

    ``per_deal``: a column per strategy name holding its per-deal values.
    Returns ``({name: Interval}, {"A-B": Interval})`` (pairs in the order given).
    """
    means = {n: mean_interval(per_deal[n].to_numpy(), level) for n in names}
    diffs = {f"{a}-{b}": mean_interval((per_deal[a] - per_deal[b]).to_numpy(), level)
             for a, b in itertools.combinations(names, 2)}
    return means, diffs


CONTRACT_GROUPS = {"normal": "normal", "marriage": "marriage", "marriage_solo": "marriage",
                   "silent_marriage": "silent marriage",
                   "poverty": "poverty", "diamonds_solo": "suit solos", "hearts_solo": "suit solos",
                   "spades_solo": "suit solos", "clubs_solo": "suit solos", "queens_solo": "queens/jacks solos",
                   "jacks_solo": "queens/jacks solos", "fleischlos_solo": "fleischlos"}
"""The contract groups of a tournament's breakdown (``TournamentResult.by_contract``)."""


def contract_games(frame: pl.DataFrame, seating, n_strategies: int) -> pl.DataFrame:
    """One row per game (deal) of one seating: deal_id, its contract group, and per strategy
    index k the mean score of k's seats (columns ``s0``..)."""
    means = seating_means(frame.select(f"score_{s}" for s in range(4)).to_numpy(), seating, n_strategies)
    groups = frame["contract"].cast(pl.String).replace_strict(CONTRACT_GROUPS, default="other")
    return pl.DataFrame({"deal_id": frame["deal_id"], "group": groups,
                         **{f"s{k}": means[:, k] for k in range(n_strategies)}})


def by_contract(games: pl.DataFrame, names: list[str], level: float = LEVEL) -> dict:
    """The tournament by contract group: per group, the deals and games in it, each strategy's
    mean and every difference A-B with its interval. A deal's value is the mean over its games of
    that group (the seatings of one deal are not independent), the interval a Student t over those
    deals; the groups' populations differ between strategies' seatings (who declares what is part
    of the play), so a group's figures compare the players on the games that became that contract."""
    out = {}
    cols = [f"s{k}" for k in range(len(names))]
    for (group,), g in games.group_by(["group"], maintain_order=True):
        per_deal = g.group_by("deal_id").agg(pl.len().alias("games"), *[pl.col(c).mean() for c in cols])
        entry = {"deals": per_deal.height, "games": g.height, "mean": {}, "diff": {}}
        for k, name in enumerate(names):
            entry["mean"][name] = mean_interval(per_deal[cols[k]].to_numpy(), level)
        for a, b in itertools.combinations(range(len(names)), 2):
            entry["diff"][f"{names[a]}-{names[b]}"] = mean_interval((per_deal[cols[a]] - per_deal[cols[b]]).to_numpy(),
                                                                     level)
        out[group] = entry
    order = list(dict.fromkeys([*CONTRACT_GROUPS.values(), "other"]))
    return {g: out[g] for g in sorted(out, key=order.index)}


# ---------------------------------------------------------------------------- running

@dataclass
class TournamentResult:
    """A tournament's per-deal table and its statistics (points per deal per seat)."""

    strategies: list[str]
    deals: int
    seed: int
    rules: Rules
    per_deal: pl.DataFrame
    mean: dict[str, Interval]
    diff: dict[str, Interval]
    seconds: float
    seatings: list[tuple[int, ...]] = field(default_factory=list)
    reads_hidden: list[str] = field(default_factory=list)
    """Report names of the players that read hidden cards (dd_oracle): not a fair comparison."""
    by_contract: dict = field(default_factory=dict)
    """Per contract group (``CONTRACT_GROUPS``): deals, games, each strategy's mean and every
    difference with its interval (``by_contract()``)."""

    def to_dict(self) -> dict:
        """The JSON object of ``dokosim tournament --json``."""
        def num(x):
            return None if math.isnan(x) else x
        return {
            "deals": self.deals,
            "strategies": self.strategies,
            "mean": {n: num(i.mean) for n, i in self.mean.items()},
            "ci95": {n: [num(i.lo), num(i.hi)] for n, i in self.mean.items()},
            "diff": {k: {"mean": num(i.mean), "ci95": [num(i.lo), num(i.hi)]} for k, i in self.diff.items()},
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "seatings": len(self.seatings),
            "seconds": round(self.seconds, 3),
            "reads_hidden": self.reads_hidden,
            "by_contract": {g: {"deals": e["deals"], "games": e["games"],
                                "mean": {n: {"mean": num(i.mean), "ci95": [num(i.lo), num(i.hi)]}
                                         for n, i in e["mean"].items()},
                                "diff": {k: {"mean": num(i.mean), "ci95": [num(i.lo), num(i.hi)]}
                                         for k, i in e["diff"].items()}}
                            for g, e in self.by_contract.items()},
        }

    def to_json(self) -> str:
        """``to_dict()`` as one line of JSON."""
        return json.dumps(self.to_dict())


TOURNAMENT_SCHEMA = 1
# What decides a tournament's rows: a directory holding another tournament is refused.
TOURNAMENT_KEYS = ("kind", "schema_version", "names", "deals", "seed", "rules", "params", "conditions",
                   "seatings")


def _open_out(out, manifest: dict, n_seatings: int, deals: int):
    """The run directory of ``out`` (driver.ChunkStore: one chunk a seating), created or verified
    before the first seating plays; None without ``out``. A directory of the same tournament is
    resumed: its verified seatings are read back, not played again."""
    from .driver import Chunk, ChunkStore
    if out is None:
        return None
    chunks = [Chunk(i, 0, deals) for i in range(n_seatings)]
    return ChunkStore.open(Path(out), manifest, TOURNAMENT_KEYS, chunks, error=TournamentError)


def _write_info(directory: Path, info: dict) -> None:
    """``tournament.json`` beside the run directory (in ``DIR.dokosim/``, driver.meta_dir, so that
    the directory holds only Parquet files): the settings and the results (a temporary name, then
    a rename)."""
    from .driver import meta_dir, write_json_atomic
    with writing(directory):
        directory.mkdir(parents=True, exist_ok=True)
        meta_dir(directory).mkdir(parents=True, exist_ok=True)
    write_json_atomic(meta_dir(directory) / "tournament.json", info)


def tournament(strategies: list[str], deals: int, seed: int = 0, rules="ddv", params=None,
               threads=None, quiet: bool = True, out=None, scheduler=None,
               cluster=None, hands=None, where=None, where_path=None,
               allow_cheating: bool = False) -> TournamentResult:
    """Play a duplicate tournament of 2 or 4 strategies over ``deals`` deals.

    Every seating (``seatings(len(strategies))``) plays the same deals with
    the same seed. ``params``: ``{name or report name or "*": {param: value}}``
    (``"simple#2"`` addresses the second of two ``simple``; each parameter and
    value is checked against the strategies its key addresses). ``out``: a new
    directory (new, or this tournament's own) for a Parquet dataset with one row per deal and seating
    (``part-NNNNNN.parquet`` per seating, ``tournament.json`` with the settings
    and results, ``manifest.json`` and ``_chunks.jsonl``: the run driver's plan and ledger); the same tournament on a
    directory it partly wrote resumes (each verified seating is read back, the others played). Raises TournamentError (a SimulationError), StrategyError or
    RulesError on bad arguments, each naming the argument and what is valid
    (docs/tournament.md). ``scheduler`` (a dask.distributed address) or ``cluster``
    (``"local:N"``, one LocalCluster for all seatings) run the seatings on Dask
    workers, with the same rows and results as in process. ``hands``, ``where``, ``where_path``:
    conditions on the deal, as for ``simulate`` (docs/conditions.md): every seating plays the
    same conditioned deals. ``allow_cheating``: play strategies that read the other players'
    cards (``dd_oracle``); refused otherwise (TournamentError), and marked in the report when
    played (``TournamentResult.reads_hidden``).
    """
    from .simulate import simulate
    from ..loop.registry import param_specs

    if isinstance(strategies, str):
        names = [n.strip() for n in strategies.split(",")]
    elif isinstance(strategies, (list, tuple)) and all(isinstance(n, str) for n in strategies):
        names = [n.strip() for n in strategies]
    else:
        raise invalid("strategies", strategies, "2 or 4 strategy names: a list or 'a,b'", TournamentError)
    plan = seatings(len(names))
    from ..game.agents import MAX_PLAY_DEALS, python_agent, reads_hidden
    for name in dict.fromkeys(names):
        if python_agent(name) is None:
            param_specs(name)  # an unknown strategy is named as such first
    check_bool("allow_cheating", allow_cheating, TournamentError)
    cheats = [n for n in dict.fromkeys(names) if reads_hidden(n)]
    if cheats and not allow_cheating:
        raise TournamentError(f"strategy {cheats[0]!r} reads the other players' cards, so this is not a fair "
                              "comparison; pass allow_cheating=True (--allow-cheating) to play it anyway")
    tags = labels(names)
    deals = check_int("deals", deals, 2, MAX_DEALS, TournamentError,
                      f"an integer from 2 (an interval needs two), at most {MAX_DEALS:,} per run")
    seed = check_seed(seed, TournamentError)
    params = _check_params(params, names, tags)
    threads = check_threads(threads, TournamentError)
    check_bool("quiet", quiet, TournamentError)
    check_optional_str("scheduler", scheduler, "None or a dask.distributed scheduler address (a string)",
                       TournamentError)
    check_optional_str("cluster", cluster, "None or 'local:N' (N worker processes)", TournamentError)
    rules = rules_from_object(rules)
    conditions = parse_conditions(hands, where, where_path, rules)  # checked before the first seating plays
    conditioned = hands is not None or where is not None or where_path is not None
    if deals > MAX_PLAY_DEALS and any(python_agent(n) is not None for n in names):  # refused before any seating plays
        raise TournamentError(f"deals={deals:,} is not valid with Python agents: at most {MAX_PLAY_DEALS:,} "
                              "(their seatings are played through Game)")
    if conditioned and any(python_agent(n) is not None for n in names):
        raise TournamentError("conditions (hands, where, where_path) are not available with Python agents "
                              "yet: their seatings are played through Game")
    acceptance = None
    if hands is not None or where is not None or where_path is not None:
        from .simulator import make_plan  # the acceptance rate: the dealing, whoever plays;
        # measured before the directory: a condition that can never hold leaves none bound to it
        pilot = make_plan(int(deals), seed, rules, "random", hands=hands, where=where, where_path=where_path)
        pilot.measure_conditions(quiet)
        acceptance = pilot.acceptance
    store = _open_out(out, {"kind": "tournament", "schema_version": TOURNAMENT_SCHEMA, "names": names,
                            "deals": int(deals), "seed": seed, "rules": rules.to_dict(),
                            "params": {str(k): v for k, v in params.items()},
                            "conditions": None if conditions is None else conditions.manifest(),
                            "seatings": [list(s) for s in plan]}, len(plan), int(deals))
    directory = None if store is None else store.directory
    start = time.perf_counter()
    total = np.zeros((int(deals), len(names)))
    game_frames = []
    if (scheduler is not None or cluster is not None) and threads is not None:
        raise TournamentError("threads applies to in-process runs; Dask workers use their own thread count")
    # each seating's chunk is written by the driver's writer thread while the next seating plays
    # (the writer's context: every seating written and its error raised; on an error or Ctrl-C only the one being written)
    writer = None if store is None else ChunkWriter(store)
    with _backend(scheduler, cluster) as address, (writer or contextlib.nullcontext()):
        for index, seating in enumerate(_progress(plan, quiet)):
            seat_names = [names[k] for k in seating]
            if store is not None and index in store.done:  # resumed: the seating verified on disk
                frame = pl.read_parquet(directory / chunk_name(index), glob=False, hive_partitioning=False)
            elif any(python_agent(n) is not None for n in seat_names):  # Python agents: through Game
                if hands is not None or where is not None or where_path is not None:
                    raise TournamentError("conditions (hands, where, where_path) are not available with "
                                          "Python agents yet: their seatings are played through Game")
                from ..game.agents import play_deals
                frame = play_deals(int(deals), seed, rules, seat_names,
                                   seat_params(seating, names, tags, params))
            else:
                frame = simulate(int(deals), seed, rules, seat_names, threads=threads,
                                 params=seat_params(seating, names, tags, params), quiet=True,
                                 scheduler=address, hands=hands, where=where, where_path=where_path)
            if store is None or index not in store.done:
                frame = _label_frame(frame, index, [tags[k] for k in seating])
                if writer is not None:
                    writer.acquire()  # at most two seatings held: the writer's and this one
                    writer.put(Chunk(index, 0, int(deals)), frame)
            games = contract_games(frame, seating, len(names))
            total += games.select(f"s{k}" for k in range(len(names))).to_numpy()
            game_frames.append(games)
            deal_ids = frame["deal_id"]
    per_deal = pl.DataFrame({"deal_id": deal_ids, **{t: total[:, i] / len(plan) for i, t in enumerate(tags)}})
    means, diffs = summarize(per_deal, tags)
    result = TournamentResult(tags, int(deals), int(seed), rules, per_deal, means, diffs,
                              time.perf_counter() - start, plan,
                              [t for t, n in zip(tags, names, strict=True) if n in cheats],
                              by_contract(pl.concat(game_frames), tags))
    if directory is not None:
        info = {**result.to_dict(), "names": names, "params": {str(k): v for k, v in params.items()},
                "conditions": {"hands": hands, "where": where, "where_path": where_path},
                "conditions_acceptance": acceptance,
                "seating_strategies": [[tags[k] for k in s] for s in plan]}
        _write_info(directory, info)
    return result


def _backend(scheduler, cluster):
    """In process (yields None) unless a Dask scheduler or a local:N cluster is asked for."""
    if scheduler is None and cluster is None:
        return contextlib.nullcontext(None)
    from .distributed import scheduler_address
    return scheduler_address(scheduler, cluster)


def _label_frame(frame: pl.DataFrame, index: int, seat_tags: list[str]) -> pl.DataFrame:
    """A seating's simulate rows with its index and the report names in strategy_0..3."""
    return frame.with_columns(
        pl.lit(index, dtype=pl.Int8).alias("seating"),
        *[pl.lit(t, dtype=pl.String).cast(pl.Categorical).alias(f"strategy_{s}")
          for s, t in enumerate(seat_tags)],
    ).select("deal_id", "seating", pl.exclude("deal_id", "seating"))


def _progress(items, quiet: bool):
    from .progress import progress_bar
    return progress_bar(quiet, iterable=items, unit=" seatings")


# ---------------------------------------------------------------------------- output

def table(result: TournamentResult) -> str:
    """The terminal report: means and differences with their 95% intervals."""
    width = max(12, *(len(k) for k in [*result.strategies, *result.diff]))
    lines = [f"{' vs '.join(result.strategies)}: {result.deals:,} deals x {len(result.seatings)} seatings "
             f"({result.deals * len(result.seatings):,} games), seed {result.seed}, "
             f"{result.seconds:.1f} s",
             f"{'strategy':{width}}  {'points/deal/seat':>16}  {'95% interval':>20}"]
    for name, i in result.mean.items():
        mark = "  (reads hidden cards)" if name in result.reads_hidden else ""
        lines.append(f"{name:{width}}  {i.mean:+16.4f}  [{i.lo:+8.4f}, {i.hi:+8.4f}]{mark}")
    lines.append(f"{'difference':{width}}  {'points/deal/seat':>16}  {'95% interval':>20}")
    for name, i in result.diff.items():
        verdict = "" if i.covers(0.0) else ("  (> 0)" if i.lo > 0 else "  (< 0)")
        lines.append(f"{name:{width}}  {i.mean:+16.4f}  [{i.lo:+8.4f}, {i.hi:+8.4f}]{verdict}")
    if result.by_contract:
        lines.append("by contract (per deal, the mean of its games of that contract; the groups' deals "
                     "differ between seatings)")
        first, rest = result.strategies[0], result.strategies[1:]
        lines.append(f"{'contract':20} {'deals':>7} {'games':>8}  "
                     + "  ".join(f"{first + '-' + other:>26}" for other in rest))
        for group, e in result.by_contract.items():
            cells = []
            for other in rest:
                i = e["diff"][f"{first}-{other}"]
                cells.append(f"{i.mean:+7.3f} [{i.lo:+7.3f}, {i.hi:+7.3f}]" if not math.isnan(i.lo)
                             else f"{i.mean:+7.3f} [   n/a  ,   n/a  ]")
            lines.append(f"{group:20} {e['deals']:7,} {e['games']:8,}  " + "  ".join(f"{c:>26}" for c in cells))
    if result.reads_hidden:
        lines.append(f"not a fair comparison: {', '.join(result.reads_hidden)} read(s) the other players' cards")
    return "\n".join(lines)


def rules_text(rules: Rules) -> str:
    """A short description of rules: the preset and the options that differ from it."""
    d = rules.to_dict()
    extra = [f"{k}={v}" for k, v in d.items() if k != "preset"]
    return d["preset"] + (f" ({', '.join(extra)})" if extra else "")


CHART_OWNER = "tournament"
"""The command named in the marker of a chart file (``outputs.written_by``)."""


def check_chart(path) -> Path:
    """Check a chart path before the work (``outputs.check_file``): its directory exists and can
    be written, and an existing file there is a chart dokosim's tournament wrote; OutputError
    otherwise."""
    from .outputs import check_file
    return check_file(path, "chart", CHART_OWNER)


def chart(result: TournamentResult, path) -> Path:
    """Save a PNG of each strategy's mean with its 95% error bar.

    Written under a temporary name and renamed; the PNG carries a marker (``outputs.marker``) so
    that a later chart may replace it, while any other existing file is refused (``check_chart``,
    OutputError). A failed write raises ``outputs.WriteFailed``."""
    from .outputs import MARKER_KEY, marker, replace_atomically
    path = check_chart(path)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = result.strategies
    means = [result.mean[n].mean for n in names]
    labels_shown = [f"{n}\n(reads hidden cards)" if n in result.reads_hidden else n for n in names]
    errors = [[m - result.mean[n].lo for n, m in zip(names, means)],
              [result.mean[n].hi - m for n, m in zip(names, means)]]
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 3, 4))
    ax.bar(labels_shown, means, yerr=errors, capsize=8, color="#7aa6c2", edgecolor="#2b506e")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("points per deal per seat (95% interval)")
    fig.suptitle("Duplicate tournament" + (" (not a fair comparison: a player reads hidden cards)"
                                           if result.reads_hidden else ""))
    ax.set_title(f"{result.deals:,} deals, rules {rules_text(result.rules)}, seed {result.seed}", fontsize=9)
    fig.tight_layout()
    try:
        replace_atomically(path, lambda tmp: fig.savefig(tmp, format="png", dpi=120,
                                                         metadata={MARKER_KEY: marker(CHART_OWNER)}))
    finally:
        plt.close(fig)
    return path
