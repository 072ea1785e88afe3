"""``dokosim.VectorGame``: n deals stepped at once in numba, for learning (docs/game.md).

Actions in, observation tensors, legal-action masks, rewards and done flags out, the way pgx
batches games: each call of ``step`` applies one action in every row, in one compiled
``prange`` loop over the rows, over the same kernels as ``dokosim.Game``. A row whose deal ends
is dealt its next deal at once (auto-reset); row i's k-th deal is deal id
``first_deal_id + k * n + i`` of ``seed``, so a run is reproducible whatever the thread count.
"""
from __future__ import annotations

import numpy as np

from .engine import game_state as gs
from .engine import vector_game as vg
from .engine.rng import RNG_LEN
from .game import ACTION_NAMES, N_ACTIONS, OBSERVATION_LEN, Game, GameError
from .rules import Rules, rules_from_object


class VectorGame:
    """``n`` deals of Doppelkopf stepped together.

    ``VectorGame(n, rules="ddv", seed=0, first_deal_id=0, calls=True)``. After construction
    (and after every ``step``): ``obs`` (float32, n x OBSERVATION_LEN: the tensor of the player
    to act in each row, docs/game.md's layout), ``legal`` (int8, n x N_ACTIONS), ``player``
    (the seat to act per row). ``step(actions)`` applies ``actions[i]`` in row i and returns
    ``(obs, legal, rewards, done)``: ``rewards`` (float32, n x 4) holds the scores of the deals
    that ended in this step (zeros elsewhere), ``done`` (bool, n) marks them; those rows already
    show their next deal. The arrays are reused by the next step: copy what you keep.
    """

    def __init__(self, n: int, rules="ddv", seed: int = 0, first_deal_id: int = 0, calls: bool = True):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 1 << 24:
            raise GameError(f"n={n!r} is not valid: the number of deals stepped at once, 1 to {1 << 24:,}")
        for name, value in (("seed", seed), ("first_deal_id", first_deal_id)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < 2**62:
                raise GameError(f"{name}={value!r} is not valid: an integer from 0 to 2**62-1")
        try:
            self.rules = rules if isinstance(rules, Rules) else rules_from_object(rules)
        except ValueError as exc:
            raise GameError(f"rules: {exc}") from None
        if self.rules.five_players or self.rules.bock:
            raise GameError("rules: five_players and bock belong to sessions; a VectorGame steps single deals")
        self.n, self.seed, self.first_deal_id = int(n), int(seed), int(first_deal_id)
        fresh = np.zeros(gs.G_LEN, np.int64)  # a deal before its start, as Game() sets it up
        packed = self.rules.packed()
        fresh[gs.O_RULES:gs.O_RULES + len(packed)] = packed
        fresh[gs.G_SEED] = self.seed
        fresh[gs.G_CALLS_ON] = 1 if calls else 0
        self._fresh = fresh
        G = np.tile(fresh, (self.n, 1))
        deal_ids = self.first_deal_id + np.arange(self.n, dtype=np.int64)
        G[:, gs.G_DEAL_ID] = deal_ids
        G[:, gs.G_DEALER] = deal_ids % 4
        self._G = G
        self._R = np.zeros((self.n, RNG_LEN), np.uint64)
        self._episodes = np.zeros(self.n, np.int64)
        self.obs, self.legal, self.rewards, self._done, self.player, self._errors = vg.observation_buffers(self.n)
        from .kernels import ensure_loop
        ensure_loop(vg.vector_step, "the batched game")
        vg.vector_reset(self._G, self._R, self.obs, self.legal, self.player)

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Apply ``actions[i]`` (an action id) in row i; (obs, legal, rewards, done). GameError
        naming the first row whose action is not legal (no row is changed then)."""
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        if actions.shape != (self.n,):
            raise GameError(f"actions must be {self.n} action ids (one per row), got shape {actions.shape}")
        bad = (actions < 0) | (actions >= N_ACTIONS)
        if not bad.any():
            bad = self.legal[np.arange(self.n), actions] == 0
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            a = int(actions[i])
            name = ACTION_NAMES[a] if 0 <= a < N_ACTIONS else repr(a)
            legal = ", ".join(ACTION_NAMES[k] for k in np.flatnonzero(self.legal[i]))
            raise GameError(f"row {i}: action {name} is not legal for seat {int(self.player[i])}; legal: {legal}")
        vg.vector_step(self._G, self._R, actions, self.obs, self.legal, self.rewards, self._done, self.player,
                       self._episodes, self.first_deal_id, self._fresh, self._errors)
        return self.obs, self.legal, self.rewards, self._done.view(bool)

    def game(self, i: int) -> Game:
        """Row i's deal as a ``dokosim.Game`` (a copy: stepping it does not change the row)."""
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.n:
            raise GameError(f"row {i!r} is not valid: 0 to {self.n - 1}")
        game = object.__new__(Game)
        game._g = self._G[i].copy()
        game._rng = self._R[i].copy()
        game.rules = self.rules
        return game

    def deal_ids(self) -> np.ndarray:
        """The deal id each row is playing now."""
        return self._G[:, gs.G_DEAL_ID].copy()


__all__ = ["VectorGame", "OBSERVATION_LEN", "N_ACTIONS"]
