"""Issue 47, items 1 and 2: a dataset is read from its own directory whatever its name (no reader
globs a user's path, nothing outside the directory is read), and the chunks are the truth (a
metadata folder or ledger of another run never makes a reader show or count other deals)."""
import json
import shutil
import tempfile
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

import dokosim
from dokosim.cli import main
from dokosim.cli.show_text import render
from dokosim.run import driver

HOSTILE = "[]?*{},!- _~" + "abc" + "äß€中😀" + "\u00a0"
"""Glob and shell characters, spaces, unicode (no '/', NUL or '.': a file name's own limits)."""


def make(path, deals, seed, chunk_size=10):
    """A keep-play dataset of ``deals`` random deals of ``seed`` at ``path``."""
    dokosim.simulate(deals, seed=seed, strategy="random", keep_play=True, out=str(path), chunk_size=chunk_size)
    return path


def shown(directory, deal_id):
    """``dokosim show DIR --deal-id N`` (in process): (exit code, output)."""
    result = CliRunner().invoke(main, ["show", "--deal-id", str(deal_id), "--", str(directory)])
    return result.exit_code, result.output


def check_own_rows(directory, deals, seed):
    """scan, read_parquet, show and audit see exactly the ``deals`` rows of ``directory``."""
    frame = dokosim.dataset.scan(directory).collect()
    assert frame["deal_id"].to_list() == list(range(deals))
    own = dokosim.simulate(deals, seed=seed, strategy="random", keep_play=True)
    assert frame["record"].to_list() == own["record"].to_list()
    assert pl.read_parquet(str(directory), glob=False)["deal_id"].sort().to_list() == list(range(deals))
    code, out = shown(directory, deals - 1)
    assert code == 0, out
    assert render(json.loads(own["record"][deals - 1]), 0) in out
    result = dokosim.audit(str(directory), tricks=1, exact_tricks=1, deals=None)
    assert result.deals == deals
    cli = CliRunner().invoke(main, ["audit", "--tricks", "1", "--exact-tricks", "1", "--quiet", "--json", "--",
                                    str(directory)])
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.output)["deals"] == deals


@pytest.mark.parametrize("name,decoy", [("ds[1]", "ds1"), ("d?", "da"), ("d*", "dxyz"), ("{a,b}", "a"),
                                        ("-lead [x] y", "-lead x y")])
def test_a_dataset_named_like_a_pattern_reads_its_own_rows_only(tmp_path, name, decoy):
    """The reproducers: a name with brackets, '?', '*' or braces beside a directory its pattern
    would match. Every reader sees the dataset's own 20 deals, never the decoy's 30."""
    make(tmp_path / decoy, 30, seed=2)
    make(tmp_path / name, 20, seed=1)
    check_own_rows(tmp_path / name, 20, 1)
    check_own_rows(tmp_path / decoy, 30, 2)


def test_a_relative_name_with_a_leading_dash_is_a_name_on_the_command_line(tmp_path, monkeypatch):
    """``show -- -x`` and ``audit -- -x``: a dataset named like an option, given after ``--``."""
    monkeypatch.chdir(tmp_path)
    make(Path("-x[1]"), 10, seed=6)
    make(Path("-x1"), 20, seed=7)
    code, out = (lambda r: (r.exit_code, r.output))(CliRunner().invoke(main, ["show", "--deal-id", "9", "--", "-x[1]"]))
    own = dokosim.simulate(10, seed=6, strategy="random", keep_play=True)
    assert code == 0 and render(json.loads(own["record"][9]), 0) in out, out
    check_own_rows(Path("-x[1]"), 10, 6)


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(names=st.lists(st.text(alphabet=HOSTILE, min_size=1, max_size=12), min_size=2, max_size=3,
                      unique_by=lambda s: s.casefold()))
def test_datasets_under_hostile_names_read_back_exactly_their_own_rows(names):
    """Datasets under names drawn from a hostile alphabet, side by side in one directory, each
    read back by show, audit, scan and read_parquet: exactly its own rows."""
    with tempfile.TemporaryDirectory() as root:
        made = []
        for k, name in enumerate(names):
            deals = 10 + 5 * k
            make(Path(root) / name, deals, seed=k + 1, chunk_size=5)
            made.append((Path(root) / name, deals, k + 1))
        for directory, deals, seed in made:
            check_own_rows(directory, deals, seed)


def train_data(path, deals, seed):
    """A small round of ``dokosim train data`` (pimc with 2 samples) at ``path``."""
    from dokosim.train.data import make_data
    make_data(deals, str(path), seed=seed, params={"samples": 2}, chunk_size=2, quiet=True)
    return path


def test_train_fit_reads_a_pattern_named_directory_and_only_the_ledgers_chunks(tmp_path):
    """train fit's reader lists a data directory literally and reads each chunk by its literal
    path (not t1's chunks for t[1]), and a stray copy of a chunk that the ledger does not list
    is not trained on."""
    from dokosim.train.fit import load_data
    train_data(tmp_path / "t1", 6, seed=3)
    own = train_data(tmp_path / "t[1]", 4, seed=4)
    rows = dokosim.dataset.scan(own).collect()
    data = load_data(own)
    assert len(data["outcome"]) == rows.height
    assert sorted(set(data["deal_id"].tolist())) == [0, 1, 2, 3]
    assert data["outcome"].tolist() == rows["outcome"].to_list()
    shutil.copy(own / "part-000000.parquet", own / "part-000000 (copy).parquet")
    assert len(load_data(own)["outcome"]) == rows.height


def test_train_data_adopts_its_own_chunks_when_its_metadata_folder_is_gone(tmp_path, capfd):
    """Training data has a varying number of rows per deal: its chunks are adopted on their own
    (not played again) when DIR.dokosim/ is missing."""
    own = train_data(tmp_path / "d", 4, seed=5)
    before = {p.name: p.stat().st_mtime_ns for p in own.iterdir()}
    shutil.rmtree(driver.meta_dir(own))
    capfd.readouterr()
    train_data(own, 4, seed=5)
    assert "again" not in capfd.readouterr().err
    assert {p.name: p.stat().st_mtime_ns for p in own.iterdir()} == before


# ---------------------------------------------------------------- metadata that lies
@pytest.fixture
def two_runs(tmp_path):
    """Two keep-play datasets of different seeds and sizes: a (40 deals) and b (20 deals)."""
    return make(tmp_path / "a", 40, seed=11), make(tmp_path / "b", 20, seed=12)


def test_another_runs_metadata_folder_does_not_make_show_replay_its_deal(two_runs):
    a, b = two_runs
    shutil.rmtree(driver.meta_dir(a))
    shutil.copytree(driver.meta_dir(b), driver.meta_dir(a))
    own = dokosim.simulate(40, seed=11, strategy="random", keep_play=True)
    other = dokosim.simulate(20, seed=12, strategy="random", keep_play=True)
    code, out = shown(a, 5)
    assert code == 0, out
    assert render(json.loads(own["record"][5]), 0) in out  # a's deal 5, not b's
    assert render(json.loads(other["record"][5]), 0) not in out
    assert dokosim.dataset.scan(a).collect()["deal_id"].to_list() == list(range(40))
    assert dokosim.audit(str(a), tricks=1, exact_tricks=1).deals == 40
    # a deal beyond the other run's 20: a's plan says 40 deals
    assert shown(a, 30)[0] == 0


def test_another_runs_ledger_does_not_hide_half_the_deals(two_runs):
    a, b = two_runs
    shutil.copy(driver.meta_dir(b) / driver.LEDGER, driver.meta_dir(a) / driver.LEDGER)
    assert dokosim.dataset.scan(a).collect()["deal_id"].to_list() == list(range(40))
    assert shown(a, 35)[0] == 0
    assert dokosim.audit(str(a), tricks=1, exact_tricks=1).deals == 40


def test_a_ledger_entry_outside_the_directory_is_never_read(two_runs):
    a, b = two_runs
    ledger = driver.meta_dir(a) / driver.LEDGER
    lines = [json.loads(line) for line in ledger.read_text().splitlines()]
    lines[0]["file"] = "../b/part-000000.parquet"
    lines.append({**lines[1], "file": str(b / "part-000001.parquet"), "index": 7})
    ledger.write_text("".join(json.dumps(e) + "\n" for e in lines))
    frame = dokosim.dataset.scan(a).collect()
    assert set(frame["deal_id"].to_list()) <= set(range(40))
    own = dokosim.simulate(40, seed=11, strategy="random", keep_play=True)
    mine = dict(zip(own["deal_id"].to_list(), own["record"].to_list()))
    assert all(mine[d] == r for d, r in zip(frame["deal_id"].to_list(), frame["record"].to_list()))
    assert frame.height == 30  # chunk 0's entry points outside: not read (the other chunks are)


def test_a_chunk_of_another_run_listed_in_the_ledger_is_refused_in_one_line(two_runs):
    a, b = two_runs
    shutil.copy(b / "part-000001.parquet", a / "part-000001.parquet")
    from dokosim.run.driver import DatasetError  # a damaged dataset: one DatasetError naming the chunk
    with pytest.raises(DatasetError, match="part-000001.parquet .*another run"):
        dokosim.dataset.scan(a)
    code, out = shown(a, 3)
    assert code == 1 and "part-000001.parquet" in out and "Traceback" not in out


def test_a_missing_directory_is_one_dokosim_error(tmp_path):
    from dokosim.run.driver import DatasetError
    with pytest.raises(DatasetError, match="does not exist"):
        dokosim.dataset.scan(tmp_path / "nothing")
    with pytest.raises(DatasetError, match="not a directory"):
        (tmp_path / "file").write_text("x")
        dokosim.dataset.scan(tmp_path / "file")


def test_a_damaged_manifest_is_rebuilt_from_the_chunks_on_resume(tmp_path, capfd):
    """A complete dataset whose manifest.json is damaged resumes: the chunks carry the plan,
    so the manifest and the ledger are rebuilt from them and no chunk is played again."""
    out = make(tmp_path / "d", 20, seed=4)
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    (driver.meta_dir(out) / driver.MANIFEST).write_text("{damaged")
    capfd.readouterr()
    make(out, 20, seed=4)
    err = capfd.readouterr().err
    assert "rebuilt from the plan its chunks carry" in err and "again" not in err
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before
    assert json.loads((driver.meta_dir(out) / driver.MANIFEST).read_text())["seed"] == 4
    assert dokosim.dataset.scan(out).collect()["deal_id"].to_list() == list(range(20))


def test_a_damaged_manifest_without_chunks_says_how_to_start_anew(tmp_path):
    out = make(tmp_path / "d", 10, seed=4)
    for part in out.iterdir():
        part.unlink()
    (driver.meta_dir(out) / driver.MANIFEST).write_text("[")
    with pytest.raises(ValueError, match="no chunk .* carries its plan .*remove"):
        make(out, 10, seed=4)
