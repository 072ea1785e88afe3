"""``dokosim score``: score game records (JSON Lines)."""
from __future__ import annotations

import sys

import click


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.File("r"))
def score(file):
    """Score game records (JSON Lines; '-' for stdin): one JSON result per line.

    Exit status 1 when any record was refused, 2 for bad usage.
    """
    import orjson

    from ..records import score_lines
    failed = False
    write = sys.stdout.buffer.write
    for out in score_lines(file):
        failed |= not out["ok"]
        write(orjson.dumps(out, option=orjson.OPT_APPEND_NEWLINE))
    sys.stdout.flush()
    sys.exit(1 if failed else 0)
