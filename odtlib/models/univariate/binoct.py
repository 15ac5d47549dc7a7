"""BinOCT: the binary linear program of Verwer & Zhang (2019) — a baseline of paper 001 (Section 4).

BinOCT fixes the tree shape (every internal node branches; no split penalty) and minimises the number of
misclassified points. Its key device is to route points with big-M constraints aggregated over many points
at once, instead of one constraint per point and ancestor (which is why paper 001 calls its relaxation
weaker than OCT's). With real-valued features BinOCT encodes the threshold of a split with binary
variables; on binary features every split is "x_f = 0 -> left, x_f = 1 -> right", so a single threshold
per feature remains and the threshold variables disappear. Our formulation for binary X (tags ours):

* ``b[n, f]``: node n splits on feature f; every internal node splits on exactly one feature (BIN-1).
* ``l[i, m]``: point i reaches leaf m, one leaf per point (BIN-2). Continuous in [0, 1]: once b is
  integer the constraints below leave each point a single reachable leaf, so l is integral.
* (BIN-3) for every internal node n and feature f, with M = |{i: x^i_f = 1}|:
  ``M·b[n, f] + Σ_{i: x^i_f = 1} Σ_{m ∈ leaves left of n} l[i, m] <= M`` — if n splits on f, no point
  with x_f = 1 is in n's left subtree;
  (BIN-4) the mirror image for points with x_f = 0 and the right subtree (M = |{i: x^i_f = 0}|).
* ``p[m, k]``: leaf m predicts class k, exactly one per leaf (BIN-5).
* ``e[m, k] >= Σ_{i: y^i = k} l[i, m] - M_k·p[m, k]``, ``e >= 0``, M_k = |{i: y^i = k}| (BIN-6): the points
  of class k in leaf m are errors unless m predicts k.
* Objective: minimise Σ e, written here as maximise the correct count ``|I| - Σ_{m,k} e[m, k]`` so that
  every paper-001 estimator reports the same objective at λ = 0.
* Point weights w_i (``fit``'s ``sample_weight`` times ``class_weight``): e[m, k] counts the weight of the class-k
  points in leaf m, ``e[m, k] >= Σ_{i: y^i = k} w_i l[i, m] - W_k·p[m, k]`` with W_k = Σ_{i: y^i = k} w_i, and the
  objective is ``Σ_i w_i - Σ e``; routing (BIN-3)/(BIN-4) does not depend on the weights.
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
from pyomo.common.collections import ComponentMap

from odtlib.models.univariate._flow_model import FlowModelClassifier, FlowTreeFormulation
from odtlib.models.univariate._flow_tree import classify_points
from odtlib.models._base import DEPRECATED
from odtlib.models._pipeline import PointWeightsFit, class_weight_constraint, common_constraints, store_parameters
from odtlib.models._tree_index import TreeIndex, as_binary, linear_sum, tree_model

__all__ = ["BinOCT", "BinOCTFormulation", "build_model"]


def build_model(X: np.ndarray, y: np.ndarray, depth: int, n_classes: int | None = None,
                sample_weight: np.ndarray | None = None) -> pyo.ConcreteModel:
    """BinOCT of Verwer & Zhang (2019) on binary ``X`` (see the module docstring for the equations);
    ``sample_weight`` weights the points (None: all 1)."""
    X = as_binary(X)
    model, y = tree_model("BinOCT", depth, X, y, n_classes)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    tree = model.tree
    model.b = pyo.Var(model.N, model.F, within=pyo.Binary, doc="node n splits on feature f")
    model.l = pyo.Var(model.I, model.L, bounds=(0, 1), doc="point i reaches leaf m")
    model.p = pyo.Var(model.L, model.K, within=pyo.Binary, doc="leaf m predicts class k")
    model.e = pyo.Var(model.L, model.K, within=pyo.NonNegativeReals, doc="errors of class k in leaf m")
    add_one_feature_per_node(model)        # (BIN-1)
    add_one_leaf_per_point(model)          # (BIN-2)
    add_aggregated_routing(model, X, tree) # (BIN-3), (BIN-4)
    add_one_class_per_leaf(model)          # (BIN-5)
    add_errors(model, y, weights)          # (BIN-6)
    model.objective = pyo.Objective(
        expr=float(weights.sum()) - sum(model.e[m, k] for m in model.L for k in model.K), sense=pyo.maximize)
    return model


def add_one_feature_per_node(model: pyo.ConcreteModel) -> None:
    """(BIN-1): every internal node splits on exactly one feature."""
    model.one_feature = pyo.Constraint(model.N, rule=lambda m, n: sum(m.b[n, f] for f in m.F) == 1)


def add_one_leaf_per_point(model: pyo.ConcreteModel) -> None:
    """(BIN-2): every point reaches exactly one leaf."""
    model.one_leaf = pyo.Constraint(model.I, rule=lambda m, i: sum(m.l[i, leaf] for leaf in m.L) == 1)


def add_aggregated_routing(model: pyo.ConcreteModel, X: np.ndarray, tree: TreeIndex) -> None:
    """(BIN-3)/(BIN-4): one big-M row per (node, feature, side) instead of one per point."""
    with_one = {f: np.flatnonzero(X[:, f]).tolist() for f in range(X.shape[1])}
    with_zero = {f: np.flatnonzero(~X[:, f]).tolist() for f in range(X.shape[1])}

    def side_rule(points: dict, child_offset: int):
        def rule(m, n, f):
            if not points[f]:
                return pyo.Constraint.Skip
            big_m = len(points[f])
            leaves = tree.leaves_below(2 * n + child_offset)
            return big_m * m.b[n, f] + linear_sum(m.l[i, leaf] for i in points[f] for leaf in leaves) <= big_m
        return rule

    model.route_left = pyo.Constraint(model.N, model.F, rule=side_rule(with_one, 0))
    model.route_right = pyo.Constraint(model.N, model.F, rule=side_rule(with_zero, 1))


def add_one_class_per_leaf(model: pyo.ConcreteModel) -> None:
    """(BIN-5): every leaf predicts one class."""
    model.one_class = pyo.Constraint(model.L, rule=lambda m, leaf: sum(m.p[leaf, k] for k in m.K) == 1)


def add_errors(model: pyo.ConcreteModel, y: np.ndarray, weights: np.ndarray | None = None) -> None:
    """(BIN-6): e[m, k] >= (weight of the class-k points in m) - W_k·p[m, k], W_k the class's total weight
    (M_k = its number of points with unit weights)."""
    weights = np.ones(len(y)) if weights is None else weights
    of_class = {k: [i for i in np.flatnonzero(y == k).tolist() if weights[i] > 0] for k in range(len(model.K))}

    def rule(m, leaf, k):
        in_leaf = linear_sum(float(weights[i]) * m.l[i, leaf] for i in of_class[k])
        return m.e[leaf, k] >= in_leaf - float(weights[of_class[k]].sum()) * m.p[leaf, k]

    model.errors = pyo.Constraint(model.L, model.K, rule=rule)


def full_depth_assignment(branch_feature: dict[int, int], node_label: dict[int, int], tree: TreeIndex
                          ) -> tuple[dict[int, int], dict[int, int]]:
    """The same classifier with every internal node branching: a predicting internal node splits on
    feature 0 and both of its subtrees predict its class (BinOCT cannot stop early)."""
    branch_feature = dict(branch_feature)
    node_label = dict(node_label)
    for n in tree.internal:
        if n not in branch_feature:
            branch_feature[n] = 0
            for child in (2 * n, 2 * n + 1):   # processed later in BFS order: the class propagates
                branch_feature.pop(child, None)
                node_label[child] = node_label[n]
    return branch_feature, {m: node_label[m] for m in tree.leaves}


class BinOCTFormulation(FlowTreeFormulation):
    """One fit's BinOCT model: every internal node branches (BIN-1), leaves predict through p (BIN-5)."""

    def decode_assignment(self):
        model = self.model
        tree: TreeIndex = model.tree
        branch_feature = {n: max(model.F, key=lambda f: pyo.value(model.b[n, f])) for n in tree.internal}
        node_label = {m: max(model.K, key=lambda k: pyo.value(model.p[m, k])) for m in tree.leaves}
        return branch_feature, node_label

    def assignment_start(self, branch_feature, node_label):
        """BinOCT's variables for the full-depth form of a (b, w) tree (:func:`full_depth_assignment`)."""
        model, ctx = self.model, self.ctx
        tree: TreeIndex = model.tree
        branch_feature, node_label = full_depth_assignment(branch_feature, node_label, tree)
        terminal, _, _ = classify_points(ctx.X01, ctx.y, branch_feature, node_label, tree)
        y = ctx.y
        start = ComponentMap((model.b[n, f], float(branch_feature[n] == f)) for n in tree.internal for f in model.F)
        for m in tree.leaves:
            here = terminal == m
            for i in model.I:
                start[model.l[i, m]] = float(here[i])
            for k in model.K:
                start[model.p[m, k]] = float(node_label[m] == k)
                errors = float(np.sum(ctx.weights[here & (y == k)]))
                start[model.e[m, k]] = errors if node_label[m] != k else 0.0
        return start


class BinOCT(PointWeightsFit, FlowModelClassifier):
    """Verwer & Zhang's BinOCT for binary features (no split penalty), as the baseline of paper 001.

    Parameters
    ----------
    depth, solver, time_limit, mip_gap, threads, random_state, log, warm_start, class_weight, solver_options, keep_model
        As for :class:`~odtlib.models.FlowOCT` (which also has ``split_penalty`` and ``valid_inequalities``);
        ``class_weight`` and ``fit``'s ``sample_weight`` weight the error counts e[m, k] (module docstring).

    Attributes
    ----------
    tree_ : odtlib.tree.Tree
        The fitted tree.
    solve_result_ : odtlib.solvers.SolveResult
        Status, objective, bound, gap and times of the solve.
    classes_ : ndarray
        The class labels seen in ``fit``.
    model_ : pyomo ConcreteModel
        The solved model, with ``keep_model=True`` only.

    Examples
    --------
    Only feature 0 separates the two classes, so the optimal depth-1 tree is unique:

    >>> import numpy as np
    >>> X, y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([0, 0, 1, 1])
    >>> from odtlib.models import BinOCT
    >>> clf = BinOCT(depth=1).fit(X, y)
    >>> clf.score(X, y)
    1.0
    >>> print(clf.tree_.to_text())
    if x0 == 0:
        predict 0  (n=2: 0 2, 1 0)
    else:
        predict 1  (n=2: 0 0, 1 2)
    """

    _parameter_constraints = {**common_constraints(), **class_weight_constraint()}
    PAPER_METHODS = {"BinOCT": {}}   # paper 001's baseline of Verwer & Zhang

    def __init__(self, *, depth: int = 2, solver: str = "highs", time_limit: float | None = None,
                 mip_gap: float | None = None, threads: int = 1, random_state: int = 0, warm_start=True,
                 class_weight=None, solver_options: dict | None = None, keep_model: bool = False,
                 log: bool = False, seed=DEPRECATED):
        store_parameters(self, locals())

    def _size_terms(self, ctx):
        leaves = 2**ctx.depth
        return {f"l ({ctx.n_samples} rows × {leaves} leaves)": ctx.n_samples * leaves,
                f"b ({leaves - 1} branch nodes × {ctx.n_features} features)": (leaves - 1) * ctx.n_features}

    def _objective_step(self, ctx):
        """The objective counts correctly classified points (the pipeline drops the step under non-integer
        weights)."""
        return 1.0

    def _build(self, ctx):
        return BinOCTFormulation(ctx, build_model(ctx.X01, ctx.y, self.depth, n_classes=ctx.n_classes,
                                                  sample_weight=ctx.sample_weight))
