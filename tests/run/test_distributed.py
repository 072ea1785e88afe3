"""The Dask backend: same rows as the in-process run, worker death, resume across backends, errors."""
import os
import signal
import sys
import threading
import time

import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal

from dokosim.cli import main as cli
from dokosim.run.dataset import scan
from dokosim.run.driver import ManifestMismatch, read_manifest
from dokosim.run.distributed import parse_cluster, simulate_on_dask
from dokosim.run.simulate import SimulationError, simulate
from dokosim.run.simulator import make_plan

pytestmark = pytest.mark.e2e  # end to end

KW = dict(seed=42, strategy="random,simple,random,simple", params={"random": {"p_reserve": 0.2, "p_call": 0.1}})
DEALS, CHUNK = 30_000, 1_000
TIMEOUT = 600  # the first task on a worker may compile the kernels (cold cache)


@pytest.fixture(scope="module")
def distributed():
    return pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster(distributed):
    """Two worker processes over TCP on 127.0.0.1, kernels warmed on both."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  protocol="tcp", dashboard_address=":0") as lc:
        yield lc


@pytest.fixture(scope="module")
def reference():
    """The in-process run every Dask run must reproduce."""
    return simulate(DEALS, chunk_size=CHUNK, **KW)


def read(directory) -> pl.DataFrame:
    return scan(directory).collect().sort("deal_id")


def assert_every_deal_once(frame: pl.DataFrame, deals: int):
    assert frame.height == deals
    assert frame["deal_id"].n_unique() == deals
    assert frame["deal_id"].min() == 0 and frame["deal_id"].max() == deals - 1


def test_local_cluster_gives_the_in_process_rows(cluster, reference, tmp_path):
    frame = simulate(DEALS, chunk_size=CHUNK, scheduler=cluster.scheduler_address, **KW)
    assert_frame_equal(frame, reference)
    out = simulate(DEALS, chunk_size=CHUNK, out=tmp_path / "run", scheduler=cluster.scheduler_address, **KW)
    assert len(list(out.glob("part-*.parquet"))) == DEALS // CHUNK
    assert not list(out.glob("*.tmp"))
    assert read_manifest(out)["seed"] == KW["seed"]
    assert_frame_equal(read(out), reference)


def test_a_conditioned_run_gives_the_in_process_rows(cluster):
    kw = {**KW, "where": "trumps(0) >= 8 and has(2, 'TH')", "hands": {3: "AC"}}  # docs/conditions.md
    reference = simulate(3_000, chunk_size=CHUNK, **kw)
    assert_frame_equal(simulate(3_000, chunk_size=CHUNK, scheduler=cluster.scheduler_address, **kw), reference)


def test_cluster_local_n_starts_its_own_cluster(distributed, reference, tmp_path):
    out = simulate(DEALS, chunk_size=3_000, out=tmp_path / "run", cluster="local:2", **KW)
    assert_frame_equal(read(out), reference)


def test_a_killed_worker_changes_nothing(distributed, tmp_path):
    deals, chunk = 400_000, 2_000
    kw = {**KW, "seed": 9}  # the same strategies as elsewhere: the same compiled kernel
    plan = make_plan(deals, chunk_size=chunk, **kw)
    out = tmp_path / "run"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  protocol="tcp", dashboard_address=":0") as lc, \
            distributed.Client(lc, set_as_default=False) as client:
        pids = client.run(os.getpid)
        errors = []

        def run():
            try:
                simulate_on_dask(plan, out=out, scheduler=lc.scheduler_address)
            except BaseException as exc:  # noqa: BLE001 (reported below)
                errors.append(exc)
        thread = threading.Thread(target=run)
        thread.start()
        deadline = time.monotonic() + TIMEOUT
        while thread.is_alive() and len(list(out.glob("part-*.parquet"))) < 10 and time.monotonic() < deadline:
            time.sleep(0.005)
        victim = next(iter(pids.values()))
        os.kill(victim, signal.SIGKILL)
        done_at_kill = len(list(out.glob("part-*.parquet")))
        thread.join(TIMEOUT)
        assert victim not in client.run(os.getpid).values()
    assert not thread.is_alive() and not errors, errors
    assert 10 <= done_at_kill < deals // chunk, "the kill must fall in the middle of the run"
    frame = read(out)
    assert_every_deal_once(frame, deals)
    assert_frame_equal(frame, simulate(deals, chunk_size=chunk, **kw))


def test_resume_across_backends(cluster, reference, tmp_path):
    # started locally (some chunks missing), finished on the cluster
    local = simulate(DEALS, chunk_size=CHUNK, out=tmp_path / "a", **KW)
    for i in (0, 7, 8, 29):
        (local / f"part-{i:06d}.parquet").unlink()
    simulate(DEALS, chunk_size=CHUNK, out=local, scheduler=cluster.scheduler_address, **KW)
    frame = read(local)
    assert_every_deal_once(frame, DEALS)
    assert_frame_equal(frame, reference)
    # started on the cluster, finished locally
    remote = simulate(DEALS, chunk_size=CHUNK, out=tmp_path / "b", scheduler=cluster.scheduler_address, **KW)
    for i in (1, 2, 15):
        (remote / f"part-{i:06d}.parquet").unlink()
    simulate(DEALS, chunk_size=CHUNK, out=remote, **KW)
    assert_frame_equal(read(remote), reference)
    # a different command on the same directory is refused, before any work
    with pytest.raises(ManifestMismatch, match="seed"):
        simulate(DEALS, chunk_size=CHUNK, out=remote, scheduler=cluster.scheduler_address,
                 **{**KW, "seed": 43})


def test_without_dask_the_error_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "distributed", None)
    for how in ({"cluster": "local:2"}, {"scheduler": "tcp://127.0.0.1:8786"}):
        with pytest.raises(SimulationError, match=r"pip install 'dokosim\[dask\]'"):
            simulate(100, **how)
    result = CliRunner().invoke(cli, ["simulate", "--deals", "100", "--cluster", "local:2"])
    assert result.exit_code == 2
    assert "pip install 'dokosim[dask]'" in result.output


@pytest.mark.parametrize("bad", ["local", "local:0", "local:-1", "local:two", "tcp://x:1", "2"])
def test_malformed_cluster_is_named(distributed, bad):
    with pytest.raises(SimulationError, match=f"got '{bad}'"):
        parse_cluster(bad)
    with pytest.raises(SimulationError, match="local:N"):
        simulate(100, cluster=bad)
    result = CliRunner().invoke(cli, ["simulate", "--deals", "100", "--cluster", bad])
    assert result.exit_code == 2 and bad in result.output


def test_bad_combinations_and_urls_are_refused(distributed):
    with pytest.raises(SimulationError, match="not both"):
        simulate(100, scheduler="tcp://127.0.0.1:8786", cluster="local:1")
    with pytest.raises(SimulationError, match="s3://bucket/run.*shared file system"):
        simulate(100, out="s3://bucket/run", cluster="local:1")


def test_zero_deals(distributed, cluster):
    frame = simulate(0, scheduler=cluster.scheduler_address)
    assert frame.height == 0 and frame.columns == simulate(0).columns


def test_tournament_on_the_cluster_matches_in_process(cluster):
    from dokosim.run.tournament import tournament
    kw = dict(deals=400, seed=5, params={"random": {"p_reserve": 0.2}})
    local = tournament(["random", "simple"], **kw)
    remote = tournament(["random", "simple"], scheduler=cluster.scheduler_address, **kw)
    assert_frame_equal(remote.per_deal, local.per_deal)
    assert remote.to_dict()["mean"] == local.to_dict()["mean"]


def test_tournament_cli_accepts_a_local_cluster(distributed):
    args = ["tournament", "random", "simple", "--deals", "200", "--seed", "3", "--json", "--quiet"]
    local = CliRunner().invoke(cli, args)
    remote = CliRunner().invoke(cli, args + ["--cluster", "local:2"])
    assert local.exit_code == 0 and remote.exit_code == 0, remote.output
    import json
    assert json.loads(remote.output)["mean"] == json.loads(local.output)["mean"]
    bad = CliRunner().invoke(cli, args + ["--cluster", "local:2", "--threads", "1"])
    assert bad.exit_code == 2 and "threads" in bad.output
