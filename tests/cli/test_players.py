"""dokosim players: every player a run can seat, the default answerer first."""
from __future__ import annotations

import json

from click.testing import CliRunner

from dokosim.cli import main


def test_players_lists_every_built_in_with_the_default_answerer_first():
    from dokosim.game.agents import python_agent, reads_hidden
    from dokosim.loop.registry import BUILTIN, available
    from dokosim.run.players import STRONGEST_FAST
    r = CliRunner().invoke(main, ["players", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    names = [p["name"] for p in rows]
    assert names[0] == STRONGEST_FAST and rows[0]["default_answerer"]
    assert sum(p["default_answerer"] for p in rows) == 1 and len(set(names)) == len(names)
    assert set(BUILTIN) | {"dd_oracle"} <= set(names)
    for p in rows:  # each listed player can be seated, and only a cheat says it reads hidden cards
        if p["name"] in available():  # a compiled strategy: built in or a plug-in (another test may register one)
            assert not p["reads_hidden"] and p["built_in"] == (p["name"] in BUILTIN), p
        else:
            assert python_agent(p["name"]) is not None and p["reads_hidden"] == reads_hidden(p["name"]), p
    assert next(p for p in rows if p["name"] == "dd_oracle")["reads_hidden"]
    text = CliRunner().invoke(main, ["players"]).output.splitlines()
    assert text[1].startswith(STRONGEST_FAST) and text[1].endswith("(answers by default)")
    assert len(text) == len(rows) + 1
