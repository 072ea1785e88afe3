"""Symmetries as checks (issue 30, item 5): a clubs solo and a spades solo are the same game with
the suits renamed, so at every trump count and under every strategy their win rates and the
soloist's mean scores must agree within their intervals.

Each strategy plays at every seat, seat 0 declares the forced solo holding exactly ``count``
trumps of it (conditional dealing); clubs and spades use different seeds, so the two samples
are independent. The comparisons form one family (skills x counts x two figures), so each uses
the Bonferroni z of that family at 99% overall: a fixed-seed run fails by chance with
probability at most 1%. The smallest difference of win rates this detects is about 0.04 at
4,000 hands and 0.15 for pimc at 250 (sized to what CI affords: a coarse check there); the
frontier study runs the same comparison at thousands of hands per count.
"""
from statistics import NormalDist

import numpy as np
import pytest

from dokosim.run.simulate import simulate

pytestmark = pytest.mark.slow  # a long property run

COUNTS = (9, 10, 11)
SKILLS = {"simple": 4000, "heuristic": 4000, "pimc": 250}
FAMILY = len(COUNTS) * len(SKILLS) * 2
Z = NormalDist().inv_cdf(1 - 0.01 / FAMILY / 2)


def soloist(kind: str, count: int, skill: str, deals: int, seed: int = 31) -> tuple[np.ndarray, np.ndarray]:
    """(won, score) of seat 0 declaring a ``kind`` solo with exactly ``count`` trumps."""
    df = simulate(deals, seed=seed, strategy=skill, contract=f"{kind}_solo", declarer=0,
                  where=f"trumps(0) == {count}")
    return (df["winner"] == "re").to_numpy().astype(float), df["score_0"].to_numpy().astype(float)


def agree(a: np.ndarray, b: np.ndarray) -> tuple[bool, str]:
    """Whether the means of two independent samples agree within Z standard errors of their
    difference, and the figures."""
    diff = a.mean() - b.mean()
    se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    return abs(diff) <= Z * se, f"{a.mean():.3f} vs {b.mean():.3f}, difference {diff:+.3f} +- {Z * se:.3f}"


@pytest.mark.parametrize("skill", SKILLS)
@pytest.mark.parametrize("count", COUNTS)
def test_clubs_and_spades_solos_agree_at_every_count_and_skill(count, skill):
    clubs = soloist("clubs", count, skill, SKILLS[skill])
    spades = soloist("spades", count, skill, SKILLS[skill], seed=32)
    for name, a, b in (("win rate", clubs[0], spades[0]), ("soloist's score", clubs[1], spades[1])):
        ok, said = agree(a, b)
        assert ok, f"{skill}, {count} trumps, {name}: clubs {said} (spades)"


def test_the_check_sees_a_real_difference():
    """The comparison is not blind to a difference of the size skills make: the same clubs solo
    at 10 trumps played by heuristic and by simple as the soloist (about 0.35 against 0.21, the
    other seats heuristic) is told apart."""
    def won(soloist_skill):
        df = simulate(4000, seed=31, strategy=f"{soloist_skill},heuristic,heuristic,heuristic",
                      contract="clubs_solo", declarer=0, where="trumps(0) == 10")
        return (df["winner"] == "re").to_numpy().astype(float)
    assert not agree(won("heuristic"), won("simple"))[0]


def test_the_seats_roles_turn_with_the_dealer():
    """Rotation: with the dealer fixed at seat d, the seat k places to the dealer's left has the
    same game whatever d is (the seats differ only by where they sit from the dealer). Under
    heuristic at every seat, the mean scores of the dealer, the player on lead and the one after
    agree across d = 0..3, within Bonferroni-wide intervals (99% over the 9 comparisons, the
    dealer at seat 0 against 1-3 for each role); and the check tells the dealer from the player
    on lead."""
    runs = {d: simulate(20_000, seed=40 + d, strategy="heuristic", dealer=d) for d in range(4)}
    z = NormalDist().inv_cdf(1 - 0.01 / 9 / 2)

    def scores(d, places):
        return runs[d][f"score_{(d + places) % 4}"].to_numpy().astype(float)

    def same(a, b):
        return abs(a.mean() - b.mean()) <= z * np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)

    for places in (0, 1, 2):  # the dealer, the player on lead, the one after
        for d in (1, 2, 3):
            assert same(scores(0, places), scores(d, places)), (places, d)
    on_lead = np.concatenate([scores(d, 1) for d in range(4)])
    dealer = np.concatenate([scores(d, 0) for d in range(4)])
    assert not same(on_lead, dealer)  # the check is not blind: being on lead is worth points


FRONTIER = __import__("pathlib").Path(__file__).resolve().parents[2] / "results" / "frontier" / "frontier.csv"


LEARNED = ("net", "net3")  # players whose suits are symmetric only as far as their training made them


def test_the_frontier_file_agrees_for_clubs_and_spades_at_every_count_and_skill():
    """The committed frontier (``dokosim study frontier``, thousands of hands per count): clubs
    and spades solos agree within their 95% intervals (the intervals overlap), win rate and
    mean score, at 10 and 11 trumps under every rule-based and search skill that played them.
    Both kinds are dealt from the same seed, so the hands are alike and the samples correlated:
    a difference between them is the strategies' treatment of the suits, which is what this is
    to catch. The learned players are checked apart (below)."""
    import polars as pl
    f = pl.read_csv(FRONTIER).filter((pl.col("study") == "solo_odds") & ~pl.col("skill").is_in(LEARNED))
    checked = 0
    for figure in ("solo win rate", "soloist's mean score"):
        checked += _clubs_spades(f.filter(pl.col("figure") == figure))
    assert checked >= 2 * 2 * 5  # two figures at 10 and 11 trumps: random, simple, heuristic, pimc, pimc_solver


ASYMMETRIC = {
    "net": "net plays a spades solo worse than a clubs solo (frontier, 20,000 hands per count: 10 trumps "
           "-4.38 [-4.50, -4.26] against -3.46 [-3.58, -3.34]); issue 44",
    "net3": "net3, trained on mirrored data too, is nearer but not symmetric (frontier, 20,000 hands per "
            "count: 10 trumps clubs -5.94 [-6.11, -5.78] against spades -5.29 [-5.45, -5.12]); issue 44",
}


@pytest.mark.parametrize("player", [pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=ASYMMETRIC[p]))
                                    for p in LEARNED])
def test_the_learned_player_treats_clubs_and_spades_alike_in_the_frontier_file(player):
    """The same check for each learned player: a network need not be symmetric in the suits, and
    the frontier measures that it is not (docs/studies/frontier.md). Strict: once a new round of
    weights plays both alike, this passes and the mark must go."""
    import polars as pl
    f = pl.read_csv(FRONTIER).filter((pl.col("study") == "solo_odds") & (pl.col("skill") == player))
    checked = 0
    for figure in ("solo win rate", "soloist's mean score"):
        checked += _clubs_spades(f.filter(pl.col("figure") == figure))
    assert checked == 2 * 2


def _clubs_spades(f):
    import polars as pl
    checked = 0
    for r in f.filter(pl.col("kind") == "clubs").iter_rows(named=True):
        s = f.filter((pl.col("kind") == "spades") & (pl.col("count") == r["count"])
                     & (pl.col("skill") == r["skill"])).row(0, named=True)
        assert r["lo"] <= s["hi"] and s["lo"] <= r["hi"], (r, s)
        checked += 1
    return checked


def test_the_frontier_file_has_every_key_count_and_its_strongest_skill_is_precise():
    """issue 30's acceptance on the committed file: the columns, a row per solo kind at its key
    counts, the poverty strengths and both calls; at every solo and poverty figure the strongest
    skill's interval is at most 0.06 wide (win rates) or 0.6 (scores), and at both calls'
    break-even chances (0.06) and mean gains (0.6)."""
    import polars as pl
    from dokosim.studies.frontier import COLUMNS, SKILLS, SOLO_COUNTS, STRENGTHS
    f = pl.read_csv(FRONTIER)
    assert tuple(f.columns) == COLUMNS
    order = {s: i for i, s in enumerate(SKILLS)}
    for kind, counts in SOLO_COUNTS.items():
        for count in counts:
            g = f.filter((pl.col("kind") == kind) & (pl.col("count") == count)
                         & (pl.col("figure") == "solo win rate"))
            best = max(g["skill"].to_list(), key=order.__getitem__)
            r = g.filter(pl.col("skill") == best).row(0, named=True)
            assert r["hi"] - r["lo"] <= 0.06, r
            score = f.filter((pl.col("kind") == kind) & (pl.col("count") == count) & (pl.col("skill") == best)
                             & (pl.col("figure") == "soloist's mean score")).row(0, named=True)
            assert score["hi"] - score["lo"] <= 0.6, score  # issue 45: scores settled too
    for s in STRENGTHS:
        g = f.filter((pl.col("study") == "poverty") & (pl.col("count") == s))
        best = max(g["skill"].to_list(), key=order.__getitem__)
        r = g.filter(pl.col("skill") == best).row(0, named=True)
        assert r["hi"] - r["lo"] <= 0.6, r
    calls = f.filter(pl.col("study") == "announcements")
    assert set(calls["kind"].to_list()) == {"Re/Kontra", "no 90"}
    for (figure, kind), g in calls.group_by(["figure", "kind"]):
        best = max(g["skill"].to_list(), key=order.__getitem__)
        r = g.filter(pl.col("skill") == best).row(0, named=True)
        assert r["hi"] - r["lo"] <= (0.06 if figure == "break-even chance" else 0.6), r
