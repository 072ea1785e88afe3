"""``dokosim session``: whole tournament rounds with compulsory solos, bock and five players."""
from __future__ import annotations

import json

import click

from ..validation import MAX_ROUNDS
from .options import (
    CONDITION_OPTIONS, JSON_OPTION, NO_CALLS_OPTION, QUIET_OPTION, RULES_OPTION, SEED_OPTION,
    STRATEGY_PATH_OPTION, THREADS_OPTION, check_out_directory, condition_kwargs, dataset_run, parse_params,
    UsageError,
)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--rounds", type=click.IntRange(1, MAX_ROUNDS), default=10_000, show_default=True,
              help="Sessions (tournament rounds) to play; session ids 0..R-1.")
@click.option("--deals", type=click.IntRange(1, 64), default=None,
              help="Deals per session (default 24, 30 with five players).")
@SEED_OPTION
@RULES_OPTION
@click.option("--rule", "rule_overrides", multiple=True,
              help="KEY=VALUE rules override (repeatable), e.g. bock=['tie','lost_solo'] or five_players=true.")
@click.option("--strategy", default="random", show_default=True,
              help="One strategy for everybody, or one per player (comma-separated).")
@STRATEGY_PATH_OPTION
@click.option("--param", "param_items", multiple=True, help="Strategy parameter PLAYER:NAME=VALUE.")
@click.option("--no-compulsory", is_flag=True, help="No compulsory solos (plain sequences of deals).")
@NO_CALLS_OPTION
@THREADS_OPTION
@click.option("--chunk-size", type=click.IntRange(min=1), default=20_000, show_default=True,
              help="Sessions per chunk (and per Parquet file).")
@click.option("--out", type=click.Path(), default=None, help="Write a Parquet dataset to this directory.")
@click.option("--keep-play", is_flag=True,
              help="Add each deal's game record to the dataset (column 'record'; needs --out).")
@CONDITION_OPTIONS
@JSON_OPTION
@QUIET_OPTION
def session(rounds, deals, seed, rules_spec, rule_overrides, strategy, strategy_path, param_items,
            no_compulsory, no_calls, threads, chunk_size, out, keep_play, hand_items, where, where_path,
            as_json, quiet):
    """Play ROUNDS sessions: deal after deal with the dealer moving on, each player owing one
    compulsory solo, with bock rounds and five players when the rules say so (docs/sessions.md)."""
    from ..rules import RulesError, load_rules
    from ..run.session import session_summary, simulate_sessions
    from ..loop.registry import register_path

    try:
        rules = load_rules(rules_spec, rule_overrides, session=True)
    except RulesError as exc:
        raise UsageError(str(exc)) from None
    check_out_directory(out)
    if keep_play and out is None:
        raise UsageError("--keep-play keeps each deal's record in a dataset: give --out DIR")
    with dataset_run(out):
        for spec in strategy_path:
            register_path(spec)
        result = simulate_sessions(rounds, seed, rules, strategy, deals=deals,
                                   compulsory=not no_compulsory, calls=not no_calls,
                                   params=parse_params(param_items), out=out, threads=threads,
                                   chunk_size=chunk_size, quiet=quiet, keep_play=keep_play,
                                   **condition_kwargs(hand_items, where, where_path))
    if out is not None:
        click.echo(f"wrote {rounds} sessions to {result}", err=True)
        return
    players = 5 if rules.five_players else 4
    info = session_summary(result, players)
    if as_json:
        click.echo(json.dumps(info))
        return
    click.echo(f"{info['sessions']} sessions, {info['deals']} deals; compulsory solos "
               f"{info['compulsory_solos']} ({info['forced_solos']} forced); bock deals {info['bock_deals']}")
    click.echo(f"{'player':8} {'mean total':>11} {'mean per deal':>14}")
    for p in range(players):
        click.echo(f"{p:<8} {info['mean_total'][f'player_{p}']:11.3f} "
                   f"{info['mean_score_per_deal'][f'player_{p}']:14.4f}")
