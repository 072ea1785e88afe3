"""The run driver: a chunked run written to a directory that any interruption leaves resumable.

A run is a sequence of chunks (index, first unit, count: deals, sessions or seatings), each a pure
function of the run's plan. ``ChunkStore`` keeps such a run's directory ``DIR``, which holds only
the chunk files (``part-NNNNNN.parquet``), so that ``pl.read_parquet(DIR)``, ``pd.read_parquet(DIR)``
and DuckDB read it whole; the run's own files are beside it, in ``DIR.dokosim/`` (``meta_dir``;
a run written before 5 December 2026 keeps them in ``DIR`` itself, and is read and resumed there):

* ``manifest.json`` holds the plan (what decides the rows) and its hash (``plan_hash``: sha256
  of the identity keys), written before any work;
* ``_chunks.jsonl``, the ledger: one line per chunk written (its file, index, first unit, count,
  rows, the plan hash and the sha256 of the file's bytes), appended and synced after the chunk
  file is in place (Ctrl-C waits for it), so memory and work per chunk do not grow with the run;
* a chunk file is written under a temporary name and renamed into place.

Chunks are written by a thread of their own (``ChunkWriter``, ``run_chunks``): chunk k is typed,
encoded (zstd 1, PARQUET_CODEC), written, renamed and entered in the ledger while the calling
thread simulates chunk k+1 (the kernels release the GIL, and so do polars' writer and sha256),
so a run costs about its play, not its play plus its writing. At most two chunks are in memory
(WRITE_SLOTS), whatever the run's size; an error of the writer (a full disk) is raised in the
calling thread as one line, as before; on Ctrl-C or any error the chunk being written is
finished and entered, the ones not yet written are left to a resume.

Reopening the directory with the same plan verifies every chunk file against the ledger (entry
present, checksum equal, plan and deals equal) and plays again any chunk that fails, saying so on
stderr; a chunk file not in the ledger (written just before an interruption: at most one chunk of
work) is played again too; files the run did not write are left alone and named. A directory
holding another plan's run is refused. Readers (``dataset.scan``) read the ledger's files only.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import polars as pl

from .conditions import check_predicates
from .outputs import (check_directory, deferred_interrupt, python_handles_ctrl_c, reason,
                      replace_atomically, writing)

LEDGER = "_chunks.jsonl"
META_SUFFIX = ".dokosim"  # DIR.dokosim/ beside the run directory DIR: its manifest and ledger
PLAN_KEY = "plan_hash"
MANIFEST = "manifest.json"


class DatasetError(ValueError):
    """A dataset directory that cannot be used as it is (the message names it and says why)."""


class ManifestMismatch(DatasetError):
    """An existing dataset was made by a different command (or its manifest is unreadable)."""



def chunk_problem(path: Path, rows: int | None) -> str | None:
    """None if the chunk file ``path`` is whole (its Parquet footer reads and it holds ``rows``
    rows; any number when ``rows`` is None), else what is wrong with it."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        meta = pq.read_metadata(path)
    except (OSError, ValueError, pa.ArrowException) as exc:  # a cut file: pyarrow says why
        return f"unreadable Parquet footer: {reason(exc)}"
    if rows is not None and meta.num_rows != rows:
        return f"{meta.num_rows} rows, not {rows}"
    return None


def chunk_path(directory: Path, index: int) -> Path:
    """The file of chunk ``index`` of a dataset."""
    return directory / f"part-{index:06d}.parquet"


def write_chunk(directory: Path, index: int, frame: pl.DataFrame, metadata: dict[str, str] | None = None) -> None:
    """Write one chunk under a temporary name, then rename it into place (the temporary file is
    removed on any error or Ctrl-C, so only whole chunks are left), with the Parquet key-value
    ``metadata`` (parquet_metadata). A failed write raises ``outputs.WriteFailed`` naming the
    chunk file and the reason."""
    replace_atomically(chunk_path(directory, index), lambda tmp: write_parquet(frame, tmp, metadata))


METADATA_KEYS = ("seed", "rules", "strategies", "teacher", "player")
"""Manifest entries each chunk file also carries on its own, as ``dokosim.<key>`` (JSON)."""


def parquet_metadata(manifest: dict) -> dict[str, str]:
    """The key-value metadata of a run's chunk files: the whole plan as ``dokosim.manifest``
    (JSON), ``dokosim.version``, and the entries of METADATA_KEYS the plan has (e.g.
    ``dokosim.seed``, ``dokosim.rules``, ``dokosim.strategies``), so that a file read on its own
    (``pyarrow.parquet.read_metadata(f).metadata``, ``pl.read_parquet_metadata(f)``) says what
    made it."""
    from ..version import __version__
    meta = {"dokosim.manifest": json.dumps(manifest, sort_keys=True, default=str),
            "dokosim.version": str(manifest.get("dokosim_version", __version__))}
    for key in METADATA_KEYS:
        if key in manifest:
            meta[f"dokosim.{key}"] = json.dumps(manifest[key], sort_keys=True, default=str)
    return meta


PARQUET_CODEC = ("zstd", 1)
"""The chunk files' compression and level: chosen by measurement (docs/simulate.md, "Speed";
``scripts/parquet_codecs.py``): zstd 1 writes files no larger than zstd 9's (the hand masks,
most of a file, are near their entropy) at a third of its CPU time, and a third smaller than
lz4's, snappy's or none at about their speed."""


def write_parquet(frame: pl.DataFrame, path: Path, metadata: dict[str, str] | None = None) -> None:
    """Write ``frame`` as a Parquet file (PARQUET_CODEC, no statistics), with Ctrl-C deferred
    until the write is done (``outputs.deferred_interrupt``)."""
    codec, level = PARQUET_CODEC
    with deferred_interrupt():
        frame.write_parquet(path, compression=codec, compression_level=level, statistics=False,
                            metadata=metadata)


def write_json_atomic(path: Path, obj: dict) -> None:
    """Write ``obj`` as JSON under a temporary name, then rename it into place."""
    replace_atomically(path, lambda tmp: tmp.write_text(json.dumps(obj, indent=2) + "\n"))


def meta_dir(directory) -> Path:
    """Where the run in ``directory`` keeps its manifest and ledger: ``DIR.dokosim`` beside it, or
    ``directory`` itself for a run written that way before (its manifest.json is there)."""
    directory = Path(directory).expanduser()
    if (directory / MANIFEST).is_file():
        return directory
    named = directory.absolute().resolve()  # one place whatever the spelling: ., a symlink, ~
    if not named.name:
        raise DatasetError(f"{str(directory)!r}: a run directory needs a name, not the file system root")
    return named.with_name(named.name + META_SUFFIX)


def remove_run(directory) -> None:
    """Delete the run directory ``directory`` and its manifest and ledger beside it (meta_dir)."""
    import shutil
    meta = meta_dir(directory)
    shutil.rmtree(directory, ignore_errors=True)
    if meta != Path(directory):
        shutil.rmtree(meta, ignore_errors=True)


def manifest_path(directory) -> Path:
    """The manifest file of the run in ``directory`` (meta_dir)."""
    return meta_dir(directory) / MANIFEST


def chunk_plan(path: Path) -> str | None:
    """The plan hash a chunk file carries (parquet_metadata), None if it carries none (written
    before 5 December 2026) or its footer cannot be read."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        text = (pq.read_metadata(path).metadata or {}).get(b"dokosim.manifest")
        return json.loads(text).get(PLAN_KEY) if text else None
    except (OSError, ValueError, AttributeError, pa.ArrowException):
        return None


def manifest_from_parts(directory) -> dict | None:
    """The plan a run's chunk files carry (``dokosim.manifest`` of the first ``part-*.parquet`` with
    it, parquet_metadata), for a run directory copied without its manifest beside it; None if no
    chunk file carries one."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    for part in sorted(Path(directory).glob("part-*.parquet")):
        try:
            meta = pq.read_metadata(part).metadata or {}
            text = meta.get(b"dokosim.manifest")
            obj = json.loads(text) if text else None
        except (OSError, ValueError, pa.ArrowException):
            continue  # a damaged chunk: the next one may say
        if isinstance(obj, dict):
            return obj
    return None


def read_manifest(directory: Path, error: type[DatasetError] = DatasetError) -> dict:
    """The manifest of the dataset ``directory``: beside it (meta_dir), or else the plan its chunk
    files carry (manifest_from_parts: a directory copied on its own); ``error`` (a DatasetError)
    with one line when there is none, or it is unreadable, not JSON or not a JSON object."""
    path = manifest_path(directory)
    try:
        obj = json.loads(path.read_bytes())
    except FileNotFoundError:
        obj = manifest_from_parts(directory)
        if obj is None:
            raise error(f"{directory} is not a dokosim dataset (no {path}, and no chunk file says what "
                        f"made it)") from None
    except OSError as exc:
        raise error(f"cannot read {path}: {reason(exc)}") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise error(f"{path} is damaged, not a dokosim manifest ({reason(exc)})") from None
    if not isinstance(obj, dict):
        raise error(f"{path} is damaged, not a dokosim manifest (not a JSON object)")
    return obj


@dataclass(frozen=True)
class Chunk:
    """One chunk of a run: its index, first unit (deal or session id) and number of units."""

    index: int
    first: int
    count: int


def chunks_of(total: int, size: int) -> list[Chunk]:
    """The chunks of a run of ``total`` units, ``size`` per chunk (the last one shorter)."""
    return [Chunk(i, i * size, min(size, total - i * size)) for i in range(-(-total // size))]


def plan_hash(manifest: dict, keys: Iterable[str]) -> str:
    """sha256 of the identity keys of ``manifest`` (canonical JSON): equal plans, equal rows."""
    identity = {key: manifest.get(key) for key in keys}
    return hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def chunk_name(index: int) -> str:
    """The file name of chunk ``index``."""
    return f"part-{index:06d}.parquet"


def say(message: str) -> None:
    """One line on stderr."""
    print(message, file=sys.stderr, flush=True)


class ChunkStore:
    """A run's directory: its manifest, its ledger of chunks and the chunk files (see the module
    docstring). ``open`` creates or verifies it; ``done`` is the set of verified chunk indices."""

    def __init__(self, directory: Path, manifest: dict, keys: Iterable[str], rows_per_unit: int | None = 1):
        self.directory = Path(directory).expanduser()
        self.meta = meta_dir(self.directory)
        self.keys = tuple(keys)
        self.rows_per_unit = rows_per_unit
        self.plan = plan_hash(manifest, self.keys)
        self.manifest = {**manifest, PLAN_KEY: self.plan}
        self.metadata = parquet_metadata(self.manifest)
        self.done: set[int] = set()

    # ---------------------------------------------------------------- opening
    @classmethod
    def open(cls, directory, manifest: dict, keys: Iterable[str], chunks: list[Chunk],
             rows_per_unit: int | None = 1, error: type[ValueError] = ManifestMismatch) -> "ChunkStore":
        """Create the run directory (writing its manifest and an empty ledger before any work) or
        verify the one there for ``chunks``; the chunks that verify are in ``done``.
        ``rows_per_unit``: the rows of each unit (deal, session), None when they vary (training
        data: one row per decision), so that a chunk is adopted on its footer alone."""
        store = cls(directory, manifest, keys, rows_per_unit)
        directory = check_directory(store.directory)
        if store.meta != directory:
            check_directory(store.meta)
        path = store.meta / MANIFEST
        with writing(directory):
            was_there = directory.exists()
            chunks_there = was_there and any(directory.glob("part-*.parquet"))
            # the chunks say which run they are (their Parquet metadata): they outrank the files beside
            from_parts = manifest_from_parts(directory) if chunks_there else None
            if not path.exists() and from_parts is None and was_there \
                    and any(not f.name.endswith(".tmp") for f in directory.iterdir()):
                raise error(f"--out {str(directory)!r} is not empty and is not a dokosim run (no {path} "
                            f"beside it)")
        old = None
        if from_parts is not None:
            old, source = from_parts, "the plan its chunks carry"
        elif path.exists() and was_there:  # a manifest beside a deleted directory binds nothing
            try:
                old, source = read_manifest(directory, error=error), f"the plan in {path}"
            except DatasetError as exc:
                raise error(f"{exc}; no chunk of {directory} carries its plan to rebuild it from: remove "
                            f"{path} to start the run anew, or use another --out") from None
        if old is not None:
            # another command's dataset: named so, not by a key ("kind=null", "chunk_size=null")
            kinds = [str(m.get("kind") or "simulate").replace("_", " ") for m in (old, manifest)]
            if kinds[0] != kinds[1]:
                raise error(f"{directory} holds a dataset of {kinds[0]}, not of {kinds[1]} ({source}); use "
                            f"another --out")
            for key in store.keys:
                was, now = old.get(key), manifest.get(key)
                if was != now:
                    while isinstance(was, dict) and isinstance(now, dict):  # the entry that differs, not the whole dicts
                        sub = next(k for k in sorted(set(was) | set(now), key=str) if was.get(k) != now.get(k))
                        key, was, now = f"{key}.{sub}", was.get(sub), now.get(sub)
                    raise error(f"{directory} holds a run made with {key}={json.dumps(was)}, "
                                f"not {json.dumps(now)} ({source}); use another --out or the same "
                                f"command")
        with writing(directory):
            directory.mkdir(parents=True, exist_ok=True)
            store.meta.mkdir(parents=True, exist_ok=True)
        if old is not None:
            # a ledger beside chunks of another plan (a stale DIR.dokosim) is not this run's
            try:
                ledger_ok = not path.exists() or read_manifest(directory, error=error).get(PLAN_KEY) in (None, store.plan)
            except DatasetError as exc:  # a damaged manifest: the chunks say what the run is
                say(f"{exc}: rebuilt from the plan its chunks carry (their ledger entries too)")
                ledger_ok = False
            entries = store._verify(chunks, ledger_ok)
        else:
            entries = []
        write_json_atomic(path, store.manifest)
        store._rewrite_ledger(entries)  # the verified entries only, in chunk order
        return store

    def _verify(self, chunks: list[Chunk], ledger_ok: bool = True) -> list[dict]:
        with writing(self.directory):
            for f in self.directory.glob("*.tmp"):
                f.unlink(missing_ok=True)  # left by an interrupted write
            files = {f.name for f in self.directory.glob("part-*.parquet")}
        wanted = {chunk_name(c.index): c for c in chunks}
        ledger = read_ledger(self.directory) if ledger_ok else None
        if ledger is None:  # no ledger (written before it, or copied without it): whole chunks are adopted
            ledger = self._adopt(files, wanted)
        for name in sorted(ledger.keys() - files):
            if name in wanted:
                say(f"{name} is in the run's ledger but missing: playing its deals again")
        verified = []
        for name in sorted(files):
            entry = ledger.get(name)
            chunk = wanted.get(name)
            if chunk is None:
                say(f"{name} is not a chunk of this run: left alone and not read (move it out of "
                    f"{self.directory}: readers of the whole directory would read it)")
            elif entry is None:
                say(f"{name} is not in the run's ledger (written by an interrupted run or copied "
                    "in): playing its deals again")
            elif problem := self._problem(name, entry, chunk):
                say(f"{name} {problem}: playing its deals again")
            else:
                verified.append(entry)
                self.done.add(chunk.index)
        return sorted(verified, key=lambda e: e["index"])

    def _problem(self, name: str, entry: dict, chunk: Chunk) -> str | None:
        if entry.get("plan") != self.plan:
            return "belongs to another run (its plan differs)"
        if (entry.get("index"), entry.get("first"), entry.get("count")) != (chunk.index, chunk.first, chunk.count):
            return "holds other deals than this chunk"
        if chunk_plan(self.directory / name) not in (None, self.plan):
            return "belongs to another run (the plan in its metadata differs)"
        try:
            if file_sha256(self.directory / name) != entry.get("sha256"):
                return "is damaged (its checksum differs)"
        except OSError as exc:
            return f"cannot be read ({reason(exc)})"
        return None

    def _adopt(self, files: set[str], wanted: dict[str, Chunk]) -> dict:
        ledger = {}
        for name in sorted(files & wanted.keys()):
            chunk = wanted[name]
            if chunk_plan(self.directory / name) not in (None, self.plan):
                continue  # another run's chunk: not adopted, played again (named by _verify)
            rows = None if self.rows_per_unit is None else chunk.count * self.rows_per_unit
            if chunk_problem(self.directory / name, rows) is None:
                ledger[name] = self._entry(chunk, file_sha256(self.directory / name))
        return ledger

    # ---------------------------------------------------------------- writing
    def _entry(self, chunk: Chunk, sha256: str) -> dict:
        return {"file": chunk_name(chunk.index), "index": chunk.index, "first": chunk.first,
                "count": chunk.count, "plan": self.plan,
                "rows": None if self.rows_per_unit is None else chunk.count * self.rows_per_unit,
                "sha256": sha256}

    def _rewrite_ledger(self, entries: list[dict]) -> None:
        text = "".join(json.dumps(e) + "\n" for e in entries)
        replace_atomically(self.meta / LEDGER, lambda tmp: tmp.write_text(text))

    def write(self, chunk: Chunk, frame: pl.DataFrame) -> None:
        """Write ``chunk``'s frame atomically and enter it in the ledger."""
        write_chunk(self.directory, chunk.index, frame, self.metadata)
        self.record(chunk)

    def record(self, chunk: Chunk, sha256: str | None = None) -> None:
        """Enter a chunk file already in place in the ledger: one line appended (Ctrl-C waits for
        it). ``sha256``: the file's, as its writer (a Dask worker) computed it; else read here."""
        entry = self._entry(chunk, sha256 or file_sha256(self.directory / chunk_name(chunk.index)))
        with deferred_interrupt(), writing(self.meta / LEDGER):
            with open(self.meta / LEDGER, "a") as ledger:
                ledger.write(json.dumps(entry) + "\n")
                ledger.flush()
                os.fsync(ledger.fileno())
        self.done.add(chunk.index)


def read_ledger(directory: Path) -> dict[str, dict] | None:
    """The ledger of a run directory: {file name: entry}, the last line of a file winning; a line
    that is not a whole entry (a torn last line) is skipped. None when the directory has no
    ledger (written before it)."""
    path = meta_dir(directory) / LEDGER
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DatasetError(f"cannot read {path}: {reason(exc)}") from None
    entries = {}
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("file"), str) and isinstance(entry.get("index"), int):
            entries[entry["file"]] = entry
    return entries


WRITE_SLOTS = 2
"""Chunks a run holds at once when it writes: the one its writer thread encodes and writes, and
the next, being simulated (run_chunks)."""


class ChunkWriter:
    """The writer thread of a run: it encodes and writes chunk k (``store.write``: the file under a
    temporary name, renamed, then its ledger line) while the calling thread simulates chunk k+1.

    At most ``slots`` chunks are in memory at once: ``acquire`` waits for a slot, taken before
    the chunk is produced and given back by the writer once the chunk is written, so a run holds
    two chunks whatever its size (``Simulator.frame_later``, whose two row buffers alternate,
    relies on it). An error in the writer (a full disk: WriteFailed; a Ctrl-C in a test's write)
    stops it; the chunks after it are not written, and the calling thread raises the same
    exception at its next ``acquire`` or after ``close`` (``check``). ``most`` counts the most
    chunks ever held (the tests' check of the bound). A chunk handed over as a function (a
    deferred frame) is built in the writer thread too."""

    def __init__(self, store: "ChunkStore", slots: int = WRITE_SLOTS):
        import queue
        import threading
        self.store = store
        self.slots = threading.BoundedSemaphore(slots)
        self.queue: "queue.SimpleQueue" = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.held = 0  # chunks taken by acquire and not yet written (or dropped)
        self.most = 0
        self.written: list[Chunk] = []  # written and entered in the ledger, not yet reported
        self.error: BaseException | None = None
        self.stop = False  # set on an error or interruption of the caller: queued chunks are dropped
        python_handles_ctrl_c()  # else a Ctrl-C aborts the writer's polars call mid-file
        self.thread = threading.Thread(target=self._work, name="dokosim-chunk-writer", daemon=False)
        self.thread.start()

    def acquire(self) -> None:
        """Wait for a free slot (the writer has finished an earlier chunk); raise the writer's error."""
        self.slots.acquire()
        with self.lock:
            self.held += 1
            self.most = max(self.most, self.held)
        self.check()

    def put(self, chunk: Chunk, frame) -> None:
        """Hand ``chunk``'s frame (or a function returning it) to the writer (its slot taken by acquire)."""
        self.queue.put((chunk, frame))

    def release(self) -> None:
        """Give back a slot taken by acquire whose chunk is not handed over."""
        with self.lock:
            self.held -= 1
        self.slots.release()

    def done(self) -> list[Chunk]:
        """The chunks written since the last call, in order."""
        with self.lock:
            written, self.written = self.written, []
        return written

    def check(self) -> None:
        """Raise the writer's error, if it had one."""
        if self.error is not None:
            raise self.error

    def _work(self) -> None:
        while True:
            item = self.queue.get()
            if item is None:
                return
            chunk, frame = item
            item = None
            try:
                if self.error is None and not self.stop:
                    if isinstance(frame, Written):  # its file written by the task (a Dask worker)
                        self.store.record(chunk, sha256=frame.sha256)
                    else:
                        if callable(frame):
                            frame = frame()
                        self.store.write(chunk, frame)
                    with self.lock:
                        self.written.append(chunk)
            except BaseException as exc:  # handed to the calling thread; nothing after it is written
                self.error = exc
            finally:
                frame = None  # the chunk's memory goes before its slot does
                self.release()

    def __enter__(self) -> "ChunkWriter":
        return self

    def __exit__(self, kind, exc, tb) -> None:
        """Every chunk handed over written and the writer's error raised; on an error or Ctrl-C
        of the caller, the chunk being written finished only (``close(stop=True)``)."""
        if kind is not None:
            self.close(stop=True)
            return
        self.close()
        self.check()

    def close(self, stop: bool = False) -> None:
        """Wait for the writer to finish: every chunk handed over written, or with ``stop`` (the
        caller failed or was interrupted) only the one being written. A Ctrl-C while waiting
        does not cut the wait short (the chunk being written gets its ledger line), it is
        raised after it."""
        if stop:
            self.stop = True
        self.queue.put(None)
        interrupted = False
        while self.thread.is_alive():
            try:
                self.thread.join()
            except KeyboardInterrupt:
                self.stop = interrupted = True
        if interrupted:
            raise KeyboardInterrupt


@dataclass(frozen=True)
class Written:
    """The result of a task that wrote its chunk file itself (executors.produce_and_write, on a
    Dask worker): the file's sha256, for the ledger (ChunkStore.record)."""

    sha256: str


class InProcess:
    """The default executor of run_chunks (the others: executors.py): each chunk produced in the
    calling thread, one at a time, when the loop asks for it."""

    def map(self, produce: Callable, chunks: Iterable, store=None):
        for chunk in chunks:
            yield chunk, produce(chunk)


def run_chunks(chunks: list[Chunk], produce: Callable[[Chunk], pl.DataFrame], store: ChunkStore | None,
               progress, executor=None) -> list[pl.DataFrame]:
    """The one loop of every chunked run: the chunks not yet done in ``store`` produced by
    ``executor`` (executors.InProcess by default: in this thread, one at a time) and handed, as
    each is done, to a writer thread (ChunkWriter) that writes it while the next is produced
    (memory: two chunks); ``produce`` may return the frame or a function that builds it (then
    called in the writer thread), and a task that wrote its own file returns
    ``executors.Written`` (only entered in the ledger). Without a store every chunk is produced
    and kept, and the frames returned in chunk order. ``progress(units)`` is called, in this
    thread, for each chunk once it is written. An error of the writer is raised here as it was
    raised there; on any error or Ctrl-C here the executor's workers are stopped, the chunk being
    written is finished and entered in the ledger, and the chunks not yet written are left for
    a resume."""
    from contextlib import closing
    executor = executor or InProcess()
    if store is None:
        frames = {}
        with closing(executor.map(produce, chunks)) as results:
            for chunk, frame in results:
                if callable(frame):
                    frame = frame()
                check_predicates()  # a user's predicate that raised: stop before the chunk is kept
                frames[chunk.index] = frame
                progress(chunk.count)
        return [frames[i] for i in sorted(frames)]
    todo = [c for c in chunks if c.index not in store.done]
    if not todo:  # nothing to do: no writer, no workers started
        return []
    with ChunkWriter(store) as writer:
        def report():
            for chunk in writer.done():
                progress(chunk.count)
        with closing(executor.map(produce, todo, store)) as results:  # closed first: the workers stop
            while True:
                writer.acquire()  # a slot: the writer has finished the chunk before last
                try:
                    chunk, frame = next(results)
                    check_predicates()  # a user's predicate that raised: stop before the chunk is kept
                except BaseException as exc:
                    writer.release()
                    if isinstance(exc, StopIteration):
                        break
                    raise
                writer.put(chunk, frame)
                frame = None
                report()
    report()
    return []


@dataclass(frozen=True)
class RunPlan:
    """What decides a run's rows, for its directory: ``manifest`` (a dict, or a function returning
    it, called once the output is checked: a plan that measures something first measures it
    there, after a bad ``out`` is refused and before the directory is opened), its identity
    ``keys`` (plan_hash), ``rows_per_unit`` (ChunkStore.open; None when they vary) and the
    ``error`` raised for a directory of another run."""

    manifest: dict | Callable[[], dict]
    keys: tuple[str, ...]
    rows_per_unit: int | None = 1
    error: type[ValueError] = ManifestMismatch


@dataclass(frozen=True)
class Progress:
    """The progress bar of a run (progress.progress_bar): hidden when ``quiet``; ``scale`` units
    shown per unit of a chunk (the deals of a session); ``bar``: tqdm's options (unit, desc, ...)."""

    quiet: bool = True
    scale: int = 1
    bar: dict | None = None


@dataclass(frozen=True)
class RunOutput:
    """What a run made: its directory (with ``out``; the frames then empty) or its frames in chunk
    order (without)."""

    directory: Path | None
    frames: list


def run_dataset(chunks: list[Chunk], produce: Callable, out=None, plan: RunPlan | None = None, *,
                executor=None, progress: Progress = Progress(), setup: Callable[[], object] | None = None) -> RunOutput:
    """The one entry of every chunked run: ``chunks`` produced by ``produce(chunk)`` on
    ``executor`` (executors.InProcess, executors.ProcessPool, distributed.DaskExecutor) and, with
    ``out``, written to the run directory ``out``, resumably. In this order: ``out`` checked
    (outputs.check_directory) before any work; ``plan.manifest`` made (a function: called now);
    the directory created, or verified for a resume (ChunkStore.open: the chunks that verify are
    not produced again); ``setup()`` (the work before the first chunk: compiling the kernels);
    then the chunks through ``run_chunks`` (the writer thread, two chunks in memory) under a
    progress bar that starts from the chunks already done. On Ctrl-C or an error (a write that
    failed; ``workers.WorkerLost``, a pool's worker killed) the executor's workers are stopped,
    the chunk being written is finished, and the exception is raised (the command line's
    ``cli.options.resumable`` says how to resume and exits 130 on Ctrl-C)."""
    from .progress import progress_bar
    plan = plan or RunPlan({}, ())
    if out is not None:
        check_directory(Path(out))
    manifest = plan.manifest() if callable(plan.manifest) else plan.manifest
    store = None if out is None else ChunkStore.open(Path(out), manifest, plan.keys, chunks, plan.rows_per_unit,
                                                     error=plan.error)
    if setup is not None:
        setup()
    scale = progress.scale
    total = sum(c.count for c in chunks)
    done = 0 if store is None else sum(c.count for c in chunks if c.index in store.done)
    with progress_bar(progress.quiet, total=total * scale, initial=done * scale, **(progress.bar or {})) as bar:
        frames = run_chunks(chunks, produce, store, lambda n: bar.update(n * scale), executor)
    return RunOutput(None if store is None else store.directory, frames)


def ledger_files(directory: Path) -> list[Path] | None:
    """The chunk files of a run directory in chunk order, from its ledger; None for a directory
    written before the ledger (every part file is then the run's)."""
    ledger = read_ledger(Path(directory))
    if ledger is None:
        return None
    return [Path(directory) / e["file"] for e in sorted(ledger.values(), key=lambda e: e["index"])]
