"""The network card player's weights: their format in a ``.npz`` file, its validation, and a plain
numpy reference of the forward pass.

The network is an MLP with two ReLU layers of H units and two heads::

    h1 = relu(x @ w1 + b1);  h2 = relu(h1 @ w2 + b2)
    logits = h2 @ wp + bp           (one per card kind, N_KINDS = 24)
    value = (h2 @ wv + bv)[0]       (the seat's expected score, points)

The file holds the eight weight arrays (float32, C-contiguous) under WEIGHT_KEYS, the int64
scalars ``format_version`` (FORMAT_VERSION) and ``n_features`` (F), and optionally arrays for
checks (``check_x``, ``check_logits``, ``check_value``: rows and the trainer's outputs on them,
read with ``load_check``). numpy only (no JAX): the player and its tests read this module.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

N_KINDS = 24
"""Card kinds: the policy head's width."""
FORMAT_VERSION = 1
"""The version of the weights file's layout; ``load_weights`` refuses any other."""
WEIGHT_KEYS = ("w1", "b1", "w2", "b2", "wp", "bp", "wv", "bv")
"""The weight arrays of a network, in the order of the forward pass."""
CHECK_KEYS = ("check_x", "check_logits", "check_value")
"""Optional arrays: feature rows and the trainer's logits and values on them."""
META_KEYS = ("format_version", "n_features")
"""The int64 scalars that describe the file."""


def weight_shapes(n_features: int, hidden: int) -> dict[str, tuple[int, ...]]:
    """The shape of each weight array of a network with ``n_features`` inputs and ``hidden`` units
    per hidden layer."""
    from ..validation import check_int
    f = check_int("n_features", n_features, 1, 1 << 20, ValueError)
    h = check_int("hidden", hidden, 1, 1 << 16, ValueError)
    return {"w1": (f, h), "b1": (h,), "w2": (h, h), "b2": (h,), "wp": (h, N_KINDS), "bp": (N_KINDS,),
            "wv": (h, 1), "bv": (1,)}


def validate_weights(weights, where: str = "weights", n_features: int | None = None) -> dict[str, np.ndarray]:
    """Check a network's weights: every key of WEIGHT_KEYS present, float32, the shapes of one
    network (F and H read from ``w1``; F must equal ``n_features`` if given), all finite.
    Returns them as C-contiguous float32 arrays (only the weight keys); a ValueError of one line
    naming ``where``, the key and what was expected otherwise."""
    if not hasattr(weights, "keys") or not hasattr(weights, "__getitem__"):
        raise ValueError(f"{where}: expected a mapping of the weights {', '.join(WEIGHT_KEYS)}, not "
                         f"{type(weights).__name__}")
    for key in WEIGHT_KEYS:
        if key not in weights:
            raise ValueError(f"{where}: weight {key!r} is missing (expected the keys {', '.join(WEIGHT_KEYS)})")
    w1 = np.asarray(weights["w1"])
    if w1.ndim != 2 or w1.shape[0] < 1 or w1.shape[1] < 1:
        raise ValueError(f"{where}: weight 'w1' has shape {w1.shape}, expected (n_features, hidden)")
    if n_features is not None and w1.shape[0] != n_features:
        raise ValueError(f"{where}: weight 'w1' has shape {w1.shape}, expected ({n_features}, hidden) "
                         f"for n_features {n_features}")
    shapes = weight_shapes(*w1.shape)
    out = {}
    for key in WEIGHT_KEYS:
        array = np.asarray(weights[key])
        if array.dtype != np.float32:
            raise ValueError(f"{where}: weight {key!r} has dtype {array.dtype}, expected float32")
        if array.shape != shapes[key]:
            raise ValueError(f"{where}: weight {key!r} has shape {array.shape}, expected {shapes[key]}")
        if not np.isfinite(array).all():
            bad = int(np.size(array) - np.count_nonzero(np.isfinite(array)))
            raise ValueError(f"{where}: weight {key!r} has {bad} non-finite value(s) (NaN or infinite), "
                             f"expected finite values")
        out[key] = np.ascontiguousarray(array)
    return out


def save_weights(path, weights, extra: dict | None = None) -> Path:
    """Write a network's ``weights`` (a dict with the keys WEIGHT_KEYS, float32 arrays) to the
    ``.npz`` file ``path`` (the name as given: no suffix is added), with ``format_version`` and
    ``n_features``, and the arrays of ``extra`` (e.g. the CHECK_KEYS) under their own keys.
    The weights are validated first (``validate_weights``: ValueError). The file is written to a
    temporary name beside it and then renamed, so a reader never sees half a file. Returns the path."""
    path = Path(path)
    checked = validate_weights(weights, str(path))
    arrays: dict[str, np.ndarray] = dict(checked)
    arrays["format_version"] = np.int64(FORMAT_VERSION)
    arrays["n_features"] = np.int64(checked["w1"].shape[0])
    for key, value in (extra or {}).items():
        if key in arrays:
            raise ValueError(f"{path}: extra array {key!r} has the name of a weight or of the file's metadata")
        arrays[key] = np.ascontiguousarray(value)
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        with open(temporary, "wb") as f:
            np.savez(f, **arrays)
        temporary.replace(path)
    finally:
        temporary.unlink(missing_ok=True)
    return path


def _read_npz(path) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` file ``path``; ValueError (one line) if it is not one."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if not isinstance(data, np.lib.npyio.NpzFile):
                raise ValueError(f"{path}: not a weights file (a .npz archive), a single array")
            return {key: data[key] for key in data.files}
    except (zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"{path}: not a weights file (a .npz archive): {exc}") from None
    except TypeError:  # np.load gave a single array (.npy), which is no context manager
        raise ValueError(f"{path}: not a weights file (a .npz archive), a single array") from None
    except ValueError as exc:
        if str(exc).startswith(str(path)):
            raise
        if "allow_pickle" in str(exc):  # neither .npz nor .npy: numpy's pickle advice does not apply
            raise ValueError(f"{path}: not a weights file (a .npz archive)") from None
        raise ValueError(f"{path}: not a weights file (a .npz archive): {str(exc).splitlines()[0]}") from None


def _scalar(arrays: dict, key: str, path) -> int:
    """The integer scalar ``key`` of a weights file."""
    if key not in arrays:
        raise ValueError(f"{path}: {key!r} is missing (expected an int64 scalar; not a dokosim weights file?)")
    value = arrays[key]
    if value.shape != () or value.dtype.kind not in "iu":
        raise ValueError(f"{path}: {key!r} has dtype {value.dtype} and shape {value.shape}, expected an int64 scalar")
    return int(value)


def load_weights(path) -> dict[str, np.ndarray]:
    """The weights of the network in the ``.npz`` file ``path`` (``save_weights``): a dict of the
    keys WEIGHT_KEYS to C-contiguous float32 arrays, checked (``validate_weights``) against the
    file's ``n_features``. A file of another ``format_version``, a missing key, a wrong shape or
    dtype, or a non-finite value: ValueError (one line naming the key). A missing file: OSError."""
    arrays = _read_npz(path)
    version = _scalar(arrays, "format_version", path)
    if version != FORMAT_VERSION:
        raise ValueError(f"{path}: 'format_version' is {version}, expected {FORMAT_VERSION} "
                         f"(a file of another dokosim version?)")
    n_features = _scalar(arrays, "n_features", path)
    return validate_weights(arrays, str(path), n_features=n_features)


def load_check(path) -> dict[str, np.ndarray] | None:
    """The check arrays of the weights file ``path``: ``check_x`` (rows x F float32 feature rows),
    ``check_logits`` (rows x 24) and ``check_value`` (rows,), the trainer's forward pass on those
    rows; None if the file has none. The weights themselves are not checked here."""
    arrays = _read_npz(path)
    if not all(key in arrays for key in CHECK_KEYS):
        return None
    return {key: arrays[key] for key in CHECK_KEYS}


def forward_numpy(weights, x) -> tuple[np.ndarray, np.ndarray]:
    """The network's forward pass in plain numpy, float32 throughout: for a batch ``x`` of
    feature rows (B x F; a single row of F gives a row of logits and a scalar value) the logits
    (B x 24, not masked to the legal kinds) and the values (B,). A reference for the compiled
    player; ``weights`` as ``load_weights`` returns them."""
    if not hasattr(weights, "keys") or not hasattr(weights, "__getitem__") or any(k not in weights for k in WEIGHT_KEYS):
        validate_weights(weights, "forward_numpy: weights")  # names what is missing
    try:  # float32 throughout (a float64 copy of the weights is read as float32)
        w = {key: np.asarray(weights[key], dtype=np.float32) for key in WEIGHT_KEYS}
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"forward_numpy: weights are not arrays of numbers ({exc})") from None
    w = validate_weights(w, "forward_numpy: weights")
    try:
        x = np.asarray(x, dtype=np.float32)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"forward_numpy: x is not an array of numbers ({exc})") from None
    single = x.ndim == 1
    if single:
        x = x[None, :]
    if x.ndim != 2 or x.shape[1] != w["w1"].shape[0]:
        raise ValueError(f"forward_numpy: x has shape {x.shape}, expected (rows, {w['w1'].shape[0]})")
    h1 = np.maximum(x @ w["w1"] + w["b1"], np.float32(0))
    h2 = np.maximum(h1 @ w["w2"] + w["b2"], np.float32(0))
    logits = h2 @ w["wp"] + w["bp"]
    value = (h2 @ w["wv"] + w["bv"])[:, 0]
    if single:
        return logits[0], value[0]
    return logits, value
