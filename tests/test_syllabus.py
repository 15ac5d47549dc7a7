"""notebooks/SYLLABUS.md (issue 33): every notebook it names exists, and its times table is the measured one
(notebooks/lecture_times.csv, written by bench/lecture_times.py) for GLPK and HiGHS, not a guess."""
from __future__ import annotations

import importlib.util
import re

import pandas as pd
from notebook_checks import NOTEBOOKS
from paths import REPO

SYLLABUS = NOTEBOOKS / "SYLLABUS.md"


def lecture_times_module():
    spec = importlib.util.spec_from_file_location("lecture_times", REPO / "bench" / "lecture_times.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def named_notebooks() -> list[str]:
    return list(dict.fromkeys(re.findall(r"`([a-z0-9_]+)\.ipynb`", SYLLABUS.read_text(encoding="utf-8"))))


def test_every_named_notebook_exists_and_every_paper_has_a_lecture():
    names = named_notebooks()
    assert names and all((NOTEBOOKS / f"{name}.ipynb").exists() for name in names)
    papers = {path.stem for path in NOTEBOOKS.glob("paper*_*.ipynb")}
    exercises = {f"{kind}_paper{paper}" for kind in ("exercises", "solutions")
                 for paper in "000 001 002 003 004".split()}
    assert papers | exercises <= set(names)


def test_times_are_measured_for_glpk_and_highs_and_the_table_is_rendered_from_them():
    times = pd.read_csv(NOTEBOOKS / "lecture_times.csv")
    measured = {(row.notebook, row.solver) for row in times.itertuples()}
    for name in named_notebooks():
        assert {(name, "glpk"), (name, "highs")} <= measured, name
    module = lecture_times_module()
    text = SYLLABUS.read_text(encoding="utf-8")
    table = text.split(module.BEGIN, 1)[1].split(module.END, 1)[0].strip()
    assert table == module.times_table(times)
