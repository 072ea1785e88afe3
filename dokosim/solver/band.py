"""The bands of Re's eyes and the game value of a band (RULES.md 1.6 and 1.7 items 1-5), for the
band search (``dd/band.py``, ``Solver.band``; docs/solver.md "Bands and the game value").

The band edges hold every eyes threshold the score rules use (121 and 120 for the win, 151 /
181 / 211 and 90 / 60 / 30 for the denials and "under 90 / 60 / 30", 1 and 240 for schwarz
read from eyes), so every Re eyes value in one band scores the same; ``band_value`` scores the
band's lowest value with the rules' own ``settle``.
"""
import numpy as np

from ..engine.jit import kernel
from ..engine.layout import N_ITEMS
from ..engine.scoring import settle

EDGES = (1, 30, 60, 90, 120, 121, 151, 181, 211, 240)
"""The eyes at which a band starts (besides 0): every threshold of RULES.md 1.6-1.7."""
BANDS = tuple(zip((0,) + EDGES, tuple(e - 1 for e in EDGES) + (240,)))
"""The bands of Re's final eyes as (lowest, highest): (0, 0), (1, 29), ..., (211, 239), (240, 240)."""


def band_of(eyes: int) -> tuple[int, int]:
    """The band (lowest, highest) that Re's final ``eyes`` fall in."""
    for lo, hi in BANDS:
        if lo <= eyes <= hi:
            return lo, hi
    raise ValueError(f"eyes={eyes!r} is not valid: Re's final eyes, 0 to 240")


def band_between(eyes: int, edges=EDGES) -> tuple[int, int]:
    """The band (lowest, highest) between consecutive ``edges`` (band starts besides 0) that
    ``eyes`` fall in; ``band_of`` for every edge."""
    if not 0 <= eyes <= 240:
        raise ValueError(f"eyes={eyes!r} is not valid: Re's final eyes, 0 to 240")
    lo = max([0] + [e for e in edges if e <= eyes])
    hi = min([241] + [e for e in edges if e > eyes]) - 1
    return lo, hi


def value_edges(level_re: int, level_ko: int) -> tuple[int, ...]:
    """The edges whose sides score differently with these calls (``P_LEVEL_RE`` / ``P_LEVEL_KO``:
    0 none, 1 Re/Kontra, 2-5 no 90 .. schwarz): every edge but 120, which counts only when one
    side alone announced (Re's target 120, or Kontra's 121) or Kontra made a denial (Re's 120
    against Kontra's no 90, RULES.md 1.7 item 5)."""
    lone = (level_re >= 1) != (level_ko >= 1)
    if lone or level_ko >= 2:
        return EDGES
    return tuple(e for e in EDGES if e != 120)


def band_label(band: tuple[int, int]) -> str:
    """"121-150", or "120" for a band of one value."""
    lo, hi = band
    return str(lo) if lo == hi else f"{lo}-{hi}"


@kernel
def band_value(eyes_re, n_tricks, level_re, level_ko, is_solo):
    """(winner 0 Re / 1 Kontra / 2 none, Re's game value) when Re ends with ``eyes_re`` eyes,
    the calls' levels ``level_re`` / ``level_ko`` (0 none, 1 Re/Kontra, 2-5 no 90 .. schwarz) and
    no extra points but against the queens (which the winner decides; ``is_solo``: none).
    Schwarz is read from the eyes: Re took every trick at 240 eyes, none at 0 (a trick of four
    nines, worth nothing, is the only case where that reading is wrong)."""
    items = np.zeros((2, N_ITEMS), dtype=np.int64)
    tricks_re = n_tricks if eyes_re == 240 else (0 if eyes_re == 0 else 1)
    w, value, re_value = settle(items, eyes_re, tricks_re, n_tricks, level_re, level_ko, is_solo == 1)
    return w, re_value
