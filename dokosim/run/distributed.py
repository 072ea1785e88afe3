"""``dokosim.distributed``: run a simulation's chunks as tasks on Dask workers.

The work is cut into the same chunks as a local run (chunk i = deal ids
i*chunk_size ...). The run is the run driver's (``driver.run_dataset``) with
``DaskExecutor`` as its executor: each chunk is one task, in which the worker
simulates it (``simulate_chunk``: ``Simulator(plan).frame(first, n)``) and either
writes ``part-NNNNNN.parquet`` straight into the output directory
(``executors.produce_and_write``: a temporary name, then a rename) or returns the
frame to the client. The client creates or checks the manifest and the ledger
as the driver does for every run, so a run started by one backend can be
finished by the other, and follows the chunks with the same progress bar as a
local run.

A chunk's rows depend only on (seed, deal ids), so a task that Dask runs again
after a worker died writes the same file again: the write is idempotent.

``dask[distributed]`` is optional (``pip install 'dokosim[dask]'``); it is
imported only when a run asks for it. See docs/distributed.md.
"""
from __future__ import annotations

import functools
import hashlib
import re
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path

import numba
import numpy as np
import polars as pl

from .dataset import IDENTITY_KEYS, frame_from_rows
from .conditions import check_predicates
from .driver import Chunk, Progress, RunPlan, chunks_of, run_dataset
from .executors import produce_and_write
from ..engine.layout import OUT_LEN
from ..validation import SimulationError
from .simulator import PROGRESS, SimulationPlan, Simulator, measured_manifest

INSTALL_HINT = "pip install 'dokosim[dask]'"
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def require_dask() -> None:
    """Raise SimulationError (one line, with the install command) unless dask.distributed imports."""
    try:
        import distributed  # noqa: F401
    except ImportError as exc:
        raise SimulationError(f"--scheduler/--cluster need dask.distributed, which is not installed "
                              f"({exc}); {INSTALL_HINT}") from None


def parse_cluster(spec: str) -> int:
    """The number of worker processes N of a ``local:N`` cluster spec (N >= 1)."""
    match = re.fullmatch(r"local:(\d+)", str(spec).strip())
    if not match or int(match.group(1)) < 1:
        raise SimulationError(f"cluster must be local:N with N >= 1 worker processes (e.g. local:4), "
                              f"got {spec!r}")
    return int(match.group(1))


def output_directory(out) -> Path:
    """``out`` as an absolute local path; a non-file URL (s3://, gs://, ...) is refused."""
    text = str(out)
    match = _URL.match(text)
    if match:
        if match.group(1).lower() != "file":
            raise SimulationError(
                f"out {text!r} is an object-store URL ({match.group(1)}://); the Dask backend writes "
                f"chunk files with an atomic rename, so out must be a directory path that every worker "
                f"can write (a shared file system, e.g. NFS); see docs/distributed.md")
        text = text[len(match.group(0)):]
    return Path(text).expanduser().absolute()


# ---- worker side -----------------------------------------------------------------------------

_KERNEL_LOCK = threading.Lock()  # one kernel at a time per worker process, on all its threads
_SIMULATOR: tuple[str, Simulator] | None = None


def _simulator(plan: SimulationPlan) -> Simulator:
    """This process's Simulator for the plan (compiled kernel and buffers reused across chunks)."""
    global _SIMULATOR
    key = repr(plan)
    if _SIMULATOR is None or _SIMULATOR[0] != key:
        _SIMULATOR = (key, Simulator(plan))
    return _SIMULATOR[1]


def _worker_threads() -> int:
    """The numba threads for a kernel: the Dask worker's thread count (capped at numba's)."""
    try:
        from distributed import get_worker
        threads = get_worker().state.nthreads
    except (ImportError, ValueError):  # not inside a Dask worker
        threads = numba.get_num_threads()
    return max(1, min(threads, numba.config.NUMBA_NUM_THREADS))


def simulate_chunk(plan: SimulationPlan, chunk: Chunk) -> pl.DataFrame:
    """The rows of ``chunk`` of ``plan`` (a Dask task, through executors.produce_and_write, which
    writes them to the run directory when there is one). Kernels run one at a time per process
    with as many numba threads as the worker has threads, so other task threads build and write
    Parquet meanwhile."""
    with _KERNEL_LOCK:
        numba.set_num_threads(_worker_threads())  # thread-local in numba: set in the calling thread
        frame = _simulator(plan).frame(chunk.first, chunk.count)
        check_predicates()
    return frame


def source_digest() -> str:
    """A digest of dokosim's own source files: equal on client and workers when the code is."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def _worker_check(module_paths: list[str]) -> tuple[str, str, list[str]]:
    """On a worker: dokosim's version, its source digest, and the strategy modules it cannot import."""
    import importlib

    from ..version import __version__
    missing = []
    for module_path in module_paths:
        try:
            importlib.import_module(module_path)
        except ImportError as exc:
            missing.append(f"{module_path} ({exc})")
    return __version__, source_digest(), missing


# ---- client side -----------------------------------------------------------------------------

@contextmanager
def _client(scheduler: str | None, n_workers: int | None):
    """A Client of the scheduler at ``scheduler``, or of a new LocalCluster of ``n_workers`` processes."""
    from distributed import Client, LocalCluster
    if scheduler is not None:
        try:
            client = Client(scheduler, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise SimulationError(f"cannot reach the Dask scheduler at {scheduler!r}: {exc}") from None
        with client:
            yield client
        return
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      protocol="tcp", dashboard_address=":0") as cluster:
        with Client(cluster, set_as_default=False) as client:
            yield client


@contextmanager
def scheduler_address(scheduler: str | None = None, cluster: str | None = None):
    """The address to pass as ``simulate(..., scheduler=...)`` for several runs in a row.

    ``scheduler`` is yielded as it is; ``cluster="local:N"`` starts one
    LocalCluster of N one-thread worker processes for the whole block (and
    stops it after), so that runs do not each start their own. Yields None
    when both are None (in-process runs).
    """
    if scheduler is not None and cluster is not None:
        raise SimulationError(f"give a scheduler or a cluster, not both (got scheduler={scheduler!r}, "
                              f"cluster={cluster!r})")
    if cluster is None:
        yield scheduler
        return
    n_workers = parse_cluster(cluster)
    require_dask()
    from distributed import LocalCluster
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      protocol="tcp", dashboard_address=":0") as local:
        yield local.scheduler_address


def _check_workers(client, modules: list[str]) -> None:
    """Refuse workers (those connected now) that run another dokosim or miss one of the strategy
    ``modules``."""
    from ..version import __version__
    digest = source_digest()
    try:
        answers = client.run(_worker_check, modules)
    except Exception as exc:  # typically: the worker cannot import dokosim at all
        raise SimulationError(f"a Dask worker cannot run dokosim ({type(exc).__name__}: {exc}); "
                              f"install dokosim {__version__} on every worker") from None
    for address, (version, worker_digest, missing) in answers.items():
        if version != __version__:
            raise SimulationError(f"Dask worker {address} has dokosim {version}, this client "
                                  f"{__version__}; install the same version on every worker")
        if worker_digest != digest:
            raise SimulationError(f"Dask worker {address} has dokosim {version} with other source files "
                                  f"(digest {worker_digest}, this client {digest}); install the same "
                                  f"build on every worker")
        if missing:
            raise SimulationError(f"Dask worker {address} cannot import strategy module "
                                  f"{', '.join(missing)}; make it importable on every worker")


class DaskExecutor:
    """The run driver's executor on Dask workers (driver.run_dataset; executors.py): one task per
    chunk, on the scheduler at ``scheduler`` or a LocalCluster of N one-thread worker processes
    started (and stopped) for the run (``cluster="local:N"``). The client (started when the first
    chunk is asked for, so a run with nothing to do starts none) first refuses workers with
    another dokosim or without one of the strategy ``modules``. With a run directory each task
    writes its chunk file there and returns its checksum (executors.produce_and_write), entered in
    the ledger by the driver; temporary files left by workers that died are removed at the end.
    Without one, the tasks return their frames."""

    def __init__(self, scheduler: str | None = None, cluster: str | None = None, modules=()):
        require_dask()
        if scheduler is not None and cluster is not None:
            raise SimulationError(f"give a scheduler or a cluster, not both (got scheduler={scheduler!r}, "
                                  f"cluster={cluster!r})")
        self.scheduler = scheduler
        self.n_workers = parse_cluster(cluster) if cluster is not None else None
        self.modules = sorted(set(modules))

    def map(self, produce, chunks, store=None):
        from distributed import as_completed
        target = None if store is None else str(store.directory)
        metadata = None if store is None else store.metadata
        with _client(self.scheduler, self.n_workers) as client:
            _check_workers(client, self.modules)
            token = uuid.uuid4().hex[:8]
            futures = [client.submit(produce_and_write, produce, chunk, target, metadata,
                                     key=f"dokosim-chunk-{chunk.index:06d}-{token}", pure=False)
                       for chunk in chunks]
            by_key = {f.key: chunk for f, chunk in zip(futures, chunks)}
            for future, result in as_completed(futures, loop=client.loop, with_results=True):
                future.release()
                yield by_key[future.key], result
                result = None
        if store is not None:
            for f in store.directory.glob("part-*.tmp"):  # left by attempts on workers that died
                f.unlink(missing_ok=True)


def simulate_on_dask(plan: SimulationPlan, out=None, scheduler: str | None = None,
                     cluster: str | None = None, quiet: bool = True):
    """Run ``plan`` on Dask workers: the rows of ``simulate`` with the same plan, in any backend.

    ``scheduler``: the address of a running dask.distributed scheduler;
    ``cluster``: ``"local:N"``, a LocalCluster of N one-thread worker processes
    started (and stopped) for this run. With ``out`` (a directory every worker
    can write) the workers write the missing chunk files and the path is
    returned; without, the chunks are gathered into one DataFrame sorted by
    deal_id. The run driver (driver.run_dataset) owns the rest: the output
    checks, the manifest and ledger, resume, the progress bar.
    """
    executor = DaskExecutor(scheduler, cluster, [s.module_path for s in plan.strategies])
    run = run_dataset(chunks_of(plan.deals, plan.chunk_size), functools.partial(simulate_chunk, plan),
                      None if out is None else output_directory(out),
                      RunPlan(lambda: measured_manifest(plan, quiet), IDENTITY_KEYS), executor=executor,
                      progress=Progress(quiet, bar=PROGRESS))
    if run.directory is not None:
        return run.directory
    if run.frames:
        return pl.concat(run.frames)
    return frame_from_rows(np.zeros((0, OUT_LEN), dtype=np.int64), [s.name for s in plan.strategies])
