"""Kernels behind ``dokosim.VectorGame``: n deals stepped at once, one ``prange`` over the rows.

Each row ``G[i]`` is one deal's state in the layout of ``game_state`` (the ``g`` of a
``dokosim.Game``) and ``R[i]`` its random stream; the kernels call the same ``game_start``,
``game_apply`` and ``observation_fill`` a ``Game`` calls, so a row plays exactly the deal a
``Game`` of the same (seed, deal_id) plays with the same actions. A row whose deal ends is dealt
its next deal at once (auto-reset): row i's k-th deal is deal id ``first + k * n + i``, so every
deal depends only on (seed, deal_id) and not on the thread count.
"""
import numpy as np
from numba import prange

from .game_state import (
    G_DEAL_ID,
    G_DEALER,
    G_LEGAL,
    G_PHASE,
    G_PLAYER,
    N_ACTIONS,
    O_RES,
    OBS_LEN,
    PH_TERMINAL,
    game_apply,
    game_start,
    observation_fill,
)
from .jit import kernel, parallel_kernel
from .layout import RES_SCORE


@kernel
def _after_step(g, rng, obs, legal, rewards, done, episodes, n, first, fresh, i):
    """Row i after an action: its rewards and done flag, the next deal if it ended, its
    observation for the player to act and its legal-action mask."""
    for s in range(4):
        rewards[i, s] = 0.0
    done[i] = 0
    if g[G_PHASE] == PH_TERMINAL:
        for s in range(4):
            rewards[i, s] = g[O_RES + RES_SCORE + s]
        done[i] = 1
        episodes[i] += 1
        deal_id = first + episodes[i] * n + i
        g[:] = fresh  # a clean state, then the next deal, as a new Game would start it
        g[G_DEAL_ID] = deal_id
        g[G_DEALER] = deal_id % 4
        game_start(g, rng)
    observation_fill(g, g[G_PLAYER], obs[i])
    m = g[G_LEGAL]
    for a in range(N_ACTIONS):
        legal[i, a] = (m >> a) & 1


@parallel_kernel
def vector_reset(G, R, obs, legal, players):
    """Deal every row (its G_SEED, G_DEAL_ID, G_DEALER set) and fill its observation, mask and player."""
    n = G.shape[0]
    for i in prange(n):
        game_start(G[i], R[i])
        observation_fill(G[i], G[i, G_PLAYER], obs[i])
        m = G[i, G_LEGAL]
        for a in range(N_ACTIONS):
            legal[i, a] = (m >> a) & 1
        players[i] = G[i, G_PLAYER]


@parallel_kernel
def vector_step(G, R, actions, obs, legal, rewards, done, players, episodes, first, fresh, errors):
    """Apply actions[i] in row i (errors[i] = 1 and the row unchanged when it is not legal), then
    ``_after_step``; players[i] the seat to act next."""
    n = G.shape[0]
    for i in prange(n):
        errors[i] = game_apply(G[i], R[i], actions[i])
        if errors[i]:
            continue
        _after_step(G[i], R[i], obs, legal, rewards, done, episodes, n, first, fresh, i)
        players[i] = G[i, G_PLAYER]


def observation_buffers(n):
    """The output arrays of a batch of n rows: (obs, legal, rewards, done, players, errors)."""
    return (np.zeros((n, OBS_LEN), np.float32), np.zeros((n, N_ACTIONS), np.int8),
            np.zeros((n, 4), np.float32), np.zeros(n, np.int8), np.zeros(n, np.int64),
            np.zeros(n, np.int64))
