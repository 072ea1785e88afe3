"""A/B timing of two versions of the solver kernels in one process, position by position
(alternating which goes first), so that the load of a shared machine hits both alike.

    python scripts/solver_ab.py A_MODULE [B_MODULE] [--set six] [--n 300] [--passes 3]

A_MODULE, B_MODULE: module names under dokosim.solver (B defaults to ``eyes``), or full dotted
names; for instance copy the solver of a commit to dokosim/solver/_solver_a.py (``git show
REV:dokosim/solver/eyes.py``, before the solver was split into modules (issue 43); before the
layers, ``REV:dokosim/engine/solver.py`` with its imports pointed at ``..engine``) and run
``python scripts/solver_ab.py _solver_a``; since the split, copy the whole package
(``mkdir dokosim/solver_a && git archive REV dokosim/solver | tar -x --strip-components=2 -C
dokosim/solver_a``) and run ``python scripts/solver_ab.py dokosim.solver_a.eyes``. Prints each version's CPU time and nodes and
the ratio B/A of the times (total, the median and the geometric mean of the per-position ratios).
``python scripts/solver_ab.py eyes eyes --a-sim-bits 0 --set start121``: the search without the
payoff-similarity table against with it (docs/solver.md, round 8)."""
import argparse
import importlib
import sys
import time

import numpy as np

sys.path.insert(0, "scripts")
from solver_nodes import SETS, positions  # noqa: E402


def load(m, ws, state):
    """``m.load_position`` of a replayed position's ``state`` (its eight arrays and the rules): as one
    ``Position`` and the rules since issue 43, the nine arrays one by one before."""
    import inspect
    if len(inspect.signature(m.load_position.py_func).parameters) == 3:
        from dokosim.engine.position import Position
        m.load_position(ws, Position(*state[:8]), state[8])
    else:
        m.load_position(ws, *state)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b", nargs="?", default="eyes")
    ap.add_argument("--set", default="six")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--cap", type=int, default=10_000_000)
    ap.add_argument("--bits", type=int, default=20)
    ap.add_argument("--sim-bits", type=int, default=16, help="payoff-similarity table bits, as Solver (0: none)")
    ap.add_argument("--a-sim-bits", type=int, help="A's table bits, when not --sim-bits (for instance 0 with "
                    "A = B = eyes: the search without the table against with it)")
    args = ap.parse_args()
    mods = [importlib.import_module(m if "." in m else f"dokosim.solver.{m}") for m in (args.a, args.b)]
    cards, kind = SETS[args.set]
    every = positions(max(args.n, 20))
    states = every[cards][:args.n]
    def workspace(m, bits):  # versions before round 8 have no payoff-similarity table
        try:
            return m.new_workspace(bits)
        except TypeError:
            return m.new_workspace()
    a_bits = args.sim_bits if args.a_sim_bits is None else args.a_sim_bits
    spaces = [(workspace(m, bits), m.new_table(args.bits)) for m, bits in zip(mods, (a_bits, args.sim_bits))]
    for m, (ws, tt) in zip(mods, spaces):  # compile or load; a deal of its own (the table keeps a deal's entries)
        load(m, ws, every[40][-1])
        m.solve_eyes(ws, tt)
    ms = np.zeros((2, args.passes, len(states)))
    nodes = np.zeros((2, len(states)), dtype=np.int64)
    values = np.zeros((2, len(states)), dtype=np.int64)
    for p in range(args.passes):
        for i, state in enumerate(states):
            order = (0, 1) if (i + p) % 2 == 0 else (1, 0)
            for j in order:
                m, (ws, tt) = mods[j], spaces[j]
                load(m, ws, state)
                ws[m.W_ABORTED] = 0
                ws[m.W_LIMIT] = ws[m.W_NODES] + args.cap
                n0 = ws[m.W_NODES]
                t = time.process_time()
                v = m.solve_eyes(ws, tt) if kind == "eyes" else int(m.solve_reaches(ws, tt, 121))
                ms[j, p, i] = 1000 * (time.process_time() - t)
                nodes[j, i] = ws[m.W_NODES] - n0
                values[j, i] = -1 if ws[m.W_ABORTED] else v
    best = ms.min(axis=1)
    both = (values[0] >= 0) & (values[1] >= 0)
    differ = int((values[0][both] != values[1][both]).sum())
    for j, name in enumerate((args.a, args.b)):
        print(f"{name:12} ms total {best[j].sum():8.0f} median {np.median(best[j]):7.2f} p99 {np.quantile(best[j], 0.99):7.1f}; "
              f"nodes total {nodes[j].sum():,} median {np.median(nodes[j]):,.0f}; over cap {(values[j] < 0).sum()}; "
              f"{1e6 * best[j].sum() / nodes[j].sum():.0f} ns/node")
    ratio = best[1] / np.maximum(best[0], 1e-6)
    print(f"B/A time: total {best[1].sum() / best[0].sum():.3f}, median per position {np.median(ratio):.3f}, "
          f"geometric mean {np.exp(np.mean(np.log(np.maximum(ratio, 1e-6)))):.3f}; "
          f"nodes {nodes[1].sum() / nodes[0].sum():.3f}; values differ: {differ}")


if __name__ == "__main__":
    main()
