"""Which files a dataset is, and which plan made them: the one place every reader asks.

A dataset is a directory of chunk files ``part-NNNNNN.parquet`` (driver.py). What a reader reads
is decided here, never by a pattern:

- The directory is listed literally (``os.scandir``): a name with ``[``, ``?``, ``*``, braces or
  anything else is only a name, and no file outside the directory is ever read (a ledger entry
  naming ``../other/part-000000.parquet``, or any name that is not a chunk's own, is ignored).
- The chunks are the truth: each chunk file carries the plan that made it (its Parquet metadata
  ``dokosim.manifest``, driver.parquet_metadata). The manifest and ledger in ``DIR.dokosim/`` are
  used only where they agree with it; a metadata folder of another run (a copy, a stale folder)
  is set aside and the plan and the list of chunks are rebuilt from the chunks themselves.
- The files read are the ledger's entries of this plan whose chunk file is there, in chunk
  order; without a trustworthy ledger, every whole chunk file of this plan (adoption).

Readers then hand polars the explicit list of files with ``glob=False`` (``scan_files``).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .driver import LEDGER, MANIFEST, PLAN_KEY, DatasetError, meta_dir, read_ledger
from .outputs import reason

CHUNK_NAME = re.compile(r"part-(\d{6,})\.parquet")
"""The name of a chunk file (driver.chunk_name): nothing else in a dataset directory is read."""


class DamagedDataset(DatasetError):
    """A dataset whose chunk cannot be read as written (exit code 1 on the command line): the
    message names the file and says how to play its deals again."""


@dataclass(frozen=True)
class ChunkInfo:
    """What a chunk file says of itself: its plan hash and the whole plan (None when it carries
    none: written before 5 December 2026), and its rows; ``problem`` when its footer is unreadable."""

    path: Path
    plan: str | None = None
    manifest: dict | None = None
    rows: int | None = None
    problem: str | None = None


@dataclass
class DatasetFiles:
    """A dataset resolved: its directory, its plan (``manifest``), the chunk files to read in
    chunk order, and ``notes``: what was set aside on the way (one line each), e.g. another run's
    metadata folder."""

    directory: Path
    manifest: dict | None
    files: list[Path]
    notes: list[str] = field(default_factory=list)


def chunk_info(path: Path) -> ChunkInfo:
    """The plan and row count a chunk file carries in its footer (pyarrow reads the literal path)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        meta = pq.read_metadata(path)
    except (OSError, ValueError, pa.ArrowException) as exc:
        return ChunkInfo(path, problem=f"is damaged (unreadable Parquet footer: {_one_line(reason(exc))})")
    text = (meta.metadata or {}).get(b"dokosim.manifest")
    plan = manifest = None
    if text:
        try:
            obj = json.loads(text)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            manifest = obj
            plan = obj.get(PLAN_KEY) if isinstance(obj.get(PLAN_KEY), str) else None
    return ChunkInfo(path, plan, manifest, meta.num_rows)


def _one_line(text: str) -> str:
    """``text`` on one line, printable (a damaged file's bytes are not echoed raw)."""
    text = " ".join(str(text).split())
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= 200 else text[:197] + "..."


def chunk_files(directory: Path) -> dict[int, Path]:
    """{chunk index: path} of the chunk files in ``directory``, listed literally (no pattern)."""
    found = {}
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                match = CHUNK_NAME.fullmatch(entry.name)
                if match and entry.is_file():
                    found[int(match.group(1))] = Path(directory) / entry.name
    except OSError as exc:
        raise DatasetError(f"cannot read the dataset {directory}: {reason(exc)}") from None
    return dict(sorted(found.items()))


def _meta_manifest(directory: Path) -> tuple[dict | None, str | None]:
    """The manifest in the metadata folder and None, or None and what is wrong with it (None and
    None when there is none)."""
    path = meta_dir(directory) / MANIFEST
    try:
        obj = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot read {path}: {reason(exc)}"
    except ValueError as exc:
        return None, f"{path} is damaged, not a dokosim manifest ({_one_line(reason(exc))})"
    if not isinstance(obj, dict):
        return None, f"{path} is damaged, not a dokosim manifest (not a JSON object)"
    return obj, None


def check_dataset_directory(directory) -> Path:
    """``directory`` as a Path, or DatasetError (one line) if it is not an existing directory."""
    from ..validation import check_path_value
    path = check_path_value("directory", directory, DatasetError)
    if not path.exists():
        raise DatasetError(f"{str(path)!r} does not exist; give a dataset directory (dokosim simulate --out DIR)")
    if not path.is_dir():
        raise DatasetError(f"{str(path)!r} is not a directory; give a dataset directory (dokosim simulate --out DIR)")
    return path


def resolve(directory) -> DatasetFiles:
    """The plan and the chunk files of the dataset ``directory`` (see the module doc).
    DatasetError (one line) for a directory that is missing, holds chunks of several runs with no
    manifest to choose between them, has a chunk the ledger lists but that is missing or
    damaged, or says nowhere what made it."""
    directory = check_dataset_directory(directory)
    present = chunk_files(directory)
    infos = {index: chunk_info(path) for index, path in present.items()}
    meta, meta_problem = _meta_manifest(directory)
    notes = []
    chunk_plans = {i.plan for i in infos.values() if i.plan is not None}
    meta_plan = meta.get(PLAN_KEY) if meta is not None else None
    if not chunk_plans:  # no chunk says (none yet, or written before chunks carried their plan)
        truth, manifest = meta_plan, meta
    elif len(chunk_plans) == 1 or meta_plan in chunk_plans:
        truth = meta_plan if meta_plan in chunk_plans else next(iter(chunk_plans))
        manifest = meta if meta_plan == truth else next(i.manifest for i in infos.values() if i.plan == truth)
        if meta is not None and meta_plan != truth:
            notes.append(f"{meta_dir(directory)} belongs to another run (its plan differs from the one its "
                         f"chunks carry): set aside, the plan and chunks read from the chunks themselves")
    else:
        raise DatasetError(f"{directory} holds chunks of {len(chunk_plans)} different runs and no manifest "
                           "says which is the dataset; move the other run's chunks out")
    if manifest is None:
        if meta_problem is not None:
            raise DatasetError(meta_problem)
        raise DatasetError(f"{directory} is not a dokosim dataset (no {meta_dir(directory) / MANIFEST}, and no "
                           "chunk file says what made it)")
    ledger = read_ledger(directory) if manifest is meta else None
    if ledger is not None and truth is not None and any(e.get("plan") not in (None, truth) for e in ledger.values()):
        notes.append(f"{meta_dir(directory) / LEDGER} lists chunks of another run: set aside, the chunks of "
                     "this run read from the directory")
        ledger = None
    files = []
    if ledger is not None:
        for entry in sorted(ledger.values(), key=lambda e: e["index"]):
            index = entry["index"]
            if entry["file"] != f"part-{index:06d}.parquet":
                notes.append(f"the ledger entry {_one_line(entry['file'])!r} is not a chunk of {directory}: not read")
                continue
            info = infos.get(index)
            if info is None:
                raise DamagedDataset(f"{directory}: {entry['file']} is in the ledger but missing; run the command "
                                    "that made the dataset again to play its deals again")
            files.append(info)
    else:  # adoption: every chunk of this plan (a chunk without a plan: a dataset from before they had one)
        files = [i for i in infos.values() if i.problem is not None or i.plan in (truth, None)]
    for info in files:
        if info.problem is not None:
            raise DamagedDataset(f"{info.path.name} of {directory} {info.problem}; run the command that made the "
                                 "dataset again to play its deals again")
        if truth is not None and info.plan not in (None, truth):
            raise DamagedDataset(f"{info.path.name} of {directory} belongs to another run (the plan in its "
                                 "metadata differs from the ledger's); run the command that made the dataset "
                                 "again to play its deals again")
    return DatasetFiles(directory, manifest, [i.path for i in files], notes)


def dataset_manifest(directory) -> dict:
    """The plan of the dataset ``directory`` as its chunks tell it (``resolve``)."""
    return resolve(directory).manifest


def scan_files(files, **options):
    """``pl.scan_parquet`` of an explicit list of files, each a literal path (no glob, no hive
    partitions read from the path)."""
    import polars as pl
    return pl.scan_parquet([str(f) for f in files], glob=False, hive_partitioning=False, **options)


def damaged_file(files) -> str | None:
    """One line naming the first of ``files`` that pyarrow cannot read whole and why, None if
    each reads (used after a read of the dataset failed, to say which chunk is damaged)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    for f in files:
        try:
            pq.read_table(f)
        except (OSError, ValueError, pa.ArrowException) as exc:
            return (f"{Path(f).name} of {Path(f).parent} is damaged ({_one_line(reason(exc))}); run the command "
                    "that made the dataset again to play its deals again")
    return None


def read_error(files, exc: BaseException) -> DamagedDataset:
    """The one-line error for a failed read of ``files`` (``exc``: polars' or the system's):
    the damaged chunk named when one is, else the reason on one line."""
    named = damaged_file(files)
    if named is None:
        named = f"cannot read the dataset: {_one_line(reason(exc))}"
    return DamagedDataset(named)
