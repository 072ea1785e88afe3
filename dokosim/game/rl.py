"""A PettingZoo AEC environment over ``dokosim.Game`` (``pip install 'dokosim[rl]'``).

``dokosim.game.rl.env(**options)`` is one deal of Doppelkopf per episode, four agents
``player_0`` ... ``player_3`` (the seats), in PettingZoo's conventions for card games (as its
classic environments): each observation is a dict ``{"observation": float32[OBSERVATION_LEN],
"action_mask": int8[N_ACTIONS]}`` (``Game.observation_tensor`` and the legal actions of the
agent to act; all zeros for the others), the action space is ``Discrete(N_ACTIONS)`` (the
action ids of docs/game.md), the agent to act is the seat the rules say (reservations,
the poverty's exchange, calls, cards), and every agent's reward is its score at the end of
the deal. ``reset(seed=S)`` starts deal 0 of seed S; each later ``reset()`` without a seed
deals the next deal id of the same seed, so a run of episodes is reproducible from
(seed, deal_id). An illegal action raises ``GameError`` (wrap the environment in
PettingZoo's ``TerminateIllegalWrapper`` to end the episode instead).

``opponents`` seats built-in players (``dokosim.Agent``: ``"heuristic"``, ``"pimc"``, ``"net"``,
...) inside the environment: ``opponents="heuristic"`` plays seats 1-3 (the learner is
``player_0``), ``opponents={1: "pimc", 3: "net"}`` the seats named; only the other seats are
agents, and the environment plays the opponents' turns between theirs.

``dokosim.game.rl.parallel_env(**options)`` is the same deal as a PettingZoo ``ParallelEnv``:
each ``step`` takes a dict of actions, applies the one of the agent to act (the agent whose
``action_mask`` is not all zeros; the others' entries are ignored and may be left out), plays
the opponents' turns, and returns every live agent's observation.
"""
from __future__ import annotations

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
except ImportError as exc:  # the optional extra is not installed
    raise ImportError("dokosim.game.rl needs PettingZoo: pip install 'dokosim[rl]'") from exc

from ..validation import check_bool, check_seed
from .game import N_ACTIONS, OBSERVATION_LEN, Game, GameError

AGENTS = tuple(f"player_{s}" for s in range(4))


def env(**options) -> DoppelkopfEnv:
    """The AEC environment with PettingZoo's order checks (``OrderEnforcingWrapper``);
    ``options`` as ``DoppelkopfEnv``."""
    from pettingzoo.utils import wrappers
    return wrappers.OrderEnforcingWrapper(DoppelkopfEnv(**options))


def parallel_env(**options) -> DoppelkopfParallelEnv:
    """The ParallelEnv (module doc); ``options`` as ``DoppelkopfEnv``."""
    return DoppelkopfParallelEnv(**options)


def opponent_seats(opponents) -> dict[int, str]:
    """``opponents`` as {seat: strategy}: None -> {}, a name -> seats 1-3, a dict of seats (0-3)
    to strategy names; ValueError naming what is wrong (a bad seat, all four seats, an unknown
    strategy)."""
    from ..loop.registry import StrategyError, resolve
    if opponents is None:
        return {}
    if isinstance(opponents, str):
        opponents = {1: opponents, 2: opponents, 3: opponents}
    if not isinstance(opponents, dict):
        raise ValueError(f"opponents={opponents!r} is not valid: a strategy name or a dict {{seat: name}}")
    seats = {}
    for seat, name in opponents.items():
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat <= 3:
            raise ValueError(f"opponents: seat {seat!r} is not valid: 0-3")
        try:
            resolve(name)
        except StrategyError as exc:
            raise ValueError(f"opponents: {exc}") from None
        seats[int(seat)] = name
    if len(seats) == 4:
        raise ValueError("opponents: all four seats are opponents; leave at least one seat to the agents")
    return seats


class _Deal:
    """The game of an episode and the built-in opponents who play in it (both environments)."""

    def __init__(self, rules, seed, calls, opponents):
        from .agents import Agent
        from .game import deal_rules
        rules = deal_rules(rules, "an environment plays single deals")  # checked here, not at the first reset
        seed = check_seed(seed, GameError)
        calls = check_bool("calls", calls, GameError)
        self.rules, self.calls, self.seed = rules, calls, seed
        self.opponents = {s: Agent(name) for s, name in opponent_seats(opponents).items()}
        self.agents = [AGENTS[s] for s in range(4) if s not in self.opponents]
        self.deal_id = -1
        self.game: Game | None = None

    def new(self, seed: int | None) -> Game:
        if seed is not None:  # checked before it replaces the current seed
            self.seed, self.deal_id = check_seed(seed, GameError), 0
        else:
            self.deal_id += 1
        self.game = Game(rules=self.rules, seed=self.seed, deal_id=self.deal_id, calls=self.calls)
        self.play_opponents()
        return self.game

    def play_opponents(self) -> None:
        """The opponents' turns, until an agent is to act or the deal is over."""
        game = self.game
        while not game.is_terminal() and game.current_player in self.opponents:
            game.apply_action(self.opponents[game.current_player].act(game))

    def observe(self, agent: str) -> dict:
        seat = AGENTS.index(agent)
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        if not self.game.is_terminal() and self.game.current_player == seat:
            mask[self.game.legal_actions()] = 1
        return {"observation": self.game.observation_tensor(seat), "action_mask": mask}


def _action(action) -> int:
    """An action id from an int, a 0-d integer array or tensor; GameError otherwise."""
    given = np.asarray(action) if not isinstance(action, (bool, int)) else action
    if isinstance(action, bool) or (isinstance(given, np.ndarray) and (given.ndim != 0
                                                                         or given.dtype.kind not in "iu")):
        raise GameError(f"action {action!r} is not valid: an action id, an integer 0-{N_ACTIONS - 1}")
    return int(given)


class DoppelkopfEnv(AECEnv):
    """One deal per episode. ``rules`` (a preset, a rules object or a ``Rules``), ``seed`` (the
    first episode's seed when ``reset`` is given none), ``calls`` (False: nobody is asked for
    announcements), ``opponents`` (built-in players in some seats, module doc), ``render_mode``
    (None or ``"ansi"``: ``render()`` returns the table as text)."""

    metadata = {"render_modes": ["ansi"], "name": "doppelkopf_v0", "is_parallelizable": False}

    def __init__(self, rules="ddv", seed: int = 0, calls: bool = True, render_mode: str | None = None,
                 opponents=None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r} is not valid: None or 'ansi'")
        self.rules = rules
        self.calls = calls
        self.render_mode = render_mode
        self._deal = _Deal(rules, seed, calls, opponents)
        self.possible_agents = list(self._deal.agents)
        self.agents = list(self._deal.agents)
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=2.0, shape=(OBSERVATION_LEN,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self.game: Game | None = None

    def observation_space(self, agent):
        """The observation space of ``agent`` (the same for all four)."""
        return self.observation_spaces[agent]

    def action_space(self, agent):
        """``Discrete(N_ACTIONS)``: the action ids of docs/game.md."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new deal: deal 0 of ``seed`` if given, else the next deal id of the current seed (the
        opponents' turns before an agent's are played)."""
        self.game = self._deal.new(seed)
        agents = self.possible_agents
        self.agents = list(agents)
        self.rewards = dict.fromkeys(agents, 0)
        self._cumulative_rewards = dict.fromkeys(agents, 0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos = {a: {"seed": self._deal.seed, "deal_id": self._deal.deal_id} for a in agents}
        if self.game.is_terminal():  # the opponents played it all (a throw-in, say): scores at once
            self._finish()
        else:
            self.agent_selection = AGENTS[self.game.current_player]

    def observe(self, agent: str) -> dict:
        """``agent``'s observation tensor and its legal-action mask (zeros unless it is to act)."""
        return self._deal.observe(agent)

    def step(self, action) -> None:
        """Apply the selected agent's action; at the end of the deal every agent gets its score."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = _action(action)  # a 0-d integer array or tensor too, as training loops pass them
        self._cumulative_rewards[agent] = 0
        self.game.apply_action(action)
        self._deal.play_opponents()
        self.rewards = dict.fromkeys(self.agents, 0)
        if self.game.is_terminal():
            self._finish()
        else:
            self.agent_selection = AGENTS[self.game.current_player]
            self._accumulate_rewards()

    def _finish(self) -> None:
        """The deal is over: every agent gets its score and sees the end in turn (a dead step
        removes it), starting from the lowest seat."""
        scores = self.game.returns()
        self.rewards = {a: scores[AGENTS.index(a)] for a in self.agents}
        self.terminations = dict.fromkeys(self.agents, True)
        for a in self.agents:
            self.infos[a]["result"] = self.game.result()
        self._accumulate_rewards()
        self.agent_selection = self.agents[0]

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``): whose turn, the trick, every hand."""
        if self.render_mode is None or self.game is None:
            return None
        obs = self.game.observation(0)
        lines = [f"phase {obs['phase']}, to act: {obs['current_player']}, contract {obs['contract']}",
                 "trick: " + " ".join(f"{s}:{c}" for s, c in obs["trick"])]
        lines += [f"seat {s}: {' '.join(self.game.hand(s))}" for s in range(4)]
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""


class DoppelkopfParallelEnv(ParallelEnv):
    """One deal per episode as a ParallelEnv (module doc); options as ``DoppelkopfEnv``."""

    metadata = {"render_modes": [], "name": "doppelkopf_parallel_v0"}

    def __init__(self, rules="ddv", seed: int = 0, calls: bool = True, opponents=None):
        self._deal = _Deal(rules, seed, calls, opponents)
        self.possible_agents = list(self._deal.agents)
        self.agents: list[str] = []
        space = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=2.0, shape=(OBSERVATION_LEN,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}

    @property
    def game(self) -> Game | None:
        """The episode's ``dokosim.Game``."""
        return self._deal.game

    def observation_space(self, agent):
        """The observation space of ``agent`` (the same for all)."""
        return self.observation_spaces[agent]

    def action_space(self, agent):
        """``Discrete(N_ACTIONS)``: the action ids of docs/game.md."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        """A new deal (as ``DoppelkopfEnv.reset``): (observations, infos) of every agent."""
        game = self._deal.new(seed)
        self.agents = [] if game.is_terminal() else list(self.possible_agents)
        info = {"seed": self._deal.seed, "deal_id": self._deal.deal_id}
        return ({a: self._deal.observe(a) for a in self.possible_agents},
                {a: dict(info) for a in self.possible_agents})

    def step(self, actions: dict):
        """Apply the action of the agent to act (KeyError-free: GameError if it has none), play the
        opponents' turns; (observations, rewards, terminations, truncations, infos). At the end
        every agent's reward is its score and ``agents`` is empty."""
        game = self._deal.game
        if game is None or not self.agents:
            raise GameError("the deal is over (or was never started): call reset()")
        actor = AGENTS[game.current_player]
        if actor not in actions:
            raise GameError(f"{actor} is to act and has no action in {sorted(actions)}")
        game.apply_action(_action(actions[actor]))
        self._deal.play_opponents()
        live = list(self.agents)
        done = game.is_terminal()
        scores = game.returns() if done else [0] * 4
        observations = {a: self._deal.observe(a) for a in live}
        rewards = {a: scores[AGENTS.index(a)] for a in live}
        terminations = dict.fromkeys(live, done)
        truncations = dict.fromkeys(live, False)
        infos = {a: ({"result": game.result()} if done else {}) for a in live}
        if done:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> None:
        """No rendering (use the AEC environment's ``render_mode="ansi"``)."""

    def close(self) -> None:
        """Nothing to release."""
