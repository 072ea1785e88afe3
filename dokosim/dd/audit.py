"""Play errors against double-dummy play: ``dokosim.audit`` and ``dokosim audit`` (docs/audit.md).

For each deal of a dataset made with ``--keep-play``, every card of the last K tricks is set
against the double-dummy solver (``solver/eyes.py``, ``audit_line``): the eyes the card gave
away from its player's side, |value of the best card - value of the card played| in Re's final
eyes with every hand open and best play after it. Per strategy: the mean eyes lost per card,
overall, by trick and by role, with 95% intervals over deals (a ratio estimator, below).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import polars as pl

from ..stats import ratio_interval

DEFAULT_TRICKS = 6
ROLES = ("Re", "Kontra", "soloist")
CARD_COLUMNS = ("deal_id", "seat", "strategy", "trick", "card", "role", "best", "played", "loss", "swing",
                "band_before", "band_after", "band_swing", "band_nodes")
EXACT_TRICKS = 6  # the last tricks audited with exact eyes (a solve from earlier costs seconds)
WIN_LINE = 121  # Re's eyes to win when nobody announced more than Re / Kontra


class AuditError(ValueError):
    """A bad audit request (not a dataset, no game records, K out of range): one line."""


def audit_records(records, tricks: int = DEFAULT_TRICKS, deal_ids=None, progress=None,
                  solver=None, exact_tricks: int = EXACT_TRICKS, band_node_limit: int | None = None) -> pl.DataFrame:
    """The audited cards of complete game records (GAME_RECORD.md dicts or JSON text), one row
    per card of the last ``tricks`` tricks: ``deal_id`` (``deal_ids[i]``, default the record's
    index), ``seat``, ``trick`` (1-based), ``card`` (its index in the play, 0-based), ``role``
    (Re, Kontra, or soloist: the only Re seat); for the cards of the last ``exact_tricks`` tricks
    (default 6) the exact eyes: ``best`` (Re's final eyes under best play before the card),
    ``played`` (the same after it), ``loss`` (eyes given away by the card from its side, >= 0),
    ``swing`` (1 when the card moved Re's best-play eyes across 121, the line between a won and
    a lost game without further announcements, else 0), null for the cards before; for every
    card the game value's bands (``band.value_edges`` of the record's calls): ``band_before`` /
    ``band_after`` (Re's best-play band before and after the card, "121-150"), ``band_swing`` (1
    when the card changed it, so changed the deal's value under best play) and ``band_nodes``;
    before the exact tricks each band is searched within ``band_node_limit`` nodes (default
    ``BAND_NODE_LIMIT``) and null past it. ``progress(n)``: called after each record."""
    import orjson

    if isinstance(tricks, bool) or not isinstance(tricks, (int, np.integer)) or not 1 <= tricks <= 12:
        raise AuditError(f"tricks={tricks!r} is not valid: a whole number of tricks from 1 to 12")
    if isinstance(exact_tricks, bool) or not isinstance(exact_tricks, (int, np.integer)) or not 0 <= exact_tricks <= 12:
        raise AuditError(f"exact_tricks={exact_tricks!r} is not valid: a whole number of tricks from 0 to 12")
    band_node_limit = BAND_NODE_LIMIT if band_node_limit is None else band_node_limit
    from ..engine.layout import H_RE_MASK, P_LEVEL_KO, P_LEVEL_RE
    from ..solver.eyes import W_ST, audit_line
    from ..engine.jit import ensure_loop
    from ..records.record import RecordError, parse_record, replay_detail
    from .band import band_between, band_label, value_edges
    from .solve import Solver
    solver = solver or Solver()
    kernel = ensure_loop(audit_line, "the double-dummy solver")
    cols = {k: [] for k in CARD_COLUMNS if k != "strategy"}
    seat_out, best, played, loss = (np.zeros(48, dtype=np.int64) for _ in range(4))
    for i, record in enumerate(records):
        if isinstance(record, (str, bytes)):
            record = orjson.loads(record)
        p = parse_record(record)
        n_cards = 4 * int(p.rules.hand_size)
        if len(p.play) != n_cards:
            raise RecordError("bad_field", f"record {i}: {len(p.play)} cards played; the audit needs "
                                           f"complete deals ({n_cards})")
        if p.table is not None:
            raise RecordError("bad_field", f"record {i}: a five-player record; the audit takes four-player deals")
        if tricks > p.rules.hand_size:
            raise AuditError(f"--tricks {tricks} is more than the {p.rules.hand_size} tricks of a deal")
        whole = replay_detail(record)  # every card checked against the rules first: an illegal card
        if whole["error"]:             # would be "audited" as a negative loss
            out = whole["output"]
            raise RecordError(out.get("kind", "bad_field"), f"record {i}: {out.get('error')}")
        detail = replay_detail({**record, "play": []})
        if detail["error"]:
            raise RecordError("bad_field", f"record {i}: {detail['output'].get('error')}")
        final = whole["state"][0]
        edges = value_edges(int(final[P_LEVEL_RE]), int(final[P_LEVEL_KO]))
        first = n_cards - 4 * tricks
        exact = min(tricks, exact_tricks)
        first_exact = n_cards - 4 * exact
        rows = []  # (seat, best, played, loss, band before, band after, nodes)
        if first_exact > first:
            line = band_line(record, solver, first, first_exact - first, edges, band_node_limit)
            for k, (b, a, nodes) in enumerate(line):
                rows.append((int(whole["play_seat"][first + k]), None, None, None, b, a, nodes))
        if exact:
            solver.load(detail["state"])
            solver._start()  # a reused solver: its node limit and abort flag from this call on
            cards = np.frombuffer(p.play, dtype=np.uint8).astype(np.int64) * 2
            count = int(kernel(solver.ws, solver.tt, cards, first_exact, 4 * exact, seat_out, best, played, loss))
            if count < 0:  # only with a node limit
                raise RuntimeError("the solver ran past its node limit")
            for k in range(count):
                rows.append((int(seat_out[k]), int(best[k]), int(played[k]), int(loss[k]),
                             band_between(int(best[k]), edges), band_between(int(played[k]), edges), 0))
        re_mask = int(solver.ws[W_ST + H_RE_MASK]) if exact else int(final[H_RE_MASK])
        alone = bin(re_mask).count("1") == 1
        deal = i if deal_ids is None else int(deal_ids[i])
        for k, (s, b, pl_, lo, bb, ba, nodes) in enumerate(rows):
            cols["deal_id"].append(deal)
            cols["seat"].append(s)
            cols["trick"].append((first + k) // 4 + 1)
            cols["card"].append(first + k)
            cols["role"].append(("soloist" if alone else "Re") if re_mask >> s & 1 else "Kontra")
            cols["best"].append(b)
            cols["played"].append(pl_)
            cols["loss"].append(lo)
            cols["swing"].append(None if b is None else int((b >= WIN_LINE) != (pl_ >= WIN_LINE)))
            cols["band_before"].append(None if bb is None else band_label(bb))
            cols["band_after"].append(None if ba is None else band_label(ba))
            cols["band_swing"].append(None if bb is None or ba is None else int(bb != ba))
            cols["band_nodes"].append(nodes)
        if progress is not None:
            progress(1)
    strings = ("role", "band_before", "band_after")
    return pl.DataFrame({k: pl.Series(k, v, dtype=pl.String if k in strings else pl.Int64)
                         for k, v in cols.items()})


BAND_NODE_LIMIT = 2_000_000
"""Default node budget of each band search of an audit (the cards before the exact tricks)."""


def band_line(record: dict, solver, first: int, count: int, edges, node_limit: int = BAND_NODE_LIMIT):
    """The game-value bands around each card ``first`` .. ``first``+``count``-1 of a complete
    record (a dict): per card (band before, band after), each (lowest, highest) of Re's final eyes
    under best play (``Solver.band`` over ``edges``) or None past ``node_limit`` nodes, and the
    nodes searched. The band after a card is the band before the next; a card can only keep or
    worsen the band for its side (Re's seats: never higher, the others: never lower), so the
    search after it starts at the edge that would keep it and needs one search for a card that
    changes nothing. Every position is one deal's, so they share the solver's table."""
    from ..engine.layout import H_RE_MASK, P_TURN
    from ..records.record import replay_detail
    out = []
    before = None

    def search(state, lo=0, hi=240, start=121):
        solver.load(state)
        n0 = solver.nodes
        saved = solver.node_limit
        solver.node_limit = node_limit
        try:
            band = solver.band(lo, hi, start, edges=edges)
        finally:
            solver.node_limit = saved
        return band, solver.nodes - n0

    def position(n):  # the record after its first n cards, with the calls made by then
        calls = [c for c in record.get("announcements", []) if c["cards_played"] <= n]
        return replay_detail({**record, "play": record["play"][:n], "announcements": calls})["state"]

    state = position(first)
    before, nodes = search(state)
    for k in range(first, first + count):
        st = state[0]
        re = (int(st[H_RE_MASK]) >> int(st[P_TURN])) & 1
        state = position(k + 1)
        if before is None:
            after, n = search(state)
        elif re:  # Re's card: Re's eyes under best play can only stay or fall
            after, n = search(state, 0, before[1], before[0])
        else:
            after, n = search(state, before[0], 240, before[1] + 1)
        out.append((before, after, nodes + n))
        nodes = 0
        before = after
    return out


def summarize(cards: pl.DataFrame) -> pl.DataFrame:
    """Per strategy: eyes lost per card with its 95% interval (``ratio_interval``, the deal is
    the unit), over all audited cards (``by`` = "all"), by trick ("trick", ``level`` the trick
    number) and by role ("role": Re, Kontra, soloist). Columns: strategy, by, level, deals,
    cards, eyes_lost_per_card, lo, hi, error_share (the share of cards that lost any eyes),
    swings_per_1000 with swing_lo, swing_hi (cards per 1,000 that moved Re's best-play eyes
    across 121: a won game given away, or a lost one let off; the same estimator), all over the
    cards audited with exact eyes (``cards``; NaN where there are none); band_cards (cards whose
    bands before and after were answered), band_answered (their share of the group's cards),
    band_swings_per_1000 with band_swing_lo, band_swing_hi (cards per 1,000 answered ones that
    changed the game value's band under best play; the same estimator)."""
    rows = []
    groups = [("all", None)] + [("trick", "trick"), ("role", "role")]
    for strategy in sorted(cards["strategy"].unique().to_list()):
        mine = cards.filter(pl.col("strategy") == strategy)
        for by, column in groups:
            levels = ["all"] if column is None else sorted(mine[column].unique().to_list(),
                                                           key=lambda v: (ROLES.index(v) if v in ROLES else v))
            for level in levels:
                group = mine if column is None else mine.filter(pl.col(column) == level)
                part = group.filter(pl.col("loss").is_not_null())
                per_deal = part.group_by("deal_id").agg(pl.col("loss").sum().alias("l"), pl.len().alias("c"),
                                                        pl.col("swing").sum().alias("w"))
                mean, lo, hi, deals, n = ratio_interval(per_deal["l"].to_numpy(), per_deal["c"].to_numpy())
                w, w_lo, w_hi, _, _ = ratio_interval(per_deal["w"].to_numpy() * 1000, per_deal["c"].to_numpy())
                banded = group.filter(pl.col("band_swing").is_not_null())
                per_deal = banded.group_by("deal_id").agg(pl.col("band_swing").sum().alias("w"), pl.len().alias("c"))
                b, b_lo, b_hi, _, b_n = ratio_interval(per_deal["w"].to_numpy() * 1000, per_deal["c"].to_numpy())
                rows.append({"strategy": strategy, "by": by, "level": str(level),
                             "deals": group["deal_id"].n_unique(), "cards": n,
                             "eyes_lost_per_card": mean, "lo": lo, "hi": hi,
                             "error_share": float((part["loss"] > 0).mean()) if part.height else math.nan,
                             "swings_per_1000": w, "swing_lo": w_lo, "swing_hi": w_hi,
                             "band_cards": b_n, "band_answered": b_n / group.height if group.height else math.nan,
                             "band_swings_per_1000": b, "band_swing_lo": b_lo, "band_swing_hi": b_hi})
    schema = {"strategy": pl.String, "by": pl.String, "level": pl.String, "deals": pl.Int64, "cards": pl.Int64,
              "eyes_lost_per_card": pl.Float64, "lo": pl.Float64, "hi": pl.Float64, "error_share": pl.Float64,
              "swings_per_1000": pl.Float64, "swing_lo": pl.Float64, "swing_hi": pl.Float64,
              "band_cards": pl.Int64, "band_answered": pl.Float64, "band_swings_per_1000": pl.Float64,
              "band_swing_lo": pl.Float64, "band_swing_hi": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


class AuditResult:
    """What ``dokosim.audit`` returns: ``cards`` (one row per audited card, CARD_COLUMNS),
    ``summary`` (``summarize``), ``tricks`` (K), ``deals``, ``solves`` and ``seconds`` (the
    audit's wall time)."""

    def __init__(self, cards: pl.DataFrame, summary: pl.DataFrame, tricks: int, deals: int, seconds: float,
                 exact_tricks: int = EXACT_TRICKS, node_limit: int = BAND_NODE_LIMIT):
        self.cards = cards
        self.summary = summary
        self.tricks = tricks
        self.exact_tricks = min(tricks, exact_tricks)
        self.node_limit = node_limit
        self.deals = deals
        self.solves = deals * (4 * tricks + 1)
        self.seconds = seconds

    def to_dict(self) -> dict:
        return {"tricks": self.tricks, "exact_tricks": self.exact_tricks, "node_limit": self.node_limit,
                "deals": self.deals, "cards": self.cards.height, "solves": self.solves,
                "seconds": round(self.seconds, 3), "summary": self.summary.to_dicts()}


def check_dataset(directory) -> dict:
    """The plan of a dataset the audit can read (made by ``dokosim simulate --keep-play``), as
    its chunks carry it (run/dataset_files.resolve); AuditError with one line otherwise
    (dataset_files.DamagedDataset, a DatasetError, for a damaged chunk)."""
    return _resolved(directory).manifest


def _resolved(directory):
    from ..run.dataset_files import DamagedDataset, resolve
    from ..run.driver import DatasetError
    hint = "give a dataset of dokosim simulate --keep-play --out DIR"
    from ..validation import check_path_value
    directory = check_path_value("directory", directory, AuditError)
    if not directory.is_dir():
        raise AuditError(f"{directory} is not a directory; {hint}")
    try:
        found = resolve(directory)
    except DamagedDataset:
        raise
    except DatasetError as exc:
        raise AuditError(f"{exc}; {hint}") from None
    manifest = found.manifest
    if manifest.get("kind") == "sessions":
        raise AuditError(f"{directory} is a session dataset; the audit takes a dataset of dokosim simulate "
                         "--keep-play --out DIR")
    if manifest.get("kind") is not None:
        raise AuditError(f"{directory} is not a dataset of deals (it holds {manifest.get('kind')!r} rows: "
                         f"{'dokosim train data' if manifest.get('kind') == 'train_data' else 'another command'}"
                         f"); {hint}")
    if not manifest.get("keep_play"):
        raise AuditError(f"{directory} has no game records (made without --keep-play); simulate it again "
                         "with --keep-play")
    return found


def audit(directory, tricks: int = DEFAULT_TRICKS, out=None, quiet: bool = True, deals: int | None = None,
          exact_tricks: int = EXACT_TRICKS, node_limit: int = BAND_NODE_LIMIT) -> AuditResult:
    """Audit the card play of a dataset against double-dummy play.

    ``directory``: a dataset of ``dokosim simulate --keep-play --out DIR``. Every card of the
    last ``tricks`` tricks (1-12, default 6) of each deal is compared with the best card for its
    player's side under double-dummy play (every hand open, best play by both sides after it,
    eyes only): the eyes lost by the card, for the cards of the last ``exact_tricks`` tricks
    (default 6; an exact solve from earlier positions costs seconds per card). Every audited card
    is also set against the game value's bands (``band_swing``: the card changed the band of Re's
    best-play eyes that the deal's calls score, so the deal's value under best play); before the
    exact tricks each band search stops after ``node_limit`` nodes (default 2 million) and the
    card is then not answered (``band_answered`` in the summary). ``tricks=12`` audits every card
    of a deal. ``deals``: audit only the first N deals.
    ``out``: also write ``cards.parquet`` (one row per card) and ``summary.csv`` / ``summary.md``
    there. ``quiet``: no progress bar. Returns an ``AuditResult`` whose ``summary`` has, per
    strategy, the mean eyes lost per card with its 95% interval over deals, overall, by trick and
    by role (Re, Kontra, soloist).

    Example::

        import dokosim
        dokosim.simulate(200, seed=0, strategy="simple", keep_play=True, out="data/simple200")
        r = dokosim.audit("data/simple200", tricks=4)
        r.summary.filter(by="all")   # simple: eyes lost per card, lo, hi, deals, cards
    """
    import time

    from ..run.outputs import OutputError, check_directory
    if isinstance(tricks, bool) or not isinstance(tricks, (int, np.integer)) or not 1 <= tricks <= 12:
        raise AuditError(f"--tricks {tricks!r} is not valid; give a number of tricks from 1 to 12")
    if deals is not None and (isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or not 1 <= deals < 2**62):
        raise AuditError(f"deals={deals!r} is not valid: None (all) or a whole number from 1")
    if isinstance(exact_tricks, bool) or not isinstance(exact_tricks, (int, np.integer)) or not 0 <= exact_tricks <= 12:
        raise AuditError(f"--exact-tricks {exact_tricks!r} is not valid; give a number of tricks from 0 to 12")
    if isinstance(node_limit, bool) or not isinstance(node_limit, (int, np.integer)) or node_limit < 0:
        raise AuditError(f"--node-limit {node_limit!r} is not valid; give a number of nodes from 0 (no limit)")
    found = _resolved(directory)
    if out is not None:
        from ..validation import check_path_value
        check_path_value("out", out, AuditError)
        try:
            out = check_directory(out, "--out")
        except OutputError as exc:
            raise AuditError(str(exc)) from None
        if out.exists() and any(out.iterdir()):  # never overwrite what is there
            raise AuditError(f"--out {str(out)!r} must be a new or empty directory (it holds files)")
    t0 = time.perf_counter()
    columns = ["deal_id", "record", "strategy_0", "strategy_1", "strategy_2", "strategy_3"]
    from ..run.dataset_files import read_error, scan_files
    if not found.files:
        raise AuditError(f"{directory} holds no finished chunk yet (an interrupted run: run the same command "
                         "again to go on)")
    for note in found.notes:
        print(f"dokosim: {note}", file=sys.stderr)
    try:
        lazy = scan_files(found.files).select(columns).sort("deal_id")
        frame = (lazy.head(deals) if deals is not None else lazy).collect()
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise read_error(found.files, exc) from None
    from ..run.progress import progress_bar
    with progress_bar(quiet, total=frame.height, unit=" deals") as bar:
        cards = audit_records(frame["record"].to_list(), tricks, frame["deal_id"].to_list(), bar.update,
                              exact_tricks=exact_tricks, band_node_limit=node_limit)
    seats = frame.select("deal_id", *[pl.col(f"strategy_{s}").cast(pl.String) for s in range(4)])
    names = seats.unpivot(index="deal_id", variable_name="seat", value_name="strategy").with_columns(
        pl.col("seat").str.strip_prefix("strategy_").cast(pl.Int64))
    cards = cards.join(names, on=["deal_id", "seat"], how="left").select(CARD_COLUMNS)
    summary = summarize(cards)
    result = AuditResult(cards, summary, tricks, frame.height, time.perf_counter() - t0, exact_tricks, node_limit)
    if out is not None:
        extra = "" if exact_tricks == EXACT_TRICKS else f" --exact-tricks {exact_tricks}"
        extra += "" if node_limit == BAND_NODE_LIMIT else f" --node-limit {node_limit}"
        write_outputs(result, out, f"dokosim audit {directory} --tricks {tricks}{extra}")
    return result


def _span(result: AuditResult) -> str:
    t = result.cards["trick"]
    return f"{t.min()}-{t.max()}" if t.len() else "none"


def summary_note(result: AuditResult, command: str) -> str:
    k, e = result.tricks, result.exact_tricks
    return (f"Eyes lost per card against double-dummy play (every hand open, best play by both sides "
            f"after the card, eyes only), **audited: the cards of the last {k} tricks only** "
            f"(tricks {_span(result)}; the cards before are not audited), eyes lost for the cards of the "
            f"last {e} tricks (tricks {13 - e}-12). {result.deals:,} deals. "
            "Mean = total eyes lost / cards, 95% interval over deals (ratio estimator, t; "
            f"docs/audit.md). Role: Re, Kontra, or soloist (Re alone). Swings: cards that moved Re's "
            f"best-play eyes across 121 (won <-> lost without further announcements), per 1,000 cards. "
            f"Band swings: cards that changed the band of Re's best-play eyes that the deal's calls score "
            f"(so the deal's value under best play), per 1,000 answered cards; before trick {13 - e} each "
            f"band search stops at {result.node_limit:,} nodes and its card is not answered (answered: "
            f"their share). Command: `{command}`.")


def write_outputs(result: AuditResult, out: Path, command: str) -> None:
    """cards.parquet, summary.csv and summary.md in ``out``."""
    from ..run.outputs import writing
    out.mkdir(parents=True, exist_ok=True)
    with writing(out / "cards.parquet"):
        result.cards.write_parquet(out / "cards.parquet")
    with writing(out / "summary.csv"):
        result.summary.write_csv(out / "summary.csv")
    with writing(out / "summary.md"):
        (out / "summary.md").write_text(markdown(result.summary, "Play errors against double-dummy play",
                                                 summary_note(result, command)))


def markdown(summary: pl.DataFrame, title: str, note: str) -> str:
    """The summary as a Markdown table (figures rounded to 3 decimals)."""
    lines = [f"# {title}", "", note, "",
             "| strategy | by | level | deals | cards | eyes lost per card | lo | hi | share of cards losing eyes "
             "| swings per 1,000 cards | lo | hi | band cards | answered | band swings per 1,000 | lo | hi |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in summary.iter_rows(named=True):
        lines.append(f"| {r['strategy']} | {r['by']} | {r['level']} | {r['deals']} | {r['cards']} | "
                     f"{r['eyes_lost_per_card']:.3f} | {r['lo']:.3f} | {r['hi']:.3f} | {r['error_share']:.3f} | "
                     f"{r['swings_per_1000']:.2f} | {r['swing_lo']:.2f} | {r['swing_hi']:.2f} | "
                     f"{r['band_cards']} | {r['band_answered']:.3f} | {r['band_swings_per_1000']:.2f} | "
                     f"{r['band_swing_lo']:.2f} | {r['band_swing_hi']:.2f} |")
    return "\n".join(lines) + "\n"
