"""The simulator's deal loop: simulate, sessions and call probes, one compiled kernel for all.

Compiled once for every strategy: the strategies are called through a strategy table of
compiled entry points (``loop/strategy_call.py``; ``random`` and ``simple`` are inlined, in
``loop/choosers.py``). The rules are not here: every step calls the engine's kernels. The jobs
live in their own modules: dealing (``dealing.py``), the play of a deal (``playing.py``),
sessions (``sessions.py``) and call probes (``probes.py``); this module owns the run's blocks.
The run layer reads the row layouts through this module (``registry.simulation_kernel``).
"""
from collections import namedtuple

import numpy as np
from numba import prange

from ..engine.jit import decision_kernel, inline_kernel, parallel_kernel
from ..engine.layout import MAX_CALL_LOG, P_HAND_SIZE
from .conditions import K_ON
from .control import (
    CONTROL_LEN, CTL_CALLS, CTL_DEALER, CTL_FIXED_SEAT, CTL_FORCE_CONTRACT, CTL_KEEP_PLAY, MODE_PROBES,
    MODE_SESSIONS, MODE_SIMULATE, Seats,
)
from .dealing import MAX_REDEALS, start_deal, start_forced_deal
from .playing import deal_scratch, finish_deal, play_cards, play_random_cards, refresh_call_masks
from .strategy_call import INLINE_RANDOM, T_INLINE
from .probes import PROBE_COLUMNS, PROBE_LEN, play_probe, probe_scratch
from .sessions import SESSION_COLUMNS, SESSION_LEN, play_session, session_scratch

__all__ = ["CONTROL_LEN", "MAX_REDEALS", "MODE_PROBES", "MODE_SESSIONS", "MODE_SIMULATE", "PROBE_COLUMNS",
           "PROBE_LEN", "SESSION_COLUMNS", "SESSION_LEN", "no_logs", "run_chunk"]

# What stays fixed for a run (the item functions' ``run``) and where its rows go (``outs``).
Run = namedtuple("Run", ("seed", "control", "rules", "seats"))
Outputs = namedtuple("Outputs", ("rows", "plays", "calls"))


def no_logs():
    """run_chunk's ``play_out`` and ``call_out`` for a run that keeps no cards and calls."""
    return np.zeros((1, 48), dtype=np.int64), np.zeros((1, MAX_CALL_LOG, 3), dtype=np.int64)


@parallel_kernel
def run_chunk(mode, seed, first, n, n_blocks, n_players, n_deals, compulsory_on, level, control, rules,
              strategies, strategy_ids, params, out, play_out, call_out):
    """Items first .. first + n - 1 into ``out``, cut into ``n_blocks`` blocks (a few per thread).

    MODE_SIMULATE: deals; ``out`` n x OUT_LEN; ``play_out`` (n x 48) and ``call_out``
    (n x MAX_CALL_LOG x 3) filled when control[CTL_KEEP_PLAY] is 1 (else they may have one
    row). Rows depend only on (seed, deal_id).

    MODE_SESSIONS: sessions of ``n_deals`` deals for ``n_players`` (compulsory solos when
    ``compulsory_on``), session after session, each session's deals one after the other;
    ``out`` n * n_deals x SESSION_LEN, and ``play_out`` and ``call_out`` a row per deal
    (engine seats) when control[CTL_KEEP_PLAY]. Rows depend only on (seed, session id).

    MODE_PROBES: call probes of ``level`` (loop/probes.py, ``play_probe``); ``out`` n x
    PROBE_LEN. Rows depend only on (seed, deal_id).
    """
    # the prange body is one call: numba's parfor passes take minutes over a large body
    for b in prange(n_blocks):
        run_block(mode, seed, first, b * n // n_blocks, (b + 1) * n // n_blocks, n_players, n_deals,
                  compulsory_on, level, control, rules, strategies, strategy_ids, params, out, play_out,
                  call_out)


@decision_kernel
def run_block(mode, seed, first, lo, hi, n_players, n_deals, compulsory_on, level, control, rules,
              strategies, strategy_ids, params, out, play_out, call_out):
    """Items first + lo .. first + hi - 1 of run_chunk, one item function per mode, in one
    scratch on the stack (no reference counting: nothing here allocates on the heap)."""
    pos, sc = deal_scratch()
    run = Run(seed, control, rules, Seats(strategies, strategy_ids, params))
    outs = Outputs(out, play_out, call_out)
    if mode == MODE_SIMULATE:
        # a forced contract without a condition or a fixed hand: the deal starts inline
        forced_plain = (control[CTL_FORCE_CONTRACT] >= 0 and control[CTL_FIXED_SEAT] < 0
                        and not (control.shape[0] > K_ON and control[K_ON]))
        # random at every seat and no calls: the cards are played inline (play_random_cards)
        random_only = control[CTL_CALLS] != 1
        for s in range(4):
            random_only = random_only and strategies[strategy_ids[s], T_INLINE] == INLINE_RANDOM
        for i in range(lo, hi):
            simulate_deal(run, first + i, i, (forced_plain, random_only), pos, sc, outs)
    elif mode == MODE_SESSIONS:
        ss = session_scratch()
        for i in range(lo, hi):
            play_session(run, first + i, i, (n_deals, n_players, compulsory_on), pos, sc, ss, outs)
    else:
        at = probe_scratch()
        for i in range(lo, hi):
            play_probe(run, first + i, level, out[i], pos, sc, at)


@inline_kernel
def simulate_deal(run, deal_id, r, fast, pos, sc, outs):
    """Deal ``deal_id`` of ``run`` = (seed, control, rules, seats) played into row ``r`` of
    ``outs`` (and its cards and calls there when the run keeps them). ``fast`` = (the contract
    is forced with no condition or fixed hand, random plays every seat without calls): the
    deal's start and its cards inline (no call of start_deal or play_cards)."""
    seed, control, rules, seats = run
    forced_plain, random_only = fast
    dealer = control[CTL_DEALER]
    if dealer < 0:
        dealer = deal_id % 4
    if forced_plain:
        contract, attempt = start_forced_deal(seed, deal_id, dealer, control, rules, pos, sc.hands0, sc.deck,
                                              sc.rng, sc.poverty)
    else:
        contract, attempt = start_deal(seed, (deal_id, dealer, np.int64(0), np.int64(-1)), control, rules, seats,
                                       pos, sc.hands0, sc.rng, sc.poverty)
    if control[CTL_CALLS] == 1:
        refresh_call_masks(pos, sc.call_masks)
    keep = control[CTL_KEEP_PLAY] == 1
    calls_kept = outs.calls[r] if keep else sc.call_log
    n_cards = 4 * pos.st[P_HAND_SIZE]
    if random_only:
        play_random_cards(np.int64(0), n_cards, pos, rules, seats.params, sc.rng)
        n_calls = np.int64(0)
    else:
        n_calls = play_cards(np.int64(0), n_cards, np.int64(0), (np.int64(-1), np.int64(0)), control, rules, seats,
                             pos, sc.rng, sc.call_masks, calls_kept)
    finish_deal((deal_id, dealer, contract, attempt), n_calls, control, pos, sc, outs.rows[r],
                outs.plays[r] if keep else sc.play_log, calls_kept)
