"""``dokosim probe-calls``: the simulator's call probes (docs/simulate.md, "Call probes")."""
from __future__ import annotations

import json

import click

from ..run.outputs import PROBES_OWNER
from .options import (
    CONDITION_OPTIONS, JSON_OPTION, PARAM_OPTION, QUIET_OPTION, RULES_OPTION, RULE_OPTION, SEED_OPTION,
    THREADS_OPTION, check_out_file, condition_kwargs, deals_option, parse_params, parse_rules, resumable,
    seat_strategy_option, UsageError,
)


@click.command("probe-calls", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--level", default="re", show_default=True,
              help="The call probed: re (Re or Kontra), no90, no60, no30, schwarz, or 1-5.")
@deals_option()
@SEED_OPTION
@RULES_OPTION
@RULE_OPTION
@seat_strategy_option("heuristic")
@PARAM_OPTION
@THREADS_OPTION
@click.option("--chunk-size", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Deals per chunk (with --out: the unit of work an interruption can lose).")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Write the probes to this Parquet file.")
@CONDITION_OPTIONS
@JSON_OPTION
@QUIET_OPTION
def probe_calls(level, deals, seed, rules_spec, rule_overrides, strategy, param_items, threads, chunk_size, out,
                hand_items, where, where_path, as_json, quiet):
    """Play DEALS normal deals to a call opportunity of LEVEL and on both ways (with and without
    the call, same random stream); print the mean gain or write the probes (--out)."""
    from ..run.call_probe import LEVEL_NAMES, parse_level, probe_calls as run
    from ..run.simulate import SimulationError
    rules = parse_rules(rules_spec, rule_overrides)
    try:
        lv = parse_level(int(level) if level.isdigit() else level)
    except SimulationError as exc:
        raise click.BadParameter(str(exc), param_hint="--level") from None
    check_out_file(out, "--out", PROBES_OWNER)
    from ..run.call_probe import parts_directory
    try:
        with resumable(None if out is None else parts_directory(out)):  # Ctrl-C: how to resume, exit 130
            result = run(deals, lv, seed, rules, strategy, params=parse_params(param_items), threads=threads,
                         quiet=quiet, out=out, chunk_size=chunk_size,
                         **condition_kwargs(hand_items, where, where_path))
    except ValueError as exc:  # SimulationError, StrategyError, another run's FILE.parts
        raise UsageError(str(exc)) from None
    if out is not None:
        import pyarrow.parquet as pq
        click.echo(f"wrote {pq.read_metadata(result).num_rows} probes of {deals} deals to {out}", err=True)
        return
    frame = result
    info = summary(frame, deals, LEVEL_NAMES[lv])
    if as_json:
        click.echo(json.dumps(info))
        return
    if not info["probes"]:
        click.echo(f"{deals} deals: no {info['level']} opportunity probed")
        return
    click.echo(f"{deals} deals, {info['probes']} probes of {info['level']}: mean gain of calling "
               f"{info['mean_gain']:+.3f} [{info['mean_gain_ci95'][0]:+.3f}, {info['mean_gain_ci95'][1]:+.3f}] "
               f"points for the caller; made good {info['made_good_with']:.4f} with the call, "
               f"{info['made_good_without']:.4f} without")


def summary(frame, deals: int, level: str) -> dict:
    """Probes, the caller's mean gain (95% normal interval) and the made-good rates."""
    import math
    n = frame.height
    info = {"deals": deals, "level": level, "probes": n}
    if not n:
        return info
    gain = (frame["score_with"] - frame["score_without"]).cast(float)
    mean = float(gain.mean())
    half = 1.959964 * float(gain.std() or 0.0) / math.sqrt(n) if n > 1 else float("nan")
    info.update({"mean_gain": mean, "mean_gain_ci95": [mean - half, mean + half],
                 "made_good_with": float(frame["success_with"].cast(float).mean()),
                 "made_good_without": float(frame["success_without"].cast(float).mean())})
    return info
