"""The double-dummy solver (engine/solver.py) against a plain minimax over the same kernels, and
``dokosim solve`` / ``dokosim.solve``.

The reference below has no pruning, no table and no card equivalences: every legal physical
card at every turn (play_card, legal_mask), and at the end of the deal the eyes the scorer
gives (score_deal), so the past tricks and the parties are the scorer's, not the solver's.
Positions: random deals played by the random strategy (random reservations and calls), cut
after a fixed number of cards (fixed seed).
"""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from dokosim.engine.layout import (
    H_RE_MASK, N_ITEMS, P_HAND_SIZE, P_NPLAYED, P_TURN, RES_EYES_RE, RES_LEN, ST_LEN,
)
from dokosim.engine.play import legal_mask, play_card
from dokosim.engine.scoring import score_deal

DATA = Path(__file__).parent / "data"


@njit(cache=True)
def reference_eyes(st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules, save, items, res):
    """Re's final eyes (score_deal) under plain minimax: Re seats (st[H_RE_MASK] as the kernels
    keep it) maximise, the others minimise, over every legal card."""
    n = st[P_NPLAYED]
    if n == 4 * st[P_HAND_SIZE]:
        score_deal(st, plays, play_seat, trick_winner, items, res)
        return res[RES_EYES_RE]
    seat = st[P_TURN]
    maxi = (st[H_RE_MASK] >> seat) & 1 == 1
    legal = legal_mask(st, hands[seat], plays, fclass, cmask)
    best = -1 if maxi else 1000
    held = hands[seat]
    for c in range(48):
        if not (legal >> c) & 1:
            continue
        for j in range(ST_LEN):
            save[n, j] = st[j]
        play_card(st, hands, c, plays, play_seat, trick_winner, power, fclass, cmask, rules)
        v = reference_eyes(st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules, save,
                           items, res)
        for j in range(ST_LEN):
            st[j] = save[n, j]
        hands[seat] = held
        if (maxi and v > best) or (not maxi and v < best):
            best = v
    return best


def reference_card_values(state):
    """{physical card: Re's final eyes after it} for every legal card of the seat to move."""
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules = (a.copy() for a in state)
    save = np.zeros((48, ST_LEN), dtype=np.int64)
    items = np.zeros((2, N_ITEMS), dtype=np.int64)
    res = np.zeros(RES_LEN, dtype=np.int64)
    seat = int(st[P_TURN])
    legal = int(legal_mask(st, hands[seat], plays, fclass, cmask))
    values = {}
    st0, hands0 = st.copy(), hands.copy()
    for c in range(48):
        if legal >> c & 1:
            play_card(st, hands, c, plays, play_seat, trick_winner, power, fclass, cmask, rules)
            values[c] = int(reference_eyes(st, hands, plays, play_seat, trick_winner, power, fclass, cmask,
                                           rules, save, items, res))
            st[:] = st0
            hands[:] = hands0
    return values


def cut(record: dict, n: int) -> dict:
    """The record after its first ``n`` cards (the calls made by then)."""
    calls = [a for a in record.get("announcements", []) if a["cards_played"] <= n]
    return {**record, "play": record["play"][:n], "announcements": calls}


@pytest.fixture(scope="module")
def random_records():
    """Game records of random deals: random reservations (solos, marriages) and random calls,
    and deals with a marriage wherever a seat holds both QC."""
    from dokosim.simulate import simulate
    params = {"*": {"p_reserve": 0.5, "p_call": 0.2}}
    mixed = simulate(1000, seed=141414, strategy="random", keep_play=True, params=params)
    married = simulate(300, seed=141415, strategy="random", keep_play=True, params=params,
                       contract="marriage")
    return [json.loads(r) for r in mixed["record"]] + [json.loads(r) for r in married["record"]]


def positions(records, tricks_left, count, seed):
    """``count`` positions with ``tricks_left`` tricks to go (0-3 cards of the current trick on
    the table): half from solos, a tenth from marriages, the rest from normal games."""
    rng = np.random.default_rng(seed)
    kinds = {}
    for r in records:
        kinds.setdefault(r["contract"]["type"], []).append(r)
    chosen = kinds["solo"][:count // 2] + kinds["marriage"][:count // 10]
    chosen += kinds["normal"][:count - len(chosen)]
    out = []
    for r in chosen:
        n = 4 * (12 - tricks_left) + int(rng.integers(0, 4))
        out.append(cut(r, n))
    return out


def check_positions(recs):
    from dokosim.records import replay_detail
    from dokosim.solve import Solver
    solver = Solver(table_bits=16)
    calls = 0
    for rec in recs:
        detail = replay_detail(rec)
        assert detail["error"] == 0, detail["output"]
        state = detail["state"]
        calls += bool(rec["announcements"])
        expect = reference_card_values(state)
        solver.load(state)
        best, values = solver.card_values()
        got = {c: int(values[c]) for c in range(48) if values[c] >= 0}
        assert got == expect, rec
        maxi = int(state[0][H_RE_MASK]) >> int(state[0][P_TURN]) & 1
        assert best == (max if maxi else min)(expect.values())
        solver.load(state)
        assert solver.eyes() == best
        assert solver.reaches(best) and not solver.reaches(best + 1)
    return calls


def test_solver_equals_plain_minimax_with_3_to_4_tricks_left(random_records):
    recs = positions(random_records, 3, 150, seed=1) + positions(random_records, 4, 150, seed=2)
    assert sum(r["contract"]["type"] == "solo" for r in recs) >= 100
    assert sum(r["contract"]["type"] == "marriage" for r in recs) >= 10
    assert check_positions(recs) >= 50  # positions reached with calls made


def test_solver_equals_plain_minimax_with_6_tricks_left(random_records):
    recs = positions(random_records[::-1], 6, 50, seed=3)
    assert sum(r["contract"]["type"] == "solo" for r in recs) >= 20
    assert check_positions(recs) >= 5
