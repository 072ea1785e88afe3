"""``net``: cards by a small neural network learned from a search player's decisions.

The network (``net_weights.npz`` beside this file, package data; trained by ``dokosim train fit``
on ``dokosim train data``, docs/strategies.md) reads the decision's features
(net_features.py) and scores the 24 card kinds; ``net`` plays the legal kind with the highest
score. Its forward pass runs here, in numba, with the weights compiled in as constants (the
kernel cache's stamp covers the .npz, engine/jit.py), so ``net`` runs wherever a built-in does:
simulate, tournaments, sessions, studies, the Game API, ``dokosim play`` and Dask.

Re and Kontra are decided by the network's value head (``calls=1``, the default): at a call
opportunity just before its own card (the position the network learned from; every deadline is
counted in the seat's own cards, so none is missed) ``net`` reads its features as for that card
and says Re or Kontra when the value head expects at least ``call_value`` points for the seat;
at the opportunities between other seats' cards it passes. The denials (no 90, no 60) are
``heuristic``'s (its model of reaching 151 eyes): the value head, trained on the score, prices
a denial's risk of missing the 151 poorly (every threshold measured cost 0.4 points per deal
or more, docs/strategies.md). ``calls=0`` uses ``heuristic``'s calls throughout.

Solos are checked by the value head (``reservations=1``, the default): when ``heuristic``'s
rules would declare a solo, ``net`` reads the features of its first card as if that solo, and
then the normal game, were played and it led (engine/play.setup_deal on its own hand), and keeps
the solo only if the value head rates it at least ``solo_margin`` points above the normal
game; otherwise it takes ``heuristic``'s choice among the other reservations. (A compulsory solo
the seat must play now, in a session, is played all the same: where ``net`` says healthy, the
engine plays the allowed kind with the most trumps.) The value head does not choose solos
itself: its training data holds only the solos a teacher chose to play, and it rates weak
hands' solos far too high (docs/strategies.md).
Marriage, poverty and throw-in (house rules) are ``heuristic``'s rules with its defaults, as is
every reservation with ``reservations=0``: the DDV training data holds no poverty game. The
poverty acceptance's threshold is net's own parameter ``accept_trumps`` (heuristic's default,
10.5; measured in docs/strategies.md). With ``poverty_search`` the acceptance and the reservation
of a hand that may declare poverty are pimc's search instead (pimc_bids.py; rare decisions, so
the search costs little speed).

Network: ``h1 = relu(x W1 + b1)``, ``h2 = relu(h1 W2 + b2)``, ``logits = h2 Wp + bp``,
``value = h2 wv + bv`` (the seat's expected score in points under the teacher's play), float32;
the first layer skips the input's zeros (most of the features are).
"""
from pathlib import Path

import numpy as np

from ..engine.bits import lowest_bit_index
from ..engine.cards import C_NORMAL, C_SOLO_BASE
from ..engine.layout import P_DEALER, P_NPLAYED, P_POVERTY_SEAT, P_TURN, PUBLIC_LEN, RES_POVERTY
from ..engine.play import setup_deal
from ..engine.position import View, stack_position
from ..engine.jit import inline_kernel, kernel
from ..engine.stack import stack_zeros
from ..validation import SimulationError
from . import heuristic
from .cardcount import distinct
from .common import EX_ACCEPT
from .net_features import N_FEATURES, N_KINDS, card_features
from .pimc_bids import HPARAMS, search_acceptance, search_reservation

NAME = "net"
PARAMS = {
    "calls": (1.0, "1: Re and Kontra by the value head (call_value); 0: heuristic's"),
    "call_value": (1.0, "points the value head must expect to say Re or Kontra"),
    "reservations": (1.0, "1: heuristic's solos kept only if the value head agrees (solo_margin); 0: heuristic's"),
    "solo_margin": (0.0, "points the value head must rate a solo above the normal game"),
    "accept_trumps": (10.5, "poverty (house rule): trumps (TH and QC count 1.5) needed to accept, "
                            "heuristic's rule and its default"),
    "round": (2.0, "the round of the weights: 2 (net_weights.npz, net's) or 3 (net_weights_round3.npz, "
                   "net3's: issue 44's round, docs/strategies.md)"),
    "poverty_search": (0.0, "poverty (house rule): 0: heuristic's rules (accept by accept_trumps); else as pimc "
                            "decides, by search over this many sampled deals per option played out by heuristic: "
                            "whether to accept, and the reservation of a hand that may declare poverty"),
}
PARAM_RANGES = {"calls": (0.0, 1.0), "call_value": (-30.0, 30.0), "reservations": (0.0, 1.0),
                "solo_margin": (-30.0, 60.0), "accept_trumps": (0.0, 15.0), "round": (2.0, 3.0, "integer"),
                "poverty_search": (0, 10_000, "integer")}
NP_CALLS, NP_CALL_VALUE, NP_RESERVATIONS, NP_SOLO_MARGIN, NP_ACCEPT_TRUMPS, NP_ROUND, NP_POVERTY_SEARCH = range(7)
N_HPARAMS = 16  # HPARAMS' length (pimc_bids), a literal for the stack copy in exchange
assert HPARAMS.shape[0] == N_HPARAMS
SOLO_SCREEN = 0.05  # pimc's solo_screen default: the solos poverty_search compares
SOLO_OPTIONS = np.int64(0xFE)  # reservation options 1..7: the seven solo kinds (RES_HEALTHY + 1 + kind)

WEIGHTS_FILE = Path(__file__).with_name("net_weights.npz")
ROUND3_WEIGHTS_FILE = Path(__file__).with_name("net_weights_round3.npz")
"""Round 3's weights (``round=3``; the built-in ``net3`` is ``net`` with them), beside round 2's
(``net_weights.npz``, ``net``'s), so both rounds run everywhere and can be measured head to head
(``dokosim tournament net3 net``)."""


WEIGHT_SHAPES = {"w1": (N_FEATURES, None), "b1": (None,), "w2": (None, None), "b2": (None,),
                 "wp": (None, N_KINDS), "bp": (N_KINDS,), "wv": (None, 1), "bv": (1,)}
# None: the hidden width, the same everywhere


def _load(path):
    """The policy's weights from the ``.npz`` file ``path`` as C-contiguous float32 arrays;
    SimulationError in one line naming the file and what is wrong (a file that is not a weights
    archive, a missing array, a shape that does not fit the features or the others, a value that
    is not finite), so that a replaced file stops ``net`` and ``pimc`` with a message."""
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise SimulationError(f"net's weights {path}: cannot be read ({exc})") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise SimulationError(f"net's weights {path}: a single array, not a .npz archive of weights")
    with data:
        missing = [k for k in WEIGHT_SHAPES if k not in data.files]
        if missing:
            raise SimulationError(f"net's weights {path}: {', '.join(missing)} missing; a weights file holds "
                                  f"{', '.join(WEIGHT_SHAPES)} (dokosim train fit writes them)")
        arrays = {k: np.ascontiguousarray(data[k], dtype=np.float32) for k in WEIGHT_SHAPES}
    hidden = arrays["b1"].shape[0] if arrays["b1"].ndim == 1 else -1
    for key, shape in WEIGHT_SHAPES.items():
        want = tuple(hidden if n is None else n for n in shape)
        if arrays[key].shape != want:
            raise SimulationError(f"net's weights {path}: {key} has shape {arrays[key].shape}, expected {want} "
                                  f"({N_FEATURES} features, {N_KINDS} card kinds)")
        if not np.isfinite(arrays[key]).all():
            raise SimulationError(f"net's weights {path}: {key} holds a value that is not finite")
    return arrays


_WEIGHTS = _load(WEIGHTS_FILE)
W1, B1, W2, B2, WP, BP = (_WEIGHTS[k] for k in ("w1", "b1", "w2", "b2", "wp", "bp"))
WV = np.ascontiguousarray(_WEIGHTS["wv"][:, 0])
BV = np.ascontiguousarray(_WEIGHTS["bv"])
_ROUND3 = _load(ROUND3_WEIGHTS_FILE)
W1_R3, B1_R3, W2_R3, B2_R3, WP_R3, BP_R3 = (_ROUND3[k] for k in ("w1", "b1", "w2", "b2", "wp", "bp"))
WV_R3 = np.ascontiguousarray(_ROUND3["wv"][:, 0])
BV_R3 = np.ascontiguousarray(_ROUND3["bv"])
HIDDEN = W1.shape[1]
MAX_HIDDEN = max(HIDDEN, W1_R3.shape[1])
"""The scratch size of a hidden layer: the wider of the two networks."""


@inline_kernel
def add_relu_layer(a, w, out):
    """``out += relu(a) @ w`` (float32): a dense layer on the previous layer's pre-activations
    ``a``, skipping the units the ReLU switches off."""
    for i in range(w.shape[0]):
        ai = a[i]
        if ai > 0.0:
            for j in range(w.shape[1]):
                out[j] += ai * w[i, j]


@kernel
def hidden_layers(x, h2, w1, b1, w2, b2):
    """The second hidden layer's activations (before the ReLU) for the float32 features ``x`` into
    ``h2``, by the layers ``w1, b1, w2, b2``."""
    hidden = b1.shape[0]
    h1 = stack_zeros(MAX_HIDDEN, np.float32)
    for j in range(hidden):
        h1[j] = b1[j]
        h2[j] = b2[j]
    for i in range(N_FEATURES):
        xi = x[i]
        if xi != 0.0:
            for j in range(hidden):
                h1[j] += xi * w1[i, j]
    add_relu_layer(h1, w2, h2)


@kernel
def network_logits(x, logits, w1, b1, w2, b2, wp, bp):
    """The 24 card-kind scores of the network ``w1 .. bp`` for the features ``x`` into ``logits``."""
    h2 = stack_zeros(MAX_HIDDEN, np.float32)
    hidden_layers(x, h2, w1, b1, w2, b2)
    for k in range(N_KINDS):
        logits[k] = bp[k]
    add_relu_layer(h2, wp, logits)


@kernel
def network_value(x, w1, b1, w2, b2, wv, bv):
    """The value head of the network ``w1 .. bv`` for the features ``x``."""
    h2 = stack_zeros(MAX_HIDDEN, np.float32)
    hidden_layers(x, h2, w1, b1, w2, b2)
    v = bv[0]
    for i in range(b1.shape[0]):
        if h2[i] > 0.0:
            v += h2[i] * wv[i]
    return v


@kernel
def policy_logits(x, logits, round3=False):
    """The network's 24 card-kind scores for the float32 features ``x`` into ``logits`` (round
    3's network when ``round3``, else round 2's)."""
    if round3:
        network_logits(x, logits, W1_R3, B1_R3, W2_R3, B2_R3, WP_R3, BP_R3)
    else:
        network_logits(x, logits, W1, B1, W2, B2, WP, BP)


@kernel
def state_value(x, round3=False):
    """The value head: the seat's expected score (points) for the float32 features ``x`` (round
    3's network when ``round3``, else round 2's)."""
    if round3:
        return network_value(x, W1_R3, B1_R3, W2_R3, B2_R3, WV_R3, BV_R3)
    return network_value(x, W1, B1, W2, B2, WV, BV)


@kernel
def cards_allowed(hand, view):
    """The cards of ``hand`` that may be played now at the position ``view`` (engine/play.legal_mask
    from the public state: follow the led card's class if the hand can)."""
    n = view.pub[P_NPLAYED]
    if n & 3 == 0:
        return hand
    follow = hand & view.cmask[view.fclass[view.plays[n & ~3]]]
    return follow if follow else hand


@kernel
def value_call(seat, hand, view, rules, call_value, round3):
    """1 (Re or Kontra) when the value head expects at least ``call_value`` points for the seat
    at this call opportunity (the position ``view``), else 0."""
    x = stack_zeros(N_FEATURES, np.float32)
    card_features(seat, hand, cards_allowed(hand, view), view, rules, x)
    return 1 if state_value(x, round3) >= call_value else 0


@kernel
def opening_value(seat, hand, dealer, contract, rules, round3=False):
    """The value head's rating of ``contract`` (C_NORMAL, or a solo code declared by ``seat``) for
    ``seat`` holding ``hand`` (12 cards), read from the features of its first card as if it led
    trick 1 of that contract (the others' hands unknown: empty)."""
    st, hands, plays, play_seat, trick_winner, power, fclass, cmask = stack_position()
    x = stack_zeros(N_FEATURES, np.float32)
    hands[seat] = hand
    setup_deal(st, hands, dealer, contract, seat, 0, power, fclass, cmask)
    card_features(seat, hand, hand, View(st[:PUBLIC_LEN], plays, play_seat, trick_winner, power, fclass, cmask), rules,
                  x)
    return state_value(x, round3)


@kernel
def value_keeps_solo(seat, hand, kind, dealer, rules, margin, round3):
    """True when the value head rates the solo of ``kind`` for ``seat`` at least ``margin``
    points above the normal game (opening_value of each)."""
    solo = opening_value(seat, hand, dealer, C_SOLO_BASE + kind, rules, round3)
    return solo >= opening_value(seat, hand, dealer, C_NORMAL, rules, round3) + margin


@kernel
def net_card(seat, hand, legal, view, rules, round3=False):
    """The legal card of the kind the network scores highest (the lowest kind on a tie) at the
    position ``view`` (engine/position.py); round 3's network when ``round3``."""
    x = stack_zeros(N_FEATURES, np.float32)
    logits = stack_zeros(N_KINDS, np.float32)
    card_features(seat, hand, legal, view, rules, x)
    policy_logits(x, logits, round3)
    best = -1
    best_v = np.float32(-3.0e38)
    m = distinct(legal)
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        if logits[c >> 1] > best_v:
            best_v = logits[c >> 1]
            best = c
    return best


@inline_kernel
def reserve(seat, hand, options, pub, rules, params, rng):
    if params[NP_POVERTY_SEARCH] > 0 and (options >> RES_POVERTY) & 1:
        return search_reservation(seat, hand, options, pub, rules, int(params[NP_POVERTY_SEARCH]), SOLO_SCREEN,
                                  rng)
    choice = heuristic.reserve(seat, hand, options, pub, rules, HPARAMS, rng)
    if params[NP_RESERVATIONS] > 0 and 1 <= choice <= 7 and options & 1:  # a voluntary solo: checked
        if not value_keeps_solo(seat, hand, choice - 1, pub[P_DEALER], rules, params[NP_SOLO_MARGIN],
                                params[NP_ROUND] >= 3):
            return heuristic.reserve(seat, hand, options & ~SOLO_OPTIONS, pub, rules, HPARAMS, rng)
    return choice


@inline_kernel
def exchange(seat, hand, phase, pub, rules, params, rng):
    if phase == EX_ACCEPT and params[NP_POVERTY_SEARCH] > 0 and 0 <= pub[P_POVERTY_SEAT] <= 3 \
            and pub[P_POVERTY_SEAT] != seat:
        return search_acceptance(seat, hand, pub, rules, int(params[NP_POVERTY_SEARCH]), rng)
    hparams = stack_zeros(N_HPARAMS, np.float64)  # heuristic's defaults but net's accept_trumps
    for i in range(N_HPARAMS):
        hparams[i] = HPARAMS[i]
    hparams[heuristic.PI_ACCEPT] = params[NP_ACCEPT_TRUMPS]
    return heuristic.exchange(seat, hand, phase, pub, rules, hparams, rng)


@inline_kernel
def call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    if params[NP_CALLS] > 0 and (legal >> 1) & 1:  # Re or Kontra may be said: the value head,
        if pub[P_TURN] != seat:  # just before the seat's own card (the position it learned from)
            return 0
        return value_call(seat, hand, View(pub, plays, play_seat, trick_winner, power, fclass, cmask), rules,
                          params[NP_CALL_VALUE], params[NP_ROUND] >= 3)
    return heuristic.call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules,
                          HPARAMS, rng)


@inline_kernel
def card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    cands = distinct(legal)
    if cands & (cands - 1) == 0:
        return lowest_bit_index(legal)
    return net_card(seat, hand, legal, View(pub, plays, play_seat, trick_winner, power, fclass, cmask), rules,
                    params[NP_ROUND] >= 3)
