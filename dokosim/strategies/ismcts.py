"""``ismcts``: information-set Monte Carlo tree search over sampled deals (docs/strategies.md).

Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012), the family of the UCT Doppelkopf
players (Sievers & Helmert 2015). At a card decision with a real choice it runs ``iterations``
iterations, each:

1. *determinize*: deal the cards the seat has not seen to the other seats, consistent with what
   it has seen (sampler.py, as pimc samples: each seat's number of cards, the voids it has shown,
   the QC the parties imply), and set the sampled deal's hidden fields;
2. *select*: from the root (the seat's information set) down the tree, whose nodes are the cards
   played from here on, by every seat, keyed by card kind (the two copies of a card are one
   action); at each node only the children whose card is legal in this deal are available, each
   available child's availability count goes up by one, and the child with the largest UCB1
   score ``mean + exploration * sqrt(ln(availability) / visits)`` is played, the mean being the
   score of the seat that plays the child's card (multi-player UCT: every seat maximises its own
   score);
3. *expand*: at the first node with a legal card that has no child yet, one such card (drawn at
   random) becomes a new node;
4. *play out*: the rest of the deal by uniformly random legal cards (``rollout=0``, the default,
   as the UCT Doppelkopf players played out) or by ``heuristic`` at every seat (``rollout=1``),
   without calls, scored by the rules' ``score_deal``: each seat's score plus ``eye_weight`` per
   eye of its side's margin;
5. *back up*: every node on the path gets a visit and the reward of the seat that played its card.

It plays the root's most visited child (ties: the larger mean, then the lower card). The tree is
a few flat arrays of ``iterations + 1`` nodes (a ``Tree``), allocated once per decision; an
iteration allocates nothing. Every draw comes from the deal's random stream, so runs are
reproducible per (seed, deal_id).

Reservations, poverty acceptance and calls are pimc's searches (pimc_bids.py: each option's mean
score over ``bid_samples`` sampled deals played out by ``heuristic``), so ismcts declares a solo
when those rollouts say it pays; ``search_bids=0`` leaves them to ``heuristic``'s rules. The
poverty's pass and return are ``heuristic``'s.
"""
from collections import namedtuple

import numpy as np

from ..engine.bits import lowest_bit_index, nth_set_bit, popcount
from ..engine.jit import decision_kernel, inline_kernel, kernel
from ..engine.layout import H_RE_MASK, N_ITEMS, P_HAND_SIZE, P_NPLAYED, P_POVERTY_SEAT, P_TURN, PUBLIC_LEN, \
    RES_EYES_RE, RES_LEN, RES_SCORE, ST_LEN
from ..engine.play import legal_mask
from ..engine.position import View
from ..engine.rng import below
from ..engine.scoring import score_deal
from . import heuristic
from .cardcount import EVEN, distinct
from .common import EX_ACCEPT
from .pimc import search_call
from .pimc_bids import HPARAMS, Rollout, play_scanned, search_acceptance, search_reservation
from .sampler import deal_unseen, sampled_position, sampling_setup, set_hidden

NAME = "ismcts"
# The budget (docs/strategies.md, "ismcts"): random playouts at 1,000 iterations beat heuristic
# playouts at 200 in the same time, and exploration 4 to 16 measured alike (8 between them)
ITERATIONS = 1000.0
EXPLORATION = 8.0
PARAMS = {
    "iterations": (ITERATIONS, "ISMCTS iterations per card decision (each: one sampled deal, one path down "
                               "the tree, one node added, one playout)"),
    "exploration": (EXPLORATION, "UCB1 exploration constant, in score points"),
    "rollout": (0.0, "playout policy below the tree: 0 uniformly random legal cards, 1 heuristic at every seat"),
    "eye_weight": (0.01, "score points per eye of a seat's side's margin added to its playout score"),
    "search_bids": (1.0, "1: reservations, poverty acceptance and calls by pimc's search (heuristic rollouts "
                         "over bid_samples sampled deals); 0: heuristic's rules"),
    "bid_samples": (24.0, "sampled deals per option of a reservation, poverty acceptance or call"),
}
PARAM_RANGES = {"iterations": (1, 1_000_000, "integer"), "exploration": (0.0, 1000.0), "rollout": (0, 1, "integer"),
                "eye_weight": (0.0, 10.0), "search_bids": (0, 1, "integer"), "bid_samples": (1, 10_000, "integer")}
IS_ITERATIONS, IS_EXPLORATION, IS_ROLLOUT, IS_EYE_WEIGHT, IS_SEARCH_BIDS, IS_BID_SAMPLES = range(6)
SOLO_SCREEN = 0.05  # pimc's solo_screen: a solo heuristic's model gives less chance is not searched

# The search tree, one entry per node (node 0 the root): ``action`` the card kind's even card
# 2 * kind played into the node (-1 at the root), ``seat`` who played it, ``parent``, ``child`` (its
# newest child, -1 none) and ``sibling`` (the next older child of its parent, -1 none), ``visits``,
# ``avail`` (the iterations in which it was available) and ``value`` (the summed reward of ``seat``).
Tree = namedtuple("Tree", ("action", "seat", "parent", "child", "sibling", "visits", "avail", "value"))


@inline_kernel
def reserve(seat, hand, options, pub, rules, params, rng):
    if params[IS_SEARCH_BIDS] == 0:
        return heuristic.reserve(seat, hand, options, pub, rules, HPARAMS, rng)
    return search_reservation(seat, hand, options, pub, rules, int(params[IS_BID_SAMPLES]), SOLO_SCREEN, rng)


@inline_kernel
def exchange(seat, hand, phase, pub, rules, params, rng):
    if phase == EX_ACCEPT and params[IS_SEARCH_BIDS] != 0:
        poor = pub[P_POVERTY_SEAT]
        if 0 <= poor <= 3 and poor != seat:
            return search_acceptance(seat, hand, pub, rules, int(params[IS_BID_SAMPLES]), rng)
    return heuristic.exchange(seat, hand, phase, pub, rules, HPARAMS, rng)


@inline_kernel
def call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    if params[IS_SEARCH_BIDS] == 0:
        return heuristic.call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask,
                              rules, HPARAMS, rng)
    if pub[P_NPLAYED] & 3 or legal == 0:
        return 0  # decided between tricks, as heuristic and pimc decide
    return search_call(seat, hand, legal, View(pub, plays, play_seat, trick_winner, power, fclass, cmask), rules,
                       int(params[IS_BID_SAMPLES]), SOLO_SCREEN, rng)


@inline_kernel
def card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    cands = distinct(legal)
    if cands & (cands - 1) == 0:
        return lowest_bit_index(legal)
    return search(seat, hand, legal, View(pub, plays, play_seat, trick_winner, power, fclass, cmask), rules, params,
                  rng)


@kernel
def new_tree(size):
    """A tree of ``size`` nodes holding only the root (node 0)."""
    tree = Tree(np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64),
                np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64),
                np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.float64))
    tree.action[0] = -1
    tree.seat[0] = -1
    tree.parent[0] = -1
    tree.child[0] = -1
    tree.sibling[0] = -1
    return tree


@inline_kernel
def legal_kinds(lg):
    """The card kinds of the legal mask ``lg`` as the even card 2 * kind of each (bits of EVEN)."""
    return (lg | (lg >> 1)) & EVEN


@decision_kernel
def select_child(tree, node, kinds, c):
    """At ``node``: add one to the availability of each child whose card is in ``kinds`` (legal in
    this iteration's deal) and return (the available child with the largest UCB1 score, exploration
    ``c``, ties to the lower card; -1 if none, the kinds of ``kinds`` without a child yet)."""
    best = -1
    best_u = -np.inf
    tried = np.int64(0)
    ch = tree.child[node]
    while ch >= 0:
        a = tree.action[ch]
        if (kinds >> a) & 1:
            tried |= np.int64(1) << a
            tree.avail[ch] += 1
            n = tree.visits[ch]
            u = tree.value[ch] / n + c * np.sqrt(np.log(tree.avail[ch]) / n)
            if u > best_u or (u == best_u and a < tree.action[best]):
                best_u = u
                best = ch
        ch = tree.sibling[ch]
    return best, kinds & ~tried


@inline_kernel
def add_child(tree, node, a, seat, k):
    """Make node ``k`` the child of ``node`` for card kind ``a`` (its even card) played by ``seat``,
    available once, not yet visited; returns ``k``."""
    tree.action[k] = a
    tree.seat[k] = seat
    tree.parent[k] = node
    tree.child[k] = -1
    tree.sibling[k] = tree.child[node]
    tree.child[node] = k
    tree.visits[k] = 0
    tree.avail[k] = 1
    tree.value[k] = 0.0
    return k


@inline_kernel
def held_card(a, lg):
    """The legal card (of the legal mask ``lg``) of the kind whose even card is ``a``."""
    return a if (lg >> a) & 1 else a + 1


@decision_kernel  # allocates nothing: no reference counting
def iterate(seat, hand, tree, n_nodes, sampling, sampled, ro, rules, params, rng, scan, reward):
    """One ISMCTS iteration (the module doc's five steps) on ``tree`` holding ``n_nodes`` nodes:
    the deal sampled into ``sampled`` (the position from sampler.sampled_position), played on
    ``ro.pos`` (a ``Rollout``), each seat's reward left in ``reward``. ``scan``: (played, voids, qc)
    of the cards so far (cardcount.scan_plays), kept up to date card by card for heuristic.
    Returns the number of nodes after it."""
    deal_unseen(rng, seat, hand, sampling, sampled.cmask, sampled.hands)
    set_hidden(sampled.st, sampled.hands, scan[2], seat)
    pos = ro.pos
    st, h2, pl2, ps2, tw2, power, fclass, cmask = pos
    for i in range(ST_LEN):
        st[i] = sampled.st[i]
    for s in range(4):
        h2[s] = sampled.hands[s]
    played, voids, qc = scan
    total = 4 * st[P_HAND_SIZE]
    c = params[IS_EXPLORATION]
    node = 0
    while st[P_NPLAYED] < total:  # selection, then one expansion
        s = st[P_TURN]
        lg = legal_mask(st, h2[s], pl2, fclass, cmask)
        best, untried = select_child(tree, node, legal_kinds(lg), c)
        if untried:
            a = nth_set_bit(untried, below(rng, popcount(untried)))
            if n_nodes < tree.action.shape[0]:
                node = add_child(tree, node, a, s, n_nodes)
                n_nodes += 1
            played, voids, qc = play_scanned(pos, held_card(a, lg), lg, rules, played, voids, qc)
            break
        node = best
        played, voids, qc = play_scanned(pos, held_card(tree.action[node], lg), lg, rules, played, voids, qc)
    by_heuristic = params[IS_ROLLOUT] > 0
    view = View(st[:PUBLIC_LEN], pl2, ps2, tw2, power, fclass, cmask)
    while st[P_NPLAYED] < total:  # the playout
        s = st[P_TURN]
        lg = legal_mask(st, h2[s], pl2, fclass, cmask)
        if by_heuristic:
            d = heuristic.card_scanned(s, h2[s], lg, view, rules, HPARAMS, played, voids, qc)
        else:
            d = nth_set_bit(lg, below(rng, popcount(lg)))
        played, voids, qc = play_scanned(pos, d, lg, rules, played, voids, qc)
    res = ro.res
    score_deal(st, pl2, ps2, tw2, ro.items, res)
    margin = params[IS_EYE_WEIGHT] * (2 * res[RES_EYES_RE] - 240)
    for s in range(4):
        reward[s] = res[RES_SCORE + s] + (margin if (st[H_RE_MASK] >> s) & 1 else -margin)
    while node > 0:  # back up: each node gets the reward of the seat that played its card
        tree.visits[node] += 1
        tree.value[node] += reward[tree.seat[node]]
        node = tree.parent[node]
    tree.visits[0] += 1
    return n_nodes


@kernel
def search_tree(seat, hand, legal, view, rules, params, rng):
    """The tree of ``params[IS_ITERATIONS]`` iterations for ``seat`` (holding ``hand``, legal cards
    ``legal``) at the position ``view`` (as the seat sees it, engine/position.py): (the ``Tree``,
    its number of nodes). ``params``: ismcts's parameter vector."""
    n_iter = int(params[IS_ITERATIONS])
    tree = new_tree(n_iter + 1)
    sampling, scan = sampling_setup(seat, hand, view, rules, True)
    sampled, rollout = sampled_position(view)
    ro = Rollout(rollout, np.zeros((2, N_ITEMS), dtype=np.int64), np.zeros(RES_LEN, dtype=np.int64))
    reward = np.zeros(4, dtype=np.float64)
    n_nodes = 1
    for _ in range(n_iter):
        n_nodes = iterate(seat, hand, tree, n_nodes, sampling, sampled, ro, rules, params, rng, scan, reward)
    return tree, n_nodes


@kernel
def best_root_child(tree):
    """The root's most visited child (ties: the larger mean reward, then the lower card): its node."""
    best = -1
    ch = tree.child[0]
    while ch >= 0:
        if best < 0:
            best = ch
        else:
            n, nb = tree.visits[ch], tree.visits[best]
            mean, mean_b = tree.value[ch] / max(n, 1), tree.value[best] / max(nb, 1)
            if n > nb or (n == nb and (mean > mean_b or (mean == mean_b and tree.action[ch] < tree.action[best]))):
                best = ch
        ch = tree.sibling[ch]
    return best


@kernel
def search(seat, hand, legal, view, rules, params, rng):
    """The card ismcts plays (see the module doc; ``view``: the position as the seat sees it)."""
    tree, _ = search_tree(seat, hand, legal, view, rules, params, rng)
    best = best_root_child(tree)
    if best < 0:
        return lowest_bit_index(legal)
    return held_card(tree.action[best], legal)
