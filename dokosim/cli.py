"""The ``dokosim`` command line (click)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .rules import OPTION_HELP, PRESETS, RulesError, load_rules


class UsageError(click.UsageError):
    """Bad usage: one line, exit code 2."""


def _rules(spec: str, overrides: tuple[str, ...]):
    try:
        return load_rules(spec, overrides)
    except RulesError as exc:
        raise click.BadParameter(str(exc), param_hint="--rules/--rule") from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="dokosim")
def main():
    """dokosim: Doppelkopf by the million (DDV rules, strategies, datasets, studies)."""


@main.command()
@click.argument("file", type=click.File("r"))
def score(file):
    """Score game records (JSON Lines; '-' for stdin): one JSON result per line.

    Exit status 1 when any record was refused, 2 for bad usage.
    """
    import orjson

    from .records import score_lines
    failed = False
    write = sys.stdout.buffer.write
    for out in score_lines(file):
        failed |= not out["ok"]
        write(orjson.dumps(out, option=orjson.OPT_APPEND_NEWLINE))
    sys.stdout.flush()
    sys.exit(1 if failed else 0)


@main.command()
@click.argument("source", type=click.Path(exists=True))
@click.option("--line", "line", type=click.IntRange(min=1), help="Line of a JSON Lines file of records.")
@click.option("--deal-id", "deal_id", type=click.IntRange(min=0), help="Deal of a dataset directory.")
def show(source, line, deal_id):
    """Show one deal: hands, tricks, calls and the score."""
    from .show import render
    path = Path(source)
    if path.is_dir():
        if deal_id is None:
            raise UsageError("a dataset directory needs --deal-id N")
        record = _dataset_record(path, deal_id)
    else:
        if line is None:
            raise UsageError("a records file needs --line N")
        lines = path.read_text().splitlines()
        if line > len(lines) or not lines[line - 1].strip():
            raise UsageError(f"--line {line}: {source} has no record there ({len(lines)} lines)")
        try:
            record = json.loads(lines[line - 1])
        except json.JSONDecodeError as exc:
            raise UsageError(f"--line {line} is not JSON: {exc}") from None
        if isinstance(record, dict) and "record" in record and "hands" not in record:
            record = record["record"]  # an oracle line {"record": ..., "expect": ...}
    from .records import RecordError
    try:
        click.echo(render(record))
    except (RecordError, RulesError) as exc:
        raise UsageError(f"cannot show this record: {exc}") from None


def _dataset_record(directory: Path, deal_id: int) -> dict:
    import polars as pl

    from .dataset import read_manifest, scan
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
    from .records import record_from_row
    from .simulate import Simulator, make_plan
    params = {seat: p for seat, p in enumerate(manifest["params"])}
    plan = make_plan(manifest["deals"], manifest["seed"], manifest["rules"], manifest["strategies"],
                     params, manifest["dealer"], manifest["contract"], manifest["declarer"] or 0,
                     manifest["compulsory"], manifest["calls"], True,
                     fixed_hand=tuple(manifest["fixed_hand"]) if manifest.get("fixed_hand") else None)
    out, plays, calls = Simulator(plan).rows(deal_id, 1)
    return record_from_row(out[0], plays[0], calls[0], plan.rules, plan.compulsory)


def _params_file(path: str) -> dict:
    """Strategy parameters from a TOML file: a table per seat number, strategy name or "*".

        ["*"]
        call_win = 0.7
        [heuristic]
        solo_win = 0.55
        [2]
        deny_win = 0.9
    """
    import tomllib
    try:
        data = tomllib.loads(Path(path).read_text())
    except OSError as exc:
        raise click.BadParameter(f"cannot read {path!r}: {exc.strerror}", param_hint="--param") from None
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
            who = int(target) if target.isdigit() else target
            params.setdefault(who, {})[key] = float(value)
    return params


def _parse_params(items: tuple[str, ...]) -> dict:
    """--param items, each SEAT:NAME=VALUE, STRATEGY:NAME=VALUE or a TOML file (later items win)."""
    params: dict = {}
    for item in items:
        if item.endswith(".toml") and "=" not in item:
            for who, table in _params_file(item).items():
                params.setdefault(who, {}).update(table)
            continue
        target, colon, rest = item.partition(":")
        key, eq, value = rest.partition("=")
        if not colon or not eq:
            raise click.BadParameter(f"{item!r} must be SEAT:NAME=VALUE, STRATEGY:NAME=VALUE or FILE.toml",
                                     param_hint="--param")
        try:
            number = float(value)
        except ValueError:
            raise click.BadParameter(f"{item!r}: {value!r} is not a number", param_hint="--param") from None
        who = int(target) if target.isdigit() else target
        params.setdefault(who, {})[key] = number
    return params


@main.command()
@click.option("--deals", type=click.IntRange(min=0), default=100_000, show_default=True, help="Number of deals.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option("--rules", "rules_spec", default="ddv", show_default=True, help="Preset name or a TOML file.")
@click.option("--rule", "rule_overrides", multiple=True, help="KEY=VALUE rules override (repeatable).")
@click.option("--strategy", default="random", show_default=True,
              help="One strategy for all seats, or four comma-separated names.")
@click.option("--strategy-path", multiple=True, help="Register a strategy module as module[:name].")
@click.option("--param", "param_items", multiple=True,
              help="Strategy parameter SEAT:NAME=VALUE or STRATEGY:NAME=VALUE, or a FILE.toml of them.")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="Threads (default: all cores).")
@click.option("--chunk-size", type=click.IntRange(min=1), default=250_000, show_default=True)
@click.option("--out", type=click.Path(), default=None, help="Write a Parquet dataset to this directory.")
@click.option("--dealer", type=click.IntRange(0, 3), default=None, help="Fix the dealer (default deal_id mod 4).")
@click.option("--contract", default=None, help="Force a contract: normal, marriage or <kind>_solo.")
@click.option("--declarer", type=click.IntRange(0, 3), default=0, show_default=True,
              help="Seat that declares a forced solo.")
@click.option("--compulsory", is_flag=True, help="A forced solo is compulsory (the soloist leads).")
@click.option("--no-calls", is_flag=True, help="No announcements.")
@click.option("--keep-play", is_flag=True, help="Add each deal's game record to the dataset.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--scheduler", default=None, help="Run on a dask.distributed scheduler at this address.")
@click.option("--cluster", default=None, help="Run on a local Dask cluster: local:N (N worker processes).")
def simulate(deals, seed, rules_spec, rule_overrides, strategy, strategy_path, param_items, threads,
             chunk_size, out, dealer, contract, declarer, compulsory, no_calls, keep_play, as_json, quiet,
             scheduler, cluster):
    """Deal and play DEALS deals; print a summary or write a dataset (--out)."""
    from .simulate import FORCEABLE, SimulationError, simulate as run, summary
    from .strategies.registry import StrategyError, register_path
    rules = _rules(rules_spec, rule_overrides)
    if contract is not None and contract not in FORCEABLE:
        raise click.BadParameter(f"{contract!r}; valid: {', '.join(FORCEABLE)}", param_hint="--contract")
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise click.BadParameter(f"{out!r} is a file; give a directory", param_hint="--out")
    try:
        for spec in strategy_path:
            register_path(spec)
        result = run(deals, seed, rules, strategy, out=out, threads=threads, chunk_size=chunk_size,
                     params=_parse_params(param_items), dealer=dealer, contract=contract,
                     declarer=declarer, compulsory=compulsory, calls=not no_calls,
                     keep_play=keep_play, quiet=quiet, scheduler=scheduler, cluster=cluster)
    except (SimulationError, StrategyError) as exc:
        raise UsageError(str(exc)) from None
    except ValueError as exc:  # a dataset made by another command, etc.
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        if out is not None:
            click.echo(f"interrupted: {out} holds the chunks finished so far; run the same command "
                       "again to resume", err=True)
        sys.exit(130)
    if out is not None:
        click.echo(f"wrote {deals} deals to {result}", err=True)
        return
    info = summary(result)
    if as_json:
        click.echo(json.dumps(info))
        return
    click.echo(f"{info['deals']} deals; Re wins {info['re_win_rate']:.4f}; mean game value "
               f"{info['mean_game_value']:.3f}")
    click.echo(f"{'contract':16} {'deals':>9} {'share':>7} {'Re wins':>8} {'mean value':>10}")
    for name, c in info["contracts"].items():
        click.echo(f"{name:16} {c['deals']:9d} {c['share']:7.4f} {c['re_win_rate']:8.4f} "
                   f"{c['mean_game_value']:10.3f}")


@main.command("rules")
def rules_cmd():
    """List the rules presets and options."""
    from .rules import PRESET_HELP
    click.echo("presets:")
    for name in PRESETS:
        click.echo(f"  {name:18} {PRESET_HELP[name]}")
    click.echo("options (RULES.md part 2):")
    for name, text in OPTION_HELP.items():
        click.echo(f"  {name:18} {text}")


def _register_subcommands():
    from .cli_tournament import tournament
    main.add_command(tournament)
    from .cli_session import session
    main.add_command(session)
    from .cli_probe import probe_calls
    main.add_command(probe_calls)
    __import__("dokosim.cli_study", fromlist=["register"]).register(main)


_register_subcommands()

if __name__ == "__main__":
    main()
