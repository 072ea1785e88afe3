"""The studies' datasets: made with ``dokosim.simulate`` once, then read with polars."""
from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from .common import project_root


def data_root() -> Path:
    """Where study datasets live: $DOKOSIM_STUDY_DATA, else data/studies/ in the repository
    (in the current directory for an installed package)."""
    return Path(os.environ.get("DOKOSIM_STUDY_DATA") or project_root() / "data" / "studies")


def dataset_directory(name: str, deals: int, seed: int, strategy: str) -> Path:
    """Where ``dataset`` keeps the dataset ``name`` of these settings (under ``data_root``)."""
    return data_root() / f"{name}_{strategy.replace(',', '-')}_s{seed}_n{deals}"


def dataset(name: str, deals: int, seed: int, strategy: str, rules, contract=None, declarer=0,
            scheduler=None, cluster=None, quiet=True, **extra) -> pl.LazyFrame:
    """Simulate (or resume, or reuse) the dataset ``name`` for these settings and scan it.

    The directory name holds strategy, seed and deals; the dataset's manifest holds
    the rest, and ``dokosim.simulate`` refuses a directory made by another command.
    """
    from ..run.dataset import scan
    from ..run.simulate import simulate
    directory = dataset_directory(name, deals, seed, strategy)
    directory.parent.mkdir(parents=True, exist_ok=True)
    simulate(deals, seed, rules, strategy, out=str(directory), contract=contract, declarer=declarer,
             scheduler=scheduler, cluster=cluster, quiet=quiet, **extra)
    return scan(directory)
