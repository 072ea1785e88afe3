"""The double-dummy solver (solver/eyes.py) against a plain minimax over the same kernels, and
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
from dokosim.engine.position import Position
from dokosim.engine.scoring import score_deal

DATA = Path(__file__).resolve().parents[1] / "data"


@njit(cache=True)
def minimax_eyes(st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules, save, items, res,
                 budget, alpha, beta, prune):
    """Re's final eyes (score_deal) under plain minimax: Re seats (st[H_RE_MASK] as the kernels
    keep it) maximise, the others minimise, over every legal card (one copy of a card held twice).
    budget[0]: nodes left; -1 once it runs out (the caller skips the position).
    With ``prune``: textbook alpha-beta pruning and nothing else (no table, no card equivalences,
    cards in their encoding order), exact when the value lies in (alpha, beta); without it the
    window only follows the search and never cuts it."""
    budget[0] -= 1
    if budget[0] < 0:
        return -1
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
        if not (legal >> c) & 1 or (c & 1 and (legal >> (c - 1)) & 1):
            continue  # the second copy of a card held twice is the same card (play_card takes either)
        for j in range(ST_LEN):
            save[n, j] = st[j]
        play_card(Position(st, hands, plays, play_seat, trick_winner, power, fclass, cmask), c, rules)
        v = minimax_eyes(st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules, save,
                         items, res, budget, alpha, beta, prune)
        if v < 0:
            return -1
        for j in range(ST_LEN):
            st[j] = save[n, j]
        hands[seat] = held
        if maxi:
            best = max(best, v)
            alpha = max(alpha, v)
        else:
            best = min(best, v)
            beta = min(beta, v)
        if prune and alpha >= beta:
            break
    return best


def card_values_by(search, state):
    """{physical card: search's Re final eyes after it} for every legal card of the seat to move
    (``search(st, hands, ..., rules, save, items, res)``); None when a search gives up (< 0)."""
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules = (a.copy() for a in state)
    save = np.zeros((48, ST_LEN), dtype=np.int64)
    items = np.zeros((2, N_ITEMS), dtype=np.int64)
    res = np.zeros(RES_LEN, dtype=np.int64)
    legal = int(legal_mask(st, hands[int(st[P_TURN])], plays, fclass, cmask))
    values = {}
    st0, hands0 = st.copy(), hands.copy()
    for c in range(48):
        if legal >> c & 1:
            play_card(Position(st, hands, plays, play_seat, trick_winner, power, fclass, cmask), c, rules)
            values[c] = int(search(st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules,
                                   save, items, res))
            if values[c] < 0:
                return None
            st[:] = st0
            hands[:] = hands0
    return values


def alphabeta_card_values(state):
    """reference_card_values by alpha-beta (minimax_eyes with pruning) over the whole window (exact)
    for each card, with no node limit."""
    budget = np.array([np.iinfo(np.int64).max], dtype=np.int64)
    return card_values_by(lambda *args: minimax_eyes(*args, budget, -1, 241, True), state)


def reference_card_values(state, max_nodes=10**12):
    """{physical card: Re's final eyes after it} for every legal card of the seat to move; None
    when the tree has more than ``max_nodes`` nodes."""
    budget = np.array([max_nodes], dtype=np.int64)
    return card_values_by(lambda *args: minimax_eyes(*args, budget, -1, 241, False), state)


def cut(record: dict, n: int) -> dict:
    """The record after its first ``n`` cards (the calls made by then)."""
    calls = [a for a in record.get("announcements", []) if a["cards_played"] <= n]
    return {**record, "play": record["play"][:n], "announcements": calls}


@pytest.fixture(scope="module")
def random_records():
    """Game records of random deals: random reservations (solos, marriages) and random calls,
    and deals with a marriage wherever a seat holds both QC."""
    from dokosim.run.simulate import simulate
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


def check_positions(recs, max_nodes=10**12, want=None, reference=None):
    """The solver's card values, eyes and threshold answers against the reference's, position by
    position (until ``want`` are checked); returns (positions checked, of them with calls made, solos)."""
    from dokosim.records.record import replay_detail
    from dokosim.dd.solve import Solver
    solver = Solver(table_bits=16)
    checked = calls = solos = 0
    for rec in recs:
        if checked == want:
            break
        detail = replay_detail(rec)
        assert detail["error"] == 0, detail["output"]
        state = detail["state"]
        expect = reference(state) if reference else reference_card_values(state, max_nodes)
        if expect is None:
            continue
        checked += 1
        calls += bool(rec["announcements"])
        solos += rec["contract"]["type"] == "solo"
        solver.load(state)
        best, values = solver.card_values()
        got = {c: int(values[c]) for c in range(48) if values[c] >= 0}
        assert got == expect, rec
        maxi = int(state[0][H_RE_MASK]) >> int(state[0][P_TURN]) & 1
        assert best == (max if maxi else min)(expect.values())
        solver.load(state)
        assert solver.eyes() == best
        assert solver.reaches(best) and not solver.reaches(best + 1)
    return checked, calls, solos


def test_solver_equals_plain_minimax_with_3_to_4_tricks_left(random_records):
    recs = positions(random_records, 3, 150, seed=1) + positions(random_records, 4, 150, seed=2)
    assert sum(r["contract"]["type"] == "marriage" for r in recs) >= 20
    checked, calls, solos = check_positions(recs)
    assert checked == 300 and calls >= 50 and solos >= 100


def test_solver_equals_plain_minimax_with_6_tricks_left(random_records):
    # The plain tree of most of these positions has from tens of millions to billions of nodes,
    # beyond the suite's budget: the plain minimax checks those whose tree has at most 3 million
    # nodes (a few), and a textbook alpha-beta (no table, no equivalences) all 50.
    recs = positions(random_records[::-1], 6, 50, seed=3)
    checked, calls, solos = check_positions(recs, reference=alphabeta_card_values)
    assert checked == 50 and calls >= 5 and solos >= 15
    plain, _, _ = check_positions(recs, max_nodes=3_000_000)
    assert plain >= 2


ORACLE_RECORDS = [json.loads(line)["record"] for line in (DATA / "oracle" / "freeboardgames.jsonl").read_text().splitlines()[:3]]


def test_solve_api_on_unfinished_and_complete_records():
    import dokosim
    rec = ORACLE_RECORDS[0]
    done = dokosim.solve(rec)
    assert done["complete"] and "card_values" not in done and done["to_move"] is None
    assert done["eyes_re"] == dokosim.score([rec])[0]["eyes"]["re"]
    out = dokosim.solve(cut(rec, 36))
    assert out["ok"] and not out["complete"] and out["cards_played"] == 36
    assert out["eyes_re"] == max(out["card_values"].values()) or out["eyes_re"] == min(out["card_values"].values())
    assert out["re_reaches"] == {str(t): out["eyes_re"] >= t for t in (121, 151, 181, 211, 240)}
    # the value of the card actually played next is the eyes after it, from the position after it
    after = dokosim.solve(cut(rec, 37))
    assert out["card_values"][rec["play"][36]] == after["eyes_re"]


@pytest.mark.subprocess
def test_solve_command_prints_a_line_per_record_and_errors_as_game_record_md(tmp_path):
    recs = [cut(ORACLE_RECORDS[1], 40), ORACLE_RECORDS[2], {**ORACLE_RECORDS[1], "play": ["XX"]}]
    path = tmp_path / "recs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n\nnot json\n")
    proc = subprocess.run([sys.executable, "-m", "dokosim.cli", "solve", str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["line"] for line in lines] == [1, 2, 3, 5]
    assert lines[0]["ok"] and lines[0]["to_move"] in range(4) and lines[0]["card_values"]
    assert lines[1]["ok"] and lines[1]["complete"]
    assert lines[2] == {"line": 3, "ok": False, "kind": "unknown_card", "card": "XX",
                        "error": lines[2]["error"]}
    assert lines[3]["kind"] == "bad_json"
    # --from-start checks the whole record first: a bad card is still an error line
    bad = subprocess.run([sys.executable, "-m", "dokosim.cli", "solve", "--from-start", "-"],
                         input=json.dumps(recs[2]), capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and json.loads(bad.stdout)["kind"] == "unknown_card"


def test_node_limit_gives_up_and_leaves_the_table_sound(random_records):
    # a solve past the node limit returns None; what it stored is still exact for the next solve
    from dokosim.records.record import replay_detail
    from dokosim.dd.solve import Solver
    state = replay_detail(positions(random_records, 6, 1, seed=4)[0])["state"]
    fresh = Solver(table_bits=16)
    fresh.load(state)
    best, values = fresh.card_values()
    limit = fresh.nodes // 4
    assert limit > 10
    capped = Solver(table_bits=16, node_limit=limit)
    capped.load(state)
    assert capped.card_values() is None
    assert capped.eyes() is None
    assert 2 * limit <= capped.nodes <= 2 * (limit + 1)
    capped.node_limit = 0
    capped.load(state)
    again, values_again = capped.card_values()
    assert again == best and np.array_equal(values_again, values)
    capped.load(state)
    assert capped.eyes() == best


def test_payoff_similarity_changes_nodes_not_values(random_records):
    """The payoff-similarity table (``Solver(sim_bits=...)``, docs/solver.md, Speed, round 8)
    bounds a position by a stored one with other eyes: the values are the same with and without
    it (every card's value with 6 and 8 tricks left; the band and "does Re reach 121" with 9
    left, marriages before their clarification among them; from the first card within a node
    limit, where both answer), and it saves nodes."""
    from dokosim.records.record import replay_detail
    from dokosim.dd.solve import Solver
    recs = positions(random_records, 6, 60, seed=31) + positions(random_records, 8, 30, seed=32)
    with_sim, without = Solver(table_bits=16), Solver(table_bits=16, sim_bits=0)
    for rec in recs:
        state = replay_detail(rec)["state"]
        values = []
        for solver in (with_sim, without):
            solver.load(state)
            best, v = solver.card_values()
            values.append((best, v.tolist()))
        assert values[0] == values[1], rec
    assert with_sim.nodes < without.nodes, (with_sim.nodes, without.nodes)
    early = positions(random_records, 9, 40, seed=33) + [cut(r, 0) for r in random_records[:12]]
    both = 0
    for rec in early:
        state = replay_detail(rec)["state"]
        answers = []
        for solver in (with_sim, without):
            solver.node_limit = 2_000_000
            solver.load(state)
            answers.append((solver.band(), solver.reaches(121)))
        if None not in answers[0] + answers[1]:
            assert answers[0] == answers[1], rec
            both += 1
    assert both >= 35, both  # 34 of the 40 with 9 tricks left and 5 of the 12 first cards
