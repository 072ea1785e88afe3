"""Advice checked hand by hand: ``dokosim advise``'s answers against ``pimc_solver``'s.

``dokosim study advice_check`` draws hands a club player would ask about, asks ``advise`` with
each fast player to check (the default player, and ``heuristic``, the default before it), and
plays the same hands and options with ``pimc_solver`` at every seat, to see whether the fast
answer is the one search gives.

* **Hands.** Hand ``i`` of seed ``s`` is drawn from its own random stream (``s``, ``i``) among the
  hands of its category (``CATEGORIES[i % 4]``): a suit solo with 9 to 11 trumps (the suit with
  the most trumps), 5-6 queens, 5-6 jacks, 5-6 aces. Seat 0 holds it; dealer 3, so seat 0 leads;
  DDV rules.
* **Fast answers.** ``advise`` with ``fast_deals`` deals per option, every option the hand may
  make, for each fast player: its recommendation (the highest expected score), and the win
  chance of that option and of healthy, each with a 95% interval.
* **Search answers.** ``pimc_solver`` plays ``check_deals`` deals (the same unseen hands for every
  option: advise's common random numbers) of these options only: healthy, each fast player's
  best two, and the category's own option (e.g. ``jacks_solo`` for 5-6 jacks). The other options
  are ones every fast player rates below its second best, so search would have to reverse two
  rankings at once for them to matter; this is what makes the check affordable (search plays at
  about 5 deals a second a core). Search's recommendation is the highest expected score among
  the options it played.
* **Agreement**, per hand and fast player: ``pick_same``, the fast recommendation is search's;
  ``pick_not_worse``, under search the fast recommendation's expected score is not below search's
  pick by more than the 95% interval of their paired difference (same deals); ``win_agrees``: the
  fast and the search win chance of the recommended option lie within the two intervals'
  combined margin (their distance is at most the sum of the two half-widths), and
  ``healthy_agrees`` the same for healthy.

Each hand's answers are appended, as one JSON line, to ``data/advice_check/seed<S>-<digest>.jsonl``
(the digest of the run's settings, which name the fast players and the digest of ``net``'s
weights); an interrupted run resumes after the last whole line. Search's answers do not depend
on the fast players, so a run with other fast players or weights reuses the search results of
earlier runs of the same seed and search deals in that directory (each option's per-deal scores
are kept for that) and plays only the options they lack. ``results/advice_check/`` gets ``hands.md/.csv``
(one row per hand and fast player), ``summary.md/.csv`` (each agreement share with its 95%
Wilson interval) and ``win_chances.png``.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np
import polars as pl

from ..engine.cards import mask_str
from ..stats import wilson
from .common import StudyError, hand_features, plt, results_dir, say, write_table

CATEGORIES = ("suit_solo", "queens", "jacks", "aces")
CATEGORY_LABEL = {"suit_solo": "a suit solo with 9-11 trumps", "queens": "5-6 queens",
                  "jacks": "5-6 jacks", "aces": "5-6 aces"}
SUIT_KINDS = ("diamonds", "hearts", "spades", "clubs")
DEFAULT_HANDS = 52
FAST_DEALS = 4000
CHECK_DEALS = 200
MIN_CHECK_DEALS = 200
MIN_FAST_DEALS = 10
"""The fewest deals per option a fast player's advice is played with (dokosim advise --deals)."""
SEARCH_PLAYER = "pimc_solver"
SEAT, DEALER, RULES = 0, 3, "ddv"
DRAW_BATCH = 4096


def fast_players() -> tuple[str, ...]:
    """The fast players whose advice is checked: the default answerer, then ``heuristic``."""
    from ..run.players import STRONGEST_FAST
    return tuple(dict.fromkeys((STRONGEST_FAST, "heuristic")))


def category_option(mask: int, category: str) -> str:
    """The reservation a hand of ``category`` is asked about (a suit solo: the suit with the most trumps)."""
    if category == "suit_solo":
        trumps = {k: int(hand_features([mask], k)["trumps"][0]) for k in SUIT_KINDS}
        return f"{max(SUIT_KINDS, key=lambda k: (trumps[k], -SUIT_KINDS.index(k)))}_solo"
    return {"queens": "queens_solo", "jacks": "jacks_solo", "aces": "fleischlos_solo"}[category]


def _in_category(hands: np.ndarray, category: str) -> np.ndarray:
    if category == "suit_solo":
        best = np.max([hand_features(hands, k)["trumps"] for k in SUIT_KINDS], axis=0)
        return (best >= 9) & (best <= 11)
    kind = {"queens": "queens", "jacks": "jacks", "aces": "fleischlos"}[category]
    n = hand_features(hands, kind)["trumps"]
    return (n >= 5) & (n <= 6)


def draw_hand(seed: int, index: int) -> tuple[int, str]:
    """Hand ``index`` of ``seed`` (a 48-bit mask) and its category; depends on nothing else."""
    if not 0 <= seed < 2**63 or not 0 <= index < 2**63:
        raise StudyError(f"seed {seed} and hand index {index} must be integers from 0 to 2**63 - 1")
    category = CATEGORIES[index % len(CATEGORIES)]
    rng = np.random.default_rng([seed, index])
    bits = np.left_shift(np.int64(1), np.arange(48, dtype=np.int64))
    while True:
        order = np.argsort(rng.random((DRAW_BATCH, 48)), axis=1)[:, :12]
        hands = bits[order].sum(axis=1)
        hit = np.flatnonzero(_in_category(hands, category))
        if hit.size:
            return int(hands[hit[0]]), category


def _half_width(entry: dict) -> float:
    return (entry["win_ci95"][1] - entry["win_ci95"][0]) / 2


def _summary(entry: dict) -> dict:
    return {k: entry[k] for k in ("win_chance", "win_ci95", "expected_score", "score_ci95")}


def _search_entries(prior: dict | None) -> tuple[dict, dict[str, np.ndarray]]:
    """What an earlier run's record of this hand says under search, to reuse: its option
    summaries and, where it stored them (``search_scores``), each option's score in every deal."""
    if not prior:
        return {}, {}
    srch = prior["search"]
    scores = {o: np.asarray(v, dtype=np.float64) for o, v in srch.get("scores", {}).items()}
    return dict(srch["options"]), scores


def check_hand(seed: int, index: int, fast_deals: int, check_deals: int, players, prior: dict | None = None) -> dict:
    """The fast players' and search's answers for hand ``index`` of ``seed`` (one JSON-able dict).
    ``prior``: the record of this hand from an earlier run with the same seed, search player and
    search deals (other fast players); search's answers do not depend on the fast players (each
    option is its own ``advise`` run of the same deals), so the options it played are reused and
    only the others are played: all of them when it kept no per-deal scores and lacks one."""
    from .advise import advise
    mask, category = draw_hand(seed, index)
    hand_seed = seed * 1_000_003 + index
    asked = category_option(mask, category)
    fast = {}
    wanted = ["healthy", asked]
    for player in players:
        r = advise(mask, seat=SEAT, dealer=DEALER, rules=RULES, strategy=player, deals=fast_deals,
                   seed=hand_seed)
        ranked = sorted(r["options"], key=lambda o: -r["options"][o]["expected_score"])
        fast[player] = {"pick": r["recommendation"], "ranked": ranked,
                        "options": {o: _summary(e) for o, e in r["options"].items()}}
        wanted += ranked[:2]
    options, scores = _search_entries(prior)
    if prior and not scores and not set(wanted) <= set(options):  # no per-deal scores to pair with: replay
        wanted += list(options)
        options = {}
    elif prior and not scores:  # every option wanted was played before: search's record stands as it was
        return {"index": index, "seed": seed, "category": category, "hand": mask_str(mask), "asked": asked,
                "fast_deals": fast_deals, "check_deals": check_deals, "fast": fast, "search": prior["search"]}
    missing = [o for o in dict.fromkeys(wanted) if o not in options]
    if missing:
        s = advise(mask, seat=SEAT, dealer=DEALER, rules=RULES, strategy=SEARCH_PLAYER, deals=check_deals,
                   seed=hand_seed, only=missing, outcomes=scores)
        options.update({o: _summary(e) for o, e in s["options"].items()})
    search_pick = max(options, key=lambda o: options[o]["expected_score"])
    gaps = {}
    for o in options:
        diff = scores[search_pick] - scores[o]
        half = 1.96 * float(diff.std(ddof=1)) / np.sqrt(diff.size) if diff.size > 1 else float("inf")
        gaps[o] = [float(diff.mean()), half]
    return {"index": index, "seed": seed, "category": category, "hand": mask_str(mask), "asked": asked,
            "fast_deals": fast_deals, "check_deals": check_deals, "fast": fast,
            "search": {"player": SEARCH_PLAYER, "pick": search_pick, "options": options, "gap_to_pick": gaps,
                       "scores": {o: [float(v) for v in scores[o]] for o in options}}}


def agreement(record: dict, player: str) -> dict:
    """One row of hands.csv: what ``player``'s advice says for this hand and whether search agrees."""
    f = record["fast"][player]
    srch = record["search"]
    pick = f["pick"]
    fo, so = f["options"][pick], srch["options"][pick]
    gap, half = srch["gap_to_pick"][pick]
    fh, sh = f["options"]["healthy"], srch["options"]["healthy"]
    clear = all(g > h for o, (g, h) in srch["gap_to_pick"].items() if o != srch["pick"])
    return {"index": record["index"], "category": record["category"], "hand": record["hand"],
            "player": player, "pick": pick, "search_pick": srch["pick"],
            "pick_same": pick == srch["pick"], "pick_not_worse": gap <= half, "search_clear": clear,
            "gap": gap, "gap_half_width": half,
            "win": fo["win_chance"], "win_lo": fo["win_ci95"][0], "win_hi": fo["win_ci95"][1],
            "search_win": so["win_chance"], "search_win_lo": so["win_ci95"][0], "search_win_hi": so["win_ci95"][1],
            "win_agrees": abs(fo["win_chance"] - so["win_chance"]) <= _half_width(fo) + _half_width(so),
            "healthy_win": fh["win_chance"], "search_healthy_win": sh["win_chance"],
            "healthy_agrees": abs(fh["win_chance"] - sh["win_chance"]) <= _half_width(fh) + _half_width(sh)}


def summarize(rows: pl.DataFrame) -> pl.DataFrame:
    """Per fast player: each agreement's share of hands with its 95% Wilson interval;
    ``pick_same_where_clear`` is ``pick_same`` among the hands where search separates its pick
    from every other option it played (``search_clear``: each paired difference beyond its 95%
    half-width), the hands where a same pick is not a coin toss between options search rates alike."""
    out = []
    for player in rows["player"].unique(maintain_order=True):
        g = rows.filter(pl.col("player") == player)
        clear = g.filter(pl.col("search_clear"))
        for what, h in (("pick_same", g), ("pick_not_worse", g), ("win_agrees", g), ("healthy_agrees", g),
                        ("search_clear", g), ("pick_same_where_clear", clear)):
            column = "pick_same" if what == "pick_same_where_clear" else what
            k, n = int(h[column].sum()), h.height
            if n == 0:
                continue
            p, lo, hi = wilson(k, n)
            out.append({"player": player, "agreement": what, "hands": n, "agree": k,
                        "share": float(p), "lo": float(lo), "hi": float(hi)})
    return pl.DataFrame(out)


class HandLog:
    """The run's answers, one JSON line per hand after a first line with the run's settings;
    resumes after the last whole line and refuses a file written with other settings."""

    def __init__(self, path: Path, settings: dict):
        self.path = path
        self.records: dict[int, dict] = {}
        if path.exists():
            self.records = read_log(path, settings)
            lines = path.read_text().split("\n")
            path.write_text("\n".join(lines[:-1]) + "\n")  # drop a line cut short by an interruption
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(settings) + "\n")

    def add(self, record: dict) -> None:
        with self.path.open("a") as fh:
            fh.write(json.dumps(record) + "\n")
        self.records[record["index"]] = record


def read_log(path: Path, settings: dict | None = None) -> dict[int, dict]:
    """The whole lines of a hand log by hand index (the text after the last newline is a line cut
    short by an interruption); StudyError if ``settings`` are given and the file's differ."""
    whole = path.read_text().split("\n")[:-1]
    if settings is not None and (not whole or json.loads(whole[0]) != settings):
        raise StudyError(f"{path} was written with other settings ({whole[0] if whole else 'none'}); "
                         "give another --data directory or remove it")
    return {r["index"]: r for r in map(json.loads, whole[1:])}


def player_fingerprints(players) -> dict[str, str]:
    """What a fast player's answers depend on besides dokosim's code: for ``net``, the digest of
    its weights file, so a new round of weights is a new run, not a resumed one."""
    from ..strategies.net import ROUND3_WEIGHTS_FILE, WEIGHTS_FILE
    files = {"net": WEIGHTS_FILE, "net3": ROUND3_WEIGHTS_FILE}
    return {p: hashlib.sha256(files[p].read_bytes()).hexdigest()[:16] for p in players if p in files}


def log_path(data: Path, settings: dict) -> Path:
    """The hand log of a run: ``seed<S>-<digest of the settings>.jsonl`` in ``data``."""
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:10]
    return Path(data) / f"seed{settings['seed']}-{digest}.jsonl"


def earlier_search(data: Path, settings: dict) -> dict[int, dict]:
    """Per hand index, a record of an earlier run in ``data`` with the same seed, search player and
    search deals (other fast players or weights): the search answers ``check_hand`` may reuse
    (the one that kept per-deal scores first)."""
    found: dict[int, dict] = {}
    for path in sorted(Path(data).glob(f"seed{settings['seed']}*.jsonl")):
        try:
            head = json.loads(path.read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            continue
        if any(head.get(k) != settings[k] for k in ("study", "seed", "check_deals", "search")):
            continue
        for i, r in read_log(path).items():
            if i not in found or ("scores" in r["search"] and "scores" not in found[i]["search"]):
                found[i] = r
    return found


def run(deals=None, strategy=None, seed=0, results=None, quiet=False, charts=True, hands: int = DEFAULT_HANDS,
        fast_deals: int = FAST_DEALS, data="data/advice_check", players=None, **_sim) -> dict:
    """Check ``hands`` hands; ``deals``: search deals per hand and option (default and minimum
    CHECK_DEALS = 200). ``strategy`` is not used: the checked players are ``players`` (built-in
    names), by default ``fast_players()``."""
    check_deals = CHECK_DEALS if deals is None else int(deals)
    if check_deals < MIN_CHECK_DEALS:
        raise StudyError(f"--deals {check_deals}: the check plays at least {MIN_CHECK_DEALS} search deals "
                         "per hand and option")
    if hands < 1:
        raise StudyError(f"hands {hands}: give at least 1")
    if fast_deals < MIN_FAST_DEALS:  # 0 wrote NaN win chances to the log after minutes of search
        raise StudyError(f"--fast-deals {fast_deals}: advise plays at least {MIN_FAST_DEALS} deals per option")
    if not 0 <= seed <= 2**63 - 1:  # before the log file is made
        raise StudyError(f"--seed {seed}: give an integer from 0 to 2**63 - 1")
    command = "dokosim study advice_check"
    if players is None:
        players = fast_players()
    else:
        players = tuple(dict.fromkeys(players))
        command = f"python -m dokosim.studies.advice_check --players {','.join(players)}"
    from ..loop.registry import BUILTIN
    unknown = [p for p in players if p not in BUILTIN]
    if unknown or not players:
        raise StudyError(f"players {','.join(unknown) or '(none)'}: name built-in players, one or more of "
                         f"{', '.join(BUILTIN)}")
    settings = {"study": "advice_check", "seed": seed, "fast_deals": fast_deals, "check_deals": check_deals,
                "players": list(players), "search": SEARCH_PLAYER, "fingerprints": player_fingerprints(players)}
    try:  # a --data or --results that is a file (or under one): one line, before any work
        path = log_path(data, settings)
        earlier = earlier_search(data, settings)
        log = HandLog(path, settings)
        out = results_dir(results, "advice_check")
    except OSError as exc:
        raise StudyError(f"{exc.filename}: {exc.strerror}; --data and --results name directories") from None
    from tqdm import tqdm
    todo = [i for i in range(hands) if i not in log.records]
    t0 = time.time()
    for i in tqdm(todo, desc="advice_check hands", disable=quiet, unit="hand"):
        log.add(check_hand(seed, i, fast_deals, check_deals, players, prior=earlier.get(i)))
    say(quiet, f"advice_check: {len(todo)} hands checked in {time.time() - t0:.0f} s, {hands - len(todo)} resumed")
    records = [log.records[i] for i in range(hands)]
    rows = pl.DataFrame([agreement(r, p) for p in players for r in records])
    summary = summarize(rows)
    note = (f"Seed {seed}; {hands} hands ({', '.join(CATEGORY_LABEL[c] for c in CATEGORIES)}, in turn), "
            f"seat 0 on lead, DDV; fast players at {fast_deals:,} deals per option, {SEARCH_PLAYER} at "
            f"{check_deals:,} deals per played option. `{command}` (docs/studies.md).")
    write_table(rows, out / "hands", "Advice checked hand by hand", note)
    write_table(summary, out / "summary", "How often the fast advice agrees with search", note)
    if charts:
        _chart(rows, out / "win_chances.png", note)
    return {"hands": hands, "summary": summary.to_dicts(), "out": str(out)}


def _chart(rows: pl.DataFrame, path: Path, note: str) -> None:
    p = plt()
    players = rows["player"].unique(maintain_order=True).to_list()
    fig, axes = p.subplots(1, len(players), figsize=(5.5 * len(players), 5), squeeze=False)
    for ax, player in zip(axes[0], players):
        g = rows.filter(pl.col("player") == player)
        for agrees, color in ((True, "#2b6ea6"), (False, "#c2553a")):
            h = g.filter(pl.col("win_agrees") == agrees)
            if h.height == 0:
                continue
            ax.errorbar(h["search_win"], h["win"],
                        xerr=[h["search_win"] - h["search_win_lo"], h["search_win_hi"] - h["search_win"]],
                        yerr=[h["win"] - h["win_lo"], h["win_hi"] - h["win"]], fmt="o", ms=4, color=color,
                        label="within the combined margin" if agrees else "outside it")
        ax.plot([0, 1], [0, 1], color="#999", lw=1)
        ax.set_xlabel(f"{SEARCH_PLAYER}: win chance of the recommended option")
        ax.set_ylabel(f"{player}: win chance of its recommendation")
        ax.set_title(f"advise with {player}")
        ax.legend(loc="upper left", fontsize=8)
    fig.text(0.01, 0.01, note, fontsize=7, wrap=True)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(path, dpi=110)
    p.close(fig)


def main(argv=None) -> int:
    """``python -m dokosim.studies.advice_check [--hands 52] [--deals 200] [--fast-deals 4000] [--seed 0]``."""
    import argparse
    ap = argparse.ArgumentParser(prog="python -m dokosim.studies.advice_check", description=main.__doc__)
    ap.add_argument("--hands", type=int, default=DEFAULT_HANDS, help="hands to check")
    ap.add_argument("--deals", type=int, default=CHECK_DEALS, help="search deals per hand and option (>= 200)")
    ap.add_argument("--fast-deals", type=int, default=FAST_DEALS, help="advise's deals per option")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--results", default=None, help="the results directory (default: results/ here)")
    ap.add_argument("--data", default="data/advice_check", help="where the answers go (resumed if there)")
    ap.add_argument("--players", default=None,
                    help="comma-separated fast players to check (default: the default answerer, then heuristic)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    try:
        print(run(deals=a.deals, seed=a.seed, results=a.results, quiet=a.quiet, hands=a.hands,
                  fast_deals=a.fast_deals, data=a.data,
                  players=None if a.players is None else [p.strip() for p in a.players.split(",") if p.strip()]))
    except StudyError as exc:
        ap.exit(2, f"{ap.prog}: error: {exc}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
