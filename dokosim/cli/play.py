"""``dokosim play``: a deal, or several in a row, at the terminal against three bots."""
from __future__ import annotations

import sys

import click

from ..validation import MAX_DEALS
from .options import (
    NO_CALLS_OPTION, RULES_OPTION, RULE_OPTION, SEED_OPTION, parse_rules, UsageError,
)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--strategy", default="heuristic", show_default=True,
              help="The bots: one strategy for the three other seats, or three names (a,b,c) in seat order.")
@click.option("--seat", type=click.IntRange(0, 3), default=0, show_default=True, help="Your seat.")
@click.option("--deals", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="Deals in a row (the dealer moves on each time); the totals at the end.")
@SEED_OPTION
@click.option("--deal-id", type=click.IntRange(0, MAX_DEALS), default=0, show_default=True,
              help="The first deal's id: its cards are deal DEAL_ID of SEED, as dokosim simulate deals them.")
@RULES_OPTION
@RULE_OPTION
@NO_CALLS_OPTION
@click.option("--ask-calls", type=click.Choice(["mine", "always"]), default="mine", show_default=True,
              help="When to offer you a call: before each of your cards (every deadline is one), or before "
                   "every card.")
@click.option("--save", type=click.Path(dir_okay=False), default=None,
              help="Append each finished deal's game record to this new JSON Lines file "
                   "(score it with dokosim score).")
def play(strategy, seat, deals, seed, deal_id, rules_spec, rule_overrides, no_calls, ask_calls, save):
    """Play Doppelkopf at the terminal against three bots.

    Your hand is shown sorted by the contract's trump order, the legal cards marked *; type a
    card (QC, TH, 9S), a reservation (healthy, queens_solo, ...), a call (re, kontra, no90, ...)
    or pass; an empty line takes the default in brackets; '?' lists what is legal, 'h' gives a
    hint (what pimc would play, and the score it expects after each choice), 'n' at a call
    prompt passes and asks no more calls that deal, 'quit' stops. Each trick's winner and the
    tricks each seat has taken are shown, at the end the result and the score, and over several
    deals the running totals.
    """
    from ..game.agents import AgentError
    from ..game.game import GameError
    from ..loop.registry import StrategyError, resolve
    from ..game.terminal_table import Abandoned, SaveFailed, Table, TableOptions

    import signal
    # Ctrl-C ends the game even where the process was started with SIGINT ignored (a background
    # job of a non-interactive shell): Python keeps an inherited "ignore" and installs no handler
    signal.signal(signal.SIGINT, signal.default_int_handler)
    rules = parse_rules(rules_spec, rule_overrides)
    if rules.five_players or rules.bock:
        raise UsageError("dokosim play is four players without bock; drop the five_players and bock rules")
    names = [s.strip() for s in strategy.split(",")]
    if len(names) == 1:
        names *= 3
    if len(names) != 3:
        raise UsageError(f"--strategy {strategy!r}: give one strategy or three (a,b,c), not {len(names)}")
    try:
        for name in names:
            resolve(name)
    except StrategyError as exc:
        raise UsageError(str(exc)) from None
    path = _save_file(save)
    options = TableOptions(rules=rules, strategies=tuple(names), seat=seat, seed=seed, deal_id=deal_id,
                           deals=deals, save=path, calls=not no_calls,
                           ask_calls=ask_calls)
    try:
        Table(options).play()
    except Abandoned:
        click.echo("\ngame abandoned" + (f"; finished deals are in {save}" if save else ""), err=True)
        sys.exit(1)
    except (GameError, AgentError) as exc:
        raise UsageError(str(exc)) from None
    except SaveFailed as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(1)


def _save_file(save):
    """``--save``: a new file, or one that holds game records only (JSON objects with ``hands``:
    this command's earlier saves, any records file): appended to. Anything else is refused naming the file, before
    the game (a usage error)."""
    from pathlib import Path

    from ..run.outputs import OutputError, check_file
    if save is None:
        return None
    path = Path(save).expanduser()
    try:
        if not path.is_file():
            return check_file(path, "--save", "play")
        check_file(path.with_name(path.name + ".new"), "--save", "play")  # its directory: writable
    except OutputError as exc:
        raise UsageError(str(exc)) from None
    import orjson
    try:
        with open(path, "rb") as f:
            content = f.read()
    except OSError as exc:
        raise UsageError(f"--save {str(path)!r}: cannot read it: {exc.strerror or exc}") from None
    if content and not content.endswith(b"\n"):
        raise UsageError(f"--save {str(path)!r} does not end with a complete line; give a records file "
                         "or a new file name")
    for number, line in enumerate(content.split(b"\n")[:-1] if content else [], start=1):
        try:  # a records file: JSON objects with hands (a record may break a rule: score says which)
            record = orjson.loads(line) if line.strip() else {"hands": None}
        except orjson.JSONDecodeError:
            record = None
        if not isinstance(record, dict) or "hands" not in record:
            raise UsageError(f"--save {str(path)!r} line {number} is not a game record; --save appends to a "
                             "file of game records or writes a new one")
    return path
