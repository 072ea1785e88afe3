"""Card encoding, notation and the per-contract tables: the one place that knows them.

Encoding (used by every kernel, dataset and record):

* suits ``C S H D`` = 0..3, ranks ``A T K Q J 9`` = 0..5;
* card type ``t = 6 * suit + rank`` (0..23), physical card ``c = 2 * t + copy`` (0..47);
* a hand is an int64 mask with bit ``c`` set for each card held (48 bits used).

Trump schemes (index into the tables below): 0 clubs solo, 1 spades solo,
2 hearts solo, 3 diamonds (normal game, marriage, silent marriage, poverty,
diamonds solo), 4 queens solo, 5 jacks solo, 6 fleischlos.

For each scheme:

* ``FOLLOW_CLASS[scheme, c]``: 0..3 the plain suit the card belongs to, 4 trump;
* ``POWER[scheme, c]``: larger beats smaller within a class; every trump is above
  100, so a trump beats any plain card; identical cards share a power (the first
  played wins because a later card must be strictly stronger);
* ``CLASS_MASK[scheme, k]``: int64 mask of all cards of class k.

Contract codes (datasets, kernels): see ``CONTRACT_NAMES``.
"""

from __future__ import annotations

import numpy as np

SUITS = "CSHD"
RANKS = "ATKQJ9"
SUIT_NAMES = ("clubs", "spades", "hearts", "diamonds")
EYES_BY_RANK = (11, 10, 4, 3, 2, 0)
N_CARDS = 48
TRUMP = 4

# card types used by name in the rules
def card_type(name: str) -> int:
    """Type index (0..23) of a card name such as ``"QC"``."""
    return 6 * SUITS.index(name[1]) + RANKS.index(name[0])


T_QC = card_type("QC")
T_TH = card_type("TH")
T_AD = card_type("AD")
T_JC = card_type("JC")
T_9D = card_type("9D")
T_KD = card_type("KD")

SCHEME_NAMES = ("clubs", "spades", "hearts", "diamonds", "queens", "jacks", "fleischlos")
SCHEME_NORMAL = 3

# Solo kinds in GAME_RECORD order; SOLO_SCHEME maps kind index -> trump scheme.
SOLO_KINDS = ("diamonds", "hearts", "spades", "clubs", "queens", "jacks", "fleischlos")
SOLO_SCHEME = np.array([3, 2, 1, 0, 4, 5, 6], dtype=np.int64)

# Contract codes.
C_NORMAL, C_SILENT_MARRIAGE, C_MARRIAGE, C_MARRIAGE_SOLO, C_POVERTY = 0, 1, 2, 3, 4
C_SOLO_BASE = 5  # C_SOLO_BASE + solo kind index
CONTRACT_NAMES = (
    "normal", "silent_marriage", "marriage", "marriage_solo", "poverty",
    *[f"{k}_solo" for k in SOLO_KINDS],
)
N_CONTRACTS = len(CONTRACT_NAMES)
# True for contracts scored as a solo (x3, no extra points).
CONTRACT_IS_SOLO = np.array([0, 1, 0, 1, 0] + [1] * 7, dtype=np.int64)


def card_eyes(c: int) -> int:
    return EYES_BY_RANK[(c >> 1) % 6]


EYES = np.array([card_eyes(c) for c in range(N_CARDS)], dtype=np.int64)


def _trump_order(scheme: int) -> list[int]:
    """Trump card types of a scheme, highest first."""
    if scheme == 6:
        return []
    if scheme == 4:
        return [card_type(q) for q in ("QC", "QS", "QH", "QD")]
    if scheme == 5:
        return [card_type(j) for j in ("JC", "JS", "JH", "JD")]
    order = [T_TH] + [card_type("Q" + s) for s in SUITS] + [card_type("J" + s) for s in SUITS]
    suit = SUITS[scheme]
    for r in "ATK9":
        t = card_type(r + suit)
        if t not in order:
            order.append(t)
    return order


def _build_tables():
    follow = np.zeros((7, N_CARDS), dtype=np.int64)
    power = np.zeros((7, N_CARDS), dtype=np.int64)
    class_mask = np.zeros((7, 5), dtype=np.int64)
    for scheme in range(7):
        trumps = _trump_order(scheme)
        for c in range(N_CARDS):
            t = c >> 1
            suit, rank = divmod(t, 6)
            if t in trumps:
                follow[scheme, c] = TRUMP
                power[scheme, c] = 200 - trumps.index(t)
            else:
                follow[scheme, c] = suit
                # plain cards rank A T K Q J 9 (those not trumps); larger is stronger
                power[scheme, c] = 10 - rank
            class_mask[scheme, follow[scheme, c]] |= np.int64(1) << np.int64(c)
    return follow, power, class_mask


FOLLOW_CLASS, POWER, CLASS_MASK = _build_tables()
NINES_MASK = np.int64(sum(1 << (2 * (6 * s + 5) + k) for s in range(4) for k in range(2)))
ACES_MASK = np.int64(sum(3 << (12 * s) for s in range(4)))  # both aces of every suit


# ---------------------------------------------------------------- notation
def parse_card_type(token: str) -> int:
    """Type index of a card token (``"QC"``, ``"10h"``, case-insensitive); ValueError if none."""
    s = token.strip().upper()
    if s.startswith("10"):
        s = "T" + s[2:]
    if len(s) != 2 or s[0] not in RANKS or s[1] not in SUITS:
        raise ValueError(token)
    return card_type(s)


def type_name(t: int) -> str:
    """Canonical name of a card type, e.g. 18 -> ``"AD"``."""
    return RANKS[t % 6] + SUITS[t // 6]


def card_name(c: int) -> str:
    """Canonical name of a physical card."""
    return type_name(c >> 1)


def mask_cards(mask: int) -> list[int]:
    """Physical cards of a mask, ascending."""
    mask = int(mask)
    return [c for c in range(N_CARDS) if mask >> c & 1]


def hand_to_mask(types: list[int]) -> int:
    """Mask of a hand given as card types; the first copy of a type is taken first."""
    mask = 0
    for t in types:
        c = 2 * t
        if mask >> c & 1:
            c += 1
        mask |= 1 << c
    return mask


def mask_str(mask: int, scheme: int = SCHEME_NORMAL) -> str:
    """A hand mask as notation, sorted by the scheme's order (trumps first, high to low)."""
    cards = mask_cards(mask)
    cards.sort(key=lambda c: (FOLLOW_CLASS[scheme, c] != TRUMP, FOLLOW_CLASS[scheme, c], -POWER[scheme, c]))
    return " ".join(card_name(c) for c in cards)


def parse_hand(text: str) -> int:
    """Mask of a hand written in notation (``"QC QC TH ..."``); ValueError names a bad card."""
    return hand_to_mask([parse_card_type(tok) for tok in text.split()])
