"""ThresholdTreeSearch: the optimal tree of depth <= 5 over every threshold of numeric columns, by exact search.

Issue 32: exact trees on continuous features. Paper 003's objective

    max_T  (correct weight of T) / W  -  λ·leaves(T)                                                    (1)

(W the total weight, |I| without weights) over univariate trees of depth <= 5, where a split is ``x_f <= t`` for
any threshold t, is solved exactly by the search of :mod:`odtlib.models.univariate.accel.nested_thresholds`: the
thresholds of one column are nested, so a row is described by its rank among the column's distinct values, and
every split is a cut of the rows sorted by one column. The search is a branch and bound on those cut positions
(as ConTree's), with a compiled depth-2 search at the bottom. Every midpoint between two consecutive distinct
values is a candidate, so the tree is optimal over every threshold of the data (a 0/1 column has the one
threshold 0.5). No MIP is needed. :class:`~odtlib.models.OptimalTreeClassifier` takes this path for univariate
trees of depth <= 5 (at depth 5 it beats paper 003's engine on each of the nine 0/1 datasets measured in
bench/README.md).

Only the class changes of a column (:class:`~odtlib.encoders.ClassChangeThresholdEncoder`) would not do: they
keep the optimum of a single split, but an inner split between two values of one same class can be needed
(``tests/test_threshold_search.py`` has a 12-row example at depth 2).
"""
from __future__ import annotations

import numbers
import time
import warnings

import numpy as np
from sklearn.utils._param_validation import Interval

from odtlib.models._base import ODTClassifier, shared_constraints
from odtlib.models._pipeline import NotProvedOptimalWarning, PointWeightsFit, class_weight_constraint
from odtlib.models.univariate.accel.nested_thresholds import NestedLevels, NestedSubtree, NestedSubtreeSolver
from odtlib.solvers import SolveResult
from odtlib.solvers.result import relative_gap
from odtlib.tree import Leaf, Tree, UnivariateSplit

__all__ = ["ThresholdTreeSearch"]

SOLVER_NAME = "nested-threshold search"


def _levels(X: np.ndarray) -> tuple[NestedLevels, list[np.ndarray]]:
    """Each row's rank among the distinct values of each column, and each column's thresholds: the midpoints of
    consecutive distinct values (a rank <= a is ``x <= thresholds[a]``). All columns are ranked in one sort."""
    order = np.argsort(X, axis=0, kind="stable")
    ordered = np.take_along_axis(X, order, axis=0)
    starts = np.ones_like(ordered, dtype=bool)          # where a new distinct value begins, in sorted order
    starts[1:] = ordered[1:] > ordered[:-1]
    levels = np.empty(X.shape, dtype=np.int64)
    np.put_along_axis(levels, order, np.cumsum(starts, axis=0) - 1, axis=0)
    thresholds = []
    for j in range(X.shape[1]):
        values = ordered[starts[:, j], j]
        thresholds.append((values[:-1] + values[1:]) / 2)
    return NestedLevels(levels, np.array([len(t) for t in thresholds], dtype=np.int64)), thresholds


def _tree_nodes(found: NestedSubtree, thresholds: list[np.ndarray], classes: np.ndarray) -> dict:
    """The search's subtree as Tree nodes: the search sends ranks <= a cut to node 2m + 1, a Tree sends
    ``x <= t`` to its left child, numbered 2m here."""
    nodes = {}

    def place(source: int, target: int) -> None:
        if source in found.leaf:
            nodes[target] = Leaf(classes[found.leaf[source]])
            return
        column, cut = found.branch[source]
        nodes[target] = UnivariateSplit(column, 2 * target, 2 * target + 1, float(thresholds[column][cut]))
        place(2 * source + 1, 2 * target)
        place(2 * source, 2 * target + 1)

    place(1, 1)
    return nodes


class ThresholdTreeSearch(PointWeightsFit, ODTClassifier):
    """Optimal tree of depth <= 5 over every threshold of numeric columns, by exact search (module doc).

    Parameters
    ----------
    depth : {1, 2, 3, 4, 5}, default 2
        Maximum depth (the tree may be sparser when λ > 0 or when a split gains nothing).
    leaf_penalty : float in [0, 1], default 0
        λ of objective (1).
    time_limit : float or None
        Seconds of the search (depth >= 3; shallower ones take milliseconds). When it stops early the tree is
        the best found, ``solve_result_`` has status ``"time_limit"`` with the bound and gap, and a
        ``NotProvedOptimalWarning`` says so.
    class_weight : None, "balanced" or dict
        Multiplies each point's weight by its class's (as in scikit-learn).
    max_memory : float or None
        Bytes the search may use (None: a quarter of the machine's memory); refused with the size otherwise.

    Attributes
    ----------
    tree_, solve_result_ (objective (1), ``bound``, ``gap``, ``nodes``: root cuts searched), classes_,
    n_features_in_, feature_names_in_, search_stats_ (the subtree cache's statistics).

    Examples
    --------
    The labels change between 2 and 3, so the split at the midpoint 2.5 classifies every row:

    >>> import numpy as np
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> clf = ThresholdTreeSearch(depth=1).fit(X, [0, 0, 1, 1])
    >>> clf.score(X, [0, 0, 1, 1]), clf.solve_result_.status
    (1.0, 'optimal')
    >>> print(clf.tree_.to_text())
    if x0 <= 2.5:
        predict 0  (n=2: 0 2, 1 0)
    else:
        predict 1  (n=2: 0 0, 1 2)
    """

    MAX_DEPTH = 5
    _parameter_constraints = {
        **shared_constraints(),
        "depth": [Interval(numbers.Integral, 1, MAX_DEPTH, closed="both")],
        "leaf_penalty": [Interval(numbers.Real, 0, 1, closed="both")],
        "max_memory": [Interval(numbers.Real, 0, None, closed="neither"), None],
        **class_weight_constraint(),
    }

    requires_binary_features = False

    def __init__(self, *, depth: int = 2, leaf_penalty: float = 0.0, time_limit: float | None = None,
                 class_weight=None, max_memory: float | None = None):
        self.depth = depth
        self.leaf_penalty = leaf_penalty
        self.time_limit = time_limit
        self.class_weight = class_weight
        self.max_memory = max_memory

    def _fit(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None):
        start = time.perf_counter()
        weights = self._point_weights(y, sample_weight)
        levels, thresholds = _levels(X)
        search = NestedSubtreeSolver(levels, y, len(self.classes_), sample_weight=weights,
                                     max_memory=self.max_memory, max_depth=self.depth)
        total = float(len(y) if weights is None else weights.sum())
        alpha = total * self.leaf_penalty
        found, bound = search.search(None, self.depth, alpha, self.time_limit)
        tree = Tree(_tree_nodes(found, thresholds, self.classes_), root=1)
        self.search_stats_ = search.cache_info()
        result = self._result(found.value / total, bound / total, time.perf_counter() - start)
        if result.status != "optimal":
            warnings.warn(f"ThresholdTreeSearch: {result.message}; objective {result.objective:.6g}, bound "
                          f"{result.bound:.6g}, gap {result.gap:.2%}", NotProvedOptimalWarning, stacklevel=4)
        return tree, result

    def _result(self, objective: float, bound: float, seconds: float) -> SolveResult:
        proved = bound <= objective + 1e-9
        return SolveResult(
            status="optimal" if proved else "time_limit", objective=objective, bound=objective if proved else bound,
            gap=0.0 if proved else relative_gap(objective, bound), runtime=seconds, solve_time=seconds,
            nodes=self.search_stats_.root_cuts_evaluated, solver=SOLVER_NAME,
            message="" if proved else f"stopped at the {self.time_limit:g} s limit with the best tree found")
