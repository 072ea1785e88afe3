"""Killing a multi-process command leaves no worker behind (issue 32, item 8): ``study par``'s
workers get SIGTERM from the kernel when their parent dies, even by SIGKILL (Linux)."""
import os
import signal
import subprocess
import sys
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
