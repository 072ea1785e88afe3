"""dokosim: Doppelkopf by the million. DDV rules in numba, strategies, Parquet datasets, studies."""
from pathlib import Path

__version__ = "0.1.0"


def sim_loop_path() -> str:
    """Path of the simulator loop template (see dokosim.sim_loop)."""
    return str(Path(__file__).with_name("sim_loop.py"))


def __getattr__(name):
    # heavy imports (numba kernels) only when used
    if name == "simulate":
        from .simulate import simulate
        return simulate
    if name == "simulate_sessions":
        from .session import simulate_sessions
        return simulate_sessions
    if name == "score":
        from .records import score_objects
        return score_objects
    if name == "Rules":
        from .rules import Rules
        return Rules
    raise AttributeError(name)
