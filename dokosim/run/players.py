"""The players dokosim seats, and the one that answers a question when the user names none.

Plain data, kept out of the kernel folders so that editing it recompiles no kernel
(dokosim/engine/jit.py stamps only the kernel folders)."""

STRONGEST_FAST = "net"
"""The player that answers by default where dokosim asks one player a question (``dokosim advise``,
its web page): the winner of the round robin of the fast built-ins, measured in
docs/strategies.md ("Which player answers"): ``dokosim tournament net heuristic simple random``."""

PLAYERS = (
    ("net", "a small network learned from search players' decisions plays the cards and says Re and "
            "Kontra; reservations, marriage and poverty by heuristic's rules", "fast", 9_000),
    ("pimc_solver", "pimc whose cards in the last six tricks the double-dummy solver values", "search",
     5),
    ("ismcts", "information-set Monte Carlo tree search: a tree over every seat's cards, sampled deals, "
               "random playouts; bids by pimc's search", "search", 28),
    ("pimc", "perfect-information Monte Carlo: samples the unseen cards, values each card by heuristic "
             "rollouts", "search", 45),
    ("heuristic", "an expert rule player: counts cards and voids, one-trick expectations, modelled bids "
                  "and calls", "fast", 100_000),
    ("simple", "a short baseline: wins a trick worth taking, else plays low", "fast", 400_000),
    ("random", "uniform over the legal cards", "fast", 1_500_000),
    ("dd_oracle", "cheats: reads every hand and plays the solver's best card in the last 6 tricks",
     "reads hidden cards", None),
)
"""The built-in players, the default answerer first, then by the measured standings of
docs/strategies.md (net ahead of pimc head to head; pimc_solver ahead of pimc; net vs pimc_solver
not measured; ismcts ahead of pimc and heuristic, against net and pimc_solver not measured): (name,
what it does, class, deals per second per core at every seat, rounded, from
scripts/bench.py and docs/strategies.md; None: not measured). ``dokosim players`` prints it."""
