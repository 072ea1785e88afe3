"""ismcts, information-set Monte Carlo tree search (strategies/ismcts.py): every card it answers is
legal and its deals complete with valid scores under DDV and club rules, runs are reproducible per
(seed, deal_id), the compiled tree is exactly the tree of a plain Python ISMCTS drawing the same
random numbers (random and heuristic playouts), and it plays in a ``Game`` through ``Agent``.
That it reads only what its seat sees: tests/strategies/test_strategy_observation.py (ismcts is
one of its modules).

Small budgets throughout (``iterations`` 24-60, ``bid_samples`` 4): the tests check the search, not
its strength.
"""
import json
import math

import numpy as np
import pytest

from dokosim.engine.layout import H_RE_MASK, N_ITEMS, P_HAND_SIZE, P_NPLAYED, P_TURN, PUBLIC_LEN, RES_EYES_RE, \
    RES_LEN, RES_SCORE
from dokosim.engine.play import legal_mask, play_card
from dokosim.engine.position import Position, View
from dokosim.engine.rng import below
from dokosim.engine.scoring import score_deal
from dokosim.records.record import replay_detail
from dokosim.strategies import heuristic, ismcts, sampler
from dokosim.strategies.cardcount import distinct
from dokosim.strategies.pimc_bids import HPARAMS
from tests.solver.test_solver import cut

SMALL = {"iterations": 40, "bid_samples": 4}


def param_vector(**overrides):
    """ismcts's parameter vector: its defaults with ``overrides``."""
    v = np.zeros(16)
    for i, (name, (default, _)) in enumerate(ismcts.PARAMS.items()):
        v[i] = overrides.get(name, default)
    return v


@pytest.fixture(scope="module", params=["ddv", "club"])
def played(request):
    """30 deals played by ismcts at every seat (small budget), with their records."""
    from dokosim.run.simulate import simulate
    df = simulate(30, seed=907, rules=request.param, strategy="ismcts", keep_play=True, threads=1,
                  params={"*": SMALL})
    return request.param, df


def test_deals_complete_with_valid_scores(played):
    """Every deal of ismcts at all seats is complete (48 cards, or a redeal's row), replays without an
    error, and its scores add up to zero; under club rules a poverty or piglets deal is among them, and
    ismcts declares something other than a normal game somewhere."""
    rules, df = played
    assert df.height == 30
    scores = df.select([f"score_{s}" for s in range(4)]).to_numpy()
    assert (scores.sum(axis=1) == 0).all()
    assert ((df["eyes_re"] >= 0) & (df["eyes_re"] <= 240)).all()
    for rec in df["record"]:
        r = json.loads(rec)
        assert len(r["play"]) == 48
        detail = replay_detail(r)
        assert detail["error"] == 0
    if rules == "club":
        assert (df["poverty_partner"] >= 0).any() or (df["piglets"] >= 0).any()
    assert (df["contract"] != "normal").any()


@pytest.mark.parametrize("n_cards", [0, 5, 14, 23, 31, 38, 42])
def test_every_card_is_legal(played, n_cards):
    """ismcts.card, called directly (the deal loop would repair an illegal answer), at positions of
    every stage of the deals above, with both playout policies, answers a legal card of the seat's
    hand, and draws from the random stream only when it has a real choice."""
    rules, df = played
    for rollout in (1, 0):
        params = param_vector(iterations=24, rollout=rollout, bid_samples=4)
        for rec in df["record"][:15]:
            st, hands, plays, play_seat, trick_winner, power, fclass, cmask, packed = \
                replay_detail(cut(json.loads(rec), n_cards))["state"]
            seat = int(st[P_TURN])
            legal = legal_mask(st, hands[seat], plays, fclass, cmask)
            rng = np.array([n_cards + 1, rollout + 7], dtype=np.uint64)  # never the all-zero state
            c = ismcts.card(seat, hands[seat], legal, st[:PUBLIC_LEN], plays, play_seat, trick_winner, power,
                            fclass, cmask, packed, params, rng)
            assert (int(legal) >> c) & 1, (rules, n_cards, c)
            kinds = distinct(legal)
            assert (tuple(rng) != (n_cards + 1, rollout + 7)) == bool(kinds & (kinds - 1))


def test_runs_are_reproducible():
    """The rows depend only on (seed, deal_id): the same twice, on one thread and on two; another seed
    gives other rows."""
    from dokosim.run.simulate import simulate
    kw = dict(strategy="ismcts,heuristic,ismcts,random", params={"ismcts": SMALL}, keep_play=True)
    one = simulate(8, seed=911, threads=1, **kw)
    assert one.equals(simulate(8, seed=911, threads=1, **kw))
    assert one.equals(simulate(8, seed=911, threads=2, **kw))
    assert not one["record"].equals(simulate(8, seed=912, threads=1, **kw)["record"])


# ---------------------------------------------------------------- the plain reference

def reference_tree(seat, hand, view, rules, params, rng):
    """A plain Python SO-ISMCTS with ismcts's steps and random draws (the module doc): the tree as a
    dict from the path of card kinds (even cards) to [seat, visits, availability, summed reward].
    Children of a node are the paths one card longer; the expansion draws the untried kind by its
    rank in card order, the random playout the card by its rank in the legal mask; the heuristic
    playout asks ``heuristic.card`` (which scans the cards itself)."""
    c_explore, ew = params[ismcts.IS_EXPLORATION], params[ismcts.IS_EYE_WEIGHT]
    sampling, scan = sampler.sampling_setup(seat, hand, view, rules, True)
    sampled, _ = sampler.sampled_position(view)
    tree = {(): [-1, 0, 0, 0.0]}
    for _ in range(int(params[ismcts.IS_ITERATIONS])):
        sampler.deal_unseen(rng, seat, hand, sampling, view.cmask, sampled.hands)
        sampler.set_hidden(sampled.st, sampled.hands, scan[2], seat)
        pos = Position(*(a.copy() for a in sampled))
        st, hands, plays, play_seat, trick_winner, power, fclass, cmask = pos
        total = 4 * int(st[P_HAND_SIZE])
        path = ()
        while st[P_NPLAYED] < total:
            s = int(st[P_TURN])
            lg = int(legal_mask(st, hands[s], plays, fclass, cmask))
            kinds = sorted({c & ~1 for c in range(48) if lg >> c & 1})
            children = [path + (a,) for a in kinds if path + (a,) in tree]
            for ch in children:
                tree[ch][2] += 1
            untried = [a for a in kinds if path + (a,) not in tree]
            if untried:
                a = untried[below(rng, len(untried))]
                path += (a,)
                tree[path] = [s, 0, 1, 0.0]
                play_card(pos, a if lg >> a & 1 else a + 1, rules)
                break

            def ucb(ch):
                _, n, avail, value = tree[ch]
                return value / n + c_explore * math.sqrt(math.log(avail) / n)
            path = max(children, key=lambda ch: (ucb(ch), -ch[-1]))
            a = path[-1]
            play_card(pos, a if lg >> a & 1 else a + 1, rules)
        while st[P_NPLAYED] < total:
            s = int(st[P_TURN])
            lg = legal_mask(st, hands[s], plays, fclass, cmask)
            if params[ismcts.IS_ROLLOUT] > 0:
                d = heuristic.card(s, hands[s], lg, st[:PUBLIC_LEN], plays, play_seat, trick_winner, power, fclass,
                                   cmask, rules, HPARAMS, rng)
            else:
                cards = [c for c in range(48) if int(lg) >> c & 1]
                d = cards[below(rng, len(cards))]
            play_card(pos, d, rules)
        items = np.zeros((2, N_ITEMS), dtype=np.int64)
        res = np.zeros(RES_LEN, dtype=np.int64)
        score_deal(st, plays, play_seat, trick_winner, items, res)
        margin = ew * (2 * int(res[RES_EYES_RE]) - 240)
        reward = [int(res[RES_SCORE + s]) + (margin if int(st[H_RE_MASK]) >> s & 1 else -margin) for s in range(4)]
        for k in range(len(path), 0, -1):
            node = tree[path[:k]]
            node[1] += 1
            node[3] += reward[node[0]]
        tree[()][1] += 1
    return tree


def compiled_tree(tree, n_nodes):
    """ismcts's flat tree as reference_tree's dict."""
    out = {}
    for k in range(n_nodes):
        path, n = [], k
        while n > 0:
            path.append(int(tree.action[n]))
            n = int(tree.parent[n])
        out[tuple(reversed(path))] = [int(tree.seat[k]), int(tree.visits[k]), int(tree.avail[k]) if k else 0,
                                      float(tree.value[k])]
    return out


@pytest.mark.parametrize("rollout", [0, 1])
def test_the_tree_is_the_plain_reference_tree(played, rollout):
    """ismcts.search_tree against reference_tree from the same random stream, at positions of every
    stage of the deals above: the same nodes with the same seats, visits and availability counts,
    the same summed rewards, the same draws consumed; and the card ismcts plays is the reference
    root's most visited child (ties: larger mean, then lower card)."""
    _, df = played
    checked = 0
    for i, rec in enumerate(df["record"][:10]):
        n_cards = (0, 3, 9, 17, 26, 33, 37, 42)[i % 8]
        st, hands, plays, play_seat, trick_winner, power, fclass, cmask, packed = \
            replay_detail(cut(json.loads(rec), n_cards))["state"]
        seat = int(st[P_TURN])
        legal = legal_mask(st, hands[seat], plays, fclass, cmask)
        kinds = distinct(legal)
        if not kinds & (kinds - 1):
            continue
        params = param_vector(iterations=60 if rollout else 150, rollout=rollout, exploration=3.0)
        view = View(st[:PUBLIC_LEN], plays, play_seat, trick_winner, power, fclass, cmask)
        rng = np.array([i + 1, 5], dtype=np.uint64)
        tree, n_nodes = ismcts.search_tree(seat, hands[seat], legal, view, packed, params, rng)
        ref_rng = np.array([i + 1, 5], dtype=np.uint64)
        want = reference_tree(seat, hands[seat], view, packed, params, ref_rng)
        got = compiled_tree(tree, n_nodes)
        assert got.keys() == want.keys()
        for path, (s, n, avail, value) in want.items():
            assert got[path][:3] == [s, n, avail], path
            assert got[path][3] == pytest.approx(value, abs=1e-9), path
        assert tuple(rng) == tuple(ref_rng)
        root = [p for p in want if len(p) == 1]
        best = max(root, key=lambda p: (want[p][1], want[p][3] / want[p][1], -p[0]))[0]
        card = ismcts.card(seat, hands[seat], legal, st[:PUBLIC_LEN], plays, play_seat, trick_winner, power, fclass,
                           cmask, packed, params, np.array([i + 1, 5], dtype=np.uint64))
        assert card & ~1 == best and (int(legal) >> card) & 1
        checked += 1
    assert checked >= 6


def test_plays_in_a_game_through_agent():
    """``Agent("ismcts")`` plays whole deals of a ``Game`` (club rules: poverty and piglets possible):
    every action it answers is legal there, and each deal ends with scores adding up to zero."""
    from dokosim import Agent, Game
    agent = Agent("ismcts", **SMALL)
    for deal_id in range(3):
        game = Game(rules="club", seed=913, deal_id=deal_id)
        while not game.is_terminal():
            action = agent.act(game)
            assert action in game.legal_actions()
            game.apply_action(action)
        assert sum(game.returns()) == 0
