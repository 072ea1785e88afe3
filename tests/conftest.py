"""Shared fixtures: kernels compile once per session (numba caches them on disk too)."""
import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


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
    from dokosim.simulate import simulate
    return simulate(100_000, seed=20261129, strategy="random", keep_play=True,
                    params={"*": {"p_reserve": 0.25, "p_call": 0.15}})
