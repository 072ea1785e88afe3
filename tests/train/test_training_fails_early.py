"""Issue 47, item 4: train fit checks its hyperparameters' bounds and its output name before it
reads a row, and stops at the first non-finite loss naming the options to change, instead of
training to the end (or allocating terabytes) and ending in a traceback."""
import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from dokosim.cli import main

pytestmark = pytest.mark.subprocess  # starts a dokosim process


def write_rows(directory, rows=64, n_features=6, outcome_scale=1.0, seed=0):
    """Synthetic training rows (the columns train fit reads) in one Parquet file."""
    rng = np.random.default_rng(seed)
    legal = np.full(rows, 0b111, dtype=np.int64)
    values = np.full((rows, 24), np.nan, dtype=np.float32)
    values[:, :3] = rng.standard_normal((rows, 3))
    directory.mkdir(parents=True, exist_ok=True)
    pl.DataFrame({"deal_id": np.arange(rows, dtype=np.int64), "features": rng.standard_normal((rows, n_features)).astype(np.float32),
                  "legal": legal, "values": values, "choice": np.zeros(rows, dtype=np.int8),
                  "outcome": (outcome_scale * rng.standard_normal(rows)).astype(np.float32)},
                 schema={"deal_id": pl.Int64, "features": pl.Array(pl.Float32, n_features), "legal": pl.Int64,
                         "values": pl.Array(pl.Float32, 24), "choice": pl.Int8, "outcome": pl.Float32}
                 ).write_parquet(directory / "rows.parquet")
    return directory


@pytest.mark.parametrize("option,value", [("--learning-rate", "1e30"), ("--temperature", "1e-40"),
                                          ("--value-weight", "1e300"), ("--hidden", "1000000000"),
                                          ("--learning-rate", "5"), ("--batch-size", "99999999999")])
def test_a_hyperparameter_out_of_bounds_is_one_usage_line_before_any_work(tmp_path, option, value):
    data = write_rows(tmp_path / "data")
    out = tmp_path / "w.npz"
    result = CliRunner().invoke(main, ["train", "fit", str(data), "--out", str(out), "--epochs", "1", "--quiet",
                                       option, value])
    assert result.exit_code == 2, result.output
    assert option in result.output and "Traceback" not in result.output
    assert not out.exists() and not out.with_suffix(".json").exists()


@pytest.mark.parametrize("name,value", [("learning_rate", 1e30), ("temperature", 1e-40), ("value_weight", 1e300),
                                        ("hidden", 10**9)])
def test_the_python_api_checks_the_same_bounds(tmp_path, name, value):
    from dokosim.train.fit import TrainError, fit
    with pytest.raises(TrainError, match=f"^{name}="):
        fit(write_rows(tmp_path / "data"), tmp_path / "w.npz", epochs=1, quiet=True, **{name: value})


def test_an_out_name_too_long_is_refused_before_the_work(tmp_path):
    """--out with a file name the file system cannot hold (with the manifest's name and the
    temporary names beside it) exited 1 after the training; now a usage error first."""
    data = write_rows(tmp_path / "data")
    for name in ("n" * 250 + ".npz", "n" * 300 + ".npz"):
        result = CliRunner().invoke(main, ["train", "fit", str(data), "--out", str(tmp_path / name), "--quiet"])
        assert result.exit_code == 2, result.output
        assert "too long" in result.output and "Traceback" not in result.output


def test_a_diverging_training_stops_at_its_first_non_finite_loss_naming_the_options(tmp_path):
    """Outcomes of 1e30 (finite float32) make the value head's squared error infinite at the
    first step: the run stops there, names the options, exits 1 and writes nothing."""
    data = write_rows(tmp_path / "data", outcome_scale=1e30)
    out = tmp_path / "w.npz"
    result = CliRunner().invoke(main, ["train", "fit", str(data), "--out", str(out), "--epochs", "50",
                                       "--hidden", "4", "--holdout", "0"])
    assert result.exit_code == 1, result.output
    assert "epoch 1, step 1" in result.output and "--learning-rate" in result.output
    assert "--value-weight" in result.output and "Traceback" not in result.output
    assert not out.exists()


def test_init_of_another_width_is_refused_before_the_data_is_read(tmp_path, monkeypatch):
    """--init with weights of another hidden size than --hidden was refused only after every row
    of the data had been read (minutes on a large round); the width is known from the file."""
    import dokosim.train.fit as fit_module
    from dokosim.strategies import net

    def no_reading(*args, **kwargs):
        raise AssertionError("the data was read before --init was checked")
    monkeypatch.setattr(fit_module, "load_data", no_reading)
    data = write_rows(tmp_path / "data")
    shipped = net.__file__.replace("net.py", "net_weights.npz")
    result = CliRunner().invoke(main, ["train", "fit", str(data), "--out", str(tmp_path / "w.npz"), "--quiet",
                                       "--init", shipped, "--hidden", "16"])
    assert result.exit_code == 2, result.output
    last = result.output.splitlines()[-1]
    assert last.startswith("Error: --init ") and "128 hidden units" in last and "--hidden is 16" in last
    assert "Traceback" not in result.output
    assert not (tmp_path / "w.npz").exists()
