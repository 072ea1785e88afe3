"""The ``net`` player (issue 31, item 3): its numba forward pass equals the training library's on
the 1,000 observations stored with the shipped weights (``dokosim train fit`` stores JAX's
outputs beside the weights, so this test needs no JAX), and it never plays an illegal card."""
import json

import numpy as np
import polars as pl
import pytest

import dokosim
from dokosim import Agent, Game
from dokosim.engine import game_state as gs
from dokosim.engine.layout import PUBLIC_LEN, R_LEN, ST_LEN
from dokosim.engine.play import legal_mask
from dokosim.engine.position import View
from dokosim.strategies import net
from dokosim.strategies.net_features import N_FEATURES, N_KINDS
from dokosim.train.network import forward_numpy, load_weights
from tests.engine.test_properties import check_deal
from tests.helpers.games import card_decisions


WEIGHT_FILES = pytest.mark.parametrize("round3, path", [(False, net.WEIGHTS_FILE), (True, net.ROUND3_WEIGHTS_FILE)],
                                       ids=["round2", "round3"])


@WEIGHT_FILES
def test_the_numba_forward_pass_equals_the_training_librarys(round3, path):
    with np.load(path) as stored:
        x, logits_jax = stored["check_x"], stored["check_logits"]
    assert x.shape == (1000, N_FEATURES) and logits_jax.shape == (1000, N_KINDS)
    out = np.zeros(N_KINDS, dtype=np.float32)
    worst = 0.0
    for row, expected in zip(x, logits_jax):
        net.policy_logits(np.ascontiguousarray(row), out, round3)
        worst = max(worst, float(np.abs(out - expected).max()))
    assert worst <= 1e-5, worst
    # and the plain numpy reading of the same weights agrees (the shipped file is what net reads)
    numpy_logits, _ = forward_numpy(load_weights(path), x)
    assert np.abs(numpy_logits - logits_jax).max() <= 1e-5


@WEIGHT_FILES
def test_the_numba_value_head_equals_the_training_librarys(round3, path):
    with np.load(path) as stored:
        x, value_jax = stored["check_x"], stored["check_value"]
    values = np.array([net.state_value(np.ascontiguousarray(row), round3) for row in x])
    assert values.shape == value_jax.reshape(-1).shape and values.std() > 0.5  # a head that says something
    assert np.abs(values - value_jax.reshape(-1)).max() <= 1e-4  # points (|value| up to ~20): float32 sums


def test_calls_follow_the_value_head():
    """At every call opportunity of 80 deals played by net, the action is the documented rule:
    where Re or Kontra may be said just before the seat's own card, say it when the value head
    (here the plain numpy forward pass of the features the training data records,
    teacher_step.position_features) expects at least call_value points, else pass; between other
    seats' cards, pass; where only a denial may be, heuristic's answer. Both answers of the value
    head occur often."""
    from dokosim.loop.teacher_step import position_features
    weights = load_weights(net.WEIGHTS_FILE)
    agent, heuristic = Agent("net", call_value=1.5), Agent("heuristic")
    from dokosim.engine.layout import P_TURN
    seen = {"call": 0, "pass": 0, "not its card": 0, "denial opportunity": 0}
    for deal_id in range(80):
        game = Game("ddv", seed=6, deal_id=deal_id)
        g = game._g
        while g[gs.G_PHASE] != gs.PH_TERMINAL:
            action = agent.act(game)
            if g[gs.G_PHASE] == gs.PH_CALL:
                legal = game.legal_actions()
                if (gs.A_RE in legal or gs.A_KONTRA in legal) and g[gs.O_ST + P_TURN] != g[gs.G_PLAYER]:
                    seen["not its card"] += 1
                    assert action == gs.A_PASS
                elif gs.A_RE in legal or gs.A_KONTRA in legal:
                    x = np.zeros(N_FEATURES, dtype=np.float32)
                    position_features(g, x)
                    value = float(forward_numpy(weights, x[None, :])[1][0])
                    says = value >= 1.5
                    seen["call" if says else "pass"] += 1
                    if abs(value - 1.5) > 1e-3:  # not on a float32 edge
                        expected = [a for a in (gs.A_RE, gs.A_KONTRA) if a in legal] if says else [gs.A_PASS]
                        assert action in expected, (deal_id, value, legal, action)
                else:
                    seen["denial opportunity"] += 1
                    assert action == heuristic.act(game)
            game.apply_action(action)
    assert min(seen.values()) >= 5, seen


def _first_card_value(game, weights, reservation, seat):
    """The value head (plain numpy) at ``seat``'s first card after ``seat`` says ``reservation``
    and everybody else healthy, or None if ``seat`` does not lead trick 1 then."""
    from dokosim.loop.teacher_step import position_features
    game = game.clone()
    g = game._g
    while g[gs.G_PHASE] == gs.PH_RESERVATION:
        game.apply_action(gs.A_RESERVE + (reservation if int(g[gs.G_PLAYER]) == seat else 0))
    while g[gs.G_PHASE] == gs.PH_CALL:
        game.apply_action(gs.A_PASS)
    if g[gs.G_PHASE] != gs.PH_CARD or int(g[gs.G_PLAYER]) != seat:
        return None
    x = np.zeros(N_FEATURES, dtype=np.float32)
    position_features(g, x)
    return float(forward_numpy(weights, x[None, :])[1][0])


def test_solos_are_kept_by_the_value_head_on_the_first_cards_features():
    """opening_value equals the value head at the seat's real first card (the seat that leads
    trick 1, declaring the solo or saying healthy, in the game kernels), and net's reservation is
    heuristic's, except that a voluntary solo the value head rates below the normal game plus
    solo_margin is replaced by heuristic's choice among the other reservations."""
    from dokosim.engine.cards import C_NORMAL, C_SOLO_BASE
    from dokosim.engine.layout import P_DEALER, R_LEN
    weights = load_weights(net.WEIGHTS_FILE)
    agent, heuristic = Agent("net"), Agent("heuristic")
    compared, kept, replaced = 0, 0, 0
    for deal_id in range(400):
        game = Game("ddv", seed=8, deal_id=deal_id)
        g = game._g
        rules = g[gs.O_RULES:gs.O_RULES + R_LEN]
        dealer = int(g[gs.O_ST + P_DEALER])
        seat = (dealer + 1) % 4  # leads trick 1 of a voluntary solo and of the normal game
        hand = int(g[gs.O_HANDS + seat])
        if deal_id % 20 == 0:
            for res, contract in ((0, C_NORMAL), (1 + deal_id % 7, C_SOLO_BASE + deal_id % 7)):
                reference = _first_card_value(game, weights, res, seat)
                if reference is not None:
                    assert abs(net.opening_value(seat, hand, dealer, contract, rules) - reference) <= 1e-4
                    compared += 1
        while g[gs.G_PHASE] == gs.PH_RESERVATION:
            mine, theirs = agent.act(game), heuristic.act(game)
            s = int(g[gs.G_PLAYER])
            h = int(g[gs.O_HANDS + s])
            if gs.A_RESERVE + 1 <= theirs <= gs.A_RESERVE + 7:
                keep = net.value_keeps_solo(s, h, theirs - gs.A_RESERVE - 1, dealer, rules, 0.0, False)
                kept += keep
                replaced += not keep
                assert (mine == theirs) == bool(keep)
                if not keep:
                    assert not gs.A_RESERVE + 1 <= mine <= gs.A_RESERVE + 7
            else:
                assert mine == theirs
            game.apply_action(mine)
    assert compared >= 30 and kept >= 3 and replaced >= 3, (compared, kept, replaced)


def test_net_plays_only_legal_cards_at_every_decision():
    """net_card itself (not the loop, which would replace an illegal answer) at every card
    decision with a choice of 60 deals played by net, and the records of 300 simulated deals
    through the rules checker written from RULES.md (test_properties.check_deal)."""
    agent = Agent("net")
    decisions = 0
    for g, seat in card_decisions(agent, seed=4, deals=60):
        if not int(g[gs.G_LEGAL]) & (int(g[gs.G_LEGAL]) - 1):
            continue  # one legal card kind: no choice
        st = g[gs.O_ST:gs.O_ST + ST_LEN]
        hands = g[gs.O_HANDS:gs.O_HANDS + 4]
        plays = g[gs.O_PLAYS:gs.O_PLAYS + 48]
        fclass = g[gs.O_FCLASS:gs.O_FCLASS + 48]
        cmask = g[gs.O_CMASK:gs.O_CMASK + 5]
        legal = legal_mask(st, hands[seat], plays, fclass, cmask)
        view = View(st[:PUBLIC_LEN], plays, g[gs.O_PSEAT:gs.O_PSEAT + 48], g[gs.O_TW:gs.O_TW + 12],
                    g[gs.O_POWER:gs.O_POWER + 48], fclass, cmask)
        card = net.net_card(seat, hands[seat], legal, view, g[gs.O_RULES:gs.O_RULES + R_LEN])
        assert 0 <= card < 48 and (int(legal) >> int(card)) & 1
        decisions += 1
    assert decisions > 60 * 30
    df = dokosim.simulate(300, seed=9, strategy="net", keep_play=True)
    assert df.height == 300
    for record, contract in df.select(pl.col("record"), pl.col("contract")).iter_rows():
        eyes, _, _ = check_deal(json.loads(record), contract)
        assert sum(eyes) == 240


def test_a_weights_file_that_does_not_fit_is_one_line(tmp_path):
    """net._load (what net and pimc read at import) refuses a file that is not a weights archive,
    lacks an array, has a shape that does not fit, or holds a value that is not finite, naming the
    file and the array; the shipped file loads."""
    import pytest

    from dokosim.validation import SimulationError
    good = net._load(net.WEIGHTS_FILE)
    assert good["w1"].shape == (N_FEATURES, net.HIDDEN) and good["wp"].shape == (net.HIDDEN, N_KINDS)
    cases = {"single.npy": None, "missing.npz": ("w2", "missing"), "shape.npz": ("wp", "shape"),
             "nan.npz": ("b2", "not finite")}
    for name, change in cases.items():
        path = tmp_path / name
        if change is None:
            np.save(path, good["w1"])
            expected = "single array"
        else:
            key, expected = change
            arrays = dict(good)
            if expected == "missing":
                del arrays[key]
            elif expected == "shape":
                arrays[key] = np.zeros((net.HIDDEN, N_KINDS + 1), dtype=np.float32)
            else:
                arrays[key] = arrays[key].copy()
                arrays[key][0] = np.nan
            np.savez(path, **arrays)
        with pytest.raises(SimulationError, match=expected) as info:
            net._load(path)
        assert str(path) in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("player, path", [("net", net.WEIGHTS_FILE), ("net3", net.ROUND3_WEIGHTS_FILE)])
def test_each_card_is_the_best_legal_kind_of_the_players_weights(player, path):
    """At every card decision with a choice of 20 deals played by ``net`` (round 2's weights) and
    ``net3`` (round 3's), the card is of the legal kind that the plain numpy forward pass of that
    weights file scores highest."""
    from dokosim.loop.teacher_step import position_features
    weights = load_weights(path)
    agent = Agent(player)
    checked = 0
    for deal_id in range(20):
        game = Game("ddv", seed=8, deal_id=deal_id)
        g = game._g
        while g[gs.G_PHASE] != gs.PH_TERMINAL:
            action = agent.act(game)
            if g[gs.G_PHASE] == gs.PH_CARD and len(game.legal_actions()) > 1:
                x = np.zeros(N_FEATURES, dtype=np.float32)
                position_features(g, x)
                logits = forward_numpy(weights, x[None, :])[0][0]
                legal = game.legal_actions()
                best = max(logits[k] for k in legal)
                assert logits[action] >= best - 1e-4, (deal_id, action, legal)
                checked += 1
            game.apply_action(action)
    assert checked > 20 * 30


def test_a_poverty_is_accepted_by_heuristics_rule_at_nets_own_threshold():
    """net takes or refuses a poverty as heuristic does, at its parameter accept_trumps (heuristic's
    default 10.5 unless set): a hand of strength 10 (9 trumps with TH and QC) is refused at the
    default and taken at 9; every other part of the exchange stays heuristic's (the pass below)."""
    from dokosim.engine.cards import parse_hand
    from dokosim.strategies import heuristic
    from dokosim.strategies.common import EX_ACCEPT, EX_PASS
    from tests.strategies.test_heuristic import HOUSE, param_vector, pub

    def exchange(module, hand, phase, **params):
        rng = np.array([5, 6], dtype=np.uint64)
        return module.exchange(1, np.int64(parse_hand(hand)), phase, pub(), HOUSE,
                               param_vector(module, **params), rng)
    strength_10 = "TH QC QD JC JS JH AD TD KD AC 9S 9H"
    assert net.PARAMS["accept_trumps"][0] == heuristic.PARAMS["accept_trumps"][0] == 10.5
    assert exchange(net, strength_10, EX_ACCEPT) == exchange(heuristic, strength_10, EX_ACCEPT) == 0
    assert exchange(net, strength_10, EX_ACCEPT, accept_trumps=9.0) == 1
    assert exchange(net, strength_10, EX_ACCEPT, accept_trumps=10.0) == 1
    poor = "QD JD AD 9D KC AC 9S KS TS 9H KH TC"
    assert exchange(net, poor, EX_PASS, accept_trumps=9.0) == exchange(heuristic, poor, EX_PASS)


def test_poverty_search_decides_the_poverty_as_pimc_does():
    """With poverty_search=N, net's acceptance and a poor hand's reservation are pimc's search
    (N sampled deals per option) on the same random stream, and differ from heuristic's rule on
    some hand; a hand that may not declare poverty is reserved as without it."""
    from dokosim.engine.deal import reservation_options
    from dokosim.engine.layout import RES_POVERTY
    from dokosim.strategies import heuristic, pimc
    from dokosim.strategies.common import EX_ACCEPT
    from tests.strategies.test_heuristic import HOUSE, param_vector, pub

    gen = np.random.default_rng(3)
    differs = poor_hands = 0
    for trial in range(2000):
        deck = gen.permutation(48)
        hand = np.int64(sum(1 << int(c) for c in deck[:12]))
        options = reservation_options(hand, HOUSE)
        if trial >= 40 and not (options >> RES_POVERTY) & 1:
            continue  # the acceptance is checked on the first 40 hands, the reservation on the poor ones
        rng_net, rng_pimc = (np.array([trial, 9], dtype=np.uint64) for _ in range(2))
        took = net.exchange(1, hand, EX_ACCEPT, pub(), HOUSE, param_vector(net, poverty_search=24), rng_net)
        assert took == pimc.exchange(1, hand, EX_ACCEPT, pub(), HOUSE, param_vector(pimc), rng_pimc)
        differs += took != heuristic.exchange(1, hand, EX_ACCEPT, pub(), HOUSE, param_vector(heuristic), rng_net)
        rng_net, rng_pimc, rng_plain = (np.array([trial, 10], dtype=np.uint64) for _ in range(3))
        chosen = net.reserve(1, hand, options, pub(), HOUSE, param_vector(net, poverty_search=24), rng_net)
        if (options >> RES_POVERTY) & 1:
            poor_hands += 1
            assert chosen == pimc.reserve(1, hand, options, pub(), HOUSE, param_vector(pimc), rng_pimc)
        else:
            assert chosen == net.reserve(1, hand, options, pub(), HOUSE, param_vector(net), rng_plain)
    assert differs > 0 and poor_hands >= 5, (differs, poor_hands)


def test_poverty_search_screens_solos_as_pimc_does_by_default():
    """net's copy of pimc's solo screen (net cannot import pimc, which imports net) is pimc's default."""
    from dokosim.strategies import pimc
    assert net.SOLO_SCREEN == pimc.PARAMS["solo_screen"][0]
