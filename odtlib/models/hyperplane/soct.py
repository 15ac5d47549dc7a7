"""S-OCT: formulation (1) of Boutilier, Michini & Zhou (2022), multivariate splits, with its big-M baseline.

Every point i is routed from the root to one leaf (w_it, (1b)-(1c)); a branch node t either splits (d_t = 1)
or sends everything left ((1g)); leaf t predicts one class (c_tk, (1d)); z_it counts i as correct when it
reaches t and t predicts y^i ((1e)-(1f)); at most β nodes split ((1h)). The objective (1a) maximises the
number of correctly classified training points; with ``ccp_alpha`` > 0 each split costs α·N points (the
cost-complexity objective ``min (1/N)·misclassified + α·splits``, scaled by N). As in the paper, c and z are
continuous: integral w makes them integral at an optimum. With point weights (``fit``'s ``sample_weight``,
``class_weight``) (1a) is the weighted count less α·W per split, W the total weight; the cuts stay valid
(derivation in :mod:`odtlib.models.hyperplane._formulation`).

(1m) asks that a hyperplane (a_t, b_t) realises the routing at every splitting node. The *baseline* writes it
with bounded splits (5) and the big-M rows (6) with M_i = max_j x^i_j + 1 (7) and a margin ε
(:mod:`odtlib.models._hyperplane`): it solves the ε-margin problem. OCT-H (:mod:`odtlib.models.hyperplane.octh`) is the
same model (1) with Bertsimas & Dunn's rows (9)-(10) instead.

The shattering inequalities (13)/(17) (:mod:`odtlib.models.hyperplane.shattering`) are used in the paper's three ways,
each a switch of :class:`SOCT`: initial cuts found on the LP relaxation of (1) without (1m), then added to
the baseline MIP; Benders lazy cuts on ``benders_nodes``, whose big-M rows and (a_t, b_t) the model drops
(those nodes then solve *strict* separability, the problem of system (16); (a_t, b_t) are recovered after
the solve); user cuts at fractional points on nodes that keep their big-M rows. One fit's
:class:`SOCTFormulation` adds the initial cuts, makes the plug-ins (each with its separator) and sums their
separation LPs into ``separation_stats_``.
"""
from __future__ import annotations

import numbers

import numpy as np
import pyomo.environ as pyo
from sklearn.utils._param_validation import Interval, StrOptions

from odtlib.models._base import DEPRECATED, SEED_RENAMED, with_old_names
from odtlib.models._pipeline import PluginNeed, store_parameters
from odtlib.models._tree_index import TreeIndex, tree_model
from odtlib.models.hyperplane._formulation import (
    HyperplaneFormulation,
    HyperplaneTreeClassifier,
    add_big_m_routing,
    add_formulation_1,
    hyperplane_constraints,
    rows_that_count,
)
from odtlib.models.hyperplane.shattering import (
    CUT_ORDERS,
    ShatteringBendersCuts,
    ShatteringSeparator,
    ShatteringUserCuts,
    initial_shattering_cuts,
    shattering_row,
)
from odtlib.models.svm_tree import svm_split_tree
from odtlib.solvers import BranchAndCut

__all__ = ["SOCT", "SOCTFormulation", "build_model", "node_set", "NODE_SETS"]

# the counts of cuts renamed in odtlib 0.2 (old -> new): ``*_cuts`` names on/off switches elsewhere
CUT_COUNTS_RENAMED = {"initial_cuts": "initial_cuts_per_node", "benders_cuts": "benders_cuts_per_node",
                      "user_cuts": "user_cuts_per_node"}


def build_model(X: np.ndarray, y: np.ndarray, depth: int, max_splits: int | None = None, ccp_alpha: float = 0.0,
                epsilon: float = 0.005, n_classes: int | None = None, benders_nodes: list[int] = (),
                sample_weight: np.ndarray | None = None) -> pyo.ConcreteModel:
    """Formulation (1) with (1m) as (5)-(7) on X scaled to [0, 1], except at ``benders_nodes``, whose (1m) is
    left to the lazy shattering cuts (:class:`~odtlib.models.hyperplane.shattering.ShatteringBendersCuts`);
    ``sample_weight`` weights (1a)."""
    X = np.asarray(X, dtype=np.float64)
    model, y = tree_model("SOCT", depth, X, y, n_classes)
    add_formulation_1(model, y, max_splits, ccp_alpha, sample_weight)           # (1a)-(1l)
    big_m_nodes = [t for t in model.tree.internal if t not in set(benders_nodes)]
    add_big_m_routing(model, X, big_m_nodes, epsilon)                           # (1m) = (5)-(7)
    return model


NODE_SETS = ("root", "last", "all")


def node_set(name: str | None, depth: int) -> list[int]:
    """The branch nodes of ``name``: "root" {1}, "last" B_last (the parents of leaves), "all" B; None: none."""
    tree = TreeIndex(depth)
    return {None: [], "root": [1], "last": [t for t in tree.internal if tree.is_leaf(2 * t)],
            "all": tree.internal}[name]


class SOCTFormulation(HyperplaneFormulation):
    """One fit of S-OCT: formulation (1) and the shattering inequalities (17) it adds (Section 4).

    :meth:`add_initial_cuts` adds Section 4.2's initial cuts to the model; :meth:`shattering` makes the lazy-row
    or cut plug-in of (17) on chosen nodes, each with its own separator (``cut_order``, see
    :mod:`~odtlib.models.hyperplane.shattering`). :meth:`stats` adds ``separation_stats_``: the separation LPs
    of the initial cuts and of the plug-ins (their own ``stats()``), and the number of initial cuts.
    """

    def __init__(self, ctx, model, *, cut_order: str, **parameters):
        super().__init__(ctx, model, **parameters)
        self.cut_order = cut_order
        self.initial_separator: ShatteringSeparator | None = None
        self.n_initial_cuts = 0
        self.plugins: list[ShatteringBendersCuts | ShatteringUserCuts] = []

    def add_initial_cuts(self, n_cuts: int) -> None:
        """Section 4.2: up to ``n_cuts`` cuts (17) per node and round, found on the LP relaxation of (1) without
        (1m), added to the MIP. The LP's objective is the fit's (1a), weighted as the MIP's: the weights steer
        which cuts its points violate, and every cut (17) is valid whatever the weights."""
        ctx, model = self.ctx, self.model
        lp, _ = tree_model("SOCT without (1m)", ctx.depth, ctx.X, ctx.y, ctx.n_classes)
        add_formulation_1(lp, ctx.y, self.max_splits, self.ccp_alpha, ctx.sample_weight)
        self.initial_separator = ShatteringSeparator(ctx.X, model.tree.internal, n_cuts, self.cut_order)
        cuts = initial_shattering_cuts(lp, self.initial_separator)
        model.initial_cuts = pyo.ConstraintList(doc="(17), initial cuts")
        for cut in cuts:
            model.initial_cuts.add(shattering_row(model, cut))
        self.n_initial_cuts = len(cuts)

    def shattering(self, family: type, nodes: list[int], n_cuts: int):
        """The plug-in ``family`` (:class:`ShatteringBendersCuts` or :class:`ShatteringUserCuts`) of (17) on
        ``nodes``, separating up to ``n_cuts`` cuts per node and call."""
        plugin = family(self.model, ShatteringSeparator(self.ctx.X, nodes, n_cuts, self.cut_order))
        self.plugins.append(plugin)
        return plugin

    def stats(self) -> dict:
        separation = {"lp_solves": 0, "lp_seconds": 0.0, "initial_cuts": self.n_initial_cuts}
        counts = [plugin.stats() for plugin in self.plugins]
        if self.initial_separator is not None:
            counts.append(self.initial_separator.stats())
        for count in counts:
            separation["lp_solves"] += count["lp_solves"]
            separation["lp_seconds"] += count["lp_seconds"]
        return {**super().stats(), "separation_stats_": separation}


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
    initial_cuts_per_node : int, default 0
        Initial shattering cuts (17): up to this many per node in each of at most 10 rounds on the LP relaxation
        of (1) without (1m); all are added to the MIP (0: off; the paper's SOCT-init-1 / -5).
    benders_nodes : {None, "root", "last", "all"}, default None
        Nodes whose (1m) is enforced by lazy shattering cuts (combinatorial Benders cuts) instead of big-M rows.
    benders_cuts_per_node : int, default 1
        Lazy cuts (17) per node and separation call at the Benders nodes (SOCT-benders-last-1 / -10).
    user_cut_nodes : {None, "root", "last", "all"}, default None
        Nodes (disjoint from ``benders_nodes``) that keep their big-M rows and also get shattering user cuts
        at fractional points.
    user_cuts_per_node : int, default 1
        User cuts (17) per node and separation call at the user-cut nodes.
    initial_cuts, benders_cuts, user_cuts
        Deprecated old names of the three counts above (renamed so that ``*_cuts`` names only on/off switches,
        as elsewhere in odtlib); given, they warn (FutureWarning) and are used, until odtlib 0.3.
    cut_order : {"avoid_recent", "favour_recent"}, default "avoid_recent"
        How repeated separations pick other cuts (:mod:`odtlib.models.hyperplane.shattering`).
    routing_repair : bool, default True
        Our primal heuristic inside SCIP's search (not the paper's): repair the solver's routing into a
        hyperplane tree and propose it (:mod:`odtlib.models.hyperplane.routing_repair`). It finds incumbents sooner and
        never changes an optimum; solvers without heuristic callbacks (HiGHS, GLPK) skip it.
    repaired_start : bool, default True
        On solvers without heuristic callbacks (HiGHS, GLPK) and with ``warm_start=True``: start from the better
        in (1a) of the paper's SVM tree and the routing repair's tree built from the data alone (not the
        paper's; ``PAPER_METHODS`` switch it off). ``warm_start_source_`` says which ("svm" or "repair").
    class_weight : None, "balanced" or dict, default None
        Weights of the classes, multiplying ``fit``'s ``sample_weight`` (scikit-learn's meaning: "balanced"
        weights class k by N / (K·N_k), a dict maps labels to weights, missing labels weigh 1). With point
        weights w_i, (1a) counts each correctly classified point with its weight and a split costs α·W,
        W = Σ_i w_i (α keeps its meaning as a share of the data; the weighted (1a) of
        :mod:`~odtlib.models.hyperplane._formulation`); points of weight 0 leave the model. ``mip_gap=None``
        proves the exact optimum with integer weights and α·W whole; otherwise the absolute gap is 1e-6.
    solver, time_limit, mip_gap, threads, random_state, warm_start, solver_options, keep_model, log
        As for every MIP estimator (:class:`~odtlib.models.MIPTreeClassifier`). ``warm_start=True`` starts
        from the paper's SVM heuristic (:class:`~odtlib.models.SVMTreeClassifier`, Section 5); a given Tree
        (univariate or hyperplane) works too. With point weights (``sample_weight`` or ``class_weight``) it
        starts from CART's tree fitted with the weights instead (the SVM heuristic grows, prunes and picks its
        trees by unweighted counts), and ``warm_start_source_`` is "cart".

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
        Where the warm start came from ("svm", "cart" with point weights, "repair", or "tree" for a given Tree;
        None without a start).

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

    _renamed_parameters = {**SEED_RENAMED, **CUT_COUNTS_RENAMED}
    _parameter_constraints = with_old_names(hyperplane_constraints(
        initial_cuts_per_node=[Interval(numbers.Integral, 0, None, closed="left")],
        benders_nodes=[StrOptions(set(NODE_SETS)), None],
        benders_cuts_per_node=[Interval(numbers.Integral, 1, None, closed="left")],
        user_cut_nodes=[StrOptions(set(NODE_SETS)), None],
        user_cuts_per_node=[Interval(numbers.Integral, 1, None, closed="left")],
        cut_order=[StrOptions(set(CUT_ORDERS))], routing_repair=["boolean"], repaired_start=["boolean"]),
        CUT_COUNTS_RENAMED)

    PAPER_METHODS = {   # Section 6's selected variants (the Pareto front of the tuning runs), the paper's start
        "SOCT-baseline": {"repaired_start": False},
        "SOCT-init-1": {"initial_cuts_per_node": 1, "repaired_start": False},
        "SOCT-init-5": {"initial_cuts_per_node": 5, "repaired_start": False},
        "SOCT-benders-last-1": {"benders_nodes": "last", "benders_cuts_per_node": 1, "repaired_start": False},
        "SOCT-benders-last-10": {"benders_nodes": "last", "benders_cuts_per_node": 10, "repaired_start": False},
    }

    def __init__(self, *, depth: int = 2, max_splits: int | None = None, ccp_alpha: float = 0.0,
                 epsilon: float = 0.005, initial_cuts_per_node: int = 0, benders_nodes: str | None = None,
                 benders_cuts_per_node: int = 1, user_cut_nodes: str | None = None, user_cuts_per_node: int = 1,
                 cut_order: str = "avoid_recent", routing_repair: bool = True, repaired_start: bool = True,
                 solver: str = "highs",
                 time_limit: float | None = None, mip_gap: float | None = None, threads: int = 1, random_state: int = 0,
                 warm_start=True, class_weight=None, solver_options: dict | None = None, keep_model: bool = False,
                 log: bool = False, seed=DEPRECATED, initial_cuts=DEPRECATED, benders_cuts=DEPRECATED,
                 user_cuts=DEPRECATED):
        store_parameters(self, locals())

    def _initial_tree(self, ctx):
        """The paper's warm start (Section 5): the best of the SVM heuristic's three trees, pruned to β; with
        point weights CART's weighted tree (the SVM heuristic counts points unweighted)."""
        if self._starts_from_svm(ctx):
            return svm_split_tree(ctx.X, ctx.y, ctx.classes, self.depth, max_splits=self.max_splits,
                                  random_state=self._parameter("random_state"))[0]
        return super()._initial_tree(ctx)

    def _starts_from_svm(self, ctx) -> bool:
        return self.warm_start is True and ctx.sample_weight is None

    def _start_source(self, ctx) -> str:
        return "svm" if self._starts_from_svm(ctx) else super()._start_source(ctx)

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
        ctx = rows_that_count(ctx)
        benders = node_set(self.benders_nodes, self.depth)
        model = build_model(ctx.X, ctx.y, self.depth, self.max_splits, self.ccp_alpha, self.epsilon,
                            n_classes=ctx.n_classes, benders_nodes=benders, sample_weight=ctx.sample_weight)
        formulation = SOCTFormulation(ctx, model, cut_order=self.cut_order, **self._formulation_parameters(ctx))
        if self._parameter("initial_cuts_per_node"):
            formulation.add_initial_cuts(self._parameter("initial_cuts_per_node"))
        return formulation

    def _callbacks(self, ctx, formulation):
        lazy, cuts, heuristics = [], [], self._repair_heuristics(formulation)
        if self.benders_nodes is not None:
            lazy.append(formulation.shattering(ShatteringBendersCuts, node_set(self.benders_nodes, self.depth),
                                               self._parameter("benders_cuts_per_node")))
        if self.user_cut_nodes is not None:
            cuts.append(formulation.shattering(ShatteringUserCuts, node_set(self.user_cut_nodes, self.depth),
                                               self._parameter("user_cuts_per_node")))
        return BranchAndCut(lazy=lazy, cuts=cuts, heuristics=heuristics) if lazy or cuts or heuristics else None
