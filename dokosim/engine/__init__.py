"""Numba kernels: the rules of Doppelkopf, and the call of a compiled strategy through its address
(strategy_call.py). No strategy imports here."""
