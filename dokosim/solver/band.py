"""The game value of a band of Re's eyes (RULES.md 1.6 and 1.7 items 1-5), for the band search
(``dd/band.py``, docs/solver.md "Bands").

The band edges hold every eyes threshold the score rules use (121 and 120 for the win, 151 /
181 / 211 and 90 / 60 / 30 for the denials and "under 90 / 60 / 30", 1 and 240 for schwarz
read from eyes), so every Re eyes value in one band scores the same; ``band_value`` scores the
band's lowest value with the rules' own ``settle``.
"""
import numpy as np

from ..engine.jit import kernel
from ..engine.layout import N_ITEMS
from ..engine.scoring import settle


@kernel
def band_value(eyes_re, n_tricks, level_re, level_ko, is_solo):
    """(winner 0 Re / 1 Kontra / 2 none, Re's game value) when Re ends with ``eyes_re`` eyes,
    the calls' levels ``level_re`` / ``level_ko`` (0 none, 1 Re/Kontra, 2-5 no 90 .. schwarz) and
    no extra points but against the queens (which the winner decides; ``is_solo``: none). Schwarz is read from the eyes: Re took every trick at 240 eyes, none at 0
    (a trick of four nines, worth nothing, is the only case where that reading is wrong)."""
    items = np.zeros((2, N_ITEMS), dtype=np.int64)
    tricks_re = n_tricks if eyes_re == 240 else (0 if eyes_re == 0 else 1)
    w, value, re_value = settle(items, eyes_re, tricks_re, n_tricks, level_re, level_ko, is_solo == 1)
    return w, re_value
