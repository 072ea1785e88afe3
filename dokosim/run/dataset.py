"""Parquet datasets: the schema of their rows, and reading them.

A dataset is a run directory of the run driver (driver.py): ``manifest.json`` (the plan), the
ledger of chunks ``_chunks.jsonl`` and one ``part-NNNNNN.parquet`` per chunk of deals (chunk i
holds deal ids i*chunk_size ...); the driver writes, verifies and resumes it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from ..engine.cards import CONTRACT_NAMES
from ..engine.layout import OUT_COLUMNS, WINNER_NAMES
from .driver import DatasetError, ledger_files

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


def frame_from_rows(out: np.ndarray, strategy_names: list[str]) -> pl.DataFrame:
    """The typed DataFrame of a block of simulator rows (n x OUT_LEN int64)."""
    cols = {name: typed_column(name, dtype, out[:, i])
            for i, (name, dtype) in enumerate(COLUMN_TYPES.items())}
    n = out.shape[0]
    for s, strat in enumerate(strategy_names):
        cols[f"strategy_{s}"] = pl.repeat(strat, n, eager=True, dtype=pl.String).cast(pl.Categorical)
    return pl.DataFrame(cols)


def scan(directory: Path) -> pl.LazyFrame:
    """Lazy scan of a dataset's chunk files: those of its ledger (driver.py), in chunk order (a
    stray Parquet file in the directory is not read)."""
    files = ledger_files(Path(directory))
    if files is None:  # written before the ledger
        return pl.scan_parquet(str(Path(directory) / "part-*.parquet"))
    if not files:
        raise DatasetError(f"{directory} holds no finished chunk yet (an interrupted run: run the same "
                           "command again to go on)")
    return pl.scan_parquet([str(f) for f in files])
