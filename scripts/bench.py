"""Benchmarks (not tests): dokosim's speed as ratios to the C floor, measured in one run.

    python scripts/bench.py [--quick] [--only score,a,b,c,d,e,e2e,heuristic,club,pimc,net,players,dask,solver,conditions,game,vector]
    python scripts/bench.py --only a,e2e        # issue 48: the kernels in memory and end to end to Parquet
    python scripts/bench.py --only players --record   # issue 44: every built-in's deals/s per core, into the
                                                      # standings dokosim players lists (--players net,pimc: some)

Compiles scripts/c_floor.c with gcc, runs it three times on core 0 (the best
counts, as for every dokosim figure), then times dokosim's own kernels (the
ones every user run goes through; one-thread figures on the same core 0) and
prints each figure with its ratio to the C floor's hands per second.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


FLOOR_CORE = 0  # the C floor runs on this core; one-thread dokosim figures run there too


def c_floor(hands: int, repeat: int = 3) -> float:
    """The C floor's hands per second on core FLOOR_CORE: the best of ``repeat`` runs, as every
    dokosim figure is the best of its runs (the least disturbed one on a shared machine)."""
    exe = Path(tempfile.gettempdir()) / "dokosim_c_floor"
    subprocess.run(["gcc", "-O3", "-march=native", "-o", str(exe), str(HERE / "c_floor.c")], check=True)
    best = 0.0
    for _ in range(repeat):
        out = subprocess.run(["taskset", "-c", str(FLOOR_CORE), str(exe), str(hands)] if shutil.which("taskset")
                             else [str(exe), str(hands)], capture_output=True, text=True, check=True).stdout
        fields = dict(kv.split("=") for kv in out.split())
        print(f"C floor: {out.strip()}")
        best = max(best, float(fields["hands_per_s"]))
    print(f"C floor: best of {repeat}: {best:,.0f} hands/s")
    return best


class on_floor_core:
    """Run the calling thread on the C floor's core for a one-thread figure (numba's one-thread
    prange runs in the calling thread), so that one-core figures compare like with like: on a
    2-vCPU virtual machine an unpinned thread also migrates between cores and meets the other
    core's load, which moved figure (a) by a third between runs."""

    def __enter__(self):
        self.saved = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        if self.saved is not None and FLOOR_CORE in self.saved:
            os.sched_setaffinity(0, {FLOOR_CORE})
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            os.sched_setaffinity(0, self.saved)


def timed(fn, repeat=3):
    """Best wall time of ``repeat`` calls (the machine is shared: the best is the least disturbed)."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def report(label: str, per_s: float, floor: float, unit="deals/s"):
    print(f"{label:58} {per_s:12,.0f} {unit:10} ratio {per_s / floor:6.3f}")


def bench_kernel(label, floor, n, threads, chunk=250_000, **plan_kwargs):
    """Deals per second of the simulator's chunk loop (as simulate() runs it, without the DataFrame)."""
    import numba

    from dokosim.run.simulator import Simulator, make_plan
    numba.set_num_threads(threads)
    sim = Simulator(make_plan(n, **plan_kwargs))
    sim.rows(0, 1000)  # compile / warm

    def run():
        for first in range(0, n, chunk):
            sim.rows(first, min(chunk, n - first))
    if threads == 1:
        with on_floor_core():
            t = timed(run)
    else:
        t = timed(run)
    report(f"{label} [{threads} thread(s)]", n / t, floor)
    return n / t


def bench_score(floor, n):
    from dokosim.records.record import score_lines
    from dokosim.run.simulate import simulate
    df = simulate(n, seed=99, strategy="random", keep_play=True,
                  params={"*": {"p_reserve": 0.2, "p_call": 0.1}})
    lines = list(df["record"])
    list(score_lines(lines[:100]))

    import orjson

    def run():  # what `dokosim score` does per line, without the terminal
        for out in score_lines(lines):
            orjson.dumps(out, option=orjson.OPT_APPEND_NEWLINE)
    t = timed(run, repeat=2)
    report(f"score: {n} records, parse + replay + JSON out", n / t, floor, "records/s")
    print(f"{'':58} (acceptance: ratio >= 1/64 = {1 / 64:.4f})")


def bench_end_to_end(floor, n, chunk):
    from dokosim.run.simulate import simulate
    out = Path(tempfile.mkdtemp(prefix="dokosim_bench_")) / "run"
    simulate(1000, seed=1, strategy="simple")  # compile
    t = time.perf_counter()
    simulate(n, seed=1, strategy="simple", out=out, chunk_size=chunk)
    wall = time.perf_counter() - t
    size = sum(f.stat().st_size for f in out.glob("*.parquet"))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report(f"(d) end to end to Parquet, {n:,} deals, simple, DDV", n / wall, floor)
    print(f"{'':58} wall {wall:.1f} s, peak RSS {rss:.0f} MB, {size / n:.1f} bytes/deal")
    shutil.rmtree(out.parent)


E2E_COMMAND = ["simulate", "--deals", "{deals}", "--strategy", "random", "--contract", "normal", "--no-calls",
               "--threads", "{threads}", "--out", "{out}"]


def run_command(args: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MB, CPU seconds) of ``dokosim ARGS`` as a new process (start-up
    included), its output discarded; the peak and the CPU time (user + system, all its threads)
    are the child's own (os.wait4). The child runs the dokosim this
    script imports (its directory first on PYTHONPATH, the working directory elsewhere: ``python
    -m`` puts the working directory first on the path)."""
    import dokosim
    source = str(Path(dokosim.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([source, *filter(None, [os.environ.get("PYTHONPATH")])]))
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "dokosim.cli", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, cwd=tempfile.gettempdir())
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"dokosim {' '.join(args)} failed ({proc.returncode}): {err.strip()}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def bench_e2e(floor, deals, repeat=3, threads=(1, 2), in_memory=None):
    """Issue 48: ``dokosim simulate --deals N --strategy random --contract normal --no-calls
    --threads T --out DIR`` end to end, Parquet written, as a new process each time (process
    start included; a fresh DIR each time; the kernel cache warm: one untimed run first), best
    of ``repeat``, for each thread count, as a ratio to the C floor of this run (acceptance:
    1 thread >= 0.5, 2 threads >= 0.9). The process is not pinned: the writer thread that
    writes chunk k while chunk k+1 is simulated runs on another core. Also its peak RSS and
    the dataset's bytes per deal. With ``in_memory`` (threads -> the kernels' deals/s in memory,
    sections (a) and (b) of the same run) also each thread count's ceiling: the start-up plus the
    simulation alone, as if encoding and writing cost nothing."""
    root = Path(tempfile.mkdtemp(prefix="dokosim_e2e_"))
    out = root / "run"

    def once(n, t):
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(root / "run.dokosim", ignore_errors=True)
        return run_command([a.format(deals=n, threads=t, out=out) for a in E2E_COMMAND])
    import dokosim
    print(f"(e2e) dokosim from {Path(dokosim.__file__).resolve().parent}")
    try:
        once(1000, 1)  # the kernel cache loaded (or compiled) once, untimed
        for t in threads:
            best, peak, cpu = float("inf"), 0.0, float("inf")
            for _ in range(repeat):
                wall, rss, used = once(deals, t)
                best, peak, cpu = min(best, wall), max(peak, rss), min(cpu, used)
            size = sum(f.stat().st_size for f in out.glob("*.parquet"))
            report(f"(e2e) simulate --deals {deals:,} ... --threads {t} --out DIR", deals / best, floor)
            print(f"{'':58} best of {repeat}: {best:.2f} s wall, process start included; CPU {cpu:.2f} s "
                  f"(all threads); peak RSS {peak:.0f} MB; {size / deals:.1f} bytes/deal "
                  f"(load {os.getloadavg()[0]:.1f})")
        wall, _, _ = run_command(["simulate", "--deals", "1000", "--strategy", "random", "--contract", "normal",
                               "--no-calls", "--threads", "1", "--quiet"])
        print(f"{'':58} start-up: simulate --deals 1000 takes {wall:.2f} s")
        for t, rate in sorted((in_memory or {}).items()):
            ceiling = deals / (wall + deals / rate)
            print(f"{'':58} ceiling at {t} thread(s), writing free: {deals:,} / ({wall:.2f} s + "
                  f"{deals / rate:.2f} s) = {ceiling:,.0f} deals/s, {ceiling / floor:.3f} of the floor")
        print(f"{'':58} (acceptance: 1 thread >= 0.5, 2 threads >= 0.9)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def bench_compile():
    code = ("import time; t=time.perf_counter(); from dokosim.run.simulate import simulate; "
            "simulate(100, strategy='simple'); print(time.perf_counter()-t)")
    cold_dir = tempfile.mkdtemp(prefix="dokosim_cold_")
    env = dict(os.environ, NUMBA_CACHE_DIR=cold_dir + "/numba", DOKOSIM_CACHE_DIR=cold_dir + "/doko")
    cold = float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                check=True).stdout.split()[-1])
    warm = float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                check=True).stdout.split()[-1])
    print(f"(e) compile: cold {cold:.1f} s, warm start (import + 100 deals) {warm:.2f} s")
    shutil.rmtree(cold_dir)


# ---- strategies heuristic and pimc (issue 4) and the club preset (issue 5) ----------------
def bench_heuristic(floor, n):
    """heuristic at all seats, full DDV rules, 2 threads (acceptance: ratio >= 0.08)."""
    v = bench_kernel("(h) heuristic at all seats, full DDV rules", floor, n, 2, chunk=50_000,
                     seed=1, strategy="heuristic")
    print(f"{'':58} (acceptance: ratio >= 0.08)")
    return v


def bench_club(floor, n):
    """heuristic at all seats under --rules club against ddv, same thread count (acceptance: >= 0.8)."""
    ddv = bench_kernel("(h-ddv) heuristic at all seats, rules ddv", floor, n, 2, chunk=50_000,
                       seed=1, strategy="heuristic", rules="ddv")
    club = bench_kernel("(h-club) heuristic at all seats, rules club", floor, n, 2, chunk=50_000,
                        seed=1, strategy="heuristic", rules="club")
    print(f"{'':58} speed club / ddv: {club / ddv:.3f} (acceptance: >= 0.8)")


def bench_pimc(floor, n, pairs=2):
    """pimc at all seats, one thread: full deals per second per core (acceptance: >= 1) at the default
    budget (rollouts only, ``solve_tricks=0``) and pimc_solver's (the solver in the last six tricks,
    ``solve_tricks=6``). CPU
    time (time.process_time: the machine is shared), the two in alternating pairs of n deals each
    (new deals every pair), the total of each."""
    import numba

    from dokosim.run.simulator import Simulator, make_plan
    numba.set_num_threads(1)
    sides = (("pimc_solver: solver endgame, solve_tricks=6", {"*": {"solve_tricks": 6}}), ("default, rollouts only", None))
    sims = [Simulator(make_plan(2 + pairs * n, seed=1, strategy="pimc", params=params)) for _, params in sides]
    for sim in sims:
        sim.rows(0, 2)  # compile / warm
    cpu = [0.0] * len(sides)
    with on_floor_core():
        for p in range(pairs):
            for i, sim in enumerate(sims):
                t = time.process_time()
                sim.rows(2 + p * n, n)  # rows(first, count): n deals
                cpu[i] += time.process_time() - t
    for (label, _), t in zip(sides, cpu):
        per_core = pairs * n / t
        report(f"(p) pimc at all seats, {label} [1 thread]", per_core, floor)
        print(f"{'':58} {per_core:.2f} deals/s per core, CPU time (acceptance: >= 1)")
    print(f"{'':58} solve_tricks=6 / rollouts only: {cpu[1] / cpu[0]:.2f} (speed ratio)")


def bench_net(floor, n, n_pimc=40):
    """net at all seats, one thread, deals per second per core (CPU time; acceptance: >= 1,000,
    goal 5,000), with heuristic and pimc from the same run (issue 31)."""
    import numba

    from dokosim.run.simulator import Simulator, make_plan
    numba.set_num_threads(1)
    per_core = {}
    for name, deals in (("net", n), ("heuristic", n), ("pimc", n_pimc)):
        sim = Simulator(make_plan(2 + deals, seed=1, strategy=name))
        sim.rows(0, 2)  # compile / warm
        with on_floor_core():
            t = time.process_time()
            sim.rows(2, 2 + deals)
            per_core[name] = deals / (time.process_time() - t)
        report(f"(n) {name} at all seats [1 thread]", per_core[name], floor)
    sim = Simulator(make_plan(2 + n_pimc // 4, seed=1, strategy="pimc", params={"*": {"rollout_net": 1}}))
    sim.rows(0, 2)
    with on_floor_core():
        t = time.process_time()
        sim.rows(2, 2 + n_pimc // 4)
        per_core["pimc, rollout_net=1"] = (n_pimc // 4) / (time.process_time() - t)
    report("(n) pimc with net rollouts at all seats [1 thread]", per_core["pimc, rollout_net=1"], floor)
    print(f"{'':58} net {per_core['net']:,.0f}, heuristic {per_core['heuristic']:,.0f}, pimc "
          f"{per_core['pimc']:,.1f}, pimc with net rollouts {per_core['pimc, rollout_net=1']:,.1f} deals/s per core, "
          "CPU time (acceptance: net >= 1,000; goal 5,000)")


PLAYER_DEALS = {"random": 1_000_000, "simple": 400_000, "heuristic": 100_000, "net": 20_000, "net3": 20_000, "pimc": 1_000,
                "ismcts": 600, "pimc_solver": 200}
"""Deals of the players section per built-in (about 1-3 s of CPU time each for the fast ones, best
of 3 passes; 20-40 s for the search players, one pass: a few minutes in all; --quick: a tenth)."""


def bench_players(floor, scale, names=None, record=False, standings=None, command=None):
    """Issue 44: each built-in player at every seat, one thread on the C floor's core, full DDV rules:
    deals per second per core in CPU time (time.process_time: the machine is shared), the fast players
    the best of 3 passes over the same deals, the search players one pass. With ``record`` each
    figure replaces that player's ``speed`` in the standings file ``dokosim players`` reads
    (dokosim/run/standings.py; ``standings``: another file), with the command line (``command``,
    default this process's), deals and date."""
    import shlex

    import numba

    from dokosim.run.simulator import Simulator, make_plan
    from dokosim.run.standings import provenance, update
    names = list(PLAYER_DEALS) if names is None else names
    unknown = [n for n in names if n not in PLAYER_DEALS]
    if unknown:
        raise SystemExit(f"--players: {', '.join(unknown)} not measured here; valid: {', '.join(PLAYER_DEALS)}")
    if record:
        from dokosim.run.standings import StandingsError, read
        try:
            read(standings)  # a damaged file is refused before any measuring
        except StandingsError as exc:
            raise SystemExit(f"error: {exc}") from None
    numba.set_num_threads(1)
    command = command or shlex.join(["python", "scripts/bench.py", *sys.argv[1:]])
    chunk = 50_000
    for name in names:
        deals = max(4, int(PLAYER_DEALS[name] * scale))
        passes = 3 if PLAYER_DEALS[name] >= 10_000 else 1
        sim = Simulator(make_plan(2 + deals, seed=1, strategy=name))
        sim.rows(0, 2)  # compile / warm

        def run(sim=sim, deals=deals):
            for first in range(2, 2 + deals, chunk):
                sim.rows(first, min(chunk, 2 + deals - first))
        best = float("inf")
        with on_floor_core():
            for _ in range(passes):
                t = time.process_time()
                run()
                best = min(best, time.process_time() - t)
        rate = deals / best
        report(f"(players) {name} at every seat [1 thread]", rate, floor)
        print(f"{'':58} {rate:,.1f} deals/s per core, CPU time, {deals:,} deals"
              + (f", best of {passes}" if passes > 1 else ""), flush=True)
        if record:
            clock = "CPU time (time.process_time), one thread pinned to one core" + \
                (f", best of {passes} passes" if passes > 1 else "")
            update(name, "speed", {"deals_per_second_per_core": round(rate, 3 if rate < 100 else 1),
                                   "deals": deals, "threads": 1, "clock": clock, "command": command,
                                   **provenance()}, standings)
            print(f"{'':58} recorded in {standings or 'dokosim/run/player_standings.json'}", flush=True)


def bench_dask(floor, n, workers=2):
    """Issue 7: a LocalCluster of ``workers`` one-thread processes against the in-process run on all
    threads, simple at all seats, n deals to Parquet; cluster start-up and kernel loading excluded
    (the timing code is shared with scripts/bench_dask.py)."""
    import numba
    from distributed import Client, LocalCluster

    sys.path.insert(0, str(HERE))
    from bench_dask import timed_run, warm

    from dokosim.run.simulate import simulate
    plan_kwargs = dict(seed=1, strategy="simple", rules="ddv")
    common = dict(chunk_size=250_000, quiet=True, **plan_kwargs)
    simulate(1000, **plan_kwargs)
    local = timed_run(f"in process, {numba.get_num_threads()} threads", n, **common)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      protocol="tcp", dashboard_address=":0") as cluster, \
            Client(cluster, set_as_default=False) as client:
        client.run(warm, plan_kwargs)
        remote = timed_run(f"Dask LocalCluster, {workers} x 1-thread workers", n,
                           scheduler=cluster.scheduler_address, **common)
    report(f"dask: {n:,} deals, simple, {workers} local workers, to Parquet", remote, floor)
    print(f"{'':58} Dask / in process: {remote / local:.3f} (acceptance: >= 0.85)")


# ---- the double-dummy solver (issue 14) ----------------------------------------------------
def bench_solver(n_start, n_six, node_cap=30_000_000, band_cap=10_000_000):
    """CPU ms per solve on one thread (time.process_time: the machine is shared): (i) exact eyes
    from the first card of random normal deals, (ii) does Re reach 121 from there, (iii) exact
    eyes with 6 tricks left (random play to trick 7), (iv) the band of Re's eyes that decides the
    game value without calls (``Solver.band`` at the edges of ``value_edges(0, 0)``, issue 34), from
    the first card, within ``band_cap`` nodes for all its searches. A fresh deal each solve (the table's
    entries of one deal do not help the next). A solve that searches more than ``node_cap``
    nodes gives up (Solver's node limit) and counts as "over the cap": a percentile that falls
    on such solves is printed as "> cap" with the time the cap took."""
    import json

    import numpy as np

    from dokosim.records.record import replay_detail
    from dokosim.run.simulate import simulate
    from dokosim.dd.solve import Solver
    df = simulate(max(n_start, n_six), seed=14, strategy="random", contract="normal", calls=False,
                  keep_play=True)
    records = [json.loads(r) for r in df["record"]]
    solver = Solver(node_limit=node_cap)
    t = time.perf_counter()
    solver.load(replay_detail({**records[0], "play": records[0]["play"][:44]})["state"])
    solver.eyes()
    print(f"solver: compiled or loaded in {time.perf_counter() - t:.1f} s; node cap {node_cap:,} per solve")

    def timings(recs, cards, solve):
        states = [replay_detail({**r, "play": r["play"][:cards]})["state"] for r in recs]
        ms, nodes, capped = [], [], []
        for state in states:
            solver.load(state)
            n0 = solver.nodes
            t = time.process_time()
            out = solve()
            ms.append(1000 * (time.process_time() - t))
            nodes.append(solver.nodes - n0)
            capped.append(out is None)
        return np.array(ms), np.array(nodes), np.array(capped)

    def quantile(ms, capped, q):
        # capped solves rank above every finished one
        order = np.lexsort((ms, capped))
        i = min(len(ms) - 1, int(np.ceil(q * len(ms))) - 1)
        j = order[i]
        return f"> {ms[j]:8.0f}" if capped[j] else f"{ms[j]:10.2f}"

    from dokosim.dd.band import value_edges
    no_calls = value_edges(0, 0)
    for label, recs, cards, solve, goal, cap in (
            ("(i) exact eyes from the first card", records[:n_start], 0, solver.eyes, 100, node_cap),
            ("(ii) does Re reach 121, from the first card", records[:n_start], 0,
             lambda: solver.reaches(121), 20, node_cap),
            ("(iii) exact eyes, 6 tricks left", records[:n_six], 24, solver.eyes, 1, node_cap),
            ("(iv) the game value's band, from the first card", records[:n_start], 0,
             lambda: solver.band(edges=no_calls), 100, band_cap)):
        solver.node_limit = cap
        ms, nodes, capped = timings(recs, cards, solve)
        print(f"{label:46} median {quantile(ms, capped, 0.5)} ms  p99 {quantile(ms, capped, 0.99)} ms  "
              f"({len(ms)} deals, {capped.sum()} over the cap; median {np.median(nodes):,.0f} nodes, "
              f"{1e6 * ms[~capped].sum() / max(1, nodes[~capped].sum()):.0f} ns per node; goal: median <= {goal} ms"
              + (f"; cap {cap:,} nodes, goal: at least 90% answered)" if cap != node_cap else ")"))


def bench_conditions(floor, n, passes=4):
    """Issue 17: deals/s under ``trumps(0) >= 9`` (dealt directly) against no condition, and the
    same condition by rejection alone, random play at all seats on one thread. CPU time per
    deal (time.process_time, which other load on a shared machine disturbs less than wall
    time), the passes alternating, the best of each; the ratio is the acceptance figure."""
    import numba

    from dokosim.run.simulator import Simulator, make_plan
    numba.set_num_threads(1)
    kinds = {"no condition": {}, "trumps(0) >= 9 (direct)": {"where": "trumps(0) >= 9"},
             "trumps(0) + 0 >= 9 (rejection only)": {"where": "trumps(0) + 0 >= 9"},
             "trumps(0) >= 11 (direct; 0.26% of deals)": {"where": "trumps(0) >= 11"}}
    sims = {}
    for label, kw in kinds.items():
        plan = make_plan(n, seed=1, strategy="random", **kw)
        sims[label] = Simulator(plan)
        sims[label].rows(0, 1000)  # compile / warm
    best = dict.fromkeys(kinds, float("inf"))
    chunk = 100_000
    for _ in range(passes):
        for label, sim in sims.items():
            t = time.process_time()
            for first in range(0, n, chunk):
                sim.rows(first, min(chunk, n - first))
            best[label] = min(best[label], time.process_time() - t)
    base = n / best["no condition"]
    for label in kinds:
        rate = n / best[label]
        print(f"conditions: {label:46} {rate:12,.0f} deals/CPU-s  ratio to unconditioned {rate / base:6.3f}"
              f"  (to C floor {rate / floor:6.3f})")
    print(f"{'':58} (acceptance: trumps(0) >= 9 at least 1/4 of the unconditioned rate)")
    import importlib
    import sys
    import tempfile
    import textwrap
    from pathlib import Path

    from dokosim.run.conditions import predicate_address
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "bench_predicate.py").write_text(textwrap.dedent("""
            from numba import njit

            @njit
            def no_aces(h0, h1, h2, h3):
                return (h1 & 0x3003003003) == 0
            """))
        sys.path.insert(0, tmp)
        importlib.invalidate_caches()
        t = time.perf_counter()
        predicate_address("bench_predicate:no_aces")
        print(f"conditions: compiling a --where-path predicate (the user's code only): "
              f"{time.perf_counter() - t:.2f} s")
        sys.path.remove(tmp)


def bench_vector(row_counts, steps):
    """Issue 16: actions per second of dokosim.VectorGame with random legal actions (drawn in numba by
    vec.random_actions, timed apart), goal >= 10 million on 2 threads. Per batch size and thread
    count, three steps: the step a policy needs with uint8 observations (VectorGame(observation=
    "uint8"): obs / vec.divisors is the float32 tensor) and with float32 observations (both with the
    int8 legal mask, rewards, done), and the step without observations (legal actions as bits).
    Wall time and CPU time (all threads) of the steps alone; the machine is shared, so the load
    average goes with each line, and "with a core per thread" is threads / (CPU seconds per
    action): the rate if each thread had a core of its own, at the CPU cost measured. The observation's bytes per second are printed beside a plain
    memory copy's, the bound the float32 observation meets."""
    import numba
    import numpy as np

    from dokosim.game.vector import VectorGame
    a = np.ones(16 << 20, np.float32)  # 64 MB, beyond the caches
    b = np.empty_like(a)
    copy_s = timed(lambda: np.copyto(b, a))
    print(f"(v) memory: a 64 MB copy moves {2 * a.nbytes / copy_s / 1e9:.1f} GB/s (read + write)")
    cores = numba.config.NUMBA_NUM_THREADS
    steps_for = {"uint8": "policy step, uint8 obs + int8 mask", "float32": "policy step, float32 obs + int8 mask",
                 None: "no observation, legal as bits"}
    for n in row_counts:
        for observation, legal in (("uint8", "mask"), ("float32", "mask"), (None, "bits")):
            for threads in sorted({1, cores}):
                numba.set_num_threads(threads)
                vec = VectorGame(n, seed=1, observation=observation, legal=legal)
                actions = np.empty(n, np.int64)
                for _ in range(20):  # compiled / loaded, warm
                    vec.step(vec.random_actions(actions))
                wall = cpu = 0.0
                for _ in range(steps):
                    vec.random_actions(actions)
                    t, c = time.perf_counter(), time.process_time()
                    vec.step(actions)
                    wall += time.perf_counter() - t
                    cpu += time.process_time() - c
                done = n * steps
                obs_rate = "" if observation is None else \
                    f"; obs {done / wall * vec.obs[0].nbytes / 1e9:.1f} GB/s"
                print(f"(v) VectorGame {n:5,} rows, {steps_for[observation]:36} [{threads} thread(s)]: "
                      f"{done / wall:12,.0f} actions/s, {done / cpu:12,.0f} per CPU-second, "
                      f"{threads * done / cpu:12,.0f} with a core per thread "
                      f"(load {os.getloadavg()[0]:.1f}{obs_rate})")
    numba.set_num_threads(cores)
    print(f"{'':4}goal: 10,000,000 actions/s on 2 threads")


def bench_game(floor, n_deals):
    """Issue 16: actions per second of a random agent in a Python loop through dokosim.Game on one
    thread (legal_actions, random.choice, apply_action; a new Game per deal), goal >= 100,000; and
    the deals per second of the example Python agent (LowestCard) against simple through Game."""
    import random

    import numba

    from dokosim.game.agents import LowestCard, play_deals, register_agent
    from dokosim.game.game import Game
    numba.set_num_threads(1)
    Game(seed=0).apply_action(24)  # compile / warm
    rng = random.Random(1)

    def run():
        actions = 0
        for deal_id in range(n_deals):
            game = Game(seed=1, deal_id=deal_id)
            while not game.is_terminal():
                game.apply_action(rng.choice(game.legal_actions()))
                actions += 1
        return actions
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        actions = run()
        best = min(best, time.perf_counter() - t)
    report("(g) random agent through Game in Python [1 thread]", actions / best, floor, "actions/s")
    print(f"{'':58} {actions / best:,.0f} actions/s (goal: >= 100,000); {n_deals / best:,.0f} deals/s")
    register_agent("LowestCard", LowestCard)
    deals = max(50, n_deals // 20)
    t = timed(lambda: play_deals(deals, 1, "ddv", ["LowestCard", "simple", "LowestCard", "simple"]), repeat=1)
    report("(g) LowestCard (Python) vs simple through Game [1 thread]", deals / t, floor)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer deals (a smoke run)")
    ap.add_argument("--only", default="score,a,b,c,d,e",
                    help="comma-separated sections (also: e2e, heuristic, club, pimc, net, players, dask, solver, conditions, game, vector)")
    ap.add_argument("--e2e-deals", type=int, default=None,
                    help="deals of the e2e section's command (default 2,000,000; --quick: 200,000)")
    ap.add_argument("--e2e-repeat", type=int, default=3, help="timed runs per thread count in the e2e section")
    ap.add_argument("--players", default=None,
                    help="the players section: comma-separated built-ins to measure (default: all but dd_oracle)")
    ap.add_argument("--record", action="store_true",
                    help="the players section: write each speed into the standings file dokosim players reads")
    ap.add_argument("--standings", default=None,
                    help="with --record: this standings file instead of dokosim/run/player_standings.json")
    args = ap.parse_args()
    only = set(args.only.split(","))
    if (args.record or args.players or args.standings) and "players" not in only:
        ap.error("--players, --record and --standings belong to the players section: add --only players")
    import numba
    cores = numba.config.NUMBA_NUM_THREADS
    scale = 0.1 if args.quick else 1.0
    floor = c_floor(int(4_000_000 * scale))
    print(f"cores: {cores}; every ratio is dokosim / C floor (one core), same run\n")
    random_normal = dict(seed=1, strategy="random", contract="normal", calls=False)
    in_memory = {}  # threads -> deals/s of the kernels in memory, (a) and (b): e2e's ceiling
    if "score" in only:
        bench_score(floor, int(100_000 * scale))
    if "a" in only or "b" in only:
        one = in_memory[1] = bench_kernel("(a) random play, normal forced, no calls", floor,
                                          int(2_000_000 * scale), 1, **random_normal)
        if "b" in only:
            many = in_memory[cores] = bench_kernel("(b) the same, all threads", floor, int(4_000_000 * scale),
                                                   cores, **random_normal)
            print(f"{'':58} speed-up over 1 thread: {many / one:.2f}")
    if "c" in only:
        bench_kernel("(c) full DDV rules, simple at all seats", floor, int(2_000_000 * scale), cores,
                     seed=1, strategy="simple")
    if "d" in only:
        bench_end_to_end(floor, int(10_000_000 * scale), 250_000)
    if "e" in only:
        bench_compile()
    if "e2e" in only:
        bench_e2e(floor, args.e2e_deals or int(2_000_000 * scale), repeat=args.e2e_repeat, in_memory=in_memory)
    if "heuristic" in only:
        bench_heuristic(floor, int(400_000 * scale))
    if "club" in only:
        bench_club(floor, int(400_000 * scale))
    if "pimc" in only:
        bench_pimc(floor, max(4, int(100 * scale)))
    if "players" in only:
        bench_players(floor, scale, None if args.players is None else args.players.split(","), args.record,
                      args.standings)
    if "net" in only:
        bench_net(floor, int(100_000 * scale), max(10, int(40 * scale)))
    if "dask" in only:
        bench_dask(floor, int(20_000_000 * scale))
    if "conditions" in only:
        bench_conditions(floor, int(1_000_000 * scale))
    if "vector" in only:
        bench_vector((1024, 4096) if not args.quick else (512,), max(50, int(1000 * scale)))
    if "game" in only:
        bench_game(floor, max(200, int(20_000 * scale)))
    if "solver" in only:
        numba.set_num_threads(1)
        bench_solver(max(5, int(50 * scale)), max(20, int(500 * scale)))


if __name__ == "__main__":
    main()
