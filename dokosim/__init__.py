"""dokosim: Doppelkopf by the million. DDV rules in numba, strategies, Parquet datasets, studies."""
import importlib

from .version import __version__

# The public functions, imported on first use (the numba kernels are heavy). No public name is
# also a module of the package root, so a module __getattr__ answers each of them every time.
_PUBLIC = {
    "simulate": ("dokosim.run.simulate", "simulate"),
    "simulate_sessions": ("dokosim.run.session", "simulate_sessions"),
    "probe_calls": ("dokosim.run.call_probe", "probe_calls"),
    "score": ("dokosim.records.record", "score_objects"),
    "solve": ("dokosim.dd.solve", "solve"),
    "par": ("dokosim.dd.solve", "par"),
    "best_score": ("dokosim.dd.solve", "best_score"),
    "game_value": ("dokosim.dd.band", "game_value"),
    "audit": ("dokosim.dd.audit", "audit"),
    "Rules": ("dokosim.rules", "Rules"),
    "Game": ("dokosim.game.game", "Game"),
    "GameError": ("dokosim.game.game", "GameError"),
    "action_name": ("dokosim.game.game", "action_name"),
    "action_id": ("dokosim.game.game", "action_id"),
    "Agent": ("dokosim.game.agents", "Agent"),
    "DDOracle": ("dokosim.dd.oracle", "DDOracle"),
    "VectorGame": ("dokosim.game.vector", "VectorGame"),
    "dataset": ("dokosim.run.dataset", None),  # the module: dokosim.dataset.cards(df), .scan(DIR)
    "cards": ("dokosim.game.cards", None),  # the module: trumps, suit, trick_winner, eyes
}


def __getattr__(name: str):
    """A public name (``_PUBLIC``), imported from its module on first use."""
    if name in _PUBLIC:
        module, attr = _PUBLIC[name]
        loaded = importlib.import_module(module)
        return loaded if attr is None else getattr(loaded, attr)
    raise AttributeError(f"module 'dokosim' has no attribute {name!r}")
