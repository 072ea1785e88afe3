"""Parquet datasets: schema, chunked atomic writes, the run manifest, resume.

A dataset is a directory holding ``manifest.json`` and one ``part-NNNNNN.parquet``
per chunk of deals (chunk i holds deal ids i*chunk_size ...). A chunk file is
written under a temporary name and renamed when complete, so an interrupted run
leaves only whole chunks; running the same command again writes the missing ones.
"""
from __future__ import annotations

import json
import os
import socket
import uuid
from pathlib import Path

import numpy as np
import polars as pl

from .cards import CONTRACT_NAMES
from .engine.layout import OUT_COLUMNS, WINNER_NAMES

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


class ManifestMismatch(ValueError):
    """An existing dataset was made by a different command."""


IDENTITY_KEYS = ("seed", "deals", "chunk_size", "rules", "strategies", "params", "dealer",
                 "contract", "declarer", "compulsory", "calls", "keep_play", "schema_version", "fixed_hand")


def prepare(directory: Path, manifest: dict, keys: tuple[str, ...] = IDENTITY_KEYS) -> set[int]:
    """Create or check a dataset directory; return the chunk indices already complete.

    ``keys``: the manifest entries that must match an existing dataset's."""
    if directory.exists() and not directory.is_dir():
        raise ManifestMismatch(f"--out {str(directory)!r} is a file, not a directory")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "manifest.json"
    if path.exists():
        old = json.loads(path.read_text())
        for key in keys:
            if old.get(key) != manifest.get(key):
                raise ManifestMismatch(
                    f"{directory} holds a dataset made with {key}={json.dumps(old.get(key))}, "
                    f"not {json.dumps(manifest.get(key))}; use another --out or the same command")
    else:
        if any(directory.iterdir()):
            raise ManifestMismatch(f"--out {str(directory)!r} is not empty and has no manifest.json")
        write_json_atomic(path, manifest)
    done = set()
    for f in directory.glob("part-*.parquet"):
        done.add(int(f.stem.split("-")[1]))
    for f in directory.glob("*.tmp"):
        f.unlink()  # left by an interrupted run
    return done


def chunk_path(directory: Path, index: int) -> Path:
    return directory / f"part-{index:06d}.parquet"


def write_chunk(directory: Path, index: int, frame: pl.DataFrame) -> None:
    """Write one chunk under a temporary name, then rename it into place."""
    final = chunk_path(directory, index)
    # unique across hosts sharing the directory (Dask workers) and across retries
    tmp = final.with_suffix(f".{socket.gethostname()}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        frame.write_parquet(tmp, compression="zstd", compression_level=9, statistics=False)
        os.replace(tmp, final)
    except BaseException:  # Ctrl-C or a full disk: leave only whole chunks behind
        tmp.unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, obj: dict) -> None:
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(obj, indent=2) + "\n")
    os.replace(tmp, path)


def read_manifest(directory: Path) -> dict:
    return json.loads((Path(directory) / "manifest.json").read_text())


def scan(directory: Path) -> pl.LazyFrame:
    """Lazy scan of all chunk files of a dataset."""
    return pl.scan_parquet(str(Path(directory) / "part-*.parquet"))
