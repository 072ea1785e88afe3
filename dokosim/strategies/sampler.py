"""The sampler of the search players: deal the cards a seat has not seen to the other seats,
consistent with what it has seen (each seat's number of cards, the voids it has shown, the queens
of clubs the parties imply), and set a sampled deal's hidden fields. ``pimc`` and the Game API's
``resample`` use it; every deal comes from the caller's random stream. ``sampling_setup`` prepares
what ``deal_unseen`` respects for a seat at a position (a ``Sampling``; pimc's card search, its
calls, reservations and poverty acceptance all start from it); ``sampled_position`` the position
a sampled deal is played on from; ``deal_with_poverty`` deals among the deals where a seat may
declare poverty (the advisor's poverty questions, loop/advice.py).
"""
from collections import namedtuple

import numpy as np

from ..engine.cards import C_MARRIAGE, C_NORMAL, C_SILENT_MARRIAGE, CLASS_MASK, SCHEME_NORMAL, TRUMP
from ..engine.bits import lowest_bit_index, nth_set_bit, popcount
from ..engine.deal import NORMAL_TRUMPS
from ..engine.jit import inline_kernel, kernel
from ..engine.layout import (
    H_CONTRACT, H_LED_MASK, H_RE_MASK, H_SOLOIST, H_TABLES, P_CLARIFIED, P_CONTRACT, P_KNOWN_KO, P_KNOWN_RE,
    P_MARRIAGE_SEAT, P_NPLAYED, P_SOLOIST, PUBLIC_LEN, ST_LEN,
)
from ..engine.position import Position, new_position
from ..engine.rng import below, uniform
from .cardcount import QC_MASK, cards_left, deck_cards, scan_plays

# What the deals sampled for a seat must respect (sampling_setup): ``unseen``, the cards to deal;
# ``cap0``, the cards each other seat still holds (0 for the seat); ``voids``, bit 5*s+k where seat s
# showed a void in class k; the queens of clubs the parties imply (implied_queens): ``must_qc``,
# the seats that hold one, ``no_qc``, the seats that hold none, ``qc_seat``, the seat that holds
# both (-1: none); and ``cap``, deal_unseen's scratch.
Sampling = namedtuple("Sampling", ("unseen", "cap0", "voids", "must_qc", "no_qc", "qc_seat", "cap"))
NORMAL_CLASSES = CLASS_MASK[SCHEME_NORMAL].copy()  # the sampler deals class by class: any full partition


@inline_kernel
def pick_weighted(rng, cap, allowed):
    """A seat of ``allowed`` (mask) with chance proportional to its free places; -1 if none."""
    total = 0
    for s in range(4):
        if (allowed >> s) & 1:
            total += cap[s]
    if total <= 0:
        return -1
    r = below(rng, total)
    for s in range(4):
        if (allowed >> s) & 1:
            if r < cap[s]:
                return s
            r -= cap[s]
    return -1


@inline_kernel
def deal_unseen(rng, seat, hand, sampling, cmask, hands):
    """Give the unseen cards to the other seats (``sampling.cap0`` places each) into ``hands``, the
    classes of ``cmask``.

    Respects the voids (bit 5*s+k) and the QC constraints of ``sampling`` (a ``Sampling``) when it
    can: seats of ``must_qc`` get one QC each, ``no_qc`` none, ``qc_seat`` >= 0 all of them.
    Most constrained classes go first; a dead end starts again, and after a few
    tries the voids are dropped. Returns True when every constraint held.
    """
    unseen, cap0, voids, must_qc, no_qc, qc_seat, cap = sampling
    for attempt in range(12):
        strict = attempt < 10
        for s in range(4):
            hands[s] = 0
            cap[s] = cap0[s]
        hands[seat] = hand
        cap[seat] = 0
        ok = True
        # the queens of clubs first
        qcs = unseen & QC_MASK
        while qcs and ok:
            c = lowest_bit_index(qcs)
            qcs &= qcs - 1
            allowed = np.int64(0)
            if qc_seat >= 0:
                allowed = np.int64(1) << qc_seat
            else:
                need = np.int64(0)
                for s in range(4):
                    if (must_qc >> s) & 1 and not (hands[s] & QC_MASK):
                        need |= np.int64(1) << s
                allowed = need if need else (np.int64(15) & ~no_qc)
                if strict:
                    for s in range(4):
                        if (voids >> (5 * s + TRUMP)) & 1:
                            allowed &= ~(np.int64(1) << s)
            allowed &= ~(np.int64(1) << seat)
            s = pick_weighted(rng, cap, allowed)
            if s < 0:
                s = pick_weighted(rng, cap, np.int64(15) & ~(np.int64(1) << seat))
                ok = False
            hands[s] |= np.int64(1) << c
            cap[s] -= 1
        rest = unseen & ~QC_MASK
        # classes in order of the seats that may take them (fewest first)
        done = np.int64(0)
        for _ in range(5):
            best_k = -1
            best_n = 99
            for k in range(5):
                if (done >> k) & 1:
                    continue
                nk = 0
                for s in range(4):
                    if s != seat and not (voids >> (5 * s + k)) & 1:
                        nk += 1
                if nk < best_n:
                    best_n = nk
                    best_k = k
            done |= np.int64(1) << best_k
            m = rest & cmask[best_k]
            allowed = np.int64(0)
            for s in range(4):
                if s != seat and (not strict or not (voids >> (5 * s + best_k)) & 1):
                    allowed |= np.int64(1) << s
            while m:
                c = lowest_bit_index(m)
                m &= m - 1
                s = pick_weighted(rng, cap, allowed)
                if s < 0:
                    if strict:
                        ok = False
                        break
                    s = pick_weighted(rng, cap, np.int64(15) & ~(np.int64(1) << seat))
                hands[s] |= np.int64(1) << c
                cap[s] -= 1
            if strict and not ok:
                break
        if ok or not strict:
            return ok
    return False


@inline_kernel
def set_hidden(st, hands, qc_played_by, seat):
    """The hidden fields of st for one sampled deal (the public part already copied)."""
    contract = st[P_CONTRACT]
    soloist = st[P_SOLOIST]
    st[H_SOLOIST] = -1
    if soloist >= 0:
        st[H_CONTRACT] = contract
        st[H_SOLOIST] = soloist
        st[H_RE_MASK] = np.int64(1) << soloist
    elif contract == C_MARRIAGE:
        st[H_CONTRACT] = C_MARRIAGE
        if st[P_CLARIFIED]:
            st[H_RE_MASK] = st[P_KNOWN_RE]
        else:
            st[H_RE_MASK] = np.int64(1) << st[P_MARRIAGE_SEAT]
    elif contract == C_NORMAL:
        re = np.int64(0)
        alone = -1
        for s in range(4):
            n = popcount(hands[s] & QC_MASK) + ((qc_played_by >> (2 * s)) & 3)
            if n > 0:
                re |= np.int64(1) << s
            if n == 2:
                alone = s
        if alone >= 0:
            st[H_CONTRACT] = C_SILENT_MARRIAGE
            st[H_SOLOIST] = alone
        else:
            st[H_CONTRACT] = C_NORMAL
        st[H_RE_MASK] = re
    else:  # poverty and the like: the table knows the parties
        st[H_CONTRACT] = contract
        st[H_RE_MASK] = st[P_KNOWN_RE]


@kernel
def implied_queens(pub, seat, qc):
    """The queens of clubs the parties imply, for sampling what ``seat`` has not seen: (seats that
    must hold one, seats that hold none, the marriage's bride or -1). ``qc``: the QCs played, two
    bits per seat (cardcount.scan_plays)."""
    must_qc = np.int64(0)
    no_qc = np.int64(0)
    qc_seat = -1
    if pub[P_SOLOIST] < 0:
        if pub[P_CONTRACT] == C_MARRIAGE:
            qc_seat = pub[P_MARRIAGE_SEAT]
        elif pub[P_CONTRACT] == C_NORMAL:
            for s in range(4):
                if s == seat:
                    continue
                if (pub[P_KNOWN_KO] >> s) & 1:
                    no_qc |= np.int64(1) << s
                elif (pub[P_KNOWN_RE] >> s) & 1 and ((qc >> (2 * s)) & 3) == 0:
                    must_qc |= np.int64(1) << s
    return must_qc, no_qc, qc_seat


@kernel
def sampling_setup(seat, hand, view, rules, playing):
    """What the deals sampled for ``seat`` (holding ``hand``) at the position ``view`` (as the seat
    sees it, engine/position.py) must respect, for ``deal_unseen`` and ``set_hidden``: (a
    ``Sampling``, (played, voids, qc)). ``unseen``: the cards of the deck neither played nor in
    ``hand``; ``cap0``: the cards each other seat still holds (0 for ``seat``); ``played``,
    ``voids``, ``qc``: cardcount.scan_plays; the queens: implied_queens. With ``playing`` false (a
    reservation or a poverty's acceptance: nothing played, the parties unknown) the position is not
    read: every other seat holds as many cards as ``hand``, no voids, no queens implied."""
    pub = view.pub
    cap0 = np.zeros(4, dtype=np.int64)
    cap = np.zeros(4, dtype=np.int64)
    if playing:
        played, voids, qc = scan_plays(pub, view.plays, view.play_seat, view.fclass)
        for s in range(4):
            cap0[s] = cards_left(pub, s) if s != seat else 0
        must_qc, no_qc, qc_seat = implied_queens(pub, seat, qc)
    else:
        played, voids, qc = np.int64(0), np.int64(0), np.int64(0)
        n = popcount(hand)
        for s in range(4):
            cap0[s] = n if s != seat else 0
        must_qc, no_qc, qc_seat = np.int64(0), np.int64(0), -1
    unseen = deck_cards(rules) & ~played & ~hand
    return Sampling(unseen, cap0, voids, must_qc, no_qc, qc_seat, cap), (played, voids, qc)


@kernel
def sampled_position(view):
    """The positions the sampled deals of the position ``view`` are played on: (sampled, rollout),
    two Positions (engine/position.py) that share the cards so far and the tables (``view``'s).
    ``sampled``: its ``st`` the public part of ``view.pub``, no tables (this deal's are passed
    along), the led class in a trick begun (legal_mask reads it from the position; play_card keeps
    it), its hidden fields set_hidden's per sample; its ``hands`` where deal_unseen deals a sample.
    ``rollout``: zeroed ``st`` and ``hands``, scratch for playing a sampled deal on (the cards it
    plays overwrite the shared arrays past the cards so far, which ``sampled`` does not read)."""
    pub, plays, fclass, cmask = view.pub, view.plays, view.fclass, view.cmask
    n = pub[P_NPLAYED]
    st, hs, pl2, ps2, tw2, _, _, _ = new_position()
    base = np.zeros(ST_LEN, dtype=np.int64)
    h2 = np.zeros(4, dtype=np.int64)
    for i in range(PUBLIC_LEN):
        base[i] = pub[i]
    base[H_TABLES] = 0
    if n & 3:
        base[H_LED_MASK] = cmask[fclass[plays[n & ~3]]]
    for i in range(n):
        pl2[i] = plays[i]
        ps2[i] = view.play_seat[i]
    for t in range(n >> 2):
        tw2[t] = view.trick_winner[t]
    return (Position(base, hs, pl2, ps2, tw2, view.power, fclass, cmask),
            Position(st, h2, pl2, ps2, tw2, view.power, fclass, cmask))


@inline_kernel
def choose(rng, mask, count):
    """``count`` cards of ``mask`` drawn uniformly without replacement."""
    out = np.int64(0)
    for _ in range(count):
        c = nth_set_bit(mask, below(rng, popcount(mask)))
        out |= np.int64(1) << c
        mask &= ~(np.int64(1) << c)
    return out


@inline_kernel
def binomial(n, k):
    """n choose k as a float (0 outside 0 <= k <= n)."""
    if k < 0 or k > n:
        return 0.0
    out = 1.0
    for i in range(k):
        out = out * (n - i) / (i + 1)
    return out


@kernel
def deal_with_poverty(rng, seat, hand, poor, offered, rules, hands):
    """Deal the cards ``seat`` (holding ``hand``) has not seen to the other seats, uniformly among
    the deals where ``poor`` may declare poverty (3 trumps or fewer, AD counted, engine/deal.py):
    its number of trumps drawn by its chance (hypergeometric, limited to 0-3), then its trumps and
    plain cards, then the rest for the other two seats. With ``offered`` (not 0: the cards it
    passes, all its trumps) the poor hand holds them and no other trump. When ``seat`` is the poor
    player, the other cards are dealt at random. Returns False when no such deal exists."""
    size = popcount(hand)
    unseen = deck_cards(rules) & ~hand & ~offered
    cap0 = np.zeros(4, dtype=np.int64)
    cap = np.zeros(4, dtype=np.int64)
    if poor == seat:
        for s in range(4):
            cap0[s] = size if s != seat else 0
        deal_unseen(rng, seat, hand, Sampling(unseen, cap0, np.int64(0), np.int64(0), np.int64(0), -1, cap),
                    NORMAL_CLASSES, hands)
        return True
    trumps = unseen & NORMAL_TRUMPS
    plain = unseen & ~NORMAL_TRUMPS
    need = size - popcount(offered)
    n_trumps = popcount(trumps)
    n_plain = popcount(plain)
    most = 0 if offered else 3
    weights = np.zeros(4, dtype=np.float64)
    total = 0.0
    for t in range(most + 1):
        weights[t] = binomial(n_trumps, t) * binomial(n_plain, need - t)
        total += weights[t]
    if total <= 0.0:
        return False
    r = uniform(rng) * total
    t = 0
    while t < most and r >= weights[t]:
        r -= weights[t]
        t += 1
    if weights[t] <= 0.0:  # rounding past the last weight: the last possible count
        t = most
        while weights[t] <= 0.0:
            t -= 1
    poor_hand = offered | choose(rng, trumps, t) | choose(rng, plain, need - t)
    for s in range(4):
        cap0[s] = size if s != seat and s != poor else 0
    deal_unseen(rng, seat, hand, Sampling(unseen & ~poor_hand, cap0, np.int64(0), np.int64(0), np.int64(0), -1, cap),
                NORMAL_CLASSES, hands)
    hands[poor] = poor_hand
    return True
