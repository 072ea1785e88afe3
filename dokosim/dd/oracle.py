"""``dd_oracle``: a player that reads every hand and plays the double-dummy best card.

It cheats by construction (it sees the other players' cards), so it is kept out of fair
comparisons: tournaments refuse it unless asked with ``allow_cheating`` (``--allow-cheating``)
and mark its rows (docs/solver.md, "dd_oracle"). It plays through ``dokosim.Game`` (it needs the
whole deal, which the compiled strategies' interface never hands out), like the Python agents.

At a card with at most ``exact_tricks`` tricks left (the trick being played counts), or earlier
when the solver finishes within ``node_limit`` nodes, it plays a card of the best value for
its side under best play by both sides with all hands open (Re's seats the highest value of
Re's final eyes, the others the lowest; ties to the lowest card index). Once it has played one
such card in a deal, every later card of that deal is solved without a limit, so from that card
on the deal's eyes are the solver's value there. Before that, and for reservations, calls and a
poverty's exchange, it plays as the compiled strategy ``before`` (``heuristic`` by default).

With ``bands=1`` it plays for the game value instead of the most eyes: at a solved card it
searches the band of Re's final eyes under best play (``Solver.band`` over the edges the calls so
far score, ``value_edges``) and plays a card after which the band is the same, the ``before``
strategy's card when that one keeps it; the deal then scores what best play scores, with no
care for eyes that change nothing. The band is cheaper than the exact eyes, so with a
``node_limit`` it answers from earlier cards (docs/solver.md, "dd_oracle").
"""
from __future__ import annotations

import numpy as np

from ..validation import ParamSpec, SimulationError

NAME = "dd_oracle"
PARAMS = {
    "exact_tricks": (6, "solve every card once at most this many tricks are left (the trick "
                        "being played counts): exact double-dummy play from there"),
    "node_limit": (0, "before that, try the solver within this many nodes per card and play its "
                      "card when it finishes (0: do not try)"),
    "bands": (0, "1: play for the game value (a card that keeps the band of best play, the before "
                 "strategy's card when it does), 0: for the most eyes"),
}
PARAM_RANGES = {"exact_tricks": (1, 12, "integer"), "node_limit": (0, 10**9, "integer"),
                "bands": (0, 1, "integer")}
BEFORE = "heuristic"


class OracleError(SimulationError):
    """A bad parameter of dd_oracle (a SimulationError, so a ValueError)."""


def param_specs() -> dict[str, ParamSpec]:
    """dd_oracle's parameters (default, range, help), as ``loop.registry.param_specs``
    gives a strategy's."""
    return {name: ParamSpec(name, float(default), float(PARAM_RANGES[name][0]), float(PARAM_RANGES[name][1]),
                            True, text)
            for name, (default, text) in PARAMS.items()}


class DDOracle:
    """The double-dummy oracle as a ``Game`` player: ``DDOracle().act(game)`` (it reads every
    hand of ``game``). ``exact_tricks`` and ``node_limit`` as in ``PARAMS``; ``before``: the
    compiled strategy for the decisions it does not solve, with its parameters ``before_params``.
    ``exact_cards`` and ``cards`` count the cards it solved and all the cards it played."""

    reads_hidden = True
    """Marks a player that reads cards a real player could not see (docs/solver.md)."""
    param_specs = staticmethod(param_specs)

    def __init__(self, exact_tricks: int = PARAMS["exact_tricks"][0],
                 node_limit: int = PARAMS["node_limit"][0], before: str = BEFORE,
                 before_params: dict | None = None, bands: int = PARAMS["bands"][0]):
        from ..game.agents import Agent
        from .solve import Solver
        specs = param_specs()
        exact_tricks = specs["exact_tricks"].check("exact_tricks", exact_tricks, OracleError, NAME)
        node_limit = specs["node_limit"].check("node_limit", node_limit, OracleError, NAME)
        bands = specs["bands"].check("bands", bands, OracleError, NAME)
        self.exact_tricks = int(exact_tricks)
        self.node_limit = int(node_limit)
        self.bands = int(bands)
        self.before = Agent(before, **(before_params or {}))
        self.solver = Solver()
        self._exact_game = None
        self.exact_cards = 0
        self.cards = 0

    def act(self, game) -> int:
        """The action for the player to act in ``game`` (a ``dokosim.Game``)."""
        from ..engine import game_state as gs
        from ..engine.layout import P_HAND_SIZE, P_NPLAYED
        g = game._g
        if g[gs.G_PHASE] != gs.PH_CARD:
            return self.before.act(game)
        self.cards += 1
        st = g[gs.O_ST:gs.O_ST + gs.ST_LEN]
        tricks_left = int(st[P_HAND_SIZE]) - int(st[P_NPLAYED]) // 4
        exact = game is self._exact_game or tricks_left <= self.exact_tricks
        if not exact and self.node_limit == 0:
            return self.before.act(game)
        if self.bands:
            action, solved = self._band_action(game, 0 if exact else self.node_limit)
            if solved:
                self._exact_game = game
                self.exact_cards += 1
            return action
        self.solver.node_limit = 0 if exact else self.node_limit
        self.solver.load(position(g))
        solved = self.solver.card_values()
        if solved is None:  # past node_limit: not solved
            return self.before.act(game)
        self._exact_game = game
        self.exact_cards += 1
        return gs.A_CARD + (best_card(g, solved[1]) >> 1)

    def _band_action(self, game, node_limit: int) -> tuple[int, bool]:
        """(a card action, whether it surely keeps the band of best play for the side of the seat
        to play): the ``before`` strategy's card when it keeps the band, else the first other
        legal card (in action order) that does. When the searches run past ``node_limit`` nodes
        (0: no limit), all of them together: the ``before`` strategy's card when no card was
        proven to lose the band yet, else the card whose search ran out (not proven to lose).
        The ``before`` strategy is asked once (it may draw from the deal's random stream)."""
        from ..engine import game_state as gs
        from ..engine.layout import H_RE_MASK, P_LEVEL_KO, P_LEVEL_RE, P_TURN
        from .band import value_edges
        g = game._g
        st = g[gs.O_ST:gs.O_ST + gs.ST_LEN]
        edges = value_edges(int(st[P_LEVEL_RE]), int(st[P_LEVEL_KO]))
        re = (int(st[H_RE_MASK]) >> int(st[P_TURN])) & 1
        solver = self.solver
        first = self.before.act(game)
        left = [node_limit]

        def spend(search):  # one search within what is left of the budget; None past it
            if node_limit == 0:
                solver.node_limit = 0
                return search()
            if left[0] <= 0:
                return None
            solver.node_limit = left[0]
            n0 = solver.nodes
            try:
                return search()
            finally:
                left[0] -= solver.nodes - n0

        solver.load(position(g))
        band = spend(lambda: solver.band(edges=edges))
        if band is None:
            return first, False
        # Re's card keeps the band when Re still reaches its lowest eyes after it; Kontra's when Re
        # still does not reach the next band (a card can only keep or worsen the band for its side)
        target = band[0] if re else band[1] + 1
        if target <= 0 or target > 240:
            return first, True  # no card leaves this band
        for action in [first] + [a for a in game.legal_actions() if a != first]:
            after = game.clone()
            after.apply_action(action)
            solver.load(position(after._g))
            reaches = spend(lambda: solver.reaches(target))
            if reaches is None:
                return action, False
            if reaches == bool(re):
                return action, True
        raise RuntimeError(f"dd_oracle: no card keeps the band {band} (a solver fault)")

    def __repr__(self) -> str:
        return f"DDOracle(exact_tricks={self.exact_tricks}, node_limit={self.node_limit}, bands={self.bands})"


def position(g: np.ndarray) -> tuple:
    """The solver's view of a ``Game``'s state array ``g``: its position's eight arrays and the rules
    (replay_detail's ``state``, what ``Solver.load`` takes)."""
    from ..engine import game_state as gs
    from ..engine.layout import R_LEN
    return (g[gs.O_ST:gs.O_ST + gs.ST_LEN], g[gs.O_HANDS:gs.O_HANDS + 4], g[gs.O_PLAYS:gs.O_PLAYS + 48],
            g[gs.O_PSEAT:gs.O_PSEAT + 48], g[gs.O_TW:gs.O_TW + 12], g[gs.O_POWER:gs.O_POWER + 48],
            g[gs.O_FCLASS:gs.O_FCLASS + 48], g[gs.O_CMASK:gs.O_CMASK + 5], g[gs.O_RULES:gs.O_RULES + R_LEN])


def best_card(g: np.ndarray, values: np.ndarray) -> int:
    """The physical card of the best value for the side of the seat to play (``values`` from
    ``Solver.card_values``: Re's final eyes after each legal card, -1 for the others): Re's seats
    the highest, the others the lowest; ties to the lowest card index."""
    from ..engine import game_state as gs
    from ..engine.layout import H_RE_MASK, P_TURN
    seat = int(g[gs.O_ST + P_TURN])
    re = (int(g[gs.O_ST + H_RE_MASK]) >> seat) & 1
    legal = np.flatnonzero(values >= 0)
    side = values[legal] if re else -values[legal]
    return int(legal[int(np.argmax(side))])
