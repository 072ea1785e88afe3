"""``dokosim advise --record``: whether the seat to move should call now, and what.

At a position of a deal (a ``dokosim.Game``, or a game record replayed to a card), the options of
one seat are the calls the rules let it make at that moment, found by the Game's own round of
calls (loop/advice.ask_for_calls): no call, Re or Kontra, and each denial still in time (a denial
above the side's level includes the levels it skips, e.g. "re, no90"). Each option is played on
from the same sampled deals (common random numbers): the cards the seat has not seen are dealt
anew consistent with what it has seen (``Game.resample``'s sampler: each seat's number of cards,
the voids shown, the queens of clubs the parties imply), kept when they fit the bids and calls as
``pimc`` reads them (a soloist's hand worth its solo, a calling side holding a hand that calls),
and every later decision of every seat is the strategy's. ``calls_after="frozen"`` instead keeps
the seat's side at the option's level for the rest of the deal (the announcements study's way,
``probe_calls``): the options then differ by the call alone. Reports each option's win chance,
mean score and gain over no call, with 95% intervals (advice_table.py).
"""
from __future__ import annotations

import time

import numpy as np

from .advice_runs import check_run, ready, run_samples
from .advice_table import fit_note, render_options, summarize
from .advise import DEFAULT_STRATEGY
from .common import StudyError

DEFAULT_DEALS = 4000
CALLS_AFTER = ("strategy", "frozen")
LEVEL_NAMES = ("", "re", "no90", "no60", "no30", "schwarz")


def player(strategy: str):
    """The compiled strategy that answers (a ``dokosim.Agent``); StudyError for an unknown one."""
    from ..game.agents import Agent
    from ..loop.registry import StrategyError
    if not isinstance(strategy, str):
        raise StudyError(f"strategy={strategy!r:.60} is not valid: a strategy's name")
    try:
        return Agent(strategy)
    except (StrategyError, ValueError) as exc:
        raise StudyError(str(exc)) from None


def record_position(record, at: int | None = None):
    """The ``dokosim.Game`` of a game record (GAME_RECORD.md; a dict or a JSON string) after its
    first ``at`` cards and the calls made while that many cards were on the table (all of its
    cards when None); StudyError for a record that breaks a rule or an ``at`` past its cards."""
    import json

    from ..game.game import Game, GameError
    if isinstance(record, (str, bytes)):
        try:
            record = json.loads(record)
        except ValueError as exc:
            raise StudyError(f"the record is not JSON: {exc}") from None
    n_play = len(record.get("play", [])) if isinstance(record, dict) and isinstance(record.get("play"), list) else 0
    if at is not None and not 0 <= at <= n_play:
        raise StudyError(f"at={at} is not valid: the record has {n_play} cards (0 to {n_play})")
    try:
        return Game.from_record(record, upto=at)
    except GameError as exc:
        raise StudyError(f"cannot replay the record: {exc}") from None


def _option_name(action: int, side: str | None, side_level: int) -> str:
    """A call option's name: "no call", "re", "kontra", or the levels it makes ("re, no90")."""
    from ..engine.game_state import A_KONTRA, A_PASS, A_RE
    if action == A_PASS:
        return "no call"
    level = 1 if action in (A_RE, A_KONTRA) else action - A_RE
    first = "kontra" if action == A_KONTRA or side == "kontra" else "re"
    return ", ".join(first if lv == 1 else LEVEL_NAMES[lv] for lv in range(side_level + 1, level + 1))


def call_advice(game, seat: int | None = None, strategy: str = DEFAULT_STRATEGY, deals: int = DEFAULT_DEALS,
                seed: int = 0, calls_after: str = "strategy", threads: int | None = None, progress=None) -> dict:
    """The call options of ``seat`` (default: the seat to act, or to play the next card) in
    ``game`` (a ``dokosim.Game`` in its call or card phase; it is not changed), each played on
    ``deals`` sampled deals by ``strategy`` at every seat (see the module doc). Returns the JSON
    object of ``dokosim advise --record --json``: ``options.<name>`` with ``action``,
    ``win_chance``, ``win_ci95``, ``expected_score``, ``score_ci95``, ``deals`` and (but for no
    call) ``gain``, ``gain_ci95`` over no call; ``recommendation`` and its text, the position.
    ``progress(done, total)`` is called as the deals are played (a progress bar)."""
    from ..engine import game_state as gs
    from ..game.game import ACTION_NAMES, Game
    from ..loop.advice import Outcomes, Player, ask_for_calls, call_outcomes
    from ..strategies.pimc import PARAMS as PIMC_PARAMS
    from ..validation import check_int
    if not isinstance(game, Game):
        raise StudyError(f"call_advice takes a dokosim.Game, got {type(game).__name__}")
    deals, seed, threads = check_run(deals, seed, threads, progress, StudyError)
    if not isinstance(calls_after, str) or calls_after not in CALLS_AFTER:
        raise StudyError(f"calls_after={calls_after!r} is not valid; valid: {', '.join(CALLS_AFTER)}")
    if game.is_terminal():
        raise StudyError(f"the deal is over ({game.cards_played} cards played): no call is left to make (a record: "
                         "give the position with at, --at N)")
    if game.phase not in ("call", "card"):
        raise StudyError(f"no call can be made in the {game.phase} phase: a call is made between cards, once "
                         "the contract is decided")
    g = game._g.copy()
    if seat is None:
        seat = game.current_player
    seat = check_int("seat", seat, 0, 3, StudyError)
    n_played = game.cards_played
    if not ask_for_calls(g, seat):
        raise StudyError(f"seat {seat} may make no call after {n_played} cards (the calls in time are made, or "
                         "it is too late for any)")
    legal = int(g[gs.G_LEGAL])
    actions = np.array([a for a in range(gs.N_ACTIONS) if legal >> a & 1], dtype=np.int64)
    actions = np.concatenate([actions[actions == gs.A_PASS], actions[actions != gs.A_PASS]])  # no call first
    obs = game.observation(seat)
    side = obs["own_party"]
    side_level = obs["levels"][side] if side else 0
    names = [_option_name(int(a), side, side_level) for a in actions]
    agent = player(strategy)
    screen = float(PIMC_PARAMS["solo_screen"][0])
    t0 = time.time()

    kernel = ready(call_outcomes)
    fits = np.zeros(deals, dtype=np.int64)

    answerer = Player(agent._table, agent._params)
    no_passes = np.zeros(0, dtype=np.int64)

    def fill(first, scores, status):
        kernel(g, seat, actions, calls_after == "frozen", first, seed, screen, answerer,
               Outcomes(scores, status, fits[first:first + len(scores)], no_passes))

    scores, status = run_samples(fill, deals, len(actions), threads, progress)
    summary = summarize(names, scores, status, baseline=0)
    for name, a in zip(names, actions):
        summary["options"][name]["action"] = ACTION_NAMES[int(a)]
    return {"kind": "calls", "seat": seat, "cards_played": n_played, "hand": " ".join(game.hand(seat)),
            "contract": obs["contract"], "side": side, "levels": obs["levels"], "calls": obs["calls"],
            "rules": game.rules.to_dict(), "strategy": strategy, "deals": deals, "seed": seed,
            "calls_after": calls_after, "fitted": float(fits.mean()), **summary, "seconds": round(time.time() - t0, 2)}


def render(result: dict) -> str:
    """The text ``dokosim advise --record`` prints: the position, a row per option, the
    recommendation."""
    calls = ", ".join(f"seat {c['seat']} {c['call']} at card {c['cards_played']}" for c in result["calls"]) or "none"
    side = result["side"] or "party not known yet"
    later = ("every later decision the strategy's, this seat's calls included" if result["calls_after"] == "strategy"
             else "this side calls nothing more after the option")
    lines = [f"seat {result['seat']} after {result['cards_played']} cards ({result['contract']} game, {side}; "
             f"calls so far: {calls})",
             f"hand {result['hand']}",
             f"answered by {result['strategy']} at every seat, {result['deals']} sampled deals per option "
             f"(the unseen cards dealt anew; {later})",
             *render_options(result),
             *fit_note(result),
             result["recommendation_text"]]
    return "\n".join(lines)
