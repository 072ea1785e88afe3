"""Replaying recorded deals through the rules kernels: the scorer behind game records.

A record is packed into arrays by ``dokosim.records``; this kernel replays it
card by card and call by call with the same functions the simulator uses, and
reports the first rule it breaks.
"""
from collections import namedtuple

import numpy as np

from .cards import C_MARRIAGE, C_POVERTY, C_SOLO_BASE
from .bits import popcount
from .jit import kernel
from .layout import (
    E_BAD_CONTRACT, E_MARRIAGE_WITHOUT_QC, E_NOT_THE_PACK, E_OK, P_HAND_SIZE, P_NPLAYED, P_TURN,
    R_POVERTY, R_SOLO_MASK,
)
from .deal import (
    NORMAL_TRUMPS, exchange_cards, hands_from_types, may_declare_poverty, poverty_pass_error,
    poverty_return_error,
)
from .play import QC_MASK, apply_piglets, call_error, card_error, make_call, play_card, setup_deal, setup_poverty
from .position import new_position
from .scoring import describe_state, score_deal

# err row: kind, seat, card_index (1-based, 0 none), card, call level, named side, cards_played,
# the offender's hand at that moment, the class led in the trick (-1 none)
ERR_LEN = 9

# What a record gives the replay (records/record.py packs it): the hands as dealt, as 48 card types
# (hand_types), the dealer, the contract and its declarer, whether it is a compulsory solo, for a
# poverty its exchange (partner, 3 passed card types, 3 returned card types: ``poverty``), the
# cards played (``n_play`` of ``plays``), the calls (``n_calls`` rows of ``calls``: cards played
# before it, seat, level, named side) and the rules (packed). ``replay_one`` takes one record's;
# ``replay_batch`` the same fields with a row (or an element) per record.
Recorded = namedtuple("Recorded", ("hand_types", "dealer", "contract", "declarer", "compulsory", "poverty", "plays",
                                   "n_play", "calls", "n_calls", "rules"))


@kernel
def contract_error(hands, contract, declarer, rules):
    """E_OK if the reservations' contract is possible for these hands and rules."""
    if contract == C_MARRIAGE and (hands[declarer] & QC_MASK) != QC_MASK:
        return E_MARRIAGE_WITHOUT_QC
    if contract >= C_SOLO_BASE and not (rules[R_SOLO_MASK] >> (contract - C_SOLO_BASE)) & 1:
        return E_BAD_CONTRACT
    if contract == C_POVERTY and not (rules[R_POVERTY] and may_declare_poverty(hands[declarer])):
        return E_BAD_CONTRACT
    return E_OK


@kernel
def cards_of_types(hand, types):
    """Mask of the physical cards of ``hand`` matching card types (a type listed twice takes
    both copies); -1 when the hand lacks one."""
    m = np.int64(0)
    for t in types:
        c = 2 * t
        if (m >> c) & 1 or not (hand >> c) & 1:
            c += 1
        if (m >> c) & 1 or not (hand >> c) & 1:
            return -1
        m |= np.int64(1) << c
    return m


@kernel
def replay_one(rec, pos, items, res, err):
    """Replay one record (``rec``, a ``Recorded``) on the position ``pos`` (engine/position.py,
    scratch); fills res/items when complete, err[0] != 0 on the first violation."""
    hand_types, dealer, contract, declarer, compulsory, poverty_in, plays_in, n_play, calls, n_calls, rules = rec
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
    for i in range(ERR_LEN):
        err[i] = 0
    bad = hands_from_types(hand_types, rules, hands)
    if bad >= 0:
        err[0] = E_NOT_THE_PACK
        err[3] = 2 * bad
        return
    e = contract_error(hands, contract, declarer, rules)
    if e != E_OK:
        err[0] = e
        err[1] = declarer
        return
    trumps_returned = 0
    if contract == C_POVERTY:
        partner = poverty_in[0]
        passed = cards_of_types(hands[declarer], poverty_in[1:4])
        if passed < 0 or poverty_pass_error(hands[declarer], passed):
            err[0] = E_BAD_CONTRACT
            err[1] = declarer
            return
        returned = cards_of_types(hands[partner] | passed, poverty_in[4:7])
        if returned < 0 or poverty_return_error(hands[partner] | passed, returned):
            err[0] = E_BAD_CONTRACT
            err[1] = partner
            return
        trumps_returned = popcount(returned & NORMAL_TRUMPS)
        exchange_cards(hands, declarer, partner, passed, returned)
    setup_deal(st, hands, dealer, contract, declarer, compulsory, power, fclass, cmask)
    if contract == C_POVERTY:
        setup_poverty(st, declarer, poverty_in[0], trumps_returned)
    apply_piglets(st, hands, rules, power)
    ci = 0
    for k in range(n_play + 1):
        while ci < n_calls and calls[ci, 0] == k:
            seat = calls[ci, 1]
            e = call_error(st, hands, seat, calls[ci, 2], calls[ci, 3])
            if e != E_OK:
                err[0] = e
                err[1] = seat
                err[4] = calls[ci, 2]
                err[5] = calls[ci, 3]
                err[6] = k
                err[7] = hands[seat]
                describe_state(st, res)
                return
            make_call(st, hands, seat, calls[ci, 2])
            ci += 1
        if k == n_play:
            break
        seat = st[P_TURN]
        e = card_error(st, hands, seat, plays_in[k], plays, fclass, cmask)
        if e != E_OK:
            err[0] = e
            err[1] = seat
            err[2] = k + 1
            err[3] = plays_in[k]
            err[7] = hands[seat]
            err[8] = fclass[plays[k - k % 4]] if k % 4 else -1
            describe_state(st, res)
            return
        play_card(pos, plays_in[k], rules)
    describe_state(st, res)
    if st[P_NPLAYED] == 4 * st[P_HAND_SIZE]:
        score_deal(st, plays, play_seat, trick_winner, items, res)


@kernel
def replay_batch(recs, items, res, err):
    """Replay many records (``recs``, a ``Recorded`` of a row or an element per record), one after
    the other on the calling thread; outputs are indexed like the inputs.

    Serial on purpose: the scorer calls it a block of records at a time and runs it
    while it parses the next block (the kernel releases the GIL); threads inside the
    kernel would only add start-up and waiting per block on a busy machine.
    """
    pos = new_position()
    for r in range(recs.hand_types.shape[0]):
        replay_one(Recorded(recs.hand_types[r], recs.dealer[r], recs.contract[r], recs.declarer[r], recs.compulsory[r],
                            recs.poverty[r], recs.plays[r], recs.n_play[r], recs.calls[r], recs.n_calls[r],
                            recs.rules[r]), pos, items[r], res[r], err[r])
