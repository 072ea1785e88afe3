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
"""
from __future__ import annotations

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as exc:  # the optional extra is not installed
    raise ImportError("dokosim.game.rl needs PettingZoo: pip install 'dokosim[rl]'") from exc

from .game import N_ACTIONS, OBSERVATION_LEN, Game, GameError

AGENTS = tuple(f"player_{s}" for s in range(4))


def env(**options) -> DoppelkopfEnv:
    """The AEC environment with PettingZoo's order checks (``OrderEnforcingWrapper``);
    ``options`` as ``DoppelkopfEnv``."""
    from pettingzoo.utils import wrappers
    return wrappers.OrderEnforcingWrapper(DoppelkopfEnv(**options))


class DoppelkopfEnv(AECEnv):
    """One deal per episode. ``rules`` (a preset, a rules object or a ``Rules``), ``seed`` (the
    first episode's seed when ``reset`` is given none), ``calls`` (False: nobody is asked for
    announcements), ``render_mode`` (None or ``"ansi"``: ``render()`` returns the table as
    text)."""

    metadata = {"render_modes": ["ansi"], "name": "doppelkopf_v0", "is_parallelizable": False}

    def __init__(self, rules="ddv", seed: int = 0, calls: bool = True, render_mode: str | None = None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r} is not valid: None or 'ansi'")
        self.rules = rules
        self.calls = calls
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self._seed = seed
        self._deal_id = -1
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=2.0, shape=(OBSERVATION_LEN,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self.game: Game | None = None

    def observation_space(self, agent):
        """The observation space of ``agent`` (the same for all four)."""
        return self.observation_spaces[agent]

    def action_space(self, agent):
        """``Discrete(N_ACTIONS)``: the action ids of docs/game.md."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new deal: deal 0 of ``seed`` if given, else the next deal id of the current seed."""
        if seed is not None:
            self._seed = seed
            self._deal_id = 0
        else:
            self._deal_id += 1
        self.game = Game(rules=self.rules, seed=self._seed, deal_id=self._deal_id, calls=self.calls)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: {"seed": self._seed, "deal_id": self._deal_id} for a in AGENTS}
        self.agent_selection = AGENTS[self.game.current_player]

    def observe(self, agent: str) -> dict:
        """``agent``'s observation tensor and its legal-action mask (zeros unless it is to act)."""
        seat = AGENTS.index(agent)
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        if self.game.current_player == seat:
            mask[self.game.legal_actions()] = 1
        return {"observation": self.game.observation_tensor(seat), "action_mask": mask}

    def step(self, action) -> None:
        """Apply the selected agent's action; at the end of the deal every agent gets its score."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        given = np.asarray(action) if not isinstance(action, (bool, int)) else action
        if isinstance(action, bool) or (isinstance(given, np.ndarray) and (given.ndim != 0
                                                                             or given.dtype.kind not in "iu")):
            raise GameError(f"action {action!r} is not valid: an action id, an integer 0-{N_ACTIONS - 1}")
        action = int(given)  # a 0-d integer array or tensor too, as training loops pass them
        self._cumulative_rewards[agent] = 0
        self.game.apply_action(int(action))
        self.rewards = dict.fromkeys(AGENTS, 0)
        if self.game.is_terminal():
            self.rewards = dict(zip(AGENTS, self.game.returns(), strict=True))
            self.terminations = dict.fromkeys(AGENTS, True)
            for a in AGENTS:
                self.infos[a]["result"] = self.game.result()
        else:
            self.agent_selection = AGENTS[self.game.current_player]
        self._accumulate_rewards()
        if self.game.is_terminal():
            # each agent in turn sees the end (a dead step removes it), starting from seat 0
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
