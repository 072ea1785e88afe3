"""Card counting shared by ``heuristic`` and ``pimc``: what a seat can infer from its observation.

Everything here reads only what a strategy is given (its hand, ``pub``, the
cards played and by whom, the public ranking tables): the cards seen, the
players shown void in a class (a failure to follow), the parties as far as the
seat knows them, the chance that an opponent sitting behind beats a card, and
the hand features the reservation and call models use.

Tables are built once from ``dokosim.cards`` and indexed by ``pub[P_SCHEME]``:

* ``ABOVE[scheme, c]``: cards of c's class that beat c when played after it;
* ``ORDER[scheme, k, i]``: card types of class k, strongest first (-1 padded);
* ``PNONE[u, h, m]``: chance that h cards drawn from u unseen ones hold none of
  m given cards (hypergeometric).
"""
from math import comb

import numpy as np

from ..engine.cards import (
    C_MARRIAGE, C_POVERTY, CLASS_MASK, EYES, FOLLOW_CLASS, NINES_MASK, POWER, T_9D, T_AD, T_JC, T_KD, T_QC,
    T_TH, TRUMP,
)
from ..engine.bits import lowest_bit_index, popcount
from ..engine.jit import inline_kernel, kernel
from ..engine.layout import (
    P_CLARIFIED, P_CONTRACT, P_HAND_SIZE, P_KNOWN_KO, P_KNOWN_RE, P_LEADER, P_MARRIAGE_SEAT,
    P_NPLAYED, P_SCHEME, P_SOLOIST, P_TRICK, R_NO_NINES,
)

ALL = np.int64((1 << 48) - 1)
DECK_NO_NINES = np.int64(ALL & ~NINES_MASK)
EVEN = np.int64(sum(1 << (2 * t) for t in range(24)))
QC_MASK = np.int64(3 << (2 * T_QC))
TH_MASK = np.int64(3 << (2 * T_TH))
AD_MASK = np.int64(3 << (2 * T_AD))
JC_MASK = np.int64(3 << (2 * T_JC))
SEATS = np.int64(15)


def _tables():
    above = np.zeros((7, 48), dtype=np.int64)
    order = np.full((7, 5, 13), -1, dtype=np.int64)
    for s in range(7):
        for c in range(48):
            m = 0
            for d in range(48):
                if FOLLOW_CLASS[s, d] == FOLLOW_CLASS[s, c] and POWER[s, d] > POWER[s, c]:
                    m |= 1 << d
            above[s, c] = m
        for k in range(5):
            types = sorted({c >> 1 for c in range(48) if FOLLOW_CLASS[s, c] == k},
                           key=lambda t: -POWER[s, 2 * t])
            for i, t in enumerate(types):
                order[s, k, i] = t
    pnone = np.zeros((37, 13, 37), dtype=np.float64)
    for u in range(37):
        for h in range(min(u, 12) + 1):
            for m in range(u + 1):
                pnone[u, h, m] = comb(u - h, m) / comb(u, m) if m <= u - h else 0.0
    return above, order, pnone


ABOVE, ORDER, PNONE = _tables()
# the strongest trumps of each scheme (features): TH + QC + QS + QH in the suit
# schemes, the two highest queens / jacks in those solos, none in fleischlos
TOP_TRUMPS = np.zeros(7, dtype=np.int64)
for _s in range(7):
    _n = 4 if _s <= 3 else 2 if _s <= 5 else 0
    for _i in range(_n):
        TOP_TRUMPS[_s] |= 3 << (2 * ORDER[_s, TRUMP, _i])
del _s, _n, _i


@inline_kernel
def deck_cards(rules):
    """The cards in the pack: all 48, or the 40 without nines under no_nines (the unseen cards
    are counted from these: PNONE's table ends at 36 unseen)."""
    return DECK_NO_NINES if rules[R_NO_NINES] else ALL


@inline_kernel
def ranking(pub, power):
    """The scheme index for ``above``: pub[P_SCHEME], plus 8 when house rules (piglets) changed
    this deal's powers so that the ABOVE table does not hold."""
    scheme = pub[P_SCHEME]
    if (power[2 * T_AD] != POWER[scheme, 2 * T_AD] or power[2 * T_9D] != POWER[scheme, 2 * T_9D]
            or power[2 * T_KD] != POWER[scheme, 2 * T_KD]):
        return scheme + 8
    return scheme


@inline_kernel
def above(c, sch, power, fclass, cmask):
    """Cards of c's class that beat c played after it (``sch`` from ``ranking``)."""
    if sch < 8:
        return ABOVE[sch, c]
    m = cmask[fclass[c]]
    r = np.int64(0)
    while m:
        d = lowest_bit_index(m)
        m &= m - 1
        if power[d] > power[c]:
            r |= np.int64(1) << d
    return r


@inline_kernel
def distinct(mask):
    """One card of each type in mask (drop the odd copy when both are there)."""
    return mask & ~((mask & EVEN) << 1)


@inline_kernel
def scan_card(c, seat, k, led, played, voids, qc):
    """scan_plays's step: (played, voids, qc) after card ``c`` of class ``k``, played by ``seat``
    into a trick led in class ``led``. Without data-dependent branches: the void and QC bits are
    added as 0 or 1 (every decision of heuristic, and of pimc's rollouts, scans the cards)."""
    played |= np.int64(1) << c
    voids |= np.int64(k != led) << (5 * seat + led)
    qc += np.int64((c >> 1) == T_QC) << (2 * seat)
    return played, voids, qc


@inline_kernel
def scan_plays(pub, plays, play_seat, fclass):
    """(cards played, voids, QC plays): voids has bit 5*seat + class for a failure to follow;
    QC plays are counted 2 bits per seat (bits 2*seat)."""
    n = pub[P_NPLAYED]
    played = np.int64(0)
    voids = np.int64(0)
    qc = np.int64(0)
    led = 0
    for i in range(n):
        c = plays[i]
        k = fclass[c]
        if i & 3 == 0:
            led = k
        played, voids, qc = scan_card(c, play_seat[i], k, led, played, voids, qc)
    return played, voids, qc


@inline_kernel
def cards_left(pub, s):
    """Cards seat s still holds."""
    pos = pub[P_NPLAYED] & 3
    done = ((s - pub[P_LEADER]) & 3) < pos
    return pub[P_HAND_SIZE] - pub[P_TRICK] - (1 if done else 0)


@inline_kernel
def teams(seat, hand, pub, qc):
    """(partners, opponents) as seat masks, as this seat knows them; unknown seats in neither."""
    me = np.int64(1) << seat
    kre = pub[P_KNOWN_RE]
    kko = pub[P_KNOWN_KO]
    soloist = pub[P_SOLOIST]
    if soloist >= 0:
        re = np.int64(1) << soloist
        ko = SEATS ^ re
    elif pub[P_CONTRACT] == C_MARRIAGE:
        re = kre
        ko = kko
        if pub[P_CLARIFIED] == 0:
            ko = np.int64(0)
    elif pub[P_CONTRACT] == C_POVERTY:
        # the poor player and the acceptor: the table knows both parties, the QC decide nothing
        re = kre
        ko = kko
    else:
        myqc = popcount(hand & QC_MASK) + ((qc >> (2 * seat)) & 3)
        lone = -1
        for s in range(4):
            if ((qc >> (2 * s)) & 3) == 2:
                lone = s
        if myqc == 2:
            re = me
            ko = SEATS ^ me
        elif lone >= 0:
            re = np.int64(1) << lone
            ko = SEATS ^ re
        else:
            re = kre
            ko = kko
            if myqc > 0:
                re |= me
            else:
                ko |= me
            if popcount(re) >= 2:
                ko = SEATS ^ re
            elif popcount(ko) >= 2:
                re = SEATS ^ ko
    if re & me:
        return re & ~me, ko & ~me
    return ko & ~me, re & ~me


@inline_kernel
def p_partner_unknown(seat, pub, partners, opps):
    """Chance that a seat of unknown party plays on this seat's side."""
    unknown = SEATS & ~partners & ~opps & ~(np.int64(1) << seat)
    nu = popcount(unknown)
    if nu == 0:
        return 0.0
    if pub[P_CONTRACT] == C_MARRIAGE and pub[P_CLARIFIED] == 0:
        if seat == pub[P_MARRIAGE_SEAT]:
            return 1.0 / nu
        return 0.0
    # a normal game: two a side
    want = 1 - popcount(partners)
    if want <= 0:
        return 0.0
    return want / nu


@inline_kernel
def seat_beats(s, led, is_trump, voids, n_unseen, left_s, k_led, ntb, nsb):
    """Chance that seat s (``left_s`` cards in hand, of ``n_unseen`` unseen), playing after a card
    c in this trick (``is_trump``: c is a trump), beats it.

    ntb: unseen trumps that beat c; nsb: unseen cards of the led plain suit
    that beat c (c itself of the led suit); k_led: unseen cards of the led class.
    """
    void_tr = (voids >> (5 * s + TRUMP)) & 1
    pt = 0.0
    if void_tr == 0 and ntb > 0:
        pt = 1.0 - PNONE[n_unseen, left_s, ntb]
    if led == TRUMP:
        return pt
    void_led = ((voids >> (5 * s + led)) & 1) == 1 or k_led == 0
    pv = 1.0 if void_led else PNONE[n_unseen, left_s, k_led]
    if is_trump:
        return pv * pt
    ps = 0.0
    if not void_led and nsb > 0:
        ps = 1.0 - PNONE[n_unseen, left_s, nsb]
    p = ps + pv * pt
    return 1.0 if p > 1.0 else p


@inline_kernel
def survive(c, seat, threat, led, unseen, voids, view, sch, dulle_later):
    """Chance that card c (best in the trick so far, or led) is not beaten by the seats of
    ``threat`` that still play in this trick after ``seat`` (``view``: the position as the seat
    sees it, engine/position.py)."""
    pub, power, fclass, cmask = view.pub, view.power, view.fclass, view.cmask
    n_unseen = popcount(unseen)
    if n_unseen == 0:
        return 1.0
    is_trump = (cmask[TRUMP] >> c) & 1 == 1
    if is_trump:
        tb = unseen & above(c, sch, power, fclass, cmask)
        if dulle_later and (c >> 1) == T_TH:
            tb |= unseen & TH_MASK
        nsb = 0
    else:
        tb = unseen & cmask[TRUMP]
        nsb = popcount(unseen & above(c, sch, power, fclass, cmask))
    ntb = popcount(tb)
    if ntb == 0 and nsb == 0:
        return 1.0
    k_led = popcount(unseen & cmask[led])
    pos = pub[P_NPLAYED] & 3
    p = 1.0
    for k in range(1, 4 - pos):
        s = (seat + k) & 3
        if (threat >> s) & 1:
            p *= 1.0 - seat_beats(s, led, is_trump, voids, n_unseen, cards_left(pub, s), k_led, ntb, nsb)
    return p


@inline_kernel
def beats(c, w, led, fclass, power, dulle_later):
    """True when c, played after w (the best card so far), takes the lead."""
    kc = fclass[c]
    kw = fclass[w]
    if kc == TRUMP:
        if kw != TRUMP:
            return True
        if power[c] > power[w]:
            return True
        return dulle_later and (c >> 1) == T_TH and (w >> 1) == T_TH
    return kc == led and kw != TRUMP and power[c] > power[w]


@kernel
def top_sequence(hand, scheme, k):
    """Cards of class k the hand holds from the top down without a gap (sure tricks)."""
    n = 0
    for i in range(13):
        t = ORDER[scheme, k, i]
        if t < 0:
            break
        have = popcount(hand & (np.int64(3) << (2 * t)))
        n += have
        if have < 2:
            break
    return n


@kernel
def mask_eyes(mask):
    total = 0
    m = mask
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        total += EYES[c]
    return total


N_FEATURES = 12


@kernel
def hand_features(hand, scheme, leads_first):
    """Features of a 12-card hand under a trump scheme (reservation and call models).

    0 bias, 1 trumps, 2 top trump sequence, 3 top trumps, 4 plain aces, 5 plain
    voids, 6 plain losers, 7 plain top sequences, 8 longest plain suit, 9 leads
    first, 10 QC held, 11 plain tens.
    """
    tm = CLASS_MASK[scheme, TRUMP]
    trumps = popcount(hand & tm)
    seq = top_sequence(hand, scheme, TRUMP) if trumps > 0 else 0
    top = popcount(hand & TOP_TRUMPS[scheme])
    aces = 0
    voids = 0
    losers = 0
    plain_seq = 0
    longest = 0
    tens = 0
    for k in range(4):
        m = hand & CLASS_MASK[scheme, k]
        n = popcount(m)
        if n == 0:
            voids += 1
            continue
        a = ORDER[scheme, k, 0]
        aces += popcount(m & (np.int64(3) << (2 * a)))
        t1 = ORDER[scheme, k, 1]
        tens += popcount(m & (np.int64(3) << (2 * t1)))
        q = top_sequence(m, scheme, k)
        plain_seq += q
        if n > q:
            losers += n - q
        if n > longest:
            longest = n
    return (1.0, float(trumps), float(seq), float(top), float(aces), float(voids), float(losers),
            float(plain_seq), float(longest), float(leads_first), float(popcount(hand & QC_MASK)),
            float(tens))


@inline_kernel
def model_logit(w, f):
    """Dot product of a weight row with a features tuple."""
    return (w[0] * f[0] + w[1] * f[1] + w[2] * f[2] + w[3] * f[3] + w[4] * f[4] + w[5] * f[5]
            + w[6] * f[6] + w[7] * f[7] + w[8] * f[8] + w[9] * f[9] + w[10] * f[10] + w[11] * f[11])


@kernel
def features_batch(hands, scheme, leads_first, out):
    """hand_features of many hands into out (n x N_FEATURES); for fitting the models."""
    for i in range(hands.shape[0]):
        f = hand_features(hands[i], scheme, leads_first[i])
        for j in range(N_FEATURES):
            out[i, j] = f[j]
