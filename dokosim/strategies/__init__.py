"""The built-in strategies: numba decision kernels (random, simple, heuristic, pimc and its sampler, card counting)."""

STRONGEST_FAST = "net"
"""The player that answers by default where dokosim asks one player a question (``dokosim advise``,
its web page): the winner of the round robin of the fast built-ins, measured in
docs/strategies.md ("Which player answers"): ``dokosim tournament net heuristic simple random``."""
