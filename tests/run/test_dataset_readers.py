"""A dataset opens the usual way (issue 33, item 4): ``simulate --out DIR`` leaves only Parquet
files in DIR, so polars, pandas and DuckDB read the directory as it is; each file's key-value
metadata says what made it; ``dokosim.dataset.cards`` decodes the hands; a directory copied
without its manifest beside it is still understood."""
import collections
import hashlib
import json
import shutil

import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal

import dokosim
from dokosim.cli import main
from dokosim.engine.cards import mask_str
from dokosim.run import driver


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """A 900-deal dataset of three chunks, written by the command line, and the same deals in memory."""
    out = tmp_path_factory.mktemp("readers") / "run"
    result = CliRunner().invoke(main, ["simulate", "--deals", "900", "--chunk-size", "300", "--seed", "5",
                                       "--strategy", "heuristic", "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out, dokosim.simulate(900, seed=5, strategy="heuristic")


def test_the_directory_holds_only_parquet_and_its_run_files_are_beside_it(dataset):
    out, _ = dataset
    assert sorted(p.name for p in out.iterdir()) == [f"part-00000{i}.parquet" for i in range(3)]
    assert sorted(p.name for p in driver.meta_dir(out).iterdir()) == ["_chunks.jsonl", "manifest.json"]


def test_polars_pandas_and_duckdb_read_the_directory(dataset):
    out, memory = dataset
    key = ["deal_id", "contract", "game_value", "score_0", "hand_3"]
    expected = memory.select(key).with_columns(pl.col("contract").cast(pl.String))
    for frame in (pl.read_parquet(out), pl.scan_parquet(out).collect()):
        assert_frame_equal(frame.select(key).with_columns(pl.col("contract").cast(pl.String)).sort("deal_id"),
                           expected)
    pd = pytest.importorskip("pandas")  # the test extra installs it
    from_pandas = pd.read_parquet(out)
    assert len(from_pandas) == 900 and sorted(from_pandas["deal_id"]) == list(range(900))
    assert from_pandas.sort_values("deal_id")["score_0"].tolist() == memory["score_0"].to_list()
    duckdb = pytest.importorskip("duckdb")  # the test extra installs it
    rows = duckdb.sql(f"select deal_id, score_0 from read_parquet('{out}/*.parquet') order by deal_id").fetchall()
    assert rows == list(zip(memory["deal_id"].to_list(), memory["score_0"].to_list()))


def test_each_file_says_what_made_it(dataset):
    out, _ = dataset
    manifest = driver.read_manifest(out)
    for part in sorted(out.glob("part-*.parquet")):
        meta = pl.read_parquet_metadata(part)
        assert json.loads(meta["dokosim.manifest"]) == json.loads(json.dumps(manifest, sort_keys=True))
        assert json.loads(meta["dokosim.seed"]) == 5
        assert json.loads(meta["dokosim.rules"]) == {"preset": "ddv"}
        assert json.loads(meta["dokosim.strategies"]) == ["heuristic"] * 4
        assert meta["dokosim.version"] == dokosim.__version__


def test_a_directory_copied_alone_is_still_shown_and_resumed(dataset, tmp_path):
    """Copied without DIR.dokosim: show replays a deal from the plan the chunks carry, and the
    same command adopts the whole chunks (nothing played again) and plays the missing one."""
    out, memory = dataset
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    (copy / "part-000002.parquet").unlink()
    shown = CliRunner().invoke(main, ["show", str(copy), "--deal-id", "7"])
    assert shown.exit_code == 0 and "contract:" in shown.output, shown.output
    kept = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in copy.glob("part-*.parquet")}
    inodes = {p.name: p.stat().st_ino for p in copy.glob("part-*.parquet")}
    again = CliRunner().invoke(main, ["simulate", "--deals", "900", "--chunk-size", "300", "--seed", "5",
                                      "--strategy", "heuristic", "--quiet", "--out", str(copy)])
    assert again.exit_code == 0, again.output
    assert {p.name: p.stat().st_ino for p in copy.glob("part-*.parquet") if p.name in kept} == inodes  # not rewritten
    assert {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in copy.glob("part-*.parquet")
            if p.name in kept} == kept
    assert_frame_equal(dokosim.dataset.scan(copy).collect().sort("deal_id"), memory)
    shutil.rmtree(driver.meta_dir(copy))  # copied alone again: the chunks' metadata refuses another plan
    other = CliRunner().invoke(main, ["simulate", "--deals", "900", "--chunk-size", "300", "--seed", "6",
                                      "--strategy", "heuristic", "--quiet", "--out", str(copy)])
    assert other.exit_code == 2 and "seed=5, not 6 (the plan its chunks carry)" in other.output, other.output


def test_cards_decodes_every_hand_as_the_one_hand_decoder_does(dataset):
    """cards(df): each hand a list of card names equal (as a multiset) to mask_str's; the long
    table has 12 cards per seat and deal, its kinds matching its names."""
    _, memory = dataset
    hands = dokosim.dataset.cards(memory)
    assert hands.columns == memory.columns and hands.height == memory.height
    for row, decoded in zip(memory.iter_rows(named=True), hands.iter_rows(named=True)):
        for s in range(4):
            assert collections.Counter(decoded[f"hand_{s}"]) == collections.Counter(mask_str(row[f"hand_{s}"]).split())
    long = dokosim.dataset.cards(memory.lazy(), long=True)
    assert long.columns == ["row", "deal_id", "seat", "card", "kind"] and long.height == 900 * 48
    assert long.group_by("deal_id", "seat").len()["len"].unique().to_list() == [12]
    names = dokosim.dataset.CARD_NAMES
    assert all(names[k] == c for k, c in long.select("kind", pl.col("card").cast(pl.String)).unique().iter_rows())
    with pytest.raises(driver.DatasetError, match="hand_2"):
        dokosim.dataset.cards(memory.drop("hand_2"))


def test_progress_bars_show_in_a_terminal_or_a_notebook_only(monkeypatch):
    """Not when quiet, not in a log or a pipe; in a notebook (an IPython kernel), although its
    stderr is not a terminal."""
    import sys
    import types

    from dokosim.run import progress
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert not progress.show_progress(False) and not progress.show_progress(True)
    kernel = types.SimpleNamespace(config={"IPKernelApp": {}})
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: kernel))
    assert progress.show_progress(False) and not progress.show_progress(True)
    terminal_ipython = types.SimpleNamespace(config={"TerminalInteractiveShell": {}})
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: terminal_ipython))
    assert not progress.show_progress(False)


def test_a_hidden_progress_bar_makes_no_tqdm():
    """Where no bar is shown (a worker process is always quiet), tqdm is not even imported: its
    first bar made a multiprocessing semaphore, which a worker stopped by Ctrl-C left behind and
    the resource tracker warned of after the command (study par)."""
    import subprocess
    import sys
    code = ("import sys\n"
            "from dokosim.run.progress import progress_bar\n"
            "with progress_bar(True, total=3) as bar:\n"
            "    bar.update(2)\n"
            "assert list(progress_bar(True, iterable=[1, 2])) == [1, 2]\n"
            "print('tqdm' in sys.modules)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0 and run.stdout.strip() == "False", run.stdout + run.stderr


def test_chunks_of_another_run_are_never_played_over(dataset, tmp_path):
    """A stale DIR.dokosim beside chunks of another run (DIR replaced by a copy of another run):
    the chunks' own plan wins and the command is refused before any work, every chunk untouched;
    a refused command leaves no DIR.dokosim behind."""
    out, _ = dataset
    other = tmp_path / "other"
    assert CliRunner().invoke(main, ["simulate", "--deals", "600", "--chunk-size", "300", "--seed", "7",
                                     "--quiet", "--out", str(other)]).exit_code == 0
    shutil.rmtree(other)
    shutil.copytree(out, other)  # seed 5's chunks beside seed 7's manifest and ledger
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in other.glob("part-*.parquet")}
    again = CliRunner().invoke(main, ["simulate", "--deals", "600", "--chunk-size", "300", "--seed", "7",
                                      "--quiet", "--out", str(other)])
    assert again.exit_code == 2 and "seed=5, not 7" in again.output and "chunks" in again.output, again.output
    assert {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in other.glob("part-*.parquet")} == before
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("mine")
    refused = CliRunner().invoke(main, ["simulate", "--deals", "10", "--quiet", "--out", str(stray)])
    assert refused.exit_code == 2 and not driver.meta_dir(stray).exists()


def test_one_run_directory_has_one_place_for_its_manifest_whatever_its_spelling(tmp_path, monkeypatch):
    """DIR, a symlink to it and '.' inside it name the same DIR.dokosim."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    monkeypatch.chdir(tmp_path / "link")
    assert driver.meta_dir(real) == driver.meta_dir(tmp_path / "link") == driver.meta_dir(".") \
        == tmp_path / "real.dokosim"
    with pytest.raises(driver.DatasetError, match="needs a name"):
        driver.meta_dir("/")
