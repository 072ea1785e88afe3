"""Kernels behind ``dokosim.VectorGame``: n deals stepped at once, one ``prange`` over the rows.

Each row ``G[i]`` is one deal's state in the layout of ``game_state`` (the ``g`` of a
``dokosim.Game``) and ``R[i]`` its random stream; the kernels call the same ``game_start``,
``game_apply`` and observation fill a ``Game`` calls, so a row plays exactly the deal a
``Game`` of the same (seed, deal_id) plays with the same actions. A row whose deal ends is dealt
its next deal at once (auto-reset): row i's k-th deal is deal id ``first + k * n + i``, so every
deal depends only on (seed, deal_id) and not on the thread count.

One call of ``vector_step`` is the whole step: the actions checked (none applied unless all
are legal), applied, the next decision found, and only the outputs asked for written
(``mode``): the observation of the player to act as float32 or as uint8 (``OUT_OBS_*``), the
legal actions as an int8 mask (``OUT_MASK``); the legal actions as bits, the players, rewards
and done flags always. The rows' states are large (``G_LEN`` int64) and a step touches each
once, so the step asks the cache for a row's first lines a few rows ahead (``prefetch``).
"""
import numpy as np
from numba import prange

from .bits import nth_set_bit, popcount, prefetch
from .game_state import (
    G_DEAL_ID,
    G_DEALER,
    G_LEGAL,
    G_PHASE,
    G_PLAYER,
    N_ACTIONS,
    O_PLAYS,
    O_PSEAT,
    O_RES,
    O_ST,
    OBS_LEN,
    PH_TERMINAL,
    BITS_U8,
    _bits_out,
    _fill,
    apply_action,
    game_start,
)
from .jit import decision_kernel, inline_kernel, parallel_kernel
from .layout import P_NPLAYED, RES_SCORE
from .rng import below, seed_stream

OUT_OBS_FLOAT = 1   # mode bits: the float32 observation
OUT_OBS_U8 = 2      # the uint8 observation (observation_fill_compact's)
OUT_MASK = 4        # the int8 legal-action mask
AHEAD = 4           # rows ahead whose state is asked for
BLOCK = 256         # rows per task of the prange
HOT_LINES = 9       # the cache lines at the start of a row every step reads (layout of game_state)
RANDOM_ATTEMPT = 1 << 40  # random_actions' streams: (seed, row, this), never a deal's attempt


@inline_kernel
def _outputs(g, i, bits, players, obs_f, obs_u, legal, mode):
    """Row i's legal actions as bits, its player, and the outputs ``mode`` asks for."""
    m = g[G_LEGAL]
    bits[i] = m
    player = g[G_PLAYER]
    players[i] = player
    if mode & OUT_OBS_FLOAT:
        _fill(g, player, obs_f[i], False)
    elif mode & OUT_OBS_U8:
        _fill(g, player, obs_u[i], True)
    if mode & OUT_MASK:
        _bits_out(legal[i], 0, m, BITS_U8)


@decision_kernel
def _step_rows(G, R, actions, bits, players, rewards, done, episodes, obs_f, obs_u, legal, first, fresh, mode,
               lo, hi):
    """vector_step for rows lo .. hi-1 (compiled without reference counting: the row views cost
    nothing)."""
    n = G.shape[0]
    stride = G.shape[1]
    for i in range(lo, hi):
        if i + AHEAD < n:
            ahead = (i + AHEAD) * stride
            for line in range(HOT_LINES):
                prefetch(G, ahead + 8 * line)
        if i + 1 < n:  # the next row's state is in the cache by now: its next card's places too
            nxt = G[i + 1, O_ST + P_NPLAYED] & 63
            if nxt < 48:
                prefetch(G, (i + 1) * stride + O_PLAYS + nxt)
                prefetch(G, (i + 1) * stride + O_PSEAT + nxt)
        g = G[i]
        apply_action(g, R[i], actions[i])
        if g[G_PHASE] == PH_TERMINAL:
            for s in range(4):
                rewards[i, s] = g[O_RES + RES_SCORE + s]
            done[i] = 1
            episodes[i] += 1
            deal_id = first + episodes[i] * n + i
            for k in range(g.shape[0]):  # a clean state, then the next deal, as a new Game would start it
                g[k] = fresh[k]
            g[G_DEAL_ID] = deal_id
            g[G_DEALER] = deal_id % 4
            game_start(g, R[i])
        else:
            for s in range(4):
                rewards[i, s] = 0
            done[i] = 0
        _outputs(g, i, bits, players, obs_f, obs_u, legal, mode)


@parallel_kernel
def vector_step(G, R, actions, bits, players, rewards, done, episodes, obs_f, obs_u, legal, first, fresh,
                mode):
    """Apply actions[i] in row i and stop at its next decision; returns -1, or the first row whose
    action is not legal (bits[i], the legal actions as bits) and then changes nothing.

    After the step: rewards[i] the scores of a deal that ended (zeros elsewhere), done[i] 1
    for those rows, which already show their next deal; bits[i] and players[i] the legal
    actions and the seat to act; and as ``mode`` asks, obs_f[i] / obs_u[i] the observation of
    that seat and legal[i] the mask (arrays not asked for are not touched and may be empty).
    The rows go in blocks of BLOCK to the threads."""
    n = G.shape[0]
    for i in range(n):
        a = actions[i]
        if a < 0 or a >= N_ACTIONS or not (bits[i] >> a) & 1:
            return i
    for b in prange((n + BLOCK - 1) // BLOCK):
        _step_rows(G, R, actions, bits, players, rewards, done, episodes, obs_f, obs_u, legal, first, fresh,
                   mode, b * BLOCK, min(n, (b + 1) * BLOCK))
    return -1


@decision_kernel
def _reset_rows(G, R, bits, players, obs_f, obs_u, legal, mode, lo, hi):
    for i in range(lo, hi):
        game_start(G[i], R[i])
        _outputs(G[i], i, bits, players, obs_f, obs_u, legal, mode)


@parallel_kernel
def vector_reset(G, R, bits, players, obs_f, obs_u, legal, mode):
    """Deal every row (its G_SEED, G_DEAL_ID, G_DEALER set) and write its outputs as ``mode`` asks."""
    n = G.shape[0]
    for b in prange((n + BLOCK - 1) // BLOCK):
        _reset_rows(G, R, bits, players, obs_f, obs_u, legal, mode, b * BLOCK, min(n, (b + 1) * BLOCK))


@decision_kernel
def _observe_rows(G, rows, obs_f, obs_u, compact, lo, hi):
    for k in range(lo, hi):
        g = G[rows[k]]
        if compact:
            _fill(g, g[G_PLAYER], obs_u[k], True)
        else:
            _fill(g, g[G_PLAYER], obs_f[k], False)


@parallel_kernel
def vector_observe(G, rows, obs_f, obs_u, compact):
    """The observation of the player to act in each row of ``rows`` (indices into G), into
    obs_f[k] (float32) or, with ``compact``, obs_u[k] (uint8) for the k-th of them."""
    n = rows.shape[0]
    for b in prange((n + BLOCK - 1) // BLOCK):
        _observe_rows(G, rows, obs_f, obs_u, compact, b * BLOCK, min(n, (b + 1) * BLOCK))


@decision_kernel
def _random_rows(bits, streams, out, lo, hi):
    for i in range(lo, hi):
        m = bits[i]
        out[i] = nth_set_bit(m, below(streams[i], popcount(m)))


@parallel_kernel
def random_actions(bits, streams, out):
    """A uniformly random legal action per row (bits[i], the legal actions as bits) into out[i],
    drawn from row i's own stream ``streams[i]``."""
    n = bits.shape[0]
    for b in prange((n + BLOCK - 1) // BLOCK):
        _random_rows(bits, streams, out, b * BLOCK, min(n, (b + 1) * BLOCK))


@parallel_kernel
def seed_random_streams(streams, seed):
    """Row i's stream for random_actions: (seed, i, RANDOM_ATTEMPT), no deal's stream."""
    for i in prange(streams.shape[0]):
        seed_stream(streams[i], seed, i, RANDOM_ATTEMPT)


def observation_buffers(n, mode):
    """The output arrays of a batch of n rows: (bits, players, rewards, done, obs_f, obs_u, legal),
    the ones ``mode`` does not ask for empty."""
    return (np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros((n, 4), np.float32), np.zeros(n, np.int8),
            np.zeros((n if mode & OUT_OBS_FLOAT else 0, OBS_LEN), np.float32),
            np.zeros((n if mode & OUT_OBS_U8 else 0, OBS_LEN), np.uint8),
            np.zeros((n if mode & OUT_MASK else 0, N_ACTIONS), np.int8))
