"""``dokosim compile``: compile every built-in kernel once, ahead of use (named compile_cmd, not
compile, so that it does not shadow Python's built-in)."""
from __future__ import annotations

import os
import sys
import time

import click


@click.command("compile", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: one per core; numba compiles on one core each).")
@click.option("--quiet", is_flag=True, help="No progress display, only the total.")
def compile_cmd(jobs, quiet):
    """Compile every built-in kernel once (the deal loop, the record replay, heuristic, pimc).

    Later commands load them from the cache and start playing at once: run it in a cluster
    image, on a notebook server or in CI. Kernels already cached load in a moment.
    """
    from tqdm.auto import tqdm  # a notebook widget in Jupyter, a text bar in a terminal

    from ..kernels import KERNELS, compile_all

    jobs = jobs or os.cpu_count() or 1
    start = time.perf_counter()
    with tqdm(total=len(KERNELS), unit=" kernels", dynamic_ncols=True, file=sys.stderr,
              disable=quiet, bar_format="{l_bar}{bar}| {n}/{total} [{elapsed}]") as bar:
        bar.set_description(f"compiling on {jobs} process{'es' if jobs > 1 else ''}")

        def done(what, seconds):
            bar.write(f"  {what}: {seconds:.1f} s")
            bar.update(1)

        compile_all(jobs, progress=done)
    click.echo(f"compiled {len(KERNELS)} kernels in {time.perf_counter() - start:.1f} s "
               f"(cache: {_cache_location()})")


def _cache_location() -> str:
    import numba
    return numba.config.CACHE_DIR or "numba's default, beside the sources"
