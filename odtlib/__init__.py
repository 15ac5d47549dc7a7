"""odtlib: optimal decision trees by mixed-integer programming.

Reference implementations of five papers on learning optimal decision trees with MIP,
as Pyomo models exposed as scikit-learn classifiers, solved by free solvers first.
"""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("odtlib")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+local"

from odtlib.tree import Tree  # noqa: E402

__all__ = ["Tree", "__version__"]
