"""RegularizedFlowOCT: the compact max-flow model of paper 003's problem (1), the baseline of BendOCT.

Keegan, Forbes, Corry & Abolghasemi (2025) learn *sparse* trees (branch, leaf and cut nodes, Section 3)
maximising ``accuracy - λ·leaves`` (1). Their master problem (4) is the Benders decomposition of a flow
model; this module writes that flow model out in full, so it can be solved by any MIP solver and used as a
cross-check of :class:`~odtlib.models.RegularizedBendOCT`:

* tree structure (3b)-(3f) on (b, p, w) (:mod:`odtlib.models._sparse_tree`);
* the flow network of Aghaei et al. (paper 001, FlowOCT (1.4)-(1.9), reused from
  :mod:`odtlib.models.flowoct`): each sample sends at most one unit from the root to the sink, along the
  branches its features select, and reaches the sink only at a node predicting its class;
* objective (3a) with θ_i = the sample's flow into the sink.

Leaves on the full tree are counted by p, so trees of every shape up to depth D compete.
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from odtlib.models._flow_tree import TreeIndex, add_branch_and_predict_variables, cart_assignment, tree_assignment
from odtlib.models._solve import FlowModelClassifier, exact_gaps
from odtlib.models._sparse_tree import (
    SparseTree,
    accuracy_minus_leaves,
    add_branch_leaf_or_cut,
    add_leaf_predicts_one_class,
    add_leaf_variables,
    add_one_leaf_per_path,
    check_leaf_penalty,
    sparse_from_assignment,
)
from odtlib.models.flowoct import (
    add_flow_conservation_internal,
    add_flow_conservation_leaves,
    add_flow_variables,
    add_left_arc_capacity,
    add_right_arc_capacity,
    add_sink_arc_capacity,
)
from odtlib.tree import Tree

__all__ = ["RegularizedFlowOCT", "build_model", "RegularizedTreeClassifier"]


def build_model(X: np.ndarray, y: np.ndarray, depth: int, leaf_penalty: float = 0.01,
                n_classes: int | None = None) -> pyo.ConcreteModel:
    """Compact model of problem (1): structure (3b)-(3f), flows (1.4)-(1.9) of paper 001, objective (3a)."""
    X = np.asarray(X) > 0.5
    y = np.asarray(y, dtype=np.int64)
    lam = check_leaf_penalty(leaf_penalty)
    tree = TreeIndex(depth)
    K = int(y.max()) + 1 if n_classes is None else n_classes
    model = pyo.ConcreteModel(name=f"RegularizedFlowOCT(depth={depth})")
    model.tree = tree
    add_branch_and_predict_variables(model, tree, X.shape[1], K)    # b (3e), w (3g)
    add_leaf_variables(model)                                       # p (3f)
    add_branch_leaf_or_cut(model, tree)                             # (3b)
    add_leaf_predicts_one_class(model)                              # (3c)
    add_one_leaf_per_path(model, tree)                              # (3d)
    add_flow_variables(model, len(y))
    add_flow_conservation_internal(model)                           # FlowOCT (1.4)
    add_flow_conservation_leaves(model)                             # (1.5)
    add_left_arc_capacity(model, X)                                 # (1.7)
    add_right_arc_capacity(model, X)                                # (1.8)
    add_sink_arc_capacity(model, y)                                 # (1.9)
    model.objective = accuracy_minus_leaves(
        model, [model.zt[i, n] for i in model.I for n in model.V], len(y), lam)   # (3a)
    return model


class RegularizedTreeClassifier(FlowModelClassifier):
    """Shared plumbing of the paper-003 estimators: exact gaps on the accuracy scale, the CART warm start
    pruned with the leaf penalty, sparse trees as start values. Not used directly."""

    def _check_params(self) -> None:
        super()._check_params()
        check_leaf_penalty(self.leaf_penalty)

    def _gaps(self) -> tuple[float, float]:
        """Objective (1) is ``(q·correct - n·p·leaves) / (n·q)`` for λ = p/q: any absolute gap below
        1/(n·q) proves the exact optimum (``exact_gaps`` on the count scale, divided by n)."""
        rel, abs_gap = exact_gaps(self.leaf_penalty, self.mip_gap)
        return rel, abs_gap / self._n_samples

    def _warm_start_assignment(self, X, y):
        """A given Tree, or CART (Gini) pruned by minimal cost-complexity with ccp_alpha = λ: sklearn's
        pruning charges α per leaf against the sample-weighted impurity (a fraction of the samples), the
        same scale as λ per leaf against accuracy in (1)."""
        if isinstance(self.warm_start, Tree):
            return tree_assignment(self.warm_start, self.classes_, self.depth)
        return cart_assignment(X, y, self.depth, seed=self.seed, ccp_alpha=self.leaf_penalty)

    def _warm_start_tree(self, X, y, branch_feature, node_label) -> SparseTree:
        return sparse_from_assignment(branch_feature, node_label, self.depth)

    def _fit(self, X, y):
        self._n_samples = len(y)
        return super()._fit(X, y)


class RegularizedFlowOCT(RegularizedTreeClassifier):
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
    time_limit, mip_gap, threads, seed, log
        Passed to :func:`odtlib.solvers.solve`; ``mip_gap=None`` proves the exact optimum (absolute gap
        below the objective's granularity, see :meth:`RegularizedTreeClassifier._gaps`).
    warm_start : None, "cart" or a Tree, default None
        "cart": CART pruned with ccp_alpha = λ (no polishing: that is a BendOCT acceleration).

    After ``fit``: ``tree_``, ``solve_result_`` (objective = accuracy - λ·leaves), ``model_``.
    """

    def __init__(self, depth: int = 2, leaf_penalty: float = 0.01, solver: str = "highs",
                 time_limit: float | None = None, mip_gap: float | None = None, threads: int = 1,
                 seed: int = 0, warm_start=None, log: bool = False):
        self.depth = depth
        self.leaf_penalty = leaf_penalty
        self.solver = solver
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.seed = seed
        self.warm_start = warm_start
        self.log = log

    def _build(self, X, y):
        return build_model(X, y, self.depth, self.leaf_penalty, n_classes=len(self.classes_))

    def _start_values(self, model, X, y, branch_feature, node_label):
        """b, p, w of the warm-start tree and the flows it implies (one unit along the path of each
        correctly classified sample)."""
        tree = self._warm_start_tree(X, y, branch_feature, node_label)
        start = tree.start_values(model, X, y)
        terminal = tree.terminal(X > 0.5)
        correct = tree.correct(X > 0.5, y)
        for i in model.I:
            on_path = {terminal[i] >> s for s in range(self.depth + 1)}
            for n in model.V:
                start[model.z[i, n]] = float(correct[i] and n in on_path)
                start[model.zt[i, n]] = float(correct[i] and n == terminal[i])
        return start
