"""A hint for the player to act in a ``dokosim.Game``: what ``pimc`` (the strongest player that
answers within a blink, about a millisecond a card) would do there, and why, in one line. The
hint is computed on a copy of the game, so asking for it changes nothing in the deal."""
from __future__ import annotations

import numpy as np

from .game import ACTION_NAMES, Game

HINT_PLAYER = "pimc"


def hint(game: Game) -> tuple[int, str]:
    """(the action pimc chooses for the player to act in ``game``, one line saying why). For a
    card: the score pimc's sampled deals expect for the seat after each card, the best and the
    next best; for a reservation, a call or the poverty: its choice."""
    from .agents import Agent
    agent = Agent(HINT_PLAYER)
    if game.phase != "card":
        action = agent.act(game.clone())
        return action, f"{HINT_PLAYER} would say {ACTION_NAMES[action]} here"
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0], f"only {ACTION_NAMES[legal[0]]} may be played"
    kind, by_card, samples = card_values(game, agent)
    others = sorted((v, k) for k, v in by_card.items() if k != kind)
    text = f"{ACTION_NAMES[kind]}: {HINT_PLAYER} expects {by_card[kind]:+.1f} points for you after it"
    if others:
        v, k = others[-1]
        text += f", {v:+.1f} after the next best, {ACTION_NAMES[k]}"
    return kind, text + f" ({samples} sampled deals of the hidden cards)"


def card_values(game: Game, agent=None) -> tuple[int, dict[int, float], int]:
    """In the card phase: (the card pimc chooses, {each legal card: the score pimc's sampled deals
    expect for the seat to play after it}, the number of sampled deals), worked out on a copy of
    ``game``. ``agent``: a ``dokosim.Agent`` of HINT_PLAYER to reuse."""
    from ..engine.jit import ensure_loop
    from ..loop.teacher_step import teacher_card
    from ..strategies.net_features import N_FEATURES, N_KINDS
    from .agents import Agent
    agent = agent or Agent(HINT_PLAYER)
    copy = game.clone()
    step = ensure_loop(teacher_card, "the hint kernels")
    features = np.zeros(N_FEATURES, dtype=np.float32)
    values = np.zeros(N_KINDS, dtype=np.float32)
    kind = int(step(copy._g, copy._rng, agent._params, features, values))
    return kind, {k: float(values[k]) for k in game.legal_actions()}, int(agent.strategy.params["samples"])
