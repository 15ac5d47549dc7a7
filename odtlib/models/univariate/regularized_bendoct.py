"""RegularizedBendOCT: paper 003's Benders master (4) with its acceleration switches.

Keegan, Forbes, Corry & Abolghasemi (2025), "Acceleration techniques for learning optimal classification
trees with integer programming". The master keeps the sparse-tree variables (b, p, w) with (3b)-(3g) and
one θ_i in [0, 1] per sample (4d); the Benders cuts (9)/(10) that tie θ_i to the tree are added lazily at
integer solutions. They are the cuts of paper 001's BendersOCT (the path of the sample to its leaf is the
min cut of its flow network), so :class:`~odtlib.models.univariate.benders_cuts.MinCutBendersCuts` separates them here.
In the plain master the predictions w are continuous (the master decomposes per leaf once (b, p) are fixed,
so a binary optimum exists); with the strengthened cuts (11)-(12) w must be binary and p is relaxed.

The accelerations of Section 5 are small objects in :mod:`odtlib.models.univariate.accel`, switched on by the
estimator's keywords (:class:`RegularizedBendOCT`); :func:`build_model` and :func:`branch_and_cut` put
them together so the paper's ablations are loops over switches. One fit's master is a :class:`BendOCTMaster`
(what ``_build`` returns): the values of every master variable for a sparse tree, the polished warm start, and the
plug-ins that need more than the solver's values (polishing, path-bound cuts) are made from it.

Three defaults are ours, not the paper's: top-down branching (:func:`branch_top_down`), which lets SCIP reach the
path-bound cuts sooner, no EQP inequalities where those cuts run in the search (``eqp="auto"``), and path-bound cuts
on subtrees of height 3 (``path_bound_height=3``, see :class:`RegularizedBendOCT`).

**Point weights.** With weights w_i (``sample_weight`` times ``class_weight``, total W) the problem is the weighted
(1) of :mod:`odtlib.models.univariate._regularized`: (4a) maximises (1/W)·Σ_i w_i·θ_i - λ·Σ_n p_n, and every part
that counts points counts weights, with the per-leaf penalty α = W·λ in (weighted) counts:

* Benders cuts (9)/(10) and (11)/(12). Point i's subproblem becomes max w_i·θ_i over its flow network; the dual
  keeps its feasible set with every capacity times w_i, so each cut on w_i·θ_i is w_i times the cut on θ_i. For
  w_i > 0 dividing by w_i gives the unweighted cut, separated as before; for w_i = 0 it reads θ_i <= 0, so (4d)
  becomes 0 <= θ_i <= 0 and the point is never separated.
* D2S (27)-(40): the frequency counts FQ are sums of weights (``Depth2Solver(sample_weight=...)``), and its value,
  the weight it classifies correctly less α per leaf, is a subtree's share of W·(1).
* Solution polishing (Algorithm 1): each tail is replaced by the weighted D2S optimum on the points reaching it, so
  the weighted (1) still cannot get worse; trees are compared by the weighted (1).
* Path-bound cuts (23)-(26): OPT_P is the weighted D2S optimum of I_P, compared with the LP's
  Σ_{i∈I_P} w_i·θ_i - α·Σ_{m∈D[n]} p_m. Cut (24) bounds the weighted score, Σ_{i∈I_P} w_i·θ_i <= w(C_P) +
  (w(I_P) - w(C_P))·R_P: the weighted D2S subtree meets it at R_P = 0, and R_P >= 1 leaves the bound w(I_P) that
  θ <= 1 implies. (25) and (26) fix which points stay misclassified and the subtree's structure; as without
  weights they keep an optimal tree, now the weighted optimum of I_P, so they are unchanged. A set whose weight is
  below 2α is skipped (the paper's rule for |I_P| < 2·|I|·λ).
* EQP (16)-(22): the H rows are on b alone. The G rows bound the weighted score of a set S through the weights
  W_{S_k} = Σ_{i∈S_k} w_i of its classes: (17) Σ_{i∈S} w_i·θ_i <= UB_S + (W_S - UB_S)·φ_S with UB_S = max_k W_{S_k},
  and (22), γ substituted, Σ_k Σ_{i∈S_k} w_i·θ_i / W_{S_k} <= 1 + (#classes - 1)·φ_S. Both are valid: φ_S = 0
  sends S to one leaf predicting one class k, so θ_i = 0 outside S_k and θ_i <= 1 in it. Unit weights give the
  paper's rows; the unweighted rows would stay valid under weights but let the LP put max_k |S_k|·max_{i∈S_k} w_i
  on S. Sets are found among the points of positive weight (:func:`~odtlib.models.univariate.accel.eqp.find_eqp_sets`).
* The warm start is the weighted CART tree, polished by the weighted D2S.
"""
from __future__ import annotations

import numbers

import numpy as np
import pyomo.environ as pyo
from sklearn.utils._param_validation import Interval, StrOptions

from odtlib.models.univariate._flow_tree import add_branch_and_predict_variables
from odtlib.models._base import DEPRECATED
from odtlib.models._pipeline import PluginNeed, PointWeightsFit, store_parameters
from odtlib.models.univariate._regularized import (
    RegularizedContext,
    RegularizedTreeClassifier,
    SparseTreeFormulation,
    regularized_constraints,
)
from odtlib.models.univariate._sparse_tree import (
    SparseTree,
    accuracy_minus_leaves,
    add_branch_leaf_or_cut,
    add_leaf_predicts_one_class,
    add_leaf_variables,
    add_one_leaf_per_path,
    check_leaf_penalty,
    weighted_scores,
)
from odtlib.models._tree_index import tree_model
from odtlib.models.univariate.accel import (
    EQP_FAMILIES,
    EQPInequalities,
    PathBoundCuts,
    SolutionPolishing,
    StrengthenedBendersCuts,
)
from odtlib.models.univariate.benders_cuts import MinCutBendersCuts
from odtlib.solvers import BranchAndCut, capabilities
from odtlib.solvers.capabilities import NATIVE

__all__ = ["RegularizedBendOCT", "BendOCTMaster", "build_model", "branch_and_cut", "eqp_method_name"]


def build_model(X: np.ndarray, y: np.ndarray, depth: int, leaf_penalty: float = 0.01,
                n_classes: int | None = None, binary_predictions: bool = False,
                eqp: EQPInequalities | None = None, top_down_branching: bool = False,
                sample_weight: np.ndarray | None = None) -> pyo.ConcreteModel:
    """Master problem (4) without its Benders cuts (pair it with :func:`branch_and_cut` when solving).

    ``binary_predictions``: w binary and p continuous, as the strengthened cuts (11)-(12) need; otherwise
    w continuous and p binary (the plain master). ``eqp``: EQP valid inequalities (16)-(22), added up front.
    ``top_down_branching``: branching priorities of :func:`branch_top_down`. ``sample_weight`` w_i (None: all 1)
    multiplies θ_i in (4a), and θ_i = 0 for the points of weight 0 (module docstring).
    """
    lam = check_leaf_penalty(leaf_penalty)
    model, y = tree_model("RegularizedBendOCT master", depth, X, y, n_classes)
    tree = model.tree
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    w_domain = pyo.Binary if binary_predictions else pyo.UnitInterval
    add_branch_and_predict_variables(model, w_domain=w_domain)                                 # (3e), (3g)
    add_leaf_variables(model, domain=pyo.UnitInterval if binary_predictions else pyo.Binary)   # p (3f)
    model.theta = pyo.Var(model.I, bounds=lambda m, i: (0, 1 if weights[i] > 0 else 0),
                          doc="(4d) classification score of sample i")
    add_branch_leaf_or_cut(model, tree)                                       # (3b)
    add_leaf_predicts_one_class(model)                                        # (3c)
    add_one_leaf_per_path(model, tree)                                        # (3d)
    scores = weighted_scores([[model.theta[i]] for i in model.I], sample_weight)
    model.objective = accuracy_minus_leaves(model, scores, float(weights.sum()), lam)          # (4a)
    if eqp is not None:
        eqp.add_to(model)
    if top_down_branching:
        branch_top_down(model)
    return model


def branch_top_down(model: pyo.ConcreteModel) -> None:
    """Branching priorities (ours, not the paper's): the b of a node before those of the nodes below it.

    Path-bound cuts (Algorithm 2) only bound subtrees under integral paths. Branching on the root's features
    first, then on its children's, makes paths integral after few branchings, so each subtree of height 2
    is bounded by its D2S optimum (and its structure fixed by (26)) near the top of the search tree: the
    search then enumerates the top splits much like a dynamic program. Priority of b[n, f] = number of
    internal levels from n down (root: D); p, w and θ keep 0. Used by SCIP, Gurobi and CPLEX.
    """
    tree = model.tree
    model.priority = pyo.Suffix(direction=pyo.Suffix.LOCAL, doc="branching priority (larger first)")
    for n in tree.internal:
        for f in model.F:
            model.priority[model.b[n, f]] = tree.height(n)


def benders_cuts(ctx: RegularizedContext, model: pyo.ConcreteModel, strengthened: bool = False,
                 at_fractional: bool = False) -> MinCutBendersCuts:
    """Lazy Benders cuts (9)/(10) (or the strengthened (11)/(12)) for a master of :func:`build_model`;
    ``at_fractional``: also separate at fractional LP points (min cut)."""
    cls = StrengthenedBendersCuts if strengthened else MinCutBendersCuts
    return cls(ctx, model.b, model.w, model.theta, at_fractional=at_fractional)


def branch_and_cut(ctx: RegularizedContext, model: pyo.ConcreteModel, *, strengthened_benders_cuts: bool = False,
                   polishing: SolutionPolishing | None = None, path_bound_cuts: PathBoundCuts | None = None,
                   fractional_benders_cuts: bool = False, cuts_at_integral_points: bool = False) -> BranchAndCut:
    """The plug-ins of one solve: Benders cuts (lazy), PBCP (cut family) and polishing (heuristic) when given;
    ``cuts_at_integral_points``: PBCP also at integer candidates (see :class:`odtlib.solvers.BranchAndCut`)."""
    return BranchAndCut(lazy=[benders_cuts(ctx, model, strengthened_benders_cuts, fractional_benders_cuts)],
                        cuts=[path_bound_cuts] if path_bound_cuts is not None else [],
                        heuristics=[polishing] if polishing is not None else [],
                        cuts_at_integral_points=cuts_at_integral_points)


class BendOCTMaster(SparseTreeFormulation):
    """One fit's master (4): start values of every master variable for a sparse tree (:meth:`tree_values`), the
    warm start polished by Algorithm 1 when ``polishing``, and the plug-ins made from the master.

    ``stats()``: ``warm_start_objective_`` (objective (1) of the start), ``d2s_stats_`` (when D2S ran) and
    ``path_bound_height_`` (when path-bound cuts were made: the height of the subtrees they bound).
    """

    def __init__(self, ctx: RegularizedContext, model: pyo.ConcreteModel, polishing: bool = False):
        super().__init__(ctx, model)
        self.polishing = polishing
        self.warm_start_objective: float | None = None
        self.path_bound_height: int | None = None

    def tree_values(self, tree: SparseTree):
        """Values of every master variable for ``tree``: b, p, w, θ (3b)-(4d) and the EQP variables (16)-(22)."""
        start = tree.start_values(self.model, self.ctx.X01, self.ctx.y, self.ctx.sample_weight)
        if self.ctx.eqp is not None:
            self.ctx.eqp.start_values(self.model, tree, start)
        return start

    def sparse_start(self, tree):
        if self.polishing:
            tree = SolutionPolishing(self).polish(tree)
        self.warm_start_objective = tree.objective(self.ctx.X01, self.ctx.y, self.ctx.leaf_penalty,
                                                   self.ctx.sample_weight)
        return self.tree_values(tree)

    def polisher(self) -> SolutionPolishing:
        """Algorithm 1 as the search's heuristic; it proposes only trees better than the (polished) warm start."""
        polisher = SolutionPolishing(self)
        if self.warm_start_objective is not None:
            polisher.best = self.warm_start_objective
        return polisher

    def path_bound_cuts(self, **switches) -> PathBoundCuts:
        """Algorithm 2's cut family on this master (``switches``: those of :class:`PathBoundCuts`)."""
        cuts = PathBoundCuts(self.ctx, self.model, **switches)
        self.path_bound_height = cuts.max_height
        return cuts

    def stats(self) -> dict:
        out = {"warm_start_objective_": self.warm_start_objective}
        d2s = self.ctx.d2s_info()
        if d2s is not None:
            out["d2s_stats_"] = d2s
        if self.path_bound_height is not None:
            out["path_bound_height_"] = self.path_bound_height
        return out


_PAPER_SEARCH = {"top_down_branching": False, "path_bound_height": 2}
_PLAIN = {"strengthened_benders_cuts": False, "polishing": False, "eqp": None, "path_bound_cuts": False,
          **_PAPER_SEARCH}
_EQP_BEST = {"eqp": "recursive", "eqp_disaggregated": True, "eqp_group_selection": True, "eqp_max_split": 2}
_PBCP_BASIC = {"path_bound_cuts": True, "path_bound_negative_samples": False, "path_bound_structure": False}
_PBCP_BEST = {"path_bound_cuts": True, "path_bound_negative_samples": True, "path_bound_structure": True}
_H_NAMES = {"basic": "Ba", "chain": "Ch", "recursive": "Re"}
_EQP_SWITCHES = {  # (disaggregated, group selection) per H variant: GS is studied on top of DA (Fig. 10)
    "basic": ((False, False), (False, True)),
    "chain": ((False, False), (True, False), (True, True)),
    "recursive": ((False, False), (True, False), (True, True)),
}


def eqp_method_name(family: str, disaggregated: bool, group_selection: bool, max_split: int) -> str:
    """The name of an EQP variant in :attr:`RegularizedBendOCT.PAPER_METHODS`, as Appendix B.4.1 labels it:
    H variant (Ba/Ch/Re), +DA (disaggregated), +GS (group selection), |F*| bound; the paper's best variant
    (Re+DA+GS, |F*| <= 2) is the method "EQP" itself."""
    if (family, disaggregated, group_selection, max_split) == ("recursive", True, True, 2):
        return "EQP"
    return (f"EQP {_H_NAMES[family]}{'+DA' if disaggregated else ''}{'+GS' if group_selection else ''}"
            f" |F*|<={max_split}")


def _eqp_variants() -> dict[str, dict]:
    """The EQP variants of Figs. 8-11 on top of BendOCT."""
    return {eqp_method_name(family, da, gs, k): {**_PLAIN, "eqp": family, "eqp_disaggregated": da,
                                                 "eqp_group_selection": gs, "eqp_max_split": k}
            for k in (1, 2, 3) for family, switches in _EQP_SWITCHES.items() for da, gs in switches}


class RegularizedBendOCT(PointWeightsFit, RegularizedTreeClassifier):
    """Optimal sparse tree maximising ``accuracy - λ·leaves`` by paper 003's accelerated BendOCT.

    Parameters
    ----------
    depth : int, default 2
        Maximum depth D of the sparse tree.
    leaf_penalty : float in [0, 1], default 0.01
        λ of (1): the training accuracy an extra leaf must gain.
    solver : str, default "scip"
        SCIP runs one branch-and-cut: Benders cuts as lazy constraints, path-bound cuts at every node LP
        (in the cut callback at fractional points, with the Benders cuts at integral ones), polishing as a
        primal heuristic. HiGHS and GLPK have no callbacks: path-bound cuts and
        Benders cuts (min cut at fractional points) are added in cut rounds on the root LP only, then the
        Benders cuts are enforced by a restart loop (re-solving the master from the best tree so far); the
        EQP inequalities and the polished warm start apply as on SCIP. Lost: path-bound cuts deeper in the
        tree (at nodes whose paths the root LP does not fix) and in-search polishing (``polishing`` then
        only polishes the warm start). Each loss is announced by a SolverCapabilityWarning
        (:func:`odtlib.solvers.capabilities`). Expect them to be much slower.
    time_limit, mip_gap, threads, random_state, log
        Passed to :func:`odtlib.solvers.solve`; ``mip_gap=None`` proves the exact optimum.
    warm_start : bool or Tree, default True
        CART (Gini) pruned with ccp_alpha = λ, or a given tree; polished first when ``polishing``.
    strengthened_benders_cuts : bool, default False
        Benders cuts (11)-(12) instead of (10) at terminal leaves (w binary, p continuous then).
    polishing : bool, default True
        Solution polishing (Algorithm 1): every subtree tail of depth <= 2 of an incumbent is replaced by the
        optimal D2S subtree; applied to the warm start, and on SCIP to every integer candidate.
    eqp : {"auto", "recursive", "chain", "basic", None}, default "auto"
        The H family of the EQP inequalities ((20)/(21), (18)/(19), (16)); None switches EQP off.
        "auto" (ours): None where the path-bound cuts run inside the search (SCIP, ``path_bound_cuts``),
        "recursive" (the paper's best) elsewhere. Path-bound cuts at every node LP bound each subtree by its
        D2S optimum, which leaves EQP's rows nothing to add but their weight: with them each node LP is
        5-25x slower (depth 3: monk1, monk3, hayes-roth, house-votes-84 0.05-0.2 s without EQP, 0.3-2.9 s
        with it, the same node counts; car-evaluation 0.4-0.7 s without, over 300 s with its 2402 EQP sets).
        Without in-search path-bound cuts EQP is what tightens the master: HiGHS/GLPK (house-votes-84,
        depth 3: 0.4 s with, 29 s without). ``bench/paper003_acceleration.py`` measures both
        (``accel-scip``, ``accel-eqp-scip``).
    eqp_disaggregated : bool, default True
        Disaggregated chain (19) / recursive (21) instead of (18) / (20) (no effect with "basic").
    eqp_group_selection : bool, default True
        G family (22) (one γ per class) instead of the basic (17).
    eqp_max_split : {1, 2, 3}, default 2
        Keep EQP sets whose split set has at most this many features (``|F*|`` bound).
    path_bound_cuts : bool, default True
        Path-bound cutting planes (Algorithm 2) at node LPs (HiGHS/GLPK: at the root LP only), at every
        node of height >= 2 on an integral path and at the root whatever its height (every subtree of height
        <= 2 that D2S solves, the whole tree included). At depths 1 and 2 the root's cut bounds the whole
        tree by the D2S optimum, so the master closes at once (SCIP, depth 2: car-evaluation and
        tic-tac-toe 0.02-0.2 s with, over 60 s without; HiGHS: monk1 0.05 s with, 11 s without; depth 1:
        kr-vs-kp 23.7 s without the root cut, 0.1 s with it).
    path_bound_negative_samples : bool, default True
        Use (25) instead of (24) for the path-bound cuts (BNS).
    path_bound_structure : bool, default True
        Also add the structure cut (26) (BSt).
    path_bound_height : {2, 3}, default 3
        Height of the subtrees the path-bound cuts bound exactly. 2: D2S, the paper's. 3 (ours): a subtree of
        height >= 3 is bounded by the optimal tree of depth <= 3 on its samples, which a scan of every root
        split with D2S on both sides finds (``Depth2Solver.solve(depth=3)``; O(K·F^3) array work, no search).
        At depth 3 the root's cut then bounds the whole master by the exact optimum and (26) fixes its
        structure, so SCIP proves it at the root node instead of enumerating root splits (depth 3, lambda =
        0.01, one run: median 28x STreeD's time with 2, 7x with 3; ``bench/README.md``, issue 22).
    top_down_branching : bool, default True
        Ours, not the paper's: branch on the b of shallower nodes first (:func:`branch_top_down`), so that
        path-bound cuts apply early (SCIP, Gurobi, CPLEX; HiGHS and GLPK have no branching priorities).
        With path-bound cuts it also applies the solver's tuning for it (``solver_tuning(solver,
        "top_down_branching")``: on SCIP no aggregation separator and fewer strong-branching rounds).
        False: the paper's method on the solver's default search.
    class_weight : None, "balanced" or dict, default None
        Weights of the classes, multiplying ``fit``'s ``sample_weight`` (scikit-learn's meaning: "balanced"
        weights class k by N / (K·N_k), a dict maps labels to weights, missing labels weigh 1). With point
        weights w_i the accuracy in (1) is the weight of the correctly classified points over the total weight W,
        so λ keeps its meaning, and every acceleration counts weights (module docstring). ``mip_gap=None`` proves
        the exact optimum with integer weights; with other weights the absolute gap is 1e-6.
    solver_options : dict or None
        The solver's own parameters, passed to :func:`odtlib.solvers.solve` (after ours, so they win).
    keep_model : bool, default False
        Keep the solved Pyomo master as ``model_``.
    max_memory : float or None, default None
        Bytes the exact subroutines (D2S and the depth-3 scan) may hold and allocate; None: a quarter of the
        machine's memory (:mod:`odtlib.models._resources`). They score root features in chunks that fit, the
        path-bound cuts drop to height 2 when the depth-3 scan does not fit (``path_bound_height_`` says which
        height ran), and data on which D2S does not fit at all are refused with the size they need.

    Notes
    -----
    The defaults are the paper's best configuration -- recursive disaggregated EQP with group selection,
    ``|F*| <= 2``, PBCP with BNS and BSt, polishing, no strengthened cuts -- with three changes of ours, all
    measured on SCIP: top-down branching, no EQP where the path-bound cuts run in the search
    (``eqp="auto"``), and path bounds on subtrees of height 3 (``path_bound_height=3``). The paper's own
    configurations are named in :attr:`PAPER_METHODS`:
    ``RegularizedBendOCT.paper_method("Accelerated BendOCT", depth=3)``, ``paper_method("BendOCT")`` (plain), and
    every single technique and variant its figures and tables measure.


    Attributes
    ----------
    tree_ : odtlib.tree.Tree
        The fitted tree.
    solve_result_ : odtlib.solvers.SolveResult
        Objective = accuracy - λ·leaves; ``extra["plugins"]`` holds each plug-in's statistics (calls, rows,
        seconds; the path-bound cuts' height and the D2S cache, polishing's trees polished).
    warm_start_objective_ : float or None
        Objective of the polished start.
    d2s_stats_ : CacheInfo
        When D2S ran: its cache statistics (calls, hits, seconds), as the plug-ins that use it report them.
    path_bound_height_ : int
        With path-bound cuts: ``path_bound_height``, or 2 when the depth-3 scan did not fit
        ``max_memory``.

    Examples
    --------
    Splitting on feature 0 makes every point correct for one extra leaf, worth more than λ = 0.01:

    >>> import numpy as np
    >>> X, y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([0, 0, 1, 1])
    >>> from odtlib.models import RegularizedBendOCT
    >>> clf = RegularizedBendOCT(depth=1, leaf_penalty=0.01).fit(X, y)
    >>> round(clf.solve_result_.objective, 6)       # accuracy 1 - 0.01 x 2 leaves
    0.98
    >>> print(clf.tree_.to_text())
    if x0 == 0:
        predict 0  (n=2: 0 2, 1 0)
    else:
        predict 1  (n=2: 0 0, 1 2)
    """

    PAPER_METHODS = {
        # Table 1 (Sec. 6.3); every method starts from the CART tree pruned with α = λ, as the paper does, on
        # the solver's default search with D2S's height-2 bounds (top_down_branching and height 3 are ours)
        "BendOCT": _PLAIN,
        "Accelerated BendOCT": {**_PLAIN, **_EQP_BEST, **_PBCP_BEST, "polishing": True},   # all but (11)-(12)
        "Accelerated (No PBCP)": {**_PLAIN, **_EQP_BEST, "polishing": True, "strengthened_benders_cuts": True},
        # Fig. 6(a) and Tables 3-5: one technique on top of BendOCT
        "Strengthened Benders Cuts": {**_PLAIN, "strengthened_benders_cuts": True},
        "Solution Polishing": {**_PLAIN, "polishing": True},
        "EQP": {**_PLAIN, **_EQP_BEST},
        "PBCP": {**_PLAIN, **_PBCP_BASIC},
        "PBCP + BSt + BNS": {**_PLAIN, **_PBCP_BEST},
        # Fig. 6(b): all techniques, then each one removed
        "All techniques": {**_PLAIN, **_EQP_BEST, **_PBCP_BEST, "polishing": True, "strengthened_benders_cuts": True},
        "All - EQP": {**_PLAIN, **_PBCP_BEST, "polishing": True, "strengthened_benders_cuts": True},
        "All - Polishing": {**_PLAIN, **_EQP_BEST, **_PBCP_BEST, "strengthened_benders_cuts": True},
        # Fig. 12: path-bound cut variants on top of BendOCT
        "PBCP + Polishing": {**_PLAIN, **_PBCP_BASIC, "polishing": True},
        "PBCP + BNS": {**_PLAIN, **_PBCP_BASIC, "path_bound_negative_samples": True},
        "PBCP + BSt": {**_PLAIN, **_PBCP_BASIC, "path_bound_structure": True},
        "PBCP + BSt + BNS + Polishing": {**_PLAIN, **_PBCP_BEST, "polishing": True},
        # Figs. 8-11: EQP variants on top of BendOCT
        **_eqp_variants(),
    }

    _parameter_constraints = regularized_constraints(
        strengthened_benders_cuts=["boolean"], polishing=["boolean"],
        eqp=[StrOptions({"auto", *EQP_FAMILIES}), None], eqp_disaggregated=["boolean"],
        eqp_group_selection=["boolean"], eqp_max_split=[Interval(numbers.Integral, 1, 3, closed="both")],
        path_bound_cuts=["boolean"], path_bound_negative_samples=["boolean"], path_bound_structure=["boolean"],
        path_bound_height=[Interval(numbers.Integral, 2, 3, closed="both")], top_down_branching=["boolean"],
        max_memory=[Interval(numbers.Real, 0, None, closed="neither"), None])

    def __init__(self, *, depth: int = 2, leaf_penalty: float = 0.01, solver: str = "scip",
                 time_limit: float | None = None, mip_gap: float | None = None, threads: int = 1, random_state: int = 0,
                 warm_start=True, strengthened_benders_cuts: bool = False, polishing: bool = True,
                 eqp: str | None = "auto", eqp_disaggregated: bool = True, eqp_group_selection: bool = True,
                 eqp_max_split: int = 2, path_bound_cuts: bool = True, path_bound_negative_samples: bool = True,
                 path_bound_structure: bool = True, path_bound_height: int = 3, top_down_branching: bool = True,
                 class_weight=None, solver_options: dict | None = None, keep_model: bool = False, log: bool = False,
                 max_memory: float | None = None, seed=DEPRECATED):
        store_parameters(self, locals())

    # ------------------------------------------------------------------ what runs where
    @property
    def _eqp_family(self) -> str | None:
        """``eqp`` with "auto" resolved (see the class docstring)."""
        if self.eqp != "auto":
            return self.eqp
        in_search = capabilities(self.solver).cuts == NATIVE
        return None if in_search and self.path_bound_cuts else "recursive"

    def _plugin_needs(self, ctx):
        needs = [PluginNeed("the Benders cuts (9)/(10)", "lazy")]
        if self.path_bound_cuts:
            needs.append(PluginNeed("path_bound_cuts", "cuts"))
        if self.polishing:
            needs.append(PluginNeed("polishing", "heuristics", without="polishes the warm start"))
        return needs

    def _tuning(self, ctx):
        return self._solver_tuning("top_down_branching") if self.top_down_branching and self.path_bound_cuts \
            else {}

    # ------------------------------------------------------------------ pipeline hooks
    def _size_terms(self, ctx):
        branch = 2**ctx.depth - 1
        return {f"b ({branch} branch nodes × {ctx.n_features} features)": branch * ctx.n_features,
                f"θ ({ctx.n_samples} rows)": ctx.n_samples}

    def _build(self, ctx):
        """The master (4) with the EQP inequalities when on, found among the points of positive weight (the
        context knows the weights from here on; ``ctx.eqp`` serves the start values)."""
        family = self._eqp_family
        if family is not None:
            ctx.eqp = EQPInequalities(ctx.X01, ctx.y, family, disaggregated=self.eqp_disaggregated,
                                      group_selection=self.eqp_group_selection, max_split=self.eqp_max_split,
                                      sample_weight=ctx.sample_weight)
        model = build_model(ctx.X01, ctx.y, self.depth, self.leaf_penalty, n_classes=ctx.n_classes,
                            binary_predictions=self.strengthened_benders_cuts, eqp=ctx.eqp,
                            top_down_branching=self.top_down_branching, sample_weight=ctx.sample_weight)
        return BendOCTMaster(ctx, model, polishing=self.polishing)

    def _callbacks(self, ctx, formulation):
        caps = capabilities(self.solver)
        in_search = caps.cuts == NATIVE
        pbcp = (formulation.path_bound_cuts(bound_negative_samples=self.path_bound_negative_samples,
                                            bound_structure=self.path_bound_structure,
                                            max_height=self.path_bound_height)
                if self.path_bound_cuts else None)
        polisher = formulation.polisher() if self.polishing and caps.heuristics == NATIVE else None
        # in the search: path-bound cuts at every node LP, integral ones included (the cut callback sees only
        # fractional ones); in root LP rounds (restart solvers): the Benders cuts at fractional points too
        return branch_and_cut(ctx, formulation.model, strengthened_benders_cuts=self.strengthened_benders_cuts,
                              polishing=polisher, path_bound_cuts=pbcp, fractional_benders_cuts=not in_search,
                              cuts_at_integral_points=in_search)
