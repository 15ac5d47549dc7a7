"""odtlib.experiments: grid, config keys, crash-safe store, failure capture, joblib and Dask backends."""
from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from odtlib.experiments import (
    Grid,
    ResultStore,
    canonical_json,
    config_key,
    parallel_runs,
    run_grid,
    run_one,
)

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
from cheap_runs import tree_run  # noqa: E402


def markers_per_key(marker_dir: Path) -> Counter:
    return Counter(p.name.split(".")[0] for p in marker_dir.iterdir())


@pytest.fixture
def marker_dir(tmp_path):
    folder = tmp_path / "markers"
    folder.mkdir()
    return folder


# --- grid and keys --------------------------------------------------------------------------------

def test_grid_is_the_cross_product_with_fixed_values_filters_and_concatenation():
    grid = Grid(dataset=["a", "b"], depth=[2, 3, 4], seed=range(2), solver="highs")
    configs = list(grid)
    assert len(configs) == 12 == len(grid)
    assert all(c["solver"] == "highs" for c in configs)
    assert {(c["dataset"], c["depth"], c["seed"]) for c in configs} == {
        (d, k, s) for d in "ab" for k in (2, 3, 4) for s in (0, 1)}
    shallow = grid.where(lambda c: c["depth"] < 4)
    assert len(shallow) == 8 and all(c["depth"] < 4 for c in shallow)
    both = shallow + Grid(dataset="c", depth=5, seed=[0])
    assert len(both) == 9 and list(both)[-1] == {"dataset": "c", "depth": 5, "seed": 0}
    with pytest.raises(ValueError, match="axis 'depth' is empty"):
        Grid(depth=[])


def test_config_key_is_sha256_of_canonical_json():
    config = {"b": "x", "a": 1}
    expected = hashlib.sha256(b'{"a":1,"b":"x"}').hexdigest()
    assert config_key(config) == expected
    assert config_key({"a": np.int64(1), "b": "x"}) == expected      # numpy scalars = Python numbers
    assert config_key({"a": 2, "b": "x"}) != expected
    assert canonical_json({"z": [1, 2], "a": None}) == '{"a":null,"z":[1,2]}'
    with pytest.raises(TypeError, match="not JSON serializable"):
        config_key({"a": object()})


# --- records and the store ------------------------------------------------------------------------

def test_run_one_record_holds_config_metrics_timing_versions_host():
    record = run_one(tree_run, {"seed": 0, "depth": 2})
    assert record["status"] == "ok" and record["error"] is None
    assert record["key"] == config_key({"seed": 0, "depth": 2})
    assert record["config"] == {"seed": 0, "depth": 2}
    assert 0.0 <= record["metrics"]["test_accuracy"] <= 1.0
    assert record["metrics"]["train_accuracy"] >= 0.85        # y = x0 with 10 % noise, depth 2
    assert record["timing"]["wall_time"] >= 0 and record["timing"]["started"]
    assert record["versions"]["odtlib"] and record["versions"]["python"]
    assert record["host"]["pid"] == os.getpid()
    json.dumps(record)                                          # JSON-safe as is


def test_run_output_with_unknown_keys_is_a_failed_record_naming_the_allowed_keys():
    record = run_one(lambda config: {"accuracy": 1.0}, {"seed": 0})
    assert record["status"] == "failed"
    assert "unknown keys ['accuracy']" in record["error"]["message"]
    assert "metrics" in record["error"]["message"]


def test_solve_result_and_tree_objects_are_stored_as_dicts(tmp_path):
    class Fake:
        def __init__(self, payload):
            self.payload = payload

        def to_dict(self):
            return self.payload

    def run(config):
        return {"metrics": {"acc": 1.0}, "solve_result": Fake({"status": "optimal", "gap": float("inf")}),
                "tree": Fake({"root": 1})}

    store = ResultStore(tmp_path / "store")
    store.put(run_one(run, {"seed": 1}))
    record = store.get({"seed": 1})
    assert record["solve_result"] == {"status": "optimal", "gap": None}     # inf stored as null
    assert record["tree"] == {"root": 1}
    frame = store.to_frame(include_tree=True)
    assert frame.loc[0, "solve_status"] == "optimal" and frame.loc[0, "tree"] == {"root": 1}


def test_to_frame_has_config_keys_and_metrics_as_columns(tmp_path, marker_dir):
    grid = Grid(seed=range(3), depth=[1, 2], marker_dir=str(marker_dir))
    summary = run_grid(tree_run, grid, tmp_path / "store", progress=True)     # tqdm bar on stderr
    assert (summary.total, summary.ran, summary.failed, summary.skipped) == (6, 6, 0, 0)
    frame = ResultStore(tmp_path / "store").to_frame()
    assert len(frame) == 6
    assert {"key", "status", "seed", "depth", "train_accuracy", "test_accuracy", "wall_time"} <= set(frame)
    assert sorted(zip(frame.seed, frame.depth)) == sorted((c["seed"], c["depth"]) for c in grid)


def test_rerun_skips_stored_configs_and_runs_only_new_ones(tmp_path, marker_dir):
    store = tmp_path / "store"
    run_grid(tree_run, Grid(seed=range(4), depth=2, marker_dir=str(marker_dir)), store, progress=False)
    summary = run_grid(tree_run, Grid(seed=range(6), depth=2, marker_dir=str(marker_dir)), store, progress=False)
    assert (summary.skipped, summary.ran) == (4, 2)
    counts = markers_per_key(marker_dir)
    assert len(counts) == 6 and set(counts.values()) == {1}
    assert len(ResultStore(store)) == 6


# --- failures ---------------------------------------------------------------------------------------

def test_failed_run_is_stored_with_traceback_and_the_grid_goes_on(tmp_path, marker_dir):
    grid = Grid(seed=[0, 1, 2], depth=2, marker_dir=str(marker_dir), fail=False) + \
        Grid(seed=[3, 4], depth=2, marker_dir=str(marker_dir), fail=True) + \
        Grid(seed=[5], depth=2, marker_dir=str(marker_dir), fail=False)
    store = ResultStore(tmp_path / "store")
    summary = run_grid(tree_run, grid, store, progress=False)
    assert (summary.ran, summary.failed) == (6, 2)
    failed = store.failed()
    assert sorted(r["config"]["seed"] for r in failed) == [3, 4]
    for record in failed:
        assert record["error"]["type"] == "ValueError"
        assert "planned failure" in record["error"]["message"]
        assert "Traceback (most recent call last)" in record["error"]["traceback"]
        assert "cheap_runs.py" in record["error"]["traceback"]
    assert sorted(store.to_frame(include_failed=False).seed) == [0, 1, 2, 5]

    again = run_grid(tree_run, grid, store, progress=False)              # failures are not retried ...
    assert (again.skipped, again.ran) == (6, 0)
    retried = run_grid(tree_run, grid, store, progress=False, retry_failed=True)   # ... unless asked
    assert (retried.skipped, retried.ran, retried.failed) == (4, 2, 2)
    counts = markers_per_key(marker_dir)
    assert sorted(counts.values()) == [1, 1, 1, 1, 2, 2]
    assert len(store) == 6                                               # replaced, not duplicated


# --- crash safety -----------------------------------------------------------------------------------

def test_killed_grid_resumes_without_duplicates_losses_or_recomputation(tmp_path, marker_dir):
    """A real subprocess runs 24 runs sequentially; SIGKILL it mid-grid, rerun, count executions."""
    store_dir, n_runs = tmp_path / "store", 24
    command = [sys.executable, str(FIXTURES / "crash_grid.py"), str(store_dir), str(marker_dir), str(n_runs), "0.2"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while len(list(store_dir.glob("*.json"))) < 6:
        assert process.poll() is None, process.stderr.read().decode()
        assert time.monotonic() < deadline, "grid did not start"
        time.sleep(0.02)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL

    stored_before = ResultStore(store_dir).keys()
    assert 6 <= len(stored_before) < n_runs, "the kill must land mid-grid"
    started_before = set(markers_per_key(marker_dir))

    finished = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert f"skipped={len(stored_before)}" in finished.stdout

    expected = {config_key(c) for c in Grid(seed=range(n_runs), depth=2, marker_dir=str(marker_dir), sleep=0.2)}
    store = ResultStore(store_dir)
    frame = store.to_frame()
    assert len(frame) == n_runs and frame.key.is_unique and set(frame.key) == expected
    assert (frame.status == "ok").all()
    counts = markers_per_key(marker_dir)
    assert all(counts[key] == 1 for key in stored_before)               # finished runs not recomputed
    in_flight = started_before - stored_before                           # killed while running
    assert len(in_flight) <= 1                                           # sequential: at most one lost
    assert all(counts[key] == 2 for key in in_flight)
    assert sum(counts.values()) == n_runs + len(in_flight)


# --- parallel backends ------------------------------------------------------------------------------

def test_parallel_runs_never_oversubscribe_the_cores():
    assert parallel_runs(2, threads_per_run=1, cores=2) == 2
    assert parallel_runs(-1, threads_per_run=2, cores=8) == 4
    with pytest.warns(RuntimeWarning, match="oversubscribe"):
        assert parallel_runs(4, threads_per_run=2, cores=4) == 2
    with pytest.warns(RuntimeWarning):
        assert parallel_runs(3, threads_per_run=4, cores=2) == 1
    with pytest.raises(ValueError, match="n_jobs"):
        parallel_runs(0)


def test_threads_per_run_defaults_to_the_configs_threads(tmp_path):
    grid = Grid(seed=range(2), depth=2, threads=os.cpu_count() or 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # n_jobs=1 fits whatever the core count
        run_grid(tree_run, grid, tmp_path / "a", n_jobs=1, progress=False)
    with pytest.warns(RuntimeWarning, match="oversubscribe"):
        run_grid(tree_run, grid, tmp_path / "b", n_jobs=2, progress=False)


def test_joblib_backend_with_two_processes(tmp_path, marker_dir):
    grid = Grid(seed=range(8), depth=[1, 2], marker_dir=str(marker_dir)) + \
        Grid(seed=[99], depth=2, marker_dir=str(marker_dir), fail=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # a 1-core machine clamps n_jobs to 1
        summary = run_grid(tree_run, grid, tmp_path / "store", n_jobs=2, progress=False)
    assert (summary.ran, summary.failed) == (17, 1)
    store = ResultStore(tmp_path / "store")
    frame = store.to_frame()
    assert len(frame) == 17 and frame.key.is_unique
    assert set(markers_per_key(marker_dir).values()) == {1}
    worker_pids = {r["extra"]["pid"] for r in store.records(status="ok")}
    if (os.cpu_count() or 1) >= 2:
        assert os.getpid() not in worker_pids              # ran in worker processes
    # a sequential rerun reproduces the same metrics for the same keys (deterministic runs)
    sequential = ResultStore(tmp_path / "sequential")
    run_grid(tree_run, grid, sequential, n_jobs=1, progress=False)
    assert sequential.to_frame().set_index("key").test_accuracy.sort_index().equals(
        frame.set_index("key").test_accuracy.sort_index())


@pytest.mark.timeout(180)
def test_dask_local_cluster_with_two_worker_processes(tmp_path, marker_dir):
    from distributed import Client, LocalCluster

    grid = Grid(seed=range(10), depth=2, marker_dir=str(marker_dir)) + \
        Grid(seed=[50], depth=2, marker_dir=str(marker_dir), fail=True)
    store = ResultStore(tmp_path / "store")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        worker_pids = set(client.run(os.getpid).values())
        summary = run_grid(tree_run, grid, store, scheduler=client, progress=False)
        assert (summary.ran, summary.failed) == (11, 1)
        # a scheduler address works too, and the rerun skips everything already stored
        bigger = grid + Grid(seed=[10, 11], depth=2, marker_dir=str(marker_dir))
        again = run_grid(tree_run, bigger, store, scheduler=cluster.scheduler_address, progress=False)
        assert (again.skipped, again.ran) == (11, 2)
    assert len(worker_pids) == 2 and os.getpid() not in worker_pids
    records = list(store.records())
    assert len(records) == 13
    ran_on = {r["host"]["pid"] for r in records}
    assert ran_on <= worker_pids
    assert set(markers_per_key(marker_dir).values()) == {1}
    failed = store.failed()
    assert len(failed) == 1 and "planned failure" in failed[0]["error"]["traceback"]
