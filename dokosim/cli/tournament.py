"""``dokosim tournament``: duplicate play of 2 or 4 strategies."""
from __future__ import annotations


import click

from ..validation import MAX_DEALS
from .options import (
    CLUSTER_OPTION, CONDITION_OPTIONS, QUIET_OPTION, RULES_OPTION, RULE_OPTION, SCHEDULER_OPTION,
    SEED_OPTION, STRATEGY_PATH_OPTION, THREADS_OPTION, check_out_directory, check_out_file, condition_kwargs,
    parse_params, parse_rules, resumable, UsageError,
)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("strategies", nargs=-1, required=True)
@click.option("--deals", type=click.IntRange(2, MAX_DEALS), default=10_000, show_default=True,
              help="Deals; each is played in every seating.")
@SEED_OPTION
@RULES_OPTION
@RULE_OPTION
@click.option("--param", "param_items", multiple=True,
              help="Strategy parameter NAME:PARAM=VALUE; NAME a strategy, a report name (simple#2) or '*'.")
@STRATEGY_PATH_OPTION
@THREADS_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the results as one JSON object.")
@click.option("--out", type=click.Path(), default=None,
              help="Write a Parquet dataset (one row per deal and seating) to this directory (new, or this tournament's own to resume).")
@click.option("--chart", "chart_path", type=click.Path(dir_okay=False), default=None,
              help="Save a PNG of the means with 95% error bars.")
@click.option("--allow-cheating", is_flag=True,
              help="Allow strategies that read the other players' cards (dd_oracle); the report marks them.")
@CONDITION_OPTIONS
@QUIET_OPTION
@SCHEDULER_OPTION
@CLUSTER_OPTION
def tournament(strategies, deals, seed, rules_spec, rule_overrides, param_items, strategy_path, threads,
               as_json, out, chart_path, allow_cheating, hand_items, where, where_path, quiet, scheduler,
               cluster):
    """Duplicate tournament of STRATEGIES (2 or 4 names): the same deals in every seating.

    Two strategies play every deal in the 6 seatings that give each two seats;
    four play it in all 24 orders at the table. Reports each strategy's
    mean score per deal and seat and every pairwise difference, with 95%
    intervals over deals.
    """
    from ..run.simulate import SimulationError
    from ..loop.registry import StrategyError, register_path
    from ..run.tournament import TournamentError, chart, table, tournament as run

    if len(strategies) not in (2, 4):
        raise UsageError(f"give 2 or 4 strategies, got {len(strategies)}: {' '.join(strategies)}")
    if chart_path is not None and not chart_path.lower().endswith(".png"):
        raise click.BadParameter(f"{chart_path!r} must end in .png", param_hint="--chart")
    check_out_directory(out)
    check_out_file(chart_path, "--chart", "tournament")  # the owner is tournament.CHART_OWNER
    rules = parse_rules(rules_spec, rule_overrides)
    try:
        from ..game.agents import AgentError, register_agent_path
        for spec in strategy_path:
            if register_agent_path(spec) is None:  # not a Python agent: a numba strategy module
                register_path(spec)
        with resumable(out):  # Ctrl-C: how to resume, exit 130
            result = run(list(strategies), deals, seed, rules, params=parse_params(param_items),
                         threads=threads, quiet=quiet, out=out, scheduler=scheduler, cluster=cluster,
                         allow_cheating=allow_cheating, **condition_kwargs(hand_items, where, where_path))
    except AgentError as exc:  # a Python agent that fails: a bad plug-in, named with its place (exit 2)
        raise UsageError(str(exc)) from None
    except (TournamentError, SimulationError, StrategyError) as exc:
        raise UsageError(str(exc)) from None
    if chart_path is not None:
        chart(result, chart_path)
    if as_json:
        click.echo(result.to_json())
    else:
        click.echo(table(result))
    if out is not None:
        click.echo(f"wrote {deals} deals x {len(result.seatings)} seatings to {out}", err=True)
    if chart_path is not None:
        click.echo(f"wrote {chart_path}", err=True)
