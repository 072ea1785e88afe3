"""``python -m analysis.poverty [--deals N] [--strategy S] [--seed S] [--results DIR]``: the same as
``dokosim study poverty`` (docs/studies.md); the study is ``dokosim/studies/poverty.py``."""
from analysis import script_main

if __name__ == "__main__":
    script_main("poverty")
