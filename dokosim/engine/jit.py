"""One place for the njit options every kernel uses, the kernel cache's validity, and the line on
stderr that says a kernel is compiling.

numba's on-disk cache checks only the source file that defines a function: a kernel cached before
a change to a module it uses (say, a layout constant) would be loaded stale. dokosim's kernels are
therefore cached under a stamp of the kernel folders' source (``KERNEL_FOLDERS``): a change to any
file there recompiles them all; an edit anywhere else (the command line, records, studies, docs)
keeps them. No module outside these folders defines a kernel, and kernels read constants only
from modules inside them (tests/project/test_layers.py checks both).
"""
import hashlib
import os
import sys
from pathlib import Path

from numba import njit
from numba.core import caching

PACKAGE_DIR = Path(__file__).resolve().parents[1]
# The folders that hold kernels and every module they import: their source is the cache's stamp.
KERNEL_FOLDERS = ("engine", "solver", "strategies", "loop")
GENERATED_PREFIX = "dokosim_entry_"  # strategies' entry-point modules, written by loop.registry


def _package_digest() -> str:
    digest = hashlib.sha256()
    # the kernels' source, and the data they compile in as constants (net's weights, .npz)
    for path in sorted([*PACKAGE_DIR.rglob("*.py"), *PACKAGE_DIR.rglob("*.npz")]):
        if path.relative_to(PACKAGE_DIR).parts[0] not in KERNEL_FOLDERS:
            continue
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


PACKAGE_DIGEST = _package_digest()


def _ours(py_file: str) -> bool:
    path = os.path.abspath(py_file)
    return path.startswith(str(PACKAGE_DIR) + os.sep) or os.path.basename(path).startswith(GENERATED_PREFIX)


def _package_stamped(base):
    class Locator(base):
        """``base``, restricted to dokosim's kernels, stamped with the package digest alone (a
        generated module's own source is in its name), so that checkouts and installs of the
        same source share a cache whatever their files' places and modification times."""

        def get_source_stamp(self):
            return PACKAGE_DIGEST

        @classmethod
        def get_suitable_cache_subpath(cls, py_file):
            # Under the package's place inside it, not its absolute path: an installed copy
            # (a wheel in another environment) of the same source loads the kernels a
            # checkout compiled into the same NUMBA_CACHE_DIR, and vice versa.
            path = Path(py_file).resolve()
            if not path.is_relative_to(PACKAGE_DIR):
                return super().get_suitable_cache_subpath(py_file)
            inside = "_".join(path.parent.relative_to(PACKAGE_DIR).parts) or "top"
            return f"dokosim-{PACKAGE_DIGEST[:16]}_{inside}"

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _ours(py_file):
                return None
            return super().from_function(py_func, py_file)

    Locator.__name__ = f"Dokosim{base.__name__}"
    return Locator


if not any(c.__name__.startswith("Dokosim") for c in caching.CacheImpl._locator_classes):
    caching.CacheImpl._locator_classes[:0] = [
        _package_stamped(caching.UserProvidedCacheLocator),
        _package_stamped(caching.InTreeCacheLocator),
        _package_stamped(caching.UserWideCacheLocator),
    ]

kernel = njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
parallel_kernel = njit(cache=True, nogil=True, parallel=True, boundscheck=False, error_model="numpy")
# Small functions on the per-card path: inlined at numba IR level, so array
# arguments cost no call (their reference counting stays, see decision_kernel).
inline_kernel = njit(cache=True, nogil=True, boundscheck=False, error_model="numpy", inline="always")
# A strategy's decision kernels (the card, call and reservation choosers and the
# non-inlined helpers they call), which allocate no arrays: compiled without
# reference counting. Otherwise every array passed to a call, and to every inlined
# helper inside a loop, costs an atomic increment and decrement of its reference
# count; for heuristic that was a third of the time.
decision_kernel = njit(cache=True, nogil=True, boundscheck=False, error_model="numpy", _nrt=False)
# A strategy's C entry points (loop.registry, engine.strategy_call): numba cfunc options.
ENTRY_OPTIONS = {"boundscheck": False, "error_model": "numpy"}


# ---------------------------------------------------------------- compiling, said on stderr

# Seconds each kernel took to compile cold on a 2-core machine (scripts/coldstart.py);
# only used to tell the user what to expect.
EXPECTED_SECONDS = {"the deal loop": 60, "the record replay": 10, "the heuristic strategy": 25,
                    "the pimc strategy": 40, "the double-dummy solver": 60,
                    "the game kernels": 55, "the batched game": 45}
_announced: set[str] = set()


def announce_compile(what: str, seconds: float | None = None) -> None:
    """One line on stderr: ``what`` is compiling, once, about ``seconds``. Said once per process."""
    if what in _announced or os.environ.get("DOKOSIM_QUIET_COMPILE"):
        return
    _announced.add(what)
    seconds = seconds if seconds is not None else EXPECTED_SECONDS.get(what)
    about = f", about {seconds:.0f} s" if seconds else ""
    print(f"dokosim: compiling {what}, once{about} (later runs load it from the cache)",
          file=sys.stderr, flush=True)


def dispatcher_cached(dispatcher) -> bool:
    """Whether a numba dispatcher (or a strategy's CFunc entry point) has a compiled version in
    this process or on disk. On disk: numba's cache index for the function is valid (its
    source stamp matches); a call with other argument types would still compile."""
    if getattr(dispatcher, "signatures", None):
        return True
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # numba internals moved: assume it compiles
        return False


def ensure_loop(dispatcher, what: str):
    """``dispatcher``, announced first if calling it will compile it."""
    if not dispatcher_cached(dispatcher):
        announce_compile(what)
    return dispatcher
