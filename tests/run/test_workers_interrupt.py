"""Issue 47, item 7: ``train data --jobs 2`` under Ctrl-C and a lost worker. Ctrl-C (once or
several times, at start-up while the workers import and load or compile their kernels, or mid-run)
ends the main process and every worker, with the resume hint and exit code 130 like every dataset
command, and the chunks written stay whole; a worker killed by SIGKILL (as the out-of-memory killer
does) ends the run in one line with the resume hint (exit 1).

No timing is asserted: a run is waited for with generous limits only (a cold kernel cache on a
busy 2-core machine), and a Ctrl-C is sent once per press, never again because a run went on
(the defect of issue 47: concurrent.futures' pool waited for ever for a result its stopped worker
had half sent; dokosim.run.workers)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
              pytest.mark.subprocess]  # starts dokosim processes

RUN_LIMIT = 600  # seconds a run may take to reach a phase: its kernels may compile first (cold cache)
END_LIMIT = 120  # seconds a Ctrl-C'd run may take to end: far more than it needs (it stops at once)


def start(out, jobs):
    """``dokosim train data`` in its own process group (as a terminal runs it), a run far longer
    than the tests wait (400 deals finished before the Ctrl-C on an idle machine): each test
    interrupts it after its first chunk."""
    return subprocess.Popen([sys.executable, "-m", "dokosim.cli", "train", "data", "--deals", "100000", "--chunk-size", "2",
                             "--jobs", str(jobs), "--param", "samples=2", "--quiet", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


@pytest.fixture(autouse=True)
def plain_ctrl_c():
    """Ctrl-C as in a terminal for the dokosim processes these tests start: SIGINT handled and not
    blocked here, so not ignored nor blocked in a child (a test worker may have inherited another
    state, which a child would inherit)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    yield
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    signal.signal(signal.SIGINT, previous)


def ledger_lines(out):
    path = Path(str(out) + ".dokosim") / "_chunks.jsonl"
    return len(path.read_text().splitlines()) if path.exists() else 0


def wait_until(proc, ready, what, limit=RUN_LIMIT):
    """Until ``ready()`` holds, the run still going."""
    deadline = time.monotonic() + limit
    while not ready():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"no {what} within {limit} s"
        time.sleep(0.1)


def workers(pid):
    """The pids of the pool's worker processes (children running multiprocessing's spawn_main)."""
    found = []
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(int(child))
        except OSError:
            pass
    return found


def interrupt(proc, times=1, apart=0.3):
    """Ctrl-C ``times`` times, ``apart`` seconds apart, to the run's process group (as a terminal
    sends it), then its stderr once it has ended (within END_LIMIT seconds)."""
    for i in range(times):
        if i:
            time.sleep(apart)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=END_LIMIT)
    return err


def group_gone(pgid, limit=60):
    """True once no process of the group ``pgid`` is left (within ``limit`` seconds)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    return False


def assert_whole_chunks(out):
    """Every chunk in the ledger is there, whole (its checksum), and the dataset reads."""
    import dokosim
    from dokosim.run.driver import file_sha256, read_ledger
    ledger = read_ledger(out) or {}
    for name, entry in ledger.items():
        assert file_sha256(out / name) == entry["sha256"], name
    if ledger:
        assert dokosim.dataset.scan(out).select("deal_id").unique().collect().height == 2 * len(ledger)
    assert not list(Path(out).glob("*.tmp"))


def assert_ended_by_ctrl_c(proc, err):
    assert proc.returncode == 130, err
    assert "run the same command again to resume" in err, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err and "Aborted" not in err, err
    assert "leaked" not in err, err  # multiprocessing's resource tracker: a stopped worker's semaphore


@pytest.mark.parametrize("phase", ["starting", "running"])
@pytest.mark.parametrize("presses", [(1, 0.0), (2, 0.3), (5, 0.05)], ids=["once", "twice", "five-times"])
def test_ctrl_c_ends_the_main_process_and_its_workers(tmp_path, phase, presses):
    """``starting``: as soon as both workers exist (they import dokosim, numba and polars and load
    or compile their kernels); ``running``: after three chunks. Ctrl-C pressed once, twice, or
    five times quickly (later presses land on the stopping)."""
    out = tmp_path / "d"
    proc = start(out, 2)
    try:
        if phase == "starting":
            wait_until(proc, lambda: len(workers(proc.pid)) == 2, "two workers")
        else:
            wait_until(proc, lambda: ledger_lines(out) >= 3, "three chunks")
            assert len(workers(proc.pid)) == 2
        err = interrupt(proc, *presses)
        assert group_gone(proc.pid), "a worker outlived the command"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert_ended_by_ctrl_c(proc, err)
    assert_whole_chunks(out)


def test_a_worker_killed_by_sigkill_ends_the_run_in_one_line(tmp_path):
    out = tmp_path / "d"
    proc = start(out, 2)
    try:
        wait_until(proc, lambda: ledger_lines(out) >= 1, "chunk")
        os.kill(workers(proc.pid)[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=END_LIMIT)
        assert group_gone(proc.pid)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1, err
    assert "Traceback" not in err and "BrokenProcessPool" not in err
    assert len(err.strip().splitlines()) == 1 and "killed by SIGKILL" in err and "run the same command again" in err
    assert_whole_chunks(out)


def test_ctrl_c_with_one_job_exits_130_with_the_resume_hint(tmp_path):
    out = tmp_path / "d"
    proc = start(out, 1)
    try:
        wait_until(proc, lambda: ledger_lines(out) >= 3, "three chunks")
        err = interrupt(proc, times=2)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert_ended_by_ctrl_c(proc, err)
    assert_whole_chunks(out)


def start_study_par(tmp_path):
    env = {**os.environ, "DOKOSIM_STUDY_DATA": str(tmp_path / "data")}
    return subprocess.Popen([sys.executable, "-m", "dokosim.cli", "study", "par", "--deals", "100000", "--results",
                             str(tmp_path / "results"), "--quiet"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_a_lost_worker_of_study_par_is_one_line_too(tmp_path):
    """``study par`` solves in a pool too: a worker killed by SIGKILL ends it in one line (exit 1)."""
    proc = start_study_par(tmp_path)
    try:
        wait_until(proc, lambda: workers(proc.pid), "worker")
        os.kill(workers(proc.pid)[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=END_LIMIT)
        assert group_gone(proc.pid)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1, err
    assert len(err.strip().splitlines()) == 1 and "worker process died" in err and "Traceback" not in err


def test_ctrl_c_ends_study_par_and_its_workers(tmp_path):
    """``study par``: Ctrl-C twice while its workers start: exit 130, the resume hint, no worker left."""
    proc = start_study_par(tmp_path)
    try:
        wait_until(proc, lambda: len(workers(proc.pid)) == 2, "two workers")
        err = interrupt(proc, times=2)
        assert group_gone(proc.pid), "a worker outlived the command"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert_ended_by_ctrl_c(proc, err)
