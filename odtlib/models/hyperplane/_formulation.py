"""Formulation (1) of Boutilier, Michini & Zhou (2022) and the base class of the family's estimators.

Every point i is routed from the root to one leaf (w_it, (1b)-(1c)); a branch node t either splits (d_t = 1)
or sends everything left ((1g)); leaf t predicts one class (c_tk, (1d)); z_it counts i as correct when it
reaches t and t predicts y^i ((1e)-(1f)); at most β nodes split ((1h)). The objective (1a) maximises the
number of correctly classified training points; with ``ccp_alpha`` > 0 each split costs α·N points. S-OCT
(:mod:`.soct`), OCT-H (:mod:`.octh`) and the univariate special case (:mod:`.univariate_oct`) differ only in how
they write (1m), the requirement that a hyperplane realises the routing at every splitting node; the baseline's
big-M rows (5)-(7) are here (:func:`add_big_m_routing`). One fit's model is a :class:`HyperplaneFormulation`
(warm starts from a routing, decoding, the routing repair's values); :class:`HyperplaneTreeClassifier` holds what
their estimators share: the [0, 1] input contract and the choice of the start and of the repair.

**Point weights.** With a weight w_i >= 0 per point (``fit``'s ``sample_weight`` times ``class_weight``), the
count of (1a) becomes a weighted count and the split price scales with the total weight W = Σ_i w_i::

    max  Σ_i w_i Σ_{t ∈ L} z_it  -  α·W·Σ_{t ∈ B} d_t                                       (1a, weighted)

(W = N with unit weights: the paper's objective). Read as the cost-complexity objective
``min (1/W)·Σ_i w_i·[i misclassified] + α·splits`` scaled by W, α keeps its meaning as a share of the data, and
the weighted problem is the unweighted one of the data the weights stand for: a row of integer weight k is k
copies of it (W is then the copies' N), scaling every weight by c > 0 scales (1a) by c and keeps its trees.
Only the objective changes: (1b)-(1m) say which routings a tree realises, whatever the points count, so the
shattering cuts (17) of S-OCT stay valid, and integral w still makes z and c integral at an optimum (a weight
w_i > 0 only scales z_it's reward). A point of weight 0 leaves the model (:func:`rows_that_count`): its rows
(6)/(9) would still keep the hyperplanes ε away from it, a constraint the row removed does not impose. What
counts points counts weights: a routing's score (:meth:`HyperplaneFormulation.routing_score`) and the routing
repair's thresholds, leaves and proposals. The objective stays on a grid of 1 when the weights are integers and
α·W is whole (:meth:`HyperplaneTreeClassifier._objective_step`).
"""
from __future__ import annotations

import numbers
from dataclasses import replace

import numpy as np
import pyomo.environ as pyo
from pyomo.common.collections import ComponentMap
from sklearn.utils._param_validation import Interval

from odtlib.models._hyperplane import (
    FullTreeRouting,
    add_left_margin_row,
    add_right_margin_row,
    add_split_variables,
    check_unit_interval,
    full_tree_routing,
    hyperplane_tree,
    nodes_with_margin_rows,
    read_splits,
)
from odtlib.models._pipeline import (
    FitContext,
    Formulation,
    MIPTreeClassifier,
    PointWeightsFit,
    class_weight_constraint,
    common_constraints,
)
from odtlib.models._tree_index import linear_sum
from odtlib.models.hyperplane.routing_repair import RoutingRepair
from odtlib.models.hyperplane.shattering import separating_hyperplane
from odtlib.solvers import capabilities
from odtlib.solvers.capabilities import NATIVE

__all__ = ["HyperplaneTreeClassifier", "HyperplaneFormulation", "add_big_m_routing", "add_formulation_1",
           "hyperplane_constraints", "rows_that_count", "split_price"]


# --------------------------------------------------------------------------------------------- formulation (1)
def split_price(ccp_alpha: float, n_samples: int, sample_weight: np.ndarray | None = None) -> float:
    """The price α·W of one split in (1a): α times the total weight W of the points (N without weights)."""
    total = n_samples if sample_weight is None else float(np.sum(sample_weight))
    return ccp_alpha * total


def rows_that_count(ctx: FitContext) -> FitContext:
    """``ctx`` without its points of weight 0 (the same object when there are none): such a point adds nothing
    to (1a), and leaving it in would keep every hyperplane ε away from it (module docstring)."""
    if ctx.sample_weight is None or np.all(ctx.sample_weight > 0):
        return ctx
    kept = ctx.sample_weight > 0
    return replace(ctx, X=ctx.X[kept], y=ctx.y[kept], sample_weight=ctx.sample_weight[kept])


def add_formulation_1(model: pyo.ConcreteModel, y: np.ndarray, max_splits: int | None, ccp_alpha: float,
                      sample_weight: np.ndarray | None = None) -> None:
    """Variables d, w, c, z and rows (1a)-(1h) on a model of :func:`~odtlib.models._tree_index.tree_model`;
    ``sample_weight`` w_i weights point i's term of (1a) and the split price α·W (module docstring)."""
    tree = model.tree
    model.d = pyo.Var(model.N, within=pyo.Binary, doc="(1j) node t splits")
    model.w = pyo.Var(model.I, model.V, within=pyo.Binary, doc="(1k) point i is routed through node t")
    model.c = pyo.Var(model.L, model.K, bounds=(0, 1), doc="(1i, relaxed) leaf t predicts class k")
    model.z = pyo.Var(model.I, model.L, bounds=(0, 1), doc="(1l) point i reaches leaf t and is correct")
    model.one_leaf = pyo.Constraint(model.I, rule=lambda m, i: linear_sum(m.w[i, t] for t in m.L) == 1, doc="(1b)")
    model.flow = pyo.Constraint(model.I, model.N, rule=lambda m, i, t: m.w[i, t] == m.w[i, 2 * t] + m.w[i, 2 * t + 1],
                                doc="(1c)")
    model.one_class = pyo.Constraint(model.L, rule=lambda m, t: linear_sum(m.c[t, k] for k in m.K) == 1, doc="(1d)")
    model.correct_reached = pyo.Constraint(model.I, model.L, rule=lambda m, i, t: m.z[i, t] <= m.w[i, t], doc="(1e)")
    model.correct_class = pyo.Constraint(model.I, model.L, rule=lambda m, i, t: m.z[i, t] <= m.c[t, int(y[i])],
                                         doc="(1f)")
    model.right_needs_split = pyo.Constraint(model.I, model.N, rule=lambda m, i, t: m.w[i, 2 * t + 1] <= m.d[t],
                                             doc="(1g)")
    if max_splits is not None:
        model.split_budget = pyo.Constraint(expr=linear_sum(model.d[t] for t in model.N) <= max_splits, doc="(1h)")
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    correct = linear_sum(float(weight[i]) * model.z[i, t] for i in model.I for t in model.L if weight[i] != 0)
    price = split_price(ccp_alpha, len(y), sample_weight)
    penalty = price * linear_sum(model.d[t] for t in tree.internal) if ccp_alpha else 0
    model.objective = pyo.Objective(expr=correct - penalty, sense=pyo.maximize, doc="(1a)")


def add_big_m_routing(model: pyo.ConcreteModel, X: np.ndarray, nodes: list[int], epsilon: float) -> None:
    """(1m) on ``nodes`` by the baseline: bounded splits (5) and the big-M rows (6) with M_i of (7)."""
    add_split_variables(model, nodes)                                           # (5a)-(5d)
    model.big_m_rows = pyo.ConstraintList(doc="(6a), (6b)")
    big_m = X.max(axis=1) + 1                                                   # (7)
    for t in nodes:
        for i, x in enumerate(X):
            add_left_margin_row(model.big_m_rows, model, t, x, model.w[i, 2 * t], big_m[i])           # (6a)
            add_right_margin_row(model.big_m_rows, model, t, x, model.w[i, 2 * t + 1], big_m[i], epsilon)  # (6b)


# --------------------------------------------------------------------------------------------- one fit
class HyperplaneFormulation(Formulation):
    """One fit of formulation (1): its model and what the warm start, the decoding and the routing repair need.

    ``epsilon`` is the margin ε of the big-M rows (6b)/(9b): the start's thresholds move to meet it, and a
    decoded threshold sits in its middle. ``max_splits`` (β of (1h)) and ``ccp_alpha`` (α of (1a)) score a
    routing. ``start_source`` names the warm-start tree ("cart", "svm" or "tree"); with ``repair_start`` the routing
    repair's tree from the data alone competes for the start. :meth:`stats` reports ``warm_start_source_``.
    """

    def __init__(self, ctx: FitContext, model: pyo.ConcreteModel, *, epsilon: float, max_splits: int | None,
                 ccp_alpha: float, start_source: str = "tree", repair_start: bool = False):
        super().__init__(ctx, model)
        self.epsilon, self.max_splits, self.ccp_alpha = epsilon, max_splits, ccp_alpha
        self.start_source, self.repair_start = start_source, repair_start
        self.warm_start_source: str | None = None

    def start_values(self, tree):
        """Values of d, w, c, z (the routing of ``tree``, any univariate or hyperplane tree) and of the splits;
        with ``repair_start`` those of the routing repair's tree from the data alone instead, when it scores
        higher in (1a). ``warm_start_source_`` says which."""
        routing = full_tree_routing(tree, self.ctx.X, self.ctx.depth, margin=self.epsilon,
                                    margin_nodes=nodes_with_margin_rows(self.model))
        self.warm_start_source = self.start_source
        if self.repair_start:
            repaired = self.repaired_routing()
            if repaired is not None and self.routing_score(repaired) > self.routing_score(routing):
                routing, self.warm_start_source = repaired, "repair"
        return self.routing_values(routing)

    def decode(self):
        """Splits of the solved model: (a_t, b_t + ε/2) where the model holds them, and for nodes without
        (a_t, b_t) (Benders nodes) a hyperplane of (16) on the solved routing; None where d_t = 0."""
        ctx, model = self.ctx, self.model
        read = read_splits(model)
        splits = {}
        for t in model.N:
            if pyo.value(model.d[t]) < 0.5:
                splits[t] = None
            elif t in read:
                a, b = read[t]
                splits[t] = (a, b + self.epsilon / 2)
            else:
                left = [i for i in model.I if pyo.value(model.w[i, 2 * t]) > 0.5]
                right = [i for i in model.I if pyo.value(model.w[i, 2 * t + 1]) > 0.5]
                splits[t] = separating_hyperplane(ctx.X[left], ctx.X[right])
        labels = {t: ctx.classes[int(np.argmax([pyo.value(model.c[t, k]) for k in model.K]))] for t in model.L}
        return hyperplane_tree(ctx.depth, splits, labels)

    def stats(self) -> dict:
        return {"warm_start_source_": self.warm_start_source}

    def repaired_routing(self) -> FullTreeRouting | None:
        """The routing repair's tree built from the data alone (its first proposal inside SCIP's search), or
        None when it has more than ``max_splits`` splits."""
        repair = RoutingRepair(self)
        routing, _ = repair.repair(repair.undecided(), {})
        if routing is None or (self.max_splits is not None and len(routing.splits) > self.max_splits):
            return None
        return routing

    def routing_score(self, routing: FullTreeRouting) -> float:
        """(1a) of a routing: the weight of the correctly classified points less α·W per split."""
        ctx = self.ctx
        labels = np.array([routing.leaf_label.get(t, ctx.classes[0]) for t in routing.leaf], dtype=object)
        correct = float(np.sum(ctx.weights[labels == ctx.labels.astype(object)]))
        return correct - split_price(self.ccp_alpha, ctx.n_samples, ctx.sample_weight) * len(routing.splits)

    def routing_values(self, routing: FullTreeRouting) -> ComponentMap:
        """Values of d, w, c, z and of the splits for a routing laid on the full tree."""
        ctx, model = self.ctx, self.model
        class_index = {label: k for k, label in enumerate(ctx.classes.tolist())}
        start = ComponentMap()
        for t in model.N:
            start[model.d[t]] = float(t in routing.splits)
        for t in model.V:
            on = routing.reaches(t)
            for i in model.I:
                start[model.w[i, t]] = float(on[i])
        for t in model.L:
            k_t = class_index.get(routing.leaf_label.get(t), 0)
            for k in model.K:
                start[model.c[t, k]] = float(k == k_t)
            for i in model.I:
                start[model.z[i, t]] = float(routing.leaf[i] == t and ctx.y[i] == k_t)
        self.split_values(routing, start)
        return start

    def split_values(self, routing: FullTreeRouting, start: ComponentMap) -> None:
        """a, â, b of the nodes with a hyperplane (thresholds already moved to meet the margin)."""
        model = self.model
        for t in model.H:
            a, b = routing.splits.get(t, (np.zeros(self.ctx.n_features), 0.0))
            for j in model.F:
                start[model.a[t, j]], start[model.a_abs[t, j]] = float(a[j]), float(abs(a[j]))
            start[model.b[t]] = b


# --------------------------------------------------------------------------------------------- estimators
def hyperplane_constraints(**extra) -> dict:
    """Parameter constraints of the multivariate estimators of paper 002 plus ``extra``."""
    return {**common_constraints(), "max_splits": [Interval(numbers.Integral, 0, None, closed="left"), None],
            "ccp_alpha": [Interval(numbers.Real, 0, None, closed="left")],
            "epsilon": [Interval(numbers.Real, 0, 1, closed="neither")], **class_weight_constraint(), **extra}


class HyperplaneTreeClassifier(PointWeightsFit, MIPTreeClassifier):
    """Base of the estimators on formulation (1): features in [0, 1], hyperplane trees (not used directly).

    Its subclasses' ``_build`` returns a :class:`HyperplaneFormulation` (or a subclass) of the points that count
    (:func:`rows_that_count`); the hooks here choose what it is given (:meth:`_formulation_parameters`) and which
    routing repair runs (:meth:`_repair_heuristics`). ``fit(X, y, sample_weight=None)`` and ``class_weight`` weight
    each point's term of (1a) (module docstring).
    """

    requires_binary_features = False
    routing_repair = False      # the switch of the estimators that have it (SOCT, OCTH) is set by their __init__
    repaired_start = False      # likewise

    def _context(self, X, y) -> FitContext:
        check_unit_interval(X, self._column_names(X.shape[1]), type(self).__name__)
        return super()._context(X, y)

    def _objective_step(self, ctx):
        """(1a) counts correct points and each split costs α·W: whole numbers when α·W is whole (and the
        weights are integers, which the pipeline checks)."""
        return 1.0 if float(split_price(self.ccp_alpha, ctx.n_samples, ctx.sample_weight)).is_integer() else None

    def _size_terms(self, ctx):
        nodes = 2 ** (ctx.depth + 1) - 1
        branch = 2**ctx.depth - 1
        return {f"w ({ctx.n_samples} rows × {nodes} nodes)": ctx.n_samples * nodes,
                f"z ({ctx.n_samples} rows × {branch + 1} leaves)": ctx.n_samples * (branch + 1),
                f"a, â ({branch} branch nodes × 2 × {ctx.n_features} features)": 2 * branch * ctx.n_features}

    def _formulation_parameters(self, ctx: FitContext) -> dict:
        """What a :class:`HyperplaneFormulation` of this estimator is given: ε, β, α, the name of the start
        ("cart" for ``warm_start=True``, S-OCT's "svm"; "tree" for a given Tree) and whether the repair competes
        for it."""
        return {"epsilon": self.epsilon, "max_splits": self.max_splits, "ccp_alpha": self.ccp_alpha,
                "start_source": self._start_source(ctx), "repair_start": self._starts_from_repair()}

    def _cart_max_splits(self) -> int | None:
        """β of (1h): CART's start keeps the split budget (grown best-first to β + 1 leaves)."""
        return self.max_splits

    def _start_source(self, ctx: FitContext) -> str:
        """The name of the start tree of :meth:`_initial_tree` (the pipeline's: CART of the same depth, weighted
        as the fit)."""
        return "cart" if self.warm_start is True else "tree"

    def _starts_from_repair(self) -> bool:
        """``repaired_start`` is on, the start is the paper's (``warm_start=True``), and the solver runs no
        heuristics (HiGHS, GLPK): there the repair cannot run inside the search, so it competes for the start."""
        return (self.repaired_start and self.warm_start is True
                and capabilities(self.solver).level("heuristics") != NATIVE)

    def _runs_repair(self) -> bool:
        """``routing_repair`` is on (S-OCT, OCT-H) and the solver runs heuristics inside its search (SCIP)."""
        return self.routing_repair and capabilities(self.solver).level("heuristics") == NATIVE

    def _tuning(self, ctx):
        """With the routing repair, the solver's tuning "symmetric_proposals" (SCIP: no symmetry handling, which
        would drop a repaired tree that is not the symmetric copy it keeps)."""
        return self._solver_tuning("symmetric_proposals") if self._runs_repair() else {}

    def _repair_heuristics(self, formulation: HyperplaneFormulation) -> list:
        """:class:`~odtlib.models.hyperplane.routing_repair.RoutingRepair` on ``formulation`` when
        :meth:`_runs_repair`; elsewhere none (it can only find incumbents sooner)."""
        if not self._runs_repair():
            return []
        return [RoutingRepair(formulation)]
