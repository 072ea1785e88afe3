"""Kernels behind ``dokosim.VectorGame``: n deals stepped at once, the rows in blocks over threads.

Each row ``G[i]`` is one deal's state in the layout of ``game_state`` (the ``g`` of a
``dokosim.Game``) and ``R[i]`` its random stream; the kernels call the same ``game_start``,
``game_apply`` (its inlined body ``apply_action``) and observation fill a ``Game`` calls, so a
row plays exactly the deal a ``Game`` of the same (seed, deal_id) plays with the same actions.
A row whose deal ends is dealt its next deal at once (auto-reset): row i's k-th deal is deal
id ``first + k * n + i``, so every deal depends only on (seed, deal_id) and not on the thread
count.

A step is ``vector_check`` (no row changes unless every action is legal), then
``vector_step`` called by each thread of ``dokosim.vector``'s pool at once: the threads take
blocks of rows from a shared counter until none is left (a thread the machine holds back
delays one block, and nobody spins waiting for it). Only the outputs asked for are written
(``mode``): the observation of the player to act as float32 or as uint8 (``OUT_OBS_*``), the
legal actions as an int8 mask (``OUT_MASK``); the legal actions as bits, the players, rewards
and done flags always. A row's state is large (``G_LEN`` int64) and a step touches each row
once, so the step asks the cache for a row's first lines a few rows ahead (``prefetch``).
The kernels are compiled without reference counting (``decision_kernel``): they allocate
nothing, and the row views cost nothing.

A batch's outputs are one value, an ``Outputs`` (``observation_buffers`` makes them), and where
each row's next deal comes from another, a ``Deals``.
"""
from collections import namedtuple

import numpy as np

from .bits import atomic_add, nth_set_bit, popcount, prefetch
from .game_state import (
    G_DEAL_ID, G_DEALER, G_LEGAL, G_PHASE, G_PLAYER, N_ACTIONS, O_PLAYS, O_PSEAT, O_RES, O_ST, OBS_LEN,
    PH_TERMINAL, bits_out, apply_action, game_start, observation_fill, observation_fill_u8,
)
from .jit import decision_kernel, inline_kernel
from .layout import P_NPLAYED, RES_SCORE
from .rng import below, seed_stream

OUT_OBS_FLOAT = 1   # mode bits: the float32 observation
OUT_OBS_U8 = 2      # the uint8 observation (game_state.observation_fill_u8)
OUT_MASK = 4        # the int8 legal-action mask
AHEAD = 4           # rows ahead whose state is asked for
HOT_LINES = 9       # the cache lines at the start of a row every step reads (layout of game_state)
RUN_NEXT, RUN_STARTED, RUN_FINISHED = range(3)  # a run's ctl: next block, threads started, finished
RANDOM_ATTEMPT = 1 << 40  # random_actions' streams: (seed, row, this), never a deal's attempt

# What a step writes per row: its legal actions as bits, its player, its rewards (float32, 4) and
# done flag (int8), and as the mode asks the observation of that player (float32 ``obs_f`` or uint8
# ``obs_u``, OBS_LEN) and the int8 legal-action mask (``legal``, N_ACTIONS).
Outputs = namedtuple("Outputs", ("bits", "players", "rewards", "done", "obs_f", "obs_u", "legal"))
# Where each row's next deal comes from (auto-reset): row i's k-th deal (``episodes[i]`` = k) is
# deal id ``first + k * n + i``, started from the clean state ``fresh`` (a row of G_LEN).
Deals = namedtuple("Deals", ("first", "episodes", "fresh"))


@inline_kernel
def _outputs(g, i, outs, mode):
    """Row i's legal actions as bits, its player, and the outputs ``mode`` asks for, into ``outs``."""
    m = g[G_LEGAL]
    outs.bits[i] = m
    player = g[G_PLAYER]
    outs.players[i] = player
    if mode & OUT_OBS_FLOAT:
        observation_fill(g, player, outs.obs_f[i])
    elif mode & OUT_OBS_U8:
        observation_fill_u8(g, player, outs.obs_u[i])
    if mode & OUT_MASK:
        bits_out(outs.legal[i], 0, m, N_ACTIONS)


@inline_kernel
def _step_rows(G, R, actions, outs, deals, mode, lo, hi):
    """The step of rows lo .. hi-1 (vector_step)."""
    rewards, done, episodes, fresh = outs.rewards, outs.done, deals.episodes, deals.fresh
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
            deal_id = deals.first + episodes[i] * n + i
            for k in range(g.shape[0]):  # a clean state, then the next deal, as a new Game would start it
                g[k] = fresh[k]
            g[G_DEAL_ID] = deal_id
            g[G_DEALER] = deal_id % 4
            game_start(g, R[i])
        else:
            for s in range(4):
                rewards[i, s] = 0
            done[i] = 0
        _outputs(g, i, outs, mode)


@decision_kernel
def vector_check(actions, bits):
    """The first row whose action is not legal (bits[i], its legal actions as bits), -1 if none."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= N_ACTIONS or not (bits[i] >> a) & 1:
            return i
    return -1


@decision_kernel
def vector_step(G, R, actions, outs, deals, mode, ctl, block):
    """Apply actions[i] in row i (checked by vector_check) and stop at its next decision, for the
    blocks of ``block`` rows this thread takes: each thread that calls it at the same time (a
    run, with its own ``ctl``) takes the next block number from ``ctl[RUN_NEXT]`` until none is
    left, so a thread the machine holds back delays one block, not half the rows; it counts
    itself in ``ctl[RUN_STARTED]`` before and ``ctl[RUN_FINISHED]`` after (``run_join``).

    After the step, in ``outs`` (an ``Outputs``): rewards[i] the scores of a deal that ended (zeros
    elsewhere), done[i] 1 for those rows, which already show their next deal (from ``deals``, a
    ``Deals``); bits[i] and players[i] the legal actions and the seat to act; and as ``mode``
    asks, obs_f[i] / obs_u[i] the observation of that seat and legal[i] the mask (arrays not
    asked for are not touched and may be empty)."""
    n = G.shape[0]
    atomic_add(ctl, RUN_STARTED, 1)
    while True:
        lo = atomic_add(ctl, RUN_NEXT, 1) * block
        if lo >= n:
            break
        _step_rows(G, R, actions, outs, deals, mode, lo, min(n, lo + block))
    atomic_add(ctl, RUN_FINISHED, 1)


@decision_kernel
def vector_reset(G, R, outs, mode, ctl, block):
    """Deal every row (its G_SEED, G_DEAL_ID, G_DEALER set) and write its outputs into ``outs`` as
    ``mode`` asks (blocks taken as in vector_step)."""
    n = G.shape[0]
    atomic_add(ctl, RUN_STARTED, 1)
    while True:
        lo = atomic_add(ctl, RUN_NEXT, 1) * block
        if lo >= n:
            break
        for i in range(lo, min(n, lo + block)):
            game_start(G[i], R[i])
            _outputs(G[i], i, outs, mode)
    atomic_add(ctl, RUN_FINISHED, 1)


@decision_kernel
def vector_observe(G, rows, obs_f, obs_u, compact, ctl, block):
    """The observation of the player to act in each row of ``rows`` (indices into G), into
    obs_f[k] (float32) or, with ``compact``, obs_u[k] (uint8) for the k-th of them (blocks taken
    as in vector_step)."""
    n = rows.shape[0]
    atomic_add(ctl, RUN_STARTED, 1)
    while True:
        lo = atomic_add(ctl, RUN_NEXT, 1) * block
        if lo >= n:
            break
        for k in range(lo, min(n, lo + block)):
            g = G[rows[k]]
            if compact:
                observation_fill_u8(g, g[G_PLAYER], obs_u[k])
            else:
                observation_fill(g, g[G_PLAYER], obs_f[k])
    atomic_add(ctl, RUN_FINISHED, 1)


@decision_kernel
def run_join(ctl, spins):
    """True once every thread that started the run of ``ctl`` has finished it, checked ``spins``
    times at most (then False: the caller waits otherwise and asks again). A thread that starts
    the run later finds no block left and changes nothing."""
    for _ in range(spins):
        if atomic_add(ctl, RUN_STARTED, 0) == atomic_add(ctl, RUN_FINISHED, 0):
            return True
    return False


@decision_kernel
def random_actions(bits, streams, out):
    """A uniformly random legal action per row (bits[i], the legal actions as bits) into out[i],
    drawn from row i's own stream ``streams[i]``."""
    for i in range(bits.shape[0]):
        m = bits[i]
        out[i] = nth_set_bit(m, below(streams[i], popcount(m)))


@decision_kernel
def seed_random_streams(streams, seed):
    """Row i's stream for random_actions: (seed, i, RANDOM_ATTEMPT), no deal's stream."""
    for i in range(streams.shape[0]):
        seed_stream(streams[i], seed, i, RANDOM_ATTEMPT)


def observation_buffers(n, mode):
    """The ``Outputs`` of a batch of n rows, the arrays ``mode`` does not ask for empty."""
    return Outputs(np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros((n, 4), np.float32), np.zeros(n, np.int8),
                   np.zeros((n if mode & OUT_OBS_FLOAT else 0, OBS_LEN), np.float32),
                   np.zeros((n if mode & OUT_OBS_U8 else 0, OBS_LEN), np.uint8),
                   np.zeros((n if mode & OUT_MASK else 0, N_ACTIONS), np.int8))
