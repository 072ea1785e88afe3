"""``python -m analysis.strategies [--deals N] [--strategy S] [--seed S] [--results DIR]``: the same as
``dokosim study strategies`` (docs/studies.md); the study is ``dokosim/studies/strategies.py``."""
from analysis import script_main

if __name__ == "__main__":
    script_main("strategies")
