"""``dokosim advise --poverty-from`` and ``--poverty-give``: a poverty's two decisions for one hand.

* **Take it?** (``accept_advice``): the hand at ``seat`` is asked to take the poverty of the seat
  ``poor``. The cards are passed face down (RULES.md part 2), so the hand decides without seeing
  them: the other hands are dealt uniformly among the deals where the poor player may declare
  poverty (3 trumps or fewer), and its 3 cards are the ones the strategy passes, or ``offered``
  when given (then the poor hand holds them and no other trump). The seats asked before ``seat``
  refuse; ``seat`` accepts or refuses; after a refusal the later seats answer as the strategy
  does, and nobody taking it is a redeal (worth 0).
* **What to give?** (``give_advice``): the hand at ``seat`` declares poverty. It must pass all
  its trumps, filled up to 3 with plain cards; the candidates compared are the strategy's own
  choice, the plain cards with the fewest eyes, with the most eyes, from the shortest suits
  first, and any sets given, each played with the other seats answering as the strategy does.

A sampled deal must fit what the table saw: it is drawn again (up to pimc_bids.POVERTY_TRIES
times, then kept, and the share kept is reported) while the strategy would have declared a solo
at another seat (a solo outranks a poverty) or a poverty before the poor player's, or taken the
poverty at a seat asked before ``seat``. Every option is played on the same sampled deals (common
random numbers) by the strategy at every seat (loop/advice.poverty_outcomes); reports each option's win chance, mean score and gain
over the baseline (refusing; the strategy's own choice), with 95% intervals (advice_table.py).
"""
from __future__ import annotations

import re
import time
from collections import Counter

import numpy as np

from .advice_runs import check_run, ready, run_samples
from .advice_table import fit_note, render_options, summarize
from .advise import DEFAULT_STRATEGY, options as reservation_options
from .advise_calls import DEFAULT_DEALS, player
from .common import StudyError



def poverty_rules(rules):
    """``rules`` as a Rules with the poverty house rule; StudyError naming a preset that has it."""
    from ..rules import rules_from_object
    try:
        rules = rules_from_object(rules)
    except ValueError as exc:
        raise StudyError(f"rules: {exc}") from None
    if not rules.poverty:
        raise StudyError(f"these rules ({rules.to_dict()}) have no poverty: it is a house rule (--rules club, or "
                         "--rule poverty=true)")
    if rules.five_players or rules.bock:
        raise StudyError("five_players and bock belong to sessions; the poverty advice is for one deal of four")
    return rules


def parse_cards(text: str, rules, hand: int, inside: bool, count: int = 3) -> int:
    """The ``count`` cards of ``text`` (card notation) as a mask of physical cards: cards of
    ``hand`` when ``inside``, else cards outside it (the copies it does not hold); ValueError with
    a one-line reason."""
    from ..engine.cards import RANKS, SUITS, card_type
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    if len(tokens) != count:
        raise ValueError(f"give {count} cards, got {len(tokens)}: {text!r}")
    mask = 0
    for tok in tokens:
        s = tok.upper()
        s = "T" + s[2:] if s.startswith("10") else s
        if len(s) != 2 or s[0] not in RANKS or s[1] not in SUITS:
            raise ValueError(f"unknown card {tok!r}: a card is a rank A T K Q J 9 (or 10) and a suit C S H D")
        if rules.no_nines and s[0] == "9":
            raise ValueError(f"{s}: there are no nines under these rules (no_nines)")
        t = card_type(s)
        free = [c for c in (2 * t, 2 * t + 1) if bool(hand >> c & 1) == inside and not mask >> c & 1]
        if not free:
            where = "in the hand" if inside else "outside the hand (it holds the others)"
            raise ValueError(f"{s}: no more copies {where}")
        mask |= 1 << free[0]
    return mask


def _kinds(mask: int) -> tuple[int, ...]:
    """The card kinds of a mask, sorted (two masks with the same kinds are the same choice)."""
    from ..engine.cards import mask_cards
    return tuple(sorted(c >> 1 for c in mask_cards(mask)))


def candidate_passes(hand: int) -> dict[str, int]:
    """Named passes worth comparing for a poor ``hand``: all its trumps filled up to 3 with the
    plain cards of the fewest eyes, of the most eyes, and of the shortest plain suits first (a
    void to ruff with the cards returned; fewest eyes among equals). Cards are ranked by their
    eyes and suits (engine/cards.py's tables); whether a pass is legal is the engine's check."""
    from ..engine.cards import EYES, FOLLOW_CLASS, SCHEME_NORMAL, TRUMP, mask_cards
    plain = [c for c in mask_cards(hand) if FOLLOW_CLASS[SCHEME_NORMAL, c] != TRUMP]
    trumps = sum(1 << c for c in mask_cards(hand) if FOLLOW_CLASS[SCHEME_NORMAL, c] == TRUMP)
    need = 3 - bin(trumps).count("1")
    if need <= 0:
        return {"all trumps": trumps}
    length = Counter(FOLLOW_CLASS[SCHEME_NORMAL, c] for c in plain)
    orders = {"fewest eyes": lambda c: (EYES[c], length[FOLLOW_CLASS[SCHEME_NORMAL, c]], c),
              "most eyes": lambda c: (-EYES[c], length[FOLLOW_CLASS[SCHEME_NORMAL, c]], c),
              "shortest suits": lambda c: (length[FOLLOW_CLASS[SCHEME_NORMAL, c]], EYES[c], c)}
    return {name: trumps | sum(1 << c for c in sorted(plain, key=key)[:need]) for name, key in orders.items()}


def _setup(mask: int, seat: int, dealer: int, rules, strategy: str):
    from ..game.game import Game, GameError
    from ..validation import check_int
    mask = check_int("hand", mask, 0, 2**48 - 1, StudyError, "a hand as a 48-bit card mask (advise.parse_hand)")
    seat = check_int("seat", seat, 0, 3, StudyError)
    dealer = check_int("dealer", dealer, 0, 3, StudyError)
    from ..engine.cards import NINES_MASK
    if rules.no_nines and mask & int(NINES_MASK):
        raise StudyError("the hand holds a nine: there are none under these rules (no_nines)")
    if bin(mask).count("1") != rules.hand_size:
        raise StudyError(f"a hand has {rules.hand_size} cards under these rules, got {bin(mask).count('1')}")
    try:
        template = Game(rules, seed=0, dealer=dealer)._g.copy()  # the rules, the dealer, calls on
    except GameError as exc:
        raise StudyError(str(exc)) from None
    return mask, seat, dealer, template, player(strategy)


def _question(seat, mask, poor, offered, accepting, options):
    """The kernels' loop.advice.PovertyQuestion (the options as an int64 array)."""
    from ..loop.advice import PovertyQuestion
    return PovertyQuestion(seat, mask, poor, offered, accepting, np.array(options, dtype=np.int64))


def _run(template, question, deals, seed, agent, threads, progress):
    """The outcomes of ``question`` (a loop.advice.PovertyQuestion) on ``deals`` samples of ``seed``,
    ``agent`` at every seat: (scores, status, the passes chosen by the strategy, the share of the
    samples that fit what the table saw)."""
    from ..loop.advice import IMPOSSIBLE, Outcomes, Player, poverty_outcomes
    passed = np.zeros(deals, dtype=np.int64)
    fits = np.zeros(deals, dtype=np.int64)
    kernel = ready(poverty_outcomes)
    answerer = Player(agent._table, agent._params)

    def fill(first, scores, status):
        last = first + len(scores)
        kernel(template, question, first, seed, answerer,
               Outcomes(scores, status, fits[first:last], passed[first:last]))

    scores, status = run_samples(fill, deals, len(question.options), threads, progress)
    if (status == IMPOSSIBLE).any():
        raise StudyError("no deal fits: the other cards cannot make a poor hand that passes these cards (it "
                         "would need more plain cards than are left)")
    return scores, status, passed, float(fits.mean())


def accept_advice(mask: int, seat: int, poor: int, dealer: int = 3, rules="club", offered: int = 0,
                  strategy: str = DEFAULT_STRATEGY, deals: int = DEFAULT_DEALS, seed: int = 0,
                  threads: int | None = None, progress=None) -> dict:
    """Accept or refuse the poverty of seat ``poor``, for the hand ``mask`` (48-bit, as
    ``advise.parse_hand`` gives it) at ``seat`` (see the module doc; ``offered``: the 3 cards passed,
    as a mask, when known; 0: unknown). Returns the JSON object of ``dokosim advise --poverty-from
    --json``: ``options.refuse`` and ``options.accept`` with ``win_chance``, ``win_ci95``,
    ``expected_score``, ``score_ci95``, ``deals`` (``redealt`` where nobody took it), accept's
    ``gain`` over refusing with ``gain_ci95``; ``recommendation`` and its text."""
    from ..engine.cards import mask_str
    from ..validation import check_int
    rules = poverty_rules(rules)
    mask, seat, dealer, template, agent = _setup(mask, seat, dealer, rules, strategy)
    poor = check_int("poor", poor, 0, 3, StudyError)
    offered = check_int("offered", offered, 0, 2**48 - 1, StudyError, "0 or the 3 cards passed as a card mask")
    if poor == seat:
        raise StudyError(f"seat {seat} is the poor player; give_advice (--poverty-give) rates its passes")
    if offered and (bin(offered).count("1") != 3 or offered & mask):
        raise StudyError("offered: 3 cards the hand does not hold")
    deals, seed, threads = check_run(deals, seed, threads, progress, StudyError)
    t0 = time.time()
    scores, status, _, fitted = _run(template, _question(seat, mask, poor, offered, True, [0, 1]), deals, seed,
                                     agent, threads, progress)
    asked = [(poor + i) % 4 for i in range(1, 4)]
    return {"kind": "poverty_accept", "hand": mask_str(mask), "seat": seat, "poor": poor, "dealer": dealer,
            "refused_before": asked[:asked.index(seat)], "offered": mask_str(offered) if offered else None,
            "rules": rules.to_dict(), "strategy": strategy, "deals": deals, "seed": seed, "fitted": fitted,
            **summarize(["refuse", "accept"], scores, status, baseline=0), "seconds": round(time.time() - t0, 2)}


def give_advice(mask: int, seat: int = 0, dealer: int = 3, rules="club", give=(), strategy: str = DEFAULT_STRATEGY,
                deals: int = DEFAULT_DEALS, seed: int = 0, threads: int | None = None, progress=None) -> dict:
    """Which 3 cards the poor hand ``mask`` at ``seat`` should pass (see the module doc): the
    strategy's own choice, ``candidate_passes`` and the sets of ``give`` (masks of 3 cards of the
    hand), the same choice listed once. Returns the JSON object of ``dokosim advise --poverty-give
    --json``: ``options.<the cards>`` with ``chosen_by`` (the strategy, a candidate's name, given),
    ``win_chance``, ``win_ci95``, ``expected_score``, ``score_ci95``, ``deals``, ``redealt`` (nobody
    took it) and but for the strategy's own ``gain`` over it with ``gain_ci95``."""
    from ..engine.cards import mask_str
    from ..loop.advice import pass_error
    from ..validation import check_int
    rules = poverty_rules(rules)
    mask, seat, dealer, template, agent = _setup(mask, seat, dealer, rules, strategy)
    if "poverty" not in reservation_options(mask, rules):
        raise StudyError("this hand may not declare poverty: it holds more than 3 trumps (AD counts)")
    deals, seed, threads = check_run(deals, seed, threads, progress, StudyError)
    if isinstance(give, (str, bytes)) or not isinstance(give, (list, tuple)):
        raise StudyError(f"give={give!r:.60} is not valid: a list of card masks (parse_cards)")
    give = [check_int("give", cards, 0, 2**48 - 1, StudyError, "a card mask (parse_cards)") for cards in give]
    for cards in give:
        if pass_error(mask, cards):
            raise StudyError(f"{mask_str(cards)} may not be passed: a poor player passes 3 cards of its hand, all "
                             "its trumps among them")
    # the strategy's choice on the first sampled deal names its column; the run says whether it varies
    _, _, first, _ = _run(template, _question(seat, mask, seat, 0, False, [0]), 1, seed, agent, 1, None)
    own = int(first[0])
    chosen_by = {_kinds(own): [f"{strategy}'s choice"]}
    sets = {_kinds(own): 0}
    for name, cards in [*candidate_passes(mask).items(), *(("given", c) for c in give)]:
        key = _kinds(cards)
        if key not in sets:
            sets[key] = cards
            chosen_by[key] = []
        if name not in chosen_by[key]:
            chosen_by[key].append(name)
    t0 = time.time()
    scores, status, passed, fitted = _run(template, _question(seat, mask, seat, 0, False, list(sets.values())), deals,
                                          seed, agent, threads, progress)
    names = [mask_str(own if cards == 0 else cards) for cards in sets.values()]
    result = summarize(names, scores, status, baseline=0)
    for name, key in zip(names, sets):
        result["options"][name]["chosen_by"] = chosen_by[key]
    varies = len({_kinds(int(p)) for p in passed}) > 1
    return {"kind": "poverty_give", "hand": mask_str(mask), "seat": seat, "dealer": dealer, "rules": rules.to_dict(),
            "strategy": strategy, "deals": deals, "seed": seed, "fitted": fitted, "strategy_choice_varies": varies,
            **result,
            "seconds": round(time.time() - t0, 2)}


def render(result: dict) -> str:
    """The text ``dokosim advise`` prints for a poverty decision: the question, a row per option,
    the recommendation."""
    head = f"hand {result['hand']}  (seat {result['seat']}, dealer {result['dealer']}, rules {result['rules']})"
    legend = []
    if result["kind"] == "poverty_accept":
        before = ", ".join(map(str, result["refused_before"]))
        cards = (f"the cards passed: {result['offered']}" if result["offered"]
                 else "the 3 cards passed face down, as the strategy passes them")
        question = (f"seat {result['poor']} offers a poverty" + (f"; seat {before} refused it" if before else "")
                    + f"; {cards}")
    else:
        question = "this hand declares poverty: which 3 cards to pass (all its trumps, filled up with plain cards)"
        legend = [f"{n}: {', '.join(e['chosen_by'])}" for n, e in result["options"].items()]
        if result["strategy_choice_varies"]:
            legend.append(f"({result['strategy']}'s choice varies from deal to deal: the first deal's is shown)")
    lines = [head, question,
             f"answered by {result['strategy']} at every seat, {result['deals']} sampled deals per option",
             *render_options(result), *legend, *fit_note(result), result["recommendation_text"]]
    return "\n".join(lines)
