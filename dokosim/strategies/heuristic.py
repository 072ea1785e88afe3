"""``heuristic``: an expert rule player for every decision (docs/strategies.md).

Cards: counts the cards seen and the voids shown, works out the parties from
the QC played and the calls, and scores each legal card by a one-trick
expectation: the chance its side takes the trick (the chance that nobody of
the other side still to play beats the winning card, from the unseen cards and
the voids) times the eyes at stake, less what the card is worth kept (high
trumps, boss plain cards), with the fox, Charlie and the marriage's clarifying
trick priced in. Leads follow rules: cash plain aces while a suit still goes
round, show Re with a QC, draw trumps with the boss trump, let a void partner
ruff, and otherwise the cheapest lead by the same expectation.

Reservations and calls: logistic models of the win chance from hand features
(fitted on simulated deals by ``studies/heuristic_models.calibrate()``; the weights are in ``MODELS``);
a solo when its modelled win chance reaches ``solo_win``, a silent marriage
when a diamonds solo would, else a marriage with both QC; Re/Kontra and the
denials when the modelled chance reaches their thresholds.
"""
import numpy as np

from ..engine.cards import (
    ACES_MASK, C_MARRIAGE, C_NORMAL, C_POVERTY, EYES, SOLO_SCHEME, T_AD, T_JC, T_QC, T_TH, TRUMP,
)
from ..engine.bits import lowest_bit_index, popcount
from ..engine.jit import decision_kernel, inline_kernel, kernel
from ..engine.layout import (
    P_CLARIFIED, P_CONTRACT, P_DEALER, P_HAND_SIZE, P_KNOWN_RE, P_LEADER, P_LEVEL_KO, P_LEVEL_RE,
    P_MARRIAGE_SEAT, P_NPLAYED, P_SCHEME, P_SOLOIST, P_TRICK, R_DULLE, RES_HEALTHY,
    RES_MARRIAGE, RES_POVERTY, RES_THROW_IN,
)
from ..engine.deal import NORMAL_TRUMPS
from ..engine.play import best_offset
from ..engine.position import View
from .common import EX_ACCEPT, EX_PASS, add_lowest_keys, default_return, extreme_card, trick_eyes_so_far
from .cardcount import (
    QC_MASK, SEATS, above, beats, cards_left, deck_cards, distinct, hand_features, mask_eyes, model_logit,
    p_partner_unknown, ranking, scan_plays, survive, teams,
)

NAME = "heuristic"
PARAMS = {
    "solo_win": (0.6, "modelled win chance needed to declare a solo"),
    "silent_win": (0.6, "modelled diamonds-solo win chance to keep both QC silent"),
    "call_win": (0.6, "modelled win chance needed to say Re or Kontra"),
    "deny_win": (0.95, "modelled chance of 151 eyes needed for no 90 (no 60: 0.1 more)"),
    "keep_weight": (3.5, "weight of a card's worth kept (in eyes) against the trick at stake"),
    "ace_safety": (0.4, "chance a led plain ace must have of not being trumped"),
    "fox_value": (8.0, "eyes a fox (AD) lost or caught is worth"),
    "charlie_value": (12.0, "eyes a Charlie (JC winning the last trick) is worth"),
    "show_qc_trumps": (9.0, "trumps needed to lead a QC to show Re while the partner is unknown"),
    "draw_trumps": (6.0, "trumps needed to lead the boss trump to draw the others' trumps"),
    "join_bonus": (15.0, "eyes worth of becoming the marriage player's partner"),
    "poverty_win": (0.45, "poverty (house rule): declared when the normal-game win chance is below this"),
    "accept_trumps": (10.5, "poverty: trumps (TH and QC count 1.5) needed to accept"),
    "throw_in_win": (0.5, "throw-in (house rule): redeal when the normal-game win chance is below this"),
}
# chances 0-1; trumps 0-13 (a hand holds at most 12; 13: never), accept_trumps 0-15 (at most
# 12 + 4 * 0.5); eyes 0-240 (the whole pack)
_CHANCE, _TRUMPS, _EYES = (0.0, 1.0), (0.0, 13.0), (0.0, 240.0)
PARAM_RANGES = {
    "solo_win": _CHANCE, "silent_win": _CHANCE, "call_win": _CHANCE, "deny_win": _CHANCE,
    "keep_weight": (0.0, 100.0), "ace_safety": _CHANCE, "fox_value": _EYES, "charlie_value": _EYES,
    "show_qc_trumps": _TRUMPS, "draw_trumps": _TRUMPS, "join_bonus": _EYES, "poverty_win": _CHANCE,
    "accept_trumps": (0.0, 15.0), "throw_in_win": _CHANCE,
}
(PI_SOLO, PI_SILENT, PI_CALL, PI_DENY, PI_KEEP, PI_ACE, PI_FOX, PI_CHARLIE, PI_SHOWQC,
 PI_DRAW, PI_JOIN, PI_POVERTY, PI_ACCEPT, PI_THROW) = range(14)

# Logistic models over cardcount.hand_features: rows 0..6 the solo kinds
# (the soloist wins), 7 Re wins a normal game, 8 Kontra wins it, 9 Re takes
# 151 eyes or more, 10 Kontra does.
M_RE, M_KO, M_RE151, M_KO151 = 7, 8, 9, 10
MODELS = np.array([
    [-16.8996, 1.1294, 0.4014, 0.5991, 1.7071, 0.9632, -0.2260, -0.9033, 0.0903, 0.3412, 0.0191, -0.0355],  # diamonds
    [-16.7296, 1.1723, 0.4280, 0.5083, 1.7805, 0.9905, -0.2540, -0.9183, 0.2665, 0.3950, 0.1553, -0.0987],  # hearts
    [-16.9463, 1.1341, 0.4681, 0.5710, 1.6698, 0.9071, -0.2781, -0.8560, 0.1054, 0.3172, 0.1590, 0.0204],  # spades
    [-17.3557, 1.1722, 0.4111, 0.6230, 1.6344, 0.8800, -0.3184, -0.8538, 0.2393, 0.2787, 0.0955, -0.0440],  # clubs
    [-7.5646, 0.8351, -0.4192, 0.2406, 1.0846, 0.7444, -0.4667, -0.3684, 0.4424, -0.0928, 1.0242, 0.3280],  # queens
    [-7.0182, 0.8039, 0.1570, 0.1961, 1.0845, 0.7010, -0.4352, -0.3687, 0.4154, -0.1431, -0.0578, 0.3132],  # jacks
    [-7.8800, 0.0000, 0.0000, 0.0000, 0.9553, 0.1173, -0.1894, 0.1894, 0.4501, -0.5825, -0.0567, 0.5719],  # fleischlos
    [-2.1105, 0.2830, 0.2554, 0.3040, 0.2524, 0.3936, -0.1226, -0.1605, -0.0696, 0.0561, 0.0000, -0.0351],  # Re
    [-2.7824, 0.2826, 0.2361, 0.2692, 0.2437, 0.3067, -0.1240, -0.1586, -0.0344, 0.0569, 0.0000, -0.0356],  # Kontra
    [-3.4560, 0.3001, 0.2501, 0.2803, 0.3124, 0.3655, -0.1132, -0.1870, -0.0335, 0.0753, 0.0000, -0.0307],  # Re 151
    [-4.3664, 0.3162, 0.2353, 0.2844, 0.3067, 0.2845, -0.1358, -0.1804, 0.0119, 0.0236, 0.0000, -0.0365],  # Kontra 151
], dtype=np.float64)
N_MODELS = MODELS.shape[0]


@kernel
def win_chance(model, hand, scheme, leads_first):
    z = model_logit(MODELS[model], hand_features(hand, scheme, leads_first))
    if z > 30.0:
        return 1.0
    if z < -30.0:
        return 0.0
    return 1.0 / (1.0 + np.exp(-z))


# ---------------------------------------------------------------- reservations
@inline_kernel
def reserve(seat, hand, options, pub, rules, params, rng):
    return choose_reservation(seat, hand, options, pub, params)


@decision_kernel
def choose_reservation(seat, hand, options, pub, params):
    leads = 1 if (pub[P_DEALER] + 1) & 3 == seat else 0
    best = RES_HEALTHY
    best_p = params[PI_SOLO]
    for kind in range(7):
        if (options >> (1 + kind)) & 1:
            p = win_chance(kind, hand, SOLO_SCHEME[kind], leads)
            if p >= best_p:
                best_p = p
                best = 1 + kind
    both_qc = (hand & QC_MASK) == QC_MASK
    if both_qc:
        # both QC: a diamonds solo nobody knows of (a silent marriage) pays when it would
        # win as a solo, and beats a declared solo that is no likelier to win
        silent = win_chance(0, hand, 3, leads)
        if silent >= params[PI_SILENT] and (best == RES_HEALTHY or silent >= best_p):
            return RES_HEALTHY
    if best != RES_HEALTHY:
        return best
    # the chance of winning the normal game this hand would play (poverty, throw-in)
    p_normal = win_chance(M_RE if (hand & QC_MASK) != 0 else M_KO, hand, 3, leads)
    if (options >> RES_POVERTY) & 1 and p_normal < params[PI_POVERTY]:
        return RES_POVERTY  # ranks above a marriage: with 3 trumps or fewer, let a partner carry
    if both_qc and (options >> RES_MARRIAGE) & 1:
        return RES_MARRIAGE
    if (options >> RES_THROW_IN) & 1 and p_normal < params[PI_THROW]:
        return RES_THROW_IN
    return RES_HEALTHY


# ---------------------------------------------------------------- poverty (house rule)
@inline_kernel
def exchange(seat, hand, phase, pub, rules, params, rng):
    """Poverty: EX_PASS the 3 cards to pass, EX_ACCEPT 1 to accept, EX_RETURN the 3 cards back."""
    if phase == EX_PASS:
        return poverty_pass(hand)
    if phase == EX_ACCEPT:
        return 1 if poverty_strength(hand) >= params[PI_ACCEPT] else 0
    return poverty_return(hand)


@kernel
def poverty_strength(hand):
    """Trumps counted as in a normal game, TH and QC as 1.5."""
    t = hand & NORMAL_TRUMPS
    top = popcount(t & (np.int64(3) << (2 * T_TH))) + popcount(t & QC_MASK)
    return popcount(t) + 0.5 * top


@kernel
def plain_short_first(hand, chosen, count, keep_aces):
    """Add plain cards of ``hand`` to ``chosen`` until it holds ``count``: cards of the shortest
    plain suits first (voids let the hand ruff), the fewest eyes among equals; aces last when
    ``keep_aces``."""
    return add_lowest_keys(chosen, hand & ~NORMAL_TRUMPS & ~chosen, count, True, keep_aces)


@kernel
def poverty_pass(hand):
    """All trumps, filled up from the shortest plain suits (the poor player keeps its aces)."""
    return plain_short_first(hand, hand & NORMAL_TRUMPS, 3, True)


@kernel
def poverty_return(hand):
    """Plain cards from the shortest suits (voids to ruff with the trumps received), keeping
    the aces that take a trick; trumps only when short of plain cards (the lowest)."""
    chosen = plain_short_first(hand, np.int64(0), 3, True)
    if popcount(chosen) < 3:
        return default_return(hand)
    return chosen


# ---------------------------------------------------------------- calls
@decision_kernel
def side_eyes(seat, view, partners):
    """(eyes won by this seat's side, eyes won by the others) in finished tricks."""
    pub, plays, trick_winner = view.pub, view.plays, view.trick_winner
    ours = 0
    theirs = 0
    side = partners | (np.int64(1) << seat)
    for t in range(pub[P_TRICK]):
        e = EYES[plays[4 * t]] + EYES[plays[4 * t + 1]] + EYES[plays[4 * t + 2]] + EYES[plays[4 * t + 3]]
        if (side >> trick_winner[t]) & 1:
            ours += e
        else:
            theirs += e
    return ours, theirs


@inline_kernel
def call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    if pub[P_NPLAYED] & 3:
        return 0  # decided between tricks
    return choose_call(seat, hand, legal, View(pub, plays, play_seat, trick_winner, power, fclass, cmask), params)


@decision_kernel
def choose_call(seat, hand, legal, view, params):
    """Re / Kontra or a denial (0: none) for ``seat`` holding ``hand`` (``view``: the position as the
    seat sees it, engine/position.py)."""
    pub, plays, play_seat = view.pub, view.plays, view.play_seat
    played, voids, qc = scan_plays(pub, plays, play_seat, view.fclass)
    partners, opps = teams(seat, hand, pub, qc)
    mine = hand  # the hand as dealt: the models read 12-card hands
    for i in range(pub[P_NPLAYED]):
        if play_seat[i] == seat:
            mine |= np.int64(1) << plays[i]
    leads = 1 if (pub[P_DEALER] + 1) & 3 == seat else 0
    alone = popcount(opps) == 3
    if pub[P_SOLOIST] >= 0 or alone:
        if not alone:
            return 0  # against a solo: no calls
        kind = 0
        for k in range(7):
            if SOLO_SCHEME[k] == pub[P_SCHEME]:
                kind = k
        if pub[P_SCHEME] == 3:
            kind = 0
        z = model_logit(MODELS[kind], hand_features(mine, pub[P_SCHEME], leads))
        z151 = z - 2.5
    else:
        is_re = (mine & QC_MASK) != 0 or (pub[P_CONTRACT] == C_MARRIAGE and
                                           ((partners | (np.int64(1) << seat)) >> pub[P_MARRIAGE_SEAT]) & 1)
        if pub[P_CONTRACT] == C_POVERTY:
            is_re = (pub[P_KNOWN_RE] >> seat) & 1 == 1
        f = hand_features(mine, 3, leads)
        z = model_logit(MODELS[M_RE if is_re else M_KO], f)
        z151 = model_logit(MODELS[M_RE151 if is_re else M_KO151], f)
        if popcount(partners) > 0:
            z += 0.2
            z151 += 0.2
    # what the finished tricks brought, once the seat knows who is with it
    if popcount(partners) + popcount(opps) == 3:
        ours, theirs = side_eyes(seat, view, partners)
        z += (ours - theirs) / 30.0
        z151 += (ours - theirs) / 30.0 - theirs / 30.0
    p = 1.0 / (1.0 + np.exp(-z))
    if (legal >> 1) & 1:
        return 1 if p >= params[PI_CALL] else 0
    # denials: no 90, then no 60, one level at a time
    level = pub[P_LEVEL_RE] if ((pub[P_KNOWN_RE] >> seat) & 1) else pub[P_LEVEL_KO]
    nxt = level + 1
    if nxt <= 3 and (legal >> nxt) & 1:
        p151 = 1.0 / (1.0 + np.exp(-z151))
        if p151 >= params[PI_DENY] + (0.1 if nxt == 3 else 0.0):
            return nxt
    return 0


# ---------------------------------------------------------------- cards
@inline_kernel
def keep_value(c, unseen, sch, power, fclass, cmask):
    """What card c is worth kept for later tricks, in eyes."""
    hi = popcount(unseen & above(c, sch, power, fclass, cmask))
    if (cmask[TRUMP] >> c) & 1:
        total = popcount(unseen & cmask[TRUMP])
        if total == 0:
            return 1.0
        v = 2.0 + 10.0 * (total - hi) / (total + 1.0)
        if hi == 0:
            v += 3.0
        return v
    k_cls = fclass[c]
    if hi == 0 and (unseen & cmask[k_cls]) != 0:
        if cmask[TRUMP] == 0:
            return 6.0
        if EYES[c] >= 10:
            return 4.0
    return 0.0


@decision_kernel
def follow_card(seat, legal, view, rules, params, unseen, voids, partners, opps):
    """The card of ``legal`` to follow the trick with, by the one-trick expectation (choose_card)."""
    pub, plays, play_seat, power, fclass, cmask = view.pub, view.plays, view.play_seat, view.power, view.fclass, \
        view.cmask
    n = pub[P_NPLAYED]
    pos = n & 3
    start = n - pos
    sch = ranking(pub, power)
    led = fclass[plays[start]]
    last_trick = pub[P_TRICK] == pub[P_HAND_SIZE] - 1
    dulle = rules[R_DULLE]
    dulle_later = dulle == 1 or (dulle == 2 and not last_trick)
    wofs = best_offset(plays, start, pos, power, fclass, dulle, last_trick)
    wcard = plays[start + wofs]
    wseat = play_seat[start + wofs]
    e0 = trick_eyes_so_far(pub, plays)
    nb = 3 - pos
    threat = SEATS & ~partners & ~(np.int64(1) << seat)
    q = p_partner_unknown(seat, pub, partners, opps)
    extras = pub[P_SOLOIST] < 0
    lam = params[PI_KEEP]
    fox = params[PI_FOX]
    marriage_open = pub[P_CONTRACT] == C_MARRIAGE and pub[P_CLARIFIED] == 0
    marriage_seat = pub[P_MARRIAGE_SEAT]
    # the chance the trick stays with the current winner's holder if I do not beat it
    p_w = survive(wcard, seat, threat, led, unseen, voids, view, sch, dulle_later)
    if (partners >> wseat) & 1:
        p_keep = p_w
    elif (opps >> wseat) & 1:
        behind_partners = np.int64(0)
        for k in range(1, nb + 1):
            behind_partners |= np.int64(1) << ((seat + k) & 3)
        behind_partners &= partners
        p_keep = 0.0
        if behind_partners:
            p_keep = 0.5 * (1.0 - survive(wcard, seat, behind_partners, led, unseen, voids, view, sch,
                                          dulle_later))
    else:
        p_keep = q * p_w
    # opponents' foxes already in the trick
    fox_in = 0.0
    if extras:
        for i in range(start, n):
            if (plays[i] >> 1) == T_AD and fclass[plays[i]] == TRUMP:
                s = play_seat[i]
                if (opps >> s) & 1:
                    fox_in += 1.0
                elif not (partners >> s) & 1:
                    fox_in += 1.0 - q
    best = -1
    best_v = -1e18
    m = distinct(legal)
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        wins = beats(c, wcard, led, fclass, power, dulle_later)
        if wins:
            p = survive(c, seat, threat, led, unseen, voids, view, sch, dulle_later)
        else:
            p = p_keep
        e = e0 + EYES[c] + 4 * nb
        v = (2.0 * p - 1.0) * e - lam * keep_value(c, unseen, sch, power, fclass, cmask)
        if extras:
            if (c >> 1) == T_AD and fclass[c] == TRUMP:
                v -= (1.0 - p) * fox
            v += p * fox * fox_in
            if last_trick and (c >> 1) == T_JC and wins and fclass[c] == TRUMP:
                v += p * params[PI_CHARLIE]
        if marriage_open and pub[P_TRICK] < 3:
            if seat == marriage_seat:
                # the trick goes to Re whoever takes it; winning all three makes a solo
                v = e - lam * keep_value(c, unseen, sch, power, fclass, cmask)
                if wins and pub[P_TRICK] == 2:
                    v -= params[PI_JOIN] * p
            else:
                p_me = p if wins else 0.0
                v = p_me * (params[PI_JOIN] + e) - (1.0 - p_me) * 0.5 * e \
                    - lam * keep_value(c, unseen, sch, power, fclass, cmask)
        if v > best_v:
            best_v = v
            best = c
    return best


@inline_kernel
def lead_value(c, seat, view, sch, unseen, voids, threat, params):
    """One-trick expectation of leading c (the fallback lead)."""
    power, fclass, cmask = view.power, view.fclass, view.cmask
    lam = params[PI_KEEP]
    extras = view.pub[P_SOLOIST] < 0
    k = fclass[c]
    p = survive(c, seat, threat, k, unseen, voids, view, sch, False)
    km = unseen & cmask[k]
    nk = popcount(km)
    if k == TRUMP or nk == 0:
        e_follow = 12.0
    else:
        avg = mask_eyes(km) / nk
        e_follow = avg * (3.0 if nk >= 3 else nk) + 4.0 * (3 - min(nk, 3))
    e = EYES[c] + e_follow
    v = (2.0 * p - 1.0) * e - lam * keep_value(c, unseen, sch, power, fclass, cmask)
    if extras and (c >> 1) == T_AD and k == TRUMP:
        v -= (1.0 - p) * params[PI_FOX]
    return v, p


@decision_kernel
def lead_card(seat, hand, legal, view, params, unseen, voids, partners, opps):
    """The card of ``legal`` to lead, by the rules of the module doc (choose_card)."""
    pub, power, fclass, cmask = view.pub, view.power, view.fclass, view.cmask
    sch = ranking(pub, power)
    me = np.int64(1) << seat
    threat = SEATS & ~partners & ~me
    extras = pub[P_SOLOIST] < 0
    trumps = hand & cmask[TRUMP]
    n_trumps = popcount(trumps)
    out_trumps = unseen & cmask[TRUMP]
    soloist = pub[P_SOLOIST]
    marriage_open = pub[P_CONTRACT] == C_MARRIAGE and pub[P_CLARIFIED] == 0
    # the marriage player wants someone else to take an early trick: lead low
    if marriage_open and seat == pub[P_MARRIAGE_SEAT]:
        best = -1
        best_v = 1e18
        m = distinct(legal)
        while m:
            c = lowest_bit_index(m)
            m &= m - 1
            p = survive(c, seat, SEATS & ~me, fclass[c], unseen, voids, view, sch, False)
            v = 30.0 * p + keep_value(c, unseen, sch, power, fclass, cmask) + EYES[c] * 0.2
            if v < best_v:
                best_v = v
                best = c
        return best
    # a queens or jacks solo: 8 trumps and long plain suits. The soloist leads a plain ace when it
    # has one, else its lowest card, and keeps its trumps to win the lead back: drawing trumps and
    # the one-trick expectation below won 0.254 of the solos with 6+ trumps where this wins 0.464
    # (docs/strategies.md, "heuristic as soloist")
    if soloist == seat and (pub[P_SCHEME] == 4 or pub[P_SCHEME] == 5):
        aces = legal & ACES_MASK & ~cmask[TRUMP]
        if aces:
            return extreme_card(aces, power, fclass, True)
        return extreme_card(legal, power, fclass, False)
    # the soloist draws trumps with the boss trump
    if soloist == seat and n_trumps > 0 and out_trumps != 0:
        top = extreme_card(trumps, power, fclass, True)  # the highest trump (of two copies, the lower index)
        if (unseen & above(top, sch, power, fclass, cmask)) == 0:
            return top
    # cash boss plain cards (aces while the suit still goes round)
    best = -1
    best_v = -1e18
    m = distinct(legal & ~cmask[TRUMP])
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        k = fclass[c]
        if (unseen & above(c, sch, power, fclass, cmask)) != 0 or (unseen & cmask[k]) == 0:
            continue
        if EYES[c] < 10 and cmask[TRUMP] != 0:
            continue
        p = survive(c, seat, threat, k, unseen, voids, view, sch, False)
        if p >= params[PI_ACE]:
            v = p * 100.0 + popcount(unseen & cmask[k])
            if v > best_v:
                best_v = v
                best = c
    if best >= 0:
        return best
    if soloist == seat and n_trumps > 0 and out_trumps != 0 and n_trumps >= popcount(out_trumps):
        # more trumps than all the others together: pull them with the lowest
        low = -1
        m = trumps
        while m:
            c = lowest_bit_index(m)
            m &= m - 1
            if low < 0 or power[c] < power[low]:
                low = c
        return low
    is_normal = pub[P_CONTRACT] == C_NORMAL and extras
    # Re shows itself with a QC when it holds trumps
    if is_normal and (hand & QC_MASK) != 0 and popcount(partners) == 0 and popcount(opps) < 3 \
            and n_trumps >= params[PI_SHOWQC]:
        return lowest_bit_index(hand & QC_MASK)
    # with the partner known: draw trumps with the boss trump
    if soloist < 0 and popcount(partners) > 0 and n_trumps >= params[PI_DRAW] and out_trumps != 0:
        top = extreme_card(trumps, power, fclass, True)  # the highest trump (of two copies, the lower index)
        if (unseen & above(top, sch, power, fclass, cmask)) == 0:
            return top
    # a suit a partner can trump
    if popcount(partners) > 0 and cmask[TRUMP] != 0:
        best = -1
        best_v = 1e18
        m = distinct(legal & ~cmask[TRUMP])
        while m:
            c = lowest_bit_index(m)
            m &= m - 1
            k = fclass[c]
            ok = False
            for s in range(4):
                if (partners >> s) & 1 and (voids >> (5 * s + k)) & 1 and not (voids >> (5 * s + TRUMP)) & 1:
                    ok = True
            if ok:
                v = EYES[c] + keep_value(c, unseen, sch, power, fclass, cmask)
                if v < best_v:
                    best_v = v
                    best = c
        if best >= 0 and best_v < 8:
            return best
    # otherwise the cheapest lead by the one-trick expectation
    best = -1
    best_v = -1e18
    m = distinct(legal)
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        v, p = lead_value(c, seat, view, sch, unseen, voids, threat, params)
        if v > best_v:
            best_v = v
            best = c
    return best


@inline_kernel
def card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    d = distinct(legal)
    if d & (d - 1) == 0:
        return lowest_bit_index(legal)
    played, voids, qc = scan_plays(pub, plays, play_seat, fclass)
    return choose_card(seat, hand, legal, View(pub, plays, play_seat, trick_winner, power, fclass, cmask), rules,
                       params, played, voids, qc)


@inline_kernel
def card_scanned(seat, hand, legal, view, rules, params, played, voids, qc):
    """``card`` at the position ``view`` (engine/position.py) given what cardcount.scan_plays would
    find in the cards so far (pimc's rollouts keep it up to date card by card instead of scanning
    every card at every decision)."""
    d = distinct(legal)
    if d & (d - 1) == 0:
        return lowest_bit_index(legal)
    return choose_card(seat, hand, legal, view, rules, params, played, voids, qc)


@inline_kernel  # inlined: a call passing its nine arrays cost a twelfth of the card decision
def choose_card(seat, hand, legal, view, rules, params, played, voids, qc):
    """The card for a seat with a real choice; (played, voids, qc) as cardcount.scan_plays gives them."""
    unseen = deck_cards(rules) & ~played & ~hand
    partners, opps = teams(seat, hand, view.pub, qc)
    if view.pub[P_NPLAYED] & 3 == 0:
        return lead_card(seat, hand, legal, view, params, unseen, voids, partners, opps)
    return follow_card(seat, legal, view, rules, params, unseen, voids, partners, opps)


# ---------------------------------------------------------------- calibration (Python)
