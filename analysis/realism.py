"""Realism report: what ``heuristic`` at all seats plays, in the figures a Doppelkopf player knows.

    python analysis/realism.py [--deals 1000000] [--seed 1] [--rules ddv] [--out results/realism/report.md]

Simulates the deals with ``dokosim.simulate`` (heuristic at every seat) and
prints, as Markdown, the share of each contract, the win rates (95% Wilson
intervals), the average game value, how often each call is made and made
good, and the extra point rates. The same Markdown is written to ``--out``.
(Figures "from online play" stood beside these until 2026-12-05; they had no
source anyone could check and were removed.)
"""
from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import polars as pl

SOLO_KINDS = ("diamonds", "hearts", "spades", "clubs", "queens", "jacks", "fleischlos")
QC_MASK = 3 << (2 * 3)  # queen of clubs: suit 0, rank Q = 3
CALL_NAMES = ("Re/Kontra", "no 90", "no 60", "no 30", "schwarz")
# eyes a side that made a denial must reach, by its highest level
TARGET = {1: 121, 2: 151, 3: 181, 4: 211, 5: 240}


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float, float]:
    """Share k/n with its 95% Wilson interval."""
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return p, max(0.0, centre - half), min(1.0, centre + half)


def pct(p: float, digits: int = 1) -> str:
    return "n/a" if p != p else f"{100 * p:.{digits}f}%"


def ci(k: int, n: int, digits: int = 1) -> str:
    p, lo, hi = wilson(k, n)
    if n == 0:
        return "n/a (0 games)"
    return f"{pct(p, digits)} [{pct(lo, digits)}, {pct(hi, digits)}]"


def stats(df: pl.DataFrame) -> dict:
    """Every figure of the report from a simulate() DataFrame."""
    n = df.height
    contract = df["contract"].cast(pl.Utf8).to_numpy()
    winner = df["winner"].cast(pl.Utf8).to_numpy()
    out = {"deals": n, "share": {}, "won": {}}
    for name in np.unique(contract):
        sel = contract == name
        out["share"][name] = (int(sel.sum()), n)
        out["won"][name] = (int((winner[sel] == "re").sum()), int(sel.sum()))
    hands = np.stack([df[f"hand_{s}"].to_numpy() for s in range(4)])
    both_qc = ((hands & QC_MASK) == QC_MASK).any(axis=0)
    declared = np.isin(contract, ["marriage", "marriage_solo"])
    solo = np.array([c.endswith("_solo") and c != "marriage_solo" for c in contract])
    out["both_qc"] = int(both_qc.sum())
    out["marriage_declared"] = int((both_qc & declared).sum())
    out["both_qc_solo"] = int((both_qc & solo).sum())
    out["both_qc_silent"] = int((both_qc & (contract == "silent_marriage")).sum())
    out["game_value"] = float(df["game_value"].mean())
    nonsolo = ~solo & (contract != "silent_marriage") & (contract != "marriage_solo")
    out["game_value_nonsolo"] = float(df["game_value"].to_numpy()[nonsolo].mean())
    out["game_value_solo"] = float(df["game_value"].to_numpy()[solo].mean()) if solo.any() else float("nan")
    eyes_re = df["eyes_re"].to_numpy().astype(int)
    calls = {}
    for side, col, other in (("re", "calls_re", "calls_kontra"), ("kontra", "calls_kontra", "calls_re")):
        lv = df[col].to_numpy()
        eyes = eyes_re if side == "re" else 240 - eyes_re
        won = winner == side
        for level in range(1, 6):
            made = lv >= level
            # made good: the side won; for a denial, it also reached what the level asked
            good = made & won & (eyes >= TARGET[level] if level >= 2 else True)
            calls[(side, level)] = (int(made.sum()), int(good.sum()))
    out["calls"] = calls
    out["nonsolo"] = int(nonsolo.sum())
    extras = {}
    for name, cols in (("fox caught", ("fox_re", "fox_kontra")),
                       ("doppelkopf", ("doppelkopf_re", "doppelkopf_kontra")),
                       ("Charlie", ("charlie_re", "charlie_kontra"))):
        v = sum(df[c].to_numpy().astype(int) for c in cols)[nonsolo]
        extras[name] = (float(v.mean()), float((v > 0).mean()))
    atq = df["against_the_queens"].to_numpy()[nonsolo]
    extras["against the queens"] = (float(atq.mean()), float(atq.mean()))
    out["extras"] = extras
    return out


def markdown(s: dict, seed: int, rules: str, seconds: float) -> str:
    n = s["deals"]
    share = s["share"]
    won = s["won"]

    def k(name):
        return share.get(name, (0, n))[0]

    lines = [
        "# Realism report: `heuristic` at all seats",
        "",
        f"{n:,} deals, seed {seed}, rules `{rules}`, default parameters; "
        f"simulated in {seconds:.0f} s. Command: `python analysis/realism.py --deals {n} --seed {seed}"
        f" --rules {rules}`.",
        "Intervals are 95% Wilson intervals.",
        "",
        "## Contracts",
        "",
        "| contract | share of deals | declarer's side wins |",
        "|---|---|---|",
        f"| normal | {ci(k('normal'), n)} | Re {ci(*won.get('normal', (0, 0)))} |",
        f"| marriage (declared, partner found) | {ci(k('marriage'), n)} | {ci(*won.get('marriage', (0, 0)))} |",
        f"| marriage without partner (scored as solo) | {ci(k('marriage_solo'), n, 2)} | "
        f"{ci(*won.get('marriage_solo', (0, 0)))} |",
        f"| silent marriage | {ci(k('silent_marriage'), n, 2)} | {ci(*won.get('silent_marriage', (0, 0)))} |",
    ]
    if k("poverty"):
        lines.append(f"| poverty | {ci(k('poverty'), n, 2)} | {ci(*won.get('poverty', (0, 0)))} |")
    solos = 0
    for kind in SOLO_KINDS:
        name = f"{kind}_solo"
        solos += k(name)
        lines.append(f"| {kind} solo | {ci(k(name), n, 2)} | {ci(*won.get(name, (0, 0)))} |")
    solo_won = [won.get(f"{kind}_solo", (0, 0)) for kind in SOLO_KINDS]
    lines.append(f"| all declared solos | {ci(solos, n, 2)} | {ci(sum(w for w, _ in solo_won), sum(t for _, t in solo_won))} |")
    lines += [
        "",
        f"Deals with a player holding both QC: {s['both_qc']:,} ({pct(s['both_qc'] / n)}); "
        f"of these, a marriage was declared in {pct(s['marriage_declared'] / max(1, s['both_qc']))}, "
        f"a solo in {pct(s['both_qc_solo'] / max(1, s['both_qc']))} "
        f"and kept silent in {pct(s['both_qc_silent'] / max(1, s['both_qc']))}.",
        "",
        "## Game value",
        "",
        f"Average game value V (before solo tripling): {s['game_value']:.2f} over all deals; "
        f"{s['game_value_nonsolo']:.2f} in normal games, marriages and poverty; "
        f"{s['game_value_solo']:.2f} in declared solos.",
        "",
        "## Calls (all deals)",
        "",
        "| call | Re side made | made good | Kontra side made | made good |",
        "|---|---|---|---|---|",
    ]
    for level in range(1, 6):
        mr, gr = s["calls"][("re", level)]
        mk, gk = s["calls"][("kontra", level)]
        lines.append(f"| {CALL_NAMES[level - 1]} | {pct(mr / n, 2)} | {ci(gr, mr)} | {pct(mk / n, 2)} | "
                     f"{ci(gk, mk)} |")
    lines += [
        "",
        "Made good: the side won the deal (for a denial: and reached the eyes it promised).",
        "",
        "## Extra points (normal games, marriages, poverty)",
        "",
        "| extra point | per game | games with one |",
        "|---|---|---|",
    ]
    for name, (mean, share_) in s["extras"].items():
        lines.append(f"| {name} | {mean:.3f} | {pct(share_)} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rules", default="ddv")
    ap.add_argument("--out", default="results/realism/report.md")
    ap.add_argument("--notes", default=str(Path(__file__).with_name("realism_notes.md")),
                    help="Markdown appended to the report (the comparison's discussion)")
    args = ap.parse_args(argv)
    from dokosim.run.simulate import simulate
    t = time.perf_counter()
    df = simulate(args.deals, seed=args.seed, rules=args.rules, strategy="heuristic")
    seconds = time.perf_counter() - t
    text = markdown(stats(df), args.seed, args.rules, seconds)
    notes = Path(args.notes)
    if notes.exists():
        text += "\n" + notes.read_text()
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
