"""``dokosim advise``: rate the reservations of one hand by simulation.

A thin wrapper around ``dokosim.studies.advise`` (see docs/studies.md).
"""
from __future__ import annotations

import json

import click

from ..run.players import STRONGEST_FAST

from .options import (
    RULES_OPTION, RULE_OPTION, SEED_OPTION, WHERE_OPTION, WHERE_PATH_OPTION, condition_kwargs, parse_rules,
    UsageError,
)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--hand", "hand_items", required=True, multiple=True,
              help='The 12 cards, e.g. "QC QS TH JD AD ..." (10 with no_nines); again as SEAT="CARDS" for '
                   'cards another seat holds at least.')
@click.option("--seat", type=click.IntRange(0, 3), default=0, show_default=True, help="Your seat.")
@click.option("--dealer", type=click.IntRange(0, 3), default=3, show_default=True,
              help="The dealer's seat; the dealer's left leads (default: you, at seat 0).")
@RULES_OPTION
@RULE_OPTION
@click.option("--strategy", default=STRONGEST_FAST, show_default=True,
              help="Strategy of every seat (your play, your partner's and the opponents'); the default is "
                   "the winner of the fast players' round robin (docs/strategies.md).")
@click.option("--deals", type=click.IntRange(min=10), default=4000, show_default=True,
              help="Simulated deals per option.")
@SEED_OPTION
@WHERE_OPTION
@WHERE_PATH_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def advise(hand_items, seat, dealer, rules_spec, rule_overrides, strategy, deals, seed, where, where_path,
           as_json):
    """Win chance and expected score of every reservation HAND may make.

    The other 36 cards are dealt at random (seed, deal_id) and every deal is
    played out by STRATEGY at all four seats; 95% intervals over the deals.
    """
    rules = parse_rules(rules_spec, rule_overrides)
    own = [h for h in hand_items if "=" not in h]
    if len(own) != 1:
        raise click.BadParameter(f"give your own hand once, as --hand \"CARDS\" (got {len(own)}); other seats "
                                 "as --hand SEAT=\"CARDS\"", param_hint="--hand")
    hand = own[0]
    conditions = condition_kwargs(tuple(h for h in hand_items if "=" in h), where, where_path)
    from ..studies import StudyError
    from ..studies import advise as adv
    try:
        mask = adv.parse_hand(hand, rules)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--hand") from None
    try:
        result = adv.advise(mask, seat=seat, dealer=dealer, rules=rules, strategy=strategy,
                            deals=deals, seed=seed, **conditions)
    except StudyError as exc:
        raise UsageError(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(adv.render(result))
