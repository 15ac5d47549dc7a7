"""S-OCT: formulation (1) of Boutilier, Michini & Zhou (2022), multivariate splits, with its big-M baseline.

Every point i is routed from the root to one leaf (w_it, (1b)-(1c)); a branch node t either splits (d_t = 1)
or sends everything left ((1g)); leaf t predicts one class (c_tk, (1d)); z_it counts i as correct when it
reaches t and t predicts y^i ((1e)-(1f)); at most β nodes split ((1h)). The objective (1a) maximises the
number of correctly classified training points; with ``ccp_alpha`` > 0 each split costs α·N points (the
cost-complexity objective ``min (1/N)·misclassified + α·splits``, scaled by N). As in the paper, c and z are
continuous: integral w makes them integral at an optimum.

(1m) asks that a hyperplane (a_t, b_t) realises the routing at every splitting node. The *baseline* writes it
with bounded splits (5) and the big-M rows (6) with M_i = max_j x^i_j + 1 (7) and a margin ε
(:mod:`odtlib.models._hyperplane`): it solves the ε-margin problem. OCT-H (:mod:`odtlib.models.octh`) is the
same model (1) with Bertsimas & Dunn's rows (9)-(10) instead.

The shattering inequalities (13)/(17) and their three uses (initial cuts, Benders lazy cuts, user cuts) are
not built yet (issue: paper 002).
"""
from __future__ import annotations

import numbers

import numpy as np
import pyomo.environ as pyo
from pyomo.common.collections import ComponentMap
from sklearn.utils._param_validation import Interval

from odtlib.models._hyperplane import (
    add_left_margin_row,
    add_right_margin_row,
    add_split_variables,
    check_unit_interval,
    full_tree_routing,
    hyperplane_tree,
    read_splits,
)
from odtlib.models._pipeline import FitContext, MIPTreeClassifier, common_constraints, store_parameters
from odtlib.models._tree_index import linear_sum, tree_model

__all__ = ["SOCT", "HyperplaneTreeClassifier", "build_model", "add_formulation_1", "add_big_m_routing"]


# --------------------------------------------------------------------------------------------- formulation (1)
def add_formulation_1(model: pyo.ConcreteModel, y: np.ndarray, max_splits: int | None, ccp_alpha: float) -> None:
    """Variables d, w, c, z and rows (1a)-(1h) on a model of :func:`~odtlib.models._tree_index.tree_model`."""
    tree = model.tree
    model.d = pyo.Var(model.N, within=pyo.Binary, doc="(1j) node t splits")
    model.w = pyo.Var(model.I, model.V, within=pyo.Binary, doc="(1k) point i is routed through node t")
    model.c = pyo.Var(model.L, model.K, bounds=(0, 1), doc="(1i, relaxed) leaf t predicts class k")
    model.z = pyo.Var(model.I, model.L, bounds=(0, 1), doc="(1l) point i reaches leaf t and is correct")
    model.one_leaf = pyo.Constraint(model.I, rule=lambda m, i: linear_sum(m.w[i, t] for t in m.L) == 1, doc="(1b)")
    model.flow = pyo.Constraint(model.I, model.N, rule=lambda m, i, t: m.w[i, t] == m.w[i, 2 * t] + m.w[i, 2 * t + 1],
                                doc="(1c)")
    model.one_class = pyo.Constraint(model.L, rule=lambda m, t: linear_sum(m.c[t, k] for k in m.K) == 1, doc="(1d)")
    model.correct_reached = pyo.Constraint(model.I, model.L, rule=lambda m, i, t: m.z[i, t] <= m.w[i, t], doc="(1e)")
    model.correct_class = pyo.Constraint(model.I, model.L, rule=lambda m, i, t: m.z[i, t] <= m.c[t, int(y[i])],
                                         doc="(1f)")
    model.right_needs_split = pyo.Constraint(model.I, model.N, rule=lambda m, i, t: m.w[i, 2 * t + 1] <= m.d[t],
                                             doc="(1g)")
    if max_splits is not None:
        model.split_budget = pyo.Constraint(expr=linear_sum(model.d[t] for t in model.N) <= max_splits, doc="(1h)")
    correct = linear_sum(model.z[i, t] for i in model.I for t in model.L)
    penalty = ccp_alpha * len(y) * linear_sum(model.d[t] for t in tree.internal) if ccp_alpha else 0
    model.objective = pyo.Objective(expr=correct - penalty, sense=pyo.maximize, doc="(1a)")


def add_big_m_routing(model: pyo.ConcreteModel, X: np.ndarray, nodes: list[int], epsilon: float) -> None:
    """(1m) on ``nodes`` by the baseline: bounded splits (5) and the big-M rows (6) with M_i of (7)."""
    add_split_variables(model, nodes)                                           # (5a)-(5d)
    model.big_m_rows = pyo.ConstraintList(doc="(6a), (6b)")
    big_m = X.max(axis=1) + 1                                                   # (7)
    for t in nodes:
        for i, x in enumerate(X):
            add_left_margin_row(model.big_m_rows, model, t, x, model.w[i, 2 * t], big_m[i])           # (6a)
            add_right_margin_row(model.big_m_rows, model, t, x, model.w[i, 2 * t + 1], big_m[i], epsilon)  # (6b)


def build_model(X: np.ndarray, y: np.ndarray, depth: int, max_splits: int | None = None, ccp_alpha: float = 0.0,
                epsilon: float = 0.005, n_classes: int | None = None) -> pyo.ConcreteModel:
    """SOCT-baseline: formulation (1) with (1m) as (5)-(7), on X scaled to [0, 1]."""
    X = np.asarray(X, dtype=np.float64)
    model, y = tree_model("SOCT", depth, X, y, n_classes)
    add_formulation_1(model, y, max_splits, ccp_alpha)                          # (1a)-(1l)
    add_big_m_routing(model, X, model.tree.internal, epsilon)                   # (1m) = (5)-(7)
    return model


# --------------------------------------------------------------------------------------------- estimators
def hyperplane_constraints(**extra) -> dict:
    """Parameter constraints of the multivariate estimators of paper 002 plus ``extra``."""
    return {**common_constraints(), "max_splits": [Interval(numbers.Integral, 0, None, closed="left"), None],
            "ccp_alpha": [Interval(numbers.Real, 0, None, closed="left")],
            "epsilon": [Interval(numbers.Real, 0, 1, closed="neither")], **extra}


class HyperplaneTreeClassifier(MIPTreeClassifier):
    """Base of the estimators on formulation (1): features in [0, 1], hyperplane trees (not used directly)."""

    requires_binary_features = False

    def _context(self, X, y) -> FitContext:
        check_unit_interval(X, self._column_names(X.shape[1]), type(self).__name__)
        return super()._context(X, y)

    def _objective_step(self, ctx):
        """(1a) counts correct points and each split costs α·N: whole numbers when α·N is whole."""
        return 1.0 if float(self.ccp_alpha * ctx.n_samples).is_integer() else None

    def _size_terms(self, ctx):
        nodes = 2 ** (ctx.depth + 1) - 1
        branch = 2**ctx.depth - 1
        return {f"w ({ctx.n_samples} rows × {nodes} nodes)": ctx.n_samples * nodes,
                f"z ({ctx.n_samples} rows × {branch + 1} leaves)": ctx.n_samples * (branch + 1),
                f"a, â ({branch} branch nodes × 2 × {ctx.n_features} features)": 2 * branch * ctx.n_features}

    def _decode(self, ctx, model):
        splits = {t: (s if pyo.value(model.d[t]) > 0.5 else None) for t, s in read_splits(model).items()}
        labels = {t: ctx.classes[int(np.argmax([pyo.value(model.c[t, k]) for k in model.K]))] for t in model.L}
        return hyperplane_tree(ctx.depth, splits, labels, margin=self.epsilon)

    def _start_values(self, ctx, model, tree):
        """d, a, â, b, w, c, z of any univariate or hyperplane tree. Each split's offset is moved to the
        smallest right-hand value minus ε, so the start meets the margin wherever the tree's routing allows."""
        routing = full_tree_routing(tree, ctx.X, ctx.depth)
        class_index = {label: k for k, label in enumerate(ctx.classes.tolist())}
        start = ComponentMap()
        for t in model.N:
            split = routing.splits.get(t)
            start[model.d[t]] = float(split is not None)
            if t in model.H:
                a, b = split if split is not None else (np.zeros(ctx.n_features), 0.0)
                b = _offset_with_margin(ctx.X[routing.reaches(t)], a, b, self.epsilon)
                for j in model.F:
                    start[model.a[t, j]], start[model.a_abs[t, j]] = float(a[j]), float(abs(a[j]))
                start[model.b[t]] = b
        for t in model.V:
            on = routing.reaches(t)
            for i in model.I:
                start[model.w[i, t]] = float(on[i])
        for t in model.L:
            k_t = class_index.get(routing.leaf_label.get(t), 0)
            for k in model.K:
                start[model.c[t, k]] = float(k == k_t)
            for i in model.I:
                start[model.z[i, t]] = float(routing.leaf[i] == t and ctx.y[i] == k_t)
        return start


def _offset_with_margin(X_here: np.ndarray, a: np.ndarray, b: float, epsilon: float) -> float:
    """b moved to (smallest a·x on the right) - ε when that keeps the left side left, else b."""
    values = X_here @ a
    right = values > b
    if not right.any():
        return b
    moved = float(values[right].min()) - epsilon
    return moved if (values[~right] <= moved).all() and moved >= -1 else b


class SOCT(HyperplaneTreeClassifier):
    """Optimal multivariate (hyperplane) tree by S-OCT's formulation (1) (Boutilier, Michini & Zhou 2022).

    Parameters (keyword-only)
    -------------------------
    depth : int, default 2
        Depth D of the full binary tree.
    max_splits : int or None, default None
        β of (1h): at most this many splitting nodes (None: no limit, as in the paper's direct comparison).
    ccp_alpha : float, default 0
        Cost-complexity penalty per split (the regularised objective; 0 = maximise correct points).
    epsilon : float, default 0.005
        Margin ε of the big-M rows (6b) (the paper's footnote 1). The model solves the ε-margin problem on
        features in [0, 1] with ||a_t||_1 <= 1: classes separable only with a smaller margin (WDBC at depth 1,
        about 1.2e-4) are not separable here.
    solver, time_limit, mip_gap, threads, seed, warm_start, solver_options, keep_model, log
        As for every MIP estimator (:class:`~odtlib.models.MIPTreeClassifier`). ``warm_start=True`` starts
        from a CART tree of the same depth (each split e_f · x <= θ).

    X must be scaled to [0, 1] (e.g. :class:`odtlib.encoders.UnitScaler`). After ``fit``: ``tree_`` with
    :class:`~odtlib.tree.HyperplaneSplit` nodes (threshold b_t + ε/2, so the tree routes every training point
    as the solved model does), ``solve_result_`` (objective = correctly classified points).

    Implemented: the SOCT-baseline variant. The shattering inequalities are not built yet.
    """

    _parameter_constraints = hyperplane_constraints()
    PAPER_METHODS = {"SOCT-baseline": {}}   # the paper's variants; the shattering-cut ones are still to come

    def __init__(self, *, depth: int = 2, max_splits: int | None = None, ccp_alpha: float = 0.0,
                 epsilon: float = 0.005, solver: str = "highs", time_limit: float | None = None,
                 mip_gap: float | None = None, threads: int = 1, seed: int = 0, warm_start=True,
                 solver_options: dict | None = None, keep_model: bool = False, log: bool = False):
        store_parameters(self, locals())

    def _build(self, ctx):
        return build_model(ctx.X, ctx.y, self.depth, self.max_splits, self.ccp_alpha, self.epsilon,
                           n_classes=ctx.n_classes)
