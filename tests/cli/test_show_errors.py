"""Issue 47, item 6: ``show`` on a --keep-play dataset with no finished chunk yet replays the deal
(simulate and session datasets alike), and a damaged chunk is one line naming the file (exit 1,
the same code as ``audit``), never a traceback; a train-data dataset is named as such."""
import json

import pytest
from click.testing import CliRunner

import dokosim
from dokosim.cli import main
from dokosim.cli.show_text import render
from dokosim.run import driver

pytestmark = pytest.mark.subprocess  # starts a dokosim process


def unfinished(directory):
    """The state of a run interrupted before its first chunk: manifest, empty ledger, no chunk."""
    for part in directory.glob("part-*.parquet"):
        part.unlink()
    (driver.meta_dir(directory) / driver.LEDGER).write_text("")
    return directory


def damage(part):
    """Bytes in the middle of a chunk overwritten (its footer still reads)."""
    data = bytearray(part.read_bytes())
    middle = len(data) // 3
    data[middle:middle + 200] = b"\xff" * 200
    part.write_bytes(bytes(data))


def show(*args):
    result = CliRunner().invoke(main, ["show", *map(str, args)])
    return result.exit_code, result.output + (repr(result.exception) if result.exception and result.exit_code not in (0, 1, 2) else "")


def test_show_replays_a_deal_of_a_keep_play_dataset_with_no_finished_chunk(tmp_path):
    out = unfinished(dokosim.simulate(12, seed=3, strategy="random", keep_play=True, out=str(tmp_path / "d"),
                                      chunk_size=6))
    code, text = show(out, "--deal-id", 7)
    assert code == 0, text
    own = dokosim.simulate(12, seed=3, strategy="random", keep_play=True)
    assert render(json.loads(own["record"][7]), 0) in text


def test_show_replays_a_session_deal_with_no_finished_chunk(tmp_path):
    out = unfinished(dokosim.simulate_sessions(2, seed=3, deals=4, keep_play=True, out=str(tmp_path / "s")))
    code, text = show(out, "--session", 1, "--deal-number", 2)
    assert code == 0, text
    own = dokosim.simulate_sessions(2, seed=3, deals=4, keep_play=True)
    row = own.filter((own["session_id"] == 1) & (own["deal_number"] == 2))
    assert render(json.loads(row["record"][0]), 0) in text


@pytest.mark.parametrize("kind", ["deals", "sessions"])
def test_a_damaged_chunk_is_one_line_naming_it_in_show_and_audit(tmp_path, kind):
    if kind == "deals":
        out = dokosim.simulate(12, seed=3, strategy="random", keep_play=True, out=str(tmp_path / "d"), chunk_size=6)
        args = ["--deal-id", 8]
    else:
        out = dokosim.simulate_sessions(2, seed=3, deals=4, keep_play=True, out=str(tmp_path / "s"), chunk_size=1)
        args = ["--session", 1, "--deal-number", 2]
    damage(out / "part-000001.parquet")
    code, text = show(out, *args)
    assert code == 1, text
    assert "part-000001.parquet" in text and "damaged" in text
    assert "Traceback" not in text and len(text.strip().splitlines()) == 1
    if kind == "deals":
        result = CliRunner().invoke(main, ["audit", str(out), "--tricks", "1", "--exact-tricks", "1", "--quiet"])
        assert result.exit_code == 1, result.output
        assert "part-000001.parquet" in result.output and len(result.output.strip().splitlines()) == 1


def test_show_and_audit_name_a_train_data_dataset(tmp_path):
    from dokosim.train.data import make_data
    out = make_data(2, str(tmp_path / "t"), params={"samples": 2}, chunk_size=1, quiet=True)
    code, text = show(out, "--deal-id", 0)
    assert code == 2 and "train data" in text and "damaged" not in text
    result = CliRunner().invoke(main, ["audit", str(out), "--quiet"])
    assert result.exit_code == 2 and "train data" in result.output and "--keep-play" not in result.output.split(";")[0]
