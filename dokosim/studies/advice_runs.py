"""Running the advisor's rollout kernels (loop/advice.py) over many sampled deals: in chunks, on a
few threads (the kernels release the GIL), with a progress callback. Sample ``k`` depends only on
(seed, k), so the outcome is the same for any chunk size and number of threads."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

CHUNK = 250  # samples per kernel call: a progress step of a fraction of a second
COMPILE_SECONDS = 120  # the advice kernels compiled cold on a busy 2-core machine (both, with their callees)


def ready(kernel):
    """``kernel`` (of loop/advice.py), announced on stderr first when calling it will compile it."""
    from ..engine.jit import announce_compile, dispatcher_cached
    if not dispatcher_cached(kernel):
        announce_compile("the advice kernels", COMPILE_SECONDS)
    return kernel


def check_run(deals, seed, threads, progress, error) -> tuple[int, int, int | None]:
    """(deals, seed, threads) checked for a run of the advisor (``error`` naming a bad one):
    1 to 10**8 deals, a seed, None or 1 to 1024 threads, a ``progress`` that is None or callable."""
    from ..validation import check_int, check_optional_int, check_seed
    if progress is not None and not callable(progress):
        raise error(f"progress={progress!r:.60} is not valid: None or a function progress(done, total)")
    return (check_int("deals", deals, 1, 10**8, error), check_seed(seed, error),
            check_optional_int("threads", threads, 1, 1024, error))


def run_samples(fill, deals: int, n_options: int, threads: int | None = None, progress=None):
    """(scores, status): int64 arrays of ``deals`` x ``n_options`` filled chunk by chunk by
    ``fill(first, scores_chunk, status_chunk)`` (a rollout kernel bound to its arguments), on
    ``threads`` threads (default: the machine's cores). ``progress(done, total)`` is called before
    the first chunk and after each one (from the calling thread)."""
    scores = np.zeros((deals, n_options), dtype=np.int64)
    status = np.zeros((deals, n_options), dtype=np.int64)
    starts = list(range(0, deals, CHUNK))
    if progress is not None:
        progress(0, deals)
    if not starts:
        return scores, status

    def one(first: int) -> int:
        last = min(first + CHUNK, deals)
        fill(first, scores[first:last], status[first:last])
        return last - first

    workers = max(1, min(threads or os.cpu_count() or 1, len(starts)))
    done = 0
    if workers == 1:
        for first in starts:
            done += one(first)
            if progress is not None:
                progress(done, deals)
        return scores, status
    with ThreadPoolExecutor(workers) as pool:
        for count in pool.map(one, starts):
            done += count
            if progress is not None:
                progress(done, deals)
    return scores, status
