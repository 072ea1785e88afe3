"""Resume validates every chunk already there (Parquet footer, row count) and plays a damaged one
again, saying so (issue 13, finding 8: a chunk cut to 100 bytes, then the same command, printed
"wrote 100 deals", exited 0, and left a dataset that could no longer be read)."""
import polars as pl
from click.testing import CliRunner
from polars.testing import assert_frame_equal

import dokosim
from dokosim.cli import main
from dokosim.run.dataset import scan


def cut(path, size=100):
    data = path.read_bytes()
    path.write_bytes(data[:size])


def test_a_chunk_cut_to_100_bytes_is_played_again_on_resume(tmp_path):
    whole, damaged = tmp_path / "whole", tmp_path / "cut"
    args = ["simulate", "--deals", "400", "--chunk-size", "100", "--seed", "6", "--strategy", "simple",
            "--quiet", "--out"]
    runner = CliRunner()
    for out in (whole, damaged):
        assert runner.invoke(main, [*args, str(out)]).exit_code == 0
    cut(damaged / "part-000002.parquet")
    r = runner.invoke(main, [*args, str(damaged)])
    assert r.exit_code == 0, r.output
    notes = [line for line in r.output.splitlines() if "damaged" in line]
    assert len(notes) == 1, r.output
    assert notes[0].startswith("part-000002.parquet is damaged (") and notes[0].endswith(
        "): playing its deals again")
    assert_frame_equal(scan(damaged).sort("deal_id").collect(), scan(whole).sort("deal_id").collect())
    assert {p.name for p in damaged.iterdir()} == {p.name for p in whole.iterdir()}


def test_a_chunk_with_the_wrong_row_count_is_played_again(tmp_path, capfd):
    out = tmp_path / "ds"
    dokosim.simulate(300, seed=2, out=out, chunk_size=100)
    reference = scan(out).sort("deal_id").collect()
    part = out / "part-000001.parquet"
    pl.read_parquet(part).head(40).write_parquet(part)  # a readable file, but not the whole chunk
    capfd.readouterr()
    dokosim.simulate(300, seed=2, out=out, chunk_size=100)
    assert "part-000001.parquet is damaged (40 rows, not 100): playing its deals again" in capfd.readouterr().err
    assert_frame_equal(scan(out).sort("deal_id").collect(), reference)


def test_whole_chunks_are_kept_and_the_last_short_chunk_is_whole(tmp_path, capfd):
    out = tmp_path / "ds"
    dokosim.simulate(250, seed=3, out=out, chunk_size=100)  # chunks of 100, 100 and 50 deals
    before = {p.name: p.stat().st_mtime_ns for p in out.glob("part-*.parquet")}
    capfd.readouterr()
    dokosim.simulate(250, seed=3, out=out, chunk_size=100)
    assert "damaged" not in capfd.readouterr().err
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("part-*.parquet")} == before  # nothing redone


def test_a_damaged_session_chunk_is_played_again(tmp_path, capfd):
    out = tmp_path / "s"
    dokosim.simulate_sessions(20, seed=5, out=out, chunk_size=10)
    reference = scan(out).sort("session_id", "deal_number").collect()
    cut(out / "part-000000.parquet")
    capfd.readouterr()
    dokosim.simulate_sessions(20, seed=5, out=out, chunk_size=10)
    assert "part-000000.parquet is damaged" in capfd.readouterr().err
    assert_frame_equal(scan(out).sort("session_id", "deal_number").collect(), reference)
