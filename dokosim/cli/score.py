"""``dokosim score``: score game records (JSON Lines)."""
from __future__ import annotations

import os
import sys

import click


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.File("rb"))
def score(file):
    """Score game records (JSON Lines; '-' for stdin): one JSON result per line.

    The input is read as bytes and split at '\\n' only; each line is decoded on its own, so
    a line that is not UTF-8 or not JSON, or longer than 1 MiB, is an error line (bad_json)
    and the others are scored. Exit status 1 when any record was refused, 2 for bad usage.
    """
    import orjson

    from ..records.record import score_lines
    failed = False
    write = sys.stdout.buffer.write
    try:
        for out in score_lines(_read_lines(file)):
            failed |= not out["ok"]
            write(orjson.dumps(out, option=orjson.OPT_APPEND_NEWLINE))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`dokosim score f | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except _ReadError as exc:
        click.echo(f"dokosim score: cannot read {file.name}: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:
        click.echo(f"dokosim score: cannot write the output: {exc.strerror or exc}", err=True)
        sys.exit(1)
    sys.exit(1 if failed else 0)


class _ReadError(Exception):
    """The input could not be read (an OSError while reading, not while writing)."""


def _read_lines(file):
    """The lines of a binary file (split at b'\\n' only, each up to records.lines.MAX_LINE_BYTES;
    a longer one stands as one LineTooLong); a read error becomes _ReadError."""
    from ..records.lines import bounded_lines
    try:
        yield from bounded_lines(file)
    except OSError as exc:
        raise _ReadError(exc.strerror or str(exc)) from None
