"""issue 32's acceptance: a hypothesis run drives Game, VectorGame and the PettingZoo env with
random calls and arguments (wrong shapes, dtypes, sizes, ranges, calls out of order) in a
subprocess (tests/fuzz/api_fuzz.py): it must end normally, never by a signal (a segmentation
fault would kill a user's notebook), and raise nothing but the documented exception types."""
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]  # starts a dokosim process; a long property run

SCRIPT = Path(__file__).resolve().parents[1] / "fuzz" / "api_fuzz.py"


def test_random_api_calls_raise_only_documented_errors_and_never_crash():
    run = subprocess.run([sys.executable, str(SCRIPT), "60"], capture_output=True, text=True, timeout=1200)
    assert run.returncode >= 0, f"killed by signal {-run.returncode}:\n{run.stderr[-3000:]}"
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "api fuzz: done" in run.stdout
