"""``dokosim solve --deals``: simulated deals solved from the first card under every contract kind."""
import json

import polars as pl
import pytest
from click.testing import CliRunner

import dokosim
from dokosim.cli.solve import solve as solve_cmd
from dokosim.run.simulate import simulate
from dokosim.dd.deal_solves import CONTRACTS, SolveDealsError, columns, solve_deals


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    out = tmp_path_factory.mktemp("par") / "data"
    frame = solve_deals(4, seed=2, out=out, node_limit=200_000, exact=True, chunk=3)
    return out, frame


def test_every_value_is_the_solver_s_on_the_record_of_that_contract(solved):
    _, frame = solved
    assert frame.columns == columns() and frame["deal_id"].to_list() == [0, 1, 2, 3]
    resolved = 0
    for k in CONTRACTS:
        records = [json.loads(r) for r in simulate(4, seed=2, contract=k, declarer=0, calls=False,
                                                    keep_play=True)["record"]]
        for record, row in zip(records, frame.iter_rows(named=True)):
            assert record["hands"] == [row[f"hand_{s}"] for s in range(4)]  # the same cards for every contract
            eyes, wins = row[f"re_eyes_{k}"], row[f"re_wins_{k}"]
            if eyes is not None:
                reference = dokosim.solve({**record, "play": [], "announcements": []}, from_start=True)
                assert eyes == reference["eyes_re"] and wins == (eyes >= 121)
                resolved += 1
    assert resolved >= 8  # most solos resolve within the limit


def test_the_dataset_on_disk_is_what_was_returned(solved):
    out, frame = solved
    from dokosim.run.driver import meta_dir
    settings = json.loads((meta_dir(out) / "solve.json").read_text())
    assert settings["deals"] == 4 and settings["node_limit"] == 200_000 and settings["exact"] is True
    assert sorted(p.name for p in out.glob("part-*.parquet")) == ["part-000000.parquet", "part-000001.parquet"]
    assert pl.read_parquet(out / "part-*.parquet").sort("deal_id").equals(frame)


def test_bad_arguments_are_named(tmp_path):
    with pytest.raises(SolveDealsError, match="declarer"):
        solve_deals(2, declarer=4)
    with pytest.raises(SolveDealsError, match="deals"):
        solve_deals(0)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("keep me")
    with pytest.raises(SolveDealsError, match="is not empty and is not a dokosim run"):
        solve_deals(2, out=tmp_path / "full")
    assert (tmp_path / "full" / "x").read_text() == "keep me"
    runner = CliRunner()
    for args in (["--deals", "2"], ["--deals", "2", "--out", str(tmp_path / "full")],
                 ["examples/records.jsonl", "--deals", "2", "--out", str(tmp_path / "new")],
                 ["examples/records.jsonl", "--exact"]):
        result = runner.invoke(solve_cmd, args)
        assert result.exit_code == 2, (args, result.output)
        assert len([line for line in result.output.splitlines() if line.startswith("Error")]) == 1


def test_only_the_solos_the_rules_allow(tmp_path):
    frame = solve_deals(2, seed=3, rules={"preset": "ddv", "solos": ["queens"]}, node_limit=50_000)
    assert frame.columns == columns(("normal", "queens_solo"))
    with pytest.raises(SolveDealsError, match="contracts"):
        solve_deals(2, rules={"preset": "ddv", "solos": ["queens"]}, contracts=["jacks_solo"])
    result = CliRunner().invoke(solve_cmd, ["--deals", "2", "--node-limit", "50000", "--out", str(tmp_path / "q"),
                                            "--rule", "solos=['queens']"])
    assert result.exit_code == 0, result.output
    assert pl.read_parquet(tmp_path / "q" / "part-*.parquet").columns == columns(("normal", "queens_solo"))


def test_deal_options_are_refused_with_records():
    # (--node-limit is a budget for records too: tests/solver/test_par.py)
    for args in (["examples/records.jsonl", "--seed", "3"], ["examples/records.jsonl", "--rules", "club"]):
        result = CliRunner().invoke(solve_cmd, args)
        assert result.exit_code == 2 and "belongs to --deals" in result.output, (args, result.output)
