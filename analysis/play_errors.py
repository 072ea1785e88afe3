"""``python -m analysis.play_errors [--deals N] [--seed S] [--results DIR]``: the same as
``dokosim study play_errors`` (docs/studies.md); the study is ``dokosim/studies/play_errors.py``."""
from analysis import script_main

if __name__ == "__main__":
    script_main("play_errors")
