"""``dokosim advise``: rate the options of one decision by simulation.

A thin wrapper around ``dokosim.studies.advise`` (a hand's reservations), ``advise_poverty`` (take
a poverty offered to the hand, or what to give when poor) and ``advise_calls`` (whether to call at
a position of a game record); see docs/studies.md.
"""
from __future__ import annotations

import json

import click

from ..run.players import STRONGEST_FAST

from .options import (
    QUIET_OPTION, RULES_OPTION, RULE_OPTION, SEED_OPTION, THREADS_OPTION, WHERE_OPTION, WHERE_PATH_OPTION,
    condition_kwargs, file_record, parse_rules, UsageError,
)

# the options each kind of question takes besides those of COMMON
MODE_OPTIONS = {
    "reservations": {"hand_items", "seat", "dealer", "rules_spec", "rule_overrides", "where", "where_path"},
    "poverty_accept": {"hand_items", "seat", "dealer", "rules_spec", "rule_overrides", "poverty_from",
                       "poverty_offer", "threads"},
    "poverty_give": {"hand_items", "seat", "dealer", "rules_spec", "rule_overrides", "poverty_give", "give", "threads"},
    "calls": {"record", "line", "at", "seat", "calls_after", "threads"},
}
COMMON = {"strategy", "deals", "seed", "as_json", "quiet"}
OPTION_NAMES = {"hand_items": "--hand", "rules_spec": "--rules", "rule_overrides": "--rule", "as_json": "--json",
                "where_path": "--where-path", "poverty_from": "--poverty-from", "poverty_offer": "--poverty-offer",
                "poverty_give": "--poverty-give", "calls_after": "--calls-after"}


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--hand", "hand_items", multiple=True,
              help='The 12 cards, e.g. "QC QS TH JD AD ..." (10 with no_nines); again as SEAT="CARDS" for '
                   'cards another seat holds at least.')
@click.option("--seat", type=click.IntRange(0, 3), default=None,
              help="Your seat (default 0; with --record: the seat to act or to play the next card).")
@click.option("--dealer", type=click.IntRange(0, 3), default=3, show_default=True,
              help="The dealer's seat; the dealer's left leads (default: you, at seat 0).")
@RULES_OPTION
@RULE_OPTION
@click.option("--poverty-from", "poverty_from", type=click.IntRange(0, 3), default=None,
              help="The seat that offers a poverty to --hand: rate taking it against refusing (needs rules "
                   "with poverty, e.g. --rules club).")
@click.option("--poverty-offer", "poverty_offer", default=None,
              help='With --poverty-from: the 3 cards passed, if known (they are passed face down).')
@click.option("--poverty-give", "poverty_give", is_flag=True,
              help="--hand declares poverty: rate which 3 cards to pass.")
@click.option("--give", "give", multiple=True,
              help='With --poverty-give: 3 cards of the hand to rate as well (repeatable), e.g. "AD 9S 9S".')
@click.option("--record", "record", type=click.Path(exists=True, dir_okay=False), default=None,
              help="A game record (GAME_RECORD.md, JSON Lines): rate the calls of --seat at its position.")
@click.option("--line", "line", type=click.IntRange(min=1), default=None,
              help="With --record: the line of the record in the file (default 1).")
@click.option("--at", "at", type=click.IntRange(min=0), default=None,
              help="With --record: the position after this many cards (and the calls made then); default: "
                   "all of the record's cards.")
@click.option("--calls-after", "calls_after", type=click.Choice(["strategy", "frozen"]), default="strategy",
              show_default=True,
              help="With --record: later calls as the strategy makes them, or frozen: your side calls nothing "
                   "more after the option.")
@click.option("--strategy", default=STRONGEST_FAST, show_default=True,
              help="Strategy of every seat (your play, your partner's and the opponents'); the default is "
                   "the winner of the fast players' round robin (docs/strategies.md).")
@click.option("--deals", type=click.IntRange(min=10), default=4000, show_default=True,
              help="Simulated deals per option.")
@SEED_OPTION
@WHERE_OPTION
@WHERE_PATH_OPTION
@THREADS_OPTION
@QUIET_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def advise(**kw):
    """Rate the options of one decision by simulation: each option is played out on the same
    sampled deals by STRATEGY at all four seats, with 95% intervals.

    \b
    --hand CARDS                     the reservations the hand may make
    --hand CARDS --poverty-from S    take the poverty seat S offers, or refuse it
    --hand CARDS --poverty-give      which 3 cards to pass when poor
    --record FILE [--at N]           whether to call Re/Kontra or a denial now
    """
    mode = _mode(kw)
    _check_options(mode, kw)
    from ..studies import StudyError
    try:
        if mode == "calls":
            result, text = _calls(kw)
        elif mode == "reservations":
            result, text = _reservations(kw)
        else:
            result, text = _poverty(mode, kw)
    except StudyError as exc:
        raise UsageError(str(exc)) from None
    click.echo(json.dumps(result) if kw["as_json"] else text)


def _mode(kw) -> str:
    if kw["record"] is not None:
        return "calls"
    if kw["poverty_from"] is not None:
        return "poverty_accept"
    if kw["poverty_give"] or kw["give"]:
        return "poverty_give"
    return "reservations"


def _given(name: str, value) -> bool:
    ctx = click.get_current_context()
    source = ctx.get_parameter_source(name)
    return source is not None and source is not click.core.ParameterSource.DEFAULT and value not in (None, (), False)


def _check_options(mode: str, kw) -> None:
    """A usage error naming the first option given that this kind of question does not take."""
    allowed = MODE_OPTIONS[mode] | COMMON
    for name, value in kw.items():
        if name not in allowed and _given(name, value):
            option = OPTION_NAMES.get(name, "--" + name.replace("_", "-"))
            what = {"calls": "--record", "poverty_accept": "--poverty-from", "poverty_give": "--poverty-give",
                    "reservations": "--hand alone (the reservations)"}[mode]
            raise UsageError(f"{option} does not go with {what}")
    if mode != "calls" and not kw["hand_items"]:
        raise UsageError("give your hand as --hand \"CARDS\", or a game record as --record FILE")


def _own_hand(kw, rules) -> int:
    own = [h for h in kw["hand_items"] if "=" not in h]
    if len(own) != 1:
        raise click.BadParameter(f"give your own hand once, as --hand \"CARDS\" (got {len(own)}); other seats "
                                 "as --hand SEAT=\"CARDS\"", param_hint="--hand")
    from ..studies import advise as adv
    try:
        return adv.parse_hand(own[0], rules)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--hand") from None


def _progress(kw):
    """A progress bar and the ``progress(done, total)`` callback that moves it."""
    from ..run.progress import progress_bar
    bar = progress_bar(kw["quiet"], total=kw["deals"], unit=" deals")

    shown = [0]  # what the bar shows (a hidden bar, run.progress.NoProgress, keeps no count of its own)

    def progress(done, total):
        bar.update(done - shown[0])
        shown[0] = done
    return bar, progress


def _reservations(kw):
    from ..studies import advise as adv
    rules = parse_rules(kw["rules_spec"], kw["rule_overrides"])
    mask = _own_hand(kw, rules)
    conditions = condition_kwargs(tuple(h for h in kw["hand_items"] if "=" in h), kw["where"], kw["where_path"])
    from ..run.progress import progress_bar
    shown = [0]  # options the bar shows (a hidden bar keeps no count of its own)

    def progress(done, total, option):
        bar.update(done - shown[0])
        shown[0] = done
    with progress_bar(kw["quiet"], total=len(adv.options(mask, rules)), unit=" options") as bar:
        result = adv.advise(mask, seat=kw["seat"] or 0, dealer=kw["dealer"], rules=rules, strategy=kw["strategy"],
                            deals=kw["deals"], seed=kw["seed"], progress=progress, **conditions)
    return result, adv.render(result)


def _poverty(mode: str, kw):
    from ..studies import advise_poverty as pov
    rules = parse_rules(kw["rules_spec"], kw["rule_overrides"])
    if any("=" in h for h in kw["hand_items"]):
        raise UsageError("--hand SEAT=\"CARDS\" (what other seats hold) goes with the reservations only")
    mask = _own_hand(kw, rules)
    seat = kw["seat"] or 0
    common = {"seat": seat, "dealer": kw["dealer"], "rules": rules, "strategy": kw["strategy"],
              "deals": kw["deals"], "seed": kw["seed"], "threads": kw["threads"]}
    bar, progress = _progress(kw)
    with bar:
        if mode == "poverty_accept":
            offered = 0
            if kw["poverty_offer"] is not None:
                try:
                    offered = pov.parse_cards(kw["poverty_offer"], rules, mask, inside=False)
                except ValueError as exc:
                    raise click.BadParameter(str(exc), param_hint="--poverty-offer") from None
            result = pov.accept_advice(mask, poor=kw["poverty_from"], offered=offered, progress=progress, **common)
        else:
            give = []
            for text in kw["give"]:
                try:
                    give.append(pov.parse_cards(text, rules, mask, inside=True))
                except ValueError as exc:
                    raise click.BadParameter(str(exc), param_hint="--give") from None
            result = pov.give_advice(mask, give=give, progress=progress, **common)
    return result, pov.render(result)


def _calls(kw):
    from pathlib import Path

    from ..studies import advise_calls as calls
    record = file_record(Path(kw["record"]), kw["line"] or 1)
    game = calls.record_position(record, kw["at"])
    bar, progress = _progress(kw)
    with bar:
        result = calls.call_advice(game, seat=kw["seat"], strategy=kw["strategy"], deals=kw["deals"],
                                   seed=kw["seed"], calls_after=kw["calls_after"], threads=kw["threads"],
                                   progress=progress)
    return result, calls.render(result)
