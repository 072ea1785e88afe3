"""``pimc``'s reservations, poverty acceptance and calls, decided by search.

Each decision compares its options on the same sampled deals (common random numbers): the cards
the seat has not seen are dealt to the other seats at random, consistent with what it has seen
(sampler.py), every option is played out on each deal by ``heuristic`` at every seat, and the
option with the best mean score for the seat is taken. A rollout makes no further calls (as in
pimc's card search), so an option's value is its score with the calls made so far.

* **Reservation** (``reservation_values``): healthy, every solo the rules allow that heuristic's
  model gives at least ``screen`` chance to win (a screen, to spend no rollouts on a solo with
  four trumps), the marriage, the poverty and the throw-in where the hand may make them. The
  other seats reserve as ``heuristic`` does on the sampled deal, the engine's
  ``resolve_reservations`` decides the contract, a poverty is passed and accepted (or refused) by
  ``heuristic``, and a redeal (a throw-in, a poverty nobody takes) is worth 0.
* **Poverty acceptance** (``acceptance_values``): accept or refuse, on deals where the poor
  player holds a hand that may declare poverty (by rejection; after POVERTY_TRIES tries, trumps
  swapped out of it); after a refusal the later seats decide as
  ``heuristic`` does, and nobody taking it is a redeal (0). The earlier seats' refusals are not
  used as evidence.
* **Calls** (``call_values``): between tricks, no call against the lowest level the seat may
  call now; a higher level is reached one level per decision. The sampled deals are kept only
  when they fit what the table announced (``fits_the_bids``, up to CALL_TRIES tries each): a
  soloist's hand passes pimc's own solo screen, and a side that called has a seat whose hand
  heuristic's call model would call with; the call is made only when its mean gain is positive
  and at least CALL_MARGIN_SE standard errors (24 deals are few, and a call doubles the stake).

The deals come from the deal's random stream, so runs stay reproducible.

A rollout plays on a ``Rollout``: the position it plays (engine/position.py) and the arrays the
deal's scoring fills (``score_deal``'s items and result).
"""
from collections import namedtuple

import numpy as np

from ..engine.cards import C_POVERTY, C_SOLO_BASE, SCHEME_NORMAL, SOLO_SCHEME
from ..engine.bits import lowest_bit_index, popcount
from ..engine.deal import (
    NORMAL_TRUMPS, exchange_cards, may_declare_poverty, poverty_pass_error, poverty_return_error,
    reservation_options, resolve_reservations,
)
from ..engine.jit import decision_kernel, inline_kernel, kernel
from ..engine.layout import (
    P_COMPULSORY, P_CONTRACT, P_DEALER, P_HAND_SIZE, P_KNOWN_KO, P_KNOWN_RE, P_LEVEL_KO, P_LEVEL_RE, P_NPLAYED,
    P_POVERTY_SEAT, P_SCHEME, P_SOLOIST, P_TURN, PUBLIC_LEN, REDEAL, RES_HEALTHY, RES_LEN,
    RES_MARRIAGE, RES_POVERTY, RES_SCORE, RES_THROW_IN, ST_LEN, N_ITEMS,
)
from ..engine.play import apply_piglets, legal_mask, make_call, play_card, setup_deal, setup_poverty
from ..engine.position import View, new_position
from ..engine.scoring import score_deal
from . import heuristic
from .cardcount import scan_card, scan_plays
from .common import EX_ACCEPT, EX_PASS, EX_RETURN, default_pass, default_return
from .sampler import NORMAL_CLASSES, deal_unseen, sampled_position, sampling_setup, set_hidden

Rollout = namedtuple("Rollout", ("pos", "items", "res"))

# heuristic's defaults, for the rollouts and for the decisions pimc leaves to heuristic
HPARAMS = np.zeros(16, dtype=np.float64)
for _i, _v in enumerate(heuristic.PARAMS.values()):
    HPARAMS[_i] = _v[0]
del _i, _v
POVERTY_TRIES = 200  # sampled deals tried for one whose poor player may declare poverty
CALL_TRIES = 64  # sampled deals tried for one that fits the bids and calls (call_values)
CALL_MARGIN_SE = 2.0  # a call's mean gain must reach this many standard errors (search_call)
# What a declared solo implies: 95% of the solos pimc declared (3,000 deals of seed 11) had at least
# this chance under heuristic's model (median 0.57; scripts/solo_declared_chance.py); samples give
# the soloist such a hand
SOLO_DECLARED_CHANCE = 0.2


@decision_kernel  # allocates nothing: no reference counting (the named tuples' arrays cost a count each)
def roll_out(seat, ro, rules):
    """``seat``'s score when the deal at ``ro.pos`` (a ``Rollout``) is played to the end by
    ``heuristic`` at every seat, without calls."""
    pos = ro.pos
    st, h2, pl2, ps2, tw2, power, fclass, cmask = pos
    total = 4 * st[P_HAND_SIZE]
    view = View(st[:PUBLIC_LEN], pl2, ps2, tw2, power, fclass, cmask)
    played, voids, qc = scan_plays(view.pub, pl2, ps2, fclass)
    while st[P_NPLAYED] < total:
        s = st[P_TURN]
        lg = legal_mask(st, h2[s], pl2, fclass, cmask)
        d = heuristic.card_scanned(s, h2[s], lg, view, rules, HPARAMS, played, voids, qc)
        played, voids, qc = play_scanned(pos, d, lg, rules, played, voids, qc)
    score_deal(st, pl2, ps2, tw2, ro.items, ro.res)
    return ro.res[RES_SCORE + seat]


@inline_kernel
def play_scanned(pos, d, lg, rules, played, voids, qc):
    """A rollout's step: play ``d`` at the position ``pos`` (the lowest card of the legal ``lg``
    instead when ``d`` is not one of them) and return the scan (played, voids, qc:
    cardcount.scan_plays) brought up to date with it (cardcount.scan_card)."""
    if d < 0 or not (lg >> d) & 1:
        d = lowest_bit_index(lg)
    k = pos.st[P_NPLAYED]
    play_card(pos, d, rules)
    pl2, fclass = pos.plays, pos.fclass
    return scan_card(pl2[k], pos.play_seat[k], fclass[pl2[k]], fclass[pl2[k & ~3]], played, voids, qc)


@kernel
def heuristic_poverty(poor, h2, pubx, rules, rng, first_asked, seat, accept):
    """The exchange of a poverty declared by ``poor`` with ``heuristic`` deciding, asking the seats
    ``first_asked`` .. 3 places after ``poor``; ``seat`` >= 0 answers ``accept`` (1 or 0)
    instead. Moves the cards in ``h2``; returns (the acceptor or -1, trumps returned)."""
    pubx[P_POVERTY_SEAT] = poor
    if not may_declare_poverty(h2[poor]):
        return -1, 0  # no poverty to pass (a sample make_poor could not mend): as a refusal
    passed = heuristic.exchange(poor, h2[poor], EX_PASS, pubx, rules, HPARAMS, rng)
    if poverty_pass_error(h2[poor], passed):
        passed = default_pass(h2[poor])
    for i in range(first_asked, 4):
        s = (poor + i) & 3
        if s == seat:
            takes = accept
        else:
            takes = heuristic.exchange(s, h2[s], EX_ACCEPT, pubx, rules, HPARAMS, rng)
        if takes == 1:
            received = h2[s] | passed
            returned = heuristic.exchange(s, received, EX_RETURN, pubx, rules, HPARAMS, rng)
            if poverty_return_error(received, returned):
                returned = default_return(received)
            exchange_cards(h2, poor, s, passed, returned)
            return s, popcount(returned & NORMAL_TRUMPS)
    return -1, 0


@decision_kernel
def contract_value(seat, contract, declarer, partner, trumps_back, dealer, ro, rules):
    """``seat``'s rollout score of ``contract`` (declared by ``declarer``; a poverty's acceptor
    ``partner`` got ``trumps_back`` trumps back) on the hands ``ro.pos.hands`` (``ro``: the
    ``Rollout`` it is played on); a redeal is worth 0."""
    if contract == REDEAL or (contract == C_POVERTY and partner < 0):
        return 0
    st, h2, _, _, _, power, fclass, cmask = ro.pos
    setup_deal(st, h2, dealer, contract, declarer, False, power, fclass, cmask)
    if contract == C_POVERTY:
        setup_poverty(st, declarer, partner, trumps_back)
    apply_piglets(st, h2, rules, power)
    return roll_out(seat, ro, rules)


@kernel
def option_values(seat, cand, hs, choices, pubx, rules, rng, sums, ro):
    """Add to ``sums[o]`` ``seat``'s rollout score of each reservation ``o`` of ``cand`` on the deal
    ``hs``, the other seats reserving ``choices`` (one sample of ``reservation_values``; ``pubx``:
    the public state, ``ro``: the ``Rollout`` the contracts are played on)."""
    dealer = pubx[P_DEALER]
    h2 = ro.pos.hands
    out = np.zeros(2, dtype=np.int64)
    m = cand
    while m:
        o = lowest_bit_index(m)
        m &= m - 1
        choices[seat] = o
        resolve_reservations(choices, dealer, out)
        for s in range(4):
            h2[s] = hs[s]
        partner = -1
        trumps_back = 0
        if out[0] == C_POVERTY:
            partner, trumps_back = heuristic_poverty(out[1], h2, pubx, rules, rng, 1, -1, 0)
        sums[o] += contract_value(seat, out[0], out[1], partner, trumps_back, dealer, ro, rules)


@kernel
def reservation_values(seat, hand, options, pub, rules, n_samples, screen, rng, sums):
    """Add to ``sums[o]`` ``seat``'s rollout score of each reservation ``o`` searched, over
    ``n_samples`` sampled deals (see the module doc); returns the mask of the options searched
    (a single option: nothing was sampled)."""
    dealer = pub[P_DEALER]
    leads = 1 if (dealer + 1) & 3 == seat else 0
    cand = np.int64(1) << RES_HEALTHY
    for kind in range(7):
        if (options >> (1 + kind)) & 1 and heuristic.win_chance(kind, hand, SOLO_SCHEME[kind], leads) >= screen:
            cand |= np.int64(1) << (1 + kind)
    for o in (RES_MARRIAGE, RES_POVERTY, RES_THROW_IN):
        if (options >> o) & 1:
            cand |= np.int64(1) << o
    if cand & (cand - 1) == 0:
        return cand
    ro = Rollout(new_position(), np.zeros((2, N_ITEMS), dtype=np.int64), np.zeros(RES_LEN, dtype=np.int64))
    pos = ro.pos  # nothing played yet, the parties unknown: sampling_setup reads no more than pub
    sampling, _ = sampling_setup(seat, hand, View(pub, pos.plays, pos.play_seat, pos.trick_winner, pos.power,
                                                  pos.fclass, pos.cmask), rules, False)
    hs = np.zeros(4, dtype=np.int64)
    choices = np.zeros(4, dtype=np.int64)
    pubx = pub[:PUBLIC_LEN].copy()  # the seats' public state as the sampled deals change it
    for _ in range(n_samples):
        deal_unseen(rng, seat, hand, sampling, NORMAL_CLASSES, hs)
        pubx[P_POVERTY_SEAT] = -1
        for s in range(4):
            if s != seat:
                opts = reservation_options(hs[s], rules)
                ch = heuristic.reserve(s, hs[s], opts, pubx, rules, HPARAMS, rng)
                choices[s] = ch if 0 <= ch < 63 and (opts >> ch) & 1 else 0
        option_values(seat, cand, hs, choices, pubx, rules, rng, sums, ro)
    return cand


@kernel
def make_poor(hs, poor, seat):
    """Swap trumps of ``hs[poor]`` for plain cards of the third and fourth seats (not ``seat``)
    until it holds 3 trumps or fewer: the rare sampled deal that rejection did not make poor."""
    for s in range(4):
        if s == seat or s == poor:
            continue
        while popcount(hs[poor] & NORMAL_TRUMPS) > 3 and (hs[s] & ~NORMAL_TRUMPS):
            t = hs[poor] & NORMAL_TRUMPS
            t &= -t
            p = hs[s] & ~NORMAL_TRUMPS
            p &= -p
            hs[poor] = (hs[poor] & ~t) | p
            hs[s] = (hs[s] & ~p) | t


@kernel
def acceptance_values(seat, hand, pub, rules, n_samples, rng, sums):
    """Add to ``sums[1]`` and ``sums[0]`` ``seat``'s rollout score of accepting and of refusing
    the poverty of ``pub[P_POVERTY_SEAT]``, over ``n_samples`` sampled deals (see the module doc)."""
    poor = pub[P_POVERTY_SEAT]
    dealer = pub[P_DEALER]
    first_asked = (seat - poor) & 3
    ro = Rollout(new_position(), np.zeros((2, N_ITEMS), dtype=np.int64), np.zeros(RES_LEN, dtype=np.int64))
    pos = ro.pos  # nothing played yet, the parties unknown: sampling_setup reads no more than pub
    sampling, _ = sampling_setup(seat, hand, View(pub, pos.plays, pos.play_seat, pos.trick_winner, pos.power,
                                                  pos.fclass, pos.cmask), rules, False)
    hs = np.zeros(4, dtype=np.int64)
    h2 = ro.pos.hands
    pubx = pub[:PUBLIC_LEN].copy()  # the seats' public state as the sampled deals change it
    for _ in range(n_samples):
        for _try in range(POVERTY_TRIES):
            deal_unseen(rng, seat, hand, sampling, NORMAL_CLASSES, hs)
            if may_declare_poverty(hs[poor]):
                break
        make_poor(hs, poor, seat)
        for accept in range(2):
            for s in range(4):
                h2[s] = hs[s]
            partner, trumps_back = heuristic_poverty(poor, h2, pubx, rules, rng, first_asked, seat, accept)
            sums[accept] += contract_value(seat, C_POVERTY, poor, partner, trumps_back, dealer, ro, rules)


@kernel
def fits_the_bids(pub, hs, played_by, seat, screen):
    """Whether the sampled hands ``hs`` (with ``played_by[s]``, the cards each seat has played)
    fit the public bids and calls, as ``seat`` reads them: a declared solo's soloist holds a
    hand heuristic's model gives at least ``screen`` and SOLO_DECLARED_CHANCE (a marriage played
    alone or a compulsory solo was not chosen for the hand: nothing is read), and a side that
    called (normal game or marriage) has a known seat other than ``seat`` whose hand heuristic's
    call model gives at least its call threshold. Seats that did not call are not read."""
    dealer = pub[P_DEALER]
    soloist = pub[P_SOLOIST]
    if soloist >= 0:
        kind = pub[P_CONTRACT] - C_SOLO_BASE
        if soloist == seat or not 0 <= kind < 7 or pub[P_COMPULSORY]:
            return True  # its own solo, a marriage played alone, a compulsory solo: nothing chosen
        leads = 1 if (dealer + 1) & 3 == soloist else 0
        return heuristic.win_chance(kind, hs[soloist] | played_by[soloist], pub[P_SCHEME], leads) >= max(
            screen, SOLO_DECLARED_CHANCE)
    if pub[P_CONTRACT] == C_POVERTY:
        return True
    for side in range(2):
        level = pub[P_LEVEL_RE] if side == 0 else pub[P_LEVEL_KO]
        known = pub[P_KNOWN_RE] if side == 0 else pub[P_KNOWN_KO]
        others = known & ~(np.int64(1) << seat)
        if level == 0 or (known >> seat) & 1 or others == 0:
            continue
        model = heuristic.M_RE if side == 0 else heuristic.M_KO
        fits = False
        for s in range(4):
            if (others >> s) & 1:
                leads = 1 if (dealer + 1) & 3 == s else 0
                chance = heuristic.win_chance(model, hs[s] | played_by[s], SCHEME_NORMAL, leads)
                if chance >= HPARAMS[heuristic.PI_CALL]:
                    fits = True
        if not fits:
            return False
    return True


@kernel
def call_values(seat, hand, level, view, rules, n_samples, screen, rng, sums):
    """Add to ``sums[0]`` and ``sums[1]`` ``seat``'s rollout score without a call and with a call
    of ``level`` now (between tricks) at the position ``view`` (as the seat sees it,
    engine/position.py), and to ``sums[2]`` the square of their difference, over ``n_samples``
    deals sampled as pimc's card search samples them and kept when they fit the bids
    (``fits_the_bids``; after CALL_TRIES tries the last one is used)."""
    pub = view.pub
    sampling, scan = sampling_setup(seat, hand, view, rules, True)
    sampled, rollout = sampled_position(view)
    base, hs = sampled.st, sampled.hands
    st, h2 = rollout.st, rollout.hands
    ro = Rollout(rollout, np.zeros((2, N_ITEMS), dtype=np.int64), np.zeros(RES_LEN, dtype=np.int64))
    played_by = np.zeros(4, dtype=np.int64)
    for i in range(pub[P_NPLAYED]):
        played_by[view.play_seat[i]] |= np.int64(1) << view.plays[i]
    for _ in range(n_samples):
        for _try in range(CALL_TRIES):
            deal_unseen(rng, seat, hand, sampling, view.cmask, hs)
            if fits_the_bids(pub, hs, played_by, seat, screen):
                break
        set_hidden(base, hs, scan[2], seat)
        value = np.zeros(2, dtype=np.float64)
        for called in range(2):
            for i in range(ST_LEN):
                st[i] = base[i]
            for s in range(4):
                h2[s] = hs[s]
            if called:
                make_call(st, h2, seat, level)
            value[called] = roll_out(seat, ro, rules)
        sums[0] += value[0]
        sums[1] += value[1]
        sums[2] += (value[1] - value[0]) ** 2


@kernel
def search_reservation(seat, hand, options, pub, rules, n_samples, screen, rng):
    """The reservation with the best mean rollout score (reservation_values; ties: the lowest
    code, healthy first): the reservation pimc, ismcts and net's poverty_search make."""
    sums = np.zeros(64, dtype=np.float64)
    cand = reservation_values(seat, hand, options, pub, rules, n_samples, screen, rng, sums)
    best = lowest_bit_index(cand)
    m = cand & (cand - 1)
    while m:
        o = lowest_bit_index(m)
        m &= m - 1
        if sums[o] > sums[best]:
            best = o
    return best


@kernel
def search_acceptance(seat, hand, pub, rules, n_samples, rng):
    """1 when accepting the poverty has the better mean rollout score (acceptance_values)."""
    sums = np.zeros(2, dtype=np.float64)
    acceptance_values(seat, hand, pub, rules, n_samples, rng, sums)
    return 1 if sums[1] > sums[0] else 0
