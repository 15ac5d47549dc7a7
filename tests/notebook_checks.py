"""Checks shared by the paper notebooks' tests: the committed notebook is clean and parameterised, and
its smoke profile runs headlessly through `odtlib.experiments.reproduce`."""
from __future__ import annotations

import json
from pathlib import Path

from paths import REPO, data_mirror

NOTEBOOKS = REPO / "notebooks"
PARAMETERS = ("profile", "solver", "time_limit", "n_jobs", "scheduler", "output_dir")


def assert_commit_clean(notebook_path: Path) -> None:
    """No outputs or execution counts; a papermill ``parameters`` cell that sets every parameter of the
    notebook convention, with comments papermill can parse (no ``=`` or ``'`` in them)."""
    notebook = json.loads(notebook_path.read_text(encoding="utf-8"))
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in code)
    assert "parameters" in code[0]["metadata"].get("tags", [])
    source = "\n" + "".join(code[0]["source"])
    for name in PARAMETERS:
        assert f"\n{name} = " in source
    for line in source.splitlines():
        comment = line.partition("#")[2]
        assert "=" not in comment and "'" not in comment, line


def run_profile(paper: str, profile: str, output_dir: Path, monkeypatch) -> None:
    """Run the paper's notebook headlessly in ``profile`` and check it ends ok. Uses ``../shared/uci`` as the
    data mirror when none is set."""
    from odtlib.experiments import reproduce

    monkeypatch.setenv("MPLBACKEND", "Agg")
    if data_mirror().is_dir():
        monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(data_mirror()))
    [run] = reproduce(papers=[paper], profile=profile, output_dir=output_dir, notebooks_dir=NOTEBOOKS)
    assert run.status == "ok", run.error


def run_smoke(paper: str, output_dir: Path, monkeypatch) -> tuple[Path, list[str]]:
    """Run the paper's notebook in the smoke profile; returns its report folder and the report's item
    names, in order."""
    run_profile(paper, "smoke", output_dir, monkeypatch)
    report_dir = output_dir / f"paper{paper}" / "report"
    names = [item["name"] for item in json.loads((report_dir / "summary.json").read_text())["items"]]
    return report_dir, names
