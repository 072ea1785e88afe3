"""``dokosim study`` and ``dokosim advise`` (registered in dokosim.cli).

Thin wrappers: the studies live in the repository's ``analysis/`` package
(dataset -> tables and charts in ``results/``), which is kept outside the
``dokosim`` package so that editing a study never invalidates the compiled
kernels. See docs/studies.md.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

REPO = Path(__file__).resolve().parents[1]


def _analysis():
    """The ``analysis`` package of this checkout (importable from any working directory)."""
    if not (REPO / "analysis" / "__init__.py").exists():
        raise click.UsageError(f"the studies need the repository checkout: {REPO / 'analysis'} is missing")
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    import analysis
    return analysis


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("name")
@click.option("--deals", type=click.IntRange(min=100), default=None,
              help="Deals per dataset (default: each study's own size, docs/studies.md).")
@click.option("--strategy", default="simple", show_default=True, help="Strategy at every seat.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option("--scheduler", default=None, help="Simulate on a dask.distributed scheduler at this address.")
@click.option("--cluster", default=None, help="Simulate on a local Dask cluster: local:N.")
@click.option("--results", "results_dir", type=click.Path(file_okay=False), default=None,
              help="Where the tables and charts go (default: results/ of the repository).")
@click.option("--quiet", is_flag=True, help="No progress messages.")
def study(name, deals, strategy, seed, scheduler, cluster, results_dir, quiet):
    """Run study NAME (solo_odds, poverty, announcements, strategies, or all): simulate, then write
    tables (Markdown, CSV) and charts (PNG) to results/NAME/."""
    a = _analysis()
    if scheduler is not None and cluster is not None:
        raise click.UsageError("give --scheduler or --cluster, not both")
    try:
        a.run_study(name, deals=deals, strategy=strategy, seed=seed, scheduler=scheduler,
                    cluster=cluster, results=results_dir, quiet=quiet)
    except a.StudyError as exc:
        raise click.UsageError(str(exc)) from None


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--hand", required=True, help='The 12 cards, e.g. "QC QS TH JD AD ..." (10 with no_nines).')
@click.option("--seat", type=click.IntRange(0, 3), default=0, show_default=True, help="Your seat.")
@click.option("--dealer", type=click.IntRange(0, 3), default=3, show_default=True, help="The dealer's seat.")
@click.option("--rules", "rules_spec", default="ddv", show_default=True, help="Preset name or a TOML file.")
@click.option("--rule", "rule_overrides", multiple=True, help="KEY=VALUE rules override (repeatable).")
@click.option("--strategy", default="simple", show_default=True, help="Strategy at every seat.")
@click.option("--deals", type=click.IntRange(min=10), default=4000, show_default=True,
              help="Simulated deals per option.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def advise(hand, seat, dealer, rules_spec, rule_overrides, strategy, deals, seed, as_json):
    """Win chance and expected score of every reservation HAND may make.

    The other 36 cards are dealt at random (seed, deal_id) and every deal is
    played out by STRATEGY at all four seats; 95% intervals over the deals.
    """
    from .cli import _rules
    rules = _rules(rules_spec, rule_overrides)
    a = _analysis()
    from analysis import advise as adv
    try:
        mask = adv.parse_hand(hand, rules)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--hand") from None
    try:
        result = adv.advise(mask, seat=seat, dealer=dealer, rules=rules, strategy=strategy,
                            deals=deals, seed=seed)
    except a.StudyError as exc:
        raise click.UsageError(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(adv.render(result))


def register(group: click.Group) -> None:
    """Add ``study`` and ``advise`` to the ``dokosim`` command group."""
    group.add_command(study)
    group.add_command(advise)
