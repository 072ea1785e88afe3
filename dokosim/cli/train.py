"""``dokosim train``: train the network player ``net`` from a teacher's decisions; ``train fit``
fits its weights with JAX and optax (dokosim.train.fit, the optional extra ``dokosim[train]``).
JAX, polars and the training code are imported inside the command, so ``dokosim --help`` stays fast."""
from __future__ import annotations

import click

from .options import SEED_OPTION, UsageError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def train():
    """Train a network player from a teacher's decisions (docs/strategies.md)."""


@train.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("data_dir", type=click.Path())
@click.option("--out", required=True, type=click.Path(),
              help="The weights file to write (FILE.npz); the manifest goes beside it (FILE.json).")
@click.option("--hidden", type=click.IntRange(min=1), default=128, show_default=True, help="Units per hidden layer.")
@click.option("--epochs", type=click.IntRange(min=1), default=10, show_default=True,
              help="Passes over the training rows.")
@click.option("--batch-size", type=click.IntRange(min=1), default=512, show_default=True, help="Rows per Adam step.")
@click.option("--learning-rate", type=click.FloatRange(min=0, min_open=True), default=1e-3, show_default=True,
              help="Adam's learning rate.")
@click.option("--temperature", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
              help="The policy's target: softmax(values / temperature) over the legal kinds (score points).")
@click.option("--value-weight", type=click.FloatRange(min=0), default=0.1, show_default=True,
              help="Weight of the value head's squared error in the loss.")
@click.option("--holdout", type=click.FloatRange(0, 1, max_open=True), default=0.1, show_default=True,
              help="Fraction of the deals held out to measure (chosen by a hash of deal_id).")
@SEED_OPTION
@click.option("--max-rows", type=click.IntRange(min=1), default=None, help="Read only the first rows.")
@click.option("--quiet", is_flag=True, help="No progress lines.")
def fit(data_dir, out, hidden, epochs, batch_size, learning_rate, temperature, value_weight, holdout, seed,
        max_rows, quiet):
    """Fit the network's weights to the teacher's decisions in DATA_DIR (Parquet files of
    dokosim train data) and write them to --out, with a manifest (FILE.json) beside them; one
    line per epoch (train loss, held-out loss, accuracy, agreement with the teacher's choice)."""
    from ..train.fit import TrainError, check_output, fit as run, parquet_files
    try:
        check_output(out)
        parquet_files(data_dir)
        run(data_dir, out, hidden=hidden, epochs=epochs, batch_size=batch_size, learning_rate=learning_rate,
            temperature=temperature, value_weight=value_weight, holdout=holdout, seed=seed, max_rows=max_rows,
            quiet=quiet)
    except TrainError as exc:
        raise UsageError(str(exc)) from None
