"""Shared fixtures, and the kernels compiled once before the tests start (numba caches them on
disk, so the test workers and every subprocess the tests start load them from there)."""
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"

# One kernel cache for the suite, its workers, its subprocesses and the wheel it installs
# (engine/jit.py keys the cache on the package's source, not on its place): set before numba
# is imported. CI sets its own, empty one.
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(tempfile.gettempdir()) / "dokosim-tests" / "numba"))
os.environ.setdefault("DOKOSIM_CACHE_DIR", str(Path(tempfile.gettempdir()) / "dokosim-tests" / "doko"))


def pytest_configure(config):
    """In the controlling process, before pytest-xdist starts its workers: compile every
    built-in kernel (``dokosim compile``), one process per core, so that no two workers
    compile the same kernel and no test waits for one."""
    if hasattr(config, "workerinput"):
        return
    from dokosim.kernels import compile_all
    start = time.perf_counter()
    compile_all(jobs=os.cpu_count() or 1)
    print(f"dokosim kernels compiled or loaded in {time.perf_counter() - start:.0f} s", file=sys.stderr)


def pytest_collection_modifyitems(items):
    """The wheel install test first: most of its time is a subprocess compiling the installed
    copy's kernels, so it runs beside the rest of the suite instead of after it. A test that uses
    the 100,000 simulated deals (``random_deals_with_records``) is a long property run: ``slow``."""
    items.sort(key=lambda item: item.path.name != "test_wheel_install.py")
    for item in items:
        if "random_deals_with_records" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def oracle_lines():
    """Every line of the oracle corpus, as (file name, parsed line)."""
    lines = []
    for f in sorted((DATA / "oracle").glob("*.jsonl")):
        for raw in f.read_text().splitlines():
            if raw.strip():
                lines.append((f.name, json.loads(raw)))
    return lines


@pytest.fixture(scope="session")
def random_deals_with_records():
    """100,000 random deals with random reservations and calls, with their game records."""
    from dokosim.run.simulate import simulate
    return simulate(100_000, seed=20261129, strategy="random", keep_play=True,
                    params={"*": {"p_reserve": 0.25, "p_call": 0.15}})
