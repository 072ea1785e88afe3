"""``dokosim show``: one deal of a records file or of a dataset, rendered as text."""
from __future__ import annotations

import json
from pathlib import Path

import sys

import click

from ..rules import RulesError
from .options import RunError, UsageError, file_record


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("source", type=click.Path(exists=True))
@click.option("--line", "line", type=click.IntRange(min=1), help="Line of a JSON Lines file of records.")
@click.option("--deal-id", "deal_id", type=click.IntRange(min=0), help="Deal of a dataset directory.")
@click.option("--session", "session_id", type=click.IntRange(min=0),
              help="Session of a session dataset (dokosim session --out), with --deal-number.")
@click.option("--deal-number", "deal_number", type=click.IntRange(min=0),
              help="Deal of that session (0 = its first).")
@click.option("--solve", "solve_tricks", type=click.IntRange(1, 12), default=None, is_flag=False, flag_value=6,
              help="Annotate each card of the last K tricks (default 6) with the eyes it lost against the best "
                   "card, every hand open (double dummy; more than 7 tricks can take minutes).")
def show(source, line, deal_id, session_id, deal_number, solve_tricks):
    """Show one deal: hands, tricks, calls and the score."""
    from .show_text import render
    path = Path(source)
    if path.is_dir() and (session_id is not None or deal_number is not None):
        if session_id is None or deal_number is None:
            raise UsageError("a deal of a session dataset needs --session S --deal-number K")
        record = session_record(path, session_id, deal_number)
    elif path.is_dir():
        if deal_id is None:
            raise UsageError("a dataset directory needs --deal-id N")
        record = dataset_record(path, deal_id)
    else:
        if line is None:
            raise UsageError("a records file needs --line N")
        record = file_record(path, line)
    from ..records.record import RecordError, replay_detail
    try:
        click.echo(render(record, solve_tricks or 0))
        broken = bool(replay_detail(record)["error"])
    except (RecordError, RulesError) as exc:
        raise UsageError(f"cannot show this record: {exc}") from None
    if broken:  # shown up to the card that breaks a rule, the error named: not a success
        sys.exit(1)


def _resolved(directory: Path):
    """The dataset ``directory`` resolved (run/dataset_files.py: its plan as its chunks carry it
    and its chunk files); what was set aside is said on stderr. A damaged chunk: RunError (exit
    1); not a dataset: UsageError."""
    from ..run.dataset_files import DamagedDataset, resolve
    from ..run.driver import DatasetError
    try:
        found = resolve(directory)
    except DamagedDataset as exc:
        raise RunError(str(exc)) from None
    except DatasetError as exc:
        raise UsageError(str(exc)) from None
    for note in found.notes:
        click.echo(f"dokosim: {note}", err=True)
    if found.manifest.get("kind") == "train_data":
        raise UsageError(f"{directory} is training data of dokosim train data (card decisions, not deals); "
                         "show takes a dataset of dokosim simulate or dokosim session")
    return found


def _kept_record(found, condition):
    """The ``record`` of the one row of the dataset ``found`` matching ``condition``, None when
    no finished chunk holds it (the caller replays the deal); a damaged chunk: RunError naming it."""
    import polars as pl

    from ..run.dataset_files import read_error, scan_files
    if not found.files:
        return None
    try:
        rows = scan_files(found.files).filter(condition).select("record").collect()
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise RunError(str(read_error(found.files, exc))) from None
    if not rows.height:
        return None
    try:
        return json.loads(rows["record"][0])
    except (ValueError, TypeError) as exc:
        raise RunError(f"{found.directory}: the record of this deal is damaged ({exc})") from None


def dataset_record(directory: Path, deal_id: int) -> dict:
    """The game record of deal ``deal_id`` of the dataset ``directory``: its ``record`` column
    when the dataset kept the play (and a finished chunk holds it), else the deal replayed with
    the settings of the plan its chunks carry."""
    import polars as pl

    from ..run.driver import manifest_path
    found = _resolved(directory)
    manifest = found.manifest
    if manifest.get("kind") == "sessions":
        raise UsageError(f"{directory} is a session dataset: give --session S --deal-number K")
    missing = [k for k in ("deals", "seed", "rules", "strategies", "params", "dealer", "contract",
                           "declarer", "compulsory", "calls") if k not in manifest]
    if missing or not isinstance(manifest["deals"], int):
        raise UsageError(f"{manifest_path(directory)} is damaged, not a dokosim manifest "
                         f"({'no ' + repr(missing[0]) if missing else 'deals is not a number'})")
    if deal_id >= manifest["deals"]:
        raise UsageError(f"--deal-id {deal_id} is not in {directory} (deals 0 to {manifest['deals'] - 1})")
    if manifest.get("keep_play"):
        record = _kept_record(found, pl.col("deal_id") == deal_id)
        if record is not None:
            return record
    # replay (seed, deal_id) with the manifest's settings
    from ..run.conditions import manifest_conditions
    from ..records.record import record_from_row
    from ..run.simulator import Simulator, make_plan
    try:
        params = {seat: p for seat, p in enumerate(manifest["params"])}
        plan = make_plan(manifest["deals"], manifest["seed"], manifest["rules"], manifest["strategies"],
                         params, manifest["dealer"], manifest["contract"], manifest["declarer"] or 0,
                         manifest["compulsory"], manifest["calls"], True,
                         fixed_hand=tuple(manifest["fixed_hand"]) if manifest.get("fixed_hand") else None,
                         **manifest_conditions(manifest))
    except (ValueError, TypeError, AttributeError) as exc:  # settings of the wrong type or value
        raise UsageError(f"{manifest_path(directory)} is damaged, not a dokosim manifest ({exc})") from None
    out, plays, calls = Simulator(plan).rows(deal_id, 1)
    return record_from_row(out[0], plays[0], calls[0], plan.rules, plan.compulsory)


def session_record(directory: Path, session_id: int, deal_number: int) -> dict:
    """The game record of deal ``deal_number`` of session ``session_id`` of the session dataset
    ``directory``: its ``record`` column when the dataset kept the play, else the session
    replayed with the manifest's settings (its rows depend only on the seed and its id)."""
    import polars as pl

    from ..run.driver import manifest_path
    found = _resolved(directory)
    manifest = found.manifest
    if manifest.get("kind") != "sessions":
        raise UsageError(f"{directory} is not a session dataset: give --deal-id N")
    missing = [k for k in ("rounds", "deals_per_session", "seed", "rules", "strategies", "params",
                           "compulsory", "calls") if k not in manifest]
    if missing or not isinstance(manifest["rounds"], int) or not isinstance(manifest["deals_per_session"], int):
        raise UsageError(f"{manifest_path(directory)} is damaged, not a dokosim manifest "
                         f"({'no ' + repr(missing[0]) if missing else 'rounds or deals_per_session is not a number'})")
    if session_id >= manifest["rounds"]:
        raise UsageError(f"--session {session_id} is not in {directory} (sessions 0 to {manifest['rounds'] - 1})")
    if deal_number >= manifest["deals_per_session"]:
        raise UsageError(f"--deal-number {deal_number}: a session of {directory} has deals 0 to "
                         f"{manifest['deals_per_session'] - 1}")
    if manifest.get("keep_play"):
        record = _kept_record(found, (pl.col("session_id") == session_id) & (pl.col("deal_number") == deal_number))
        if record is not None:
            return record
    from ..run.conditions import manifest_conditions
    from ..records.record import session_records
    from ..run.session import SessionSimulator, make_session_plan
    try:
        plan = make_session_plan(manifest["rounds"], manifest["seed"], manifest["rules"],
                                 manifest["strategies"], dict(enumerate(manifest["params"])),
                                 manifest["deals_per_session"], manifest["compulsory"], manifest["calls"],
                                 keep_play=True, **manifest_conditions(manifest))
    except ValueError as exc:
        raise UsageError(f"cannot replay a session of {directory}: {exc}") from None
    sim = SessionSimulator(plan)
    out = sim.rows(session_id, 1)
    plays, calls = sim.logs(1)
    index = {name: i for i, name in enumerate(sim.module.SESSION_COLUMNS)}
    return json.loads(session_records(plan, out[deal_number:deal_number + 1], index, plays[deal_number:],
                                      calls[deal_number:])[0])
