"""The built-in strategies: numba decision kernels (random, simple, heuristic, pimc and its sampler, card counting)."""
