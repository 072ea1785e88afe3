"""CPU seconds per deal of dd_oracle at all four seats, by exact_tricks (docs/solver.md, "dd_oracle").

    python scripts/oracle_cost.py 6 7 8 9     # 20 DDV deals of seed 1 each, one thread
"""
import time, sys, dokosim, numpy as np
from dokosim.game.game import Game
from dokosim.dd.oracle import DDOracle
for k in map(int, sys.argv[1:]):
    o = DDOracle(exact_tricks=k)
    ts=[]
    for d in range(20):
        g = Game("ddv", seed=1, deal_id=d)
        t=time.process_time()
        while not g.is_terminal():
            g.apply_action(o.act(g))
        ts.append(time.process_time()-t)
    ts=np.array(ts)
    print(k, "median %.3f s  max %.3f s  total %.1f" % (np.median(ts), ts.max(), ts.sum()), flush=True)
