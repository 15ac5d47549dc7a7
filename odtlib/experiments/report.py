"""How a notebook hands its tables and figures to the batch report (see the package docstring).

A notebook calls ``report = ReportWriter(output_dir, paper="001", title=...)`` once, then
``report.table(...)``, ``report.figure(...)``, ``report.text(...)``, ``report.verdict(...)``. Everything
lands in ``<output_dir>/paper<NNN>/report/`` together with ``summary.json`` (rewritten after every call,
so a notebook that fails halfway still reports what it produced). `collect_report` reads it back.

``summary.json`` also holds what the batch report needs beyond the items:

* ``settings`` — the solver(s), time limit(s) and profile the notebook really used (`ReportWriter.settings`),
  which may differ from the parameters the batch passed in;
* ``failures`` — per experiment, the failed runs among the configs the notebook read with
  `ReportWriter.results` (config and error), so a run that raised is listed with its error and counted
  as a failure, never hidden inside a table as an unsolved instance.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from odtlib.experiments.protocol import results_of
from odtlib.experiments.store import ResultStore

SUMMARY_FILE = "summary.json"


def paper_dir(output_dir: str | os.PathLike, paper: str | int) -> Path:
    """``<output_dir>/paper<NNN>``: the folder of one notebook's outputs (results/, report/); a teaching
    notebook's id that is a name (``"which_formulation"``) gets ``<output_dir>/<name>``."""
    key = str(paper).removeprefix("paper")
    return Path(output_dir) / (f"paper{key.zfill(3)}" if key.isdigit() else key)


class ReportWriter:
    """Writes one notebook's report artifacts to ``<output_dir>/paper<NNN>/report/``."""

    def __init__(self, output_dir: str | os.PathLike, paper: str | int, title: str = ""):
        self.paper = paper_dir("", paper).name.removeprefix("paper")
        self.paper_dir = paper_dir(output_dir, self.paper)
        self.report_dir = self.paper_dir / "report"
        self.report_dir.mkdir(parents=True, exist_ok=True)
        self.summary = {"paper": self.paper, "title": title, "items": [], "settings": {}, "failures": {}}
        self._save_summary()

    def store(self, experiment: str) -> ResultStore:
        """The result store of one experiment of this notebook: ``<paper_dir>/results/<experiment>/``."""
        return ResultStore(self.paper_dir / "results" / experiment)

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
