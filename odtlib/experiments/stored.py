"""Stored results as data: a profile's runs committed under ``results/<profile>/paper<NNN>/<experiment>.csv.gz``.

The `ResultStore` (one JSON file per run) is the working store of a running grid; it is git-ignored. The
results that readers need, and that a later session resumes from, are exported from it to one gzipped
CSV per experiment (`export_results`), one row per run:

* ``key`` and ``status`` ("ok" | "failed"), then the run's config keys under the experiment's own names
  (for paper 003: ``dataset``, ``encoding``, ``depth``, ``leaf_penalty``, ``method`` ...);
* the solve: ``solve_status``, ``objective`` (the solver's, on the paper's scale), ``bound``, ``gap``,
  ``runtime`` (seconds of the solver's run), ``nodes``;
* provenance: ``odtlib_version``, ``git_commit``, ``solver_version`` (of the config's ``solver``),
  ``cpu_count``, ``load_average`` (1-minute, when the run ended: above ``cpu_count`` the run shared its core and
  its wall-clock limit bought less CPU), ``date`` (UTC start of the run); ``threads`` and ``time_limit`` are
  config keys;
* the record as JSON columns (``config_json``, ``metrics_json``, ``solve_result_json``, ``tree_json``,
  ``extra_json``, ``error_json``, ``timing_json``, ``versions_json``, ``host_json``), so that
  `import_results` rebuilds the record and a notebook renders its tables from them. Two parts stay in the
  working store only (`stored_record`): the solver's search trace (``solve_result["trace"]``, the incumbent and
  bound at each improvement: read by no table, and a third of paper 003's file) and a run's ``extra`` where it
  repeats the solve result's.

Rows are sorted by config, then key: runs of one dataset sit together, so the gzip window sees what they repeat
(the tree's feature names), and a re-export of the same runs gives the same bytes.

No Pyomo model and no executed notebook is stored. A CSV is written to a temporary file and moved into
place, so a file committed while a run is going on is never torn.
"""
from __future__ import annotations

import gzip
import json
import os
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from odtlib._json import json_safe
from odtlib.experiments.store import ResultStore

#: profiles whose results are committed (the others are recomputed by every run)
STORED_PROFILES = ("full",)
RESULTS_SUFFIX = ".csv.gz"
JSON_PARTS = ("config", "metrics", "solve_result", "tree", "extra", "error", "timing", "versions", "host")
SOLVE_COLUMNS = {"status": "solve_status", "objective": "objective", "bound": "bound", "gap": "gap",
                 "runtime": "runtime", "nodes": "nodes"}
SOLVER_PACKAGES = {"highs": "highspy", "scip": "pyscipopt", "gurobi": "gurobipy", "cplex": "cplex",
                   "glpk": "glpk"}
# the checkout this package runs from (an editable install): its results/ folder holds the stored profiles
CHECKOUT = Path(__file__).resolve().parents[2]


def stored_results_dir(profile: str, root: str | os.PathLike | None = None) -> Path | None:
    """``<root>/results/<profile>`` for a stored profile (`STORED_PROFILES`), else None; ``root`` defaults
    to the odtlib checkout this package is installed from."""
    if profile not in STORED_PROFILES:
        return None
    return Path(root if root is not None else CHECKOUT) / "results" / profile


def results_file(results_dir: str | os.PathLike, paper: str, experiment: str) -> Path:
    """``<results_dir>/paper<NNN>/<experiment>.csv.gz``."""
    return Path(results_dir) / f"paper{str(paper).zfill(3)}" / f"{experiment}{RESULTS_SUFFIX}"


def record_row(record: Mapping) -> dict:
    """One CSV row of a stored record: readable columns first, then the record as JSON columns."""
    config = record.get("config") or {}
    solve = record.get("solve_result") or {}
    versions = record.get("versions") or {}
    solver = config.get("solver")
    row = {"key": record["key"], "status": record.get("status"), **config}
    row.update({column: solve.get(name) for name, column in SOLVE_COLUMNS.items()})
    row.update({
        "odtlib_version": versions.get("odtlib"),
        "git_commit": versions.get("git_commit"),
        "solver_version": versions.get(SOLVER_PACKAGES.get(str(solver), str(solver))) if solver else None,
        "cpu_count": (record.get("host") or {}).get("cpu_count"),
        "load_average": (record.get("host") or {}).get("load_average"),
        "date": (record.get("timing") or {}).get("started"),
    })
    for part in JSON_PARTS:
        row[f"{part}_json"] = json.dumps(json_safe(record.get(part)), sort_keys=True, allow_nan=False)
    return row


def stored_record(record: Mapping) -> dict:
    """``record`` as a stored CSV keeps it: without the solver's search trace, and without a top-level ``extra``
    that repeats ``solve_result["extra"]`` (see the module docstring)."""
    record = dict(record)
    solve = record.get("solve_result")
    if isinstance(solve, Mapping) and "trace" in solve:
        record["solve_result"] = {k: v for k, v in solve.items() if k != "trace"}
    if record.get("extra") and isinstance(solve, Mapping) and record["extra"] == solve.get("extra"):
        record["extra"] = {}
    return record


def row_record(row: Mapping) -> dict:
    """The stored record of a CSV row (the inverse of `record_row`)."""
    record = {part: json.loads(row[f"{part}_json"]) if isinstance(row.get(f"{part}_json"), str) else None
              for part in JSON_PARTS}
    record["key"], record["status"] = row["key"], row["status"]
    return record


def export_results(records: Iterable[Mapping], file: str | os.PathLike) -> Path:
    """Write records (`stored_record`) as one gzipped CSV (atomically: temporary file, then ``os.replace``),
    sorted by config, then key, so that a re-export of the same runs gives the same file."""
    file = Path(file)
    file.parent.mkdir(parents=True, exist_ok=True)
    rows = sorted((record_row(stored_record(record)) for record in records),
                  key=lambda row: (row["config_json"], row["key"]))
    frame = pd.DataFrame(rows)
    tmp = file.with_name(f".{file.name}.{uuid.uuid4().hex}.part")
    try:
        # no file name and mtime=0 in the gzip header: the same runs give the same bytes
        with open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as handle:
            handle.write(frame.to_csv(index=False).encode("utf-8"))
        os.replace(tmp, file)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return file


def read_records(file: str | os.PathLike) -> list[dict]:
    """Every record of a stored CSV (an empty list when the file does not exist)."""
    file = Path(file)
    if not file.exists():
        return []
    frame = pd.read_csv(file, dtype=str, keep_default_na=False, na_values=[])
    return [row_record(row) for row in frame.to_dict("records")]


def import_results(file: str | os.PathLike, store: ResultStore, replace: bool = False) -> int:
    """Write the records of a stored CSV into ``store`` (those it lacks; all of them with ``replace``);
    returns how many were written."""
    written = 0
    for record in read_records(file):
        if replace or not store.has(record["key"]):
            store.put(record)
            written += 1
    return written


def read_results(file: str | os.PathLike, include_tree: bool = False) -> pd.DataFrame:
    """The runs of a stored CSV as `ResultStore.to_frame` gives them (config keys, metrics, ``solve_*``)."""
    from odtlib.experiments.store import records_to_frame

    return records_to_frame(read_records(file), include_tree=include_tree)
