"""The documentation's examples run as written."""
import re
from pathlib import Path

import polars as pl

from dokosim.run.simulate import simulate
from dokosim.loop.registry import register_path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_strategy_example_in_the_docs_plays(tmp_path, monkeypatch):
    text = (DOCS / "strategies.md").read_text()
    block = re.search(r"```python\n(# file: my_bots/greedy.py\n.*?)```", text, re.S).group(1)
    package = tmp_path / "my_bots"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "greedy.py").write_text(block)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert register_path("my_bots.greedy") == "greedy"
    df = simulate(4000, seed=3, strategy="greedy,simple,greedy,simple")
    assert df.height == 4000
    # greedy calls with 8+ trumps: some Re/Kontra calls happen, and scores sum to zero
    assert df.filter((pl.col("calls_re") > 0) | (pl.col("calls_kontra") > 0)).height > 0
    assert (df.select(pl.sum_horizontal([f"score_{s}" for s in range(4)])).to_series() == 0).all()


def test_the_rules_and_the_record_format_ship_with_the_package():
    """docs/RULES.md and docs/GAME_RECORD.md are the files the package ships (dokosim/spec/),
    and ``dokosim rules`` names the shipped files, which exist."""
    from click.testing import CliRunner

    from dokosim.cli import main
    from dokosim.spec import GAME_RECORD_FILE, RULES_FILE
    for shipped in (RULES_FILE, GAME_RECORD_FILE):
        assert shipped.read_bytes() == (DOCS / shipped.name).read_bytes()
    result = CliRunner().invoke(main, ["rules"])
    assert result.exit_code == 0
    named = re.findall(r"^the (?:rules|record format): +(\S+)$", result.output, re.M)
    assert [Path(p) for p in named] == [RULES_FILE, GAME_RECORD_FILE]
    assert all(Path(p).is_file() for p in named)


def test_the_twenty_line_agent_in_the_game_docs_plays_a_tournament(capsys):
    """docs/game.md's example agent (the block marked ``# example: trick_taker``) runs as written:
    it registers, plays a 100-deal duplicate tournament against simple and prints the difference
    with its interval; the agent (the class) is at most 20 lines."""
    text = (DOCS / "game.md").read_text()
    block = re.search(r"```python\n(# example: trick_taker\n.*?)```", text, re.S).group(1)
    agent = block.split("class TrickTaker:", 1)[1].split("\nregister_agent", 1)[0]
    assert 1 + len([line for line in agent.splitlines() if line.strip()]) <= 20
    exec(compile(block, "docs/game.md", "exec"), {})  # noqa: S102 - the docs' own example, as written
    printed = capsys.readouterr().out.strip()
    from dokosim.game.agents import _PYTHON_AGENTS
    _PYTHON_AGENTS.pop("trick_taker", None)
    mean, lo, hi = (float(v) for v in re.findall(r"[-+]?\d+\.\d+", printed)[:3])
    assert lo < mean < hi, printed
