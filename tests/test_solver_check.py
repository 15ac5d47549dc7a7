"""The solver check that opens every notebook (issue 34, item 5): `check_solvers` prints one line per solver,
names the package to install when one is missing, and each notebook calls it in its first cell after the
parameters."""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from odtlib.solvers import SolverNotAvailableError, check_solvers
from odtlib.solvers.glpk import GlpkBackend
from odtlib.solvers.highs import HighsBackend

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_available_solver_prints_one_line_with_its_version():
    lines = []
    versions = check_solvers(["highs", "HiGHS"], echo=lines.append)
    # the repeated (differently cased) name is checked once
    assert list(versions) == ["highs"]
    (line,) = lines
    assert re.fullmatch(r"highs: available, version \d+\.\d+.*", line), line
    assert versions["highs"] in line


def test_missing_solver_raises_naming_the_pip_package(monkeypatch):
    monkeypatch.setattr(HighsBackend, "available", staticmethod(lambda: False))
    lines = []
    with pytest.raises(SolverNotAvailableError, match=r"pip install highspy"):
        check_solvers(["highs"], echo=lines.append)
    assert lines[0].startswith("highs: MISSING")


def test_every_missing_solver_is_named_after_all_lines_are_printed(monkeypatch):
    monkeypatch.setattr(HighsBackend, "available", staticmethod(lambda: False))
    monkeypatch.setattr(GlpkBackend, "available", staticmethod(lambda: False))
    lines = []
    with pytest.raises(SolverNotAvailableError) as raised:
        check_solvers(["glpk", "scip", "highs"], echo=lines.append)
    message = str(raised.value)
    assert "glpk-utils" in message and "highspy" in message and "pyscipopt" not in message.lower()
    # three lines, in the order asked: the SCIP line says available although the others are missing
    assert [line.split(":")[0] for line in lines] == ["glpk", "scip", "highs"]
    assert "available" in lines[1] and "MISSING" in lines[0] and "MISSING" in lines[2]


def test_unknown_solver_name_is_a_value_error():
    with pytest.raises(ValueError, match="unknown solver 'cbc'"):
        check_solvers(["cbc"], echo=lambda line: None)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_first_cell_after_parameters_checks_the_solvers(path):
    notebook = nbformat.read(path, as_version=4)
    tagged = [i for i, cell in enumerate(notebook.cells) if "parameters" in cell.metadata.get("tags", [])]
    assert len(tagged) == 1, "one parameters cell"
    following = notebook.cells[tagged[0] + 1]
    assert following.cell_type == "code"
    assert re.search(r"^(\w+ = )?check_solvers\(\[", following.source, flags=re.MULTILINE), following.source
    assert following.outputs == []


def test_the_notebooks_are_found():
    # the parametrised test above must not pass on an empty glob: 5 paper notebooks, the tutorial, its
    # solutions and which_formulation at least
    assert len(NOTEBOOKS) >= 8
