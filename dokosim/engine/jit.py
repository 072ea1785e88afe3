"""One place for the njit options every kernel uses, and the kernel cache's validity.

numba's on-disk cache checks only the source file that defines a function: a
kernel cached before a change to a module it uses (say, a layout constant)
would be loaded stale. dokosim's kernels are therefore cached under a stamp
of the whole package's source: any change to any dokosim file recompiles them,
except the studies (``dokosim/studies/``), which hold no kernel and only call them.
"""
import hashlib
import os
from pathlib import Path

from numba import njit
from numba.core import caching

PACKAGE_DIR = Path(__file__).resolve().parents[1]
NO_KERNELS = ("studies",)  # subpackages without kernels: editing them keeps the compiled kernels
GENERATED_PREFIX = "dokosim_entry_"  # strategies' entry-point modules, written by strategies.registry


def _package_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        if path.relative_to(PACKAGE_DIR).parts[0] in NO_KERNELS:
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
# A strategy's C entry points (strategies.registry, engine.strategy_call): numba cfunc options.
ENTRY_OPTIONS = {"boundscheck": False, "error_model": "numpy"}
