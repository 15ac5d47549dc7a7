"""How a notebook hands its tables and figures to the batch report (see the package docstring).

A notebook calls ``report = ReportWriter(output_dir, paper="001", title=...)`` once, then
``report.table(...)``, ``report.figure(...)``, ``report.text(...)``. Everything lands in
``<output_dir>/paper<NNN>/report/`` together with ``summary.json`` (rewritten after every call, so
a notebook that fails halfway still reports what it produced). `collect_report` reads it back.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from odtlib.experiments.store import ResultStore

SUMMARY_FILE = "summary.json"


def paper_dir(output_dir: str | os.PathLike, paper: str | int) -> Path:
    """``<output_dir>/paper<NNN>``: the folder of one notebook's outputs (results/, report/)."""
    return Path(output_dir) / f"paper{str(paper).removeprefix('paper').zfill(3)}"


class ReportWriter:
    """Writes one notebook's report artifacts to ``<output_dir>/paper<NNN>/report/``."""

    def __init__(self, output_dir: str | os.PathLike, paper: str | int, title: str = ""):
        self.paper = str(paper).removeprefix("paper").zfill(3)
        self.paper_dir = paper_dir(output_dir, self.paper)
        self.report_dir = self.paper_dir / "report"
        self.report_dir.mkdir(parents=True, exist_ok=True)
        self.summary = {"paper": self.paper, "title": title, "items": []}
        self._save_summary()

    def store(self, experiment: str) -> ResultStore:
        """The result store of one experiment of this notebook: ``<paper_dir>/results/<experiment>/``."""
        return ResultStore(self.paper_dir / "results" / experiment)

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
        """Save a Markdown paragraph (e.g. the verdict in words) as ``<name>.md``."""
        path = self.report_dir / f"{self._stem(name)}.md"
        path.write_text(markdown, encoding="utf-8")
        return self._add("text", name, path, "")

    def _add(self, kind: str, name: str, path: Path, caption: str) -> Path:
        items = [item for item in self.summary["items"] if item["name"] != name]
        items.append({"kind": kind, "name": name, "file": path.name, "caption": caption})
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
