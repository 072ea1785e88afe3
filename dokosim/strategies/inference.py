"""Learned inference for the search players' sampler: how likely the cards the other seats have
played are on a sampled deal, by round 3's network (``net3``'s policy, net.py) as a model of how
a player chooses its card; and the sampled deals drawn in proportion to it.

The sampler (sampler.py) deals the unseen cards uniformly among the deals that respect what the
seat has seen (the cards each seat holds, the voids shown, the queens of clubs the parties
imply). It cannot tell a deal where an opponent threw its ace of hearts from a long heart suit
from one where the ace was its only heart. ``weighted_deals`` draws ``oversample`` times as many
deals, weights each by the likelihood of the other seats' cards so far (``play_log_likelihood``:
each card that seat chose among two or more kinds, its chance under the network's policy, a
softmax of the kind scores at ``temperature``, given the hand that deal gives that seat at that
moment), and keeps as many as the search values, drawn by weight without replacement
(``choose_by_weight``). Rebstock et al. (2019)
measured the same idea (policy-based inference) in Skat.

Where a card was chosen, its position is rebuilt from what the table knows now (``past_public``):
the cards before it and the calls made before it (their first times, P_FIRST_RE and P_FIRST_KO,
are in the state). What is approximate: a denial's level is the level now once that side has
called; the parties the table knows are, in a normal game before any call, the seats that had
shown a queen of clubs by then, and otherwise the table's knowledge now (after a call, seats
shown later count as known; a marriage's clarification counts from the start). A deal on which
a card played could not have been played (the seat could have followed the led class: the
sampler drops the voids after ten failed tries) has likelihood 0.
"""
import numpy as np

from ..engine.bits import lowest_bit_index, popcount
from ..engine.cards import C_NORMAL
from ..engine.jit import kernel
from ..engine.layout import (
    P_BAR_KO, P_BAR_RE, P_CONTRACT, P_FIRST_KO, P_FIRST_RE, P_KNOWN_KO, P_KNOWN_RE, P_LEADER, P_LEVEL_KO, P_LEVEL_RE, P_NPLAYED,
    P_TRICK, P_TURN, PUBLIC_LEN,
)
from ..engine.position import View
from ..engine.rng import uniform
from ..engine.stack import stack_zeros
from .cardcount import QC_MASK, distinct
from .net import cards_allowed, policy_logits
from .net_features import N_FEATURES, N_KINDS, card_features


@kernel
def past_public(pub, i, plays, play_seat, out):
    """The public state ``pub`` as it was when the ``i``-th card (0-based) was about to be played,
    into ``out`` (PUBLIC_LEN): the cards before it, the turn, the trick and its leader; a side's
    call (level, first time, bar) undone when that side first called after card ``i`` was played;
    in a normal game before any call, the known parties from the queens of clubs shown before card
    ``i``. See the module doc for what is approximate."""
    for k in range(PUBLIC_LEN):
        out[k] = pub[k]
    out[P_NPLAYED] = i
    out[P_TRICK] = i >> 2
    out[P_LEADER] = play_seat[i & ~3]
    out[P_TURN] = play_seat[i]
    re_called = 0 <= pub[P_FIRST_RE] <= i
    ko_called = 0 <= pub[P_FIRST_KO] <= i
    if not re_called:
        out[P_LEVEL_RE] = 0
        out[P_FIRST_RE] = -1
        out[P_BAR_RE] = 0
    if not ko_called:
        out[P_LEVEL_KO] = 0
        out[P_FIRST_KO] = -1
        out[P_BAR_KO] = 0
    if pub[P_CONTRACT] == C_NORMAL and not re_called and not ko_called:
        re = np.int64(0)
        shown = 0
        for j in range(i):
            if (QC_MASK >> plays[j]) & 1:
                if not (re >> play_seat[j]) & 1:
                    shown += 1
                re |= np.int64(1) << play_seat[j]
        out[P_KNOWN_RE] = re
        out[P_KNOWN_KO] = (np.int64(15) & ~re) if shown == 2 else np.int64(0)


@kernel
def play_log_likelihood(seat, hands, view, rules, temperature, scratch_pub):
    """The log-likelihood of the cards played so far by the seats other than ``seat`` on the deal
    whose hands are now ``hands`` (four 48-bit masks), at the position ``view``: over each card
    such a seat chose among two or more legal kinds, the log of its kind's chance under round 3's
    policy (softmax of the kind scores divided by ``temperature``, > 0), given the hand that seat
    held then (its hand now and the cards it played from then on); -inf when a card played was
    not legal with that hand. ``scratch_pub``: PUBLIC_LEN int64."""
    pub, plays, play_seat = view.pub, view.plays, view.play_seat
    held = stack_zeros(4, np.int64)
    x = stack_zeros(N_FEATURES, np.float32)
    logits = stack_zeros(N_KINDS, np.float32)
    for s in range(4):
        held[s] = hands[s]
    total = 0.0
    for i in range(pub[P_NPLAYED] - 1, -1, -1):
        s = play_seat[i]
        held[s] |= np.int64(1) << plays[i]
        if s == seat:
            continue
        past_public(pub, i, plays, play_seat, scratch_pub)
        then = View(scratch_pub, plays, play_seat, view.trick_winner, view.power, view.fclass, view.cmask)
        legal = cards_allowed(held[s], then)
        if not (legal >> plays[i]) & 1:
            return -np.inf  # the seat would have had to follow: this deal cannot have happened
        kinds = distinct(legal)
        if popcount(kinds) < 2:
            continue
        card_features(s, held[s], legal, then, rules, x)
        policy_logits(x, logits, True)
        top = -1e300
        m = kinds
        while m:
            c = lowest_bit_index(m)
            m &= m - 1
            top = max(top, logits[c >> 1] / temperature)
        norm = 0.0
        m = kinds
        while m:
            c = lowest_bit_index(m)
            m &= m - 1
            norm += np.exp(logits[c >> 1] / temperature - top)
        total += logits[plays[i] >> 1] / temperature - top - np.log(norm)
    return total


@kernel
def choose_by_weight(log_weights, count, rng, out):
    """``count`` distinct indices into ``log_weights`` (unnormalised log weights), drawn one after
    another without replacement, each in proportion to its weight among those left, into ``out``
    (the Gumbel top-k trick: the ``count`` largest of log weight plus a Gumbel draw). A deal of
    weight 0 (log -inf) is taken only when fewer than ``count`` others are left. Without
    replacement, so that the search never spends its rollouts on one deal twice."""
    n = log_weights.shape[0]
    keys = np.empty(n, dtype=np.float64)
    for j in range(n):
        u = uniform(rng)
        while u <= 0.0:
            u = uniform(rng)
        gumbel = -np.log(-np.log(u))
        # a deal of weight 0 sorts after every other (its key ties with the others of weight 0:
        # they come in the order drawn, which is random already)
        keys[j] = log_weights[j] + gumbel if log_weights[j] > -np.inf else -1e300
    order = np.argsort(-keys)
    for k in range(count):
        out[k] = order[k]
