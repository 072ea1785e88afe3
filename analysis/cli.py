"""``python -m analysis.<study>``: the same as ``dokosim study <study>``."""
from __future__ import annotations

import argparse


def script_main(study: str) -> None:
    ap = argparse.ArgumentParser(prog=f"python -m analysis.{study}",
                                 description=f"Run the {study} study (same as: dokosim study {study}).")
    ap.add_argument("--deals", type=int, default=None)
    ap.add_argument("--strategy", default="simple")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scheduler", default=None)
    ap.add_argument("--cluster", default=None)
    ap.add_argument("--results", default=None)
    a = ap.parse_args()
    from . import run_study
    run_study(study, deals=a.deals, strategy=a.strategy, seed=a.seed, scheduler=a.scheduler,
              cluster=a.cluster, results=a.results)
