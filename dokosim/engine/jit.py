"""One place for the njit options every kernel uses."""
from numba import njit

kernel = njit(cache=True, nogil=True, boundscheck=False)
parallel_kernel = njit(cache=True, nogil=True, parallel=True, boundscheck=False)
