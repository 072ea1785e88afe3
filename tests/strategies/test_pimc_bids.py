"""pimc decides its reservations, poverty acceptance and calls by search (issue 30, item 1;
strategies/pimc_bids.py), and ``search_bids=0`` restores heuristic's rules."""
import numpy as np
import polars as pl

import dokosim
from dokosim import Agent, Game, action_id
from dokosim.engine.cards import SOLO_KINDS, mask_str, parse_hand
from dokosim.engine.game_state import G_ATTEMPT
from dokosim.engine.deal import reservation_options
from dokosim.engine.layout import P_DEALER, P_HAND_SIZE, P_POVERTY_SEAT, PUBLIC_LEN
from dokosim.engine.rng import seed_stream
from dokosim.rules import Rules, load_rules
from dokosim.strategies import pimc, pimc_bids

# Found by comparing heuristic's rule with 400 sampled deals per option: heuristic plays it
# healthy (about 0.0 points), the rollouts give a fleischlos solo about +2.9.
FLEISCHLOS_HAND = "QC QS AD 9D 9D AC AC TC TC AS 9S AH"
DDV = Rules().packed()


def _other_hands(hand_text):
    """The cards seat 0 does not hold, dealt in order to seats 1-3 (any deal will do: a
    reservation sees only its own hand)."""
    rest = []
    held = parse_hand(hand_text)
    for c in range(48):
        if not (held >> c) & 1:
            rest.append(c)
    return [mask_str(sum(1 << c for c in rest[12 * i:12 * i + 12])) for i in range(3)]


def _reservation_game(hand_text):
    return Game(hands=[hand_text, *_other_hands(hand_text)], dealer=3, calls=False)


def test_a_hand_whose_sampled_value_favours_a_solo_declares_it():
    game = _reservation_game(FLEISCHLOS_HAND)
    assert game.phase == "reservation" and game.current_player == 0
    assert Agent("heuristic").act(game) == action_id("healthy")
    assert Agent("pimc", search_bids=0).act(game) == action_id("healthy")  # the old rules
    assert Agent("pimc", bid_samples=200).act(game) == action_id("fleischlos_solo")


def test_the_reservation_is_the_option_with_the_best_sampled_mean():
    """pimc's choice against a plain argmax over the sums reservation_values reports for the
    same random stream, on 40 random hands (screen 0: every solo is searched)."""
    pub = np.zeros(PUBLIC_LEN, dtype=np.int64)
    pub[P_DEALER], pub[P_HAND_SIZE], pub[P_POVERTY_SEAT] = 3, 12, -1
    rs = np.random.default_rng(5)
    differs = 0
    for i in range(40):
        hand = np.int64(sum(1 << int(c) for c in rs.choice(48, 12, replace=False)))
        options = reservation_options(hand, DDV)
        rng = np.zeros(2, dtype=np.uint64)
        seed_stream(rng, 11, i, 0)
        sums = np.zeros(64)
        cand = pimc_bids.reservation_values(0, hand, options, pub, DDV, 12, 0.0, rng.copy(), sums)
        choice = pimc_bids.search_reservation(0, hand, options, pub, DDV, 12, 0.0, rng.copy())
        opts = [o for o in range(64) if (cand >> o) & 1]
        best = max(opts, key=lambda o: (sums[o], -o))
        assert choice == best, (mask_str(int(hand)), choice, {o: sums[o] for o in opts})
        differs += best != 0
    assert differs >= 1  # some hand's best option is a solo, not healthy (the check could fail)


def test_a_rollout_is_the_game_played_by_heuristic():
    """option_values against the Game API: the same four hands, seat 0 reserving each option,
    heuristic deciding everything else (its reservations, the poverty's exchange, every card),
    no calls; seat 0's score must be the Game's."""
    from dokosim.engine.position import new_position
    from dokosim.engine.layout import N_ITEMS, RES_LEN
    rules = load_rules("club")  # poverty and piglets too
    packed = rules.packed()
    rs = np.random.default_rng(8)
    checked = 0
    for deal in range(12):
        perm = rs.permutation(48)
        hands = [np.int64(sum(1 << int(c) for c in perm[12 * s:12 * s + 12])) for s in range(4)]
        texts = [mask_str(int(h)) for h in hands]
        pubx = np.zeros(PUBLIC_LEN, dtype=np.int64)
        pubx[P_DEALER], pubx[P_HAND_SIZE], pubx[P_POVERTY_SEAT] = 3, 12, -1
        rng = np.zeros(2, dtype=np.uint64)
        choices = np.zeros(4, dtype=np.int64)
        for s in (1, 2, 3):
            game = Game(rules=rules, hands=texts, dealer=3, calls=False)
            for earlier in range(s):
                game.apply_action(action_id("healthy"))
            choices[s] = _reservation_code(Agent("heuristic").act(game))
        options = reservation_options(hands[0], packed)
        for o in [o for o in range(64) if (options >> o) & 1]:
            sums = np.zeros(64)
            ro = pimc_bids.Rollout(new_position(), np.zeros((2, N_ITEMS), dtype=np.int64),
                                   np.zeros(RES_LEN, dtype=np.int64))
            pimc_bids.option_values(0, np.int64(1) << o, np.array(hands), choices.copy(), pubx.copy(), packed, rng,
                                    sums, ro)
            game = Game(rules=rules, hands=texts, dealer=3, calls=False)
            game.apply_action(action_id(_reservation_name(o)))
            heuristic = Agent("heuristic")
            while not game.is_terminal():
                game.apply_action(heuristic.act(game))
            want = 0 if game._g[G_ATTEMPT] > 0 else game.returns()[0]  # a redeal is worth 0
            assert sums[o] == want, (texts, _reservation_name(o), sums[o], want)
            checked += 1
    assert checked >= 12 * 8


def _reservation_name(o):
    names = ["healthy", *[f"{k}_solo" for k in SOLO_KINDS], "marriage", "poverty", "throw_in"]
    return names[o]


def _reservation_code(action):
    for o in range(11):
        if action_id(_reservation_name(o)) == action:
            return o
    raise AssertionError(f"not a reservation: {action}")


def test_search_bids_0_restores_heuristics_reservations_acceptance_and_first_calls():
    """Every decision before the first card is taken on the same information whatever the card
    play: with search_bids=0, pimc's contracts, declarers, poverty partners and calls before the
    first card equal heuristic's deal by deal; with the search they do not (the check can fail)."""
    kw = dict(seed=3, rules="club")
    old = dokosim.simulate(300, strategy="pimc", params={"pimc": {"search_bids": 0, "samples": 2}}, **kw)
    heur = dokosim.simulate(300, strategy="heuristic", **kw)
    new = dokosim.simulate(300, strategy="pimc", params={"pimc": {"samples": 2}}, **kw)
    first_call = [pl.col(c) == 0 for c in ("first_call_re", "first_call_kontra")]

    def decided(df):
        return df.select(pl.col("contract"), pl.col("declarer"), pl.col("poverty_partner"), *first_call)
    assert decided(old).equals(decided(heur))
    assert not decided(new).equals(decided(heur))
    # calls: searched by default, heuristic's with search_calls=0
    heuristic_calls = dokosim.simulate(300, strategy="pimc", params={"pimc": {"samples": 2, "search_calls": 0}},
                                       **kw)
    assert not heuristic_calls.select(first_call).equals(new.select(first_call))
    assert (old["contract"] == "poverty").sum() > 0  # the poverty path was exercised


def _pub(contract, soloist=-1, scheme=3, level_re=0, level_ko=0, known_re=0, known_ko=0, dealer=3):
    from dokosim.engine.layout import (
        P_CONTRACT, P_KNOWN_KO, P_KNOWN_RE, P_LEVEL_KO, P_LEVEL_RE, P_SCHEME, P_SOLOIST,
    )
    pub = np.zeros(PUBLIC_LEN, dtype=np.int64)
    pub[P_DEALER], pub[P_HAND_SIZE], pub[P_POVERTY_SEAT] = dealer, 12, -1
    pub[P_CONTRACT], pub[P_SOLOIST], pub[P_SCHEME] = contract, soloist, scheme
    pub[P_LEVEL_RE], pub[P_LEVEL_KO], pub[P_KNOWN_RE], pub[P_KNOWN_KO] = level_re, level_ko, known_re, known_ko
    return pub


STRONG = "QC QC QS QS QH JC JS TH TH AD TD KD"  # clubs-solo and Re strength for heuristic's models
WEAK = "9D 9S 9S KS KS 9H 9H KH KH 9C 9C KC"


def test_sampled_deals_fit_the_bids_a_solo_and_a_call_imply():
    """fits_the_bids, the filter of the call search's samples, against heuristic's models read
    directly: a declared solo needs a soloist's hand the model gives at least
    SOLO_DECLARED_CHANCE; a side's call needs one of its known seats (not the deciding seat) at
    heuristic's call threshold; seats that did not call are not read."""
    from dokosim.engine.cards import C_NORMAL, C_SOLO_BASE, SOLO_SCHEME
    from dokosim.strategies import heuristic
    strong, weak = parse_hand(STRONG), parse_hand(WEAK)
    nothing = np.zeros(4, dtype=np.int64)
    clubs = SOLO_KINDS.index("clubs")
    leads = 1  # seat 0 after dealer 3
    assert heuristic.win_chance(clubs, strong, SOLO_SCHEME[clubs], leads) >= pimc_bids.SOLO_DECLARED_CHANCE
    assert heuristic.win_chance(clubs, weak, SOLO_SCHEME[clubs], leads) < pimc_bids.SOLO_DECLARED_CHANCE
    solo = _pub(C_SOLO_BASE + clubs, soloist=0, scheme=SOLO_SCHEME[clubs])
    for soloist_hand, fits in ((strong, True), (weak, False)):
        hs = np.array([soloist_hand, 0, 0, 0], dtype=np.int64)
        assert pimc_bids.fits_the_bids(solo, hs, nothing, 2, 0.05) == fits
        assert pimc_bids.fits_the_bids(solo, hs, nothing, 0, 0.05)  # the soloist itself knows its hand
    # a solo nobody chose for the hand says nothing of it: a compulsory solo, a marriage played alone
    from dokosim.engine.cards import C_MARRIAGE_SOLO
    from dokosim.engine.layout import P_COMPULSORY
    compulsory = solo.copy()
    compulsory[P_COMPULSORY] = 1
    alone = _pub(C_MARRIAGE_SOLO, soloist=0)
    for pub in (compulsory, alone):
        assert pimc_bids.fits_the_bids(pub, np.array([weak, 0, 0, 0], dtype=np.int64), nothing, 2, 0.05)
    # a card already played counts as the hand's: the hand as dealt
    played = nothing.copy()
    played[0] = strong & ~weak
    hs = np.array([strong & weak, 0, 0, 0], dtype=np.int64)
    assert pimc_bids.fits_the_bids(solo, hs, played, 2, 0.05)
    threshold = pimc_bids.HPARAMS[heuristic.PI_CALL]
    assert heuristic.win_chance(heuristic.M_RE, strong, 3, leads) >= threshold
    assert heuristic.win_chance(heuristic.M_RE, weak, 3, leads) < threshold
    re_called = _pub(C_NORMAL, level_re=1, known_re=0b0001)
    for caller_hand, fits in ((strong, True), (weak, False)):
        hs = np.array([caller_hand, weak, weak, weak], dtype=np.int64)
        assert pimc_bids.fits_the_bids(re_called, hs, nothing, 2, 0.05) == fits
        assert pimc_bids.fits_the_bids(re_called, hs, nothing, 0, 0.05)  # its own side's call
    quiet = _pub(C_NORMAL, known_re=0b0001)  # Re known (a QC shown) but no call: nothing implied
    assert pimc_bids.fits_the_bids(quiet, np.array([weak, weak, weak, weak], dtype=np.int64), nothing, 2, 0.05)


def test_a_call_is_made_only_when_its_gain_clears_the_noise():
    """worth_calling against the plain rule on the sums: mean gain positive and at least
    CALL_MARGIN_SE standard errors (population variance of the per-deal gains, as call_values
    accumulates it), on random per-deal values."""
    rs = np.random.default_rng(3)
    made = 0
    for _ in range(300):
        n = int(rs.integers(2, 40))
        without = rs.normal(0, 3, n)
        with_call = without + rs.normal(rs.normal(0, 1), 2, n)
        sums = np.array([without.sum(), with_call.sum(), ((with_call - without) ** 2).sum()])
        gains = with_call - without
        expected = gains.mean() > 0 and gains.mean() >= pimc_bids.CALL_MARGIN_SE * gains.std() / np.sqrt(n)
        assert pimc.worth_calling(sums, n) == expected
        made += expected
    assert 0 < made < 300
