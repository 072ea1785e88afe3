"""A search player's verdict on every card at a ``dokosim.Game`` position, and the ``net`` player's
features there: the kernels behind ``dokosim train data`` (docs/strategies.md, "net").

The arrays are the ones ``agent_step.agent_action`` hands a strategy; the search is
``pimc.search_sums`` with ``pimc``'s parameter vector, drawing from the deal's random stream, so
a deal recorded this way is the deal ``pimc`` plays at every seat of ``dokosim simulate``.
"""
import numpy as np

from ..engine.bits import lowest_bit_index
from ..engine.game_state import G_PLAYER, O_RULES, game_position
from ..engine.jit import kernel
from ..engine.layout import PUBLIC_LEN, R_LEN
from ..engine.play import legal_mask
from ..engine.position import View
from ..strategies.cardcount import distinct
from ..strategies.net_features import N_KINDS, card_features
from ..strategies.pimc import PI_SAMPLES, best_candidate, search_sums


@kernel
def position_features(g, out):
    """The ``net`` features (net_features.card_features) of the player to play a card in ``g``;
    returns the 48-bit mask of its legal cards."""
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = game_position(g)
    seat = g[G_PLAYER]
    legal = legal_mask(st, hands[seat], plays, fclass, cmask)
    card_features(seat, hands[seat], legal, View(st[:PUBLIC_LEN], plays, play_seat, trick_winner, power, fclass, cmask),
                  g[O_RULES:O_RULES + R_LEN], out)
    return legal


@kernel
def teacher_card(g, rng, params, features, values):
    """For the player to play a card in ``g``: its features into ``features`` (float32), the
    search's mean value of each legal card kind into ``values`` (float32, N_KINDS; NaN where the
    kind is not legal), and the kind the search plays (the best value, the lowest kind on a tie,
    as ``pimc.search`` chooses). ``params``: pimc's parameter vector."""
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = game_position(g)
    seat = g[G_PLAYER]
    legal = position_features(g, features)
    sums = np.zeros(48, dtype=np.float64)
    n_samples = int(params[PI_SAMPLES])
    search_sums(seat, hands[seat], legal, View(st[:PUBLIC_LEN], plays, play_seat, trick_winner, power, fclass, cmask),
                g[O_RULES:O_RULES + R_LEN], params, rng, sums)
    for k in range(N_KINDS):
        values[k] = np.nan
    cands = distinct(legal)
    m = cands
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        values[c >> 1] = sums[c] / n_samples
    return best_candidate(sums, cands) >> 1
