"""SVM1-ODT: formulation (1a)-(1l) of Zhu, Murali, Phan, Nguyen & Kalagnanam (2020), a 1-norm SVM at every node.

Every point i sits in exactly one leaf l (e_il, (1k)); leaf l predicts the label u_l, and labels are the numbers
1..Y (class index + 1), so the predicted label of i is ŷ_i = Σ_l u_l e_il, linearised exactly by w_il = u_l e_il
((1c)-(1e)); c_i = 1 marks i as misclassified ((1b): c_i = 0 forces ŷ_i = y_i). By Theorem 1 u_l may be
continuous in [1, Y]: a leaf holding a correctly classified point has u_l equal to that point's label.

Each branch node b has a hyperplane (h_b, g_b): i goes left when h_b·x_i <= g_b. (1f) splits g_b - h_b·x_i into
p⁺_ib - p⁻_ib; a point in a leaf below b's left branch has p⁻_ib = 0 ((1i)) and a margin p⁺_ib + m_ib >= ε
((1j)); on the right p⁺_ib = 0 ((1g)) and p⁻_ib + m_ib >= ε ((1h)). The slack m_ib is paid α₁ per unit in
(1a) and ||h_b||_1 (written with h = h⁺ - h⁻) is paid α₂: the node's soft-margin 1-norm SVM of Section 2.1. The
big-M of (1g)/(1i) is M = 1 (Theorem 2: (α₁, α₂, M, ε) and (Mα₁, Mα₂, 1, ε/M) have the same optima), so
|g_b - h_b·x_i| <= 1 for every point and node, and ε is a margin on that scale.

**Points on a hyperplane.** The branching rule sends h_b·x <= g_b left, but (1g)-(1j) also allow
p⁺_ib = p⁻_ib = 0 (i exactly on the plane) on either side when the slack pays m_ib >= ε for it. The decoded
tree routes every training point as the solved model does: its threshold at b is g_b when g_b already
separates the points the model sends left from those it sends right (every left value <= g_b < every right
value), and otherwise the middle of the gap between the largest left value and the smallest right value
(so a point on the plane that the model sent right goes right). If the model sends points with the same
value h_b·x to both sides (only through slack, each costing α₁·ε), no threshold can: the tree keeps g_b
(on-plane points go left) and ``fit`` warns with the number of such points. Raise ``alpha1``: once α₁·ε
exceeds the number of points (with weights: α₁·ε·w_i > Σ_j w_j for every point i), no optimum routes a point
against its hyperplane's value (each such point pays at least α₁·ε·w_i, more than all errors together).

**α₁ > 0.** With α₁ = 0 the model is trivial: h = 0, g = 0 and m = ε meet every row for any routing, so it
"classifies" every point of up to 2^D classes correctly. :class:`SVM1ODT` rejects α₁ = 0. A small α₁·ε has
the same effect in degree (slack is cheaper than a misclassification), which is why the published settings
have α₁·ε between 0.024 and 10⁵ (``odtlib/reference/paper004_tables6_7_8_data_selection_params.csv``).

**Cuts** (Proposition 1, from Theorem 3's (12)), added up front, each behind a switch; class sizes sorted
s_1 <= ... <= s_Y:

1. ``leaf_capacity_cuts``: Σ_i c_i >= Σ_i e_il - s_Y for every leaf l (a leaf has one label, so at most s_Y of
   its points are correct);
2. ``class_coverage_cuts`` (when Y >= 2^D): Σ_i (c_i + e_il) >= s_1 (Y - 2^D + 1) for every leaf l (the other
   2^D - 1 leaves classify at most 2^D - 1 of any Y points of distinct classes);
3. ``pigeonhole_cut`` (when Y > 2^D): Σ_i c_i >= s_1 + ... + s_{Y-2^D} (the Y - 2^D smallest classes get no
   leaf).

**Categorical features** (supplementary A.2, (8a)-(8f)), when ``categorical_features`` is given: columns of
category codes, not scaled. A node splits either on one categorical column j by a value subset (h_bj = 1 for
that column, s_bjv = 1 for the values that go left) or by a hyperplane on the numerical columns. We read two
points of the supplement as follows: the hyperplane sum of (1f) runs over the numerical columns only (a
categorical column has no coefficient), and ||h_b||_1 in (1a) counts the categorical h_bj too (a categorical
split costs α₂). (8e) bounds the numerical |h_bj| by 1 - Σ_j∈Fc h_bj, so in this model a hyperplane also has
|h_bj| <= 1. The decoded tree uses :class:`~odtlib.tree.CategorySplit` with the codes whose s_bjv = 1 (codes unseen in
training go right).

**Weights** (issue 32). ``fit(X, y, sample_weight)`` and ``class_weight`` give point i a weight w_i (their product,
``_pipeline.point_weights``) that multiplies the point's whole term of (1a): its error c_i and its margin slack
Σ_b m_ib, so (1a) reads Σ_i w_i (c_i + α₁ Σ_b m_ib) + α₂ Σ_b ||h_b||_1. A point of integer weight k then costs
what k copies of it cost (each copy pays its own error and slack), and the default α₁ = 2/ε keeps its meaning
per point (a row inside a margin costs at most two of its own errors). The rest of the model is unchanged and
stays valid: rows (1b)-(1l) and (8a)-(8f) describe the trees, not their price, and the cuts of Proposition 1
bound Σ_i c_i over any feasible routing, whatever the objective. What weights do not reach:

* α₂ prices the hyperplanes, not the points, so weights are in units of points (scikit-learn's SVMs read
  ``sample_weight`` the same way): scaling every weight by c gives the optimum of α₂/c, i.e. the same tree as
  unscaled weights with α₂ divided by c, and c times the objective when α₂ is scaled with them.
* A row of weight 0 would still bound the hyperplanes' scale by |g_b - h_b·x_i| <= M = 1 ((1g)/(1i)), which
  can change the optimum when the row lies outside the hull of the others; ``fit`` therefore leaves rows of
  ``sample_weight`` 0 out before anything else (also out of ε's default and of ``class_weight="balanced"``'s
  counts), exactly as if they had not been passed.
* Starts: CART's start is fitted with the weights, and ``warm_start="best"`` prices paper 002's SVM tree
  against it in the weighted (1a). ``warm_start="svm"`` alone would grow that tree by unweighted counts, so it
  is refused with unequal weights.
* Algorithm 3 (:class:`~odtlib.models.svm1odt.selected.IterativeTraining`) passes its weights |I| + 1 of the
  representers through ``sample_weight``, so here they multiply those points' slack as well as their c_j
  (the paper weights c_j only; its guarantee that a round does not lose training accuracy is stated for
  α₁ = α₂ = 0, where the two readings agree).

**Defaults for a user** (issue 31; :attr:`SVM1ODT.PAPER_METHODS` keeps the printed values). With the printed
α₁ = 1000, ε = 0.01 on data with many close values (skin segmentation: multiples of 1/255), a row inside a
margin costs up to α₁·ε = 10-30 misclassifications, and the one-leaf tree, which has no margin at all, is
optimal. So ``epsilon=None`` (the default) takes half the data's resolution (the smallest gap between two
distinct values of a column), clipped to [0.001, 0.01]: every split of CART's tree then has no row inside its
margin. ``alpha1=None`` takes α₁ = 2/ε, so a row inside a margin costs at most two misclassifications (above 1:
slack alone never pays to route a row). ``warm_start="best"`` starts from the better, in (1a), of CART's tree
and paper 002's SVM tree, and a time-limited solve returns at least that start. A fit that still ends with one
leaf while CART's tree splits the data warns (:class:`OneLeafTreeWarning`). A solved model that routes rows
against their hyperplane value (see "Points on a hyperplane") reports the decoded tree's own objective (1a) in
``solve_result_.objective`` (the model's in ``extra["model_objective"]``). The LP bound of (1a) is 0 (fractional
e and c meet every row at no cost); a time-limited solve whose bound is still 0 reports no bound and no gap
(``extra["solver_bound"]`` keeps the solver's number).

**One fit** runs the pipeline of ``models/_pipeline.py``: ``_context`` resolves α₁ and ε, ``_build`` returns an
:class:`SVM1ODTFormulation` (the model, the warm start's values, the decoded tree, the result restated as
above, and ``alpha1_``, ``epsilon_``, ``warm_start_source_``). The model has no plug-ins.

**Data selection** (Section 3) is composition, not a parameter: ``DataSelectedClassifier(SVM1ODT(...),
LPDataSelector(...))`` (Algorithms 1-2) and ``IterativeTraining(SVM1ODT(...))`` (Algorithm 3), in
:mod:`odtlib.models.svm1odt.selected`, fit this estimator on the rows they keep; :meth:`SVM1ODT.for_selected_rows`
is the copy they fit (α₁, ε resolved on all rows, the MIP started from CART's tree). The parameters
``data_selection``, ``beta1``, ``beta2``, ``epsilon_prime`` and ``n_iterations`` are deprecated: they still fit
through those two classes, with a FutureWarning, until the next release.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo
from pyomo.common.collections import ComponentMap
from pyomo.repn.standard_repn import generate_standard_repn
from sklearn.base import clone
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import Hidden, Interval, StrOptions

from odtlib.models._base import DEPRECATED, _list_names, warn_user
from odtlib.models._hyperplane import check_unit_interval, full_tree_routing, hyperplane_tree
from odtlib.models._pipeline import (
    FitContext,
    Formulation,
    MIPTreeClassifier,
    PointWeightsFit,
    class_weight_constraint,
    common_constraints,
    store_parameters,
)
from odtlib.models._tree_index import linear_sum, tree_model
from odtlib.models.svm_tree import svm_split_tree
from odtlib.solvers import SolveResult
from odtlib.solvers.result import relative_gap
from odtlib.tree import CategorySplit, Tree

__all__ = ["SVM1ODT", "SVM1ODTFormulation", "OneLeafTreeWarning", "data_resolution", "default_epsilon", "build_model",
           "add_leaf_prediction", "add_hyperplane_branching", "add_categorical_branching", "add_numeric_bounds",
           "add_objective", "add_proposition_1_cuts", "threshold_between", "objective_at"]

BIG_M = 1.0   # M of (1g), (1i): Theorem 2
EPSILON_RANGE = (0.001, 0.01)   # epsilon=None: half the data's resolution, clipped to this range
SLACK_PRICE = 2.0               # alpha1=None: alpha1 * epsilon, the most a row inside a margin costs in errors
SELECTOR_PARAMETERS, ITERATION_PARAMETERS = ("beta1", "beta2", "epsilon_prime"), ("epsilon_prime", "n_iterations")


class OneLeafTreeWarning(UserWarning):
    """SVM1ODT returned a tree that predicts one class on data that CART's tree of the same depth splits."""


def data_resolution(X: np.ndarray) -> float:
    """The smallest gap between two distinct values of one column of X (inf when no column has two values)."""
    gaps = [np.diff(np.unique(column)) for column in np.asarray(X, dtype=np.float64).T]
    positive = [gap.min() for gap in gaps if len(gap)]
    return float(min(positive)) if positive else np.inf


def default_epsilon(X: np.ndarray) -> float:
    """``epsilon=None``: half of :func:`data_resolution`, clipped to ``EPSILON_RANGE`` (module docstring)."""
    low, high = EPSILON_RANGE
    return float(np.clip(data_resolution(X) / 2, low, high))


# --------------------------------------------------------------------------------------------- formulation (1)
def add_leaf_prediction(model: pyo.ConcreteModel, labels: np.ndarray) -> None:
    """e, c, u, w and rows (1b)-(1e), (1k); ``labels`` are the numbers 1..Y."""
    Y = len(model.K)
    model.e = pyo.Var(model.I, model.L, within=pyo.Binary, doc="(1l) point i is in leaf l")
    model.c = pyo.Var(model.I, within=pyo.Binary, doc="(1l) point i is misclassified")
    model.u = pyo.Var(model.L, bounds=(1, Y), doc="(1l) label of leaf l (continuous by Theorem 1)")
    model.w = pyo.Var(model.I, model.L, bounds=(0, Y), doc="(1c)-(1e) w_il = u_l e_il")
    model.y_hat = pyo.Expression(model.I, rule=lambda m, i: linear_sum(m.w[i, l] for l in m.L), doc="(1c)")
    model.misclassified_below = pyo.Constraint(
        model.I, rule=lambda m, i: (labels[i] - Y) * m.c[i] <= labels[i] - m.y_hat[i], doc="(1b), left")
    model.misclassified_above = pyo.Constraint(
        model.I, rule=lambda m, i: labels[i] - m.y_hat[i] <= (labels[i] - 1) * m.c[i], doc="(1b), right")
    model.w_at_least_e = pyo.Constraint(model.I, model.L, rule=lambda m, i, l: m.w[i, l] >= m.e[i, l], doc="(1d)")
    model.w_at_most_u = pyo.Constraint(model.I, model.L, rule=lambda m, i, l: m.u[l] - m.w[i, l] + m.e[i, l] >= 1,
                                       doc="(1d)")
    model.w_at_least_u = pyo.Constraint(model.I, model.L,
                                        rule=lambda m, i, l: Y * m.e[i, l] + m.u[l] - m.w[i, l] <= Y, doc="(1e)")
    model.w_zero_outside = pyo.Constraint(model.I, model.L, rule=lambda m, i, l: m.w[i, l] <= Y * m.e[i, l],
                                          doc="(1e)")
    model.one_leaf = pyo.Constraint(model.I, rule=lambda m, i: linear_sum(m.e[i, l] for l in m.L) == 1, doc="(1k)")


def add_hyperplane_branching(model: pyo.ConcreteModel, X: np.ndarray, numeric: list[int], epsilon: float) -> None:
    """h⁺, h⁻ (on the numerical columns), g, p⁺, p⁻, m and rows (1f)-(1j) with M = 1.

    With categorical branching (:func:`add_categorical_branching`, which must come first) the margin rows
    (1h)/(1j) are relaxed at nodes that split on a category, as A.2 writes them.
    """
    model.Q = pyo.Set(initialize=numeric, ordered=True, doc="numerical features")
    model.h_pos = pyo.Var(model.N, model.Q, within=pyo.NonNegativeReals, doc="(1a) h⁺_bj")
    model.h_neg = pyo.Var(model.N, model.Q, within=pyo.NonNegativeReals, doc="(1a) h⁻_bj")
    model.g = pyo.Var(model.N, doc="(1f) g_b")
    model.p_pos = pyo.Var(model.I, model.N, within=pyo.NonNegativeReals, doc="(1f) p⁺_ib")
    model.p_neg = pyo.Var(model.I, model.N, within=pyo.NonNegativeReals, doc="(1f) p⁻_ib")
    model.m = pyo.Var(model.I, model.N, within=pyo.NonNegativeReals, doc="(1h), (1j) soft-margin slack m_ib")

    def side(m, i, b):
        terms = [float(X[i, j]) * (m.h_pos[b, j] - m.h_neg[b, j]) for j in numeric if X[i, j] != 0]
        return m.g[b] - sum(terms) == m.p_pos[i, b] - m.p_neg[i, b]

    model.side = pyo.Constraint(model.I, model.N, rule=side, doc="(1f)")
    categorical_split = getattr(model, "splits_on_category", None)
    model.branching = pyo.ConstraintList(doc="(1g)-(1j)")
    for i in model.I:
        for l in model.L:
            e = model.e[i, l]
            for b, goes_left in model.tree.ancestors(l):
                wanted = e - categorical_split[b] if categorical_split is not None else e
                if goes_left:
                    model.branching.add(model.p_neg[i, b] <= BIG_M * (1 - e))                          # (1i)
                    model.branching.add(model.p_pos[i, b] + model.m[i, b] >= epsilon * wanted)         # (1j)
                else:
                    model.branching.add(model.p_pos[i, b] <= BIG_M * (1 - e))                          # (1g)
                    model.branching.add(model.p_neg[i, b] + model.m[i, b] >= epsilon * wanted)         # (1h)


def add_categorical_branching(model: pyo.ConcreteModel, X: np.ndarray, categorical: list[int]) -> None:
    """Supplement A.2: h_bj (j categorical), s_bjv and rows (8a)-(8d); (8e) is added by :func:`add_numeric_bounds`
    once the numerical h exist. ``model.splits_on_category[b]`` = Σ_j h_bj."""
    values = {j: sorted(set(X[:, j].tolist())) for j in categorical}
    model.C = pyo.Set(initialize=categorical, ordered=True, doc="categorical features F_c")
    model.CV = pyo.Set(initialize=[(j, v) for j in categorical for v in values[j]], dimen=2, doc="(j, v ∈ V_j)")
    model.h_cat = pyo.Var(model.N, model.C, within=pyo.Binary, doc="(8f) node b splits on categorical j")
    model.s = pyo.Var(model.N, model.CV, within=pyo.Binary, doc="(8f) value v of j goes left at b")
    model.splits_on_category = pyo.Expression(model.N, rule=lambda m, b: linear_sum(m.h_cat[b, j] for j in m.C))
    model.one_category = pyo.Constraint(model.N, rule=lambda m, b: m.splits_on_category[b] <= 1, doc="(8a)")
    model.value_needs_feature = pyo.Constraint(model.N, model.CV, rule=lambda m, b, j, v: m.s[b, j, v] <= m.h_cat[b, j],
                                               doc="(8b)")

    def goes_left(i, b):
        return linear_sum(model.s[b, j, float(X[i, j])] for j in categorical)

    model.categorical_rows = pyo.ConstraintList(doc="(8c), (8d)")
    for i in model.I:
        for l in model.L:
            e = model.e[i, l]
            for b, left in model.tree.ancestors(l):
                if left:
                    model.categorical_rows.add(goes_left(i, b) >= e + model.splits_on_category[b] - 1)      # (8c)
                else:
                    model.categorical_rows.add(goes_left(i, b) <= 2 - e - model.splits_on_category[b])      # (8d)


def add_numeric_bounds(model: pyo.ConcreteModel) -> None:
    """(8e): a node that splits on a category has no hyperplane (and otherwise |h_bj| <= 1)."""
    model.hyperplane_off_below = pyo.Constraint(
        model.N, model.Q, rule=lambda m, b, j: m.splits_on_category[b] - 1 <= m.h_pos[b, j] - m.h_neg[b, j],
        doc="(8e)")
    model.hyperplane_off_above = pyo.Constraint(
        model.N, model.Q, rule=lambda m, b, j: m.h_pos[b, j] - m.h_neg[b, j] <= 1 - m.splits_on_category[b],
        doc="(8e)")


def add_objective(model: pyo.ConcreteModel, weights: np.ndarray, alpha1: float, alpha2: float) -> None:
    """(1a) with ||h_b||_1 = Σ_j (h⁺_bj + h⁻_bj) (+ the categorical h_bj); each point's term, its error c_i and its
    slack Σ_b m_ib, multiplied by the point's weight (module docstring, "Weights")."""
    errors = linear_sum(float(weights[i]) * model.c[i] for i in model.I)
    slack = linear_sum(float(weights[i]) * model.m[i, b] for i in model.I for b in model.N)
    norm = linear_sum([model.h_pos[b, j] for b in model.N for j in model.Q]
                      + [model.h_neg[b, j] for b in model.N for j in model.Q]
                      + ([model.h_cat[b, j] for b in model.N for j in model.C] if hasattr(model, "C") else []))
    model.objective = pyo.Objective(expr=errors + alpha1 * slack + alpha2 * norm, sense=pyo.minimize, doc="(1a)")


def add_proposition_1_cuts(model: pyo.ConcreteModel, y: np.ndarray, leaf_capacity: bool, class_coverage: bool,
                           pigeonhole: bool) -> None:
    """The valid inequalities of Proposition 1 that apply (see the module docstring); class sizes from y."""
    sizes = np.sort(np.bincount(y, minlength=len(model.K)))
    Y, n_leaves = len(sizes), len(model.L)
    errors = linear_sum(model.c[i] for i in model.I)
    if leaf_capacity:
        model.leaf_capacity_cuts = pyo.Constraint(
            model.L, rule=lambda m, l: errors >= linear_sum(m.e[i, l] for i in m.I) - int(sizes[-1]),
            doc="Proposition 1 (1)")
    if class_coverage and Y >= n_leaves:
        floor = int(sizes[0]) * (Y - n_leaves + 1)
        model.class_coverage_cuts = pyo.Constraint(
            model.L, rule=lambda m, l: errors + linear_sum(m.e[i, l] for i in m.I) >= floor, doc="Proposition 1 (2)")
    if pigeonhole and Y > n_leaves:
        model.pigeonhole_cut = pyo.Constraint(expr=errors >= int(sizes[: Y - n_leaves].sum()), doc="Proposition 1 (3)")


def build_model(X: np.ndarray, y: np.ndarray, depth: int, alpha1: float = 1000.0, alpha2: float = 0.1,
                epsilon: float = 0.01, *, sample_weight: np.ndarray | None = None, categorical: list[int] = (),
                n_classes: int | None = None, leaf_capacity_cuts: bool = True, class_coverage_cuts: bool = True,
                pigeonhole_cut: bool = True) -> pyo.ConcreteModel:
    """SVM1-ODT (1a)-(1l) on X (numerical columns in [0, 1]), with (8a)-(8f) for the ``categorical`` columns and
    the cuts of Proposition 1; ``y`` holds class indices 0..K-1 (the model's labels are y + 1)."""
    X = np.asarray(X, dtype=np.float64)
    model, y = tree_model("SVM1ODT", depth, X, y, n_classes)
    categorical = list(categorical)
    numeric = [j for j in range(X.shape[1]) if j not in set(categorical)]
    add_leaf_prediction(model, y + 1)                                               # (1b)-(1e), (1k)
    if categorical:
        add_categorical_branching(model, X, categorical)                   # (8a)-(8d)
    add_hyperplane_branching(model, X, numeric, epsilon)                            # (1f)-(1j)
    if categorical:
        add_numeric_bounds(model)                                                   # (8e)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    add_objective(model, weights, alpha1, alpha2)                                   # (1a)
    add_proposition_1_cuts(model, y, leaf_capacity_cuts, class_coverage_cuts, pigeonhole_cut)
    return model


# --------------------------------------------------------------------------------------------- decoding
def threshold_between(left_values: np.ndarray, right_values: np.ndarray, g: float, epsilon: float) -> float | None:
    """A threshold θ with every left value <= θ < every right value: g when it is one, else the middle of the
    gap (just below the right values when nothing goes left, the largest left value when nothing goes right);
    None when the two sides overlap."""
    low = float(left_values.max()) if len(left_values) else -np.inf
    high = float(right_values.min()) if len(right_values) else np.inf
    if low <= g < high:
        return g
    if not low < high:
        return None
    if np.isinf(high):
        return low
    if np.isinf(low):
        return high - epsilon
    return (low + high) / 2


@dataclass
class SVM1ODTContext(FitContext):
    """The fit context with the categorical columns (indices) and the resolved α₁ and ε."""

    categorical: tuple = ()
    alpha1: float = 1000.0
    epsilon: float = 0.01


class SVM1ODTFormulation(Formulation):
    """One fit's model (1a)-(1l) (:func:`build_model`) on the context's rows, α₁ and ε, and what the fit asks of it.

    * :meth:`start_values`: the values of every variable for the start tree (:meth:`values_of`), or for one of
      ``rival_starts`` ({source: Tree}) when it costs less in (1a) (``warm_start="best"``: paper 002's SVM tree
      against CART's, CART first on ties); ``start_source`` names the start tree's source.
    * :meth:`decode`: hyperplane (and category) splits that route the training points as the solved e_il
      ("Points on a hyperplane" in the module docstring), leaf labels round(u_l); a tree of one leaf on rows
      CART's tree of the same depth (``random_state``) splits warns (:class:`OneLeafTreeWarning`).
    * :meth:`restate`: no bound instead of (1a)'s trivial LP bound 0, and the decoded tree's own (1a) as the
      objective when the model routed rows against their hyperplane value.
    * :meth:`stats`: ``alpha1_``, ``epsilon_``, ``warm_start_source_``.
    """

    def __init__(self, ctx: SVM1ODTContext, model: pyo.ConcreteModel, *, start_source: str | None = None,
                 rival_starts: dict[str, Tree] | None = None, random_state: int = 0):
        super().__init__(ctx, model)
        self.start_source, self.rival_starts = start_source, dict(rival_starts or {})
        self.random_state = random_state
        self.tree_objective: float | None = None     # (1a) of the decoded tree, when it differs from the model's

    def stats(self) -> dict:
        return {"alpha1_": self.ctx.alpha1, "epsilon_": self.ctx.epsilon, "warm_start_source_": self.start_source}

    # ------------------------------------------------------------------ warm start
    def start_values(self, tree: Tree) -> ComponentMap:
        """The values of :meth:`values_of` for ``tree`` or, with rival starts, for the one of them all that costs
        least in (1a) (``tree`` first on ties); ``start_source`` then names it."""
        if not self.rival_starts:
            return self.values_of(tree)
        candidates = {name: self.values_of(start) for name, start in
                      {self.start_source: tree, **self.rival_starts}.items()}
        cost = {name: objective_at(self.model, values) for name, values in candidates.items()}
        self.start_source = min(cost, key=cost.get)
        return candidates[self.start_source]

    def values_of(self, tree: Tree) -> ComponentMap:
        """Values of every variable for ``tree`` (CART's univariate splits, hyperplane splits, and on
        categorical columns "code <= θ" as the value subset it is)."""
        ctx, model = self.ctx, self.model
        routing = full_tree_routing(tree, ctx.X, ctx.depth)
        start = ComponentMap()
        self._leaf_start(routing, start)
        for b in model.N:
            split = routing.splits.get(b)
            column = _categorical_column(split, ctx.categorical)
            if column is None:
                self._hyperplane_start(b, split, routing.reaches(b), start)
            else:
                self._category_start(b, column, split[1], start)
        return start

    def _leaf_start(self, routing, start) -> None:
        """u_l the leaf's label (1..Y), e_il the routing, w_il = u_l e_il ((1c)-(1e)), c_i = 1 for an error (1b)."""
        ctx, model = self.ctx, self.model
        class_index = {label: k for k, label in enumerate(ctx.classes.tolist())}
        for l in model.L:
            u = class_index.get(routing.leaf_label.get(l), 0) + 1
            start[model.u[l]] = float(u)
            for i in model.I:
                inside = routing.leaf[i] == l
                start[model.e[i, l]] = float(inside)
                start[model.w[i, l]] = float(u * inside)
                if inside:
                    start[model.c[i]] = float(ctx.y[i] + 1 != u)

    def _hyperplane_start(self, b, split, reaching, start) -> None:
        """(h, g) = the split scaled so that |g - h·x| <= 1 on every point ((1g)/(1i) with M = 1); slack where a
        point is closer than ε; a node that does not split gets h = 0, g = 1 (everything left)."""
        ctx, model = self.ctx, self.model
        if split is None:
            a, g = np.zeros(ctx.n_features), 1.0
        else:
            a, g = split
            largest = max(np.abs(g - ctx.X @ a).max(), np.abs(a).max() if hasattr(model, "C") else 0.0, 1e-12)
            a, g = a / largest, g / largest     # with categorical columns (8e) also asks |h_bj| <= 1
        for j in model.Q:
            start[model.h_pos[b, j]], start[model.h_neg[b, j]] = max(a[j], 0.0), max(-a[j], 0.0)
        start[model.g[b]] = g
        gap = g - ctx.X @ a
        for i in model.I:
            start[model.p_pos[i, b]], start[model.p_neg[i, b]] = max(gap[i], 0.0), max(-gap[i], 0.0)
            start[model.m[i, b]] = max(ctx.epsilon - abs(gap[i]), 0.0) if reaching[i] else 0.0
        if hasattr(model, "C"):
            for j in model.C:
                start[model.h_cat[b, j]] = 0.0
            for j, v in model.CV:
                start[model.s[b, j, v]] = 0.0

    def _category_start(self, b, column, threshold, start) -> None:
        """A univariate split ``code <= θ`` on a categorical column: the subset of codes <= θ goes left ((8a)-(8d))."""
        model = self.model
        for j in model.C:
            start[model.h_cat[b, j]] = float(j == column)
        for j, v in model.CV:
            start[model.s[b, j, v]] = float(j == column and v <= threshold)
        for j in model.Q:
            start[model.h_pos[b, j]], start[model.h_neg[b, j]] = 0.0, 0.0
        start[model.g[b]] = 0.0
        for i in model.I:
            start[model.p_pos[i, b]], start[model.p_neg[i, b]], start[model.m[i, b]] = 0.0, 0.0, 0.0

    # ------------------------------------------------------------------ the solved model
    def restate(self, result: SolveResult) -> SolveResult:
        """The result without (1a)'s trivial bound, and with the decoded tree's own (1a) as the objective when it
        differs from the model's (module docstring)."""
        self.solved_tree()
        return _with_tree_objective(_without_trivial_bound(result), self.tree_objective)

    def decode(self) -> Tree:
        """:meth:`_read_tree`, with the warnings about points routed against their hyperplane value (and the tree's
        own (1a), ``tree_objective``) and about a tree of one leaf."""
        tree, n_conflicts, on_categories = self._read_tree()
        if n_conflicts:
            message = (f"SVM1ODT: the solved model put {n_conflicts} training points on a hyperplane and routed them "
                       "to both sides (paid by margin slack), which no threshold reproduces; the tree sends them by "
                       "h·x <= g")
            if not on_categories:      # the tree's own (1a) replaces the model's in solve_result_ (restate)
                own = self.tree_objective = objective_at(self.model, self.values_of(tree))
                message += f", and solve_result_.objective is the tree's own (1a), {own:.6g}"
            warn_user(message + ". Raise alpha1 (alpha1 * epsilon above the number of points rules it out)",
                      UserWarning)
        self._warn_if_one_leaf(tree)
        return tree

    def _read_tree(self) -> tuple[Tree, int, bool]:
        """The decoded tree, the number of training points no threshold routes as the model does, and whether a
        node splits on a category."""
        ctx, model = self.ctx, self.model
        leaf_of = np.array([max(model.L, key=lambda l: pyo.value(model.e[i, l])) for i in model.I])
        splits, categories, n_conflicts = {}, {}, 0
        for b in model.N:
            below = model.tree.leaves_below(b)
            reaching = np.isin(leaf_of, below)
            left = reaching & np.isin(leaf_of, below[: len(below) // 2])
            column = _chosen_category(model, b)
            if column is not None:
                categories[b] = (column, [v for j, v in model.CV if j == column and pyo.value(model.s[b, j, v]) > 0.5])
                splits[b] = (np.zeros(ctx.n_features), 0.0)      # a placeholder, replaced by the CategorySplit
                continue
            h = np.zeros(ctx.n_features)
            for j in model.Q:
                h[j] = pyo.value(model.h_pos[b, j]) - pyo.value(model.h_neg[b, j])
            g = float(pyo.value(model.g[b]))
            values = ctx.X @ h
            threshold = threshold_between(values[left], values[reaching & ~left], g, ctx.epsilon)
            if threshold is None:
                n_conflicts += _points_on_the_wrong_side(values[left], values[reaching & ~left], g)
                threshold = g
            splits[b] = (h, threshold)
        labels = {l: ctx.classes[int(np.clip(round(pyo.value(model.u[l])), 1, ctx.n_classes)) - 1] for l in model.L}
        tree = hyperplane_tree(ctx.depth, splits, labels)
        if not categories:
            return tree, n_conflicts, False
        nodes = dict(tree.nodes)
        for b, (column, codes) in categories.items():
            nodes[b] = CategorySplit(column, codes, 2 * b, 2 * b + 1)
        return Tree(nodes, root=1), n_conflicts, True

    def _warn_if_one_leaf(self, tree: Tree) -> None:
        """OneLeafTreeWarning when the tree predicts one class on the MIP's rows while CART's tree of the same
        depth (on the same weights) does not."""
        ctx = self.ctx
        if len(np.unique(tree.predict(ctx.X).astype(str))) > 1:
            return
        cart = DecisionTreeClassifier(max_depth=ctx.depth, random_state=self.random_state).fit(ctx.X, ctx.y,
                                                                                       ctx.sample_weight)
        if len(np.unique(cart.predict(ctx.X))) < 2:
            return
        warn_user(f"SVM1ODT: the tree predicts one class, while CART's tree of depth {ctx.depth} splits the data "
                  f"(alpha1 * epsilon = {ctx.alpha1 * ctx.epsilon:.3g}: each row inside a margin costs up to that "
                  "many errors). Lower epsilon below half the gap between close values, or lower alpha1; "
                  "alpha1=None, epsilon=None choose both from the data", OneLeafTreeWarning)


def _non_negative():
    return [Interval(numbers.Real, 0, None, closed="left")]


class SVM1ODT(PointWeightsFit, MIPTreeClassifier):
    """Optimal multivariate tree by SVM1-ODT (Zhu et al. 2020): a 1-norm soft-margin SVM at every node.

    Parameters
    ----------
    depth : int, default 2
        Depth D of the balanced tree.
    alpha1 : float or None, default None
        α₁ of (1a), the price of a unit of margin slack m_ib; must be > 0 (α₁ = 0 makes the model trivial, see
        the module docstring). None: 2/ε ("Defaults for a user" in the module docstring). The paper's value in
        14 of the 17 published settings (Tables 6-8) is 1000 (``SVM1ODT.paper_method("S1O")``).
    alpha2 : float, default 0.1
        α₂ of (1a), the price of ||h_b||_1 (15 of the 17 published settings).
    epsilon : float or None, default None
        The margin ε of (1h)/(1j), on the scale of M = 1 (Theorem 2); published values 0.0008-0.5 (mostly 0.01).
        None: half the data's resolution, clipped to [0.001, 0.01].
    categorical_features : list of int or str, or None
        Columns of category codes (indices, or names when X is a DataFrame): split by value subsets
        ((8a)-(8f)); they are not scaled. The codes are numbers: a column of strings ``c`` becomes codes by
        ``X[c] = X[c].astype("category").cat.codes``. The other columns must lie in [0, 1].
    class_weight : None, "balanced" or dict, default None
        Weights of the classes, multiplying ``fit``'s ``sample_weight`` (scikit-learn's meaning); each point's
        weight multiplies its error and margin slack in (1a) (module docstring, "Weights").
    leaf_capacity_cuts, class_coverage_cuts, pigeonhole_cut : bool, default True
        The three valid inequalities of Proposition 1 (module docstring), added before the solve; the last
        two only exist when the classes are at least (more than) the leaves.
    data_selection, beta1, beta2, epsilon_prime, n_iterations
        Deprecated, removed in the next release: data selection is
        ``DataSelectedClassifier(SVM1ODT(...), LPDataSelector(method="lp" or "balanced", beta1=..., beta2=...,
        epsilon_prime=...))`` or ``IterativeTraining(SVM1ODT(...), n_iterations=..., epsilon_prime=...)``
        (:mod:`odtlib.models.svm1odt.selected`). Given, they warn (FutureWarning) and fit through that class
        (the same rows and tree), recording ``selected_rows_`` and ``selection_`` here.
    solver, time_limit, mip_gap, threads, random_state, warm_start, solver_options, keep_model, log
        As for every MIP estimator (:class:`~odtlib.models.MIPTreeClassifier`); ``warm_start="best"`` (the
        default) starts from the better in (1a) of the CART and SVM trees (CART's alone with categorical
        features; under data selection, CART's tree on all rows, as the paper: :meth:`for_selected_rows`);
        ``warm_start=True`` starts from the CART tree of the same depth (the paper's warm start);
        ``warm_start="svm"`` from paper 002's greedy tree of linear-SVM splits
        (:func:`~odtlib.models.svm_tree.svm_split_tree`, what :class:`~odtlib.models.SVMTreeClassifier` fits) on
        the MIP's own rows (under data selection: the selected rows), for solvers that do not get far from
        CART's tree in their time limit (not with categorical features).

    Notes
    -----
    ``fit(X, y, sample_weight=None)``: a point's weight (times its class's weight) multiplies its error c_i and
    its slack Σ_b m_ib in (1a); rows of weight 0 are left out (module docstring, "Weights").

    Attributes
    ----------
    tree_ : odtlib.tree.Tree
        With :class:`~odtlib.tree.HyperplaneSplit` (and :class:`~odtlib.tree.CategorySplit`) nodes that
        route every training point of the MIP as the solved model (see "Points on a hyperplane" in the module
        docstring), leaves labelled round(u_l).
    solve_result_ : odtlib.solvers.SolveResult
        Objective (1a), of the last MIP.
    alpha1_, epsilon_ : float
        The values used.
    warm_start_source_ : str or None
        "cart", "svm", "tree" or None.
    selected_rows_, selection_ : ndarray, dict
        Deprecated, only with ``data_selection``: the rows the last MIP was trained on; method, n_selected,
        selected_fraction, n_lps, lp_seconds (the selection's own seconds, MIPs excluded), with "iterative"
        lp_seconds and history (Algorithm 3's accuracy per round). The classes of
        :mod:`~odtlib.models.svm1odt.selected` hold them as ``selected_rows_``, ``selector_``, ``history_``.

    Examples
    --------
    Feature 0 separates the two classes (many hyperplanes do, so the example shows predictions, not
    the coefficients):

    >>> import numpy as np
    >>> X, y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([0, 0, 1, 1])
    >>> from odtlib.models import SVM1ODT
    >>> clf = SVM1ODT(depth=1).fit(X, y)
    >>> clf.score(X, y), clf.predict([[1, 0], [0, 1]]).tolist()
    (1.0, [1, 0])
    """

    requires_binary_features = False
    PAPER_METHODS = {"S1O": {"alpha1": 1000.0, "alpha2": 0.1, "epsilon": 0.01, "warm_start": True}}
    _best_start_tree = None     # CART's side of warm_start="best" under data selection (`for_selected_rows`)

    _parameter_constraints = {
        **common_constraints(),
        "warm_start": ["boolean", Tree, StrOptions({"svm", "best"})],
        "alpha1": [*_non_negative(), None],
        "alpha2": _non_negative(),
        "epsilon": [Interval(numbers.Real, 0, 1, closed="neither"), None],
        "categorical_features": ["array-like", None],
        **class_weight_constraint(),
        "leaf_capacity_cuts": ["boolean"],
        "class_coverage_cuts": ["boolean"],
        "pigeonhole_cut": ["boolean"],
        "data_selection": [StrOptions({"lp", "balanced", "iterative"}), None],
        "beta1": [Interval(numbers.Real, 0, 1, closed="neither"), Hidden(StrOptions({DEPRECATED}))],
        "beta2": [Interval(numbers.Real, 0, 1, closed="right"), Hidden(StrOptions({DEPRECATED}))],
        "epsilon_prime": [*_non_negative(), Hidden(StrOptions({DEPRECATED}))],
        "n_iterations": [Interval(numbers.Integral, 1, None, closed="left"), Hidden(StrOptions({DEPRECATED}))],
    }

    def __init__(self, *, depth: int = 2, alpha1: float | None = None, alpha2: float = 0.1,
                 epsilon: float | None = None,
                 categorical_features=None, class_weight=None, leaf_capacity_cuts: bool = True,
                 class_coverage_cuts: bool = True, pigeonhole_cut: bool = True, data_selection: str | None = None,
                 beta1=DEPRECATED, beta2=DEPRECATED, epsilon_prime=DEPRECATED, n_iterations=DEPRECATED,
                 solver: str = "highs", time_limit: float | None = None,
                 mip_gap: float | None = None, threads: int = 1, random_state: int = 0, warm_start="best",
                 solver_options: dict | None = None, keep_model: bool = False, log: bool = False, seed=DEPRECATED):
        store_parameters(self, locals())

    def _check_params(self) -> None:
        super()._check_params()
        if self.warm_start == "svm" and self.categorical_features is not None:
            raise ValueError("warm_start='svm' grows hyperplanes over every column, which categorical_features "
                             "cannot take; use warm_start=True (CART) or give a Tree")
        if self.data_selection is not None and self.categorical_features is not None:
            raise ValueError("data_selection works on numerical features (convex hulls of points); with "
                             "categorical_features set data_selection=None, or one-hot encode the categories")
        if self.alpha1 == 0:
            raise ValueError("alpha1=0 makes SVM1-ODT trivial: with free margin slack, h = 0 and g = 0 meet every "
                             "row, so any routing 'classifies' the training data; use alpha1 > 0 (the paper's "
                             "settings use 30 to 1e6; the larger alpha1 * epsilon, the dearer slack is against errors)")
        self._warn_if_selection_parameters()

    def _fit(self, X, y, sample_weight=None):
        """The one pipeline on the rows of positive ``sample_weight`` (module docstring, "Weights"), or (deprecated,
        with ``data_selection``) the composition it stands for."""
        if self.data_selection is not None:
            return self._fit_by_composition(X, y, sample_weight)
        if sample_weight is None or sample_weight.all():
            return super()._fit(X, y, sample_weight)
        counted = sample_weight > 0
        return super()._fit(X[counted], y[counted], sample_weight[counted])

    def _point_weights(self, y, sample_weight):
        """The points' weights (``PointWeightsFit``), refused for ``warm_start="svm"`` when they differ: paper 002's
        SVM tree grows by unweighted counts (module docstring, "Weights")."""
        weights = super()._point_weights(y, sample_weight)
        if self.warm_start == "svm" and weights is not None and np.ptp(weights) > 0:
            raise ValueError("warm_start='svm' grows paper 002's SVM tree by unweighted counts, so it cannot start a "
                             "fit with unequal sample_weight or class_weight; use warm_start='best' (it prices that "
                             "tree against CART's weighted tree in the weighted (1a)) or warm_start=True")
        return weights

    def _margin_parameters(self, X) -> tuple[float, float]:
        """(α₁, ε): the given values, or for None the data's (module docstring, "Defaults for a user")."""
        epsilon = default_epsilon(X) if self.epsilon is None else float(self.epsilon)
        return (SLACK_PRICE / epsilon if self.alpha1 is None else float(self.alpha1)), epsilon

    # ------------------------------------------------------------------ data selection
    def for_selected_rows(self, X, start: Tree, column_names: list[str] | None = None) -> SVM1ODT:
        """The unfitted copy of this estimator that data selection fits on rows of X (paper 004, Section 3 and
        Algorithm 3; :class:`~odtlib.models.DataSelectedClassifier`, :class:`~odtlib.models.IterativeTraining`):
        α₁ and ε resolved on every row of X, as ``fit(X)`` would ("Defaults for a user" in the module
        docstring), and the warm start ``start`` (CART's tree on every row, or Algorithm 3's last tree) when
        ``warm_start`` is True; with "best" ``start`` competes in (1a) with paper 002's SVM tree on the kept rows,
        as in ``fit``. Every row of X must lie in [0, 1] (``column_names`` name X's columns in the error)."""
        if self.categorical_features is not None:
            raise ValueError("data selection works on numerical features (convex hulls of points); give an SVM1ODT "
                             "without categorical_features, or one-hot encode the categories")
        if self.data_selection is not None:
            raise ValueError("this SVM1ODT selects data itself (the deprecated data_selection): give "
                             "data_selection=None to DataSelectedClassifier or IterativeTraining")
        names = column_names if column_names is not None else self._column_names(X.shape[1])
        check_unit_interval(X, names, type(self).__name__)
        alpha1, epsilon = self._margin_parameters(X)
        copy = clone(self).set_params(alpha1=alpha1, epsilon=epsilon)
        if self.warm_start is True:
            return copy.set_params(warm_start=start)
        if self.warm_start == "best":
            copy._best_start_tree = start          # not a parameter: set on this unfitted copy only
        return copy

    def _selection_parameters(self, names: tuple[str, ...] = (*SELECTOR_PARAMETERS, "n_iterations")) -> dict:
        """The deprecated data-selection parameters among ``names`` that were given (not left at DEPRECATED)."""
        given = {name: getattr(self, name) for name in names}
        return {name: value for name, value in given.items() if not (isinstance(value, str) and value == DEPRECATED)}

    def _composition(self):
        """Deprecated (goes away with ``data_selection``): the :mod:`~odtlib.models.svm1odt.selected` estimator
        that ``data_selection`` and its parameters stand for, around this SVM1ODT without them."""
        from odtlib.models.svm1odt.data_selection import LPDataSelector
        from odtlib.models.svm1odt.selected import DataSelectedClassifier, IterativeTraining

        cleared = {name: DEPRECATED for name in self._selection_parameters()}
        estimator = clone(self).set_params(data_selection=None, **cleared)
        if self.data_selection == "iterative":
            return IterativeTraining(estimator, random_state=self._parameter("random_state"),
                                     **self._selection_parameters(ITERATION_PARAMETERS))
        selector = LPDataSelector(depth=self.depth, method=self.data_selection,
                                  **self._selection_parameters(SELECTOR_PARAMETERS))
        return DataSelectedClassifier(estimator, selector, random_state=self._parameter("random_state"))

    def _warn_if_selection_parameters(self) -> None:
        """The FutureWarning of the deprecated data-selection parameters, naming the call that replaces them."""
        given = self._selection_parameters()
        if self.data_selection is None and not given:
            return
        old = ", ".join(f"{name}={value!r}" for name, value in
                        {"data_selection": self.data_selection, **given}.items() if value is not None)
        if self.data_selection is None:
            new = "remove them (they select nothing without data_selection)"
        elif self.data_selection == "iterative":
            options = "".join(f", {k}={v!r}" for k, v in self._selection_parameters(ITERATION_PARAMETERS).items())
            new = f"use IterativeTraining(SVM1ODT(...){options})"
        else:
            new = f"use DataSelectedClassifier(SVM1ODT(...), {self._composition().selector!r})"
        warn_user(f"SVM1ODT({old}): the data-selection parameters of SVM1ODT are deprecated and will be removed in "
                  f"the next release; {new} (odtlib.models; LPDataSelector: odtlib.models.svm1odt), the same rows "
                  "and tree",
                  FutureWarning)

    def _fit_by_composition(self, X, y, sample_weight):
        """Deprecated (goes away with ``data_selection``): the fit of :meth:`_composition`, whose kept rows,
        selection facts and margin parameters it records on this estimator (``selected_rows_``, ``selection_``,
        ``alpha1_``, ``epsilon_``, ``model_``)."""
        composed = self._composition().fit(X, self.classes_[y], sample_weight=sample_weight)
        self.alpha1_, self.epsilon_ = composed.estimator_.alpha1_, composed.estimator_.epsilon_
        rows = self.selected_rows_ = composed.selected_rows_
        if self.data_selection == "iterative":
            facts = {"lp_seconds": composed.selection_seconds_, "history": composed.history_}
        else:
            facts = {"n_lps": composed.selector_.n_lps_, "lp_seconds": composed.selector_.lp_seconds_}
        self.selection_ = {"method": self.data_selection, "n_selected": len(rows),
                           "selected_fraction": len(rows) / len(X), **facts}
        if self.keep_model:
            self.model_ = composed.estimator_.model_
        return composed.estimator_.tree_, composed.solve_result_

    # ------------------------------------------------------------------ hooks
    def _initial_tree(self, ctx):
        """The paper's start, CART's tree (``warm_start`` True or "best"), a given Tree, or with ``"svm"`` paper
        002's SVM tree on these rows. With "best" the formulation prices the SVM tree against CART's
        (:meth:`_build`); under data selection CART's side is the tree `for_selected_rows` was given."""
        if self.warm_start == "svm":
            return self._svm_tree(ctx)
        if self.warm_start == "best":
            if self._best_start_tree is not None:
                return self._best_start_tree
            return cart_start(ctx, self._parameter("random_state"))
        return super()._initial_tree(ctx)

    def _start_source(self) -> str | None:
        """What :meth:`_initial_tree` starts from: "cart", "svm", "tree" (a given Tree) or None (no start)."""
        if isinstance(self.warm_start, Tree) or self._best_start_tree is not None:
            return "tree"
        if self.warm_start == "svm":
            return "svm"
        return "cart" if self.warm_start else None

    def _svm_tree(self, ctx) -> Tree:
        """Paper 002's SVM-split tree of the same depth on the fit's rows (:func:`svm_split_tree`)."""
        return svm_split_tree(ctx.X, ctx.y, ctx.classes, self.depth, random_state=self._parameter("random_state"))[0]

    def _context(self, X, y) -> SVM1ODTContext:
        names = self._column_names(X.shape[1])
        categorical = self._categorical_columns(names)
        numeric = [j for j in range(X.shape[1]) if j not in set(categorical)]
        check_unit_interval(X[:, numeric], [names[j] for j in numeric], type(self).__name__)
        alpha1, epsilon = self._margin_parameters(X)
        return SVM1ODTContext(X, y, self.classes_, depth=self.depth, categorical=tuple(categorical),
                              alpha1=alpha1, epsilon=epsilon)

    def _non_numeric_advice(self, X, columns: list[str]) -> str:
        """fit's error for string columns: the categorical ones take integer codes (the docstring's recipe);
        the others must be declared categorical or encoded."""
        declared = self._declared_categorical_names(X)
        coded = [c for c in columns if c in declared]
        other = [c for c in columns if c not in declared]
        advice = []
        if coded:
            advice.append(f"categorical_features take integer category codes, not strings: {_codes_recipe(coded)}")
        if other:
            advice.append(f"{_list_names(other)} {'is' if len(other) == 1 else 'are'} not in categorical_features: "
                          f"list {'it' if len(other) == 1 else 'them'} there as codes ({_codes_recipe(other)}) or "
                          "one-hot encode (odtlib.encoders.OneHotEncoder)")
        return "; ".join(advice)

    def _declared_categorical_names(self, X) -> set[str]:
        """The column names of ``X`` (a DataFrame) that ``categorical_features`` lists, by name or by index."""
        names = [str(c) for c in X.columns]
        declared = set()
        for feature in self.categorical_features if self.categorical_features is not None else []:
            if isinstance(feature, str):
                declared.add(feature)
            elif isinstance(feature, numbers.Integral) and 0 <= feature < len(names):
                declared.add(names[int(feature)])
        return declared

    def _categorical_columns(self, names: list[str]) -> list[int]:
        """``categorical_features`` as sorted column indices (names looked up in the fitted column names)."""
        if self.categorical_features is None:
            return []
        columns = []
        for feature in self.categorical_features:
            if isinstance(feature, str):
                if feature not in names:
                    raise ValueError(f"categorical_features names {feature!r}, which is not a column of X "
                                     f"(columns {names[:10]}); give column names or indices of X")
                columns.append(names.index(feature))
            elif isinstance(feature, numbers.Integral) and not isinstance(feature, bool) and 0 <= feature < len(names):
                columns.append(int(feature))
            else:
                raise ValueError(f"categorical_features entry {feature!r} is not a column of X (it has {len(names)} "
                                 "columns): give column indices 0..n_features-1 or column names")
        return sorted(set(columns))

    def _size_terms(self, ctx):
        n, leaves, branch = ctx.n_samples, 2**ctx.depth, 2**ctx.depth - 1
        values = sum(len(np.unique(ctx.X[:, j])) for j in ctx.categorical)
        return {f"e, w ({n} rows × {leaves} leaves × 2)": 2 * n * leaves,
                f"p⁺, p⁻, m ({n} rows × {branch} branch nodes × 3)": 3 * n * branch,
                f"h⁺, h⁻ ({branch} branch nodes × 2 × {ctx.n_features} features)": 2 * branch * ctx.n_features,
                f"s ({branch} branch nodes × {values} category values)": branch * values}

    def _build(self, ctx):
        """Model (1a)-(1l) on the context's α₁ and ε; with ``warm_start="best"`` (no categorical features) paper
        002's SVM tree competes with CART's for the start."""
        model = build_model(ctx.X, ctx.y, self.depth, ctx.alpha1, self.alpha2, ctx.epsilon,
                            sample_weight=ctx.sample_weight, categorical=list(ctx.categorical),
                            n_classes=ctx.n_classes, leaf_capacity_cuts=self.leaf_capacity_cuts,
                            class_coverage_cuts=self.class_coverage_cuts, pigeonhole_cut=self.pigeonhole_cut)
        rivals = {"svm": self._svm_tree(ctx)} if self.warm_start == "best" and not ctx.categorical else {}
        return SVM1ODTFormulation(ctx, model, start_source=self._start_source(), rival_starts=rivals,
                                  random_state=self._parameter("random_state"))


def _codes_recipe(columns: list[str]) -> str:
    """The pandas line that turns string columns into category codes, for SVM1ODT's errors."""
    codes = '.astype("category").cat.codes'
    if len(columns) == 1:
        return f"X[{columns[0]!r}] = X[{columns[0]!r}]{codes}"
    return f"X[c] = X[c]{codes} for each column c of {_list_names(columns)}"


def _categorical_column(split, categorical: tuple) -> int | None:
    """The categorical column a warm-start split tests alone, or None for a split on numerical columns."""
    if split is None or not categorical:
        return None
    used = np.flatnonzero(split[0])
    on_categories = [j for j in used if j in set(categorical)]
    if not on_categories:
        return None
    if len(used) > 1:
        raise ValueError("a warm-start hyperplane uses a categorical column with other columns; SVM1ODT splits "
                         "a categorical column alone (give a univariate warm start or warm_start=False)")
    return int(used[0])


def _chosen_category(model, b) -> int | None:
    """The categorical column node b splits on in the solved model (h_bj = 1), or None."""
    if not hasattr(model, "C"):
        return None
    chosen = [j for j in model.C if pyo.value(model.h_cat[b, j]) > 0.5]
    return chosen[0] if chosen else None


def _points_on_the_wrong_side(left_values: np.ndarray, right_values: np.ndarray, g: float) -> int:
    """Points a threshold g routes against the model: right-routed ones with value <= g, left ones above."""
    return int((right_values <= g).sum() + (left_values > g).sum())


def cart_start(ctx: SVM1ODTContext, seed: int) -> Tree:
    """CART's tree of the context's depth on its rows and weights (the paper's warm start)."""
    from odtlib.models._pipeline import cart_tree

    return cart_tree(ctx.X, ctx.y, ctx.classes, ctx.depth, seed=seed, sample_weight=ctx.sample_weight)


def objective_at(model: pyo.ConcreteModel, values: ComponentMap) -> float:
    """Objective (1a) at the variable values ``values`` (of :meth:`SVM1ODTFormulation.values_of`)."""
    repn = generate_standard_repn(model.objective.expr, compute_values=True)
    return float(repn.constant) + sum(float(c) * values.get(v, 0.0) for c, v in zip(repn.linear_coefs,
                                                                                     repn.linear_vars))


def _without_trivial_bound(result):
    """No bound and no gap instead of (1a)'s trivial bound 0 (the LP relaxation's, module docstring), which would
    read "gap 100 %"; the solver's number stays in ``extra["solver_bound"]``."""
    if result.status != "optimal" and result.bound is not None and result.bound <= 1e-9:
        result.extra["solver_bound"] = result.bound
        result.bound, result.gap = None, None
        result.restate_trace()
    return result


def _with_tree_objective(result, tree_objective: float | None):
    """The decoded tree's own (1a) as the objective when the model routed rows against their hyperplane value."""
    if tree_objective is not None:
        result.extra["model_objective"] = result.objective
        result.objective = tree_objective
        result.gap = relative_gap(tree_objective, result.bound)
        result.restate_trace()
    return result
