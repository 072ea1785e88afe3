"""Independent helpers for the scenario tests, written from RULES.md only.

Nothing here imports the engine: card ranking, following suit and trick
winners are re-implemented from RULES.md 1.2 / 1.4 so that the tests are an
independent check.  The only engine entry point used by the tests is
``dokosim.records.score_objects`` (wrapped by :func:`score`).

Two ways to build a complete, legal 48-card deal:

* :func:`deal_from_tricks` - the test author writes the 12 tricks, each as
  four cards *in seat order* (seat 0, 1, 2, 3).  The helper works out who
  leads each trick (trick 1: the given leader; then the trick winner), the
  order the cards hit the table, the hands, and replays everything through
  :func:`play_out` to check that every card follows suit.
* :func:`play_out` - given four hands, plays the deal out: first the cards of
  an explicit ``script`` (in table order, each checked for legality), then
  every player plays the first legal card of their hand in the order the hand
  was written.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

RANKS = "ATKQJ9"
SUITS = "CSHD"
POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0}

PACK = Counter({r + s: 2 for r in RANKS for s in SUITS})

# ---------------------------------------------------------------- ranking
# RULES.md 1.2.  "normal" covers normal game, marriage, silent marriage,
# failed marriage and the diamonds solo (identical trumps).
_QUEENS = ["QC", "QS", "QH", "QD"]
_JACKS = ["JC", "JS", "JH", "JD"]


def trump_order(kind: str) -> list[str]:
    """Trumps, highest first, for a contract kind."""
    if kind in ("normal", "diamonds"):
        return ["TH"] + _QUEENS + _JACKS + ["AD", "TD", "KD", "9D"]
    if kind in ("clubs", "spades"):
        s = kind[0].upper()
        return ["TH"] + _QUEENS + _JACKS + ["A" + s, "T" + s, "K" + s, "9" + s]
    if kind == "hearts":
        return ["TH"] + _QUEENS + _JACKS + ["AH", "KH", "9H"]
    if kind == "queens":
        return list(_QUEENS)
    if kind == "jacks":
        return list(_JACKS)
    if kind == "fleischlos":
        return []
    raise ValueError(kind)


def plain_order(kind: str, suit: str) -> list[str]:
    """Plain (non-trump) cards of a suit, highest first."""
    trumps = set(trump_order(kind))
    order = {"queens": "ATKJ9", "jacks": "ATKQ9", "fleischlos": "ATKQJ9"}.get(
        kind, "ATK9")
    return [r + suit for r in order if r + suit not in trumps]


def is_trump(card: str, kind: str) -> bool:
    return card in trump_order(kind)


def suit_class(card: str, kind: str) -> str:
    """'T' for a trump, else the card's suit letter."""
    return "T" if is_trump(card, kind) else card[1]


def trick_winner(cards: list[str], kind: str) -> int:
    """Index (in table order) of the card that wins a trick (RULES.md 1.4)."""
    trumps = trump_order(kind)
    played_trumps = [i for i, c in enumerate(cards) if c in trumps]
    if played_trumps:
        # lower index in trump list = higher; ties: earlier card (min i)
        return min(played_trumps, key=lambda i: (trumps.index(cards[i]), i))
    led = cards[0][1]
    order = plain_order(kind, led)
    followers = [i for i, c in enumerate(cards) if c in order]
    return min(followers, key=lambda i: (order.index(cards[i]), i))


def legal(hand: list[str], card: str, led: str | None, kind: str) -> bool:
    """May a player holding ``hand`` play ``card`` on a trick led by ``led``?"""
    if card not in hand:
        return False
    if led is None:
        return True
    need = suit_class(led, kind)
    if any(suit_class(c, kind) == need for c in hand):
        return suit_class(card, kind) == need
    return True


def card_points(cards) -> int:
    return sum(POINTS[c[0]] for c in cards)


# ---------------------------------------------------------------- deals
def cards(text) -> list[str]:
    if isinstance(text, str):
        return [c.upper().replace("10", "T") for c in text.split()]
    return [c.upper() for c in text]


@dataclass
class Trick:
    leader: int
    cards: list[str]          # table order
    seats: list[int]          # seat of each card, table order
    winner: int               # seat

    @property
    def points(self) -> int:
        return card_points(self.cards)

    def by_seat(self, seat: int) -> str:
        return self.cards[self.seats.index(seat)]


@dataclass
class Deal:
    hands: list[list[str]]
    kind: str
    leader: int
    play: list[str] = field(default_factory=list)
    tricks: list[Trick] = field(default_factory=list)

    @property
    def hand_strings(self) -> list[str]:
        return [" ".join(h) for h in self.hands]

    @property
    def winners(self) -> list[int]:
        return [t.winner for t in self.tricks]

    def eyes(self, seats) -> int:
        return sum(t.points for t in self.tricks if t.winner in seats)

    def tricks_won(self, seats) -> int:
        return sum(1 for t in self.tricks if t.winner in seats)

    def holders(self, card: str) -> list[int]:
        return [s for s in range(4) for c in self.hands[s] if c == card]


def check_pack(hands) -> None:
    allc = Counter(c for h in hands for c in h)
    assert allc == PACK, f"not the pack: {allc - PACK} extra, {PACK - allc} missing"
    assert all(len(h) == 12 for h in hands), [len(h) for h in hands]


def play_out(hands, kind: str, leader: int, script=(), n_cards: int = 48) -> Deal:
    """Play a deal: scripted cards first (table order), then first legal card."""
    hands = [cards(h) for h in hands]
    check_pack(hands)
    left = [list(h) for h in hands]
    deal = Deal(hands=hands, kind=kind, leader=leader)
    script = list(cards(script) if isinstance(script, str) else script)
    lead = leader
    while len(deal.play) < n_cards:
        tcards, tseats = [], []
        for k in range(4):
            seat = (lead + k) % 4
            led = tcards[0] if tcards else None
            if script:
                c = script.pop(0).upper()
                if not legal(left[seat], c, led, kind):
                    raise AssertionError(
                        f"scripted {c} by seat {seat} in trick {len(deal.tricks) + 1} "
                        f"is not legal (hand {left[seat]}, led {led})")
            else:
                c = next(x for x in left[seat] if legal(left[seat], x, led, kind))
            left[seat].remove(c)
            tcards.append(c)
            tseats.append(seat)
            deal.play.append(c)
            if len(deal.play) == n_cards:
                break
        if len(tcards) < 4:
            break
        w = tseats[trick_winner(tcards, kind)]
        deal.tricks.append(Trick(lead, tcards, tseats, w))
        lead = w
    return deal


def deal_from_tricks(tricks, kind: str = "normal", leader: int = 0) -> Deal:
    """Build a deal from 12 tricks written in seat order (seat 0..3)."""
    tricks = [cards(t) for t in tricks]
    assert len(tricks) == 12 and all(len(t) == 4 for t in tricks)
    hands = [[t[s] for t in tricks] for s in range(4)]
    play = []
    lead = leader
    for t in tricks:
        order = [(lead + k) % 4 for k in range(4)]
        tc = [t[s] for s in order]
        play.extend(tc)
        lead = order[trick_winner(tc, kind)]
    deal = play_out(hands, kind, leader, script=play)
    assert deal.play == play
    return deal


# ---------------------------------------------------------------- records
def ann(seat: int, call: str, cards_played: int) -> dict:
    return {"seat": seat, "call": call, "cards_played": cards_played}


def record(deal_or_hands, contract=None, play=None, announcements=(),
           dealer: int = 3, rules="ddv") -> dict:
    if isinstance(deal_or_hands, Deal):
        hands = deal_or_hands.hand_strings
        if play is None:
            play = deal_or_hands.play
    else:
        hands = [" ".join(cards(h)) for h in deal_or_hands]
    return {"rules": rules, "dealer": dealer, "hands": hands,
            "contract": contract or {"type": "normal"},
            "play": list(play or []), "announcements": list(announcements)}


def score(rec: dict) -> dict:
    from dokosim.records.record import score_objects
    (out,) = score_objects([rec])
    return out


def points_multiset(out: dict) -> Counter:
    return Counter((p["side"], p["item"]) for p in out["points"])


def pm(*items) -> Counter:
    """pm(("re","won"), ("re","under_90"), ...) or pm("re:won", ...)."""
    res = Counter()
    for it in items:
        if isinstance(it, str):
            side, item = it.split(":")
            res[(side, item)] += 1
        else:
            res[tuple(it)] += 1
    return res


ITEM_WEIGHT = {"re_announced": 2, "kontra_announced": 2}


def value_from_points(out: dict) -> int:
    """V recomputed from the points list (GAME_RECORD.md): winner minus loser."""
    w = out["winner"]
    tot = Counter()
    for p in out["points"]:
        tot[p["side"]] += ITEM_WEIGHT.get(p["item"], 1)
    if w is None:
        return tot["re"] - tot["kontra"]
    other = "kontra" if w == "re" else "re"
    return tot[w] - tot[other]


def seat_of_card(deal: Deal, index: int) -> int:
    """Seat that played the card at 0-based position ``index`` of the play."""
    return [s for t in deal.tricks for s in t.seats][index]


def held(deal: Deal, seat: int, cards_played: int) -> int:
    """Cards in ``seat``'s hand when ``cards_played`` cards are on the table."""
    seats = [s for t in deal.tricks for s in t.seats][:cards_played]
    return 12 - seats.count(seat)


def expect(out: dict, *, contract, re_seats, eyes, tricks, winner, value,
           points, score, soloist=None, declarer=None) -> None:
    """Assert a complete scored record against hand-computed values.

    ``eyes`` and ``tricks`` are (re, kontra) pairs; ``points`` a Counter of
    (side, item) (see :func:`pm`); ``score`` the per-seat list.
    """
    assert out["ok"] is True, out
    assert out.get("complete", True) is True, out
    assert out["contract"] == contract, out
    assert sorted(out["re_seats"]) == sorted(re_seats), out
    assert out["soloist"] == soloist, out
    assert out["declarer"] == declarer, out
    assert (out["eyes"]["re"], out["eyes"]["kontra"]) == tuple(eyes), out
    assert (out["tricks"]["re"], out["tricks"]["kontra"]) == tuple(tricks), out
    assert out["winner"] == winner, out
    assert points_multiset(out) == points, (points_multiset(out), out)
    assert out["game_value"] == value, out
    assert out["score"] == list(score), out
    # GAME_RECORD.md: V = winner's item weights - loser's (nobody wins: as Re
    # scores it), and RULES.md 1.7: a row always sums to 0.
    assert value_from_points(out) == out["game_value"], out
    assert sum(out["score"]) == 0, out
