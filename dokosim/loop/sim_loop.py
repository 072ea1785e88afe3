"""The simulator's deal loop: simulate, sessions and call probes, one compiled kernel for all.

Compiled once for every strategy: the strategies are called through a strategy table of
compiled entry points (``loop/strategy_call.py``; ``random`` and ``simple`` are inlined, in
``loop/choosers.py``). The rules are not here: every step calls the engine's kernels. The jobs
live in their own modules: dealing (``dealing.py``), the play of a deal (``playing.py``),
sessions (``sessions.py``) and call probes (``probes.py``); this module owns the run's blocks
and their one loop.
The run layer reads the row layouts through this module (``registry.simulation_kernel``).
"""
import numpy as np
from numba import prange

from ..engine.jit import decision_kernel, inline_kernel, parallel_kernel
from ..engine.layout import MAX_CALL_LOG, P_HAND_SIZE
from .conditions import K_ON
from .control import (
    CONTROL_LEN, CTL_CALLS, CTL_DEALER, CTL_FIXED_SEAT, CTL_FORCE_CONTRACT, CTL_KEEP_PLAY, MODE_PROBES,
    MODE_SESSIONS, MODE_SIMULATE, Rows, Run, Seats,
)
from .dealing import MAX_REDEALS, start_deal, start_forced_deal
from .playing import deal_scratch, finish_deal, play_cards, refresh_call_masks
from .probes import (
    PROBE_COLUMNS, PROBE_LEN, after_probe_segment, begin_probe, probe_branch, probe_moment, probe_scratch,
)
from .sessions import (
    SESSION_COLUMNS, SESSION_LEN, begin_session, end_session_deal, session_deal, session_scratch,
)

__all__ = ["CONTROL_LEN", "MAX_REDEALS", "MODE_PROBES", "MODE_SESSIONS", "MODE_SIMULATE", "PROBE_COLUMNS",
           "PROBE_LEN", "SESSION_COLUMNS", "SESSION_LEN", "Rows", "Run", "Seats", "no_logs", "run_chunk"]


def no_logs():
    """run_chunk's ``play_out`` and ``call_out`` (``Rows``) for a run that keeps no cards and calls."""
    return np.zeros((1, 48), dtype=np.int64), np.zeros((1, MAX_CALL_LOG, 3), dtype=np.int64)


@parallel_kernel
def run_chunk(run, first, n, n_blocks, seats, rows):
    """Items first .. first + n - 1 of the run ``run`` (a ``Run``, loop/control.py) played by
    ``seats`` (a ``Seats``) into ``rows`` (a ``Rows``), cut into ``n_blocks`` blocks (a few per
    thread).

    MODE_SIMULATE: deals; ``rows.out`` n x OUT_LEN; ``play_out`` (n x 48) and ``call_out``
    (n x MAX_CALL_LOG x 3) filled when control[CTL_KEEP_PLAY] is 1 (else they may have one
    row). Rows depend only on (seed, deal_id).

    MODE_SESSIONS: sessions of ``run.n_deals`` deals for ``run.n_players`` (compulsory solos when
    ``run.compulsory_on``), session after session, each session's deals one after the other;
    ``out`` n * n_deals x SESSION_LEN, and ``play_out`` and ``call_out`` a row per deal
    (engine seats) when control[CTL_KEEP_PLAY]. Rows depend only on (seed, session id).

    MODE_PROBES: call probes of ``run.level`` (loop/probes.py); ``out`` n x
    PROBE_LEN. Rows depend only on (seed, deal_id).
    """
    # the prange body is one call: numba's parfor passes take minutes over a large body
    for b in prange(n_blocks):
        run_block(run, first, b * n // n_blocks, (b + 1) * n // n_blocks, seats, rows)


@decision_kernel
def run_block(run, first, lo, hi, run_seats, rows):
    """Items first + lo .. first + hi - 1 of run_chunk, in one scratch on the stack (no reference
    counting: nothing here allocates on the heap).

    Every mode is one loop: an item (a deal, a session, a probe) is played deal by deal, and a
    deal in segments (all of it; a probe: to its moment, then on with and without the call)
    through the one call site of ``play_cards``; what differs per mode are the hooks of
    loop/sessions.py and loop/probes.py. One site keeps the deal loop's code (and its compile
    time) at one copy of the per-card path."""
    mode, seed, n_deals, n_players, compulsory_on, level, control, rules = run
    out, play_out, call_out = rows
    pos, sc = deal_scratch()
    ss = session_scratch()
    at = probe_scratch()
    keep = control[CTL_KEEP_PLAY] == 1 and mode != MODE_PROBES
    calls_on = control[CTL_CALLS] == 1
    # a forced contract without a condition or a fixed hand: the deal starts inline
    forced_plain = (control[CTL_FORCE_CONTRACT] >= 0 and control[CTL_FIXED_SEAT] < 0
                    and not (control.shape[0] > K_ON and control[K_ON]))
    form = (n_deals, n_players, compulsory_on)
    deals_per_item = n_deals if mode == MODE_SESSIONS else 1
    for i in range(lo, hi):
        item = first + i
        owe = begin_session(form, ss) if mode == MODE_SESSIONS else np.int64(0)
        dealer = np.int64(0)  # a session's dealer, a table seat
        for k in range(deals_per_item):
            # the deal (deal_id, dealer, owe_mask, force) and who plays it
            if mode == MODE_SESSIONS:
                deal, seats = session_deal(item, k, dealer, owe, form, run_seats, ss)
            else:
                deal, seats = plain_deal(item, control, run_seats)
            row = out[i]  # simulate and probes: the item's row (sessions: out[i * n_deals + k])
            if mode == MODE_PROBES:
                begin_probe(item, level, row)
            if forced_plain:
                contract, attempt = start_forced_deal(seed, deal, control, rules, pos, sc)
            else:
                contract, attempt = start_deal(seed, deal, control, rules, seats, pos, sc.hands0, sc.rng, sc.poverty)
            n_cards = 4 * pos.st[P_HAND_SIZE]
            n_segments, moment = np.int64(1), n_cards
            if mode == MODE_PROBES:
                n_segments, moment = probe_moment(seed, item, level, pos, at)
            if calls_on or mode == MODE_PROBES:
                refresh_call_masks(pos, sc.call_masks)
            # the deal's cards and calls are kept (control[CTL_KEEP_PLAY]) at its row
            r = i if mode == MODE_SIMULATE else i * n_deals + k
            calls_kept = call_out[r] if keep else sc.call_log
            n_calls = np.int64(0)
            for segment in range(n_segments):
                seg_from, seg_to, cap = np.int64(0), moment, (np.int64(-1), np.int64(0))
                if segment > 0:  # a probe's branches: on from its moment, with the call and without
                    seg_from, seg_to, cap = moment, n_cards, probe_branch(segment, level, row, pos, sc, at)
                    n_calls = np.int64(0)
                n_calls = play_cards((seg_from, seg_to, cap), n_calls, control, rules, seats, pos, sc, calls_kept)
                if mode == MODE_PROBES and not after_probe_segment(segment, level, row, pos, sc, at):
                    break
            if mode == MODE_PROBES:
                continue
            finish_deal((deal[0], deal[1], contract, attempt), n_calls, control, pos, sc,
                        row if mode == MODE_SIMULATE else ss.out_row, play_out[r] if keep else sc.play_log,
                        calls_kept)
            if mode == MODE_SESSIONS:
                owe, dealer = end_session_deal((item, k), deal, (dealer, owe), form, rules, pos.st, sc.res, ss, out[r])


@inline_kernel
def plain_deal(deal_id, control, seats):
    """A simulation's or a probe's deal: (deal_id, its dealer (control's, else deal_id % 4), no
    solo owed, none forced) and the run's ``seats``."""
    dealer = control[CTL_DEALER]
    if dealer < 0:
        dealer = deal_id % 4
    return (np.int64(deal_id), np.int64(dealer), np.int64(0), np.int64(-1)), seats
