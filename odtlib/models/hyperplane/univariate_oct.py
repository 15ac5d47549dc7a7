"""Univariate OCT on features in [0, 1] with continuous thresholds (Bertsimas & Dunn 2017), on formulation (1).

Paper 002 compares S-OCT with Bertsimas & Dunn's OCT; this is that univariate model written on S-OCT's
routing (:func:`~._formulation.add_formulation_1`), a sibling of paper 001's :class:`~odtlib.models.OCT`
(which takes 0/1 features and splits "x_f = 0 goes left"). Here a split picks one feature (a_t binary,
Σ_j a_tj = d_t) and a threshold 0 <= b_t <= d_t, and B&D's per-feature margin ε_j (the smallest gap between
two distinct values of feature j) makes "x_f < b_t" exact with a big-M of 1 + max_j ε_j:

* left:  Σ_j a_tj (x_ij + ε_j) <= b_t + (1 + ε_max)(1 - w_{i,2t})
* right: Σ_j a_tj x_ij >= b_t - (1 - w_{i,2t+1})

(B&D write these per leaf and ancestor; on S-OCT's routing they are written per branch node, as the S-OCT
baseline aggregates OCT-H's rows.) Every univariate tree on the data is feasible, so the optimum is the
univariate optimum on the data's own thresholds -- exactly what a DP over all midpoints finds. One fit's
:class:`UnivariateFormulation` holds the margins ε_j (``feature_margins_``), decodes and warm-starts the splits.
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from odtlib.models._base import DEPRECATED
from odtlib.models._pipeline import store_parameters
from odtlib.models._tree_index import linear_sum, tree_model
from odtlib.models.hyperplane._formulation import (
    HyperplaneFormulation,
    HyperplaneTreeClassifier,
    add_formulation_1,
    hyperplane_constraints,
    rows_that_count,
)
from odtlib.tree import Leaf, Tree, UnivariateSplit

__all__ = ["UnivariateOCT", "UnivariateFormulation", "build_model", "feature_margins"]


def feature_margins(X: np.ndarray) -> np.ndarray:
    """ε_j: the smallest gap between two distinct values of feature j (1 for a constant feature)."""
    margins = np.ones(X.shape[1])
    for j in range(X.shape[1]):
        gaps = np.diff(np.unique(X[:, j]))
        if len(gaps):
            margins[j] = gaps.min()
    return margins


def add_univariate_splits(model: pyo.ConcreteModel, X: np.ndarray, margins: np.ndarray) -> None:
    """a_tj binary with Σ_j a_tj = d_t, 0 <= b_t <= d_t, and the threshold rows above, per branch node."""
    big_m = 1 + margins.max()
    model.a = pyo.Var(model.N, model.F, within=pyo.Binary, doc="node t splits on feature j")
    model.b = pyo.Var(model.N, bounds=(0, 1), doc="threshold of node t")
    model.one_feature = pyo.Constraint(model.N, rule=lambda m, t: linear_sum(m.a[t, j] for j in m.F) == m.d[t])
    model.threshold_off = pyo.Constraint(model.N, rule=lambda m, t: m.b[t] <= m.d[t])
    model.threshold_rows = pyo.ConstraintList()
    for t in model.N:
        for i, x in enumerate(X):
            left_side = sum((x[j] + margins[j]) * model.a[t, j] for j in model.F)
            model.threshold_rows.add(left_side <= model.b[t] + big_m * (1 - model.w[i, 2 * t]))
            model.threshold_rows.add(
                sum(x[j] * model.a[t, j] for j in model.F if x[j]) >= model.b[t] - (1 - model.w[i, 2 * t + 1]))


def build_model(X: np.ndarray, y: np.ndarray, depth: int, max_splits: int | None = None, ccp_alpha: float = 0.0,
                n_classes: int | None = None, sample_weight: np.ndarray | None = None) -> pyo.ConcreteModel:
    """Formulation (1) with univariate threshold splits, on X scaled to [0, 1]; ``sample_weight`` weights (1a)."""
    X = np.asarray(X, dtype=np.float64)
    model, y = tree_model("UnivariateOCT", depth, X, y, n_classes)
    add_formulation_1(model, y, max_splits, ccp_alpha, sample_weight)
    add_univariate_splits(model, X, feature_margins(X))
    return model


class UnivariateFormulation(HyperplaneFormulation):
    """One fit of the univariate model: formulation (1) with threshold splits and the data's margins ε_j.

    The start needs no common margin (``epsilon`` = 0): any threshold on feature f leaves a gap of at least
    ε_f (its smallest gap between distinct values), which is all the threshold rows ask. :meth:`stats` adds
    ``feature_margins_``.
    """

    def __init__(self, ctx, model, *, max_splits: int | None, ccp_alpha: float, start_source: str = "tree"):
        super().__init__(ctx, model, epsilon=0.0, max_splits=max_splits, ccp_alpha=ccp_alpha,
                         start_source=start_source)
        self.margins = feature_margins(ctx.X)

    def decode(self):
        """The tree of the solved splits: feature argmax_j a_tj at threshold b_t - ε_f/2 (the middle of the gap
        the left row leaves); a node with d_t = 0 is replaced by its left subtree."""
        ctx, model = self.ctx, self.model
        nodes: dict[int, object] = {}

        def place(t: int) -> int:
            while t < 2**ctx.depth and pyo.value(model.d[t]) < 0.5:
                t = 2 * t
            if t >= 2**ctx.depth:
                k = int(np.argmax([pyo.value(model.c[t, k]) for k in model.K]))
                nodes[t] = Leaf(ctx.classes[k])
                return t
            f = int(np.argmax([pyo.value(model.a[t, j]) for j in model.F]))
            nodes[t] = UnivariateSplit(f, place(2 * t), place(2 * t + 1), pyo.value(model.b[t]) - self.margins[f] / 2)
            return t

        return Tree(nodes, root=place(1))

    def stats(self) -> dict:
        return {**super().stats(), "feature_margins_": self.margins}

    def split_values(self, routing, start) -> None:
        """Each split e_f with b_t = the smallest value of x_f on its right (the left side then lies ε_f below)."""
        model, X = self.model, self.ctx.X
        for t in model.N:
            split = routing.splits.get(t)
            f = int(np.argmax(np.abs(split[0]))) if split is not None else -1
            for j in model.F:
                start[model.a[t, j]] = float(j == f)
            here = routing.reaches(t) & (routing.node_of[:, (t.bit_length())] == 2 * t + 1)
            start[model.b[t]] = float(X[here, f].min()) if split is not None and here.any() else 0.0


class UnivariateOCT(HyperplaneTreeClassifier):
    """Optimal univariate tree with continuous thresholds on features in [0, 1] (Bertsimas & Dunn's OCT).

    Parameters as :class:`~odtlib.models.SOCT` without the cut switches (``epsilon`` is replaced by the
    per-feature margins ε_j of the data). ``warm_start=True`` starts from CART (weighted as the fit).
    ``fit(X, y, sample_weight=None)`` and ``class_weight`` weight the points of (1a) (the weighted (1a) of
    :mod:`~odtlib.models.hyperplane._formulation`); the margins ε_j are those of the points of positive weight.

    Attributes
    ----------
    tree_ : odtlib.tree.Tree
        With :class:`~odtlib.tree.UnivariateSplit` nodes at thresholds b_t - ε_f/2, routing every
        training point as the solved model does.
    solve_result_ : odtlib.solvers.SolveResult
        Status, objective, bound, gap and times of the solve.

    Examples
    --------
    Only feature 0 separates the two classes, so the optimal depth-1 tree is unique:

    >>> import numpy as np
    >>> X, y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([0, 0, 1, 1])
    >>> from odtlib.models import UnivariateOCT
    >>> clf = UnivariateOCT(depth=1).fit(X, y)
    >>> clf.score(X, y)
    1.0
    >>> print(clf.tree_.to_text())
    if x0 == 0:
        predict 0  (n=2: 0 2, 1 0)
    else:
        predict 1  (n=2: 0 0, 1 2)
    """

    _parameter_constraints = {k: v for k, v in hyperplane_constraints().items() if k != "epsilon"}

    def __init__(self, *, depth: int = 2, max_splits: int | None = None, ccp_alpha: float = 0.0,
                 solver: str = "highs", time_limit: float | None = None, mip_gap: float | None = None,
                 threads: int = 1, random_state: int = 0, warm_start=True, class_weight=None,
                 solver_options: dict | None = None, keep_model: bool = False, log: bool = False, seed=DEPRECATED):
        store_parameters(self, locals())

    def _build(self, ctx):
        ctx = rows_that_count(ctx)
        model = build_model(ctx.X, ctx.y, self.depth, self.max_splits, self.ccp_alpha, n_classes=ctx.n_classes,
                            sample_weight=ctx.sample_weight)
        return UnivariateFormulation(ctx, model, max_splits=self.max_splits, ccp_alpha=self.ccp_alpha,
                                     start_source=self._start_source(ctx))
