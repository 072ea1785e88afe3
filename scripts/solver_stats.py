"""Search statistics by card index (``STATS`` in dokosim/solver/workspace.py must be True).

    python scripts/solver_stats.py [six|nine|eight|start|start121] [N] [CAP]

``start121``: does Re reach 121 from the first card (one null-window search); the others: exact eyes."""
import sys
import numpy as np
sys.path.insert(0, "scripts")
from solver_nodes import positions
from dokosim.solver import eyes as S
from dokosim.dd.solve import Solver

which = sys.argv[1] if len(sys.argv) > 1 else "six"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 100
cap = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000_000
cards = {"six": 24, "nine": 12, "start": 0, "start121": 0, "eight": 16}[which]
states = positions(300)
sv = Solver(node_limit=cap)
for i in range(n):
    sv.load(states[cards][i])
    if which == "start121":
        sv.reaches(121)
    else:
        sv.eyes()
st = sv.ws[S.W_STATS:S.W_STATS + 16 * 48].reshape(16, 48)
names = ["nodes", "tt_cut", "quick_cut", "cut", "cut_idx", "cut_first", "all", "all_moves", "trivial", "tt_probe", "tt_found"]
print("  n   nodes  trivial%  probe  found%  ttcut%  quick%  cut  first%  avgidx  all  movesAll")
for j in range(cards, 48):
    nd = st[0, j]
    if nd == 0:
        continue
    print(f"{j:3d} {nd:9d} {100*st[8,j]/nd:6.1f} {st[9,j]:8d} {100*st[10,j]/max(1,st[9,j]):6.1f} {100*st[1,j]/max(1,st[9,j]):6.1f} "
          f"{100*st[2,j]/max(1,st[9,j]):6.1f} {st[3,j]:8d} {100*st[5,j]/max(1,st[3,j]):6.1f} {st[4,j]/max(1,st[3,j]):5.2f} {st[6,j]:8d} {st[7,j]/max(1,st[6,j]):5.2f}")
print("total nodes", st[0].sum())
print(f"share of the nodes at card 32 or later (the last four tricks): {st[0, 32:].sum() / max(1, st[0].sum()):.3f}")
