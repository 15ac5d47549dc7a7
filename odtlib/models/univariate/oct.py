"""OCT: the formulation of Bertsimas & Dunn (2017) specialised to binary features — the baseline of
paper 001 (Aghaei, Gómez & Vayanos 2020, Sections 2.2 and 4).

Paper 001 compares against "OCT adapted to binary data" whose exact model is in an online companion that
is not part of the paper's text. We rebuild it from Bertsimas & Dunn's original model, keeping their
variables and big-M counting (the L_n constraint quoted in paper 001's Section 2.2.1) and specialising the
split to one binary feature. Our choices (equation tags (OCT-x) are ours):

* Branching: ``b[n, f]`` (B&D's a_fn restricted to a single 0/1 feature), ``d[n] = Σ_f b[n, f]`` says that
  n branches (OCT-1), and ``d[n] <= d[a(n)]`` (OCT-2): a node below a non-branching node does not branch.
  With a_n = 0 B&D's threshold is 0 and every point goes right, so a non-branching node sends all points
  to the right-most leaf below it: this is how OCT represents a node that predicts, and why it reaches
  the same optimum as FlowOCT for every λ.
* Routing: ``zeta[i, m] = 1`` iff point i is assigned to leaf m (B&D's z_it), one leaf per point (OCT-3).
  B&D's hyperplane constraints with a 0/1 split and threshold 1/2 become, for each ancestor n of m,
  ``zeta[i, m] <= Σ_{f: x^i_f = 0} b[n, f]`` when m is in n's left subtree (OCT-4; the aggregated form of
  paper 001's (3) plus "a non-branching node sends nobody left") and
  ``zeta[i, m] <= 1 - Σ_{f: x^i_f = 0} b[n, f]`` when m is in its right subtree (OCT-5).
* Labels: ``c[m, k]``, one class per leaf (OCT-6; B&D's l_t and minimum leaf size N_min are dropped,
  N_min = 0, so empty leaves simply predict some class).
* Misclassification: ``L[m] >= Σ_{i: y^i != k} zeta[i, m] - |I| (1 - c[m, k])`` for every class k,
  ``L[m] >= 0`` (OCT-7): B&D's big-M with M = |I| as quoted in paper 001.
* Objective as FlowOCT's (1.1): maximise ``(1 - λ)(|I| - Σ_m L[m]) - λ Σ_{n,f} b[n, f]``.
* Point weights w_i (``fit``'s ``sample_weight`` times ``class_weight``): L[m] counts the weight of the
  misclassified points, ``L[m] >= Σ_{i: y^i != k} w_i zeta[i, m] - W (1 - c[m, k])`` with big-M W = Σ_i w_i, and
  the objective is ``(1 - λ)(W - Σ_m L[m]) - λ Σ b``; unit weights give the model above.
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
from pyomo.common.collections import ComponentMap

from odtlib.models.univariate._flow_model import FlowModelClassifier, FlowTreeFormulation, flow_constraints
from odtlib.models.univariate._flow_tree import check_split_penalty, classify_points
from odtlib.models._base import DEPRECATED
from odtlib.models._pipeline import PointWeightsFit, store_parameters
from odtlib.models._tree_index import TreeIndex, as_binary, linear_sum, tree_model

__all__ = ["OCT", "OCTFormulation", "build_model"]


def build_model(X: np.ndarray, y: np.ndarray, depth: int, split_penalty: float = 0.0,
                n_classes: int | None = None, sample_weight: np.ndarray | None = None) -> pyo.ConcreteModel:
    """OCT of Bertsimas & Dunn (2017) on binary ``X`` (see the module docstring for the equations);
    ``sample_weight`` weights the points (None: all 1)."""
    X = as_binary(X)
    lam = check_split_penalty(split_penalty)
    model, y = tree_model("OCT", depth, X, y, n_classes)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    tree = model.tree
    model.b = pyo.Var(model.N, model.F, within=pyo.Binary, doc="split on feature f at n")
    model.d = pyo.Var(model.N, within=pyo.Binary, doc="n branches")
    model.c = pyo.Var(model.L, model.K, within=pyo.Binary, doc="leaf m predicts class k")
    model.zeta = pyo.Var(model.I, model.L, within=pyo.Binary, doc="point i is assigned to leaf m")
    model.Lmis = pyo.Var(model.L, within=pyo.NonNegativeReals, doc="misclassified points in leaf m")
    add_branch_indicator(model)            # (OCT-1)
    add_branch_hierarchy(model)            # (OCT-2)
    add_one_leaf_per_point(model)          # (OCT-3)
    add_routing(model, X, tree)            # (OCT-4), (OCT-5)
    add_one_class_per_leaf(model)          # (OCT-6)
    add_misclassification(model, y, weights)   # (OCT-7)
    correct = float(weights.sum()) - linear_sum(model.Lmis[m] for m in model.L)
    splits = linear_sum(model.b[n, f] for n in model.N for f in model.F)
    model.objective = pyo.Objective(expr=(1 - lam) * correct - lam * splits, sense=pyo.maximize)
    return model


def add_branch_indicator(model: pyo.ConcreteModel) -> None:
    """(OCT-1): Σ_f b[n, f] = d[n] — at most one feature per node (B&D's Σ_j a_jt = d_t)."""
    model.branch_indicator = pyo.Constraint(
        model.N, rule=lambda m, n: sum(m.b[n, f] for f in m.F) == m.d[n], doc="(OCT-1)")


def add_branch_hierarchy(model: pyo.ConcreteModel) -> None:
    """(OCT-2): d[n] <= d[a(n)] — no split below a node that does not split."""
    model.branch_hierarchy = pyo.Constraint(
        model.N, rule=lambda m, n: m.d[n] <= m.d[n // 2] if n > 1 else pyo.Constraint.Skip, doc="(OCT-2)")


def add_one_leaf_per_point(model: pyo.ConcreteModel) -> None:
    """(OCT-3): every point is assigned to exactly one leaf."""
    model.one_leaf = pyo.Constraint(model.I, rule=lambda m, i: sum(m.zeta[i, l] for l in m.L) == 1, doc="(OCT-3)")


def add_routing(model: pyo.ConcreteModel, X: np.ndarray, tree: TreeIndex) -> None:
    """(OCT-4)/(OCT-5): a point may sit in leaf m only if every ancestor of m sends it towards m.

    Left of n needs a split on a feature with x^i_f = 0; right of n is blocked exactly by such a split.
    """
    b_of_node = {n: [model.b[n, f] for f in model.F] for n in model.N}
    zeros = [np.flatnonzero(~row).tolist() for row in X]
    left_pairs = [(m, n) for m in tree.leaves for n, goes_left in tree.ancestors(m) if goes_left]
    right_pairs = [(m, n) for m in tree.leaves for n, goes_left in tree.ancestors(m) if not goes_left]
    model.route_left = pyo.Constraint(
        model.I, left_pairs,
        rule=lambda m, i, leaf, n: m.zeta[i, leaf] <= linear_sum([b_of_node[n][f] for f in zeros[i]]),
        doc="(OCT-4)")
    model.route_right = pyo.Constraint(
        model.I, right_pairs,
        rule=lambda m, i, leaf, n: m.zeta[i, leaf] <= 1 - linear_sum([b_of_node[n][f] for f in zeros[i]]),
        doc="(OCT-5)")


def add_one_class_per_leaf(model: pyo.ConcreteModel) -> None:
    """(OCT-6): every leaf predicts one class."""
    model.one_class = pyo.Constraint(model.L, rule=lambda m, l: sum(m.c[l, k] for k in m.K) == 1, doc="(OCT-6)")


def add_misclassification(model: pyo.ConcreteModel, y: np.ndarray, weights: np.ndarray | None = None) -> None:
    """(OCT-7): L[m] >= (weight of the points in m not of class k) - W·(1 - c[m, k]) for every k (big-M W = the
    total weight, |I| with unit weights)."""
    weights = np.ones(len(y)) if weights is None else weights
    big_m = float(weights.sum())
    others = {k: [i for i in np.flatnonzero(y != k).tolist() if weights[i] > 0] for k in range(len(model.K))}

    def rule(m, leaf, k):
        misclassified = linear_sum(float(weights[i]) * m.zeta[i, leaf] for i in others[k])
        return m.Lmis[leaf] >= misclassified - big_m * (1 - m.c[leaf, k])

    model.misclassification = pyo.Constraint(model.L, model.K, rule=rule, doc="(OCT-7)")


def rightmost_leaf(n: int, tree: TreeIndex) -> int:
    """The leaf every point reaches from n when no node below n branches (all go right)."""
    while not tree.is_leaf(n):
        n = 2 * n + 1
    return n


class OCTFormulation(FlowTreeFormulation):
    """One fit's OCT model: the (b, w) tree it encodes through d (OCT-1), c (OCT-6) and the right-most leaves,
    and back."""

    def decode_assignment(self):
        """Branching nodes keep their feature; a non-branching node predicts what its right-most leaf predicts."""
        model = self.model
        tree: TreeIndex = model.tree
        branch_feature: dict[int, int] = {}
        node_label: dict[int, int] = {}
        for n in tree.nodes:
            if not tree.is_leaf(n) and pyo.value(model.d[n]) > 0.5:
                branch_feature[n] = max(model.F, key=lambda f: pyo.value(model.b[n, f]))
            else:
                leaf = rightmost_leaf(n, tree)
                node_label[n] = max(model.K, key=lambda k: pyo.value(model.c[leaf, k]))
        return branch_feature, node_label

    def assignment_start(self, branch_feature, node_label):
        """OCT's variables for a (b, w) tree: predicting nodes stop branching and pass their class to the
        right-most leaf below them; points go right below a predicting node."""
        model, ctx = self.model, self.ctx
        tree: TreeIndex = model.tree
        reachable = [1]
        for n in tree.nodes:
            if n > 1 and n // 2 in branch_feature and n // 2 in reachable:
                reachable.append(n)
        branching = {n: f for n, f in branch_feature.items() if n in reachable}
        start = ComponentMap()
        for n in tree.internal:
            for f in model.F:
                start[model.b[n, f]] = float(branching.get(n) == f)
            start[model.d[n]] = float(n in branching)
        leaf_label = {m: node_label[m] for m in tree.leaves}
        for n in reachable:
            if n not in branching:
                leaf_label[rightmost_leaf(n, tree)] = node_label[n]
        terminal, _, correct = classify_points(ctx.X01, ctx.y, branching, node_label, tree)
        leaf_of_point = np.array([rightmost_leaf(int(n), tree) for n in terminal])
        for m in tree.leaves:
            for k in model.K:
                start[model.c[m, k]] = float(leaf_label[m] == k)
            here = leaf_of_point == m
            start[model.Lmis[m]] = float(np.sum(ctx.weights[here & ~correct]))
            for i in model.I:
                start[model.zeta[i, m]] = float(here[i])
        return start


class OCT(PointWeightsFit, FlowModelClassifier):
    """Bertsimas & Dunn's OCT for binary features, as the baseline of paper 001 (see the module docstring).

    Parameters
    ----------
    depth, split_penalty, solver, time_limit, mip_gap, threads, random_state, log
        As for :class:`~odtlib.models.FlowOCT`.
    warm_start, class_weight, solver_options, keep_model
        As for :class:`~odtlib.models.FlowOCT`; ``class_weight`` and ``fit``'s ``sample_weight`` weight the
        misclassification counts L[m] (module docstring).

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
    >>> from odtlib.models import OCT
    >>> clf = OCT(depth=1).fit(X, y)
    >>> clf.score(X, y)
    1.0
    >>> print(clf.tree_.to_text())
    if x0 == 0:
        predict 0  (n=2: 0 2, 1 0)
    else:
        predict 1  (n=2: 0 0, 1 2)
    """

    _parameter_constraints = flow_constraints()
    PAPER_METHODS = {"OCT": {}}   # paper 001's name of the big-M baseline (Section 4)

    def __init__(self, *, depth: int = 2, split_penalty: float = 0.0, solver: str = "highs",
                 time_limit: float | None = None, mip_gap: float | None = None, threads: int = 1, random_state: int = 0,
                 warm_start=True, class_weight=None, solver_options: dict | None = None, keep_model: bool = False,
                 log: bool = False, seed=DEPRECATED):
        store_parameters(self, locals())

    def _size_terms(self, ctx):
        leaves = 2**ctx.depth
        return {f"zeta ({ctx.n_samples} rows × {leaves} leaves)": ctx.n_samples * leaves,
                f"b ({leaves - 1} branch nodes × {ctx.n_features} features)": (leaves - 1) * ctx.n_features}

    def _build(self, ctx):
        return OCTFormulation(ctx, build_model(ctx.X01, ctx.y, self.depth, self.split_penalty,
                                               n_classes=ctx.n_classes, sample_weight=ctx.sample_weight))
