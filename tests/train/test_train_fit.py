"""``dokosim train fit`` (dokosim.train.fit) and the weight format (dokosim.train.network) on a
synthetic teacher: its values are a fixed random linear function of the features, its legal masks
random. The network learns it well above chance; the weights file holds the JAX forward pass on
held-out rows, which the numpy reference reproduces; a seed gives bit-identical weights; a bad
weights file or a bad command line is refused in one line."""
import json
import importlib.util

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from dokosim.train.network import (
    CHECK_KEYS, FORMAT_VERSION, WEIGHT_KEYS, forward_numpy, load_check, load_weights, save_weights, weight_shapes,
)



def needs_jax():
    """Skip a test that fits if JAX or optax is not installed (CI's test extra has them)."""
    if importlib.util.find_spec("jax") is None or importlib.util.find_spec("optax") is None:
        pytest.importorskip("jax")
        pytest.importorskip("optax")

ROWS, F, FIT = 3000, 40, dict(hidden=16, epochs=8, batch_size=64, learning_rate=1e-2, holdout=0.3, quiet=True)


def write_dataset(directory, rows=ROWS, n_features=F, seed=1, files=2):
    """A synthetic teacher's decisions as Parquet files in ``directory`` (with a manifest to be
    ignored); returns the chance accuracy of a random legal kind, mean(1 / legal count)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, n_features)).astype(np.float32)
    teacher = rng.standard_normal((n_features, 24)).astype(np.float32)
    scores = x @ teacher
    counts = rng.integers(2, 9, rows)
    legal = np.array([np.bitwise_or.reduce(np.int64(1) << rng.choice(24, k, replace=False).astype(np.int64))
                      for k in counts], dtype=np.int64)
    mask = ((legal[:, None] >> np.arange(24)) & 1).astype(bool)
    deal_id = np.arange(rows, dtype=np.int64) // 12
    frame = pl.DataFrame(
        {"deal_id": deal_id, "seat": (deal_id % 4).astype(np.int8), "trick": (np.arange(rows) % 12).astype(np.int8),
         "features": x, "legal": legal, "values": np.where(mask, scores, np.nan).astype(np.float32),
         "choice": np.where(mask, scores, -np.inf).argmax(axis=1).astype(np.int8),
         "outcome": (3 * x[:, 0] + rng.standard_normal(rows)).astype(np.float32)},
        schema={"deal_id": pl.Int64, "seat": pl.Int8, "trick": pl.Int8, "features": pl.Array(pl.Float32, n_features),
                "legal": pl.Int64, "values": pl.Array(pl.Float32, 24), "choice": pl.Int8, "outcome": pl.Float32})
    directory.mkdir(parents=True, exist_ok=True)
    bounds = np.linspace(0, rows, files + 1).astype(int)
    for k in range(files):
        frame.slice(bounds[k], bounds[k + 1] - bounds[k]).write_parquet(directory / f"part-{k:05d}.parquet")
    (directory / "_manifest.json").write_text(json.dumps({"kind": "train_data"}))
    return float(np.mean(1.0 / mask.sum(axis=1)))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The dataset, its chance accuracy, and the manifests and weight files of three fits:
    seed 0 twice and seed 1."""
    needs_jax()
    from dokosim.train.fit import fit
    root = tmp_path_factory.mktemp("train_fit")
    chance = write_dataset(root / "data")
    runs = {}
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        out = root / f"{name}.npz"
        runs[name] = (fit(root / "data", out, seed=seed, **FIT), out)
    return root, chance, runs


def test_the_network_learns_the_teacher_well_above_chance(trained):
    _, chance, runs = trained
    manifest, out = runs["a"]
    assert 0.2 < chance < 0.35
    accuracy = manifest["final_heldout_accuracy"]
    assert accuracy > chance + 0.2, (accuracy, chance)
    assert abs(manifest["heldout_chance_accuracy"] - chance) < 0.05  # the same, on the held-out rows
    assert manifest["final"]["heldout_choice_agreement"] == pytest.approx(accuracy)  # the teacher plays its best
    epochs = manifest["epochs"]
    assert len(epochs) == FIT["epochs"] and epochs[-1]["train_loss"] < epochs[0]["train_loss"]
    assert epochs[-1]["heldout_loss"] < epochs[0]["heldout_loss"]


def test_the_manifest_beside_the_weights(trained):
    root, _, runs = trained
    manifest, out = runs["a"]
    assert json.loads(out.with_suffix(".json").read_text()) == manifest
    assert manifest["command"] == "train fit" and manifest["n_features"] == F
    assert manifest["rows"]["total"] == ROWS == manifest["rows"]["train"] + manifest["rows"]["heldout"]
    assert manifest["deals"]["total"] == ROWS // 12 == manifest["deals"]["train"] + manifest["deals"]["heldout"]
    assert 0.2 < manifest["rows"]["heldout"] / ROWS < 0.4
    assert manifest["hyperparameters"] == {"hidden": 16, "epochs": 8, "batch_size": 64, "learning_rate": 0.01,
                                           "temperature": 1.0, "value_weight": 0.1, "holdout": 0.3, "seed": 0,
                                           "max_rows": None, "mirror": False, "init": None}
    assert manifest["files"] == 2 and manifest["data_dir"] == str((root / "data").resolve())
    assert {"jax", "optax", "jaxlib", "numpy"} <= set(manifest["versions"]) and manifest["wall_seconds"] > 0


def test_the_numpy_forward_pass_reproduces_the_stored_check(trained):
    _, _, runs = trained
    manifest, out = runs["a"]
    weights = load_weights(out)
    assert set(weights) == set(WEIGHT_KEYS)
    for key, shape in weight_shapes(F, 16).items():
        assert weights[key].shape == shape and weights[key].dtype == np.float32 and weights[key].flags.c_contiguous
    check = load_check(out)
    assert check["check_x"].shape == (1000, F) and check["check_logits"].shape == (1000, 24)
    assert check["check_value"].shape == (1000,) and manifest["check_rows"] == 1000
    assert all(check[key].dtype == np.float32 for key in CHECK_KEYS)
    logits, value = forward_numpy(weights, check["check_x"])
    assert np.abs(logits - check["check_logits"]).max() <= 1e-5
    assert np.abs(value - check["check_value"]).max() <= 1e-5
    with np.load(out) as raw:
        assert raw["format_version"] == FORMAT_VERSION and raw["format_version"].dtype == np.int64
        assert raw["n_features"] == F and raw["n_features"].dtype == np.int64
    one_logits, one_value = forward_numpy(weights, check["check_x"][3])
    assert np.array_equal(one_logits, logits[3]) and one_value == value[3]


def test_a_seed_gives_bit_identical_weights(trained):
    _, _, runs = trained
    a, b, c = (load_weights(runs[name][1]) for name in "abc")
    assert all(np.array_equal(a[key], b[key]) for key in WEIGHT_KEYS)
    assert runs["a"][0]["epochs"][-1]["train_loss"] == runs["b"][0]["epochs"][-1]["train_loss"]
    assert not np.array_equal(a["w1"], c["w1"])


def test_the_held_out_split_follows_the_deal():
    from dokosim.train.fit import heldout_rows
    deal_id = np.repeat(np.arange(20_000, dtype=np.int64), 3)
    held = heldout_rows(deal_id, 0.1)
    assert (held.reshape(-1, 3) == held.reshape(-1, 3)[:, :1]).all()
    assert 0.09 < held.mean() < 0.11
    assert np.array_equal(heldout_rows(deal_id[::-1], 0.1), held[::-1])
    assert not heldout_rows(deal_id, 0.0).any()


def test_bad_data_is_one_line(tmp_path):
    needs_jax()
    from dokosim.train.fit import TrainError, fit
    data = tmp_path / "data"
    write_dataset(data, rows=120, n_features=5, files=1)
    frame = pl.read_parquet(data / "part-00000.parquet")
    frame.with_columns(pl.when(pl.int_range(pl.len()) == 7).then(0).otherwise(pl.col("legal")).alias("legal")) \
        .write_parquet(data / "part-00000.parquet")
    with pytest.raises(TrainError, match=r"part-00000.parquet: 1 row\(s\) have a legal mask that is empty.*row 7"):
        fit(data, tmp_path / "w.npz", quiet=True)
    frame.drop("outcome").write_parquet(data / "part-00000.parquet")
    with pytest.raises(TrainError, match="column\\(s\\) outcome missing"):
        fit(data, tmp_path / "w.npz", quiet=True)
    with pytest.raises(TrainError, match="holdout"):
        fit(data, tmp_path / "w.npz", holdout=1.0)


@pytest.mark.subprocess
def test_fit_refuses_to_overwrite_a_file_it_did_not_write(trained, tmp_path):
    from dokosim.train.fit import TrainError, check_output
    root, _, runs = trained
    assert check_output(runs["a"][1]) == runs["a"][1]  # its own output: replaced by a new fit
    other = tmp_path / "notes.npz"
    other.write_text("mine")
    with pytest.raises(TrainError, match="exists and is not a dokosim weights file"):
        check_output(other)
    (tmp_path / "w.json").write_text("{}")
    with pytest.raises(TrainError, match="not written by dokosim train fit"):
        check_output(tmp_path / "w.npz")
    with pytest.raises(TrainError, match="give a .npz name"):
        check_output(tmp_path / "w2.json")


def _weights(hidden=4, n_features=3):
    rng = np.random.default_rng(5)
    return {key: rng.standard_normal(shape).astype(np.float32) for key, shape in weight_shapes(n_features, hidden).items()}


def test_load_weights_round_trips_and_rejects_a_bad_file(tmp_path):
    path = tmp_path / "w.npz"
    weights = _weights()
    save_weights(path, weights)
    assert path.exists() and not (tmp_path / "w.npz.npz").exists()
    loaded = load_weights(path)
    assert all(np.array_equal(loaded[key], weights[key]) for key in WEIGHT_KEYS)
    assert load_check(path) is None

    def rejected(change, pattern):
        arrays = dict(np.load(path))
        change(arrays)
        bad = tmp_path / "bad.npz"
        with open(bad, "wb") as f:
            np.savez(f, **arrays)
        with pytest.raises(ValueError, match=pattern) as info:
            load_weights(bad)
        assert "\n" not in str(info.value)

    rejected(lambda a: a.pop("w2"), "weight 'w2' is missing")
    rejected(lambda a: a.update(bp=np.zeros(23, np.float32)), r"weight 'bp' has shape \(23,\), expected \(24,\)")
    rejected(lambda a: a.update(w2=np.zeros((4, 5), np.float32)), r"weight 'w2' has shape \(4, 5\), expected \(4, 4\)")
    rejected(lambda a: a.update(w1=np.zeros((7, 4), np.float32)), r"weight 'w1' has shape \(7, 4\), expected \(3, hidden\)")
    rejected(lambda a: a["b1"].__setitem__(2, np.nan), "weight 'b1' has 1 non-finite value")
    rejected(lambda a: a.update(wv=a["wv"].astype(np.float64)), "weight 'wv' has dtype float64, expected float32")
    rejected(lambda a: a.update(format_version=np.int64(2)), "'format_version' is 2, expected 1")
    rejected(lambda a: a.pop("n_features"), "'n_features' is missing")
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(ValueError, match="not a weights file"):
        load_weights(tmp_path / "text.npz")
    with pytest.raises(ValueError, match="weight 'bv' is missing"):
        save_weights(tmp_path / "x.npz", {k: v for k, v in weights.items() if k != "bv"})


def test_a_file_that_is_no_numpy_file_is_refused_without_numpy_s_pickle_advice(tmp_path):
    """A text file given as weights (--init notes.txt) named numpy's advice to load it unsafely
    with allow_pickle; it is simply not a weights file."""
    (tmp_path / "notes.txt").write_text("some notes, not weights\n")
    with pytest.raises(ValueError) as info:
        load_weights(tmp_path / "notes.txt")
    assert str(info.value) == f"{tmp_path / 'notes.txt'}: not a weights file (a .npz archive)"


def test_forward_numpy_is_the_mlp():
    weights = _weights()
    x = np.random.default_rng(6).standard_normal((5, 3)).astype(np.float32)
    h2 = np.maximum(np.maximum(x @ weights["w1"] + weights["b1"], 0) @ weights["w2"] + weights["b2"], 0)
    logits, value = forward_numpy(weights, x)
    assert logits.dtype == np.float32 and value.dtype == np.float32 and logits.shape == (5, 24)
    np.testing.assert_allclose(logits, h2 @ weights["wp"] + weights["bp"], rtol=1e-6)
    np.testing.assert_allclose(value, h2 @ weights["wv"][:, 0] + weights["bv"][0], rtol=1e-6)


def _error_lines(result):
    return [line for line in result.output.splitlines() if line.startswith("Error")]


def test_the_command_line_refuses_bad_usage_in_one_line(tmp_path):
    from dokosim.cli.train import train
    runner = CliRunner()

    def refused(args, text):
        result = runner.invoke(train, ["fit", *map(str, args)])
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        errors = _error_lines(result)
        assert len(errors) == 1 and text in errors[0], result.output

    refused([tmp_path / "missing", "--out", tmp_path / "w.npz"], "does not exist")
    (tmp_path / "empty").mkdir()
    refused([tmp_path / "empty", "--out", tmp_path / "w.npz"], "no Parquet files")
    data = tmp_path / "data"
    write_dataset(data, rows=24, n_features=3, files=1)
    refused([data, "--out", tmp_path / "nowhere" / "w.npz"], "does not exist")  # before any work
    refused([data, "--out", tmp_path], "is a directory")
    refused([data, "--out", tmp_path / "w.npz", "--holdout", "1"], "--holdout")
    pl.read_parquet(data / "part-00000.parquet").clear().write_parquet(tmp_path / "empty" / "part-00000.parquet")
    needs_jax()
    refused([tmp_path / "empty", "--out", tmp_path / "w.npz"], "has no rows")


def test_the_command_line_fits(trained, tmp_path):
    from dokosim.cli.train import train
    root, _, _ = trained
    out = tmp_path / "cli.npz"
    result = CliRunner().invoke(train, ["fit", str(root / "data"), "--out", str(out), "--hidden", "8", "--epochs",
                                        "1", "--max-rows", "500", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "epoch 1/1: train loss" in result.output
    manifest = json.loads(out.with_suffix(".json").read_text())
    assert manifest["rows"]["total"] == 500 and manifest["hyperparameters"]["hidden"] == 8
    assert load_weights(out)["w1"].shape == (F, 8)


def test_two_rounds_are_fitted_together_as_different_deals(trained, tmp_path):
    """Several DATA_DIRs (rounds of train data with the same deal_ids, different deals): every
    row of each is read, the deals count apart, and the manifest names both directories."""
    from dokosim.cli.train import train
    from dokosim.train.fit import load_data
    root, _, _ = trained
    write_dataset(tmp_path / "round2", rows=1200, seed=2)
    both = load_data([root / "data", tmp_path / "round2"])
    assert len(both["outcome"]) == ROWS + 1200
    assert np.unique(both["deal_id"]).size == ROWS // 12 + 1200 // 12
    out = tmp_path / "two.npz"
    result = CliRunner().invoke(train, ["fit", str(root / "data"), str(tmp_path / "round2"), "--out", str(out),
                                        "--hidden", "8", "--epochs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    manifest = json.loads(out.with_suffix(".json").read_text())
    assert manifest["rows"]["total"] == ROWS + 1200 and len(manifest["data_dir"]) == 2
    assert manifest["deals"]["total"] == ROWS // 12 + 1200 // 12
    missing = CliRunner().invoke(train, ["fit", str(root / "data"), str(tmp_path / "nowhere"), "--out",
                                         str(tmp_path / "x.npz")])
    assert missing.exit_code == 2 and "nowhere" in missing.output


def test_rounds_of_one_seed_share_their_deals_and_a_directory_named_twice_is_refused(tmp_path):
    """Two rounds made with the same seed hold the same deals (the same hands per deal_id): their
    rows count as the same deals, so the held-out split keeps a deal's rows of both rounds on one
    side; the same directory twice is refused in one line."""
    from dokosim.train.fit import TrainError, heldout_rows, load_data
    for name in ("a", "b"):
        write_dataset(tmp_path / name, rows=600, seed=4)
        (tmp_path / name / "manifest.json").write_text(json.dumps({"kind": "train_data", "seed": 3}))
    both = load_data([tmp_path / "a", tmp_path / "b"])
    assert len(both["outcome"]) == 1200 and np.unique(both["deal_id"]).size == 600 // 12
    held = heldout_rows(both["deal_id"], 0.3)
    assert (held[:600] == held[600:]).all()  # deal by deal, the same side in both rounds
    with pytest.raises(TrainError, match="named more than once") as refused:
        load_data([tmp_path / "a", tmp_path / "b", tmp_path / "a"])
    assert str(tmp_path / "a") in str(refused.value) and str(tmp_path / "b") not in str(refused.value)


def test_mirror_teaches_the_suit_the_data_never_shows(tmp_path):
    """A teacher symmetric under the clubs-spades mirror, data in which spades never appear (every
    spades feature 0): fitted with --mirror the network plays the mirrored positions (spades only)
    about as well as the ones it saw; fitted without, it cannot."""
    needs_jax()
    from dokosim.strategies import net_features as nf
    from dokosim.train.fit import fit
    rng = np.random.default_rng(3)
    rows = 4000
    kinds, features = nf.MIRROR_KINDS[0], nf.MIRROR_FEATURES[0]
    x = rng.standard_normal((rows, nf.N_FEATURES)).astype(np.float32)
    x[:, nf.F_CONTRACT:nf.F_CONTRACT + nf.N_CONTRACTS] = 0.0
    x[:, nf.F_CONTRACT] = 1.0  # a normal game: mirror group 0
    spades = np.array([i for i in range(nf.N_FEATURES) if features[i] != i and features[i] < i])
    x[:, spades] = 0.0
    t = rng.standard_normal((nf.N_FEATURES, 24))
    teacher = (t + t[features][:, kinds]) / 2  # mirror(x) @ teacher == (x @ teacher)[:, kinds]
    legal = np.full(rows, (1 << 24) - 1, dtype=np.int64)
    scores = (x @ teacher).astype(np.float32)
    deal_id = np.arange(rows, dtype=np.int64) // 10
    frame = pl.DataFrame({"deal_id": deal_id, "features": x, "legal": legal, "values": scores,
                          "choice": scores.argmax(axis=1).astype(np.int8), "outcome": x[:, 0]},
                         schema={"deal_id": pl.Int64, "features": pl.Array(pl.Float32, nf.N_FEATURES),
                                 "legal": pl.Int64, "values": pl.Array(pl.Float32, 24), "choice": pl.Int8,
                                 "outcome": pl.Float32})
    (tmp_path / "d").mkdir()
    frame.write_parquet(tmp_path / "d" / "part-0.parquet")
    held = x[-400:]
    mirrored, _, _ = nf.mirror_rows(held, legal[-400:].astype(np.int32), scores[-400:])
    accuracy = {}
    for mirror in (False, True):
        out = tmp_path / f"w{int(mirror)}.npz"
        fit(tmp_path / "d", out, hidden=32, epochs=10, batch_size=64, learning_rate=3e-3, temperature=0.3,
            holdout=0.0, mirror=mirror, quiet=True)
        w = load_weights(out)
        for name, xs in (("seen", held), ("mirrored", mirrored)):
            logits, _ = forward_numpy(w, xs)
            accuracy[mirror, name] = float(np.mean(logits.argmax(axis=1) == (xs @ teacher).argmax(axis=1)))
    assert accuracy[True, "mirrored"] > accuracy[True, "seen"] - 0.1
    assert accuracy[True, "mirrored"] > accuracy[False, "mirrored"] + 0.2, accuracy


def test_init_starts_from_the_given_weights(trained, tmp_path):
    """--init: a fit that cannot move (learning rate 1e-9, one epoch) returns the weights it
    started from (unfolding and folding the standardization again is the identity), and a file
    of another width is refused in one line before the work."""
    from dokosim.train.fit import TrainError, fit
    root, _, runs = trained
    start = runs["a"][1]
    out = tmp_path / "again.npz"
    fit(root / "data", out, hidden=16, epochs=1, batch_size=64, learning_rate=1e-9, holdout=0.3, init=start,
        quiet=True)
    before, after = load_weights(start), load_weights(out)
    for key in WEIGHT_KEYS:
        np.testing.assert_allclose(after[key], before[key], rtol=1e-4, atol=1e-4, err_msg=key)
    assert json.loads(out.with_suffix(".json").read_text())["hyperparameters"]["init"] == str(start.resolve())
    with pytest.raises(TrainError, match="hidden units"):
        fit(root / "data", tmp_path / "wide.npz", hidden=32, epochs=1, init=start, quiet=True)
    with pytest.raises(TrainError, match="not a weights file"):
        fit(root / "data", tmp_path / "bad.npz", hidden=16, epochs=1, init=tmp_path / "missing.npz", quiet=True)
