"""What the ``dokosim`` commands share: the usage error, the rules and ``--param`` parsing, and
the options several commands take.

Imports only click and light library modules (dokosim.rules), never a command module: every
command module imports from here, so an import from a command would be a cycle.
"""
from __future__ import annotations

import signal
import threading
import sys
from contextlib import contextmanager
from pathlib import Path

import click

from ..rules import RulesError, load_rules


@contextmanager
def dataset_run(out):
    """Around a simulation that may write a dataset to ``out``: a bad argument (any ValueError:
    SimulationError, StrategyError, a dataset made by another command, an output path that cannot
    be written) becomes a one-line usage error; Ctrl-C says how to resume and exits 130."""
    with resumable(out):
        try:
            yield
        except ValueError as exc:
            raise UsageError(str(exc)) from None


@contextmanager
def resumable(out):
    """Around a run that may write to ``out``: Ctrl-C says how to resume and exits 130.

    The first Ctrl-C stops the run and every later one is ignored (``outputs.interrupt_once``):
    the workers are stopped, the chunk being written is finished and entered in the ledger and
    the hint is printed, whatever moment a second Ctrl-C lands on. A caller in the same process
    (a notebook, a test's CliRunner) gets its own Ctrl-C handler back; the ``dokosim`` process
    ignores Ctrl-C from then on until it has exited (``DokosimGroup.main``)."""
    from ..run.outputs import interrupt_once
    with interrupt_once():
        try:
            yield
        except KeyboardInterrupt:
            previous = None
            if threading.current_thread() is threading.main_thread():
                # ignored already after a Ctrl-C under interrupt_once; this also covers a
                # KeyboardInterrupt raised otherwise (a test's) or a caller's own handler
                previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                if out is not None:
                    click.echo(f"interrupted: {out} holds the chunks finished so far; run the same command "
                               "again to resume", err=True)
                # the run driver's writer thread finishes its chunk now, while Ctrl-C is ignored:
                # joined later, at the interpreter's exit, a second Ctrl-C there printed a traceback
                for thread in threading.enumerate():
                    if thread is not threading.current_thread() and not thread.daemon:
                        thread.join(timeout=120)
            finally:
                if previous is not None:
                    signal.signal(signal.SIGINT, previous)
            sys.exit(130)


class UsageError(click.UsageError):
    """Bad usage: one line, exit code 2."""


class RunError(click.ClickException):
    """A failure during a run (a write that failed, a file that cannot be read): one line, exit code 1."""

    exit_code = 1


def os_error_message(exc: OSError) -> str:
    """One line for an OSError: the path and the system's reason (``strerror``)."""
    from ..run.outputs import WriteFailed, reason
    if isinstance(exc, WriteFailed):
        return str(exc)
    if exc.filename is not None:
        return f"{exc.filename}: {reason(exc)}"
    return reason(exc)


def check_out_directory(out, option: str = "--out"):
    """``--out DIR`` of a dataset checked before the work (``outputs.check_directory``); a bad one
    is a usage error."""
    from ..run.outputs import OutputError, check_directory
    if out is None:
        return None
    try:
        return check_directory(out, option)
    except OutputError as exc:
        raise UsageError(str(exc)) from None


def check_out_file(path, option: str, owner: str):
    """An output file checked before the work (``outputs.check_file``: its directory exists and
    can be written, an existing file only if ``owner`` wrote it); a bad one is a usage error."""
    from ..run.outputs import OutputError, check_file
    if path is None:
        return None
    try:
        return check_file(path, option, owner)
    except OutputError as exc:
        raise UsageError(str(exc)) from None


def parse_rules(spec: str, overrides: tuple[str, ...]):
    """The Rules of ``--rules SPEC`` and the ``--rule KEY=VALUE`` overrides; a bad one is a
    usage error naming --rules/--rule."""
    try:
        return load_rules(spec, overrides)
    except RulesError as exc:
        raise click.BadParameter(str(exc), param_hint="--rules/--rule") from None


def params_file(path: str) -> dict:
    """Strategy parameters from a TOML file: a table per seat number, strategy name or "*".

        ["*"]
        call_win = 0.7
        [heuristic]
        solo_win = 0.55
        [2]
        deny_win = 0.9

    Only the file's form is checked here (tables of numbers); which seats and strategies the run
    has, the parameter names and their ranges are checked by the run (dokosim.validation), so
    a ``[7]`` table with four players is refused there, in one line.
    """
    import tomllib
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise click.BadParameter(f"cannot read {path!r}: {exc.strerror}", param_hint="--param") from None
    except UnicodeDecodeError:
        raise click.BadParameter(f"{path!r} is not a UTF-8 text file (TOML)", param_hint="--param") from None
    except tomllib.TOMLDecodeError as exc:
        raise click.BadParameter(f"{path!r} is not valid TOML: {exc}", param_hint="--param") from None
    params: dict = {}
    for target, table in data.items():
        if not isinstance(table, dict):
            raise click.BadParameter(f"{path!r}: {target} = {table!r} must be a table [{target}] of "
                                     f"NAME = number", param_hint="--param")
        for key, value in table.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise click.BadParameter(f"{path!r}: [{target}] {key} = {value!r} is not a number",
                                         param_hint="--param")
            params.setdefault(_target(target), {})[key] = float(value)
    return params


def _target(text: str):
    """A --param target: a seat number (ASCII digits) as an int, else the name as given."""
    return int(text) if text.isascii() and text.isdigit() else text


def parse_params(items: tuple[str, ...]) -> dict:
    """--param items, each SEAT:NAME=VALUE, STRATEGY:NAME=VALUE or a TOML file (later items win).

    Only the form is checked here; the run checks the seats, strategies, names and values
    (dokosim.validation) and its one-line error reaches the user as a usage error (exit 2)."""
    params: dict = {}
    for item in items:
        if item.endswith(".toml") and "=" not in item:
            for who, table in params_file(item).items():
                params.setdefault(who, {}).update(table)
            continue
        target, colon, rest = item.partition(":")
        key, eq, value = rest.partition("=")
        if not colon or not eq or not target.strip() or not key.strip():
            raise click.BadParameter(f"{item!r} must be SEAT:NAME=VALUE, STRATEGY:NAME=VALUE or FILE.toml",
                                     param_hint="--param")
        try:
            number = float(value)
        except ValueError:
            raise click.BadParameter(f"{item!r}: {value!r} is not a number", param_hint="--param") from None
        params.setdefault(_target(target.strip()), {})[key.strip()] = number
    return params


# The options several commands take with the same meaning and help text. Each is a click
# decorator (a fresh Option every time it is applied); a command whose option differs (another
# default or help text) declares its own.
SEED_OPTION = click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)


def deals_option(default: int = 100_000):
    """--deals: how many deals a run plays (1 to validation.MAX_DEALS)."""
    from ..validation import MAX_DEALS
    return click.option("--deals", type=click.IntRange(1, MAX_DEALS), default=default, show_default=True,
                        help="Number of deals.")


def seat_strategy_option(default: str):
    """--strategy: one strategy for every seat, or one per seat."""
    return click.option("--strategy", default=default, show_default=True,
                        help="One strategy for all seats, or four comma-separated names.")
RULES_OPTION = click.option("--rules", "rules_spec", default="ddv", show_default=True,
                            help="Preset name or a TOML file.")
RULE_OPTION = click.option("--rule", "rule_overrides", multiple=True,
                           help="KEY=VALUE rules override (repeatable).")
PARAM_OPTION = click.option("--param", "param_items", multiple=True,
                            help="Strategy parameter SEAT:NAME=VALUE or STRATEGY:NAME=VALUE, or a FILE.toml "
                                 "of them.")
STRATEGY_PATH_OPTION = click.option("--strategy-path", multiple=True,
                                    help="Register a strategy module as module[:name] (tournament: also a Python agent, module:Class).")
THREADS_OPTION = click.option("--threads", type=click.IntRange(min=1), default=None,
                              help="Threads (default: all cores).")
NO_CALLS_OPTION = click.option("--no-calls", is_flag=True, help="No announcements.")
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
QUIET_OPTION = click.option("--quiet", is_flag=True, help="No progress bar.")
SCHEDULER_OPTION = click.option("--scheduler", default=None,
                                help="Run on a dask.distributed scheduler at this address.")
CLUSTER_OPTION = click.option("--cluster", default=None,
                              help="Run on a local Dask cluster: local:N (N worker processes).")

# Conditions on the deal (docs/conditions.md): simulate, tournament, session, advise, probe-calls.
HAND_CONDITION_OPTION = click.option(
    "--hand", "hand_items", multiple=True,
    help='SEAT="CARDS": that seat holds at least these cards (repeatable), e.g. --hand 0="QC QC TH".')
WHERE_OPTION = click.option("--where", default=None,
                            help="Deal only deals where this holds, e.g. \"trumps(0) >= 9 and aces(1) == 0\" "
                                 "(docs/conditions.md).")
WHERE_PATH_OPTION = click.option("--where-path", default=None,
                                 help="module:function, an @njit predicate of the four hand masks; only "
                                      "deals where it is true are played.")


def CONDITION_OPTIONS(command):  # noqa: N802  (a decorator, named like the options it stacks)
    """--hand, --where and --where-path (docs/conditions.md), the options of every command that
    deals conditioned deals; their values go to the API through ``condition_kwargs``."""
    return HAND_CONDITION_OPTION(WHERE_OPTION(WHERE_PATH_OPTION(command)))


def parse_hand_items(items: tuple[str, ...], option: str = "--hand") -> dict[int, str]:
    """--hand items, each SEAT=CARDS (SEAT 0-3), into {seat: cards}; the cards themselves are
    checked by the run (dokosim.conditions), whose one-line error is a usage error."""
    hands: dict[int, str] = {}
    for item in items:
        seat, eq, cards = item.partition("=")
        seat = seat.strip()
        if not eq or not (seat.isascii() and seat.isdigit()) or int(seat) not in range(4):
            raise click.BadParameter(f"{item!r} must be SEAT=CARDS with SEAT 0-3, e.g. 0=\"QC QC TH\"",
                                     param_hint=option)
        if int(seat) in hands:
            raise click.BadParameter(f"seat {seat} is given twice; give all its cards in one {option}",
                                     param_hint=option)
        hands[int(seat)] = cards.strip().strip("\"'")
    return hands


def condition_kwargs(hand_items: tuple[str, ...], where, where_path) -> dict:
    """The conditions as the Python API takes them (hands, where, where_path), only those given."""
    kwargs: dict = {}
    if hand_items:
        kwargs["hands"] = parse_hand_items(hand_items)
    if where is not None:
        kwargs["where"] = where
    if where_path is not None:
        kwargs["where_path"] = where_path
    return kwargs


def file_record(path, line: int):
    """The record on line ``line`` of a JSON Lines file, lines split at '\\n' only and
    numbered as ``dokosim score`` numbers them (an oracle line's ``record``)."""
    from ..records.lines import LineTooLong, bounded_lines
    from ..records.record import RecordError, is_blank_line, json_line
    found, count = None, 0
    try:
        with open(path, "rb") as f:  # up to the line asked for, each line at most MAX_LINE_BYTES
            for count, text in enumerate(bounded_lines(f), start=1):
                if count == line:
                    found = text
                    break
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if isinstance(found, LineTooLong):
        raise UsageError(f"--line {line}: {found.message()}")
    if found is None or is_blank_line(found):
        raise UsageError(f"--line {line}: {path} has no record there ({count} lines)")
    try:
        record = json_line(found)
    except RecordError as exc:
        raise UsageError(f"--line {line}: {exc}") from None
    if isinstance(record, dict) and "record" in record and "hands" not in record:
        record = record["record"]  # an oracle line {"record": ..., "expect": ...}
    return record
