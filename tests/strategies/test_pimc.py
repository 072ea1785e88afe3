"""pimc over the double-dummy solver (strategies/pimc.py): the solver's eyes scored as a deal is
scored, each sampled deal valued by the solver (or by rollouts when the solve gives up), the card
chosen the best for the seat's side, every card legal, runs reproducible across thread counts.

Positions: random deals played by the random strategy (random reservations and calls), cut after a
fixed number of cards (fixed seed), as in tests/solver/test_solver.py; the plain minimax reference is that
file's (no pruning, no table, no equivalences).
"""
import json

import numpy as np
import pytest

from dokosim.engine.layout import (
    H_RE_MASK, I_CHARLIE, I_DOPPELKOPF, I_FOX, N_ITEMS, P_HAND_SIZE, P_NPLAYED, P_TURN, PUBLIC_LEN, RES_EYES_RE, RES_LEN, RES_SCORE, RES_TRICKS_RE, ST_LEN,
)
from dokosim.engine.play import legal_mask
from dokosim.engine.position import Position, View
from dokosim.engine.scoring import score_deal
from dokosim.solver.eyes import W_LEN
from dokosim.records.record import replay_detail
from dokosim.strategies import pimc
from dokosim.strategies.cardcount import distinct, scan_plays
from tests.solver.test_solver import cut, reference_card_values


@pytest.fixture(scope="module")
def records():
    """Finished random deals: random reservations (solos, marriages) and random calls."""
    from dokosim.run.simulate import simulate
    df = simulate(400, seed=515151, strategy="random", keep_play=True,
                  params={"*": {"p_reserve": 0.5, "p_call": 0.2}})
    return [json.loads(r) for r in df["record"]]


def scratch(sampled):
    """value_sample's Scratch for the position ``sampled`` (pimc.search_sums allocates the same: the
    rollouts play on the cards so far of the sampled deal)."""
    _, _, plays, play_seat, trick_winner, power, fclass, cmask = sampled
    rollout = Position(np.zeros(ST_LEN, dtype=np.int64), np.zeros(4, dtype=np.int64), plays, play_seat, trick_winner,
                       power, fclass, cmask)
    return pimc.Scratch(pimc.Rollout(rollout, np.zeros((2, N_ITEMS), dtype=np.int64), np.zeros(RES_LEN, dtype=np.int64)),
                        np.zeros(W_LEN, dtype=np.int64), np.zeros(2 << 14, dtype=np.int64), np.zeros(48, dtype=np.int64))


def pimc_params(solving, node_limit=0, rollout_solve=0, extras=False, ew=0.01, by_net=False):
    """pimc's parameter vector: its defaults, the solver for every card with ``solving`` (else
    rollouts only), and the settings given."""
    v = np.zeros(16)
    for i, (default, _) in enumerate(pimc.PARAMS.values()):
        v[i] = default
    v[pimc.PI_EYE_WEIGHT] = ew
    v[pimc.PI_SOLVE_TRICKS] = 12 if solving else 0
    v[pimc.PI_NODE_LIMIT] = node_limit
    v[pimc.PI_ROLLOUT_SOLVE] = rollout_solve
    v[pimc.PI_EXTRAS] = extras
    v[pimc.PI_ROLLOUT_NET] = by_net
    return v


def value_sample(state, solving, node_limit=0, rollout_solve=0, extras=False, ew=0.01, rng=(7, 11), by_net=False):
    """pimc.value_sample on the true deal of ``state`` (every hand known): (solved, sums, rng after,
    the candidate cards, and a dict of the sampled position, the Scratch, the params and the rules)."""
    *arrays, rules = (a.copy() for a in state)
    sampled = Position(*arrays)
    st, hands, plays, play_seat, _, _, fclass, cmask = sampled
    seat = int(st[P_TURN])
    cands = distinct(legal_mask(st, hands[seat], plays, fclass, cmask))
    sc = scratch(sampled)
    params = pimc_params(solving, node_limit, rollout_solve, extras, ew, by_net)
    sums = np.zeros(48)
    r = np.array(rng, dtype=np.uint64)
    solved = pimc.value_sample(seat, cands, sampled, rules, params, sc, r, sums, scan_plays(st, plays, play_seat, fclass))
    s = dict(sampled=sampled, sc=sc, params=params, rules=rules, values=sc.values, items=sc.ro.items)
    return solved, sums, tuple(r), cands, s


def choice(sums, cands):
    """The card pimc.search plays for these sums (the first of the best in card order)."""
    cards = [c for c in range(48) if cands >> c & 1]
    return max(cards, key=lambda c: (sums[c], -c))


def test_eyes_value_is_the_deal_score_without_extra_points(records):
    """On finished deals without extra points (and with schwarz where the eyes say it), the score
    from Re's eyes alone (scoring.settle through pimc.eyes_value) is score_deal's, for every seat,
    plus eye_weight per eye of the seat's margin; and it is strictly monotone in the eyes."""
    items = np.zeros((2, N_ITEMS), dtype=np.int64)
    res = np.zeros(RES_LEN, dtype=np.int64)
    checked = with_calls = 0
    for r in records:
        st, _, plays, play_seat, trick_winner = replay_detail(r)["state"][:5]
        score_deal(st, plays, play_seat, trick_winner, items, res)
        eyes, tricks, n = int(res[RES_EYES_RE]), int(res[RES_TRICKS_RE]), int(st[P_HAND_SIZE])
        if items[:, [I_FOX, I_DOPPELKOPF, I_CHARLIE]].any() or (tricks == n) != (eyes == 240) \
                or (tricks == 0) != (eyes == 0):
            continue
        checked += 1
        with_calls += bool(r.get("announcements"))
        for seat in range(4):
            re = int(st[H_RE_MASK]) >> seat & 1
            margin = (2 * eyes - 240) * (1 if re else -1)
            assert pimc.eyes_value(st, seat, eyes, 0.0, items) == res[RES_SCORE + seat]
            assert pimc.eyes_value(st, seat, eyes, 0.25, items) == res[RES_SCORE + seat] + 0.25 * margin
            v = [pimc.eyes_value(st, seat, e, 0.01, items) for e in range(0, 241, 3)]
            assert all((b > a) if re else (b < a) for a, b in zip(v, v[1:]))
    assert checked >= 150 and with_calls >= 50, (checked, with_calls)


def test_solver_valuation_plays_a_best_card(records):
    """With every hand known (one sample: the true deal), pimc's values are the solver's, scored,
    and the card it picks has the plain minimax's best value for its side (2 or 3 tricks left,
    0-3 cards of the trick on the table; solos, marriages, calls)."""
    rng = np.random.default_rng(3)
    checked = solos = 0
    for r in records:
        n = 4 * (12 - int(rng.integers(2, 4))) + int(rng.integers(0, 4))
        state = replay_detail(cut(r, n))["state"]
        expect = reference_card_values(state, 300_000)
        if expect is None:
            continue
        solved, sums, rng_after, cands, s = value_sample(state, True)
        assert solved and rng_after == (7, 11)  # the solver draws nothing
        assert {c: int(s["values"][c]) for c in expect} == expect
        st = state[0]
        seat = int(st[P_TURN])
        for c in expect:
            if cands >> c & 1:
                assert sums[c] == pimc.eyes_value(st, seat, expect[c], 0.01, s["items"])
        re = int(st[H_RE_MASK]) >> seat & 1
        assert expect[choice(sums, cands)] == (max if re else min)(expect.values())
        checked += 1
        solos += r["contract"]["type"] == "solo"
    assert checked >= 200 and solos >= 30, (checked, solos)


def test_a_solve_past_the_node_limit_falls_back_to_rollouts(records):
    """A solve that runs past node_limit leaves the sample to the rollouts: the same sums and random
    draws as rollouts alone; within the limit the solver's values."""
    fallbacks = 0
    for r in records[:40]:
        state = replay_detail(cut(r, 24))["state"]  # 6 tricks left: more than one node
        rollouts = value_sample(state, False)
        limited = value_sample(state, True, node_limit=1)
        assert not limited[0]
        assert (limited[1] == rollouts[1]).all() and limited[2] == rollouts[2]
        fallbacks += 1
        state = replay_detail(cut(r, 40))["state"]
        assert value_sample(state, True, node_limit=10**9)[0]
    assert fallbacks == 40


def test_rollouts_hand_over_to_the_solver(records):
    """With rollout_solve, a rollout that reaches a trick boundary with that many tricks left takes
    the solver's eyes from there: the fourth card of a trick, handed over at once, is valued
    exactly as the solver values it (and no rollout card is drawn)."""
    checked = 0
    for r in records:
        if r["contract"]["type"] == "marriage":
            continue  # the trick may settle the parties: the values then use the new ones
        state = replay_detail(cut(r, 4 * 8 + 3))["state"]
        whole = value_sample(state, True)
        handed = value_sample(state, False, rollout_solve=12)
        assert handed[2] == (7, 11) and not handed[0]
        assert np.allclose(handed[1], whole[1])
        checked += 1
        if checked == 60:
            break
    assert checked == 60


def test_extras_come_from_a_rollout_after_each_card(records):
    """With extras, a card the solver values gets the extra points of its side in a rollout after it
    (pimc.play_out, the same random draws in the same order): the sums less the solver's scored eyes
    are those whole numbers."""
    checked = 0
    for r in records:
        if r["contract"]["type"] == "solo":
            continue  # no extra points in a solo
        if checked == 30:
            break
        state = replay_detail(cut(r, 33))["state"]
        solved, sums, rng_after, cands, s = value_sample(state, True, extras=True)
        assert solved
        st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules = (a.copy() for a in state)
        seat = int(st[P_TURN])
        rng = np.array((7, 11), dtype=np.uint64)
        sampled = Position(st, hands, plays, play_seat, trick_winner, power, fclass, cmask)
        sc = scratch(sampled)
        for c in (c for c in range(48) if cands >> c & 1):
            dd = pimc.eyes_value(st, seat, int(s["values"][c]), 0.01, s["items"])
            pimc.play_out(seat, c, sampled, rules, s["params"], 4 * 12, sc, rng, scan_plays(st, plays, play_seat, fclass))
            assert sums[c] == dd + pimc.extra_points(sc.ro.pos.st, seat, sc.ro.items)
        assert tuple(rng) == rng_after
        checked += 1
    assert checked == 30


def _net_playout(state, c, ew=0.01):
    """A plain reading of a rollout by net (rollout_net=1): card ``c``, then at every decision with
    more than one kind the card net.net_card picks (else the lowest legal card: the copies of one
    kind are the same card), the deal scored for the seat as play_out scores it."""
    from dokosim.engine.play import play_card
    from dokosim.strategies.net import net_card
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules = (a.copy() for a in state)
    seat = int(st[P_TURN])
    pos = Position(st, hands, plays, play_seat, trick_winner, power, fclass, cmask)
    view = View(st[:PUBLIC_LEN], plays, play_seat, trick_winner, power, fclass, cmask)
    play_card(pos, c, rules)
    while st[P_NPLAYED] < 4 * st[P_HAND_SIZE]:
        s = int(st[P_TURN])
        lg = legal_mask(st, hands[s], plays, fclass, cmask)
        kinds = distinct(lg)
        d = net_card(s, hands[s], lg, view, rules) if kinds & (kinds - 1) else (int(lg) & -int(lg)).bit_length() - 1
        play_card(pos, d, rules)
    items = np.zeros((2, N_ITEMS), dtype=np.int64)
    res = np.zeros(RES_LEN, dtype=np.int64)
    score_deal(st, plays, play_seat, trick_winner, items, res)
    margin = 2 * int(res[RES_EYES_RE]) - 240
    return int(res[RES_SCORE + seat]) + ew * (margin if int(st[H_RE_MASK]) >> seat & 1 else -margin)


def test_rollouts_by_net_are_the_deal_played_out_by_net(records):
    """rollout_net=1 (pimc's play_out with by_net): every candidate card's rollout value equals the
    deal played on by net.net_card at every seat, scored; and it differs from heuristic's
    rollouts somewhere (the flag does something)."""
    checked = differs = 0
    for r in records[:60]:
        state = replay_detail(cut(r, 13))["state"]
        solved, sums, _, cands, _ = value_sample(state, False, by_net=True)
        assert not solved
        for c in (c for c in range(48) if cands >> c & 1):
            assert sums[c] == pytest.approx(_net_playout(state, c))
            checked += 1
        differs += not np.allclose(sums, value_sample(state, False)[1])
    assert checked > 100 and differs > 0


@pytest.mark.parametrize("n_cards", [1, 9, 22, 30, 33, 38, 41])
def test_every_card_pimc_plays_is_legal(records, n_cards):
    """pimc.card at positions of every stage, with the solver at the decision, at the rollouts' end
    and past its node limit, with and without learned inference, answers a legal card."""
    names = list(pimc.PARAMS)
    for solve_tricks, node_limit, rollout_solve, extras, infer in ((12, 300, 3, 1, 0), (5, 0, 0, 0, 3),
                                                                   (0, 0, 4, 1, 2)):
        params = np.zeros(len(names))
        for i, name in enumerate(names):
            params[i] = pimc.PARAMS[name][0]
        params[names.index("samples")] = 3
        params[names.index("solve_tricks")] = solve_tricks
        params[names.index("node_limit")] = node_limit
        params[names.index("rollout_solve")] = rollout_solve
        params[names.index("extras")] = extras
        params[names.index("infer")] = infer
        for r in records[:12]:
            st, hands, plays, play_seat, trick_winner, power, fclass, cmask, rules = \
                replay_detail(cut(r, n_cards))["state"]
            seat = int(st[P_TURN])
            legal = legal_mask(st, hands[seat], plays, fclass, cmask)
            rng = np.array([n_cards, solve_tricks], dtype=np.uint64)
            c = pimc.card(seat, hands[seat], legal, st[:PUBLIC_LEN], plays, play_seat, trick_winner, power, fclass,
                          cmask, rules, params, rng)
            assert legal >> c & 1


def test_runs_do_not_depend_on_the_thread_count():
    """Rows depend only on (seed, deal_id): the same on one thread and on two (the solver's scratch
    lives for one decision)."""
    from dokosim.run.simulate import simulate
    params = {"*": {"samples": 4, "solve_tricks": 4}}
    one = simulate(6, seed=77, strategy="pimc", params=params, threads=1)
    two = simulate(6, seed=77, strategy="pimc", params=params, threads=2)
    assert one.equals(two)
    assert one["eyes_re"].to_list() != [0] * 6


def test_pimc_solver_is_pimc_with_the_solver_budget():
    """The preset pimc_solver plays exactly as pimc with solve_tricks=6, and differs from pimc."""
    from dokosim.run.simulate import simulate
    from dokosim.loop.registry import param_specs
    assert param_specs("pimc_solver")["solve_tricks"].default == 6
    assert param_specs("pimc")["solve_tricks"].default == 0
    cols = ["eyes_re", "score_0", "score_1", "score_2", "score_3"]
    preset = simulate(12, seed=11, strategy="pimc_solver", keep_play=True, threads=1)
    explicit = simulate(12, seed=11, strategy="pimc", params={"*": {"solve_tricks": 6}}, keep_play=True, threads=1)
    rollouts = simulate(12, seed=11, strategy="pimc", keep_play=True, threads=1)
    assert preset.select(cols, "record").equals(explicit.select(cols, "record"))
    assert not preset["record"].equals(rollouts["record"])
