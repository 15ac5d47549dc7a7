"""How a notebook hands its tables and figures to the batch report (see the package docstring).

A notebook calls ``report = ReportWriter(output_dir, paper="001", title=...)`` once, then
``report.table(...)``, ``report.figure(...)``, ``report.text(...)``, ``report.verdict(...)``. Everything
lands in ``<output_dir>/paper<NNN>/report/`` together with ``summary.json`` (rewritten after every call,
so a notebook that fails halfway still reports what it produced). `collect_report` reads it back.
Every grid run through `ReportWriter.run_grid` adds one line to ``<output_dir>/paper<NNN>/progress.log``
(`GridSummary.line`), which ``odtlib reproduce`` echoes while the notebook runs.

``summary.json`` also holds what the batch report needs beyond the items:

* ``settings`` — the solver(s), time limit(s) and profile the notebook really used (`ReportWriter.settings`),
  which may differ from the parameters the batch passed in;
* ``failures`` — per experiment, the failed runs among the configs the notebook read with
  `ReportWriter.results` (config and error), so a run that raised is listed with its error and counted
  as a failure, never hidden inside a table as an unsolved instance.
"""
from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from odtlib.experiments.protocol import results_of
from odtlib.experiments.runner import GridSummary, progress_line, run_grid
from odtlib.experiments.store import ResultStore, config_key
from odtlib.experiments.stored import export_results, import_results, results_file, stored_results_dir

SUMMARY_FILE = "summary.json"
PROGRESS_FILE = "progress.log"   # one line per finished grid, for `odtlib reproduce` to echo
RECOMPUTE = (False, True, "all")
CHECKPOINT_SECONDS = 120.0   # a running grid of a stored profile exports its CSV at most this often


def paper_dir(output_dir: str | os.PathLike, paper: str | int) -> Path:
    """``<output_dir>/paper<NNN>``: the folder of one notebook's outputs (results/, report/); a teaching
    notebook's id that is a name (``"which_formulation"``) gets ``<output_dir>/<name>``."""
    key = str(paper).removeprefix("paper")
    return Path(output_dir) / (f"paper{key.zfill(3)}" if key.isdigit() else key)


class ReportWriter:
    """Writes one notebook's report artifacts to ``<output_dir>/paper<NNN>/report/``.

    With a stored profile (``profile="full"``, see `odtlib.experiments.stored`) the notebook's runs are read
    from the committed ``results/full/paper<NNN>/<experiment>.csv.gz`` (or ``results_dir``): `run_grid`
    seeds each experiment's store from it, computes nothing unless ``recompute`` asks (True: the missing
    and failed runs; "all": every run again), and exports the store back to the CSV while it computes.
    """

    def __init__(self, output_dir: str | os.PathLike, paper: str | int, title: str = "", *,
                 profile: str | None = None, recompute: bool | str = False,
                 results_dir: str | os.PathLike | None = None):
        if recompute not in RECOMPUTE:
            raise ValueError(f"recompute must be one of {RECOMPUTE}, got {recompute!r}")
        self.paper = paper_dir("", paper).name.removeprefix("paper")
        self.paper_dir = paper_dir(output_dir, self.paper)
        self.report_dir = self.paper_dir / "report"
        self.report_dir.mkdir(parents=True, exist_ok=True)
        self.profile, self.recompute = profile, recompute
        self.results_dir = Path(results_dir) if results_dir else (stored_results_dir(profile) if profile else None)
        self.summary = {"paper": self.paper, "title": title, "items": [], "settings": {}, "failures": {},
                        "coverage": {}}
        self._save_summary()
        self.progress_file.unlink(missing_ok=True)

    @property
    def progress_file(self) -> Path:
        """``<paper_dir>/progress.log``: one line per grid `run_grid` finished in this notebook run."""
        return self.paper_dir / PROGRESS_FILE

    @property
    def stored(self) -> bool:
        """Does this notebook read its runs from committed results (a stored profile)?"""
        return self.results_dir is not None

    @property
    def computes(self) -> bool:
        """Does `run_grid` run the missing configs? Always, but for a stored profile without ``recompute``."""
        return not self.stored or bool(self.recompute)

    def store(self, experiment: str) -> ResultStore:
        """The result store of one experiment of this notebook: ``<paper_dir>/results/<experiment>/``."""
        return ResultStore(self.paper_dir / "results" / experiment)

    def stored_file(self, experiment: str) -> Path | None:
        """The committed CSV of an experiment (stored profiles only)."""
        return results_file(self.results_dir, self.paper, experiment) if self.stored else None

    def run_grid(self, run, configs, experiment: str, **kwargs) -> GridSummary:
        """`odtlib.experiments.run_grid` into the store of ``experiment``, seeded from (and, while it
        computes, exported to) the committed results of a stored profile; without ``recompute`` a stored
        profile only reads. The share of ``configs`` with a stored run is recorded (`coverage`), and the grid's
        line (`GridSummary.line`) is appended to `progress_file`."""
        configs = list(configs)
        store, file = self.store(experiment), self.stored_file(experiment)
        if file is not None and self.recompute != "all":
            import_results(file, store)
        if self.recompute == "all":
            for config in configs:
                store.path.joinpath(f"{config_key(config)}.json").unlink(missing_ok=True)
        if self.computes:
            checkpoint = self._checkpoint(store, file) if file is not None else None
            summary = run_grid(run, configs, store, retry_failed=bool(self.recompute), on_record=checkpoint,
                               **kwargs)
            if file is not None:
                export_results(store.records(), file)
        else:
            done = sum(store.has(config) for config in configs)
            summary = GridSummary(total=len(configs), skipped=done, ran=0, failed=0)
            label = kwargs.get("desc") or experiment
            progress_line(0, label, kwargs.get("progress", True)).close(summary.line(label))
        self._record_coverage(experiment, store, configs)
        self._log_progress(summary.line(f"{self.paper_dir.name} {experiment}"))
        return summary

    def _log_progress(self, line: str) -> None:
        """Append one line to `progress_file` (`odtlib.experiments.batch.read_new_lines` waits for its newline)."""
        with open(self.progress_file, "a", encoding="utf-8") as log:
            log.write(line.replace("\n", " ") + "\n")

    def coverage(self) -> pd.DataFrame:
        """Per experiment read by `run_grid`: configs in the grid, runs stored, of which failed."""
        rows = [{"experiment": name, **counts} for name, counts in self.summary["coverage"].items()]
        return pd.DataFrame(rows, columns=["experiment", "configs", "stored", "failed"])

    def _record_coverage(self, experiment: str, store: ResultStore, configs: list) -> None:
        records = [store.get(config) for config in configs]
        stored = [record for record in records if record is not None]
        self.summary["coverage"][experiment] = {
            "configs": len(configs), "stored": len(stored),
            "failed": sum(record.get("status") != "ok" for record in stored)}
        self._save_summary()

    @staticmethod
    def _checkpoint(store: ResultStore, file: Path):
        """A callback that exports ``store`` to ``file`` at most every `CHECKPOINT_SECONDS`."""
        last = [time.monotonic()]

        def export(_record: dict) -> None:
            if time.monotonic() - last[0] >= CHECKPOINT_SECONDS:
                export_results(store.records(), file)
                last[0] = time.monotonic()
        return export

    def results(self, experiment: str, configs) -> pd.DataFrame:
        """The records of exactly ``configs`` in the store of ``experiment`` (`store.to_frame()` rows),
        and the failed ones among them recorded for the batch report (see `failures`)."""
        configs = list(configs)
        frame = results_of(self.store(experiment), configs)
        failed = frame[frame["status"] != "ok"] if len(frame) else frame
        by_key = {record["key"]: record for record in self.store(experiment).failed()}
        self.summary["failures"][experiment] = [
            {"key": key, "config": by_key[key]["config"], "error": _error_line(by_key[key].get("error"))}
            for key in failed.get("key", []) if key in by_key]
        self._save_summary()
        return frame

    def failures(self) -> pd.DataFrame:
        """Every failed run recorded by `results`: experiment, the config as text, the error."""
        rows = [{"experiment": experiment, "config": config_text(failure["config"]), "error": failure["error"]}
                for experiment, failures in self.summary["failures"].items() for failure in failures]
        return pd.DataFrame(rows, columns=["experiment", "config", "error"])

    def settings(self, **used) -> dict:
        """Record what this notebook really ran with (e.g. ``solver="scip"``, ``time_limit=20``,
        ``profile="smoke"``): the batch report shows these beside the notebook, not the parameters it
        was given. Values are shown as text; later calls add to or replace earlier keys."""
        self.summary["settings"].update({name: _setting_text(value) for name, value in used.items()})
        self._save_summary()
        return dict(self.summary["settings"])

    def table(self, name: str, frame: pd.DataFrame, caption: str = "") -> Path:
        """Save a table (e.g. a `compare` result) as ``<name>.csv``; the report shows it with ``caption``."""
        path = self.report_dir / f"{self._stem(name)}.csv"
        frame.to_csv(path, index=False)
        return self._add("table", name, path, caption)

    def figure(self, name: str, fig, caption: str = "") -> Path:
        """Save a figure as ``<name>.png`` and ``<name>.svg``; the report shows the PNG."""
        from odtlib.plotting import save_figure

        png, _svg = save_figure(fig, self.report_dir.name, self._stem(name), root=self.paper_dir)
        return self._add("figure", name, png, caption)

    def text(self, name: str, markdown: str) -> Path:
        """Save a Markdown paragraph as ``<name>.md``."""
        path = self.report_dir / f"{self._stem(name)}.md"
        path.write_text(markdown, encoding="utf-8")
        return self._add("text", name, path, "")

    def verdict(self, name: str, markdown: str) -> Path:
        """Save the verdict in words (Markdown) as ``<name>.md``; the batch report shows every notebook's
        verdicts at its top."""
        path = self.report_dir / f"{self._stem(name)}.md"
        path.write_text(markdown, encoding="utf-8")
        return self._add("text", name, path, "", verdict=True)

    def _add(self, kind: str, name: str, path: Path, caption: str, verdict: bool = False) -> Path:
        items = [item for item in self.summary["items"] if item["name"] != name]
        items.append({"kind": kind, "name": name, "file": path.name, "caption": caption, "verdict": verdict})
        self.summary["items"] = items
        self._save_summary()
        return path

    def _save_summary(self) -> None:
        tmp = self.report_dir / f".{SUMMARY_FILE}.part"
        tmp.write_text(json.dumps(self.summary, indent=2), encoding="utf-8")
        os.replace(tmp, self.report_dir / SUMMARY_FILE)

    @staticmethod
    def _stem(name: str) -> str:
        if not name or any(c in name for c in "/\\"):
            raise ValueError(f"report item name must be a plain file stem, got {name!r}")
        return name


def _error_line(error: dict | None) -> str:
    """``"Type: message"`` of a stored error (first line of the message)."""
    if not error:
        return "unknown error"
    message = str(error.get("message") or "").strip().splitlines()
    return f"{error.get('type', 'Error')}: {message[0] if message else ''}".rstrip(": ")


def config_text(config: dict) -> str:
    """A run's config as ``name=value, ...`` (None values left out), for tables of failed runs."""
    return ", ".join(f"{name}={value}" for name, value in config.items() if value is not None)


def _setting_text(value) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def collect_report(output_dir: str | os.PathLike, paper: str | int) -> dict | None:
    """The ``summary.json`` a notebook wrote (items with absolute ``path``), or None if it wrote none."""
    report_dir = paper_dir(output_dir, paper) / "report"
    summary_file = report_dir / SUMMARY_FILE
    if not summary_file.exists():
        return None
    summary = json.loads(summary_file.read_text(encoding="utf-8"))
    for item in summary.get("items", []):
        item["path"] = report_dir / item["file"]
    return summary


def markdown_table(frame: pd.DataFrame, floatfmt: str = "{:.4g}") -> str:
    """A GitHub-flavoured Markdown table of ``frame`` (no index)."""
    def cell(value) -> str:
        if isinstance(value, float):
            return "" if pd.isna(value) else floatfmt.format(value)
        return str(value).replace("|", "\\|").replace("\n", " ")

    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *rows])


def readable_number(value) -> str:
    """A number as the papers print theirs: integers as such, other values of magnitude >= 1 to one decimal
    (accuracies in %, seconds: ``94.117647`` -> ``94.1``), smaller ones to two significant digits (fractions
    and gaps: ``0.0312`` -> ``0.031``); NaN as an empty cell."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return str(value)
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.1f}" if abs(value) >= 1 else f"{value:.2g}"


#: tables this short keep every column (a constant column of two rows says little about the next run)
MIN_ROWS_TO_DROP_CONSTANTS = 3


def readable_table(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """A table as the report shows it: numbers rounded by `readable_number` (as text), and the columns that hold
    one value in every row dropped (tables of at least `MIN_ROWS_TO_DROP_CONSTANTS` rows); returns the table and
    a note naming the dropped columns with their value ("same in every row: n_ours = 1"), or ""."""
    constant = [c for c in frame.columns
                if len(frame) >= MIN_ROWS_TO_DROP_CONSTANTS and frame[c].astype(str).nunique(dropna=False) == 1]
    if len(constant) == len(frame.columns):
        constant = []
    shown = frame.drop(columns=constant).apply(lambda column: column.map(readable_number))
    note = "; ".join(f"{c} = {readable_number(frame[c].iloc[0]) or '(empty)'}" for c in constant)
    return shown, f"same in every row: {note}" if note else ""
