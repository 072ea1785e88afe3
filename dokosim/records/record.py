"""Game records (``GAME_RECORD.md``): JSON <-> engine arrays, scoring and error messages.

Records are checked for form here (JSON, fields, card names, the pack); every
rule of play is checked by replaying them through the engine's kernels
(``engine.replay``), so the scorer and the simulator share one implementation.
"""
from __future__ import annotations

import gc
import itertools
import json

import orjson
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..engine.cards import (
    C_MARRIAGE, C_NORMAL, C_POVERTY, C_SOLO_BASE, CONTRACT_NAMES, RANKS, SOLO_KINDS, SUIT_NAMES, card_name,
    mask_cards, parse_card_type,
)
from ..engine.layout import (
    R_LEN, CALL_NAMES, ERROR_KINDS, ITEM_NAMES, N_ITEMS, RES_CLARIFY_TRICK, RES_CONTRACT, RES_DECLARER,
    RES_EYES_RE, RES_LEN, RES_NPLAYED, RES_RE_MASK, RES_SCORE, RES_SOLOIST, RES_TRICKS_RE, RES_VALUE,
    RES_WINNER, WINNER_NAMES,
)
from ..engine.replay import ERR_LEN, Recorded, replay_batch
from ..engine.session import seat_table
from ..rules import PRESETS, Rules, RulesError, rules_from_object
from ..validation import shown as _shown

CALL_LEVEL = {"re": (1, 0), "kontra": (1, 1), "no90": (2, -1), "no60": (3, -1), "no30": (4, -1),
              "schwarz": (5, -1)}
MAX_CALLS = 16
CLASS_NAMES = (*SUIT_NAMES, "trumps")


class RecordError(Exception):
    """A record that cannot be replayed; ``fields`` go into the error line."""

    def __init__(self, kind: str, message: str, **fields):
        super().__init__(message)
        self.kind = kind
        self.fields = fields


@dataclass
class PackedRecord:
    """One record in engine form."""

    rules: Rules
    dealer: int
    hand_types: bytes          # card types seat by seat (the pack is checked by hands_from_types)
    contract: int              # C_NORMAL, C_MARRIAGE or a solo code
    declarer: int
    compulsory: bool
    poverty: tuple             # poverty: (partner, 3 passed types, 3 returned types), else ()
    play: bytes                # card types in the order played
    calls: list[tuple[int, int, int, int]]  # (cards_played, seat, level, named side)
    table: tuple | None = None  # five players: engine seat e (0..3) is table seat table[e]; else None
    bock: int = 0              # the record's ``bock`` multiplier (1 or 2), 0 when it has none

    @property
    def table_dealer(self) -> int:
        """The dealer as the record names it (with five players: the seat sitting out)."""
        return self.dealer if self.table is None else next(s for s in range(5) if s not in self.table)


class RecordTerms(NamedTuple):
    """What a record's output needs besides the kernel's arrays: its rules and contract.

    A ``PackedRecord`` has the same three attributes and can stand in for it.
    """

    rules: Rules
    contract: int   # C_NORMAL, C_MARRIAGE, C_POVERTY or a solo code, as declared
    declarer: int   # -1 for a normal contract (an engine seat)
    table: tuple | None = None  # five players: the table seat of each engine seat; None for four
    bock: int = 0   # the record's bock multiplier, 0 when it has none


def _token_table() -> dict[str, int]:
    table = {}
    for t in range(24):
        name = RANKS[t % 6] + "CSHD"[t // 6]
        rank_spellings = [name[0], name[0].lower()] + (["10"] if name[0] == "T" else [])
        for r in rank_spellings:
            for s in (name[1], name[1].lower()):
                table[r + s] = t
    return table


_TOKEN_TYPES = _token_table()


def _card(token) -> int:
    """Type of one card token; RecordError(unknown_card) for a token that is no card."""
    if not isinstance(token, str):
        raise RecordError("unknown_card", f"{_shown(token)} is not a card name", card=_shown(token))
    try:
        return parse_card_type(token)
    except ValueError:
        raise RecordError("unknown_card", f"{_shown(token)} is not a card (rank {'/'.join(RANKS)}"
                          " or 10, then suit C/S/H/D)", card=token if len(token) <= 60 else token[:57] + "...") from None


def _types(tokens: list) -> list[int]:
    """Card types of a list of tokens (fast path: a dict lookup per token)."""
    try:
        return [_TOKEN_TYPES[t] for t in tokens]
    except (KeyError, TypeError):
        return [_card(t) for t in tokens]


def _int_field(obj: dict, name: str, default, lo: int, hi: int) -> int:
    value = obj.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise RecordError("bad_field", f"field {name!r} must be an integer from {lo} to {hi}, "
                          f"got {_shown(value)}")
    return value


class _Seats(NamedTuple):
    """Who plays a record's deal: the record's (table) seats and the engine's four.

    Four players: the same seats. Five players (rules option ``five_players``): the dealer
    sits out and the engine plays the four others as its seats 0..3 (``engine.session.
    seat_table``, the sessions' own mapping), so a five-player record replays through the same
    kernels as any other."""

    players: int           # 4, or 5
    dealer: int            # the record's dealer
    table: tuple | None    # five players: engine seat e is table seat table[e]; None for four
    engine_dealer: int     # the dealer as the engine sees it

    def engine_seat(self, obj: dict, name: str, what: str) -> int:
        """The engine seat of a record's seat field ``name`` (bad_field if it is not a seat
        that plays this deal)."""
        seat = _int_field(obj, name, None, 0, self.players - 1)
        if self.table is None:
            return seat
        if seat == self.dealer:
            raise RecordError("bad_field", f"{what}: field {name!r} is seat {seat}, the dealer, who sits "
                              "out at a five-player table")
        return self.table.index(seat)

    def table_seat(self, engine: int) -> int:
        """The record's seat of an engine seat."""
        return engine if self.table is None else self.table[engine]


_FOUR_SEATS = tuple(_Seats(4, d, None, d) for d in range(4))


def _five_seats(dealer: int) -> _Seats:
    table = np.zeros(4, dtype=np.int64)
    engine_dealer = seat_table.py_func(dealer, 5, table)  # the kernel's own function, run by Python
    return _Seats(5, dealer, tuple(int(t) for t in table), int(engine_dealer))


_FIVE_SEATS = tuple(_five_seats(d) for d in range(5))


def record_seats(dealer: int, players: int) -> _Seats:
    """The seats of a deal dealt by ``dealer`` at a table of ``players`` (4 or 5)."""
    return _FIVE_SEATS[dealer] if players == 5 else _FOUR_SEATS[dealer]


def _parse_hands(raw, rules: Rules, seats: _Seats = _FOUR_SEATS[3]) -> bytes:
    """Card types of the four playing hands, engine seat by engine seat (48 or 40 ints); the
    pack is checked later. Five players: five hands, the dealer's empty."""
    n = seats.players
    if not isinstance(raw, list) or len(raw) != n:
        raise RecordError("bad_field", f"field 'hands' must be a list of {n} hands"
                          + (" (the dealer's empty)" if n == 5 else ""))
    split = [hand.split() if isinstance(hand, str) else hand for hand in raw]
    for seat, tokens in enumerate(split):
        if not isinstance(tokens, list):
            raise RecordError("bad_field", f"hand of seat {seat} must be a string or a list of cards")
    if seats.table is not None:
        sitting_out = len(split[seats.dealer])
        if sitting_out:
            raise RecordError("not_the_pack", f"seat {seats.dealer} deals and sits out at a five-player table: "
                              f"its hand must be empty, not {sitting_out} cards", seat=seats.dealer)
        split = [split[t] for t in seats.table]
    size = rules.hand_size
    types = bytes(_types(split[0] + split[1] + split[2] + split[3]))
    for engine, tokens in enumerate(split):
        if len(tokens) != size:
            seat = seats.table_seat(engine)
            raise RecordError("not_the_pack", f"seat {seat} holds {len(tokens)} cards, not {size}",
                              seat=seat)
    return types


def _parse_contract(raw, rules: Rules, seats: _Seats = _FOUR_SEATS[3]) -> tuple[int, int, bool, tuple]:
    """(contract code, declarer, compulsory, poverty) of a record's ``contract``, engine seats."""
    if raw is None:
        return C_NORMAL, -1, False, ()
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise RecordError("bad_field", "field 'contract' must be an object with a 'type'")
    kind = raw["type"]
    if kind == "normal":
        return C_NORMAL, -1, False, ()
    if kind == "marriage":
        return C_MARRIAGE, seats.engine_seat(raw, "seat", "the marriage"), False, ()
    if kind == "solo":
        solo = raw.get("kind")
        if not isinstance(solo, str) or solo not in SOLO_KINDS:
            raise RecordError("bad_field", f"solo kind {_shown(solo)} is not one of {', '.join(SOLO_KINDS)}")
        compulsory = raw.get("compulsory", False)
        if not isinstance(compulsory, bool):
            raise RecordError("bad_field", f"field 'compulsory' must be true or false, got {_shown(compulsory)}")
        seat = seats.engine_seat(raw, "seat", "the solo")
        return C_SOLO_BASE + SOLO_KINDS.index(solo), seat, compulsory, ()
    if kind == "poverty":
        seat = seats.engine_seat(raw, "seat", "the poverty")
        if not rules.poverty:
            raise RecordError("bad_contract", "a poverty contract needs the 'poverty' rules option",
                              seat=seats.table_seat(seat))
        partner = seats.engine_seat(raw, "partner", "the poverty")
        if partner == seat:
            shown = seats.table_seat(seat)
            raise RecordError("bad_contract", f"poverty: seat {shown} cannot accept its own poverty",
                              seat=shown)
        cards = []
        for name in ("passed", "returned"):
            value = raw.get(name)
            if not isinstance(value, list) or len(value) != 3:
                raise RecordError("bad_field", f"poverty field {name!r} must be a list of 3 cards")
            cards += _types(value)
        return C_POVERTY, seat, False, (partner, *cards)
    raise RecordError("bad_field", f"contract type {_shown(kind)} is not one of normal, marriage, solo, poverty")


def _parse_calls(raw, max_index: int, seats: _Seats = _FOUR_SEATS[3]) -> list[tuple[int, int, int, int]]:
    """(cards_played, engine seat, level, named side) of each announcement, in order."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise RecordError("bad_field", "field 'announcements' must be a list")
    if len(raw) > MAX_CALLS:
        raise RecordError("bad_field", f"field 'announcements' has {len(raw)} calls; at most {MAX_CALLS} make sense")
    calls = []
    last = 0
    for a in raw:
        if not isinstance(a, dict):
            raise RecordError("bad_field", "each announcement must be an object with seat, call, cards_played")
        seat = seats.engine_seat(a, "seat", "an announcement")
        call = a.get("call")
        if not isinstance(call, str) or call not in CALL_LEVEL:
            raise RecordError("bad_field", f"announcement call {_shown(call)} is not one of {', '.join(CALL_LEVEL)}")
        k = _int_field(a, "cards_played", None, 0, max_index)
        if k < last:
            raise RecordError("bad_field", f"announcement cards_played {k} comes after {last}: "
                              "calls must be listed in the order made")
        last = k
        level, side = CALL_LEVEL[call]
        calls.append((k, seat, level, side))
    return calls


def parse_record(obj) -> PackedRecord:
    """Check a record's form and pack it; RecordError or RulesError on a bad one.

    Every field's type is checked before it is used. Seats in the packed record are the
    engine's (``table`` maps them back for a five-player record)."""
    if not isinstance(obj, dict):
        raise RecordError("bad_json", "the line is not a JSON object")
    # bock and five_players are options of a session; one deal of it is a record like any other
    try:
        rules = rules_from_object(obj.get("rules", "ddv"), session=True)
    except RecursionError:  # its error message's repr of a value nested ~1,000 deep
        raise RecordError("bad_field", "field 'rules' holds a value nested too deep to be a rules option") from None
    players = 5 if rules.five_players else 4
    seats = record_seats(_int_field(obj, "dealer", 3, 0, players - 1), players)
    bock = _int_field(obj, "bock", None, 1, 2) if "bock" in obj else 0
    if "hands" not in obj:
        raise RecordError("bad_field", "field 'hands' is missing")
    hands = _parse_hands(obj["hands"], rules, seats)
    contract, declarer, compulsory, poverty = _parse_contract(obj.get("contract"), rules, seats)
    n_cards = 4 * rules.hand_size
    play_raw = obj.get("play", [])
    if not isinstance(play_raw, list):
        raise RecordError("bad_field", "field 'play' must be a list of cards")
    if len(play_raw) > n_cards:
        raise RecordError("bad_field", f"field 'play' has {len(play_raw)} cards; a deal has {n_cards}")
    play = bytes(_types(play_raw))
    calls = _parse_calls(obj.get("announcements"), n_cards - 1, seats)
    return PackedRecord(rules, seats.engine_dealer, hands, contract, declarer, compulsory, poverty, play, calls,
                        seats.table, bock)


def _byte_rows(rows: list[bytes], width: int) -> np.ndarray:
    """A (len(rows) x width) int64 array from byte strings of card types, padded with zeros."""
    joined = b"".join(r.ljust(width, b"\0") for r in rows)
    return np.frombuffer(joined, dtype=np.uint8).reshape(len(rows), width).astype(np.int64)


_MASK_SEATS = tuple(tuple(s for s in range(5) if mask >> s & 1) for mask in range(32))


def _seats(mask: int) -> list[int]:
    """The seats in a mask of seats."""
    return list(_MASK_SEATS[mask])


def call_name(level: int, side: int) -> str:
    """Record name of raising a side (0 Re, 1 Kontra) to ``level``."""
    return "kontra" if level == 1 and side == 1 else CALL_NAMES[level]


def error_output(p: RecordTerms | PackedRecord, err: np.ndarray) -> dict:
    """The GAME_RECORD error object (without ``line``) for a kernel-reported violation."""
    kind = ERROR_KINDS[int(err[0])]
    engine_seat = int(err[1])
    seat = engine_seat if p.table is None else p.table[engine_seat]  # the record's seat
    if kind == "not_the_pack":
        card = card_name(int(err[3]))
        return {"ok": False, "kind": kind, "card": card,
                "error": f"{card} appears more often than the pack has it"}
    out: dict = {"ok": False, "kind": kind, "seat": seat}
    if kind in ("not_in_hand", "follow_suit"):
        index = int(err[2])
        trick = (index - 1) // 4 + 1
        card = card_name(int(err[3]))
        out.update(trick=trick, card_index=index, card=card)
        if kind == "not_in_hand":
            out["error"] = f"trick {trick}, seat {seat} played {card} but does not hold it"
        else:
            led = int(err[8])
            from ..engine.cards import FOLLOW_CLASS
            from ..engine.play import contract_scheme
            scheme = contract_scheme(p.contract)
            held = [card_name(c) for c in mask_cards(int(err[7])) if FOLLOW_CLASS[scheme, c] == led]
            out["error"] = (f"trick {trick}, seat {seat} played {card} but must follow "
                            f"{CLASS_NAMES[led]} (holds {' '.join(held)})")
    elif kind in ("marriage_without_qc", "bad_contract"):
        if kind == "marriage_without_qc":
            out["error"] = f"seat {seat} declared a marriage without holding both QC"
        elif p.contract == C_POVERTY:
            if engine_seat == p.declarer:
                out["error"] = (f"seat {seat}'s poverty breaks the rules: more than 3 trumps, or the "
                                "passed cards are not 3 of its cards including all its trumps")
            else:
                out["error"] = f"seat {seat} returned cards in the poverty that it does not hold"
        else:
            solo = SOLO_KINDS[p.contract - C_SOLO_BASE]
            out["error"] = (f"seat {seat} declared a {solo} solo, which these rules do not allow "
                            f"(solos: {', '.join(p.rules.solos)})")
    else:
        call = call_name(int(err[4]), int(err[5]))
        k = int(err[6])
        held = bin(int(err[7])).count("1")
        out.update(call=call, cards_played=k)
        what = f"seat {seat} said {call} with {k} cards played (holding {held})"
        out["error"] = what + {
            "wrong_side": f", but seat {seat} does not play for that side",
            "before_clarification": ", before the marriage's clarifying trick was complete",
            "no_raise": ", which does not raise its side's level",
            "announcement_too_late": ", too late for that call (or a level it skips)",
            "denial_after_late_reply": ", but its side's Re/Kontra was a late reply, which bars denials",
        }[kind]
    return out


_POINT_ENTRIES = [[("re", item) for item in ITEM_NAMES], [("kontra", item) for item in ITEM_NAMES]]
_POINT_PATTERNS: dict[bytes, tuple[tuple[str, str], ...]] = {}  # a record's item counts -> its entries
_MAX_POINT_PATTERNS = 50_000


def _point_pattern(counts: np.ndarray) -> tuple[tuple[str, str], ...]:
    """(side, item) of every point of one record's item counts (2 x N_ITEMS), in item order."""
    return tuple(_POINT_ENTRIES[side][item] for side, item in zip(*np.nonzero(counts))
                 for _ in range(counts[side, item]))


def points_lists(items: np.ndarray) -> list[list[dict]]:
    """The ``points`` entries of each record from the kernel's item counts (n x 2 x N_ITEMS)."""
    items = np.ascontiguousarray(items, dtype=np.int64)
    width = items[0].nbytes if len(items) else 0
    counts = items.tobytes()
    if len(_POINT_PATTERNS) > _MAX_POINT_PATTERNS:
        _POINT_PATTERNS.clear()
    points = []
    for r in range(items.shape[0]):
        key = counts[r * width:(r + 1) * width]
        pattern = _POINT_PATTERNS.get(key)
        if pattern is None:
            pattern = _POINT_PATTERNS[key] = _point_pattern(items[r])
        points.append([{"side": side, "item": item} for side, item in pattern])
    return points


def result_output(p: RecordTerms | PackedRecord, res: list[int], points: list[dict]) -> dict:
    """The GAME_RECORD result object (without ``line``) of a replayed record.

    ``res`` is the kernel's row as a Python list; ``points`` from ``points_lists``.
    """
    contract = CONTRACT_NAMES[res[RES_CONTRACT]]
    n_played = res[RES_NPLAYED]
    if n_played < 4 * p.rules.hand_size:
        out = {"ok": True, "complete": False, "contract": contract, "cards_played": n_played}
        if p.contract != C_MARRIAGE or res[RES_CLARIFY_TRICK]:
            re_seats = _seats(res[RES_RE_MASK])
            out["re_seats"] = re_seats if p.table is None else sorted(p.table[e] for e in re_seats)
        return out
    soloist = res[RES_SOLOIST]
    declarer = res[RES_DECLARER]
    eyes_re = res[RES_EYES_RE]
    tricks_re = res[RES_TRICKS_RE]
    winner = res[RES_WINNER]
    return {
        "ok": True,
        "contract": contract,
        "soloist": soloist if soloist >= 0 else None,
        "declarer": declarer if declarer >= 0 else None,
        "re_seats": _seats(res[RES_RE_MASK]),
        "eyes": {"re": eyes_re, "kontra": 240 - eyes_re},
        "tricks": {"re": tricks_re, "kontra": p.rules.hand_size - tricks_re},
        "winner": None if winner == 2 else WINNER_NAMES[winner],
        "game_value": res[RES_VALUE],
        "points": points,
        "score": res[RES_SCORE:RES_SCORE + 4],
    } if p.table is None and not p.bock else _seated_result(p, res, points)


def _seated_result(p: RecordTerms | PackedRecord, res: list[int], points: list[dict]) -> dict:
    """``result_output`` of a five-player record or one with a ``bock`` multiplier: seats are
    the record's (the dealer sitting out scores 0) and ``score`` is multiplied by ``bock``."""
    table = p.table if p.table is not None else (0, 1, 2, 3)
    mult = p.bock or 1
    score = [0] * (5 if p.table is not None else 4)
    for engine, seat in enumerate(table):
        score[seat] = mult * res[RES_SCORE + engine]
    out = result_output(RecordTerms(p.rules, p.contract, p.declarer), res, points)
    for name in ("soloist", "declarer"):
        if out[name] is not None:
            out[name] = table[out[name]]
    out["re_seats"] = sorted(table[e] for e in out["re_seats"])
    out["score"] = score
    if p.bock:
        out["bock"] = p.bock
    return out


BLOCK_RECORDS = 1024  # records replayed in one kernel call; outputs still come one per line, in order


def score_objects(objects: Iterable) -> list[dict]:
    """Score parsed JSON records; one output dict per input, ``line`` numbered from 1."""
    objects = list(objects)
    starts = range(0, len(objects), BLOCK_RECORDS)
    return list(_score_blocks((range(first + 1, min(first + BLOCK_RECORDS, len(objects)) + 1),
                               objects[first:first + BLOCK_RECORDS]) for first in starts))


def score_lines(lines: Iterable[str | bytes]) -> Iterator[dict]:
    r"""Score JSON Lines; blank lines are skipped but keep their line numbers.

    ``lines``: text (str) or raw bytes, each decoded on its own (``dokosim score`` reads the
    input as bytes and splits it at ``\n`` only). Lines are read and scored
    ``BLOCK_RECORDS`` at a time (one kernel call per block); the outputs come one per
    non-blank line, in input order, and a line that is not UTF-8, not JSON or not a valid
    record gets its own error output without affecting the others. A blank line holds
    nothing but JSON whitespace (spaces, tabs, ``\r``, ``\n``).
    """
    return _score_blocks(_line_blocks(lines), from_json=True)


_JSON_SPACE = " \t\r\n"
_JSON_SPACE_BYTES = _JSON_SPACE.encode()


def is_blank_line(line) -> bool:
    """True for a line of JSON whitespace only (or nothing); any other line is a record."""
    kind = type(line)
    if kind is str:
        return not line or (line.isspace() and not line.strip(_JSON_SPACE))
    if kind is bytes:
        return not line or (line.isspace() and not line.strip(_JSON_SPACE_BYTES))
    return False  # not text at all: a bad_json line


def _line_blocks(lines: Iterable) -> Iterator[tuple[list[int], list]]:
    """The non-blank lines, ``BLOCK_RECORDS`` at a time: (line numbers, lines).

    Every line the iterable yields counts as one line, whatever it holds: the line numbers
    are those of the input, and each non-blank line gets exactly one output."""
    numbers: list[int] = []
    texts: list = []
    for number, line in enumerate(lines, start=1):
        if is_blank_line(line):
            continue
        numbers.append(number)
        texts.append(line)
        if len(texts) == BLOCK_RECORDS:
            yield numbers, texts
            numbers, texts = [], []
    if texts:
        yield numbers, texts


def _json_objects(texts: list) -> list:
    """The JSON value of each text (str or bytes); a ``_BadJson`` for a text that is not
    UTF-8, not JSON, or not text at all."""
    from .lines import LineTooLong
    objects = []
    for text in texts:
        if isinstance(text, LineTooLong):  # longer than the line limit: never read whole
            objects.append(_BadJson(text.message()))
            continue
        try:
            value = orjson.loads(text)
            if type(value) is dict and any(type(v) is float and abs(v) >= 2**63 for v in value.values()):
                import json  # orjson reads an integer past 64 bits as a float: keep its digits for the error
                value = json.loads(text)
            objects.append(value)
        except orjson.JSONDecodeError as exc:
            objects.append(_BadJson(_not_json_message(text, exc)))
        except TypeError:
            objects.append(_BadJson(f"the line is not text (a str or bytes), got {type(text).__name__}"))
    return objects


def json_line(text):
    """The JSON value of one line (str or bytes); RecordError(bad_json) naming what is wrong
    (not UTF-8, not JSON), as ``dokosim score`` reports it."""
    value = _json_objects([text])[0]
    if isinstance(value, _BadJson):
        raise RecordError("bad_json", value.message)
    return value


def _not_json_message(text, exc: Exception) -> str:
    """The error of a line orjson refused: where it is not UTF-8, else orjson's message."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            bytes(text).decode("utf-8")
        except UnicodeDecodeError as bad:
            return (f"line is not UTF-8 text: byte 0x{bad.object[bad.start]:02x} at column {bad.start + 1} "
                    f"({bad.reason})")
    return f"line is not JSON: {exc}"


def _score_blocks(blocks: Iterable[tuple[Sequence[int], list]], from_json: bool = False) -> Iterator[dict]:
    """The outputs of blocks of (line numbers, records), in order; records are JSON texts
    when ``from_json``, else parsed objects.

    Each block's kernel call runs on a helper thread (the kernel releases the GIL)
    while this thread checks the next block and builds the previous one's outputs.
    The garbage collector is paused while a block is built: the parsed JSON is freed
    before it resumes, so the collector never walks it.
    """
    blocks = iter(blocks)
    first = next(blocks, None)
    if first is None:
        return
    second = next(blocks, None)

    def checked(numbers, records) -> _Block:
        with _no_gc():
            return _Block(numbers, _json_objects(records) if from_json else records)
    if second is None:  # one block: replayed on this thread (a helper thread would only cost its start)
        block = checked(*first)
        yield from block.outputs(*block.batch.replay())
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="dokosim-score") as replayer:
        pending = None  # the block being replayed, and its kernel call
        for numbers, records in itertools.chain((first, second), blocks):
            block = checked(numbers, records)
            replaying = replayer.submit(block.batch.replay)
            if pending is not None:
                yield from pending[0].outputs(*pending[1].result())
            pending = block, replaying
        if pending is not None:
            yield from pending[0].outputs(*pending[1].result())


@contextmanager
def _no_gc():
    """Pause the cyclic garbage collector: building many small dicts otherwise triggers it
    over and over (these objects hold no cycles)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _BadJson:
    """Stands in for the object of a line that is not JSON."""

    def __init__(self, message: str):
        self.message = message


class _Block:
    """A block of records checked for form and packed for one kernel call.

    Records in the plain form (``_plain_fields``) are packed in bulk; every other
    record, and a plain one whose cards do not all decode, goes through
    ``parse_record``, which accepts it or names the first thing wrong with it.
    """

    def __init__(self, numbers: Sequence[int], objects: list):
        self.numbers = numbers
        self.form_errors: dict[int, dict] = {}  # block position -> output of a record refused before replay
        plain = [_plain_fields(obj) for obj in objects]
        self.batch = batch = _ReplayBatch(len(objects))
        cards_ok = batch.put_plain_cards([i for i, fields in enumerate(plain) if fields is not None],
                                         [fields for fields in plain if fields is not None])
        for i, obj in enumerate(objects):
            fields = plain[i]
            if fields is not None and cards_ok[i]:
                batch.add(i, fields)
            elif isinstance(obj, _BadJson):
                self.form_errors[i] = {"line": numbers[i], "ok": False, "kind": "bad_json",
                                       "error": obj.message}
            else:
                try:
                    p = parse_record(obj)
                except (RecordError, RulesError) as exc:
                    self.form_errors[i] = {"line": numbers[i], **_form_error(exc)}
                    continue
                batch.put_cards(i, p.hand_types, p.play)
                batch.add(i, _RecordFields(RecordTerms(p.rules, p.contract, p.declarer, p.table, p.bock), p.dealer,
                                           p.compulsory, p.poverty, len(p.play), p.calls))
        batch.pack()

    def outputs(self, res: np.ndarray, items: np.ndarray, err: np.ndarray) -> list[dict]:
        """One output per record of the block, in order, given the kernel's answer for the replayed ones."""
        with _no_gc():
            numbers = self.numbers
            outputs: list[dict | None] = [None] * len(numbers)
            for i, out in self.form_errors.items():
                outputs[i] = out
            res_rows, points, failed = res.tolist(), points_lists(items), err[:, 0].tolist()
            for row, i in enumerate(self.batch.positions):
                terms = self.batch.rows[row].terms
                if failed[row]:
                    outputs[i] = {"line": numbers[i], **error_output(terms, err[row])}
                else:
                    outputs[i] = {"line": numbers[i], **result_output(terms, res_rows[row], points[row])}
            return outputs


_MAX_ERROR_CHARS = 300


def _form_error(exc: Exception) -> dict:
    kind = getattr(exc, "kind", "bad_field")
    out = {"ok": False, "kind": kind}
    out.update({k: v for k, v in getattr(exc, "fields", {}).items() if v is not None})
    message = str(exc)  # a rules message may quote a huge value
    out["error"] = message if len(message) <= _MAX_ERROR_CHARS else message[:_MAX_ERROR_CHARS - 3] + "..."
    return out


class _RecordFields(NamedTuple):
    """A record's fields as ``parse_record`` packs them, except the cards (in ``_ReplayBatch``).

    A plain record (``_plain_fields``) also carries its cards as text, to be decoded in bulk.
    """

    terms: RecordTerms
    dealer: int
    compulsory: bool
    poverty: tuple
    n_play: int
    calls: list[tuple[int, int, int, int]]
    hands_text: str = ""  # the four hands joined by single spaces
    play_text: str = ""   # the play joined by single spaces


def _plain_presets() -> dict[str, tuple[Rules, RecordTerms, int, int]]:
    """Per preset name: its rules, the terms of a normal contract, chars of a hand text, cards of a deal."""
    return {name: (rules, RecordTerms(rules, C_NORMAL, -1), 3 * rules.hand_size - 1, 4 * rules.hand_size)
            for name, rules in PRESETS.items()}


_PLAIN_PRESETS = _plain_presets()
_NORMAL_CONTRACT = {"type": "normal"}


def _plain_fields(obj) -> _RecordFields | None:
    """The fields of a record in the plain form, or None for any other record.

    Plain is the form the simulator writes: ``rules`` a preset name, ``hands`` four
    strings of two-letter card names separated by single spaces, ``play`` a list of
    two-letter names, and every other field valid. Card names are not looked at here
    (``_ReplayBatch.put_plain_cards`` decodes them); anything unusual or wrong gives
    None, and ``parse_record`` then decides, so that a plain record packs exactly as
    ``parse_record`` would pack it and every error comes from ``parse_record``.
    """
    if type(obj) is not dict or "bock" in obj:
        return None
    try:
        preset = _PLAIN_PRESETS.get(obj.get("rules", "ddv"))
        if preset is None:
            return None
        rules, normal_terms, hand_chars, n_cards = preset
        dealer = obj.get("dealer", 3)
        hands = obj["hands"]
        play = obj.get("play", [])
        if (type(dealer) is not int or not 0 <= dealer <= 3 or type(hands) is not list or len(hands) != 4
                or type(play) is not list or len(play) > n_cards):
            return None
        hands_text = " ".join(hands)
        play_text = " ".join(play)
        if (not len(hands[0]) == len(hands[1]) == len(hands[2]) == len(hands[3]) == hand_chars
                or not hands_text.isascii() or len(play_text) != max(3 * len(play) - 1, 0)
                or not play_text.isascii()):
            return None
        contract = obj.get("contract")
        if contract is None or contract == _NORMAL_CONTRACT:
            terms, compulsory, poverty = normal_terms, False, ()
        else:
            code, declarer, compulsory, poverty = _parse_contract(contract, rules)
            terms = RecordTerms(rules, code, declarer)
    except (KeyError, TypeError, RecordError):  # a missing field, a hand or card that is no string, ...
        return None
    calls = _plain_calls(obj.get("announcements"), n_cards - 1)
    if calls is None:
        return None
    return _RecordFields(terms, dealer, compulsory, poverty, len(play), calls, hands_text, play_text)


def _plain_calls(raw, max_index: int) -> list[tuple[int, int, int, int]] | None:
    """What ``_parse_calls`` returns for valid announcements, None for anything it might refuse."""
    if raw is None:
        return []
    if type(raw) is not list or len(raw) > MAX_CALLS:
        return None
    calls = []
    last = 0
    try:
        for a in raw:
            if type(a) is not dict:
                return None
            seat = a["seat"]
            k = a["cards_played"]
            level, side = CALL_LEVEL[a["call"]]
            if type(seat) is not int or not 0 <= seat <= 3 or type(k) is not int or not last <= k <= max_index:
                return None
            last = k
            calls.append((k, seat, level, side))
    except (KeyError, TypeError):  # a missing field, or a call that is no call name
        return None
    return calls


def _two_letter_table() -> np.ndarray:
    """Card type of every two-byte card name (as _TOKEN_TYPES spells them), -1 for other pairs."""
    table = np.full((256, 256), -1, dtype=np.int8)
    for token, t in _TOKEN_TYPES.items():
        if len(token) == 2:
            table[ord(token[0]), ord(token[1])] = t
    return table


_TWO_LETTER_TYPES = _two_letter_table()
_SECTION_CHARS = 3 * 48 - 1  # 48 two-letter names and their separating spaces


class _ReplayBatch:
    """The input arrays of ``replay_batch`` for a block of records, filled record by record.

    Rows are put at the record's position in the block; ``add`` marks a position as
    one to replay, and ``replay`` runs the marked ones in the order added.
    """

    def __init__(self, capacity: int):
        self.hand_types = np.zeros((capacity, 48), dtype=np.int64)
        self.plays = np.zeros((capacity, 48), dtype=np.int64)  # physical cards: 2 * type (first copy)
        self.positions: list[int] = []
        self.rows: list[_RecordFields] = []

    def put_plain_cards(self, positions: list[int], plain: list[_RecordFields]) -> np.ndarray:
        """Decode the card texts of plain records into the card arrays, all at once.

        Returns a boolean per block position: True where a plain record's cards all
        decoded (its hands and play are then in place).
        """
        ok = np.zeros(self.hand_types.shape[0], dtype=bool)
        if not positions:
            return ok
        texts = []
        for fields in plain:
            texts.append(fields.hands_text.ljust(_SECTION_CHARS))
            texts.append(fields.play_text.ljust(_SECTION_CHARS))
        # every name takes 3 bytes: its two letters and a space
        chars = np.frombuffer((" ".join(texts) + " ").encode("ascii"), dtype=np.uint8).reshape(len(plain), 96, 3)
        types = _TWO_LETTER_TYPES[chars[:, :, 0], chars[:, :, 1]]
        slot = np.arange(48)
        n_hand = (np.array([len(f.hands_text) for f in plain]) + 1) // 3
        n_play = np.array([f.n_play for f in plain])
        used = np.concatenate([slot < n_hand[:, None], slot < n_play[:, None]], axis=1)
        decoded = ((types >= 0) | ~used).all(axis=1) & (chars[:, :, 2] == ord(" ")).all(axis=1)
        types = np.where(used, types, 0).astype(np.int64)
        self.hand_types[positions] = types[:, :48]
        self.plays[positions] = 2 * types[:, 48:]
        ok[positions] = decoded
        return ok

    def put_cards(self, position: int, hand_types: bytes, play: bytes):
        """Put one packed record's hands and play (card types) at ``position``."""
        self.hand_types[position] = 0
        self.hand_types[position, :len(hand_types)] = np.frombuffer(hand_types, dtype=np.uint8)
        self.plays[position] = 0
        self.plays[position, :len(play)] = 2 * np.frombuffer(play, dtype=np.uint8).astype(np.int64)

    def add(self, position: int, fields: _RecordFields):
        """Mark the record at ``position`` (cards already put) for replay with these fields."""
        self.positions.append(position)
        self.rows.append(fields)

    def pack(self):
        """Turn what was added into the kernel's input arrays (call once, after the last ``add``)."""
        rows = self.rows
        n = len(rows)
        scalars = np.array([(f.dealer, f.terms.contract, f.terms.declarer, f.compulsory, f.n_play, len(f.calls))
                            for f in rows], dtype=np.int64).reshape(n, 6).T.copy()
        dealer, contract, declarer, compulsory, n_play, n_calls = scalars
        calls = np.zeros((n, MAX_CALLS, 4), dtype=np.int64)
        listed = [call for f in rows if f.calls for call in f.calls]
        if listed:
            first_of_row = np.cumsum(n_calls) - n_calls
            call_row = np.repeat(np.arange(n), n_calls)
            calls[call_row, np.arange(len(listed)) - first_of_row[call_row]] = listed
        poverty = np.zeros((n, 8), dtype=np.int64)
        for row, f in enumerate(rows):
            if f.poverty:
                poverty[row, :len(f.poverty)] = f.poverty
        rule_index: dict[int, int] = {}  # by id: the rows hold the Rules objects until the end of this call
        rule_of_row = [rule_index.setdefault(id(f.terms.rules), len(rule_index)) for f in rows]
        distinct = {id(f.terms.rules): f.terms.rules for f in rows}
        rules = np.array([distinct[key].packed() for key in rule_index], dtype=np.int64).reshape(-1, R_LEN)
        self._inputs = Recorded(self.hand_types[self.positions], dealer, contract, declarer, compulsory, poverty,
                                self.plays[self.positions], n_play, calls, n_calls, rules[rule_of_row])

    def replay(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Replay the packed records through the kernels; (res, items, err), a row per record."""
        n = len(self.positions)
        res = np.zeros((n, RES_LEN), dtype=np.int64)
        items = np.zeros((n, 2, N_ITEMS), dtype=np.int64)
        err = np.zeros((n, ERR_LEN), dtype=np.int64)
        if n:
            from ..engine.jit import ensure_loop
            ensure_loop(replay_batch, "the record replay")(self._inputs, items, res, err)
        return res, items, err


def _contract_spec(contract: int, declarer: int, partner: int, passed: int, returned: int,
                   compulsory: bool) -> dict:
    """A record's ``contract`` from a simulated deal's contract code and seats (the record's)."""
    from ..engine.cards import C_MARRIAGE_SOLO, C_SILENT_MARRIAGE
    if contract in (C_NORMAL, C_SILENT_MARRIAGE):
        return {"type": "normal"}
    if contract in (C_MARRIAGE, C_MARRIAGE_SOLO):
        return {"type": "marriage", "seat": declarer}
    if contract == C_POVERTY:
        return {"type": "poverty", "seat": declarer, "partner": partner,
                "passed": [card_name(c) for c in mask_cards(passed)],
                "returned": [card_name(c) for c in mask_cards(returned)]}
    return {"type": "solo", "kind": SOLO_KINDS[contract - C_SOLO_BASE], "seat": declarer,
            "compulsory": compulsory}


def _announcements(calls: np.ndarray, re_mask: int, table: tuple | None) -> list[dict]:
    """A record's ``announcements`` from the deal loop's call log (cards_played, engine seat,
    level; -1 after the last); ``re_mask`` in the record's seats."""
    announcements = []
    for k, seat, level in calls.tolist():
        if k < 0:
            break
        if table is not None:
            seat = table[seat]
        side = 0 if re_mask >> seat & 1 else 1
        announcements.append({"seat": seat, "call": call_name(level, side), "cards_played": k})
    return announcements


def _rules_field(rules: Rules):
    return rules.to_dict() if rules != Rules() else "ddv"


def record_from_row(row: np.ndarray, plays: np.ndarray, calls: np.ndarray, rules: Rules,
                    compulsory: bool = False) -> dict:
    """The game record of one simulated deal (a row of the simulator's ``out`` array)."""
    from ..engine.layout import (
        O_CONTRACT, O_DEALER, O_DECLARER, O_HAND, O_POVERTY_PARTNER, O_POVERTY_PASSED, O_POVERTY_RETURNED,
        O_RE_MASK,
    )
    from ..engine.cards import mask_str
    spec = _contract_spec(int(row[O_CONTRACT]), int(row[O_DECLARER]), int(row[O_POVERTY_PARTNER]),
                          int(row[O_POVERTY_PASSED]), int(row[O_POVERTY_RETURNED]), compulsory)
    n_cards = 4 * rules.hand_size
    return {"rules": _rules_field(rules),
            "dealer": int(row[O_DEALER]),
            "hands": [mask_str(int(row[O_HAND + s])) for s in range(4)],
            "contract": spec,
            "play": [card_name(int(c)) for c in plays[:n_cards]],
            "announcements": _announcements(calls, int(row[O_RE_MASK]), None)}


def records_from_rows(plan, out: np.ndarray, plays: np.ndarray, calls: np.ndarray) -> list[str]:
    """JSON game records of a block of simulated rows (the dataset's ``record`` column)."""
    return [json.dumps(record_from_row(out[i], plays[i], calls[i], plan.rules, plan.compulsory),
                       separators=(",", ":")) for i in range(out.shape[0])]


def record_from_session_row(row: dict, plays: np.ndarray, calls: np.ndarray, rules: Rules) -> dict:
    """The game record of one deal of a session, from its row (column name -> int, seats the
    table's) and the deal loop's cards and calls (engine seats).

    Five players: five hands, the dealer's empty; ``bock`` (the deal's multiplier) when the
    rules have bock triggers, so that the record scores what the row says."""
    from ..engine.cards import mask_str
    players = 5 if rules.five_players else 4
    seats = record_seats(row["dealer"], players)
    spec = _contract_spec(row["contract"], row["declarer"], row["poverty_partner"], row["poverty_passed"],
                          row["poverty_returned"], bool(row["compulsory_solo"]))
    n_cards = 4 * rules.hand_size
    record = {"rules": _rules_field(rules),
              "dealer": row["dealer"],
              "hands": [mask_str(row[f"hand_{p}"]) for p in range(players)],
              "contract": spec,
              "play": [card_name(c) for c in plays[:n_cards].tolist()],
              "announcements": _announcements(calls, row["re_mask"], seats.table)}
    if rules.bock:
        record["bock"] = row["bock"]
    return record


def session_records(plan, out: np.ndarray, index: dict[str, int], plays: np.ndarray,
                    calls: np.ndarray) -> list[str]:
    """JSON game records of a block of session rows (``out``, columns at ``index``; the
    dataset's ``record`` column), one per deal."""
    names = ("dealer", "contract", "declarer", "re_mask", "poverty_partner", "poverty_passed",
             "poverty_returned", "compulsory_solo", "bock", *(f"hand_{p}" for p in range(plan.players)))
    columns = {name: out[:, index[name]].tolist() for name in names}
    return [json.dumps(record_from_session_row({name: col[r] for name, col in columns.items()},
                                               plays[r], calls[r], plan.rules), separators=(",", ":"))
            for r in range(out.shape[0])]


def dealt_hands(p: PackedRecord) -> np.ndarray:
    """The four hands of a packed record as masks (physical copies in seat order)."""
    from ..engine.deal import hands_from_types
    hands = np.zeros(4, dtype=np.int64)
    hands_from_types(np.frombuffer(p.hand_types, dtype=np.uint8).astype(np.int64), p.rules.packed(), hands)
    return hands


def replay_detail(obj) -> dict:
    """Replay one record and return its output plus trick-by-trick detail, for ``show``
    (``res``: the kernel's result row, RES_*; ``error``: its error kind, 0 for none; ``state``:
    the kernel's arrays after the last card, (st, hands, plays, play_seat, trick_winner, power,
    fclass, cmask, rules), as ``play_card`` takes them, for the solver: engine seats).

    Seats are the record's: ``players`` 4 or 5, ``dealer``, ``hands`` (one mask per seat, 0
    for a five-player dealer), ``play_seat``, ``trick_winner``, ``re_mask`` and ``calls``
    ((cards_played, seat, level, named side)); ``packed`` is the engine's form (engine seats)."""
    from ..engine.play import contract_scheme
    from ..engine.position import new_position
    from ..engine.replay import replay_one
    p = parse_record(obj)
    pos = new_position()
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
    items = np.zeros((2, N_ITEMS), dtype=np.int64)
    res = np.zeros(RES_LEN, dtype=np.int64)
    err = np.zeros(ERR_LEN, dtype=np.int64)
    calls = np.zeros((MAX_CALLS, 4), dtype=np.int64)
    if p.calls:
        calls[:len(p.calls)] = p.calls
    play_in = _byte_rows([p.play], 48)[0] * 2
    hand_types = _byte_rows([p.hand_types], 48)[0]
    poverty = np.zeros(8, dtype=np.int64)
    poverty[:len(p.poverty)] = p.poverty
    rules = p.rules.packed()
    replay_one(Recorded(hand_types, p.dealer, p.contract, p.declarer, p.compulsory, poverty, play_in, len(p.play),
                        calls, len(p.calls), rules), pos, items, res, err)
    output = error_output(p, err) if err[0] else result_output(p, res.tolist(), points_lists(items[None])[0])
    n = int(res[RES_NPLAYED])  # describe_state fills res up to the first violation too
    table = p.table if p.table is not None else (0, 1, 2, 3)
    hands_by_seat = [0] * (5 if p.table is not None else 4)
    for engine, hand in enumerate(dealt_hands(p)):
        hands_by_seat[table[engine]] = int(hand)
    re_mask = sum(1 << table[e] for e in range(4) if int(res[RES_RE_MASK]) >> e & 1)
    return {"packed": p, "output": output, "players": len(hands_by_seat), "dealer": p.table_dealer,
            "hands": hands_by_seat, "plays": plays[:n].tolist(),
            "play_seat": [table[e] for e in play_seat[:n].tolist()],
            "trick_winner": [table[e] for e in trick_winner.tolist()],
            "calls": [(k, table[seat], level, named) for k, seat, level, named in p.calls],
            "scheme": int(contract_scheme(p.contract)), "re_mask": re_mask,
            "res": res, "error": int(err[0]),
            "state": (st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules)}
