"""The rules as numba kernels: card encoding, dealing, legal play, tricks, scoring, the game state step by step. Imports nothing above itself."""
