"""``dokosim train``: train the network player ``net`` from a teacher's decisions; ``train data``
plays the teacher's deals and writes its card decisions (dokosim.train.data); ``train fit``
fits its weights with JAX and optax (dokosim.train.fit, the optional extra ``dokosim[train]``).
JAX, polars and the training code are imported inside the command, so ``dokosim --help`` stays fast."""
from __future__ import annotations

import click

from .options import (
    CONDITION_OPTIONS, RULE_OPTION, RULES_OPTION, SEED_OPTION, RunError, UsageError, check_out_directory,
    condition_kwargs, parse_rules, resumable,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def train():
    """Train a network player from a teacher's decisions (docs/strategies.md)."""


@train.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("data_dir", nargs=-1, required=True, type=click.Path())
@click.option("--out", required=True, type=click.Path(),
              help="The weights file to write (FILE.npz); the manifest goes beside it (FILE.json).")
@click.option("--hidden", type=click.IntRange(1, 4096), default=128, show_default=True, help="Units per hidden layer.")
@click.option("--epochs", type=click.IntRange(1, 10**6), default=10, show_default=True,
              help="Passes over the training rows.")
@click.option("--batch-size", type=click.IntRange(1, 1 << 20), default=512, show_default=True, help="Rows per Adam step.")
@click.option("--learning-rate", type=click.FloatRange(1e-9, 1.0), default=1e-3, show_default=True,
              help="Adam's learning rate.")
@click.option("--temperature", type=click.FloatRange(1e-3, 1e6), default=1.0, show_default=True,
              help="The policy's target: softmax(values / temperature) over the legal kinds (score points).")
@click.option("--value-weight", type=click.FloatRange(0, 1e6), default=0.1, show_default=True,
              help="Weight of the value head's squared error in the loss.")
@click.option("--holdout", type=click.FloatRange(0, 1, max_open=True), default=0.1, show_default=True,
              help="Fraction of the deals held out to measure (chosen by a hash of deal_id).")
@SEED_OPTION
@click.option("--max-rows", type=click.IntRange(min=1), default=None, help="Read only the first rows.")
@click.option("--mirror", is_flag=True,
              help="Train on each decision's clubs-spades mirror too (a random half of every batch "
                   "mirrored; docs/strategies.md).")
@click.option("--init", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Start from these weights (a weights file of train fit, e.g. net's shipped "
                   "dokosim/strategies/net_weights.npz) instead of random ones; --hidden must match.")
@click.option("--quiet", is_flag=True, help="No progress lines.")
def fit(data_dir, out, hidden, epochs, batch_size, learning_rate, temperature, value_weight, holdout, seed,
        max_rows, mirror, init, quiet):
    """Fit the network's weights to the teacher's decisions in DATA_DIR (Parquet files of
    dokosim train data; several directories, e.g. two rounds, are trained on together) and write them to --out, with a manifest (FILE.json) beside them; one
    line per epoch (train loss, held-out loss, accuracy, agreement with the teacher's choice)."""
    from ..train.fit import Diverged, TrainError, check_output, fit as run, parquet_files
    try:
        check_output(out)
        data_dir = data_dir[0] if len(data_dir) == 1 else list(data_dir)
        parquet_files(data_dir)
        run(data_dir, out, hidden=hidden, epochs=epochs, batch_size=batch_size, learning_rate=learning_rate,
            temperature=temperature, value_weight=value_weight, holdout=holdout, seed=seed, max_rows=max_rows,
            mirror=mirror, init=init, quiet=quiet)
    except Diverged as exc:  # not a usage error: the data and the options met badly
        raise RunError(str(exc)) from None
    except TrainError as exc:
        raise UsageError(str(exc)) from None


@train.command("data", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--deals", type=click.IntRange(1, 10**9), required=True, help="Deals to play (0 .. DEALS-1 of --seed).")
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="A directory for the Parquet rows (new, empty, or this command's own to resume).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option("--teacher", type=click.Choice(["pimc", "pimc_solver"]), default="pimc", show_default=True,
              help="The search player at every seat whose values are recorded.")
@click.option("--param", "param_items", multiple=True, metavar="NAME=VALUE",
              help="A parameter of the teacher (repeatable), e.g. samples=40.")
@click.option("--player", default=None, metavar="STRATEGY",
              help="The built-in strategy that plays the deals at every seat (default: the teacher); "
                   "the teacher values its card decisions, e.g. --player net for a second round.")
@RULES_OPTION
@RULE_OPTION
@click.option("--contract", default=None,
              help="Force a contract (normal, marriage or <kind>_solo): the declarer says it, the "
                   "others healthy; the situations a question asks about, e.g. queens_solo.")
@click.option("--declarer", type=click.IntRange(0, 3), default=0, show_default=True,
              help="Seat that declares the forced contract.")
@click.option("--compulsory", is_flag=True, help="A forced solo is compulsory (the soloist leads).")
@CONDITION_OPTIONS
@click.option("--chunk-size", type=click.IntRange(1, 10**6), default=50, show_default=True,
              help="Deals per chunk (the unit an interruption can lose).")
@click.option("--jobs", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Worker processes playing chunks at once (one core each).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def data(deals, out, seed, teacher, param_items, player, rules_spec, rule_overrides, contract, declarer,
         compulsory, hand_items, where, where_path, chunk_size, jobs, quiet):
    """Play DEALS deals with the teacher at every seat and write, for every card decision with a
    choice, the net player's features, the legal kinds, the teacher's value of every legal kind,
    the kind played and the deal's score for the seat (docs/strategies.md, "net"). --contract,
    --hand and --where deal and force the situations to learn from, as in dokosim simulate."""
    params = {}
    for item in param_items:
        name, eq, value = item.partition("=")
        if not eq:
            raise UsageError(f"--param {item!r}: expected NAME=VALUE, e.g. samples=40")
        try:
            params[name.strip()] = float(value)
        except ValueError:
            raise UsageError(f"--param {item!r}: {value!r} is not a number") from None
    # Ctrl-C: the resume hint and exit code 130, as every dataset command; from here on, so that
    # one during the imports (polars, numba: seconds on a busy machine) ends the command so too
    with resumable(out):
        from ..run.workers import WorkerLost
        from ..train.data import TrainDataError, make_data
        rules_obj = parse_rules(rules_spec, rule_overrides)
        check_out_directory(out)
        try:
            deal_plan = {"contract": contract, "declarer": declarer if contract else None,
                         "compulsory": compulsory, **condition_kwargs(hand_items, where, where_path)}
            make_data(deals, out, seed=seed, teacher=teacher, params=params, rules=rules_obj,
                      chunk_size=chunk_size, jobs=jobs, quiet=quiet, player=player, deal_plan=deal_plan)
        except (TrainDataError, ValueError) as exc:  # bad parameters, another run's directory
            raise UsageError(str(exc)) from None
        except WorkerLost as exc:
            raise RunError(str(exc)) from None
