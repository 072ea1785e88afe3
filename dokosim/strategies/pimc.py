"""``pimc``: perfect-information Monte Carlo search over the double-dummy solver and the heuristic
player (docs/strategies.md).

At each card decision with a real choice it deals the unseen cards to the
other seats at random, consistent with what the seat has seen (each seat's
number of cards, the voids it has shown, the QC the parties imply: a seat
known to be Re holds one, a seat known to be Kontra none, the marriage player
both), values each distinct legal card on each such deal, and plays the card
with the best average (its own score plus ``eye_weight`` per eye of its side's
margin). A card's value on a deal: while the seat holds at most
``solve_tricks`` cards, the double-dummy solver's (solver/eyes.py: Re's final
eyes after the card under best play with all hands open, scored by
``eyes_value``); earlier, or when the solve runs past ``node_limit`` nodes, a
rollout: the rest of the deal played by ``heuristic`` at every seat and scored.
Every deal is used for every candidate card (common random numbers). The deals
(sampler.py) come from the deal's random stream, so runs stay reproducible. Reservations,
poverty acceptance and calls are searched too (pimc_bids.py: each option's mean score over
``bid_samples`` sampled deals played out by ``heuristic``; ``search_calls=0`` leaves the calls to
``heuristic``); ``search_bids=0`` leaves all of them to ``heuristic``'s rules, the pimc of before. With ``infer`` the card search's deals are drawn by
learned inference (inference.py: more deals drawn, weighted by how likely round 3's network finds
the other seats' cards so far on each, kept by weight). ``solve_tricks=0`` (the default) is the
rollouts-only pimc of before; ``solve_tricks=4`` gives the solver the last four
tricks.
"""
from collections import namedtuple

import numpy as np

from ..engine.cards import CONTRACT_IS_SOLO
from ..engine.bits import lowest_bit_index, popcount
from ..engine.jit import decision_kernel, inline_kernel, kernel
from ..engine.layout import (
    H_CONTRACT, H_RE_MASK, H_SOLOIST, I_CHARLIE, I_DOPPELKOPF, I_FOX, N_ITEMS, P_HAND_SIZE, P_LEVEL_KO,
    P_LEVEL_RE, P_NPLAYED, P_POVERTY_SEAT, P_TURN, PUBLIC_LEN, RES_EYES_RE, RES_LEN, RES_SCORE,
    ST_LEN,
)
from ..engine.play import legal_mask, play_card
from ..engine.position import View
from ..engine.scoring import score_deal, settle
from ..solver.eyes import W_ABORTED, W_LEN, W_LIMIT, W_NODES, load_position, solve_card_values, solve_eyes
from . import heuristic
from .cardcount import distinct, scan_card
from .inference import choose_by_weight, play_log_likelihood
from .common import EX_ACCEPT
from .net import net_card
from .pimc_bids import (
    CALL_MARGIN_SE, HPARAMS, Rollout, call_values, play_scanned, search_acceptance, search_reservation,
)
from .sampler import deal_unseen, sampled_position, sampling_setup, set_hidden

NAME = "pimc"
SOLVE_TRICKS = 0.0  # the solver's endgame is opt-in until the studies are re-run with it (docs/strategies.md)
NODE_LIMIT = 100_000.0
ROLLOUT_SOLVE = 0.0
EXTRAS = 0.0
TABLE_BITS = 14.0
PARAMS = {
    "samples": (20.0, "deals sampled per card decision"),
    "eye_weight": (0.01, "score points per eye of the side's margin added to a rollout's score"),
    "min_cards": (2.0, "search only while the seat holds at least this many cards"),
    "solve_tricks": (SOLVE_TRICKS, "value the cards by the double-dummy solver while the seat holds at most "
                                   "this many cards (0: rollouts only, the pimc of before)"),
    "node_limit": (NODE_LIMIT, "nodes a solve may search; a sampled deal whose solve runs past it is "
                               "valued by rollouts (0: no limit)"),
    "rollout_solve": (ROLLOUT_SOLVE, "a rollout hands over to the solver when this many tricks are left "
                                     "(0: rollouts play to the end)"),
    "extras": (EXTRAS, "1: a card the solver values also gets the extra points (fox, doppelkopf, Charlie) "
                       "of a rollout after it; 0: the solver's eyes alone"),
    "table_bits": (TABLE_BITS, "the solver's transposition table holds 2**table_bits entries (16 bytes "
                               "each, allocated per decision)"),
    "search_bids": (1.0, "1: reservations, poverty acceptance and calls by search (each option's mean score "
                         "over bid_samples sampled deals played out by heuristic); 0: heuristic's rules "
                         "(the pimc of before)"),
    "bid_samples": (24.0, "sampled deals per option of a reservation, poverty acceptance or call"),
    "solo_screen": (0.05, "a solo is searched only when heuristic's model gives it at least this chance "
                          "to win (0: every solo the rules allow)"),
    "search_calls": (1.0, "1: calls by search too (with search_bids; samples fitted to the bids and calls "
                          "made, a call only when it gains by two standard errors); 0: heuristic's calls"),
    "accept_trumps": (-1.0, "-1: poverty acceptance as search_bids says; else accept from this strength "
                            "(heuristic's rule and quantity; 0: every poverty, as the poverty study needs)"),
    "rollout_net": (0.0, "1: the card search's rollouts are played by net instead of heuristic (stronger, "
                         "slower); the bids' rollouts stay heuristic's"),
    "infer": (0.0, "learned inference (inference.py): draw this many times samples deals, weight each by how "
                   "likely round 3's network finds the other seats' cards so far on it, and search samples of "
                   "them, drawn by weight without replacement (0: off, every deal alike)"),
    "infer_temperature": (1.0, "the inference's softmax temperature on the network's kind scores (higher: "
                               "flatter weights)"),
}
PARAM_RANGES = {"samples": (1, 10_000, "integer"), "eye_weight": (0.0, 10.0), "min_cards": (0.0, 13.0),
                "solve_tricks": (0, 12, "integer"), "node_limit": (0, 1e12, "integer"),
                "rollout_solve": (0, 12, "integer"), "extras": (0, 1, "integer"), "table_bits": (4, 26, "integer"),
                "search_bids": (0, 1, "integer"), "bid_samples": (1, 10_000, "integer"), "solo_screen": (0.0, 1.0),
                "accept_trumps": (-1.0, 15.0), "search_calls": (0, 1, "integer"),
                "rollout_net": (0, 1, "integer"), "infer": (0, 64, "integer"),
                "infer_temperature": (0.05, 100.0)}
(PI_SAMPLES, PI_EYE_WEIGHT, PI_MIN_CARDS, PI_SOLVE_TRICKS, PI_NODE_LIMIT, PI_ROLLOUT_SOLVE, PI_EXTRAS, PI_TABLE_BITS,
 PI_SEARCH_BIDS, PI_BID_SAMPLES, PI_SOLO_SCREEN, PI_SEARCH_CALLS, PI_ACCEPT_TRUMPS, PI_ROLLOUT_NET, PI_INFER,
 PI_INFER_TEMPERATURE) = range(16)

# A card search's scratch, allocated once per decision (search_sums): the ``Rollout`` the sampled
# deals are played on (pimc_bids.py), the solver's workspace and table (one word each when the
# search does not solve) and the card values a solve gives.
Scratch = namedtuple("Scratch", ("ro", "ws", "tt", "values"))


@inline_kernel
def reserve(seat, hand, options, pub, rules, params, rng):
    if params[PI_SEARCH_BIDS] == 0:
        return heuristic.reserve(seat, hand, options, pub, rules, HPARAMS, rng)
    return search_reservation(seat, hand, options, pub, rules, int(params[PI_BID_SAMPLES]),
                              params[PI_SOLO_SCREEN], rng)


@inline_kernel
def exchange(seat, hand, phase, pub, rules, params, rng):
    if phase == EX_ACCEPT:
        if params[PI_ACCEPT_TRUMPS] >= 0:
            return 1 if heuristic.poverty_strength(hand) >= params[PI_ACCEPT_TRUMPS] else 0
        poor = pub[P_POVERTY_SEAT]
        if params[PI_SEARCH_BIDS] != 0 and 0 <= poor <= 3 and poor != seat:
            return search_acceptance(seat, hand, pub, rules, int(params[PI_BID_SAMPLES]), rng)
    return heuristic.exchange(seat, hand, phase, pub, rules, HPARAMS, rng)


@inline_kernel
def call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    if params[PI_SEARCH_BIDS] == 0 or params[PI_SEARCH_CALLS] == 0:
        return heuristic.call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask,
                              rules, HPARAMS, rng)
    if pub[P_NPLAYED] & 3 or legal == 0:
        return 0  # decided between tricks, as heuristic decides
    return search_call(seat, hand, legal, View(pub, plays, play_seat, trick_winner, power, fclass, cmask), rules,
                       int(params[PI_BID_SAMPLES]), params[PI_SOLO_SCREEN], rng)


@kernel
def search_call(seat, hand, legal, view, rules, n_samples, screen, rng):
    """The lowest legal level when calling it now gains on the mean rollout score, by at least
    CALL_MARGIN_SE standard errors of that gain (pimc_bids.call_values), else 0."""
    level = lowest_bit_index(legal)
    sums = np.zeros(3, dtype=np.float64)
    call_values(seat, hand, level, view, rules, n_samples, screen, rng, sums)
    return level if worth_calling(sums, n_samples) else 0


@kernel
def worth_calling(sums, n_samples):
    """Whether a call gains: ``sums`` as call_values leaves them (no call, call, squared
    differences over ``n_samples`` deals); the mean gain must be positive and at least
    CALL_MARGIN_SE standard errors of the mean."""
    gain = (sums[1] - sums[0]) / n_samples
    spread = max(sums[2] / n_samples - gain * gain, 0.0)
    return gain > 0.0 and gain >= CALL_MARGIN_SE * np.sqrt(spread / n_samples)


@inline_kernel
def card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    cands = distinct(legal)
    if cands & (cands - 1) == 0:
        return lowest_bit_index(legal)
    if popcount(hand) < params[PI_MIN_CARDS]:
        return heuristic.card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask,
                              rules, HPARAMS, rng)
    return search(seat, hand, legal, View(pub, plays, play_seat, trick_winner, power, fclass, cmask), rules, params,
                  rng)


@kernel
def eyes_value(st, seat, eyes_re, ew, items):
    """What a deal that ends with Re holding ``eyes_re`` eyes is worth to ``seat`` (the parties and
    calls of ``st``): its score without extra points (``scoring.settle``; schwarz only at 0 or 240
    eyes, as the eyes cannot tell the tricks) plus ``ew`` per eye of its side's margin. Strictly
    monotone in ``eyes_re`` (rising for Re, falling for Kontra), so the double-dummy best play for
    eyes is best play for this value too."""
    for i in range(N_ITEMS):
        items[0, i] = 0
        items[1, i] = 0
    n = st[P_HAND_SIZE]
    tricks_re = n if eyes_re == 240 else (0 if eyes_re == 0 else 1)
    w, value, re_value = settle(items, eyes_re, tricks_re, n, st[P_LEVEL_RE], st[P_LEVEL_KO],
                                CONTRACT_IS_SOLO[st[H_CONTRACT]] == 1)
    margin = 2 * eyes_re - 240
    if (st[H_RE_MASK] >> seat) & 1:
        score = 3 * re_value if st[H_SOLOIST] == seat else re_value
    else:
        score = -re_value
        margin = -margin
    return score + ew * margin


@inline_kernel
def extra_points(st, seat, items):
    """The extra points (fox, doppelkopf, Charlie) of ``seat``'s side less the other side's, from a
    scored deal's ``items`` (row 0 Re; parties of ``st``)."""
    mine = 0 if (st[H_RE_MASK] >> seat) & 1 else 1
    return (items[mine, I_FOX] + items[mine, I_DOPPELKOPF] + items[mine, I_CHARLIE]
            - items[1 - mine, I_FOX] - items[1 - mine, I_DOPPELKOPF] - items[1 - mine, I_CHARLIE])


@decision_kernel  # allocates nothing: no reference counting (the named tuples' arrays cost a count each)
def play_out(seat, c, sampled, rules, params, handover, sc, rng, scan):
    """The value for ``seat`` of card ``c`` on one deal (the position ``sampled``) by a rollout on
    ``sc.ro`` (a ``Scratch``): the rest of the deal played by ``heuristic`` at every seat and
    scored (its score plus ``params[PI_EYE_WEIGHT]`` per eye of its side's margin). At the first
    trick boundary from ``handover`` cards played on (``4 * hand_size``: never), the solver's eyes
    from there instead, scored by ``eyes_value`` (the rollout plays on if the solve runs past
    ``params[PI_NODE_LIMIT]`` nodes); with ``params[PI_EXTRAS]``, such a value gets the extra points
    of the rollout played on to the end. On return ``sc.ro`` holds the rollout's last position and
    scored items (when it played to the end). ``scan``: (played, voids, qc), cardcount.scan_plays
    of the cards before ``c``; the rollout keeps it up to date card by card (cardcount.scan_card)
    for heuristic.card_scanned instead of rescanning every card at every decision. With
    ``params[PI_ROLLOUT_NET]`` the rollout's cards are ``net``'s where it has a choice
    (net.net_card), not heuristic's."""
    pos = sc.ro.pos
    st, h2, pl2, ps2, tw2, power, fclass, cmask = pos
    items = sc.ro.items
    ws, tt = sc.ws, sc.tt
    ew = params[PI_EYE_WEIGHT]
    node_limit = int(params[PI_NODE_LIMIT])
    by_net = params[PI_ROLLOUT_NET] > 0
    played, voids, qc = scan
    base = sampled.st
    total = 4 * base[P_HAND_SIZE]
    for i in range(ST_LEN):
        st[i] = base[i]
    for s in range(4):
        h2[s] = sampled.hands[s]
    k = st[P_NPLAYED]
    play_card(pos, c, rules)
    played, voids, qc = scan_card(pl2[k], ps2[k], fclass[pl2[k]], fclass[pl2[k & ~3]], played, voids, qc)
    view = View(st[:PUBLIC_LEN], pl2, ps2, tw2, power, fclass, cmask)
    solved = False
    dd = 0.0
    while st[P_NPLAYED] < total:
        if st[P_NPLAYED] >= handover and (st[P_NPLAYED] & 3) == 0:
            handover = total  # one try: past the node limit the rollout plays on
            load_position(ws, pos, rules)
            ws[W_LIMIT] = ws[W_NODES] + node_limit if node_limit > 0 else 0
            eyes = solve_eyes(ws, tt)
            if ws[W_ABORTED] == 0:
                dd = eyes_value(st, seat, eyes, ew, items)
                if not params[PI_EXTRAS] > 0:
                    return dd
                solved = True
        s = st[P_TURN]
        lg = legal_mask(st, h2[s], pl2, fclass, cmask)
        cands = distinct(lg)
        if by_net and cands & (cands - 1):
            d = net_card(s, h2[s], lg, view, rules)
        else:
            d = heuristic.card_scanned(s, h2[s], lg, view, rules, HPARAMS, played, voids, qc)
        played, voids, qc = play_scanned(pos, d, lg, rules, played, voids, qc)
    res = sc.ro.res
    score_deal(st, pl2, ps2, tw2, items, res)
    if solved:
        return dd + extra_points(st, seat, items)
    re = (st[H_RE_MASK] >> seat) & 1
    margin = 2 * res[RES_EYES_RE] - 240
    if re == 0:
        margin = -margin
    return res[RES_SCORE + seat] + ew * margin


@decision_kernel
def value_sample(seat, cands, sampled, rules, params, sc, rng, sums, scan):
    """Add to ``sums[c]`` the value for ``seat`` of each candidate card c of ``cands`` on one deal:
    the position ``sampled`` (public part, hidden fields, every hand). While the seat holds at
    most ``params[PI_SOLVE_TRICKS]`` cards, the double-dummy solver's values (``solve_card_values``
    with the workspace ``sc.ws`` and table ``sc.tt``, scored by ``eyes_value``; with
    ``params[PI_EXTRAS]``, plus the extra points of a rollout after the card), unless the solve
    runs past ``params[PI_NODE_LIMIT]`` nodes (0: no limit); else a rollout per card
    (``play_out``; with ``params[PI_ROLLOUT_SOLVE]`` > 0 handing over to the solver once that many
    tricks are left). ``sc``: the search's ``Scratch``; ``scan``: (played, voids, qc),
    cardcount.scan_plays of the cards so far. Returns True when the solver gave the values."""
    base = sampled.st
    ws, tt, values, items = sc.ws, sc.tt, sc.values, sc.ro.items
    ew = params[PI_EYE_WEIGHT]
    node_limit = int(params[PI_NODE_LIMIT])
    rollout_solve = int(params[PI_ROLLOUT_SOLVE])
    total = 4 * base[P_HAND_SIZE]
    if popcount(sampled.hands[seat]) <= int(params[PI_SOLVE_TRICKS]):
        load_position(ws, sampled, rules)
        ws[W_LIMIT] = ws[W_NODES] + node_limit if node_limit > 0 else 0
        solve_card_values(ws, tt, values)
        if ws[W_ABORTED] == 0:
            m = cands
            while m:
                c = lowest_bit_index(m)
                m &= m - 1
                v = eyes_value(base, seat, values[c], ew, items)
                if params[PI_EXTRAS] > 0:
                    play_out(seat, c, sampled, rules, params, total, sc, rng, scan)
                    v += extra_points(sc.ro.pos.st, seat, items)
                sums[c] += v
            return True
    handover = total - 4 * rollout_solve if rollout_solve > 0 else total
    m = cands
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        sums[c] += play_out(seat, c, sampled, rules, params, handover, sc, rng, scan)
    return False


@kernel
def search(seat, hand, legal, view, rules, params, rng):
    """The card with the best average over ``params[PI_SAMPLES]`` sampled deals (see the module doc;
    ``view``: the position as the seat sees it, engine/position.py)."""
    sums = np.zeros(48, dtype=np.float64)
    search_sums(seat, hand, legal, view, rules, params, rng, sums)
    return best_candidate(sums, distinct(legal))


@kernel
def best_candidate(sums, cands):
    """The card of ``cands`` with the highest ``sums`` (the lowest card on a tie)."""
    best = -1
    best_v = -1e300
    m = cands
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        if sums[c] > best_v:
            best_v = sums[c]
            best = c
    return best


@kernel
def search_sums(seat, hand, legal, view, rules, params, rng, sums):
    """Add to ``sums[c]`` the value of each candidate card ``c`` (one card of each legal kind,
    ``distinct(legal)``) summed over ``params[PI_SAMPLES]`` sampled deals: the search's verdict on
    every card, which ``search`` takes the best of (and ``dokosim train data`` records, divided by
    the samples). ``params``: pimc's parameter vector."""
    cands = distinct(legal)
    sampling, scan = sampling_setup(seat, hand, view, rules, True)
    sampled, rollout = sampled_position(view)
    # the solver's scratch, for this decision only (so that no state outlives it)
    table_bits = int(params[PI_TABLE_BITS])
    scratch = popcount(hand) <= int(params[PI_SOLVE_TRICKS]) or int(params[PI_ROLLOUT_SOLVE]) > 0
    sc = Scratch(Rollout(rollout, np.zeros((2, N_ITEMS), dtype=np.int64), np.zeros(RES_LEN, dtype=np.int64)),
                 np.zeros(W_LEN if scratch else 1, dtype=np.int64),
                 np.zeros((2 << table_bits) if scratch else 2, dtype=np.int64), np.zeros(48, dtype=np.int64))
    n_samples = int(params[PI_SAMPLES])
    if params[PI_INFER] > 0 and view.pub[P_NPLAYED] > 0:
        deals = weighted_deals(seat, hand, view, rules, sampling, n_samples, int(params[PI_INFER]),
                               params[PI_INFER_TEMPERATURE], rng)
        for k in range(n_samples):
            for s in range(4):
                sampled.hands[s] = deals[k, s]
            set_hidden(sampled.st, sampled.hands, scan[2], seat)
            value_sample(seat, cands, sampled, rules, params, sc, rng, sums, scan)
        return
    for _ in range(n_samples):
        deal_unseen(rng, seat, hand, sampling, view.cmask, sampled.hands)
        set_hidden(sampled.st, sampled.hands, scan[2], seat)
        value_sample(seat, cands, sampled, rules, params, sc, rng, sums, scan)


@kernel
def weighted_deals(seat, hand, view, rules, sampling, n_samples, oversample, temperature, rng):
    """``n_samples`` deals (rows of four hands) for ``seat`` at the position ``view``, drawn by
    learned inference: ``oversample * n_samples`` deals from the sampler, each weighted by the
    likelihood of the other seats' cards so far (inference.play_log_likelihood at
    ``temperature``), ``n_samples`` of them drawn by weight without replacement
    (inference.choose_by_weight)."""
    n_drawn = oversample * n_samples
    drawn = np.zeros((n_drawn, 4), dtype=np.int64)
    log_weights = np.zeros(n_drawn, dtype=np.float64)
    scratch_pub = np.zeros(PUBLIC_LEN, dtype=np.int64)
    for j in range(n_drawn):
        deal_unseen(rng, seat, hand, sampling, view.cmask, drawn[j])
        log_weights[j] = play_log_likelihood(seat, drawn[j], view, rules, temperature, scratch_pub)
    picks = np.zeros(n_samples, dtype=np.int64)
    choose_by_weight(log_weights, n_samples, rng, picks)
    deals = np.zeros((n_samples, 4), dtype=np.int64)
    for k in range(n_samples):
        for s in range(4):
            deals[k, s] = drawn[picks[k], s]
    return deals
