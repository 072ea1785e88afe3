"""Worker processes for the commands that play or solve chunks in parallel (``train data --jobs``,
``study par``, ``study swings``, ``dokosim compile``): ``WorkerPool``.

Why not ``concurrent.futures.ProcessPoolExecutor``: its results come back through one pipe read by
a thread of its own. A worker stopped while it sends a result (Ctrl-C stops the workers at once;
the out-of-memory killer sends SIGKILL) leaves half a message in that pipe, whose writing end the
parent itself keeps open, so the thread waits for the rest for ever; the interpreter's exit joins
that thread, so the command never ended (issue 47: Ctrl-C "lost", the run going on past 120 s).
Here each worker has a pipe of its own whose writing end only the worker holds, and the calling
thread alone feeds the workers and reads them: a worker that dies, even in the middle of a
message, is an end of file (``WorkerLost``), and there is no thread to wait for.

Ctrl-C (SIGINT, which a terminal sends to the whole process group) is the parent's alone: a worker
ignores it from its first instruction (it is started with SIGINT blocked, as CPython starts its
resource tracker, so that a Ctrl-C during its start-up, while it imports numba and polars, does
not print a traceback), and the parent stops every worker (``WorkerPool.stop``). A worker also
asks Linux for SIGTERM when its parent dies, however the parent died (``die_with_parent``).
"""
from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

PR_SET_PDEATHSIG = 1  # linux/prctl.h
STOP_GRACE = 5.0  # seconds a worker has to end after SIGTERM before it gets SIGKILL
WAIT_SLICE = 0.5  # seconds the parent waits for its workers at a time (WorkerPool.run)


def die_with_parent() -> None:
    """Make this process receive SIGTERM when its parent dies (Linux); exit at once if the parent
    is already gone. Elsewhere it does nothing."""
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
    """A worker process died under a run (killed by a signal, e.g. the out-of-memory killer's
    SIGKILL): ``str()`` is one line saying how; the commands add the resume hint."""


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker, attached as its ``__cause__``."""

    def __str__(self):
        return self.args[0]


@contextmanager
def interrupt_blocked():
    """SIGINT blocked in the calling thread for the block: a process started meanwhile inherits
    the mask (and keeps it until it unblocks SIGINT itself). A Ctrl-C meanwhile is not lost: it
    stays pending until the block ends, or Linux hands it to another thread of the process, and
    Python then runs its handler in the main thread all the same (``WorkerPool._start`` defers it)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _serve(connection) -> None:
    """A worker's life: run each task ``(function, args)`` received on ``connection`` and send back
    ``(True, result, None)`` or ``(False, exception, its traceback)``, until the parent closes the
    pipe. SIGINT is ignored (before it is unblocked: see ``interrupt_blocked``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    die_with_parent()
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):  # the parent closed the pipe (or died): nothing more to do
            return
        function, args = task
        task = None
        try:
            reply = (True, function(*args), None)
        except Exception as exc:  # noqa: BLE001 - raised again in the parent, with its traceback
            reply = (False, exc, traceback.format_exc())
        if not _send(connection, reply):
            return
        reply = None


def _send(connection, reply) -> bool:
    """Send a worker's reply; False if the parent is gone or stopped listening. A reply that
    cannot be pickled (nothing of it was sent) becomes an error naming why."""
    try:
        try:
            connection.send(reply)
        except (EOFError, OSError):
            return False
        except Exception:  # noqa: BLE001 - pickling failed before anything was written
            connection.send((False, RuntimeError(f"a worker's reply cannot be pickled: {traceback.format_exc()}"),
                             None))
    except (EOFError, OSError):
        return False
    return True


class WorkerPool:
    """Up to ``jobs`` spawned worker processes, fed and read by the calling thread alone (the
    module doc says why). ``run`` hands out tasks one per worker and yields their results as
    they come; ``stop`` ends every worker now. As a context manager: on leaving the block the
    workers end, at once (``stop``) if the block raised (Ctrl-C, a failed write, a lost worker),
    else after their last task (``close``).

        with WorkerPool(2) as pool:
            for chunk, frame in pool.run(play_chunk, chunks, lambda c: (c.first, c.count)):
                ...
    """

    def __init__(self, jobs: int):
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise ValueError(f"jobs={jobs!r}: the number of worker processes is an int of at least 1")
        self.jobs = jobs
        self.processes: list = []
        self.connections: list = []  # the parent's end of each worker's pipe, in the order of processes

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if kind is None:
            self.close()
        else:
            self.stop()

    def _start(self, count: int) -> None:
        """Start workers up to ``count``. A Ctrl-C meanwhile is raised once every worker is
        started and in ``processes`` (to be stopped): raised in the middle of a start, it left a
        worker without its start-up data, which printed a traceback (EOFError), or one the pool
        did not know of."""
        from .outputs import deferred_interrupt
        with deferred_interrupt():
            self._start_now(count)

    def _start_now(self, count: int) -> None:
        import multiprocessing
        context = multiprocessing.get_context("spawn")  # a fork of a process with threads (numba, polars) may hang
        if sys.platform != "win32":
            # started now, not by the first Process.start below: starting it, CPython unblocks
            # SIGINT in this thread whatever was blocked before, and the first worker then took
            # Ctrl-C during its start-up (a traceback from its imports)
            from multiprocessing import resource_tracker
            resource_tracker.ensure_running()
        with interrupt_blocked():  # inherited by the workers (the module doc)
            for _ in range(count - len(self.processes)):
                here, there = context.Pipe(duplex=True)
                process = context.Process(target=_serve, args=(there,), daemon=True,
                                          name=f"dokosim-worker-{len(self.processes)}")
                process.start()
                there.close()  # the worker's end is the worker's alone: its death is an end of file here
                self.processes.append(process)
                self.connections.append(here)

    def run(self, function: Callable, items: Iterable, arguments: Callable = lambda item: (item,)) -> Iterator:
        """``function(*arguments(item))`` for every item, in the workers (``function`` and the
        arguments are pickled: a module-level function); yields ``(item, result)`` as each
        result arrives, in any order. A worker that dies raises WorkerLost; an exception raised by
        ``function`` is raised here, its traceback in the worker as its ``__cause__``."""
        items = list(items)
        if not items:
            return
        self._start(min(self.jobs, len(items)))
        waiting = iter(items)
        busy: dict = {}  # connection -> the item its worker is on

        def hand_out(connection) -> None:
            for item in waiting:  # the next item, if any
                try:
                    connection.send((function, arguments(item)))
                except (EOFError, OSError):
                    raise self._lost(connection) from None
                busy[connection] = item
                return

        for connection in self.connections:
            hand_out(connection)
        from multiprocessing.connection import wait
        while busy:
            # in slices: a Ctrl-C that Linux hands to another thread of this process (numba's,
            # polars', tqdm's) does not wake this one; it is handled at the end of the slice
            for connection in wait(list(busy), timeout=WAIT_SLICE):
                item = busy.pop(connection)
                try:
                    ok, value, text = connection.recv()
                except (EOFError, OSError):  # the worker died, perhaps in the middle of its reply
                    raise self._lost(connection) from None
                if not ok:
                    if text:
                        value.__cause__ = RemoteTraceback(text)
                    raise value
                hand_out(connection)  # the worker goes on while the caller takes this result
                yield item, value
                value = None

    def _lost(self, connection) -> WorkerLost:
        process = self.processes[self.connections.index(connection)]
        process.join(STOP_GRACE)
        code = process.exitcode
        if code is None:
            how = "its pipe closed"
        elif code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            how = f"killed by {name}" + (", as the out-of-memory killer does" if name == "SIGKILL" else "")
        else:
            how = f"exit code {code}"
        return WorkerLost(f"a worker process died ({how})")

    def close(self) -> None:
        """End the workers once they are idle: each gets an end of file and exits; one still busy
        after STOP_GRACE seconds is stopped."""
        try:
            for connection in self.connections:
                connection.close()
            for process in self.processes:
                process.join(STOP_GRACE)
        finally:
            self.stop()

    def stop(self) -> None:
        """End every worker now: SIGTERM, then SIGKILL for one still there after STOP_GRACE
        seconds; their pipes closed. A Ctrl-C meanwhile waits for the end of it (a second Ctrl-C
        must not leave workers behind; ignored when Ctrl-C already is, as after a first one under
        ``outputs.interrupt_once``)."""
        from .outputs import deferred_interrupt
        try:
            with deferred_interrupt():
                self._end_all()
        finally:
            self._end_all()  # nothing left, unless a Ctrl-C was handled just as the block began

    def _end_all(self) -> None:
        for process in self.processes:
            if process.exitcode is None:
                process.terminate()
        for process in self.processes:
            process.join(STOP_GRACE)
            if process.exitcode is None:
                process.kill()
                process.join(STOP_GRACE)
        for connection in self.connections:
            connection.close()
        self.processes, self.connections = [], []
