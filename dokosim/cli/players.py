"""``dokosim players``: the players dokosim can seat, strongest first by their measured duplicate
result against ``heuristic`` (dokosim/run/standings.py's results file, not typed by hand)."""
from __future__ import annotations

import json

import click

from .options import RunError

REFERENCE = {"opponent": "heuristic", "diff": 0.0, "ci95": [0.0, 0.0], "reference": True}
"""``vs_heuristic`` of heuristic itself: 0 by definition (against itself every difference is 0)."""


def player_rows(standings=None) -> list[dict]:
    """The built-in players (``dokosim.run.players.PLAYERS``) strongest first: the ones with a
    recorded duplicate result against heuristic (heuristic itself at 0) by that difference, then
    the ones not measured yet, then ``dd_oracle`` (it reads hidden cards); then any strategy or
    Python agent a plug-in registers (entry points, ``register``). ``standings``: a standings object
    (``standings.read``; default: the shipped file). Every row has ``name``, ``what``, ``class``,
    ``deals_per_second_per_core`` (recorded, None when not), ``reads_hidden``, ``default_answerer``,
    ``built_in``, ``standing`` ("measured", "reference", "not measured", "reads hidden cards",
    "plug-in"), ``vs_heuristic`` (the recorded duplicate result: diff, ci95, deals, seed, rules,
    command, ...; None when not measured) and ``speed`` (the recorded speed: deals, command, ...;
    None when not measured)."""
    from ..run.players import PLAYERS, STRONGEST_FAST
    from ..run.standings import OPPONENT, read
    recorded = (read() if standings is None else standings)["players"]
    rows = []
    for name, what, kind in PLAYERS:
        entry = recorded.get(name, {})
        reads_hidden = kind == "reads hidden cards"
        speed = entry.get("speed")
        if reads_hidden:
            standing, duplicate = "reads hidden cards", entry.get("duplicate")
        elif name == OPPONENT:
            standing, duplicate = "reference", dict(REFERENCE)
        elif "duplicate" in entry:
            standing, duplicate = "measured", entry["duplicate"]
        else:
            standing, duplicate = "not measured", None
        rows.append({"name": name, "what": what, "class": kind,
                     "deals_per_second_per_core": None if speed is None else speed["deals_per_second_per_core"],
                     "reads_hidden": reads_hidden, "default_answerer": name == STRONGEST_FAST, "built_in": True,
                     "standing": standing, "vs_heuristic": duplicate, "speed": speed})
    tier = {"measured": 0, "reference": 0, "not measured": 1, "reads hidden cards": 2}
    rows.sort(key=lambda r: (tier[r["standing"]], -r["vs_heuristic"]["diff"] if tier[r["standing"]] == 0 else 0))
    from ..loop.registry import available
    known = {r["name"] for r in rows}

    def plug_in(name, what, kind, hidden):
        return {"name": name, "what": what, "class": kind, "deals_per_second_per_core": None,
                "reads_hidden": hidden, "default_answerer": False, "built_in": False, "standing": "plug-in",
                "vs_heuristic": None, "speed": None}
    for name, module in available().items():
        if name not in known:
            rows.append(plug_in(name, f"a plug-in strategy ({module})", "plug-in", False))
            known.add(name)
    from importlib.metadata import entry_points

    from ..game.agents import AGENT_ENTRY_POINT_GROUP, reads_hidden
    for ep in entry_points(group=AGENT_ENTRY_POINT_GROUP):
        if ep.name not in known:
            rows.append(plug_in(ep.name, f"a Python agent ({ep.value})", "python agent", reads_hidden(ep.name)))
            known.add(ep.name)
    return rows


def text_lines(rows: list[dict], source: str) -> list[str]:
    """The terminal listing: one line a player, then the footnotes (each result's command, the speeds'
    commands)."""
    lines = [(f"strongest first by the duplicate difference against heuristic (points per deal and seat, "
              f"95% interval), measured, from {source}:"),
             (f"{'player':12} {'class':19} {'vs heuristic [95% interval]':31} {'deals':>7} {'seed':>5} "
              f"{'deals/s/core':>13}  what it does")]
    notes, speed_commands = [], {}
    for r in rows:
        d = r["vs_heuristic"]
        if r["standing"] == "reference":
            result, deals, seed = "0 (the reference)", "", ""
        elif d is None:
            result, deals, seed = ("reads hidden cards" if r["reads_hidden"] else
                                   "not measured" if r["built_in"] else "plug-in"), "", ""
        else:
            notes.append(f"[{len(notes) + 1}] {r['name']}: {d['command']}  ({d['date']}"
                         + (f", commit {d['commit'][:9]}{' + changes' if d['dirty'] else ''}" if d["commit"] else "")
                         + ")")
            result = f"{d['diff']:+.3f} [{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}] [{len(notes)}]"
            deals, seed = f"{d['deals']:,}", str(d["seed"])
        s = r["speed"]
        if s is None:
            speed = "?"
        else:
            rate = s["deals_per_second_per_core"]
            speed = f"{rate:,.0f}" if rate >= 100 else f"{rate:.1f}"
            speed_commands.setdefault((s["command"], s["date"]), []).append(r["name"])
        mark = "  (answers by default)" if r["default_answerer"] else ""
        lines.append(f"{r['name']:12} {r['class']:19} {result:31} {deals:>7} {seed:>5} {speed:>13}  {r['what']}{mark}")
    lines += notes
    for (command, date), names in speed_commands.items():
        lines.append(f"deals/s/core: the player at every seat, one thread, CPU time; {', '.join(names)}: "
                     f"{command}  ({date})")
    missing = [r["name"] for r in rows if r["standing"] == "not measured"]
    if missing:
        lines.append(f"not measured yet: {', '.join(missing)} (python scripts/player_standings.py --players "
                     f"{','.join(missing)}; docs/strategies.md, \"Which player answers\")")
    return lines


@click.command("players", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON list of objects (name, what, class, vs_heuristic, speed, ...), strongest first.")
@click.option("--standings", "standings_path", type=click.Path(dir_okay=False), default=None,
              help="Read the standings from this file instead of the shipped one (dokosim/run/player_standings.json).")
def players(as_json, standings_path):
    """List the players (strategies and agents) a run can seat, strongest first: by the measured
    duplicate difference against heuristic (heuristic at 0), the players not measured yet after
    them, dd_oracle (it reads hidden cards) last; with each result's command, seed and interval
    and the measured deals per second per core. The figures come from a results file written by
    scripts/player_standings.py and scripts/bench.py --only players --record (docs/strategies.md,
    "Which player answers"), which also names the player that answers by default."""
    from pathlib import Path

    from ..run.standings import STANDINGS_FILE, StandingsError, read
    if standings_path is not None and not Path(standings_path).is_file():
        raise RunError(f"standings file {standings_path!r}: no such file")
    try:
        standings = read(standings_path)
    except StandingsError as exc:
        raise RunError(str(exc)) from None
    rows = player_rows(standings)
    if as_json:
        click.echo(json.dumps(rows))
        return
    for line in text_lines(rows, standings_path or "dokosim/run/" + STANDINGS_FILE.name):
        click.echo(line)
