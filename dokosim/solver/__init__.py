"""The double-dummy search kernels (all hands open): exact eyes and thresholds (eyes.py), best play for the score (score.py)."""
