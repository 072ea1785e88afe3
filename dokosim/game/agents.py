"""Agents for ``dokosim.Game``: the compiled strategies as ``Agent(name)``, and Python agents.

A *Python agent* is any object with ``act(observation, legal_actions) -> action``: the
observation is ``Game.observation(seat)`` (a dict; with the class attribute ``card_ids = True``, its cards as
ids 0-23, like the actions), ``legal_actions`` the legal action ids;
it returns one of them (docs/game.md). Such agents play in ``dokosim tournament``
(``--strategy-path mypkg.bot:MyAgent``, or an entry point in the group ``dokosim.agents``):
their seatings are played through ``Game`` in Python, with the compiled strategies at the
other seats as ``Agent``s, on the same deals as the compiled seatings.
"""
from __future__ import annotations

import importlib
from importlib.metadata import entry_points

import numpy as np
import polars as pl

from ..engine.game_state import G_PHASE as _G_PHASE
from ..engine.game_state import PH_TERMINAL as _PH_TERMINAL
from ..validation import check_int, check_seed, shown, where_raised
from .game import Game, GameError, deal_rules

AGENT_ENTRY_POINT_GROUP = "dokosim.agents"
_PYTHON_AGENTS: dict[str, object] = {}  # name -> a class (called once per seat) or an instance
# Built-in Python players that live above this layer (the open-hands oracle needs the solver's
# Python front end, dd/): dokosim's own package declares them as entry points of
# AGENT_ENTRY_POINT_GROUP (pyproject.toml), so this layer never imports upwards; no plug-in of
# another distribution may take their names.
RESERVED_NAMES = ("dd_oracle",)
OWN_DISTRIBUTION = "dokosim"


class AgentError(GameError):
    """A Python agent failed during a run: it answered an action that is not legal."""


MAX_PLAY_DEALS = 10**8  # deals per play_deals call (through Game in Python: about a day at 1 ms a deal)


def _check_name(name, what: str = "name") -> str:
    """``name`` if it is a non-empty string (a list or an array was looked up as a dict key: TypeError)."""
    if not isinstance(name, str) or not name:
        raise GameError(f"{what}={shown(name)} is not valid: a player's name (a non-empty string)")
    return name


class Agent:
    """A compiled strategy (``"random"``, ``"simple"``, ``"heuristic"``, ``"pimc"`` or a
    registered plug-in) choosing in a ``Game``: ``Agent("pimc", samples=40).act(game)``.

    The choice is the deal loop's own: the same compiled decision on the same arrays (the
    public state, the seat's hand, the cards so far) drawing from the game's random stream
    (the deal's), so a deal played by Agents at every seat is the simulator's deal of the same
    (seed, deal_id). Each ``act`` draws from that stream: call it once per decision.
    """

    def __init__(self, name: str, **params):
        from ..loop.registry import resolve, strategy_table
        _check_name(name)
        self.strategy = resolve(name, params)
        self.name = name
        self._table, _ = strategy_table([self.strategy])
        self._params = self.strategy.param_vector()

    def act(self, game: Game) -> int:
        """The action this strategy chooses for the player to act in ``game``."""
        if not isinstance(game, Game):
            raise GameError(f"Agent.act takes a dokosim.Game, got {type(game).__name__}")
        if game._g[_G_PHASE] == _PH_TERMINAL:
            raise GameError("the deal is over: nobody is to act")
        return int(_kernel()(game._g, game._rng, self._table, self._params))

    def __repr__(self) -> str:
        return f"Agent({self.name!r})"


_KERNEL = []  # agent_action once it is known to be compiled (ensure_loop's check costs ~20 µs a call)


def _kernel():
    if not _KERNEL:
        from ..loop.agent_step import agent_action
        from ..engine.jit import ensure_loop
        _KERNEL.append(ensure_loop(agent_action, "the game kernels"))
    return _KERNEL[0]


class LowestCard:
    """The documented example agent: always the lowest legal action id. In the card phase that is
    the lowest card kind (clubs before spades, hearts, diamonds; ace, ten, king, queen, jack,
    nine within a suit); it says healthy and never calls (healthy and pass come first)."""

    def act(self, observation: dict, legal_actions: list[int]) -> int:
        """The lowest legal action, except that a call opportunity is passed."""
        from ..engine.game_state import A_PASS, A_RE
        if observation["phase"] == "call":
            return A_PASS
        return min(a for a in legal_actions if not A_RE <= a < A_PASS)


# ---------------------------------------------------------------- Python agents in tournaments

def register_agent(name: str, agent) -> None:
    """Make a Python agent (a class whose instances have ``act``, or such an instance) available
    to tournaments as ``name``."""
    _check_name(name)
    if not callable(getattr(agent, "act", None)):
        raise GameError(f"agent {name!r}: {agent!r} has no act(observation, legal_actions) method")
    if name in RESERVED_NAMES:
        raise GameError(f"agent name {name!r} is reserved for dokosim's own player; choose another name")
    _PYTHON_AGENTS[name] = agent


def register_agent_path(spec: str) -> str | None:
    """``module:Name`` when Name is a Python agent (has ``act``): register it as Name and return
    the name; None when the spec names something else (a numba strategy module)."""
    module_path, _, attr = spec.partition(":")
    if not attr:
        return None
    try:
        module = importlib.import_module(module_path)
    except ImportError:
        return None  # the strategy registry names the failure
    obj = getattr(module, attr, None)
    if obj is None or not callable(getattr(obj, "act", None)):
        return None
    name = getattr(obj, "NAME", attr)
    register_agent(name, obj)
    return name


def python_agent(name: str):
    """The Python agent registered (or declared as an entry point) as ``name``, or None.
    ``dd_oracle`` (``dd.oracle.DDOracle``, which reads every hand) is built in: an entry point of
    dokosim's own distribution."""
    _check_name(name)
    if name in _PYTHON_AGENTS:
        return _PYTHON_AGENTS[name]
    for ep in entry_points(group=AGENT_ENTRY_POINT_GROUP):
        if ep.name != name:
            continue
        own = ep.dist is not None and ep.dist.name == OWN_DISTRIBUTION
        if name in RESERVED_NAMES:
            if not own:
                continue  # another distribution's plug-in may not take a built-in name
            _PYTHON_AGENTS[name] = ep.load()
        else:
            register_agent(name, ep.load())
        return _PYTHON_AGENTS[name]
    return None


def reads_hidden(name: str) -> bool:
    """Whether the player named ``name`` reads cards a real player could not see (its class or
    instance says ``reads_hidden = True``, as ``dd_oracle`` does): fair comparisons refuse it."""
    return bool(getattr(python_agent(name), "reads_hidden", False))


def _instance(agent, params=None):
    if getattr(agent, "reads_hidden", False) and isinstance(agent, type):
        return agent(**(params or {}))  # an open-hand player (dd_oracle) takes its parameters
    return agent() if isinstance(agent, type) else agent


def play_deals(deals: int, seed: int, rules, names: list[str], params: dict[int, dict] | None = None,
               first: int = 0) -> pl.DataFrame:
    """Deals first .. first + deals - 1 of ``seed`` played through Game with ``names[s]`` at seat
    s (Python agents and compiled strategies), dealer deal_id % 4 as the simulator deals them.
    Returns deal_id, the hands as dealt, contract, declarer, re_mask, eyes_re, winner,
    game_value and score_0..3 (a subset of simulate's columns, same names). Every argument is
    checked before a deal is played: ``deals`` 1 to ``MAX_PLAY_DEALS``, ``first`` + ``deals`` within
    the deal ids (2**62)."""
    deals = check_int("deals", deals, 1, MAX_PLAY_DEALS, GameError)
    seed = check_seed(seed, GameError)
    first = check_int("first", first, 0, 2**62 - deals, GameError,
                      "an integer from 0 to 2**62-deals (deal ids are below 2**62)")
    rules = deal_rules(rules, "play_deals plays single deals")
    if isinstance(names, (str, bytes)) or not isinstance(names, (list, tuple)) or len(names) != 4:
        raise GameError(f"names={shown(names)} is not valid: a list of four player names (seats 0-3)")
    for s, name in enumerate(names):
        _check_name(name, f"names[{s}]")
    if params is not None and (not isinstance(params, dict) or any(
            not isinstance(p, dict) or not all(isinstance(k, str) for k in p) for p in params.values())):
        raise GameError(f"params={shown(params)} is not valid: None or a dict {{seat: {{parameter: value}}}}")
    params = params or {}
    seats = []
    for s, name in enumerate(names):
        agent = python_agent(name)
        if agent is None:
            seats.append((False, Agent(name, **params.get(s, {}))))
        elif getattr(agent, "reads_hidden", False):  # plays from the whole Game, like Agent
            try:
                seats.append((False, _instance(agent, {k: int(v) for k, v in params.get(s, {}).items()})))
            except GameError:
                raise
            except Exception as exc:  # noqa: BLE001  the user's agent failed to start: say where
                raise AgentError(f"agent {name!r} (seat {s}) failed to start: {where_raised(exc)}") from None
        else:
            try:
                seats.append((True, _instance(agent)))
            except Exception as exc:  # noqa: BLE001  the user's agent failed to start: say where
                raise AgentError(f"agent {name!r} (seat {s}) failed to start: {where_raised(exc)}") from None
    from ..engine.cards import CONTRACT_NAMES
    cols = {k: [] for k in ("deal_id", "dealer", "hand_0", "hand_1", "hand_2", "hand_3", "contract",
                            "declarer", "re_mask", "eyes_re", "winner", "game_value",
                            "score_0", "score_1", "score_2", "score_3")}
    from ..engine import game_state as gs
    from ..engine.layout import H_CONTRACT, H_RE_MASK, P_DECLARER, RES_EYES_RE, RES_VALUE, RES_WINNER
    for deal_id in range(first, first + deals):
        game = Game(rules, seed=seed, deal_id=deal_id)
        g = game._g
        while g[gs.G_PHASE] != gs.PH_TERMINAL:
            seat = int(g[gs.G_PLAYER])
            is_python, agent = seats[seat]
            if is_python:
                try:
                    obs = game.observation(seat, ids=bool(getattr(agent, "card_ids", False)))
                    action = agent.act(obs, game.legal_actions())
                except Exception as exc:  # noqa: BLE001  the user's agent: name the deal, the seat, the place
                    raise AgentError(f"agent {names[seat]!r} at seat {seat} raised on deal {deal_id} (seed {seed}): "
                                     f"{where_raised(exc)}") from None
                if (isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < 64
                        or not (int(g[gs.G_LEGAL]) >> int(action)) & 1):
                    raise AgentError(f"agent {names[seat]!r} at seat {seat} answered {action!r}, not a legal "
                                    f"action; legal: {game.legal_actions()}")
            else:
                try:
                    action = agent.act(game)
                except GameError:
                    raise
                except Exception as exc:  # noqa: BLE001  a plug-in that reads the Game: name where
                    raise AgentError(f"agent {names[seat]!r} at seat {seat} raised on deal {deal_id} (seed {seed}): "
                                     f"{where_raised(exc)}") from None
            game.apply_action(int(action))
        cols["deal_id"].append(deal_id)
        cols["dealer"].append(int(g[gs.G_DEALER]))
        for s in range(4):
            cols[f"hand_{s}"].append(int(g[gs.O_HANDS0 + s]))
        cols["contract"].append(int(g[gs.O_ST + H_CONTRACT]))
        cols["declarer"].append(int(g[gs.O_ST + P_DECLARER]))
        cols["re_mask"].append(int(g[gs.O_ST + H_RE_MASK]))
        cols["eyes_re"].append(int(g[gs.O_RES + RES_EYES_RE]))
        cols["winner"].append(int(g[gs.O_RES + RES_WINNER]))
        cols["game_value"].append(int(g[gs.O_RES + RES_VALUE]))
        for s, v in enumerate(game.returns()):
            cols[f"score_{s}"].append(v)
    frame = pl.DataFrame(cols, schema={k: pl.Int64 for k in cols})
    return frame.with_columns(pl.col("contract").replace_strict(dict(enumerate(CONTRACT_NAMES)),
                                                                return_dtype=pl.String))
