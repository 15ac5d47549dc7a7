"""odtlib.experiments: grid, config keys, crash-safe store, failure capture, joblib and Dask backends, shared
protocol helpers, failed runs in the batch report, report figures."""
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
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from odtlib.experiments import (
    Grid,
    NotebookRun,
    ReportWriter,
    ResultStore,
    canonical_json,
    collect_report,
    config_key,
    instance_frame,
    parallel_runs,
    run_grid,
    run_one,
    time_to_match,
    write_report,
)
from odtlib.experiments.batch import with_failed_runs

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


# --- file permissions -------------------------------------------------------------------------------

@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_records_get_the_permissions_of_the_process_umask(tmp_path, umask, expected):
    previous = os.umask(umask)
    try:
        path = ResultStore(tmp_path / "store").put(run_one(tree_run, {"seed": 0, "depth": 1}))
    finally:
        os.umask(previous)
    assert path.stat().st_mode & 0o777 == expected
    assert not list(path.parent.glob("*.part"))                          # no temporary file left behind


# --- shared protocol helpers ------------------------------------------------------------------------

def _results(rows):
    """(method, status, solve_status, runtime, gap) rows as a `ResultStore.to_frame` frame."""
    return pd.DataFrame(rows, columns=["method", "status", "solve_status", "solve_runtime", "solve_gap"])


def test_instance_frame_keeps_failed_runs_apart():
    frame = instance_frame(_results([("A", "ok", "optimal", 2.0, 1e-9), ("A", "ok", "time_limit", 9.0, 0.25),
                                     ("A", "ok", "time_limit", 9.0, None), ("A", "failed", None, None, None)]))
    assert frame["failed"].tolist() == [False, False, False, True]
    assert frame["solved"].tolist() == [True, False, False, False]
    assert frame["proved_gap"].tolist()[:3] == [0.0, 0.25, 1.0]          # no incumbent: 100 %
    assert np.isnan(frame["proved_gap"].iloc[3])                        # a failure has no gap at all


def test_time_to_match_against_the_limit_or_the_baselines_time():
    # the baseline B solves 2 (the 2nd at 8 s); A has solved 2 after 2 s; C's only run failed
    instances = instance_frame(_results([("B", "ok", "optimal", 4.0, 0.0), ("B", "ok", "optimal", 8.0, 0.0),
                                         ("A", "ok", "optimal", 1.0, 0.0), ("A", "ok", "optimal", 2.0, 0.0),
                                         ("C", "failed", None, None, None)]))
    by_limit = time_to_match(instances, "B", time_limit=60).set_index("method")
    assert by_limit.loc["A", ["time_to_match_s", "speedup"]].tolist() == [2.0, 30.0]
    by_baseline = time_to_match(instances, "B").set_index("method")
    assert by_baseline.loc["A", "speedup"] == 4.0 and by_baseline.loc["B", "speedup"] == 1.0
    assert by_baseline.loc["C", ["instances", "n_failed", "solved"]].tolist() == [0, 1, 0]
    assert np.isnan(by_baseline.loc["C", "time_to_match_s"])


def test_select_profile_replaces_the_time_limit_and_names_the_choices():
    from odtlib.experiments.protocol import select_profile

    @dataclass(frozen=True)
    class Profile:
        name: str
        time_limit: float

    profiles = {"quick": Profile("quick", 30.0)}
    assert select_profile(profiles, "quick") is profiles["quick"]
    assert select_profile(profiles, "quick", 5).time_limit == 5.0
    with pytest.raises(ValueError, match=r"profile must be one of \['quick'\], got 'huge'"):
        select_profile(profiles, "huge")


def test_paper_modules_share_one_copy_of_the_protocol_helpers():
    from odtlib.experiments import paper000, paper001, paper003, protocol

    for module in (paper000, paper001, paper003):
        assert module.results_of is protocol.results_of
    assert paper003.instance_frame is protocol.instance_frame
    assert "time_to_match" not in paper001.in_sample_summary.__code__.co_names or \
        paper001.time_to_match is protocol.time_to_match


# --- the report: failed runs, settings, verdicts ----------------------------------------------------

def _failing_grid_report(output_dir: Path) -> ReportWriter:
    """A notebook's report whose grid has one failing run among three (plus a failure of another grid
    that the notebook did not ask for)."""
    report = ReportWriter(output_dir, paper="950", title="fake")
    grid = Grid(seed=[0, 1, 2], depth=1, fail=False).where(lambda c: c["seed"] != 2) + \
        Grid(seed=[2], depth=1, fail=True)
    run_grid(tree_run, grid, report.store("runs"), progress=False)
    run_grid(tree_run, Grid(seed=[7], depth=1, fail=True), report.store("runs"), progress=False)
    frame = report.results("runs", grid)
    assert len(frame) == 3 and (frame["status"] == "failed").sum() == 1
    return report


def test_report_writer_records_the_failed_runs_of_the_grid_it_reads(tmp_path):
    report = _failing_grid_report(tmp_path)
    failures = report.failures()
    assert failures["experiment"].tolist() == ["runs"]                  # seed 7 is not in the grid
    assert failures["error"].iloc[0] == "ValueError: planned failure for seed 2"
    assert "seed=2" in failures["config"].iloc[0]
    summary = collect_report(tmp_path, "950")
    assert summary["failures"]["runs"][0]["config"]["seed"] == 2


def test_report_writer_records_the_settings_really_used(tmp_path):
    report = ReportWriter(tmp_path, paper="951")
    report.settings(solver="scip", time_limit=20.0)
    report.settings(profile="smoke")
    assert collect_report(tmp_path, "951")["settings"] == {"solver": "scip", "time_limit": "20", "profile": "smoke"}


def test_batch_report_lists_failures_settings_and_verdicts_first(tmp_path):
    report = _failing_grid_report(tmp_path)
    report.settings(solver="scip", time_limit="20 s")
    report.table("wide", pd.DataFrame({f"column_{i}": [i] for i in range(30)}), "a wide table")
    report.verdict("verdict", "Paper 950, smoke profile:\n\n- **ours** agrees\n  - by `2` points")
    notebook = tmp_path / "paper950_fake.ipynb"
    run = with_failed_runs(NotebookRun("950", notebook, notebook, "ok", 1.0), tmp_path)
    assert (run.status, run.failed_runs) == ("runs failed", 1)
    assert run.error == "1 run(s) failed; first: ValueError: planned failure for seed 2 (runs)"
    write_report([run], tmp_path, {"profile": "smoke", "solver": "highs", "time_limit": None})

    md = (tmp_path / "report.md").read_text()
    assert "requested: profile=smoke, solver=highs, time_limit=None" in md
    assert "| 950 | paper950_fake.ipynb | runs failed | 1 | 1 | solver=scip; time_limit=20 s |" in md
    assert md.index("\n## Verdicts") < md.index("\n## Failed runs") < md.index("\n## Paper 950")
    assert "ValueError: planned failure for seed 2" in md.split("## Failed runs")[1].split("\n## Paper 950")[0]
    assert md.count("- **ours** agrees") == 1                           # the verdict is not repeated below

    page = (tmp_path / "report.html").read_text()
    assert page.index("<h2>Verdicts</h2>") < page.index("<h2>Failed runs</h2>") < page.index("a wide table")
    assert "<ul>\n<li><strong>ours</strong> agrees<ul>\n<li>by <code>2</code> points</li>" in page   # nested list
    assert "**" not in page
    assert ".scroll{overflow-x:auto" in page and page.count('<div class="scroll">') == 3   # status, failures, wide
    assert "ValueError: planned failure for seed 2" in page


def test_a_notebook_without_failures_keeps_its_status(tmp_path):
    ReportWriter(tmp_path, paper="952")
    notebook = tmp_path / "paper952_fake.ipynb"
    run = NotebookRun("952", notebook, notebook, "ok", 1.0)
    assert with_failed_runs(run, tmp_path) == run


FAILING_SOLVER_NOTEBOOK = [
    """profile = "quick"
solver = "highs"
time_limit = None
n_jobs = 1
scheduler = None
output_dir = "../results"
""",
    """import pyomo.environ as pyo

from odtlib.experiments import Grid, ReportWriter, run_grid
from odtlib.solvers import solve

# `odtlib reproduce` refuses an unknown --solver up front, so the failing solver comes from the notebook itself
solver = "nosuch"
report = ReportWriter(output_dir, paper="960", title="a grid on a solver that fails inside the runs")
report.settings(solver=solver, time_limit=5)

def run(config):
    model = pyo.ConcreteModel()
    model.x = pyo.Var(within=pyo.Binary)
    model.objective = pyo.Objective(expr=config["seed"] * model.x, sense=pyo.maximize)
    result = solve(model, solver=config["solver"], time_limit=5)
    return {"metrics": {"objective": result.objective}}

grid = Grid(seed=[0, 1], solver=solver)
run_grid(run, grid, report.store("runs"), progress=False)
results = report.results("runs", grid)
report.verdict("verdict", f"{int((results['status'] == 'ok').sum())} runs finished")
""",
]


@pytest.mark.timeout(180)
def test_reproduce_with_a_failing_solver_exits_non_zero_with_the_error_in_the_report(tmp_path, capsys):
    import nbformat

    from odtlib.cli import main

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code) for code in FAILING_SOLVER_NOTEBOOK],
                                        metadata={"kernelspec": {"name": "python3", "language": "python",
                                                                 "display_name": "Python 3"},
                                                  "language_info": {"name": "python"}})
    notebook.cells[0].metadata["tags"] = ["parameters"]
    nbformat.write(notebook, notebooks / "paper960_fake.ipynb")
    output = tmp_path / "out"
    code = main(["reproduce", "--notebooks-dir", str(notebooks), "--output", str(output), "--profile", "smoke"])
    assert code != 0
    printed = capsys.readouterr().out
    assert "runs failed" in printed and "2 run(s) failed" in printed
    md = (output / "report.md").read_text()
    failures = md.split("## Failed runs")[1]
    assert failures.count("nosuch") >= 2 and "seed=0" in failures and "seed=1" in failures
    assert "| 960 | paper960_fake.ipynb | runs failed |" in md and "solver=nosuch" in md
    assert "0 runs finished" in md
    assert "Failed runs" in (output / "report.html").read_text()


# --- figures ------------------------------------------------------------------------------------------

def test_performance_profile_counts_are_integers_limit_is_labelled_and_an_empty_gap_panel_says_why():
    from odtlib.plotting import performance_profile

    everything_solved = pd.DataFrame({"method": ["A", "A", "B"], "solve_runtime": [0.5, 2.0, 1.0],
                                      "solved": [True, True, True], "proved_gap": [0.0, 0.0, 0.0]})
    fig = performance_profile(everything_solved, gap="proved_gap", time_limit=20)
    ax_time, ax_gap = fig.axes
    fig.canvas.draw()
    ticks = [t for t in ax_time.get_yticks() if ax_time.get_ylim()[0] <= t <= ax_time.get_ylim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert "time limit (20 s)" in [t.get_text() for t in ax_time.get_legend().get_texts()]
    assert any("every instance solved" in t.get_text() for t in ax_gap.texts)

    unsolved = everything_solved.assign(solved=[True, False, True], proved_gap=[0.0, 0.3, 0.0])
    _, ax_gap = performance_profile(unsolved, gap="proved_gap").axes
    assert not ax_gap.texts
    plt.close("all")
