"""Independent oracles for optimal univariate trees on binary data (paper 001's problem).

Two oracles, both independent of the MIP formulations in ``odtlib.models``:

* :func:`brute_force_tree` — exhaustive search over every univariate tree of depth <= d on 0/1
  features, where an internal node may stop and predict (so trees of every shape are included),
  with the objective of paper 001's (1.1): ``(1 - lam) * correct - lam * splits``. The search is
  the plain recursion "best tree on rows S of depth <= d = predict here, or split on some feature f
  and take the best subtrees on both sides", which visits every tree because the objective is a sum
  over the leaves and the split nodes. :func:`enumerate_trees_explicitly` builds every tree of depth
  <= 2 one by one (no recursion on the objective) and is used to check the recursion itself.
* :func:`pystreed_correct` — the STreeD dynamic program (``pystreed``) with its accuracy objective
  and no complexity cost: the optimal number of correctly classified rows at lam = 0.

Trees are returned as nested tuples: ``("leaf", k)`` or ``("split", f, left, right)`` with
``x_f == 0 -> left`` (paper 001's convention).
"""
from __future__ import annotations

import itertools

import numpy as np


def _leaf_value(y: np.ndarray, n_classes: int) -> tuple[int, int]:
    """(number of rows of the majority class, that class) for the rows' labels ``y``."""
    counts = np.bincount(y, minlength=n_classes)
    k = int(np.argmax(counts))
    return int(counts[k]), k


def brute_force_tree(X: np.ndarray, y: np.ndarray, depth: int, lam: float = 0.0,
                     n_classes: int | None = None) -> tuple[float, int, int, tuple]:
    """Best tree of depth <= ``depth`` for ``(1 - lam) * correct - lam * splits``.

    Returns ``(objective, correct, splits, tree)``. ``X`` must be 0/1, ``y`` ints 0..K-1.
    Ties are broken towards fewer splits (any optimal tree is fine for the objective value).
    """
    X = np.asarray(X, dtype=np.int8)
    y = np.asarray(y, dtype=np.int64)
    K = int(y.max()) + 1 if n_classes is None else n_classes
    n_features = X.shape[1]

    def best(rows: np.ndarray, d: int) -> tuple[float, int, int, tuple]:
        correct, k = _leaf_value(y[rows], K)
        result = ((1 - lam) * correct, correct, 0, ("leaf", k))
        if d == 0:
            return result
        for f in range(n_features):
            go_right = X[rows, f] == 1
            left = best(rows[~go_right], d - 1)
            right = best(rows[go_right], d - 1)
            value = left[0] + right[0] - lam
            if value > result[0] + 1e-9:
                result = (value, left[1] + right[1], left[2] + right[2] + 1,
                          ("split", f, left[3], right[3]))
        return result

    return best(np.arange(len(y)), depth)


def predict_tree(tree: tuple, X: np.ndarray) -> np.ndarray:
    """Labels predicted by a nested-tuple tree."""
    X = np.asarray(X)
    out = np.empty(len(X), dtype=np.int64)
    for i, x in enumerate(X):
        node = tree
        while node[0] == "split":
            node = node[3] if x[node[1]] == 1 else node[2]
        out[i] = node[1]
    return out


def _all_trees(n_features: int, n_classes: int, depth: int):
    """Every nested-tuple tree of depth <= ``depth`` (exponential: depth <= 2 on tiny data only)."""
    leaves = [("leaf", k) for k in range(n_classes)]
    if depth == 0:
        yield from leaves
        return
    yield from leaves
    subtrees = list(_all_trees(n_features, n_classes, depth - 1))
    for f in range(n_features):
        for left, right in itertools.product(subtrees, subtrees):
            yield ("split", f, left, right)


def _n_splits(tree: tuple) -> int:
    return 0 if tree[0] == "leaf" else 1 + _n_splits(tree[2]) + _n_splits(tree[3])


def enumerate_trees_explicitly(X: np.ndarray, y: np.ndarray, depth: int, lam: float = 0.0,
                               n_classes: int | None = None) -> float:
    """Best ``(1 - lam) * correct - lam * splits`` by listing every tree and predicting with it."""
    if depth > 2:
        raise ValueError("explicit enumeration is only meant for depth <= 2")
    y = np.asarray(y)
    K = int(y.max()) + 1 if n_classes is None else n_classes
    return max((1 - lam) * int((predict_tree(t, X) == y).sum()) - lam * _n_splits(t)
               for t in _all_trees(X.shape[1], K, depth))


def pystreed_correct(X: np.ndarray, y: np.ndarray, depth: int, time_limit: float = 60) -> int:
    """Optimal number of correctly classified rows of a depth-``depth`` tree, by STreeD.

    ``cost_complexity=0`` removes STreeD's default per-split cost, so the objective is the plain
    misclassification count; 0/1 columns are used as they are (STreeD only binarizes non-binary
    columns). Raises if STreeD hit its time limit.
    """
    from pystreed import STreeDClassifier

    model = STreeDClassifier(max_depth=depth, cost_complexity=0.0, time_limit=time_limit,
                             random_seed=0)
    X = np.asarray(X, dtype=np.int32)
    y = np.asarray(y)
    model.fit(X, y)
    if not model.is_fitted() or (hasattr(model, "solution_") and model.solution_ is None):
        raise RuntimeError("pystreed did not return a tree")
    return int((model.predict(X) == y).sum())


def random_binary_data(n_rows: int, n_features: int, n_classes: int, seed: int
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Small random 0/1 dataset whose labels depend partly on the features (so trees matter)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_rows, n_features))
    signal = (X[:, 0] + 2 * X[:, 1] * X[:, min(2, n_features - 1)]) % n_classes
    noise = rng.integers(0, n_classes, size=n_rows)
    y = np.where(rng.random(n_rows) < 0.7, signal, noise)
    return X, y.astype(np.int64)


def violated_constraints(model, values) -> list[str]:
    """Names of the model's active constraints that ``values`` (a variable -> value map, e.g. a warm start)
    violates by more than 1e-9; the values are loaded into the variables."""
    import pyomo.environ as pyo

    for var, value in values.items():
        var.set_value(value, skip_validation=True)
    bad = []
    for con in model.component_data_objects(pyo.Constraint, active=True):
        body = pyo.value(con.body)
        below = con.has_lb() and body < pyo.value(con.lower) - 1e-9
        above = con.has_ub() and body > pyo.value(con.upper) + 1e-9
        if below or above:
            bad.append(con.name)
    return bad


def weighted_tree_objective(tree: tuple, X: np.ndarray, y: np.ndarray, weights: np.ndarray, lam: float = 0.0
                            ) -> float:
    """``(1 - lam) * (weight of the correctly classified rows) - lam * splits`` of a nested-tuple tree: paper
    001's (1.1) with every row counted with its weight."""
    correct = predict_tree(tree, X) == np.asarray(y)
    return (1 - lam) * float(np.sum(np.asarray(weights, dtype=np.float64)[correct])) - lam * _n_splits(tree)


def best_weighted_objective(X: np.ndarray, y: np.ndarray, weights: np.ndarray, depth: int, lam: float = 0.0,
                            n_classes: int | None = None) -> float:
    """The optimum of the weighted (1.1) over every tree of depth <= ``depth`` (<= 2), by listing them all."""
    if depth > 2:
        raise ValueError("explicit enumeration is only meant for depth <= 2")
    K = int(np.max(y)) + 1 if n_classes is None else n_classes
    return max(weighted_tree_objective(t, X, y, weights, lam) for t in _all_trees(X.shape[1], K, depth))
