"""The run driver's resume (dokosim/run/driver.py), for every command it serves: a damaged chunk
(cut, a byte flipped, a readable file with other rows), a stray file, a chunk copied from another
run, and Ctrl-C in the middle of a chunk's write are each followed by a rerun of the same command
that gives rows identical to an uninterrupted run, and a partial output is always resumable.

(Issue 13, finding 8: a chunk cut to 100 bytes, then the same command, printed "wrote 100
deals", exited 0, and left a dataset that could no longer be read. Issue 29: a flipped byte, a
stray part-abc.parquet and a chunk of another seed were accepted.)"""
import contextlib
import io
import json
import shutil

import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal

import dokosim
from dokosim.cli import main
from dokosim.run import driver
from dokosim.run.dataset import scan

# The commands the driver serves that write a run directory, each at a size of at least four
# chunks, with the columns that order its rows. ``solve_deals`` through its Python API (the CLI
# has no --chunk option); ``study par`` has its own test (tests/studies/test_par_study.py).
COMMANDS = {
    "simulate": (["simulate", "--deals", "400", "--chunk-size", "100", "--strategy", "simple", "--quiet"],
                 ("deal_id",)),
    "session": (["session", "--rounds", "8", "--chunk-size", "2", "--strategy", "simple", "--quiet"],
                ("session_id", "deal_number")),
    "tournament": (["tournament", "simple", "random", "--deals", "40", "--quiet"], ("seating", "deal_id")),
    "solve_deals": (None, ("deal_id",)),
    # the Dask backend: workers write the chunk files, the client keeps the ledger
    "simulate_dask": (["simulate", "--deals", "400", "--chunk-size", "100", "--strategy", "simple", "--quiet",
                       "--cluster", "local:1"], ("deal_id",)),
}
# Ctrl-C is simulated by a write that raises in this process: not where Dask workers write
# (tests/run/test_distributed.py kills a worker mid-run instead).
IN_PROCESS = [c for c in COMMANDS if c != "simulate_dask"]


def attempt(command: str, out, seed: int = 6) -> tuple[int, str]:
    """Run ``command`` into ``out``: (exit code, what it said); Ctrl-C is exit code 130."""
    args, _ = COMMANDS[command]
    if args is not None:
        r = CliRunner().invoke(main, [*args, "--seed", str(seed), "--out", str(out)])
        return r.exit_code, r.output
    from dokosim.dd.deal_solves import solve_deals
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            solve_deals(8, seed, out=out, chunk=2, contracts=["queens_solo"], node_limit=20_000)
    except KeyboardInterrupt:
        return 130, said.getvalue()
    return 0, said.getvalue()


def run(command: str, out, seed: int = 6) -> str:
    code, said = attempt(command, out, seed)
    assert code == 0, said
    return said


def rows(command: str, out) -> pl.DataFrame:
    return scan(out).sort(*COMMANDS[command][1]).collect()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """Each command's uninterrupted run (seed 6) and a run of another plan (seed 7)."""
    made = {}
    for command in COMMANDS:
        base = tmp_path_factory.mktemp(command)
        run(command, base / "whole")
        run(command, base / "other", seed=7)
        made[command] = (base / "whole", base / "other")
    return made


def fresh_copy(src, tmp_path):
    """A copy of the run directory ``src`` with its manifest and ledger beside it (DIR.dokosim)."""
    out = tmp_path / "ds"
    shutil.copytree(src, out)
    shutil.copytree(driver.meta_dir(src), driver.meta_dir(out))
    return out


def cut_to_100_bytes(data: bytes) -> bytes:
    return data[:100]


def flip_a_byte(data: bytes) -> bytes:
    """A byte flipped in the data pages: the Parquet footer still reads and the row count is
    right, so only the checksum finds it."""
    flipped = bytearray(data)
    flipped[len(data) // 3] ^= 0x10
    return bytes(flipped)


@pytest.mark.parametrize("damage", [cut_to_100_bytes, flip_a_byte])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_damaged_chunk_is_found_and_played_again(command, damage, reference, tmp_path):
    whole, _ = reference[command]
    out = fresh_copy(whole, tmp_path)
    path = out / "part-000002.parquet"
    path.write_bytes(damage(path.read_bytes()))
    said = run(command, out)
    assert "part-000002.parquet is damaged (its checksum differs): playing its deals again" in said
    assert said.count("playing its deals again") == 1
    assert_frame_equal(rows(command, out), rows(command, whole))


@pytest.mark.parametrize("command", COMMANDS)
def test_a_stray_file_is_named_left_alone_and_not_read(command, reference, tmp_path):
    whole, _ = reference[command]
    out = fresh_copy(whole, tmp_path)
    shutil.copy(out / "part-000000.parquet", out / "part-abc.parquet")
    said = run(command, out)
    assert "part-abc.parquet is not a chunk of this run: left alone and not read" in said
    assert (out / "part-abc.parquet").exists()
    assert_frame_equal(rows(command, out), rows(command, whole))  # no duplicate rows


@pytest.mark.parametrize("with_entry, said_of_it", [
    (False, "belongs to another run (the plan in its metadata differs)"),  # the file alone: its own metadata says
    (True, "belongs to another run (its plan differs)"),  # the file and its ledger entry
])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_chunk_of_another_run_is_refused_and_played_again(command, with_entry, said_of_it, reference, tmp_path):
    whole, other = reference[command]
    out = fresh_copy(whole, tmp_path)
    shutil.copy(other / "part-000003.parquet", out / "part-000003.parquet")
    if with_entry:  # the other run's ledger line, appended: the last line of a file wins
        foreign = driver.read_ledger(other)["part-000003.parquet"]
        with open(driver.meta_dir(out) / driver.LEDGER, "a") as ledger:
            ledger.write(json.dumps(foreign) + "\n")
    said = run(command, out)
    assert f"part-000003.parquet {said_of_it}: playing its deals again" in said
    assert_frame_equal(rows(command, out), rows(command, whole))


@pytest.mark.parametrize("command", IN_PROCESS)
def test_ctrl_c_in_the_middle_of_a_write_leaves_a_resumable_run(command, reference, tmp_path, monkeypatch):
    """Ctrl-C while the third chunk is written: the run stops, its temporary file is gone, the
    two whole chunks are in the ledger; the same command then completes it with the same rows."""
    whole, _ = reference[command]
    out = tmp_path / "ds"
    real = driver.write_parquet
    calls = []

    def interrupted(frame, path, metadata=None):
        calls.append(path)
        if len(calls) == 3:
            path.write_bytes(b"PAR1 half a chunk")
            raise KeyboardInterrupt
        return real(frame, path, metadata)

    monkeypatch.setattr(driver, "write_parquet", interrupted)
    code, said = attempt(command, out)
    assert code == 130, said  # Ctrl-C: the CLI's exit code, the API's KeyboardInterrupt
    assert not list(out.glob("*.tmp"))
    assert sorted(driver.read_ledger(out)) == ["part-000000.parquet", "part-000001.parquet"]
    monkeypatch.setattr(driver, "write_parquet", real)
    run(command, out)
    assert_frame_equal(rows(command, out), rows(command, whole))


@pytest.mark.parametrize("command", COMMANDS)
def test_a_chunk_written_before_its_ledger_entry_is_played_again(command, reference, tmp_path):
    """An interruption between a chunk's rename and its ledger entry: the file is whole but not
    entered, so it is played again (at most one chunk of work is lost)."""
    whole, _ = reference[command]
    out = fresh_copy(whole, tmp_path)
    ledger = driver.meta_dir(out) / driver.LEDGER
    ledger.write_text("".join(line + "\n" for line in ledger.read_text().splitlines()
                              if "part-000003.parquet" not in line))
    said = run(command, out)
    assert "part-000003.parquet is not in the run's ledger" in said
    assert said.count("playing its deals again") == 1
    assert_frame_equal(rows(command, out), rows(command, whole))


def test_whole_chunks_are_kept_and_the_last_short_chunk_is_whole(tmp_path, capfd):
    out = tmp_path / "ds"
    dokosim.simulate(250, seed=3, out=out, chunk_size=100)  # chunks of 100, 100 and 50 deals
    before = {p.name: p.stat().st_mtime_ns for p in out.glob("part-*.parquet")}
    capfd.readouterr()
    dokosim.simulate(250, seed=3, out=out, chunk_size=100)
    assert "again" not in capfd.readouterr().err
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("part-*.parquet")} == before  # nothing redone


def test_a_dataset_written_before_the_ledger_is_adopted(tmp_path, capfd):
    """A manifest without a ledger (datasets written before the driver): whole chunks are kept
    and entered in the ledger, a cut one is played again."""
    out = tmp_path / "ds"
    dokosim.simulate(300, seed=2, out=out, chunk_size=100)
    reference = scan(out).sort("deal_id").collect()
    manifest = json.loads(driver.manifest_path(out).read_text())
    del manifest["plan_hash"]
    driver.manifest_path(out).write_text(json.dumps(manifest))
    (driver.meta_dir(out) / driver.LEDGER).unlink()
    part = out / "part-000001.parquet"
    pl.read_parquet(part).head(40).write_parquet(part)  # readable, but not the whole chunk
    capfd.readouterr()
    dokosim.simulate(300, seed=2, out=out, chunk_size=100)
    assert "part-000001.parquet is not in the run's ledger" in capfd.readouterr().err
    assert sorted(driver.read_ledger(out)) == [f"part-00000{i}.parquet" for i in range(3)]
    assert_frame_equal(scan(out).sort("deal_id").collect(), reference)


def test_a_torn_ledger_line_and_a_missing_chunk_are_recovered(tmp_path, capfd):
    """A ledger whose last line was cut (a crash in the middle of the append) and a chunk file
    deleted by hand: the cut line is skipped (its chunk played again, as not in the ledger), the
    missing chunk is named and played again; the rows are an uninterrupted run's."""
    out = tmp_path / "ds"
    dokosim.simulate(400, seed=4, out=out, chunk_size=100)
    reference = scan(out).sort("deal_id").collect()
    ledger = driver.meta_dir(out) / driver.LEDGER
    ledger.write_text(ledger.read_text()[:-40])
    (out / "part-000001.parquet").unlink()
    capfd.readouterr()
    dokosim.simulate(400, seed=4, out=out, chunk_size=100)
    said = capfd.readouterr().err
    assert "part-000001.parquet is in the run's ledger but missing: playing its deals again" in said
    assert "part-000003.parquet is not in the run's ledger" in said
    assert_frame_equal(scan(out).sort("deal_id").collect(), reference)


def test_a_run_stopped_before_its_first_chunk_resumes_and_scan_says_so(tmp_path):
    """Stopped after the manifest, before any chunk (a temporary file of the manifest left too):
    reading it is one line; the same command then resumes."""
    out = tmp_path / "ds"
    dokosim.simulate(200, seed=4, out=out, chunk_size=100)
    for f in out.glob("part-*.parquet"):
        f.unlink()
    meta = driver.meta_dir(out)
    (meta / driver.LEDGER).write_text("")
    (meta / "manifest.json.host.1.abc.tmp").write_text("{")
    (out / "part-000000.parquet.host.1.abc.tmp").write_text("")  # a chunk's write cut short
    with pytest.raises(driver.DatasetError, match="holds no finished chunk yet"):
        scan(out)
    (meta / driver.LEDGER).unlink()  # killed while the manifest was written (before the ledger)
    driver.manifest_path(out).unlink()
    dokosim.simulate(200, seed=4, out=out, chunk_size=100)  # the .tmp does not make it "not empty"
    assert scan(out).collect().height == 200


def test_an_interrupted_probes_file_resumes_from_its_parts(tmp_path, monkeypatch):
    """probe-calls --out FILE keeps its chunks in FILE.parts (a run directory) until the file is
    whole: Ctrl-C in the third chunk's write, a byte flipped in a kept chunk, then the same
    command: the damaged chunk is played again, the file equals an uninterrupted run's, and the
    parts are gone."""
    args = ["probe-calls", "--deals", "400", "--strategy", "simple", "--seed", "3", "--quiet", "--out"]
    whole, cut = tmp_path / "whole.parquet", tmp_path / "cut.parquet"
    assert CliRunner().invoke(main, [*args, str(whole)]).exit_code == 0
    assert not (tmp_path / "whole.parquet.parts").exists()
    real, calls = driver.write_parquet, []

    def interrupted(frame, path, metadata=None):
        calls.append(path)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(frame, path, metadata)

    args = [*args[:-1], "--chunk-size", "100", "--out"]  # four chunks; the rows do not depend on it
    monkeypatch.setattr(driver, "write_parquet", interrupted)
    r = CliRunner().invoke(main, [*args, str(cut)])
    assert r.exit_code == 130 and not cut.exists(), r.output
    parts = tmp_path / "cut.parquet.parts"
    assert sorted(driver.read_ledger(parts)) == ["part-000000.parquet", "part-000001.parquet"]
    kept = parts / "part-000001.parquet"
    kept.write_bytes(flip_a_byte(kept.read_bytes()))
    monkeypatch.setattr(driver, "write_parquet", real)
    r = CliRunner().invoke(main, [*args, str(cut)])
    assert r.exit_code == 0 and "part-000001.parquet is damaged" in r.output, r.output
    assert_frame_equal(pl.read_parquet(cut), pl.read_parquet(whole))
    assert not parts.exists()


def test_probes_out_of_another_run_is_one_line_and_zero_deals_give_an_empty_file(tmp_path):
    """FILE.parts left by another probes run (other deals) is refused in one line naming it
    before any work; a run of 0 deals (the API allows it) writes an empty file with the columns."""
    parts = tmp_path / "p.parquet.parts"
    dokosim.probe_calls(300, "re", seed=3, strategy="simple", chunk_size=100)  # the kernels, warm
    from dokosim.run.call_probe import parts_directory
    assert parts_directory(tmp_path / "p.parquet") == parts
    first = CliRunner().invoke(main, ["probe-calls", "--deals", "300", "--strategy", "simple", "--seed", "3",
                                       "--quiet", "--chunk-size", "100", "--out", str(tmp_path / "p.parquet")])
    assert first.exit_code == 0 and not parts.exists()
    driver.ChunkStore.open(parts, {"kind": "probes", "deals": 999}, ("kind", "deals"), [])  # another plan's parts
    r = CliRunner().invoke(main, ["probe-calls", "--deals", "300", "--strategy", "simple", "--seed", "3",
                                  "--quiet", "--out", str(tmp_path / "p.parquet")])
    assert r.exit_code == 2 and "p.parquet.parts holds a run made with" in r.output, r.output
    assert "Traceback" not in r.output
    empty = dokosim.probe_calls(0, "re", strategy="simple", out=tmp_path / "none.parquet")
    assert pl.read_parquet(empty).height == 0 and "score_with" in pl.read_parquet(empty).columns
