"""Integer arguments are bounded before any work (issue 32, item 4): a node limit of 2**63 would
overflow the solver's int64 node count, 2**63 audited deals or 10**13 par deals would grow lists
until memory runs out. Each is refused in one line (exit 2 on the command line)."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import dokosim
from dokosim.cli import main as cli
from dokosim.studies.common import StudyError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RECORD = json.loads((EXAMPLES / "records.jsonl").read_text().splitlines()[0])


def _one_error_line(args):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.output
    return errors[0]


@pytest.mark.parametrize("limit", [2**63, 10**15 + 1, -1])
def test_the_solvers_node_limit_is_bounded(limit):
    with pytest.raises(ValueError, match="node_limit"):
        dokosim.solve(RECORD, node_limit=limit)
    assert "--node-limit" in _one_error_line(["solve", str(EXAMPLES / "records.jsonl"), "--node-limit", str(limit)])


def test_audit_and_study_deals_are_bounded():
    assert "--deals" in _one_error_line(["audit", str(EXAMPLES), "--deals", str(2**63)])
    assert "--deals" in _one_error_line(["study", "par", "--deals", str(10**13)])


def test_par_refuses_more_deals_than_its_plan_can_hold():
    from dokosim.studies import par
    with pytest.raises(StudyError, match="too many"):
        par.run(deals=par.MAX_PAR_DEALS + 1, quiet=True, results="/nonexistent/never-written")
