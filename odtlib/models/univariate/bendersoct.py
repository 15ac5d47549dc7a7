"""BendersOCT: the Benders decomposition (5)-(8) of FlowOCT, Aghaei, Gómez & Vayanos (2020), Section 3.

The master problem (8) keeps the tree variables (b, w) of FlowOCT and replaces every point's flow by one
variable g^i <= 1 (8.5); the Benders cuts (8.2), which tie g^i to (b, w), are not in the model but are
added lazily by the plug-in :class:`~odtlib.models.univariate.benders_cuts.MinCutBendersCuts` at every integer
solution the solver finds (Proposition 1's O(d) min cut), inside one branch-and-bound on SCIP, or by the restart loop of
:mod:`odtlib.solvers.restart` on solvers without callbacks (HiGHS, GLPK).

**Point weights.** With a weight w_i >= 0 per point (``fit``'s ``sample_weight`` times ``class_weight``), FlowOCT's
objective (1.1) counts point i's flow w_i times, so in the decomposition the subproblem of point i becomes
``max w_i·Σ_n z^i_{n,t}`` subject to (6.2)-(6.9): its value is w_i·g^i(b, w). Its dual (7) keeps the feasible set
P (independent of (b, w) and of w_i) with every capacity multiplied by w_i, so each (p, q) ∈ P gives the cut

    θ^i <= w_i·[c^i_{s,1} q_{s,1} + Σ_n c^i_{n,l(n)} q_{n,l(n)} + Σ_n c^i_{n,r(n)} q_{n,r(n)} + Σ_n c^i_{n,t} q_{n,t}]

on the master's variable θ^i for the weighted value, with θ^i <= w_i (8.5) and objective (1 - λ)·Σ_i θ^i - λ·splits.
For w_i > 0 the substitution θ^i = w_i·g^i divides the cut by w_i and gives back the unweighted cut (8.2) on
g^i <= 1, with objective (1 - λ)·Σ_i w_i·g^i - λ·splits (8.1): the same master, the same separation
(Proposition 1 and the min cut do not depend on w_i) and the same cuts. For w_i = 0 the cut reads θ^i <= 0,
so the master fixes g^i = 0 and never separates for that point. :func:`build_model` implements this form (the
objective's coefficients w_i and g^i's upper bound 1 or 0); the cut plug-in is the unweighted one.
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
from odtlib.models._tree_index import tree_model
from odtlib.models.univariate.benders_cuts import MinCutBendersCuts
from odtlib.solvers import BranchAndCut

__all__ = ["BendersOCT", "BendersOCTFormulation", "build_model", "benders_cuts"]


def build_model(X: np.ndarray, y: np.ndarray, depth: int, split_penalty: float = 0.0,
                n_classes: int | None = None, sample_weight: np.ndarray | None = None) -> pyo.ConcreteModel:
    """Benders master (8) without its cuts (8.2); pair it with :func:`benders_cuts` when solving.

    ``sample_weight`` w_i (None: all 1) weights g^i in (8.1); a point of weight 0 has g^i = 0 (module docstring).
    """
    lam = check_split_penalty(split_penalty)
    model, y = tree_model("BendersOCT master", depth, X, y, n_classes)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    add_branch_and_predict_variables(model)                                    # (8.6), (8.7)
    model.g = pyo.Var(model.I, bounds=lambda m, i: (0, 1 if weights[i] > 0 else 0),
                      doc="(8.5) flow of point i, bounded by the cuts (8.2)")
    correct = linear_sum(float(weights[i]) * model.g[i] for i in model.I if weights[i] > 0)
    add_branch_or_predict(model)                                               # (8.3) = (1.2)
    add_leaves_predict(model)                                                  # (8.4) = (1.3)
    model.objective = regularised_objective(model, correct, lam)              # (8.1)
    return model


def benders_cuts(ctx: FitContext, model: pyo.ConcreteModel, at_fractional: bool = False) -> MinCutBendersCuts:
    """The lazy Benders cuts (8.2) for a master built by :func:`build_model` (one instance per solve)."""
    return MinCutBendersCuts(ctx, model.b, model.w, model.g, at_fractional=at_fractional)


class BendersOCTFormulation(OwnEngine, FlowTreeFormulation):
    """One fit's master (8): a warm-start tree sets b, w and g^i = 1 for the points it classifies correctly
    (0 for points of weight 0, whose g^i the master fixes at 0)."""

    def assignment_start(self, branch_feature, node_label):
        model = self.model
        start = branching_start(model, branch_feature, node_label)
        _, _, correct = classify_points(self.ctx.X01, self.ctx.y, branch_feature, node_label, model.tree)
        weighted = self.ctx.weights > 0
        for i in model.I:
            start[model.g[i]] = float(correct[i] and weighted[i])
        return start


class BendersOCT(AcceleratedEngine, PointWeightsFit, FlowModelClassifier):
    """Optimal classification tree by Benders decomposition of FlowOCT (Aghaei, Gómez & Vayanos 2020).

    Parameters
    ----------
    depth, split_penalty, time_limit, mip_gap, threads, random_state, log, warm_start
        As for :class:`~odtlib.models.FlowOCT`.
    valid_inequalities, solver_options, keep_model
        As for :class:`~odtlib.models.FlowOCT`.
    solver : str, default "scip"
        SCIP adds the Benders cuts inside one branch-and-bound; other solvers run a restart loop, with a
        warning.
    fractional_benders_cuts : bool, default False
        Also separate Benders cuts at fractional LP solutions by min cut, at every node on SCIP (in root LP
        rounds on HiGHS/GLPK). Off by default: at every node it cost more than it saved (bench/README.md,
        "Measured design choices"). Separating at the root only needs the node depth from the solver layer
        (not available yet).
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
        As for :class:`~odtlib.models.FlowOCT`: class weights multiply ``fit``'s ``sample_weight``, and the
        master (8.1) weights g^i by them (the module docstring derives the weighted cuts).

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
    >>> from odtlib.models import BendersOCT
    >>> clf = BendersOCT(depth=1).fit(X, y)
    >>> clf.score(X, y)
    1.0
    >>> print(clf.tree_.to_text())
    if x0 == 0:
        predict 0  (n=2: 0 2, 1 0)
    else:
        predict 1  (n=2: 0 0, 1 2)
    """

    _parameter_constraints = flow_constraints(fractional_benders_cuts=["boolean"], **ENGINE_CONSTRAINT)
    PAPER_METHODS = {"Benders": {}}   # paper 001's name of its Benders decomposition (Section 3)

    def __init__(self, *, depth: int = 2, split_penalty: float = 0.0, solver: str = "scip",
                 time_limit: float | None = None, mip_gap: float | None = None, threads: int = 1, random_state: int = 0,
                 warm_start=True, fractional_benders_cuts: bool = False, engine: str = "formulation",
                 class_weight=None, solver_options: dict | None = None, keep_model: bool = False,
                 log: bool = False, seed=DEPRECATED):
        store_parameters(self, locals())

    def _size_terms(self, ctx):
        branch = 2**ctx.depth - 1
        return {f"b ({branch} branch nodes × {ctx.n_features} features)": branch * ctx.n_features,
                f"g ({ctx.n_samples} rows)": ctx.n_samples}

    def _build(self, ctx):
        return BendersOCTFormulation(ctx, build_model(ctx.X01, ctx.y, self.depth, self.split_penalty,
                                                      n_classes=ctx.n_classes, sample_weight=ctx.sample_weight))

    def _plugin_needs(self, ctx):
        needs = [PluginNeed("the Benders cuts (8.2)", "lazy")]
        if self.fractional_benders_cuts:
            needs.append(PluginNeed("fractional_benders_cuts", "cuts"))
        return needs

    def _callbacks(self, ctx, formulation):
        return BranchAndCut(lazy=[benders_cuts(ctx, formulation.model, at_fractional=self.fractional_benders_cuts)])
