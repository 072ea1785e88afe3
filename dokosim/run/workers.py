"""Worker processes that do not outlive the command that started them.

``die_with_parent`` is the initializer of every process pool dokosim starts (``study par``,
``dokosim compile``): on Linux it asks the kernel to send the worker SIGTERM when its parent
dies, however the parent died (Ctrl-C, ``kill``, ``kill -9``), so no worker is left solving
for nobody. Elsewhere it does nothing (the pools' own shutdown still runs on a clean exit).
"""
from __future__ import annotations

import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent() -> None:
    """Make this process receive SIGTERM when its parent dies (Linux); exit at once if the parent
    is already gone."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


class WorkerLost(RuntimeError):
    """A worker process of a pool died under a run (killed by a signal, e.g. the out-of-memory
    killer's SIGKILL): ``str()`` is one line with the resume hint."""


def ignore_interrupt_in_worker() -> None:
    """Initializer of a pool's workers: die with the parent (``die_with_parent``) and leave
    Ctrl-C (SIGINT, sent to the whole process group by the terminal) to the parent, which
    stops the workers itself (``stop_pool``), so that a worker never turns it into an error of
    its task."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_pool(pool, timeout: float = 5.0) -> None:
    """Stop a ``concurrent.futures.ProcessPoolExecutor`` now, with Ctrl-C held off meanwhile: the
    pool shut down without waiting, its queued tasks cancelled, every worker terminated
    (SIGTERM, then SIGKILL after ``timeout`` seconds). After it the interpreter can exit at once
    (no thread left waiting for a worker)."""
    import threading
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut this short
    try:
        processes = list((getattr(pool, "_processes", None) or {}).values())  # the pool's own table
        # the queue cancelled by the pool's own thread (a future cancelled here would make that
        # thread fail when it marks the pending futures broken: InvalidStateError)
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout)
            if process.is_alive():
                process.kill()
                process.join(timeout)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
