"""The studies: each reads Parquet datasets made by ``dokosim.simulate`` and writes tables
(Markdown, CSV) and charts (PNG) to ``results/<study>/``. Run them with
``dokosim study <name>`` (docs/studies.md). ``advise`` is the hand advisor of ``dokosim advise``
and ``solo_odds_model.json`` (package data) its model.

Part of the installed package, so that a wheel install has ``dokosim study`` and ``dokosim
advise``; no kernel lives here, and the kernels' cache stamp leaves this subpackage out
(dokosim/engine/jit.py), so editing a study keeps the compiled kernels."""
from __future__ import annotations

import importlib
import time

from ..run.players import STRONGEST_FAST
from .common import StudyError, say

STUDIES = ("solo_odds", "poverty", "announcements", "strategies")
EXTRA_STUDIES = ("play_errors", "swings", "par", "par_normal", "frontier", "advice_check")  # run by name only, not by ``all`` (docs/studies.md)


def run_study(name: str, deals=None, strategy=STRONGEST_FAST, seed=0, scheduler=None, cluster=None,
              results=None, quiet=False) -> dict:
    """Run one study (or ``all``, in order); returns {study: its result dict}."""
    names = STUDIES if name == "all" else (name,)
    for n in names:
        if n not in STUDIES + EXTRA_STUDIES:
            raise StudyError(f"unknown study {name!r}; valid: {', '.join(STUDIES + EXTRA_STUDIES)}, all")
    from ..loop.registry import StrategyError, resolve
    try:
        resolve(strategy)
    except StrategyError as exc:
        raise StudyError(str(exc)) from None
    sim = {k: v for k, v in (("scheduler", scheduler), ("cluster", cluster)) if v is not None}
    out = {}
    for n in names:
        t0 = time.time()
        module = importlib.import_module(f"{__name__}.{n}")
        out[n] = module.run(deals=deals, strategy=strategy, seed=seed, results=results, quiet=quiet, **sim)
        say(quiet, f"{n}: done in {time.time() - t0:.0f} s")
    return out
