"""``pimc``: perfect-information Monte Carlo search over the heuristic player (docs/strategies.md).

At each card decision with a real choice it deals the unseen cards to the
other seats at random, consistent with what the seat has seen (each seat's
number of cards, the voids it has shown, the QC the parties imply: a seat
known to be Re holds one, a seat known to be Kontra none, the marriage player
both), plays each distinct legal card on each such deal and the rest of the
deal with ``heuristic`` at every seat, scores it, and plays the card with the
best average (its own score plus ``eye_weight`` per eye of its side's margin).
Every deal is used for every candidate card (common random numbers). The deals
come from the deal's random stream, so runs stay reproducible. Reservations
and calls are heuristic's.
"""
import numpy as np

from ..cards import C_MARRIAGE, C_NORMAL, C_SILENT_MARRIAGE, TRUMP
from ..engine.bits import lowest_bit_index, popcount
from ..engine.jit import inline_kernel, kernel
from ..engine.layout import (
    H_CONTRACT, H_LED_MASK, H_RE_MASK, H_SOLOIST, H_TABLES, N_ITEMS, P_CLARIFIED, P_CONTRACT,
    P_HAND_SIZE, P_KNOWN_KO, P_KNOWN_RE, P_MARRIAGE_SEAT, P_NPLAYED, P_SOLOIST,
    P_TURN, PUBLIC_LEN, RES_EYES_RE, RES_LEN, RES_SCORE, ST_LEN,
)
from ..engine.play import legal_mask, play_card
from ..engine.rng import below
from ..engine.scoring import score_deal
from . import heuristic
from .cardcount import QC_MASK, cards_left, deck_cards, distinct, scan_card, scan_plays

NAME = "pimc"
PARAMS = {
    "samples": (20.0, "deals sampled per card decision"),
    "eye_weight": (0.01, "score points per eye of the side's margin added to a rollout's score"),
    "min_cards": (2.0, "search only while the seat holds at least this many cards"),
}
PARAM_RANGES = {"samples": (1, 10_000, "integer"), "eye_weight": (0.0, 10.0), "min_cards": (0.0, 13.0)}
PI_SAMPLES, PI_EYE_WEIGHT, PI_MIN_CARDS = range(3)
# the heuristic's defaults, for the rollouts and the decisions pimc leaves to it
HPARAMS = np.zeros(16, dtype=np.float64)
for _i, _v in enumerate(heuristic.PARAMS.values()):
    HPARAMS[_i] = _v[0]
del _i, _v


@inline_kernel
def reserve(seat, hand, options, pub, rules, params, rng):
    return heuristic.reserve(seat, hand, options, pub, rules, HPARAMS, rng)


@inline_kernel
def exchange(seat, hand, phase, pub, rules, params, rng):
    return heuristic.exchange(seat, hand, phase, pub, rules, HPARAMS, rng)


@inline_kernel
def call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    return heuristic.call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask,
                          rules, HPARAMS, rng)


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
def deal_unseen(rng, seat, hand, unseen, cap0, voids, cmask, must_qc, no_qc, qc_seat, hands, cap):
    """Give the unseen cards to the other seats (``cap0`` places each) into ``hands``.

    Respects the voids (bit 5*s+k) and the QC constraints when it can: seats of
    ``must_qc`` get one QC each, ``no_qc`` none, ``qc_seat`` >= 0 all of them.
    Most constrained classes go first; a dead end starts again, and after a few
    tries the voids are dropped. Returns True when every constraint held.
    """
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


@inline_kernel
def card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    cands = distinct(legal)
    if cands & (cands - 1) == 0:
        return lowest_bit_index(legal)
    if popcount(hand) < params[PI_MIN_CARDS]:
        return heuristic.card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask,
                              rules, HPARAMS, rng)
    return search(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules,
                  int(params[PI_SAMPLES]), params[PI_EYE_WEIGHT], rng)


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
def search(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, n_samples,
           ew, rng):
    """The card with the best average over n_samples sampled deals (see the module doc)."""
    cands = distinct(legal)
    n = pub[P_NPLAYED]
    total = 4 * pub[P_HAND_SIZE]
    played, voids, qc = scan_plays(pub, plays, play_seat, fclass)
    unseen = deck_cards(rules) & ~played & ~hand
    cap0 = np.zeros(4, dtype=np.int64)
    for s in range(4):
        cap0[s] = cards_left(pub, s) if s != seat else 0
    must_qc, no_qc, qc_seat = implied_queens(pub, seat, qc)
    st = np.zeros(ST_LEN, dtype=np.int64)
    base = np.zeros(ST_LEN, dtype=np.int64)
    for i in range(PUBLIC_LEN):
        base[i] = pub[i]
    base[H_TABLES] = 0
    if n & 3:  # legal_mask reads the led class from st (play_card keeps it)
        base[H_LED_MASK] = cmask[fclass[plays[n & ~3]]]
    hs = np.zeros(4, dtype=np.int64)
    h2 = np.zeros(4, dtype=np.int64)
    cap = np.zeros(4, dtype=np.int64)
    pl2 = np.zeros(48, dtype=np.int64)
    ps2 = np.zeros(48, dtype=np.int64)
    tw2 = np.zeros(12, dtype=np.int64)
    items = np.zeros((2, N_ITEMS), dtype=np.int64)
    res = np.zeros(RES_LEN, dtype=np.int64)
    for i in range(n):
        pl2[i] = plays[i]
        ps2[i] = play_seat[i]
    for t in range(n >> 2):
        tw2[t] = trick_winner[t]
    sums = np.zeros(48, dtype=np.float64)
    for _ in range(n_samples):
        deal_unseen(rng, seat, hand, unseen, cap0, voids, cmask, must_qc, no_qc, qc_seat, hs, cap)
        set_hidden(base, hs, qc, seat)
        m = cands
        while m:
            c = lowest_bit_index(m)
            m &= m - 1
            for i in range(ST_LEN):
                st[i] = base[i]
            for s in range(4):
                h2[s] = hs[s]
            # what heuristic's scan of the cards so far would find, kept up to date card by card
            r_played, r_voids, r_qc = played, voids, qc
            d = c
            while True:
                k = st[P_NPLAYED]
                play_card(st, h2, d, pl2, ps2, tw2, power, fclass, cmask, rules)
                r_played, r_voids, r_qc = scan_card(pl2[k], ps2[k], fclass[pl2[k]], fclass[pl2[k & ~3]],
                                                    r_played, r_voids, r_qc)
                if st[P_NPLAYED] >= total:
                    break
                s = st[P_TURN]
                lg = legal_mask(st, h2[s], pl2, fclass, cmask)
                d = heuristic.card_scanned(s, h2[s], lg, st[:PUBLIC_LEN], pl2, ps2, power, fclass, cmask,
                                           rules, HPARAMS, r_played, r_voids, r_qc)
                if d < 0 or not (lg >> d) & 1:
                    d = lowest_bit_index(lg)
            score_deal(st, pl2, ps2, tw2, items, res)
            re = (st[H_RE_MASK] >> seat) & 1
            margin = 2 * res[RES_EYES_RE] - 240
            if re == 0:
                margin = -margin
            sums[c] += res[RES_SCORE + seat] + ew * margin
    best = -1
    best_v = -1e300
    m = cands
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        if sums[c] > best_v:
            best_v = sums[c]
            best = c
    return best
