"""Exercises and solutions for every paper notebook (issue 33): each ``exercises_paper<NNN>.ipynb`` has TODO
cells that stop the notebook with `odtlib.teaching.ExerciseNotDone` at the first one (never running on
silently), and each ``solutions_paper<NNN>.ipynb`` answers the same exercises and runs in the smoke profile."""
from __future__ import annotations

import json
import re

import papermill as pm
import pytest
from notebook_checks import NOTEBOOKS
from paths import data_mirror

PAPERS = ("000", "001", "002", "003", "004")
EXERCISE_HEADING = re.compile(r"^## Exercise (\d+)", re.MULTILINE)


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def source(cell) -> str:
    return "".join(cell["source"])


def exercise_numbers(path) -> list[int]:
    return [int(n) for cell in cells(path) if cell["cell_type"] == "markdown"
            for n in EXERCISE_HEADING.findall(source(cell))]


def todo_cells(path) -> list[int]:
    """Indices of the code cells that call ``todo(...)``."""
    return [i for i, cell in enumerate(cells(path)) if cell["cell_type"] == "code" and "todo(" in source(cell)]


def execute(path, tmp_path, monkeypatch):
    from odtlib.experiments import ensure_kernel
    monkeypatch.setenv("MPLBACKEND", "Agg")
    if data_mirror().is_dir():
        monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(data_mirror()))
    target = tmp_path / path.name
    parameters = {"profile": "smoke", "output_dir": str(tmp_path / "out")}
    pm.execute_notebook(str(path), str(target), parameters=parameters, kernel_name=ensure_kernel(),
                        cwd=str(NOTEBOOKS), progress_bar=False)
    return target


@pytest.mark.parametrize("paper", PAPERS)
def test_exercises_and_solutions_are_clean_and_pair_up(paper):
    exercises, solutions = NOTEBOOKS / f"exercises_paper{paper}.ipynb", NOTEBOOKS / f"solutions_paper{paper}.ipynb"
    for path in (exercises, solutions):
        code = [cell for cell in cells(path) if cell["cell_type"] == "code"]
        assert all(cell["outputs"] == [] and cell["execution_count"] is None for cell in code), path.name
        assert "parameters" in code[0]["metadata"].get("tags", []), path.name
        assert "\nprofile = " in "\n" + source(code[0]) and "\nsolver = " in "\n" + source(code[0]), path.name
    numbers = exercise_numbers(exercises)
    assert 2 <= len(numbers) <= 4 and numbers == list(range(1, len(numbers) + 1))
    assert exercise_numbers(solutions) == numbers
    assert len(todo_cells(exercises)) >= len(numbers)      # at least one TODO per exercise
    assert todo_cells(solutions) == []


@pytest.mark.timeout(300)
@pytest.mark.parametrize("paper", PAPERS)
def test_solutions_run_in_smoke(paper, tmp_path, monkeypatch):
    executed = execute(NOTEBOOKS / f"solutions_paper{paper}.ipynb", tmp_path, monkeypatch)
    errors = [output for cell in cells(executed) if cell["cell_type"] == "code" for output in cell["outputs"]
              if output["output_type"] == "error"]
    assert errors == []


@pytest.mark.timeout(300)
@pytest.mark.parametrize("paper", PAPERS)
def test_exercises_stop_clearly_at_the_first_todo(paper, tmp_path, monkeypatch):
    path = NOTEBOOKS / f"exercises_paper{paper}.ipynb"
    with pytest.raises(pm.PapermillExecutionError) as stopped:
        execute(path, tmp_path, monkeypatch)
    assert stopped.value.ename == "ExerciseNotDone"
    assert "TODO exercise 1" in stopped.value.evalue
    executed = cells(tmp_path / path.name)
    failed = [i for i, cell in enumerate(executed) if cell["cell_type"] == "code"
              and any(output["output_type"] == "error" for output in cell["outputs"])]
    first_todo = source(cells(path)[todo_cells(path)[0]])
    assert [source(executed[i]) for i in failed] == [first_todo]     # papermill adds a cell: compare sources
    ran = [i for i, cell in enumerate(executed) if cell["cell_type"] == "code" and cell["execution_count"]]
    assert ran and max(ran) == failed[0]           # every cell before it ran, none after it
