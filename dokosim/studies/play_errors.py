"""Play errors: each of random, simple, heuristic and pimc plays 2,000 deals at all four seats
(keep-play), and ``dokosim.audit`` sets every card of the last 6 tricks against double-dummy
play: eyes lost per card, overall, by trick and by role, with 95% intervals over deals; the
ranking is compared with the duplicate tournaments' (results/strategies/pairs.csv).

    dokosim study play_errors [--deals 2000] [--seed 0]

Writes results/strategies/: play_errors (Markdown, CSV), play_errors.png. ``--strategy`` does
not apply (every candidate is audited). Not part of ``dokosim study all`` (docs/studies.md).
"""
from __future__ import annotations

import itertools

import polars as pl

from .common import by_strategy, results_dir, rules_label, say, trick_chart, write_table

STUDY = "play_errors"
RESULTS = "strategies"  # its files go next to the duplicate tournaments'
DEFAULT_DEALS = 2_000
TRICKS = 6
CANDIDATES = ("random", "simple", "heuristic", "pimc")
RULES = {"preset": "ddv"}
COLORS = {"random": "#9a9a9a", "simple": "#7aa6c2", "heuristic": "#2b506e", "pimc": "#c2562b"}


def duplicate_ranking(pairs: pl.DataFrame, names) -> list[str] | None:
    """The strategies of ``names`` ordered by the duplicate tournaments (best first): A above B
    when A beat B (the 95% interval of diff_a_minus_b above 0), or beat a strategy that beat B (the tournaments do
    not play every pair: pimc meets only simple and heuristic); ranked by how many of the others
    each is above. None when the pairs played leave two of them unordered or contradict
    (a cycle)."""
    above = {n: set() for n in names}
    for r in pairs.iter_rows(named=True):
        a, b = r["a"], r["b"]
        if a in above and b in above and (r["diff_lo"] > 0 or r["diff_hi"] < 0):  # the interval decides
            win, lose = (a, b) if r["diff_a_minus_b"] > 0 else (b, a)
            above[win].add(lose)
    changed = True
    while changed:  # the transitive closure
        changed = False
        for n in names:
            more = set().union(*(above[m] for m in above[n])) - above[n]
            if more:
                above[n] |= more
                changed = True
    if any(n in above[n] for n in names):
        return None
    if any(a not in above[b] and b not in above[a] for a, b in itertools.combinations(names, 2)):
        return None
    return sorted(names, key=lambda n: -len(above[n]))


def _ordered(overall: pl.DataFrame, column: str, lo: str, hi: str, digits: int) -> tuple[list[str], str]:
    rows = overall.sort(column).to_dicts()
    text = " < ".join(f"{r['strategy']} {r[column]:.{digits}f} [{r[lo]:.{digits}f}, {r[hi]:.{digits}f}]"
                      for r in rows)
    apart = [f"{a['strategy']} and {b['strategy']}" for a, b in zip(rows, rows[1:]) if a[hi] >= b[lo]]
    text += (" (every neighbour apart: intervals disjoint)" if not apart else
             f" (not separated, intervals overlap: {'; '.join(apart)})")
    return [r["strategy"] for r in rows], text


def comparison(overall: pl.DataFrame, pairs_path) -> str:
    """Sentences comparing the rankings by eyes lost per card and by swings with the duplicate
    ranking (pairs.csv)."""
    ours, text = _ordered(overall, "eyes_lost_per_card", "lo", "hi", 3)
    swings, swing_text = _ordered(overall, "swings_per_1000", "swing_lo", "swing_hi", 1)
    text = f"By eyes lost per card (fewest first): {text}. By swings per 1,000 cards: {swing_text}."
    try:
        pairs = pl.read_csv(pairs_path)
    except (OSError, pl.exceptions.PolarsError):
        return text + f" No duplicate ranking to compare with ({pairs_path} missing)."
    dup = duplicate_ranking(pairs, ours)
    if dup is None:
        return text + " The duplicate tournaments (pairs.md) do not order every pair of these strategies."
    text += f" Duplicate ranking (pairs.md, best first): {' > '.join(dup)}; by eyes lost per card "
    text += ("the same." if dup == ours else f"{' > '.join(ours)}, which differs.")
    text += " By swings: " + ("the same." if dup == swings else f"{' > '.join(swings)}, which differs.")
    if dup != ours:
        text += (" Where they part: the duplicate tournaments score points over whole deals, the audit "
                 "counts eyes in the last tricks only. It does not see the reservations, the poverty "
                 "exchange, the calls or the tricks before those audited, and a card that gives away eyes "
                 "costs points only when it moves the deal across a line (121 to win, 90/60/30 for "
                 "the extra points and denials): eyes lost per card weighs every eye alike. Two "
                 "strategies whose intervals overlap are not ranked by the audit at all.")
    return text


def run(deals=None, strategy="heuristic", seed=0, results=None, quiet=False, charts=True,
        candidates=CANDIDATES, tricks=TRICKS, **sim) -> dict:
    """Simulate ``deals`` deals (keep-play) per candidate at all four seats, audit the last
    ``tricks`` tricks of each, write results/strategies/play_errors.{md,csv,png}."""
    import time

    from ..dd.audit import audit

    from .data import dataset, dataset_directory
    from .skills import skill_params, skill_tag
    from .strategies import available
    deals = deals or DEFAULT_DEALS
    out = results_dir(results, RESULTS)
    names, notes = available(candidates)
    summaries, timing = [], []
    for name in names:
        say(quiet, f"play_errors: {name}, {deals} deals (keep-play)")
        t0 = time.perf_counter()
        stem = STUDY + skill_tag(name)  # pimc bids and calls by heuristic's rules: its cards are audited
        dataset(stem, deals, seed, name, RULES, keep_play=True, quiet=quiet, params=skill_params(name), **sim)
        t1 = time.perf_counter()
        directory = dataset_directory(stem, deals, seed, name)
        r = audit(directory, tricks=tricks, quiet=quiet)
        t2 = time.perf_counter()
        say(quiet, f"play_errors: {name} audited, {r.solves:,} solves in {r.seconds:.1f} s "
                   f"({r.solves / max(r.seconds, 1e-9):,.0f} per second)")
        summaries.append(r.summary)
        timing.append({"strategy": name, "simulate_s": t1 - t0, "audit_s": t2 - t1, "solves": r.solves})
    summary = pl.concat(summaries)
    summary = by_strategy(summary, names)
    overall = summary.filter(pl.col("by") == "all")
    sentence = comparison(overall, out / "pairs.csv")
    note = (f"Eyes lost per card against double-dummy play: for each card, Re's final eyes under best "
            f"play by both sides (every hand open, eyes only, no calls) after the best card minus after "
            f"the card played, from the player's side. **Only the cards of the last {tricks} tricks "
            f"(tricks {13 - tricks}-12) are audited**; the cards before are not (a solve from them costs "
            f"seconds). {deals:,} deals per strategy, the strategy at all four seats (seed {seed}, rules "
            f"{rules_label(RULES)}, calls on" + ("; `pimc` declares and calls by `heuristic`'s rules, "
                                                 "`search_bids=0`, as in the tournaments it is ranked against"
                                                 if "pimc" in names else "") + "). eyes_lost_per_card = total eyes lost / cards; 95% interval "
            "over deals (ratio estimator, delta method, t); by = all, trick (its number), role (Re; "
            "Kontra; soloist = Re alone: a solo, a silent marriage, a marriage without partner); "
            "error_share = share of cards that lost any eyes; swings_per_1000 = cards per 1,000 that "
            "moved Re's best-play eyes across 121 (a won game given away or a lost one let off, "
            "without further announcements), same estimator; band_cards, band_answered, band_swings_per_1000 "
            "and its interval: cards that moved Re's double-dummy band of the game value (docs/audit.md, "
            "the summary's columns). Regenerate: "
            f"`dokosim study play_errors` (docs/audit.md, docs/studies.md). {sentence}"
            + ("" if not notes else " " + " ".join(notes)))
    write_table(summary, out / STUDY, "Strategies: play errors against double-dummy play", note)
    if charts and summary.height:
        trick_chart(summary.filter(pl.col("by") == "trick"), names, ("eyes_lost_per_card", "lo", "hi"), (1.5, 0.06),
                    ("eyes lost per card (95% interval)", range(13 - tricks, 13),
                     "Play errors against double-dummy play, by trick"), COLORS,
                    f"{deals:,} deals per strategy at all four seats, rules {rules_label(RULES)}, seed {seed}; "
                    f"only the last {tricks} tricks audited; dokosim study play_errors", out / f"{STUDY}.png")
    return {"summary": summary, "comparison": sentence, "timing": timing, "notes": notes}
