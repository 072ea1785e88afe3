"""Walking played deals decision by decision, for tests that check what a kernel sees there."""
from dokosim import Game
from dokosim.engine import game_state as gs


def card_decisions(agent, seed, deals):
    """Every card decision of deals 0 .. deals-1 (``ddv``, ``seed``), each deal played to its end by
    ``agent``: yields the game's state array and the seat to play, then applies the agent's action."""
    for deal_id in range(deals):
        game = Game("ddv", seed=seed, deal_id=deal_id)
        g = game._g
        while g[gs.G_PHASE] != gs.PH_TERMINAL:
            if g[gs.G_PHASE] == gs.PH_CARD:
                yield g, int(g[gs.G_PLAYER])
            game.apply_action(agent.act(game))
