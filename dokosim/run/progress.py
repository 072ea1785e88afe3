"""Progress bars: tqdm.auto (a widget in a Jupyter notebook, a text bar in a terminal), shown
unless the caller is quiet or the output is neither a terminal nor a notebook (a log file, a pipe,
CI), where a bar would only be noise."""
from __future__ import annotations

import sys


def in_notebook() -> bool:
    """True inside a Jupyter kernel (where stderr is not a terminal, yet a bar is wanted)."""
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ipython = shell.get_ipython()
    except Exception:  # noqa: BLE001 - an IPython too old or too odd to ask: no notebook bar
        return False
    return ipython is not None and "IPKernelApp" in getattr(ipython, "config", {})


def show_progress(quiet: bool = False) -> bool:
    """Whether a long run shows a progress bar: not when ``quiet``; yes in a terminal or a notebook."""
    return not quiet and (sys.stderr.isatty() or in_notebook())


def progress_bar(quiet: bool = False, **kwargs):
    """A tqdm.auto bar (``kwargs`` as tqdm's: total, initial, unit, ...) drawn on stderr in a
    terminal; where ``show_progress`` says no, a ``NoProgress`` that takes the same calls."""
    if not show_progress(quiet):
        return NoProgress(kwargs.get("iterable"))
    from tqdm.auto import tqdm
    kwargs.setdefault("dynamic_ncols", True)
    return tqdm(**kwargs)


class NoProgress:
    """The bar where none is shown: the calls the runs make on a bar (``update``, ``close``, a
    ``with`` block, iterating over ``iterable``) do nothing else. Not a disabled tqdm: the first
    tqdm of a process makes a multiprocessing lock (a named semaphore) and a monitor thread; in a
    worker process stopped by Ctrl-C the semaphore was never released, and multiprocessing's
    resource tracker warned of it on the terminal after the command had ended."""

    def __init__(self, iterable=None):
        self.iterable = iterable

    def update(self, n: float = 1) -> None:
        """Nothing to show."""

    def close(self) -> None:
        """Nothing to close."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __iter__(self):
        return iter(() if self.iterable is None else self.iterable)
