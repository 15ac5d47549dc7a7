"""The hyperplane-tree layer shared by the multivariate formulations (papers 002 and 004).

A branch node t of the full binary tree (breadth-first numbering, :mod:`odtlib.models._tree_index`) splits
by a hyperplane: a point goes left when ``a_t · x <= b_t`` and right otherwise; a node that does not split
(d_t = 0) sends every point left (Boutilier, Michini & Zhou 2022, Section 2). Shared here:

* the **input contract**: features scaled to [0, 1] (:func:`check_unit_interval`), so that bounded splits
  (5a)-(5d), ``||a_t||_1 <= 1`` and ``b_t`` in [-1, 1], lose no hyperplane's routing of the data;
* the split variables a_t, â_t (for ||a_t||_1), b_t and d_t on chosen nodes (:func:`add_split_variables`);
* the **ε-margin big-M rows** that tie a split to an indicator of "point i is sent left/right at t"
  (:func:`add_left_margin_row`, :func:`add_right_margin_row`): left ``a·x <= b + M(1 - u)``, right
  ``a·x - ε >= b - (M + ε)(1 - u)``. They solve the *margin* problem (a gap of ε in the L∞ sense on the
  right side), not strict separability: data separable only with a smaller margin is not separable here;
* **decoding** (:func:`hyperplane_tree`): (a_t, b_t) and the leaf labels as an :class:`~odtlib.tree.Tree` with
  :class:`~odtlib.tree.HyperplaneSplit` nodes, with the threshold moved to the middle of the margin
  (``b_t + ε/2``) so that a point's routing in the tree equals its routing in the solved model despite the
  solver's feasibility tolerance (1e-6 << ε/2); a node with d_t = 0 is replaced by its left subtree;
* **warm starts from any tree** (:func:`full_tree_routing`): a univariate split ``x_f <= θ`` is the hyperplane
  e_f · x <= θ, a hyperplane split is rescaled to ||a||_1 <= 1; the result routes every point through the full
  tree of the formulation's depth (non-splitting nodes send left). For the margin rows, a threshold with points
  less than ε beyond it is moved to the nearest gap of width ε (:func:`margin_threshold`): otherwise the start
  violates the rows and the solver drops it, silently on SCIP (a start of 1372/1372 on banknote became 762).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo

from odtlib.tree import HyperplaneSplit, Leaf, Tree, UnivariateSplit

__all__ = ["check_unit_interval", "add_split_variables", "add_left_margin_row", "add_right_margin_row",
           "nodes_with_margin_rows", "split_value", "read_splits", "hyperplane_tree", "FullTreeRouting",
           "full_tree_routing", "margin_threshold", "UNIT_TOL"]

UNIT_TOL = 1e-9   # how far outside [0, 1] a feature value may lie (rounding of a scaler)


def check_unit_interval(X: np.ndarray, names: list[str], estimator: str) -> None:
    """The multivariate formulations' input contract: every feature value in [0, 1]."""
    outside = (X < -UNIT_TOL) | (X > 1 + UNIT_TOL)
    if not outside.any():
        return
    bad = [names[j] for j in np.flatnonzero(outside.any(axis=0))]
    shown = ", ".join(repr(b) for b in bad[:10]) + (f" and {len(bad) - 10} more" if len(bad) > 10 else "")
    raise ValueError(f"{estimator} needs features scaled to [0, 1], but columns {shown} have values outside; "
                     "scale them first (e.g. odtlib.encoders.UnitScaler, or paper_dataset(..., encoding='minmax'))")


def add_split_variables(model: pyo.ConcreteModel, nodes: list[int]) -> None:
    """d_t (1j), a_t, b_t and â_t with the bounded-split rows (5a)-(5d) on the branch nodes ``nodes``.

    Needs the sets F (features) of :func:`~odtlib.models._tree_index.tree_model`; adds the set ``H`` (the
    nodes that carry (a_t, b_t)).
    """
    model.H = pyo.Set(initialize=nodes, ordered=True, doc="branch nodes with a hyperplane (a_t, b_t)")
    model.a = pyo.Var(model.H, model.F, bounds=(-1, 1), doc="(1m) hyperplane coefficients a_tj")
    model.a_abs = pyo.Var(model.H, model.F, bounds=(0, 1), doc="(5a)-(5c) â_tj >= |a_tj|")
    model.b = pyo.Var(model.H, bounds=(-1, 1), doc="(5d) hyperplane offset b_t")
    model.a_norm = pyo.Constraint(model.H, rule=lambda m, t: sum(m.a_abs[t, j] for j in m.F) <= 1, doc="(5a)")
    model.a_above = pyo.Constraint(model.H, model.F, rule=lambda m, t, j: m.a_abs[t, j] >= m.a[t, j], doc="(5b)")
    model.a_below = pyo.Constraint(model.H, model.F, rule=lambda m, t, j: m.a_abs[t, j] >= -m.a[t, j], doc="(5c)")


def nodes_with_margin_rows(model: pyo.ConcreteModel) -> set[int] | None:
    """The branch nodes whose (1m) has ε-margin rows (``model.H``; None: the model has no such set)."""
    return set(model.H) if model.component("H") is not None else None


def split_value(model: pyo.ConcreteModel, t: int, x: np.ndarray):
    """a_t · x as a Pyomo expression (zero features are left out)."""
    return sum(float(v) * model.a[t, j] for j, v in enumerate(x) if v != 0)


def add_left_margin_row(rows: pyo.ConstraintList, model, t: int, x: np.ndarray, sent_left, big_m: float) -> None:
    """``a_t · x <= b_t + M (1 - sent_left)``: when the indicator is 1, x lies on the left side ((6a), (9a))."""
    rows.add(split_value(model, t, x) <= model.b[t] + big_m * (1 - sent_left))


def add_right_margin_row(rows: pyo.ConstraintList, model, t: int, x: np.ndarray, sent_right, big_m: float,
                         epsilon: float) -> None:
    """``a_t · x - ε >= b_t - (M + ε)(1 - sent_right)``: x lies ε beyond the hyperplane ((6b), (9b))."""
    rows.add(split_value(model, t, x) - epsilon >= model.b[t] - (big_m + epsilon) * (1 - sent_right))


def read_splits(model: pyo.ConcreteModel) -> dict[int, tuple[np.ndarray, float]]:
    """The solved (a_t, b_t) of every node in ``model.H``."""
    n_features = len(model.F)
    return {t: (np.array([pyo.value(model.a[t, j]) for j in range(n_features)]), float(pyo.value(model.b[t])))
            for t in model.H}


def hyperplane_tree(depth: int, splits: dict[int, tuple[np.ndarray, float] | None], leaf_label: dict[int, object],
                    margin: float = 0.0) -> Tree:
    """The Tree of a solved multivariate model.

    ``splits[t]`` is (a_t, b_t), or None for a node that does not split (everything goes left, so the node is
    replaced by its left subtree); ``leaf_label`` gives each leaf of the full tree its label. The threshold of
    each split is ``b_t + margin / 2`` (see the module docstring).
    """
    nodes: dict[int, object] = {}

    def place(t: int) -> int:
        """The id of the tree node standing for full-tree node t (its left descendant when t does not split)."""
        while t < 2**depth and splits.get(t) is None:
            t = 2 * t
        if t >= 2**depth:
            nodes[t] = Leaf(leaf_label[t])
            return t
        a, b = splits[t]
        nodes[t] = HyperplaneSplit(a, b + margin / 2, place(2 * t), place(2 * t + 1))
        return t

    root = place(1)
    return Tree(nodes, root=root)


@dataclass
class FullTreeRouting:
    """A tree laid on the full binary tree of ``depth``: the split (a_t, b_t) of every splitting branch node
    (bounded: ||a_t||_1 <= 1, b_t in [-1, 1]), the label of every leaf of the full tree, and ``node_of``, the
    (points × depth+1) matrix of the full-tree node each point is at on each level."""

    depth: int
    splits: dict[int, tuple[np.ndarray, float]]
    leaf_label: dict[int, object]
    node_of: np.ndarray

    def reaches(self, t: int) -> np.ndarray:
        """Boolean mask of the points that pass through full-tree node t."""
        return self.node_of[:, t.bit_length() - 1] == t

    @property
    def leaf(self) -> np.ndarray:
        return self.node_of[:, -1]


def full_tree_routing(tree: Tree, X: np.ndarray, depth: int, margin: float = 0.0,
                      margin_nodes: set[int] | None = None) -> FullTreeRouting:
    """Lay any univariate or hyperplane ``tree`` of depth <= ``depth`` on the full tree and route X through it.

    Leaves above the last level continue left (non-splitting nodes) down to a leaf of the full tree, which
    takes their label. With ``margin`` = ε > 0 each threshold of a node in ``margin_nodes`` (None: every node)
    is first moved by :func:`margin_threshold` (top down, on the points that reach the node), so that the
    routing meets the ε-margin rows; nodes without those rows (S-OCT's Benders nodes) keep their threshold.
    """
    n_features = X.shape[1]
    splits: dict[int, tuple[np.ndarray, float]] = {}
    leaf_label: dict[int, object] = {}
    for node_id, t in tree.full_tree_positions().items():
        node, level = tree.nodes[node_id], t.bit_length() - 1
        if isinstance(node, Leaf):
            leaf_label[t << (depth - level)] = node.label
        elif level >= depth:
            raise ValueError(f"warm-start tree is deeper than depth={depth}")
        else:
            splits[t] = _bounded_split(node, n_features)
    node_of = np.ones((len(X), depth + 1), dtype=np.int64)
    for level in range(depth):
        here = node_of[:, level]
        goes_right = np.zeros(len(X), dtype=bool)
        for t, (a, b) in list(splits.items()):
            at_t = here == t
            values = X[at_t] @ a
            if margin > 0 and at_t.any() and (margin_nodes is None or t in margin_nodes):
                b = margin_threshold(values, b, margin)
                splits[t] = (a, b)
            goes_right[at_t] = values > b
        node_of[:, level + 1] = 2 * here + goes_right
    return FullTreeRouting(depth, splits, leaf_label, node_of)


def margin_threshold(values: np.ndarray, b: float, epsilon: float) -> float:
    """The threshold β nearest to ``b`` that leaves no value in (β, β + ε), so that left (a·x <= β) and right
    (a·x >= β + ε) both meet the margin rows; "nearest" = fewest points changing side. β >= -1 (the bound of
    b_t); sending every point left (β = the largest value) is always possible."""
    distinct = np.unique(values)
    candidates = distinct[np.r_[np.diff(distinct) >= epsilon, True]]        # a gap of ε above, or the last
    if distinct[0] - epsilon >= -1:
        candidates = np.r_[distinct[0] - epsilon, candidates]                 # everything right
    ordered = np.sort(values)
    left_now = np.searchsorted(ordered, b, side="right")
    moved = np.abs(np.searchsorted(ordered, candidates, side="right") - left_now)
    return float(candidates[np.argmin(moved)])


def _bounded_split(node, n_features: int) -> tuple[np.ndarray, float]:
    """(a, b) with ||a||_1 <= 1 and b in [-1, 1] that routes [0, 1] data as the node does."""
    if isinstance(node, UnivariateSplit):
        a = np.zeros(n_features)
        a[node.feature] = 1.0
        return a, float(np.clip(node.threshold, -1, 1))
    if isinstance(node, HyperplaneSplit):
        a = np.zeros(n_features)
        a[: len(node.weights)] = node.weights
        scale = max(np.abs(a).sum(), 1e-12)
        return a / scale, float(np.clip(node.bias / scale, -1, 1))
    raise ValueError(f"a warm-start tree for a hyperplane model needs univariate or hyperplane splits, "
                     f"found {type(node).__name__}")
