"""``dokosim rules``: the rules presets and options (named rules_cmd, not rules, so that it is
not mistaken for the library's dokosim.rules)."""
from __future__ import annotations

import click

from ..rules import OPTION_HELP, PRESETS


@click.command("rules", context_settings={"help_option_names": ["-h", "--help"]})
def rules_cmd():
    """List the rules presets and options, and where the rules text (RULES.md) and the record
    format (GAME_RECORD.md) are in this install."""
    from ..rules import PRESET_HELP
    from ..spec import GAME_RECORD_FILE, RULES_FILE
    click.echo("presets:")
    for name in PRESETS:
        click.echo(f"  {name:18} {PRESET_HELP[name]}")
    click.echo("options (RULES.md part 2):")
    for name, text in OPTION_HELP.items():
        click.echo(f"  {name:18} {text}")
    click.echo(f"the rules:         {RULES_FILE}")
    click.echo(f"the record format: {GAME_RECORD_FILE}")
