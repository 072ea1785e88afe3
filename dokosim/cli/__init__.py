"""The ``dokosim`` command line (click): the group ``main`` (the ``dokosim`` entry point) and
its commands, one module per command.

A new command goes in a new module of this package (``dokosim/cli/NAME.py``, one click command),
registered below with ``main.add_command``. Parsing that commands share (``UsageError``, the
rules options, ``--param``, the common options) lives in
``options.py``. A command module imports only from ``options.py`` and the library, never from
another command module or from this ``__init__``, and ``options.py`` imports no command module:
no import cycles (tests/cli/test_cli_package.py checks it). Heavy imports (the numba kernels:
dokosim.simulate, records, tournament, session, call_probe) stay inside the command functions,
so that ``dokosim --help`` and ``dokosim score`` start fast.
"""
from __future__ import annotations

import errno
import os
import sys

import click

from . import (
    advise, audit, compile_cmd, play, players, probe_calls, rules_cmd, score, serve, session, show, simulate, solve, study,
    tournament, train,
)
from .options import RunError, UsageError, os_error_message


class DokosimGroup(click.Group):
    """The ``dokosim`` group: an OSError that no command turned into a message (a write that
    failed during the run, a file that cannot be read) ends as one line naming the path and the
    reason, exit code 1, never a traceback; an output path found bad is a usage error (exit 2)."""

    def main(self, args=None, *rest, **kwargs):
        """click's ``main``. With ``args`` None it runs this process's own command line (the
        ``dokosim`` program, ``python -m dokosim.cli``; click's CliRunner always passes its
        arguments) and the process ends with the command: the first Ctrl-C ends the command
        and every later one is ignored until the process has exited (``outputs.interrupt_once``),
        so that no second Ctrl-C cuts short the stopping, the resume hint or the interpreter's
        exit (a traceback from an atexit hook)."""
        if args is not None:
            return super().main(args, *rest, **kwargs)
        from ..run.outputs import interrupt_once
        with interrupt_once(restore=False):
            return super().main(args, *rest, **kwargs)

    def invoke(self, ctx):
        from ..run.outputs import OutputError
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            # a Ctrl-C that no command handled (a dataset run's gets the resume hint from
            # options.resumable; this is one during a command's imports and argument checks, or
            # in a command without output): exit 130 as for a Ctrl-C, not click's "Aborted!" (exit 1)
            click.echo("interrupted", err=True)
            sys.exit(130)
        except OutputError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise  # stdout closed early (| head): click's own handling, quietly
            raise RunError(os_error_message(exc)) from None


@click.group(cls=DokosimGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="dokosim")
def main():
    """dokosim: Doppelkopf by the million (DDV rules, strategies, datasets, studies)."""
    # A plug-in module (--where-path, --strategy-path) in the current directory is importable, as
    # the docs say and as under ``python -m dokosim.cli``; the console script alone would not find it.
    # (appended, not first: a file in the current directory never shadows a library dokosim uses)
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    _quick_exit()


def _quick_exit() -> None:
    """At the process's exit, freeze what the garbage collector tracks (gc.freeze) before the
    interpreter's last collections: they walked every object numba's kernels and polars had made,
    0.2-0.5 s after each command that ran a kernel (a fifth of ``simulate --deals 2000000 --out
    DIR``, issue 48). Only at exit (atexit), once: a process that calls ``main`` and goes on
    (a test's CliRunner) collects as before."""
    global _EXIT_HOOK
    if not _EXIT_HOOK:
        import atexit
        import gc
        atexit.register(gc.freeze)
        _EXIT_HOOK = True


_EXIT_HOOK = False


for _command in (score.score, show.show, simulate.simulate, rules_cmd.rules_cmd, tournament.tournament,
                 session.session, probe_calls.probe_calls, study.study, advise.advise, compile_cmd.compile_cmd,
                 solve.solve, play.play, audit.audit, train.train, serve.serve, players.players):
    main.add_command(_command)
del _command
