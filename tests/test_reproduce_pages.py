"""`odtlib reproduce` writes every executed notebook as a standalone HTML page (images embedded) and opens
report.html with a table of the notebooks linking to them."""
from __future__ import annotations

import nbformat
import pandas as pd
import pytest

from odtlib.experiments import reproduce

NOTEBOOK_CELLS = [
    """profile = "quick"
solver = "highs"
time_limit = None
n_jobs = 1
scheduler = None
output_dir = "../results"
""",
    """import matplotlib.pyplot as plt
import pandas as pd

from odtlib.experiments import ReportWriter

report = ReportWriter(output_dir, paper="970", title="a notebook with a figure and two tables")
fig, ax = plt.subplots()
ax.plot([0, 1], [1, 0])
plt.show()
verdicts = ["within tolerance", "lower", "within tolerance", "not comparable: subsample"]
report.table("compared", pd.DataFrame({"value": range(4), "verdict": verdicts}))
report.table("plain", pd.DataFrame({"value": [1]}))
""",
]


def _write(folder, name, cells):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code) for code in cells],
                                        metadata={"kernelspec": {"name": "python3", "language": "python",
                                                                 "display_name": "Python 3"},
                                                  "language_info": {"name": "python"}})
    notebook.cells[0].metadata["tags"] = ["parameters"]
    nbformat.write(notebook, folder / name)


@pytest.mark.timeout(180)
def test_pages_and_the_opening_table(tmp_path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    _write(notebooks, "paper970_fake.ipynb", NOTEBOOK_CELLS)
    _write(notebooks, "which_formulation.ipynb", [NOTEBOOK_CELLS[0], "raise ValueError('planned')"])
    _write(notebooks, "solutions_tutorial_mip_trees.ipynb", NOTEBOOK_CELLS)     # not a batch notebook
    output = tmp_path / "out"
    runs = reproduce(profile="smoke", output_dir=output, notebooks_dir=notebooks)
    assert [(run.paper, run.status) for run in runs] == [("970", "ok"), ("which_formulation", "failed")]

    page = (output / "notebooks" / "paper970_fake.html").read_text()
    assert "data:image/png;base64," in page                        # the figure is inside the page
    assert (output / "notebooks" / "which_formulation.html").exists()   # a failed notebook keeps its page
    report = (output / "report.html").read_text()
    opening = report.split("<h2>Notebooks</h2>")[1].split("<h2>")[0]
    assert report.index("<h2>Notebooks</h2>") < report.index("<table")
    assert '<a href="notebooks/paper970_fake.html">paper970_fake.ipynb</a>' in opening
    assert '<a href="notebooks/which_formulation.html">which_formulation.ipynb</a>' in opening
    for header in ("status", "runtime_s", "tables", "verdicts"):
        assert f"<th>{header}</th>" in opening
    assert "lower: 1; not comparable: 1; within tolerance: 2" in opening
    assert "<td>2</td>" in opening                                 # two tables reported by paper 970
    md = (output / "report.md").read_text()
    assert "| 970 | paper970_fake.ipynb | ok |" in md and "## which_formulation" in md
    assert "([page](notebooks/paper970_fake.html))" in md


def test_report_rounds_drops_constant_columns_and_opens_with_contents(tmp_path):
    from pathlib import Path

    from odtlib.experiments import ReportWriter
    from odtlib.experiments.batch import NotebookRun, write_report

    report = ReportWriter(tmp_path, paper="971", title="rounding")
    report.table("accuracy", pd.DataFrame({"dataset": ["a", "b", "c"], "paper": [94.117647, 80.0, 71.25],
                                           "time_s": [0.04321, 12.3456, 2.0], "n_ours": [1, 1, 1]}))
    report.table("one row", pd.DataFrame({"n_ours": [1], "gap": [0.123456]}))
    run = NotebookRun("971", Path("paper971_x.ipynb"), tmp_path / "x.ipynb", "ok", 1.0)
    md_path, html_path = write_report([run], tmp_path, {"profile": "smoke"})
    md, page = md_path.read_text(), html_path.read_text()
    # 94.117647 -> 94.1 and 71.25 -> 71.2 (one decimal, as the papers print accuracies), 80.0 -> 80,
    # 0.04321 s -> 0.043 (two significant digits), 12.3456 s -> 12.3
    assert "| a | 94.1 | 0.043 |" in md and "| b | 80 | 12.3 |" in md and "| c | 71.2 | 2 |" in md
    assert "| dataset | paper | time_s |\n" in md                      # n_ours is no column ...
    assert "same in every row: n_ours = 1" in md and "same in every row: n_ours = 1" in page   # ... but named
    assert "| 1 | 0.12 |" in md                 # a one-row table keeps its columns
    contents = page.split('<nav class="toc">')[1].split("</nav>")[0]
    assert '<a href="#notebooks">Notebooks</a>' in contents
    assert '<a href="#paper-971-rounding">Paper 971: rounding</a>' in contents
    assert '<a href="#paper-971-rounding-accuracy">accuracy</a>' in contents
    assert '<a href="#paper-971-rounding-one-row">one row</a>' in contents
    assert '<a id="paper-971-rounding"></a><h2>Paper 971: rounding</h2>' in page
    assert page.index('<nav class="toc">') < page.index("<h2>Notebooks</h2>")
    assert "th{white-space:nowrap}" in page and "overflow-x:auto" in page
