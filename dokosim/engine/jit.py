"""One place for the njit options every kernel uses."""
from numba import njit

kernel = njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
parallel_kernel = njit(cache=True, nogil=True, parallel=True, boundscheck=False, error_model="numpy")

# Small functions on the per-card path: inlined at numba IR level, so array
# arguments cost no reference counting and no call.
inline_kernel = njit(cache=True, nogil=True, boundscheck=False, error_model="numpy", inline="always")
