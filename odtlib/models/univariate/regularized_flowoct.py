"""RegularizedFlowOCT: the compact max-flow model of paper 003's problem (1), the baseline of BendOCT.

Keegan, Forbes, Corry & Abolghasemi (2025) learn *sparse* trees (branch, leaf and cut nodes, Section 3)
maximising ``accuracy - λ·leaves`` (1). Their master problem (4) is the Benders decomposition of a flow
model; this module writes that flow model out in full, so it can be solved by any MIP solver and used as a
cross-check of :class:`~odtlib.models.RegularizedBendOCT`:

* tree structure (3b)-(3f) on (b, p, w) (:mod:`odtlib.models.univariate._sparse_tree`);
* the flow network of Aghaei et al. (paper 001, FlowOCT (1.4)-(1.9), reused from
  :mod:`odtlib.models.univariate.flowoct`): each sample sends at most one unit from the root to the sink, along the
  branches its features select, and reaches the sink only at a node predicting its class;
* objective (3a) with θ_i = the sample's flow into the sink.

Leaves on the full tree are counted by p, so trees of every shape up to depth D compete.

**Point weights** (``sample_weight``, ``class_weight``; the weighted problem (1) is derived in
:mod:`odtlib.models.univariate._regularized`): only the objective changes, (3a) with w_i·θ_i over W = Σ_i w_i. The
flow network and the structure rows describe which trees exist and which points each classifies, whatever the
points weigh; a point of weight 0 keeps its flow variables, which no longer reach the objective.
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from odtlib.models.univariate._flow_tree import add_branch_and_predict_variables
from odtlib.models.univariate._regularized import (
    RegularizedTreeClassifier,
    SparseTreeFormulation,
    regularized_constraints,
)
from odtlib.models.univariate._sparse_tree import (
    accuracy_minus_leaves,
    add_branch_leaf_or_cut,
    add_leaf_predicts_one_class,
    add_leaf_variables,
    add_one_leaf_per_path,
    check_leaf_penalty,
)
from odtlib.models._base import DEPRECATED
from odtlib.models._pipeline import PointWeightsFit, store_parameters
from odtlib.models._tree_index import as_binary, tree_model
from odtlib.models.univariate.flowoct import (
    add_flow_conservation_internal,
    add_flow_conservation_leaves,
    add_flow_variables,
    add_left_arc_capacity,
    add_right_arc_capacity,
    add_sink_arc_capacity,
    flow_size_terms,
)
from odtlib.models.univariate._sparse_tree import weighted_scores

__all__ = ["RegularizedFlowOCT", "RegularizedFlowFormulation", "build_model"]


def build_model(X: np.ndarray, y: np.ndarray, depth: int, leaf_penalty: float = 0.01,
                n_classes: int | None = None, sample_weight: np.ndarray | None = None) -> pyo.ConcreteModel:
    """Compact model of problem (1): structure (3b)-(3f), flows (1.4)-(1.9) of paper 001, objective (3a);
    ``sample_weight`` w_i (None: all 1) multiplies point i's flow into the sink in (3a) (module docstring)."""
    X = as_binary(X)
    lam = check_leaf_penalty(leaf_penalty)
    model, y = tree_model("RegularizedFlowOCT", depth, X, y, n_classes)
    tree = model.tree
    add_branch_and_predict_variables(model)                         # b (3e), w (3g)
    add_leaf_variables(model)                                       # p (3f)
    add_branch_leaf_or_cut(model, tree)                             # (3b)
    add_leaf_predicts_one_class(model)                              # (3c)
    add_one_leaf_per_path(model, tree)                              # (3d)
    add_flow_variables(model)
    add_flow_conservation_internal(model)                           # FlowOCT (1.4)
    add_flow_conservation_leaves(model)                             # (1.5)
    add_left_arc_capacity(model, X)                                 # (1.7)
    add_right_arc_capacity(model, X)                                # (1.8)
    add_sink_arc_capacity(model, y)                                 # (1.9)
    flow_to_sink = [[model.zt[i, n] for n in model.V] for i in model.I]                 # θ_i
    total_weight = len(y) if sample_weight is None else float(np.sum(sample_weight))
    model.objective = accuracy_minus_leaves(model, weighted_scores(flow_to_sink, sample_weight), total_weight,
                                            lam)                                                  # (3a)
    return model


class RegularizedFlowFormulation(SparseTreeFormulation):
    """One fit's compact model of problem (1)."""

    def sparse_start(self, tree):
        """b, p, w of the warm-start tree and the flows it implies (one unit along the path of each
        correctly classified sample)."""
        model, X, y = self.model, self.ctx.X01, self.ctx.y
        start = tree.start_values(model, X, y)
        terminal = tree.terminal(X)
        correct = tree.correct(X, y)
        for i in model.I:
            on_path = {terminal[i] >> s for s in range(self.ctx.depth + 1)}
            for n in model.V:
                start[model.z[i, n]] = float(correct[i] and n in on_path)
                start[model.zt[i, n]] = float(correct[i] and n == terminal[i])
        return start


class RegularizedFlowOCT(PointWeightsFit, RegularizedTreeClassifier):
    """Optimal sparse tree maximising ``accuracy - λ·leaves`` by the compact flow model (paper 003's
    problem (1); the baseline and cross-check of :class:`~odtlib.models.RegularizedBendOCT`).

    Parameters
    ----------
    depth : int, default 2
        Maximum depth D.
    leaf_penalty : float in [0, 1], default 0.01
        λ of (1): the training accuracy an extra leaf must gain.
    solver : str, default "highs"
        Any solver of :func:`odtlib.solvers.solve`.
    time_limit, mip_gap, threads, random_state, log
        Passed to :func:`odtlib.solvers.solve`; ``mip_gap=None`` proves the exact optimum (absolute gap
        below the objective's granularity, see :meth:`RegularizedTreeClassifier._objective_step`).
    warm_start : bool or Tree, default True
        True: CART pruned with ccp_alpha = λ (no polishing: that is a BendOCT acceleration).
    class_weight : None, "balanced" or dict, default None
        Weights of the classes, multiplying ``fit``'s ``sample_weight`` (scikit-learn's meaning: "balanced"
        weights class k by N / (K·N_k), a dict maps labels to weights, missing labels weigh 1). With point
        weights w_i the accuracy in (1) is the weight of the correctly classified points over the total weight W,
        so λ keeps its meaning (:mod:`odtlib.models.univariate._regularized`). ``mip_gap=None`` proves the exact
        optimum with integer weights; with other weights the absolute gap is 1e-6.
    solver_options : dict or None
        The solver's own parameters.
    keep_model : bool, default False
        Keep the solved Pyomo model as ``model_``.

    Attributes
    ----------
    tree_ : odtlib.tree.Tree
        The fitted tree.
    solve_result_ : odtlib.solvers.SolveResult
        Objective = accuracy - λ·leaves.
    model_ : pyomo ConcreteModel
        The solved model, with ``keep_model=True`` only.

    Examples
    --------
    With λ = 0.6 a second leaf costs more than the accuracy it gains (0.5), so the optimum is one leaf:

    >>> import numpy as np
    >>> X, y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([0, 0, 1, 1])
    >>> from odtlib.models import RegularizedFlowOCT
    >>> clf = RegularizedFlowOCT(depth=1, leaf_penalty=0.6).fit(X, y)
    >>> round(clf.solve_result_.objective, 6)       # accuracy 0.5 - 0.6 x 1 leaf
    -0.1
    >>> clf.score(X, y)
    0.5
    """

    _parameter_constraints = regularized_constraints()

    def __init__(self, *, depth: int = 2, leaf_penalty: float = 0.01, solver: str = "highs",
                 time_limit: float | None = None, mip_gap: float | None = None, threads: int = 1, random_state: int = 0,
                 warm_start=True, class_weight=None, solver_options: dict | None = None, keep_model: bool = False,
                 log: bool = False, seed=DEPRECATED):
        store_parameters(self, locals())

    def _size_terms(self, ctx):
        return flow_size_terms(ctx)

    def _build(self, ctx):
        return RegularizedFlowFormulation(
            ctx, build_model(ctx.X01, ctx.y, self.depth, self.leaf_penalty, n_classes=ctx.n_classes,
                             sample_weight=ctx.sample_weight))
