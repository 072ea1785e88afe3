"""Cards for bot writers (``dokosim.cards``): names and ids, the trump order, the suit a card
follows, eyes, and who wins a trick under a contract.

A card is a name (``"QC"``, ``"TH"``, ``"9s"``; any case, ``"10h"`` too) or its id 0-23, which is
also its action id in ``dokosim.Game`` (docs/game.md: kind = 6 * suit + rank, suits C S H D,
ranks A T K Q J 9). Everything here reads the engine's own tables (engine/cards.py) and its trick
rule (engine/play.card_beats, which the simulator and the game use), so there is one rules
implementation. Contracts by name: ``normal`` (also marriages and poverty, which play the normal
trumps) or ``<kind>_solo``; piglets (a house rule that depends on who holds both AD) are not
modelled here.
"""
from __future__ import annotations

import numpy as np

from ..engine.cards import (
    CLASS_MASK, EYES_BY_RANK, FOLLOW_CLASS, POWER, RANKS, SCHEME_NORMAL, SOLO_KINDS, SOLO_SCHEME, SUIT_NAMES,
    SUITS, TRUMP,
)
from ..engine.layout import R_DULLE
from .game import GameError, action_id

CARDS = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The 24 card names by id (the card action ids of ``dokosim.Game``)."""
CONTRACTS = ("normal", "marriage", "silent_marriage", "poverty", *(f"{k}_solo" for k in SOLO_KINDS))
"""Contract names this module knows (the first four play the normal trumps)."""


def card_id(card) -> int:
    """The id (0-23) of a card name or id; GameError naming it otherwise."""
    if isinstance(card, (int, np.integer)) and not isinstance(card, bool):
        if 0 <= int(card) < 24:
            return int(card)
        raise GameError(f"card id {card!r} is not valid: 0-23 (dokosim.cards.CARDS)")
    try:
        kind = action_id(card) if isinstance(card, str) else -1
    except GameError:
        kind = -1
    if not 0 <= kind < 24:
        raise GameError(f"{card!r} is not a card; valid: a name such as QC, TH, 9S or an id 0-23")
    return kind


def card_name(card) -> str:
    """The name of a card id (or name)."""
    return CARDS[card_id(card)]


def eyes(card) -> int:
    """A card's eyes (points): ace 11, ten 10, king 4, queen 3, jack 2, nine 0."""
    return EYES_BY_RANK[card_id(card) % 6]


def _scheme(contract: str) -> int:
    if contract in ("normal", "marriage", "silent_marriage", "poverty", "marriage_solo"):
        return SCHEME_NORMAL
    if isinstance(contract, str) and contract.endswith("_solo") and contract[:-5] in SOLO_KINDS:
        return int(SOLO_SCHEME[SOLO_KINDS.index(contract[:-5])])
    raise GameError(f"contract {contract!r} is not valid; valid: {', '.join(CONTRACTS)}")


def trumps(contract: str = "normal") -> list[str]:
    """The trumps of ``contract``, highest first (``[]`` in a fleischlos solo)."""
    scheme = _scheme(contract)
    kinds = sorted({c >> 1 for c in range(48) if FOLLOW_CLASS[scheme, c] == TRUMP},
                   key=lambda k: -POWER[scheme, 2 * k])
    return [CARDS[k] for k in kinds]


def suit(card, contract: str = "normal") -> str:
    """What ``card`` follows under ``contract``: ``"trump"`` or its suit (``"clubs"``, ...)."""
    k = int(FOLLOW_CLASS[_scheme(contract), 2 * card_id(card)])
    return "trump" if k == TRUMP else SUIT_NAMES[k]


def same_suit(contract: str = "normal") -> dict[str, list[str]]:
    """The cards of each class under ``contract`` (``"trump"`` and the four suits), each list
    highest first: what a player must follow with."""
    scheme = _scheme(contract)
    out = {}
    for k, name in [(TRUMP, "trump"), *enumerate(SUIT_NAMES)]:
        kinds = sorted({c >> 1 for c in range(48) if CLASS_MASK[scheme, k] >> c & 1},
                       key=lambda t: -POWER[scheme, 2 * t])
        out[name] = [CARDS[t] for t in kinds]
    return out


def trick_winner(cards, contract: str = "normal", rules="ddv", last_trick: bool = False) -> int:
    """The position (0 for the card led) of the card that wins a trick of ``cards`` (names or
    ids, in the order played; 1-4 cards: the trick so far) under ``contract`` and the rules'
    Dulle option (``dulle``: which of two TH wins; ``last_trick`` for its exception)."""
    from ..engine.play import best_offset
    from ..rules import rules_from_object
    if isinstance(cards, (str, bytes)) or not isinstance(cards, (list, tuple, np.ndarray)):
        raise GameError(f"cards={type(cards).__name__}: a trick is a list of 1 to 4 cards (names or ids)")
    kinds = [card_id(c) for c in cards]
    if not 1 <= len(kinds) <= 4:
        raise GameError(f"a trick has 1 to 4 cards, not {len(kinds)}")
    scheme = _scheme(contract)
    dulle = int(rules_from_object(rules).packed()[R_DULLE])
    seen: dict[int, int] = {}
    plays = np.zeros(4, dtype=np.int64)
    for i, k in enumerate(kinds):  # the first copy of a kind is card 2k, the second 2k + 1
        plays[i] = 2 * k + seen.get(k, 0)
        seen[k] = seen.get(k, 0) + 1
        if seen[k] > 2:
            raise GameError(f"{CARDS[k]} appears {seen[k]} times in one trick; the pack has two")
    return int(best_offset(plays, 0, len(kinds), POWER[scheme].copy(), FOLLOW_CLASS[scheme].copy(), dulle,
                           bool(last_trick)))
