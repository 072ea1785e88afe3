"""Runs of many deals: simulate, sessions, call probes, tournaments, conditions, Dask, datasets and their outputs."""
