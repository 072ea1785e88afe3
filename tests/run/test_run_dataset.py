"""The run driver's one entry (driver.run_dataset, issue 43 item 4): whatever the executor, the
same files and ledger for the same plan; the output checked before the plan's work; a resumed run
produces only the chunks that are missing; a task that wrote its own file (as a Dask worker does)
is only entered in the ledger."""
import functools

import polars as pl
import pytest

from dokosim.run import driver
from dokosim.run.driver import Progress, RunPlan, chunks_of, read_ledger, run_dataset
from dokosim.run.executors import InProcess, ProcessPool, Written, produce_and_write
from dokosim.run.outputs import OutputError

KEYS = ("seed",)
CHUNKS = chunks_of(10, 3)


def rows(seed, chunk):
    """A chunk's rows, a function of (seed, deal ids) only (module level: a pool's task pickles)."""
    return pl.DataFrame({"deal_id": list(range(chunk.first, chunk.first + chunk.count)),
                         "x": [seed * 1000 + d for d in range(chunk.first, chunk.first + chunk.count)]})


def files(directory):
    return {f.name: f.read_bytes() for f in sorted(directory.glob("part-*.parquet"))}


def ledger(directory):
    return {name: {k: v for k, v in entry.items()} for name, entry in read_ledger(directory).items()}


@pytest.mark.subprocess  # the pool's workers are dokosim processes
def test_every_executor_gives_the_same_files_and_ledger(tmp_path):
    produce = functools.partial(rows, 7)
    made = {}
    for name, executor in (("in_process", InProcess()), ("pool", ProcessPool(2))):
        run = run_dataset(CHUNKS, produce, tmp_path / name, RunPlan({"seed": 7}, KEYS), executor=executor,
                          progress=Progress(quiet=True))
        assert run.directory == tmp_path / name and run.frames == []
        made[name] = (files(run.directory), ledger(run.directory))
    assert made["in_process"] == made["pool"]
    assert len(made["pool"][0]) == len(CHUNKS)
    # without a directory: the frames in chunk order, whichever finished first
    for executor in (InProcess(), ProcessPool(2)):
        run = run_dataset(CHUNKS, produce, None, RunPlan({"seed": 7}, KEYS), executor=executor)
        assert run.directory is None
        assert pl.concat(run.frames)["deal_id"].to_list() == list(range(10))


def test_the_output_is_checked_before_the_plan_does_any_work(tmp_path):
    a_file = tmp_path / "f"
    a_file.write_text("not a directory")
    planned = []
    with pytest.raises(OutputError, match="is a file"):
        run_dataset(CHUNKS, functools.partial(rows, 1), a_file,
                    RunPlan(lambda: planned.append(1) or {"seed": 1}, KEYS), setup=lambda: planned.append(2))
    assert planned == []


def test_a_resumed_run_produces_only_the_missing_chunks(tmp_path):
    out = tmp_path / "ds"
    plan = RunPlan({"seed": 3}, KEYS)
    run_dataset(CHUNKS, functools.partial(rows, 3), out, plan)
    whole = files(out)
    (out / driver.chunk_name(1)).unlink()
    produced = []
    run_dataset(CHUNKS, lambda c: produced.append(c.index) or rows(3, c), out, plan)
    assert produced == [1]
    assert files(out) == whole


class WritingExecutor:
    """Tasks that write their own chunk files and return Written, in this process (as Dask's do)."""

    def map(self, produce, chunks, store=None):
        for chunk in chunks:
            yield chunk, produce_and_write(produce, chunk, str(store.directory), store.metadata)


def test_a_chunk_its_task_wrote_is_only_entered_in_the_ledger(tmp_path, monkeypatch):
    reference = run_dataset(CHUNKS, functools.partial(rows, 5), tmp_path / "a", RunPlan({"seed": 5}, KEYS)).directory
    writes = []
    real = driver.ChunkStore.write
    monkeypatch.setattr(driver.ChunkStore, "write", lambda *a: writes.append(a) or real(*a))
    assert isinstance(produce_and_write(functools.partial(rows, 5), CHUNKS[0], None), pl.DataFrame)
    out = run_dataset(CHUNKS, functools.partial(rows, 5), tmp_path / "b", RunPlan({"seed": 5}, KEYS),
                      executor=WritingExecutor()).directory
    assert writes == []  # the driver wrote nothing itself
    assert files(out) == files(reference) and ledger(out) == ledger(reference)
    (tmp_path / "c").mkdir()
    assert isinstance(produce_and_write(functools.partial(rows, 5), CHUNKS[0], str(tmp_path / "c"), {}), Written)


def test_a_dataset_of_another_command_is_named_so_and_left_alone(tmp_path):
    """--out naming another command's dataset (a simulate run for a tournament, a tournament for
    simulate) was refused as "holds a run made with kind=null" or "chunk_size=null" (simulate's
    manifest has no kind); the message names the two kinds, and the dataset is left as it was."""
    out = tmp_path / "ds"
    run_dataset(CHUNKS, functools.partial(rows, 3), out, RunPlan({"seed": 3}, KEYS))  # simulate's: no kind
    whole, before = files(out), ledger(out)
    for manifest, keys, message in (({"kind": "tournament", "seed": 3}, ("kind", "seed"), "of simulate, not of tournament"),
                                    ({"kind": "train_data", "seed": 3}, ("kind", "seed"), "of simulate, not of train data")):
        with pytest.raises(driver.ManifestMismatch) as info:
            run_dataset(CHUNKS, functools.partial(rows, 3), out, RunPlan(manifest, keys))
        assert str(info.value) == f"{out} holds a dataset of {message[3:]} (the plan its chunks carry); use another --out"
    assert files(out) == whole and ledger(out) == before
    other = tmp_path / "tournament"
    run_dataset(CHUNKS, functools.partial(rows, 3), other, RunPlan({"kind": "tournament", "seed": 3}, ("kind", "seed")))
    with pytest.raises(driver.ManifestMismatch, match="holds a dataset of tournament, not of simulate"):
        run_dataset(CHUNKS, functools.partial(rows, 3), other, RunPlan({"seed": 3, "chunk_size": 3}, ("seed", "chunk_size")))


def test_a_run_of_other_parameters_names_the_parameter_that_differs(tmp_path):
    """train data into a run of samples=2 with samples=3 printed both teachers' whole parameter
    tables (14 entries each), leaving the reader to find the one that differs."""
    out = tmp_path / "ds"
    params = {"eye_weight": 0.01, "samples": 2.0, "table_bits": 14.0}
    run_dataset(CHUNKS, functools.partial(rows, 3), out, RunPlan({"seed": 3, "params": params}, ("seed", "params")))
    with pytest.raises(driver.ManifestMismatch) as info:
        run_dataset(CHUNKS, functools.partial(rows, 3), out,
                    RunPlan({"seed": 3, "params": {**params, "samples": 3.0}}, ("seed", "params")))
    assert str(info.value).startswith(f"{out} holds a run made with params.samples=2.0, not 3.0 (")
    with pytest.raises(driver.ManifestMismatch, match=r"made with params\.extra=null, not 1 \("):
        run_dataset(CHUNKS, functools.partial(rows, 3), out,
                    RunPlan({"seed": 3, "params": {**params, "extra": 1}}, ("seed", "params")))
