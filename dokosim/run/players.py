"""The players dokosim seats, and the one that answers a question when the user names none.

Plain data, kept out of the kernel folders so that editing it recompiles no kernel
(dokosim/engine/jit.py stamps only the kernel folders)."""

STRONGEST_FAST = "net"
"""The player that answers by default where dokosim asks one player a question (``dokosim advise``,
its web page): the winner of the round robin of the fast built-ins, measured in
docs/strategies.md ("Which player answers"): ``dokosim tournament net heuristic simple random``."""

PLAYERS = (
    ("net3", "net with round 3's weights: trained further on pimc's verdicts over net's own rollouts, "
             "every solo kind forced into the data, club rules, clubs and spades as one", "fast"),
    ("net", "a small network learned from search players' decisions plays the cards and says Re and "
            "Kontra; reservations, marriage and poverty by heuristic's rules", "fast"),
    ("pimc_solver", "pimc whose cards in the last six tricks the double-dummy solver values", "search"),
    ("ismcts", "information-set Monte Carlo tree search: a tree over every seat's cards, sampled deals, "
               "random playouts; bids by pimc's search", "search"),
    ("pimc", "perfect-information Monte Carlo: samples the unseen cards, values each card by heuristic "
             "rollouts", "search"),
    ("heuristic", "an expert rule player: counts cards and voids, one-trick expectations, modelled bids "
                  "and calls", "fast"),
    ("simple", "a short baseline: wins a trick worth taking, else plays low", "fast"),
    ("random", "uniform over the legal cards", "fast"),
    ("dd_oracle", "cheats: reads every hand and plays the solver's best card in the last 6 tricks",
     "reads hidden cards"),
)
"""The built-in players: (name, what it does, class). Their standing and speed are not typed here:
``dokosim players`` reads them from the measured results file (dokosim/run/standings.py,
``player_standings.json``: duplicate results against heuristic by scripts/player_standings.py,
speeds by ``scripts/bench.py --only players --record``) and orders the players by it; this order
only breaks ties and orders the players not measured yet."""
