"""``dokosim audit``: the play errors of a dataset's strategies against double-dummy play
(docs/audit.md)."""
from __future__ import annotations

import click

from ..validation import MAX_DEALS
from .options import JSON_OPTION, QUIET_OPTION, RunError, UsageError, check_out_directory


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("directory", type=click.Path())
@click.option("--tricks", type=click.IntRange(1, 12), default=6, show_default=True,
              help="Audit the cards of the last K tricks (12: every card; earlier cards are not audited).")
@click.option("--exact-tricks", type=click.IntRange(0, 12), default=6, show_default=True,
              help="Of those, the last E tricks get exact eyes (eyes lost per card); the earlier cards "
                   "get the game value's bands only.")
@click.option("--node-limit", type=click.IntRange(0, 10**12), default=2_000_000, show_default=True,
              help="Before the exact tricks: nodes of each band search; past it the card is not answered (0: no limit).")
@click.option("--deals", type=click.IntRange(1, MAX_DEALS), default=None,
              help="Audit only the first N deals (default: all).")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Also write cards.parquet (one row per audited card), summary.csv and summary.md here.")
@JSON_OPTION
@QUIET_OPTION
def audit(directory, tricks, exact_tricks, node_limit, deals, out, as_json, quiet):
    """Audit the card play of DIRECTORY (a dataset of dokosim simulate --keep-play --out DIR)
    against double-dummy play: per strategy, the mean eyes lost per card (best card's value minus
    the card played's, from the player's side, every hand open) with 95% intervals over deals,
    overall, by trick and by role (Re, Kontra, soloist), for the cards of the last E tricks; and for
    every audited card whether it changed the game value's band under best play (band swings per
    1,000 cards; before the last E tricks within --node-limit nodes per search). Only the last K
    tricks are audited."""
    from ..dd.audit import AuditError, audit as run_audit, check_dataset
    from ..records.record import RecordError
    from ..run.dataset_files import DamagedDataset
    try:
        check_dataset(directory)
    except DamagedDataset as exc:  # the same exit code as show's for a damaged chunk
        raise RunError(str(exc)) from None
    except AuditError as exc:
        raise UsageError(str(exc)) from None
    check_out_directory(out, "--out")
    try:
        result = run_audit(directory, tricks=tricks, out=out, quiet=quiet, deals=deals, exact_tricks=exact_tricks,
                           node_limit=node_limit)
    except DamagedDataset as exc:
        raise RunError(str(exc)) from None
    except (ValueError, RecordError) as exc:  # AuditError, a record the replay refuses
        raise UsageError(str(exc).splitlines()[0]) from None
    if as_json:
        import orjson
        click.echo(orjson.dumps(result.to_dict()).decode())
        return
    span = f"tricks {result.cards['trick'].min()}-{result.cards['trick'].max()}; " if result.cards.height else ""
    click.echo(f"{result.deals:,} deals, cards of the last {tricks} tricks audited "
               f"({span}earlier cards are not), {result.cards.height:,} cards, "
               f"{result.solves:,} solves in {result.seconds:.1f} s")
    click.echo(f"{'strategy':<12}{'by':<7}{'level':<9}{'deals':>7}{'cards':>8}{'eyes lost/card':>16}"
               f"{'95% interval':>20}{'share >0':>10}{'swings/1000':>13}{'95% interval':>18}"
               f"{'answered':>10}{'band swings/1000':>18}{'95% interval':>18}")
    for r in result.summary.iter_rows(named=True):
        click.echo(f"{r['strategy']:<12}{r['by']:<7}{r['level']:<9}{r['deals']:>7}{r['cards']:>8}"
                   f"{r['eyes_lost_per_card']:>16.3f}{'[' + format(r['lo'], '.3f') + ', ' + format(r['hi'], '.3f') + ']':>20}"
                   f"{r['error_share']:>10.3f}{r['swings_per_1000']:>13.2f}"
                   f"{'[' + format(r['swing_lo'], '.2f') + ', ' + format(r['swing_hi'], '.2f') + ']':>18}"
                   f"{r['band_answered']:>10.3f}{r['band_swings_per_1000']:>18.2f}"
                   f"{'[' + format(r['band_swing_lo'], '.2f') + ', ' + format(r['band_swing_hi'], '.2f') + ']':>18}")
