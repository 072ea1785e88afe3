"""Conditions on the deal: ``hands`` (cards seats hold at least), ``where`` (an expression on the
four hands) and ``where_path`` (a user's ``@njit`` predicate), as ``simulate``, ``tournament``,
``simulate_sessions``, ``probe_calls`` and ``advise`` take them. The language is in
docs/conditions.md.

``parse_conditions`` checks them into a ``Conditions`` (plain data: it travels to Dask
workers); ``Conditions.block`` compiles it into the words that follow sim_loop's control
vector (``loop/conditions.py``, where the dealing is); ``measure`` deals the first deals of
a run under it before the run starts, for the acceptance rate the manifest records and the
one-line error of a condition too rare to deal.
"""
from __future__ import annotations

import functools
import importlib
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..engine.cards import (
    CLASS_MASK, NINES_MASK, RANKS, SCHEME_NAMES, SCHEME_NORMAL, SOLO_KINDS, SOLO_SCHEME, SUIT_NAMES, SUITS,
    TRUMP, mask_str, parse_card_type, type_name,
)
from ..validation import SimulationError

DEFAULT_MAX_TRIES = 10_000_000
PILOT_DEALS = 1000  # deals dealt before a run to measure the acceptance rate


class ConditionError(SimulationError):
    """A condition that cannot be parsed or dealt (one-line message naming it)."""


# ---------------------------------------------------------------- the expression language

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+)|(?P<name>[A-Za-z_][A-Za-z_0-9]*)|(?P<str>'[^']*'|\"[^\"]*\")"
                    r"|(?P<op><=|>=|==|!=|<|>|\+|-|\*|\(|\)|,))")
_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
RANK_FUNCTIONS = {"aces": "A", "tens": "T", "kings": "K", "queens": "Q", "jacks": "J", "nines": "9"}
FUNCTIONS = ("trumps", "suit", *RANK_FUNCTIONS, "eyes", "has", "copies", "cards")
_EYES = (11, 10, 4, 3, 2, 0)


def scheme_index(name: str) -> int:
    """The trump scheme of a contract name (``normal``, ``diamonds``, ``queens``, ``hearts_solo``...)."""
    key = name.strip().lower()
    key = key.removesuffix("_solo")
    if key in ("normal", "marriage", "poverty", "silent_marriage"):
        return SCHEME_NORMAL
    if key in SOLO_KINDS:
        return int(SOLO_SCHEME[SOLO_KINDS.index(key)])
    raise ValueError(name)


def _type_mask(t: int) -> int:
    return 3 << (2 * t)


def _rank_mask(rank: str) -> int:
    r = RANKS.index(rank)
    return sum(_type_mask(6 * s + r) for s in range(4))


MAX_WHERE_LENGTH = 2_000    # characters of a --where expression
MAX_WHERE_DEPTH = 40        # nesting: parentheses, not, unary minus
MAX_WHERE_OPERATORS = 200   # binary operators and comparisons
MAX_WHERE_LITERAL = 10**6   # an integer literal's magnitude
MAX_WHERE_VALUE = 2**62     # any value the expression can take (the kernel computes in int64)


def value_bound(tree) -> tuple[int, int]:
    """(the largest magnitude ``tree``'s value can take, the largest any of its nodes can take):
    a count is at most 48; a comparison, and, or, not give 0 or 1."""
    kind = tree[0]
    if kind == "num":
        return abs(tree[1]), abs(tree[1])
    if kind == "count":
        return 48, 48
    if kind in ("neg", "not"):
        a, inner = value_bound(tree[1])
        return (a if kind == "neg" else 1), inner
    (a, ia), (b, ib) = value_bound(tree[1]), value_bound(tree[2])
    if kind in ("+", "-"):
        v = a + b
    elif kind == "*":
        v = a * b
    else:
        v = 1
    return v, max(v, ia, ib)


class _Parser:
    """Recursive descent over the tokens of ``where`` into a tree of tuples:
    ("num", v), ("count", seat, mask), ("neg", a), ("not", a), (op, a, b) for + - * and or and the
    comparisons."""

    def __init__(self, text: str, scheme: int):
        self.text = text
        self.scheme = scheme
        self.tokens = []
        self.depth = 0
        self.operators = 0
        if len(text) > MAX_WHERE_LENGTH:
            raise ConditionError(f"where= is {len(text):,} characters long: at most {MAX_WHERE_LENGTH:,}")
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                raise self.error(f"unexpected {text[pos:].lstrip()[:10]!r} at character {pos + 1}")
            kind = m.lastgroup
            self.tokens.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
        self.i = 0

    def error(self, what: str) -> ConditionError:
        shown = self.text if len(self.text) <= 80 else self.text[:60] + "..."
        return ConditionError(f"where={shown!r}: {what}")

    def peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else (None, None, len(self.text))

    def take(self, value=None):
        kind, text, pos = self.peek()
        if value is not None and text != value:
            found = "the end" if kind is None else repr(text)
            raise self.error(f"expected {value!r} at character {pos + 1}, found {found}")
        if kind is None:
            raise self.error("unexpected end of the expression")
        self.i += 1
        return kind, text, pos

    def parse(self):
        if not self.tokens:
            raise self.error("empty expression")
        tree = self.or_()
        kind, text, pos = self.peek()
        if kind is not None:
            raise self.error(f"unexpected {text!r} at character {pos + 1}")
        if value_bound(tree)[1] > MAX_WHERE_VALUE:
            raise self.error("its values can exceed 64-bit integers (2**62); use smaller numbers")
        return tree

    def deeper(self, pos):
        """One more level of nesting at ``pos``: an error past MAX_WHERE_DEPTH."""
        self.depth += 1
        if self.depth > MAX_WHERE_DEPTH:
            raise self.error(f"nested more than {MAX_WHERE_DEPTH} levels deep (parentheses, not, minus) at "
                             f"character {pos + 1}")

    def one_more_operator(self, pos):
        self.operators += 1
        if self.operators > MAX_WHERE_OPERATORS:
            raise self.error(f"more than {MAX_WHERE_OPERATORS} operators (at character {pos + 1}); "
                             "a longer condition belongs in a --where-path predicate")

    def left_associative(self, operators, operand):
        """``operand (op operand)*`` for the binary operators ``operators``, grouped to the left:
        (op, left, right) nodes."""
        a = operand()
        while self.peek()[1] in operators:
            _, op, pos = self.take()
            self.one_more_operator(pos)
            a = (op, a, operand())
        return a

    def or_(self):
        return self.left_associative(("or",), self.and_)

    def and_(self):
        return self.left_associative(("and",), self.not_)

    def prefixed(self, word, node, operand, otherwise):
        """``word operand`` as (node, operand) one level deeper, else ``otherwise()``: the prefix
        operators (not, minus), each binding its operand again."""
        if self.peek()[1] == word:
            _, _, pos = self.take()
            self.deeper(pos)
            tree = (node, operand())
            self.depth -= 1
            return tree
        return otherwise()

    def not_(self):
        return self.prefixed("not", "not", self.not_, self.comparison)

    def comparison(self):
        a = self.sum_()
        result = None
        while self.peek()[1] in _COMPARISONS:  # chained: 7 <= trumps(0) <= 9
            _, op, pos = self.take()
            self.one_more_operator(pos)
            b = self.sum_()
            term = (op, a, b)
            result = term if result is None else ("and", result, term)
            a = b
        return a if result is None else result

    def sum_(self):
        return self.left_associative(("+", "-"), self.product)

    def product(self):
        return self.left_associative(("*",), self.unary)

    def unary(self):
        return self.prefixed("-", "neg", self.unary, self.atom)

    def atom(self):
        kind, text, pos = self.take()
        if kind == "num":
            if len(text) > 7 or int(text) > MAX_WHERE_LITERAL:
                raise self.error(f"the number {text[:20]}{'...' if len(text) > 20 else ''} at character {pos + 1} "
                                 f"is too large: at most {MAX_WHERE_LITERAL:,}")
            return ("num", int(text))
        if text == "(":
            self.deeper(pos)
            tree = self.or_()
            self.take(")")
            self.depth -= 1
            return tree
        if kind == "name" and text in ("true", "false"):
            return ("num", 1 if text == "true" else 0)
        if kind == "name" and text in FUNCTIONS:
            return self.function(text, pos)
        if kind == "name":
            raise self.error(f"unknown name {text!r} at character {pos + 1}; functions: "
                             f"{', '.join(FUNCTIONS)} (docs/conditions.md)")
        raise self.error(f"unexpected {text!r} at character {pos + 1}")

    def function(self, name: str, pos: int):
        self.take("(")
        args = []
        if self.peek()[1] != ")":
            while True:
                kind, text, p = self.take()
                if kind == "num":
                    args.append(int(text))
                elif kind == "str":
                    args.append(text[1:-1])
                else:
                    raise self.error(f"{name}(): arguments are numbers and 'quoted' names, got {text!r} "
                                     f"at character {p + 1}")
                if self.peek()[1] != ",":
                    break
                self.take(",")
        self.take(")")
        return self.call(name, args)

    def seat(self, name, args):
        if not args or not isinstance(args[0], int) or args[0] not in range(4):
            got = repr(args[0]) if args else "nothing"
            raise self.error(f"{name}(): the first argument is a seat 0-3, got {got}")
        return args[0]

    def named(self, name, value, parse, what) -> int:
        """``parse(value)`` of a quoted argument of ``name()``; not a string, or one ``parse``
        refuses: the error that ``value`` is not ``what``."""
        try:
            if not isinstance(value, str):
                raise ValueError(value)  # noqa: TRY004  (caught below)
            return parse(value)
        except ValueError:
            raise self.error(f"{name}(): {value!r} is not {what}") from None

    def card(self, name, value) -> int:
        return self.named(name, value, parse_card_type, "a card; a card is a rank A T K Q J 9 (or 10) "
                          "and a suit C S H D, e.g. 'QC'")

    def scheme_arg(self, name, value) -> int:
        return self.named(name, value, scheme_index, f"a trump scheme; valid: normal, {', '.join(SOLO_KINDS)}")

    def arity(self, name, args, lo, hi, usage):
        if not lo <= len(args) <= hi:
            raise self.error(f"{name}() takes {usage}, got {len(args)} argument(s)")

    def call(self, name: str, args: list):
        seat = self.seat(name, args)
        if name == "trumps":
            self.arity(name, args, 1, 2, "(seat[, 'scheme'])")
            scheme = self.scheme_arg(name, args[1]) if len(args) == 2 else self.scheme
            return ("count", seat, int(CLASS_MASK[scheme, TRUMP]))
        if name == "suit":
            self.arity(name, args, 2, 3, "(seat, 'C'|'S'|'H'|'D'[, 'scheme'])")
            s = args[1]
            names = {**{c: i for i, c in enumerate(SUITS)}, **{n: i for i, n in enumerate(SUIT_NAMES)}}
            if not isinstance(s, str) or (s.upper() if len(s) == 1 else s.lower()) not in names:
                raise self.error(f"suit(): {s!r} is not a suit; valid: C S H D (or clubs, spades, hearts, "
                                 "diamonds)")
            suit = names[s.upper() if len(s) == 1 else s.lower()]
            scheme = self.scheme_arg(name, args[2]) if len(args) == 3 else self.scheme
            return ("count", seat, int(CLASS_MASK[scheme, suit]))
        if name in RANK_FUNCTIONS:
            self.arity(name, args, 1, 1, "(seat)")
            return ("count", seat, _rank_mask(RANK_FUNCTIONS[name]))
        if name == "eyes":
            self.arity(name, args, 1, 1, "(seat)")
            tree = None
            for rank, eyes in zip(RANKS, _EYES):
                if eyes:
                    term = ("*", ("num", eyes), ("count", seat, _rank_mask(rank)))
                    tree = term if tree is None else ("+", tree, term)
            return tree
        if name == "copies":
            self.arity(name, args, 2, 2, "(seat, 'CARD')")
            return ("count", seat, _type_mask(self.card(name, args[1])))
        if name == "has":
            self.arity(name, args, 2, 3, "(seat, 'CARD'[, copies 1 or 2])")
            n = args[2] if len(args) == 3 else 1
            if not isinstance(n, int) or n not in (1, 2):
                raise self.error(f"has(): the copies are 1 or 2, got {n!r}")
            return (">=", ("count", seat, _type_mask(self.card(name, args[1]))), ("num", n))
        # cards(seat, 'QC QS TH'): how many of these cards (both copies of each) the seat holds
        self.arity(name, args, 2, 2, "(seat, 'CARD CARD ...')")
        if not isinstance(args[1], str) or not args[1].split():
            raise self.error("cards(): the second argument is cards like 'QC QS TH'")
        mask = 0
        for token in args[1].split():
            mask |= _type_mask(self.card(name, token))
        return ("count", seat, mask)


_BINARY = {"+": 2, "-": 3, "*": 4, "==": 6, "!=": 7, "<": 8, "<=": 9, ">": 10, ">=": 11, "and": 12, "or": 13}


def compile_tree(tree) -> tuple[list[int], int]:
    """The bytecode of a tree (loop/conditions.py's OP_* codes) and the stack depth it needs."""
    from ..loop.conditions import OP_COUNT, OP_NEG, OP_NOT, OP_PUSH
    code: list[int] = []

    def emit(node) -> int:
        kind = node[0]
        if kind == "num":
            code.extend((OP_PUSH, node[1]))
            return 1
        if kind == "count":
            code.extend((OP_COUNT, node[1], node[2]))
            return 1
        if kind in ("neg", "not"):
            depth = emit(node[1])
            code.append(OP_NEG if kind == "neg" else OP_NOT)
            return depth
        a = emit(node[1])
        b = emit(node[2])
        code.append(_BINARY[kind])
        return max(a, b + 1)

    depth = emit(tree)
    return code, depth


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def count_conjuncts(tree):
    """The top-level conjuncts of the form count(seat, mask) OP number: (seat, mask, op, number)."""
    if tree[0] == "and":
        return count_conjuncts(tree[1]) + count_conjuncts(tree[2])
    if tree[0] in _FLIP:
        op, a, b = tree
        if a[0] == "num" and b[0] == "count":
            op, a, b = _FLIP[op], b, a
        if a[0] == "count" and b[0] == "num":
            return [(a[1], a[2], op, b[1])]
    return []


def _holds(op: str, x: int, k: int) -> bool:
    return {"==": x == k, "!=": x != k, "<": x < k, "<=": x <= k, ">": x > k, ">=": x >= k}[op]


# ---------------------------------------------------------------- the conditions of a run

@dataclass
class Conditions:
    """A run's conditions, checked: placed cards per seat (copy 0 of a card first), the
    expression and the predicate path as given, the default trump scheme and the try limit."""

    hands: dict[int, int] = field(default_factory=dict)  # seat -> 48-bit mask of cards held at least
    where: str | None = None
    where_path: str | None = None
    scheme: int = SCHEME_NORMAL
    max_tries: int = DEFAULT_MAX_TRIES
    hand_size: int = 12
    no_nines: bool = False

    def manifest(self) -> dict:
        """What the dataset manifest records (and resume checks)."""
        return {"hands": {str(s): mask_str(m) for s, m in sorted(self.hands.items())},
                "where": self.where, "where_path": self.where_path,
                "trump_scheme": SCHEME_NAMES[self.scheme]}

    def tree(self):
        return None if self.where is None else _Parser(self.where, self.scheme).parse()

    def direct_class(self):
        """The count class dealt directly: (seat, class mask among the free cards, cdf words,
        its exact probability given the placed cards), the least likely of the expression's
        top-level count conjuncts; None without one. Allowed counts none: ConditionError."""
        tree = self.tree()
        if tree is None:
            return None
        placed_all = 0
        for m in self.hands.values():
            placed_all |= m
        free = self.pack() & ~placed_all
        groups: dict[tuple[int, int], set[int]] = {}
        for seat, mask, op, k in count_conjuncts(tree):
            allowed = {t for t in range(self.hand_size + 1) if _holds(op, t, k)}
            key = (seat, mask)
            groups[key] = groups.get(key, set(range(self.hand_size + 1))) & allowed
        best = None
        for (seat, mask), allowed in groups.items():
            fixed = self.hands.get(seat, 0)
            placed_in = (fixed & mask).bit_count()
            slots = self.hand_size - (fixed).bit_count()
            cls = free & mask
            n_all, k_cls = (free).bit_count(), (cls).bit_count()
            pmf = [Fraction(math.comb(k_cls, x) * math.comb(n_all - k_cls, slots - x), math.comb(n_all, slots))
                   if 0 <= slots - x <= n_all - k_cls and x <= k_cls else Fraction(0)
                   for x in range(slots + 1)]
            kept = [p if placed_in + x in allowed else Fraction(0) for x, p in enumerate(pmf)]
            total = sum(kept)
            if total == 0:
                raise ConditionError(f"where={self.where!r} can never hold: no deal gives seat {seat} a "
                                     f"count of those cards it allows (acceptance 0)")
            if best is None or total < best[3]:
                best = (seat, cls, kept, total)
        if best is None:
            return None
        seat, cls, kept, total = best
        cdf, acc = [], Fraction(0)
        for p in kept:
            acc += p
            cdf.append(int(acc / total * (1 << 53)))
        cdf = (cdf + [1 << 53] * 13)[:13]
        cdf = [min(c, 1 << 53) for c in cdf]
        if kept:  # the last count that may be drawn ends the table
            last = max(x for x, p in enumerate(kept) if p)
            for x in range(last, 13):
                cdf[x] = 1 << 53
        return seat, cls, cdf, float(total)

    def pack(self) -> int:
        full = (1 << 48) - 1
        return full & ~int(NINES_MASK) if self.no_nines else full

    def block(self) -> np.ndarray:
        """The control words of loop/conditions.py (COND_BASE on)."""
        from ..loop import conditions as ec
        placed_all = 0
        for m in self.hands.values():
            placed_all |= m
        words = [0] * (ec.K_PROGRAM - ec.COND_BASE)

        def put(index, value):
            words[index - ec.COND_BASE] = int(value)
        put(ec.K_ON, 1)
        put(ec.K_MAX_TRIES, self.max_tries)
        put(ec.K_FREE, self.pack() & ~placed_all)
        for s in range(4):
            fixed = self.hands.get(s, 0)
            put(ec.K_FIXED + s, fixed)
            put(ec.K_SLOTS + s, self.hand_size - (fixed).bit_count())
            put(ec.K_HALF + s, self.half_mask(s))
        direct = self.direct_class()
        put(ec.K_DIRECT_SEAT, -1 if direct is None else direct[0])
        if direct is not None:
            put(ec.K_DIRECT_MASK, direct[1])
            for x, c in enumerate(direct[2]):
                put(ec.K_CDF + x, c)
        put(ec.K_PREDICATE, predicate_address(self.where_path, self.no_nines) if self.where_path else 0)
        tree = self.tree()
        code, depth = compile_tree(tree) if tree is not None else ([], 0)
        if depth > ec.STACK_DEPTH:
            raise ConditionError(f"where={self.where!r} nests too deeply (needs a stack of {depth}, "
                                 f"at most {ec.STACK_DEPTH})")
        put(ec.K_PROGRAM_LEN, len(code))
        return np.array(words + code, dtype=np.int64)

    def half_mask(self, seat: int) -> int:
        """The copy-1 bits of the cards ``seat`` needs once and no other seat needs: a deal that
        gives it that copy too is kept with probability 1/2 (loop/conditions.py)."""
        mask = 0
        fixed = self.hands.get(seat, 0)
        for t in range(24):
            if (fixed >> (2 * t)) & 3 == 1 and not any((m >> (2 * t + 1)) & 1 for s, m in self.hands.items()
                                                       if s != seat):
                mask |= 1 << (2 * t + 1)
        return mask

    def is_fixed_hand(self) -> bool:
        """One seat's whole hand and nothing else: the case ``fixed_hand`` deals (its rows kept)."""
        return (len(self.hands) == 1 and self.where is None and self.where_path is None
                and next(iter(self.hands.values())).bit_count() == self.hand_size)


def parse_hands(hands, rules) -> dict[int, int]:
    """``{seat: cards}`` (cards in notation, "QC QC TH", or a 48-bit mask): each seat holds at
    least these cards. Copies are assigned over the seats in seat order (copy 0 first), so two
    seats asking for one TH each get one each. ConditionError in one line on a bad value."""
    if hands is None:
        return {}
    if not isinstance(hands, dict):
        raise ConditionError(f"hands must be a dict {{seat: 'cards'}}, got {hands!r}")
    counts: dict[int, dict[int, int]] = {}
    for seat, cards in hands.items():
        if isinstance(seat, str) and seat.strip().isdigit():
            seat = int(seat)
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or seat not in range(4):
            raise ConditionError(f"hands: seat must be 0-3, got {seat!r}")
        types: dict[int, int] = {}
        if isinstance(cards, str):
            for token in cards.replace(",", " ").split():
                try:
                    t = parse_card_type(token)
                except ValueError:
                    raise ConditionError(f"hands: unknown card {token!r} (seat {seat}); cards are a rank "
                                         "A T K Q J 9 (or 10) and a suit C S H D, e.g. QC TH") from None
                types[t] = types.get(t, 0) + 1
        elif isinstance(cards, (int, np.integer)) and not isinstance(cards, bool) and 0 <= cards < 2**48:
            for c in range(48):
                if (int(cards) >> c) & 1:
                    types[c >> 1] = types.get(c >> 1, 0) + 1
        else:
            raise ConditionError(f"hands: seat {seat} must hold cards like 'QC QS TH' or a 48-bit mask, "
                                 f"got {cards!r}")
        n = sum(types.values())
        if n == 0:
            raise ConditionError(f"hands: seat {seat} is given no cards ({cards!r}); give cards like 'QC TH' "
                                 "or leave the seat out")
        if n > rules.hand_size:
            raise ConditionError(f"hands: seat {seat} is given {n} cards; a hand has {rules.hand_size} "
                                 "under these rules")
        if rules.no_nines and any(t % 6 == 5 for t in types):
            raise ConditionError(f"hands: seat {seat} holds a nine; the rules say no_nines")
        counts[int(seat)] = types
    taken: dict[int, int] = {}
    masks = {}
    for seat in sorted(counts):
        mask = 0
        for t, k in counts[seat].items():
            if taken.get(t, 0) + k > 2:
                who = [s for s in sorted(counts) if t in counts[s]]
                raise ConditionError(f"hands: {type_name(t)} is asked for {taken.get(t, 0) + k} times "
                                     f"(seats {', '.join(map(str, who))}); the pack has two")
            for _ in range(k):
                mask |= 1 << (2 * t + taken.get(t, 0))
                taken[t] = taken.get(t, 0) + 1
        masks[seat] = mask
    return masks


def manifest_conditions(manifest: dict) -> dict:
    """The conditions of a dataset's manifest as simulate's keyword arguments (hands, where,
    where_path; none for a dataset without conditions): to replay its deals (dokosim show)."""
    entry = manifest.get("conditions")
    if not isinstance(entry, dict):
        return {}
    hands = entry.get("hands") or None
    if isinstance(hands, dict):
        hands = {int(s) if str(s).isdigit() else s: cards for s, cards in hands.items()}
    return {"hands": hands, "where": entry.get("where"), "where_path": entry.get("where_path")}


def parse_conditions(hands=None, where=None, where_path=None, rules=None, contract=None,
                     max_tries=DEFAULT_MAX_TRIES) -> Conditions | None:
    """The run's conditions checked (None without any): ConditionError in one line naming the
    bad value. ``contract``: a forced contract, whose trumps ``trumps(seat)`` counts (else the
    normal game's)."""
    from ..validation import check_int, check_optional_str
    masks = parse_hands(hands, rules)
    where = check_optional_str("where", where, "None or an expression like 'trumps(0) >= 9'", ConditionError)
    where_path = check_optional_str("where_path", where_path, "None or 'module:function'", ConditionError)
    max_tries = check_int("max_tries", max_tries, 1, 10**12, ConditionError)
    if where is not None and not where.strip():
        raise ConditionError("where='' is empty; give an expression like 'trumps(0) >= 9' or None")
    if not masks and where is None and where_path is None:
        return None
    scheme = SCHEME_NORMAL if contract is None else scheme_index(contract)
    cond = Conditions(masks, where, where_path, scheme, int(max_tries), rules.hand_size, rules.no_nines)
    cond.tree()  # parse errors now, before any work
    if where_path is not None:
        predicate_address(where_path, rules.no_nines)
    return cond


# ---------------------------------------------------------------- a user's predicate

_PREDICATES: dict[str, object] = {}  # where_path -> its compiled cfunc (kept alive: its address is used)
# where_path -> (the user's function, int64[5]: how often it raised in the compiled entry, and the
# four hands of one such deal); kept alive with the cfunc, whose code writes to it
_RAISES: dict[str, tuple[object, np.ndarray]] = {}


@functools.cache
def _raise_recorder():
    """An intrinsic ``record(addr, h0, h1, h2, h3)``: count a raise at the int64 word ``addr`` and
    keep the four hands in the next four words (built on first use: numba is imported late)."""
    from llvmlite import ir as llvm_ir
    from numba import types
    from numba.extending import intrinsic

    @intrinsic
    def record(typingctx, addr, h0, h1, h2, h3):
        sig = types.void(types.int64, types.int64, types.int64, types.int64, types.int64)

        def codegen(context, builder, signature, args):
            i64 = llvm_ir.IntType(64)
            base = builder.inttoptr(args[0], i64.as_pointer())
            builder.store(builder.add(builder.load(base), llvm_ir.Constant(i64, 1)), base)
            for k in range(4):
                builder.store(args[1 + k], builder.gep(base, [llvm_ir.Constant(i64, k + 1)]))
            return context.get_dummy_value()

        return sig, codegen
    return record


def predicate_address(spec: str, no_nines: bool = False) -> int:
    """The address of ``module:function`` (an ``@njit`` function of the four hand masks returning
    a bool or an int) compiled as a C function int64(int64, int64, int64, int64): the user's
    code is compiled, the deal loop is not (it calls the address). A deal on which the function
    raises is not dealt and is recorded; ``check_predicates`` then stops the run in one line."""
    if spec in _PREDICATES:
        return _PREDICATES[spec].address
    from ..validation import where_raised
    module_path, colon, name = spec.partition(":")
    if not colon or not module_path or not name:
        raise ConditionError(f"where_path={spec!r} must be module:function")
    importlib.invalidate_caches()  # a module written since the last import
    try:
        module = importlib.import_module(module_path)
    except ImportError as exc:
        raise ConditionError(f"where_path={spec!r}: cannot import {module_path!r}: {exc}") from None
    except Exception as exc:  # noqa: BLE001  the user's module failed while importing: say where
        raise ConditionError(f"where_path={spec!r}: importing {module_path!r} failed: {where_raised(exc)}") from None
    fn = getattr(module, name, None)
    if fn is None:
        raise ConditionError(f"where_path={spec!r}: {module_path} has no {name!r}")
    if not hasattr(fn, "py_func"):
        raise ConditionError(f"where_path={spec!r}: {name} must be a numba function (@numba.njit) of "
                             "the four hand masks")
    from numba import cfunc

    from ..engine.jit import ENTRY_OPTIONS
    raises = np.zeros(5, dtype=np.int64)
    raises_address = raises.ctypes.data
    record_raise = _raise_recorder()

    def entry(h0, h1, h2, h3):
        try:
            return 1 if fn(h0, h1, h2, h3) else 0
        except Exception:  # noqa: BLE001  numba prints and ignores a raise in a C function: record it
            record_raise(raises_address, h0, h1, h2, h3)
            return 0
    try:
        compiled = cfunc("int64(int64, int64, int64, int64)", **ENTRY_OPTIONS)(entry)
    except Exception as exc:  # noqa: BLE001  numba's typing errors are many lines: the first says what
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConditionError(f"where_path={spec!r}: {name}(h0, h1, h2, h3) does not compile: {first}") from None
    _try_predicate(fn, spec, name, no_nines)
    _PREDICATES[spec] = compiled
    _RAISES[spec] = (fn, raises)
    return compiled.address


def check_predicates() -> None:
    """ConditionError in one line if a user's predicate raised in the compiled deal loop since
    the last check (the deals it raised on were not dealt), naming what it raised and where; the
    caller writes nothing of the chunk that saw it."""
    from ..validation import where_raised
    for spec, (fn, raises) in _RAISES.items():
        count = int(raises[0])
        if count == 0:
            continue
        hands = [np.int64(h) for h in raises[1:]]
        raises[:] = 0
        name = spec.partition(":")[2]
        try:
            fn(*hands)
            what = "an exception"  # threads wrote the record at once: the hands kept are not one deal's
        except Exception as exc:  # noqa: BLE001  whatever the user's code raised
            what = where_raised(exc)
        raise ConditionError(f"where_path={spec!r}: {name}(h0, h1, h2, h3) raised {what} on {count:,} "
                             f"deal(s) while dealing, e.g. hands {[hex(h) for h in hands]}; fix the predicate")


PREDICATE_TRIES = 256  # random deals a predicate is tried on before a run


def _try_predicate(fn, spec: str, name: str, no_nines: bool = False) -> None:
    """Call the predicate on PREDICATE_TRIES random deals (seeded) before the run: one that raises
    is refused in one line naming where, instead of a traceback printed by the compiled entry at
    every try of the run. (One that raises only on rarer hands is not caught here.)"""
    from ..validation import where_raised
    from ..engine.cards import NINES_MASK
    deck = [c for c in range(48) if not (no_nines and (int(NINES_MASK) >> c) & 1)]
    size = len(deck) // 4
    rng = np.random.default_rng(0)
    for _ in range(PREDICATE_TRIES):
        order = rng.permutation(deck)
        masks = [np.int64(sum(1 << int(c) for c in order[size * s:size * s + size])) for s in range(4)]
        try:
            fn(*masks)
        except Exception as exc:  # noqa: BLE001  whatever the user's code raised
            raise ConditionError(f"where_path={spec!r}: {name}(h0, h1, h2, h3) raised {where_raised(exc)}") from None


# ---------------------------------------------------------------- before a run

def measure(conditions: Conditions, control: np.ndarray, seed: int, deals: int) -> dict:
    """Deal the first min(deals, PILOT_DEALS) deals under the condition (``control`` with its
    block) and return the acceptance rate; ConditionError naming the measured rate when the
    tries run out first (an impossible or extremely rare condition)."""
    from ..loop.conditions import measure_acceptance
    max_tries = conditions.max_tries
    direct = conditions.direct_class()
    share = None if direct is None else {"seat": direct[0], "share": direct[3]}
    n = min(int(deals), PILOT_DEALS)
    if n == 0:
        return {"pilot_deals": 0, "tries": 0, "acceptance": None, "direct_class": share}
    dealt, tries = measure_acceptance(seed, n, control.copy(), max_tries)
    check_predicates()
    if dealt < n:
        rate = dealt / tries if tries else 0.0
        raise ConditionError(
            f"the condition is too rare to deal: {dealt} matching deals in {tries:,} tries (acceptance "
            f"{rate:.3g}), {n} needed to start; loosen it or raise max_tries")
    return {"pilot_deals": n, "tries": int(tries), "acceptance": n / tries, "direct_class": share}


def report_acceptance(acceptance: dict, quiet: bool) -> None:
    """One line on stderr (unless ``quiet``): the acceptance rate measured before the run."""
    import sys
    if quiet or not acceptance.get("pilot_deals"):
        return
    direct = acceptance.get("direct_class")
    dealt = "" if direct is None else (f"; seat {direct['seat']}'s count class, {100 * direct['share']:.3g}% "
                                       "of deals, dealt directly")
    print(f"dokosim: conditions: {acceptance['pilot_deals']} deals in {acceptance['tries']:,} tries "
          f"(acceptance {acceptance['acceptance']:.3g}{dealt})", file=sys.stderr, flush=True)
