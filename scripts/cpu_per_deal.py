"""CPU ns per deal of one plan on one thread, and a perf map for profiling the deal loop (not a test).

    taskset -c 0 python scripts/cpu_per_deal.py STRATEGY DEALS [PLAN] [--perf-map]

PLAN: ``a`` (figure (a)'s: normal contract forced, no calls), ``ddv`` (the DDV rules with calls,
figure (c)'s; the default), ``no-calls``, ``normal``. Prints ``time.process_time`` per deal after
a warm-up, which other load on the machine disturbs far less than wall time; the speed tables of
docs/internals.md alternate old and new code in such runs (each side with its own checkout and
NUMBA_CACHE_DIR).

``--perf-map``: numba's kernels are machine code in anonymous memory, so ``perf report`` cannot
name them. With an empty NUMBA_CACHE_DIR (kernels compiled in this process, so their LLVM modules
are at hand) this writes /tmp/perf-PID.map with every compiled function's address and size, and
the raw code of the deal loop's kernels to /tmp/code_NAME_ADDRESS.bin for ``objdump -D -b binary
-mi386:x86-64``:

    rm -rf /tmp/nc && NUMBA_CACHE_DIR=/tmp/nc perf record -e cpu-clock -F 4000 \\
        taskset -c 0 python scripts/cpu_per_deal.py random 8000000 a --perf-map
    perf report --sort sym
"""
from __future__ import annotations

import argparse
import ctypes
import os
import time

PLANS = {"a": dict(contract="normal", calls=False), "ddv": {}, "no-calls": dict(calls=False),
         "normal": dict(contract="normal")}


def write_perf_map(dump=("run_block", "start_deal", "score_deal")) -> None:
    """/tmp/perf-PID.map for every numba function compiled in this process; the code of those
    whose name contains one of ``dump`` to /tmp/code_NAME_ADDRESS.bin."""
    import gc

    from numba.core.dispatcher import Dispatcher
    entries = {}
    for obj in gc.get_objects():
        if not isinstance(obj, Dispatcher):
            continue
        for cres in list(obj.overloads.values()):
            library = cres.library
            for fn in library._final_module.functions:
                if fn.is_declaration:
                    continue
                address = library._codegen._engine.get_function_address(fn.name)
                if address:
                    entries[address] = fn.name
    if not entries:
        print("perf map: no function found (were the kernels loaded from a cache? use an empty NUMBA_CACHE_DIR)")
        return
    items = sorted(entries.items())
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for i, (address, name) in enumerate(items):
            size = items[i + 1][0] - address if i + 1 < len(items) else 4096
            short = name.split("dokosim")[-1][:100]
            out.write(f"{address:x} {size:x} {short}\n")
            if any(d in name for d in dump):
                with open(f"/tmp/code_{short[:40].strip()}_{address:x}.bin", "wb") as code:
                    code.write(ctypes.string_at(address, min(size, 1 << 20)))
    print(f"perf map: {len(items)} functions in /tmp/perf-{os.getpid()}.map")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("strategy")
    ap.add_argument("deals", type=int)
    ap.add_argument("plan", nargs="?", default="ddv", choices=list(PLANS))
    ap.add_argument("--perf-map", action="store_true")
    args = ap.parse_args()
    import numba

    from dokosim.run.simulator import Simulator, make_plan
    numba.set_num_threads(1)
    sim = Simulator(make_plan(args.deals, strategy=args.strategy, **PLANS[args.plan]))
    sim.rows(0, 1000)  # compile or load, warm
    start = time.process_time()
    for first in range(0, args.deals, 250_000):
        sim.rows(first, min(250_000, args.deals - first))
    print(f"{args.strategy}, plan {args.plan}: {(time.process_time() - start) / args.deals * 1e9:.1f} ns CPU per deal")
    if args.perf_map:
        write_perf_map()


if __name__ == "__main__":
    main()
