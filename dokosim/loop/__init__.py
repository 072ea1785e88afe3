"""Kernels that seat strategies at the engine: the deal loop, the strategy registry and its C entry points, the deal filter, single agent steps."""
