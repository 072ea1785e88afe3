"""The ``dokosim`` command line (click): the group ``main`` (the ``dokosim`` entry point) and
its commands, one module per command.

A new command goes in a new module of this package (``dokosim/cli/NAME.py``, one click command),
registered below with ``main.add_command``. Parsing that commands share (``UsageError``, the
rules options, ``--param``, the common options, the ``analysis`` package) lives in
``options.py``. A command module imports only from ``options.py`` and the library, never from
another command module or from this ``__init__``, and ``options.py`` imports no command module:
no import cycles (tests/test_cli_package.py checks it). Heavy imports (the numba kernels:
dokosim.simulate, records, tournament, session, call_probe) stay inside the command functions,
so that ``dokosim --help`` and ``dokosim score`` start fast.
"""
from __future__ import annotations

import click

from . import (
    advise, compile_cmd, probe_calls, rules_cmd, score, session, show, simulate, solve, study, tournament,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="dokosim")
def main():
    """dokosim: Doppelkopf by the million (DDV rules, strategies, datasets, studies)."""


for _command in (score.score, show.show, simulate.simulate, rules_cmd.rules_cmd, tournament.tournament,
                 session.session, probe_calls.probe_calls, study.study, advise.advise, compile_cmd.compile_cmd,
                 solve.solve):
    main.add_command(_command)
del _command
