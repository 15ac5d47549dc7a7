"""Reproducible experiments: grids of runs, a crash-safe result store, paper numbers, batch notebooks.

Running a grid
--------------
A notebook or script does::

    from odtlib.experiments import Grid, run_grid, ResultStore, fit_and_score
    grid = Grid(dataset=["monk1", "monk2"], depth=[2, 3], seed=range(5), solver="highs",
                time_limit=60, threads=1)
    def run(config):                                     # config -> record parts
        X_tr, X_te, y_tr, y_te = ...                     # data for config["dataset"], config["seed"]
        model = FlowOCT(depth=config["depth"], solver=config["solver"], time_limit=config["time_limit"])
        return fit_and_score(model, X_tr, y_tr, X_te, y_te)   # metrics + solve_result + tree
    run_grid(run, grid, ResultStore("results/paper001_acc"), n_jobs=2)      # or scheduler="tcp://..."
    df = ResultStore("results/paper001_acc").to_frame()  # config keys + metrics + solve_* columns

* One JSON file per run, named by ``config_key(config)`` (sha256 of the canonical JSON), written
  atomically by the driver as soon as the run finishes (joblib: unordered generator; Dask:
  ``as_completed``). A rerun skips stored configs; a killed driver loses only the runs in flight.
* A run that raises is stored as ``status="failed"`` with its traceback and the grid goes on;
  ``run_grid(..., retry_failed=True)`` runs failed configs again.
* ``n_jobs * threads_per_run`` is clamped to ``os.cpu_count()`` (with a warning); ``threads_per_run``
  defaults to the largest ``config["threads"]``. For Dask, size workers as
  ``threads_per_worker * threads_per_run <= cores`` of each machine: every worker thread runs one run.

Paper numbers
-------------
``list_reference_tables()``, ``reference_table("001", "table2")`` (numbers as printed; units in
``df.attrs["units"]``: paper 002 prints accuracies as fractions, the others as percent), and
``compare(ours, paper, on=[...], value=..., tolerance=...)`` -> paper, ours, difference, verdict.

Notebook conventions (``notebooks/paper<NNN>_<topic>.ipynb``; see ``notebooks/README.md``)
-------------------------------------------------------------------------------------------
1. The first code cell is tagged ``parameters`` and defines at least::

       profile = "quick"        # "smoke" (seconds, CI) | "quick" (minutes on 2 cores) | "paper"
       solver = "highs"
       time_limit = None        # seconds per solve; None = the profile's default
       n_jobs = 1               # parallel runs of the grid (local processes)
       scheduler = None         # Dask scheduler address, e.g. "tcp://10.0.0.1:8786"
       output_dir = "../results"

   ``odtlib reproduce`` injects these with papermill and runs the notebook in its own folder.
2. The notebook picks its grid from ``profile``, runs it with
   ``run_grid(run, grid, report.store("<experiment>"), n_jobs=n_jobs, scheduler=scheduler)``
   (reruns skip finished runs), and builds its tables from ``report.results("<experiment>", grid)``
   (the grid's records; its failed runs are recorded for the batch report, ``report.failures()``
   lists them). ``report.settings(solver=..., time_limit=...)`` records what it really ran with.
3. It hands results to the batch report through ``report = ReportWriter(output_dir, paper="001",
   title=...)``: ``report.table(name, compare(...), caption)``, ``report.figure(name, fig, caption)``,
   ``report.text(name, markdown)``, ``report.verdict(name, markdown)``. Files land in
   ``<output_dir>/paper<NNN>/report/`` with a ``summary.json`` listing them in order; result stores in
   ``<output_dir>/paper<NNN>/results/``.
4. The batch (``odtlib reproduce``) writes ``<output>/report.md`` and ``report.html``: one line per
   notebook (ok / failed with the error / runs failed, runtime, the settings it used), the verdicts, the
   failed runs with their errors and, per notebook, every item of its summary. Any failed notebook or
   run makes ``odtlib reproduce`` exit non-zero.

The protocol helpers the paper modules share (profile selection, cached paper data, the records of a
grid, instance tables with ``failed``/``solved``/gaps, the time-to-match speed-up) are in
`odtlib.experiments.protocol`; a failed run is counted in ``n_failed``, never as an unsolved instance.
"""
from odtlib.experiments.batch import NotebookRun, ensure_kernel, find_notebooks, reproduce, write_report
from odtlib.experiments.grid import Grid
from odtlib.experiments.protocol import instance_frame, results_of, time_to_match
from odtlib.experiments.reference import compare, list_reference_tables, reference_table
from odtlib.experiments.report import ReportWriter, collect_report, markdown_table, paper_dir
from odtlib.experiments.runner import (
    GridSummary,
    fit_and_score,
    package_versions,
    parallel_runs,
    run_grid,
    run_one,
)
from odtlib.experiments.store import ResultStore, canonical_json, config_key, records_to_frame

__all__ = [
    "Grid", "GridSummary", "NotebookRun", "ReportWriter", "ResultStore", "canonical_json",
    "collect_report", "compare", "config_key", "ensure_kernel", "find_notebooks", "fit_and_score",
    "instance_frame", "list_reference_tables", "markdown_table", "package_versions", "paper_dir",
    "parallel_runs", "records_to_frame", "reference_table", "reproduce", "results_of", "run_grid", "run_one",
    "time_to_match", "write_report",
]
