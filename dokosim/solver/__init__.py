"""The double-dummy search kernels (all hands open): exact eyes and thresholds (eyes.py, the
public face of the search split into workspace.py, moves.py, bounds.py, table.py, endgame.py and
search.py), best play for the score (score.py), the bands and their value (band.py)."""
