"""The MIP tutorial and its solutions: committed clean, and their smoke profile runs on GLPK alone (HiGHS,
SCIP, Gurobi and CPLEX hidden from the kernel by stub modules that raise ImportError)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from notebook_checks import NOTEBOOKS, assert_commit_clean
from paths import REPO, data_mirror

TUTORIAL = NOTEBOOKS / "tutorial_mip_trees.ipynb"
SOLUTIONS = NOTEBOOKS / "solutions_tutorial_mip_trees.ipynb"
HIDDEN = ("highspy", "pyscipopt", "gurobipy", "cplex")
RUN = """
import sys
import papermill as pm
from odtlib.experiments import ensure_kernel
from odtlib.solvers import available_solvers
assert available_solvers() == ("glpk",), available_solvers()
kernel = ensure_kernel()
pairs = sys.argv[1:-2]                      # (source, target) pairs, then the notebooks' folder and output folder
for source, target in zip(pairs[0::2], pairs[1::2]):
    pm.execute_notebook(source, target, parameters={"profile": "smoke", "output_dir": sys.argv[-1]},
                        kernel_name=kernel, cwd=sys.argv[-2], progress_bar=False)
"""


def stray_values(notebook) -> list[str]:
    """Cell results a reader should not see: a returned path or a figure's repr printed as text."""
    cells = json.loads(notebook.read_text())["cells"]
    texts = ["".join(output.get("data", {}).get("text/plain", "")) for cell in cells if cell["cell_type"] == "code"
             for output in cell["outputs"] if output["output_type"] == "execute_result"]
    return [text for text in texts if text.startswith(("PosixPath(", "<Figure size"))]


def headings(notebook) -> set[str]:
    """The section numbers of the notebook's "## N. title" headings."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return {line[3:].split(".")[0] for cell in cells if cell["cell_type"] == "markdown"
            for line in "".join(cell["source"]).splitlines() if line.startswith("## ") and line[3:4].isdigit()}


def printed(notebook) -> str:
    """Everything the executed notebook's code cells printed (nbformat keeps a text as a string or lines)."""
    return "".join("".join(output.get("text", "")) for cell in json.loads(notebook.read_text())["cells"]
                   if cell["cell_type"] == "code" for output in cell["outputs"])


@pytest.mark.parametrize("notebook", [TUTORIAL, SOLUTIONS], ids=["tutorial", "solutions"])
def test_notebook_is_commit_clean_and_defaults_to_glpk(notebook):
    assert_commit_clean(notebook)
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    parameters = "".join(next(c for c in cells if c["cell_type"] == "code")["source"])
    assert '\nsolver = "glpk"' in "\n" + parameters


@pytest.mark.timeout(240)
def test_smoke_profile_runs_on_glpk_alone(tmp_path):
    shim = tmp_path / "shim"
    shim.mkdir()
    for name in HIDDEN:
        (shim / f"{name}.py").write_text(f"raise ImportError('{name} hidden by the test')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shim), os.environ.get("PYTHONPATH", "")]),
           "MPLBACKEND": "Agg"}
    if data_mirror().is_dir():
        env["ODTLIB_DATA_MIRROR"] = str(data_mirror())
    executed = [tmp_path / TUTORIAL.name, tmp_path / SOLUTIONS.name]
    args = [str(TUTORIAL), str(executed[0]), str(SOLUTIONS), str(executed[1]), str(NOTEBOOKS), str(tmp_path / "out")]
    done = subprocess.run([sys.executable, "-c", RUN, *args], env=env, cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]

    text = printed(executed[0])
    assert "solvers installed here: ('glpk',) | this run uses: glpk" in text
    report_dir = tmp_path / "out" / "tutorial_mip_trees" / "report"
    times = pd.read_csv(report_dir / "section_times_glpk.csv").set_index("section")["seconds"]
    assert len(times) == 9 and times["total"] == pytest.approx(times.drop("total").sum(), abs=0.05)
    # each timed section is named after the heading it times ("0 setup" comes before the first heading)
    numbers = {label.split()[0] for label in times.index if label not in ("total", "0 setup")}
    assert numbers == {str(n) for n in range(1, 8)} and numbers <= headings(TUTORIAL)
    bounds = pd.read_csv(report_dir / "lp_bounds.csv").set_index(["depth", "model"])
    # the flow formulation's LP bound is below OCT's big-M bound at depth 1 (section 3's point)
    assert bounds.loc[(1, "FlowOCT"), "lp_bound"] < bounds.loc[(1, "OCT"), "lp_bound"]
    assert (bounds["lp_bound"] >= bounds["mip_objective"] - 1e-6).all()
    for figure in ("branch_and_bound", "lp_bounds", "benders_cut", "search_progress", "depth", "hyperplane", "subset"):
        assert (report_dir / f"{figure}.png").stat().st_size > 0
    assert "n=0:" not in text          # the subset tree has no empty leaf
    assert stray_values(executed[0]) == [] and stray_values(executed[1]) == []
    solutions = printed(executed[1])
    assert "one feature" in solutions and "class-0 recall >= 0.95" in solutions and "BinOCT" in solutions
    assert "the floor costs 0 point" not in solutions    # the recall floor binds
