"""Parquet datasets: the schema of their rows, and reading them.

A dataset is a run directory of the run driver (driver.py): one ``part-NNNNNN.parquet`` per chunk
of deals (chunk i holds deal ids i*chunk_size ...) and nothing else, so that Parquet readers read
the directory whole; beside it, ``DIR.dokosim/`` holds ``manifest.json`` (the plan) and the ledger
of chunks ``_chunks.jsonl``. The driver writes, verifies and resumes it.
"""
from __future__ import annotations

import functools

import numpy as np
import polars as pl

from ..engine.cards import CONTRACT_NAMES, RANKS, SUITS
from ..engine.layout import OUT_COLUMNS, WINNER_NAMES
from .driver import DatasetError

SCHEMA_VERSION = 2
CONTRACT_ENUM = pl.Enum(list(CONTRACT_NAMES))
WINNER_ENUM = pl.Enum(list(WINNER_NAMES))
COLUMN_TYPES = {
    "deal_id": pl.Int64, "dealer": pl.Int8,
    "hand_0": pl.Int64, "hand_1": pl.Int64, "hand_2": pl.Int64, "hand_3": pl.Int64,
    "contract": CONTRACT_ENUM, "declarer": pl.Int8, "re_mask": pl.Int8, "eyes_re": pl.Int16,
    "tricks_re": pl.Int8, "calls_re": pl.Int8, "calls_kontra": pl.Int8,
    "first_call_re": pl.Int8, "first_call_kontra": pl.Int8, "soloist": pl.Int8,
    "clarifying_trick": pl.Int8, "winner": WINNER_ENUM, "game_value": pl.Int16,
    "score_0": pl.Int16, "score_1": pl.Int16, "score_2": pl.Int16, "score_3": pl.Int16,
    "fox_re": pl.Int8, "fox_kontra": pl.Int8, "doppelkopf_re": pl.Int8,
    "doppelkopf_kontra": pl.Int8, "charlie_re": pl.Int8, "charlie_kontra": pl.Int8,
    "against_the_queens": pl.Boolean,
    "redeals": pl.Int16, "poverty_partner": pl.Int8, "poverty_passed": pl.Int64,
    "poverty_returned": pl.Int64, "piglets": pl.Int8,
}
assert tuple(COLUMN_TYPES) == OUT_COLUMNS


IDENTITY_KEYS = ("seed", "deals", "chunk_size", "rules", "strategies", "params", "dealer",
                 "contract", "declarer", "compulsory", "calls", "keep_play", "schema_version", "fixed_hand",
                 "conditions")


def typed_column(name: str, dtype, col: np.ndarray) -> pl.Series:
    """One int64 kernel output column as its dataset type (contract and winner by name)."""
    if name in ("contract", "winner"):
        names = CONTRACT_NAMES if name == "contract" else WINNER_NAMES
        return pl.Series(name, col).replace_strict(list(range(len(names))), list(names), return_dtype=dtype)
    if dtype == pl.Boolean:
        return pl.Series(name, col != 0)
    return pl.Series(name, col).cast(dtype)


_WIDTHS = ((np.int8, [i for i, t in enumerate(COLUMN_TYPES.values()) if t not in (pl.Int16, pl.Int64)]),
           (np.int16, [i for i, t in enumerate(COLUMN_TYPES.values()) if t == pl.Int16]),
           (np.int64, [i for i, t in enumerate(COLUMN_TYPES.values()) if t == pl.Int64]))
_BLOCK = 2048  # rows transposed at a time (560 KB of the row buffer: it stays in the cache)


def _columns(out: np.ndarray) -> dict[int, np.ndarray]:
    """The columns of the row-major int64 rows ``out`` in the numpy type of their dataset type
    (int8, int16 or int64; the enums' codes and the bools as int8), each a new contiguous array
    (nothing refers to ``out``): one pass over ``out``, a block of rows at a time transposed
    into each type's columns (a pass per column costs twice as much: every column's pass reads
    every row's cache lines)."""
    n = out.shape[0]
    blocks = [np.empty((len(index), n), dtype=dtype) for dtype, index in _WIDTHS]
    for start in range(0, n, _BLOCK):
        rows = out[start:start + _BLOCK]
        for block, (_, index) in zip(blocks, _WIDTHS):
            block[:, start:start + _BLOCK] = rows[:, index].T
    columns = {}
    for block, (_, index) in zip(blocks, _WIDTHS):
        columns.update(zip(index, block))
    return columns


@functools.lru_cache(maxsize=8)
def _strategy_column(name: str, n: int) -> pl.Series:
    """``name`` repeated ``n`` times, Categorical: the same for every chunk of a run (a Series is
    immutable, so chunks share it), built once."""
    return pl.repeat(name, n, eager=True, dtype=pl.String).cast(pl.Categorical)


def frame_from_rows(out: np.ndarray, strategy_names: list[str]) -> pl.DataFrame:
    """The typed DataFrame of a block of simulator rows (n x OUT_LEN int64): the same columns
    as typed_column gives, built without a pass per column over the rows (the run driver's
    writer thread builds each chunk's frame beside the play of the next). The kernel's values
    are in their columns' ranges (engine/layout.py), so they are narrowed as they are, unchecked."""
    columns = _columns(out)
    cols = {}
    for i, (name, dtype) in enumerate(COLUMN_TYPES.items()):
        col = columns[i]
        if name in ("contract", "winner"):  # the names by their codes (a code out of range: OutOfBoundsError)
            names = CONTRACT_NAMES if name == "contract" else WINNER_NAMES
            cols[name] = pl.Series(name, list(names), dtype=dtype).gather(col.astype(np.uint32))
        elif dtype == pl.Boolean:
            cols[name] = pl.Series(name, col != 0)
        else:
            cols[name] = pl.Series(name, col)
    n = out.shape[0]
    for s, strat in enumerate(strategy_names):
        cols[f"strategy_{s}"] = _strategy_column(strat, n).alias(f"strategy_{s}")
    return pl.DataFrame(cols)


def scan(directory) -> pl.LazyFrame:
    """Lazy scan of a dataset's chunk files: those its ledger lists (or, without a trustworthy
    ledger, those carrying its plan: dataset_files.resolve), each read as a literal path inside
    ``directory`` in chunk order (a name with ``[``, ``?`` or ``*`` is only a name; a stray Parquet
    file, another run's chunk, or a file outside the directory is not read). DatasetError (one
    line) for a missing directory, a dataset with no finished chunk yet, or a damaged chunk."""
    from .dataset_files import resolve, scan_files
    found = resolve(directory)
    if not found.files:
        raise DatasetError(f"{found.directory} holds no finished chunk yet (an interrupted run: run the same "
                           "command again to go on)")
    return scan_files(found.files)


CARD_NAMES = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The 24 card kinds by index (cards.py: kind = 6 * suit + rank, suits C S H D, ranks A T K Q J 9);
card c of a 48-bit hand mask is kind c // 2."""
HAND_COLUMNS = tuple(f"hand_{s}" for s in range(4))
_PIECE = 1 << 20  # rows decoded at a time: their bit matrix is 64 MB


def _held(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, card) of every set bit of the int64 ``masks``, rows ascending, cards ascending within
    a row (vectorised: the masks' bytes unpacked to bits, a piece of rows at a time)."""
    rows, cards_ = [], []
    little = np.ascontiguousarray(masks, dtype="<i8")
    for start in range(0, len(little), _PIECE):
        piece = little[start:start + _PIECE]
        held = np.unpackbits(piece.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")[:, :48]
        r, c = np.nonzero(held)
        rows.append(r + start)
        cards_.append(c)
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(rows), np.concatenate(cards_)


CARD_ENUM = pl.Enum(list(CARD_NAMES))


def _card_names(kinds: np.ndarray):
    """The kinds (ints 0-23) as a pyarrow dictionary array of CARD_NAMES (no string per card)."""
    import pyarrow as pa
    return pa.DictionaryArray.from_arrays(pa.array(kinds.astype(np.int8)), pa.array(CARD_NAMES))


def cards(frame, long: bool = False) -> pl.DataFrame:
    """The hands of a dataset's rows (``frame``: a polars DataFrame or LazyFrame with the columns
    ``hand_0`` .. ``hand_3``, int64 card masks) as cards, decoded for all rows at once (vectorised:
    a few seconds a million rows).

    ``long=False``: ``frame`` with each hand column replaced by the list of its card names in card
    order, e.g. ``["AC", "QC", "QC", "TH", ...]`` (two copies of a kind appear twice).
    ``long=True``: one row per card held, with the columns ``row`` (the row's position in
    ``frame``: a tournament's rows repeat a deal_id, once per seating), ``deal_id`` (if ``frame``
    has it), ``seat``, ``card`` (the name) and ``kind`` (0-23, CARD_NAMES). Card names are the
    Enum CARD_ENUM. A frame without the hand columns, or with a missing hand: DatasetError
    naming them."""
    import pyarrow as pa
    if not isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        raise DatasetError(f"cards() takes a polars DataFrame or LazyFrame of a dataset's rows, not "
                           f"{type(frame).__name__}")
    if not isinstance(long, (bool, np.bool_)):
        raise DatasetError(f"cards(long={long!r}): long is True or False")
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    missing = [c for c in HAND_COLUMNS if c not in frame.columns]
    if missing:
        raise DatasetError(f"cards() needs the hand columns {', '.join(HAND_COLUMNS)}; the frame lacks "
                           f"{', '.join(missing)}")
    nulls = [c for c in HAND_COLUMNS if frame[c].null_count()]
    if nulls:
        raise DatasetError(f"cards(): {', '.join(nulls)} has missing hands (nulls); drop those rows first")
    for c in HAND_COLUMNS:  # a card mask: an integer of 48 bits (cards 0-47), nothing else
        column = frame[c]
        if not column.dtype.is_integer():
            raise DatasetError(f"cards(): {c} has dtype {column.dtype}; a hand is an integer card mask "
                               "(48 bits, as a dataset stores it)")
        if frame.height and (column.min() < 0 or column.max() >= 1 << 48):
            bad = column.filter((column < 0) | (column >= 1 << 48))[0]
            raise DatasetError(f"cards(): {c} holds {bad}, not a card mask (an integer from 0 to 2**48 - 1)")
    if long:
        parts = []
        for seat, column in enumerate(HAND_COLUMNS):
            rows, held = _held(frame[column].to_numpy().astype(np.int64))
            names = pl.from_arrow(_card_names(held >> 1)).cast(CARD_ENUM)
            part = {"row": rows.astype(np.int64)}
            if "deal_id" in frame.columns:
                part["deal_id"] = frame["deal_id"].to_numpy()[rows]
            part.update(seat=np.full(len(rows), seat, dtype=np.int8), card=names, kind=(held >> 1).astype(np.int8))
            parts.append(pl.DataFrame(part))
        return pl.concat(parts).sort(["row", "seat", "kind"], maintain_order=True)
    columns = []
    for column in HAND_COLUMNS:
        rows, held = _held(frame[column].to_numpy().astype(np.int64))
        offsets = np.zeros(frame.height + 1, dtype=np.int32)
        np.cumsum(np.bincount(rows, minlength=frame.height), out=offsets[1:])
        lists = pl.from_arrow(pa.ListArray.from_arrays(pa.array(offsets), _card_names(held >> 1)))
        columns.append(lists.cast(pl.List(CARD_ENUM)).alias(column))
    return frame.with_columns(columns)
