"""Parquet datasets: schema, chunked atomic writes, the run manifest, resume.

A dataset is a directory holding ``manifest.json`` and one ``part-NNNNNN.parquet``
per chunk of deals (chunk i holds deal ids i*chunk_size ...). A chunk file is
written under a temporary name and renamed when complete, so an interrupted run
leaves only whole chunks; running the same command again checks the chunks there (a damaged
one is played again) and writes the missing ones. Write errors are ``outputs.WriteFailed``.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import polars as pl

from ..engine.cards import CONTRACT_NAMES
from ..engine.layout import OUT_COLUMNS, WINNER_NAMES
from .outputs import check_directory, deferred_interrupt, reason, replace_atomically, writing

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


class DatasetError(ValueError):
    """A dataset directory that cannot be used as it is (the message names it and says why)."""


class ManifestMismatch(DatasetError):
    """An existing dataset was made by a different command (or its manifest is unreadable)."""


IDENTITY_KEYS = ("seed", "deals", "chunk_size", "rules", "strategies", "params", "dealer",
                 "contract", "declarer", "compulsory", "calls", "keep_play", "schema_version", "fixed_hand",
                 "conditions")
_CHUNK_NAME = re.compile(r"part-(\d{6,})\.parquet")


def prepare(directory: Path, manifest: dict, keys: tuple[str, ...] = IDENTITY_KEYS) -> set[int]:
    """Create or check a dataset directory; return the chunk indices already complete.

    Checked before any work (``outputs.check_directory``): the directory can be created or
    written. ``keys``: the manifest entries that must match an existing dataset's. Each existing
    chunk file is validated (its Parquet footer readable, its row count the chunk's); a damaged
    one is not counted as complete, so the run plays its deals again, and says so on stderr."""
    directory = check_directory(directory)
    path = directory / "manifest.json"
    with writing(directory):
        directory.mkdir(parents=True, exist_ok=True)
        exists = path.exists()
    if exists:
        old = read_manifest(directory, error=ManifestMismatch)
        for key in keys:
            if old.get(key) != manifest.get(key):
                raise ManifestMismatch(
                    f"{directory} holds a dataset made with {key}={json.dumps(old.get(key))}, "
                    f"not {json.dumps(manifest.get(key))}; use another --out or the same command")
    else:
        with writing(directory):
            if any(directory.iterdir()):
                raise ManifestMismatch(f"--out {str(directory)!r} is not empty and has no manifest.json")
        write_json_atomic(path, manifest)
    done = set()
    with writing(directory):
        chunk_files = sorted(directory.glob("part-*.parquet"))
        for f in directory.glob("*.tmp"):
            f.unlink(missing_ok=True)  # left by an interrupted run
    for f in chunk_files:
        match = _CHUNK_NAME.fullmatch(f.name)
        if match is None:
            continue
        index = int(match.group(1))
        rows = chunk_rows(manifest, index)
        if rows is None:
            continue  # not a chunk of this run
        problem = chunk_problem(f, rows)
        if problem is None:
            done.add(index)
        else:
            print(f"{f.name} is damaged ({problem}): playing its deals again", file=sys.stderr, flush=True)
    return done


def chunk_rows(manifest: dict, index: int) -> int | None:
    """The number of rows chunk ``index`` of the run described by ``manifest`` holds (a session
    dataset: its sessions times the deals per session), None if the run has no such chunk."""
    size = int(manifest["chunk_size"])
    if manifest.get("kind") == "sessions":
        total, per = int(manifest["rounds"]), int(manifest["deals_per_session"])
    else:
        total, per = int(manifest["deals"]), 1
    n = min(size, total - index * size)
    return n * per if n > 0 else None


def chunk_problem(path: Path, rows: int) -> str | None:
    """None if the chunk file ``path`` is whole (its Parquet footer reads and it holds ``rows``
    rows), else what is wrong with it."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        meta = pq.read_metadata(path)
    except (OSError, ValueError, pa.ArrowException) as exc:  # a cut file: pyarrow says why
        return f"unreadable Parquet footer: {reason(exc)}"
    if meta.num_rows != rows:
        return f"{meta.num_rows} rows, not {rows}"
    return None


def chunk_path(directory: Path, index: int) -> Path:
    """The file of chunk ``index`` of a dataset."""
    return directory / f"part-{index:06d}.parquet"


def write_chunk(directory: Path, index: int, frame: pl.DataFrame) -> None:
    """Write one chunk under a temporary name, then rename it into place (the temporary file is
    removed on any error or Ctrl-C, so only whole chunks are left). A failed write raises
    ``outputs.WriteFailed`` naming the chunk file and the reason."""
    replace_atomically(chunk_path(directory, index), lambda tmp: write_parquet(frame, tmp))


def write_parquet(frame: pl.DataFrame, path: Path, metadata: dict[str, str] | None = None) -> None:
    """Write ``frame`` as a Parquet file (zstd level 9, no statistics), with Ctrl-C deferred
    until the write is done (``outputs.deferred_interrupt``)."""
    with deferred_interrupt():
        frame.write_parquet(path, compression="zstd", compression_level=9, statistics=False,
                            metadata=metadata)


def write_json_atomic(path: Path, obj: dict) -> None:
    """Write ``obj`` as JSON under a temporary name, then rename it into place."""
    replace_atomically(path, lambda tmp: tmp.write_text(json.dumps(obj, indent=2) + "\n"))


def read_manifest(directory: Path, error: type[DatasetError] = DatasetError) -> dict:
    """The manifest of the dataset ``directory``; ``error`` (a DatasetError) with one line when it
    is missing, unreadable, not JSON or not a JSON object."""
    path = Path(directory) / "manifest.json"
    try:
        obj = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise error(f"{directory} is not a dokosim dataset (no manifest.json)") from None
    except OSError as exc:
        raise error(f"cannot read {path}: {reason(exc)}") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise error(f"{path} is damaged, not a dokosim manifest ({reason(exc)})") from None
    if not isinstance(obj, dict):
        raise error(f"{path} is damaged, not a dokosim manifest (not a JSON object)")
    return obj


def scan(directory: Path) -> pl.LazyFrame:
    """Lazy scan of all chunk files of a dataset."""
    return pl.scan_parquet(str(Path(directory) / "part-*.parquet"))
