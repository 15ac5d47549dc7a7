"""CategoricalODT: formulation (8) of Günlük, Kalagnanam, Li, Menickelly & Scheinberg (2019), Section 4.

Binary classification with a fixed tree topology (:mod:`odtlib.models.categorical.topologies`) whose tests are
"is the value of feature group g in the subset S?": a sample goes left at decision node k iff it has a 1
in one of the selected one-hot columns. Equation numbers are the paper's.

Variables (names in the Pyomo model):

* ``v[k, g]`` — group g is tested at node k; ``z[k, j]`` — column j is in node k's left subset;
* ``c[i, b]`` — sample i is routed to leaf b (leaves are labelled in advance: even b positive, odd b
  negative);
* ``w_ordinal[k, g]`` — Section 4.4's w (ordinal groups: 0 = "<=" prefix, 1 = ">=" suffix);
  ``w_card[k, g]`` — Section 4.5's w (max.card: 1 = small subset).

Constraints: (1) one group per node, (2) subset inside the chosen group, routing (5)-(7) or the
strengthened (11)-(12), anchors (13), optional (9)-(10), the ordinal constraints of Section 4.4, max.card
(Section 4.5) and the training-floor constraint (15) of Section 4.6; objective (8a) or (16).

The enhancements of Section 4.3 are switches of :func:`build_model`, so the ablation of Tables 2-3 is a
loop: ``strengthen`` (4.3.1), ``anchor`` (4.3.2), ``prune_c`` (4.3.3: c only for correct (sample, leaf)
pairs (14), continuous) and ``relax`` (4.3.4, Proposition 3: v and the z of leaf-adjacent nodes
continuous). All combinations have the same optimum (tested against brute-force enumeration).

One fit: :class:`CategoricalODT`'s ``_build`` returns a :class:`CategoricalFormulation`, the model (8) (or the
master of the subtree decomposition, :mod:`odtlib.models.categorical.subtree_bounds`) with its decoding; it
reports ``train_counts_``. The decomposition's lazy cuts (SB) hold the master and the exact subtree solver,
and report their subtree solves in ``solve_result_.extra["plugins"]``.

**Weights** (issue 32). The paper has one weight, C of (8a), on every correctly classified negative
(``class_weight`` given as a number keeps that meaning). ``fit(X, y, sample_weight)`` and ``class_weight`` as
"balanced" or a dict {label: weight} (scikit-learn's meaning) give point i a weight w_i that multiplies its term
c^i_b of (8a): ``max Σ_{i∈I+, b∈B+} w_i c^i_b + C Σ_{i∈I-, b∈B-} w_i c^i_b``. A number C is the dict
{negative label: C} (the positive class weighs 1), and "balanced" gives class k the weight N / (2 N_k), which is
C = |I+| / |I-| (the paper's example: C = 2 with twice as many positives) times the common factor N / (2 |I+|).
Only the objective changes. (1)-(7), (11)-(14), the anchors (13) and Sections 4.4-4.5 describe the trees, not
their value, so they stay valid; Proposition 3 holds for any objective (it is a property of the polyhedron's
extreme points); the anchors swap two subtrees of the same shape and labels, which moves no point from a correct
leaf to a wrong one, so they keep an optimum under any w >= 0; (14) keeps the c of correct pairs, the only ones
the objective counts. With ``maximize`` "sensitivity" or "specificity", (16) is the weighted count of the
maximised class and the floor (15) a weighted rate: Σ w_i over the other class's correct points >= floor · Σ w_i
over that class (rounded up when the weights are integers, as ⌈floor·|I-|⌉). The subtree decomposition counts
with the same w_i (:mod:`odtlib.models.categorical.subtree_bounds`). A point of weight 0 changes nothing but the
encoding: :class:`~odtlib.encoders.CategoricalEncoding`'s deciles of numeric columns are taken over every row
passed, weighted or not. ``feature_selection="cart"`` picks groups by an unweighted CART tree, so it is refused
with weights (give the groups as a list instead). ``train_counts_`` stays the unweighted counts.

Choices where the paper is silent or where we deviate:

* max.card (4.5) is written with v in place of 1, ``Σ z ≤ m·v + (|J(g)|-m)(v - w)``, ``Σ z ≥
  (|J(g)|-m)(v - w)``, ``w ≤ v``. For v ∈ {0, 1} this is the paper's constraint; unlike the printed form
  it stays exact when v and leaf-adjacent z are relaxed (Proposition 3): with the printed form a fractional
  v lets a half-selected group use a subset of forbidden size.
* The training floor (15) is written as intended (at least ⌈floor·|I-|⌉ negatives correct when maximising
  sensitivity (16), or the mirror image); a side constraint breaks Proposition 3 (a mixture of two trees
  can meet the floor on average), so with a floor ``relax`` is ignored and v, z stay binary (c may stay
  continuous: integral z makes every L(i, k) integral).
* With anchors, an ordinal group's anchor is its lowest bucket: at anchored nodes "<=" tests are used
  (the paper's alternative, fixing w = 1, is equivalent). Groups that are not one-hot on the training data
  (a row with no 1 in the group) get no anchor, because complementing their subset is not a test of the
  same form.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyomo.environ as pyo
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _get_feature_names, _num_features, check_is_fitted, validate_data

from odtlib.encoders import CategoricalEncoding, FeatureGroup
from odtlib.models._base import DEPRECATED, warn_user
from odtlib.models._pipeline import (
    FitContext,
    Formulation,
    MIPTreeClassifier,
    PluginNeed,
    PointWeightsFit,
    class_weight_constraint,
    common_constraints,
    objective_step,
    point_weights,
    store_parameters,
)
from odtlib.models.categorical.subtree_bounds import (
    SubsetSubtreeSolver,
    SubtreeBendersCuts,
    ancestors,
    frontier_nodes,
    node_heights,
)
from odtlib.models.categorical.topologies import Topology, get_topology
from odtlib.solvers import BranchAndCut
from odtlib.tree import Leaf, SubsetSplit, Tree

__all__ = ["CategoricalODT", "CategoricalFormulation", "Group", "build_master", "build_model", "decode_tree",
           "tree_counts"]

MAXIMIZE = ("accuracy", "sensitivity", "specificity")


# ---------------------------------------------------------------------------------------------- data
@dataclass(frozen=True)
class Group:
    """One feature group g: its 0/1 columns J(g) (column indices), ordered low to high when ``ordinal``.

    ``labels`` name each column's category (for readable rules).
    """

    name: str
    columns: tuple[int, ...]
    ordinal: bool = False
    labels: tuple = ()


def _one_hot_groups(A: np.ndarray, groups: Sequence[Group]) -> set[str]:
    """Names of the groups with exactly one 1 per row of A (complete one-hot encoding)."""
    return {g.name for g in groups if (A[:, list(g.columns)].sum(axis=1) == 1).all()}


# ---------------------------------------------------------------------------------------------- model
def build_model(
    A: np.ndarray,
    positive: np.ndarray,
    groups: Sequence[Group],
    topology: str | Topology = "depth2",
    *,
    class_weight: float = 1.0,
    sample_weight: np.ndarray | None = None,
    strengthen: bool = True,
    anchor: bool = True,
    prune_c: bool = True,
    relax: bool = True,
    proper_splits: bool = False,
    ordinal: bool = True,
    max_card: int | None = None,
    maximize: str = "accuracy",
    floor: float | None = None,
) -> pyo.ConcreteModel:
    """Formulation (8) and its variants on 0/1 data ``A`` (N × d) with ``positive`` (bool, N) = i ∈ I+.

    ``groups`` lists the groups that may be tested (feature selection = leaving groups out). ``class_weight`` is
    C of (8a) and ``sample_weight`` the points' weights w_i (None: 1; module docstring, "Weights"). Switches:
    ``strengthen`` (11)-(12) instead of (5)-(7); ``anchor`` (13); ``prune_c`` (14) with continuous c;
    ``relax`` (Prop. 3); ``proper_splits`` (9)-(10); ``ordinal`` (Sec. 4.4) for ordinal groups;
    ``max_card`` (Sec. 4.5); ``maximize`` "accuracy" (8a) or "sensitivity"/"specificity" (16) with the
    ``floor`` (15) on the other rate.
    """
    A = np.asarray(A) > 0.5
    positive = np.asarray(positive, dtype=bool)
    topo = get_topology(topology)
    with_floor = maximize != "accuracy"
    model = pyo.ConcreteModel(name=f"CategoricalODT({topo.name})")
    model.topology = topo
    model.groups = list(groups)
    add_index_sets(model, A, positive, prune_c)
    add_variables(model, relax=relax and not with_floor, binary_c=not prune_c)
    add_group_selection(model)                                  # (1)
    add_subset_in_selected_group(model)                         # (2)
    if strengthen:
        add_strengthened_routing(model)                         # (11), (12)
    else:
        add_routing(model)                                      # (5), (6)
        if not prune_c:
            add_one_leaf_per_sample(model)                      # (7)
    if anchor:
        add_anchor_features(model, _one_hot_groups(A, groups))  # (13)
    if proper_splits:
        add_proper_splits(model)                                # (9), (10)
    if ordinal:
        add_ordinal_constraints(model)                          # Section 4.4
    if max_card is not None:
        add_max_card(model, max_card, skip_ordinal=ordinal)     # Section 4.5
    add_objective(model, class_weight, maximize, floor, _weights(sample_weight, len(positive)))  # (8a), (15)-(16)
    return model


def build_master(
    A: np.ndarray,
    positive: np.ndarray,
    groups: Sequence[Group],
    topology: str | Topology = "depth3",
    *,
    class_weight: float = 1.0,
    sample_weight: np.ndarray | None = None,
    anchor: bool = True,
    ordinal: bool = True,
    max_card: int | None = None,
) -> pyo.ConcreteModel:
    """The master of the subtree decomposition (:mod:`odtlib.models.categorical.subtree_bounds`): the tests of the
    nodes of height >= 3 with (1), (2), (13) and Sections 4.4-4.5, one θ_k per frontier node k, max Σ_k θ_k.
    The cuts (SB) that bound θ come from :class:`~odtlib.models.categorical.subtree_bounds.SubtreeBendersCuts`;
    θ counts the weights of (8a), w_i·(1 on I+, C on I-), with w_i from ``sample_weight`` (None: 1)."""
    A = np.asarray(A) > 0.5
    positive = np.asarray(positive, dtype=bool)
    topo = get_topology(topology)
    heights = node_heights(topo)
    model = pyo.ConcreteModel(name=f"CategoricalODT-master({topo.name})")
    model.topology = topo
    model.groups = list(groups)
    model.K = pyo.Set(initialize=[k for k in topo.decision_nodes if heights[k] >= 3], ordered=True,
                      doc="decision nodes of height >= 3")
    add_group_sets(model, A)
    model.frontier = pyo.Set(initialize=frontier_nodes(topo), ordered=True, doc="roots of the exact subtrees")
    model.v = pyo.Var(model.K, model.G, within=pyo.UnitInterval, doc="v^k_g: group g tested at node k")
    model.z = pyo.Var(model.K, model.J, within=pyo.Binary, doc="z^k_j: column j in node k's left subset")
    weight = _weights(sample_weight, len(positive)) * np.where(positive, 1.0, class_weight)
    model.theta = pyo.Var(model.frontier, bounds=(0, float(weight.sum())), doc="θ_k: weighted correct samples below k")
    add_subtree_capacity(model, weight)
    add_group_selection(model)                                  # (1)
    add_subset_in_selected_group(model)                         # (2)
    if anchor:
        add_anchor_features(model, _one_hot_groups(A, groups))  # (13)
    if ordinal:
        add_ordinal_constraints(model)                          # Section 4.4
    if max_card is not None:
        add_max_card(model, max_card, skip_ordinal=ordinal)     # Section 4.5
    model.objective = pyo.Objective(expr=sum(model.theta[k] for k in model.frontier), sense=pyo.maximize)
    return model


def add_subtree_capacity(model: pyo.ConcreteModel, weight: np.ndarray) -> None:
    """(SB) with S = ∅: θ_k <= Σ_i w_i·side(i, p) for the parent p of every frontier node k below the root --
    only the samples p sends k's way count. For the depth-3 tree θ_2 + θ_3 <= Σ_i w_i."""
    topo: Topology = model.topology
    sides = {}
    for k in model.frontier:
        for parent, children in topo.children.items():
            for child, side in zip(children, "LR"):
                if child == ("node", k):
                    sides[k] = (parent, side)

    def rule(m, k):
        if k not in sides:
            return pyo.Constraint.Skip
        parent, side = sides[k]
        reaching = [(w, left_expr(m, i, parent)) for i, w in enumerate(weight)]
        if side == "L":
            return m.theta[k] <= sum(w * left for w, left in reaching)
        return m.theta[k] <= sum(w * (1 - left) for w, left in reaching)

    model.subtree_capacity = pyo.Constraint(model.frontier, rule=rule, doc="(SB) with S = ∅")


def add_group_sets(model: pyo.ConcreteModel, A: np.ndarray) -> None:
    """G, J, the group g(j) of every column and, per sample i, its columns {j ∈ J: a^i_j = 1} (for L(i, k) (3))."""
    model.G = pyo.Set(initialize=range(len(model.groups)), ordered=True, doc="feature groups")
    model.J = pyo.Set(initialize=[j for g in model.groups for j in g.columns], ordered=True,
                      doc="0/1 columns of the groups")
    model.group_of = {j: gi for gi, g in enumerate(model.groups) for j in g.columns}
    columns = np.asarray(list(model.J), dtype=np.int64)
    model.ones = [columns[row[columns]].tolist() for row in A]


def add_index_sets(model: pyo.ConcreteModel, A: np.ndarray, positive: np.ndarray, prune_c: bool) -> None:
    """K, B, G, J, I and the (i, b) pairs that get a variable c (all, or only (14) with ``prune_c``)."""
    topo: Topology = model.topology
    model.K = pyo.Set(initialize=topo.decision_nodes, ordered=True, doc="decision nodes")
    model.B = pyo.Set(initialize=topo.leaves, ordered=True, doc="leaves")
    add_group_sets(model, A)
    model.I = pyo.Set(initialize=range(len(positive)), ordered=True, doc="samples")
    model.positive = positive
    model.CI = pyo.Set(
        dimen=2, ordered=True, doc="(i, b) pairs with a routing variable",
        initialize=[(i, b) for i in range(len(positive)) for b in topo.leaves
                    if not prune_c or topo.is_positive_leaf(b) == bool(positive[i])])


def add_variables(model: pyo.ConcreteModel, relax: bool, binary_c: bool) -> None:
    """v, z, c; with ``relax`` (Proposition 3) v and the z of leaf-adjacent nodes are continuous."""
    topo: Topology = model.topology

    def z_domain(m, k, j):
        return pyo.UnitInterval if relax and topo.leaf_adjacent(k) else pyo.Binary

    model.v = pyo.Var(model.K, model.G, within=pyo.UnitInterval if relax else pyo.Binary,
                      doc="v^k_g: group g tested at node k")
    model.z = pyo.Var(model.K, model.J, within=z_domain, doc="z^k_j: column j in node k's left subset")
    model.c = pyo.Var(model.CI, within=pyo.Binary if binary_c else pyo.UnitInterval,
                      doc="c^i_b: sample i reaches leaf b")


def left_expr(model: pyo.ConcreteModel, i: int, k: int):
    """L(i, k) = Σ_j a^i_j z^k_j (3): 1 iff sample i goes left at node k."""
    return sum(model.z[k, j] for j in model.ones[i])


def add_group_selection(model: pyo.ConcreteModel) -> None:
    """(1): exactly one group is tested at every decision node."""
    model.one_group = pyo.Constraint(model.K, rule=lambda m, k: sum(m.v[k, g] for g in m.G) == 1, doc="(1)")


def add_subset_in_selected_group(model: pyo.ConcreteModel) -> None:
    """(2): z^k_j <= v^k_{g(j)}."""
    model.subset_in_group = pyo.Constraint(
        model.K, model.J, rule=lambda m, k, j: m.z[k, j] <= m.v[k, m.group_of[j]], doc="(2)")


def add_routing(model: pyo.ConcreteModel) -> None:
    """(5), (6): c^i_b <= L(i, k) for k ∈ K^L(b) and c^i_b <= R(i, k) = 1 - L(i, k) (4) for k ∈ K^R(b)."""
    paths = model.topology.paths
    rows = [(i, b, k, side) for (i, b) in model.CI for (k, side) in paths[b]]
    model.route_index = pyo.Set(initialize=rows, dimen=4, ordered=True)

    def rule(m, i, b, k, side):
        left = left_expr(m, i, k)
        return m.c[i, b] <= (left if side == "L" else 1 - left)

    model.route = pyo.Constraint(model.route_index, rule=rule, doc="(5), (6)")


def add_one_leaf_per_sample(model: pyo.ConcreteModel) -> None:
    """(7): every sample reaches exactly one leaf (only meaningful when c exists for every leaf)."""
    model.one_leaf = pyo.Constraint(
        model.I, rule=lambda m, i: sum(m.c[i, b] for b in m.B) == 1, doc="(7)")


def add_strengthened_routing(model: pyo.ConcreteModel) -> None:
    """(11), (12): Σ_{b: k ∈ K^L(b)} c^i_b <= L(i, k) and Σ_{b: k ∈ K^R(b)} c^i_b <= R(i, k); they imply
    Σ_b c^i_b <= 1, so (7) is dropped."""
    topo: Topology = model.topology
    below = {(k, "L"): topo.left_leaves(k) for k in model.K} | {(k, "R"): topo.right_leaves(k) for k in model.K}

    def rule(m, i, k, side):
        reached = [m.c[i, b] for b in below[k, side] if (i, b) in m.CI]
        if not reached:
            return pyo.Constraint.Skip
        left = left_expr(m, i, k)
        return sum(reached) <= (left if side == "L" else 1 - left)

    model.route_strong = pyo.Constraint(model.I, model.K, ["L", "R"], rule=rule, doc="(11), (12)")


def add_anchor_features(model: pyo.ConcreteModel, one_hot: set[str]) -> None:
    """(13): z^k_{j(g)} = v^k_g at non-leaf-adjacent nodes with symmetric subtrees; j(g) is g's first
    column. Only for groups that are one-hot on the data (see the module docstring)."""
    topo: Topology = model.topology
    rows = [(k, g) for k in model.K if topo.symmetric(k)
            for g in model.G if model.groups[g].name in one_hot]
    model.anchor_index = pyo.Set(initialize=rows, dimen=2, ordered=True)
    model.anchor = pyo.Constraint(
        model.anchor_index, rule=lambda m, k, g: m.z[k, m.groups[g].columns[0]] == m.v[k, g], doc="(13)")


def add_proper_splits(model: pyo.ConcreteModel) -> None:
    """(9), (10): a tested group sends at least one of its values each way."""
    def subset_size(m, k, g):
        return sum(m.z[k, j] for j in m.groups[g].columns)

    model.not_all_right = pyo.Constraint(
        model.K, model.G, rule=lambda m, k, g: subset_size(m, k, g) >= m.v[k, g], doc="(9)")
    model.not_all_left = pyo.Constraint(
        model.K, model.G,
        rule=lambda m, k, g: subset_size(m, k, g) <= (len(m.groups[g].columns) - 1) * m.v[k, g], doc="(10)")


def add_ordinal_constraints(model: pyo.ConcreteModel) -> None:
    """Section 4.4: the left subset of an ordinal group is a prefix ("<=", w = 0) or a suffix (">=", w = 1)
    of its ordered buckets: z_j >= z_{j+1} - w and z_{j+1} >= z_j - (1 - w)."""
    pairs = [(k, g, t) for k in model.K for g in model.G if model.groups[g].ordinal
             for t in range(len(model.groups[g].columns) - 1)]
    model.ordinal_index = pyo.Set(initialize=pairs, dimen=3, ordered=True)
    model.ordinal_w_index = pyo.Set(initialize=sorted({(k, g) for k, g, _ in pairs}), dimen=2, ordered=True)
    model.w_ordinal = pyo.Var(model.ordinal_w_index, within=pyo.Binary, doc="w^k_g: 1 = '>=' test")

    def z_pair(m, k, g, t):
        cols = m.groups[g].columns
        return m.z[k, cols[t]], m.z[k, cols[t + 1]]

    model.ordinal_le = pyo.Constraint(
        model.ordinal_index,
        rule=lambda m, k, g, t: z_pair(m, k, g, t)[0] >= z_pair(m, k, g, t)[1] - m.w_ordinal[k, g], doc="4.4")
    model.ordinal_ge = pyo.Constraint(
        model.ordinal_index,
        rule=lambda m, k, g, t: z_pair(m, k, g, t)[1] >= z_pair(m, k, g, t)[0] - (1 - m.w_ordinal[k, g]),
        doc="4.4")


def add_max_card(model: pyo.ConcreteModel, max_card: int, skip_ordinal: bool) -> None:
    """Section 4.5: the subset has at most ``max_card`` or at least |J(g)| - ``max_card`` columns
    (w = 1: small subset), for groups with more than ``max_card`` columns (ordinal groups are exempt when
    the ordinal constraints are on). Written with v in place of 1, see the module docstring."""
    rows = [(k, g) for k in model.K for g in model.G
            if len(model.groups[g].columns) > max_card and not (skip_ordinal and model.groups[g].ordinal)]
    model.card_index = pyo.Set(initialize=rows, dimen=2, ordered=True)
    model.w_card = pyo.Var(model.card_index, within=pyo.Binary, doc="w^k_g: 1 = at most max_card values")

    def size(m, k, g):
        return sum(m.z[k, j] for j in m.groups[g].columns)

    def slack(m, g):
        return len(m.groups[g].columns) - max_card

    model.card_small = pyo.Constraint(
        model.card_index,
        rule=lambda m, k, g: size(m, k, g) <= max_card * m.v[k, g] + slack(m, g) * (m.v[k, g] - m.w_card[k, g]),
        doc="4.5")
    model.card_large = pyo.Constraint(
        model.card_index,
        rule=lambda m, k, g: size(m, k, g) >= slack(m, g) * (m.v[k, g] - m.w_card[k, g]), doc="4.5")
    model.card_mode = pyo.Constraint(
        model.card_index, rule=lambda m, k, g: m.w_card[k, g] <= m.v[k, g], doc="w only for the tested group")


def _weights(sample_weight: np.ndarray | None, n: int) -> np.ndarray:
    """The points' weights w_i as floats (all 1 without ``sample_weight``)."""
    return np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)


def correct_counts(model: pyo.ConcreteModel, weights: np.ndarray | None = None):
    """(Σ_{i∈I+, b∈B+} w_i c^i_b, Σ_{i∈I-, b∈B-} w_i c^i_b): correctly classified positives and negatives,
    weighted by ``weights`` (None: counted)."""
    topo: Topology = model.topology
    w = _weights(weights, len(model.positive))
    pos = sum(float(w[i]) * model.c[i, b] for (i, b) in model.CI if model.positive[i] and topo.is_positive_leaf(b))
    neg = sum(float(w[i]) * model.c[i, b] for (i, b) in model.CI
              if not model.positive[i] and not topo.is_positive_leaf(b))
    return pos, neg


def add_objective(model: pyo.ConcreteModel, class_weight: float, maximize: str, floor: float | None,
                  weights: np.ndarray | None = None) -> None:
    """(8a) ``max pos + C·neg``; or (16) ``max pos`` s.t. (15) ``neg >= ⌈floor·|I-|⌉`` (and the mirror image
    for ``maximize="specificity"``); pos and neg weighted by the points' ``weights`` (None: counted)."""
    pos, neg = correct_counts(model, weights)
    if maximize == "accuracy":
        model.objective = pyo.Objective(expr=pos + class_weight * neg, sense=pyo.maximize, doc="(8a)")
        return
    w = _weights(weights, len(model.positive))
    if maximize == "sensitivity":
        target, constrained, other = pos, neg, w[~model.positive]
    else:
        target, constrained, other = neg, pos, w[model.positive]
    model.objective = pyo.Objective(expr=target, sense=pyo.maximize, doc="(16)")
    model.rate_floor = pyo.Constraint(expr=constrained >= floor_amount(floor, other), doc="(15)")


def floor_count(floor: float, n: int) -> int:
    """⌈floor·n⌉, robust to floating-point noise (0.95·20 is 19, not 20)."""
    return math.ceil(floor * n - 1e-9)


def floor_amount(floor: float, weights: np.ndarray) -> float:
    """The right-hand side of (15) for a class whose points weigh ``weights``: ⌈floor·Σ w⌉ (:func:`floor_count`)
    when every weight is an integer (then a weighted count is an integer), floor·Σ w otherwise."""
    total = float(weights.sum())
    if np.all(weights == np.round(weights)):
        return float(floor_count(floor, round(total)))
    return floor * total


# ---------------------------------------------------------------------------------------------- decoding
def decode_tree(model: pyo.ConcreteModel, labels: tuple, feature_names: list[str] | None = None) -> Tree:
    """The tree of a solved model (8), see :func:`model_tests` and :func:`tree_from_tests`."""
    return tree_from_tests(model.topology, model.groups, model_tests(model), labels, feature_names)


def model_tests(model: pyo.ConcreteModel) -> dict[int, tuple[int, list[int]]]:
    """{k: (group, left columns)} for the nodes K of a solved model: at node k the group with the largest v
    and the columns with z > 1/2."""
    tests = {}
    for k in model.K:
        g = max(model.G, key=lambda gi: pyo.value(model.v[k, gi]))
        tests[k] = (g, [j for j in model.groups[g].columns if pyo.value(model.z[k, j]) > 0.5])
    return tests


def complete_tests(topo: Topology, solver: SubsetSubtreeSolver, tests: dict, A: np.ndarray) -> dict:
    """The master's ``tests`` plus an optimal subtree at every frontier node, on the samples of the 0/1 data
    ``A`` that the master's tests send there."""
    A = np.asarray(A) > 0.5
    heights = node_heights(topo)
    tests = dict(tests)
    for k in frontier_nodes(topo):
        reached = np.ones(len(A), dtype=bool)
        for node, side in ancestors(topo, k):
            left = A[:, tests[node][1]].any(axis=1)
            reached &= left if side == "L" else ~left
        nodes = [k] if heights[k] == 1 else [k] + [child for _, child in topo.children[k]]
        tests.update(zip(nodes, solver.best_tests(reached, heights[k])))
    return tests


def tree_from_tests(topo: Topology, groups: Sequence[Group], tests: dict, labels: tuple,
                    feature_names: list[str] | None = None) -> Tree:
    """The tree with test ``tests[k] = (group, left columns)`` at every decision node k of ``topo``.

    ``labels = (negative label, positive label)``. A node with an empty subset sends every sample right, so
    it is replaced by its right subtree (a :class:`~odtlib.tree.SubsetSplit` needs one column).
    """
    n_nodes = len(topo.decision_nodes)
    nodes: dict = {}

    def build(kind: str, ident: int) -> int:
        if kind == "leaf":
            node_id = n_nodes + ident
            nodes[node_id] = Leaf(labels[int(topo.is_positive_leaf(ident))])
            return node_id
        g, columns = tests[ident]
        group = groups[g]
        chosen = [t for t, j in enumerate(group.columns) if j in columns]
        (left_kind, left), (right_kind, right) = topo.children[ident]
        if not chosen:
            return build(right_kind, right)
        nodes[ident] = SubsetSplit(
            [group.columns[t] for t in chosen], build(left_kind, left), build(right_kind, right),
            group=group.name, values=[group.labels[t] for t in chosen] if group.labels else None)
        return ident

    root = build("node", 1)
    return Tree(nodes, root=root, feature_names=feature_names)


def tree_counts(tree: Tree, A: np.ndarray, positive: np.ndarray, labels: tuple,
                weights: np.ndarray | None = None) -> tuple:
    """(correct positives, correct negatives) of ``tree`` on 0/1 data A: counts, or with ``weights`` the sums of
    the correct points' weights."""
    predicted_positive = tree.predict(np.asarray(A, dtype=float)) == labels[1]
    correct_pos, correct_neg = predicted_positive & positive, ~predicted_positive & ~positive
    if weights is None:
        return int(correct_pos.sum()), int(correct_neg.sum())
    return float(weights[correct_pos].sum()), float(weights[correct_neg].sum())


class CategoricalFormulation(Formulation):
    """One fit's model (8) (:func:`build_model`), or the master of the subtree decomposition (:func:`build_master`,
    when the context holds its ``subtrees`` solver), and its decoding.

    :meth:`decode` reads the tests of the solved model (:func:`model_tests`; the master's completed by an optimal
    subtree at every frontier node, :func:`complete_tests`) and counts the tree's correct positives and negatives
    on the training data, reported as ``train_counts_``. There is no warm start (the fixed topology and its
    labelled leaves leave no direct image of a CART tree). ``class_weight`` is C of (8a) (the other weights are
    the context's ``sample_weight``), ``maximize`` the
    objective ((8a) or (16)), ``feature_names`` the names the tree's splits print.
    """

    def __init__(self, ctx: CategoricalContext, model: pyo.ConcreteModel, *, class_weight: float, maximize: str,
                 feature_names: list[str] | None = None):
        super().__init__(ctx, model)
        self.class_weight, self.maximize, self.feature_names = class_weight, maximize, feature_names
        self.train_counts: tuple[int, int] | None = None

    def decode(self) -> Tree:
        ctx, model = self.ctx, self.model
        if ctx.subtrees is None:
            tree = decode_tree(model, ctx.labels, feature_names=self.feature_names)
        else:
            tests = complete_tests(model.topology, ctx.subtrees, model_tests(model), ctx.X01)
            tree = tree_from_tests(model.topology, model.groups, tests, ctx.labels, feature_names=self.feature_names)
        self.train_counts = tree_counts(tree, ctx.X, ctx.positive, ctx.labels)
        self._check_objective(pyo.value(model.objective), tree)
        return tree

    def stats(self) -> dict:
        return {"train_counts_": self.train_counts}

    def _check_objective(self, objective: float, tree: Tree) -> None:
        """Warn when the decoded tree does not score the solver's objective: (8a) pos + C·neg, or (16), with the
        points' weights."""
        ctx = self.ctx
        pos, neg = self.train_counts if ctx.sample_weight is None else tree_counts(
            tree, ctx.X, ctx.positive, ctx.labels, ctx.sample_weight)
        value = {"accuracy": pos + self.class_weight * neg, "sensitivity": pos, "specificity": neg}[self.maximize]
        if abs(value - objective) > 1e-6 * max(1.0, abs(objective)):
            warn_user(f"CategoricalODT: the decoded tree scores {value} on the training data but the solver "
                      f"reported {objective}; the solution may be fractional", RuntimeWarning)


# ---------------------------------------------------------------------------------------------- groups
def _label_text(value) -> object:
    if isinstance(value, tuple) and len(value) == 2:
        return f"({value[0]:.6g}, {value[1]:.6g}]"
    return value


def resolve_groups(groups, columns: list[str]) -> list[Group]:
    """Turn the user's ``groups`` (FeatureGroup list, lists of column names/indices, or {name: columns})
    into :class:`Group` objects; every column must be in exactly one group."""
    index = {str(c): t for t, c in enumerate(columns)}

    def column_index(c) -> int:
        if isinstance(c, numbers.Integral) and not isinstance(c, bool):
            if not 0 <= c < len(columns):
                raise ValueError(f"groups refer to column {c}, but X has {len(columns)} columns")
            return int(c)
        if str(c) not in index:
            raise ValueError(f"groups refer to column {c!r}, which X does not have")
        return index[str(c)]

    if isinstance(groups, Mapping):
        items = [(str(name), list(cols), False, []) for name, cols in groups.items()]
    else:
        items = []
        for t, g in enumerate(groups):
            if isinstance(g, FeatureGroup):
                items.append((g.name, list(g.columns), g.kind == "ordinal", list(g.values)))
            else:
                items.append((f"g{t}", list(g), False, []))
    resolved, owner = [], {}
    for name, cols, is_ordinal, values in items:
        if not cols:
            raise ValueError(f"group {name!r} has no columns")
        idx = tuple(column_index(c) for c in cols)
        for j in idx:
            if j in owner:
                raise ValueError(f"column {columns[j]!r} is in two groups ({owner[j]!r} and {name!r})")
            owner[j] = name
        labels = tuple(_label_text(v) for v in values) if len(values) == len(idx) else tuple(columns[j] for j in idx)
        resolved.append(Group(name, idx, is_ordinal, labels))
    missing = [columns[j] for j in range(len(columns)) if j not in owner]
    if missing:
        raise ValueError(f"columns {missing[:10]} are in no group; every column of X must belong to one group")
    return resolved


# ---------------------------------------------------------------------------------------------- estimator
class CategoricalODT(PointWeightsFit, MIPTreeClassifier):
    """Optimal decision tree with subset tests on categorical groups (paper 000, Günlük et al. 2019).

    Parameters
    ----------
    topology : "depth2", "depth2.5", "depth3", "imbalanced" or a shape of nested (left, right) pairs
        with None for leaves (see :mod:`odtlib.models.categorical.topologies`), default "depth2".
    groups : None, list of :class:`~odtlib.encoders.FeatureGroup`, list of column lists, or {name: columns}
        None: X is a DataFrame (or array) of original columns, encoded here by
        :class:`~odtlib.encoders.CategoricalEncoding`
        (categorical one-hot, numeric ordinal). Otherwise X is already 0/1 and ``groups`` say which columns
        form one categorical feature (``FeatureGroup.kind == "ordinal"`` marks ordered buckets).
    class_weight : float, "balanced", dict or None, default 1
        A number is C of (8a), the paper's weight of a correctly classified negative sample (the dict
        {negative label: C}); "balanced" or a dict {label: weight} weigh the classes as in scikit-learn
        ("balanced" is C = |I+| / |I-| up to a common factor); None weighs both 1. Class weights multiply
        ``fit``'s ``sample_weight`` (module docstring, "Weights").
    positive_class : label or None
        The class called positive (B+ leaves, sensitivity); default the larger label ``classes_[1]``.
    max_card : int or None
        Section 4.5: subsets of at most ``max_card`` or at least ``|J(g)| - max_card`` values
        (1 = "simple", 2 = the paper's "comb-con", None = "comb-unc").
    ordinal_splits : bool, default True
        Section 4.4: ordinal groups only branch on "<=" / ">=" a bucket ("n" in Table 7; False = "c").
    maximize : "accuracy", "sensitivity" or "specificity"; floor : float in (0, 1]
        Section 4.6: maximise the training TPR subject to training TNR >= floor, or the mirror image.
    feature_selection : None, "cart" or a list of group names
        Section 5.1: "cart" keeps the groups used by an unrestricted CART tree fitted on the training data
        (:func:`odtlib.feature_selection.cart_feature_groups`); a list keeps exactly those groups.
    strengthened_routing, anchors, pruned_routing, relaxed_integrality : bool, default True
        The enhancements of Section 4.3: routing (11)-(12) instead of (5)-(7), the anchor features (13),
        routing variables only for correct (sample, leaf) pairs (14), and v and leaf-adjacent z continuous
        (Proposition 3). They do not change the optimum; the ablation of Tables 2-3 switches them off.
    proper_splits : bool, default False
        Add (9)-(10) (every test sends some value each way). Off in the paper; it can lower the optimum.
    subtree_benders : bool, default False
        Not in the paper: solve the same problem by the subtree decomposition of
        :mod:`odtlib.models.categorical.subtree_bounds` -- a master MIP over the tests of the nodes of height >= 3
        (with ``anchors``, ``ordinal_splits`` and ``max_card``), and every subtree of height <= 2 below them
        solved exactly on the samples that reach it, joined by lazy Benders cuts. Formulation (8) is not
        built, so ``strengthened_routing``, ``pruned_routing`` and ``relaxed_integrality`` do not apply. Needs
        lazy rows (``solver="scip"`` runs them in the search; HiGHS by a restart loop, with a warning),
        ``maximize="accuracy"``, no ``proper_splits``, groups with at most one 1 per row, and at most 2^16
        tests per node of height 2 (an unrestricted group with m values present in the data has 2^m or
        2^(m-1); else set ``max_card``).
    solver, time_limit, mip_gap, threads, random_state, solver_options, keep_model, log
        As for every MIP estimator (:class:`~odtlib.models.MIPTreeClassifier`); ``mip_gap=None`` proves the
        exact optimum. There is no warm start: the fixed topology and its pre-labelled leaves leave no
        direct image of a CART tree.


    Attributes
    ----------
    tree_ : odtlib.tree.Tree
        Subset splits on the encoded columns, printed with the original values.
    solve_result_ : odtlib.solvers.SolveResult
        Status, objective, bound, gap and times of the solve.
    classes_ : ndarray
        The class labels seen in ``fit``.
    groups_ : list of Group
        The groups used.
    encoder_ : CategoricalEncoding or None
        The encoder fitted here (``groups=None``).
    train_counts_ : tuple of int
        Correct positives, correct negatives of ``tree_`` on the training data.
    n_features_in_, feature_names_in_
        Of X as passed: with ``groups=None`` the original columns, whose encoded 0/1
        columns are ``encoded_columns_``.

    Examples
    --------
    The class is "colour is red": one subset test separates it (the tree's other tests are not unique, so
    the example shows the score and predictions):

    >>> import numpy as np
    >>> import pandas as pd
    >>> from odtlib.models import CategoricalODT
    >>> X = pd.DataFrame({"colour": ["red", "green", "blue", "red", "green", "blue"]})
    >>> y = np.array([1, 0, 0, 1, 0, 0])
    >>> clf = CategoricalODT(topology="depth2").fit(X, y)
    >>> clf.score(X, y), clf.predict(pd.DataFrame({"colour": ["blue", "red"]})).tolist()
    (1.0, [0, 1])
    """

    requires_binary_features = True

    _parameter_constraints = {
        **{k: v for k, v in common_constraints().items() if k not in ("depth", "warm_start")},
        "class_weight": [Interval(numbers.Real, 0, None, closed="neither"), *class_weight_constraint()["class_weight"]],
        "max_card": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "ordinal_splits": ["boolean"], "maximize": [StrOptions(set(MAXIMIZE))],
        "floor": [Interval(numbers.Real, 0, 1, closed="right"), None],
        "strengthened_routing": ["boolean"], "anchors": ["boolean"], "pruned_routing": ["boolean"],
        "relaxed_integrality": ["boolean"], "proper_splits": ["boolean"], "subtree_benders": ["boolean"],
    }

    PAPER_METHODS = {   # Tables 2-3: the enhancements of Section 4.3 left out one at a time; (14) always on
        "Nothing": dict(anchors=False, relaxed_integrality=False, strengthened_routing=False, pruned_routing=True),
        "No Anchor": dict(anchors=False, relaxed_integrality=True, strengthened_routing=True, pruned_routing=True),
        "No Relax": dict(anchors=True, relaxed_integrality=False, strengthened_routing=True, pruned_routing=True),
        "No Strength": dict(anchors=True, relaxed_integrality=True, strengthened_routing=False, pruned_routing=True),
        "All": dict(anchors=True, relaxed_integrality=True, strengthened_routing=True, pruned_routing=True),
    }

    def __init__(self, *, topology="depth2", groups=None, class_weight=1.0, positive_class=None,
                 max_card: int | None = None, ordinal_splits: bool = True, maximize: str = "accuracy",
                 floor: float | None = None, feature_selection=None, strengthened_routing: bool = True,
                 anchors: bool = True, pruned_routing: bool = True, relaxed_integrality: bool = True,
                 proper_splits: bool = False, subtree_benders: bool = False, solver: str = "highs",
                 time_limit: float | None = None, mip_gap: float | None = None, threads: int = 1, random_state: int = 0,
                 solver_options: dict | None = None, keep_model: bool = False, log: bool = False, seed=DEPRECATED):
        store_parameters(self, locals())

    # ------------------------------------------------------------------ validation
    def _check_params(self) -> None:
        super()._check_params()
        get_topology(self.topology)
        if self.maximize != "accuracy" and self.floor is None:
            raise ValueError(f"maximize={self.maximize!r} needs a floor in (0, 1] on the other rate, "
                             f"got floor={self.floor!r}")
        if self.maximize == "accuracy" and self.floor is not None:
            raise ValueError("floor only applies with maximize='sensitivity' or 'specificity'")
        if self.subtree_benders and (self.maximize != "accuracy" or self.proper_splits):
            raise ValueError("subtree_benders=True solves maximize='accuracy' without proper_splits; switch it off "
                             "for a rate floor or (9)-(10)")
        fs = self.feature_selection
        if fs is not None and fs != "cart" and (isinstance(fs, str) or not isinstance(fs, Sequence)):
            raise ValueError(f"feature_selection must be None, 'cart' or a list of group names, got {fs!r}")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False      # formulation (8) labels its leaves positive / negative
        return tags

    # ------------------------------------------------------------------ encoding
    def fit(self, X, y, sample_weight=None) -> CategoricalODT:
        """Encode X (unless ``groups`` is given), then solve formulation (8) on the 0/1 data; ``sample_weight``
        (one non-negative number per row, default 1) multiplies each point's term of (8a) (module docstring)."""
        self.__dict__.pop("encoded_columns_", None)
        if self.groups is None:
            self.encoder_ = CategoricalEncoding().fit(X)
            X01 = self.encoder_.transform(X)
            groups = self.encoder_.groups_
        else:
            self.encoder_ = None
            X01, groups = X, self.groups
        columns = [str(c) for c in X01.columns] if isinstance(X01, pd.DataFrame) else \
            [f"x{j}" for j in range(np.asarray(X01).shape[1])]
        self.groups_ = resolve_groups(groups, columns)
        super().fit(X01, y, sample_weight)
        if self.encoder_ is not None:
            self._describe_input_columns(X)
        return self

    def _describe_input_columns(self, X) -> None:
        """``n_features_in_`` and ``feature_names_in_`` of the frame the user passed, as scikit-learn sets them
        (names only for string column names), instead of the encoded 0/1 columns the base class validated;
        those stay in ``encoded_columns_`` (the names the tree's splits use)."""
        self.encoded_columns_ = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") else \
            [f"x{j}" for j in range(self.n_features_in_)]
        names = _get_feature_names(X)
        self.n_features_in_ = _num_features(X)
        self.__dict__.pop("feature_names_in_", None)
        if names is not None:
            self.feature_names_in_ = names

    def _check_X_fitted(self, X) -> np.ndarray:
        if getattr(self, "encoder_", None) is None:
            return super()._check_X_fitted(X)
        check_is_fitted(self, "tree_")
        got = _num_features(X)
        if got != self.n_features_in_:
            raise ValueError(f"X has {got} features, but CategoricalODT is expecting {self.n_features_in_} "
                             "features as input (the columns it was fitted on)")
        validate_data(self, X, reset=False, skip_check_array=True)     # the column names, as in fit
        X01 = np.asarray(self.encoder_.transform(X), dtype=np.float64)
        self._check_feature_values(X01)
        return X01

    def _column_names(self, n_columns: int) -> list[str]:
        """The encoded columns' names once fit replaced ``feature_names_in_`` by the user's columns."""
        encoded = getattr(self, "encoded_columns_", None)
        return encoded if encoded is not None and len(encoded) == n_columns else super()._column_names(n_columns)

    # ------------------------------------------------------------------ pipeline hooks
    def _context(self, X, y) -> CategoricalContext:
        labels = self._labels()
        return CategoricalContext(X, y, self.classes_, depth=get_topology(self.topology).depth, labels=labels,
                                  positive=self.classes_[y] == labels[1], groups=self._selected_groups(X, y))

    def _paper_c(self) -> float:
        """C of (8a): ``class_weight`` when it is a number, else 1 (the class weights are then in the points'
        weights, :meth:`_point_weights`)."""
        return float(self.class_weight) if isinstance(self.class_weight, numbers.Real) else 1.0

    def _point_weights(self, y, sample_weight):
        """The points' weights: ``sample_weight`` times the class weights of "balanced" or a dict (a number C stays
        C of (8a), :meth:`_paper_c`). ``feature_selection="cart"`` refuses them: its CART tree counts rows."""
        by_class = None if isinstance(self.class_weight, numbers.Real) else self.class_weight
        weights = point_weights(sample_weight, by_class, self.classes_[y])
        if weights is not None and self.feature_selection == "cart":
            raise ValueError("feature_selection='cart' picks the groups by an unweighted CART tree, so it cannot "
                             "select for a fit with sample_weight or a dict/'balanced' class_weight; pass the "
                             "groups to keep as a list (feature_selection=[...]) or fit without weights")
        return weights

    def _size_terms(self, ctx):
        topo = get_topology(self.topology)
        leaves, nodes = len(topo.leaves), len(topo.decision_nodes)
        return {f"c ({ctx.n_samples} rows × {leaves} leaves)": ctx.n_samples * leaves,
                f"z ({nodes} decision nodes × {ctx.n_features} columns)": nodes * ctx.n_features}

    def _build(self, ctx):
        """Model (8), or with ``subtree_benders`` the master and (in ``ctx.subtrees``) the exact subtree solver,
        both on the points' weights and C."""
        if self.subtree_benders:
            topo = get_topology(self.topology)
            heights = node_heights(topo)
            ctx.subtrees = SubsetSubtreeSolver(
                ctx.X01, ctx.positive, ctx.groups, self._paper_c(), sample_weight=ctx.sample_weight,
                ordinal=self.ordinal_splits, max_card=self.max_card,
                max_height=max(heights[k] for k in frontier_nodes(topo)))
            model = build_master(ctx.X01, ctx.positive, ctx.groups, self.topology, class_weight=self._paper_c(),
                                 sample_weight=ctx.sample_weight, anchor=self.anchors, ordinal=self.ordinal_splits,
                                 max_card=self.max_card)
        else:
            model = build_model(
                ctx.X01, ctx.positive, ctx.groups, self.topology, class_weight=self._paper_c(),
                sample_weight=ctx.sample_weight,
                strengthen=self.strengthened_routing, anchor=self.anchors, prune_c=self.pruned_routing,
                relax=self.relaxed_integrality, proper_splits=self.proper_splits, ordinal=self.ordinal_splits,
                max_card=self.max_card, maximize=self.maximize, floor=self.floor)
        return CategoricalFormulation(ctx, model, class_weight=self._paper_c(), maximize=self.maximize,
                                      feature_names=getattr(self, "feature_names_in_", None))

    def _plugin_needs(self, ctx):
        return [PluginNeed("subtree_benders", "lazy")] if self.subtree_benders else []

    def _callbacks(self, ctx, formulation):
        """The cuts (SB) of the subtree decomposition, on the master and the context's exact subtree solver."""
        if not self.subtree_benders:
            return None
        return BranchAndCut(lazy=[SubtreeBendersCuts(formulation.model, ctx.subtrees)])

    def _initial_tree(self, ctx):
        return None

    def _no_tree_hint(self) -> str:
        return "raise time_limit; with a floor the constraint may be infeasible"

    def _objective_step(self, ctx):
        """(8a) counts positives plus C times negatives: multiples of 1/denominator(C); (16) counts samples (the
        pipeline keeps the step only for integer point weights)."""
        return objective_step(self._paper_c() if self.maximize == "accuracy" else 1.0)

    # ------------------------------------------------------------------ labels and groups
    def _labels(self) -> tuple:
        """(negative label, positive label)."""
        if len(self.classes_) != 2:
            raise ValueError(f"CategoricalODT is a binary classifier, but y has {len(self.classes_)} classes")
        if self.positive_class is None:
            return self.classes_[0], self.classes_[1]
        if self.positive_class not in self.classes_:
            raise ValueError(f"positive_class {self.positive_class!r} is not a label of y ({list(self.classes_)})")
        return tuple(c for c in self.classes_ if c != self.positive_class)[0], self.positive_class

    def _selected_groups(self, A: np.ndarray, y: np.ndarray) -> list[Group]:
        fs = self.feature_selection
        if fs is None:
            return list(self.groups_)
        if fs == "cart":
            from odtlib.feature_selection import cart_feature_groups

            names = set(cart_feature_groups(A, y, self.groups_, seed=self._parameter("random_state")))
        else:
            names = {str(n) for n in fs}
            unknown = names - {g.name for g in self.groups_}
            if unknown:
                raise ValueError(f"feature_selection names unknown groups {sorted(unknown)}")
        kept = [g for g in self.groups_ if g.name in names]
        return kept or list(self.groups_)


@dataclass
class CategoricalContext(FitContext):
    """A fit of formulation (8): the (negative, positive) labels, which samples are positive, the groups."""

    labels: tuple = ()
    positive: np.ndarray | None = None
    groups: list = field(default_factory=list)
    subtrees: SubsetSubtreeSolver | None = None           # subtree_benders: the exact subtree solver
