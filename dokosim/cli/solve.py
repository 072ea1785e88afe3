"""``dokosim solve``: game records solved double-dummy, or simulated deals solved under every
contract kind (docs/solver.md)."""
from __future__ import annotations

import sys

import click

from ..validation import MAX_NODE_LIMIT
from .options import QUIET_OPTION, RULE_OPTION, RULES_OPTION, UsageError, check_out_directory, dataset_run, parse_rules


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.File("rb"), required=False)
@click.option("--from-start", is_flag=True, help="Solve the position before the first card.")
@click.option("--par", "with_par", is_flag=True,
              help="Also the par of each record's deal: which reservations win with open cards.")
@click.option("--score", "with_score", is_flag=True,
              help="Also best play for the deal's score (game value, calls, extra points), within --node-limit.")
@click.option("--value", "with_value", is_flag=True,
              help="Also the game value: the band of Re's eyes under best play (0, 1-29, ..., 121-150, ..., 240) "
                   "and what it scores with the record's calls, within --node-limit (default 10,000,000).")
@click.option("--bands", type=click.Choice(["value", "all"]), default="value", show_default=True,
              help="With --value: search only the band edges that change the value ('90-120' without calls), or all.")
@click.option("--contract", "contract_names", multiple=True,
              help="With --deals --value: a contract to solve (normal, clubs_solo, ...; repeat for more; default normal).")
@click.option("--deals", type=click.IntRange(1, 10_000_000), default=None,
              help="Instead of FILE: solve deals 0..N-1 of --seed under every contract kind (needs --out).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True,
              help="With --deals: the deals.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="With --deals: a directory for the Parquet dataset (new, empty, or this command's own to resume).")
@click.option("--declarer", type=click.IntRange(0, 3), default=0, show_default=True,
              help="With --deals: the soloist of every solo.")
@click.option("--node-limit", type=click.IntRange(0, MAX_NODE_LIMIT), default=1_000_000,
              help="Nodes per solve; past it a solve gives null (0: no limit). Default 1,000,000 with --deals, "
                   "for each --par solve and for --score; none for a record's own position unless given.")
@click.option("--exact", is_flag=True, help="With --deals: also Re's exact eyes (much slower).")
@RULES_OPTION
@RULE_OPTION
@QUIET_OPTION
def solve(file, from_start, with_par, with_score, with_value, bands, contract_names, deals, seed, out, declarer, node_limit,
          exact, rules_spec, rule_overrides, quiet):
    """Solve game records (JSON Lines; '-' for stdin) with all hands open: one JSON line per record
    with Re's final eyes under best play by both sides (no further calls), the value of each legal
    card of the seat to move, and whether Re reaches 121, 151, 181, 211 and 240 eyes.

    The position is the one after the record's last card (--from-start: before its first). A
    complete record gives its own eyes. With --node-limit N a solve past N nodes gives nulls and
    "over_node_limit": true (from the first card of a normal game a solve may take minutes).
    Exit status 1 when any record was refused, 2 for bad usage.

    With --deals N --out DIR instead of FILE: a Parquet dataset of deals 0..N-1 of --seed, each
    solved from its first card under the normal contract and every solo of --declarer: whether Re
    reaches 121 (and Re's eyes with --exact), null past --node-limit.

    With --par, each line also has "par": every reservation the record's rules allow but a
    poverty (the normal game, a marriage, each solo of each seat) solved from the first card with the hands
    as dealt, true when its Re reaches 121 under best play, null past --node-limit (default 1
    million nodes per solve).

    With --value, each line also has "value": the band of Re's final eyes under best play by both
    sides (no further calls; the position as above) and the game value it scores with the record's
    calls (RULES.md 1.7 as Re scores it, without fox, doppelkopf and Charlie), by null-window
    searches at the band edges, null past --node-limit (default 10 million nodes, about a second).
    With --deals N --value --out DIR: one row per deal and --contract (default normal) from the
    first card: deal_id, contract, declarer, re_mask, band, band_lo, band_hi, winner, value_re,
    eyes_lo, eyes_hi, nodes, ms, answered (docs/solver.md).

    With --score, each line also has "score": Re's game value under best play for the score
    (RULES.md 1.7 as Re scores it: the calls made, schwarz, the extra points; a soloist scores it
    three times) and the value after each legal card, null past --node-limit (default 1 million
    nodes: five tricks left fit it).
    """
    ctx = click.get_current_context()
    node_limit_given = ctx.get_parameter_source("node_limit") is not click.core.ParameterSource.DEFAULT
    if not with_value and ctx.get_parameter_source("bands") is not click.core.ParameterSource.DEFAULT:
        raise UsageError("--bands belongs to --value")
    if contract_names and not (deals is not None and with_value):
        raise UsageError("--contract belongs to --deals N --value")
    if deals is not None:
        if file is not None or from_start or with_par or with_score:
            raise UsageError("give FILE (records) or --deals N --out DIR (simulated deals), not both")
        if out is None:
            raise UsageError("--deals N needs --out DIR, a directory for the dataset")
        check_out_directory(out)
        if with_value:
            if exact:
                raise UsageError("--exact belongs to --deals without --value (the band search answers bands)")
            from ..dd.deal_solves import CONTRACTS, value_deals
            rules = parse_rules(rules_spec, rule_overrides)
            for k in contract_names:
                if k not in CONTRACTS:
                    raise UsageError(f"--contract {k!r} is not valid: one of {', '.join(CONTRACTS)}")
            with dataset_run(out):
                frame = value_deals(deals, seed, out, rules, declarer, node_limit if node_limit_given else 10_000_000,
                                    list(contract_names) or ["normal"], bands, quiet=quiet)
            click.echo(f"wrote {frame.height} rows ({frame['answered'].sum()} answered) to {out}", err=True)
            return
        from ..dd.deal_solves import solve_deals
        rules = parse_rules(rules_spec, rule_overrides)
        with dataset_run(out):  # a bad argument: one line, exit 2; Ctrl-C: how to resume, exit 130
            frame = solve_deals(deals, seed, out, rules, declarer, node_limit, exact, quiet=quiet)
        click.echo(f"wrote {frame.height} deals to {out}", err=True)
        return
    for param, option in (("out", "--out"), ("exact", "--exact"), ("seed", "--seed"), ("declarer", "--declarer"),
                          ("node_limit", "--node-limit"), ("rules_spec", "--rules"), ("rule_overrides", "--rule"),
                          ("quiet", "--quiet")):
        if param == "node_limit":
            continue
        if ctx.get_parameter_source(param) is not click.core.ParameterSource.DEFAULT:
            raise UsageError(f"{option} belongs to --deals N (simulated deals); records are solved as they say")
    if file is None:
        raise UsageError("give FILE (game records, '-' for stdin) or --deals N --out DIR")
    import orjson

    from ..dd.band import VALUE_NODE_LIMIT, game_value
    from ..dd.solve import Solver, best_score
    from ..dd.solve import par as par_of_record
    from ..dd.solve import solve as solve_record
    solver = Solver()
    given = ctx.get_parameter_source("node_limit") is not click.core.ParameterSource.DEFAULT
    record_limit = node_limit if given else None
    failed = False
    write = sys.stdout.buffer.write
    from ..records.lines import LineTooLong, bounded_lines
    from ..records.record import RecordError, _form_error, is_blank_line
    for number, line in enumerate(bounded_lines(file), start=1):  # split at b"\n" only, as score reads them
        if is_blank_line(line):
            continue
        if isinstance(line, LineTooLong):  # one error line; the next lines are solved
            failed = True
            write(orjson.dumps({"line": number, **_form_error(RecordError("bad_json", line.message()))},
                               option=orjson.OPT_APPEND_NEWLINE))
            continue
        out_line = {"line": number, **solve_record(line, from_start=from_start, solver=solver,
                                                   node_limit=record_limit)}
        if with_par and out_line["ok"]:
            par_out = par_of_record(line, node_limit, solver)
            if not par_out["ok"]:
                out_line = {"line": number, **par_out}
            else:
                out_line["par"] = {k: v for k, v in par_out.items() if k != "ok"}
        if with_score and out_line["ok"]:
            score_out = best_score(line, from_start=from_start, node_limit=node_limit, solver=solver)
            if not score_out["ok"]:
                out_line = {"line": number, **score_out}
            else:
                out_line["score"] = {k: v for k, v in score_out.items()
                                     if k in ("value_re", "card_values", "over_node_limit")}
        if with_value and out_line["ok"]:
            value_out = game_value(line, from_start=from_start, solver=solver, bands=bands,
                                   node_limit=node_limit if given else VALUE_NODE_LIMIT)
            if not value_out["ok"]:
                out_line = {"line": number, **value_out}
            else:
                out_line["value"] = {k: v for k, v in value_out.items() if k not in ("ok", "complete", "cards_played")}
        failed |= not out_line["ok"]
        write(orjson.dumps(out_line, option=orjson.OPT_APPEND_NEWLINE))
        sys.stdout.flush()
    sys.exit(1 if failed else 0)
