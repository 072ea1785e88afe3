"""A deal as a sequence of decisions: the kernels behind ``dokosim.Game`` (docs/game.md).

The whole state of one deal is one int64 array ``g`` (the views below: the deal loop's
arrays ``st``, ``hands``, ``plays``, ... and the stepping fields ``G_*``) and the deal's
random stream ``rng`` (uint64, the stream the deal loop seeds from (seed, deal_id,
attempt)). Every rule is the engine's: dealing (deal.py), reservations, the poverty's
exchange checks, legal cards and calls, tricks and scoring (play.py, scoring.py); these
kernels only decide whose decision comes next and which actions it has.

Action ids (one fixed space, ``N_ACTIONS``; the legal ones are bits of ``g[G_LEGAL]``):
0..23 a card kind (6 * suit + rank, cards.py), 24 + c the reservation choice c
(layout.RES_*: healthy, the seven solos, marriage, poverty, throw-in), 35 re, 36 kontra,
37 no90, 38 no60, 39 no30, 40 schwarz, 41 pass, 42 accept (a poverty).
"""
import numpy as np

from .cards import C_MARRIAGE, C_NORMAL, C_POVERTY, C_SOLO_BASE, EYES, FOLLOW_CLASS, N_CONTRACTS, POWER
from .bits import bytes_of_bits, bytes_of_pairs, popcount, store_u64
from .deal import NORMAL_TRUMPS, deal_hands, exchange_cards, reservation_options, resolve_reservations
from .jit import decision_kernel, inline_kernel
from .layout import (
    H_RE_MASK, H_TABLES, N_ITEMS, P_CLARIFIED, P_CONTRACT, P_DEALER, P_HAND_SIZE, P_KNOWN_KO, P_KNOWN_RE,
    P_LEADER, P_LEVEL_KO, P_LEVEL_RE, P_NPLAYED, P_POVERTY_SEAT, P_SCHEME, P_SHIFT, P_TRICK, P_TURN,
    PUBLIC_LEN, R_LEN, R_NO_NINES, REDEAL, RES_LEN, ST_LEN,
)
from .play import (
    QC_MASK, apply_piglets, call_error, card_error, legal_calls, legal_mask, make_call, play_card,
    seat_is_re, setup_deal, setup_poverty,
)
from .position import Position
from .rng import seed_stream
from .scoring import score_deal
from .stack import stack_zeros

# ---- actions
A_CARD = 0          # + card kind 0..23
A_RESERVE = 24      # + reservation choice 0..10
A_RE, A_KONTRA, A_NO90, A_NO60, A_NO30, A_SCHWARZ = 35, 36, 37, 38, 39, 40
A_PASS = 41
A_ACCEPT = 42
N_ACTIONS = 43

# ---- phases
PH_RESERVATION, PH_POVERTY, PH_CALL, PH_CARD, PH_TERMINAL = range(5)
# poverty steps
PV_PASS, PV_ACCEPT, PV_RETURN = range(3)

MAX_REDEALS = 100      # as the deal loop (loop/dealing.MAX_REDEALS)
MAX_CALLS = 16         # a deal has at most 10 calls (each raises a side's level)

# ---- the layout of g: what every step reads first (the stepping fields, the state, the hands, the
# cards so far), so that a VectorGame row's step touches few cache lines; the rest after
(G_PHASE, G_PLAYER, G_LEGAL, G_N_ACTIONS, G_CALLS_ON, G_CALL_MOMENT, G_CALL_SEAT, G_CALL_LEFT, G_REPEAT,
 G_N_CALLS, G_RES_STEP, G_PV_STEP) = range(12)
O_ST = 12
O_HANDS = O_ST + ST_LEN
O_PLAYED = O_HANDS + 4          # each seat's cards played so far (mask), for the observation
O_EYES = O_PLAYED + 4           # eyes each seat has won in tricks so far, for the observation
O_CMASK = O_EYES + 4
O_RULES = O_CMASK + 5
O_TW = O_RULES + R_LEN
O_PLAYS = (O_TW + 12 + 7) // 8 * 8   # on a cache line's start, so that no trick's cards straddle two
O_PSEAT = O_PLAYS + 48
O_POWER = O_PSEAT + 48
O_FCLASS = O_POWER + 48
O_HANDS0 = O_FCLASS + 48        # the hands as dealt (before a poverty's exchange)
O_RES = O_HANDS0 + 4
O_ITEMS = O_RES + RES_LEN
O_DECK = O_ITEMS + 2 * N_ITEMS
O_GIVEN = O_DECK + 48           # the hands given to Game(hands=...)
O_CHOICES = O_GIVEN + 4         # each seat's reservation choice, -1 not yet
O_CALL_LOG = O_CHOICES + 4      # MAX_CALLS x (cards_played, seat, level)
O_CTL = O_CALL_LOG + 3 * MAX_CALLS
(G_SEED, G_DEAL_ID, G_DEALER, G_ATTEMPT, G_FIXED, G_OWE, G_PV_PICKED, G_PV_ASKED, G_PV_PARTNER, G_PV_PASSED,
 G_PV_RETURNED, G_PV_TRUMPS, G_PLAN, G_CONTRACT0, G_DECLARER0, G_COMPULSORY) = range(O_CTL, O_CTL + 16)
G_LEN = (O_CTL + 16 + 7) // 8 * 8   # whole cache lines per row

# ---- the observation tensor (float32, OBS_LEN), documented in docs/game.md
OBS_HAND = 0            # 24: own cards per kind (0, 1, 2)
OBS_PLAYED = 24         # 4 x 24: the cards each seat has played, per kind
OBS_TRICK = 120         # 4 x 24: the current trick, one-hot by position
OBS_SEAT = 216          # 4: the observing seat, one-hot
OBS_PLAYER = 220        # 4: the seat to act, one-hot
OBS_DEALER = 224        # 4
OBS_LEADER = 228        # 4: leader of the current trick
OBS_KNOWN_RE = 232      # 4
OBS_KNOWN_KO = 236      # 4
OBS_LEVELS = 240        # 2: Re's and Kontra's call level / 5
OBS_CONTRACT = 242      # N_CONTRACTS: the contract as the table sees it, one-hot
OBS_PHASE = OBS_CONTRACT + N_CONTRACTS      # 5: the phase, one-hot
OBS_OWN_PARTY = OBS_PHASE + 5               # 2: the seat knows it is Re / Kontra
OBS_LEGAL = OBS_OWN_PARTY + 2               # N_ACTIONS: legal actions when the seat is to act
OBS_EYES = OBS_LEGAL + N_ACTIONS            # 4: eyes won in tricks so far by each seat / 240
OBS_TRICKS_LEFT = OBS_EYES + 4              # 1: tricks still to play / hand size
OBS_LEN = OBS_TRICKS_LEFT + 1
OBS_BUF = 320                               # OBS_LEN, rounded up to whole 8-byte stores


@inline_kernel
def game_position(g):
    """The position of game row ``g`` (engine/position.py) as views into it."""
    return Position(g[O_ST:O_ST + ST_LEN], g[O_HANDS:O_HANDS + 4], g[O_PLAYS:O_PLAYS + 48],
                    g[O_PSEAT:O_PSEAT + 48], g[O_TW:O_TW + 12], g[O_POWER:O_POWER + 48],
                    g[O_FCLASS:O_FCLASS + 48], g[O_CMASK:O_CMASK + 5])


@inline_kernel
def kinds_of(mask):
    """The card kinds (bit t) of a mask of physical cards (bits 2t, 2t+1): the pairs' or,
    gathered into consecutive bits."""
    x = (mask | (mask >> 1)) & 0x555555555555
    x = (x | (x >> 1)) & 0x3333333333333333
    x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0F
    x = (x | (x >> 4)) & 0x00FF00FF00FF00FF
    x = (x | (x >> 8)) & 0x0000FFFF0000FFFF
    return (x | (x >> 16)) & 0xFFFFFFFF


@inline_kernel
def card_of_kind(mask, t):
    """The physical card of kind ``t`` in ``mask`` (the first copy when both are), -1 if none."""
    if (mask >> (2 * t)) & 1:
        return 2 * t
    if (mask >> (2 * t + 1)) & 1:
        return 2 * t + 1
    return -1


@decision_kernel
def _deal(g, rng):
    """Deal attempt g[G_ATTEMPT] into hands and hands0: the given hands for attempt 0 of a game
    with fixed hands, else the deal loop's deal from (seed, deal_id, attempt); then ask the
    reservations."""
    st = g[O_ST:O_ST + ST_LEN]
    hands = g[O_HANDS:O_HANDS + 4]
    rules = g[O_RULES:O_RULES + R_LEN]
    seed_stream(rng, g[G_SEED], g[G_DEAL_ID], g[G_ATTEMPT])
    if g[G_FIXED] and g[G_ATTEMPT] == 0:
        for s in range(4):
            hands[s] = g[O_GIVEN + s]
    else:
        deal_hands(rng, g[O_DECK:O_DECK + 48], hands, g[G_DEALER], rules[R_NO_NINES])
    for s in range(4):
        g[O_HANDS0 + s] = hands[s]
        g[O_CHOICES + s] = -1
    for i in range(PUBLIC_LEN):  # what the reservations may see, as in the loop's start_deal
        st[i] = 0
    st[P_DEALER] = g[G_DEALER]
    st[P_HAND_SIZE] = popcount(hands[0])
    st[P_POVERTY_SEAT] = -1
    g[G_PHASE] = PH_RESERVATION
    g[G_RES_STEP] = 0
    g[G_PV_STEP] = 0
    g[G_PV_PICKED] = 0
    g[G_PV_PARTNER] = -1
    g[G_PV_PASSED] = 0
    g[G_PV_RETURNED] = 0
    g[G_N_CALLS] = 0
    g[G_CALL_MOMENT] = -1
    g[G_COMPULSORY] = 0


@decision_kernel
def _start_play(g, contract, declarer, compulsory):
    """Set the deal up for its first card (setup_deal, a poverty's parties, piglets)."""
    st = g[O_ST:O_ST + ST_LEN]
    hands = g[O_HANDS:O_HANDS + 4]
    power = g[O_POWER:O_POWER + 48]
    setup_deal(st, hands, g[G_DEALER], contract, declarer, compulsory, power,
               g[O_FCLASS:O_FCLASS + 48], g[O_CMASK:O_CMASK + 5])
    if contract == C_POVERTY:
        setup_poverty(st, declarer, g[G_PV_PARTNER], g[G_PV_TRUMPS])
    apply_piglets(st, hands, g[O_RULES:O_RULES + R_LEN], power)
    g[G_CONTRACT0] = contract
    g[G_DECLARER0] = declarer
    g[G_COMPULSORY] = 1 if compulsory else 0
    g[G_PHASE] = PH_CALL
    g[G_CALL_MOMENT] = -1


@decision_kernel
def _redeal_or_normal(g, rng):
    """A throw-in or a poverty nobody took: the same dealer deals again (the loop's attempt
    + 1), or after MAX_REDEALS the deal is played as it is (normal)."""
    if g[G_ATTEMPT] < MAX_REDEALS:
        g[G_ATTEMPT] += 1
        _deal(g, rng)
    else:
        for s in range(4):  # a refused poverty gave nothing away
            g[O_HANDS + s] = g[O_HANDS0 + s]
        _start_play(g, C_NORMAL, -1, False)


@decision_kernel
def _resolve(g, rng):
    """After the four reservations: the contract (a seat owing a compulsory solo first, as the
    loop's start_deal), then the poverty's exchange, a redeal or the play."""
    choices = g[O_CHOICES:O_CHOICES + 4]
    dealer = g[G_DEALER]
    owe = g[G_OWE]
    if owe:
        for i in range(4):
            seat = (dealer + 1 + i) & 3
            if (owe >> seat) & 1 and 1 <= choices[seat] <= 7:
                _start_play(g, C_SOLO_BASE + choices[seat] - 1, seat, True)
                return
    out = g[O_DECK:O_DECK + 2]
    resolve_reservations(choices, dealer, out)
    contract = out[0]
    declarer = out[1]
    if contract == REDEAL:
        _redeal_or_normal(g, rng)
    elif contract == C_POVERTY:
        g[G_PHASE] = PH_POVERTY
        g[G_PV_STEP] = PV_PASS
        g[G_PV_PICKED] = 0
        g[G_DECLARER0] = declarer
        g[O_ST + P_POVERTY_SEAT] = declarer
    else:
        _start_play(g, contract, declarer, False)


@inline_kernel
def someone_may_call(st, hands):
    """False when no seat can make any call now, so that the round of calls is skipped: every call
    legal_calls allows needs the caller to hold at least call_limit(st, 5) - 1 cards (its most
    lenient limit, a reply to the opponents' schwarz), and no seat does. True says nothing (then
    legal_calls decides for each seat)."""
    need = st[P_HAND_SIZE] - 6 - st[P_SHIFT]
    for s in range(4):
        if popcount(hands[s]) >= need:
            return True
    return False


@inline_kernel
def _advance(g):
    """Find the next decision: whose it is (G_PLAYER) and its legal actions (G_LEGAL); scores
    the deal once its last card is played."""
    st = g[O_ST:O_ST + ST_LEN]
    hands = g[O_HANDS:O_HANDS + 4]
    phase = g[G_PHASE]
    if phase == PH_RESERVATION:
        seat = g[G_RES_STEP]
        g[G_PLAYER] = seat
        g[G_LEGAL] = reservation_options(hands[seat], g[O_RULES:O_RULES + R_LEN]) << A_RESERVE
        return
    if phase == PH_POVERTY:
        poor = g[G_DECLARER0]
        step = g[G_PV_STEP]
        picked = g[G_PV_PICKED]
        if step == PV_PASS:
            g[G_PLAYER] = poor
            left = hands[poor] & ~picked
            trumps = left & NORMAL_TRUMPS
            if popcount(trumps) >= 3 - popcount(picked):  # every trump must go
                left = trumps
            g[G_LEGAL] = kinds_of(left)
        elif step == PV_ACCEPT:
            g[G_PLAYER] = (poor + g[G_PV_ASKED]) & 3
            g[G_LEGAL] = (np.int64(1) << A_PASS) | (np.int64(1) << A_ACCEPT)
        else:
            partner = g[G_PV_PARTNER]
            g[G_PLAYER] = partner
            g[G_LEGAL] = kinds_of((hands[partner] | g[G_PV_PASSED]) & ~picked)
        return
    n_cards = 4 * st[P_HAND_SIZE]
    if st[P_NPLAYED] >= n_cards:
        if phase != PH_TERMINAL:
            score_deal(st, g[O_PLAYS:O_PLAYS + 48], g[O_PSEAT:O_PSEAT + 48], g[O_TW:O_TW + 12],
                       g[O_ITEMS:O_ITEMS + 2 * N_ITEMS].reshape((2, N_ITEMS)), g[O_RES:O_RES + RES_LEN])
        g[G_PHASE] = PH_TERMINAL
        g[G_PLAYER] = -1
        g[G_LEGAL] = 0
        return
    if g[G_CALLS_ON]:
        if g[G_CALL_MOMENT] != st[P_NPLAYED]:  # a new moment: a round of calls from the player to move
            g[G_CALL_MOMENT] = st[P_NPLAYED]
            g[G_CALL_SEAT] = st[P_TURN]
            g[G_CALL_LEFT] = 4 if someone_may_call(st, hands) else 0  # 0: as if all four had no call
        while g[G_CALL_LEFT] > 0:
            seat = g[G_CALL_SEAT] & 3
            m = legal_calls(st, hands, seat)
            if m:
                legal = np.int64(1) << A_PASS
                if m & 2:
                    legal |= np.int64(1) << (A_RE if seat_is_re(st, seat) else A_KONTRA)
                for level in range(2, 6):
                    if (m >> level) & 1:
                        legal |= np.int64(1) << (A_RE + level)
                g[G_PHASE] = PH_CALL
                g[G_PLAYER] = seat
                g[G_LEGAL] = legal
                return
            g[G_CALL_SEAT] = (seat + 1) & 3
            g[G_CALL_LEFT] -= 1
    seat = st[P_TURN] & 3
    g[G_PHASE] = PH_CARD
    g[G_PLAYER] = seat
    g[G_LEGAL] = kinds_of(legal_mask(st, hands[seat], g[O_PLAYS:O_PLAYS + 48], g[O_FCLASS:O_FCLASS + 48],
                                     g[O_CMASK:O_CMASK + 5]))


@decision_kernel
def advance(g):
    """_advance, compiled once for the callers off the stepping path (a deal's start)."""
    _advance(g)


@decision_kernel
def game_start(g, rng):
    """Deal (g's G_SEED, G_DEAL_ID, G_DEALER, G_FIXED and the given hands, the rules at O_RULES)
    and stop at the first decision."""
    g[G_ATTEMPT] = 0
    g[G_N_ACTIONS] = 0
    g[G_PLAN] = -1
    for s in range(4):
        g[O_PLAYED + s] = 0
        g[O_EYES + s] = 0
    _deal(g, rng)
    advance(g)


@decision_kernel
def game_apply(g, rng, action):
    """Apply ``action`` of the player to act and stop at the next decision; returns 0, or 1 when
    the action is not legal now (nothing changes then)."""
    return apply_action(g, rng, action)


@inline_kernel
def apply_action(g, rng, action):
    """game_apply's body, inlined where a kernel steps many games (VectorGame)."""
    if action < 0 or action >= N_ACTIONS or not (g[G_LEGAL] >> action) & 1:
        return 1
    st = g[O_ST:O_ST + ST_LEN]
    hands = g[O_HANDS:O_HANDS + 4]
    seat = g[G_PLAYER]
    phase = g[G_PHASE]
    g[G_N_ACTIONS] += 1
    if phase == PH_RESERVATION:
        g[O_CHOICES + seat] = action - A_RESERVE
        g[G_RES_STEP] = seat + 1
        if seat == 3:
            _resolve(g, rng)
    elif phase == PH_POVERTY:
        step = g[G_PV_STEP]
        if step == PV_ACCEPT:
            if action == A_ACCEPT:
                g[G_PV_PARTNER] = seat
                g[G_PV_STEP] = PV_RETURN
                g[G_PV_PICKED] = 0
            else:
                g[G_PV_ASKED] += 1
                if g[G_PV_ASKED] > 3:
                    _redeal_or_normal(g, rng)
        else:
            holding = hands[seat] if step == PV_PASS else hands[seat] | g[G_PV_PASSED]
            c = card_of_kind(holding & ~g[G_PV_PICKED], action)
            g[G_PV_PICKED] |= np.int64(1) << c
            if popcount(g[G_PV_PICKED]) == 3:
                poor = g[G_DECLARER0]
                if step == PV_PASS:
                    g[G_PV_PASSED] = g[G_PV_PICKED]
                    g[G_PV_PICKED] = 0
                    g[G_PV_STEP] = PV_ACCEPT
                    g[G_PV_ASKED] = 1
                else:
                    returned = g[G_PV_PICKED]
                    g[G_PV_RETURNED] = returned
                    g[G_PV_TRUMPS] = popcount(returned & NORMAL_TRUMPS)
                    exchange_cards(hands, poor, seat, g[G_PV_PASSED], returned)
                    _start_play(g, C_POVERTY, poor, False)
    elif phase == PH_CALL:
        if action == A_PASS:
            g[G_CALL_SEAT] = (seat + 1) & 3
            g[G_CALL_LEFT] -= 1
        else:
            level = 1 if action <= A_KONTRA else action - A_RE
            make_call(st, hands, seat, level)
            n = g[G_N_CALLS]
            if n < MAX_CALLS:
                g[O_CALL_LOG + 3 * n] = st[P_NPLAYED]
                g[O_CALL_LOG + 3 * n + 1] = seat
                g[O_CALL_LOG + 3 * n + 2] = level
                g[G_N_CALLS] = n + 1
            g[G_CALL_SEAT] = (seat + 1) & 3
            if g[G_REPEAT]:
                g[G_CALL_LEFT] = 4  # everybody is asked again, the caller last
            else:
                g[G_CALL_LEFT] -= 1
    else:
        legal = legal_mask(st, hands[seat], g[O_PLAYS:O_PLAYS + 48], g[O_FCLASS:O_FCLASS + 48],
                           g[O_CMASK:O_CMASK + 5])
        scheme = st[P_SCHEME]
        if st[H_TABLES] == scheme + 1:  # the deal's tables are its scheme's own: read the shared copy,
            # which stays in the cache (a VectorGame row's copy is far from its other hot fields)
            card = play_card(Position(st, hands, g[O_PLAYS:O_PLAYS + 48], g[O_PSEAT:O_PSEAT + 48], g[O_TW:O_TW + 12],
                                      POWER[scheme], FOLLOW_CLASS[scheme], g[O_CMASK:O_CMASK + 5]),
                             card_of_kind(legal, action), g[O_RULES:O_RULES + R_LEN])
        else:  # altered (piglets)
            card = play_card(game_position(g), card_of_kind(legal, action), g[O_RULES:O_RULES + R_LEN])
        g[O_PLAYED + seat] |= np.int64(1) << card
        n = st[P_NPLAYED]
        if n & 3 == 0:  # a trick is complete: its eyes to its winner, who leads next (for the observation)
            g[O_EYES + st[P_LEADER]] += (EYES[g[O_PLAYS + n - 4]] + EYES[g[O_PLAYS + n - 3]]
                                                   + EYES[g[O_PLAYS + n - 2]] + EYES[g[O_PLAYS + n - 1]])
    _advance(g)
    return 0


@decision_kernel
def action_error(g, seat, action):
    """The GAME_RECORD.md error kind (layout.E_*) of ``seat`` playing the card kind or making
    the call ``action`` now, by the rules' own checks (card_error, call_error)."""
    st = g[O_ST:O_ST + ST_LEN]
    hands = g[O_HANDS:O_HANDS + 4]
    if action < A_RESERVE:
        return card_error(st, hands, seat, 2 * action, g[O_PLAYS:O_PLAYS + 48], g[O_FCLASS:O_FCLASS + 48],
                          g[O_CMASK:O_CMASK + 5])
    if A_RE <= action <= A_SCHWARZ:
        level = 1 if action <= A_KONTRA else action - A_RE
        named = -1
        if action == A_RE:
            named = 0
        elif action == A_KONTRA:
            named = 1
        return call_error(st, hands, seat, level, named)
    return 0


@inline_kernel
def bits_out(out, base, mask, count):
    """out[base + a] = bit a of ``mask`` for a < count, as bytes 0/1 (``out`` uint8 or int8), eight
    bytes at a time."""
    for j in range(count // 8):
        store_u64(out, base + 8 * j, bytes_of_bits(mask >> (8 * j)))
    for a in range(count // 8 * 8, count):
        out[base + a] = (mask >> a) & 1


@decision_kernel
def observation_fill_u8(g, seat, out):
    """The observation of ``seat`` into the uint8 ``out`` (OBS_LEN bytes): the tensor's values, with
    the call levels, eyes and tricks left as integers (``/ observation_divisors`` gives
    observation_fill's tensor exactly), written eight bytes at a time."""
    st = g[O_ST:O_ST + ST_LEN]
    hand = g[O_HANDS + seat]
    for j in range(3):  # OBS_HAND, then the four OBS_PLAYED blocks: 8 card kinds per 16 mask bits
        store_u64(out, OBS_HAND + 8 * j, bytes_of_pairs(hand >> (16 * j)))
    for s in range(4):
        m = g[O_PLAYED + s]
        for j in range(3):
            store_u64(out, OBS_PLAYED + 24 * s + 8 * j, bytes_of_pairs(m >> (16 * j)))
    for k in range(OBS_TRICK, OBS_EYES, 8):  # zeros up to the eyes (OBS_EYES - OBS_TRICK = 184)
        store_u64(out, k, 0)
    n = st[P_NPLAYED]
    start = n - (n & 3)
    for k in range(start, n):
        out[OBS_TRICK + 24 * (k - start) + (g[O_PLAYS + k] >> 1)] = 1
    out[OBS_SEAT + seat] = 1
    player = g[G_PLAYER]
    if player >= 0:
        out[OBS_PLAYER + player] = 1
    out[OBS_DEALER + st[P_DEALER]] = 1
    phase = g[G_PHASE]
    out[OBS_PHASE + phase] = 1
    out[OBS_TRICKS_LEFT] = 0
    if phase >= PH_CALL:
        out[OBS_LEADER + st[P_LEADER]] = 1
        for s in range(4):
            out[OBS_KNOWN_RE + s] = (st[P_KNOWN_RE] >> s) & 1
            out[OBS_KNOWN_KO + s] = (st[P_KNOWN_KO] >> s) & 1
        out[OBS_CONTRACT + st[P_CONTRACT]] = 1
        party = own_party(g, seat)
        if party >= 0:
            out[OBS_OWN_PARTY + party] = 1
        out[OBS_LEVELS] = st[P_LEVEL_RE]
        out[OBS_LEVELS + 1] = st[P_LEVEL_KO]
        out[OBS_TRICKS_LEFT] = st[P_HAND_SIZE] - st[P_TRICK]
    if player == seat:
        bits_out(out, OBS_LEGAL, g[G_LEGAL], N_ACTIONS)  # its zeros past the legal bits fall before OBS_EYES
    for s in range(4):
        out[OBS_EYES + s] = g[O_EYES + s]


@decision_kernel
def observation_fill(g, seat, out):
    """The observation tensor of ``seat`` (OBS_* layout) into ``out`` (float32, OBS_LEN): the uint8
    observation converted, its scaled fields then divided as the layout says."""
    buf = stack_zeros(OBS_BUF, np.uint8)
    observation_fill_u8(g, seat, buf)
    for k in range(OBS_LEN):
        out[k] = buf[k]
    st = g[O_ST:O_ST + ST_LEN]
    for s in range(4):
        out[OBS_EYES + s] = g[O_EYES + s] / 240.0
    if g[G_PHASE] >= PH_CALL:
        out[OBS_LEVELS] = st[P_LEVEL_RE] / 5.0
        out[OBS_LEVELS + 1] = st[P_LEVEL_KO] / 5.0
        out[OBS_TRICKS_LEFT] = (st[P_HAND_SIZE] - st[P_TRICK]) / st[P_HAND_SIZE]


def observation_divisors(hand_size):
    """The float32 divisors that turn the uint8 observation (observation_fill_u8: the call levels,
    eyes and tricks left as integers) into observation_fill's tensor, exactly: 5 for the call
    levels, 240 for the eyes, the hand size for the tricks left, 1 elsewhere."""
    d = np.ones(OBS_LEN, np.float32)
    d[OBS_LEVELS:OBS_LEVELS + 2] = 5
    d[OBS_EYES:OBS_EYES + 4] = 240
    d[OBS_TRICKS_LEFT] = hand_size
    return d


@inline_kernel
def own_party(g, seat):
    """What ``seat`` knows of its own party once the contract is set: 0 Re, 1 Kontra, -1 not
    yet (a marriage before its clarification, for the seats other than the bride)."""
    st = g[O_ST:O_ST + ST_LEN]
    if (st[P_KNOWN_RE] >> seat) & 1:
        return 0
    if (st[P_KNOWN_KO] >> seat) & 1:
        return 1
    if st[P_CONTRACT] == C_NORMAL:  # a normal game (or a silent marriage): the seat's own queens say it,
        # held or played (no cards changed hands: this is the hand as dealt, from the row's first lines)
        return 0 if (g[O_HANDS + seat] | g[O_PLAYED + seat]) & QC_MASK else 1
    if st[P_CONTRACT] == C_MARRIAGE and st[P_CLARIFIED]:
        return 0 if (st[H_RE_MASK] >> seat) & 1 else 1
    return -1

