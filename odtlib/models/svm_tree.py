"""Paper 002's multivariate warm-start heuristic: a greedy tree of linear-SVM splits (Boutilier, Michini &
Zhou 2022, Section 5).

The tree is grown top-down, as CART grows a univariate tree, but a node cannot enumerate every hyperplane
(finding the best multivariate split is NP-hard, Section 5). It takes a small set of candidates instead: the
decision boundaries ``w · x + b0 = 0`` of linear SVMs trained on the node's points,

* one-vs-rest: for each class k at the node, k against all the node's other points;
* one-vs-one: for each pair (k, l) of classes at the node, an SVM trained on the points of k and l only
  (with two classes at the node this is the single one-vs-rest task);

each with scikit-learn's ``LinearSVC`` and ``SVC(kernel="linear")`` and for every C of ``C_values`` (the paper
varies C but does not say which values; the default grid here is our choice). Every candidate is evaluated as
a split of *all* the node's points, "left iff ``w · x <= -b0``", and the node takes the candidate that lowers
the criterion (Gini impurity, entropy, or the misclassification rate; children weighted by their sizes) the
most. A node stays a leaf when it is pure, has fewer than ``min_samples_split`` points, is at depth D, or no
candidate lowers the criterion.

With a budget β on the number of splits (the MIP's (1h)), the grown tree is pruned to at most β splits; the
paper does not say how. The rule here: among all prunings of the grown tree (replace subtrees by
leaves labelled with their majority class) with at most β splits, keep one with the most correctly classified
training points, found exactly by a small dynamic program over the tree (fewer splits on ties).

With ``criterion=None`` (the paper's procedure) the three trees -- Gini, entropy, error -- are built and the one
with the highest training accuracy is kept (ties: in that order). The result is a hyperplane
:class:`~odtlib.tree.Tree`, ready as ``SOCT(warm_start=...)`` / ``OCTH(warm_start=...)``.

Limits. Its splits carry no margin: SOCT and OCT-H move each offset to meet their ε-margin where the routing
allows, and cannot use a split with training points on both sides within ε of it (after scaling ||w||_1 to 1).
On data symmetric enough that the SVMs' boundaries are degenerate (balanced XOR), a node may find no candidate
that helps and stay a leaf: it is a heuristic, not an optimum.
"""
from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, LinearSVC
from sklearn.utils._param_validation import Interval, StrOptions

from odtlib.models._base import ODTClassifier
from odtlib.models._hyperplane import check_unit_interval
from odtlib.tree import HyperplaneSplit, Leaf, Tree

__all__ = ["SVMTreeClassifier", "CRITERIA", "svm_split_tree"]

CRITERIA = ("gini", "entropy", "error")   # the paper's three trees, in the order that breaks ties
_IMPROVEMENT_TOL = 1e-12                    # a split must lower the criterion by more than this


# ------------------------------------------------------------------------------------------ split criteria
def node_impurity(counts: np.ndarray, criterion: str) -> np.ndarray:
    """Impurity of nodes from their class counts (rows: nodes, columns: classes); 0 for an empty node."""
    counts = np.atleast_2d(counts).astype(np.float64)
    sizes = counts.sum(axis=1, keepdims=True)
    p = np.divide(counts, sizes, out=np.zeros_like(counts), where=sizes > 0)
    if criterion == "gini":
        return 1.0 - (p**2).sum(axis=1)
    if criterion == "entropy":
        logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
        return -(p * logs).sum(axis=1)
    return np.where(sizes[:, 0] > 0, 1.0 - p.max(axis=1), 0.0)          # "error": misclassification rate


def children_impurity(y: np.ndarray, goes_left: np.ndarray, n_classes: int, criterion: str) -> np.ndarray:
    """Size-weighted impurity of the two children of each candidate split (rows of ``goes_left``)."""
    left = np.stack([(goes_left & (y == k)).sum(axis=1) for k in range(n_classes)], axis=1)
    right = np.bincount(y, minlength=n_classes)[None, :] - left
    n_left, n = left.sum(axis=1), len(y)
    return (n_left * node_impurity(left, criterion) + (n - n_left) * node_impurity(right, criterion)) / n


# ------------------------------------------------------------------------------------------ candidates
def binary_tasks(y: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The one-vs-rest and one-vs-one training sets at a node as (rows, 0/1 labels) (Section 5).

    With two classes present both schemes give the same single task.
    """
    present = np.unique(y)
    tasks = []
    if len(present) > 2:
        tasks += [(np.arange(len(y)), (y == k).astype(np.int64)) for k in present]           # one-vs-rest
    for k, l in combinations(present, 2):                                                   # one-vs-one
        rows = np.flatnonzero((y == k) | (y == l))
        tasks.append((rows, (y[rows] == l).astype(np.int64)))
    return tasks


def svm_hyperplanes(X: np.ndarray, y: np.ndarray, C_values, max_iter: int, random_state: int) -> np.ndarray:
    """Every candidate boundary at a node as rows (w, b0) of "w · x + b0 = 0": LinearSVC and linear SVC on each
    binary task of :func:`binary_tasks`, for every C. An SVM stopped by ``max_iter`` still gives a candidate
    (the criterion judges it), so only their ConvergenceWarnings are silenced."""
    planes = []
    for rows, labels in binary_tasks(y):
        for C in C_values:
            for svm in (LinearSVC(C=C, max_iter=max_iter, random_state=random_state),
                        SVC(kernel="linear", C=C, max_iter=max_iter, random_state=random_state)):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    svm.fit(X[rows], labels)
                planes.append(np.append(svm.coef_[0], svm.intercept_[0]))
    return np.array(planes)


@dataclass
class NodeSplit:
    """A chosen split: ``weights · x <= bias`` goes left."""

    weights: np.ndarray
    bias: float


class CandidatePlanes:
    """The SVM boundaries of :func:`svm_hyperplanes` at a set of training rows, computed once per set in a fit
    (the three criteria's trees share their root, and often more nodes)."""

    def __init__(self, X: np.ndarray, y: np.ndarray, C_values, max_iter: int, random_state: int):
        self.X, self.y, self.C_values = X, y, C_values
        self.max_iter, self.random_state = max_iter, random_state
        self._cache: dict[bytes, np.ndarray] = {}

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        key = rows.tobytes()
        if key not in self._cache:
            self._cache[key] = svm_hyperplanes(self.X[rows], self.y[rows], self.C_values, self.max_iter,
                                               self.random_state)
        return self._cache[key]


def best_split(X: np.ndarray, y: np.ndarray, planes: np.ndarray, n_classes: int, criterion: str) -> NodeSplit | None:
    """The boundary among ``planes`` (rows (w, b0)) that lowers ``criterion`` the most at a node's points X, y
    (the first in candidate order on ties), or None when none lowers it."""
    weights, bias = planes[:, :-1], -planes[:, -1]
    goes_left = (weights @ X.T) <= bias[:, None]
    after = children_impurity(y, goes_left, n_classes, criterion)
    best = int(np.argmin(after))
    before = node_impurity(np.bincount(y, minlength=n_classes), criterion)[0]
    if not after[best] < before - _IMPROVEMENT_TOL:
        return None
    return NodeSplit(weights[best], float(bias[best]))


# ------------------------------------------------------------------------------------------ growing, pruning
@dataclass
class GrownNode:
    """A node of the grown tree: its majority class index (ties: the first), its split (None: a leaf)."""

    majority: int
    n_correct: int              # training points of the majority class at the node
    split: NodeSplit | None


def grow_tree(X: np.ndarray, y: np.ndarray, n_classes: int, depth: int, criterion: str, min_samples_split: int,
              planes_at: CandidatePlanes) -> dict[int, GrownNode]:
    """The greedy tree, top-down, in heap numbering (root 1, children 2t and 2t + 1); ``planes_at(rows)`` gives
    the candidate boundaries at a node."""
    nodes: dict[int, GrownNode] = {}
    queue = [(1, np.arange(len(y)))]
    while queue:
        t, rows = queue.pop(0)
        counts = np.bincount(y[rows], minlength=n_classes)
        split = None
        if t < 2**depth and len(rows) >= min_samples_split and np.count_nonzero(counts) > 1:
            split = best_split(X[rows], y[rows], planes_at(rows), n_classes, criterion)
        nodes[t] = GrownNode(int(np.argmax(counts)), int(counts.max()), split)
        if split is not None:
            left = X[rows] @ split.weights <= split.bias
            queue += [(2 * t, rows[left]), (2 * t + 1, rows[~left])]
    return nodes


def prune(nodes: dict[int, GrownNode], max_splits: int) -> set[int]:
    """The splits to keep: a pruning of the grown tree with at most ``max_splits`` splits and the most correct
    training points (fewest splits among those), by dynamic programming over budgets."""
    def best(t: int) -> list[tuple[int, int, frozenset]]:
        """For budgets 0..max_splits: (correct points, -splits, kept splits) of the best pruning under t."""
        node = nodes[t]
        table = [(node.n_correct, 0, frozenset())] * (max_splits + 1)
        if node.split is None or max_splits == 0:
            return table
        left, right = best(2 * t), best(2 * t + 1)
        for budget in range(1, max_splits + 1):
            for s in range(budget):
                (cl, nl, kl), (cr, nr, kr) = left[s], right[budget - 1 - s]
                option = (cl + cr, nl + nr - 1, kl | kr | {t})
                if option[:2] > table[budget][:2]:
                    table[budget] = option
        return table

    return set(best(1)[max_splits][2])


def to_tree(nodes: dict[int, GrownNode], kept: set[int], classes: np.ndarray) -> Tree:
    """The odtlib Tree of the kept splits (HyperplaneSplit) and majority leaves, original class labels."""
    out = {}
    for t, node in nodes.items():
        if t in kept:
            out[t] = HyperplaneSplit(node.split.weights, node.split.bias, 2 * t, 2 * t + 1)
        elif t == 1 or t // 2 in kept:
            out[t] = Leaf(classes[node.majority])
    return Tree(out, root=1)


def svm_split_tree(X: np.ndarray, y: np.ndarray, classes: np.ndarray, depth: int, *, max_splits: int | None = None,
                   criterion: str | None = None, C_values=(0.01, 0.1, 1, 10, 100), min_samples_split: int = 2,
                   max_iter: int = 10_000, random_state: int = 0) -> tuple[Tree, str]:
    """The greedy SVM-split tree of X (in [0, 1]) and class indices ``y`` into ``classes``, and its criterion:
    the tree of each criterion (all of CRITERIA when ``criterion`` is None) grown and, with β = ``max_splits``,
    pruned; the most accurate on the training points is kept (the first in CRITERIA's order on a tie). What
    :class:`SVMTreeClassifier` fits, and the warm start the MIPs of papers 002 and 004 build from their data."""
    criteria = CRITERIA if criterion is None else (criterion,)
    planes_at = CandidatePlanes(X, y, [float(c) for c in C_values], max_iter, random_state)
    trees = []
    for name in criteria:
        nodes = grow_tree(X, y, len(classes), depth, name, min_samples_split, planes_at)
        kept = {t for t, node in nodes.items() if node.split is not None}
        if max_splits is not None and len(kept) > max_splits:
            kept = prune(nodes, max_splits)
        trees.append(to_tree(nodes, kept, classes))
    accuracies = [float(np.mean(tree.predict(X) == classes[y])) for tree in trees]
    best = int(np.argmax(accuracies))
    return trees[best], criteria[best]


# ------------------------------------------------------------------------------------------ the estimator
class SVMTreeClassifier(ODTClassifier):
    """Greedy multivariate tree of linear-SVM splits, paper 002's warm start (Section 5; module docstring).

    Parameters
    ----------
    depth : int, default 2
        At most this many levels of splits.
    max_splits : int or None, default None
        β: prune the grown tree to at most this many splits (the most correct training points); None: no limit.
    criterion : {"gini", "entropy", "error"} or None, default None
        Split criterion; None builds the three trees and keeps the one with the highest training accuracy.
    C_values : sequence of positive floats, default (0.01, 0.1, 1, 10, 100)
        SVM regularisation values tried at every node (the paper does not give its values).
    min_samples_split : int, default 2
        A node with fewer training points stays a leaf.
    max_iter : int, default 10000
        Iteration limit of each SVM fit (an SVM stopped by it still gives a candidate split).
    random_state : int, default 0
        Seed of the SVMs (LinearSVC's coordinate descent), so fits are repeatable.

    Notes
    -----
    X must be scaled to [0, 1] at fit (as the MIPs it warm-starts).

    Attributes
    ----------
    tree_ : odtlib.tree.Tree
        HyperplaneSplit nodes "w · x <= b goes left", leaves with the original labels, heap node ids.
    criterion_ : str
        The criterion of the kept tree.
    classes_, n_features_in_
        As for every scikit-learn classifier.
    solve_result_ : None
        No solver runs.

    Examples
    --------
    Feature 0 separates the two classes (many hyperplanes do, so the example shows predictions, not
    the coefficients):

    >>> import numpy as np
    >>> X, y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([0, 0, 1, 1])
    >>> from odtlib.models import SVMTreeClassifier
    >>> clf = SVMTreeClassifier(depth=1).fit(X, y)
    >>> clf.score(X, y), clf.predict([[1, 0], [0, 1]]).tolist()
    (1.0, [1, 0])
    """

    requires_binary_features = False
    _parameter_constraints = {
        "depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_splits": [Interval(numbers.Integral, 0, None, closed="left"), None],
        "criterion": [StrOptions(set(CRITERIA)), None],
        "C_values": ["array-like"],
        "min_samples_split": [Interval(numbers.Integral, 2, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": [Interval(numbers.Integral, 0, None, closed="left")],
    }

    def __init__(self, *, depth: int = 2, max_splits: int | None = None, criterion: str | None = None,
                 C_values=(0.01, 0.1, 1, 10, 100), min_samples_split: int = 2, max_iter: int = 10_000,
                 random_state: int = 0):
        self.depth = depth
        self.max_splits = max_splits
        self.criterion = criterion
        self.C_values = C_values
        self.min_samples_split = min_samples_split
        self.max_iter = max_iter
        self.random_state = random_state

    def _check_params(self) -> None:
        super()._check_params()
        C = np.asarray(self.C_values)
        numeric = C.ndim == 1 and C.size > 0 and np.issubdtype(C.dtype, np.number)
        if not numeric or not np.all(np.isfinite(C) & (C > 0)):
            raise ValueError(f"C_values must be a non-empty sequence of positive numbers, got {self.C_values!r}; "
                             "e.g. C_values=(0.01, 0.1, 1, 10, 100)")

    def _fit(self, X: np.ndarray, y: np.ndarray) -> tuple[Tree, None]:
        check_unit_interval(X, self._column_names(X.shape[1]), type(self).__name__)
        tree, self.criterion_ = svm_split_tree(
            X, y, self.classes_, self.depth, max_splits=self.max_splits, criterion=self.criterion,
            C_values=self.C_values, min_samples_split=self.min_samples_split, max_iter=self.max_iter,
            random_state=self.random_state)
        return tree, None
