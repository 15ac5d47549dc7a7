"""Benders cuts of the flow formulation: min-cut separation for all training points at once.

Aghaei, Gómez & Vayanos (2020), Section 3. Once (b, w) are fixed, point i's contribution g^i is the value
of a max-flow problem (6) on the tree; its dual is a min cut (7), and every cut (p, q) gives the Benders
cut (8.2)

    g^i <= Σ_{arcs (u, v) cut by the source set S} c^i_{u,v}(b, w)

with capacities c^i_{n,l(n)} = Σ_{f: x^i_f = 0} b_nf, c^i_{n,r(n)} = Σ_{f: x^i_f = 1} b_nf and
c^i_{n,t} = w_{n,y^i}. For a source set S ∋ s, 1 the cut reads

    g^i <= Σ_{n ∈ S ∩ N} [ [l(n) ∉ S]·Σ_{f: x^i_f=0} b_nf + [r(n) ∉ S]·Σ_{f: x^i_f=1} b_nf ] + Σ_{n ∈ S} w_{n,y^i}.

* At integer (b, w) (Proposition 1): S = the path of i from the root to the first node that predicts
  (found for all points at once in O(d) numpy steps by :func:`~odtlib.models.univariate._flow_tree.route`); the cut
  is violated exactly when that node does not predict y^i and the master's g^i > 0. These are also the
  cuts (9)/(10) of Keegan et al. (paper 003).
* At fractional (b, w): the min cut of the tree network by one bottom-up pass (the cheapest way to
  disconnect a subtree from the sink is to cut its sink arc plus, for each child, the cheaper of the arc
  to the child and the child's own cut), then S top-down; also vectorised over points.

:class:`MinCutBendersCuts` is a lazy-row plug-in (:class:`~odtlib.solvers.LazyRowFamily`) that any master
with variables b_nf, w_nk (or any (n, k) -> variable mapping) and g^i can use: FlowOCT's Benders master here,
and paper 003's regularised BendOCT master (whose leaf/cut-node variables do not enter the cuts).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from odtlib.models.univariate._flow_tree import NO_SPLIT, route
from odtlib.models._pipeline import FitContext
from odtlib.models._tree_index import TreeIndex
from odtlib.solvers import LazyRowFamily, LinearRow, Values

__all__ = ["MinCutBendersCuts", "path_source_sets", "min_cut_source_sets", "cut_coefficients"]


def path_source_sets(X: np.ndarray, b: np.ndarray, w: np.ndarray, y: np.ndarray, depth: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Proposition 1 at integer (b, w): (max-flow value per point, source sets S as a boolean matrix).

    ``b`` has shape (2^(d+1), F) (rows of leaves and row 0 are zero), ``w`` shape (2^(d+1), K). The flow of
    point i is w at its terminal node for class y^i (1 or 0; with w relaxed as in paper 003, its value).
    """
    branches = b.max(axis=1) > 0.5
    branch = np.where(branches, b.argmax(axis=1), NO_SPLIT)
    terminal, on_path = route(X, branch, depth)
    return w[terminal, y], on_path


def min_cut_source_sets(X: np.ndarray, b: np.ndarray, w: np.ndarray, y: np.ndarray, depth: int
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Min cut of every point's network (7) at fractional (b, w): (cut values, source sets S).

    ``cost[:, n]`` is the cheapest way to separate node n (already in S) from the sink: its sink arc plus,
    per child, the cheaper of the arc to the child and the child's own ``cost``. The root's cut is
    min(1, cost[:, 1]) because of the arc (s, 1) of capacity 1; we only need S when cost[:, 1] < 1.
    """
    tree = TreeIndex(depth)
    left_cap = (1 - X) @ b.T      # (points, nodes): Σ_{f: x_f = 0} b_nf
    right_cap = X @ b.T           # Σ_{f: x_f = 1} b_nf
    cost = w[:, y].T.copy()       # sink arcs c_{n,t} = w_{n, y^i}
    for n in reversed(tree.internal):
        cost[:, n] += (np.minimum(left_cap[:, n], cost[:, 2 * n])
                       + np.minimum(right_cap[:, n], cost[:, 2 * n + 1]))
    in_source = np.zeros_like(cost, dtype=bool)
    in_source[:, 1] = True
    for n in tree.internal:
        in_source[:, 2 * n] = in_source[:, n] & (cost[:, 2 * n] < left_cap[:, n])
        in_source[:, 2 * n + 1] = in_source[:, n] & (cost[:, 2 * n + 1] < right_cap[:, n])
    return np.minimum(cost[:, 1], 1.0), in_source


def cut_coefficients(X: np.ndarray, in_source: np.ndarray, depth: int) -> np.ndarray:
    """Coefficients of b_nf in the cut (8.2) of each point for its source set S: shape (points, nodes, F).

    Arc (n, l(n)) is cut when n ∈ S and l(n) ∉ S; it contributes b_nf for the features with x_f = 0.
    """
    internal = np.arange(1, 2**depth)
    in_n = in_source[:, internal]
    left_cut = (in_n & ~in_source[:, 2 * internal])[:, :, None]
    right_cut = (in_n & ~in_source[:, 2 * internal + 1])[:, :, None]
    Xb = X[:, None, :].astype(bool)
    coef = np.zeros((X.shape[0], 2 ** (depth + 1), X.shape[1]), dtype=bool)
    coef[:, internal, :] = (left_cut & ~Xb) | (right_cut & Xb)
    return coef


class MinCutBendersCuts(LazyRowFamily):
    """Benders cuts (8.2) separated by min cut, as lazy constraints (and optionally as cuts at LP points).

    Parameters
    ----------
    ctx : the fit's context: 0/1 features ``ctx.X01`` (points × F), classes ``ctx.y`` (0..K-1), ``ctx.depth``
    b : mapping (n, f) -> Pyomo variable, for internal nodes n and features f (e.g. ``model.b``)
    w : mapping (n, k) -> Pyomo variable, for all nodes n and classes k (the class-k sink arc of n)
    g : mapping i -> Pyomo variable, the master's estimate of point i's flow (objective weight > 0)
    at_fractional : also separate at fractional LP solutions with the min-cut of :func:`min_cut_source_sets`
        (inside the search on SCIP; root LP rounds on restart solvers)
    tol : violation tolerance

    One instance per solve (it caches the solver's column numbers). ``lazy`` = :meth:`separate` then
    :meth:`cut_rows`; a master with stronger cuts overrides :meth:`cut_rows`.
    """

    def __init__(self, ctx: FitContext, b: Mapping, w: Mapping, g: Mapping, at_fractional: bool = False,
                 tol: float = 1e-6):
        self.X = ctx.X01.astype(np.float64)
        self.y = ctx.y
        self.depth = depth = ctx.depth
        n_classes = ctx.n_classes
        self.tol = tol
        self.at_fractional = at_fractional
        tree = TreeIndex(depth)
        n_features = self.X.shape[1]
        # variable grids on the full node numbering 0 .. 2^(d+1)-1 (row 0 and leaf rows of b unused)
        self._b_vars = [b[n, f] for n in tree.internal for f in range(n_features)]
        self._w_vars = [w[n, k] for n in tree.nodes for k in range(n_classes)]
        self._g_vars = [g[i] for i in range(len(self.y))]
        self._shape_b = (2 ** (depth + 1), n_features)
        self._shape_w = (2 ** (depth + 1), n_classes)
        self._internal = tree.internal
        self._cols = None

    def _columns(self, values: Values) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Column numbers of b, w, g on the full node grid (-1 where there is no variable)."""
        if self._cols is None:
            b_cols = np.full(self._shape_b, -1, dtype=np.int64)
            b_cols[1:2**self.depth] = values.columns(self._b_vars).reshape(len(self._internal), -1)
            w_cols = np.full(self._shape_w, -1, dtype=np.int64)
            w_cols[1:] = values.columns(self._w_vars).reshape(-1, self._shape_w[1])
            self._cols = (b_cols, w_cols, values.columns(self._g_vars))
        return self._cols

    def lazy(self, values: Values) -> list[LinearRow]:
        points, in_source = self.separate(values)
        return self.cut_rows(values, points, in_source)

    def rejects(self, values: Values) -> bool:
        """A candidate is infeasible exactly when some point's g^i exceeds its max flow; no rows needed."""
        return self.separate(values)[0].size > 0

    def separate(self, values: Values) -> tuple[np.ndarray, np.ndarray]:
        """Points whose g^i exceeds their max flow at the current (b, w), with their source sets
        (Proposition 1's path at integer points, the min cut at fractional ones)."""
        b_cols, w_cols, g_cols = self._columns(values)
        x = values.x
        b = np.where(b_cols >= 0, x[b_cols], 0.0)    # x[-1] is read but masked out
        w = np.where(w_cols >= 0, x[w_cols], 0.0)
        separate = path_source_sets if values.is_integral else min_cut_source_sets
        flow, in_source = separate(self.X, b, w, self.y, self.depth)
        violated = np.flatnonzero(x[g_cols] > flow + self.tol)
        return violated, in_source[violated]

    def cut_rows(self, values: Values, points: np.ndarray, in_source: np.ndarray) -> list[LinearRow]:
        """The cuts (8.2) ``g^i - Σ cut capacities <= 0`` of ``points`` for their source sets
        (override to strengthen them, e.g. paper 003's (11)/(12))."""
        if points.size == 0:
            return []
        b_cols, w_cols, g_cols = self._columns(values)
        coef = cut_coefficients(self.X[points], in_source, self.depth)
        rows = []
        for r, i in enumerate(points):
            b_terms = b_cols[coef[r]]
            w_terms = w_cols[np.flatnonzero(in_source[r]), self.y[i]]
            cols = np.concatenate(([g_cols[i]], b_terms, w_terms))
            coefs = np.concatenate(([1.0], -np.ones(len(b_terms) + len(w_terms))))
            rows.append(LinearRow(cols, coefs, ub=0.0))
        return rows
