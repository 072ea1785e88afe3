"""``random``: uniform over the legal choices; reserves and calls only when its parameters say so."""
from ..engine.bits import nth_set_bit, popcount
from ..engine.jit import inline_kernel
from ..engine.layout import RES_HEALTHY
from ..engine.rng import below, uniform

NAME = "random"
PARAMS = {
    "p_reserve": (0.0, "probability of making a random reservation other than healthy"),
    "p_call": (0.0, "probability of making a random legal call at each opportunity"),
}
PARAM_RANGES = {"p_reserve": (0.0, 1.0), "p_call": (0.0, 1.0)}


@inline_kernel
def reserve(seat, hand, options, pub, rules, params, rng):
    others = options & ~(1 << RES_HEALTHY)
    if others and uniform(rng) < params[0]:
        return nth_set_bit(others, below(rng, popcount(others)))
    return RES_HEALTHY


@inline_kernel
def call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    if legal and params[1] > 0.0 and uniform(rng) < params[1]:
        return nth_set_bit(legal, below(rng, popcount(legal)))
    return 0


@inline_kernel
def card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
    return nth_set_bit(legal, below(rng, popcount(legal)))
