"""Double-dummy solving of game records: ``dokosim.solve`` and ``dokosim solve`` (docs/solver.md).

A record (GAME_RECORD.md, finished or not) is checked and replayed by the record replay
(``records.replay_detail``); the position after its last card (or before the first, with
``from_start``) goes to the solver kernels (``solver/eyes.py``).
"""
from __future__ import annotations

import numpy as np

from ..engine.cards import card_name, mask_cards, mask_str
from ..engine.layout import P_NPLAYED, P_SCHEME, P_TURN, RES_EYES_RE
from ..records.record import RecordError, _form_error, replay_detail
from ..rules import RulesError

THRESHOLDS = (121, 151, 181, 211, 240)
"""The eyes ``re_reaches`` answers for: Re's win, and what Re needs against no 90 / 60 / 30, all eyes."""
SCORE_ILLEGAL = 10_000
"""``Solver.score_values`` marks a card that is not legal with a value below minus this."""


class Solver:
    """Scratch for solving many positions (a workspace and a transposition table, allocated once).

    ``load(state)`` takes a position as the kernels hold it (st, hands, plays, play_seat,
    trick_winner, power, fclass, cmask, rules); ``eyes()``, ``reaches(t)`` and
    ``card_values()`` solve it. Positions of the same deal share the table's entries.
    ``node_limit`` (0: none) caps the nodes of each solve: past it a solve gives up and returns
    None (a budget for benchmarks and strategies). ``score_values()`` plays for the score
    instead (``best_score``), with a table of its own (2**score_table_bits entries of 48 bytes,
    12.6 MB by default, allocated on its first use; 0 for none). ``sim_bits``: the
    payoff-similarity table's size (2**sim_bits entries of 24 bytes, 1.5 MB by default; 0 for
    none; docs/solver.md, Speed, round 8); the values do not depend on it, only the nodes.
    """

    def __init__(self, table_bits: int = 20, node_limit: int = 0, score_table_bits: int = 18,
                 sim_bits: int = 16):
        from ..solver.eyes import new_table, new_workspace
        # checked before anything is allocated: a table of 2**0 entries would be indexed past its
        # end by the kernels (a segmentation fault), 2**40 would ask for terabytes
        table_bits = _check_bits("table_bits", table_bits, *TABLE_BITS)
        score_table_bits = _check_bits("score_table_bits", score_table_bits, *SCORE_TABLE_BITS)
        sim_bits = _check_bits("sim_bits", sim_bits, *SIM_BITS)
        self.node_limit = node_limit  # checked by the property
        self.ws = new_workspace(sim_bits)
        self.tt = new_table(table_bits)
        self.score_table_bits = score_table_bits  # 0: score_values searches without a table
        self.score_tt = None  # score_values' table, allocated on its first use
        self.bounds = (0, 240)  # what the last band search left known of Re's final eyes

    @property
    def node_limit(self) -> int:
        """Nodes each solve may search (0: no limit); set only to an integer from 0 to 10**15."""
        return self._node_limit

    @node_limit.setter
    def node_limit(self, value) -> None:
        _check_node_limit(value)
        self._node_limit = int(value)

    @property
    def nodes(self) -> int:
        """Nodes searched by this solver so far (all solves)."""
        from ..solver.eyes import W_NODES
        return int(self.ws[W_NODES])

    def _start(self) -> None:
        from ..solver.eyes import W_ABORTED, W_LIMIT, W_NODES
        self.ws[W_ABORTED] = 0
        self.ws[W_LIMIT] = self.ws[W_NODES] + self.node_limit if self.node_limit > 0 else 0

    def _aborted(self) -> bool:
        from ..solver.eyes import W_ABORTED
        return bool(self.ws[W_ABORTED])

    def clear_tables(self) -> None:
        """Forget what the eyes search learnt (its table, the payoff-similarity table and the
        history of cut-offs), so that the next solve starts from nothing (for measurements of one
        search alone; ``score_values``' table is not touched)."""
        from ..solver.eyes import W_HIST, W_LEN
        self.tt[:] = 0
        self.ws[W_LEN:] = 0
        self.ws[W_HIST:W_HIST + 4 * 48] = 0

    def load(self, state) -> None:
        """Copy a position into the workspace: ``state`` the position's eight arrays and the rules
        (replay_detail's ``state``)."""
        from ..engine.position import Position
        from ..solver.eyes import load_position
        from ..engine.jit import ensure_loop
        ensure_loop(load_position, "the double-dummy solver")(self.ws, Position(*state[:8]), state[8])

    def eyes(self) -> int | None:
        """Re's final eyes under best play from the loaded position (None past the node limit)."""
        from ..solver.eyes import solve_eyes
        self._start()
        eyes = int(solve_eyes(self.ws, self.tt))
        return None if self._aborted() else eyes

    def reaches(self, threshold: int) -> bool | None:
        """Whether Re ends with at least ``threshold`` eyes under best play (None past the node
        limit)."""
        from ..solver.eyes import solve_reaches
        from ..validation import check_int
        threshold = check_int("threshold", threshold, 0, 241, ValueError)
        self._start()
        yes = bool(solve_reaches(self.ws, self.tt, threshold))
        return None if self._aborted() else yes

    def band(self, lo: int = 0, hi: int = 240, first: int = 121, edges=None) -> tuple[int, int] | None:
        """The band of Re's final eyes under best play (``solver.band.BANDS``: (0, 0), (1, 29), ...,
        (240, 240)) as (lowest, highest), by null-window searches at the band edges (``EDGES``, or
        ``edges``: then the bands between those) sharing the table: the edge ``first`` (121) first,
        then up or down an edge at a time (None past the node limit, which counts the nodes of all
        of them). ``lo`` / ``hi``: bounds on Re's final eyes already known (say, the band before a
        card), which spare their edges. ``bounds`` holds (lowest, highest) of Re's final eyes as
        the searches that finished left them, also after one ran past the node limit."""
        from ..solver.band import EDGES, band_between
        from ..solver.eyes import solve_reaches
        from ..validation import check_int
        lo = check_int("lo", lo, 0, 240, ValueError)
        hi = check_int("hi", hi, lo, 240, ValueError, f"an integer from lo ({lo}) to 240")
        first = check_int("first", first, 0, 241, ValueError)
        if edges is not None:
            if isinstance(edges, (str, bytes)) or not hasattr(edges, "__iter__"):
                raise ValueError(f"edges={edges!r} is not valid: None or a list of eyes from 1 to 240")
            edges = [check_int("edges", e, 1, 240, ValueError, "a list of eyes from 1 to 240") for e in edges]
        self._start()
        self.bounds = (lo, hi)
        edges = sorted(EDGES if edges is None else edges)
        cuts = edges
        edges = [e for e in edges if lo < e <= hi]
        if edges:
            e = min(edges, key=lambda x: (abs(x - first), x))
            while True:
                yes = bool(solve_reaches(self.ws, self.tt, e))
                if self._aborted():
                    return None
                if yes:
                    lo = e
                    self.bounds = (lo, hi)
                    above = [x for x in edges if x > e and x <= hi]
                    if not above:
                        break
                    e = above[0]
                else:
                    hi = e - 1
                    self.bounds = (lo, hi)
                    below = [x for x in edges if lo < x < e]
                    if not below:
                        break
                    e = below[-1]
        return band_between(lo, cuts)

    def score_values(self) -> tuple[int, np.ndarray] | None:
        """(Re's game value under best play for the score, values) where values[c] is that value
        after physical card c and best play after it, for every legal c, and below
        ``-SCORE_ILLEGAL`` for the others (None past the node limit); ``best_score``'s search."""
        from ..engine.layout import N_ITEMS
        from ..solver.score import new_score_table, solve_score_values
        from ..engine.jit import ensure_loop
        if self.score_tt is None:
            bits = self.score_table_bits
            self.score_tt = new_score_table(bits) if bits > 0 else np.zeros(0, dtype=np.int64)
        values = np.zeros(48, dtype=np.int64)
        items = np.zeros((2, N_ITEMS), dtype=np.int64)
        self._start()
        best = int(ensure_loop(solve_score_values, "the double-dummy solver")(self.ws, self.score_tt, items, values))
        return None if self._aborted() else (best, values)

    def card_values(self) -> tuple[int, np.ndarray] | None:
        """(Re's final eyes under best play, values) where values[c] is Re's final eyes after
        physical card c and best play after it, for every legal c, and -1 for the others (None
        past the node limit)."""
        from ..solver.eyes import solve_card_values
        values = np.zeros(48, dtype=np.int64)
        self._start()
        best = int(solve_card_values(self.ws, self.tt, values))
        return None if self._aborted() else (best, values)


TABLE_BITS = (1, 26)
"""``Solver(table_bits=)``: from 1 (the kernels index a table of at least two entries) to 26
(1 GiB)."""
SCORE_TABLE_BITS = (0, 24)
"""``Solver(score_table_bits=)``: 0 (no table) to 24 (768 MiB)."""
SIM_BITS = (0, 24)
"""``Solver(sim_bits=)``: 0 (no payoff-similarity table) to 24 (384 MiB)."""


def _check_bits(name: str, value, lo: int, hi: int) -> int:
    from ..validation import check_int
    return check_int(name, value, lo, hi, ValueError,
                     f"an integer from {lo} to {hi} (a table of 2**{name} entries)")


def check_solver(solver) -> None:
    """ValueError unless ``solver`` is None or a ``Solver``."""
    if solver is not None and not isinstance(solver, Solver):
        raise ValueError(f"solver={solver!r} is not valid: None or a dokosim.dd.solve.Solver")


def check_from_start(from_start) -> bool:
    """``from_start`` as a bool; ValueError unless it is True or False (a string such as "no"
    would be taken as true)."""
    from ..validation import check_bool
    return check_bool("from_start", from_start, ValueError)


def _check_node_limit(node_limit, optional: bool = False) -> None:
    """ValueError naming ``node_limit`` (in one line, whatever it is: an array's repr has several)
    unless it is an integer from 0 (no limit) to MAX_NODE_LIMIT, or ``optional`` and None."""
    from ..validation import MAX_NODE_LIMIT, check_int
    if optional and node_limit is None:
        return
    valid = "an integer from 0 (no limit) to 10**15"
    check_int("node_limit", node_limit, 0, MAX_NODE_LIMIT, ValueError,
              f"None (the solver's own limit) or {valid}" if optional else valid)


def _replayed(record, then: dict | None = None) -> tuple[dict, dict | None, dict | None]:
    """(the record as an object, its replay, None), or (record, None, the output line of a bad
    record): a JSON text is parsed, the whole record checked and replayed as ``score`` replays
    it; with ``then`` the position replayed is the record with those fields replaced (say, no
    play: its first card)."""
    if isinstance(record, (str, bytes)):
        from ..records.record import json_line
        try:
            record = json_line(record)  # as ``score`` reads a line: not UTF-8, not JSON, each named
        except RecordError as exc:
            return record, None, _form_error(exc)
    try:
        detail = replay_detail(record)
        if not detail["error"] and then is not None:
            detail = replay_detail({**record, **then})
    except (RecordError, RulesError) as exc:
        return record, None, _form_error(exc)
    return (record, None, detail["output"]) if detail["error"] else (record, detail, None)


def _played(detail: dict) -> int:
    """The cards played in the replayed position."""
    return int(detail["state"][0][P_NPLAYED])


def _position(record, from_start, solver) -> tuple[dict | None, int | None, dict | None]:
    """(the replay of the position ``solve`` and ``best_score`` answer, its cards played or None
    when the deal is complete, None), or (None, None, the output line of a bad record): the
    position after the record's last card, or before its first with ``from_start``. ``from_start``
    and ``solver`` are checked first (SolveError naming a bad one)."""
    from_start = check_from_start(from_start)
    check_solver(solver)
    record, detail, failed = _replayed(record, {"play": []} if from_start else None)
    if failed is not None:
        return None, None, failed
    n = _played(detail)
    return detail, None if n == 4 * int(detail["packed"].rules.hand_size) else n, None


def _solved(solver: Solver | None, node_limit: int | None, state, search):
    """``solver``'s (a new Solver when None) method ``search`` (Solver.card_values or score_values) on
    ``state`` with ``node_limit`` nodes (None: the solver's own limit), the solver's limit restored
    after."""
    solver = solver or Solver()
    saved = solver.node_limit
    if node_limit is not None:
        solver.node_limit = node_limit
    try:
        solver.load(state)
        return search(solver)
    finally:
        solver.node_limit = saved


def _to_move(detail: dict) -> int:
    """The record's seat to move in the replayed position (five players: the engine's seat mapped
    to the record's)."""
    seat = int(detail["state"][0][P_TURN])
    table = detail["packed"].table
    return seat if table is None else table[seat]


def _card_values(detail: dict, values, lowest: int) -> dict:
    """{card name: values[c]} for each card of the seat to move whose value is at least ``lowest``
    (the others are not legal), in rank order, as ``solve`` and ``best_score`` give them."""
    st, hands = detail["state"][0], detail["state"][1]
    legal = sum(1 << c for c in mask_cards(int(hands[int(st[P_TURN])])) if values[c] >= lowest)
    card_values = {}
    for name in mask_str(legal, int(st[P_SCHEME])).split():
        card_values[name] = None
    for c in mask_cards(legal):
        card_values[card_name(c)] = int(values[c])
    return card_values


def solve(record, from_start: bool = False, solver: Solver | None = None, node_limit: int | None = None) -> dict:
    """Solve a game record double-dummy: every hand open, best play by both sides, no more calls.

    ``record``: a GAME_RECORD.md object (a dict, or its JSON text), finished or not; the
    position is the one after its last card (``from_start``: before its first card). Returns
    ``{"ok": True, "complete": False, "cards_played": n, "to_move": seat, "eyes_re": E,
    "card_values": {"QC": E1, ...}, "re_reaches": {"121": bool, "151": ..., "181": ...,
    "211": ..., "240": ...}}``: ``eyes_re`` is Re's final eyes (tricks already taken included),
    ``card_values`` Re's final eyes after each legal card of the seat to move and best play
    after it. A complete record gives its own eyes (``"complete": True``, ``to_move`` None, no
    card_values); a bad one GAME_RECORD.md's error object (``"ok": False``). ``solver``: a
    ``Solver`` to reuse its scratch over many calls. ``node_limit``: nodes the solve may search
    (default: the solver's own limit, none for a new one); past it ``eyes_re``, ``card_values``
    and ``re_reaches`` are None and ``"over_node_limit": True``.

    Example (a record of examples/records.jsonl, cut after 40 cards)::

        import json, dokosim
        rec = json.loads(open("examples/records.jsonl").readline())
        out = dokosim.solve({**rec, "play": rec["play"][:40]})
        out["to_move"], out["eyes_re"], out["card_values"]   # e.g. 2, 130, {"QC": 130, "9S": 119}
    """
    _check_node_limit(node_limit, optional=True)
    detail, n, failed = _position(record, from_start, solver)
    if failed is not None:
        return failed
    reaches = {}
    if n is None:
        eyes = int(detail["res"][RES_EYES_RE])
        for t in THRESHOLDS:
            reaches[str(t)] = eyes >= t
        return {"ok": True, "complete": True, "cards_played": _played(detail), "to_move": None, "eyes_re": eyes,
                "re_reaches": reaches}
    solved = _solved(solver, node_limit, detail["state"], Solver.card_values)
    to_move = _to_move(detail)
    if solved is None:
        return {"ok": True, "complete": False, "cards_played": n, "to_move": to_move, "eyes_re": None,
                "card_values": None, "re_reaches": None, "over_node_limit": True}
    eyes, values = solved
    card_values = _card_values(detail, values, 0)
    for t in THRESHOLDS:
        reaches[str(t)] = eyes >= t
    return {"ok": True, "complete": False, "cards_played": n, "to_move": to_move, "eyes_re": eyes,
            "card_values": card_values, "re_reaches": reaches}


PAR_NODE_LIMIT = 1_000_000
"""Default node budget of each solve of ``par`` (about 0.15 s)."""


def par(record, node_limit: int = PAR_NODE_LIMIT, solver: Solver | None = None) -> dict:
    """The par of a record's deal: with every hand open, which reservations win.

    Each reservation the record's rules allow is solved from the first card, with the hands as
    dealt: the normal game (Re: the QC holders; a silent marriage when one seat holds both),
    an announced marriage when one seat holds both QC, and every allowed solo of every seat (not
    a poverty: its exchange is a choice of cards, not a contract to solve). The record is checked
    whole first (its play and calls too), then its hands are dealt again under each contract.
    A reservation wins when its Re (the soloist, the marriage player and partner) reaches 121
    eyes under best play by both sides (no calls); ``None`` when its solve ran past
    ``node_limit`` nodes (0: no limit). Par here is won or lost, not the score: exact eyes from
    the first card cost far more than a threshold (docs/solver.md).

    Returns ``{"ok": True, "node_limit": N, "normal": bool|None, "marriage": bool|None (only when
    a seat holds both QC), "solos": {"SEAT": {"KIND": bool|None, ...}, ...}, "winning_solos":
    [[seat, kind], ...], "unknown": n}`` with record seats; a bad record gives GAME_RECORD.md's
    error object (``"ok": False``). Pass ``solver`` (a ``Solver``) to reuse its scratch (a table
    of 32 MB) over many records.

    Example::

        import json, dokosim
        rec = json.loads(open("examples/records.jsonl").readline())
        out = dokosim.par(rec)
        out["normal"], out["winning_solos"], out["unknown"]   # True, [], 1
    """
    from ..engine.cards import T_QC
    _check_node_limit(node_limit)
    node_limit = int(node_limit)
    check_solver(solver)
    record, detail, failed = _replayed(record, {"play": [], "announcements": []})
    if failed is not None:
        return failed
    rules = detail["packed"].rules
    seats = [s for s, mask in enumerate(detail["hands"]) if mask]
    both_qc = [s for s in seats if (detail["hands"][s] >> (2 * T_QC)) & 3 == 3]
    solver = solver or Solver()
    saved = solver.node_limit
    solver.node_limit = node_limit
    unknown = 0

    def wins(contract) -> bool | None:
        nonlocal unknown
        d = replay_detail({**record, "contract": contract, "play": [], "announcements": []})
        if d["error"]:
            raise RecordError(d["output"].get("kind", "bad_field"),
                              d["output"].get("error", f"the deal cannot be played as {contract}"))
        solver.load(d["state"])
        out = solver.reaches(121)
        unknown += out is None
        return out

    try:
        result = {"ok": True, "node_limit": node_limit, "normal": wins({"type": "normal"})}
        if both_qc:
            result["marriage"] = wins({"type": "marriage", "seat": both_qc[0]})
        solos = {}
        winning = []
        for s in seats:
            solos[str(s)] = {}
            for kind in rules.solos:
                won = wins({"type": "solo", "kind": kind, "seat": s, "compulsory": False})
                solos[str(s)][kind] = won
                if won:
                    winning.append([s, kind])
        result.update(solos=solos, winning_solos=winning, unknown=unknown)
        return result
    except (RecordError, RulesError) as exc:
        return _form_error(exc)
    finally:
        solver.node_limit = saved


SCORE_NODE_LIMIT = 1_000_000
"""Default node budget of ``best_score`` (five tricks left fit it, docs/solver.md)."""


def best_score(record, from_start: bool = False, node_limit: int = SCORE_NODE_LIMIT,
               solver: Solver | None = None) -> dict:
    """The deal's score under best play for the score, with every hand open and no more calls.

    ``solve`` plays for eyes; this plays for the score itself: the game value with the calls
    already made, schwarz and the extra points (fox, doppelkopf, Charlie, against the queens),
    every complete deal scored by the rules' scorer. The value is Re's game value as RULES.md
    1.7 settles it, as Re scores it (positive when Re wins): each Re player scores it, each
    Kontra player its negation, a soloist three times it (and a record's ``bock`` multiplies
    all). ``record``: as for ``solve``, the position after its last card (``from_start``: before
    its first card). The search is exact (docs/solver.md): five tricks left fit
    the default ``node_limit`` (0: no limit); past it the values are None and
    ``"over_node_limit": True``.

    Returns ``{"ok": True, "complete": False, "cards_played": n, "to_move": seat, "value_re": V,
    "card_values": {"QC": V1, ...}}`` (``card_values``: the value after each legal card of the
    seat to move and best play after it); a complete record gives its own value (``"complete":
    True``, no card_values); a bad record GAME_RECORD.md's error object (``"ok": False``).

    Example (the first record of examples/records.jsonl, cut after 36 cards)::

        import json, dokosim
        rec = json.loads(open("examples/records.jsonl").readline())
        out = dokosim.best_score({**rec, "play": rec["play"][:36]})
        out["value_re"], out["card_values"]
    """
    from ..engine.layout import RES_VALUE, RES_WINNER
    _check_node_limit(node_limit)
    detail, n, failed = _position(record, from_start, solver)
    if failed is not None:
        return failed
    if n is None:
        res = detail["res"]
        value = int(res[RES_VALUE])
        return {"ok": True, "complete": True, "cards_played": _played(detail), "to_move": None,
                "value_re": -value if int(res[RES_WINNER]) == 1 else value}
    solved = _solved(solver, int(node_limit), detail["state"], Solver.score_values)
    out = {"ok": True, "complete": False, "cards_played": n, "to_move": _to_move(detail)}
    if solved is None:
        return {**out, "value_re": None, "card_values": None, "over_node_limit": True}
    value, values = solved
    return {**out, "value_re": value, "card_values": _card_values(detail, values, -SCORE_ILLEGAL + 1)}
