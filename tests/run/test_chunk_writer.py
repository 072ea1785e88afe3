"""The run driver's writer thread (driver.ChunkWriter, run_chunks; issue 48): chunk k is written
while chunk k+1 is produced, never more than two chunks are held, an error of the writer is
raised in the calling thread as it was raised, and an interrupted run keeps every chunk it
wrote. Checked by instrumentation (counters, gates between the two threads), not by timing."""
import threading
import weakref

import polars as pl
import pytest

from dokosim.run import driver
from dokosim.run.driver import ChunkStore, chunks_of, read_ledger, run_chunks
from dokosim.run.outputs import WriteFailed

KEYS = ("seed",)


def store_for(tmp_path, chunks):
    return ChunkStore.open(tmp_path / "ds", {"seed": 1}, KEYS, chunks, rows_per_unit=1)


def frame_of(chunk):
    return pl.DataFrame({"deal_id": list(range(chunk.first, chunk.first + chunk.count))})


@pytest.fixture
def writers(monkeypatch):
    """The ChunkWriters run_chunks makes, kept for their counters."""
    made = []

    class Kept(driver.ChunkWriter):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)
    monkeypatch.setattr(driver, "ChunkWriter", Kept)
    return made


def test_the_writer_holds_at_most_two_chunks_and_the_producer_runs_ahead(tmp_path, writers, monkeypatch):
    """Each write waits until the next chunk has been produced (the producer as far ahead as it
    may go); the frames alive when a chunk is produced, and the writer's count of chunks held,
    never exceed two, and reach two."""
    chunks = chunks_of(12, 2)
    store = store_for(tmp_path, chunks)
    produced = {c.index: threading.Event() for c in chunks}
    alive, most_alive, threads = set(), [], set()
    real_write = ChunkStore.write

    def gated_write(self, chunk, frame):
        threads.add(threading.current_thread().name)
        if chunk.index + 1 in produced:
            assert produced[chunk.index + 1].wait(60), "the next chunk was never produced"
        real_write(self, chunk, frame)
    monkeypatch.setattr(ChunkStore, "write", gated_write)

    def produce(chunk):
        frame = frame_of(chunk)
        alive.add(chunk.index)
        weakref.finalize(frame, alive.discard, chunk.index)
        most_alive.append(len(alive))
        assert writers[0].held <= 2
        produced[chunk.index].set()
        return frame

    progress = []
    assert run_chunks(chunks, produce, store, progress.append) == []
    assert max(most_alive) <= 2
    assert writers[0].most == 2
    assert threads == {"dokosim-chunk-writer"}
    assert progress == [2] * 6  # every chunk reported once it was written
    assert sorted(read_ledger(store.directory)) == [driver.chunk_name(i) for i in range(6)]
    assert pl.read_parquet(store.directory)["deal_id"].to_list() == list(range(12))


def test_a_deferred_frame_is_built_in_the_writer_thread(tmp_path):
    chunks = chunks_of(4, 2)
    store = store_for(tmp_path, chunks)
    built = []

    def produce(chunk):
        def build():
            built.append(threading.current_thread().name)
            return frame_of(chunk)
        return build
    run_chunks(chunks, produce, store, lambda n: None)
    assert built == ["dokosim-chunk-writer"] * 2
    # without a store the frame is built at once, here, and kept
    frames = run_chunks(chunks, produce, None, lambda n: None)
    assert [f["deal_id"].to_list() for f in frames] == [[0, 1], [2, 3]]


def test_a_write_error_is_raised_in_the_calling_thread_and_nothing_after_it_is_written(tmp_path, monkeypatch):
    chunks = chunks_of(10, 2)
    store = store_for(tmp_path, chunks)
    real = driver.write_parquet
    failed = threading.Event()

    def full_disk(frame, path, metadata=None):
        if "part-000002" in path.name:
            path.write_bytes(b"PAR1 half a chunk")
            failed.set()
            raise OSError(28, "No space left on device")
        return real(frame, path, metadata)
    monkeypatch.setattr(driver, "write_parquet", full_disk)
    produced = []

    def produce(chunk):
        produced.append(chunk.index)
        if chunk.index == 3:
            assert failed.wait(60)  # chunk 3 is handed over after the writer failed on chunk 2
        return frame_of(chunk)
    with pytest.raises(WriteFailed) as err:
        run_chunks(chunks, produce, store, lambda n: None)
    assert str(err.value) == f"cannot write {store.directory / 'part-000002.parquet'}: No space left on device"
    assert sorted(read_ledger(store.directory)) == ["part-000000.parquet", "part-000001.parquet"]
    assert sorted(p.name for p in store.directory.iterdir()) == ["part-000000.parquet", "part-000001.parquet"]
    assert max(produced) <= 4  # the producer stopped at its next handover


def test_ctrl_c_while_producing_finishes_the_chunk_being_written(tmp_path, monkeypatch):
    """A KeyboardInterrupt in the calling thread (Ctrl-C during the play): the chunk the writer
    holds is written and entered in the ledger before the interrupt goes on; the run resumes."""
    chunks = chunks_of(8, 2)
    store = store_for(tmp_path, chunks)
    writing = threading.Event()
    real_write = ChunkStore.write

    def slow_write(self, chunk, frame):
        if chunk.index == 1:
            writing.set()
        real_write(self, chunk, frame)
    monkeypatch.setattr(ChunkStore, "write", slow_write)

    def produce(chunk):
        if chunk.index == 2:
            assert writing.wait(60)
            raise KeyboardInterrupt
        return frame_of(chunk)
    with pytest.raises(KeyboardInterrupt):
        run_chunks(chunks, produce, store, lambda n: None)
    assert sorted(read_ledger(store.directory)) == ["part-000000.parquet", "part-000001.parquet"]
    assert not list(store.directory.glob("*.tmp"))
    again = store_for(tmp_path, chunks)
    assert again.done == {0, 1}
    run_chunks(chunks, frame_of, again, lambda n: None)
    assert pl.read_parquet(again.directory)["deal_id"].to_list() == list(range(8))


@pytest.mark.parametrize("rules, strategy", [("ddv", "simple"), ("club", "simple,random,simple,random")])
def test_frame_from_rows_gives_the_columns_typed_column_gives(rules, strategy):
    """The blocked one-pass frame of the writer thread (dataset.frame_from_rows) against the plain
    column-by-column typing (dataset.typed_column): the same names, types and values, over a
    block boundary and with every contract these rules deal (solos, marriages, poverty)."""
    from polars.testing import assert_frame_equal

    from dokosim.run.dataset import COLUMN_TYPES, frame_from_rows, typed_column
    from dokosim.run.simulator import Simulator, make_plan
    sim = Simulator(make_plan(5000, seed=2, rules=rules, strategy=strategy))
    out, _, _ = sim.rows(0, 5000)
    names = [s.name for s in sim.plan.strategies]
    plain = {name: typed_column(name, dtype, out[:, i]) for i, (name, dtype) in enumerate(COLUMN_TYPES.items())}
    for s, name in enumerate(names):
        plain[f"strategy_{s}"] = pl.Series([name] * out.shape[0], dtype=pl.Categorical)
    plain = pl.DataFrame(plain)
    fast = frame_from_rows(out, names)
    assert_frame_equal(fast, plain)
    out[:] = 0  # the frame holds copies, not the simulator's buffer
    assert_frame_equal(fast, plain)
    assert plain["contract"].n_unique() > 2
