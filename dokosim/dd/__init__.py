"""Double-dummy answers from Python: solve, par, best score, solve_deals and value_deals, the play-error audit and the open-hands oracle."""
