"""A deal step by step from Python: Game, Agent, VectorGame, the PettingZoo and OpenSpiel adapters, the terminal table."""
