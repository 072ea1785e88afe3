"""``dokosim train fit``: fit the network player's weights (dokosim.train.network) to a teacher's
card decisions (``dokosim train data``: a directory of Parquet files, one row per decision), with
JAX and optax on the CPU (the optional extra ``dokosim[train]``; imported only inside ``fit``).

The loss of a decision is the cross-entropy of the network's policy (its logits masked to the
legal kinds) against the teacher's distribution ``softmax(values / temperature)`` over the legal
kinds, plus ``value_weight`` times the squared error of the value head against the seat's final
score (``outcome``). Adam (optax) on shuffled mini-batches; the decisions of a fraction
``holdout`` of the deals (chosen by a hash of ``deal_id``, the same for every seed, so a deal is
wholly on one side) are held out and measured after every epoch.

During training the inputs are standardized (the mean and standard deviation of each feature on
the training rows); at the end that standardization is folded into ``w1`` and ``b1``, so the
saved network reads the raw features. Everything is float32 and deterministic: the same data and
arguments give bit-identical weights on one machine (numpy draws the initial weights and the
batch order from ``seed``; XLA's CPU kernels are deterministic).

Output: the weights file ``out`` (network.save_weights, with ``check_x``/``check_logits``/
``check_value``: up to 1,000 held-out rows and JAX's forward pass on them, for checking another
implementation of the forward pass without JAX) and a manifest JSON beside it (``out`` with the
suffix ``.json``): the data, the split, the hyperparameters, the metrics of every epoch, the
final held-out metrics, the versions and the wall time.
"""
from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from ..strategies.net_features import mirror_rows
from ..validation import check_path_value
from .network import FORMAT_VERSION, N_KINDS, WEIGHT_KEYS, _read_npz, save_weights, weight_shapes

COMMAND = "train fit"
"""The manifest's ``command``: a manifest this command may overwrite."""
INSTALL_HINT = "dokosim train fit needs JAX and optax: pip install 'dokosim[train]'"
COLUMNS = ("deal_id", "features", "legal", "values", "choice", "outcome")
"""The columns of the training data that ``fit`` reads (others are ignored)."""
CHECK_ROWS = 1000
"""Rows stored in the weights file for checking a forward pass (``check_x``)."""
PIECE_ROWS = 1 << 18
"""Rows read from a file at a time (a large file is read in pieces)."""
EVAL_CHUNK = 4096
"""Rows per call of the evaluation (the last chunk is padded: one compiled shape)."""
NEGATIVE = -1e9
"""The logit of an illegal kind before the softmax (exp of it is exactly 0 in float32)."""
MIN_STD = 1e-2
"""The smallest standard deviation a feature is divided by in the standardization."""


class TrainError(ValueError):
    """Bad arguments or bad training data for ``fit``, or JAX missing: one line."""


BOUNDS = {"hidden": (1, 4096), "epochs": (1, 10**6), "batch_size": (1, 1 << 20),
          "learning_rate": (1e-9, 1.0), "temperature": (1e-3, 1e6), "value_weight": (0.0, 1e6)}
"""The hyperparameters' bounds, checked before any work: past them the training cannot end
well (a learning rate of 1e30 or a temperature of 1e-40 make the loss non-finite; 10**9 hidden
units ask for terabytes). docs/strategies.md, "net"."""


class Diverged(TrainError):
    """The training loss became NaN or infinite: the message names the options to change."""


def manifest_path(out) -> Path:
    """The manifest JSON written beside the weights file ``out``: ``out`` with the suffix ``.json``."""
    return Path(out).with_suffix(".json")


def check_output(out) -> Path:
    """Check the weights file ``out`` before any work: not a directory, not a ``.json`` name (the
    manifest's), its directory existing and writable, and an existing file (or manifest beside
    it) only one that ``fit`` wrote (a dokosim weights file; a manifest of ``train fit``), which
    is replaced. Returns it as a Path; TrainError (one line) otherwise."""
    path = check_path_value("out", out, TrainError)
    if path.suffix == ".json":
        raise TrainError(f"--out {str(path)!r}: the manifest goes beside the weights as a .json file; "
                         f"give a .npz name")
    if path.is_dir():
        raise TrainError(f"--out {str(path)!r} is a directory; give a file name (FILE.npz)")
    longest = max(len(f".{path.name}.tmp".encode()), len(f".{manifest_path(path).name}.tmp".encode()))
    try:
        name_max = os.pathconf(path.absolute().parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        name_max = 255
    if longest > name_max:  # the weights and the manifest are written under temporary names first
        raise TrainError(f"--out {str(path)!r}: the file name is too long ({len(path.name.encode())} bytes; "
                         f"at most {name_max - (longest - len(path.name.encode()))} here, with the manifest's "
                         f"and the temporary names beside it)")
    parent = path.absolute().parent
    if not parent.exists():
        raise TrainError(f"--out {str(path)!r}: the directory {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise TrainError(f"--out {str(path)!r} is under {str(parent)!r}, which is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise TrainError(f"--out {str(path)!r}: cannot create files in {str(parent)!r} (permission denied)")
    if path.exists():
        try:
            ours = "format_version" in _read_npz(path)
        except (OSError, ValueError):
            ours = False
        if not ours:
            raise TrainError(f"--out {str(path)!r} exists and is not a dokosim weights file; give a new "
                             f"file name (or remove that file)")
    manifest = manifest_path(path)
    if manifest.exists():
        try:
            ours = json.loads(manifest.read_text()).get("command") == COMMAND
        except (OSError, ValueError, AttributeError):
            ours = False
        if not ours:
            raise TrainError(f"--out {str(path)!r}: the manifest beside it, {str(manifest)!r}, exists and was "
                             f"not written by dokosim {COMMAND}; give another name (or remove that file)")
    return path


def heldout_rows(deal_id, holdout: float) -> np.ndarray:
    """Which rows are held out: a boolean array, True where a hash of the row's ``deal_id``
    (splitmix64, mapped to [0, 1)) is below ``holdout``. Depends on the deal alone (not on the
    seed or the order of the rows), so every decision of a deal is on the same side."""
    z = _integer_array("deal_id", deal_id).astype(np.uint64)
    if isinstance(holdout, bool) or not isinstance(holdout, (int, float, np.integer, np.floating)) \
            or not 0 <= holdout <= 1:
        raise TrainError(f"holdout={holdout!r}: expected a fraction in [0, 1]")
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * (1.0 / 2.0**53) < holdout


def legal_mask(legal) -> np.ndarray:
    """The bit masks ``legal`` (rows,) as a boolean array (rows x 24): True where kind k is legal."""
    legal = _integer_array("legal", legal)
    return ((legal[:, None] >> np.arange(N_KINDS, dtype=np.int64)) & 1).astype(bool)


def _integer_array(name: str, values) -> np.ndarray:
    """``values`` as a 1-D int64 array; TrainError unless they are integers in int64's range."""
    array = np.asarray(values) if not isinstance(values, (str, bytes, dict)) else np.zeros((0, 0))
    if array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer) or array.size == 0):
        raise TrainError(f"{name}: expected a 1-D array of integers, got {type(values).__name__} "
                         f"of shape {array.shape} and dtype {array.dtype}")
    if array.dtype == np.uint64 and array.size and array.max() >= 2**63:
        raise TrainError(f"{name}: values beyond int64 (up to {int(array.max())})")
    return array.astype(np.int64)


def data_dirs(data_dir) -> list[Path]:
    """``data_dir`` as a list of directories: one path, or a list or tuple of paths (rounds of
    ``dokosim train data`` trained on together)."""
    if isinstance(data_dir, (list, tuple)):
        if not data_dir:
            raise TrainError("DATA_DIR: no directory given; name one or more of dokosim train data's directories")
        return [check_path_value("DATA_DIR", d, TrainError) for d in data_dir]
    return [check_path_value("DATA_DIR", data_dir, TrainError)]


def parquet_files(data_dir) -> list[Path]:
    """The Parquet files of the training data directory ``data_dir``, or of each of several in
    their order (``*.parquet``, sorted by name within a directory; the manifest beside them is
    ignored). TrainError if a directory is missing or has none."""
    return [f for directory in data_dirs(data_dir) for f in _directory_files(directory)]


def _directory_files(directory: Path) -> list[Path]:
    """The chunk files of a training data directory: for a dataset of ``dokosim train data``
    those its ledger lists (run/dataset_files.resolve: literal paths inside the directory, a
    stray ``*.parquet`` copy not read); for a directory of Parquet files made otherwise, its
    ``*.parquet`` files by name (listed literally, no pattern)."""
    from ..run.dataset_files import DamagedDataset, chunk_files, resolve
    from ..run.driver import DatasetError
    if not directory.exists():
        raise TrainError(f"DATA_DIR {str(directory)!r} does not exist")
    if not directory.is_dir():
        raise TrainError(f"DATA_DIR {str(directory)!r} is not a directory")
    try:
        if not chunk_files(directory):
            raise DatasetError("no chunk files")
        files = resolve(directory).files
    except DamagedDataset as exc:
        raise TrainError(f"DATA_DIR {str(directory)!r}: {exc}") from None
    except DatasetError:  # no chunk files of dokosim train data: Parquet files made otherwise
        try:
            with os.scandir(directory) as entries:
                files = sorted(Path(directory) / e.name for e in entries
                               if e.name.endswith(".parquet") and e.is_file())
        except OSError as exc:
            raise TrainError(f"DATA_DIR {str(directory)!r}: cannot list it ({exc.strerror or exc})") from None
    if not files:
        raise TrainError(f"DATA_DIR {str(directory)!r} has no Parquet files (*.parquet); make the data with "
                         f"dokosim train data")
    return files


def _round_seed(directory: Path, index: int):
    """The seed a round of ``dokosim train data`` was made with (the plan its chunks carry), or
    the directory's position when it has none (data made otherwise: its deals count apart)."""
    from ..run.dataset_files import dataset_manifest
    from ..run.driver import DatasetError
    try:
        seed = dataset_manifest(directory).get("seed")
    except DatasetError:
        seed = None
    return ("seed", seed) if isinstance(seed, int) else ("directory", index)


def _reason(exc: BaseException) -> str:
    """The first line of an error's message."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _schema(path: Path):
    """The Parquet schema of ``path`` (polars), checked for the columns ``fit`` reads."""
    import polars as pl
    try:
        schema = pl.scan_parquet(path, glob=False, hive_partitioning=False).collect_schema()
    except Exception as exc:  # noqa: BLE001 (polars and pyarrow raise many kinds for a damaged file)
        raise TrainError(f"{path}: cannot read it as Parquet ({_reason(exc)})") from None
    missing = [c for c in COLUMNS if c not in schema]
    if missing:
        raise TrainError(f"{path}: column(s) {', '.join(missing)} missing (training data has "
                         f"{', '.join(COLUMNS)}; made by dokosim train data?)")
    return schema


def _width(path: Path, dtype) -> int | None:
    """F of a ``features`` column: the width of a fixed-size list, None for a list (the rows say)."""
    import polars as pl
    if isinstance(dtype, pl.Array):
        if len(dtype.shape) != 1:
            raise TrainError(f"{path}: column features has dtype {dtype}, expected a list of floats")
        return int(dtype.shape[0])
    if isinstance(dtype, pl.List):
        return None
    raise TrainError(f"{path}: column features has dtype {dtype}, expected a list of floats")


def _read_piece(path: Path, width: int | None, n_features: int, offset: int, n: int) -> dict:
    """Rows ``offset .. offset+n-1`` of the training data file ``path`` as checked numpy arrays
    (the keys of ``load_data``; ``values`` 0 where not legal); ``width`` is the file's F, None
    for features stored as a list. Bad data: TrainError naming the file and the first bad row."""
    import polars as pl
    try:
        frame = pl.scan_parquet(path, glob=False, hive_partitioning=False).select(list(COLUMNS)).slice(offset, n).collect()
        nulls = {c: int(frame[c].null_count()) for c in COLUMNS}
        features = pl.col("features")
        if width is None:
            features = features.list.to_array(n_features)
        frame = frame.select(
            pl.col("deal_id").cast(pl.Int64), features.cast(pl.Array(pl.Float32, n_features)),
            pl.col("legal").cast(pl.Int64), pl.col("values").cast(pl.Array(pl.Float32, N_KINDS)),
            pl.col("choice").cast(pl.Int64), pl.col("outcome").cast(pl.Float32))
    except Exception as exc:  # noqa: BLE001 (a damaged file, a column of another type or width)
        raise TrainError(f"{path}: cannot read the training columns ({_reason(exc)})") from None
    bad_columns = [c for c, k in nulls.items() if k]
    if bad_columns:
        raise TrainError(f"{path}: null values in column(s) {', '.join(bad_columns)}")
    ids = frame["deal_id"].to_numpy()
    x = np.asarray(frame["features"].to_numpy(), dtype=np.float32)
    values = np.array(frame["values"].to_numpy(), dtype=np.float32)  # a copy: written below
    legal = frame["legal"].to_numpy()
    choice = frame["choice"].to_numpy()
    outcome = frame["outcome"].to_numpy()
    del frame

    def bad(rows, what):
        if rows.any():
            first = int(np.flatnonzero(rows)[0])
            raise TrainError(f"{path}: {int(rows.sum())} row(s) {what} (the first: row {offset + first}, "
                             f"deal_id {int(ids[first])})")
    bad((legal <= 0) | (legal >= 1 << N_KINDS), f"have a legal mask that is empty or has a bit beyond the "
                                                 f"{N_KINDS} kinds")
    bad((choice < 0) | (choice >= N_KINDS) | (((legal >> np.clip(choice, 0, N_KINDS - 1)) & 1) == 0),
        "have a choice that is not a legal kind")
    bad(~np.isfinite(x).all(axis=1), "have a non-finite feature (NaN or infinite)")
    bad(~np.isfinite(outcome), "have a non-finite outcome")
    mask = legal_mask(legal)
    bad((mask & ~np.isfinite(values)).any(axis=1), "have a non-finite value (NaN or infinite) for a legal kind")
    values[~mask] = 0.0
    return {"x": x, "values": values, "legal": legal, "choice": choice, "outcome": outcome, "deal_id": ids}


def load_data(data_dir, max_rows: int | None = None) -> dict:
    """The training data of ``data_dir`` (one directory or several, parquet_files; at most
    ``max_rows`` rows) as numpy arrays: ``x`` (rows x F float32), ``values`` (rows x 24 float32,
    0 where not legal), ``legal`` (int32 bit masks), ``choice`` (int8), ``outcome`` (float32),
    ``deal_id`` (int64: the row's deal_id plus 2**40 times the index of its directory's seed among
    the seeds read, so that the same deal_id of two seeds, two different deals, counts as two,
    while two rounds of one seed, the same deals, share their keys and so their held-out
    split), and ``files``, the number of files read. The same directory twice: TrainError. F is the width of the first
    file's ``features``; every file must have the same. Bad data (no rows, a missing column,
    another F, nulls, a legal mask outside 24 kinds or empty, a choice that is not legal, a
    non-finite feature, outcome or value of a legal kind): TrainError. Each file is read in pieces of PIECE_ROWS rows, converted into arrays allocated once for all
    rows, so the peak memory is the arrays (about 4 * (F + 30) bytes a row) plus one piece."""
    import polars as pl
    directories = data_dirs(data_dir)
    seen, twice = set(), []
    for d in directories:
        if d.resolve() in seen and str(d) not in twice:
            twice.append(str(d))
        seen.add(d.resolve())
    if twice:
        raise TrainError(f"DATA_DIR: named more than once: {', '.join(twice)}; name each round once")
    files, source, seeds = [], {}, []
    for index, directory in enumerate(directories):
        seed = _round_seed(directory, index)
        if seed not in seeds:
            seeds.append(seed)
        for f in _directory_files(directory):
            files.append(f)
            source[f] = seeds.index(seed)
    schemas = [_schema(f) for f in files]
    counts = []
    for f in files:
        try:
            counts.append(int(pl.scan_parquet(f, glob=False, hive_partitioning=False).select(pl.len()).collect().item()))
        except Exception as exc:  # noqa: BLE001
            raise TrainError(f"{f}: cannot read it as Parquet ({_reason(exc)})") from None
    total = sum(counts) if max_rows is None else min(sum(counts), int(max_rows))
    if total == 0:
        names = ", ".join(str(d) for d in directories)
        raise TrainError(f"DATA_DIR {names!r} has no rows in its {len(files)} Parquet file(s)")
    n_features = None
    for f, schema, count in zip(files, schemas, counts):  # F: the first file with rows says
        if count:
            n_features = _width(f, schema["features"])
            if n_features is None:
                n_features = len(pl.read_parquet(f, columns=["features"], n_rows=1, glob=False, hive_partitioning=False)["features"][0])
            break
    if not n_features:
        raise TrainError(f"{files[0]}: features has no values (F = 0)")
    arrays = {"x": np.empty((total, n_features), dtype=np.float32),
              "values": np.empty((total, N_KINDS), dtype=np.float32), "legal": np.empty(total, dtype=np.int32),
              "choice": np.empty(total, dtype=np.int8), "outcome": np.empty(total, dtype=np.float32),
              "deal_id": np.empty(total, dtype=np.int64)}
    start = 0
    used = 0
    for f, schema, count in zip(files, schemas, counts):
        if start >= total:
            break
        width = _width(f, schema["features"])
        if width is not None and width != n_features:
            raise TrainError(f"{f}: features has {width} values per row, expected {n_features} (as in {files[0]})")
        n = min(count, total - start)
        if n == 0:
            continue
        for offset in range(0, n, PIECE_ROWS):  # a piece at a time: the peak memory is the arrays and a piece
            piece = _read_piece(f, width, n_features, offset, min(PIECE_ROWS, n - offset))
            end = start + len(piece["outcome"])
            for key, array in piece.items():
                arrays[key][start:end] = array
            arrays["deal_id"][start:end] += np.int64(source[f]) << 40
            start = end
        used += 1
    return {**arrays, "files": used}


def _check_arguments(hidden, epochs, batch_size, learning_rate, temperature, value_weight, holdout, seed,
                     max_rows):
    """TrainError for an argument of ``fit`` out of range."""
    def integer(name, value, low):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise TrainError(f"{name}={value!r}: expected an integer >= {low}")

    def real(name, value, ok, expected):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                or not math.isfinite(value) or not ok(value):
            raise TrainError(f"{name}={value!r}: expected {expected}")
    integer("hidden", hidden, 1)
    integer("epochs", epochs, 1)
    integer("batch_size", batch_size, 1)
    for name, value in (("hidden", hidden), ("epochs", epochs), ("batch_size", batch_size)):
        if value > BOUNDS[name][1]:
            raise TrainError(f"{name}={value!r}: expected an integer from {BOUNDS[name][0]} to {BOUNDS[name][1]:,}")
    integer("seed", seed, 0)
    if seed >= 2**63:
        raise TrainError(f"seed={seed!r}: expected an integer below 2**63")
    if max_rows is not None:
        integer("max_rows", max_rows, 1)
    for name, value, unit in (("learning_rate", learning_rate, ""), ("temperature", temperature, " (score points)"),
                              ("value_weight", value_weight, "")):
        lo, hi = BOUNDS[name]
        real(name, value, lambda v: lo <= v <= hi, f"a number from {lo:g} to {hi:g}{unit}")
    real("holdout", holdout, lambda v: 0 <= v < 1, "a fraction in [0, 1)")


def _initial_weights(rng: np.random.Generator, n_features: int, hidden: int, mean_outcome: float) -> dict:
    """He-initialized weights (numpy, from ``rng``), zero biases, the value bias at the mean outcome."""
    shapes = weight_shapes(n_features, hidden)
    w = {key: np.zeros(shape, dtype=np.float32) for key, shape in shapes.items()}
    w["w1"] = (rng.standard_normal(shapes["w1"]) * math.sqrt(2.0 / n_features)).astype(np.float32)
    w["w2"] = (rng.standard_normal(shapes["w2"]) * math.sqrt(2.0 / hidden)).astype(np.float32)
    w["wp"] = (rng.standard_normal(shapes["wp"]) * math.sqrt(1.0 / hidden)).astype(np.float32)
    w["wv"] = (rng.standard_normal(shapes["wv"]) * math.sqrt(1.0 / hidden)).astype(np.float32)
    w["bv"][0] = mean_outcome
    return w


def _standardization(x: np.ndarray, rows: np.ndarray, mirror: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The mean and 1 / standard deviation (at least MIN_STD) of every feature over ``rows`` of
    ``x``, float64, in chunks (no copy of ``x``); with ``mirror``, over those rows and their
    clubs-spades mirrors together (the inputs the training sees)."""
    total = np.zeros(x.shape[1])
    squares = np.zeros(x.shape[1])
    for start in range(0, len(rows), 65536):
        block = x[rows[start:start + 65536]]
        if mirror:
            block = np.concatenate([block, mirror_rows(block, np.zeros(len(block), np.int32),
                                                       np.zeros((len(block), N_KINDS), np.float32))[0]])
        block = block.astype(np.float64)
        total += block.sum(axis=0)
        squares += np.square(block).sum(axis=0)
    n = len(rows) * (2 if mirror else 1)
    mean = total / n
    std = np.sqrt(np.maximum(squares / n - np.square(mean), 0.0))
    return mean, 1.0 / np.maximum(std, MIN_STD)


def _fold(w: dict, mean: np.ndarray, inv_std: np.ndarray) -> dict:
    """The weights with the standardization ``(x - mean) * inv_std`` folded into ``w1`` and
    ``b1``, so that they read raw features (computed in float64, stored as float32)."""
    w1 = np.asarray(w["w1"], dtype=np.float64)
    out = {key: np.ascontiguousarray(np.asarray(w[key], dtype=np.float32)) for key in WEIGHT_KEYS}
    out["w1"] = np.ascontiguousarray((inv_std[:, None] * w1).astype(np.float32))
    out["b1"] = (np.asarray(w["b1"], dtype=np.float64) - (mean * inv_std) @ w1).astype(np.float32)
    return out


def _unfold(w: dict, mean: np.ndarray, inv_std: np.ndarray) -> dict:
    """The inverse of ``_fold``: weights that read raw features (a weights file) as weights that
    read the standardized features ``(x - mean) * inv_std``, to continue training them (float32)."""
    w1 = np.asarray(w["w1"], dtype=np.float64)
    out = {key: np.asarray(w[key], dtype=np.float32).copy() for key in WEIGHT_KEYS}
    out["w1"] = (w1 / inv_std[:, None]).astype(np.float32)
    out["b1"] = (np.asarray(w["b1"], dtype=np.float64) + mean @ w1).astype(np.float32)
    return out


def read_init(init, hidden: int) -> dict | None:
    """The weights of the file ``init`` (dokosim train fit's, or net's shipped ones) to start from,
    read before any work; None without ``init``; TrainError (one line) if it is not one, or if its
    network is not ``hidden`` units wide (checked before the data is read)."""
    if init is None:
        return None
    from .network import load_weights
    try:
        w = load_weights(init)
    except (OSError, ValueError) as exc:
        raise TrainError(f"--init {init}: not a weights file to start from ({exc})") from None
    if w["w1"].shape[1] != hidden:
        raise TrainError(f"--init {init}: its network has {w['w1'].shape[1]} hidden units; --hidden is {hidden}")
    return w


def _check_init_features(init, w: dict, n_features: int) -> None:
    """TrainError (one line) when the starting network reads another number of features than the data has."""
    if w["w1"].shape[0] != n_features:
        raise TrainError(f"--init {init}: its network reads {w['w1'].shape[0]} features; the data has "
                         f"{n_features}")


def _say(quiet: bool, text: str):
    """A progress line on stderr unless ``quiet``."""
    if not quiet:
        print(text, file=sys.stderr, flush=True)


def _model(jax, optax, learning_rate: float, value_weight: float, temperature: float):
    """(optimizer, step, evaluate, forward): the network's forward pass, one Adam step on a
    mini-batch's weighted loss (the policy's cross-entropy against ``softmax(values /
    temperature)`` over the legal kinds, plus ``value_weight`` times the value head's squared
    error) and the held-out evaluation, jitted."""
    jnp = jax.numpy
    kinds = np.arange(N_KINDS, dtype=np.int32)
    vw = np.float32(value_weight)
    inv_temperature = np.float32(1.0 / temperature)

    def forward(p, xb):
        h1 = jax.nn.relu(xb @ p["w1"] + p["b1"])
        h2 = jax.nn.relu(h1 @ p["w2"] + p["b2"])
        return h2 @ p["wp"] + p["bp"], (h2 @ p["wv"] + p["bv"])[:, 0]

    def row_losses(p, xb, vb, lb, ob, mu, scale):
        logits, value = forward(p, (xb - mu) * scale)
        mask = ((lb[:, None] >> kinds) & 1) == 1
        masked = jnp.where(mask, logits, NEGATIVE)
        log_policy = jax.nn.log_softmax(masked, axis=-1)
        target = jax.nn.softmax(jnp.where(mask, vb * inv_temperature, NEGATIVE), axis=-1)
        cross_entropy = -jnp.sum(jnp.where(mask, target * log_policy, 0.0), axis=-1)
        return cross_entropy, jnp.square(value - ob), masked

    def batch_loss(p, xb, vb, lb, ob, wb, mu, scale):
        cross_entropy, squared, _ = row_losses(p, xb, vb, lb, ob, mu, scale)
        return jnp.sum(wb * (cross_entropy + vw * squared)) / jnp.sum(wb)

    optimizer = optax.adam(learning_rate)

    @jax.jit
    def step(p, state, xb, vb, lb, ob, wb, mu, scale):
        loss, grads = jax.value_and_grad(batch_loss)(p, xb, vb, lb, ob, wb, mu, scale)
        updates, state = optimizer.update(grads, state, p)
        return optax.apply_updates(p, updates), state, loss

    @jax.jit
    def evaluate(p, xb, vb, lb, ob, mu, scale):
        cross_entropy, squared, masked = row_losses(p, xb, vb, lb, ob, mu, scale)
        return cross_entropy, squared, jnp.argmax(masked, axis=-1)

    return optimizer, step, evaluate, jax.jit(forward)


def _best_and_chance(values: np.ndarray, legal: np.ndarray):
    """(each row's best legal value, the held-out accuracy of a uniform pick among the legal
    kinds): a pick counts as right as the network's does, when its value reaches the best (the
    teacher's float32 values tie), so chance is n_best / n_legal per row (None without rows)."""
    mask = legal_mask(legal)
    best = np.where(mask, values, -np.inf).max(axis=1)
    ties = (mask & (values >= best[:, None])).sum(axis=1)
    return best, (float(np.mean(ties / mask.sum(axis=1))) if len(values) else None)


def _heldout_metrics(evaluate, p, standardize, data: dict, held_idx: np.ndarray, held_best: np.ndarray,
                     value_weight: float) -> dict | None:
    """The held-out metrics of the weights ``p`` (``standardize`` = (mean, 1 / std) of the
    inputs): losses, accuracy (the pick's value reaches the best) and agreement with the
    teacher's choice, evaluated EVAL_CHUNK rows at a time; None without held-out rows."""
    if len(held_idx) == 0:
        return None
    x, values, legal, outcome, choice = data["x"], data["values"], data["legal"], data["outcome"], data["choice"]
    mu, scale = standardize
    sums = np.zeros(4)
    for start in range(0, len(held_idx), EVAL_CHUNK):
        rows = held_idx[start:start + EVAL_CHUNK]
        n = len(rows)
        padded = np.concatenate([rows, np.full(EVAL_CHUNK - n, rows[0])]) if n < EVAL_CHUNK else rows
        cross_entropy, squared, predicted = evaluate(p, x[padded], values[padded], legal[padded], outcome[padded],
                                                     mu, scale)
        predicted = np.asarray(predicted)[:n]
        best = held_best[start:start + n]
        sums += (np.asarray(cross_entropy, dtype=np.float64)[:n].sum(),
                 np.asarray(squared, dtype=np.float64)[:n].sum(),
                 np.count_nonzero(values[rows, predicted] >= best),
                 np.count_nonzero(predicted == choice[rows]))
    policy, mse, accuracy, agreement = sums / len(held_idx)
    return {"heldout_loss": float(policy + value_weight * mse), "heldout_policy_loss": float(policy),
            "heldout_value_mse": float(mse), "heldout_accuracy": float(accuracy),
            "heldout_choice_agreement": float(agreement)}


def _epoch_line(epoch: int, epochs: int, train_loss: float, metrics: dict | None, seconds: float) -> str:
    """The progress line of one epoch."""
    if metrics is None:
        return f"epoch {epoch}/{epochs}: train loss {train_loss:.4f} (no held-out rows), {seconds:.1f} s"
    return (f"epoch {epoch}/{epochs}: train loss {train_loss:.4f}, held-out loss {metrics['heldout_loss']:.4f} "
            f"(policy {metrics['heldout_policy_loss']:.4f}, value mse {metrics['heldout_value_mse']:.3f}), accuracy "
            f"{metrics['heldout_accuracy']:.4f}, agrees with choice {metrics['heldout_choice_agreement']:.4f}, "
            f"{seconds:.1f} s")


def _write_json(path: Path, document: dict) -> None:
    """``document`` as JSON at ``path``, whole or not at all (a temporary file renamed)."""
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        temporary.write_text(json.dumps(document, indent=2) + "\n")
        temporary.replace(path)
    finally:
        temporary.unlink(missing_ok=True)


def fit(data_dir, out, hidden: int = 128, epochs: int = 10, batch_size: int = 512, learning_rate: float = 1e-3,
        temperature: float = 1.0, value_weight: float = 0.1, holdout: float = 0.1, seed: int = 0,
        max_rows: int | None = None, mirror: bool = False, init=None, quiet: bool = False) -> dict:
    """Fit the network player to the teacher's decisions in ``data_dir`` (see the module doc) and
    write its weights to ``out`` (a ``.npz`` file) and the manifest beside it (``out`` with the
    suffix ``.json``). ``hidden`` units per hidden layer; ``epochs`` passes over the training rows
    in mini-batches of ``batch_size`` (Adam with ``learning_rate``); the policy's target is
    ``softmax(values / temperature)`` over the legal kinds; ``value_weight`` weighs the value
    head's squared error; ``holdout``, the fraction of the deals held out; ``seed``, the initial
    weights and the batch order; ``max_rows``, read only the first rows; ``mirror``, a random half of every batch's rows
    replaced by their clubs-spades mirror (net_features.mirror_rows: the same decision with the
    two suits swapped where they are plain), so the network learns the two suits as one; ``init``,
    a weights file to start from instead of random weights (a round trained further). Unless ``quiet``, one
    line per epoch on stderr. Returns the manifest (a dict, as written). Bad arguments, bad data,
    an output that may not be written, or JAX missing: TrainError (a ValueError)."""
    started = time.perf_counter()
    _check_arguments(hidden, epochs, batch_size, learning_rate, temperature, value_weight, holdout, seed, max_rows)
    out = check_output(out)
    parquet_files(data_dir)
    start_weights = read_init(init, hidden)
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError:
        raise TrainError(INSTALL_HINT) from None

    data = load_data(data_dir, max_rows)
    x, values, legal, outcome = data["x"], data["values"], data["legal"], data["outcome"]
    n_rows, n_features = x.shape
    held = heldout_rows(data["deal_id"], holdout)
    train_idx = np.flatnonzero(~held)
    held_idx = np.flatnonzero(held)
    if len(train_idx) == 0:
        raise TrainError(f"holdout={holdout}: every one of the {n_rows} rows is held out; give a smaller "
                         f"holdout or more deals")
    deals = {"total": int(np.unique(data["deal_id"]).size),
             "train": int(np.unique(data["deal_id"][train_idx]).size),
             "heldout": int(np.unique(data["deal_id"][held_idx]).size)}
    _say(quiet, f"read {n_rows:,} rows ({len(train_idx):,} to train, {len(held_idx):,} held out; {deals['total']:,} "
                f"deals) of {n_features} features from {data['files']} file(s) in "
                f"{time.perf_counter() - started:.1f} s")

    rng = np.random.default_rng(seed)
    mean, inv_std = _standardization(x, train_idx, mirror)
    if start_weights is not None:
        _check_init_features(init, start_weights, n_features)
        initial = _unfold(start_weights, mean, inv_std)
    else:
        initial = _initial_weights(rng, n_features, hidden, float(np.mean(outcome[train_idx], dtype=np.float64)))
    optimizer, step, evaluate, forward_jit = _model(jax, optax, learning_rate, value_weight, temperature)

    held_best, chance = _best_and_chance(values[held_idx], legal[held_idx])

    def measure(p, mu, scale) -> dict | None:
        """The held-out metrics of the weights ``p``."""
        return _heldout_metrics(evaluate, p, (mu, scale), data, held_idx, held_best, value_weight)

    cpu = jax.devices("cpu")[0]
    history = []
    with jax.default_device(cpu):
        params = {key: jnp.asarray(value) for key, value in initial.items()}
        state = optimizer.init(params)
        mu = jnp.asarray(mean.astype(np.float32))
        scale = jnp.asarray(inv_std.astype(np.float32))
        size = min(batch_size, len(train_idx))
        ones = np.ones(size, dtype=np.float32)
        for epoch in range(1, epochs + 1):
            epoch_start = time.perf_counter()
            order = rng.permutation(train_idx)
            losses = []
            for start in range(0, len(order), size):
                rows = order[start:start + size]
                n = len(rows)
                weight = ones
                if n < size:
                    rows = np.concatenate([rows, np.full(size - n, rows[0])])
                    weight = np.zeros(size, dtype=np.float32)
                    weight[:n] = 1.0
                xb, vb, lb = x[rows], values[rows], legal[rows]
                if mirror:
                    flip = rng.random(size) < 0.5
                    xb[flip], lb[flip], vb[flip] = mirror_rows(xb[flip], lb[flip], vb[flip])
                params, state, loss = step(params, state, xb, vb, lb, outcome[rows], weight, mu, scale)
                if not math.isfinite(float(loss)):  # stop at once: every step after it is NaN too
                    raise Diverged(f"the training loss became {float(loss)} at epoch {epoch}, step "
                                   f"{start // size + 1}: lower --learning-rate (now {learning_rate:g}) or "
                                   f"--value-weight (now {value_weight:g}), or raise --temperature (now "
                                   f"{temperature:g}); nothing was written")
                losses.append((loss, n))
            train_loss = sum(float(loss) * n for loss, n in losses) / len(order)
            metrics = measure(params, mu, scale)
            seconds = time.perf_counter() - epoch_start
            history.append({"epoch": epoch, "train_loss": train_loss, **(metrics or {}), "seconds": round(seconds, 3)})
            _say(quiet, _epoch_line(epoch, epochs, train_loss, metrics, seconds))

        weights = _fold({key: np.asarray(value) for key, value in params.items()}, mean, inv_std)
        plain = {key: jnp.asarray(value) for key, value in weights.items()}
        final = measure(plain, jnp.zeros(n_features, dtype=jnp.float32), jnp.ones(n_features, dtype=jnp.float32))
        n_check = min(CHECK_ROWS, n_rows)  # held-out rows, or all rows if there are fewer
        if len(held_idx) >= n_check:
            check_rows, check_source = held_idx[:n_check], "heldout"
        else:
            check_rows, check_source = np.arange(n_check), "all"
        check_x = np.ascontiguousarray(x[check_rows])
        check_logits, check_value = forward_jit(plain, check_x)
        check = {"check_x": check_x, "check_logits": np.asarray(check_logits, dtype=np.float32),
                 "check_value": np.asarray(check_value, dtype=np.float32)}

    save_weights(out, weights, extra=check)
    import importlib.metadata
    import polars

    from ..version import __version__
    manifest = {
        "command": COMMAND,
        "format_version": FORMAT_VERSION,
        "weights": str(out),
        "data_dir": [str(d.resolve()) for d in data_dirs(data_dir)] if isinstance(data_dir, (list, tuple))
        else str(Path(data_dir).expanduser().resolve()),
        "files": data["files"],
        "rows": {"total": int(n_rows), "train": int(len(train_idx)), "heldout": int(len(held_idx))},
        "deals": deals,
        "n_features": int(n_features),
        "n_kinds": N_KINDS,
        "hyperparameters": {"hidden": int(hidden), "epochs": int(epochs), "batch_size": int(batch_size),
                            "learning_rate": float(learning_rate), "temperature": float(temperature),
                            "value_weight": float(value_weight), "holdout": float(holdout), "seed": int(seed),
                            "max_rows": None if max_rows is None else int(max_rows), "mirror": bool(mirror),
                            "init": None if init is None else str(Path(init).expanduser().resolve())},
        "optimizer": "adam (optax), mini-batches of the training rows in a random order per epoch",
        "heldout_split": "splitmix64(deal_id) / 2**64 < holdout (dokosim.train.fit.heldout_rows)",
        "input_standardization": "z-scores of the training rows during training, folded into w1 and b1",
        "epochs": history,
        "final": final,
        "final_heldout_accuracy": None if final is None else final["heldout_accuracy"],
        "heldout_chance_accuracy": chance,
        "check_rows": int(len(check_rows)),
        "check_source": check_source,
        "versions": {"dokosim": __version__, "jax": jax.__version__,
                     "jaxlib": importlib.metadata.version("jaxlib"), "optax": optax.__version__,
                     "numpy": np.__version__, "polars": polars.__version__},
        "wall_seconds": round(time.perf_counter() - started, 3),
    }
    path = manifest_path(out)
    _write_json(path, manifest)
    if final is not None:
        _say(quiet, f"held-out accuracy {final['heldout_accuracy']:.4f} (chance {chance:.4f}), agrees with the "
                    f"teacher's choice {final['heldout_choice_agreement']:.4f}; wrote {out} and {path} in "
                    f"{manifest['wall_seconds']:.1f} s")
    else:
        _say(quiet, f"wrote {out} and {path} in {manifest['wall_seconds']:.1f} s")
    return manifest
