"""``dokosim study``: run a study of ``dokosim.studies`` (dataset -> tables and charts in
``results/``). A thin wrapper; see docs/studies.md.
"""
from __future__ import annotations

import click

from ..run.players import STRONGEST_FAST
from ..validation import MAX_DEALS
from .options import SEED_OPTION, RunError, UsageError, check_out_directory, resumable


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("name")
@click.option("--deals", type=click.IntRange(100, MAX_DEALS), default=None,
              help="Deals per dataset (default: each study's own size, docs/studies.md).")
@click.option("--strategy", default=STRONGEST_FAST, show_default=True,
              help="Strategy at every seat for the full tables; the default is the strongest fast "
                   "player (see `dokosim players`). The headline figures are also run under simple, "
                   "heuristic and pimc; --strategy heuristic gives the tables of before 7 December 2026.")
@SEED_OPTION
@click.option("--scheduler", default=None, help="Simulate on a dask.distributed scheduler at this address.")
@click.option("--cluster", default=None, help="Simulate on a local Dask cluster: local:N.")
@click.option("--results", "results_dir", type=click.Path(file_okay=False), default=None,
              help="Where the tables and charts go (default: results/ of the repository; "
                   "of the current directory for an installed package).")
@click.option("--quiet", is_flag=True, help="No progress messages.")
def study(name, deals, strategy, seed, scheduler, cluster, results_dir, quiet):
    """Run study NAME (solo_odds, poverty, announcements, strategies, play_errors, swings, par,
    par_normal, frontier, or all; all leaves out play_errors, swings, par, par_normal and frontier):
    simulate or solve, then write tables (Markdown, CSV) and charts (PNG) to results/NAME/
    (play_errors, swings: results/strategies/; par_normal: results/par/)."""
    if scheduler is not None and cluster is not None:
        raise click.UsageError("give --scheduler or --cluster, not both")
    if cluster is not None or scheduler is not None:
        from ..run.distributed import parse_cluster, require_dask
        try:
            if cluster is not None:
                parse_cluster(cluster)
            require_dask()
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    from ..run.workers import WorkerLost
    from ..studies import StudyError, run_study
    from ..studies.common import project_root
    from ..studies.data import data_root
    check_out_directory(results_dir if results_dir is not None else project_root() / "results", "--results")
    check_out_directory(data_root(), "the study datasets' directory ($DOKOSIM_STUDY_DATA)")
    with resumable(data_root()):  # Ctrl-C: its datasets resume; the hint and exit code 130
        try:
            run_study(name, deals=deals, strategy=strategy, seed=seed, scheduler=scheduler,
                      cluster=cluster, results=results_dir, quiet=quiet)
        except (StudyError, ValueError) as exc:  # ValueError: SimulationError, a dataset of another command
            raise UsageError(str(exc)) from None
        except WorkerLost as exc:  # a worker of a pool killed (the out-of-memory killer): one line, exit 1
            raise RunError(str(exc)) from None

