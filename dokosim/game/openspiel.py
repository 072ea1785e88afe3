"""Doppelkopf as an OpenSpiel game (``pip install 'dokosim[openspiel]'``), over ``dokosim.Game``.

``import dokosim.game.openspiel`` registers the game ``python_doppelkopf`` with OpenSpiel's Python game
interface; ``pyspiel.load_game("python_doppelkopf", {"seed": 0, "deals": 1024})`` then gives it to
any OpenSpiel algorithm. The first node is a chance node that picks one of ``deals`` deal ids of
``seed`` (uniformly), dealt as ``dokosim simulate`` deals them; then the four players act as the
rules say (reservations, a poverty's exchange, calls, cards) with the action ids of docs/game.md,
and the returns are the scores of the deal. Observation tensors are ``Game.observation_tensor``
(only what the player may see now); information state tensors are
``Game.information_state_tensor`` (perfect recall: the observation plus every card in the order
played and when each call was made). Parameters: ``seed`` (int), ``deals`` (int, the chance node's
outcomes), ``rules`` (a preset name), ``calls`` (bool).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # the optional extra is not installed
    raise ImportError("dokosim.game.openspiel needs OpenSpiel: pip install 'dokosim[openspiel]'") from exc

from ..validation import check_bool, check_int, check_seed, shown
from .game import ACTION_NAMES, INFO_STATE_LEN, N_ACTIONS, OBSERVATION_LEN, Game, GameError, deal_rules

SHORT_NAME = "python_doppelkopf"
MAX_SCORE = 200  # a bound on any seat's score in a deal without bock (the game value, tripled for a soloist)
MAX_CHANCE_DEALS = 1 << 20  # the chance node's outcomes (chance_outcomes lists each deal id)
MAX_GAME_LENGTH = 4 + 9 + 4 * 48 + 48  # reservations, a poverty's exchange, a call round per card, cards
DEFAULT_PARAMS = {"seed": 0, "deals": 1024, "rules": "ddv", "calls": True}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Doppelkopf (dokosim)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=4,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS)


class DoppelkopfGame(pyspiel.Game):
    """The game: its parameters and its initial state (a chance node over the deal ids)."""

    def __init__(self, params=None):
        if params is not None and not isinstance(params, Mapping):
            raise GameError(f"params={shown(params)} is not valid: None or a dict of {', '.join(DEFAULT_PARAMS)}")
        params = {**DEFAULT_PARAMS, **(params or {})}
        # checked before pyspiel sees them: chance_outcomes lists every deal id, GameInfo takes a C int
        self.seed = check_seed(params["seed"], GameError)
        self.deals = check_int("deals", params["deals"], 1, MAX_CHANCE_DEALS, GameError)
        if not isinstance(params["rules"], str):
            raise GameError(f"rules={shown(params['rules'])} is not valid: a rules preset name")
        deal_rules(params["rules"], "an OpenSpiel game is one deal of four")
        self.rules, self.calls = params["rules"], check_bool("calls", params["calls"], GameError)
        info = pyspiel.GameInfo(num_distinct_actions=N_ACTIONS, max_chance_outcomes=self.deals, num_players=4,
                                min_utility=-MAX_SCORE, max_utility=MAX_SCORE, utility_sum=0.0,
                                max_game_length=MAX_GAME_LENGTH)
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self):
        """The chance node that picks the deal."""
        return DoppelkopfState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of ``Game.information_state_tensor`` for perfect recall (what OpenSpiel
        asks for the information state), else (and by default) of ``Game.observation_tensor``."""
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return DoppelkopfObserver(information_state=True)
        return DoppelkopfObserver()


class DoppelkopfState(pyspiel.State):
    """A deal in progress: before the chance node, no ``Game`` yet; after it, a ``dokosim.Game``."""

    def __init__(self, game: DoppelkopfGame):
        super().__init__(game)
        self._params = game
        self.game: Game | None = None

    def current_player(self):
        """The chance player before the deal, then the seat to act, TERMINAL at the end."""
        if self.game is None:
            return pyspiel.PlayerId.CHANCE
        if self.game.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.game.current_player

    def _legal_actions(self, player):
        return self.game.legal_actions()

    def chance_outcomes(self):
        """Each deal id with the same probability."""
        p = 1.0 / self._params.deals
        return [(k, p) for k in range(self._params.deals)]

    def _apply_action(self, action):
        if self.game is None:
            g = self._params
            self.game = Game(rules=g.rules, seed=g.seed, deal_id=int(action), calls=g.calls)
        else:
            self.game.apply_action(int(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return ACTION_NAMES[action]

    def is_terminal(self):
        """Whether the last card is played."""
        return self.game is not None and self.game.is_terminal()

    def returns(self):
        """The scores of the deal (zeros before its end)."""
        if self.game is None:
            return [0.0] * 4
        return [float(v) for v in self.game.returns()]

    def __str__(self):
        if self.game is None:
            return "chance: the deal"
        return repr(self.game)


class DoppelkopfObserver:
    """``Game.observation_tensor(player)``, or with ``information_state`` its
    ``information_state_tensor(player)``, as OpenSpiel's observer (zeros before the deal)."""

    def __init__(self, information_state: bool = False):
        self.information_state = check_bool("information_state", information_state, GameError)
        self.tensor = np.zeros(INFO_STATE_LEN if information_state else OBSERVATION_LEN, np.float32)
        self.dict = {"information_state" if information_state else "observation": self.tensor}

    def set_from(self, state: DoppelkopfState, player: int):
        """Fill the tensor with what ``player`` sees (or has seen) in ``state``."""
        if state.game is None:
            self.tensor[:] = 0
        elif self.information_state:
            self.tensor[:] = state.game.information_state_tensor(player)
        else:
            state.game.observation_tensor(player, out=self.tensor)

    def string_from(self, state: DoppelkopfState, player: int) -> str:
        """What ``player`` sees, as text."""
        if state.game is None:
            return "before the deal"
        obs = state.game.observation(player)
        text = (f"phase {obs['phase']} hand {' '.join(obs['hand'])} trick "
                + " ".join(f"{s}:{c}" for s, c in obs["trick"]))
        if self.information_state:  # every card so far in order, and the calls with their moments
            text += (" played " + " ".join(f"{s}:{c}" for t in obs["tricks"] for s, c in t["cards"])
                     + " calls " + " ".join(f"{c['seat']}:{c['call']}@{c['cards_played']}" for c in obs["calls"]))
        return text


pyspiel.register_game(GAME_TYPE, DoppelkopfGame)
