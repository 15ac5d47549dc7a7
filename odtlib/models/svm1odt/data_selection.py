"""LP-based data selection of Zhu, Murali, Phan, Nguyen & Kalagnanam (paper 004, Section 3, supplement B).

A multivariate tree that sends the points ``I_0`` of one class to one leaf sends every point of their convex
hull there too, so the points inside that hull can be left out of training. The data are cut into
*clusters* (the points of one class in one leaf of a CART tree of the same depth), and in each cluster N:

* LP (24) asks, for every point j, whether ``x_j`` is a convex combination of the other points of N (within
  ε' per coordinate); it splits into one LP per point. ``b_j = 1`` marks the interior points I_N, and the
  weights λ_j of a vertex solution say which points represent them (Theorem 4; λ >= 0 is kept, the printed
  (24) omits it);
* Algorithm 1 keeps N \\ I_N when I_N is most of N (``|I_N| >= (1 - β1)|N|``), else the main representers
  J_N = {i : λ_ji >= 1/(d+1) for some j in I_N} and, up to ``ceil(β2 |N|)`` points, the rest K_N nearest to the
  leaf's boundary hyperplanes (the splits on its root-to-leaf path);
* the balanced variant (supplement B.1) solves the LP relaxation (32) of the 0-1 program (19) with
  f = g = 1, fixes the b it settles, and solves (19) on the ambiguous rest (Algorithm 2);
* iterative training (Algorithm 3) refits a tree on I ∪ J ∪ K with the J points weighted |I| + 1.

How the per-point LPs are solved (``interior_points``), all exact for ε' = 0:

1. *Duplicates collapse.* Copies of one point represent each other, and (24) would mark all of them interior,
   so a selection of "N minus I_N" would lose the point (Theorem 4's transformation divides by zero there).
   The LPs run on the distinct points; the first copy stands for the point, the other copies are interior
   with λ = 1 on it.
2. *Hull columns.* For ε' = 0 a point that is not a vertex of conv(N) lies in conv(N \\ {j}) = conv(vertices
   of N), so its LP needs only the vertices as columns. Qhull finds the vertices in the affine hull of the
   cluster (up to ``MAX_HULL_DIMENSION`` dimensions). Restricting the columns can only turn a ``b_j = 1`` into
   a 0, never the reverse: every interior point comes with its certificate λ. A non-vertex then needs no LP
   at all: the Delaunay simplex of the vertices that holds it gives its barycentric coordinates, a vertex
   solution of its LP (at most d + 1 affinely independent columns); the vertices themselves, and any point
   Qhull places in no simplex, go to the LP.
3. *Feasibility instead of max b.* The LP of point j is feasible with b_j = 1 exactly when its optimum has
   ``floor(b_j) = 1`` (Theorem 4), so each LP is "Σ λ_i x_i within ε' of x_j, Σ λ_i = 1, λ >= 0". Over hull
   columns it runs on one :class:`~odtlib.solvers.ReusableLP` whose row bounds change from point to point
   (the simplex restarts from the last basis). Without hull columns (ε' > 0, or more than
   ``MAX_HULL_DIMENSION`` dimensions) it runs by column generation (:func:`generated_lp`), exact through the
   LP's Farkas rays.
4. *Representation pass* (the paper's T(λ̄)): an interior point whose λ uses another interior point is solved
   again over the non-interior columns. For ε' = 0 this always succeeds (conv(N \\ {j}) is spanned by
   vertices, which are never interior); for ε' > 0 a point that fails is no longer counted interior, so every
   interior point lies within ε' of the hull of the non-interior points, as a solution of (19) requires.

The estimator :class:`LPDataSelector` selects *rows*, not columns: after ``fit(X, y)``, ``X[sel.support_]`` is
the training set (``get_support(indices=True)`` gives row numbers). It has no ``transform`` on purpose: a
scikit-learn transformer may not change the number of rows.
"""
from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_X_y

from odtlib.models._pipeline import store_parameters
from odtlib.solvers import ReusableLP
from odtlib.tree import HyperplaneSplit, Leaf, Tree, UnivariateSplit

__all__ = ["LPDataSelector", "iterative_training", "iterative_selection", "interior_points", "ConvexCover",
           "algorithm1", "balanced_selection", "leaf_boundaries", "MAX_HULL_DIMENSION", "MAX_BALANCED_POINTS"]

MAX_HULL_DIMENSION = 5        # Qhull finds hull vertices up to this affine dimension; above: column generation
MAX_BALANCED_POINTS = 150     # LP (32) has |N|^2 weights λ_ji: the balanced variant is for small clusters
CHUNK = 2000                  # points per parallel task of per-point LPs (n_jobs > 1)
SUPPORT_TOL = 1e-12           # λ below this counts as zero (HiGHS leaves non-basic columns at exactly 0)
RAY_TOL = 1e-9                # a point breaks a Farkas certificate (scaled to max |y| = 1) above this
GENERATED = 50                # columns added per round of column generation


# ---------------------------------------------------------------------------- one point's LP of (24)
class ConvexCombinationLP:
    """LP (24) of one point x in its feasibility form (module docstring, 3.): is x within ε' (per coordinate) of
    a convex combination of the columns? One :class:`~odtlib.solvers.ReusableLP` for every x.

    Rows: ``x - ε' <= Σ_i λ_i c_i <= x + ε'`` (d rows) and ``Σ_i λ_i = 1`` (b_j = 1); columns λ_i >= 0, one per
    point c_i of ``columns``; ``solve(x, exclude=k)`` keeps column k at 0 (x's own column); :meth:`add_columns`
    grows it. The simplex gives a vertex solution (at most d + 1 weights > 0) and, with presolve off, restarts
    from the last point's basis.
    """

    def __init__(self, columns: np.ndarray, epsilon_prime: float):
        m, d = columns.shape
        self.lp = ReusableLP(self._weights_rows(columns), np.zeros(d + 1), np.zeros(d + 1), presolve=False)
        self._rows = np.arange(d + 1, dtype=np.int32)
        self.columns = columns
        self.epsilon_prime = epsilon_prime

    @staticmethod
    def _weights_rows(columns: np.ndarray) -> np.ndarray:
        """The matrix of the rows for the points ``columns``: their coordinates, then a 1 (Σ_i λ_i)."""
        return np.vstack([columns.T, np.ones(len(columns))])

    @property
    def n_solves(self) -> int:
        return self.lp.n_solves

    def add_columns(self, columns: np.ndarray) -> None:
        self.lp.add_columns(self._weights_rows(columns))
        self.columns = np.vstack([self.columns, columns])

    def farkas_ray(self) -> np.ndarray | None:
        """After an infeasible solve: y (d + 1 row multipliers, max |y| = 1) with y·(c, 1) <= 0 on every column
        and y·(x, 1) > 0 on the target's box; None if HiGHS has no such certificate."""
        return self.lp.farkas_ray(RAY_TOL)

    def solve(self, x: np.ndarray, exclude: int = -1) -> tuple[np.ndarray, np.ndarray] | None:
        """(columns, weights) of a vertex solution, or None when x is not in the hull (within ε')."""
        if exclude >= 0:                           # the point's own column
            self.lp.close([exclude])
        rhs = np.append(x, 1.0)
        slack = np.append(np.full(len(x), self.epsilon_prime), 0.0)
        self.lp.set_row_bounds(self._rows, rhs - slack, rhs + slack)
        found = None
        if self.lp.solve() == "optimal":
            lam = self.lp.vertex()
            support = np.flatnonzero(lam > SUPPORT_TOL)
            found = (support, lam[support])
        if exclude >= 0:
            self.lp.open([exclude])
        return found


def _solve_points(columns: np.ndarray, epsilon_prime: float, targets: np.ndarray, own_column: np.ndarray
                  ) -> tuple[list, int]:
    """The LPs of the points ``targets`` over ``columns`` (a point's own column, if any, closed)."""
    lp = ConvexCombinationLP(columns, epsilon_prime)
    return [lp.solve(x, int(own)) for x, own in zip(targets, own_column)], lp.n_solves


def generated_lp(points: np.ndarray, x: np.ndarray, allowed: np.ndarray, epsilon_prime: float
                 ) -> tuple[tuple[np.ndarray, np.ndarray] | None, int]:
    """The LP of x over the ``allowed`` points by column generation, and the number of LPs it took.

    It starts from the 2(d + 1) allowed points nearest x. While the LP is infeasible, its Farkas ray y
    (y·(c, 1) <= 0 on the columns so far, y·(x, 1) > 0) says x is outside their hull; allowed points with
    y·(c, 1) > 0 could break that certificate and join (the ``GENERATED`` most violating). When none is left
    the certificate holds for every allowed point: b = 0, exactly as the LP over all of them. A feasible LP
    is a valid b = 1 with its λ (indices into ``points``). HiGHS solves many small LPs far faster than one
    LP per point with every point as a column (its cost per solve grows with the number of columns)."""
    pool = np.flatnonzero(allowed)
    if len(pool) == 0:
        return None, 0
    start = min(len(pool), 2 * (points.shape[1] + 1))
    nearest = np.argpartition(((points[pool] - x) ** 2).sum(axis=1), start - 1)[:start]
    active = pool[nearest]
    in_model = np.zeros(len(points), dtype=bool)
    in_model[active] = True
    lp = ConvexCombinationLP(points[active], epsilon_prime)
    while True:
        found = lp.solve(x)
        if found is not None:
            return (active[found[0]], found[1]), lp.n_solves
        y = lp.farkas_ray()
        outside = pool[~in_model[pool]]
        if y is None:                                  # no usable certificate: the full LP decides
            new = outside
        else:
            score = points[outside] @ y[:-1] + y[-1]
            new = outside[score > RAY_TOL][np.argsort(-score[score > RAY_TOL], kind="stable")][:GENERATED]
        if len(new) == 0:
            return None, lp.n_solves
        lp.add_columns(points[new])
        active = np.concatenate([active, new])
        in_model[new] = True


def _solve_generated(points: np.ndarray, epsilon_prime: float, targets: np.ndarray) -> tuple[list, int]:
    """The LPs of the points ``targets`` (indices) over all the other points, by column generation."""
    allowed = np.ones(len(points), dtype=bool)
    results, n_lps = [], 0
    for j in targets:
        allowed[j] = False
        found, n = generated_lp(points, points[j], allowed, epsilon_prime)
        allowed[j] = True
        results.append(found)
        n_lps += n
    return results, n_lps


# ---------------------------------------------------------------------------- LP (24) on one cluster
@dataclass
class ConvexCover:
    """LP (24) on one cluster of n points: ``interior[j]`` is b_j, ``weights`` (n x n, sparse) holds λ_ji on
    row j for the interior points, supported on non-interior points only (the paper's T(λ̄))."""

    interior: np.ndarray
    weights: sparse.csr_matrix
    n_lps: int


def affine_coordinates(points: np.ndarray) -> np.ndarray | None:
    """Coordinates of the points in their affine hull (an orthonormal basis from the SVD), or None when it
    has more than ``MAX_HULL_DIMENSION`` dimensions."""
    centred = points - points.mean(axis=0)
    _, singular, basis = np.linalg.svd(centred, full_matrices=False)
    rank = int(np.sum(singular > 1e-10 * singular[0])) if len(points) > 1 else 0
    return None if rank > MAX_HULL_DIMENSION else centred @ basis[:rank].T


def hull_vertex_candidates(coordinates: np.ndarray) -> np.ndarray | None:
    """Indices of the vertices of the hull of distinct points given by their affine coordinates (Qhull), or
    None when Qhull fails."""
    from scipy.spatial import ConvexHull, QhullError

    m, rank = coordinates.shape
    if rank == 0 or m <= rank + 1:
        return np.arange(m)
    if rank == 1:
        return np.unique([coordinates[:, 0].argmin(), coordinates[:, 0].argmax()])
    try:
        return np.sort(ConvexHull(coordinates).vertices)
    except QhullError:
        return None


def barycentric_weights(coordinates: np.ndarray, vertices: np.ndarray, targets: np.ndarray) -> list:
    """λ of each target point in a Delaunay simplex of the hull vertices: (column indices into ``vertices``,
    weights), a vertex solution of its LP (at most rank + 1 affinely independent columns); None for a target
    that falls in no simplex by rounding (those go to the LP)."""
    from scipy.spatial import Delaunay, QhullError

    rank = coordinates.shape[1]
    if rank < 2 or len(targets) == 0:
        return [None] * len(targets)
    try:
        triangulation = Delaunay(coordinates[vertices])
    except QhullError:
        return [None] * len(targets)
    x = coordinates[targets]
    corners = coordinates[vertices][triangulation.simplices]        # (simplices, rank + 1, rank)
    origin = corners[:, rank]
    edges = corners[:, :rank] - origin[:, None]                      # x - origin = w[:rank] @ edges
    flat = np.abs(np.linalg.det(edges)) < 1e-12
    edges[flat] = np.eye(rank)
    to_weights = np.linalg.inv(edges)        # (Qhull's own ``transform`` takes seconds for a few hundred)
    simplex = np.full(len(x), -1)
    weights = np.zeros((len(x), rank + 1))
    pending = np.arange(len(x))
    for s in np.flatnonzero(~flat):                                  # each simplex tests every point left at once
        if len(pending) == 0:
            break
        partial = np.einsum("ik,kj->ij", x[pending] - origin[s], to_weights[s])
        w = np.c_[partial, 1 - partial.sum(axis=1)]
        inside = w.min(axis=1) >= -1e-12
        simplex[pending[inside]] = s
        weights[pending[inside]] = w[inside]
        pending = pending[~inside]
    found = []
    for s, w in zip(simplex, weights):
        keep = w > SUPPORT_TOL
        found.append(None if s < 0 else (triangulation.simplices[s][keep], w[keep]))
    return found


def _in_chunks(work: Callable, shared: tuple, per_point: tuple, n_jobs: int) -> tuple[list, int]:
    """``work(*shared, *per_point chunk) -> (results, n_lps)`` over chunks of ``CHUNK`` points, across
    ``n_jobs`` processes when there are several chunks."""
    starts = range(0, len(per_point[0]), CHUNK)
    tasks = [shared + tuple(a[s:s + CHUNK] for a in per_point) for s in starts]
    if n_jobs == 1 or len(tasks) <= 1:
        parts = [work(*task) for task in tasks]
    else:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=n_jobs)(delayed(work)(*task) for task in tasks)
    return [r for part, _ in parts for r in part], sum(n for _, n in parts)


def _distinct_cover(points: np.ndarray, epsilon_prime: float, n_jobs: int
                    ) -> tuple[np.ndarray, dict[int, tuple[np.ndarray, np.ndarray]], int]:
    """LP (24) on distinct points: b, and λ (indices into ``points``) of every interior point."""
    m = len(points)
    coordinates = affine_coordinates(points) if epsilon_prime == 0 else None
    candidates = None if coordinates is None else hull_vertex_candidates(coordinates)
    found: list = [None] * m
    if candidates is None:                         # every point by column generation over all the others
        found, n_lps = _in_chunks(_solve_generated, (points, epsilon_prime), (np.arange(m),), n_jobs)
        allowed = np.ones(m, dtype=bool)
    else:                                          # hull vertices as columns
        column_of = np.full(m, -1)
        column_of[candidates] = np.arange(len(candidates))
        others = np.flatnonzero(column_of < 0)     # non-vertices: a Delaunay simplex of the vertices holds them
        for j, r in zip(others, barycentric_weights(coordinates, candidates, others)):
            found[j] = None if r is None else (candidates[r[0]], r[1])
        by_lp = np.array([j for j in range(m) if found[j] is None], dtype=int)
        solved, n_lps = _in_chunks(_solve_points, (points[candidates], epsilon_prime),
                                   (points[by_lp], column_of[by_lp]), n_jobs)
        for j, r in zip(by_lp, solved):
            found[j] = None if r is None else (candidates[r[0]], r[1])
        allowed = column_of >= 0
    interior = np.array([r is not None for r in found], dtype=bool)
    lam = {j: r for j, r in enumerate(found) if r is not None}
    for j in [j for j, (support, _) in lam.items() if interior[support].any()]:
        r, n = generated_lp(points, points[j], allowed & ~interior, epsilon_prime)  # representation pass
        n_lps += n
        if r is None:                              # only for ε' > 0: j is no longer counted interior
            interior[j] = False
            del lam[j]
        else:
            lam[j] = r
    return interior, lam, n_lps


def interior_points(X: np.ndarray, epsilon_prime: float = 0.0, n_jobs: int = 1) -> ConvexCover:
    """LP (24) on the cluster X (n x d): which points lie within ε' of the hull of the others, with their λ
    (module docstring: duplicates, hull columns, feasibility form, representation pass)."""
    X = np.asarray(X, dtype=float)
    n = len(X)
    points, first, distinct_of = np.unique(X, axis=0, return_index=True, return_inverse=True)
    distinct_of = distinct_of.ravel()
    interior_d, lam_d, n_lps = _distinct_cover(points, epsilon_prime, n_jobs)
    m = len(points)
    u_rows = [np.full(len(lam_d[u][0]), u) for u in lam_d]
    distinct_weights = sparse.csr_matrix(
        (np.concatenate([lam_d[u][1] for u in lam_d] + [np.zeros(0)]),
         (np.concatenate(u_rows + [np.zeros(0, dtype=int)]),
          np.concatenate([lam_d[u][0] for u in lam_d] + [np.zeros(0, dtype=int)]))), shape=(m, m))
    row_to_distinct = sparse.csr_matrix((np.ones(n), (np.arange(n), distinct_of)), shape=(n, m))
    distinct_to_first = sparse.csr_matrix((np.ones(m), (np.arange(m), first)), shape=(m, n))
    later_copy = np.arange(n) != first[distinct_of]
    copy_of_kept = later_copy & ~interior_d[distinct_of]    # represented by its first copy, λ = 1
    weights = row_to_distinct @ distinct_weights @ distinct_to_first + sparse.csr_matrix(
        (np.ones(copy_of_kept.sum()), (np.flatnonzero(copy_of_kept), first[distinct_of[copy_of_kept]])),
        shape=(n, n))
    interior = interior_d[distinct_of] | later_copy
    return ConvexCover(interior, weights.tocsr(), n_lps)


# ---------------------------------------------------------------------------- Algorithm 1
def leaf_boundaries(tree: Tree) -> dict[int, list[tuple[np.ndarray, float]]]:
    """For each leaf, the splits on its root-to-leaf path as hyperplanes (w, c) with ||w||_2 = 1 (w·x = c)."""
    planes = {split: _unit_plane(tree.nodes[split]) for split in tree.nodes if not isinstance(tree.nodes[split], Leaf)}
    return {leaf: [planes[split] for split, _ in path if planes[split] is not None]
            for leaf, path in tree.leaf_paths()}


def _unit_plane(node) -> tuple[np.ndarray, float] | None:
    """A split as the hyperplane (w, c), ||w||_2 = 1, of its boundary w·x = c (None for a zero hyperplane)."""
    if isinstance(node, UnivariateSplit):
        w = np.zeros(node.feature + 1)
        w[node.feature] = 1.0
        return w, node.threshold
    if isinstance(node, HyperplaneSplit):
        norm = float(np.linalg.norm(node.weights))
        return (node.weights / norm, node.bias / norm) if norm > 0 else None
    raise ValueError(f"data selection needs univariate or hyperplane splits, got {type(node).__name__}")


def distance_to_boundaries(X: np.ndarray, planes: list[tuple[np.ndarray, float]]) -> np.ndarray:
    """min over the hyperplanes of the Euclidean distance of each row of X (inf without hyperplanes)."""
    distance = np.full(len(X), np.inf)
    for w, c in planes:
        distance = np.minimum(distance, np.abs(X[:, : len(w)] @ w - c))
    return distance


def algorithm1(X: np.ndarray, cover: ConvexCover, planes: list, beta1: float, beta2: float
               ) -> tuple[np.ndarray, int]:
    """Algorithm 1 on one cluster: the selected mask and the branch taken (1: N \\ I, 2: J, 3: J + nearest K)."""
    n, d = X.shape
    interior = cover.interior
    if interior.sum() >= (1 - beta1) * n:
        return ~interior, 1
    main = np.zeros(n, dtype=bool)                            # J: λ_ji >= 1/(d+1) for some interior j
    main[cover.weights.indices[cover.weights.data >= 1 / (d + 1) - 1e-9]] = True
    if main.sum() > beta2 * n:
        return main, 2
    rest = np.flatnonzero(~interior & ~main)                  # K, nearest the leaf's boundary first
    nearest = rest[np.argsort(distance_to_boundaries(X[rest], planes), kind="stable")]
    selected = main.copy()
    selected[nearest[: math.ceil(beta2 * n) - int(main.sum())]] = True
    return selected, 3


# ---------------------------------------------------------------------------- Algorithm 2 (balanced)
def _program_19(points: np.ndarray):
    """Matrix of (19)/(32) with ε' = 0 on m distinct points; columns a (m), b (m), λ_ji (i != j, row-major in j)."""
    m, d = points.shape
    pairs_j, pairs_i = np.nonzero(~np.eye(m, dtype=bool))
    n_lam = len(pairs_j)
    lam_col = 2 * m + np.arange(n_lam)
    entries: list[tuple] = []                 # (rows, columns, values) blocks of the sparse matrix

    def add(rows, cols, values):
        entries.append((rows, cols, np.asarray(values, dtype=float)))

    for k in range(d):                     # b_j x_jk - Σ_i λ_ji x_ik = 0
        add(k * m + np.arange(m), m + np.arange(m), points[:, k])
        add(k * m + pairs_j, lam_col, -points[pairs_i, k])
    add(d * m + pairs_j, lam_col, np.ones(n_lam))                     # Σ_i λ_ji - b_j = 0
    add(d * m + np.arange(m), m + np.arange(m), -np.ones(m))
    link = (d + 1) * m + np.arange(n_lam)                              # λ_ji - a_i <= 0
    add(link, lam_col, np.ones(n_lam))
    add(link, pairs_i, -np.ones(n_lam))
    pair_row = (d + 1) * m + n_lam + np.arange(m)                      # a_j + b_j <= 1
    add(pair_row, np.arange(m), np.ones(m))
    add(pair_row, m + np.arange(m), np.ones(m))
    n_rows = (d + 2) * m + n_lam
    rows, cols, values = (np.concatenate(part) for part in zip(*entries))
    matrix = sparse.csc_matrix((values, (rows, cols)), shape=(n_rows, 2 * m + n_lam))
    lower = np.concatenate([np.zeros((d + 1) * m), np.full(n_lam + m, -np.inf)])
    upper = np.concatenate([np.zeros((d + 1) * m), np.zeros(n_lam), np.ones(m)])
    return matrix, lower, upper


def balanced_selection(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Algorithm 2 on one cluster: (selected mask, covered mask, number of solves). (19) runs on the distinct
    points; the later copies of a selected point count as covered by its first copy."""
    X = np.asarray(X, dtype=float)
    points, first, distinct_of = np.unique(X, axis=0, return_index=True, return_inverse=True)
    distinct_of = distinct_of.ravel()
    m = len(points)
    if m > MAX_BALANCED_POINTS:
        raise ValueError(f"the balanced data selection solves LP (32) with |N|^2 weights; a cluster has {m} "
                         f"distinct points, above MAX_BALANCED_POINTS = {MAX_BALANCED_POINTS}: use method='lp'")
    matrix, row_lower, row_upper = _program_19(points)
    n_lam = matrix.shape[1] - 2 * m
    a, b = np.arange(m), m + np.arange(m)
    lp = ReusableLP(matrix, row_lower, row_upper, costs=np.r_[np.ones(m), -np.ones(m), np.zeros(n_lam)],
                    col_upper=np.r_[np.ones(2 * m), np.full(n_lam, np.inf)], simplex=False)
    lp.solve()                                                          # LP (32): min Σ a - Σ b (f = g = 1)
    b_relaxed = lp.vertex()[b]
    fixed_zero, fixed_one = b_relaxed <= 1e-7, b_relaxed >= 1 - 1e-7
    lp.set_column_bounds(b, np.where(fixed_one, 1.0, 0.0), np.where(fixed_zero, 0.0, 1.0))
    lp.set_integer(np.r_[a, b])
    if lp.solve() != "optimal":                 # (19) on the ambiguous points; a = 1 off I1 is always feasible
        raise RuntimeError(f"HiGHS did not solve (19) of a cluster of {m} points: {lp.status}")
    solution = np.round(lp.vertex()[: 2 * m]).astype(bool)
    selected_d, covered_d = solution[a], solution[b]
    selected = np.zeros(len(X), dtype=bool)
    selected[first[selected_d]] = True
    later_copy = np.arange(len(X)) != first[distinct_of]
    covered = covered_d[distinct_of] | (later_copy & selected_d[distinct_of])
    return selected, covered, lp.n_solves


# ---------------------------------------------------------------------------- the selector
def _check_betas(beta1: float, beta2: float, n_features: int) -> None:
    """Algorithm 1's condition β2 < (d + 1)(1 - β1): |J| <= (d + 1)|I| < (d + 1)(1 - β1)|N| past the first
    branch, so with a larger β2 the second branch could never be taken."""
    if not beta2 < (n_features + 1) * (1 - beta1):
        raise ValueError(f"beta2={beta2} must be below (d + 1)(1 - beta1) = {(n_features + 1) * (1 - beta1):g} "
                         f"for d={n_features} features (Algorithm 1): lower beta2 or beta1")


def _clusters(tree: Tree, X: np.ndarray, y: np.ndarray, mask: np.ndarray | None = None) -> list[np.ndarray]:
    """Row indices of the points of one class in one leaf of ``tree`` (within ``mask``), leaf by leaf."""
    leaf = tree.apply(X)
    keep = np.ones(len(X), dtype=bool) if mask is None else mask
    clusters = []
    for leaf_id in np.unique(leaf[keep]):
        in_leaf = keep & (leaf == leaf_id)
        for label in np.unique(y[in_leaf]):
            clusters.append(np.flatnonzero(in_leaf & (y == label)))
    return clusters


class LPDataSelector(BaseEstimator):
    """Paper 004's data selection (Section 3): the rows of X worth training a multivariate tree on.

    Parameters
    ----------
    depth : int, default 2
        Depth of the CART tree whose leaves define the clusters (when ``fit`` gets no tree).
    method : {"lp", "balanced"}, default "lp"
        LP (24) + Algorithm 1, or LP (32) + Algorithm 2 (small clusters).
    beta1, beta2 : float, default 0.2, 0.05
        Algorithm 1's thresholds (the paper's skin-segmentation values); β1 in (0, 1), β2 in (0, 1] with
        β2 < (d + 1)(1 - β1).
    epsilon_prime : float, default 0.0
        Tolerance ε' of (24), per coordinate, in the units of X.
    n_jobs : int, default 1
        Processes for the per-point LPs.

    Attributes
    ----------
    support_ : ndarray of bool
        The selected rows.
    clusters_ : list of ndarray
        Row indices of each cluster.
    interior_ : ndarray of bool
        The points found inside the hull of their cluster's other points (I_N); with "balanced": the points
        (19) covers.
    branches_ : list of int
        Algorithm 1's branch per cluster (0 for "balanced").
    tree_ : odtlib.tree.Tree
        The clustering tree.
    n_lps_, lp_seconds_ : int, float
        LPs solved and their seconds.

    Examples
    --------
    One class, so the CART tree is a single leaf and all six points form one cluster. The four corners of
    the unit square are its extreme points; the two other points lie inside the square:

    >>> import numpy as np
    >>> from odtlib.models.svm1odt.data_selection import LPDataSelector
    >>> X = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [0.5, 0.5], [0.4, 0.6]])
    >>> selector = LPDataSelector(depth=1).fit(X, np.zeros(6, dtype=int))
    >>> np.flatnonzero(selector.interior_).tolist()
    [4, 5]
    """

    _parameter_constraints = {
        "depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "method": [StrOptions({"lp", "balanced"})],
        "beta1": [Interval(numbers.Real, 0, 1, closed="neither")],
        "beta2": [Interval(numbers.Real, 0, 1, closed="right")],
        "epsilon_prime": [Interval(numbers.Real, 0, None, closed="left")],
        "n_jobs": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(self, *, depth: int = 2, method: str = "lp", beta1: float = 0.2, beta2: float = 0.05,
                 epsilon_prime: float = 0.0, n_jobs: int = 1):
        store_parameters(self, locals())

    def fit(self, X, y, tree: DecisionTreeClassifier | None = None) -> LPDataSelector:
        """Select rows of X; ``tree`` is a fitted CART tree defining the clusters (default: CART of ``depth``,
        ``random_state=0``, fitted here)."""
        self._validate_params()
        X, y = check_X_y(X, y, dtype=np.float64)
        _check_betas(self.beta1, self.beta2, X.shape[1])
        if self.method == "balanced" and self.epsilon_prime != 0:
            raise ValueError("the balanced data selection solves (19) with epsilon_prime = 0 (supplement B.1): "
                             "set epsilon_prime=0 or use method='lp'")
        if tree is None:
            tree = DecisionTreeClassifier(max_depth=self.depth, random_state=0).fit(X, y)
        else:
            check_is_fitted(tree)
            if tree.n_features_in_ != X.shape[1]:
                raise ValueError(f"the given tree was fitted on {tree.n_features_in_} features, X has {X.shape[1]}")
        self.tree_ = Tree.from_sklearn(tree)
        boundaries = leaf_boundaries(self.tree_)
        leaf = self.tree_.apply(X)
        self.clusters_ = _clusters(self.tree_, X, y)
        self.support_ = np.zeros(len(X), dtype=bool)
        self.interior_ = np.zeros(len(X), dtype=bool)
        self.branches_ = []
        self.n_lps_ = 0
        start = time.perf_counter()
        for rows in self.clusters_:
            if self.method == "lp":
                cover = interior_points(X[rows], self.epsilon_prime, self.n_jobs)
                selected, branch = algorithm1(X[rows], cover, boundaries[leaf[rows[0]]], self.beta1, self.beta2)
                interior, n_lps = cover.interior, cover.n_lps
            else:
                selected, interior, n_lps = balanced_selection(X[rows])
                branch = 0
            self.support_[rows[selected]] = True
            self.interior_[rows[interior]] = True
            self.branches_.append(branch)
            self.n_lps_ += n_lps
        self.lp_seconds_ = time.perf_counter() - start
        return self

    def get_support(self, indices: bool = False) -> np.ndarray:
        """The selected rows: a bool mask over the rows of X, or their indices."""
        check_is_fitted(self, "support_")
        return np.flatnonzero(self.support_) if indices else self.support_


# ---------------------------------------------------------------------------- Algorithm 3
def iterative_selection(tree: Tree, X: np.ndarray, y: np.ndarray, epsilon_prime: float
                        ) -> tuple[np.ndarray, np.ndarray]:
    """One round of Algorithm 3: the rows I ∪ J ∪ K and their weights in Σ c (|I| + 1 on J, 1 on I and K).

    I are the rows ``tree`` misclassifies; the clusters are the correctly classified rows of each leaf; in a
    cluster, Ī are its interior points (LP (24)), J the other points carrying some λ_ji > 0, K the rest.
    """
    wrong = tree.predict(X) != y
    keep = wrong.copy()
    representer = np.zeros(len(X), dtype=bool)
    for rows in _clusters(tree, X, y, mask=~wrong):
        cover = interior_points(X[rows], epsilon_prime)
        keep[rows[~cover.interior]] = True
        representer[rows[np.unique(cover.weights.indices)]] = True
    selected = np.flatnonzero(keep)
    weights = np.where(representer[selected], wrong.sum() + 1.0, 1.0)
    return selected, weights


def iterative_training(fit_tree: Callable[[np.ndarray, np.ndarray, Tree | None], Tree], X, y, *, depth: int,
                       beta1: float, beta2: float, epsilon_prime: float, n_iterations: int,
                       cart: DecisionTreeClassifier | None = None) -> tuple[Tree, list[dict]]:
    """Algorithm 3. ``fit_tree(rows, sample_weight, warm_start)`` trains a tree on ``X[rows]`` minimising the
    weighted misclassifications (plus its regularisers) and returns an odtlib Tree; it starts from the CART
    tree ``cart`` (default: CART of ``depth``, ``random_state=0``). Returns the last tree and the history, one
    dict per tree (iteration 0 is the start tree, trained on every row): iteration, n_selected, train_accuracy.

    Algorithm 3 keeps every point of J and K (dropping one would void Proposition 2), so β1 and β2 only pass
    the check of Algorithm 1's condition (the estimator hands one set of data-selection parameters to every
    method). Proposition 2 (accuracy never decreases with α1 = α2 = 0 and exact solves) holds at depth 1, where
    each class's region is a half-space and so holds the hull of the J points it classifies right. At depth
    >= 2 it can fail: two leaves of the cluster's class can hold its J points with a leaf of another class
    between them, where Ī then falls (an instance: ``test_proposition_2_can_fail_at_depth_2``).
    """
    X, y = check_X_y(X, y, dtype=np.float64)
    _check_betas(beta1, beta2, X.shape[1])
    if cart is None:
        cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
    tree = Tree.from_sklearn(cart)
    history = [{"iteration": 0, "n_selected": len(X), "train_accuracy": float(np.mean(tree.predict(X) == y))}]
    for iteration in range(1, n_iterations + 1):
        rows, weights = iterative_selection(tree, X, y, epsilon_prime)
        tree = fit_tree(rows, weights, tree)
        history.append({"iteration": iteration, "n_selected": len(rows),
                        "train_accuracy": float(np.mean(tree.predict(X) == y))})
    return tree, history
