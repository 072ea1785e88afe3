"""The clubs-spades mirror of the net player's features (net_features.mirror_rows), which
``dokosim train fit --mirror`` trains on: a deal with every clubs and spades card swapped where
they are plain (and a clubs solo declared as a spades solo) must give, at every card decision,
exactly the mirrored features of the original deal's decision."""
import numpy as np
import pytest

from dokosim import Game
from dokosim.engine.cards import RANKS, SUITS
from dokosim.game.game import action_id, action_name
from dokosim.loop.teacher_step import position_features
from dokosim.strategies import net_features as nf

# (contract declared by seat 0 in the original deal, in the mirror, the mirror's group)
CONTRACTS = [("healthy", "healthy", 0), ("clubs_solo", "spades_solo", 0), ("hearts_solo", "hearts_solo", 0),
             ("queens_solo", "queens_solo", 1), ("jacks_solo", "jacks_solo", 2),
             ("fleischlos_solo", "fleischlos_solo", 3)]


def _swapped(card: str, group: int) -> str:
    """The card name with clubs and spades swapped where the group makes that card plain (plain
    reading of the rule, independent of the tables under test)."""
    rank, suit = card[0], card[1]
    if suit not in "CS" or (rank == "Q" and group in (0, 1)) or (rank == "J" and group in (0, 2)):
        return card
    return rank + ("S" if suit == "C" else "C")


def _declare(game: Game, contract: str) -> None:
    """Seat 0 declares ``contract``, every other seat is healthy (reservations in turn)."""
    while game.phase == "reservation":
        game.apply_action(action_id(contract if game.current_player == 0 else "healthy"))


@pytest.mark.parametrize("contract, mirrored_contract, group", CONTRACTS)
def test_a_mirrored_deal_has_the_mirrored_features_at_every_decision(contract, mirrored_contract, group):
    rng = np.random.default_rng(7)
    decisions = 0
    for deal_id in range(6):
        original = Game(seed=17, deal_id=deal_id, dealer=3, calls=False)
        hands = [original.hand(s) for s in range(4)]
        mirror = Game(hands=[" ".join(_swapped(c, group) for c in h) for h in hands], dealer=3, calls=False)
        _declare(original, contract)
        _declare(mirror, mirrored_contract)
        while not original.is_terminal():
            assert original.phase == mirror.phase == "card"
            x = np.zeros(nf.N_FEATURES, dtype=np.float32)
            mx = np.zeros(nf.N_FEATURES, dtype=np.float32)
            legal = position_features(original._g, x)
            position_features(mirror._g, mx)
            kinds = 0
            for a in original.legal_actions():
                kinds |= 1 << a
            values = rng.normal(size=(1, nf.N_KINDS)).astype(np.float32)
            got_x, got_legal, got_values = nf.mirror_rows(x[None, :], np.array([kinds], dtype=np.int32), values)
            assert nf.mirror_group(x[None, :])[0] == group
            np.testing.assert_array_equal(got_x[0], mx)
            assert int(got_legal[0]) == sum(1 << a for a in mirror.legal_actions())
            for a in original.legal_actions():  # the value of a card moves with the card
                assert got_values[0, action_id(_swapped(action_name(a), group))] == values[0, a]
            assert legal != 0
            action = int(rng.choice(original.legal_actions()))
            original.apply_action(action)
            mirror.apply_action(action_id(_swapped(action_name(action), group)))
            decisions += 1
        assert mirror.is_terminal() and original.returns() == mirror.returns()
    assert decisions >= 6 * 40


def test_the_mirror_is_an_involution_that_moves_only_clubs_and_spades():
    for group in range(len(nf.MIRROR_GROUPS)):
        kinds, features = nf.MIRROR_KINDS[group], nf.MIRROR_FEATURES[group]
        assert (kinds[kinds] == np.arange(nf.N_KINDS)).all() and (features[features] == np.arange(nf.N_FEATURES)).all()
        moved = {k for k in range(nf.N_KINDS) if kinds[k] != k}
        assert all(SUITS[k // 6] in "CS" for k in moved)
        assert {RANKS[k % 6] for k in moved} >= set("ATK9")
