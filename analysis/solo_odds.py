"""``python -m analysis.solo_odds [--deals N] [--strategy S] [--seed S] [--results DIR]``: the same as
``dokosim study solo_odds`` (docs/studies.md); the study is ``dokosim/studies/solo_odds.py``."""
from analysis import script_main

if __name__ == "__main__":
    script_main("solo_odds")
