"""The game value from any card: the double-dummy band of Re's eyes, ``dokosim.game_value`` and
``dokosim solve --value`` (docs/solver.md, "Bands and the game value").

A deal's score depends on Re's eyes only through the band they fall in (RULES.md 1.6-1.7: 0,
1-29, 30-59, 60-89, 90-119, 120, 121-150, 151-180, 181-210, 211-239, 240), so the solver
answers the band, not the exact eyes: one null-window search per band edge (``Solver.band``),
121 first, then an edge at a time up or down, all of them sharing the solver's table of bounds.
Two or three searches answer most deals, each far cheaper than the exact eyes.
"""
from __future__ import annotations

from ..engine.cards import C_MARRIAGE, CONTRACT_IS_SOLO
from ..engine.layout import (
    H_CONTRACT, H_SOLOIST, P_CLARIFIED, P_HAND_SIZE, P_LEVEL_KO, P_LEVEL_RE, P_NPLAYED, RES_EYES_RE,
)

from ..solver.band import BANDS, EDGES, band_between, band_label, band_of, value_edges  # noqa: F401 (public here too)

VALUE_NODE_LIMIT = 10_000_000
"""Default node budget of ``game_value`` (all of a band's searches together; about a second)."""


def value_of_band(band: tuple[int, int], st) -> tuple[int, int] | tuple[None, None]:
    """(winner 0 Re / 1 Kontra / 2 none, Re's game value) for Re's eyes in ``band`` with the calls
    of the position ``st`` (RULES.md 1.6-1.7 items 1-5 and against the queens; no fox,
    doppelkopf or Charlie, which are not a matter of eyes; schwarz read from the eyes, see
    ``solver.band.band_value``). (None, None) while a marriage is not clarified (it may still
    turn into a solo, which scores otherwise)."""
    from ..engine.jit import ensure_loop
    from ..solver.band import band_value
    if int(st[H_CONTRACT]) == C_MARRIAGE and not int(st[P_CLARIFIED]):
        return None, None
    is_solo = int(CONTRACT_IS_SOLO[int(st[H_CONTRACT])]) == 1 or int(st[H_SOLOIST]) >= 0
    w, value = ensure_loop(band_value, "the double-dummy solver")(
        band[0], int(st[P_HAND_SIZE]), int(st[P_LEVEL_RE]), int(st[P_LEVEL_KO]), int(is_solo))
    return int(w), int(value)


WINNERS = ("Re", "Kontra", "none")


def game_value(record, from_start: bool = False, node_limit: int = VALUE_NODE_LIMIT, solver=None,
               bands: str = "value") -> dict:
    """The band of Re's final eyes under double-dummy play and the game value it scores.

    ``record``: a GAME_RECORD.md object (a dict, or its JSON text), finished or not; the
    position is the one after its last card (``from_start``: before its first card). Every hand
    is open, both sides play their best for eyes, nobody calls again; the calls are the record's
    (all of them, also with ``from_start``: the value is what the deal scores with those calls).
    Returns ``{"ok": True, "complete": bool, "cards_played": n, "band": "121-150", "band_lo":
    121, "band_hi": 150, "bands": "value", "winner": "Re" | "Kontra" | "none", "value_re": V, "nodes": N,
    "answered": True}``: ``value_re`` is RULES.md 1.7's value as Re scores it (each Re player
    scores it, each Kontra player its negation, a soloist three times it) without the extra
    points that are not a matter of eyes (fox, doppelkopf, Charlie; against the queens is
    counted); schwarz is read from the eyes (240 / 0). Every eyes value in a band scores the
    same, and more eyes never score less for Re, so the band's value is the value of best play
    for the score with those extras left out. Past ``node_limit`` nodes (all the band's
    searches together; 0: no limit) the band and value are None and ``"answered": False``. A
    bad record gives GAME_RECORD.md's error object (``"ok": False``). ``solver``: a ``Solver``
    to reuse its scratch. ``bands``: "value" (default) searches only the edges that change the
    value with the record's calls (``value_edges``: without calls 90-119 and 120 score alike, so
    the band is "90-120"); "all" every edge of ``BANDS``.

    Example (the first record of examples/records.jsonl, from its first card)::

        import json, dokosim
        rec = json.loads(open("examples/records.jsonl").readline())
        out = dokosim.game_value(rec, from_start=True)
        out["band"], out["winner"], out["value_re"], out["nodes"]
    """
    from .solve import Solver, _check_node_limit, _replayed, check_from_start, check_solver
    _check_node_limit(node_limit)
    from_start = check_from_start(from_start)
    check_solver(solver)
    if not isinstance(bands, str) or bands not in ("value", "all"):
        raise ValueError(f"bands={bands!r} is not valid: 'value' (the edges the calls score) or 'all'")
    record, detail, failed = _replayed(record, {"play": []} if from_start else None)
    if failed is not None:
        return failed
    calls_st = detail["state"][0]
    if from_start:  # the record's calls, all of them: its whole replay's levels
        whole = _replayed(record)[1]
        calls_st = whole["state"][0] if whole is not None else calls_st
    state = detail["state"]
    st = state[0]
    n = int(st[P_NPLAYED])
    complete = n == 4 * int(detail["packed"].rules.hand_size)
    out = {"ok": True, "complete": complete, "cards_played": n}
    edges = EDGES if bands == "all" else value_edges(int(calls_st[P_LEVEL_RE]), int(calls_st[P_LEVEL_KO]))
    if complete:
        band = band_between(int(detail["res"][RES_EYES_RE]), edges)
        nodes = 0
    else:
        solver = solver or Solver()
        saved = solver.node_limit
        solver.node_limit = int(node_limit)
        try:
            solver.load(state)
            n0 = solver.nodes
            band = solver.band(edges=edges)
            nodes = solver.nodes - n0
        finally:
            solver.node_limit = saved
    if band is None:
        return {**out, "band": None, "band_lo": None, "band_hi": None, "bands": bands, "winner": None, "value_re": None,
                "nodes": nodes, "answered": False}
    merged = st.copy()
    merged[P_LEVEL_RE], merged[P_LEVEL_KO] = calls_st[P_LEVEL_RE], calls_st[P_LEVEL_KO]
    winner, value = value_of_band(band, merged)
    return {**out, "band": band_label(band), "band_lo": band[0], "band_hi": band[1], "bands": bands,
            "winner": None if winner is None else WINNERS[winner], "value_re": value, "nodes": nodes,
            "answered": True}


__all__ = ["BANDS", "EDGES", "VALUE_NODE_LIMIT", "band_between", "band_label", "band_of", "game_value",
           "value_edges", "value_of_band"]
