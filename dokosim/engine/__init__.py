"""Numba kernels: the rules of Doppelkopf. No strategy imports here except the dispatcher hook."""
