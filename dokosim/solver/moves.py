"""Move generation for the search: equivalent and quasi-equivalent cards, and the facts of the
trick in play (by each seat's strongest answer) that order the moves and fix a trick's side."""
import numpy as np

from ..engine.cards import EYES
from ..engine.bits import lowest_bit_index
from ..engine.jit import inline_kernel
from ..engine.layout import H_RE_MASK, P_HAND_SIZE, P_NPLAYED, P_TRICK
from ..engine.play import best_offset, card_beats
from .workspace import W_CARD, W_CLASS, W_CLASSES, W_HELD, W_SLOT, W_TIE, _highest_bit_index


@inline_kernel
def _equivalent_above(ws, mine, live, c):
    """The next stronger card of the seat holding ``c`` that plays exactly like ``c`` (same class
    and eyes, no card of another seat between them or tied with either, in hand or on the
    table), or -1."""
    s = ws[W_SLOT + c] & 63
    above = live & ws[W_CLASS + s] & ~((np.int64(2) << s) - 1)
    if above == 0:
        return -1
    p = lowest_bit_index(above) & 63
    if not (mine >> p) & 1:
        return -1
    d = ws[W_CARD + p]
    if EYES[d] != EYES[c]:
        return -1
    if (ws[W_TIE + p] & live & ~mine) != 0 or (ws[W_TIE + s] & live & ~mine) != 0:
        return -1
    return d


@inline_kernel
def _class_tops(ws, mine, live, legal):
    """The cards of ``legal`` (of the seat holding ``mine``) with no card above them that plays
    exactly like them (``_equivalent_above``): one card of each class of equivalent cards."""
    tops = np.int64(0)
    m = legal
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        if _equivalent_above(ws, mine, live, c) < 0:
            tops |= np.int64(1) << c
    return tops


@inline_kernel
def _beats(x, y, power, fclass, dulle, last):
    """Whether card ``x`` played after card ``y`` beats it (``y`` winning the trick so far; the
    rules' ``card_beats``); False when ``x`` is -1."""
    if x < 0:
        return False
    return card_beats(x & 63, y & 63, power, fclass, dulle, last)


@inline_kernel
def _strongest_answer(ws, s, cls):
    """The strongest card seat ``s`` may play to a trick of class-slots ``cls``: its highest card
    of the class, or when void its highest trump; -1 when it holds neither."""
    held = ws[W_HELD + s]
    answers = held & cls
    if answers == 0:
        answers = held & ws[W_CLASSES + 4]
    if answers == 0:
        return -1
    return ws[W_CARD + _highest_bit_index(answers)]


@inline_kernel
def _no_opponent_beats(ws, card, cls, seat, re_mask, power, fclass, dulle, last):
    """Whether no opponent of ``seat``'s side beats ``card`` with its strongest answer to a trick
    of class-slots ``cls``."""
    side = (re_mask >> seat) & 1
    for j in range(1, 4):
        s = (seat + j) & 3
        if ((re_mask >> s) & 1) != side and _beats(_strongest_answer(ws, s, cls), card, power,
                                                   fclass, dulle, last):
            return False
    return True


@inline_kernel
def _safe_lead(ws, c, seat, re_mask, power, fclass, dulle, last):
    """Whether card ``c`` led by ``seat`` wins the trick whatever the opponents play (each
    opponent's strongest answer: the highest card of the suit led, or when void the highest
    trump, does not beat it)."""
    return _no_opponent_beats(ws, c, ws[W_CLASSES + fclass[c]], seat, re_mask, power, fclass, dulle, last)


@inline_kernel
def _partner_lead(ws, c, seat, re_mask, power, fclass, dulle, last):
    """Whether a partner of ``seat`` has an answer to the lead ``c`` (its strongest: the highest
    card of the suit led, or when void its highest trump) that beats ``c`` and that no opponent's
    strongest answer beats (for the move ordering only: the seats' order in the trick is not
    considered)."""
    cls = ws[W_CLASSES + fclass[c]]
    side = (re_mask >> seat) & 1
    for j in range(1, 4):
        p = (seat + j) & 3
        if ((re_mask >> p) & 1) != side:
            continue
        pc = _strongest_answer(ws, p, cls)
        if _beats(pc, c, power, fclass, dulle, last) and \
                _no_opponent_beats(ws, pc, cls, seat, re_mask, power, fclass, dulle, last):
            return True
    return False


@inline_kernel
def _trick_fixed(ws, c, seat, re_mask, power, fclass, dulle, last, facts):
    """1 when the trick in play surely goes to the side of ``seat`` if it plays ``c`` now, -1 when
    surely to the other side, 0 when the seats after it decide (``facts``: the trick's facts as
    ``_trick_facts`` finds them: its winning card (-1 at a trick boundary), the opponents'
    strongest answers still to come, whether a partner's winning card is safe, whether a partner
    still to play can beat the trick). By each seat's strongest answer, as the move ordering
    judges them."""
    top_card, threat1, threat2, partner_wins, safe_partner, _, partner_can_beat = facts
    if top_card < 0:
        return 1 if _safe_lead(ws, c, seat, re_mask, power, fclass, dulle, last) else 0
    if _beats(c, top_card, power, fclass, dulle, last):
        if not (_beats(threat1, c, power, fclass, dulle, last) or _beats(threat2, c, power, fclass, dulle, last)):
            return 1
        return 0
    if partner_wins:
        return 1 if safe_partner else 0
    return 0 if partner_can_beat else -1


@inline_kernel
def _quasi_equivalent(ws, mine, live, x, y):
    """Whether cards ``x`` and ``y`` of the seat holding ``mine`` play alike but for their eyes:
    the same class, and no other seat holds, or has on the table, a card of the class ranking
    between them or tied with either. Then every line of play after one maps to a line after
    the other with the same trick winners, so the two values differ by at most the difference
    of their eyes (the trick each goes to changes by that much)."""
    sx = ws[W_SLOT + x]
    sy = ws[W_SLOT + y]
    cls = ws[W_CLASS + sx]
    if (cls >> sy) & 1 == 0:
        return False
    lo = min(sx, sy)
    hi = max(sx, sy)
    between = ((np.int64(1) << hi) - 1) & ~((np.int64(2) << lo) - 1)
    others = live & ~mine
    return (others & cls & between) == 0 and ((ws[W_TIE + sx] | ws[W_TIE + sy]) & others) == 0



@inline_kernel
def _options(legal):
    """The cards of ``legal`` with one copy of each card type held twice (they play alike)."""
    return legal & ~((legal & 0x555555555555) << 1)



@inline_kernel
def _trick_facts(ws, st, plays, play_seat, seat, power, fclass, dulle):
    """What the move ordering and ``_trick_fixed`` know of the trick in play when ``seat`` is to
    move (none at a trick boundary): (its winning card, the strongest answers of the opponents
    still to play (-1 none), whether a partner's card wins it, whether that card is safe from
    those answers, whether a partner still to play beats the trick and every opponent's answer,
    whether a partner still to play can beat the trick), by each seat's strongest answer."""
    n = st[P_NPLAYED]
    k = n & 3
    start = n - k
    re_mask = st[H_RE_MASK]
    last = st[P_TRICK] == st[P_HAND_SIZE] - 1
    partner_wins = False
    safe_partner = False
    partner_later = False
    partner_can_beat = False
    threat1 = -1
    threat2 = -1
    top_card = -1
    if k > 0:
        o = best_offset(plays, start, k, power, fclass, dulle, last)
        w = play_seat[start + o]
        partner_wins = ((re_mask >> w) & 1) == ((re_mask >> seat) & 1)
        top_card = plays[start + o]
        # the strongest card each opponent still to play in this trick may play
        led_slots = ws[W_CLASSES + fclass[plays[start]]]
        for j in range(1, 4 - k):
            s = (seat + j) & 3
            if ((re_mask >> s) & 1) == ((re_mask >> seat) & 1):
                continue
            t = _strongest_answer(ws, s, led_slots)
            if t < 0:
                continue
            if threat1 < 0:
                threat1 = t
            else:
                threat2 = t
        if partner_wins:
            safe_partner = not (_beats(threat1, top_card, power, fclass, dulle, last)
                                or _beats(threat2, top_card, power, fclass, dulle, last))
        else:
            for j in range(1, 4 - k):
                s = (seat + j) & 3
                if ((re_mask >> s) & 1) == ((re_mask >> seat) & 1) and \
                        _beats(_strongest_answer(ws, s, led_slots), top_card, power, fclass, dulle, last):
                    partner_can_beat = True
            # a partner still to play whose strongest card beats the trick's and no opponent's
            # strongest card (order in the trick not considered): smear on it
            for j in range(1, 4 - k):
                s = (seat + j) & 3
                if ((re_mask >> s) & 1) != ((re_mask >> seat) & 1):
                    continue
                pc = _strongest_answer(ws, s, led_slots)
                if (_beats(pc, top_card, power, fclass, dulle, last)
                        and not _beats(threat1, pc, power, fclass, dulle, last)
                        and not _beats(threat2, pc, power, fclass, dulle, last)):
                    partner_later = True
    return top_card, threat1, threat2, partner_wins, safe_partner, partner_later, partner_can_beat
