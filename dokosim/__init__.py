"""dokosim: Doppelkopf by the million. DDV rules in numba, strategies, Parquet datasets, studies."""
import importlib
import sys
import types

__version__ = "0.1.0"

# The public functions, imported on first use (the numba kernels are heavy). Some share their
# module's name (dokosim.simulate), so a plain module __getattr__ would hand out the module once
# it is imported; the package class below answers these names with the function every time.
_PUBLIC = {
    "simulate": ("dokosim.simulate", "simulate"),
    "simulate_sessions": ("dokosim.session", "simulate_sessions"),
    "probe_calls": ("dokosim.call_probe", "probe_calls"),
    "score": ("dokosim.records", "score_objects"),
    "solve": ("dokosim.solve", "solve"),
    "par": ("dokosim.solve", "par"),
    "best_score": ("dokosim.solve", "best_score"),
    "audit": ("dokosim.audit", "audit"),
    "Rules": ("dokosim.rules", "Rules"),
    "Game": ("dokosim.game", "Game"),
    "GameError": ("dokosim.game", "GameError"),
    "action_name": ("dokosim.game", "action_name"),
    "action_id": ("dokosim.game", "action_id"),
    "Agent": ("dokosim.agents", "Agent"),
    "DDOracle": ("dokosim.oracle", "DDOracle"),
    "VectorGame": ("dokosim.vector", "VectorGame"),
}


class _Package(types.ModuleType):
    def __getattribute__(self, name):
        if name in _PUBLIC:
            module, attr = _PUBLIC[name]
            return getattr(importlib.import_module(module), attr)
        return super().__getattribute__(name)


sys.modules[__name__].__class__ = _Package
