"""RegularizedBendOCT: paper 003's Benders master (4) with its acceleration switches.

Keegan, Forbes, Corry & Abolghasemi (2025), "Acceleration techniques for learning optimal classification
trees with integer programming". The master keeps the sparse-tree variables (b, p, w) with (3b)-(3g) and
one θ_i in [0, 1] per sample (4d); the Benders cuts (9)/(10) that tie θ_i to the tree are added lazily at
integer solutions. They are the cuts of paper 001's BendersOCT (the path of the sample to its leaf is the
min cut of its flow network), so :class:`~odtlib.models.benders.MinCutBendersCuts` separates them here.
In the plain master the predictions w are continuous (the master decomposes per leaf once (b, p) are fixed,
so a binary optimum exists); with the strengthened cuts (11)-(12) w must be binary and p is relaxed.

The accelerations of Section 5 are small objects in :mod:`odtlib.models.accel`, switched on by the
estimator's keywords (:class:`RegularizedBendOCT`); :func:`build_model` and :func:`branch_and_cut` put
them together so the paper's ablations are loops over switches. Two defaults are ours, not the paper's:
top-down branching (:func:`branch_top_down`), which lets SCIP reach the path-bound cuts sooner, and no EQP
inequalities where those cuts run in the search (``eqp="auto"``, see :class:`RegularizedBendOCT`).
"""
from __future__ import annotations

import logging
from collections.abc import Mapping

import numpy as np
import pyomo.environ as pyo

from odtlib.models._flow_tree import TreeIndex, add_branch_and_predict_variables
from odtlib.models._sparse_tree import (
    SparseTree,
    accuracy_minus_leaves,
    add_branch_leaf_or_cut,
    add_leaf_predicts_one_class,
    add_leaf_variables,
    add_one_leaf_per_path,
    check_leaf_penalty,
)
from odtlib.models.accel import (
    EQP_FAMILIES,
    BranchAndCut,
    EQPInequalities,
    PathBoundCuts,
    SolutionPolishing,
    StrengthenedBendersCuts,
)
from odtlib.models.benders import MinCutBendersCuts
from odtlib.models.d2s import Depth2Solver
from odtlib.models.regularized_flowoct import RegularizedTreeClassifier
from odtlib.solvers.core import backend_class

__all__ = ["RegularizedBendOCT", "build_model", "branch_and_cut"]

logger = logging.getLogger(__name__)


def build_model(X: np.ndarray, y: np.ndarray, depth: int, leaf_penalty: float = 0.01,
                n_classes: int | None = None, binary_predictions: bool = False,
                eqp: EQPInequalities | None = None, top_down_branching: bool = False) -> pyo.ConcreteModel:
    """Master problem (4) without its Benders cuts (pair it with :func:`branch_and_cut` when solving).

    ``binary_predictions``: w binary and p continuous, as the strengthened cuts (11)-(12) need; otherwise
    w continuous and p binary (the plain master). ``eqp``: EQP valid inequalities (16)-(22), added up front.
    ``top_down_branching``: branching priorities of :func:`branch_top_down`.
    """
    y = np.asarray(y, dtype=np.int64)
    lam = check_leaf_penalty(leaf_penalty)
    tree = TreeIndex(depth)
    K = int(y.max()) + 1 if n_classes is None else n_classes
    model = pyo.ConcreteModel(name=f"RegularizedBendOCT master(depth={depth})")
    model.tree = tree
    add_branch_and_predict_variables(model, tree, np.asarray(X).shape[1], K,              # b (3e), w (3g)
                                     w_domain=pyo.Binary if binary_predictions else pyo.UnitInterval)
    add_leaf_variables(model, domain=pyo.UnitInterval if binary_predictions else pyo.Binary)   # p (3f)
    model.I = pyo.Set(initialize=range(len(y)), ordered=True, doc="training samples")
    model.theta = pyo.Var(model.I, bounds=(0, 1), doc="(4d) classification score of sample i")
    add_branch_leaf_or_cut(model, tree)                                       # (3b)
    add_leaf_predicts_one_class(model)                                        # (3c)
    add_one_leaf_per_path(model, tree)                                        # (3d)
    model.objective = accuracy_minus_leaves(model, [model.theta[i] for i in model.I], len(y), lam)  # (4a)
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
    tree: TreeIndex = model.tree
    model.priority = pyo.Suffix(direction=pyo.Suffix.LOCAL, doc="branching priority (larger first)")
    for n in tree.internal:
        for f in model.F:
            model.priority[model.b[n, f]] = tree.height(n)


def benders_cuts(model: pyo.ConcreteModel, X: np.ndarray, y: np.ndarray, strengthened: bool = False,
                 fractional: bool = False) -> MinCutBendersCuts:
    """Lazy Benders cuts (9)/(10) (or the strengthened (11)/(12)) for a master of :func:`build_model`;
    ``fractional``: also separate at fractional LP points (min cut)."""
    cls = StrengthenedBendersCuts if strengthened else MinCutBendersCuts
    return cls(X, y, model.tree.depth, model.b, model.w, model.theta, n_classes=len(model.K),
               fractional=fractional)


def branch_and_cut(model, X, y, *, strengthened_cuts: bool = False,
                   polishing: SolutionPolishing | None = None, path_bound_cuts: PathBoundCuts | None = None,
                   fractional_benders: bool = False, cuts_at_integral_points: bool = False) -> BranchAndCut:
    """The callbacks of one solve: Benders cuts (lazy), PBCP (cut) and polishing (heuristic) when given;
    ``cuts_at_integral_points``: PBCP also at integer candidates (see :class:`BranchAndCut`)."""
    return BranchAndCut(benders_cuts(model, X, y, strengthened_cuts, fractional_benders),
                        cuts=[path_bound_cuts] if path_bound_cuts is not None else [],
                        heuristics=[polishing] if polishing is not None else [],
                        cuts_at_integral_points=cuts_at_integral_points)


class RegularizedBendOCT(RegularizedTreeClassifier):
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
        only polishes the warm start; a warning is logged). Expect them to be much slower.
    time_limit, mip_gap, threads, seed, log
        Passed to :func:`odtlib.solvers.solve`; ``mip_gap=None`` proves the exact optimum.
    warm_start : "cart", None or a Tree, default "cart"
        CART (Gini) pruned with ccp_alpha = λ, or a given tree; polished first when ``polishing``.
    strengthened_cuts : bool, default False
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
        Keep EQP sets whose split set has at most this many features (|F*| bound).
    path_bound_cuts : bool, default True
        Path-bound cutting planes (Algorithm 2) at node LPs (HiGHS/GLPK: at the root LP only), at every
        node of height >= 2 on an integral path, the root included. At depth 2 the root's cut bounds the
        whole tree by the D2S optimum, so the master closes at once (SCIP, depth 2: car-evaluation and
        tic-tac-toe 0.02-0.2 s with, over 60 s without; HiGHS: monk1 0.05 s with, 11 s without).
    bound_negative_samples : bool, default True
        Use (25) instead of (24) for the path-bound cuts.
    bound_structure : bool, default True
        Also add the structure cut (26).
    top_down_branching : bool, default True
        Ours, not the paper's: branch on the b of shallower nodes first (:func:`branch_top_down`), so that
        path-bound cuts apply early (SCIP, Gurobi, CPLEX; HiGHS and GLPK have no branching priorities).
        On SCIP with path-bound cuts it also sets :attr:`SCIP_TOP_DOWN`. False: the paper's method on
        the solver's default search.
    solver_options : dict or None
        The solver's own parameters, passed to :func:`odtlib.solvers.solve` (after ours, so they win).

    The defaults are the paper's best configuration -- recursive disaggregated EQP with group selection,
    |F*| <= 2, PBCP with BNS and BSt, polishing, no strengthened cuts -- with two changes of ours, both
    measured on SCIP: top-down branching, and no EQP where the path-bound cuts run in the search
    (``eqp="auto"``). The paper's configuration itself: ``eqp="recursive", top_down_branching=False``.

    After ``fit``: ``tree_``, ``solve_result_`` (objective = accuracy - λ·leaves; ``extra`` holds the
    heuristic's statistics on SCIP), ``model_``, ``warm_start_objective_`` (of the polished start, or None).
    """

    #: SCIP parameters of top-down branching with path-bound cuts: no aggregation (c-MIR) separator, strong
    #: branching only until one reliable estimate per candidate. The subtree bounds come from the D2S cuts and
    #: the priorities make the branching choices. With EQP rows they halve the run (depth 3, eqp="recursive":
    #: monk3 2.5 -> 1.0 s, hayes-roth 5.4 -> 2.3 s, house-votes-84 1.5 -> 0.8 s at λ = 1e-4); without EQP
    #: (the default on SCIP) they have no clear effect (0.5-2.5x either way on eight datasets). Plain BendOCT was not
    #: faster with them, so they are not set there.
    SCIP_TOP_DOWN = {"separating/aggregation/freq": -1, "branching/relpscost/maxreliable": 1}

    def __init__(self, depth: int = 2, leaf_penalty: float = 0.01, solver: str = "scip",
                 time_limit: float | None = None, mip_gap: float | None = None, threads: int = 1,
                 seed: int = 0, warm_start="cart", strengthened_cuts: bool = False, polishing: bool = True,
                 eqp: str | None = "auto", eqp_disaggregated: bool = True,
                 eqp_group_selection: bool = True, eqp_max_split: int = 2, path_bound_cuts: bool = True,
                 bound_negative_samples: bool = True, bound_structure: bool = True,
                 top_down_branching: bool = True, solver_options: dict | None = None, log: bool = False):
        self.depth = depth
        self.leaf_penalty = leaf_penalty
        self.solver = solver
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.seed = seed
        self.warm_start = warm_start
        self.strengthened_cuts = strengthened_cuts
        self.polishing = polishing
        self.eqp = eqp
        self.eqp_disaggregated = eqp_disaggregated
        self.eqp_group_selection = eqp_group_selection
        self.eqp_max_split = eqp_max_split
        self.path_bound_cuts = path_bound_cuts
        self.bound_negative_samples = bound_negative_samples
        self.bound_structure = bound_structure
        self.top_down_branching = top_down_branching
        self.solver_options = solver_options
        self.log = log

    # ------------------------------------------------------------------ parameters
    def _check_params(self) -> None:
        super()._check_params()
        if self.eqp is not None and self.eqp not in ("auto", *EQP_FAMILIES):
            raise ValueError(f"eqp must be None, 'auto' or one of {EQP_FAMILIES}, got {self.eqp!r}")
        if self.eqp_max_split not in (1, 2, 3):
            raise ValueError(f"eqp_max_split must be 1, 2 or 3, got {self.eqp_max_split!r}")
        if self.solver_options is not None and not isinstance(self.solver_options, Mapping):
            raise ValueError(f"solver_options must be None or a dict of the solver's parameters, "
                             f"got {self.solver_options!r}")

    @property
    def _has_callbacks(self) -> bool:
        """Does the solver run cut and heuristic callbacks inside its search (SCIP)?"""
        return backend_class(self.solver).supports_callbacks

    # ------------------------------------------------------------------ FlowModelClassifier hooks
    @property
    def _eqp_family(self) -> str | None:
        """``eqp`` with "auto" resolved (see the class docstring)."""
        if self.eqp != "auto":
            return self.eqp
        return None if self._has_callbacks and self._runs_path_bound_cuts else "recursive"

    def _build(self, X, y):
        self._d2s = Depth2Solver(X > 0.5, y, n_classes=len(self.classes_))
        family = self._eqp_family
        self._eqp = (EQPInequalities(X, y, family, disaggregated=self.eqp_disaggregated,
                                     group_selection=self.eqp_group_selection, max_split=self.eqp_max_split)
                     if family is not None else None)
        self.warm_start_objective_ = None
        return build_model(X, y, self.depth, self.leaf_penalty, n_classes=len(self.classes_),
                           binary_predictions=self.strengthened_cuts, eqp=self._eqp,
                           top_down_branching=self.top_down_branching)

    @property
    def _runs_path_bound_cuts(self) -> bool:
        return self.path_bound_cuts and self.depth >= 2

    def _solver_options(self) -> dict:
        ours = (self.SCIP_TOP_DOWN
                if self.top_down_branching and self._runs_path_bound_cuts and self.solver.lower() == "scip"
                else {})
        return {**ours, **(self.solver_options or {})}

    def _tree_values(self, model, X, y):
        """tree -> values of every master variable (b, p, w, θ and the EQP variables)."""
        def values(tree: SparseTree):
            start = tree.start_values(model, X, y)
            if self._eqp is not None:
                self._eqp.start_values(model, tree, start)
            return start
        return values

    def _polisher(self, model, X, y) -> SolutionPolishing:
        return SolutionPolishing(X, y, self.depth, self.leaf_penalty, self._d2s, model,
                                 self._tree_values(model, X, y))

    def _start_values(self, model, X, y, branch_feature, node_label):
        tree = self._warm_start_tree(X, y, branch_feature, node_label)
        if self.polishing:
            tree = self._polisher(model, X, y).polish(tree)
        self.warm_start_objective_ = tree.objective(X > 0.5, y, self.leaf_penalty)
        return self._tree_values(model, X, y)(tree)

    def _callbacks(self, model, X, y):
        on_scip = self._has_callbacks
        if not on_scip and self.polishing:
            logger.warning("RegularizedBendOCT on %r: no solver callbacks, so in-search polishing is off "
                           "(the warm start is still polished)", self.solver)
        pbcp = (PathBoundCuts(X, y, self.depth, self.leaf_penalty, self._d2s, model,
                              bound_negative_samples=self.bound_negative_samples,
                              bound_structure=self.bound_structure)
                if self._runs_path_bound_cuts else None)
        polisher = None
        if on_scip and self.polishing:
            polisher = self._polisher(model, X, y)
            if self.warm_start_objective_ is not None:
                polisher.best = self.warm_start_objective_
        # on SCIP, path-bound cuts at every node LP, integral ones included (the cut callback sees only
        # fractional ones); without callbacks, cuts run in rounds on the root LP: Benders cuts there too
        return branch_and_cut(model, X, y, strengthened_cuts=self.strengthened_cuts, polishing=polisher,
                              path_bound_cuts=pbcp, fractional_benders=not on_scip, cuts_at_integral_points=on_scip)
