"""Strategy registry: names -> modules, parameters, and each strategy's compiled entry points.

A strategy is a Python module (or a namespace object) with three ``@njit``
functions and a parameter table:

* ``reserve(seat, hand, options, pub, rules, params, rng) -> choice``
* ``call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng) -> level``
* ``card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng) -> card``
* ``PARAMS = {"name": (default, "what it means"), ...}`` (optional), ``NAME`` (optional)
* ``PARAM_RANGES = {"name": (lo, hi), ...}`` (optional): the values each parameter may take,
  ``lo`` to ``hi`` inclusive (``(lo, hi, "integer")``: whole numbers only); a parameter without
  one takes any finite number

See ``docs/strategies.md`` for the meaning of every argument. The deal loop
(``dokosim/loop/sim_loop.py``) is compiled once for every strategy: each strategy is
compiled on its own into C entry points (a generated module in the kernel cache
directory, cached by numba) whose addresses the loop receives at run time in a
strategy table (``dokosim/loop/strategy_call.py``).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import math
import numbers
import os
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

import numpy as np

from .strategy_call import ARRAY_LENGTHS, INLINE_MODULES, MAX_PARAMS
from ..validation import ParamSpec, SimulationError
BUILTIN = {
    "random": "dokosim.strategies.random_player",
    "simple": "dokosim.strategies.simple",
    "heuristic": "dokosim.strategies.heuristic",
    "pimc": "dokosim.strategies.pimc",
    "pimc_solver": "dokosim.strategies.pimc",
    "net": "dokosim.strategies.net",
    "net3": "dokosim.strategies.net",
    "ismcts": "dokosim.strategies.ismcts",
}
PRESETS = {
    "pimc_solver": {"solve_tricks": 6.0},
    "net3": {"round": 3.0},
}
"""Built-in names that are another strategy's module with other defaults (the same compiled
code): ``pimc_solver`` is pimc valuing its cards by the double-dummy solver in the last six
tricks; ``net3`` is net playing round 3's weights (docs/strategies.md)."""
ENTRY_POINT_GROUP = "dokosim.strategies"
_EXTRA: dict[str, str] = {}  # names registered at run time (--strategy-path, register())


class StrategyError(SimulationError):
    """An unknown or malformed strategy, or a parameter it does not have or cannot take (a
    SimulationError, so a ValueError)."""


@dataclass(frozen=True)
class Strategy:
    """A resolved strategy: its name, the module that implements it, and its parameters."""

    name: str
    module_path: str
    params: dict[str, float]

    def param_vector(self) -> np.ndarray:
        v = np.zeros(MAX_PARAMS, dtype=np.float64)
        for i, value in enumerate(self.params.values()):
            v[i] = value
        return v


def register(name: str, module_path: str) -> None:
    """Make the strategy implemented by module ``module_path`` available as ``name``."""
    if name in BUILTIN or name == "dd_oracle":
        raise StrategyError(f"strategy name {name!r} is reserved for a built-in player; choose another name")
    _check_module(name, _import(module_path, name))
    _EXTRA[name] = module_path


def register_path(spec: str) -> str:
    """Register ``module:name`` (or ``module``, named after its NAME) and return the name."""
    module_path, _, name = spec.partition(":")
    module = _import(module_path, spec)
    name = name or getattr(module, "NAME", module_path.rsplit(".", 1)[-1])
    register(name, module_path)
    return name


def available() -> dict[str, str]:
    """All strategy names and their modules: built-ins, entry points, registered ones."""
    names = dict(BUILTIN)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        names.setdefault(ep.name, ep.value.split(":")[0])
    names.update(_EXTRA)
    return names


def _import(module_path: str, what: str) -> ModuleType:
    try:
        return importlib.import_module(module_path)
    except ImportError as exc:
        raise StrategyError(f"cannot import strategy module {module_path!r} ({what}): {exc}") from None


CHOICE_PARAMS = ("seat", "hand", "options/phase", "pub", "rules", "params", "rng")  # reserve, exchange
DECISION_PARAMS = ("seat", "hand", "legal", "pub", "plays", "play_seat", "trick_winner", "power", "fclass",
                   "cmask", "rules", "params", "rng")  # call, card


def _check_module(name: str, module: ModuleType) -> None:
    missing = [f for f in ("reserve", "call", "card") if not hasattr(module, f)]
    if missing:
        raise StrategyError(f"strategy {name!r} ({module.__name__}) lacks {', '.join(missing)}")
    plain = [f for f in ("reserve", "call", "card", "exchange")
             if hasattr(module, f) and not hasattr(getattr(module, f), "py_func")]
    if plain:
        raise StrategyError(f"strategy {name!r} ({module.__name__}): {', '.join(plain)} must be numba "
                            "functions (@numba.njit), see docs/strategies.md")
    for f, want in (("reserve", CHOICE_PARAMS), ("exchange", CHOICE_PARAMS), ("call", DECISION_PARAMS),
                    ("card", DECISION_PARAMS)):
        fn = getattr(module, f, None)
        if fn is None:
            continue
        code = fn.py_func.__code__
        if code.co_argcount != len(want):
            raise StrategyError(f"strategy {name!r} ({module.__name__}): {f} takes {code.co_argcount} arguments, the "
                                f"strategy signature passes {len(want)} ({', '.join(want)}); see docs/strategies.md "
                                f"({code.co_filename}:{code.co_firstlineno})")
    if len(getattr(module, "PARAMS", {})) > MAX_PARAMS:
        raise StrategyError(f"strategy {name!r} has more than {MAX_PARAMS} parameters")
    _module_specs(name, module)


def _module_specs(name: str, module: ModuleType) -> dict[str, ParamSpec]:
    """The parameters a strategy module declares (PARAMS, PARAM_RANGES), each default checked
    against its range; StrategyError naming a malformed declaration."""
    params = getattr(module, "PARAMS", {})
    ranges = getattr(module, "PARAM_RANGES", {})
    if not isinstance(params, dict) or not isinstance(ranges, dict):
        raise StrategyError(f"strategy {name!r}: PARAMS and PARAM_RANGES must be dicts (docs/strategies.md)")
    extra = [k for k in ranges if k not in params]
    if extra:
        raise StrategyError(f"strategy {name!r}: PARAM_RANGES names {extra[0]!r}, which is not in PARAMS")
    specs = {}
    for key, declared in params.items():
        if not isinstance(declared, tuple) or not declared or isinstance(declared[0], bool) \
                or not isinstance(declared[0], numbers.Real):
            raise StrategyError(f"strategy {name!r}: PARAMS[{key!r}] must be (default, 'what it means'), "
                                f"got {declared!r}")
        span = ranges.get(key, (-math.inf, math.inf))
        if not (isinstance(span, tuple) and len(span) in (2, 3)
                and all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in span[:2])
                and span[0] <= span[1] and (len(span) == 2 or span[2] == "integer")):
            raise StrategyError(f"strategy {name!r}: PARAM_RANGES[{key!r}] must be (lo, hi) or "
                                f"(lo, hi, 'integer') with lo <= hi, got {span!r}")
        spec = ParamSpec(key, float(declared[0]), float(span[0]), float(span[1]), len(span) == 3,
                         str(declared[1]) if len(declared) > 1 else "")
        spec.check(f"strategy {name!r}: the default of {key}", declared[0], StrategyError)
        specs[key] = spec
    return specs


def param_specs(name: str) -> dict[str, ParamSpec]:
    """The parameters strategy ``name`` declares: name -> ParamSpec (default, range, help)."""
    names = available()
    if name not in names:
        raise _unknown(name, names)
    return _preset_specs(name, _module_specs(name, _import(names[name], name)))


def _preset_specs(name: str, specs: dict[str, ParamSpec]) -> dict[str, ParamSpec]:
    """``specs`` with the defaults of the built-in preset ``name`` (PRESETS), if it is one."""
    import dataclasses
    preset = PRESETS.get(name, {}) if available().get(name) == BUILTIN.get(name) else {}
    return {k: dataclasses.replace(v, default=float(preset[k])) if k in preset else v for k, v in specs.items()}


def _unknown(name: str, names) -> StrategyError:
    if name == "dd_oracle":  # dokosim/dd/oracle.py: a Python player that reads every hand
        return StrategyError("strategy 'dd_oracle' reads the other players' cards and plays through "
                             "dokosim.Game: it plays only in tournaments (dokosim tournament "
                             "--allow-cheating), never in simulations, sessions or studies")
    return StrategyError(f"unknown strategy {name!r}; available: {', '.join(sorted(names))}")


def resolve(name: str, overrides: dict[str, float] | None = None) -> Strategy:
    """A Strategy by name, with parameter overrides checked against its PARAMS and PARAM_RANGES."""
    names = available()
    if name not in names:
        raise _unknown(name, names)
    module = _import(names[name], name)
    _check_module(name, module)
    specs = _preset_specs(name, _module_specs(name, module))
    params = {k: spec.default for k, spec in specs.items()}
    for key, value in (overrides or {}).items():
        if key not in params:
            valid = ", ".join(f"{s.name} ({s.valid()})" for s in specs.values()) or "none"
            raise StrategyError(f"strategy {name!r} has no parameter {key!r}; its parameters: {valid}")
        params[key] = specs[key].check(f"strategy {name!r} parameter {key}", value, StrategyError)
    return Strategy(name, names[name], params)


def cache_dir() -> Path:
    """Where generated kernel modules live ($DOKOSIM_CACHE_DIR, else ~/.cache/dokosim)."""
    root = os.environ.get("DOKOSIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "dokosim")
    path = Path(root) / "kernels"
    path.mkdir(parents=True, exist_ok=True)
    return path


def simulation_kernel() -> ModuleType:
    """The deal loop's module (dokosim.sim_loop): one compiled loop for every strategy."""
    from . import sim_loop

    return sim_loop


ENTRY_NAMES = ("reserve", "exchange", "call", "card")  # the order of strategy_call.T_RESERVE..T_CARD
# module path -> (entry-point module name, the CFuncs, their addresses); kept alive here. The
# name holds the digest of the strategy's source: an edited plug-in compiles anew.
_COMPILED: dict[str, tuple] = {}


def _entry_source(module_path: str, has_exchange: bool) -> str:
    """Source of the module that holds a strategy's four C entry points (strategy_call)."""
    def arrays(names):
        return ", ".join(f"array_at({n}, {ARRAY_LENGTHS[n]})" for n in names)

    choice = ("pub", "rules", "params", "rng")
    decision = ("pub", "plays", "play_seat", "trick_winner", "power", "fclass", "cmask", "rules", "params",
                "rng")
    exchange = "_s.exchange" if has_exchange else "default_exchange"
    return f'''"""Generated by dokosim.loop.registry: the C entry points of {module_path}."""
from dokosim.loop.strategy_call import array_at
from dokosim.strategies.common import default_exchange
import {module_path} as _s


def reserve(seat, hand, options, {", ".join(choice)}):
    return _s.reserve(seat, hand, options, {arrays(choice)})


def exchange(seat, hand, phase, {", ".join(choice)}):
    return {exchange}(seat, hand, phase, {arrays(choice)})


def call(seat, hand, legal, {", ".join(decision)}):
    return _s.call(seat, hand, legal, {arrays(decision)})


def card(seat, hand, legal, {", ".join(decision)}):
    return _s.card(seat, hand, legal, {arrays(decision)})
'''


def _entry_module(module_path: str) -> ModuleType:
    """The generated entry-point module of a strategy (plain Python functions, not compiled)."""
    from ..engine.jit import GENERATED_PREFIX, PACKAGE_DIGEST

    has_exchange = hasattr(importlib.import_module(module_path), "exchange")
    source = _entry_source(module_path, has_exchange)
    sources = [source]
    spec = importlib.util.find_spec(module_path)  # a strategy's own changes must give a new module
    if spec and spec.origin and os.path.exists(spec.origin):
        sources.append(Path(spec.origin).read_text())
    digest = hashlib.sha256(("\n".join(sources) + PACKAGE_DIGEST).encode()).hexdigest()[:16]
    mod_name = f"{GENERATED_PREFIX}{module_path.replace('.', '_')}_{digest}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    path = cache_dir() / f"{mod_name}.py"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(source)
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(mod_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    spec.loader.exec_module(module)
    return module


def _entry_points(module_path: str):
    """numba CFunc objects for a strategy's entry points, caching enabled, not yet compiled."""
    from numba.core.ccallback import CFunc
    from numba.core import sigutils

    from ..engine.jit import ENTRY_OPTIONS
    from .strategy_call import CHOICE_SIGNATURE, DECISION_SIGNATURE

    module = _entry_module(module_path)
    entries = []
    for name in ENTRY_NAMES:
        sig = CHOICE_SIGNATURE if name in ("reserve", "exchange") else DECISION_SIGNATURE
        entry = CFunc(getattr(module, name), sigutils.normalize_signature(sig), locals={},
                      options=dict(ENTRY_OPTIONS))
        entry.enable_caching()
        entries.append(entry)
    return entries


def _cached(entry) -> bool:
    from ..engine.jit import dispatcher_cached
    return dispatcher_cached(entry)


def _compile_error_summary(exc: BaseException) -> str:
    """One line from a numba compile error: its first lines that say what failed, and the place
    in the user's code (the last ``File "...", line N`` outside numba and dokosim)."""
    import re
    text = str(exc)
    places = [m for m in re.finditer(r'File "([^"]+)", line (\d+)', text)
              if "site-packages" not in m.group(1) and "/dokosim/" not in m.group(1)]
    lines = [line.strip() for line in text.splitlines()
             if line.strip() and not line.strip().startswith(("File", "During"))]
    what = next((line for line in lines if not line.startswith(("Failed in", "^"))), lines[0] if lines else "")
    where = f" ({places[-1].group(1)}:{places[-1].group(2)})" if places else ""
    return f"{type(exc).__name__}: {what[:200]}{where}"


def compiled_strategy(module_path: str, name: str | None = None) -> np.ndarray:
    """A strategy table row (strategy_call.T_*) for the strategy in ``module_path`` (called
    ``name``), compiling its entry points once (or loading them from numba's cache); says so
    on stderr when it compiles."""
    from .strategy_call import INLINE_NONE, TABLE_WIDTH, T_INLINE

    row = np.zeros(TABLE_WIDTH, dtype=np.int64)
    if module_path in INLINE_MODULES:
        row[T_INLINE] = INLINE_MODULES[module_path]
        return row
    name_now = _entry_module(module_path).__name__
    if module_path not in _COMPILED or _COMPILED[module_path][0] != name_now:
        entries = _entry_points(module_path)
        if not all(_cached(entry) for entry in entries):
            from ..engine.jit import announce_compile
            announce_compile(f"the {name or module_path} strategy")
        for entry_name, entry in zip(ENTRY_NAMES, entries):
            try:
                entry.compile()
            except Exception as exc:  # noqa: BLE001  numba's typing error is a hundred lines: say what
                raise StrategyError(f"strategy {name or module_path!r} ({module_path}): its {entry_name} does not "
                                    f"compile with the strategy signature (docs/strategies.md): "
                                    f"{_compile_error_summary(exc)}") from None
        _COMPILED[module_path] = (name_now, entries, [entry.address for entry in entries])
    row[:len(ENTRY_NAMES)] = _COMPILED[module_path][2]
    row[T_INLINE] = INLINE_NONE
    return row


def strategy_table(strategies: list[Strategy]) -> tuple[np.ndarray, np.ndarray]:
    """(table, ids): one table row per distinct strategy module, and each seat's row index.
    Rows are in order of first appearance; the loop's results depend on neither."""
    names = {}
    for s in strategies:
        names.setdefault(s.module_path, s.name)
    modules = list(names)
    table = np.stack([compiled_strategy(m, names[m]) for m in modules])
    from .strategy_call import INLINE_NONE, T_INLINE
    for row in table:  # the loop calls these addresses: none may be empty
        assert row[T_INLINE] != INLINE_NONE or row[:len(ENTRY_NAMES)].all(), "a strategy entry point is missing"
    ids = np.array([modules.index(s.module_path) for s in strategies], dtype=np.int64)
    return table, ids
