"""The simulator's deal loop: simulate, sessions and call probes.

Compiled once for every strategy: the strategies are called through a strategy
table of compiled entry points (``dokosim/loop/strategy_call.py``; ``random``
and ``simple`` are inlined here). The rules are not here: every step calls the
engine's kernels.
"""
import numpy as np
from numba import prange

from ..engine.cards import (
    C_MARRIAGE, C_NORMAL, C_POVERTY, C_SOLO_BASE, CLASS_MASK, EYES, SCHEME_NORMAL, SOLO_SCHEME, TRUMP,
    card_type,
)
from ..engine.bits import nth_set_bit, popcount
from .conditions import K_ON, deal_conditioned
from ..engine.deal import (
    NORMAL_TRUMPS, deal_hands, exchange_cards, poverty_pass_error, poverty_return_error, reservation_options,
    resolve_reservations,
)
from ..engine.jit import decision_kernel, inline_kernel, parallel_kernel
from ..engine.stack import stack_zeros, stack_zeros_2d
from ..engine.layout import (
    H_CONTRACT, H_RE_MASK, H_SOLOIST, I_AGAINST_QUEENS, I_CHARLIE, I_DOPPELKOPF, I_FOX, MAX_CALL_LOG,
    N_ITEMS, OUT_LEN, O_AGAINST_QUEENS, O_CALLS_KO, O_CALLS_RE, O_CHARLIE_KO, O_CHARLIE_RE, O_CLARIFY,
    O_CONTRACT, O_DEAL_ID, O_DEALER, O_DECLARER, O_DOKO_KO, O_DOKO_RE, O_EYES_RE, O_FIRST_KO, O_FIRST_RE,
    O_FOX_KO, O_FOX_RE, O_HAND, O_RE_MASK, O_SCORE, O_SOLOIST, O_TRICKS_RE, O_VALUE, O_WINNER, O_REDEALS,
    O_POVERTY_PARTNER, O_POVERTY_PASSED, O_POVERTY_RETURNED, O_PIGLETS, P_PIGLETS, P_POVERTY_SEAT,
    R_BOCK_MASK, R_NO_NINES, R_SOLO_MASK, REDEAL, P_CLARIFY_TRICK, P_DEALER, P_DECLARER, P_FIRST_KO,
    P_CLARIFIED, P_FIRST_RE, P_HAND_SIZE, P_KNOWN_KO, P_KNOWN_RE, P_LEVEL_KO, P_LEVEL_RE, P_NPLAYED, P_TURN,
    PUBLIC_LEN, RES_EYES_RE, RES_LEN, RES_SCORE, RES_TRICKS_RE, RES_VALUE, RES_WINNER, ST_LEN,
)
from ..engine.play import (
    apply_piglets, both_qc_seat, legal_calls, legal_mask, make_call, play_card, seat_is_re, setup_deal,
    setup_poverty,
)
from ..strategies.common import EX_ACCEPT, EX_PASS, EX_RETURN, default_pass, default_return
from ..engine.rng import RNG_LEN, below, seed_stream
from ..engine.scoring import describe_state, score_deal
from ..engine.session import BOOK_LEN, BOOK_QUEUE, BOOK_TOTAL, book_deal, seat_table

from .strategy_call import (
    INLINE_NONE, INLINE_RANDOM, INLINE_SIMPLE, MAX_PARAMS, T_CALL, T_CARD, T_EXCHANGE, T_INLINE, T_RESERVE,
    call_choice, call_decision,
)
from ..strategies import random_player, simple
from ..strategies.common import default_exchange


# ---------------------------------------------------------------- the strategies' decisions
# ``strategies`` is the strategy table (loop/strategy_call.py), ``sid`` a row of it.

@inline_kernel
def choose_reservation(strategies, sid, seat, hand, options, pub, rules, params, rng):
    """The reservation of strategy ``sid`` (a row of the strategy table)."""
    inline = strategies[sid, T_INLINE]
    if inline == INLINE_RANDOM:
        return random_player.reserve(seat, hand, options, pub, rules, params, rng)
    if inline == INLINE_SIMPLE:
        return simple.reserve(seat, hand, options, pub, rules, params, rng)
    return call_choice(strategies[sid, T_RESERVE], seat, hand, options, pub, rules, params, rng)


@inline_kernel
def choose_exchange(strategies, sid, seat, hand, phase, pub, rules, params, rng):
    """The poverty exchange step ``phase`` of strategy ``sid``."""
    if strategies[sid, T_INLINE] != INLINE_NONE:  # random and simple have no exchange of their own
        return default_exchange(seat, hand, phase, pub, rules, params, rng)
    return call_choice(strategies[sid, T_EXCHANGE], seat, hand, phase, pub, rules, params, rng)


@inline_kernel
def choose_call(strategies, sid, seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass,
                cmask, rules, params, rng):
    """The call (0: none, else the level) of strategy ``sid``."""
    return choose_call_inline(strategies[sid, T_INLINE], strategies, sid, seat, hand, legal, pub, plays,
                              play_seat, trick_winner, power, fclass, cmask, rules, params, rng)


@inline_kernel
def choose_call_inline(inline, strategies, sid, seat, hand, legal, pub, plays, play_seat, trick_winner, power,
                       fclass, cmask, rules, params, rng):
    """The call of strategy ``sid``, whose strategies[sid, T_INLINE] is ``inline``."""
    if inline == INLINE_RANDOM:
        return random_player.call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass,
                                  cmask, rules, params, rng)
    if inline == INLINE_SIMPLE:
        return simple.call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask,
                           rules, params, rng)
    return call_decision(strategies[sid, T_CALL], seat, hand, legal, pub, plays, play_seat, trick_winner,
                         power, fclass, cmask, rules, params, rng)


@inline_kernel
def choose_card(strategies, sid, seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass,
                cmask, rules, params, rng):
    """The card of strategy ``sid``."""
    return choose_card_inline(strategies[sid, T_INLINE], strategies, sid, seat, hand, legal, pub, plays,
                              play_seat, trick_winner, power, fclass, cmask, rules, params, rng)


@inline_kernel
def choose_card_inline(inline, strategies, sid, seat, hand, legal, pub, plays, play_seat, trick_winner, power,
                       fclass, cmask, rules, params, rng):
    """The card of strategy ``sid``, whose strategies[sid, T_INLINE] is ``inline`` (the deal loop
    looks that up once per deal, not once per card)."""
    if inline == INLINE_RANDOM:
        return random_player.card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass,
                                  cmask, rules, params, rng)
    if inline == INLINE_SIMPLE:
        return simple.card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask,
                           rules, params, rng)
    return call_decision(strategies[sid, T_CARD], seat, hand, legal, pub, plays, play_seat, trick_winner,
                         power, fclass, cmask, rules, params, rng)

CONTROL_LEN = 8
(CTL_DEALER, CTL_FORCE_CONTRACT, CTL_FORCE_DECLARER, CTL_COMPULSORY, CTL_CALLS,
 CTL_KEEP_PLAY, CTL_FIXED_SEAT, CTL_FIXED_HAND) = range(CONTROL_LEN)


@inline_kernel
def fix_hand(rng, hands, seat, fixed):
    """Give ``seat`` exactly the cards ``fixed`` after a random deal.

    Every card of ``fixed`` that another seat was dealt is exchanged for a card
    drawn uniformly from those ``seat`` was dealt outside ``fixed``. A uniform
    random exchange of a uniform deal leaves the other seats' hands a uniform
    deal of the remaining cards.
    """
    spare = hands[seat] & ~fixed
    n_spare = popcount(spare)
    for s in range(4):
        if s != seat:
            take = hands[s] & fixed
            while take:
                low = take & -take
                take ^= low
                c = nth_set_bit(spare, below(rng, n_spare))
                spare ^= np.int64(1) << c
                n_spare -= 1
                hands[s] = (hands[s] ^ low) | (np.int64(1) << c)
    hands[seat] = fixed


@inline_kernel
def default_solo_choice(hand, rules):
    """The reservation choice (1 + kind) of a forced compulsory solo whose strategy did not
    name a kind: the allowed kind with the most trumps in ``hand`` (ties: SOLO_KINDS order)."""
    best = 0
    best_n = -1
    for kind in range(7):
        if (rules[R_SOLO_MASK] >> kind) & 1:
            n = popcount(hand & CLASS_MASK[SOLO_SCHEME[kind], TRUMP])
            if n > best_n:
                best_n = n
                best = kind
    return 1 + best


@inline_kernel
def refresh_call_masks(st, hands, call_masks):
    """call_masks[s] = legal_calls for every seat."""
    for s in range(4):
        call_masks[s] = legal_calls(st, hands, s)


MAX_REDEALS = 100  # a table that keeps redealing plays the next deal as it comes


@inline_kernel
def run_poverty(poor, dealer, strategies, strategy_ids, params, st, hands, rules, rng, poverty):
    """The exchange of a poverty: the poor player passes, the others in turn may accept,
    the acceptor returns 3 cards. Fills poverty (partner, passed, returned, trumps returned);
    partner -1 when everybody refused."""
    pub = st[:PUBLIC_LEN]
    st[P_POVERTY_SEAT] = poor
    passed = choose_exchange(strategies, strategy_ids[poor], poor, hands[poor], EX_PASS, pub, rules,
                             params[poor], rng)
    if poverty_pass_error(hands[poor], passed):
        passed = default_pass(hands[poor])
    poverty[0] = -1
    for i in range(1, 4):
        seat = (poor + i) & 3
        if choose_exchange(strategies, strategy_ids[seat], seat, hands[seat], EX_ACCEPT, pub, rules,
                           params[seat], rng) == 1:
            received = hands[seat] | passed
            returned = choose_exchange(strategies, strategy_ids[seat], seat, received, EX_RETURN, pub,
                                       rules, params[seat], rng)
            if poverty_return_error(received, returned):
                returned = default_return(received)
            poverty[0] = seat
            poverty[1] = passed
            poverty[2] = returned
            poverty[3] = popcount(returned & NORMAL_TRUMPS)
            exchange_cards(hands, poor, seat, passed, returned)
            return


@decision_kernel
def start_deal(seed, deal_id, dealer, owe_mask, force_seat, control, rules, strategies, strategy_ids, params,
               st, hands, hands0, power, fclass, cmask, rng, poverty):
    """Deal deal ``deal_id`` (its random stream), resolve the contract and set up ``st`` for the
    first card. Returns (contract, redeals); redeals is -1 when the run's condition
    (control[K_ON], loop/conditions.py) found no deal within its tries.

    A redeal (throw-in, a poverty nobody takes) deals again from (seed, deal_id, attempt + 1)
    with the same dealer. Sessions only: ``owe_mask`` marks the seats that still owe their
    compulsory solo (a solo such a seat reserves is that compulsory solo and beats every other
    reservation); ``force_seat`` >= 0 must play its compulsory solo now (its strategy's
    reservation names the kind, else default_solo_choice). Plain runs pass 0 and -1.
    """
    # the start's own scratch, on this kernel's stack: fewer arrays to pass (seven words each)
    deck = stack_zeros(48, np.int64)
    choices = stack_zeros(4, np.int64)
    contract_out = stack_zeros(2, np.int64)
    forced = control[CTL_FORCE_CONTRACT]
    compulsory = control[CTL_COMPULSORY] == 1
    fixed_seat = control[CTL_FIXED_SEAT]
    poverty[0] = -1
    attempt = 0
    given_up = False  # a condition's tries ran out: the deal is marked (redeals -1)
    while True:
        seed_stream(rng, seed, deal_id, attempt)
        if control.shape[0] > K_ON and control[K_ON]:  # a condition (loop/conditions.py)
            if deal_conditioned(rng, control, hands) < 0:
                given_up = True
        else:
            deal_hands(rng, deck, hands, dealer, rules[R_NO_NINES])
        if fixed_seat >= 0:
            fix_hand(rng, hands, fixed_seat, control[CTL_FIXED_HAND])
        for s in range(4):
            hands0[s] = hands[s]
        if forced >= 0:
            contract, declarer = forced_contract(control, hands)
            break
        for i in range(PUBLIC_LEN):  # what the reservations may see: this deal only
            st[i] = 0
        st[P_DEALER] = dealer
        st[P_HAND_SIZE] = popcount(hands[0])
        st[P_POVERTY_SEAT] = -1
        if force_seat >= 0:
            options = reservation_options(hands[force_seat], rules)
            choice = choose_reservation(strategies, strategy_ids[force_seat], force_seat, hands[force_seat],
                                        options, st[:PUBLIC_LEN], rules, params[force_seat], rng)
            if not (1 <= choice <= 7 and (options >> choice) & 1):
                choice = default_solo_choice(hands[force_seat], rules)
            contract = C_SOLO_BASE + choice - 1
            declarer = force_seat
            compulsory = True
            break
        for s in range(4):
            options = reservation_options(hands[s], rules)
            choice = choose_reservation(strategies, strategy_ids[s], s, hands[s], options,
                                        st[:PUBLIC_LEN], rules, params[s], rng)
            choices[s] = choice if 0 <= choice < 63 and (options >> choice) & 1 else 0
        owed_solo = -1
        if owe_mask:
            for i in range(4):
                seat = (dealer + 1 + i) & 3
                if (owe_mask >> seat) & 1 and 1 <= choices[seat] <= 7:
                    owed_solo = seat
                    break
        if owed_solo >= 0:  # a compulsory solo: above every other reservation
            contract = C_SOLO_BASE + choices[owed_solo] - 1
            declarer = owed_solo
            compulsory = True
            break
        resolve_reservations(choices, dealer, contract_out)
        contract = contract_out[0]
        declarer = contract_out[1]
        if contract == C_POVERTY:
            run_poverty(declarer, dealer, strategies, strategy_ids, params, st, hands, rules, rng, poverty)
            if poverty[0] < 0:
                contract = REDEAL
        if contract != REDEAL or attempt == MAX_REDEALS:
            if contract == REDEAL:
                contract = C_NORMAL
            break
        attempt += 1
    setup_contract(st, hands, dealer, contract, declarer, compulsory, power, fclass, cmask, rules, poverty)
    return contract, -1 if given_up else attempt


@inline_kernel
def forced_contract(control, hands):
    """(contract, declarer) of a run that forces its contract: a forced marriage needs a seat
    holding both QC and is a normal game without one."""
    contract = control[CTL_FORCE_CONTRACT]
    declarer = control[CTL_FORCE_DECLARER]
    if contract == C_MARRIAGE:
        declarer = both_qc_seat(hands)
        if declarer < 0:
            contract = C_NORMAL
    return contract, declarer


@inline_kernel
def setup_contract(st, hands, dealer, contract, declarer, compulsory, power, fclass, cmask, rules, poverty):
    """``st`` and the deal's tables for the first card of the contract decided."""
    setup_deal(st, hands, dealer, contract, declarer, compulsory, power, fclass, cmask)
    if contract == C_POVERTY:
        setup_poverty(st, declarer, poverty[0], poverty[3])
    apply_piglets(st, hands, rules, power)


@inline_kernel
def start_forced_deal(seed, deal_id, dealer, control, rules, st, hands, hands0, deck, power, fclass, cmask, rng,
                      poverty):
    """``start_deal`` for a run that forces its contract and has no condition or fixed hand:
    the same steps, inlined into the deal loop (a call of ``start_deal`` passes about a hundred
    words of array descriptors, a tenth of a random deal's time)."""
    poverty[0] = -1
    seed_stream(rng, seed, deal_id, 0)
    deal_hands(rng, deck, hands, dealer, rules[R_NO_NINES])
    for s in range(4):
        hands0[s] = hands[s]
    contract, declarer = forced_contract(control, hands)
    setup_contract(st, hands, dealer, contract, declarer, control[CTL_COMPULSORY] == 1, power, fclass, cmask,
                   rules, poverty)
    return contract, 0


@inline_kernel
def play_random_cards(k_from, k_to, st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules, params,
                      rng):
    """Cards k_from .. k_to - 1 with ``random`` at every seat and no calls left: the same plays as
    play_cards, in a loop without the strategy table's call (which may read st), so that LLVM
    keeps the turn, the card count and the stream in registers (about a tenth of random play's
    time; the same loop with ``simple`` in it gained nothing for simple and lost random's gain).
    No check for an illegal answer: ``random`` picks a card of the legal mask, which a hand that
    still holds cards never leaves empty (tests/test_fast_paths.py compares with the general loop)."""
    pub = st[:PUBLIC_LEN]
    for _ in range(k_from, k_to):
        seat = st[P_TURN] & 3
        legal = legal_mask(st, hands[seat], plays, fclass, cmask)
        card = random_player.card(seat, hands[seat], legal, pub, plays, play_seat, trick_winner, power, fclass,
                                  cmask, rules, params[seat], rng)
        play_card(st, hands, card, plays, play_seat, trick_winner, power, fclass, cmask, rules)


@inline_kernel
def play_cards(k_from, k_to, n_calls, cap_side, cap_level, control, rules, strategies, strategy_ids, params,
               st,
               hands, plays, play_seat, trick_winner, power, fclass, cmask, rng, call_masks, call_log):
    """Play cards k_from .. k_to - 1 of the deal, each after its round of calls; returns the
    number of calls logged so far (``n_calls`` before).

    ``call_masks`` must hold legal_calls for every seat at k_from. ``cap_side`` >= 0 (0 Re,
    1 Kontra): that side may not call above ``cap_level`` (the announcements study's two
    branches); -1 for no cap.
    """
    pub = st[:PUBLIC_LEN]
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
            play_random_cards(k, k_to, st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules,
                              params, rng)
            break
        if calls_open and (call_masks[0] | call_masks[1] | call_masks[2] | call_masks[3]):
            first = st[P_TURN]
            for i in range(4):
                seat = (first + i) & 3
                legal = call_masks[seat]
                if cap_side >= 0 and (0 if seat_is_re(st, seat) else 1) == cap_side:
                    legal &= (np.int64(2) << cap_level) - 1
                if legal:
                    level = choose_call_inline(seat_inline[seat], strategies, strategy_ids[seat], seat,
                                               hands[seat], legal, pub, plays, play_seat, trick_winner, power,
                                               fclass, cmask, rules, params[seat], rng)
                    if level > 0 and (legal >> level) & 1:
                        make_call(st, hands, seat, level)
                        refresh_call_masks(st, hands, call_masks)
                        if control[CTL_KEEP_PLAY] and n_calls < MAX_CALL_LOG:
                            call_log[n_calls, 0] = k
                            call_log[n_calls, 1] = seat
                            call_log[n_calls, 2] = level
                            n_calls += 1
        seat = st[P_TURN] & 3  # "& 3": see play_card
        legal = legal_mask(st, hands[seat], plays, fclass, cmask)
        card = choose_card_inline(seat_inline[seat], strategies, strategy_ids[seat], seat, hands[seat], legal,
                                  pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params[seat],
                                  rng)
        if card < 0 or not (legal >> card) & 1:
            card = legal & -legal  # a strategy's illegal answer: the lowest legal card instead
            card = popcount(card - 1)
        play_card(st, hands, card, plays, play_seat, trick_winner, power, fclass, cmask, rules)
        if calls_open:
            if st[P_NPLAYED] & 3 == 0:
                refresh_call_masks(st, hands, call_masks)
            else:
                call_masks[seat] = legal_calls(st, hands, seat)
            if (call_masks[0] | call_masks[1] | call_masks[2] | call_masks[3]) == 0 and st[P_CLARIFIED] == 1:
                calls_open = False
    return n_calls


@inline_kernel
def finish_deal(deal_id, dealer, contract, attempt, n_calls, control, st, hands0, plays, play_seat,
                trick_winner, items, res, poverty, out_row, play_log, call_log):
    """Score the deal just played and write its row into out_row (and its cards and calls into
    play_log and call_log when control[CTL_KEEP_PLAY])."""
    n_cards = 4 * st[P_HAND_SIZE]
    score_deal(st, plays, play_seat, trick_winner, items, res)
    if control[CTL_KEEP_PLAY]:
        for k in range(n_cards):
            play_log[k] = plays[k]
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


@inline_kernel
def deal_scratch():
    """The scratch arrays one thread plays deals in, once per block of deals, on the stack
    of the block kernel (engine/stack.py): inlined (inline_kernel), so the arrays belong to
    the caller's frame; it must stay inlined."""
    return (stack_zeros(ST_LEN, np.int64),     # st
            stack_zeros(4, np.int64),          # hands
            stack_zeros(4, np.int64),          # hands0, the hands as dealt
            stack_zeros(48, np.int64),         # plays
            stack_zeros(48, np.int64),         # play_seat
            stack_zeros(12, np.int64),         # trick_winner
            stack_zeros(48, np.int64),         # power
            stack_zeros(48, np.int64),         # fclass
            stack_zeros(5, np.int64),          # cmask
            stack_zeros_2d(2, N_ITEMS, np.int64),  # items
            stack_zeros(RES_LEN, np.int64),    # res
            stack_zeros(RNG_LEN, np.uint64),   # rng
            stack_zeros(4, np.int64),          # call_masks
            stack_zeros(4, np.int64))          # poverty


# ---------------------------------------------------------------- sessions
# One row per played deal of a session (dokosim.session turns them into columns). Seats are
# the table's seats 0..n_players-1; the engine plays the four active ones as its seats 0..3
# (five players: engine seat e is table seat dealer + 1 + e, the engine's dealer is 3).
SESSION_COLUMNS = (
    "session_id", "deal_number", "dealer", "contract", "declarer", "re_mask", "eyes_re",
    "tricks_re", "calls_re", "calls_kontra", "first_call_re", "first_call_kontra", "soloist",
    "clarifying_trick", "winner", "game_value", "fox_re", "fox_kontra", "doppelkopf_re",
    "doppelkopf_kontra", "charlie_re", "charlie_kontra", "against_the_queens", "redeals",
    "poverty_partner", "poverty_passed", "poverty_returned", "piglets", "compulsory_solo",
    "forced_solo", "bock", "bock_triggers", "bock_queue",
    "hand_0", "hand_1", "hand_2", "hand_3", "hand_4",
    "score_0", "score_1", "score_2", "score_3", "score_4",
    "total_0", "total_1", "total_2", "total_3", "total_4",
)
(S_SESSION, S_DEAL_NO, S_DEALER, S_CONTRACT, S_DECLARER, S_RE_MASK, S_EYES_RE, S_TRICKS_RE,
 S_CALLS_RE, S_CALLS_KO, S_FIRST_RE, S_FIRST_KO, S_SOLOIST, S_CLARIFY, S_WINNER, S_VALUE,
 S_FOX_RE, S_FOX_KO, S_DOKO_RE, S_DOKO_KO, S_CHARLIE_RE, S_CHARLIE_KO, S_AGAINST_QUEENS,
 S_REDEALS, S_POVERTY_PARTNER, S_POVERTY_PASSED, S_POVERTY_RETURNED, S_PIGLETS, S_COMPULSORY,
 S_FORCED, S_BOCK, S_BOCK_TRIGGERS, S_BOCK_QUEUE) = range(33)
S_HAND = 33
S_SCORE = 38
S_TOTAL = 43
SESSION_LEN = 48
# deal k of session i draws from the stream (seed, SESSION_STREAM + 64 * i + k)
SESSION_STREAM = np.int64(1) << np.int64(62)
SESSION_MAX_DEALS = 64


@inline_kernel
def forced_solos_fit(dealer, owe, deals, n_players):
    """True when the solos owed (table seat mask ``owe``) can all still be played as forced solos
    in ``deals`` deals starting with ``dealer``: each deal the first owing player from the
    dealer's left plays one and the deal passes on (five players: the dealer sits out)."""
    m = owe
    if popcount(m) > deals:
        return False
    d = dealer
    while m:
        found = -1
        for i in range(1, 5):  # four players: i = 4 is the dealer, who plays
            p = (d + i) % n_players
            if (m >> p) & 1:
                found = p
                break
        if found < 0:
            return False
        m ^= np.int64(1) << found
        d = (d + 1) % n_players
    return True


@inline_kernel
def table_seat(table, e):
    """The table seat of engine seat ``e`` (-1 stays -1)."""
    return table[e] if e >= 0 else -1


@inline_kernel
def session_deal_setup(dealer, owe, k, n_deals, n_players, strategy_ids, params, table, sids, sparams):
    """Before deal k of a session: who plays it (``table``: engine seat -> table seat, and their
    strategies and parameters into sids, sparams), the engine's dealer, the engine seats that
    still owe a compulsory solo, and the one that must play it now (-1: nobody).
    Returns (engine dealer, owe_mask, force)."""
    edealer = seat_table(dealer, n_players, table)
    owe_mask = np.int64(0)
    for e in range(4):
        t = table[e]
        if (owe >> t) & 1:
            owe_mask |= np.int64(1) << e
        sids[e] = strategy_ids[t]
        for j in range(MAX_PARAMS):
            sparams[e, j] = params[t, j]
    force = -1
    if owe and not forced_solos_fit((dealer + 1) % n_players, owe, n_deals - k - 1, n_players):
        for i in range(4):  # vorfuehren: the first owing player from the dealer's left
            e = (edealer + 1 + i) & 3
            if (owe_mask >> e) & 1:
                force = e
                break
    return edealer, owe_mask, force


@inline_kernel
def book_session_deal(session_id, k, dealer, owe, owe_mask, force, n_players, bock_mask, st, res, out_row,
                      table, book, scores, out, r):
    """After deal k of a session (its row in out_row): the compulsory solo it was, bock and
    scores, and the session's row out[r]. Returns (the solos still owed, a table seat mask;
    whether this deal was a compulsory solo)."""
    contract = out_row[O_CONTRACT]
    declarer = out_row[O_DECLARER]
    comp = contract >= C_SOLO_BASE and declarer >= 0 and ((owe_mask >> declarer) & 1) == 1
    if comp:
        owe ^= np.int64(1) << table[declarer]
    # bock and scores: this deal's multiplier, then its triggers queue rounds from the
    # next deal on (engine/session.py); res gets the contract and calls next to the score
    describe_state(st, res)
    mult, trig = book_deal(res, bock_mask, n_players, table, book, scores)
    winner = out_row[O_WINNER]
    out[r, S_SESSION] = session_id
    out[r, S_DEAL_NO] = k
    out[r, S_DEALER] = dealer
    out[r, S_CONTRACT] = contract
    out[r, S_DECLARER] = table_seat(table, declarer)
    re_mask = np.int64(0)
    for e in range(4):
        if (out_row[O_RE_MASK] >> e) & 1:
            re_mask |= np.int64(1) << table[e]
    out[r, S_RE_MASK] = re_mask
    out[r, S_EYES_RE] = out_row[O_EYES_RE]
    out[r, S_TRICKS_RE] = out_row[O_TRICKS_RE]
    out[r, S_CALLS_RE] = out_row[O_CALLS_RE]
    out[r, S_CALLS_KO] = out_row[O_CALLS_KO]
    out[r, S_FIRST_RE] = out_row[O_FIRST_RE]
    out[r, S_FIRST_KO] = out_row[O_FIRST_KO]
    out[r, S_SOLOIST] = table_seat(table, out_row[O_SOLOIST])
    out[r, S_CLARIFY] = out_row[O_CLARIFY]
    out[r, S_WINNER] = winner
    out[r, S_VALUE] = out_row[O_VALUE]
    out[r, S_FOX_RE] = out_row[O_FOX_RE]
    out[r, S_FOX_KO] = out_row[O_FOX_KO]
    out[r, S_DOKO_RE] = out_row[O_DOKO_RE]
    out[r, S_DOKO_KO] = out_row[O_DOKO_KO]
    out[r, S_CHARLIE_RE] = out_row[O_CHARLIE_RE]
    out[r, S_CHARLIE_KO] = out_row[O_CHARLIE_KO]
    out[r, S_AGAINST_QUEENS] = out_row[O_AGAINST_QUEENS]
    out[r, S_REDEALS] = out_row[O_REDEALS]
    out[r, S_POVERTY_PARTNER] = table_seat(table, out_row[O_POVERTY_PARTNER])
    out[r, S_POVERTY_PASSED] = out_row[O_POVERTY_PASSED]
    out[r, S_POVERTY_RETURNED] = out_row[O_POVERTY_RETURNED]
    out[r, S_PIGLETS] = table_seat(table, out_row[O_PIGLETS])
    out[r, S_COMPULSORY] = 1 if comp else 0
    out[r, S_FORCED] = 1 if force >= 0 else 0
    out[r, S_BOCK] = mult
    out[r, S_BOCK_TRIGGERS] = trig
    out[r, S_BOCK_QUEUE] = book[BOOK_QUEUE]
    for p in range(5):
        out[r, S_HAND + p] = 0
        out[r, S_SCORE + p] = scores[p]
        out[r, S_TOTAL + p] = book[BOOK_TOTAL + p]
    for e in range(4):
        out[r, S_HAND + table[e]] = out_row[O_HAND + e]
    return owe, comp


# ---------------------------------------------------------------- call probes
# The announcements study: a normal deal is played to a random call opportunity of one level,
# then played on twice from that position with the same random stream (common random
# numbers): once with the call made there, once with the calls below it only. One row per deal (PROBE_COLUMNS);
# seat -1 when the deal had no such opportunity (not a normal game, or nobody could make the
# call at the drawn moment). What the caller could see at that moment is in the feature
# columns; the outcome of both branches in the *_with / *_without columns.
PROBE_COLUMNS = (
    "deal_id", "level", "seat", "side", "cards_played", "cards_held", "trumps", "top_trumps",
    "plain_aces", "plain_tens", "voids", "eyes_own", "eyes_opp", "partner_known", "level_own",
    "level_opp", "score_with", "score_without", "success_with", "success_without", "win_with",
    "win_without", "eyes_side_with", "eyes_side_without", "level_opp_with", "level_opp_without",
    "value_with", "value_without",
)
(PR_DEAL_ID, PR_LEVEL, PR_SEAT, PR_SIDE, PR_CARDS_PLAYED, PR_CARDS_HELD, PR_TRUMPS, PR_TOP_TRUMPS,
 PR_PLAIN_ACES, PR_PLAIN_TENS, PR_VOIDS, PR_EYES_OWN, PR_EYES_OPP, PR_PARTNER_KNOWN, PR_LEVEL_OWN,
 PR_LEVEL_OPP, PR_SCORE, PR_SUCCESS, PR_WIN, PR_EYES_SIDE, PR_LEVEL_OPP_AFTER,
 PR_VALUE) = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 26)
PROBE_LEN = 28  # PR_SCORE etc. are pairs: +0 with the call, +1 without
# the probe's own draws (moment, seat) come from a stream apart from the deal's
PROBE_STREAM = 1 << 20


def _type_mask(*names):
    mask = 0
    for name in names:
        t = card_type(name)
        mask |= 3 << (2 * t)
    return np.int64(mask)


TOP_TRUMPS_NORMAL = _type_mask("TH", "QC", "QS")
PLAIN_ACES_NORMAL = _type_mask("AC", "AS", "AH")
PLAIN_TENS_NORMAL = _type_mask("TC", "TS")


@inline_kernel
def copy_into(dst, src):
    """dst[:] = src, element by element (a slice assignment may allocate a temporary)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@inline_kernel
def copy_position(st, hands, plays, play_seat, trick_winner, power, fclass, cmask, call_masks, rng,
                  st_from, hands_from, plays_from, play_seat_from, trick_winner_from, power_from, fclass_from,
                  cmask_from, call_masks_from, rng_from):
    """A probe's position (the state, the hands, the cards so far, the contract's tables, the
    legal calls, the random stream) copied from the *_from arrays."""
    copy_into(st, st_from)
    copy_into(hands, hands_from)
    copy_into(plays, plays_from)
    copy_into(play_seat, play_seat_from)
    copy_into(trick_winner, trick_winner_from)
    copy_into(power, power_from)
    copy_into(fclass, fclass_from)
    copy_into(cmask, cmask_from)
    copy_into(call_masks, call_masks_from)
    copy_into(rng, rng_from)


@inline_kernel
def probe_window(level):
    """How many moments (card indices from 0) a probe of ``level`` draws from: a first call of
    that level must come while the caller holds at least 12 - level cards (card 4 * level + 3
    at the latest); a Kontra answering Re may still say it holding 10 cards (card 11)."""
    return 12 if level == 1 else 4 * level + 4


@inline_kernel
def call_made_good(level, side, res, n_tricks):
    """1 when ``side`` (0 Re, 1 Kontra) reached what a call of ``level`` promises: the win
    (Re/Kontra), the opponents under 90 / 60 / 30 eyes, or without a trick (schwarz)."""
    eyes_side = res[RES_EYES_RE] if side == 0 else 240 - res[RES_EYES_RE]
    tricks_opp = n_tricks - res[RES_TRICKS_RE] if side == 0 else res[RES_TRICKS_RE]
    if level == 1:
        return 1 if res[RES_WINNER] == side else 0
    if level == 5:
        return 1 if tricks_opp == 0 else 0
    return 1 if 240 - eyes_side < 120 - 30 * (level - 1) else 0


@inline_kernel
def probe_features(st, hands, seat, side, plays, trick_winner, row):
    """What ``seat`` sees at the probe: its hand's make-up, the eyes its side and the other side
    have taken so far as far as it knows the parties, and the calls so far."""
    hand = hands[seat]
    row[PR_CARDS_PLAYED] = st[P_NPLAYED]
    row[PR_CARDS_HELD] = popcount(hand)
    row[PR_TRUMPS] = popcount(hand & CLASS_MASK[SCHEME_NORMAL, TRUMP])
    row[PR_TOP_TRUMPS] = popcount(hand & TOP_TRUMPS_NORMAL)
    row[PR_PLAIN_ACES] = popcount(hand & PLAIN_ACES_NORMAL)
    row[PR_PLAIN_TENS] = popcount(hand & PLAIN_TENS_NORMAL)
    voids = 0
    for suit in range(3):
        if hand & CLASS_MASK[SCHEME_NORMAL, suit] == 0:
            voids += 1
    row[PR_VOIDS] = voids
    own = (np.int64(1) << seat) | (st[P_KNOWN_RE] if side == 0 else st[P_KNOWN_KO])
    opp = st[P_KNOWN_KO] if side == 0 else st[P_KNOWN_RE]
    if popcount(own) == 2:
        opp = 15 & ~own
    elif popcount(opp) == 2:
        own = 15 & ~opp
    eyes_own = 0
    eyes_opp = 0
    for t in range(st[P_NPLAYED] >> 2):
        eyes = EYES[plays[4 * t]] + EYES[plays[4 * t + 1]] + EYES[plays[4 * t + 2]] + EYES[plays[4 * t + 3]]
        if (own >> trick_winner[t]) & 1:
            eyes_own += eyes
        elif (opp >> trick_winner[t]) & 1:
            eyes_opp += eyes
    row[PR_EYES_OWN] = eyes_own
    row[PR_EYES_OPP] = eyes_opp
    row[PR_PARTNER_KNOWN] = 1 if popcount(own) == 2 else 0
    row[PR_LEVEL_OWN] = st[P_LEVEL_RE + side]
    row[PR_LEVEL_OPP] = st[P_LEVEL_KO - side]


# ---------------------------------------------------------------- the one deal loop
# simulate, sessions and call probes are one kernel, so that it compiles once for every command:
# its per-card path (play_cards, with random and simple inlined) is inlined at one call site.
MODE_SIMULATE, MODE_SESSIONS, MODE_PROBES = 0, 1, 2


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

    MODE_PROBES: call probes of ``level`` (1 Re/Kontra, 2 no 90, 3 no 60, 4 no 30, 5
    schwarz); ``out`` n x PROBE_LEN. The moment is a card index drawn uniformly from
    0 .. probe_window(level) - 1, the caller a seat drawn uniformly among those who may call
    ``level`` then. With the call, the caller's side goes to ``level``; without it, to
    level - 1 (if it stood lower: a denial includes the calls below it, so both branches
    differ by the one step). From there both branches freeze the caller's side at that
    level; the other side calls as its strategies decide. Rows depend only on (seed, deal_id).
    """
    # the prange body is one call: numba's parfor passes take minutes over a large body
    for b in prange(n_blocks):
        run_block(mode, seed, first, b * n // n_blocks, (b + 1) * n // n_blocks, n_players, n_deals,
                  compulsory_on, level, control, rules, strategies, strategy_ids, params, out, play_out,
                  call_out)


@decision_kernel
def run_block(mode, seed, first, lo, hi, n_players, n_deals, compulsory_on, level, control, rules,
              strategies, strategy_ids, params, out, play_out, call_out):
    """Items first + lo .. first + hi - 1 of run_chunk, in one scratch on the stack (no reference
    counting: nothing here allocates on the heap)."""
    (st, hands, hands0, plays, play_seat, trick_winner, power, fclass, cmask, items, res,
     rng, call_masks, poverty) = deal_scratch()
    # sessions: the deal's row, who sits where, the bookkeeping
    out_row = stack_zeros(OUT_LEN, np.int64)
    play_log = stack_zeros(48, np.int64)
    call_log = stack_zeros_2d(MAX_CALL_LOG, 3, np.int64)
    sids = stack_zeros(4, np.int64)
    sparams = stack_zeros_2d(4, MAX_PARAMS, np.float64)
    table = stack_zeros(4, np.int64)
    book = stack_zeros(BOOK_LEN, np.int64)
    scores = stack_zeros(5, np.int64)
    # probes: their own draws, and the position at the probe, to play it on a second time
    probe_rng = stack_zeros(RNG_LEN, np.uint64)
    st_at = stack_zeros(ST_LEN, np.int64)
    hands_at = stack_zeros(4, np.int64)
    plays_at = stack_zeros(48, np.int64)
    play_seat_at = stack_zeros(48, np.int64)
    trick_winner_at = stack_zeros(12, np.int64)
    power_at = stack_zeros(48, np.int64)
    fclass_at = stack_zeros(48, np.int64)
    cmask_at = stack_zeros(5, np.int64)
    call_masks_at = stack_zeros(4, np.int64)
    rng_at = stack_zeros(RNG_LEN, np.uint64)

    keep = control[CTL_KEEP_PLAY] == 1
    calls_on = control[CTL_CALLS] == 1
    deck = stack_zeros(48, np.int64)
    # a forced contract without a condition or a fixed hand: the deal starts inline
    forced_plain = (control[CTL_FORCE_CONTRACT] >= 0 and control[CTL_FIXED_SEAT] < 0
                    and not (control.shape[0] > K_ON and control[K_ON]))
    bock_mask = rules[R_BOCK_MASK]
    deals_per_item = n_deals if mode == MODE_SESSIONS else 1
    for i in range(lo, hi):
        item = first + i
        owe = np.int64(0)
        dealer = 0
        if mode == MODE_SESSIONS:
            if compulsory_on:
                owe = (np.int64(1) << n_players) - 1
            for j in range(BOOK_LEN):
                book[j] = 0
        for k in range(deals_per_item):
            # who deals, who plays, what is owed
            ids = strategy_ids
            prm = params
            owe_mask = np.int64(0)
            force = -1
            if mode == MODE_SESSIONS:
                edealer, owe_mask, force = session_deal_setup(dealer, owe, k, n_deals, n_players,
                                                              strategy_ids, params, table, sids, sparams)
                deal_id = SESSION_STREAM + SESSION_MAX_DEALS * item + k
                ids = sids
                prm = sparams
            else:
                deal_id = item
                edealer = control[CTL_DEALER]
                if edealer < 0:
                    edealer = deal_id % 4
            row = out[i]  # simulate and probes: the item's row (sessions write out[i * n_deals + k])
            if mode == MODE_PROBES:
                for j in range(PROBE_LEN):
                    row[j] = 0
                row[PR_DEAL_ID] = deal_id
                row[PR_LEVEL] = level
                row[PR_SEAT] = -1
                row[PR_SIDE] = -1
            if forced_plain:
                contract, attempt = start_forced_deal(seed, deal_id, edealer, control, rules, st, hands, hands0,
                                                      deck, power, fclass, cmask, rng, poverty)
            else:
                contract, attempt = start_deal(seed, deal_id, edealer, owe_mask, force, control, rules,
                                               strategies, ids, prm, st, hands, hands0, power, fclass,
                                               cmask, rng, poverty)
            n_cards = 4 * st[P_HAND_SIZE]
            # the deal is played in segments: all of it; or, for a probe, to the moment of the
            # probe (segment 0), then on from there with the call (1) and without it (2)
            n_segments = 1
            seg_to = n_cards
            moment = 0
            if mode == MODE_PROBES:
                n_segments = 0
                if st[H_CONTRACT] == C_NORMAL:
                    n_segments = 3
                    seed_stream(probe_rng, seed, deal_id, PROBE_STREAM)
                    moment = below(probe_rng, probe_window(level))
                    seg_to = moment
            if calls_on or mode == MODE_PROBES:
                refresh_call_masks(st, hands, call_masks)
            # the deal's cards and calls are kept (control[CTL_KEEP_PLAY]) at its row: a simulation's
            # row i, a session's i * n_deals + k (its row of ``out``)
            log_row = i if mode == MODE_SIMULATE else i * n_deals + k
            keep_row = keep and mode != MODE_PROBES
            calls_kept = call_out[log_row] if keep_row else call_log
            seg_from = 0
            cap_side = -1
            cap_level = 0
            seat = -1
            side = -1
            level_before = 0
            n_calls = 0
            for segment in range(n_segments):
                branch = segment - 1  # probes: 0 with the call, 1 without
                if segment > 0:
                    if branch == 1:
                        copy_position(st, hands, plays, play_seat, trick_winner, power, fclass, cmask,
                                      call_masks, rng, st_at, hands_at, plays_at, play_seat_at,
                                      trick_winner_at, power_at, fclass_at, cmask_at, call_masks_at, rng_at)
                        if level_before < level - 1:  # the calls below ``level`` are made in both
                            make_call(st, hands, seat, level - 1)
                            refresh_call_masks(st, hands, call_masks)
                    else:
                        make_call(st, hands, seat, level)
                        refresh_call_masks(st, hands, call_masks)
                    seg_from = moment
                    seg_to = n_cards
                    cap_side = side
                    cap_level = level - branch
                    n_calls = 0
                n_calls = play_cards(seg_from, seg_to, n_calls, cap_side, cap_level, control, rules,
                                     strategies, ids, prm, st, hands, plays, play_seat, trick_winner, power,
                                     fclass, cmask, rng, call_masks, calls_kept)
                if mode != MODE_PROBES:
                    continue
                if segment == 0:  # the probe: who may make the call now
                    candidates = np.int64(0)
                    for s in range(4):
                        if (call_masks[s] >> level) & 1:
                            candidates |= np.int64(1) << s
                    if candidates == 0:
                        break
                    seat = nth_set_bit(candidates, below(probe_rng, popcount(candidates)))
                    side = 0 if seat_is_re(st, seat) else 1
                    level_before = st[P_LEVEL_RE + side]
                    row[PR_SEAT] = seat
                    row[PR_SIDE] = side
                    probe_features(st, hands, seat, side, plays, trick_winner, row)
                    copy_position(st_at, hands_at, plays_at, play_seat_at, trick_winner_at, power_at,
                                  fclass_at, cmask_at, call_masks_at, rng_at, st, hands, plays, play_seat,
                                  trick_winner, power, fclass, cmask, call_masks, rng)
                else:
                    score_deal(st, plays, play_seat, trick_winner, items, res)
                    row[PR_SCORE + branch] = res[RES_SCORE + seat]
                    row[PR_SUCCESS + branch] = call_made_good(level, side, res, st[P_HAND_SIZE])
                    row[PR_WIN + branch] = 1 if res[RES_WINNER] == side else 0
                    row[PR_EYES_SIDE + branch] = res[RES_EYES_RE] if side == 0 else 240 - res[RES_EYES_RE]
                    row[PR_LEVEL_OPP_AFTER + branch] = st[P_LEVEL_KO - side]
                    row[PR_VALUE + branch] = res[RES_VALUE]
            if mode == MODE_PROBES:
                continue
            simulating = mode == MODE_SIMULATE  # a simulation's row is out[i]; a session's goes to out_row
            finish_deal(deal_id, edealer, contract, attempt, n_calls, control, st, hands0, plays, play_seat,
                        trick_winner, items, res, poverty, row if simulating else out_row,
                        play_out[log_row] if keep_row else play_log, calls_kept)
            if mode == MODE_SESSIONS:
                owe, comp = book_session_deal(item, k, dealer, owe, owe_mask, force, n_players, bock_mask, st,
                                              res, out_row, table, book, scores, out, i * n_deals + k)
                if not comp or force >= 0:  # after a compulsory solo (not a forced one) the same dealer deals
                    dealer = (dealer + 1) % n_players
