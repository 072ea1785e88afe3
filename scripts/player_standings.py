"""Record built-in players' duplicate results against ``heuristic`` in the standings file that
``dokosim players`` lists (dokosim/run/player_standings.json; dokosim/run/standings.py).

    python scripts/player_standings.py --players net,simple,random          # the fast ones: seconds
    python scripts/player_standings.py --players pimc,ismcts,pimc_solver    # the search players: about 45 min on 2 cores
    python scripts/player_standings.py --players simple --deals 20 --file /tmp/s.json   # a smoke run elsewhere

For each named player P it plays ``dokosim tournament P heuristic --deals N --seed S --rules ddv``
through the library (dokosim.run.tournament: the 6 seatings that give each player two seats, the
same deals in each), prints the tournament's table, and replaces P's ``duplicate`` record in the
file with the difference P - heuristic (points per deal and seat), its 95% interval, the deals,
the seed, the rules, that reproducing ``dokosim tournament`` command line, this script's command
line, the wall time, the date and the git commit. Every other player and P's recorded speed are
left as they were; the file is written atomically after each player, so an interrupted run keeps
the players already played.

Deals and seeds per player (``DEFAULTS``; ``--deals``/``--seed`` override them for every player
named). Seeds 700-799 are reserved for these standings, one per player, so that a result is
reproduced by its command and no other measurement shares its deals. The deals give 95% intervals
of about +-0.03 (the fast players: net +-0.023 at 20,000 deals) and +-0.08 (the search players)
points per deal and seat. Times (wall): the fast players' on one thread of the 2-core development
machine, measured; the search players' on both cores, measured (7 December 2026):

    player        deals   seed   time
    net          20,000    700   ~8 s
    net3         20,000    706   ~8 s
    simple       20,000    701   ~1 s
    random       20,000    702   ~1 s
    pimc          2,000    703   34 s       (measured 7 December 2026, both cores)
    pimc_solver   2,000    704   591 s
    ismcts        2,000    705   106 s

``heuristic`` is the reference (0 by definition) and ``dd_oracle`` reads hidden cards: neither is
played. The speeds come from ``python scripts/bench.py --only players --record``.
"""
from __future__ import annotations

import argparse
import shlex
import sys
import time

DEFAULTS = {
    "net": (20_000, 700),
    "net3": (20_000, 706),
    "simple": (20_000, 701),
    "random": (20_000, 702),
    "pimc": (2_000, 703),
    "pimc_solver": (2_000, 704),
    "ismcts": (2_000, 705),
}
"""Player: (deals, seed) of its tournament against heuristic (seeds 700-799 are reserved for these)."""
RULES = "ddv"
"""Every standing is measured under the DDV rules, so that the standings compare."""


def command(player: str, deals: int, seed: int) -> str:
    """The ``dokosim tournament`` command line that plays the same games and prints the same figures."""
    from dokosim.run.standings import OPPONENT
    return f"dokosim tournament {player} {OPPONENT} --deals {deals} --seed {seed} --rules {RULES}"


def record(player: str, deals: int, seed: int, path=None, threads=None, recorded_by: str = "", quiet=False) -> dict:
    """Play ``player`` against heuristic in duplicate and write its ``duplicate`` record to the
    standings file ``path`` (default: the shipped one). Returns the record."""
    from dokosim.run.standings import OPPONENT, provenance, update
    from dokosim.run.tournament import table, tournament
    start = time.perf_counter()
    result = tournament([player, OPPONENT], deals, seed, RULES, threads=threads, quiet=quiet)
    seconds = time.perf_counter() - start
    if not quiet:
        print(table(result), flush=True)
    diff = result.diff[f"{player}-{OPPONENT}"]
    entry = {"opponent": OPPONENT, "diff": float(diff.mean), "ci95": [float(diff.lo), float(diff.hi)],
             "deals": int(result.deals), "seatings": len(result.seatings), "seed": int(result.seed),
             "rules": result.rules.to_dict(), "command": command(player, deals, seed),
             "recorded_by": recorded_by, "seconds": round(seconds, 1), **provenance()}
    update(player, "duplicate", entry, path)
    return entry


def main(argv=None):
    from dokosim.run.players import PLAYERS
    from dokosim.run.standings import OPPONENT, STANDINGS_FILE, StandingsError, read
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", required=True, help=f"comma-separated, of: {', '.join(DEFAULTS)}")
    ap.add_argument("--deals", type=int, default=None, help="deals for every player named (default: DEFAULTS)")
    ap.add_argument("--seed", type=int, default=None, help="seed for every player named (default: DEFAULTS; "
                                                          "700-799 are reserved for the standings)")
    ap.add_argument("--threads", type=int, default=None, help="threads (default: all); the results do not depend on it")
    ap.add_argument("--file", default=None, help=f"the standings file (default: {STANDINGS_FILE})")
    ap.add_argument("--quiet", action="store_true", help="no progress bars or tables")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.players.split(",") if n.strip()]
    kinds = {name: kind for name, _, kind in PLAYERS}
    for name in names:
        if name == OPPONENT:
            ap.error(f"{OPPONENT} is the reference (0 by definition): it is not played")
        if kinds.get(name) == "reads hidden cards":
            ap.error(f"{name} reads the other players' cards: it has no fair standing")
        if name not in DEFAULTS:
            ap.error(f"{name!r} is not a built-in player with a standing; valid: {', '.join(DEFAULTS)}")
    if args.deals is not None and args.deals < 2:
        ap.error("--deals: at least 2 (an interval needs two)")
    try:
        read(args.file)  # a damaged file is refused before any tournament plays
    except StandingsError as exc:
        raise SystemExit(f"error: {exc}") from None
    recorded_by = shlex.join(["python", "scripts/player_standings.py", *argv])
    for name in names:
        deals, seed = DEFAULTS[name]
        deals = args.deals if args.deals is not None else deals
        seed = args.seed if args.seed is not None else seed
        if not args.quiet:
            print(f"{name}: {command(name, deals, seed)}", flush=True)
        try:
            entry = record(name, deals, seed, args.file, args.threads, recorded_by, args.quiet)
        except StandingsError as exc:
            raise SystemExit(f"error: {exc}") from None
        print(f"recorded {name} - {OPPONENT}: {entry['diff']:+.3f} [{entry['ci95'][0]:+.3f}, {entry['ci95'][1]:+.3f}] "
              f"({deals:,} deals, seed {seed}, {entry['seconds']:.0f} s) in {args.file or STANDINGS_FILE}", flush=True)


if __name__ == "__main__":
    main()
