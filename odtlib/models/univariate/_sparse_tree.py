"""Sparse trees of paper 003: branch, leaf and cut nodes on the full binary tree of depth D.

Keegan, Forbes, Corry & Abolghasemi (2025), Section 3. Every node of the full tree (BFS numbering of
:class:`~odtlib.models.univariate._flow_tree.TreeIndex`) is a *branch* node (b_nf = 1), a *leaf* (p_n = 1, predicts
one class w_kn = 1) or a *cut* node below a leaf (nothing). Shared here by the compact flow model
(:mod:`odtlib.models.univariate.regularized_flowoct`), the Benders master
(:mod:`odtlib.models.univariate.regularized_bendoct`) and the accelerations (:mod:`odtlib.models.univariate.accel`):

* :func:`add_leaf_variables`, :func:`add_branch_leaf_or_cut` (3b), :func:`add_leaf_predicts_one_class` (3c),
  :func:`add_one_leaf_per_path` (3d) -- the constraints on (b, p, w); :func:`accuracy_minus_leaves` (3a)/(4a)
  and :func:`weighted_scores` -- the objective, each point's score times its weight;
* :class:`SparseTree` -- a fixed tree as {node: feature} and {node: class}, evaluated with numpy
  (correct samples, objective (1), heights), read from solver values and turned into start values;
* :class:`TreeColumns` -- the solver columns of b, p, w, theta on the full node grid, for callbacks.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyomo.environ as pyo
from pyomo.common.collections import ComponentMap

from odtlib.models.univariate._flow_tree import TreeIndex, branch_array, linear_sum, route
from odtlib.tree.build import full_tree_walk

__all__ = ["SparseTree", "TreeColumns", "add_leaf_variables", "add_branch_leaf_or_cut",
           "add_leaf_predicts_one_class", "add_one_leaf_per_path", "accuracy_minus_leaves",
           "weighted_scores", "check_leaf_penalty", "sparse_from_assignment"]


def check_leaf_penalty(lam) -> float:
    """λ of (1): accuracy gain required per extra leaf, a number in [0, 1]."""
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.floating)) or not 0 <= lam <= 1:
        raise ValueError(f"leaf_penalty must be a number in [0, 1], got {lam!r}")
    return float(lam)


# --------------------------------------------------------------------------- constraints (3b)-(3d)
def add_leaf_variables(model: pyo.ConcreteModel, domain=pyo.Binary) -> None:
    """p_n (3f): node n is a leaf. ``domain`` lets the strengthened-cut master relax p (paper 003, §5.1)."""
    model.p = pyo.Var(model.V, within=domain, bounds=(0, 1), doc="(3f) node n is a leaf")


def add_branch_leaf_or_cut(model: pyo.ConcreteModel, tree: TreeIndex) -> None:
    """(3b): an internal node branches on one feature, is a leaf, or lies below a leaf."""
    def rule(m, n):
        return (linear_sum([m.b[n, f] for f in m.F] + [m.p[n]] + [m.p[a] for a, _ in tree.ancestors(n)])
                == 1)

    model.branch_leaf_or_cut = pyo.Constraint(model.N, rule=rule, doc="(3b)")


def add_leaf_predicts_one_class(model: pyo.ConcreteModel) -> None:
    """(3c): a leaf predicts exactly one class; other nodes predict none."""
    model.leaf_predicts = pyo.Constraint(
        model.V, rule=lambda m, n: linear_sum([m.w[n, k] for k in m.K]) == m.p[n], doc="(3c)")


def add_one_leaf_per_path(model: pyo.ConcreteModel, tree: TreeIndex) -> None:
    """(3d): exactly one leaf on every root-to-terminal path."""
    model.one_leaf_per_path = pyo.Constraint(
        model.L, rule=lambda m, n: linear_sum([m.p[n]] + [m.p[a] for a, _ in tree.ancestors(n)]) == 1,
        doc="(3d)")


def accuracy_minus_leaves(model: pyo.ConcreteModel, correct_terms: list, total_weight: float, lam: float
                          ) -> pyo.Objective:
    """(3a)/(4a): maximise (1/W)·Σ_i w_i·θ_i - λ·Σ_n p_n. ``correct_terms`` are the w_i·θ_i (or the weighted sink
    flows, :func:`weighted_scores`) and ``total_weight`` W = Σ_i w_i, which is |I| without weights."""
    return pyo.Objective(
        expr=linear_sum(correct_terms) / total_weight - lam * linear_sum([model.p[n] for n in model.V]),
        sense=pyo.maximize)


def weighted_scores(scores: list[list], sample_weight: np.ndarray | None) -> list:
    """The terms of Σ_i w_i·θ_i in (3a)/(4a), where ``scores[i]`` lists the variables whose sum is point i's score θ_i
    ([θ_i] in the master, its flows into the sink in the flow model); the points of weight 0 drop out (w_i = 1 for
    all without ``sample_weight``, the paper's objective)."""
    if sample_weight is None:
        return [v for score in scores for v in score]
    return [float(w) * v for score, w in zip(scores, sample_weight) if w != 0 for v in score]


# --------------------------------------------------------------------------- fixed sparse trees
@dataclass(frozen=True)
class SparseTree:
    """A tree of depth <= ``depth`` on the full BFS grid: ``branch[n] = f``, ``leaf[n] = k``."""

    depth: int
    branch: dict[int, int] = field(default_factory=dict)
    leaf: dict[int, int] = field(default_factory=dict)

    @property
    def n_leaves(self) -> int:
        return len(self.leaf)

    def terminal(self, X: np.ndarray) -> np.ndarray:
        """The leaf each sample reaches."""
        return route(X, branch_array(self.branch, TreeIndex(self.depth)), self.depth)[0]

    def correct(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        labels = np.full(2 ** (self.depth + 1), -1, dtype=np.int64)
        for n, k in self.leaf.items():
            labels[n] = k
        return labels[self.terminal(X)] == y

    def objective(self, X: np.ndarray, y: np.ndarray, lam: float, sample_weight: np.ndarray | None = None) -> float:
        """(1): accuracy - λ·leaves; with ``sample_weight`` the accuracy is the correct points' share of the
        total weight, Σ_i w_i·[i correct] / Σ_i w_i."""
        correct = self.correct(X, y)
        if sample_weight is None:
            return float(correct.mean()) - lam * self.n_leaves
        return float(sample_weight[correct].sum() / sample_weight.sum()) - lam * self.n_leaves

    def heights(self) -> dict[int, int]:
        """h(n) of every node of the sparse tree: 0 at leaves, 1 + the taller child at branch nodes."""
        h: dict[int, int] = {n: 0 for n in self.leaf}
        for n in sorted(self.branch, reverse=True):
            h[n] = 1 + max(h[2 * n], h[2 * n + 1])
        return h

    def replace_subtree(self, node: int, branch: dict[int, int], leaf: dict[int, int]) -> SparseTree:
        """This tree with the subtree rooted at ``node`` replaced by ``(branch, leaf)`` (global ids)."""
        def below(n: int) -> bool:
            while n > node:
                n //= 2
            return n == node
        keep_b = {n: f for n, f in self.branch.items() if not below(n)}
        keep_l = {n: k for n, k in self.leaf.items() if not below(n)}
        return SparseTree(self.depth, {**keep_b, **branch}, {**keep_l, **leaf})

    @classmethod
    def from_arrays(cls, depth: int, b: np.ndarray, p: np.ndarray, w: np.ndarray) -> SparseTree:
        """Read an integer solution on the node grid (b: nodes × F, p: nodes, w: nodes × K)."""
        branch, leaf = {}, {}
        for n, splits in full_tree_walk(lambda n: n < 2**depth and p[n] < 0.5 and b[n].max() > 0.5):
            if splits:
                branch[n] = int(b[n].argmax())
            else:
                leaf[n] = int(w[n].argmax())
        return cls(depth, branch, leaf)

    def start_values(self, model: pyo.ConcreteModel, X: np.ndarray, y: np.ndarray,
                     sample_weight: np.ndarray | None = None) -> ComponentMap:
        """Values of b, p, w (and θ_i = correct, if the model has θ) for this tree; θ_i = 0 for the points of
        weight 0 in ``sample_weight``, whose θ_i the weighted master fixes at 0."""
        start = ComponentMap()
        for n in model.N:
            for f in model.F:
                start[model.b[n, f]] = float(self.branch.get(n) == f)
        for n in model.V:
            start[model.p[n]] = float(n in self.leaf)
            for k in model.K:
                start[model.w[n, k]] = float(self.leaf.get(n, -1) == k)
        if hasattr(model, "theta"):
            correct = self.correct(X, y) if sample_weight is None else self.correct(X, y) & (sample_weight > 0)
            for i in model.I:
                start[model.theta[i]] = float(correct[i])
        return start


def sparse_from_assignment(branch_feature: dict[int, int], node_label: dict[int, int], depth: int
                           ) -> SparseTree:
    """The sparse tree of a completed (b, w) assignment of :mod:`odtlib.models.univariate._flow_tree` (every node
    branches or predicts): the reachable branch nodes, and the first predicting node on each path as leaf."""
    branch, leaf = {}, {}
    for n, splits in full_tree_walk(lambda n: n in branch_feature and n < 2**depth):
        if splits:
            branch[n] = branch_feature[n]
        else:
            leaf[n] = node_label[n]
    return SparseTree(depth, branch, leaf)


class TreeColumns:
    """Solver columns of b, p, w, θ of a paper-003 master on the full node grid (for callbacks).

    ``arrays(values)`` returns (b: nodes × F, p: nodes, w: nodes × K, θ: samples), zero where a node has
    no variable (row 0, and the b rows of terminal nodes).
    """

    def __init__(self, model: pyo.ConcreteModel):
        tree: TreeIndex = model.tree
        self.depth = tree.depth
        self.n_nodes = 2 ** (tree.depth + 1)
        self.n_features, self.n_classes = len(model.F), len(model.K)
        self._vars = ([model.b[n, f] for n in tree.internal for f in model.F],
                      [model.p[n] for n in tree.nodes],
                      [model.w[n, k] for n in tree.nodes for k in model.K],
                      [model.theta[i] for i in model.I])
        self._cols = None

    def columns(self, values) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Column grids of b (nodes × F), p (nodes), w (nodes × K) and θ; -1 where there is no variable."""
        if self._cols is None:
            b_vars, p_vars, w_vars, t_vars = self._vars
            b = np.full((self.n_nodes, self.n_features), -1, dtype=np.int64)
            b[1:2**self.depth] = values.columns(b_vars).reshape(-1, self.n_features)
            p = np.full(self.n_nodes, -1, dtype=np.int64)
            p[1:] = values.columns(p_vars)
            w = np.full((self.n_nodes, self.n_classes), -1, dtype=np.int64)
            w[1:] = values.columns(w_vars).reshape(-1, self.n_classes)
            self._cols = (b, p, w, values.columns(t_vars))
        return self._cols

    def arrays(self, values) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        x = values.x
        return tuple(np.where(c >= 0, x[c], 0.0) for c in self.columns(values))

    def tree(self, values) -> SparseTree:
        """The sparse tree of an integer point."""
        b, p, w, _ = self.arrays(values)
        return SparseTree.from_arrays(self.depth, b, p, w)
