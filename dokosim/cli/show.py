"""``dokosim show``: one deal of a records file or of a dataset, rendered as text."""
from __future__ import annotations

import json
from pathlib import Path

import click

from ..rules import RulesError
from .options import RunError, UsageError


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("source", type=click.Path(exists=True))
@click.option("--line", "line", type=click.IntRange(min=1), help="Line of a JSON Lines file of records.")
@click.option("--deal-id", "deal_id", type=click.IntRange(min=0), help="Deal of a dataset directory.")
def show(source, line, deal_id):
    """Show one deal: hands, tricks, calls and the score."""
    from ..show import render
    path = Path(source)
    if path.is_dir():
        if deal_id is None:
            raise UsageError("a dataset directory needs --deal-id N")
        record = dataset_record(path, deal_id)
    else:
        if line is None:
            raise UsageError("a records file needs --line N")
        try:
            lines = path.read_text().splitlines()
        except UnicodeDecodeError as exc:
            raise UsageError(f"{source} is not a text file of JSON records ({exc.reason}: byte "
                             f"0x{exc.object[exc.start]:02x} at offset {exc.start})") from None
        if line > len(lines) or not lines[line - 1].strip():
            raise UsageError(f"--line {line}: {source} has no record there ({len(lines)} lines)")
        try:
            record = json.loads(lines[line - 1])
        except json.JSONDecodeError as exc:
            raise UsageError(f"--line {line} is not JSON: {exc}") from None
        if isinstance(record, dict) and "record" in record and "hands" not in record:
            record = record["record"]  # an oracle line {"record": ..., "expect": ...}
    from ..records import RecordError
    try:
        click.echo(render(record))
    except (RecordError, RulesError) as exc:
        raise UsageError(f"cannot show this record: {exc}") from None


def dataset_record(directory: Path, deal_id: int) -> dict:
    """The game record of deal ``deal_id`` of the dataset ``directory``: its ``record`` column
    when the dataset kept the play, else the deal replayed with the manifest's settings."""
    import polars as pl

    from ..dataset import DatasetError, read_manifest, scan
    try:
        manifest = read_manifest(directory)
    except DatasetError as exc:
        raise UsageError(str(exc)) from None
    if manifest.get("kind") == "sessions":
        raise UsageError(f"{directory} is a session dataset; show --deal-id replays the deals of a "
                         "simulate dataset (read a session's rows with dokosim.dataset.scan)")
    missing = [k for k in ("deals", "seed", "rules", "strategies", "params", "dealer", "contract",
                           "declarer", "compulsory", "calls") if k not in manifest]
    if missing or not isinstance(manifest["deals"], int):
        raise UsageError(f"{directory / 'manifest.json'} is damaged, not a dokosim manifest "
                         f"({'no ' + repr(missing[0]) if missing else 'deals is not a number'})")
    if deal_id >= manifest["deals"]:
        raise UsageError(f"--deal-id {deal_id} is not in {directory} (deals 0 to {manifest['deals'] - 1})")
    if manifest.get("keep_play"):
        try:
            rows = scan(directory).filter(pl.col("deal_id") == deal_id).select("record").collect()
        except (OSError, pl.exceptions.PolarsError) as exc:
            from ..outputs import reason
            raise RunError(f"cannot read the dataset {directory}: {reason(exc)} (a damaged chunk is "
                           "played again by running the command that made it once more)") from None
        if rows.height:
            return json.loads(rows["record"][0])
    # replay (seed, deal_id) with the manifest's settings
    from ..records import record_from_row
    from ..simulate import Simulator, make_plan
    try:
        params = {seat: p for seat, p in enumerate(manifest["params"])}
        plan = make_plan(manifest["deals"], manifest["seed"], manifest["rules"], manifest["strategies"],
                         params, manifest["dealer"], manifest["contract"], manifest["declarer"] or 0,
                         manifest["compulsory"], manifest["calls"], True,
                         fixed_hand=tuple(manifest["fixed_hand"]) if manifest.get("fixed_hand") else None)
    except (ValueError, TypeError, AttributeError) as exc:  # settings of the wrong type or value
        raise UsageError(f"{directory / 'manifest.json'} is damaged, not a dokosim manifest ({exc})") from None
    out, plays, calls = Simulator(plan).rows(deal_id, 1)
    return record_from_row(out[0], plays[0], calls[0], plan.rules, plan.compulsory)
