"""Deprecated module paths: the modules that moved into the family folders (issue 30) stay importable under
their old names for one release, with a FutureWarning that names the new path.

``import odtlib.models.flowoct`` and ``from odtlib.models import flowoct`` both resolve through
`MovedModuleFinder`, which returns the module at its new path (the same object, so its functions and classes are
the ones the library uses).
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

__all__ = ["MOVED_MODULES", "MovedModuleFinder", "install"]

#: old path -> new path, both relative to ``odtlib.models``
MOVED_MODULES = {
    "flowoct": "univariate.flowoct", "bendersoct": "univariate.bendersoct", "benders": "univariate.benders_cuts",
    "oct": "univariate.oct", "binoct": "univariate.binoct",
    "regularized_bendoct": "univariate.regularized_bendoct", "regularized_flowoct": "univariate.regularized_flowoct",
    "accel": "univariate.accel", "accel.d2s": "univariate.accel.d2s", "accel.eqp": "univariate.accel.eqp",
    "accel.path_bound_cuts": "univariate.accel.path_bound_cuts", "accel.polishing": "univariate.accel.polishing",
    "accel.strengthened_cuts": "univariate.accel.strengthened_cuts", "accel.memory": "_resources",
    "accel.subtree_bounds": "categorical.subtree_bounds",
    "categorical_odt": "categorical.categorical_odt", "topologies": "categorical.topologies",
    "soct": "hyperplane.soct", "octh": "hyperplane.octh", "univariate_oct": "hyperplane.univariate_oct",
    "shattering": "hyperplane.shattering", "routing_repair": "hyperplane.routing_repair",
    "data_selection": "svm1odt.data_selection",
}
PACKAGE = "odtlib.models"


class MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module path of `MOVED_MODULES` and loads it as the module at its new path."""

    def find_spec(self, fullname, path=None, target=None):
        old = fullname.removeprefix(PACKAGE + ".")
        if fullname.startswith(PACKAGE + ".") and old in MOVED_MODULES:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        new = f"{PACKAGE}.{MOVED_MODULES[spec.name.removeprefix(PACKAGE + '.')]}"
        warnings.warn(f"{spec.name} moved to {new}; the old path will be removed in the next release",
                      FutureWarning, stacklevel=2)
        module = importlib.import_module(new)
        spec.loader_state = module.__spec__    # the import machinery overwrites __spec__: exec_module puts it back
        return module

    def exec_module(self, module):
        """Nothing to run (the module at the new path is already executed): give it back its own spec."""
        module.__spec__ = module.__spec__.loader_state


def install() -> None:
    """Put the finder first on ``sys.meta_path``, once: first, so that ``odtlib.models.accel.d2s`` is not found
    again by the path finder inside the moved package (which would load a second copy of the module)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
