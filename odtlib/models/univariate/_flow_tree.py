"""The full binary tree of paper 001 and the pieces every flow-type model shares.

Aghaei, Gómez & Vayanos (2020), Section 2.1: a full binary tree of depth d with internal (branching)
nodes N = {1, ..., 2^d - 1} and leaves L = {2^d, ..., 2^(d+1) - 1}, numbered breadth first, so the
children of n are l(n) = 2n and r(n) = 2n + 1 and the parent is a(n) = n // 2. A point at a node
branching on feature f goes left when x_f = 0 and right when x_f = 1.

Shared here (used by FlowOCT, the Benders master, OCT and BinOCT — and by paper 003's master); the
index sets themselves are :class:`~odtlib.models._tree_index.TreeIndex`:

* :func:`add_branch_and_predict_variables`, :func:`add_branch_or_predict` (1.2),
  :func:`add_leaves_predict` (1.3), :func:`split_count` — the (b, w) part of formulation (1);
* :func:`route` — send every point down a fixed tree at once (numpy), used by the decoders, the
  warm start and the Benders separation;
* :func:`decode_branching`, :func:`cart_assignment`, :func:`tree_assignment` — read (b, w) from a
  solved model, and build (b, w) from a CART tree or an :class:`~odtlib.tree.Tree` for warm starts.
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
from pyomo.common.collections import ComponentMap

from odtlib.models._tree_index import TreeIndex, linear_sum
from odtlib.tree import Leaf, Tree, UnivariateSplit

NO_SPLIT = -1  # "this node does not branch" in branch-feature arrays


# --------------------------------------------------------------------------- (b, w) of formulation (1)
def add_branch_and_predict_variables(model: pyo.ConcreteModel, w_domain=pyo.Binary) -> None:
    """The variables b_nf (1.10) and w_nk (1.11) on the sets of :func:`~odtlib.models._tree_index.tree_model`.

    ``w_domain`` lets a master relax w (paper 003 does) without copying this function.
    """
    model.b = pyo.Var(model.N, model.F, within=pyo.Binary, doc="(1.10) branch on f at n")
    model.w = pyo.Var(model.V, model.K, within=w_domain, doc="(1.11) node n predicts class k")


def add_branch_or_predict(model: pyo.ConcreteModel) -> None:
    """(1.2): every internal node either branches on one feature or predicts one class."""

    def rule(m, n):
        return sum(m.b[n, f] for f in m.F) + sum(m.w[n, k] for k in m.K) == 1

    model.branch_or_predict = pyo.Constraint(model.N, rule=rule, doc="(1.2)")


def add_leaves_predict(model: pyo.ConcreteModel) -> None:
    """(1.3): every leaf predicts one class."""
    model.leaves_predict = pyo.Constraint(
        model.L, rule=lambda m, n: sum(m.w[n, k] for k in m.K) == 1, doc="(1.3)")


def split_count(model: pyo.ConcreteModel):
    """Σ_n Σ_f b_nf: the number of branching nodes penalised by λ in (1.1)."""
    return linear_sum(model.b[n, f] for n in model.N for f in model.F)


def regularised_objective(model: pyo.ConcreteModel, correct, lam: float) -> pyo.Objective:
    """(1.1)/(8.1): maximise (1 - λ)·correct - λ·splits."""
    return pyo.Objective(expr=(1 - lam) * correct - lam * split_count(model), sense=pyo.maximize)


def check_split_penalty(lam: float) -> float:
    """λ must lie in [0, 1] (paper 001 uses 0, 0.1, ..., 0.9)."""
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.floating)) or not 0 <= lam <= 1:
        raise ValueError(f"split_penalty must be a number in [0, 1], got {lam!r}")
    return float(lam)


# --------------------------------------------------------------------------- fixed trees
def route(X: np.ndarray, branch: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Send all points down a fixed tree at once.

    ``branch[n]`` is the feature node n branches on, or ``NO_SPLIT`` when n predicts (array of size
    2^(d+1), entry 0 unused; leaves never branch). Returns ``(terminal, on_path)``: the first
    non-branching node each point reaches, and a boolean (n_points, 2^(d+1)) matrix marking the nodes
    on its root-to-terminal path. O(d) numpy steps (Proposition 1's path search for all points).
    """
    n_points = X.shape[0]
    node = np.ones(n_points, dtype=np.int64)
    on_path = np.zeros((n_points, 2 ** (depth + 1)), dtype=bool)
    rows = np.arange(n_points)
    on_path[:, 1] = True
    for _ in range(depth):
        feature = branch[node]
        moving = feature != NO_SPLIT
        if not moving.any():
            break
        goes_right = X[rows[moving], feature[moving]] > 0.5
        node[moving] = 2 * node[moving] + goes_right
        on_path[rows[moving], node[moving]] = True
    return node, on_path


def decode_branching(model: pyo.ConcreteModel, tree: TreeIndex) -> tuple[dict[int, int], dict[int, int]]:
    """Branching features {n: f} and predicted classes {n: k} from the solved (b, w) of a model."""
    branch_feature: dict[int, int] = {}
    node_label: dict[int, int] = {}
    for n in tree.nodes:
        if n in model.N:
            values = [pyo.value(model.b[n, f], exception=False) or 0.0 for f in model.F]
            if values and max(values) > 0.5:
                branch_feature[n] = int(np.argmax(values))
                continue
        values = [pyo.value(model.w[n, k], exception=False) or 0.0 for k in model.K]
        node_label[n] = int(np.argmax(values))
    return branch_feature, node_label


def branch_array(branch_feature: dict[int, int], tree: TreeIndex) -> np.ndarray:
    """{n: f} as the array used by :func:`route`."""
    branch = np.full(tree.n_nodes + 1, NO_SPLIT, dtype=np.int64)
    for n, f in branch_feature.items():
        branch[n] = f
    return branch


def classify_points(X: np.ndarray, y: np.ndarray, branch_feature: dict[int, int], node_label: dict[int, int],
                    tree: TreeIndex) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(terminal node, on-path matrix, correctly classified?) of every point in a fixed (b, w) tree."""
    terminal, on_path = route(np.asarray(X) > 0.5, branch_array(branch_feature, tree), tree.depth)
    labels = np.array([node_label.get(n, -1) for n in range(tree.n_nodes + 1)])
    return terminal, on_path, labels[terminal] == np.asarray(y)


def complete_assignment(branch_feature: dict[int, int], node_label: dict[int, int], tree: TreeIndex,
                        default_label: int = 0) -> tuple[dict[int, int], dict[int, int]]:
    """Fill a partial tree so that (1.2)/(1.3) hold at every node of the full tree.

    Nodes below a predicting node are unreachable; they get the label of the nearest predicting ancestor.
    """
    branch_feature = dict(branch_feature)
    node_label = dict(node_label)
    for n in tree.nodes:
        if n in branch_feature and not tree.is_leaf(n):
            continue
        branch_feature.pop(n, None)
        if n not in node_label:
            ancestor = n // 2
            while ancestor >= 1 and ancestor not in node_label:
                ancestor //= 2
            node_label[n] = node_label.get(ancestor, default_label)
    return branch_feature, node_label


def cart_assignment(X: np.ndarray, y: np.ndarray, depth: int, seed: int = 0, ccp_alpha: float = 0.0
                    ) -> tuple[dict[int, int], dict[int, int]]:
    """(b, w) of a scikit-learn CART tree of the same depth, on the full tree's node numbers.

    CART's split ``x_f <= 0.5`` sends x_f = 0 left, as paper 001. Every node of the full tree gets either
    a feature or a class (see :func:`complete_assignment`). ``ccp_alpha`` > 0 prunes CART by minimal
    cost-complexity (paper 003's warm start).
    """
    from sklearn.tree import DecisionTreeClassifier

    cart = DecisionTreeClassifier(max_depth=depth, random_state=seed, ccp_alpha=ccp_alpha).fit(X, y)
    class_indices = np.arange(int(cart.classes_.max()) + 1)   # y holds class indices: label k is class k
    return tree_assignment(Tree.from_sklearn(cart), class_indices, depth)


def tree_assignment(tree_obj, classes: np.ndarray, depth: int) -> tuple[dict[int, int], dict[int, int]]:
    """(b, w) of an :class:`~odtlib.tree.Tree` with univariate splits, on the full tree's node numbers.

    Labels are mapped to their index in ``classes``. Raises if the tree is deeper than ``depth`` or uses a
    split kind other than univariate.
    """
    class_index = {label: k for k, label in enumerate(classes.tolist())}
    branch_feature: dict[int, int] = {}
    node_label: dict[int, int] = {}
    for node_id, n in tree_obj.full_tree_positions().items():
        node = tree_obj.nodes[node_id]
        if isinstance(node, Leaf):
            node_label[n] = class_index[node.label]
        elif not isinstance(node, UnivariateSplit):
            raise ValueError(f"warm-start tree must have univariate splits only, found {type(node).__name__}")
        elif n >= 2**depth:
            raise ValueError(f"warm-start tree is deeper than depth={depth}")
        else:
            branch_feature[n] = int(node.feature)
    return complete_assignment(branch_feature, node_label, TreeIndex(depth))


def branching_start(model: pyo.ConcreteModel, branch_feature: dict[int, int], node_label: dict[int, int]
                    ) -> ComponentMap:
    """Warm-start values of b and w for a full (b, w) assignment."""
    start = ComponentMap()
    for n in model.N:
        for f in model.F:
            start[model.b[n, f]] = 1.0 if branch_feature.get(n) == f else 0.0
    for n in model.V:
        for k in model.K:
            start[model.w[n, k]] = 1.0 if node_label.get(n) == k else 0.0
    return start
