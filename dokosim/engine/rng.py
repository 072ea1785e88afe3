"""Counter-based random numbers: each deal owns a stream seeded from (seed, deal_id, attempt).

The stream state is one uint64 kept in ``state[0]``; a draw advances it by the
golden-ratio increment and returns its splitmix64 mix, so any deal can be
replayed alone, whatever thread or worker plays it.
"""
import numpy as np

from .jit import kernel

GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@kernel
def mix64(z):
    """splitmix64 finaliser of a uint64."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def seed_stream(state, seed, deal_id, attempt):
    """Set state[0] to the start of the stream of (seed, deal_id, attempt)."""
    s = mix64(np.uint64(seed) + GOLDEN)
    s = mix64(s ^ (np.uint64(deal_id) * np.uint64(0xD1B54A32D192ED03)))
    state[0] = mix64(s ^ (np.uint64(attempt) + np.uint64(0x632BE59BD9B4E019)))


@kernel
def next_u64(state):
    """Next uint64 of the stream."""
    state[0] += GOLDEN
    return mix64(state[0])


@kernel
def below(state, n):
    """Uniform integer in [0, n) for 0 < n < 2**32, as an int64."""
    x = next_u64(state) >> np.uint64(32)
    return np.int64((x * np.uint64(n)) >> np.uint64(32))


@kernel
def uniform(state):
    """Uniform float in [0, 1)."""
    return np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
