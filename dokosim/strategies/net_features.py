"""What the ``net`` player sees of a card decision, as a float32 vector: the one encoding of the
network's input, computed from what every strategy's ``card`` gets (the seat, its hand, the legal
cards and the position as the seat sees it, a ``View``: engine/position.py), so the simulator,
``dokosim train data`` and the Game API compute the same vector.

Card kinds: 24 (card index // 2, cards.py). Seats are relative to the deciding seat: r = (seat'
- seat) mod 4, so r = 0 is the seat itself, 1 the next to play after it. Blocks (offset, length):

=============  ====  ===  ==================================================================
name           at    len  value
=============  ====  ===  ==================================================================
HAND           0     24   copies of the kind in the hand / 2
LEGAL          24    24   1 where the kind may be played now
TRUMPS         48    24   1 where the kind is a trump under the contract
WINS           72    24   1 where a legal card of the kind would beat the trick so far
PLAYED         96    96   copies played so far by relative seat r (block r) / 2
TRICK          192   72   the current trick's cards before this one, one-hot per position
TRICK_EYES     264   1    eyes in the current trick so far / 44
TRICK_WINNER   265   4    the relative seat winning the current trick so far (none: zeros)
LEADER         269   4    the relative seat that led the current trick
CONTRACT       273   12   the contract as the table sees it, one-hot (cards.CONTRACT_NAMES)
SIDES          285   9    seats r = 1..3: partner, opponent, unknown (three per seat)
OWN_SIDE       294   2    the seat's own side as it reads it, Re or Kontra (the table's word, else its QCs)
LEVELS         296   2    call level of the own side, of the other / 5
TRICKS_LEFT    298   1    tricks still to play, counting this one / hand size
EYES           299   4    eyes won so far by relative seat r / 240
SOLOIST        303   4    the relative seat of a public soloist (none: zeros)
VOIDS          307   15   seats r = 1..3: void in class k (5 classes; shown by failing to follow)
=============  ====  ===  ==================================================================
"""
import numpy as np

from ..engine.bits import lowest_bit_index
from ..engine.cards import C_SOLO_BASE, CONTRACT_NAMES, EYES, RANKS, SOLO_KINDS, TRUMP
from ..engine.jit import kernel
from ..engine.layout import (
    P_CONTRACT, P_HAND_SIZE, P_LEVEL_KO, P_LEVEL_RE, P_NPLAYED, P_SOLOIST, P_TRICK,
)
from .cardcount import scan_plays, teams
from .common import own_side_is_re, trick_eyes_so_far, trick_start, winning_cards, winning_seat_so_far

N_KINDS = 24
F_HAND, F_LEGAL, F_TRUMPS, F_WINS, F_PLAYED, F_TRICK = 0, 24, 48, 72, 96, 192
F_TRICK_EYES, F_TRICK_WINNER, F_LEADER, F_CONTRACT, F_SIDES, F_OWN_SIDE = 264, 265, 269, 273, 285, 294
F_LEVELS, F_TRICKS_LEFT, F_EYES, F_SOLOIST, F_VOIDS = 296, 298, 299, 303, 307
N_FEATURES = 322
N_CONTRACTS = 12


@kernel
def kinds_into(out, at, mask, scale):
    """out[at + kind] += copies of each kind in the 48-bit ``mask``, times ``scale``."""
    m = mask
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        out[at + (c >> 1)] += scale


@kernel
def card_features(seat, hand, legal, view, rules, out):
    """The features of ``seat``'s card decision (the module's table) into float32 ``out``
    (N_FEATURES), from a strategy's ``card`` arguments (``view``: the position as the seat sees it)."""
    pub, plays, play_seat, trick_winner, power, fclass = view.pub, view.plays, view.play_seat, \
        view.trick_winner, view.power, view.fclass
    for i in range(N_FEATURES):
        out[i] = 0.0
    n = pub[P_NPLAYED]
    kinds_into(out, F_HAND, hand, 0.5)
    m = legal
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        out[F_LEGAL + (c >> 1)] = 1.0
    m = view.cmask[TRUMP]
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        out[F_TRUMPS + (c >> 1)] = 1.0
    m = winning_cards(legal, pub, plays, power, fclass)
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        out[F_WINS + (c >> 1)] = 1.0
    for i in range(n):
        r = (play_seat[i] - seat) & 3
        out[F_PLAYED + N_KINDS * r + (plays[i] >> 1)] += 0.5
    start = trick_start(pub)
    for i in range(start, n):
        out[F_TRICK + N_KINDS * (i - start) + (plays[i] >> 1)] = 1.0
    out[F_TRICK_EYES] = trick_eyes_so_far(pub, plays) / 44.0
    winner = winning_seat_so_far(pub, plays, play_seat, power, fclass, rules)
    if winner >= 0:
        out[F_TRICK_WINNER + ((winner - seat) & 3)] = 1.0
    leader = play_seat[start] if n > start else seat
    out[F_LEADER + ((leader - seat) & 3)] = 1.0
    contract = pub[P_CONTRACT]
    if 0 <= contract < N_CONTRACTS:
        out[F_CONTRACT + contract] = 1.0
    played, voids, qc = scan_plays(pub, plays, play_seat, fclass)
    partners, opponents = teams(seat, hand, pub, qc)
    for r in range(1, 4):
        s = (seat + r) & 3
        k = 0 if (partners >> s) & 1 else (1 if (opponents >> s) & 1 else 2)
        out[F_SIDES + 3 * (r - 1) + k] = 1.0
        for cls in range(5):
            if (voids >> (5 * s + cls)) & 1:
                out[F_VOIDS + 5 * (r - 1) + cls] = 1.0
    side = 0 if own_side_is_re(seat, hand, pub) else 1
    out[F_OWN_SIDE + side] = 1.0
    own, other = (pub[P_LEVEL_RE], pub[P_LEVEL_KO]) if side == 0 else (pub[P_LEVEL_KO], pub[P_LEVEL_RE])
    out[F_LEVELS] = own / 5.0
    out[F_LEVELS + 1] = other / 5.0
    out[F_TRICKS_LEFT] = (pub[P_HAND_SIZE] - pub[P_TRICK]) / pub[P_HAND_SIZE]
    for t in range(n >> 2):
        eyes = 0
        for i in range(4 * t, 4 * t + 4):
            eyes += EYES[plays[i]]
        out[F_EYES + ((trick_winner[t] - seat) & 3)] += eyes / 240.0
    if pub[P_SOLOIST] >= 0:
        out[F_SOLOIST + ((pub[P_SOLOIST] - seat) & 3)] = 1.0



# ---------------------------------------------------------------- the clubs-spades mirror
# Clubs and spades play alike wherever neither is the contract's trump suit: swapping the two
# suits' plain cards everywhere (every hand, every card played, the voids shown, a clubs solo
# for a spades solo) gives a deal of the same value. Queens and jacks are trumps of rank by suit
# (QC over QS, QC marks Re) except where a solo makes them plain, so which kinds swap depends on
# the contract's group: MIRROR_GROUP_OF_CONTRACT. `dokosim train fit --mirror` trains on mirrored
# decisions too (dokosim.train.fit), so the network learns the symmetry instead of two suits.
MIRROR_GROUPS = ("queens and jacks trumps", "queens solo", "jacks solo", "fleischlos")
"""The mirror's groups: which of the clubs/spades queens and jacks are plain and so swap."""


def _mirror_tables():
    """(MIRROR_KINDS, MIRROR_FEATURES, MIRROR_GROUP_OF_CONTRACT); see their docs."""
    rank_q, rank_j = RANKS.index("Q"), RANKS.index("J")
    kinds = np.tile(np.arange(N_KINDS, dtype=np.int64), (len(MIRROR_GROUPS), 1))
    for group, (swap_q, swap_j) in enumerate(((False, False), (False, True), (True, False), (True, True))):
        for rank in range(6):
            if (rank == rank_q and not swap_q) or (rank == rank_j and not swap_j):
                continue
            kinds[group, rank], kinds[group, 6 + rank] = 6 + rank, rank  # clubs = suit 0, spades = suit 1
    features = np.tile(np.arange(N_FEATURES, dtype=np.int64), (len(MIRROR_GROUPS), 1))
    for at in range(F_HAND, F_TRICK_EYES, N_KINDS):  # HAND, LEGAL, TRUMPS, WINS, PLAYED x4, TRICK x3
        features[:, at:at + N_KINDS] = at + kinds
    clubs_solo = F_CONTRACT + C_SOLO_BASE + SOLO_KINDS.index("clubs")
    spades_solo = F_CONTRACT + C_SOLO_BASE + SOLO_KINDS.index("spades")
    features[:, clubs_solo], features[:, spades_solo] = spades_solo, clubs_solo
    for r in range(3):  # void classes 0 (clubs) and 1 (spades) of each other seat
        at = F_VOIDS + 5 * r
        features[:, at], features[:, at + 1] = at + 1, at
    group_of = np.zeros(N_CONTRACTS, dtype=np.int64)
    group_of[CONTRACT_NAMES.index("queens_solo")] = 1
    group_of[CONTRACT_NAMES.index("jacks_solo")] = 2
    group_of[CONTRACT_NAMES.index("fleischlos_solo")] = 3
    return kinds, features, group_of


MIRROR_KINDS, MIRROR_FEATURES, MIRROR_GROUP_OF_CONTRACT = _mirror_tables()
"""``MIRROR_KINDS[g, k]``: the kind that kind ``k`` becomes in the mirror of a deal of group ``g``
(an involution); ``MIRROR_FEATURES[g, i]``: the feature the mirrored vector takes at ``i``
(``mirrored = x[MIRROR_FEATURES[g]]``); ``MIRROR_GROUP_OF_CONTRACT[c]``: contract code -> group."""


def mirror_group(x):
    """The mirror group of each row of features ``x`` (rows x N_FEATURES), from its contract."""
    block = x[:, F_CONTRACT:F_CONTRACT + N_CONTRACTS]
    contract = np.where(block.max(axis=1) > 0, block.argmax(axis=1), 0)
    return MIRROR_GROUP_OF_CONTRACT[contract]


def mirror_rows(x, legal, values):
    """The clubs-spades mirror of decision rows: features ``x`` (rows x N_FEATURES), ``legal``
    (int bit masks over the kinds) and ``values`` (rows x N_KINDS), each row by its contract's
    group. Returns new arrays (x, legal, values) of the same dtypes."""
    group = mirror_group(x)
    mx = np.take_along_axis(x, MIRROR_FEATURES[group], axis=1)
    kinds = MIRROR_KINDS[group]
    inverse = np.argsort(kinds, axis=1)  # the involution is its own inverse; argsort keeps it general
    mvalues = np.take_along_axis(values, inverse, axis=1)
    mlegal = np.zeros_like(legal)
    for k in range(N_KINDS):
        mlegal |= ((legal >> k) & 1).astype(legal.dtype) << kinds[:, k].astype(legal.dtype)
    return mx, mlegal, mvalues
