"""The layout of `odtlib.models` (issue 30): one folder per model family beside a small core, families that
import only the core, the solver layer and themselves, and the paths from before the folders still importable
(the same module objects, with a FutureWarning naming the new path)."""
from __future__ import annotations

import ast
import importlib
import warnings
from pathlib import Path

import pytest

import odtlib.models
from odtlib.models._moved import MOVED_MODULES

MODELS = Path(odtlib.models.__file__).parent
FAMILIES = {"univariate", "categorical", "hyperplane", "svm1odt"}
CORE = {"__init__", "_base", "_pipeline", "_tree_index", "_hyperplane", "_resources", "_moved", "optimal_tree",
        "svm_tree"}


def imported_modules(path: Path) -> set[str]:
    """Every ``odtlib.models...`` module a file imports (``from odtlib.models.x import y`` counts x)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("odtlib.models"):
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names if alias.name.startswith("odtlib.models"))
    return names


def test_models_lists_the_family_folders_and_the_core():
    folders = {p.name for p in MODELS.iterdir() if p.is_dir() and p.name != "__pycache__"}
    modules = {p.stem for p in MODELS.glob("*.py")}
    assert folders == FAMILIES
    assert modules == CORE


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_family_imports_only_the_core_and_itself(family):
    allowed_core = {f"odtlib.models.{name}" for name in CORE - {"__init__", "optimal_tree", "_moved"}}
    for path in (MODELS / family).rglob("*.py"):
        for module in imported_modules(path):
            own = module == f"odtlib.models.{family}" or module.startswith(f"odtlib.models.{family}.")
            assert own or module in allowed_core, f"{path.relative_to(MODELS)} imports {module}"


@pytest.mark.parametrize("old", sorted(MOVED_MODULES))
def test_an_old_module_path_still_imports_the_same_module_with_a_warning(old):
    new = importlib.import_module(f"odtlib.models.{MOVED_MODULES[old]}")
    importlib.sys.modules.pop(f"odtlib.models.{old}", None)
    with pytest.warns(FutureWarning, match=f"odtlib.models.{old} moved to odtlib.models.{MOVED_MODULES[old]}"):
        moved = importlib.import_module(f"odtlib.models.{old}")
    assert moved is new
    assert new.__spec__.name == new.__name__          # the moved module keeps its own spec


def test_from_models_import_an_old_module_name():
    from odtlib.models.univariate import flowoct as new
    importlib.sys.modules.pop("odtlib.models.flowoct", None)
    vars(odtlib.models).pop("flowoct", None)           # an earlier import of the old path set the attribute
    with pytest.warns(FutureWarning):
        from odtlib.models import flowoct
    assert flowoct is new and flowoct.build_model is new.build_model


def test_svm1odt_package_reads_as_the_old_module():
    from odtlib.models import svm1odt
    from odtlib.models.svm1odt import data_selection
    from odtlib.models.svm1odt import svm1odt as formulation
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # not moved: the package name is the old module name
        assert svm1odt.build_model is formulation.build_model
        assert svm1odt.LPDataSelector is data_selection.LPDataSelector
