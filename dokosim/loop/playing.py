"""The play of a deal in the deal loop: each card after its round of calls, the fast loop for
``random`` at every seat, and the deal's row once it is scored."""
from collections import namedtuple

import numpy as np

from ..engine.bits import popcount
from ..engine.cards import C_POVERTY
from ..engine.jit import inline_kernel
from ..engine.layout import (
    H_CONTRACT, H_RE_MASK, H_SOLOIST, I_AGAINST_QUEENS, I_CHARLIE, I_DOPPELKOPF, I_FOX, MAX_CALL_LOG, N_ITEMS,
    O_AGAINST_QUEENS, O_CALLS_KO, O_CALLS_RE, O_CHARLIE_KO, O_CHARLIE_RE, O_CLARIFY, O_CONTRACT, O_DEAL_ID,
    O_DEALER, O_DECLARER, O_DOKO_KO, O_DOKO_RE, O_EYES_RE, O_FIRST_KO, O_FIRST_RE, O_FOX_KO, O_FOX_RE, O_HAND,
    O_PIGLETS, O_POVERTY_PARTNER, O_POVERTY_PASSED, O_POVERTY_RETURNED, O_RE_MASK, O_REDEALS, O_SCORE,
    O_SOLOIST, O_TRICKS_RE, O_VALUE, O_WINNER, P_CLARIFIED, P_CLARIFY_TRICK, P_DECLARER, P_FIRST_KO, P_FIRST_RE,
    P_HAND_SIZE, P_LEVEL_KO, P_LEVEL_RE, P_NPLAYED, P_PIGLETS, P_TURN, PUBLIC_LEN, RES_EYES_RE, RES_LEN,
    RES_SCORE, RES_TRICKS_RE, RES_VALUE, RES_WINNER,
)
from ..engine.play import legal_calls, legal_mask, make_call, play_card, seat_is_re
from ..engine.position import stack_position
from ..engine.rng import RNG_LEN
from ..engine.scoring import score_deal
from ..engine.stack import stack_zeros, stack_zeros_2d
from ..strategies import random_player
from .choosers import choose_call_inline, choose_card_inline
from .control import CTL_CALLS, CTL_KEEP_PLAY
from .strategy_call import INLINE_RANDOM, T_INLINE

# The rest of a thread's scratch for one deal besides its position: the hands as dealt, the
# result (items, res), the random stream, each seat's legal calls, a poverty's exchange, the deck
# to deal from, and where a deal's cards and calls go when the run keeps none.
DealScratch = namedtuple("DealScratch", ("hands0", "items", "res", "rng", "call_masks", "poverty", "deck",
                                         "play_log", "call_log"))


@inline_kernel
def deal_scratch():
    """(position, DealScratch): the arrays one thread plays deals in, once per block of deals, on
    the stack of the block kernel (engine/stack.py): inlined, so the arrays belong to the
    caller's frame; it must stay inlined."""
    return stack_position(), DealScratch(stack_zeros(4, np.int64), stack_zeros_2d(2, N_ITEMS, np.int64),
                                         stack_zeros(RES_LEN, np.int64), stack_zeros(RNG_LEN, np.uint64),
                                         stack_zeros(4, np.int64), stack_zeros(4, np.int64),
                                         stack_zeros(48, np.int64), stack_zeros(48, np.int64),
                                         stack_zeros_2d(MAX_CALL_LOG, 3, np.int64))


@inline_kernel
def refresh_call_masks(pos, call_masks):
    """call_masks[s] = legal_calls for every seat."""
    for s in range(4):
        call_masks[s] = legal_calls(pos.st, pos.hands, s)


@inline_kernel
def play_random_cards(k_from, k_to, pos, rules, params, rng):
    """Cards k_from .. k_to - 1 with ``random`` at every seat and no calls left: the same plays as
    play_cards, in a loop without the strategy table's call (which may read st), so that LLVM
    keeps the turn, the card count and the stream in registers (about a tenth of random play's
    time; the same loop with ``simple`` in it gained nothing for simple and lost random's gain).
    No check for an illegal answer: ``random`` picks a card of the legal mask, which a hand that
    still holds cards never leaves empty (tests/loop/test_fast_paths.py compares with the general loop)."""
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
    pub = st[:PUBLIC_LEN]
    for _ in range(k_from, k_to):
        seat = st[P_TURN] & 3
        legal = legal_mask(st, hands[seat], plays, fclass, cmask)
        card = random_player.card(seat, hands[seat], legal, pub, plays, play_seat, trick_winner, power, fclass,
                                  cmask, rules, params[seat], rng)
        play_card(pos, card, rules)


@inline_kernel
def play_cards(segment, n_calls, control, rules, seats, pos, sc, call_log):
    """Play cards k_from .. k_to - 1 of the deal, ``segment`` = (k_from, k_to, cap), each after
    its round of calls, drawing from sc.rng; returns the number of calls logged into
    ``call_log`` so far (``n_calls`` before). Inlined at one call site, the deal
    loop's (sim_loop.run_block), for every mode: there the position's arrays are on the block
    kernel's stack, so LLVM knows that none overlaps another (engine/stack.py). Compiled as a
    function of its own instead, simple's deals took a tenth longer; inlined at one site per
    mode, the deal loop took two fifths longer to compile.

    ``sc.call_masks`` must hold legal_calls for every seat at k_from. ``cap`` = (side, level):
    side >= 0 (0 Re, 1 Kontra) may not call above level (the announcements study's two
    branches); side -1 for no cap.
    """
    k_from, k_to, cap = segment
    cap_side, cap_level = cap
    rng, call_masks = sc.rng, sc.call_masks
    strategies, strategy_ids, params = seats
    st = pos.st
    hands = pos.hands
    # call_masks caches legal_calls per seat: it changes only when that seat plays,
    # when a call is made, or when a trick ends (a marriage's clarification)
    # calls_open: calls are on and may still be made. Once no seat may call and the parties are
    # settled, nobody can call again in this deal (limits only tighten as cards are played; only a
    # call or a marriage's clarification opens new ones), so legal_calls need not run per card.
    calls_open = control[CTL_CALLS] == 1
    # each seat's strategy kind, once: per card it was a chain of three dependent loads
    seat_inline = stack_zeros(4, np.int64)
    for s in range(4):
        seat_inline[s] = strategies[strategy_ids[s], T_INLINE]
    all_random = (seat_inline[0] == INLINE_RANDOM and seat_inline[1] == INLINE_RANDOM
                  and seat_inline[2] == INLINE_RANDOM and seat_inline[3] == INLINE_RANDOM)
    for k in range(k_from, k_to):
        if all_random and not calls_open:
            play_random_cards(k, k_to, pos, rules, params, rng)
            break
        if calls_open and (call_masks[0] | call_masks[1] | call_masks[2] | call_masks[3]):
            first = st[P_TURN]
            for i in range(4):
                seat = (first + i) & 3
                legal = call_masks[seat]
                if cap_side >= 0 and (0 if seat_is_re(st, seat) else 1) == cap_side:
                    legal &= (np.int64(2) << cap_level) - 1
                if legal:
                    level = choose_call_inline(seat_inline[seat], strategies, strategy_ids[seat], seat, legal,
                                               pos, rules, params[seat], rng)
                    if level > 0 and (legal >> level) & 1:
                        make_call(st, hands, seat, level)
                        refresh_call_masks(pos, call_masks)
                        if control[CTL_KEEP_PLAY] and n_calls < MAX_CALL_LOG:
                            call_log[n_calls, 0] = k
                            call_log[n_calls, 1] = seat
                            call_log[n_calls, 2] = level
                            n_calls += 1
        seat = st[P_TURN] & 3  # "& 3": see play_card
        legal = legal_mask(st, hands[seat], pos.plays, pos.fclass, pos.cmask)
        card = choose_card_inline(seat_inline[seat], strategies, strategy_ids[seat], seat, legal, pos, rules,
                                  params[seat], rng)
        if card < 0 or not (legal >> card) & 1:
            card = legal & -legal  # a strategy's illegal answer: the lowest legal card instead
            card = popcount(card - 1)
        play_card(pos, card, rules)
        if calls_open:
            if st[P_NPLAYED] & 3 == 0:
                refresh_call_masks(pos, call_masks)
            else:
                call_masks[seat] = legal_calls(st, hands, seat)
            if (call_masks[0] | call_masks[1] | call_masks[2] | call_masks[3]) == 0 and st[P_CLARIFIED] == 1:
                calls_open = False
    return n_calls


@inline_kernel
def finish_deal(deal, n_calls, control, pos, scratch, out_row, play_log, call_log):
    """Score the deal just played and write its row into out_row (and its cards and calls into
    play_log and call_log when control[CTL_KEEP_PLAY]). ``deal`` = (deal_id, dealer, contract,
    redeals)."""
    deal_id, dealer, contract, attempt = deal
    st = pos.st
    hands0, items, res, poverty = scratch.hands0, scratch.items, scratch.res, scratch.poverty
    n_cards = 4 * st[P_HAND_SIZE]
    score_deal(st, pos.plays, pos.play_seat, pos.trick_winner, items, res)
    if control[CTL_KEEP_PLAY]:
        for k in range(n_cards):
            play_log[k] = pos.plays[k]
        for i in range(n_calls, MAX_CALL_LOG):
            call_log[i, 0] = -1
    out_row[O_DEAL_ID] = deal_id
    out_row[O_DEALER] = dealer
    for s in range(4):
        out_row[O_HAND + s] = hands0[s]
        out_row[O_SCORE + s] = res[RES_SCORE + s]
    out_row[O_CONTRACT] = st[H_CONTRACT]
    out_row[O_DECLARER] = st[P_DECLARER]
    out_row[O_RE_MASK] = st[H_RE_MASK]
    out_row[O_EYES_RE] = res[RES_EYES_RE]
    out_row[O_TRICKS_RE] = res[RES_TRICKS_RE]
    out_row[O_CALLS_RE] = st[P_LEVEL_RE]
    out_row[O_CALLS_KO] = st[P_LEVEL_KO]
    out_row[O_FIRST_RE] = st[P_FIRST_RE]
    out_row[O_FIRST_KO] = st[P_FIRST_KO]
    out_row[O_SOLOIST] = st[H_SOLOIST]
    out_row[O_CLARIFY] = st[P_CLARIFY_TRICK]
    out_row[O_WINNER] = res[RES_WINNER]
    out_row[O_VALUE] = res[RES_VALUE]
    out_row[O_FOX_RE] = items[0, I_FOX]
    out_row[O_FOX_KO] = items[1, I_FOX]
    out_row[O_DOKO_RE] = items[0, I_DOPPELKOPF]
    out_row[O_DOKO_KO] = items[1, I_DOPPELKOPF]
    out_row[O_CHARLIE_RE] = items[0, I_CHARLIE]
    out_row[O_CHARLIE_KO] = items[1, I_CHARLIE]
    out_row[O_AGAINST_QUEENS] = items[1, I_AGAINST_QUEENS]
    out_row[O_REDEALS] = attempt
    out_row[O_POVERTY_PARTNER] = poverty[0] if contract == C_POVERTY else -1
    out_row[O_POVERTY_PASSED] = poverty[1] if contract == C_POVERTY else 0
    out_row[O_POVERTY_RETURNED] = poverty[2] if contract == C_POVERTY else 0
    out_row[O_PIGLETS] = st[P_PIGLETS]
