"""An independent oracle for hyperplane trees: enumerate routings, check each split with its own LP.

A split sends the points ``left`` to the left and ``right`` to the right with an ε-margin exactly when some
(a, b) with ||a||_1 <= 1 and b in [-1, 1] has a·x <= b on the left and a·x >= b + ε on the right (the
problem of S-OCT's big-M baseline and OCT-H, Boutilier et al. 2022). The best tree of depth D on a set of
points is the best, over every split it can realise (or none: everything goes left), of the best subtrees
below; a leaf classifies its majority class. Exponential: for a handful of points only.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.optimize import linprog


def margin_separable(X: np.ndarray, left: list[int], right: list[int], epsilon: float) -> bool:
    """LP feasibility of the ε-margin split; variables a⁺, a⁻ (a = a⁺ - a⁻), b."""
    p = X.shape[1]
    rows, rhs = [], []
    for i in left:        # a·x - b <= 0
        rows.append(np.concatenate([X[i], -X[i], [-1.0]]))
        rhs.append(0.0)
    for i in right:       # -(a·x) + b <= -ε
        rows.append(np.concatenate([-X[i], X[i], [1.0]]))
        rhs.append(-epsilon)
    rows.append(np.concatenate([np.ones(2 * p), [0.0]]))        # ||a||_1 <= 1
    rhs.append(1.0)
    bounds = [(0, None)] * (2 * p) + [(-1, 1)]
    result = linprog(np.zeros(2 * p + 1), A_ub=np.array(rows), b_ub=np.array(rhs), bounds=bounds, method="highs")
    return result.status == 0


def strictly_separable(X: np.ndarray, left: list[int], right: list[int]) -> bool:
    """Strict separability, scale-free: a·x + 1 <= b on the left, a·x - 1 >= b on the right, a and b free
    (an ε of the order of the LP tolerance would pass a = 0, b = 0)."""
    p = X.shape[1]
    rows = [np.concatenate([X[i], [-1.0]]) for i in left] + [np.concatenate([-X[i], [1.0]]) for i in right]
    if not rows:
        return True
    result = linprog(np.zeros(p + 1), A_ub=np.array(rows), b_ub=-np.ones(len(rows)), bounds=[(None, None)] * (p + 1),
                     method="highs")
    return result.status == 0


def best_hyperplane_tree(X: np.ndarray, y: np.ndarray, depth: int, epsilon: float | None = 0.005,
                         weights: np.ndarray | None = None) -> float:
    """Most training points a hyperplane tree of depth <= ``depth`` classifies correctly: ε-margin splits, or
    strictly separating ones with ``epsilon=None``; with ``weights``, the most weight of such points."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    weight = np.ones(len(y), dtype=np.int64) if weights is None else np.asarray(weights, dtype=float)

    @lru_cache(maxsize=None)
    def best(points: frozenset, levels: int) -> float:
        members = sorted(points)
        majority = np.bincount(y[members], weights=weight[members]).max().item() if members else 0
        if levels == 0 or len(members) <= 1:
            return majority
        value = best(points, levels - 1) if levels > 1 else majority    # no split: everything goes left
        for mask in range(1, 2 ** len(members)):
            right = [members[k] for k in range(len(members)) if mask >> k & 1]
            left = [i for i in members if i not in right]
            bound = weight[members].sum() if levels > 1 else None
            if bound is not None and value == bound:
                break
            separable = (strictly_separable(X, left, right) if epsilon is None
                         else margin_separable(X, left, right, epsilon))
            if separable:
                value = max(value, best(frozenset(left), levels - 1) + best(frozenset(right), levels - 1))
        return value

    return best(frozenset(range(len(y))), depth)
