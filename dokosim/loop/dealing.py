"""The start of a deal in the deal loop: dealing (plain, conditioned or with a fixed hand), the
reservations, a poverty's exchange, redeals, and the contract's set-up for the first card."""
import numpy as np

from ..engine.bits import nth_set_bit, popcount
from ..engine.cards import C_MARRIAGE, C_NORMAL, C_POVERTY, C_SOLO_BASE, CLASS_MASK, SOLO_SCHEME, TRUMP
from ..engine.deal import (
    NORMAL_TRUMPS, deal_hands, exchange_cards, poverty_pass_error, poverty_return_error, reservation_options,
    resolve_reservations,
)
from ..engine.jit import decision_kernel, inline_kernel
from ..engine.layout import P_DEALER, P_HAND_SIZE, P_POVERTY_SEAT, PUBLIC_LEN, R_NO_NINES, R_SOLO_MASK, REDEAL
from ..engine.play import apply_piglets, both_qc_seat, setup_deal, setup_poverty
from ..engine.rng import below, seed_stream
from ..engine.stack import stack_zeros
from ..strategies.common import EX_ACCEPT, EX_PASS, EX_RETURN, default_pass, default_return
from .choosers import choose_exchange, choose_reservation
from .conditions import K_ON, deal_conditioned
from .control import CTL_COMPULSORY, CTL_FIXED_HAND, CTL_FIXED_SEAT, CTL_FORCE_CONTRACT, CTL_FORCE_DECLARER

MAX_REDEALS = 100  # a table that keeps redealing plays the next deal as it comes


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
def run_poverty(poor, seats, st, hands, rules, rng, poverty):
    """The exchange of a poverty: the poor player passes, the others in turn may accept,
    the acceptor returns 3 cards. Fills poverty (partner, passed, returned, trumps returned);
    partner -1 when everybody refused."""
    strategies, ids, params = seats
    pub = st[:PUBLIC_LEN]
    st[P_POVERTY_SEAT] = poor
    passed = choose_exchange(strategies, ids[poor], poor, hands[poor], EX_PASS, pub, rules, params[poor], rng)
    if poverty_pass_error(hands[poor], passed):
        passed = default_pass(hands[poor])
    poverty[0] = -1
    for i in range(1, 4):
        seat = (poor + i) & 3
        if choose_exchange(strategies, ids[seat], seat, hands[seat], EX_ACCEPT, pub, rules, params[seat],
                           rng) == 1:
            received = hands[seat] | passed
            returned = choose_exchange(strategies, ids[seat], seat, received, EX_RETURN, pub, rules,
                                       params[seat], rng)
            if poverty_return_error(received, returned):
                returned = default_return(received)
            poverty[0] = seat
            poverty[1] = passed
            poverty[2] = returned
            poverty[3] = popcount(returned & NORMAL_TRUMPS)
            exchange_cards(hands, poor, seat, passed, returned)
            return


@decision_kernel
def start_deal(seed, deal, control, rules, seats, pos, hands0, rng, poverty):
    """Deal the deal ``deal`` = (deal_id, dealer, owe_mask, force_seat) (its random stream from
    (seed, deal_id)), resolve the contract and set up ``pos`` for the first card. Returns
    (contract, redeals); redeals is -1 when the run's condition (control[K_ON],
    loop/conditions.py) found no deal within its tries.

    A redeal (throw-in, a poverty nobody takes) deals again from (seed, deal_id, attempt + 1)
    with the same dealer. Sessions only: ``owe_mask`` marks the seats that still owe their
    compulsory solo (a solo such a seat reserves is that compulsory solo and beats every other
    reservation); ``force_seat`` >= 0 must play its compulsory solo now (its strategy's
    reservation names the kind, else default_solo_choice). Plain runs pass 0 and -1.
    """
    deal_id, dealer, owe_mask, force_seat = deal
    strategies, ids, params = seats
    st = pos.st
    hands = pos.hands
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
            choice = choose_reservation(strategies, ids[force_seat], force_seat, hands[force_seat],
                                        options, st[:PUBLIC_LEN], rules, params[force_seat], rng)
            if not (1 <= choice <= 7 and (options >> choice) & 1):
                choice = default_solo_choice(hands[force_seat], rules)
            contract = C_SOLO_BASE + choice - 1
            declarer = force_seat
            compulsory = True
            break
        for s in range(4):
            options = reservation_options(hands[s], rules)
            choice = choose_reservation(strategies, ids[s], s, hands[s], options, st[:PUBLIC_LEN], rules,
                                        params[s], rng)
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
            run_poverty(declarer, seats, st, hands, rules, rng, poverty)
            if poverty[0] < 0:
                contract = REDEAL
        if contract != REDEAL or attempt == MAX_REDEALS:
            if contract == REDEAL:
                contract = C_NORMAL
            break
        attempt += 1
    setup_contract(pos, dealer, contract, declarer, compulsory, rules, poverty)
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
def setup_contract(pos, dealer, contract, declarer, compulsory, rules, poverty):
    """``pos`` (its state and the contract's tables) for the first card of the contract decided."""
    setup_deal(pos.st, pos.hands, dealer, contract, declarer, compulsory, pos.power, pos.fclass, pos.cmask)
    if contract == C_POVERTY:
        setup_poverty(pos.st, declarer, poverty[0], poverty[3])
    apply_piglets(pos.st, pos.hands, rules, pos.power)


@inline_kernel
def start_forced_deal(seed, deal, control, rules, pos, sc):
    """``start_deal`` for a run that forces its contract and has no condition or fixed hand:
    the same steps, inlined into the deal loop (a call of ``start_deal`` passes about a hundred
    words of array descriptors, a tenth of a random deal's time). ``sc``: the deal loop's
    DealScratch (loop/playing.py)."""
    deal_id, dealer = deal[0], deal[1]
    hands0, deck, rng, poverty = sc.hands0, sc.deck, sc.rng, sc.poverty
    poverty[0] = -1
    seed_stream(rng, seed, deal_id, 0)
    deal_hands(rng, deck, pos.hands, dealer, rules[R_NO_NINES])
    for s in range(4):
        hands0[s] = pos.hands[s]
    contract, declarer = forced_contract(control, pos.hands)
    setup_contract(pos, dealer, contract, declarer, control[CTL_COMPULSORY] == 1, rules, poverty)
    return contract, 0
