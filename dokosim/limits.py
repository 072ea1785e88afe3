"""Upper bounds on the sizes a run may ask for: beyond them a run would exhaust the machine
(the chunk bounds alone of 2**63 deals fill the memory) long before it finished. No heavy
imports here: the command line reads these for its option ranges."""

MAX_DEALS = 10**12            # deals per simulate, tournament or probe-calls run
MAX_ROUNDS = 10**10           # sessions per session run (at most 64 deals each)
