"""Scoring a finished deal (RULES.md 1.6 and 1.7): winner, value items, extra points, score."""
import numpy as np

from .cards import CONTRACT_IS_SOLO, EYES, T_AD, T_JC
from .jit import decision_kernel, inline_kernel, kernel
from .layout import (
    H_CONTRACT, H_RE_MASK, H_SOLOIST, I_AGAINST_QUEENS, I_CHARLIE, I_DOPPELKOPF, I_FOX,
    I_KO_ANN, I_NO90_ANN, I_RE_ANN, I_REACHED_120, I_UNDER_90, I_WON, ITEM_WEIGHTS, N_ITEMS,
    P_CLARIFY_TRICK, P_DECLARER, P_FIRST_KO, P_FIRST_RE, P_HAND_SIZE, P_LEVEL_KO, P_LEVEL_RE, P_NPLAYED,
    RES_CLARIFY_TRICK, RES_COMPLETE, RES_CONTRACT, RES_DECLARER, RES_EYES_RE, RES_FIRST_KO,
    RES_FIRST_RE, RES_LEVEL_KO, RES_LEVEL_RE, RES_NPLAYED, RES_RE_MASK, RES_SCORE, RES_SOLOIST,
    RES_TRICKS_RE, RES_VALUE, RES_WINNER,
)

WEIGHTS = np.array(ITEM_WEIGHTS, dtype=np.int64)
# eyes the opponents must stay under for items under_90 .. under_30, and what
# a side must reach against the opponents' no 90 .. no 30 (schwarz: 30 too)
UNDER = np.array([90, 60, 30], dtype=np.int64)
REACH = np.array([120, 90, 60, 30], dtype=np.int64)
DENIAL_TARGET = np.array([151, 181, 211], dtype=np.int64)
AGAINST_DENIAL = np.array([90, 60, 30], dtype=np.int64)


@inline_kernel
def reaches_target(eyes, tricks, n_tricks, own, opp, is_re):
    """True when a side with ``eyes`` and ``tricks`` reaches its target (RULES.md 1.6)."""
    if own >= 2:
        if own == 5:
            return tricks == n_tricks
        return eyes >= DENIAL_TARGET[own - 2]
    if opp >= 2:
        if opp == 5:
            return tricks >= 1
        return eyes >= AGAINST_DENIAL[opp - 2]
    if is_re:
        need = 120 if (opp >= 1 and own == 0) else 121
    else:
        need = 121 if (own >= 1 and opp == 0) else 120
    return eyes >= need


@inline_kernel
def achievements(items, side, own_eyes, opp_eyes, opp_tricks, opp_level):
    """Items 2 and 5 of RULES.md 1.7 that ``side`` earned against the other side."""
    for i in range(3):
        if opp_eyes < UNDER[i]:
            items[side, I_UNDER_90 + i] += 1
    if opp_tricks == 0:
        items[side, I_UNDER_90 + 3] += 1
    for i in range(4):
        if opp_level >= 2 + i and own_eyes >= REACH[i]:
            items[side, I_REACHED_120 + i] += 1


@inline_kernel
def side_sum(items, side):
    total = 0
    for i in range(N_ITEMS):
        total += items[side, i] * WEIGHTS[i]
    return total


@inline_kernel
def settle(items, eyes_re, tricks_re, n_tricks, lv_re, lv_ko, is_solo):
    """The winner and the game value of RULES.md 1.6 and 1.7 from Re's eyes and tricks and the
    calls (``items`` holds the extra points already, row 0 Re): adds the game value items and
    returns (winner 0 Re / 1 Kontra / 2 none, value, Re's value). ``score_deal`` ends with it;
    ``strategies.pimc`` scores a double-dummy solve's eyes with it."""
    eyes_ko = 240 - eyes_re  # nines are worth nothing, so 240 holds without them too
    tricks_ko = n_tricks - tricks_re
    re_ok = reaches_target(eyes_re, tricks_re, n_tricks, lv_re, lv_ko, True)
    ko_ok = reaches_target(eyes_ko, tricks_ko, n_tricks, lv_ko, lv_re, False)
    achievements(items, 0, eyes_re, eyes_ko, tricks_ko, lv_ko)
    achievements(items, 1, eyes_ko, eyes_re, tricks_re, lv_re)
    if re_ok or ko_ok:
        w = 0 if re_ok else 1
        lo = 1 - w
        # the loser keeps only its extra points
        for i in range(I_UNDER_90, I_AGAINST_QUEENS):
            items[lo, i] = 0
        items[w, I_WON] = 1
        if lv_re >= 1:
            items[w, I_RE_ANN] += 1
        if lv_ko >= 1:
            items[w, I_KO_ANN] += 1
        for lv in range(2, 6):
            if lv_re >= lv:
                items[w, I_NO90_ANN + lv - 2] += 1
            if lv_ko >= lv:
                items[w, I_NO90_ANN + lv - 2] += 1
        if w == 1 and not is_solo:
            items[1, I_AGAINST_QUEENS] = 1
        value = side_sum(items, w) - side_sum(items, lo)
        re_value = value if w == 0 else -value
    else:
        w = 2
        re_value = side_sum(items, 0) - side_sum(items, 1)
        value = re_value
    return w, value, re_value


@inline_kernel
def tally_trick(st, plays, play_seat, trick_winner, items, t):
    """Add trick ``t``'s extra points (fox caught, doppelkopf) to ``items`` (2 x N_ITEMS, row 0
    Re), by the parties of ``st``; returns (its eyes if Re won it else 0, 1 if Re won it else 0)."""
    re_mask = st[H_RE_MASK]
    is_solo = CONTRACT_IS_SOLO[st[H_CONTRACT]] == 1
    w_side = 0 if (re_mask >> trick_winner[t]) & 1 else 1
    eyes = 0
    for k in range(4 * t, 4 * t + 4):
        c = plays[k]
        eyes += EYES[c]
        if not is_solo and (c >> 1) == T_AD:
            fox_side = 0 if (re_mask >> play_seat[k]) & 1 else 1
            if fox_side != w_side:
                items[w_side, I_FOX] += 1
    if not is_solo and eyes >= 40:
        items[w_side, I_DOPPELKOPF] += 1
    return (eyes, 1) if w_side == 0 else (0, 0)


@inline_kernel
def tally_tricks(st, plays, play_seat, trick_winner, items, count):
    """The extra points of tricks 0 .. count-1 into ``items`` (zeroed first, ``tally_trick``);
    returns (Re's eyes, Re's tricks) in them. ``tally_deal`` for a complete deal; a search for
    the tricks taken so far."""
    for s in range(2):
        for i in range(N_ITEMS):
            items[s, i] = 0
    eyes_re = 0
    tricks_re = 0
    for t in range(count):
        e, won = tally_trick(st, plays, play_seat, trick_winner, items, t)
        eyes_re += e
        tricks_re += won
    return eyes_re, tricks_re


@inline_kernel
def tally_deal(st, plays, play_seat, trick_winner, items):
    """The items of a complete deal into ``items`` (2 x N_ITEMS, row 0 Re), and (winner 0 Re /
    1 Kontra / 2 none, value, Re's value, Re's eyes, Re's tricks): ``score_deal`` without
    writing ``res``, inlined where a search scores its leaves (``solver.score``)."""
    n_tricks = st[P_HAND_SIZE]
    re_mask = st[H_RE_MASK]
    is_solo = CONTRACT_IS_SOLO[st[H_CONTRACT]] == 1
    eyes_re, tricks_re = tally_tricks(st, plays, play_seat, trick_winner, items, n_tricks)
    if not is_solo:
        last = 4 * (n_tricks - 1)
        # the winning card of the last trick is the one its winner played
        for k in range(last, last + 4):
            if play_seat[k] == trick_winner[n_tricks - 1] and (plays[k] >> 1) == T_JC:
                items[0 if (re_mask >> play_seat[k]) & 1 else 1, I_CHARLIE] += 1
    w, value, re_value = settle(items, eyes_re, tricks_re, n_tricks, st[P_LEVEL_RE], st[P_LEVEL_KO], is_solo)
    return w, value, re_value, eyes_re, tricks_re


@decision_kernel
def score_deal(st, plays, play_seat, trick_winner, items, res):
    """Score a complete deal into ``items`` (2 x N_ITEMS, row 0 Re) and ``res``."""
    w, value, re_value, eyes_re, tricks_re = tally_deal(st, plays, play_seat, trick_winner, items)
    re_mask = st[H_RE_MASK]
    soloist = st[H_SOLOIST]
    for s in range(4):
        if soloist >= 0:
            if s == soloist:
                res[RES_SCORE + s] = 3 * re_value
            else:
                res[RES_SCORE + s] = -re_value
        elif (re_mask >> s) & 1:
            res[RES_SCORE + s] = re_value
        else:
            res[RES_SCORE + s] = -re_value
    res[RES_EYES_RE] = eyes_re
    res[RES_TRICKS_RE] = tricks_re
    res[RES_WINNER] = w
    res[RES_VALUE] = value
    res[RES_COMPLETE] = 1


@kernel
def describe_state(st, res):
    """Copy the contract, parties and calls of ``st`` into ``res`` (complete or not)."""
    res[RES_CONTRACT] = st[H_CONTRACT]
    res[RES_SOLOIST] = st[H_SOLOIST]
    res[RES_DECLARER] = st[P_DECLARER]
    res[RES_RE_MASK] = st[H_RE_MASK]
    res[RES_CLARIFY_TRICK] = st[P_CLARIFY_TRICK]
    res[RES_LEVEL_RE] = st[P_LEVEL_RE]
    res[RES_LEVEL_KO] = st[P_LEVEL_KO]
    res[RES_FIRST_RE] = st[P_FIRST_RE]
    res[RES_FIRST_KO] = st[P_FIRST_KO]
    res[RES_NPLAYED] = st[P_NPLAYED]
