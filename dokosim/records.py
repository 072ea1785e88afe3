"""Game records (``GAME_RECORD.md``): JSON <-> engine arrays, scoring and error messages.

Records are checked for form here (JSON, fields, card names, the pack); every
rule of play is checked by replaying them through the engine's kernels
(``engine.replay``), so the scorer and the simulator share one implementation.
"""
from __future__ import annotations

import gc
import json

import orjson
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from .cards import (
    C_MARRIAGE, C_NORMAL, C_POVERTY, C_SOLO_BASE, CONTRACT_NAMES, RANKS, SOLO_KINDS, SUIT_NAMES, card_name,
    mask_cards, parse_card_type,
)
from .engine.layout import (
    R_LEN, CALL_NAMES, ERROR_KINDS, ITEM_NAMES, N_ITEMS, RES_CLARIFY_TRICK, RES_CONTRACT, RES_DECLARER,
    RES_EYES_RE, RES_LEN, RES_NPLAYED, RES_RE_MASK, RES_SCORE, RES_SOLOIST, RES_TRICKS_RE,
    RES_VALUE, RES_WINNER, WINNER_NAMES,
)
from .engine.replay import ERR_LEN, replay_batch
from .rules import Rules, RulesError, rules_from_object

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
        raise RecordError("unknown_card", f"{token!r} is not a card name", card=str(token))
    try:
        return parse_card_type(token)
    except ValueError:
        raise RecordError("unknown_card", f"{token!r} is not a card (rank {'/'.join(RANKS)}"
                          " or 10, then suit C/S/H/D)", card=token) from None


def _types(tokens: list) -> list[int]:
    """Card types of a list of tokens (fast path: a dict lookup per token)."""
    try:
        return [_TOKEN_TYPES[t] for t in tokens]
    except (KeyError, TypeError):
        return [_card(t) for t in tokens]


def _int_field(obj: dict, name: str, default, lo: int, hi: int) -> int:
    value = obj.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise RecordError("bad_field", f"field {name!r} must be an integer from {lo} to {hi}, got {value!r}")
    return value


def _parse_hands(raw, rules: Rules) -> bytes:
    """Card types of the four hands, seat by seat (48 or 40 ints); the pack is checked later."""
    if not isinstance(raw, list) or len(raw) != 4:
        raise RecordError("bad_field", "field 'hands' must be a list of 4 hands")
    size = rules.hand_size
    split = [hand.split() if isinstance(hand, str) else hand for hand in raw]
    for seat, tokens in enumerate(split):
        if not isinstance(tokens, list):
            raise RecordError("bad_field", f"hand of seat {seat} must be a string or a list of cards")
    types = bytes(_types(split[0] + split[1] + split[2] + split[3]))
    for seat, tokens in enumerate(split):
        if len(tokens) != size:
            raise RecordError("not_the_pack", f"seat {seat} holds {len(tokens)} cards, not {size}",
                              seat=seat)
    return types


def _parse_contract(raw, rules: Rules) -> tuple[int, int, bool, tuple]:
    if raw is None:
        return C_NORMAL, -1, False, ()
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise RecordError("bad_field", "field 'contract' must be an object with a 'type'")
    kind = raw["type"]
    if kind == "normal":
        return C_NORMAL, -1, False, ()
    if kind == "marriage":
        return C_MARRIAGE, _int_field(raw, "seat", None, 0, 3), False, ()
    if kind == "solo":
        solo = raw.get("kind")
        if solo not in SOLO_KINDS:
            raise RecordError("bad_field", f"solo kind {solo!r} is not one of {', '.join(SOLO_KINDS)}")
        compulsory = raw.get("compulsory", False)
        if not isinstance(compulsory, bool):
            raise RecordError("bad_field", f"field 'compulsory' must be true or false, got {compulsory!r}")
        seat = _int_field(raw, "seat", None, 0, 3)
        return C_SOLO_BASE + SOLO_KINDS.index(solo), seat, compulsory, ()
    if kind == "poverty":
        seat = _int_field(raw, "seat", None, 0, 3)
        if not rules.poverty:
            raise RecordError("bad_contract", "a poverty contract needs the 'poverty' rules option",
                              seat=seat)
        partner = _int_field(raw, "partner", None, 0, 3)
        if partner == seat:
            raise RecordError("bad_contract", f"poverty: seat {seat} cannot accept its own poverty",
                              seat=seat)
        cards = []
        for name in ("passed", "returned"):
            value = raw.get(name)
            if not isinstance(value, list) or len(value) != 3:
                raise RecordError("bad_field", f"poverty field {name!r} must be a list of 3 cards")
            cards += _types(value)
        return C_POVERTY, seat, False, (partner, *cards)
    raise RecordError("bad_field", f"contract type {kind!r} is not one of normal, marriage, solo, poverty")


def _parse_calls(raw, max_index: int) -> list[tuple[int, int, int, int]]:
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
        seat = _int_field(a, "seat", None, 0, 3)
        call = a.get("call")
        if call not in CALL_LEVEL:
            raise RecordError("bad_field", f"announcement call {call!r} is not one of {', '.join(CALL_LEVEL)}")
        k = _int_field(a, "cards_played", None, 0, max_index)
        if k < last:
            raise RecordError("bad_field", f"announcement cards_played {k} comes after {last}: "
                              "calls must be listed in the order made")
        last = k
        level, side = CALL_LEVEL[call]
        calls.append((k, seat, level, side))
    return calls


def parse_record(obj) -> PackedRecord:
    """Check a record's form and pack it; RecordError or RulesError on a bad one."""
    if not isinstance(obj, dict):
        raise RecordError("bad_json", "the line is not a JSON object")
    rules = rules_from_object(obj.get("rules", "ddv"))
    dealer = _int_field(obj, "dealer", 3, 0, 3)
    if "hands" not in obj:
        raise RecordError("bad_field", "field 'hands' is missing")
    hands = _parse_hands(obj["hands"], rules)
    contract, declarer, compulsory, poverty = _parse_contract(obj.get("contract"), rules)
    n_cards = 4 * rules.hand_size
    play_raw = obj.get("play", [])
    if not isinstance(play_raw, list):
        raise RecordError("bad_field", "field 'play' must be a list of cards")
    if len(play_raw) > n_cards:
        raise RecordError("bad_field", f"field 'play' has {len(play_raw)} cards; a deal has {n_cards}")
    play = bytes(_types(play_raw))
    calls = _parse_calls(obj.get("announcements"), n_cards - 1)
    return PackedRecord(rules, dealer, hands, contract, declarer, compulsory, poverty, play, calls)


def _byte_rows(rows: list[bytes], width: int) -> np.ndarray:
    """A (len(rows) x width) int64 array from byte strings of card types, padded with zeros."""
    joined = b"".join(r.ljust(width, b"\0") for r in rows)
    return np.frombuffer(joined, dtype=np.uint8).reshape(len(rows), width).astype(np.int64)


def replay_records(packed: list[PackedRecord]):
    """Replay packed records through the kernels; returns (res, items, err) arrays."""
    n = len(packed)
    rules_cache: dict[Rules, list[int]] = {}
    for p in packed:
        if p.rules not in rules_cache:
            rules_cache[p.rules] = p.rules.packed().tolist()
    hand_types = _byte_rows([p.hand_types for p in packed], 48)
    plays = _byte_rows([p.play for p in packed], 48) * 2  # types -> first copy; the kernel takes the copy held
    n_play = np.array([len(p.play) for p in packed], dtype=np.int64)
    scalars = np.array([(p.dealer, p.contract, p.declarer, p.compulsory, len(p.calls)) for p in packed],
                       dtype=np.int64).reshape(n, 5)
    calls = np.zeros((n, MAX_CALLS, 4), dtype=np.int64)
    poverty = np.zeros((n, 8), dtype=np.int64)
    for i, p in enumerate(packed):
        if p.calls:
            calls[i, :len(p.calls)] = p.calls
        if p.poverty:
            poverty[i, :7] = p.poverty
    rules = np.array([rules_cache[p.rules] for p in packed], dtype=np.int64).reshape(n, R_LEN)
    res = np.zeros((n, RES_LEN), dtype=np.int64)
    items = np.zeros((n, 2, N_ITEMS), dtype=np.int64)
    err = np.zeros((n, ERR_LEN), dtype=np.int64)
    if n:
        replay_batch(hand_types, scalars[:, 0].copy(), scalars[:, 1].copy(), scalars[:, 2].copy(),
                     scalars[:, 3].copy(), poverty, plays, n_play, calls, scalars[:, 4].copy(), rules, items,
                     res, err)
    return res, items, err


def _seats(mask: int) -> list[int]:
    return [s for s in range(4) if mask >> s & 1]


def call_name(level: int, side: int) -> str:
    """Record name of raising a side (0 Re, 1 Kontra) to ``level``."""
    return "kontra" if level == 1 and side == 1 else CALL_NAMES[level]


def error_output(p: PackedRecord, err: np.ndarray) -> dict:
    """The GAME_RECORD error object (without ``line``) for a kernel-reported violation."""
    kind = ERROR_KINDS[int(err[0])]
    seat = int(err[1])
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
            from .cards import FOLLOW_CLASS
            from .engine.play import contract_scheme
            scheme = contract_scheme(p.contract)
            held = [card_name(c) for c in mask_cards(int(err[7])) if FOLLOW_CLASS[scheme, c] == led]
            out["error"] = (f"trick {trick}, seat {seat} played {card} but must follow "
                            f"{CLASS_NAMES[led]} (holds {' '.join(held)})")
    elif kind in ("marriage_without_qc", "bad_contract"):
        if kind == "marriage_without_qc":
            out["error"] = f"seat {seat} declared a marriage without holding both QC"
        elif p.contract == C_POVERTY:
            if seat == p.declarer:
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


_POINT_ENTRIES = [[{"side": side, "item": item} for item in ITEM_NAMES] for side in ("re", "kontra")]


def points_lists(items: np.ndarray) -> list[list[dict]]:
    """The ``points`` entries of each record from the kernel's item counts (n x 2 x N_ITEMS)."""
    points: list[list[dict]] = [[] for _ in range(items.shape[0])]
    rec, side, item = np.nonzero(items)
    counts = items[rec, side, item]
    for r, sd, it, n in zip(rec.tolist(), side.tolist(), item.tolist(), counts.tolist()):
        entry = _POINT_ENTRIES[sd][it]
        points[r] += [dict(entry) for _ in range(n)]
    return points


def result_output(p: PackedRecord, res: list[int], points: list[dict]) -> dict:
    """The GAME_RECORD result object (without ``line``) of a replayed record.

    ``res`` is the kernel's row as a Python list; ``points`` from ``points_lists``.
    """
    contract = CONTRACT_NAMES[res[RES_CONTRACT]]
    n_played = res[RES_NPLAYED]
    if n_played < 4 * p.rules.hand_size:
        out = {"ok": True, "complete": False, "contract": contract, "cards_played": n_played}
        if p.contract != C_MARRIAGE or res[RES_CLARIFY_TRICK]:
            out["re_seats"] = _seats(res[RES_RE_MASK])
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
    }


def score_objects(objects: Iterable) -> list[dict]:
    """Score parsed JSON records; one output dict per input, ``line`` numbered from 1."""
    with _no_gc():
        return _score_objects(objects)


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


def _score_objects(objects: Iterable) -> list[dict]:
    outputs: list[dict | None] = []
    packed: list[PackedRecord] = []
    where: list[int] = []
    for i, obj in enumerate(objects):
        try:
            packed.append(parse_record(obj))
            where.append(i)
            outputs.append(None)
        except (RecordError, RulesError) as exc:
            outputs.append(_form_error(exc))
    res, items, err = replay_records(packed)
    res_rows, points, failed = res.tolist(), points_lists(items), err[:, 0].tolist()
    for j, i in enumerate(where):
        if failed[j]:
            outputs[i] = error_output(packed[j], err[j])
        else:
            outputs[i] = result_output(packed[j], res_rows[j], points[j])
    return [{"line": i + 1, **o} for i, o in enumerate(outputs)]


def _form_error(exc: Exception) -> dict:
    kind = getattr(exc, "kind", "bad_field")
    out = {"ok": False, "kind": kind}
    out.update({k: v for k, v in getattr(exc, "fields", {}).items() if v is not None})
    out["error"] = str(exc)
    return out


def score_lines(lines: Iterable[str]) -> Iterator[dict]:
    """Score JSON Lines text; blank lines are skipped but keep their line numbers."""
    numbered: list[tuple[int, object]] = []
    with _no_gc():
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                numbered.append((number, orjson.loads(line)))
            except orjson.JSONDecodeError as exc:
                numbered.append((number, _BadJson(str(exc))))
    good = [(n, o) for n, o in numbered if not isinstance(o, _BadJson)]
    scored = score_objects([o for _, o in good])
    by_number = {n: s for (n, _), s in zip(good, scored)}
    for number, obj in numbered:
        if isinstance(obj, _BadJson):
            yield {"line": number, "ok": False, "kind": "bad_json", "error": f"line is not JSON: {obj.message}"}
        else:
            out = by_number[number]
            out["line"] = number
            yield out


class _BadJson:
    def __init__(self, message: str):
        self.message = message


def record_from_row(row: np.ndarray, plays: np.ndarray, calls: np.ndarray, rules: Rules,
                    compulsory: bool = False) -> dict:
    """The game record of one simulated deal (a row of the simulator's ``out`` array)."""
    from .engine.layout import (
        O_CONTRACT, O_DEALER, O_DECLARER, O_HAND, O_POVERTY_PARTNER, O_POVERTY_PASSED,
        O_POVERTY_RETURNED, O_RE_MASK,
    )
    from .cards import C_MARRIAGE_SOLO, C_SILENT_MARRIAGE, mask_str
    contract = int(row[O_CONTRACT])
    declarer = int(row[O_DECLARER])
    if contract in (C_NORMAL, C_SILENT_MARRIAGE):
        spec = {"type": "normal"}
    elif contract in (C_MARRIAGE, C_MARRIAGE_SOLO):
        spec = {"type": "marriage", "seat": declarer}
    elif contract == C_POVERTY:
        spec = {"type": "poverty", "seat": declarer, "partner": int(row[O_POVERTY_PARTNER]),
                "passed": [card_name(c) for c in mask_cards(int(row[O_POVERTY_PASSED]))],
                "returned": [card_name(c) for c in mask_cards(int(row[O_POVERTY_RETURNED]))]}
    else:
        spec = {"type": "solo", "kind": SOLO_KINDS[contract - C_SOLO_BASE], "seat": declarer,
                "compulsory": compulsory}
    re_mask = int(row[O_RE_MASK])
    announcements = []
    for k, seat, level in calls:
        if k < 0:
            break
        side = 0 if re_mask >> int(seat) & 1 else 1
        announcements.append({"seat": int(seat), "call": call_name(int(level), side),
                              "cards_played": int(k)})
    n_cards = 4 * rules.hand_size
    return {"rules": rules.to_dict() if rules != Rules() else "ddv",
            "dealer": int(row[O_DEALER]),
            "hands": [mask_str(int(row[O_HAND + s])) for s in range(4)],
            "contract": spec,
            "play": [card_name(int(c)) for c in plays[:n_cards]],
            "announcements": announcements}


def records_from_rows(plan, out: np.ndarray, plays: np.ndarray, calls: np.ndarray) -> list[str]:
    """JSON game records of a block of simulated rows (the dataset's ``record`` column)."""
    return [json.dumps(record_from_row(out[i], plays[i], calls[i], plan.rules, plan.compulsory),
                       separators=(",", ":")) for i in range(out.shape[0])]


def dealt_hands(p: PackedRecord) -> np.ndarray:
    """The four hands of a packed record as masks (physical copies in seat order)."""
    from .engine.deal import hands_from_types
    hands = np.zeros(4, dtype=np.int64)
    hands_from_types(np.frombuffer(p.hand_types, dtype=np.uint8).astype(np.int64), p.rules.packed(), hands)
    return hands


def replay_detail(obj) -> dict:
    """Replay one record and return its output plus trick-by-trick detail, for ``show``."""
    from .engine.layout import ST_LEN
    from .engine.play import contract_scheme
    from .engine.replay import replay_one
    p = parse_record(obj)
    st = np.zeros(ST_LEN, dtype=np.int64)
    hands = np.zeros(4, dtype=np.int64)
    plays = np.zeros(48, dtype=np.int64)
    play_seat = np.zeros(48, dtype=np.int64)
    trick_winner = np.zeros(12, dtype=np.int64)
    power = np.zeros(48, dtype=np.int64)
    fclass = np.zeros(48, dtype=np.int64)
    cmask = np.zeros(5, dtype=np.int64)
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
    replay_one(hand_types, p.dealer, p.contract, p.declarer, p.compulsory, poverty,
               play_in, len(p.play), calls, len(p.calls), p.rules.packed(), st, hands, plays,
               play_seat, trick_winner, power, fclass, cmask, items, res, err)
    output = error_output(p, err) if err[0] else result_output(p, res.tolist(), points_lists(items[None])[0])
    n = int(res[RES_NPLAYED])  # describe_state fills res up to the first violation too
    return {"packed": p, "output": output, "hands": [int(h) for h in dealt_hands(p)], "plays": plays[:n].tolist(),
            "play_seat": play_seat[:n].tolist(), "trick_winner": trick_winner.tolist(),
            "scheme": int(contract_scheme(p.contract)), "re_mask": int(res[RES_RE_MASK])}
