"""Worker processes that do not outlive the command that started them.

``die_with_parent`` is the initializer of every process pool dokosim starts (``study par``,
``dokosim compile``): on Linux it asks the kernel to send the worker SIGTERM when its parent
dies, however the parent died (Ctrl-C, ``kill``, ``kill -9``), so no worker is left solving
for nobody. Elsewhere it does nothing (the pools' own shutdown still runs on a clean exit).
"""
from __future__ import annotations

import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent() -> None:
    """Make this process receive SIGTERM when its parent dies (Linux); exit at once if the parent
    is already gone."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
