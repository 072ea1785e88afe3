"""``dokosim.cards`` (issue 33, item 6): the bot writer's card helpers agree with the game kernels
on every trick of many played deals, under every contract those deals reach."""
import pytest

import dokosim
from dokosim import Agent, Game, GameError

cards = dokosim.cards


def test_every_trick_of_played_deals_is_won_where_trick_winner_says():
    """200 deals of heuristic under DDV rules (normal games, marriages, solos) and 100 with the
    Dulle house rule 'second': each finished trick's winner is the seat of the card trick_winner
    picks, and each card led or followed has the suit the rules gave it (a follower of another
    class is void in the led one)."""
    contracts = set()
    for rules, deals in (("ddv", 200), ({"preset": "ddv", "dulle": "second"}, 100)):
        agent = Agent("heuristic")
        for deal_id in range(deals):
            game = Game(rules, seed=4, deal_id=deal_id)
            while not game.is_terminal():
                game.apply_action(agent.act(game))
            obs = game.observation(0)
            contracts.add(obs["contract"])
            for k, trick in enumerate(obs["tricks"]):
                names = [c for _, c in trick["cards"]]
                won = cards.trick_winner(names, obs["contract"], rules=rules, last_trick=k == 11)
                assert trick["cards"][won][0] == trick["winner"], (deal_id, k, names, obs["contract"])
    assert {"normal", "marriage"} <= contracts and any(c.endswith("_solo") for c in contracts)


def test_trumps_suits_and_eyes():
    assert cards.trumps()[:5] == ["TH", "QC", "QS", "QH", "QD"] and cards.trumps()[-1] == "9D"
    assert len(cards.trumps()) == 13 and cards.trumps("fleischlos_solo") == []
    assert cards.trumps("queens_solo") == ["QC", "QS", "QH", "QD"]
    assert cards.trumps("hearts_solo")[-3:] == ["AH", "KH", "9H"] and len(cards.trumps("hearts_solo")) == 12
    assert cards.suit("QH") == "trump" and cards.suit("AH") == "hearts" and cards.suit("AH", "hearts_solo") == "trump"
    assert cards.suit("AD", "jacks_solo") == "diamonds" and cards.suit(cards.card_id("JD"), "jacks_solo") == "trump"
    assert sum(2 * cards.eyes(c) for c in cards.CARDS) == 240
    groups = cards.same_suit("normal")
    assert sorted(sum(groups.values(), [])) == sorted(cards.CARDS) and groups["hearts"] == ["AH", "KH", "9H"]
    assert [cards.card_name(cards.card_id(c)) for c in cards.CARDS] == list(cards.CARDS)
    assert cards.card_id("10h") == cards.card_id("TH") == dokosim.action_id("TH")


def test_bad_input_is_one_line():
    for call, needle in [(lambda: cards.card_id("XX"), "not a card"), (lambda: cards.card_id(24), "0-23"),
                         (lambda: cards.trumps("grand"), "contract 'grand'"),
                         (lambda: cards.trick_winner([]), "1 to 4"),
                         (lambda: cards.trick_winner(["TH", "TH", "TH"]), "two")]:
        with pytest.raises(GameError, match=needle):
            call()
