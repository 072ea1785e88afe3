"""Counter-based random numbers: each deal owns a stream seeded from (seed, deal_id, attempt).

The seed, deal id and attempt are mixed with splitmix64 into the 128-bit state
of a xoroshiro128+ generator kept in ``state[0:2]`` (uint64), so any deal can
be replayed alone, whatever thread or worker plays it, and draws cost a few
instructions.
"""
import numpy as np

from .jit import inline_kernel

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
RNG_LEN = 2


@inline_kernel
def mix64(z):
    """splitmix64 finaliser of a uint64."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@inline_kernel
def seed_stream(state, seed, deal_id, attempt):
    """Set state to the start of the stream of (seed, deal_id, attempt)."""
    s = mix64(np.uint64(seed) + GOLDEN)
    s = mix64(s ^ (np.uint64(deal_id) * np.uint64(0xD1B54A32D192ED03)))
    s = mix64(s ^ (np.uint64(attempt) + np.uint64(0x632BE59BD9B4E019)))
    state[0] = mix64(s + GOLDEN)
    state[1] = mix64(s + GOLDEN + GOLDEN) | np.uint64(1)  # never the all-zero state


@inline_kernel
def rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@inline_kernel
def step(s0, s1):
    """One xoroshiro128+ step on a state held in two locals: (output, s0, s1) after it."""
    result = s0 + s1
    s1 ^= s0
    return result, rotl(s0, 24) ^ s1 ^ (s1 << np.uint64(16)), rotl(s1, 37)


@inline_kernel
def next_u64(state):
    """Next uint64 of the stream (xoroshiro128+)."""
    result, s0, s1 = step(state[0], state[1])
    state[0] = s0
    state[1] = s1
    return result


@inline_kernel
def scale_below(x, n):
    """Output ``x`` of the stream as a uniform integer in [0, n) for 0 < n < 2**32 (int64)."""
    return np.int64(((x >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@inline_kernel
def below(state, n):
    """Uniform integer in [0, n) for 0 < n < 2**32, as an int64."""
    return scale_below(next_u64(state), n)


@inline_kernel
def uniform(state):
    """Uniform float in [0, 1)."""
    return np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
