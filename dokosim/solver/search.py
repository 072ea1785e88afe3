"""The alpha-beta driver: ``search``, Re's eyes to come from the workspace's position, fail-soft,
with the table, the bounds, the last-tricks minimax and the move ordering (docs/solver.md)."""
import numpy as np

from ..engine.cards import EYES
from ..engine.bits import lowest_bit_index
from ..engine.jit import decision_kernel
from ..engine.layout import H_RE_MASK, P_CLARIFIED, P_HAND_SIZE, P_NPLAYED, P_TRICK, P_TURN, R_DULLE
from ..engine.play import best_offset, legal_mask
from .bounds import _eye_shift, _quick_eyes, _side_master_eyes, _sure_trump_eyes, _sure_trumps, _top_trump_holder
from .endgame import _three_tricks, _two_tricks
from .moves import (
    _beats, _equivalent_above, _partner_lead, _quasi_equivalent, _safe_lead, _trick_facts, _trick_fixed,
)
from .table import KEY_SLOTS, _bounds_of, _probe, _rank_key, _sim_index, _store
from .workspace import (
    INF, MAX_MOVES, S_ALL, S_ALL_MOVES, S_CUT, S_CUT_FIRST, S_CUT_IDX, S_DOMINATED, S_NODES, S_QUASI,
    S_QUICK_CUT, S_SIM_CUT, S_SIM_FOUND, S_TRIVIAL, S_TT_CUT, S_TT_FOUND, S_TT_PROBE, W_ABORTED, W_ATTR,
    W_ATTR_NE, W_GEN, W_HAND_EYES, W_HELD, W_HIST, W_LIMIT, W_LIVE, W_MOVES, W_NODES, W_SIM_MASK, W_THREE,
    W_VALS, _table_eyes, make_move, stat, undo_move, views,
)


@decision_kernel
def search(ws, tt, alpha, beta):
    """Re's eyes in the tricks still to be completed from the workspace's position (the trick on
    the table included), fail-soft: the exact value when it lies strictly between ``alpha`` and
    ``beta``, else a bound on the side of the window it fell (an upper bound <= alpha, a lower
    bound >= beta). The position is unchanged on return."""
    pos, rules = views(ws)
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
    ws[W_NODES] += 1
    if ws[W_LIMIT] > 0 and ws[W_NODES] > ws[W_LIMIT]:
        ws[W_ABORTED] = 1
        return 0
    n = st[P_NPLAYED]
    stat(ws, S_NODES, n, 1)
    k = n & 3
    tt_move = -1
    slot_i = -1
    key = np.int64(0)
    lo = 0
    hi = INF
    akey = np.int64(0)
    si = -1
    left = 4 * st[P_HAND_SIZE] - n
    if k == 0:
        if left == 0:
            return 0
        if left == 4:
            # the last trick: every card is forced
            if st[P_CLARIFIED]:
                # the parties are settled: the winner by the rules' best_offset, without play_card
                lead = st[P_TURN] & 3
                eyes = 0
                for j in range(4):
                    c = lowest_bit_index(hands[(lead + j) & 3])
                    plays[n + j] = c
                    eyes += EYES[c]
                w = (lead + best_offset(plays, n, 4, power, fclass, rules[R_DULLE], True)) & 3
                return eyes if (st[H_RE_MASK] >> w) & 1 else 0
            gain = 0
            for j in range(4):
                c = lowest_bit_index(hands[st[P_TURN] & 3])
                gain += make_move(ws, pos, rules, c)
            for j in range(4):
                undo_move(ws, st, hands, plays)
            return gain
    # Re takes between 0 and every eye still to come (the trick on the table included)
    to_come = ws[W_HAND_EYES] + _table_eyes(plays, n)
    if beta <= 0:
        stat(ws, S_TRIVIAL, n, 1)
        return 0
    if alpha >= to_come:
        stat(ws, S_TRIVIAL, n, 1)
        return to_come
    if k == 0:
        rem = to_come
        if left == 8 and st[P_CLARIFIED]:
            # the last two tricks: a plain minimax, cheaper than the table
            return _two_tricks(ws, n, st[P_TURN] & 3, st[H_RE_MASK], alpha, beta)
        stat(ws, S_TT_PROBE, n, 1)
        key = _rank_key(ws, ws[W_LIVE], W_ATTR) | (st[P_TURN] << 48) | (st[H_RE_MASK] << 50)
        slot_i, found = _probe(ws, tt, key, left)
        hi = rem
        if found:
            entry = tt[2 * slot_i + 1]
            lo = entry & 255
            hi = (entry >> 8) & 255
            tt_move = ((entry >> 16) & 127) - 1
            stat(ws, S_TT_FOUND, n, 1)
            stat(ws, S_TT_CUT, n, lo >= beta or hi <= alpha or lo == hi)
            if lo >= beta:
                return lo
            if hi <= alpha or lo == hi:
                return hi
            alpha = max(alpha, lo)
            beta = min(beta, hi)
        # quick tricks: the leader's side surely takes the eyes of its top trumps' tricks. Before
        # a marriage's clarification a trick won by a seat outside Re moves it to Re, so only
        # Re's lower bounds hold then (its tricks stay Re's).
        leader = st[P_TURN] & 3
        re_mask = st[H_RE_MASK]
        settled = st[P_CLARIFIED] != 0
        sure_slots = _sure_trumps(ws, leader, ws[W_LIVE])
        sure = max(_sure_trump_eyes(ws, leader, sure_slots), _quick_eyes(ws, leader, sure_slots))
        if (re_mask >> leader) & 1:
            if sure >= beta:
                stat(ws, S_QUICK_CUT, n, 1)
                return sure
        elif settled and rem - sure <= alpha:
            stat(ws, S_QUICK_CUT, n, 1)
            return rem - sure
        # later tricks: a trump of the side holding the top trump that ranks above every
        # opponent's trump (not tied with one) wins the trick it is played in, whoever leads
        # (its partner may only take the trick instead); a seat's masters are in distinct
        # tricks, and each other seat gives a card to each of those tricks
        holder = _top_trump_holder(ws, ws[W_LIVE])
        if holder >= 0 and (settled or (re_mask >> holder) & 1):
            later = _side_master_eyes(ws, holder, re_mask, ws[W_LIVE])
            if (re_mask >> holder) & 1:
                if later >= beta:
                    stat(ws, S_QUICK_CUT, n, 1)
                    return later
            elif rem - later <= alpha:
                stat(ws, S_QUICK_CUT, n, 1)
                return rem - later
        if ws[W_SIM_MASK] > 0:
            # payoff-similarity: a stored position with the same cards up to relative rank
            # but other eyes bounds this one's value within the eye differences
            akey = _rank_key(ws, ws[W_LIVE], W_ATTR_NE) | (st[P_TURN] << 48) | (st[H_RE_MASK] << 50)
            si = _sim_index(ws, akey)
            if ws[si] == akey and (ws[si + 2] >> 29) == ws[W_GEN]:
                dn, up = _eye_shift(ws, key & KEY_SLOTS, ws[si + 1])
                e = ws[si + 2]
                slo = (e & 255) - dn
                shi = ((e >> 8) & 255) + up
                stat(ws, S_SIM_FOUND, n, 1)
                stat(ws, S_SIM_CUT, n, slo >= beta or shi <= alpha)
                if slo >= beta:
                    return slo
                if shi <= alpha or slo >= shi:
                    return shi
                if slo > alpha:
                    alpha = slo
                if shi < beta:
                    beta = shi
        if left == 12 and settled and ws[W_THREE]:
            # the last three tricks: a plain minimax once the table has no answer
            best = _three_tricks(ws, n, leader, re_mask, alpha, beta)
            lo, hi = _bounds_of(best, alpha, beta, lo, hi)
            _store(ws, tt, slot_i, key, lo | (hi << 8) | ((tt_move + 1) << 16) | (12 << 23) | (ws[W_GEN] << 29),
                   si, akey)
            return best
    seat = st[P_TURN] & 3
    re_mask = st[H_RE_MASK]
    maxi = (re_mask >> seat) & 1 == 1
    legal = legal_mask(st, hands[seat], plays, fclass, cmask)
    mine = ws[W_HELD + seat]
    live = ws[W_LIVE]
    base = W_MOVES + MAX_MOVES * n
    hist = W_HIST + 48 * seat
    dulle = rules[R_DULLE]
    last = st[P_TRICK] == st[P_HAND_SIZE] - 1
    # the trick so far, for the move ordering
    facts = _trick_facts(ws, st, plays, play_seat, seat, power, fclass, dulle)
    top_card, threat1, threat2, partner_wins, safe_partner, partner_later, partner_can_beat = facts
    nm = 0
    m = legal
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        if _equivalent_above(ws, mine, live, c) >= 0:
            continue
        if k == 0:
            # the table's lead, then a card no opponent can beat, then by the history of cut-offs
            if c == tt_move:
                score = 1 << 20
            else:
                if _safe_lead(ws, c, seat, re_mask, power, fclass, dulle, last):
                    score = (1 << 19) + (EYES[c] << 14) + min(ws[hist + c], (1 << 14) - 1)
                elif _partner_lead(ws, c, seat, re_mask, power, fclass, dulle, last):
                    score = (1 << 18) + (EYES[c] << 13) + min(ws[hist + c], (1 << 13) - 1)
                else:
                    if fclass[c] == 4:
                        score = (1 << 17) + (power[c] << 8) + min(ws[hist + c], 255)
                    else:
                        score = min(ws[hist + c], (1 << 17) - 1)
        else:
            wins = _beats(c, top_card, power, fclass, dulle, last)
            safe = wins and not (_beats(threat1, c, power, fclass, dulle, last)
                                 or _beats(threat2, c, power, fclass, dulle, last))
            if partner_wins and safe_partner:
                # the partner's card holds: smear eyes, overtaking last
                score = (1 << 10) if wins else (2 << 10) + EYES[c]
            elif safe:
                # a card that takes the trick whatever the opponents after it play: the lowest
                # such first (the most eyes when the last to play)
                score = (3 << 10) + (64 + EYES[c] if k == 3 else 300 - power[c])
            elif wins:
                score = (2 << 10) + 300 - power[c]
            elif partner_later:
                score = (2 << 10) + 320 + EYES[c]
            else:
                score = (1 << 10) + 64 - EYES[c]
        v = score * 64 + c
        j = nm
        while j > 0 and ws[base + j - 1] < v:
            ws[base + j] = ws[base + j - 1]
            j -= 1
        ws[base + j] = v
        nm += 1
    best = -1 if maxi else INF
    best_move = -1
    a = alpha
    b = beta
    vals = W_VALS + MAX_MOVES * n
    settled_now = st[P_CLARIFIED] != 0
    for i in range(nm):
        c = ws[base + i] & 63
        # a card that plays like one searched before except for its eyes (no other seat's card
        # between them, in hand or on the table) is worth at most the difference more or less;
        # and no more than it when this trick surely goes to the mover's side (fixed 1) and it has
        # fewer eyes, or surely to the other side (fixed -1) and it has more: every line after it
        # maps to one after the other card, which gives the difference to the same side now and
        # keeps the card of the other eyes for a later trick
        skip = False
        fixed = 2  # not yet known
        for j in range(i):
            x = ws[base + j] & 63
            d = EYES[x] - EYES[c]
            vx = ws[vals + j]
            if d != 0 and settled_now and _quasi_equivalent(ws, mine, live, x, c):
                if fixed == 2:
                    fixed = _trick_fixed(ws, c, seat, re_mask, power, fclass, dulle, last, facts)
                if (fixed == 1 and d > 0) or (fixed == -1 and d < 0):
                    skip = True
                    v = vx
                    stat(ws, S_DOMINATED, n, 1)
                    break
            if d < 0:
                d = -d
            if (vx + d <= a if maxi else vx - d >= b) and _quasi_equivalent(ws, mine, live, x, c):
                skip = True
                v = vx + d if maxi else vx - d
                break
        if skip:
            ws[vals + i] = v
            stat(ws, S_QUASI, n, 1)
            if (maxi and v > best) or (not maxi and v < best):
                best = v
            continue
        gain = make_move(ws, pos, rules, c)
        v = gain + search(ws, tt, a - gain, b - gain)
        undo_move(ws, st, hands, plays)
        if ws[W_ABORTED]:
            return 0
        ws[vals + i] = v
        if maxi:
            if v > best:
                best = v
                best_move = c
                a = max(a, v)
        else:
            if v < best:
                best = v
                best_move = c
                b = min(b, v)
        if a >= b:
            ws[hist + c] += left * left
            stat(ws, S_CUT, n, 1)
            stat(ws, S_CUT_IDX, n, i)
            stat(ws, S_CUT_FIRST, n, i == 0)
            break
    stat(ws, S_ALL, n, a < b)
    stat(ws, S_ALL_MOVES, n, nm if a < b else 0)
    if k == 0:
        lo, hi = _bounds_of(best, alpha, beta, lo, hi)
        _store(ws, tt, slot_i, key,
               lo | (hi << 8) | ((best_move + 1) << 16) | (left << 23) | (ws[W_GEN] << 29),
               si, akey)
    return best
