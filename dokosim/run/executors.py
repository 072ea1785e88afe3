"""Where the run driver's chunks are produced: the executors of ``driver.run_dataset``.

An executor turns chunks into their rows, in the manner of ``concurrent.futures``:
``map(produce, chunks, store)`` yields ``(chunk, result)`` as each chunk is done, lazily (the
driver asks for the next result only once its writer has a free slot, driver.ChunkWriter), in
any order. A result is what ``produce(chunk)`` returned (a DataFrame, or a function that builds
it), or ``Written`` when the task wrote the chunk file itself. The driver owns everything else:
the output checks, the manifest and ledger, resume, the progress bar, the writer thread and
Ctrl-C. On an error or Ctrl-C the driver closes the iterator, and the executor stops its workers
there.

* ``InProcess`` (driver.py, the default): each chunk produced in the calling thread when the driver asks for it (the
  kernels run on numba's threads; the writer thread writes chunk k while chunk k+1 is produced).
* ``ProcessPool``: ``jobs`` spawned processes that die with their parent and leave Ctrl-C to it
  (run/workers.py); a worker killed under the run (the out-of-memory killer) is ``WorkerLost``,
  one line with the resume hint. ``produce`` must pickle (a module function or a
  ``functools.partial`` of one).
* ``distributed.DaskExecutor``: tasks on Dask workers, which write the chunk files straight into
  the run directory (``produce_and_write``) and return their checksums for the ledger.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, Iterator

from .driver import InProcess, Written  # the default executor and a written chunk: the driver's own

__all__ = ["InProcess", "ProcessPool", "Written", "LOST", "produce_and_write"]

LOST = "{directory} holds the chunks finished so far: run the same command again to resume"
"""What ProcessPool adds to a WorkerLost message (``{directory}``: the run directory)."""


class ProcessPool:
    """Chunks produced in ``jobs`` spawned worker processes (``workers.WorkerPool``: they die with
    their parent and ignore Ctrl-C; the parent stops them). ``lost``: what a WorkerLost message
    (how the worker died) is followed by, after "; " (``{directory}``: the run directory)."""

    def __init__(self, jobs: int, lost: str = LOST):
        self.jobs = jobs
        self.lost = lost

    def map(self, produce: Callable, chunks: Iterable, store=None) -> Iterator[tuple]:
        from .workers import WorkerLost, WorkerPool
        directory = "the run directory" if store is None else store.directory
        with WorkerPool(self.jobs) as pool:  # an error, Ctrl-C or the driver closing: the workers stopped at once
            try:
                for chunk, result in pool.run(produce, chunks):
                    yield chunk, result
                    result = None  # no finished frame is kept here
            except WorkerLost as exc:
                raise WorkerLost(f"{exc}; {self.lost.format(directory=directory)}") from None


def produce_and_write(produce: Callable, chunk, directory: str | None = None, metadata: dict | None = None):
    """A worker's task: ``produce(chunk)``; with ``directory``, its chunk file written there
    (driver.write_chunk: a temporary name, then a rename, with the run's Parquet ``metadata``)
    and ``Written`` with the file's sha256 returned (no re-read on the client), else the frame."""
    from .driver import chunk_path, file_sha256, write_chunk  # looked up now: a test may patch them
    frame = produce(chunk)
    if callable(frame):
        frame = frame()
    if directory is None:
        return frame
    write_chunk(Path(directory), chunk.index, frame, metadata)
    return Written(file_sha256(chunk_path(Path(directory), chunk.index)))
