"""The deal loop's inputs that stay fixed for a run: the control words and who plays.

``control`` (int64, ``CONTROL_LEN`` words, then a condition's block at ``COND_BASE``,
loop/conditions.py) is built by ``run/simulator.py``'s ``Plan.control``: the dealer (-1: by
deal id), a forced contract and its declarer (-1: none), compulsory solos, calls on, whether
to keep each deal's cards and calls, and a fixed hand (seat, mask; seat -1: none).

``Seats`` bundles what a strategy call needs besides the position: the strategy table
(loop/strategy_call.py), each engine seat's row of it and each seat's parameters. In a session
the four seats at the table change from deal to deal, so the loop makes a new ``Seats`` per deal
(a tuple of three array views: free).
"""
from collections import namedtuple

CONTROL_LEN = 8
(CTL_DEALER, CTL_FORCE_CONTRACT, CTL_FORCE_DECLARER, CTL_COMPULSORY, CTL_CALLS,
 CTL_KEEP_PLAY, CTL_FIXED_SEAT, CTL_FIXED_HAND) = range(CONTROL_LEN)

# what one item of a run is: a deal, a session of deals, or a call probe (run_chunk's ``mode``)
MODE_SIMULATE, MODE_SESSIONS, MODE_PROBES = 0, 1, 2

Seats = namedtuple("Seats", ("strategies", "ids", "params"))
