"""The deal loop's inputs that stay fixed for a run: the control words and who plays.

``control`` (int64, ``CONTROL_LEN`` words, then a condition's block at ``COND_BASE``,
loop/conditions.py) is built by ``run/simulator.py``'s ``Plan.control``: the dealer (-1: by
deal id), a forced contract and its declarer (-1: none), compulsory solos, calls on, whether
to keep each deal's cards and calls, and a fixed hand (seat, mask; seat -1: none).

``Seats`` bundles what a strategy call needs besides the position: the strategy table
(loop/strategy_call.py), each engine seat's row of it and each seat's parameters. In a session
the four seats at the table change from deal to deal, so the loop makes a new ``Seats`` per deal
(a tuple of three array views: free).

``Run`` is what stays fixed for all the items of a run (sim_loop.run_chunk): the kind of item
(``mode``, MODE_*), the seed, a session's form (``n_deals`` per session, ``n_players``,
``compulsory_on``: compulsory solos owed), a probe's call ``level``, the control words and the
rules (packed). ``Rows`` is where a run's rows go: ``out`` (a row per deal or probe, or per deal of
a session), ``play_out`` and ``call_out`` (each deal's cards and calls when
control[CTL_KEEP_PLAY]; else they may have one row each).
"""
from collections import namedtuple

CONTROL_LEN = 8
(CTL_DEALER, CTL_FORCE_CONTRACT, CTL_FORCE_DECLARER, CTL_COMPULSORY, CTL_CALLS,
 CTL_KEEP_PLAY, CTL_FIXED_SEAT, CTL_FIXED_HAND) = range(CONTROL_LEN)

# what one item of a run is: a deal, a session of deals, or a call probe (run_chunk's ``mode``)
MODE_SIMULATE, MODE_SESSIONS, MODE_PROBES = 0, 1, 2

Seats = namedtuple("Seats", ("strategies", "ids", "params"))
Run = namedtuple("Run", ("mode", "seed", "n_deals", "n_players", "compulsory_on", "level", "control", "rules"))
Rows = namedtuple("Rows", ("out", "play_out", "call_out"))
