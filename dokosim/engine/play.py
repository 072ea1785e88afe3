"""Playing a deal: contract set-up, legal cards, tricks, parties, announcements.

Every function works on the arrays of a position (engine/position.py; layouts in ``layout.py``,
card encoding in ``cards.py``), ``play_card`` on the position as one value:

* ``st``: the game state; ``hands``: int64 masks of the cards each seat still holds;
* ``plays`` / ``play_seat``: card and seat of each card put on the table, in order;
* ``trick_winner``: seat that won each finished trick;
* ``power`` / ``fclass`` / ``cmask``: this deal's ranking tables (a row of the
  scheme tables in ``cards.py``, adjusted by house rules).
"""
import numpy as np

from .cards import (
    C_MARRIAGE, C_MARRIAGE_SOLO, C_NORMAL, C_POVERTY, C_SILENT_MARRIAGE, C_SOLO_BASE, CLASS_MASK,
    FOLLOW_CLASS, POWER, SCHEME_NORMAL, SOLO_SCHEME, T_9D, T_AD, T_KD, T_QC, T_TH, TRUMP,
)
from .bits import lowest_bit_index, popcount
from .jit import inline_kernel
from .layout import (
    E_BEFORE_CLARIFICATION, E_FOLLOW_SUIT, E_LATE_REPLY, E_NO_RAISE, E_NOT_IN_HAND, E_OK,
    E_TOO_LATE, E_WRONG_SIDE, H_CONTRACT, H_LED_MASK, H_RE_MASK, H_SOLOIST, H_TABLES, P_BAR_RE,
    P_CLARIFIED, P_CLARIFY_TRICK, P_COMPULSORY, P_CONTRACT, P_DEALER, P_DECLARER, P_FIRST_KO,
    P_FIRST_RE, P_HAND_SIZE, P_KNOWN_KO, P_KNOWN_RE, P_LEADER, P_LEVEL_KO, P_LEVEL_RE,
    P_MARRIAGE_SEAT, P_NPLAYED, P_PIGLETS, P_POVERTY_PARTNER, P_POVERTY_SEAT, P_POVERTY_TRUMPS,
    P_SCHEME, P_SHIFT, P_SOLOIST, P_SUPERPIGLETS, P_TRICK, P_TURN, R_DULLE, R_NO_NINES, R_PIGLETS,
    R_SUPERPIGLETS, ST_LEN,
)

QC_MASK = np.int64(3) << np.int64(2 * T_QC)
TH_MASK = np.int64(3) << np.int64(2 * T_TH)
ALL_SEATS = np.int64(15)


@inline_kernel
def contract_scheme(contract):
    """Trump scheme of a contract code."""
    if contract >= C_SOLO_BASE:
        return SOLO_SCHEME[contract - C_SOLO_BASE]
    return SCHEME_NORMAL


@inline_kernel
def qc_holder_mask(hands):
    """Mask of seats holding a queen of clubs."""
    m = np.int64(0)
    for s in range(4):
        if hands[s] & QC_MASK:
            m |= np.int64(1) << s
    return m


@inline_kernel
def both_qc_seat(hands):
    """Seat holding both queens of clubs, or -1."""
    for s in range(4):
        if (hands[s] & QC_MASK) == QC_MASK:
            return s
    return -1


@inline_kernel
def setup_deal(st, hands, dealer, contract, declarer, compulsory, power, fclass, cmask):
    """Initialise st and this deal's tables for a contract decided by the reservations.

    ``contract`` is C_NORMAL (becomes a silent marriage when one seat holds both
    QC), C_MARRIAGE (declarer holds both QC) or a solo code.
    """
    tables = st[H_TABLES]
    for i in range(ST_LEN):
        st[i] = 0
    scheme = contract_scheme(contract)
    if tables != scheme + 1:  # the scratch tables still hold the last deal's scheme otherwise
        for c in range(48):
            power[c] = POWER[scheme, c]
            fclass[c] = FOLLOW_CLASS[scheme, c]
        for k in range(5):
            cmask[k] = CLASS_MASK[scheme, k]
    st[H_TABLES] = scheme + 1
    hand_size = popcount(hands[0])
    for s in range(1, 4):
        if popcount(hands[s]) > hand_size:
            hand_size = popcount(hands[s])
    st[P_HAND_SIZE] = hand_size
    st[P_SCHEME] = scheme
    st[P_DEALER] = dealer
    st[P_DECLARER] = -1
    st[P_SOLOIST] = -1
    st[H_SOLOIST] = -1
    st[P_MARRIAGE_SEAT] = -1
    st[P_PIGLETS] = -1
    st[P_SUPERPIGLETS] = -1
    st[P_POVERTY_SEAT] = -1
    st[P_POVERTY_PARTNER] = -1
    st[P_FIRST_RE] = -1
    st[P_FIRST_KO] = -1
    st[P_CLARIFIED] = 1
    first = (dealer + 1) % 4
    if contract == C_NORMAL:
        alone = both_qc_seat(hands)
        st[P_CONTRACT] = C_NORMAL
        if alone >= 0:
            st[H_CONTRACT] = C_SILENT_MARRIAGE
            st[H_SOLOIST] = alone
            st[H_RE_MASK] = np.int64(1) << alone
        else:
            st[H_CONTRACT] = C_NORMAL
            st[H_RE_MASK] = qc_holder_mask(hands)
    elif contract == C_POVERTY:  # parties are set by setup_poverty
        st[P_CONTRACT] = C_POVERTY
        st[H_CONTRACT] = C_POVERTY
        st[P_DECLARER] = declarer
        st[P_POVERTY_SEAT] = declarer
    elif contract == C_MARRIAGE:
        st[P_CONTRACT] = C_MARRIAGE
        st[H_CONTRACT] = C_MARRIAGE
        st[P_DECLARER] = declarer
        st[P_MARRIAGE_SEAT] = declarer
        st[H_RE_MASK] = np.int64(1) << declarer
        st[P_KNOWN_RE] = np.int64(1) << declarer
        st[P_CLARIFIED] = 0
    else:  # a solo
        st[P_CONTRACT] = contract
        st[H_CONTRACT] = contract
        st[P_DECLARER] = declarer
        st[P_SOLOIST] = declarer
        st[H_SOLOIST] = declarer
        st[H_RE_MASK] = np.int64(1) << declarer
        st[P_KNOWN_RE] = np.int64(1) << declarer
        st[P_KNOWN_KO] = ALL_SEATS ^ (np.int64(1) << declarer)
        if compulsory:
            st[P_COMPULSORY] = 1
            first = declarer
    st[P_LEADER] = first
    st[P_TURN] = first


AD_PAIR = np.int64(3) << np.int64(2 * T_AD)
NINE_D_PAIR = np.int64(3) << np.int64(2 * T_9D)
KING_D_PAIR = np.int64(3) << np.int64(2 * T_KD)
PIGLET_POWER = 202        # above TH (200)
SUPERPIGLET_POWER = 204


@inline_kernel
def setup_poverty(st, poor, partner, trumps_returned):
    """Parties of a poverty (after setup_deal with C_POVERTY): the poor player and the acceptor."""
    st[P_POVERTY_PARTNER] = partner
    st[P_POVERTY_TRUMPS] = trumps_returned
    st[H_RE_MASK] = (np.int64(1) << poor) | (np.int64(1) << partner)
    st[P_KNOWN_RE] = st[H_RE_MASK]
    st[P_KNOWN_KO] = ALL_SEATS ^ st[H_RE_MASK]


@inline_kernel
def apply_piglets(st, hands, rules, power):
    """House rules schweinchen / superschweinchen: raise both AD (and both 9D, or KD without
    nines) above TH for a seat holding the pair, where the diamonds are trumps. Call after
    setup_deal (and a poverty's exchange), with the hands as they will be played."""
    if not rules[R_PIGLETS] or st[P_SCHEME] != SCHEME_NORMAL:
        return
    for s in range(4):
        if (hands[s] & AD_PAIR) == AD_PAIR:
            st[P_PIGLETS] = s
    if st[P_PIGLETS] < 0:
        return
    power[2 * T_AD] = PIGLET_POWER
    power[2 * T_AD + 1] = PIGLET_POWER
    st[H_TABLES] = 0  # the tables no longer hold the plain scheme
    if rules[R_SUPERPIGLETS]:
        pair = KING_D_PAIR if rules[R_NO_NINES] else NINE_D_PAIR
        for s in range(4):
            if (hands[s] & pair) == pair:
                st[P_SUPERPIGLETS] = s
                low = lowest_bit_index(pair)
                power[low] = SUPERPIGLET_POWER
                power[low + 1] = SUPERPIGLET_POWER


@inline_kernel
def legal_mask(st, hand, plays, fclass, cmask):
    """Cards of ``hand`` that may be played now.

    The led card's class comes from st[H_LED_MASK], which play_card sets at each lead
    (one load instead of three dependent ones: a tenth of random play's time);
    ``plays``, ``fclass`` and ``cmask`` stay in the signature for callers' stability.
    """
    n = st[P_NPLAYED]
    if n & 3 == 0:
        return hand
    follow = hand & st[H_LED_MASK]
    if follow:
        return follow
    return hand


@inline_kernel
def card_error(st, hands, seat, card, plays, fclass, cmask):
    """E_OK if ``seat`` may play ``card`` now, else E_NOT_IN_HAND or E_FOLLOW_SUIT."""
    bit = np.int64(1) << card
    if not (hands[seat] & bit):
        # the other copy may be the one held
        other = np.int64(1) << (card ^ 1)
        if not (hands[seat] & other):
            return E_NOT_IN_HAND
        bit = other
    if not (legal_mask(st, hands[seat], plays, fclass, cmask) & bit):
        return E_FOLLOW_SUIT
    return E_OK


@inline_kernel
def card_beats(x, y, power, fclass, dulle, last_trick):
    """Whether card ``x``, played after ``y`` in a trick that ``y`` is winning so far, takes
    it: a trump beats a plain card and a lower trump, a plain card only a lower one of its own
    class (``y``, winning, is a trump or of the class led); equal cards go to the first, except
    that under the house rule the second Dulle beats the first (mode 2: not in the last trick)."""
    kx = fclass[x]
    if kx == TRUMP:
        if fclass[y] != TRUMP or power[x] > power[y]:
            return True
        return dulle != 0 and (x >> 1) == T_TH and (y >> 1) == T_TH and (dulle == 1 or not last_trick)
    return kx == fclass[y] and power[x] > power[y]


@inline_kernel
def best_offset(plays, start, count, power, fclass, dulle, last_trick):
    """Offset (0..count-1) of the card winning so far among ``count`` cards from plays[start]."""
    best = 0
    best_card = plays[start] & 63  # "& 63" (cards are 0..47): see play_card
    for i in range(1, count):
        c = plays[start + i] & 63
        if card_beats(c, best_card, power, fclass, dulle, last_trick):
            best = i
            best_card = c
    return best


@inline_kernel
def reveal(st, seat, is_re):
    """Record that the table now knows seat's party."""
    bit = np.int64(1) << seat
    if is_re:
        st[P_KNOWN_RE] |= bit
    else:
        st[P_KNOWN_KO] |= bit
    # two Re seats known in a normal game: the others are Kontra
    if st[P_CLARIFIED] and popcount(st[P_KNOWN_RE]) == 2:
        st[P_KNOWN_KO] = ALL_SEATS ^ st[P_KNOWN_RE]


@inline_kernel
def play_card(pos, card, rules):
    """Put ``card`` (held by the seat to move, already checked) on the table of position ``pos``.

    Returns the physical card actually taken from the hand (the copy held).
    Completes the trick when it is the fourth card: winner, next leader and the
    marriage's clarification.
    """
    # "& 3", "& 63", "& 15", "& 7": provably valid indices (each value is already in range), so
    # numba drops its negative-index fix-up, a compare and a select on the path of every card
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
    seat = st[P_TURN] & 3
    if not (hands[seat] & (np.int64(1) << card)):
        card ^= 1
    hands[seat] ^= np.int64(1) << card
    n = st[P_NPLAYED] & 63
    plays[n] = card
    play_seat[n] = seat
    n += 1
    st[P_NPLAYED] = n
    if (card >> 1) == T_QC and st[P_CONTRACT] == C_NORMAL:
        reveal(st, seat, True)
    if n & 3 != 0:
        if n & 3 == 1:
            st[H_LED_MASK] = cmask[fclass[card] & 7]
        st[P_TURN] = (seat + 1) & 3
        return card
    trick = st[P_TRICK] & 15
    start = (n - 4) & 63
    last = trick == st[P_HAND_SIZE] - 1
    winner = play_seat[start + best_offset(plays, start, 4, power, fclass, rules[R_DULLE], last)]
    trick_winner[trick] = winner
    st[P_TRICK] = trick + 1
    st[P_LEADER] = winner
    st[P_TURN] = winner
    if st[P_CLARIFIED] == 0:
        marriage = st[P_MARRIAGE_SEAT]
        if winner != marriage:
            st[H_RE_MASK] |= np.int64(1) << winner
            st[P_CLARIFIED] = 1
            st[P_CLARIFY_TRICK] = trick + 1
            st[P_SHIFT] = trick
            st[P_KNOWN_RE] = st[H_RE_MASK]
            st[P_KNOWN_KO] = ALL_SEATS ^ st[H_RE_MASK]
        elif trick == 2:
            st[P_CLARIFIED] = 1
            st[P_CLARIFY_TRICK] = 3
            st[P_SHIFT] = 2
            st[P_CONTRACT] = C_MARRIAGE_SOLO
            st[H_CONTRACT] = C_MARRIAGE_SOLO
            st[P_SOLOIST] = marriage
            st[H_SOLOIST] = marriage
            st[P_KNOWN_KO] = ALL_SEATS ^ st[H_RE_MASK]
    return card


@inline_kernel
def seat_is_re(st, seat):
    return (st[H_RE_MASK] >> seat) & 1 == 1


@inline_kernel
def call_limit(st, level):
    """Fewest cards the caller must hold to make a call of ``level`` as a first call."""
    return st[P_HAND_SIZE] - level - st[P_SHIFT]


@inline_kernel
def call_error(st, hands, seat, level, named_side):
    """E_OK if ``seat`` may raise its side to ``level`` now, else the error kind.

    ``named_side``: 0 when the call was spoken as "re", 1 as "kontra", -1 for a
    denial (whose side is the caller's). Checks in GAME_RECORD.md order:
    wrong side, before clarification, no raise, too late, barred by a late reply.
    """
    marriage_open = st[P_CLARIFIED] == 0
    if marriage_open and seat != st[P_MARRIAGE_SEAT]:
        return E_BEFORE_CLARIFICATION
    side = 0 if seat_is_re(st, seat) else 1
    if named_side >= 0 and named_side != side:
        return E_WRONG_SIDE
    if marriage_open:
        return E_BEFORE_CLARIFICATION
    own = st[P_LEVEL_RE + side]
    opp = st[P_LEVEL_KO - side]
    if level <= own:
        return E_NO_RAISE
    held = popcount(hands[seat])
    for lv in range(own + 1, level + 1):
        limit = call_limit(st, lv)
        if lv == 1 and opp > 0:
            reply_limit = call_limit(st, opp) - 1
            if reply_limit < limit:
                limit = reply_limit
        if held < limit:
            return E_TOO_LATE
    if level >= 2:
        if st[P_BAR_RE + side]:
            return E_LATE_REPLY
        if own == 0 and opp > 0 and held < call_limit(st, 1):
            return E_LATE_REPLY
    return E_OK


@inline_kernel
def legal_calls(st, hands, seat):
    """Bit mask of the levels (1..5) ``seat`` may call now (bit L set = level L allowed).

    The fast form of asking ``call_error`` for each level (a test checks they
    agree): limits fall as levels rise, so once the lowest new level is in
    time, every higher level is too, except that a reply's lenient limit
    covers only Re/Kontra itself and a late reply bars all denials.
    """
    if st[P_CLARIFIED] == 0:
        return np.int64(0)
    side = 0 if seat_is_re(st, seat) else 1
    own = st[P_LEVEL_RE + side]
    opp = st[P_LEVEL_KO - side]
    if own >= 5:
        return np.int64(0)
    held = popcount(hands[seat])
    m = np.int64(0)
    lowest_denial = own + 1
    if own == 0:
        limit = call_limit(st, 1)
        if opp > 0 and call_limit(st, opp) - 1 < limit:
            limit = call_limit(st, opp) - 1
        if held < limit:
            return m
        m |= 2
        if opp > 0 and held < call_limit(st, 1):
            return m  # a late reply: no denials
        lowest_denial = 2
    if st[P_BAR_RE + side] or held < call_limit(st, lowest_denial):
        return m
    for lv in range(lowest_denial, 6):
        m |= np.int64(1) << lv
    return m


@inline_kernel
def make_call(st, hands, seat, level):
    """Raise seat's side to ``level`` (already checked)."""
    is_re = seat_is_re(st, seat)
    side = 0 if is_re else 1
    opp = st[P_LEVEL_KO - side]
    if st[P_LEVEL_RE + side] == 0:
        st[P_FIRST_RE + side] = st[P_NPLAYED]
        if opp > 0 and popcount(hands[seat]) < call_limit(st, 1):
            st[P_BAR_RE + side] = 1
    st[P_LEVEL_RE + side] = level
    reveal(st, seat, is_re)
