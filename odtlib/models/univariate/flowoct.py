"""FlowOCT: the max-flow formulation (1) of Aghaei, Gómez & Vayanos (2020), Section 2.

Each training point i sends at most one unit of flow from a source s through the tree to a sink t; the
flow reaches t only through a node that predicts y^i, so the flow into t counts the correctly classified
points. With the split penalty λ the objective (1.1) is ``(1 - λ)·correct - λ·splits`` (a raw count of
points, as in the paper). Internal nodes may predict instead of branching.

Variables (names in the Pyomo model):

* ``b[n, f]`` (1.10), ``w[n, k]`` (1.11): branching and prediction, shared with the Benders master
  (:mod:`odtlib.models.univariate._flow_tree`);
* ``z[i, n]``: flow of point i on the arc (a(n), n) into node n (n = 1 is the arc (s, 1));
  ``zt[i, n]``: flow of point i on the arc (n, t). The arc (n, l(n)) of the paper is ``z[i, 2n]``.
  Both are continuous in [0, 1]: once (b, w) are integer every point's max-flow problem has an integer
  optimum, so (1.12)/(1.13) can be relaxed, as the paper does in its experiments.

Valid inequalities (4) (Section 2.2.3) are optional user cuts, separated at fractional LP solutions by
:class:`ValidInequalityCuts`, a cut-family plug-in (inside the search on SCIP; in root LP rounds only on
HiGHS and GLPK, with a warning; see :func:`odtlib.solvers.capabilities`). Off by default: on SCIP they slowed
the proof down (bench/paper001_vs_peers.py, depth 2, λ = 0: monk3 16.9 s vs 13.6 s, monk1 25.7 s vs 9.7 s
without them).
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from odtlib.models.univariate._accelerated_engine import ENGINE_CONSTRAINT, AcceleratedEngine, OwnEngine
from odtlib.models.univariate._flow_model import FlowModelClassifier, FlowTreeFormulation, flow_constraints
from odtlib.models.univariate._flow_tree import (
    add_branch_and_predict_variables,
    add_branch_or_predict,
    add_leaves_predict,
    branching_start,
    check_split_penalty,
    classify_points,
    linear_sum,
    regularised_objective,
)
from odtlib.models._base import DEPRECATED
from odtlib.models._pipeline import FitContext, PluginNeed, PointWeightsFit, store_parameters
from odtlib.models._tree_index import TreeIndex, as_binary, tree_model
from odtlib.solvers import BranchAndCut, CutFamily, LinearRow

__all__ = ["FlowOCT", "FlowOCTFormulation", "build_model", "ValidInequalityCuts", "flow_size_terms"]


def build_model(X: np.ndarray, y: np.ndarray, depth: int, split_penalty: float = 0.0,
                n_classes: int | None = None, sample_weight: np.ndarray | None = None) -> pyo.ConcreteModel:
    """Formulation (1): FlowOCT on binary ``X`` (n × F, 0/1) and ``y`` (ints 0..K-1); ``sample_weight`` w_i
    multiplies point i's flow in (1.1) (None: all 1)."""
    X = as_binary(X)
    lam = check_split_penalty(split_penalty)
    model, y = tree_model("FlowOCT", depth, X, y, n_classes)
    add_branch_and_predict_variables(model)
    add_flow_variables(model)
    add_branch_or_predict(model)                       # (1.2)
    add_leaves_predict(model)                          # (1.3)
    add_flow_conservation_internal(model)              # (1.4)
    add_flow_conservation_leaves(model)                # (1.5)
    add_left_arc_capacity(model, X)                    # (1.7)
    add_right_arc_capacity(model, X)                   # (1.8)
    add_sink_arc_capacity(model, y)                    # (1.9)
    model.objective = regularised_objective(model, correctly_classified(model, sample_weight), lam)   # (1.1)
    return model


def add_flow_variables(model: pyo.ConcreteModel) -> None:
    """Flows z (arcs into nodes) and zt (arcs to the sink), continuous in [0, 1] ((1.6), relaxed (1.12)-(1.13))."""
    model.z = pyo.Var(model.I, model.V, bounds=(0, 1), doc="(1.12) flow on arc (a(n), n); (1.6) for n = 1")
    model.zt = pyo.Var(model.I, model.V, bounds=(0, 1), doc="(1.13) flow on arc (n, t)")


def add_flow_conservation_internal(model: pyo.ConcreteModel) -> None:
    """(1.4): flow into an internal node leaves to its two children or to the sink."""
    model.flow_internal = pyo.Constraint(
        model.I, model.N,
        rule=lambda m, i, n: m.z[i, n] == m.z[i, 2 * n] + m.z[i, 2 * n + 1] + m.zt[i, n], doc="(1.4)")


def add_flow_conservation_leaves(model: pyo.ConcreteModel) -> None:
    """(1.5): flow into a leaf leaves to the sink."""
    model.flow_leaf = pyo.Constraint(
        model.I, model.L, rule=lambda m, i, n: m.z[i, n] == m.zt[i, n], doc="(1.5)")


def _branch_sums(model: pyo.ConcreteModel, X: np.ndarray, value: bool):
    """rule helper: (i, n) -> Σ_{f: x^i_f = value} b_nf (variable lists gathered once per node)."""
    b_of_node = {n: [model.b[n, f] for f in model.F] for n in model.N}
    features = [np.flatnonzero(row == value).tolist() for row in X]
    return lambda i, n: linear_sum([b_of_node[n][f] for f in features[i]])


def add_left_arc_capacity(model: pyo.ConcreteModel, X: np.ndarray) -> None:
    """(1.7): point i may go left at n only if n branches on a feature with x^i_f = 0."""
    capacity = _branch_sums(model, X, False)
    model.left_capacity = pyo.Constraint(
        model.I, model.N, rule=lambda m, i, n: m.z[i, 2 * n] <= capacity(i, n), doc="(1.7)")


def add_right_arc_capacity(model: pyo.ConcreteModel, X: np.ndarray) -> None:
    """(1.8): point i may go right at n only if n branches on a feature with x^i_f = 1."""
    capacity = _branch_sums(model, X, True)
    model.right_capacity = pyo.Constraint(
        model.I, model.N, rule=lambda m, i, n: m.z[i, 2 * n + 1] <= capacity(i, n), doc="(1.8)")


def add_sink_arc_capacity(model: pyo.ConcreteModel, y: np.ndarray) -> None:
    """(1.9): point i reaches the sink from n only if n predicts its class y^i."""
    model.sink_capacity = pyo.Constraint(
        model.I, model.V, rule=lambda m, i, n: m.zt[i, n] <= m.w[n, int(y[i])], doc="(1.9)")


def flow_size_terms(ctx: FitContext) -> dict[str, int]:
    """Variable counts of the flow model: b (N × F) and the flows z, zt (2 × (N ∪ L) × points)."""
    nodes = 2 ** (ctx.depth + 1) - 1
    return {f"the flows z, zt (2 × {nodes} nodes × {ctx.n_samples} rows)": 2 * nodes * ctx.n_samples,
            f"b ({nodes // 2} branch nodes × {ctx.n_features} features)": (nodes // 2) * ctx.n_features}


def correctly_classified(model: pyo.ConcreteModel, sample_weight: np.ndarray | None = None):
    """Σ_i w_i Σ_n z^i_{n,t}: the (weighted) number of correctly classified points, first term of (1.1);
    w_i = 1 without ``sample_weight``, as in the paper."""
    if sample_weight is None:
        return linear_sum(model.zt[i, n] for i in model.I for n in model.V)
    return linear_sum(float(sample_weight[i]) * model.zt[i, n] for i in model.I for n in model.V
                      if sample_weight[i] != 0)


def flow_start(model: pyo.ConcreteModel, X: np.ndarray, y: np.ndarray,
               branch_feature: dict[int, int], node_label: dict[int, int]) -> dict:
    """Warm-start values of b, w and the flows that (b, w) imply (one unit along the path of each
    correctly classified point)."""
    start = branching_start(model, branch_feature, node_label)
    terminal, on_path, correct = classify_points(X, y, branch_feature, node_label, model.tree)
    for i in model.I:
        for n in model.V:
            start[model.z[i, n]] = float(correct[i] and on_path[i, n])
            start[model.zt[i, n]] = float(correct[i] and n == terminal[i])
    return start


class FlowOCTFormulation(OwnEngine, FlowTreeFormulation):
    """One fit's model (1): a warm-start tree sets b, w and the flows z, zt it implies (:func:`flow_start`)."""

    def assignment_start(self, branch_feature, node_label):
        return flow_start(self.model, self.ctx.X01, self.ctx.y, branch_feature, node_label)


class ValidInequalityCuts(CutFamily):
    """Separation of the valid inequalities (4) at fractional LP solutions (a user-cut callback).

    For a node n whose children are leaves and a feature f, the most violated inequality (4) takes, among
    the points with x^i_f = 1, one point per class: the one with the largest flow z^i_{n,l(n)}. It is
    violated when Σ_k max_{i: y^i=k, x^i_f=1} z^i_{n,l(n)} > 1 - b_{nf}.
    """

    def __init__(self, ctx: FitContext, model: pyo.ConcreteModel, tol: float = 1e-4):
        self.X = ctx.X01
        self.y = ctx.y
        self.tol = tol
        tree: TreeIndex = model.tree
        self.nodes = [n for n in tree.internal if tree.is_leaf(2 * n)]
        self.left_flow_vars = {n: [model.z[i, 2 * n] for i in model.I] for n in self.nodes}
        self.b_vars = {n: [model.b[n, f] for f in model.F] for n in self.nodes}

    def cut(self, values) -> list:
        cuts = []
        for n in self.nodes:
            flow_left = values.array(self.left_flow_vars[n])
            b_n = values.array(self.b_vars[n])
            for f in np.flatnonzero(b_n < 1 - self.tol):
                chosen = self._best_points(flow_left, f)
                if flow_left[chosen].sum() > 1 - b_n[f] + self.tol:
                    z_vars = [self.left_flow_vars[n][i] for i in chosen]
                    cuts.append(LinearRow(z_vars + [self.b_vars[n][f]], np.ones(len(chosen) + 1), ub=1.0))
        return cuts

    def _best_points(self, flow_left: np.ndarray, f: int) -> np.ndarray:
        """One point per class among {i: x^i_f = 1}: the one with the largest left flow (if positive)."""
        candidates = np.flatnonzero(self.X[:, f])
        order = candidates[np.argsort(-flow_left[candidates], kind="stable")]
        _, first = np.unique(self.y[order], return_index=True)
        best = order[first]
        return best[flow_left[best] > self.tol]


class FlowOCT(AcceleratedEngine, PointWeightsFit, FlowModelClassifier):
    """Optimal classification tree by the max-flow formulation (1) of Aghaei, Gómez & Vayanos (2020).

    Parameters
    ----------
    depth : int, default 2
        Depth d of the full binary tree (internal nodes may predict, so shallower trees are included).
    split_penalty : float in [0, 1], default 0
        λ of (1.1): maximise ``(1 - λ)·(correctly classified training points) - λ·(branching nodes)``.
    solver : str, default "highs"
        Any solver of :func:`odtlib.solvers.solve` ("highs", "scip", "glpk", ...).
    time_limit : float or None, default None
        Seconds of the solver's run (not building the model), passed to :func:`odtlib.solvers.solve`.
    mip_gap : float or None, default None
        Relative gap at which the solver may stop; None means "exact": the absolute gap is set below the
        objective's granularity (:func:`odtlib.models._pipeline.objective_step`).
    threads, random_state, log
        Passed to :func:`odtlib.solvers.solve`.
    warm_start : bool or Tree, default True
        Start from a CART tree of the same depth (True), from a given univariate tree, or from nothing.
    valid_inequalities : bool, default False
        Separate the valid inequalities (4) as user cuts at fractional solutions (inside the search on
        SCIP; root LP rounds on HiGHS/GLPK).
    engine : {"formulation", "accelerated"}, default "formulation"
        "formulation" solves this paper's model. "accelerated" solves the same problem -- objective (1.1)
        equals (1 - λ)·N·(accuracy - λ'·leaves) + λ with λ' = λ/((1 - λ)·N) over the same trees -- with
        :class:`~odtlib.models.RegularizedBendOCT` (paper 003's accelerations, its defaults) on ``solver``
        (fast on "scip"; HiGHS/GLPK run its cuts in root rounds), and reports ``solve_result_.objective`` and
        ``bound`` on the scale of (1.1); ``solve_result_.extra["engine"]`` says which engine ran (with
        "accelerated" also ``leaf_penalty`` λ' and the ``accelerated_objective``/``accelerated_bound`` on
        paper 003's scale). It needs λ <= N/(N+1) (λ' <= 1). ``mip_gap`` then applies to paper 003's objective.
        With point weights N is their total weight W, and the engine counts weights in all its parts.
    class_weight : None, "balanced" or dict, default None
        Weights of the classes, multiplying ``fit``'s ``sample_weight`` (scikit-learn's meaning: "balanced"
        weights class k by N / (K·N_k), a dict maps labels to weights, missing labels weigh 1). With point
        weights w_i, (1.1) counts each correctly classified point with its weight,
        ``(1 - λ)·Σ_i w_i·[i correct] - λ·(branching nodes)``: λ keeps its meaning against the weighted count
        (a split pays off when it gains more than λ/(1 - λ) of weight). ``mip_gap=None`` proves the exact
        optimum with integer weights; with other weights the absolute gap is 1e-6.
    solver_options : dict or None
        The solver's own parameters, applied last.
    keep_model : bool, default False
        Keep the solved Pyomo model as ``model_``.

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
    >>> from odtlib.models import FlowOCT
    >>> clf = FlowOCT(depth=1).fit(X, y)
    >>> clf.score(X, y)
    1.0
    >>> print(clf.tree_.to_text())
    if x0 == 0:
        predict 0  (n=2: 0 2, 1 0)
    else:
        predict 1  (n=2: 0 0, 1 2)
    """

    _parameter_constraints = flow_constraints(valid_inequalities=["boolean"], **ENGINE_CONSTRAINT)
    PAPER_METHODS = {"FlowOCT": {}}   # paper 001, formulation (1)

    def __init__(self, *, depth: int = 2, split_penalty: float = 0.0, solver: str = "highs",
                 time_limit: float | None = None, mip_gap: float | None = None, threads: int = 1, random_state: int = 0,
                 warm_start=True, valid_inequalities: bool = False, engine: str = "formulation",
                 class_weight=None, solver_options: dict | None = None, keep_model: bool = False,
                 log: bool = False, seed=DEPRECATED):
        store_parameters(self, locals())

    def _size_terms(self, ctx):
        return flow_size_terms(ctx)

    def _build(self, ctx):
        return FlowOCTFormulation(ctx, build_model(ctx.X01, ctx.y, self.depth, self.split_penalty,
                                                   n_classes=ctx.n_classes, sample_weight=ctx.sample_weight))

    def _plugin_needs(self, ctx):
        return [PluginNeed("valid_inequalities", "cuts")] if self.valid_inequalities else []

    def _callbacks(self, ctx, formulation):
        return BranchAndCut(cuts=[ValidInequalityCuts(ctx, formulation.model)]) if self.valid_inequalities else None
