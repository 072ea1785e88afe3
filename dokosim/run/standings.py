"""The built-in players' measured standings: a results file, written by the measurements, read by
``dokosim players``.

``player_standings.json`` (shipped beside this module, package data) holds per player name

- ``duplicate``: its duplicate tournament against ``heuristic`` (``dokosim tournament P heuristic``,
  the 6 seatings that give each two seats), written by ``scripts/player_standings.py``: ``diff``,
  the difference P - heuristic in points per deal and seat, ``ci95`` its 95% interval ``[low,
  high]``, ``deals``, ``seatings``, ``seed``, ``rules`` (``Rules.to_dict``), ``command`` (the
  ``dokosim tournament`` command line that plays the same games and prints the same figures),
  ``recorded_by`` (the script's command line), ``seconds`` (its wall time), ``date``, ``commit``
  (the dokosim checkout's git commit, None outside one) and ``dirty`` (uncommitted changes in it
  besides this file);
- ``speed``: deals per second per core with the player at every seat, one thread, CPU time,
  written by ``scripts/bench.py --only players --record``: ``deals_per_second_per_core``,
  ``deals``, ``threads``, ``clock``, ``command``, ``date``, ``commit``, ``dirty``.

Nothing here is typed by hand: ``update`` replaces one section of one player (reading the file,
validating it and the new record, writing a temporary file, flushing it to disk and renaming it
into place, under a lock), so a failed or interrupted write leaves the file as it was. A damaged
file is refused with one line (``StandingsError``), never silently rewritten.

Plain data and the standard library only (no kernel import), so ``dokosim players`` starts fast.
"""
from __future__ import annotations

import contextlib
import datetime
import json
import math
import os
import subprocess
from pathlib import Path

SCHEMA_VERSION = 1
OPPONENT = "heuristic"
"""Every recorded duplicate result is against this player; it stands at 0 by definition."""
STANDINGS_FILE = Path(__file__).with_name("player_standings.json")
"""The shipped standings (package data, pyproject.toml)."""

SECTIONS = ("duplicate", "speed")
_DUPLICATE_FIELDS = {"opponent": str, "diff": float, "ci95": list, "deals": int, "seatings": int, "seed": int,
                     "rules": dict, "command": str, "recorded_by": str, "seconds": float, "date": str,
                     "commit": (str, type(None)), "dirty": bool}
_SPEED_FIELDS = {"deals_per_second_per_core": float, "deals": int, "threads": int, "clock": str,
                 "command": str, "date": str, "commit": (str, type(None)), "dirty": bool}
FIELDS = {"duplicate": _DUPLICATE_FIELDS, "speed": _SPEED_FIELDS}


class StandingsError(ValueError):
    """A standings file that cannot be read or a record that is not valid: one line naming the file
    and what is wrong."""


def empty() -> dict:
    """A standings object without players."""
    return {"schema_version": SCHEMA_VERSION, "opponent": OPPONENT,
            "about": "measured, not typed: duplicate results against heuristic by scripts/player_standings.py, "
                     "speeds by scripts/bench.py --only players --record (dokosim/run/standings.py)",
            "players": {}}


def _number(value, kind) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def check_record(section: str, record, where: str = "") -> dict:
    """``record`` checked as a ``section`` record (its fields, types and ranges); returns it.
    StandingsError (one line, prefixed with ``where``) otherwise."""
    prefix = f"{where}: " if where else ""
    if section not in FIELDS:
        raise StandingsError(f"{prefix}unknown section {section!r} (valid: {', '.join(SECTIONS)})")
    if not isinstance(record, dict):
        raise StandingsError(f"{prefix}{section} is not an object")
    fields = FIELDS[section]
    missing = [k for k in fields if k not in record]
    if missing:
        raise StandingsError(f"{prefix}{section} lacks {', '.join(missing)}")
    extra = [k for k in record if k not in fields]
    if extra:
        raise StandingsError(f"{prefix}{section} has unknown field(s) {', '.join(extra)}")
    for key, kind in fields.items():
        if not _number(record[key], kind):
            raise StandingsError(f"{prefix}{section}.{key}={record[key]!r} is not valid")
    if section == "duplicate":
        ci = record["ci95"]
        if len(ci) != 2 or not all(_number(x, float) for x in ci) or not ci[0] <= record["diff"] <= ci[1]:
            raise StandingsError(f"{prefix}duplicate.ci95={ci!r} is not an interval [low, high] around "
                                 f"diff={record['diff']!r}")
        if record["deals"] < 2 or record["seatings"] < 1 or record["seed"] < 0:
            raise StandingsError(f"{prefix}duplicate: deals, seatings or seed out of range")
        if record["opponent"] != OPPONENT:
            raise StandingsError(f"{prefix}duplicate.opponent={record['opponent']!r}: every result is "
                                 f"against {OPPONENT!r}")
    else:
        if record["deals_per_second_per_core"] <= 0 or record["deals"] < 1 or record["threads"] != 1:
            raise StandingsError(f"{prefix}speed: deals_per_second_per_core and deals must be positive, "
                                 "threads 1")
    _date(record["date"], prefix)
    return record


def _date(text: str, prefix: str) -> None:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise StandingsError(f"{prefix}date {text!r} is not YYYY-MM-DD") from None


def check(data, where: str = "") -> dict:
    """A whole standings object checked; returns it. StandingsError (one line) otherwise."""
    prefix = f"{where}: " if where else ""
    if not isinstance(data, dict):
        raise StandingsError(f"{prefix}not a JSON object")
    if data.get("schema_version") != SCHEMA_VERSION:
        raise StandingsError(f"{prefix}schema_version {data.get('schema_version')!r}, expected {SCHEMA_VERSION}")
    if data.get("opponent") != OPPONENT:
        raise StandingsError(f"{prefix}opponent {data.get('opponent')!r}, expected {OPPONENT!r}")
    players = data.get("players")
    if not isinstance(players, dict):
        raise StandingsError(f"{prefix}'players' is not an object")
    for name, entry in players.items():
        if not isinstance(entry, dict) or not entry or set(entry) - set(SECTIONS):
            raise StandingsError(f"{prefix}player {name!r}: an object of {' and/or '.join(SECTIONS)}")
        for section, record in entry.items():
            check_record(section, record, f"{where + ': ' if where else ''}player {name!r}".lstrip())
    if OPPONENT in players and "duplicate" in players[OPPONENT]:
        raise StandingsError(f"{prefix}{OPPONENT} stands at 0 by definition: it has no duplicate record")
    return data


def read(path=None) -> dict:
    """The standings in ``path`` (default: the shipped file), checked. A missing file reads as no
    players; a file that is not valid JSON or not valid standings raises StandingsError, one line
    naming the file."""
    path = Path(path) if path is not None else STANDINGS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return empty()
    except UnicodeDecodeError:
        raise StandingsError(f"standings file {str(path)!r} is damaged (not UTF-8 text); restore it (git checkout) "
                             "or record it anew") from None
    except OSError as exc:
        raise StandingsError(f"standings file {str(path)!r} cannot be read: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StandingsError(f"standings file {str(path)!r} is damaged (not JSON: {exc.msg} at line {exc.lineno}); "
                             "restore it (git checkout) or record it anew") from None
    try:
        return check(data)
    except StandingsError as exc:
        raise StandingsError(f"standings file {str(path)!r} is damaged ({exc}); restore it (git checkout) or "
                             "record it anew") from None


@contextlib.contextmanager
def _locked(directory: Path):
    """An exclusive lock on ``directory`` (flock on its descriptor: no lock file left behind), so that
    two writers (a tournament script and the bench) do not lose each other's update."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _write(path: Path, data: dict) -> None:
    from .outputs import replace_atomically

    def write(tmp: Path):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps(data, indent=2, sort_keys=False) + "\n")
            f.flush()
            os.fsync(f.fileno())
    replace_atomically(path, write)


def update(name: str, section: str, record: dict, path=None) -> dict:
    """Replace the ``section`` ("duplicate" or "speed") of player ``name`` with ``record`` in the
    standings file ``path`` (default: the shipped file; created when missing), leaving every other
    player and section as it was. The file is read and checked first (a damaged file is refused,
    StandingsError, and left alone), the record checked, and the new file written atomically.
    Returns the new standings."""
    path = Path(path) if path is not None else STANDINGS_FILE
    if not isinstance(name, str) or not name:
        raise StandingsError(f"player name {name!r} is not valid")
    check_record(section, record, f"player {name!r}")
    if name == OPPONENT and section == "duplicate":
        raise StandingsError(f"{OPPONENT} stands at 0 by definition: it has no duplicate record")
    with _locked(path.parent):
        data = read(path)
        entry = dict(data["players"].get(name, {}))
        entry[section] = record
        players = dict(data["players"])
        players[name] = {s: entry[s] for s in SECTIONS if s in entry}
        data = {**data, "players": dict(sorted(players.items()))}
        check(data, str(path))
        _write(path, data)
    return data


def provenance() -> dict:
    """``date`` (today, ISO), ``commit`` (git HEAD of the checkout dokosim is imported from, None
    outside one) and ``dirty`` (uncommitted changes there, the standings file excepted)."""
    root = Path(__file__).resolve().parents[2]
    commit, dirty = None, False
    if not ((root / "pyproject.toml").is_file() and (root / "dokosim").is_dir()):
        root = None  # an installed copy, not a checkout (a git repository around it is not dokosim's)
    try:
        if root is None:
            raise ValueError
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], check=False, capture_output=True, text=True,
                             timeout=30)
        if out.returncode == 0:
            commit = out.stdout.strip()
            status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no",
                                     "--", ".", f":!{STANDINGS_FILE.relative_to(root).as_posix()}"],
                                    check=False, capture_output=True, text=True, timeout=30)
            dirty = status.returncode != 0 or bool(status.stdout.strip())
    except (OSError, subprocess.SubprocessError, ValueError):
        commit, dirty = None, False
    return {"date": datetime.date.today().isoformat(), "commit": commit, "dirty": dirty}
