"""``dokosim players``: the players dokosim can seat, strongest answerer first."""
from __future__ import annotations

import json

import click


def player_rows() -> list[dict]:
    """The built-in players (``dokosim.run.players.PLAYERS``, the default answerer first), then any
    strategy or Python agent a plug-in registers (entry points, ``register``)."""
    from ..run.players import PLAYERS, STRONGEST_FAST
    rows = [{"name": name, "what": what, "class": kind, "deals_per_second_per_core": speed,
             "reads_hidden": kind == "reads hidden cards", "default_answerer": name == STRONGEST_FAST,
             "built_in": True} for name, what, kind, speed in PLAYERS]
    from ..loop.registry import available
    known = {r["name"] for r in rows}
    for name, module in available().items():
        if name not in known:
            rows.append({"name": name, "what": f"a plug-in strategy ({module})", "class": "plug-in",
                         "deals_per_second_per_core": None, "reads_hidden": False, "default_answerer": False,
                         "built_in": False})
            known.add(name)
    from importlib.metadata import entry_points

    from ..game.agents import AGENT_ENTRY_POINT_GROUP, reads_hidden
    for ep in entry_points(group=AGENT_ENTRY_POINT_GROUP):
        if ep.name not in known:
            rows.append({"name": ep.name, "what": f"a Python agent ({ep.value})", "class": "python agent",
                         "deals_per_second_per_core": None, "reads_hidden": reads_hidden(ep.name),
                         "default_answerer": False, "built_in": False})
            known.add(ep.name)
    return rows


@click.command("players", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list, the default answerer first.")
def players(as_json):
    """List the players (strategies and agents) a run can seat: the one that answers by default
    first (advise; docs/strategies.md, "Which player answers"), then by measured standing."""
    rows = player_rows()
    if as_json:
        click.echo(json.dumps(rows))
        return
    click.echo(f"{'player':12} {'class':19} {'deals/s/core':>13}  what it does")
    for r in rows:
        speed = "?" if r["deals_per_second_per_core"] is None else f"~{r['deals_per_second_per_core']:,}"
        mark = "  (answers by default)" if r["default_answerer"] else ""
        click.echo(f"{r['name']:12} {r['class']:19} {speed:>13}  {r['what']}{mark}")
