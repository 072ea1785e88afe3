"""Killing a multi-process command leaves no worker behind (issue 32, item 8): ``study par``'s
workers get SIGTERM from the kernel when their parent dies, even by SIGKILL (Linux). The worker
pool (dokosim.run.workers, issue 47): every result, a task's error, a worker that dies in the
middle of its reply, workers that never take Ctrl-C; and ``interrupt_once``, the first Ctrl-C
raised and later ones ignored."""
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.subprocess, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")]


def children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_killing_study_par_kills_its_workers(tmp_path):
    env = {**os.environ, "DOKOSIM_STUDY_DATA": str(tmp_path / "data")}
    dokosim = Path(sys.executable).parent / "dokosim"  # the installed command, next to this Python
    cmd = [str(dokosim), "study", "par", "--deals", "100000", "--results", str(tmp_path / "results"), "--quiet"]
    parent = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 300
        while time.time() < deadline and not children(parent.pid):
            time.sleep(0.2)
        time.sleep(3.0)  # every worker of the pool (and a resource tracker) started by now
        workers = children(parent.pid)
        assert len(workers) >= 2, f"study par started {len(workers)} worker processes, 2 expected"
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.time() + 30
        while time.time() < deadline and any(alive(p) for p in workers):
            time.sleep(0.2)
        assert not any(alive(p) for p in workers), [p for p in workers if alive(p)]
    finally:
        if parent.poll() is None:
            parent.kill()


# ---------------------------------------------------------------------------- the worker pool
# The pool's task functions: module-level, so that a spawned worker imports them by name.

def _square(x):
    return x * x


def _fail(x):
    raise ValueError(f"task {x} failed")


def _unpicklable(x):
    return lambda: x


def _signal_state():
    """SIGINT's disposition and whether it is blocked, in the worker."""
    return signal.getsignal(signal.SIGINT), signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def _die_in_the_middle_of_the_reply(x):
    """Write the start of a reply that announces 1 MB on the worker's pipe, then die by SIGKILL:
    what the out-of-memory killer, or a SIGTERM to a worker busy sending its result, leaves."""
    import gc
    import struct
    from multiprocessing.connection import Connection
    pipe = next(o for o in gc.get_objects() if isinstance(o, Connection))
    os.write(pipe.fileno(), struct.pack("!i", 1 << 20) + b"half a rep")
    os.kill(os.getpid(), signal.SIGKILL)


def sigint_masks(pid: int) -> tuple[bool, bool]:
    """Whether SIGINT is (blocked, ignored) in process ``pid`` (/proc/PID/status)."""
    fields = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                  if ":\t" in line)
    bit = 1 << (signal.SIGINT - 1)
    return bool(int(fields["SigBlk"], 16) & bit), bool(int(fields["SigIgn"], 16) & bit)


def test_the_pool_yields_every_result_and_leaves_no_worker_and_no_thread():
    from dokosim.run.workers import WorkerPool
    threads = threading.active_count()
    with WorkerPool(2) as pool:
        results = dict(pool.run(_square, range(7)))
        workers = list(pool.processes)
    assert results == {x: x * x for x in range(7)}
    assert len(workers) == 2 and all(p.exitcode is not None for p in workers)
    assert threading.active_count() == threads  # nothing for the interpreter's exit to wait for


def test_an_error_in_a_task_is_raised_with_the_workers_traceback():
    from dokosim.run.workers import RemoteTraceback, WorkerPool
    with pytest.raises(ValueError, match="task 3 failed") as caught, WorkerPool(1) as pool:
        list(pool.run(_fail, [3]))
    assert isinstance(caught.value.__cause__, RemoteTraceback) and "_fail" in str(caught.value.__cause__)
    assert pool.processes == []  # stopped on the way out


def test_a_result_that_cannot_be_pickled_is_an_error_not_a_lost_worker():
    from dokosim.run.workers import WorkerPool
    with pytest.raises(RuntimeError, match="reply cannot be pickled"), WorkerPool(1) as pool:
        list(pool.run(_unpicklable, [1]))


def test_a_worker_that_dies_in_the_middle_of_its_reply_is_lost_not_waited_for():
    """The defect of issue 47: concurrent.futures' pool waited for the rest of such a reply for
    ever. Run in a thread so that a regression fails the test instead of hanging the suite."""
    from dokosim.run.workers import WorkerLost, WorkerPool
    outcome = []

    def run():
        try:
            with WorkerPool(1) as pool:
                list(pool.run(_die_in_the_middle_of_the_reply, [0]))
        except WorkerLost as exc:
            outcome.append(str(exc))
    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    runner.join(timeout=120)
    assert not runner.is_alive(), "the pool waits for the rest of a dead worker's reply"
    assert outcome and "killed by SIGKILL" in outcome[0] and "\n" not in outcome[0]


FIRST_WORKERS = """
import signal, sys
from pathlib import Path
from dokosim.run.workers import WorkerPool
sys.path.insert(0, sys.argv[1])
from test_workers import _signal_state, sigint_masks
with WorkerPool(2) as pool:
    pool._start(2)
    for process in pool.processes:  # at once, whatever the worker is doing: blocked or ignored
        assert any(sigint_masks(process.pid)), ("neither blocked nor ignored", sigint_masks(process.pid))
    states = [state for _, state in pool.run(_signal_state, [(), ()], lambda item: item)]
assert states == [(signal.SIG_IGN, False)] * 2, states  # then ignored, no longer blocked
assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # the parent's Ctrl-C untouched
print("ok")
"""


def test_workers_never_take_ctrl_c_from_their_first_instruction_on():
    """SIGINT is blocked in a worker from its start (inherited) until it ignores it: a Ctrl-C to
    the process group during a worker's start-up (its imports, numba loading its kernels) printed
    a KeyboardInterrupt traceback. In a fresh interpreter, whose first pool also starts
    multiprocessing's resource tracker (which unblocked SIGINT in the parent: the first worker
    took Ctrl-C); the parent's own Ctrl-C is untouched."""
    run = subprocess.run([sys.executable, "-c", FIRST_WORKERS, str(Path(__file__).parent)], capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr


def test_a_ctrl_c_while_workers_start_comes_once_all_are_started(monkeypatch, default_ctrl_c, capfd):
    """A Ctrl-C that Linux hands to another thread while the pool starts its workers (SIGINT is
    blocked in this one meanwhile; the handler still runs here, between two starts): raised in the
    middle of a start it left a worker without its start-up data, which printed a traceback
    (EOFError), or a worker the pool did not know of. Now raised once both are started, and both
    are stopped."""
    from multiprocessing.context import SpawnProcess

    from dokosim.run.workers import WorkerPool
    real_start = SpawnProcess.start

    def ctrl_c_in_this_thread():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])  # (inherited blocked from the pool's)
        signal.raise_signal(signal.SIGINT)

    def start_then_ctrl_c(process):
        real_start(process)
        if process.name.endswith("-0"):  # the first worker: Ctrl-C before the second starts
            other = threading.Thread(target=ctrl_c_in_this_thread)
            other.start()
            other.join()
    monkeypatch.setattr(SpawnProcess, "start", start_then_ctrl_c)
    pool = WorkerPool(2)
    with pytest.raises(KeyboardInterrupt):
        pool._start(2)
    workers = list(pool.processes)
    pool.stop()
    assert len(workers) == 2 and all(p.exitcode is not None for p in workers)
    assert "Traceback" not in capfd.readouterr().err


# ---------------------------------------------------------------------------- Ctrl-C once

@pytest.fixture
def default_ctrl_c():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_the_first_ctrl_c_raises_and_later_ones_are_ignored(default_ctrl_c):
    from dokosim.run.outputs import interrupt_once
    stopped = []
    with pytest.raises(KeyboardInterrupt), interrupt_once():
        try:
            signal.raise_signal(signal.SIGINT)
        finally:  # the stopping a first Ctrl-C starts: a second one does not cut it short
            signal.raise_signal(signal.SIGINT)
            stopped.append(True)
    assert stopped == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the caller's Ctrl-C back


def test_a_process_that_ends_keeps_ignoring_ctrl_c_after_the_first(default_ctrl_c):
    from dokosim.run.outputs import interrupt_once
    with interrupt_once(restore=False):
        pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # no Ctrl-C: as before
    with pytest.raises(KeyboardInterrupt), interrupt_once(restore=False):
        signal.raise_signal(signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_a_callers_own_ctrl_c_handler_is_left_alone(default_ctrl_c):
    from dokosim.run.outputs import interrupt_once
    seen = []

    def handler(signum, frame):
        seen.append(signum)
    signal.signal(signal.SIGINT, handler)
    with interrupt_once():
        signal.raise_signal(signal.SIGINT)
        signal.raise_signal(signal.SIGINT)
    assert seen == [signal.SIGINT] * 2 and signal.getsignal(signal.SIGINT) is handler
