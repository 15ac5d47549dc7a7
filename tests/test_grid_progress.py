"""Issue 31, item 10: one progress line per grid, and each warning of a grid's runs shown once.

A grid's line (`GridSummary.line`) goes to a Jupyter display rewritten in place, to the notebook's progress
file (`ReportWriter.run_grid`), and from there to `odtlib reproduce` (`batch.following`). The expected texts
below are written out by hand from the counts the tests choose.
"""
from __future__ import annotations

import re
import threading
import time
import warnings

import pytest

from odtlib.experiments import ReportWriter, run_grid
from odtlib.experiments.batch import ensure_kernel, following, read_new_lines
from odtlib.experiments.runner import GridSummary, duration_text
from odtlib.solvers import SolverCapabilityWarning

pytestmark = pytest.mark.timeout(300)
CAPABILITY = "this solver has no lazy-constraint callback; a restart loop stands in"


def warning_run(config: dict) -> dict:
    """Every run warns the same; the run with seed 0 also warns about itself."""
    warnings.warn(CAPABILITY, SolverCapabilityWarning)
    if config["seed"] == 0:
        warnings.warn("seed 0 is special", RuntimeWarning)
    return {"metrics": {"seed": config["seed"]}}


def quiet_run(config: dict) -> dict:
    return {"metrics": {"seed": config["seed"]}}


def _grid(n: int) -> list[dict]:
    return [{"seed": seed} for seed in range(n)]


# ---------------------------------------------------------------------------------------------- warnings
@pytest.mark.parametrize("n_jobs", [1, 2], ids=["in-process", "joblib-workers"])
def test_a_warning_of_every_run_is_shown_once_with_its_count(tmp_path, n_jobs):
    """3 runs raise the same SolverCapabilityWarning, one of them also a RuntimeWarning: two warnings in all,
    counted 3 of 3 and 1 of 3 -- also when the runs happen in worker processes (the records carry them)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = run_grid(warning_run, _grid(3), tmp_path / "store", n_jobs=n_jobs, progress=False)
    caught = [w for w in caught if "oversubscribe" not in str(w.message)]    # a 1-core machine clamps n_jobs
    assert summary.ran == 3
    assert [(w.category, str(w.message)) for w in caught if w.category is SolverCapabilityWarning] == [
        (SolverCapabilityWarning, f"{CAPABILITY} [in 3 of 3 runs of this grid]")]
    assert [str(w.message) for w in caught if w.category is RuntimeWarning] == [
        "seed 0 is special [in 1 of 3 runs of this grid]"]
    assert all(w.filename == __file__ for w in caught)          # at the line that ran the grid


def test_stored_records_keep_no_warnings(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_grid(warning_run, _grid(1), tmp_path / "store", progress=False)
    record = next(iter((tmp_path / "store").glob("*.json"))).read_text()
    assert CAPABILITY not in record


def test_a_warning_class_that_does_not_import_keeps_its_name(tmp_path):
    class LocalWarning(UserWarning):
        pass

    def run(config):
        warnings.warn("from a local class", LocalWarning)
        return {}

    with pytest.warns(UserWarning) as caught:
        run_grid(run, _grid(2), tmp_path / "store", progress=False)
    assert len(caught) == 1 and "LocalWarning: from a local class [in 2 of 2 runs" in str(caught[0].message)


# ---------------------------------------------------------------------------------------------- the grid's line
@pytest.mark.parametrize("summary, line", [
    (GridSummary(total=180, skipped=0, ran=180, failed=0, seconds=192.0),
     "paper002 direct: 180/180 runs in 3.2 min, 0 failed"),                  # 192 s = 3.2 min
    (GridSummary(total=10, skipped=4, ran=6, failed=2, seconds=42.0),
     "paper002 direct: 6/6 runs in 42 s, 2 failed (4 already stored)"),
    (GridSummary(total=10, skipped=10, ran=0, failed=0), "paper002 direct: all 10 runs already stored"),
    (GridSummary(total=180, skipped=101, ran=0, failed=0),
     "paper002 direct: 101 of 180 runs stored, 79 not computed"),             # a stored profile, only read
])
def test_grid_line(summary, line):
    assert summary.line("paper002 direct") == line


def test_duration_text():
    assert [duration_text(s) for s in (59.4, 60.0, 5400.0)] == ["59 s", "1.0 min", "1.5 h"]


def test_report_writes_one_progress_line_per_grid(tmp_path):
    report = ReportWriter(tmp_path, paper="900")
    report.run_grid(quiet_run, _grid(3), "alpha", progress=False)
    report.run_grid(quiet_run, _grid(2), "beta", progress=False)
    report.run_grid(quiet_run, _grid(2), "beta", progress=False)          # nothing left to run
    lines = report.progress_file.read_text().splitlines()
    assert report.progress_file == tmp_path / "paper900" / "progress.log" and len(lines) == 3
    assert re.fullmatch(r"paper900 alpha: 3/3 runs in \d+ s, 0 failed", lines[0]), lines
    assert re.fullmatch(r"paper900 beta: 2/2 runs in \d+ s, 0 failed", lines[1]), lines
    assert lines[2] == "paper900 beta: all 2 runs already stored"
    ReportWriter(tmp_path, paper="900")                                       # the notebook runs again
    assert not report.progress_file.exists()


# ---------------------------------------------------------------------------------------------- reproduce's poller
def test_read_new_lines_returns_whole_lines_only(tmp_path):
    log = tmp_path / "progress.log"
    assert read_new_lines(log, 0) == ([], 0)                                 # not there yet
    log.write_text("one\ntwo\npart")
    assert read_new_lines(log, 0) == (["one", "two"], 8)                     # "one\ntwo\n" is 8 bytes
    with open(log, "a") as file:
        file.write("ial\n")
    assert read_new_lines(log, 8) == (["partial"], 16)
    log.write_text("new\n")                                                   # started afresh: shorter
    assert read_new_lines(log, 16) == (["new"], 4)


def test_following_echoes_lines_while_the_block_runs(tmp_path):
    log, echoed, seen = tmp_path / "progress.log", [], threading.Event()

    def echo(line):
        echoed.append(line)
        seen.set()

    with following(log, echo, interval=0.05):
        log.write_text("paper900 alpha: 3/3 runs in 1 s, 0 failed\n")
        assert seen.wait(10)                                                  # read by the thread, not at exit
        with open(log, "a") as file:
            file.write("paper900 beta: all 2 runs already stored\n")
    assert echoed == ["paper900 alpha: 3/3 runs in 1 s, 0 failed", "paper900 beta: all 2 runs already stored"]


# ---------------------------------------------------------------------------------------------- in a notebook
def test_an_executed_notebook_keeps_one_line_per_grid(tmp_path):
    """papermill executes a cell with a 3-run grid: the cell keeps a single output, the grid's final line (a
    text bar would have left one stream chunk per update)."""
    import nbformat
    import papermill

    cell = nbformat.v4.new_code_cell(
        "from odtlib.experiments import run_grid\n"
        "def run(config):\n"
        "    return {'metrics': {'seed': config['seed']}}\n"
        "summary = run_grid(run, [{'seed': s} for s in range(3)], 'store', desc='three runs')")
    notebook = nbformat.v4.new_notebook(cells=[cell])
    nbformat.write(notebook, tmp_path / "grid.ipynb")
    tic = time.perf_counter()
    papermill.execute_notebook(str(tmp_path / "grid.ipynb"), str(tmp_path / "out.ipynb"), kernel_name=ensure_kernel(),
                               cwd=str(tmp_path), progress_bar=False)
    outputs = nbformat.read(tmp_path / "out.ipynb", as_version=4).cells[0].outputs
    assert len(outputs) == 1 and outputs[0].output_type == "display_data", outputs
    text = outputs[0].data["text/plain"]
    assert re.fullmatch(r"three runs: 3/3 runs in \d+ s, 0 failed", text), text
    assert int(text.split(" in ")[1].split(" s")[0]) <= time.perf_counter() - tic + 1
