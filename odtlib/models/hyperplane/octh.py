"""OCT-H: Bertsimas & Dunn's multivariate OCT as paper 002 writes it, (8)-(10) on formulation (1).

Boutilier, Michini & Zhou (2022), Section 3: OCT-H keeps S-OCT's routing, prediction and split variables
(:func:`~._formulation.add_formulation_1`) but ties a split to the routing *per leaf*: a point assigned
to leaf t lies on the left side of every ancestor m of t it passes to the left (9a) and ε beyond the
hyperplane of every ancestor it passes to the right (9b), with M'_i = 2 (10). That is 2·N·|L|·D big-M rows
where the S-OCT baseline has 2·N·|B|; its LP relaxation is weaker (Proposition 1). Both solve the same
ε-margin problem, so their optima are equal. Bounded splits (5) as in the baseline.
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from odtlib.models._hyperplane import add_left_margin_row, add_right_margin_row, add_split_variables
from odtlib.models._base import DEPRECATED
from odtlib.models._pipeline import store_parameters
from odtlib.models._tree_index import tree_model
from odtlib.models.hyperplane._formulation import (
    HyperplaneFormulation,
    HyperplaneTreeClassifier,
    add_formulation_1,
    hyperplane_constraints,
    rows_that_count,
)
from odtlib.solvers import BranchAndCut

__all__ = ["OCTH", "build_model", "add_leaf_routing"]

BIG_M = 2.0   # M'_i of (10)


def add_leaf_routing(model: pyo.ConcreteModel, X: np.ndarray, epsilon: float) -> None:
    """(9a)/(9b) with (10): the rows of every (point, leaf, ancestor), on bounded splits (5)."""
    tree = model.tree
    add_split_variables(model, tree.internal)                                  # (5a)-(5d)
    model.leaf_rows = pyo.ConstraintList(doc="(9a), (9b)")
    for t in tree.leaves:
        for m, goes_left in tree.ancestors(t):
            for i, x in enumerate(X):
                if goes_left:
                    add_left_margin_row(model.leaf_rows, model, m, x, model.w[i, t], BIG_M)              # (9a)
                else:
                    add_right_margin_row(model.leaf_rows, model, m, x, model.w[i, t], BIG_M, epsilon)   # (9b)


def build_model(X: np.ndarray, y: np.ndarray, depth: int, max_splits: int | None = None, ccp_alpha: float = 0.0,
                epsilon: float = 0.005, n_classes: int | None = None, sample_weight: np.ndarray | None = None
                ) -> pyo.ConcreteModel:
    """OCT-H: formulation (1) with (1m) as (9)-(10), on X scaled to [0, 1]; ``sample_weight`` weights (1a)."""
    X = np.asarray(X, dtype=np.float64)
    model, y = tree_model("OCTH", depth, X, y, n_classes)
    add_formulation_1(model, y, max_splits, ccp_alpha, sample_weight)          # (1a)-(1l)
    add_leaf_routing(model, X, epsilon)                                        # (9)-(10)
    return model


class OCTH(HyperplaneTreeClassifier):
    """Optimal multivariate tree by OCT-H (Bertsimas & Dunn 2017, as (8)-(10) of Boutilier et al. 2022).

    The same parameters, input contract and fitted attributes as :class:`~odtlib.models.SOCT` (μ = ε = 0.005
    by default, M' = 2, ``routing_repair`` on SCIP, ``repaired_start`` on the other solvers), without the cut
    switches; the same ε-margin problem, a weaker LP relaxation. Paper 002's MIP baseline; paper 004's OCT-H
    (``repaired_start=False``: CART's tree of the same depth as the start, ``warm_start_source_`` "cart").
    ``fit(X, y, sample_weight=None)`` and ``class_weight`` weight the points of (1a) as in S-OCT (the weighted
    (1a) of :mod:`~odtlib.models.hyperplane._formulation`); CART's start is weighted alike.

    Examples
    --------
    Feature 0 separates the two classes (many hyperplanes do, so the example shows predictions, not
    the coefficients):

    >>> import numpy as np
    >>> X, y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([0, 0, 1, 1])
    >>> from odtlib.models import OCTH
    >>> clf = OCTH(depth=1).fit(X, y)
    >>> clf.score(X, y), clf.predict([[1, 0], [0, 1]]).tolist()
    (1.0, [1, 0])
    """

    _parameter_constraints = hyperplane_constraints(routing_repair=["boolean"], repaired_start=["boolean"])
    PAPER_METHODS = {"OCT-H": {"repaired_start": False}}   # paper 002's MIP baseline: its own start alone

    def __init__(self, *, depth: int = 2, max_splits: int | None = None, ccp_alpha: float = 0.0,
                 epsilon: float = 0.005, routing_repair: bool = True, repaired_start: bool = True,
                 solver: str = "highs",
                 time_limit: float | None = None, mip_gap: float | None = None, threads: int = 1, random_state: int = 0,
                 warm_start=True, class_weight=None,
                 solver_options: dict | None = None, keep_model: bool = False, log: bool = False, seed=DEPRECATED):
        store_parameters(self, locals())

    def _build(self, ctx):
        ctx = rows_that_count(ctx)
        model = build_model(ctx.X, ctx.y, self.depth, self.max_splits, self.ccp_alpha, self.epsilon,
                            n_classes=ctx.n_classes, sample_weight=ctx.sample_weight)
        return HyperplaneFormulation(ctx, model, **self._formulation_parameters(ctx))

    def _callbacks(self, ctx, formulation):
        heuristics = self._repair_heuristics(formulation)
        return BranchAndCut(heuristics=heuristics) if heuristics else None
