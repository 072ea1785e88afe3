"""``dokosim.VectorGame``: n deals stepped at once in numba, for learning (docs/game.md).

Actions in, observation tensors, legal-action masks, rewards and done flags out, the way pgx
batches games: each call of ``step`` applies one action in every row, in a compiled kernel
over the same kernels as ``dokosim.Game``, which the threads of a small pool (``_Pool``) call at
once, each taking blocks of rows until none is left. A row whose deal ends
is dealt its next deal at once (auto-reset); row i's k-th deal is deal id
``first_deal_id + k * n + i`` of ``seed``, so a run is reproducible whatever the thread count.
"""
from __future__ import annotations

import os
import threading
import time

import numba
import numpy as np

from ..engine import game_state as gs
from ..engine import vector_game as vg
from ..engine.rng import RNG_LEN
from ..validation import check_bool, shown
from .game import ACTION_NAMES, N_ACTIONS, OBSERVATION_LEN, Game, GameError, check_out_array, deal_rules

OBSERVATIONS = ("float32", "uint8", None)
MIN_BLOCK = 64  # rows a thread takes at a time, at least


class _Pool:
    """Threads that call a kernel at the same time: ``run(fn, k, ctl)`` calls ``fn()`` in this thread
    and in k - 1 worker threads (started at the first need, then sleeping on an event) and returns
    once every thread that started the run has finished it (the kernels count themselves in
    ``ctl``, vector_game.run_join). The kernels release the GIL and share out the rows themselves,
    in blocks: a worker that wakes late finds fewer blocks, or none, and nobody waits for it."""

    SPINS = 100_000  # checks of a run's end before the caller sleeps between checks

    def __init__(self):
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._go: list[threading.Event] = []
        self._fn = None
        self._error = None

    def _work(self, go: threading.Event) -> None:
        while True:
            go.wait()
            go.clear()
            try:
                self._fn()
            except BaseException as exc:  # handed to run's caller
                self._error = exc

    def run(self, fn, k: int, ctl: np.ndarray) -> None:
        with self._lock:
            if self._pid != os.getpid():  # a forked child has none of the parent's threads
                self.__init__()
            while len(self._go) < k - 1:
                go = threading.Event()
                threading.Thread(target=self._work, args=(go,), daemon=True, name="dokosim-vector").start()
                self._go.append(go)
            self._fn, self._error = fn, None
            for go in self._go[:k - 1]:
                go.set()
            fn()
            interrupted = None
            while True:  # a worker may be in its last block: the run ends when it is done
                try:
                    if vg.run_join(ctl, self.SPINS):
                        break
                    time.sleep(0.0001)
                except KeyboardInterrupt as exc:  # the rows are being written: finish first
                    interrupted = exc
            if interrupted is not None:
                raise interrupted
            if self._error is not None:
                raise self._error


_POOL = _Pool()
LEGAL_FORMS = ("mask", "bits")


MAX_ROWS = 1 << 20  # rows of one VectorGame (about 5 GiB at ROW_BYTES)
# the bytes one row holds at most: the game state, its random stream, a float32 observation, the
# legal mask and the per-row scalars (player, reward, done, episode)
ROW_BYTES = gs.G_LEN * 8 + RNG_LEN * 8 + OBSERVATION_LEN * 4 + N_ACTIONS + 64


def available_memory() -> int | None:
    """Bytes of memory available now (Linux: MemAvailable), None where it cannot be read."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


class VectorGame:
    """``n`` deals of Doppelkopf stepped together.

    ``VectorGame(n, rules="ddv", seed=0, first_deal_id=0, calls=True, observation="float32",
    legal="mask")``. ``step(actions)`` applies ``actions[i]`` in row i and returns
    ``(obs, legal, rewards, done)``:

    - ``obs``: the observation of the player to act in each row (docs/game.md's layout):
      float32 (n x OBSERVATION_LEN) with ``observation="float32"``; uint8 with
      ``observation="uint8"`` (call levels, eyes and tricks left as integers:
      ``vec.expand(obs)``, or ``obs / vec.divisors``, is the float32 tensor exactly); None with
      ``observation=None`` (then ``observe()`` gives observations on request);
    - ``legal``: int8 (n x N_ACTIONS) with ``legal="mask"``, int64 bits (n; bit a = action a)
      with ``legal="bits"``;
    - ``rewards`` (float32, n x 4): the scores of the deals that ended in this step (zeros
      elsewhere); ``done`` (bool, n) marks them; those rows already show their next deal.

    The same arrays are attributes (``obs``, ``legal``, ``rewards``), with ``player`` (the seat to
    act per row) and ``legal_bits`` (always). They are reused by the next step: copy what you keep.
    """

    def __init__(self, n: int, rules="ddv", seed: int = 0, first_deal_id: int = 0, calls: bool = True,
                 observation: str | None = "float32", legal: str = "mask"):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_ROWS:
            raise GameError(f"n={n!r} is not valid: the number of deals stepped at once, 1 to {MAX_ROWS:,}")
        need, free = int(n) * ROW_BYTES, available_memory()
        if free is not None and need > free:
            raise GameError(f"n={n:,} rows need about {need / 2**30:.1f} GiB; this machine has "
                            f"{free / 2**30:.1f} GiB available: use fewer rows")
        for name, value in (("seed", seed), ("first_deal_id", first_deal_id)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < 2**62:
                raise GameError(f"{name}={value!r} is not valid: an integer from 0 to 2**62-1")
        check_bool("calls", calls, GameError)
        if observation not in OBSERVATIONS:
            raise GameError(f"observation={observation!r} is not valid: 'float32', 'uint8' or None")
        if legal not in LEGAL_FORMS:
            raise GameError(f"legal={legal!r} is not valid: 'mask' (int8, n x {N_ACTIONS}) or 'bits' (int64, n)")
        self.rules = deal_rules(rules, "a VectorGame steps single deals")
        self.n, self.seed, self.first_deal_id = int(n), int(seed), int(first_deal_id)
        self.observation, self.legal_form = observation, legal
        fresh = np.zeros(gs.G_LEN, np.int64)  # a deal before its start, as Game() sets it up
        packed = self.rules.packed()
        fresh[gs.O_RULES:gs.O_RULES + len(packed)] = packed
        fresh[gs.G_SEED] = self.seed
        fresh[gs.G_CALLS_ON] = 1 if calls else 0
        self._fresh = fresh
        G = _aligned_rows(self.n, gs.G_LEN)
        G[:] = fresh
        deal_ids = self.first_deal_id + np.arange(self.n, dtype=np.int64)
        G[:, gs.G_DEAL_ID] = deal_ids
        G[:, gs.G_DEALER] = deal_ids % 4
        self._G = G
        self._R = np.zeros((self.n, RNG_LEN), np.uint64)
        self._episodes = np.zeros(self.n, np.int64)
        self._mode = ({"float32": vg.OUT_OBS_FLOAT, "uint8": vg.OUT_OBS_U8, None: 0}[observation]
                      | (vg.OUT_MASK if legal == "mask" else 0))
        self._outs = vg.observation_buffers(self.n, self._mode)
        (self.legal_bits, self.player, self.rewards, self._done, self._obs_f, self._obs_u, self._mask) = self._outs
        self._deals = vg.Deals(self.first_deal_id, self._episodes, self._fresh)
        self._done_bool = self._done.view(bool)
        self.obs = {"float32": self._obs_f, "uint8": self._obs_u, None: None}[observation]
        self.legal = self._mask if legal == "mask" else self.legal_bits
        self.divisors = gs.observation_divisors(self.rules.hand_size)
        self._streams = None
        from ..engine.jit import ensure_loop
        # the step compiled for these arrays' types, called without numba's dispatch by type: typing
        # the named tuples (Outputs, Deals) in Python took a tenth of a step of 64 rows. The types
        # never change: step() hands it C-contiguous, writeable int64 actions only.
        self._step = ensure_loop(vg.vector_step, "the batched game").compile(
            (*(numba.typeof(a) for a in (self._G, self._R, self.legal_bits, self._outs, self._deals)), numba.int64,
             numba.typeof(np.zeros(3, np.int64)), numba.int64))
        self._parallel(vg.vector_reset, (self._G, self._R, self._outs, self._mode), self.n)

    def step(self, actions) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, np.ndarray]:
        """Apply ``actions[i]`` (an action id) in row i; (obs, legal, rewards, done). GameError
        naming the first row whose action is not legal (no row is changed then)."""
        if not (type(actions) is np.ndarray and actions.dtype == np.int64 and actions.flags.c_contiguous
                and actions.flags.writeable and actions.flags.aligned):
            given = np.asarray(actions)
            if given.dtype.kind not in "iu":  # 24.9, "x", True: not an action id
                raise GameError(f"actions must be integer action ids (one per row), got {given.dtype.name} "
                                f"values like {given.ravel()[:1].tolist()}")
            actions = np.array(given, dtype=np.int64)  # a copy: C-contiguous and writeable, as the step's type
        if actions.shape != (self.n,):
            raise GameError(f"actions must be {self.n} action ids (one per row), got shape {actions.shape}")
        bad = vg.vector_check(actions, self.legal_bits)
        if bad < 0:
            self._parallel(self._step, (self._G, self._R, actions, self._outs, self._deals, self._mode), self.n)
        else:
            a = int(actions[bad])
            name = ACTION_NAMES[a] if 0 <= a < N_ACTIONS else repr(a)
            bits = int(self.legal_bits[bad])
            legal = ", ".join(ACTION_NAMES[k] for k in range(N_ACTIONS) if bits >> k & 1)
            raise GameError(f"row {bad}: action {name} is not legal for seat {int(self.player[bad])}; "
                            f"legal: {legal}")
        return self.obs, self.legal, self.rewards, self._done_bool

    def observe(self, rows=None, out=None, dtype=np.float32) -> np.ndarray:
        """The observation of the player to act in each of ``rows`` (row indices; all rows when
        None), as float32 (``dtype=np.float32``) or uint8 (``np.uint8``, ``expand`` turns it into
        the float32 tensor), written into ``out`` (len(rows) x OBSERVATION_LEN) when given."""
        if rows is None:
            rows = np.arange(self.n, dtype=np.int64)
        else:  # integers only: a float row (1.5, nan) was cast silently, an object array raised TypeError
            given = np.asarray(rows) if isinstance(rows, (list, tuple, np.ndarray)) else None
            if given is not None and given.size == 0:
                given = given.astype(np.int64)
            if (given is None or given.ndim != 1 or given.dtype.kind not in "iu"
                    or (given.size and (given.min() < 0 or given.max() >= self.n))):
                raise GameError(f"rows={shown(rows)} is not valid: a 1-d list or array of row indices 0 to {self.n - 1}")
            rows = np.ascontiguousarray(given, dtype=np.int64)
        try:
            kind = np.dtype(dtype) if isinstance(dtype, (type, np.dtype, str)) else None
        except TypeError:
            kind = None
        if kind not in (np.float32, np.uint8):
            raise GameError(f"dtype={shown(dtype)} is not valid: np.float32 or np.uint8")
        dtype = kind
        shape = (rows.size, OBSERVATION_LEN)
        if out is None:
            out = np.zeros(shape, dtype)
        else:
            check_out_array(out, dtype, shape)
        empty_f, empty_u = self._empty()
        compact = dtype == np.uint8
        self._parallel(vg.vector_observe, (self._G, rows, empty_f if compact else out, out if compact else empty_u,
                                           compact), rows.size)
        return out

    def expand(self, obs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The float32 observation tensor of a uint8 observation (``observation="uint8"``):
        ``obs / divisors``, exactly the float32 tensor of the same position."""
        return np.divide(obs, self.divisors, out=out, dtype=np.float32)

    def random_actions(self, out: np.ndarray | None = None) -> np.ndarray:
        """A uniformly random legal action per row, drawn in numba from each row's own stream (seeded
        from (seed, row) at the first call, independent of the deals' streams and of the thread
        count); into ``out`` (int64, n) when given."""
        if self._streams is None:
            self._streams = np.zeros((self.n, RNG_LEN), np.uint64)
            vg.seed_random_streams(self._streams, self.seed)
        if out is None:
            out = np.empty(self.n, np.int64)
        else:
            check_out_array(out, np.int64, (self.n,))
        vg.random_actions(self.legal_bits, self._streams, out)
        return out

    def game(self, i: int) -> Game:
        """Row i's deal as a ``dokosim.Game`` (a copy: stepping it does not change the row)."""
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.n:
            raise GameError(f"row {i!r} is not valid: 0 to {self.n - 1}")
        game = object.__new__(Game)
        game._g = self._G[i].copy()
        game._rng = self._R[i].copy()
        game.rules = self.rules
        return game

    def deal_ids(self) -> np.ndarray:
        """The deal id each row is playing now."""
        return self._G[:, gs.G_DEAL_ID].copy()

    def _parallel(self, kernel, args, n: int) -> None:
        """``kernel(*args, ctl, block)`` on numba's thread count (numba.set_num_threads): each thread
        takes blocks of rows until none is left (vector_game.vector_step)."""
        threads = numba.get_num_threads()
        block = max(MIN_BLOCK, -(-n // (4 * threads)))
        k = min(threads, -(-n // block))
        ctl = np.zeros(3, np.int64)  # one per run: a worker that wakes after the run finds no block
        if k <= 1:
            kernel(*args, ctl, block)
        else:
            _POOL.run(lambda: kernel(*args, ctl, block), k, ctl)

    def _empty(self):
        return np.zeros((0, OBSERVATION_LEN), np.float32), np.zeros((0, OBSERVATION_LEN), np.uint8)


def _aligned_rows(n: int, width: int) -> np.ndarray:
    """An int64 (n x width) array whose rows start on 64-byte cache lines (width a multiple of 8):
    the game state's layout puts each step's fields on a row's first lines."""
    buf = np.zeros(n * width + 8, np.int64)
    skip = (-buf.ctypes.data % 64) // 8
    return buf[skip:skip + n * width].reshape(n, width)


__all__ = ["VectorGame", "OBSERVATION_LEN", "N_ACTIONS"]
