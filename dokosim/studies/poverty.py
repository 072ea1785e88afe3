"""Poverty (Armut, house rule): what playing a poverty is worth, against the same deals
played without the poverty rule.

    dokosim study poverty [--deals 400000] [--strategy heuristic] [--seed 0]

Two datasets with the same seed: rules ddv + poverty, and plain ddv. A deal
whose first dealing was played as a poverty (no redeal before it) has the same
hands in both; the poor player's and the acceptor's scores are compared deal by
deal (paired differences, 95% intervals), by the number of trumps passed (0-3)
and whether a fox (AD) was among them. Every redeal under the poverty rule is a
refused poverty (throw-in is off), which gives the refusal rate.
Writes results/poverty/: by_trumps_passed, by_fox, summary (Markdown and CSV),
poverty_vs_normal.png, poverty_fox.png; the headline figures under simple, heuristic and pimc
side by side (skills.md, skills.png; pimc on a subsample).
"""
from __future__ import annotations

import numpy as np
import polars as pl

from dokosim.engine.deal import NORMAL_TRUMPS

from .common import footnote, mean_ci, plt, popcount, results_dir, rules_label, say, type_mask, wilson, write_table
from .data import dataset

STUDY = "poverty"
DEFAULT_DEALS = 400_000
RULES_POVERTY = {"preset": "ddv", "poverty": True}
RULES_NORMAL = {"preset": "ddv"}
FOX = type_mask("AD")
PIMC_SHARE = 0.00625  # pimc plays 0.625% of the study's deals per dataset (2,500 at the default size)
MIN_PIMC_DEALS = 400


def _seat_score(frame: pl.DataFrame, seat_col: str, name: str) -> pl.Expr:
    return (pl.when(pl.col(seat_col) == 0).then(pl.col("score_0"))
            .when(pl.col(seat_col) == 1).then(pl.col("score_1"))
            .when(pl.col(seat_col) == 2).then(pl.col("score_2"))
            .otherwise(pl.col("score_3")).cast(pl.Int32).alias(name))


def _stats(g: pl.DataFrame) -> dict:
    out = {"deals": g.height}
    for who in ("poor", "acceptor"):
        for tag, col in (("poverty", f"{who}_poverty"), ("normal", f"{who}_normal")):
            m, lo, hi = mean_ci(g[col].to_numpy())
            out[f"{who}_{tag}"], out[f"{who}_{tag}_lo"], out[f"{who}_{tag}_hi"] = m, lo, hi
        m, lo, hi = mean_ci((g[f"{who}_poverty"] - g[f"{who}_normal"]).to_numpy())
        out[f"{who}_gain"], out[f"{who}_gain_lo"], out[f"{who}_gain_hi"] = m, lo, hi
    k = int(g["pair_wins"].sum())
    p, lo, hi = wilson(k, g.height)
    out["pair_win_rate"], out["pair_win_lo"], out["pair_win_hi"] = float(p), float(lo), float(hi)
    return out


def paired(deals: int, strategy: str, seed: int, **sim) -> tuple[pl.DataFrame, int, int]:
    """(the poverties played at the first dealing joined with the same deals without the rule,
    poverties played, poverties refused) under ``strategy`` at every seat."""
    cols = ["deal_id", "hand_0", "hand_1", "hand_2", "hand_3", "contract", "declarer", "winner",
            "re_mask", "score_0", "score_1", "score_2", "score_3", "redeals", "poverty_partner",
            "poverty_passed", "poverty_returned"]
    a = dataset(f"{STUDY}/with_poverty", deals, seed, strategy, RULES_POVERTY, **sim).select(cols).collect()
    b = dataset(f"{STUDY}/without_poverty", deals, seed, strategy, RULES_NORMAL, **sim).select(
        "deal_id", "hand_0", "contract", "score_0", "score_1", "score_2", "score_3").collect()
    refusals = int(a["redeals"].sum())
    played = a.filter(pl.col("contract") == "poverty")
    n_played = played.height
    pov = (played.filter(pl.col("redeals") == 0)
           .with_columns(_seat_score(played, "declarer", "poor_poverty"),
                         _seat_score(played, "poverty_partner", "acceptor_poverty"),
                         (pl.col("winner") == "re").alias("pair_wins")))
    pov = pov.with_columns(
        pl.Series("trumps_passed", popcount(pov["poverty_passed"].to_numpy() & np.int64(NORMAL_TRUMPS))),
        pl.Series("trumps_returned", popcount(pov["poverty_returned"].to_numpy() & np.int64(NORMAL_TRUMPS))),
        pl.Series("fox_passed", (pov["poverty_passed"].to_numpy() & np.int64(FOX)) != 0))
    j = pov.join(b.rename({c: f"b_{c}" for c in b.columns if c != "deal_id"}), on="deal_id")
    assert (j["hand_0"] == j["b_hand_0"]).all(), "the same seed must deal the same hands"
    j = j.with_columns(
        pl.when(pl.col("declarer") == 0).then(pl.col("b_score_0")).when(pl.col("declarer") == 1)
        .then(pl.col("b_score_1")).when(pl.col("declarer") == 2).then(pl.col("b_score_2"))
        .otherwise(pl.col("b_score_3")).cast(pl.Int32).alias("poor_normal"),
        pl.when(pl.col("poverty_partner") == 0).then(pl.col("b_score_0")).when(pl.col("poverty_partner") == 1)
        .then(pl.col("b_score_1")).when(pl.col("poverty_partner") == 2).then(pl.col("b_score_2"))
        .otherwise(pl.col("b_score_3")).cast(pl.Int32).alias("acceptor_normal"))
    return j, n_played, refusals


def headlines(j: pl.DataFrame, n_played: int, refusals: int, deals: int, skill: str) -> list[dict]:
    """The skills rows of one skill level: how often a poverty is played and refused, and what
    it is worth to the poor player, the acceptor and the pair (all, and fox passed or not)."""
    from .skills import row
    rows = []
    p, lo, hi = wilson(n_played, deals)
    rows.append(row("share of deals played as a poverty", skill, deals, p, lo, hi, "share"))
    p, lo, hi = wilson(refusals, refusals + n_played) if refusals + n_played else (None, None, None)
    rows.append(row("refusal rate of declared poverties", skill, deals, p, lo, hi, "share"))
    for label, g in (("all", j), ("fox passed", j.filter(pl.col("fox_passed"))),
                     ("no fox passed", j.filter(~pl.col("fox_passed")))):
        st = _stats(g) if g.height >= 2 else {}
        for who, word in (("poor", "poor player"), ("acceptor", "acceptor")):
            rows.append(row(f"{word}: gain per poverty deal ({label})", skill, deals, st.get(f"{who}_gain"),
                            st.get(f"{who}_gain_lo"), st.get(f"{who}_gain_hi"), "points per poverty deal"))
        if label == "all":
            for who, word in (("poor", "poor player"), ("acceptor", "acceptor")):
                rows.append(row(f"{word}: score with the poverty", skill, deals, st.get(f"{who}_poverty"),
                                st.get(f"{who}_poverty_lo"), st.get(f"{who}_poverty_hi"),
                                "points per poverty deal"))
            rows.append(row("the pair wins the poverty", skill, deals, st.get("pair_win_rate"),
                            st.get("pair_win_lo"), st.get("pair_win_hi"), "share"))
    return rows


def run(deals=None, strategy="heuristic", seed=0, results=None, quiet=False, charts=True, skills=None,
        pimc_deals=None, **sim) -> dict:
    """Simulate the two datasets, write the tables and charts to ``results/poverty/``, and the
    headline figures under each of ``skills`` (default SKILLS; pimc on ``pimc_deals`` deals per
    dataset, default PIMC_SHARE of ``deals``)."""
    from .skills import SKILLS, skill_deals, write_skills
    deals = deals or DEFAULT_DEALS
    out = results_dir(results, STUDY)
    say(quiet, f"poverty: {deals} deals with the poverty rule and {deals} without")
    j, n_played, refusals = paired(deals, strategy, seed, **sim)

    note = (f"{deals:,} deals under rules {rules_label(RULES_POVERTY)} and the same {deals:,} deals "
            f"(seed {seed}) under {rules_label(RULES_NORMAL)}; strategy `{strategy}` at every seat. "
            "Rows: deals played as a poverty at the first dealing (so that both runs hold the same "
            "hands). `*_poverty`: the player's score with the poverty played; `*_normal`: the same "
            "seat's score on the same deal without the poverty rule; `*_gain`: the mean paired "
            "difference. Means with 95% normal intervals, the pair's win rate with a 95% Wilson "
            "interval.")
    rows = []
    for t in range(4):
        g = j.filter(pl.col("trumps_passed") == t)
        if g.height:
            rows.append({"trumps_passed": t, **_stats(g)})
    by_trumps = pl.DataFrame(rows)
    write_table(by_trumps, out / "by_trumps_passed", "Poverty vs the same deals without it, by trumps passed",
                note, digits=2)
    rows = []
    for fox in (False, True):
        g = j.filter(pl.col("fox_passed") == fox)
        if g.height:
            rows.append({"fox_passed": fox, **_stats(g)})
    by_fox = pl.DataFrame(rows)
    write_table(by_fox, out / "by_fox", "Poverty vs the same deals without it, fox passed or not", note,
                digits=2)
    declared = refusals + n_played
    p, lo, hi = wilson(refusals, declared)
    contracts_b = j.group_by("b_contract").len().sort("len", descending=True)
    def num(x):
        return f"{x:.4f}" if isinstance(x, float) else f"{x:,}"

    summary = pl.DataFrame({
        "quantity": ["deals", "poverties played", "poverties refused (redeals)", "refusal rate",
                     "refusal rate lo", "refusal rate hi", "played at first dealing (compared)",
                     *[f"same deals without poverty: {c}" for c in contracts_b["b_contract"].to_list()],
                     "mean trumps returned"],
        "value": [num(x) for x in (deals, n_played, refusals, float(p), float(lo), float(hi), j.height,
                                   *contracts_b["len"].to_list(), float(j["trumps_returned"].mean()))],
    })
    write_table(summary, out / "summary", "Poverty: how often played and refused", note, digits=4)
    all_stats = pl.DataFrame([{"trumps_passed": "all", **_stats(j)}])
    write_table(all_stats, out / "overall", "Poverty vs the same deals without it, all compared deals",
                note, digits=2)
    if charts:
        foot = (f"{j.height:,} poverty deals out of {deals:,} (seed {seed}), strategy '{strategy}', rules "
                f"{rules_label(RULES_POVERTY)} vs {rules_label(RULES_NORMAL)}; error bars: 95% intervals")
        _chart(by_trumps, "trumps_passed", [0, 1, 2, 3], "trumps passed by the poor player",
               out / "poverty_vs_normal.png", foot)
        _chart(by_fox, "fox_passed", [False, True], "fox (AD) among the cards passed",
               out / "poverty_fox.png", foot)
    sizes = skill_deals(deals, PIMC_SHARE, MIN_PIMC_DEALS)
    if pimc_deals is not None:
        sizes["pimc"] = pimc_deals
    skill_rows = []
    for skill in (SKILLS if skills is None else skills):
        if skill == strategy and sizes[skill] == deals:
            sj, sp, sr = j, n_played, refusals
        else:
            say(quiet, f"poverty: headline figures under {skill}, {sizes[skill]} deals per dataset")
            sj, sp, sr = paired(sizes[skill], skill, seed, **sim)
        skill_rows += headlines(sj, sp, sr, sizes[skill], skill)
    skill_note = (f"Each skill level at every seat, seed {seed}, rules {rules_label(RULES_POVERTY)} against "
                  f"{rules_label(RULES_NORMAL)} on the same deals; gains are paired differences per poverty "
                  "deal (95% normal intervals), shares with 95% Wilson intervals. `pimc` plays the cards "
                  "only; its reservations, poverty exchange and calls are `heuristic`'s.")
    write_skills(skill_rows, out, "Poverty: headline figures by skill level", skill_note, chart=charts,
                 foot=f"seed {seed}; deals per dataset: " + ", ".join(f"{k} {v:,}" for k, v in sizes.items()))
    return {"paired": j, "by_trumps": by_trumps, "by_fox": by_fox, "summary": summary,
            "refusals": refusals, "played": n_played, "skills": skill_rows}


def _chart(table: pl.DataFrame, key: str, keys, xlabel: str, path, foot: str):
    p = plt()
    fig, axes = p.subplots(1, 2, figsize=(11, 4.8), sharey=True)
    present = [k for k in keys if k in table[key].to_list()]
    x = np.arange(len(present))
    for ax, who in zip(axes, ("poor", "acceptor")):
        for off, tag, color in ((-0.2, "poverty", "#c2553a"), (0.2, "normal", "#4a7fb0")):
            rows = [table.filter(pl.col(key) == k).row(0, named=True) for k in present]
            m = np.array([r[f"{who}_{tag}"] for r in rows])
            err = np.array([[r[f"{who}_{tag}"] - r[f"{who}_{tag}_lo"] for r in rows],
                            [r[f"{who}_{tag}_hi"] - r[f"{who}_{tag}"] for r in rows]])
            ax.bar(x + off, m, 0.4, yerr=err, capsize=4, color=color,
                   label="poverty played" if tag == "poverty" else "same deals, no poverty rule")
        ax.set_xticks(x, [f"{k}\n(n={table.filter(pl.col(key) == k)['deals'][0]:,})" for k in present])
        ax.axhline(0, color="black", lw=0.8)
        ax.set_title(f"{'poor player' if who == 'poor' else 'acceptor'}")
        ax.set_xlabel(xlabel)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("mean score per deal")
    axes[0].legend(fontsize=8)
    fig.suptitle("Poverty: the poor player's and the acceptor's score, with and without the poverty rule")
    footnote(fig, foot)
    fig.tight_layout(rect=(0, 0.04, 1, 0.95))
    fig.savefig(path, dpi=110)
    p.close(fig)


if __name__ == "__main__":
    from .cli import script_main
    script_main(STUDY)
