"""Issue 47, item 7: ``train data --jobs 2`` under Ctrl-C and a lost worker. Ctrl-C (twice)
ends the main process and every worker within seconds, with the resume hint and exit code 130
like every dataset command; a worker killed by SIGKILL (as the out-of-memory killer does) ends
the run in one line with the resume hint (exit 1), and the chunks written stay whole."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
              pytest.mark.subprocess]  # starts dokosim processes


def start(out, jobs):
    """``dokosim train data`` in its own process group (as a terminal runs it), a run far longer
    than the tests wait (400 deals finished before the Ctrl-C on an idle machine): each test
    interrupts it after its first chunk."""
    return subprocess.Popen([sys.executable, "-m", "dokosim.cli", "train", "data", "--deals", "100000", "--chunk-size", "2",
                             "--jobs", str(jobs), "--param", "samples=2", "--quiet", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def ledger_lines(out):
    path = Path(str(out) + ".dokosim") / "_chunks.jsonl"
    return len(path.read_text().splitlines()) if path.exists() else 0


def wait_for_chunks(proc, out, n=1, limit=240):
    """Until the run has entered ``n`` chunks in its ledger (the workers are at work)."""
    deadline = time.monotonic() + limit
    while ledger_lines(out) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no chunk written"
        time.sleep(0.2)


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


def interrupt(proc, times=1, limit=120):
    """Ctrl-C ``times`` times (0.3 s apart) to the run's process group, then its (returncode,
    stderr). A Ctrl-C that reaches a process while numba compiles can be lost (seen on a cold
    kernel cache in CI), so while the run is still going after 20 s another is sent, at most
    ``limit`` seconds in all."""
    for i in range(times):
        if i:
            time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)
    deadline = time.monotonic() + limit
    while True:
        try:
            _, err = proc.communicate(timeout=20)
            return proc.returncode, err
        except subprocess.TimeoutExpired:
            assert time.monotonic() < deadline, "Ctrl-C did not end the run"
            os.killpg(proc.pid, signal.SIGINT)


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


@pytest.mark.xfail(strict=False, reason="open defect (issue 47 item 4): with --jobs 2 a Ctrl-C is sometimes lost and "
                   "the run goes on past 120 s (seen 7 Dec with the writer thread of issue 48); to be found, not hidden")
def test_a_second_ctrl_c_ends_the_main_process_and_its_workers(tmp_path):
    out = tmp_path / "d"
    proc = start(out, 2)
    try:
        wait_for_chunks(proc, out, n=3)
        assert len(workers(proc.pid)) == 2
        _, err = interrupt(proc, times=2)
        assert group_gone(proc.pid), "a worker outlived the command"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "run the same command again to resume" in err and "Traceback" not in err and "Aborted" not in err


def test_a_worker_killed_by_sigkill_ends_the_run_in_one_line(tmp_path):
    out = tmp_path / "d"
    proc = start(out, 2)
    try:
        wait_for_chunks(proc, out)
        os.kill(workers(proc.pid)[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
        assert group_gone(proc.pid)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1, err
    assert "Traceback" not in err and "BrokenProcessPool" not in err
    assert len(err.strip().splitlines()) == 1 and "worker" in err and "run the same command again" in err
    import dokosim
    written = ledger_lines(out)
    assert dokosim.dataset.scan(out).select("deal_id").unique().collect().height == 2 * written


def test_ctrl_c_with_one_job_exits_130_with_the_resume_hint(tmp_path):
    out = tmp_path / "d"
    proc = start(out, 1)
    try:
        wait_for_chunks(proc, out, n=3)
        _, err = interrupt(proc)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "run the same command again to resume" in err and "Aborted" not in err


def test_a_lost_worker_of_study_par_is_one_line_too(tmp_path):
    """``study par`` solves in a pool too: a worker killed by SIGKILL ends it in one line (exit 1)."""
    env = {**os.environ, "DOKOSIM_STUDY_DATA": str(tmp_path / "data")}
    proc = subprocess.Popen([sys.executable, "-m", "dokosim.cli", "study", "par", "--deals", "100000", "--results",
                             str(tmp_path / "results"), "--quiet"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while not workers(proc.pid):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.2)
        os.kill(workers(proc.pid)[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
        assert group_gone(proc.pid)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1, err
    assert len(err.strip().splitlines()) == 1 and "worker process died" in err and "Traceback" not in err
