"""Strategy registry: names -> modules, parameters, and the generated simulation kernel.

A strategy is a Python module (or a namespace object) with three ``@njit``
functions and a parameter table:

* ``reserve(seat, hand, options, pub, rules, params, rng) -> choice``
* ``call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng) -> level``
* ``card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng) -> card``
* ``PARAMS = {"name": (default, "what it means"), ...}`` (optional), ``NAME`` (optional)

See ``docs/strategies.md`` for the meaning of every argument. The simulator
needs one compiled loop for the set of strategies in use; it is generated
from ``dokosim/sim_loop.py`` with an if/elif dispatcher over strategy ids,
written to the kernel cache directory and cached by numba, so that strategies
are inlined and nothing recompiles between runs.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

import numpy as np

MAX_PARAMS = 16
BUILTIN = {
    "random": "dokosim.strategies.random_player",
    "simple": "dokosim.strategies.simple",
    "heuristic": "dokosim.strategies.heuristic",
    "pimc": "dokosim.strategies.pimc",
}
ENTRY_POINT_GROUP = "dokosim.strategies"
_EXTRA: dict[str, str] = {}  # names registered at run time (--strategy-path, register())


class StrategyError(ValueError):
    """An unknown or malformed strategy."""


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


def _check_module(name: str, module: ModuleType) -> None:
    missing = [f for f in ("reserve", "call", "card") if not hasattr(module, f)]
    if missing:
        raise StrategyError(f"strategy {name!r} ({module.__name__}) lacks {', '.join(missing)}")
    if len(getattr(module, "PARAMS", {})) > MAX_PARAMS:
        raise StrategyError(f"strategy {name!r} has more than {MAX_PARAMS} parameters")


def resolve(name: str, overrides: dict[str, float] | None = None) -> Strategy:
    """A Strategy by name, with parameter overrides checked against its PARAMS."""
    names = available()
    if name not in names:
        raise StrategyError(f"unknown strategy {name!r}; available: {', '.join(sorted(names))}")
    module = _import(names[name], name)
    _check_module(name, module)
    params = {k: float(v[0]) for k, v in getattr(module, "PARAMS", {}).items()}
    for key, value in (overrides or {}).items():
        if key not in params:
            valid = ", ".join(params) or "none"
            raise StrategyError(f"strategy {name!r} has no parameter {key!r}; its parameters: {valid}")
        params[key] = float(value)
    return Strategy(name, names[name], params)


def cache_dir() -> Path:
    """Where generated kernel modules live ($DOKOSIM_CACHE_DIR, else ~/.cache/dokosim)."""
    root = os.environ.get("DOKOSIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "dokosim")
    path = Path(root) / "kernels"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _dispatch_source(module_paths: list[str]) -> str:
    lines = ["from dokosim.engine.jit import inline_kernel",
             "from dokosim.strategies.common import default_exchange"]
    for i, mp in enumerate(module_paths):
        lines.append(f"import {mp} as _s{i}")
    has_exchange = [hasattr(importlib.import_module(mp), "exchange") for mp in module_paths]
    for fn, args in (("reserve", "seat, hand, options, pub, rules, params, rng"),
                     ("call", "seat, hand, legal, pub, plays, play_seat, trick_winner, power, "
                              "fclass, cmask, rules, params, rng"),
                     ("card", "seat, hand, legal, pub, plays, play_seat, trick_winner, power, "
                              "fclass, cmask, rules, params, rng")):
        chooser = {"reserve": "choose_reservation", "call": "choose_call", "card": "choose_card"}[fn]
        lines += ["", "", "@inline_kernel", f"def {chooser}(sid, {args}):"]
        for i in range(len(module_paths)):
            lines.append(f"    {'if' if i == 0 else 'elif'} sid == {i}:")
            lines.append(f"        return _s{i}.{fn}({args})")
        lines.append("    return -1")
    args = "seat, hand, phase, pub, rules, params, rng"
    lines += ["", "", "@inline_kernel", f"def choose_exchange(sid, {args}):"]
    for i in range(len(module_paths)):
        target = f"_s{i}.exchange" if has_exchange[i] else "default_exchange"
        lines.append(f"    {'if' if i == 0 else 'elif'} sid == {i}:")
        lines.append(f"        return {target}({args})")
    lines.append(f"    return default_exchange({args})")
    return "\n".join(lines) + "\n"


def simulation_kernel(module_paths: list[str]) -> ModuleType:
    """The generated simulation module for these strategy modules (id i = module_paths[i])."""
    from .. import sim_loop_path
    from ..engine.jit import GENERATED_PREFIX, PACKAGE_DIGEST

    template = Path(sim_loop_path()).read_text()
    header = _dispatch_source(module_paths)
    source = template.replace("# DISPATCH: the generated header replaces this line", header)
    sources = [source]
    for mp in module_paths:  # a strategy's own changes must give a new module
        spec = importlib.util.find_spec(mp)
        if spec and spec.origin and os.path.exists(spec.origin):
            sources.append(Path(spec.origin).read_text())
    digest = hashlib.sha256(("\n".join(sources) + PACKAGE_DIGEST).encode()).hexdigest()[:16]
    mod_name = f"{GENERATED_PREFIX}{digest}"
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
