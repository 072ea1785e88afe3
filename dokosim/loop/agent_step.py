"""A compiled strategy's decision at a ``dokosim.Game`` position: the kernel behind ``dokosim.Agent``.

The decision is the deal loop's own: the strategy is called through the loop's choosers
(``choosers.choose_*``: ``random`` and ``simple`` inlined, the others through their C entry
points in the strategy table), on the arrays the loop would hand it (the public state, the
seat's hand, the cards so far, the contract's tables) and the deal's random stream, and an
illegal answer is replaced as the loop replaces it.
"""
import numpy as np

from ..engine.cards import CLASS_MASK, SCHEME_NORMAL
from .choosers import choose_call, choose_card, choose_exchange, choose_reservation
from ..strategies.cardcount import cards_left, deck_cards, scan_plays
from ..strategies.common import EX_ACCEPT, EX_PASS, EX_RETURN, default_pass, default_return
from ..strategies.sampler import Sampling, deal_unseen, implied_queens, set_hidden
from ..engine.bits import lowest_bit_index
from ..engine.deal import poverty_pass_error, poverty_return_error, reservation_options
from ..engine.game_state import (
    A_ACCEPT, A_KONTRA, A_PASS, A_RE, A_RESERVE, G_PHASE, G_PLAN, G_PLAYER, G_PV_PASSED, G_PV_PICKED,
    G_PV_STEP, O_CMASK, O_FCLASS, O_HANDS, O_HANDS0, O_PLAYS, O_PSEAT, O_RULES, O_ST, PH_CALL,
    PH_POVERTY, PH_RESERVATION, PV_ACCEPT, PV_PASS, game_position,
)
from ..engine.jit import kernel
from ..engine.layout import P_NPLAYED, PUBLIC_LEN, R_LEN, ST_LEN
from ..engine.play import legal_calls, legal_mask, seat_is_re


@kernel
def agent_action(g, rng, table, params):
    """The action the strategy of ``table`` (a one-row strategy table) with parameters ``params``
    chooses for the player to act in game ``g``, drawing from the deal's stream ``rng``.

    A poverty's three cards are chosen at once, as the loop chooses them; the choice is kept
    in g[G_PLAN] and handed out one card per call.
    """
    st = g[O_ST:O_ST + ST_LEN]
    hands = g[O_HANDS:O_HANDS + 4]
    rules = g[O_RULES:O_RULES + R_LEN]
    pub = st[:PUBLIC_LEN]
    seat = g[G_PLAYER]
    phase = g[G_PHASE]
    if phase == PH_RESERVATION:
        options = reservation_options(hands[seat], rules)
        choice = choose_reservation(table, 0, seat, hands[seat], options, pub, rules, params, rng)
        if not (0 <= choice < 63 and (options >> choice) & 1):
            choice = 0
        return A_RESERVE + choice
    if phase == PH_POVERTY:
        step = g[G_PV_STEP]
        if step == PV_ACCEPT:
            if choose_exchange(table, 0, seat, hands[seat], EX_ACCEPT, pub, rules, params, rng) == 1:
                return A_ACCEPT
            return A_PASS
        if g[G_PV_PICKED] == 0:
            if step == PV_PASS:
                plan = choose_exchange(table, 0, seat, hands[seat], EX_PASS, pub, rules, params, rng)
                if poverty_pass_error(hands[seat], plan):
                    plan = default_pass(hands[seat])
            else:
                received = hands[seat] | g[G_PV_PASSED]
                plan = choose_exchange(table, 0, seat, received, EX_RETURN, pub, rules, params, rng)
                if poverty_return_error(received, plan):
                    plan = default_return(received)
            g[G_PLAN] = plan
        plan = g[G_PLAN]
        c = lowest_bit_index(plan)
        g[G_PLAN] = plan & (plan - 1)
        return c >> 1
    pos = game_position(g)
    plays, fclass, cmask = pos.plays, pos.fclass, pos.cmask
    if phase == PH_CALL:
        legal = legal_calls(st, hands, seat)
        level = choose_call(table, 0, seat, legal, pos, rules, params, rng)
        if level > 0 and (legal >> level) & 1:
            if level == 1:
                return A_RE if seat_is_re(st, seat) else A_KONTRA
            return A_RE + level
        return A_PASS
    legal = legal_mask(st, hands[seat], plays, fclass, cmask)
    card = choose_card(table, 0, seat, legal, pos, rules, params, rng)
    if card < 0 or not (legal >> card) & 1:
        card = lowest_bit_index(legal)
    return card >> 1


@kernel
def resample_hidden(g, seat, rng):
    """Deal the cards ``seat`` has not seen anew to the other seats, as ``pimc`` samples its
    deals (sampler.deal_unseen with the constraints of pimc.search: each seat's number of cards,
    the voids shown, the queens of clubs the parties imply), and set the hidden state they
    imply (sampler.set_hidden); the hands as dealt become the new hands plus the cards played."""
    st = g[O_ST:O_ST + ST_LEN]
    pub = st[:PUBLIC_LEN]
    hands = g[O_HANDS:O_HANDS + 4]
    plays = g[O_PLAYS:O_PLAYS + 48]
    play_seat = g[O_PSEAT:O_PSEAT + 48]
    fclass = g[O_FCLASS:O_FCLASS + 48]
    cmask = g[O_CMASK:O_CMASK + 5]
    hand = hands[seat]
    played, voids, qc = scan_plays(pub, plays, play_seat, fclass)
    unseen = deck_cards(g[O_RULES:O_RULES + R_LEN]) & ~played & ~hand
    cap0 = np.zeros(4, dtype=np.int64)
    for s in range(4):
        cap0[s] = cards_left(pub, s) if s != seat else 0
    playing = g[G_PHASE] >= PH_CALL
    must_qc, no_qc, qc_seat = np.int64(0), np.int64(0), -1
    if playing:  # before the contract the table knows nothing of the parties
        must_qc, no_qc, qc_seat = implied_queens(pub, seat, qc)
    if not playing:  # nothing played, no tables yet: the plain classes
        for k in range(5):
            cmask[k] = CLASS_MASK[SCHEME_NORMAL, k]
    new = np.zeros(4, dtype=np.int64)
    deal_unseen(rng, seat, hand, Sampling(unseen, cap0, voids, must_qc, no_qc, qc_seat, np.zeros(4, dtype=np.int64)),
                cmask, new)
    for s in range(4):
        hands[s] = new[s]
        g[O_HANDS0 + s] = new[s]
    for k in range(pub[P_NPLAYED]):
        g[O_HANDS0 + play_seat[k]] |= np.int64(1) << plays[k]
    if playing:
        set_hidden(st, hands, qc, seat)
