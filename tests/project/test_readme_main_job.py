"""The README's main job prints what the README shows: the first command of the quick start,
run in-process, prints the output block below it line for line (a million deals of
``heuristic``: about 10 s on two cores once the kernels are compiled)."""
import re
import shlex
from pathlib import Path

from click.testing import CliRunner
import pytest

pytestmark = pytest.mark.e2e  # end to end

README = Path(__file__).resolve().parents[2] / "README.md"


def quick_start():
    """The arguments of the main job (after ``dokosim``) and the output block the README shows."""
    text = README.read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.search(r"```bash\n(.*?)```", section, re.S).group(1).strip().splitlines()
    assert len(commands) == 2, commands  # exactly two commands: install + main job, install + tests
    args = shlex.split(commands[0].split("&&")[-1])
    assert Path(args[0]).name == "dokosim"
    shown = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    return args[1:], shown


def test_the_main_job_prints_what_the_readme_shows():
    from dokosim.cli import main
    args, shown = quick_start()
    result = CliRunner().invoke(main, [*args, "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.output == shown


def test_the_summary_names_what_was_played_and_its_intervals():
    """The summary's first line names deals, seed, rules and strategies; every share and win rate
    carries an interval that contains it; the declared solos of the realism report are plausible
    (a few per cent of deals, most of them won)."""
    _, shown = quick_start()
    lines = shown.splitlines()
    assert re.match(r"1,000,000 deals, seed 1, rules ddv; heuristic at every seat", lines[0])
    for value, lo, hi in re.findall(r"([\d.]+)% \[([\d.]+), ([\d.]+)\]", shown):
        assert float(lo) <= float(value) <= float(hi)
    share, wins = re.search(r"declared solos: ([\d.]+)% .* won by the soloist in ([\d.]+)%", shown).groups()
    assert 2 <= float(share) <= 15 and float(wins) >= 55


def test_the_main_job_agrees_with_the_realism_report():
    """The README's solo share and the soloists' win rate are the realism report's figures (the
    report plays the same million deals: analysis/realism.py --deals 1000000 --seed 1)."""
    _, shown = quick_start()
    report = (README.parent / "results" / "realism" / "report.md").read_text()
    assert "1,000,000 deals, seed 1, rules `ddv`" in report
    r_share, r_wins = re.search(r"\| all declared solos \| ([\d.]+)% \[.*?\] \| ([\d.]+)% ", report).groups()
    share, wins = re.search(r"declared solos: ([\d.]+)% .* won by the soloist in ([\d.]+)%", shown).groups()
    assert abs(float(share) - float(r_share)) <= 0.05 + 1e-9 and abs(float(wins) - float(r_wins)) <= 0.05 + 1e-9
