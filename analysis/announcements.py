"""``python -m analysis.announcements [--deals N] [--strategy S] [--seed S] [--results DIR]``: the same as
``dokosim study announcements`` (docs/studies.md); the study is ``dokosim/studies/announcements.py``."""
from analysis import script_main

if __name__ == "__main__":
    script_main("announcements")
