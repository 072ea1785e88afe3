"""``dokosim show``: one deal of a records file or of a dataset, rendered as text."""
from __future__ import annotations

import json
from pathlib import Path

import click

from ..rules import RulesError
from .options import UsageError


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
        record = file_record(path, line)
    from ..records import RecordError
    try:
        click.echo(render(record))
    except (RecordError, RulesError) as exc:
        raise UsageError(f"cannot show this record: {exc}") from None


def file_record(path: Path, line: int):
    """The record on line ``line`` of a JSON Lines file, lines split at '\\n' only and
    numbered as ``dokosim score`` numbers them (an oracle line's ``record``)."""
    from ..records import RecordError, is_blank_line, json_line
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if lines and not lines[-1]:
        lines.pop()  # the newline that ends the last line starts no line of its own
    if line > len(lines) or is_blank_line(lines[line - 1]):
        raise UsageError(f"--line {line}: {path} has no record there ({len(lines)} lines)")
    try:
        record = json_line(lines[line - 1])
    except RecordError as exc:
        raise UsageError(f"--line {line}: {exc}") from None
    if isinstance(record, dict) and "record" in record and "hands" not in record:
        record = record["record"]  # an oracle line {"record": ..., "expect": ...}
    return record


def dataset_record(directory: Path, deal_id: int) -> dict:
    """The game record of deal ``deal_id`` of the dataset ``directory``: its ``record`` column
    when the dataset kept the play, else the deal replayed with the manifest's settings."""
    import polars as pl

    from ..dataset import read_manifest, scan
    try:
        manifest = read_manifest(directory)
    except FileNotFoundError:
        raise UsageError(f"{directory} is not a dokosim dataset (no manifest.json)") from None
    if deal_id >= manifest["deals"]:
        raise UsageError(f"--deal-id {deal_id} is not in {directory} (deals 0 to {manifest['deals'] - 1})")
    if manifest.get("keep_play"):
        rows = scan(directory).filter(pl.col("deal_id") == deal_id).select("record").collect()
        if rows.height:
            return json.loads(rows["record"][0])
    # replay (seed, deal_id) with the manifest's settings
    from ..records import record_from_row
    from ..simulate import Simulator, make_plan
    params = {seat: p for seat, p in enumerate(manifest["params"])}
    plan = make_plan(manifest["deals"], manifest["seed"], manifest["rules"], manifest["strategies"],
                     params, manifest["dealer"], manifest["contract"], manifest["declarer"] or 0,
                     manifest["compulsory"], manifest["calls"], True,
                     fixed_hand=tuple(manifest["fixed_hand"]) if manifest.get("fixed_hand") else None)
    out, plays, calls = Simulator(plan).rows(deal_id, 1)
    return record_from_row(out[0], plays[0], calls[0], plan.rules, plan.compulsory)
