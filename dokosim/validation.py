"""The argument checks of the Python API (``dokosim.simulate``, ``simulate_sessions``,
``probe_calls``, ``tournament``): one small function per kind of argument, called at the top of
each public entry point before any work.

A bad argument raises ``SimulationError`` (a ``ValueError``), or the subclass the caller passes
as ``error`` (``SessionError``, ``TournamentError``), with one line naming the argument, the
value and what is valid::

    seed='x' is not valid: an integer from 0 to 2**63-1

Nothing is rounded or converted silently: ``seed=1.7`` and ``chunk_size=2.5`` are refused, as
are ``True`` where a number is meant and ``"2"`` where an integer is meant. Light module (no
numba, no numpy at import): the command line and ``dokosim.tournament`` import it freely.
"""
from __future__ import annotations

import math
import numbers
import os
import re
import reprlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

SEED_LIMIT = 2**63  # seeds are 0 .. 2**63 - 1 (the kernels' int64)



# Upper bounds on the sizes a run may ask for: beyond them a run would exhaust the machine (the chunk
# bounds alone of 2**63 deals fill the memory) long before it finished. The command line reads
# these for its option ranges.
MAX_DEALS = 10**12            # deals per simulate, tournament or probe-calls run
MAX_ROUNDS = 10**10           # sessions per session run (at most 64 deals each)
MAX_NODE_LIMIT = 10**15       # a solve's node limit (the solver adds it to its int64 node count)


class SimulationError(ValueError):
    """Bad arguments to simulate and the other runs (each message names the argument, the bad
    value and what is valid)."""


def _short_repr() -> reprlib.Repr:
    short = reprlib.Repr()  # (keyword arguments only from Python 3.12)
    short.maxlevel, short.maxdict, short.maxlist, short.maxstring, short.maxother = 3, 4, 6, 40, 40
    return short


_REPR = _short_repr()


def shown(value, limit: int = 60) -> str:
    """``repr(value)`` for an error line: one line, cut to ``limit`` characters and a few levels (a
    value may be huge, or nested deeper than ``repr`` can go)."""
    text = re.sub(r"\n\s*", " ", _REPR.repr(value))  # a numpy array's repr spans lines
    return text if len(text) <= limit else text[:limit - 3] + "..."


def invalid(name: str, value, valid: str, error: type[ValueError] = SimulationError) -> ValueError:
    """The one-line error ``NAME=VALUE is not valid: VALID`` (to raise)."""
    return error(f"{name}={shown(value, 80)} is not valid: {valid}")


def check_path_value(name: str, value, error: type[ValueError] = SimulationError) -> Path:
    """``value`` as a ``pathlib.Path`` if it is a str or an os.PathLike of one, without NUL, whose
    existence can be looked up (not too long a name); else ``error`` naming it."""
    if isinstance(value, bytes) or not isinstance(value, (str, os.PathLike)):
        raise invalid(name, value, "a path (a str or a pathlib.Path)", error)
    try:
        path = Path(value).expanduser()
        path.exists()
    except (TypeError, ValueError, RuntimeError) as exc:  # a bytes PathLike, NUL, no home directory
        raise invalid(name, value, f"a path ({exc})", error) from None
    except OSError as exc:  # a name too long, a loop of links
        raise invalid(name, value, f"a path the system can look up ({exc.strerror or exc})", error) from None
    return path


def is_int(value) -> bool:
    """True for a Python or numpy integer, False for bool, float and everything else."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and not _is_numpy_bool(value)


def _is_numpy_bool(value) -> bool:
    return type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")


def _bound(x) -> str:
    if x == SEED_LIMIT - 1:
        return "2**63-1"
    return f"{x:,}" if x >= 10_000 else str(x)


def check_int(name: str, value, lo: int, hi: int, error: type[ValueError] = SimulationError,
              valid: str | None = None) -> int:
    """``value`` as an int if it is an integer from ``lo`` to ``hi``; else ``error`` naming it
    (``valid``, if given, says what is valid instead of "an integer from LO to HI")."""
    if not is_int(value) or not lo <= value <= hi:
        raise invalid(name, value, valid or f"an integer from {_bound(lo)} to {_bound(hi)}", error)
    return int(value)


def check_optional_int(name: str, value, lo: int, hi: int, error: type[ValueError] = SimulationError,
                       valid: str | None = None) -> int | None:
    """``None``, or ``check_int``."""
    if value is None:
        return None
    return check_int(name, value, lo, hi, error, valid or f"None or an integer from {_bound(lo)} to {_bound(hi)}")


def check_bool(name: str, value, error: type[ValueError] = SimulationError) -> bool:
    """``value`` if it is ``True`` or ``False`` (numpy's too); else ``error`` naming it."""
    if isinstance(value, bool) or _is_numpy_bool(value):
        return bool(value)
    raise invalid(name, value, "True or False", error)


def check_seed(value, error: type[ValueError] = SimulationError) -> int:
    """A seed: an integer from 0 to 2**63-1."""
    return check_int("seed", value, 0, SEED_LIMIT - 1, error)


def check_threads(value, error: type[ValueError] = SimulationError) -> int | None:
    """``None`` (all cores) or a thread count from 1 to numba's maximum."""
    if value is None:
        return None
    import numba
    most = numba.config.NUMBA_NUM_THREADS
    return check_int("threads", value, 1, most, error, f"None (all cores) or an integer from 1 to {most}")


def check_optional_str(name: str, value, valid: str, error: type[ValueError] = SimulationError) -> str | None:
    """``None`` or a string; ``valid`` says what the string may be."""
    if value is None or isinstance(value, str):
        return value
    raise invalid(name, value, valid, error)


def check_path(name: str, value, error: type[ValueError] = SimulationError) -> str | os.PathLike | None:
    """``None``, a string or a path (``os.PathLike``); only the type is checked here."""
    if value is None or isinstance(value, (str, os.PathLike)):
        return value
    raise invalid(name, value, "None, a string or a path (os.PathLike)", error)


def check_number(name: str, value, lo: float, hi: float, integer: bool = False,
                 error: type[ValueError] = SimulationError, valid: str | None = None) -> float:
    """``value`` as a float if it is a finite real number (not a bool) from ``lo`` to ``hi``,
    and whole when ``integer``; else ``error`` naming it."""
    what = valid or describe_range(lo, hi, integer)
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or _is_numpy_bool(value):
        raise invalid(name, value, what, error)
    x = float(value)
    if not math.isfinite(x) or not lo <= x <= hi or (integer and not x.is_integer()):
        raise invalid(name, value, what, error)
    return x


def describe_range(lo: float, hi: float, integer: bool = False) -> str:
    """What ``check_number`` accepts, in words: "a number from 0 to 1"."""
    def show(x):
        return str(int(x)) if float(x).is_integer() else str(x)
    kind = "a whole number" if integer else "a number"
    return f"{kind} from {show(lo)} to {show(hi)}"


def strategy_names(value, players: int, error: type[ValueError] = SimulationError) -> list[str]:
    """The strategy at each of ``players`` seats from ``strategy``: one name for every seat,
    ``"a,b,c,d"``, or a list or tuple of names (one, or one per seat)."""
    valid = f"a strategy name, or {players} (one per seat) as 'a,b,...' or a list of names"
    if isinstance(value, str):
        names = [n.strip() for n in value.split(",")]
    elif isinstance(value, (list, tuple)) and all(isinstance(n, str) for n in value):
        names = [n.strip() for n in value]
    else:
        raise invalid("strategy", value, valid, error)
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise invalid("strategy", value, f"give one strategy or {players} (one per seat), got {len(names)}",
                      error)
    if not all(names):
        raise invalid("strategy", value, "every name non-empty; " + valid, error)
    return names


@dataclass(frozen=True)
class ParamSpec:
    """A strategy parameter as its module declares it: PARAMS gives the default and the help,
    PARAM_RANGES the values it may take (``lo`` to ``hi``, whole numbers when ``integer``)."""

    name: str
    default: float
    lo: float = -math.inf
    hi: float = math.inf
    integer: bool = False
    help: str = ""

    def valid(self) -> str:
        """What the parameter accepts, in words."""
        if math.isinf(self.lo) and math.isinf(self.hi):
            return "a finite number"
        return describe_range(self.lo, self.hi, self.integer)

    def check(self, label: str, value, error: type[ValueError] = SimulationError, owner: str = "") -> float:
        """``value`` as a float if this parameter may take it; else ``error`` naming ``label``
        (and the strategy ``owner``, if given)."""
        who = f"strategy {owner!r} parameter " if owner else ""
        return check_number(label, value, self.lo, self.hi, self.integer, error,
                            f"{who}{self.name!r} is {self.valid()}")


def check_params(params, targets: Mapping, specs_of: Callable[[str], Mapping[str, ParamSpec]],
                 keys_valid: str, error: type[ValueError] = SimulationError,
                 param_error: type[ValueError] | None = None) -> dict:
    """Check ``params`` (``{key: {parameter: value}}``) against the run and return a clean copy
    (int keys as ints, values as floats).

    ``targets``: each key the run accepts and the names of the strategies it addresses (a seat:
    the strategy there; a name: itself; ``"*"``: all). ``specs_of(name)``: that strategy's
    declared parameters. ``keys_valid``: what the keys may be, for the message. A key the run
    does not have, a parameter the strategies it addresses do not all have, or a value outside
    the parameter's range is refused naming it: with ``error`` for the keys and the form,
    ``param_error`` (default ``error``) for a strategy's parameter names and values.
    """
    param_error = param_error or error
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise invalid("params", params, "None or a dict {seat, strategy name or '*': {parameter: number}}",
                      error)
    clean: dict = {}
    for key, table in params.items():
        if _is_numpy_bool(key) or isinstance(key, bool) or not isinstance(key, (str, numbers.Integral)):
            raise error(f"params key {key!r} is not valid: {keys_valid}")
        key = int(key) if is_int(key) else key
        if key not in targets:
            raise error(f"params key {key!r} is not valid: {keys_valid}")
        if not isinstance(table, Mapping):
            raise invalid(f"params[{key!r}]", table, "a dict {parameter name: number}", error)
        names = list(dict.fromkeys(targets[key]))
        entry = {}
        for param, value in table.items():
            label = f"params[{key!r}][{param!r}]"
            value_seen = None
            for name in names:
                specs = specs_of(name)
                if not isinstance(param, str) or param not in specs:
                    have = ", ".join(f"{s.name} ({s.valid()})" for s in specs.values()) or "none"
                    raise param_error(f"{label} is not valid: strategy {name!r} has no parameter {param!r}; "
                                f"its parameters: {have}")
                value_seen = specs[param].check(label, value, param_error, name)
            entry[param] = value_seen
        clean[key] = entry
    return clean


def where_raised(exc: BaseException) -> str:
    """``Kind: message (file:line)`` of an exception raised in a user's code: the last frame of
    its traceback (a SyntaxError names its own place)."""
    import traceback
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} ({exc.filename}:{exc.lineno})"
    frames = traceback.extract_tb(exc.__traceback__)
    place = f" ({frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message}{place}"
