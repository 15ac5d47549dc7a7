"""S-OCT: formulation (1) of Boutilier, Michini & Zhou (2022), multivariate splits, with its big-M baseline.

Every point i is routed from the root to one leaf (w_it, (1b)-(1c)); a branch node t either splits (d_t = 1)
or sends everything left ((1g)); leaf t predicts one class (c_tk, (1d)); z_it counts i as correct when it
reaches t and t predicts y^i ((1e)-(1f)); at most β nodes split ((1h)). The objective (1a) maximises the
number of correctly classified training points; with ``ccp_alpha`` > 0 each split costs α·N points (the
cost-complexity objective ``min (1/N)·misclassified + α·splits``, scaled by N). As in the paper, c and z are
continuous: integral w makes them integral at an optimum.

(1m) asks that a hyperplane (a_t, b_t) realises the routing at every splitting node. The *baseline* writes it
with bounded splits (5) and the big-M rows (6) with M_i = max_j x^i_j + 1 (7) and a margin ε
(:mod:`odtlib.models._hyperplane`): it solves the ε-margin problem. OCT-H (:mod:`odtlib.models.octh`) is the
same model (1) with Bertsimas & Dunn's rows (9)-(10) instead.

The shattering inequalities (13)/(17) (:mod:`odtlib.models.shattering`) are used in the paper's three ways,
each a switch of :class:`SOCT`: initial cuts found on the LP relaxation of (1) without (1m), then added to
the baseline MIP; Benders lazy cuts on ``benders_nodes``, whose big-M rows and (a_t, b_t) the model drops
(those nodes then solve *strict* separability, the problem of system (16); (a_t, b_t) are recovered after
the solve); user cuts at fractional points on nodes that keep their big-M rows.
"""
from __future__ import annotations

import numbers

import numpy as np
import pyomo.environ as pyo
from pyomo.common.collections import ComponentMap
from sklearn.utils._param_validation import Interval, StrOptions

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
from odtlib.models._pipeline import FitContext, MIPTreeClassifier, PluginNeed, common_constraints, store_parameters
from odtlib.models._tree_index import TreeIndex, linear_sum, tree_model
from odtlib.models.shattering import (
    CUT_ORDERS,
    ShatteringBendersCuts,
    ShatteringSeparator,
    ShatteringUserCuts,
    initial_shattering_cuts,
    separating_hyperplane,
    shattering_row,
)
from odtlib.solvers import BranchAndCut, capabilities
from odtlib.solvers.capabilities import NATIVE

__all__ = ["SOCT", "HyperplaneTreeClassifier", "build_model", "add_formulation_1", "add_big_m_routing"]


# --------------------------------------------------------------------------------------------- formulation (1)
def add_formulation_1(model: pyo.ConcreteModel, y: np.ndarray, max_splits: int | None, ccp_alpha: float) -> None:
    """Variables d, w, c, z and rows (1a)-(1h) on a model of :func:`~odtlib.models._tree_index.tree_model`."""
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
    correct = linear_sum(model.z[i, t] for i in model.I for t in model.L)
    penalty = ccp_alpha * len(y) * linear_sum(model.d[t] for t in tree.internal) if ccp_alpha else 0
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


def build_model(X: np.ndarray, y: np.ndarray, depth: int, max_splits: int | None = None, ccp_alpha: float = 0.0,
                epsilon: float = 0.005, n_classes: int | None = None, benders_nodes: list[int] = ()
                ) -> pyo.ConcreteModel:
    """Formulation (1) with (1m) as (5)-(7) on X scaled to [0, 1], except at ``benders_nodes``, whose (1m) is
    left to the lazy shattering cuts (:class:`~odtlib.models.shattering.ShatteringBendersCuts`)."""
    X = np.asarray(X, dtype=np.float64)
    model, y = tree_model("SOCT", depth, X, y, n_classes)
    add_formulation_1(model, y, max_splits, ccp_alpha)                          # (1a)-(1l)
    big_m_nodes = [t for t in model.tree.internal if t not in set(benders_nodes)]
    add_big_m_routing(model, X, big_m_nodes, epsilon)                           # (1m) = (5)-(7)
    return model


NODE_SETS = ("root", "last", "all")


def node_set(name: str | None, depth: int) -> list[int]:
    """The branch nodes of ``name``: "root" {1}, "last" B_last (the parents of leaves), "all" B; None: none."""
    tree = TreeIndex(depth)
    return {None: [], "root": [1], "last": [t for t in tree.internal if tree.is_leaf(2 * t)],
            "all": tree.internal}[name]


# --------------------------------------------------------------------------------------------- estimators
def hyperplane_constraints(**extra) -> dict:
    """Parameter constraints of the multivariate estimators of paper 002 plus ``extra``."""
    return {**common_constraints(), "max_splits": [Interval(numbers.Integral, 0, None, closed="left"), None],
            "ccp_alpha": [Interval(numbers.Real, 0, None, closed="left")],
            "epsilon": [Interval(numbers.Real, 0, 1, closed="neither")], **extra}


class HyperplaneTreeClassifier(MIPTreeClassifier):
    """Base of the estimators on formulation (1): features in [0, 1], hyperplane trees (not used directly)."""

    requires_binary_features = False
    routing_repair = False      # the switch of the estimators that have it (SOCT, OCTH) is set by their __init__
    repaired_start = False      # likewise

    def _context(self, X, y) -> FitContext:
        check_unit_interval(X, self._column_names(X.shape[1]), type(self).__name__)
        return super()._context(X, y)

    def _objective_step(self, ctx):
        """(1a) counts correct points and each split costs α·N: whole numbers when α·N is whole."""
        return 1.0 if float(self.ccp_alpha * ctx.n_samples).is_integer() else None

    def _size_terms(self, ctx):
        nodes = 2 ** (ctx.depth + 1) - 1
        branch = 2**ctx.depth - 1
        return {f"w ({ctx.n_samples} rows × {nodes} nodes)": ctx.n_samples * nodes,
                f"z ({ctx.n_samples} rows × {branch + 1} leaves)": ctx.n_samples * (branch + 1),
                f"a, â ({branch} branch nodes × 2 × {ctx.n_features} features)": 2 * branch * ctx.n_features}

    def _decode(self, ctx, model):
        """Splits of the solved model: (a_t, b_t + ε/2) where the model holds them, and for nodes without
        (a_t, b_t) (Benders nodes) a hyperplane of (16) on the solved routing; None where d_t = 0."""
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

    def _start_values(self, ctx, model, tree):
        """Values of d, w, c, z (the routing of ``tree``, any univariate or hyperplane tree) and of the splits;
        with ``repaired_start`` (:meth:`_starts_from_repair`) those of the routing repair's tree from the data
        alone instead, when it scores higher in (1a). ``warm_start_source_`` says which."""
        routing = full_tree_routing(tree, ctx.X, ctx.depth, margin=self._start_margin(),
                                    margin_nodes=nodes_with_margin_rows(model))
        ctx.notes["warm_start_source_"] = "svm" if self.warm_start is True else "tree"
        if self._starts_from_repair():
            repaired = self._repaired_routing(ctx, model)
            if repaired is not None and self._routing_score(ctx, repaired) > self._routing_score(ctx, routing):
                routing, ctx.notes["warm_start_source_"] = repaired, "repair"
        return self._routing_values(ctx, model, routing)

    def _starts_from_repair(self) -> bool:
        """``repaired_start`` is on, the start is the paper's (``warm_start=True``), and the solver runs no
        heuristics (HiGHS, GLPK): there the repair cannot run inside the search, so it competes for the start."""
        return (self.repaired_start and self.warm_start is True
                and capabilities(self.solver).level("heuristics") != NATIVE)

    def _repaired_routing(self, ctx, model) -> FullTreeRouting | None:
        """The routing repair's tree built from the data alone (its first proposal inside SCIP's search), or
        None when it has more than ``max_splits`` splits."""
        from odtlib.models.routing_repair import RoutingRepair

        repair = RoutingRepair(model, ctx.X, ctx.y, ctx.classes, ctx.depth, self.epsilon, self.max_splits,
                               routing_values=lambda routing: self._routing_values(ctx, model, routing))
        routing, _ = repair.repair(repair.undecided(), {})
        if routing is None or (self.max_splits is not None and len(routing.splits) > self.max_splits):
            return None
        return routing

    def _routing_score(self, ctx, routing: FullTreeRouting) -> float:
        """(1a) of a routing: correctly classified points less α·N per split."""
        labels = np.array([routing.leaf_label.get(t, ctx.classes[0]) for t in routing.leaf], dtype=object)
        correct = int(np.sum(labels == ctx.labels.astype(object)))
        return correct - self.ccp_alpha * ctx.n_samples * len(routing.splits)

    def _routing_values(self, ctx, model, routing: FullTreeRouting):
        """Values of d, w, c, z and of the splits for a routing laid on the full tree."""
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
        self._split_start(ctx, model, routing, start)
        return start

    def _start_margin(self) -> float:
        """The margin the start's routing must meet (the ε of the big-M rows)."""
        return self.epsilon

    def _runs_repair(self) -> bool:
        """``routing_repair`` is on (S-OCT, OCT-H) and the solver runs heuristics inside its search (SCIP)."""
        return self.routing_repair and capabilities(self.solver).level("heuristics") == NATIVE

    def _tuning(self, ctx):
        """With the routing repair, the solver's tuning "symmetric_proposals" (SCIP: no symmetry handling, which
        would drop a repaired tree that is not the symmetric copy it keeps)."""
        return self._solver_tuning("symmetric_proposals") if self._runs_repair() else {}

    def _repair_heuristics(self, ctx, model) -> list:
        """:class:`~odtlib.models.routing_repair.RoutingRepair` when :meth:`_runs_repair`; elsewhere none (it can
        only find incumbents sooner)."""
        if not self._runs_repair():
            return []
        from odtlib.models.routing_repair import RoutingRepair

        return [RoutingRepair(model, ctx.X, ctx.y, ctx.classes, ctx.depth, self.epsilon, self.max_splits,
                              routing_values=lambda routing: self._routing_values(ctx, model, routing))]

    def _split_start(self, ctx, model, routing, start) -> None:
        """a, â, b of the nodes with a hyperplane (thresholds already moved to meet the margin)."""
        for t in model.H:
            a, b = routing.splits.get(t, (np.zeros(ctx.n_features), 0.0))
            for j in model.F:
                start[model.a[t, j]], start[model.a_abs[t, j]] = float(a[j]), float(abs(a[j]))
            start[model.b[t]] = b


class SOCT(HyperplaneTreeClassifier):
    """Optimal multivariate (hyperplane) tree by S-OCT (Boutilier, Michini & Zhou 2022).

    Parameters
    ----------
    depth : int, default 2
        Depth D of the full binary tree.
    max_splits : int or None, default None
        β of (1h): at most this many splitting nodes (None: no limit, as in the paper's direct comparison).
    ccp_alpha : float, default 0
        Cost-complexity penalty per split (the regularised objective; 0 = maximise correct points).
    epsilon : float, default 0.005
        Margin ε of the big-M rows (6b) (the paper's footnote 1).
    initial_cuts : int, default 0
        Initial shattering cuts: up to this many per node in each of at most 10 rounds on the LP relaxation
        of (1) without (1m); all are added to the MIP (0: off; the paper's SOCT-init-1 / -5).
    benders_nodes : {None, "root", "last", "all"}, default None
        Nodes whose (1m) is enforced by lazy shattering cuts (combinatorial Benders cuts) instead of big-M rows.
    benders_cuts : int, default 1
        Cuts per node and separation call at the Benders nodes (SOCT-benders-last-1 / -10).
    user_cut_nodes : {None, "root", "last", "all"}, default None
        Nodes (disjoint from ``benders_nodes``) that keep their big-M rows and also get shattering user cuts
        at fractional points.
    user_cuts : int, default 1
        Cuts per node and separation call at the user-cut nodes.
    cut_order : {"avoid_recent", "favour_recent"}, default "avoid_recent"
        How repeated separations pick other cuts (:mod:`odtlib.models.shattering`).
    routing_repair : bool, default True
        Our primal heuristic inside SCIP's search (not the paper's): repair the solver's routing into a
        hyperplane tree and propose it (:mod:`odtlib.models.routing_repair`). It finds incumbents sooner and
        never changes an optimum; solvers without heuristic callbacks (HiGHS, GLPK) skip it.
    repaired_start : bool, default True
        On solvers without heuristic callbacks (HiGHS, GLPK) and with ``warm_start=True``: start from the better
        in (1a) of the paper's SVM tree and the routing repair's tree built from the data alone (not the
        paper's; ``PAPER_METHODS`` switch it off). ``warm_start_source_`` says which ("svm" or "repair").
    solver, time_limit, mip_gap, threads, seed, warm_start, solver_options, keep_model, log
        As for every MIP estimator (:class:`~odtlib.models.MIPTreeClassifier`). ``warm_start=True`` starts
        from the paper's SVM heuristic (:class:`~odtlib.models.SVMTreeClassifier`, Section 5); a given Tree
        (univariate or hyperplane) works too.

    Notes
    -----
    **Which problem.** Big-M nodes solve the ε-margin problem on features in [0, 1] with ||a_t||_1 <= 1: classes
    separable only with a smaller margin (WDBC at depth 1, about 1.2e-4) are not separable there. Benders
    nodes solve strict separability (the shattering cuts, and the LP (16) that recovers (a_t, b_t)). So
    ``benders_nodes="all"`` solves the strict problem, "last" a mixture, and the other variants the margin
    problem; on data whose separable routings all have margins above ε they agree.

    Lazy rows run inside SCIP's search (``solver="scip"``); on HiGHS/GLPK by a restart loop, and user cuts in
    root LP rounds only (with a warning). Initial cuts run on any solver (their LP rounds use HiGHS).

    X must be scaled to [0, 1] (e.g. :class:`odtlib.encoders.UnitScaler`).

    Attributes
    ----------
    tree_ : odtlib.tree.Tree
        With :class:`~odtlib.tree.HyperplaneSplit` nodes that route every training point as the solved
        model does.
    solve_result_ : odtlib.solvers.SolveResult
        Objective = correctly classified points.
    separation_stats_ : dict
        Separation LPs solved, their seconds, cuts found.
    warm_start_source_ : str or None
        Where the warm start came from ("svm" or "repair").

    Examples
    --------
    Feature 0 separates the two classes (many hyperplanes do, so the example shows predictions, not
    the coefficients):

    >>> import numpy as np
    >>> X, y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([0, 0, 1, 1])
    >>> from odtlib.models import SOCT
    >>> clf = SOCT(depth=1).fit(X, y)
    >>> clf.score(X, y), clf.predict([[1, 0], [0, 1]]).tolist()
    (1.0, [1, 0])
    """

    _parameter_constraints = hyperplane_constraints(
        initial_cuts=[Interval(numbers.Integral, 0, None, closed="left")],
        benders_nodes=[StrOptions(set(NODE_SETS)), None],
        benders_cuts=[Interval(numbers.Integral, 1, None, closed="left")],
        user_cut_nodes=[StrOptions(set(NODE_SETS)), None],
        user_cuts=[Interval(numbers.Integral, 1, None, closed="left")],
        cut_order=[StrOptions(set(CUT_ORDERS))], routing_repair=["boolean"], repaired_start=["boolean"])

    PAPER_METHODS = {   # Section 6's selected variants (the Pareto front of the tuning runs), the paper's start
        "SOCT-baseline": {"repaired_start": False},
        "SOCT-init-1": {"initial_cuts": 1, "repaired_start": False},
        "SOCT-init-5": {"initial_cuts": 5, "repaired_start": False},
        "SOCT-benders-last-1": {"benders_nodes": "last", "benders_cuts": 1, "repaired_start": False},
        "SOCT-benders-last-10": {"benders_nodes": "last", "benders_cuts": 10, "repaired_start": False},
    }

    def __init__(self, *, depth: int = 2, max_splits: int | None = None, ccp_alpha: float = 0.0,
                 epsilon: float = 0.005, initial_cuts: int = 0, benders_nodes: str | None = None,
                 benders_cuts: int = 1, user_cut_nodes: str | None = None, user_cuts: int = 1,
                 cut_order: str = "avoid_recent", routing_repair: bool = True, repaired_start: bool = True,
                 solver: str = "highs",
                 time_limit: float | None = None, mip_gap: float | None = None, threads: int = 1, seed: int = 0,
                 warm_start=True, solver_options: dict | None = None, keep_model: bool = False, log: bool = False):
        store_parameters(self, locals())

    def _initial_tree(self, ctx):
        """The paper's warm start (Section 5): the best of the SVM heuristic's three trees, pruned to β."""
        if self.warm_start is True:
            from odtlib.models.svm_tree import SVMTreeClassifier

            heuristic = SVMTreeClassifier(depth=self.depth, max_splits=self.max_splits, random_state=self.seed)
            return heuristic.fit(ctx.X, ctx.labels).tree_
        return super()._initial_tree(ctx)

    def _check_params(self) -> None:
        super()._check_params()
        both = set(node_set(self.benders_nodes, self.depth)) & set(node_set(self.user_cut_nodes, self.depth))
        if both:
            raise ValueError(f"user_cut_nodes={self.user_cut_nodes!r} and benders_nodes={self.benders_nodes!r} "
                             f"share nodes {sorted(both)}; choose disjoint sets (e.g. benders 'last', user 'root')")

    def _plugin_needs(self, ctx):
        needs = []
        if self.benders_nodes is not None:
            needs.append(PluginNeed("benders_nodes", "lazy"))
        if self.user_cut_nodes is not None:
            needs.append(PluginNeed("user_cut_nodes", "cuts"))
        return needs

    def _build(self, ctx):
        benders = node_set(self.benders_nodes, self.depth)
        model = build_model(ctx.X, ctx.y, self.depth, self.max_splits, self.ccp_alpha, self.epsilon,
                            n_classes=ctx.n_classes, benders_nodes=benders)
        ctx.notes["separation_stats_"] = {"lp_solves": 0, "lp_seconds": 0.0, "initial_cuts": 0}
        if self.initial_cuts:
            self._add_initial_cuts(ctx, model)
        return model

    def _add_initial_cuts(self, ctx, model) -> None:
        """Section 4.2: cuts from the LP relaxation of (1) without (1m), added to the MIP."""
        lp, _ = tree_model("SOCT without (1m)", self.depth, ctx.X, ctx.y, ctx.n_classes)
        add_formulation_1(lp, ctx.y, self.max_splits, self.ccp_alpha)
        separator = ShatteringSeparator(ctx.X, model.tree.internal, self.initial_cuts, self.cut_order)
        cuts = initial_shattering_cuts(lp, separator)
        model.initial_cuts = pyo.ConstraintList(doc="(17), initial cuts")
        for cut in cuts:
            model.initial_cuts.add(shattering_row(model, cut))
        self._count(ctx, separator, initial_cuts=len(cuts))

    def _callbacks(self, ctx, model):
        lazy, cuts, heuristics = [], [], self._repair_heuristics(ctx, model)
        if self.benders_nodes is not None:
            separator = ShatteringSeparator(ctx.X, node_set(self.benders_nodes, self.depth), self.benders_cuts,
                                            self.cut_order)
            lazy.append(ShatteringBendersCuts(model, separator))
            ctx.notes["_separators"] = ctx.notes.get("_separators", []) + [separator]
        if self.user_cut_nodes is not None:
            separator = ShatteringSeparator(ctx.X, node_set(self.user_cut_nodes, self.depth), self.user_cuts,
                                            self.cut_order)
            cuts.append(ShatteringUserCuts(model, separator))
            ctx.notes["_separators"] = ctx.notes.get("_separators", []) + [separator]
        return BranchAndCut(lazy=lazy, cuts=cuts, heuristics=heuristics) if lazy or cuts or heuristics else None

    def _decode(self, ctx, model):
        for separator in ctx.notes.pop("_separators", []):
            self._count(ctx, separator)
        return super()._decode(ctx, model)

    @staticmethod
    def _count(ctx, separator: ShatteringSeparator, initial_cuts: int = 0) -> None:
        stats = ctx.notes["separation_stats_"]
        stats["lp_solves"] += separator.lp.n_solves
        stats["lp_seconds"] += separator.lp.seconds
        stats["initial_cuts"] += initial_cuts
