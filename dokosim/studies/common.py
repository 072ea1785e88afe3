"""Helpers shared by the studies: intervals, hand features, tables, chart footnotes."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from ..stats import Z95, wilson

from ..engine.cards import CLASS_MASK, SOLO_KINDS, SOLO_SCHEME, TRUMP, card_type

PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""The installed ``dokosim`` package."""


def checkout_root() -> Path | None:
    """The repository checkout this package runs from (an editable install or a clone on the
    path), or None for an installed package (a wheel in site-packages)."""
    root = PACKAGE_DIR.parent
    return root if (root / "pyproject.toml").is_file() and (root / "analysis").is_dir() else None


def project_root() -> Path:
    """Where ``results/`` and ``data/studies/`` go by default: the checkout, else the current
    directory."""
    return checkout_root() or Path.cwd()



class StudyError(ValueError):
    """A bad study request (unknown study, bad hand, ...): one line for the user."""


# ------------------------------------------------------------------ intervals
def group_stats(df: pl.DataFrame, by: list[str], win: str = "win", score: str = "score") -> pl.DataFrame:
    """Per group: deals, win rate with Wilson interval, mean score with normal interval."""
    g = (df.group_by(by).agg(pl.len().alias("deals"), pl.col(win).sum().alias("wins"),
                              pl.col(score).cast(pl.Float64).mean().alias("mean_score"),
                              pl.col(score).cast(pl.Float64).std().alias("sd"))
         .sort(by))
    p, lo, hi = wilson(g["wins"].to_numpy(), g["deals"].to_numpy())
    n = g["deals"].to_numpy().astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = Z95 * g["sd"].fill_null(float("nan")).to_numpy() / np.sqrt(n)
    return g.with_columns(pl.Series("win_rate", p), pl.Series("win_lo", lo), pl.Series("win_hi", hi),
                          (pl.col("mean_score") - pl.Series(half)).alias("score_lo"),
                          (pl.col("mean_score") + pl.Series(half)).alias("score_hi")).drop("sd")


# ------------------------------------------------------------------ hands
_BYTE_POP = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def popcount(x) -> np.ndarray:
    """Bit counts of an int64 array."""
    x = np.asarray(x, dtype=np.int64).view(np.uint64)
    return np.bitwise_count(x).astype(np.int64) if hasattr(np, "bitwise_count") else \
        _BYTE_POP[x.view(np.uint8).reshape(-1, 8)].sum(axis=1)


def type_mask(*names: str) -> int:
    """Both copies of each named card type."""
    m = 0
    for n in names:
        m |= 3 << (2 * card_type(n))
    return m


RANK_MASK = {r: type_mask(*[r + s for s in "CSHD"]) for r in "ATKQJ9"}

# What the soloist counts as top trumps (docs/studies.md): TH and the queens in a
# suit solo, the black queens in a queens solo, the black jacks in a jacks solo,
# the tens in fleischlos (whose "trumps" axis counts the aces).
TOP = {
    "diamonds": type_mask("TH", "QC", "QS", "QH", "QD"),
    "hearts": type_mask("TH", "QC", "QS", "QH", "QD"),
    "spades": type_mask("TH", "QC", "QS", "QH", "QD"),
    "clubs": type_mask("TH", "QC", "QS", "QH", "QD"),
    "queens": type_mask("QC", "QS"),
    "jacks": type_mask("JC", "JS"),
    "fleischlos": RANK_MASK["T"],
}
FEATURES = ("trumps", "top", "plain_aces", "plain_tens", "voids", "longest")


def trump_mask(kind: str) -> int:
    return int(CLASS_MASK[SOLO_SCHEME[SOLO_KINDS.index(kind)], TRUMP])


def hand_features(hands, kind: str) -> dict[str, np.ndarray]:
    """What the soloist of a ``kind`` solo sees in ``hands`` (int64 masks).

    trumps: trumps of that contract (fleischlos: aces); top: top trumps (see TOP);
    plain_aces / plain_tens: aces and tens that are not trumps; voids: plain suits
    the hand lacks (of those that have plain cards in that contract); longest: the
    longest plain suit.
    """
    hands = np.asarray(hands, dtype=np.int64)
    scheme = SOLO_SCHEME[SOLO_KINDS.index(kind)]
    tm = np.int64(CLASS_MASK[scheme, TRUMP])
    aces = np.int64(RANK_MASK["A"])
    tens = np.int64(RANK_MASK["T"])
    f = {
        "trumps": popcount(hands & tm) if kind != "fleischlos" else popcount(hands & aces),
        "top": popcount(hands & np.int64(TOP[kind])),
        "plain_aces": popcount(hands & aces & ~tm),
        "plain_tens": popcount(hands & tens & ~tm),
    }
    voids = np.zeros(hands.shape, dtype=np.int64)
    longest = np.zeros(hands.shape, dtype=np.int64)
    for k in range(4):
        cm = np.int64(CLASS_MASK[scheme, k])
        if cm == 0:
            continue
        n = popcount(hands & cm)
        voids += n == 0
        longest = np.maximum(longest, n)
    f["voids"] = voids
    f["longest"] = longest
    return f


# ------------------------------------------------------------------ output
def results_dir(results, study: str) -> Path:
    base = Path(results) if results is not None else project_root() / "results"
    d = base / study
    d.mkdir(parents=True, exist_ok=True)
    return d


def fmt(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def write_table(df: pl.DataFrame, path_stem: Path, title: str, note: str = "", digits: int = 3) -> str:
    """Write ``df`` as ``<stem>.csv`` and ``<stem>.md``; returns the Markdown."""
    df.write_csv(path_stem.with_suffix(".csv"), float_precision=6)
    lines = [f"# {title}", ""]
    if note:
        lines += [note, ""]
    lines.append("| " + " | ".join(df.columns) + " |")
    lines.append("|" + "---|" * len(df.columns))
    for row in df.iter_rows():
        lines.append("| " + " | ".join(fmt(v, digits) for v in row) + " |")
    text = "\n".join(lines) + "\n"
    path_stem.with_suffix(".md").write_text(text)
    return text


def rules_label(rules) -> str:
    from dokosim.rules import rules_from_object
    d = rules_from_object(rules).to_dict()
    extra = [f"{k}={v}" for k, v in d.items() if k != "preset"]
    return d.get("preset", "ddv") + (" + " + ", ".join(extra) if extra else "")


def footnote(fig, text: str) -> None:
    fig.text(0.01, 0.005, text, fontsize=7, color="0.3", ha="left", va="bottom")


def plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as p
    return p


def by_strategy(summary: pl.DataFrame, names) -> pl.DataFrame:
    """``summary``'s rows in the order of the strategies ``names`` (column ``strategy``), each
    strategy's rows in their order."""
    order = {n: i for i, n in enumerate(names)}
    return summary.sort(pl.col("strategy").replace_strict(order, return_dtype=pl.Int64), maintain_order=True)


def trick_chart(rows: pl.DataFrame, names, columns, spread, labels, colors: dict, foot: str, path) -> None:
    """A chart by trick of each strategy of ``names`` in ``rows`` (``by == "trick"`` rows, the level
    the trick's number): ``columns`` (mean, low, high) as points with their interval, each
    strategy shifted by ``spread`` (centre, step) to stay apart; ``labels`` (y label, x ticks,
    title); ``colors`` by strategy (matplotlib's own for the others); ``foot`` the footnote;
    written to ``path``."""
    mean, lo, hi = columns
    centre, step = spread
    ylabel, xticks, title = labels
    p = plt()
    fig, ax = p.subplots(figsize=(7.5, 4.4))
    for k, name in enumerate(names):
        part = rows.filter(pl.col("strategy") == name)
        x = part["level"].cast(pl.Int64, strict=False).to_numpy() + (k - centre) * step
        m = part[mean].to_numpy()
        err = np.vstack([m - part[lo].to_numpy(), part[hi].to_numpy() - m])
        ax.errorbar(x, m, yerr=err, marker="o", ms=4, capsize=3, lw=1.4, label=name, color=colors.get(name))
    ax.set_xlabel("trick")
    ax.set_ylabel(ylabel)
    ax.set_xticks(xticks)
    ax.set_title(title)
    ax.legend(frameon=False)
    footnote(fig, foot)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(path, dpi=110)
    p.close(fig)


def say(quiet: bool, msg: str) -> None:
    if not quiet:
        import sys
        print(msg, file=sys.stderr, flush=True)
