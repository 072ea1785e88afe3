"""``dokosim solve``: game records solved double-dummy (docs/solver.md)."""
from __future__ import annotations

import sys

import click


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.File("r"))
@click.option("--from-start", is_flag=True, help="Solve the position before the first card.")
def solve(file, from_start):
    """Solve game records (JSON Lines; '-' for stdin) with all hands open: one JSON line per record
    with Re's final eyes under best play by both sides (no further calls), the value of each legal
    card of the seat to move, and whether Re reaches 121, 151, 181, 211 and 240 eyes.

    The position is the one after the record's last card (--from-start: before its first). A
    complete record gives its own eyes. Exit status 1 when any record was refused, 2 for bad usage.
    """
    import orjson

    from ..solve import Solver
    from ..solve import solve as solve_record
    solver = Solver()
    failed = False
    write = sys.stdout.buffer.write
    for number, line in enumerate(file, start=1):
        if not line.strip():
            continue
        out = {"line": number, **solve_record(line, from_start=from_start, solver=solver)}
        failed |= not out["ok"]
        write(orjson.dumps(out, option=orjson.OPT_APPEND_NEWLINE))
        sys.stdout.flush()
    sys.exit(1 if failed else 0)
