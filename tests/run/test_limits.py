"""Sizes that would exhaust the machine, or mean nothing, are refused in one line before any work
(issue 13, findings 4 and 9: ``--deals 9223372036854775807`` built chunk bounds until the memory
ran out; ``--deals 0`` and ``--rounds 0`` ended in a traceback)."""
import subprocess
import sys

import pytest

from dokosim.validation import MAX_DEALS, MAX_ROUNDS


@pytest.mark.subprocess
@pytest.mark.parametrize("argv, option", [
    (["simulate", "--deals", "0"], "--deals"),
    (["simulate", "--deals", "9223372036854775807"], "--deals"),
    (["probe-calls", "--deals", "0"], "--deals"),
    (["tournament", "simple", "random", "--deals", str(MAX_DEALS + 1)], "--deals"),
    (["session", "--rounds", "0"], "--rounds"),
    (["session", "--rounds", str(MAX_ROUNDS + 1)], "--rounds"),
])
def test_cli_refuses_sizes_out_of_range_in_one_line(argv, option):
    proc = subprocess.run([sys.executable, "-m", "dokosim.cli", *argv], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and option in errors[0] and "range" in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_python_api_refuses_more_than_the_bounds():
    from dokosim.run.session import SessionError, make_session_plan
    from dokosim.run.simulate import SimulationError
    from dokosim.run.simulator import make_plan
    with pytest.raises(SimulationError, match="at most 1,000,000,000,000"):
        make_plan(MAX_DEALS + 1)
    with pytest.raises(SessionError, match="at most 10,000,000,000"):
        make_session_plan(MAX_ROUNDS + 1)
    assert make_plan(MAX_DEALS).deals == MAX_DEALS  # the bound itself is allowed
