"""``dokosim simulate``: deal and play deals; a summary or a Parquet dataset."""
from __future__ import annotations

import json

import click

from .options import (
    CLUSTER_OPTION, CONDITION_OPTIONS, JSON_OPTION, NO_CALLS_OPTION, PARAM_OPTION, QUIET_OPTION,
    RULES_OPTION, RULE_OPTION, SCHEDULER_OPTION, SEED_OPTION, STRATEGY_PATH_OPTION, THREADS_OPTION,
    check_out_directory, condition_kwargs, dataset_run, deals_option, parse_params, parse_rules,
    seat_strategy_option,
)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@deals_option()
@SEED_OPTION
@RULES_OPTION
@RULE_OPTION
@seat_strategy_option("random")
@STRATEGY_PATH_OPTION
@PARAM_OPTION
@THREADS_OPTION
@click.option("--chunk-size", type=click.IntRange(min=1), default=250_000, show_default=True)
@click.option("--out", type=click.Path(), default=None, help="Write a Parquet dataset to this directory.")
@click.option("--dealer", type=click.IntRange(0, 3), default=None, help="Fix the dealer (default deal_id mod 4).")
@click.option("--contract", default=None, help="Force a contract: normal, marriage or <kind>_solo.")
@click.option("--declarer", type=click.IntRange(0, 3), default=0, show_default=True,
              help="Seat that declares a forced solo.")
@click.option("--compulsory", is_flag=True, help="A forced solo is compulsory (the soloist leads).")
@NO_CALLS_OPTION
@click.option("--keep-play", is_flag=True, help="Add each deal's game record to the dataset.")
@CONDITION_OPTIONS
@JSON_OPTION
@QUIET_OPTION
@SCHEDULER_OPTION
@CLUSTER_OPTION
def simulate(deals, seed, rules_spec, rule_overrides, strategy, strategy_path, param_items, threads,
             chunk_size, out, dealer, contract, declarer, compulsory, no_calls, keep_play, hand_items, where,
             where_path, as_json, quiet, scheduler, cluster):
    """Deal and play DEALS deals; print a summary or write a dataset (--out)."""
    from ..run.simulate import FORCEABLE, simulate as run, summary
    from ..loop.registry import register_path
    rules = parse_rules(rules_spec, rule_overrides)
    if contract is not None and contract not in FORCEABLE:
        raise click.BadParameter(f"{contract!r}; valid: {', '.join(FORCEABLE)}", param_hint="--contract")
    if out is not None and "://" not in out:  # a file:// URL for Dask is checked by the run itself
        check_out_directory(out)
    with dataset_run(out):
        for spec in strategy_path:
            register_path(spec)
        result = run(deals, seed, rules, strategy, out=out, threads=threads, chunk_size=chunk_size,
                     params=parse_params(param_items), dealer=dealer, contract=contract,
                     declarer=declarer, compulsory=compulsory, calls=not no_calls,
                     keep_play=keep_play, quiet=quiet, scheduler=scheduler, cluster=cluster,
                     **condition_kwargs(hand_items, where, where_path))
    if out is not None:
        click.echo(f"wrote {deals} deals to {result}", err=True)
        return
    rules_text = ", ".join([rules_spec, *rule_overrides])
    info = summary(result, seed=seed, rules=rules_text)
    if as_json:
        click.echo(json.dumps(info))
        return
    for line in summary_lines(info):
        click.echo(line)


def _pct(p, ci) -> str:
    return f"{100 * p:.1f}% [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci is not None else f"{100 * p:.1f}%"


def _mean(m, ci) -> str:
    if m is None:
        return "n/a"
    return f"{m:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]" if ci is not None else f"{m:.2f}"


def seats_text(strategies) -> str:
    """``heuristic at every seat`` or ``seats 0-3: a, b, c, d``."""
    if len(set(strategies)) == 1:
        return f"{strategies[0]} at every seat"
    return "seats 0-3: " + ", ".join(str(s) for s in strategies)


def summary_lines(info: dict) -> list[str]:
    """The printed summary of ``run.simulate.summary``: what was played (deals, seed, rules,
    strategies), then Re's win rate, the solos and each contract, with 95% intervals."""
    n = info["deals"]
    lines = [f"{n:,} deals, seed {info['seed']}, rules {info['rules']}; {seats_text(info['strategies'])} "
             f"(95% intervals in brackets)"]
    if not n:
        return lines
    lines.append(f"Re wins {_pct(info['re_win_rate'], info['re_win_rate_ci'])}; mean game value "
                 f"{_mean(info['mean_game_value'], info['mean_game_value_ci'])}")
    solos = info["solos"]
    solo_line = f"declared solos: {_pct(solos['share'], solos['share_ci'])} of deals"
    if solos["deals"]:
        solo_line += f", won by the soloist in {_pct(solos['soloist_win_rate'], solos['soloist_win_rate_ci'])}"
    lines.append(solo_line)
    lines.append(f"{'contract':16} {'deals':>10}  {'share':<20} {'Re wins':<20} {'mean game value'}")
    for name, c in info["contracts"].items():
        lines.append(f"{name:16} {c['deals']:10,}  {_pct(c['share'], c['share_ci']):<20} "
                     f"{_pct(c['re_win_rate'], c['re_win_rate_ci']):<20} "
                     f"{_mean(c['mean_game_value'], c['mean_game_value_ci'])}")
    return lines
