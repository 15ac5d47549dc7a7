"""The one fit pipeline every MIP formulation of odtlib runs through.

:class:`MIPTreeClassifier` turns a formulation (a handful of hooks) into a scikit-learn classifier.
``fit`` runs, in this order::

    validate X, y and the parameters                    (ODTClassifier.fit)
    encode labels as 0..K-1                             (ODTClassifier.fit)
    hooks = _hooks()                                    the estimator itself, or an adapter made per fit
                                                        (FlowOCT's engine="accelerated": paper 003's hooks)
    ctx = _context(X, y)                                per-fit data and objects, passed to every hook
                                                        (ctx.sample_weight: the points' weights, from fit's
                                                        sample_weight and class_weight, _point_weights)
    refuse models too large to build                    _size_terms(ctx)
    check the solver can run the switches               _plugin_needs(ctx)    (solvers.capabilities)
    formulation = _build(ctx)                           a Formulation: the Pyomo model of the paper's
                                                        equations and what the later steps ask of it
    start = formulation.start_values(tree)              from a CART tree or a given Tree (warm_start)
    callbacks = _callbacks(ctx, formulation)            plug-ins (solvers.plugins), or None
    solve(...)                                          gaps from _objective_step(ctx); the better of the
                                                        solver's incumbent and the start is loaded
    result = formulation.restate(result)                on the estimator's own objective scale
    tree = formulation.solved_tree()                    the solved model as an odtlib Tree
    fitted attributes                                   tree_, solve_result_, formulation.stats()

A time-limited fit therefore always returns a tree when it has a warm start (``warm_start=True``, the default,
or a Tree): if the solver stops before its first incumbent, or with a worse one (GLPK takes no start), the
start is the tree, ``solve_result_.from_warm_start`` is True, and a NotProvedOptimalWarning at the user's line
gives the objective, the solver's bound if it had one, and the gap. Only a fit with neither raises.

Nothing passes between hooks through ``self``: the per-fit data are in ``ctx`` (a :class:`FitContext`, or a
subclass with the formulation's own fields), and what the model's later steps need is in the
:class:`Formulation` that ``_build`` returns. Plug-ins receive that formulation, never the estimator. So a
fitted estimator holds only its parameters and its ``*_`` attributes, and pickles.

Univariate, subset-split and hyperplane formulations differ only in their hooks. See
``odtlib/models/README.md`` for where a new formulation goes and which hooks it implements.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import ClassVar

import numpy as np
import pyomo.environ as pyo
from sklearn.exceptions import ConvergenceWarning

from odtlib.models._base import SEED_RENAMED, ODTClassifier, shared_constraints, warn_user, with_old_names
from odtlib.solvers import SolveResult, SolverCapabilityWarning, capabilities, solve, solver_tuning
from odtlib.solvers.capabilities import EMULATED, MISSING
from odtlib.solvers.result import relative_gap
from odtlib.tree import Tree

__all__ = ["MIPTreeClassifier", "FitContext", "Formulation", "PluginNeed", "NotProvedOptimalWarning", "cart_tree",
           "objective_step", "weighted_objective_step", "common_constraints", "store_parameters", "PointWeightsFit",
           "class_weight_constraint", "point_weights"]


class NotProvedOptimalWarning(ConvergenceWarning):
    """A fit returned a tree that the solver did not prove optimal (time limit, or a gap was allowed)."""


@dataclass
class FitContext:
    """What one fit knows: the validated data and anything a hook computes for a later hook.

    ``X``: features as floats (n × p); ``y``: class indices 0..K-1; ``classes``: the original labels.
    Formulations with more per-fit objects (a depth-2 solver, EQP sets, feature groups) subclass it.
    """

    X: np.ndarray
    y: np.ndarray
    classes: np.ndarray
    depth: int | None = None
    sample_weight: np.ndarray | None = None     # weight of each point (None: all 1), when fit takes weights

    @classmethod
    def of(cls, X, y, depth: int | None = None, **fields) -> FitContext:
        """A context for data outside ``fit`` (tests, notebooks): ``y`` holds class indices 0..K-1."""
        y = np.asarray(y, dtype=np.int64)
        return cls(np.asarray(X, dtype=np.float64), y, np.arange(int(y.max()) + 1), depth=depth, **fields)

    @cached_property
    def X01(self) -> np.ndarray:
        """X as booleans (the binary formulations' view of 0/1 data)."""
        return self.X > 0.5

    @property
    def n_samples(self) -> int:
        return len(self.y)

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def labels(self) -> np.ndarray:
        """y as original labels."""
        return self.classes[self.y]

    @property
    def weights(self) -> np.ndarray:
        """The weight of each point: ``sample_weight``, or ones when the fit has none."""
        return np.ones(self.n_samples) if self.sample_weight is None else self.sample_weight


class Formulation:
    """One fit's model and what the rest of the fit asks of it (returned by ``MIPTreeClassifier._build``).

    ``model`` is the Pyomo model of the paper's equations and ``ctx`` the fit's data. The pipeline asks the
    formulation for the variables' values of the warm-start tree (:meth:`start_values`), for the tree of the
    solved model (:meth:`decode`), for the result on the estimator's objective scale (:meth:`restate`) and
    for what it reports after the fit (:meth:`stats`, set as fitted attributes). A family subclasses it with the
    parameters its methods need; its plug-ins hold the formulation, not the estimator.
    """

    def __init__(self, ctx: FitContext, model: pyo.ConcreteModel):
        self.ctx = ctx
        self.model = model

    def start_values(self, tree: Tree):
        """Values of the model's variables for ``tree`` (a ComponentMap)."""
        raise NotImplementedError

    _solved: Tree | None = None   # the decoded tree of the solved model, once decoded

    def decode(self) -> Tree:
        """The tree of the solved model."""
        raise NotImplementedError

    def solved_tree(self) -> Tree:
        """:meth:`decode`, run once: the tree the pipeline returns, and that :meth:`restate` may price."""
        if self._solved is None:
            self._solved = self.decode()
        return self._solved

    def restate(self, result: SolveResult) -> SolveResult:
        """The solve's result on the estimator's objective scale (the same, unless the model solves an
        equivalent problem on another scale)."""
        return result

    def stats(self) -> dict:
        """What the fit reports beside ``tree_`` and ``solve_result_``: fitted attribute name -> value."""
        return {}


@dataclass(frozen=True)
class PluginNeed:
    """A switch that needs a kind of plug-in ("lazy", "cuts" or "heuristics") from the solver.

    ``without``: what the switch still does on a solver that cannot run that kind at all (None: nothing,
    and ``fit`` refuses the combination).
    """

    switch: str
    kind: str
    without: str | None = None


def objective_step(penalty: float, scale: float = 1.0) -> float | None:
    """The spacing of the objective's possible values, or None when it has no useful spacing.

    For objectives ``(1 - λ)·a - λ·b`` with integers a, b (paper 001) and λ = p/q a fraction with a small
    denominator, every value is a multiple of 1/q; objectives divided by n (paper 003) pass ``scale=n``.
    An absolute gap below the step proves the exact optimum, and a bound can be rounded down to a step.
    """
    lam = Fraction(penalty).limit_denominator(1000)
    if abs(float(lam) - penalty) >= 1e-12:
        return None
    return 1.0 / (lam.denominator * scale)


def weighted_objective_step(step: float | None, sample_weight: np.ndarray | None) -> float | None:
    """The objective's spacing ``step`` (computed for unit weights) under point weights: it stays valid when every
    weight is an integer (a weighted count is then an integer count), and there is none otherwise."""
    if sample_weight is None or step is None:
        return step
    return step if np.all(sample_weight == np.round(sample_weight)) else None


def class_weight_constraint() -> dict:
    """``class_weight`` of the estimators whose objective counts points: None, "balanced" or {label: weight}."""
    from sklearn.utils._param_validation import StrOptions

    return {"class_weight": [StrOptions({"balanced"}), dict, None]}


def point_weights(sample_weight: np.ndarray | None, class_weight, labels: np.ndarray) -> np.ndarray | None:
    """Each point's weight in the objective: ``sample_weight`` times the weight of its class (scikit-learn's
    ``class_weight``: "balanced" gives class k the weight n / (K·n_k), a dict {label: weight} its values, and
    missing labels 1), or None when neither is given (every point counts 1). All-zero weights are refused."""
    from sklearn.utils.class_weight import compute_sample_weight

    weights = sample_weight
    if class_weight is not None:
        by_class = compute_sample_weight(class_weight, labels)
        weights = by_class if sample_weight is None else by_class * sample_weight
    if weights is not None and not np.sum(weights) > 0:
        raise ValueError("every point has weight 0 (sample_weight times class_weight): the objective would count "
                         "nothing; give at least one row a positive weight")
    return weights


class PointWeightsFit:
    """Mixin of the estimators whose objective counts points: ``fit(X, y, sample_weight=None)`` and the
    ``class_weight`` parameter, both multiplying each point's term in the objective (list it first among the
    bases so that scikit-learn's ``has_fit_parameter(est, "sample_weight")`` sees this ``fit``)."""

    def fit(self, X, y, sample_weight=None):
        """Learn the tree; ``sample_weight`` (one non-negative number per row, default 1) multiplies each
        point's term in the objective, and so does its class's weight when ``class_weight`` is set."""
        return self._checked_fit(X, y, sample_weight)

    def _point_weights(self, y: np.ndarray, sample_weight: np.ndarray | None) -> np.ndarray | None:
        return point_weights(sample_weight, self.class_weight, self.classes_[y])


def cart_tree(X: np.ndarray, y: np.ndarray, classes: np.ndarray, depth: int, seed: int = 0,
              ccp_alpha: float = 0.0, sample_weight: np.ndarray | None = None,
              max_leaf_nodes: int | None = None) -> Tree:
    """A scikit-learn CART tree (Gini) of at most ``depth`` levels as an odtlib Tree (breadth-first ids).

    ``y`` holds class indices into ``classes``; splits keep CART's thresholds (0.5 on 0/1 data: "x_f = 0 goes
    left", as the binary formulations). ``ccp_alpha`` > 0 prunes by minimal cost-complexity. ``sample_weight``
    weights the points as in the fit it warm-starts. ``max_leaf_nodes`` (at least 2) grows the tree best-first
    up to that many leaves, so that it keeps a split budget.
    """
    from sklearn.tree import DecisionTreeClassifier

    cart = DecisionTreeClassifier(max_depth=depth, random_state=seed, ccp_alpha=ccp_alpha,
                                  max_leaf_nodes=max_leaf_nodes).fit(X, y, sample_weight=sample_weight)
    return Tree.from_sklearn(cart, classes[cart.classes_])


def store_parameters(estimator, params: dict) -> None:
    """Store ``__init__``'s arguments on the estimator as given (scikit-learn's convention), from
    ``locals()``: every estimator's ``__init__`` is its explicit signature plus this one call."""
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)


def common_constraints() -> dict:
    """Parameter constraints (scikit-learn's ``_parameter_constraints``) shared by the MIP estimators, with the
    deprecated ``seed`` (renamed ``random_state``)."""
    from sklearn.utils._param_validation import Interval

    return with_old_names({
        **shared_constraints(),
        "mip_gap": [Interval(numbers.Real, 0, None, closed="left"), None],
        "threads": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": [Interval(numbers.Integral, 0, None, closed="left")],
        "warm_start": ["boolean", Tree],
        "solver_options": [dict, None],
        "keep_model": ["boolean"],
        "log": ["boolean"],
    }, SEED_RENAMED)


class MIPTreeClassifier(ODTClassifier):
    """Base of the MIP estimators: the fit pipeline (module docstring) around a formulation's hooks.

    Parameters every subclass has (with these meanings): ``solver``, ``time_limit`` (seconds of the
    solver's run; building the Pyomo model and handing it over come on top, and are reported in
    ``solve_result_.build_time`` / ``handoff_time``), ``mip_gap`` (None proves the exact optimum),
    ``threads``, ``random_state`` (the solver's seed and CART's; ``seed`` is its deprecated old name),
    ``warm_start`` (True: a CART tree of the same depth; False: none; or an odtlib
    Tree), ``solver_options`` (the solver's own parameters, applied last), ``keep_model`` (keep the solved
    Pyomo model as ``model_``; off by default so fitted estimators stay small and pickle), ``log``.

    Class attributes
    ----------------
    PAPER_METHODS : dict
        Named configurations of the paper (name -> parameters); :meth:`paper_method` builds them. Tests,
        experiments and notebooks all take "the paper's method" from here.
    max_variables : int
        ``fit`` refuses a model whose estimated number of variables exceeds this (default 2 million, about
        3 GB of Pyomo objects), naming the size, before building anything.
    """

    PAPER_METHODS: ClassVar[dict[str, dict]] = {}
    max_variables: ClassVar[int] = 2_000_000
    _renamed_parameters = SEED_RENAMED

    # ------------------------------------------------------------------ named configurations
    @classmethod
    def paper_method(cls, name: str, **params) -> MIPTreeClassifier:
        """The estimator configured as the paper's method ``name`` (see ``PAPER_METHODS``); ``params`` are
        set on top (e.g. ``depth``, ``time_limit``)."""
        if name not in cls.PAPER_METHODS:
            known = ", ".join(repr(k) for k in cls.PAPER_METHODS) or "none"
            raise ValueError(f"{cls.__name__} has no paper method {name!r}; known: {known}")
        return cls(**{**cls.PAPER_METHODS[name], **params})

    # ------------------------------------------------------------------ hooks
    def _context(self, X: np.ndarray, y: np.ndarray) -> FitContext:
        """The per-fit context (override to add the formulation's per-fit objects)."""
        return FitContext(X, y, self.classes_, depth=getattr(self, "depth", None))

    def _size_terms(self, ctx: FitContext) -> dict[str, int]:
        """Estimated variable counts of the model, by family ("flows z (2 × 7 nodes × 122 rows)": 1708)."""
        raise NotImplementedError

    def _plugin_needs(self, ctx: FitContext) -> list[PluginNeed]:
        """The switches that are on and need solver plug-ins (default: none)."""
        return []

    def _build(self, ctx: FitContext) -> Formulation:
        """The model of the paper's equations as the family's :class:`Formulation` (with its start values and
        decoding)."""
        raise NotImplementedError

    def _initial_tree(self, ctx: FitContext) -> Tree | None:
        """The warm-start tree: the given Tree, a CART tree (``warm_start=True``; within the model's split
        budget, `_cart_max_splits`), or None (also for a budget of no split: the one-leaf tree needs no start)."""
        if isinstance(self.warm_start, Tree):
            return self.warm_start
        budget = self._cart_max_splits()
        if not self.warm_start or budget == 0:
            return None
        return cart_tree(ctx.X, ctx.y, ctx.classes, ctx.depth, seed=self._parameter("random_state"),
                         ccp_alpha=self._cart_ccp_alpha(), sample_weight=ctx.sample_weight,
                         max_leaf_nodes=None if budget is None else budget + 1)

    def _cart_ccp_alpha(self) -> float:
        """Cost-complexity pruning of the CART warm start (0: unpruned)."""
        return 0.0

    def _cart_max_splits(self) -> int | None:
        """The most splits the CART warm start may have (None: any its depth allows); a start over the model's
        split budget would violate the model, and the solver would drop it."""
        return None

    def _callbacks(self, ctx: FitContext, formulation: Formulation):
        """The plug-ins of this solve as one Callbacks object (solvers.BranchAndCut), or None. Plug-ins that
        need more than the model's values hold ``formulation``."""
        return None

    def _objective_step(self, ctx: FitContext) -> float | None:
        """Spacing of the objective's values with unit weights (see :func:`objective_step`); None when it has
        none. ``_solve`` drops it when the points have non-integer weights (:func:`weighted_objective_step`)."""
        return None

    def _point_weights(self, y: np.ndarray, sample_weight: np.ndarray | None) -> np.ndarray | None:
        """The weights the objective gives the points (None: all 1); :class:`PointWeightsFit` adds
        ``class_weight``."""
        return point_weights(sample_weight, None, y)

    def _tuning(self, ctx: FitContext) -> dict:
        """Solver parameters that suit the formulation's search on ``self.solver`` (solvers.solver_tuning)."""
        return {}

    # ------------------------------------------------------------------ the pipeline
    def _hooks(self):
        """The object whose hooks this fit runs (``_context`` ... ``_callbacks`` and ``_solve``): the estimator, or
        an adapter made per fit that supplies another formulation's hooks (FlowOCT's ``engine="accelerated"``)."""
        return self

    def _fit(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None
             ) -> tuple[Tree, SolveResult]:
        hooks = self._hooks()
        ctx = hooks._context(X, y)
        ctx.sample_weight = self._point_weights(y, sample_weight)
        self._refuse_too_large(hooks._size_terms(ctx))
        self._check_solver_can_run(hooks._plugin_needs(ctx))
        formulation = self._formulation(hooks, ctx)
        tree = hooks._initial_tree(ctx)
        start = formulation.start_values(tree) if tree is not None else None
        result = hooks._solve(ctx, formulation.model, start, hooks._callbacks(ctx, formulation))
        if not result.has_solution:
            raise RuntimeError(f"{type(self).__name__}: the solver returned no tree (status {result.status!r}: "
                               f"{result.message}){self._start_note(start, result)}; {self._no_tree_hint()}")
        result = formulation.restate(result)
        tree = formulation.solved_tree()
        self._warn_if_not_proved(result)
        for name, value in formulation.stats().items():
            setattr(self, name, value)
        if self.keep_model:
            self.model_ = formulation.model
        elif hasattr(self, "model_"):
            del self.model_
        return tree, result

    def _formulation(self, hooks, ctx: FitContext) -> Formulation:
        formulation = hooks._build(ctx)
        if not isinstance(formulation, Formulation):
            raise TypeError(f"{type(hooks).__name__}._build must return a Formulation (the model with its "
                            f"start_values and decode), got {type(formulation).__name__}")
        return formulation

    def _solve(self, ctx: FitContext, model, start, callbacks) -> SolveResult:
        step = weighted_objective_step(self._objective_step(ctx), ctx.sample_weight)
        if self.mip_gap is not None:
            mip_gap, abs_gap = float(self.mip_gap), 0.0
        else:
            mip_gap, abs_gap = 0.0, (0.999 * step if step is not None else 1e-6)
        result = solve(model, solver=self.solver, time_limit=self.time_limit, mip_gap=mip_gap, abs_gap=abs_gap,
                       threads=self.threads, seed=self._parameter("random_state"), warm_start=start,
                       callbacks=callbacks, log=self.log,
                       solver_options={**self._tuning(ctx), **(self.solver_options or {})})
        return round_bound(result, step, _maximizes(model))

    @staticmethod
    def _start_note(start, result: SolveResult) -> str:
        """Why a warm start did not stand in for the missing incumbent (solvers.solve keeps a complete,
        feasible start; see the StartRejectedWarning for an infeasible one)."""
        if start is None or result.status in ("infeasible", "unbounded"):
            return ""
        return " and the warm start was incomplete or infeasible, so it could not be returned instead"

    def _no_tree_hint(self) -> str:
        if self.warm_start is False:
            return "raise time_limit, or set warm_start=True so that a time-limited solve always has a tree"
        return "raise time_limit"

    def _warn_if_not_proved(self, result: SolveResult) -> None:
        """A NotProvedOptimalWarning at the user's line: why, the objective, the bound if known, the gap, and
        whether the tree is the warm start (the solver found no better incumbent in its time)."""
        if result.status == "optimal" and (self.mip_gap is None or not result.gap):
            return
        why = {"optimal": f"optimal within mip_gap={self.mip_gap}",
               "time_limit": f"stopped at time_limit={self.time_limit} s"}.get(result.status, result.status)
        gap = "unknown" if result.gap is None else f"{100 * result.gap:.2f}%"
        origin = (" it is the warm start, as the solver found no better tree in its time;"
                  if result.from_warm_start else "")
        warn_user(f"{type(self).__name__}: the tree is not proved optimal ({why}):{origin} objective "
                  f"{result.objective:.6g}, bound {_fmt(result.bound)}, gap {gap}", NotProvedOptimalWarning)

    def _refuse_too_large(self, terms: dict[str, int]) -> None:
        total = sum(terms.values())
        if total <= self.max_variables:
            return
        largest = max(terms, key=terms.get)
        raise ValueError(
            f"{type(self).__name__}: this model would have about {total:.3g} variables, over the limit of "
            f"{self.max_variables:,} ({type(self).__name__}.max_variables); the largest part is {largest}. "
            f"Lower depth, fit on fewer rows, or use a decomposition (BendersOCT, RegularizedBendOCT)")

    def _check_solver_can_run(self, needs: list[PluginNeed]) -> None:
        """Apply the capability policy of :mod:`odtlib.solvers.capabilities` to the switches that are on."""
        if not needs:
            return
        caps = capabilities(self.solver)
        for need in needs:
            level = caps.level(need.kind)
            if level == MISSING and need.without is None:
                raise ValueError(f"{type(self).__name__}: {need.switch} needs {need.kind} callbacks, which solver "
                                 f"{self.solver!r} cannot run; use solver='scip', or switch {need.switch} off")
            if level == MISSING:
                warn_user(f"{type(self).__name__} on {self.solver!r}: {need.switch} only {need.without} "
                          f"(the solver runs no {need.kind} callbacks; solver='scip' does)", SolverCapabilityWarning)
            elif level == EMULATED:
                warn_user(f"{type(self).__name__} on {self.solver!r}: {need.switch} runs by "
                          f"{caps.how[need.kind]} (solver='scip' runs it inside the search)", SolverCapabilityWarning)

    def _solver_tuning(self, strategy: str) -> dict:
        """Shortcut for :func:`odtlib.solvers.solver_tuning` on this estimator's solver."""
        return solver_tuning(self.solver, strategy)


def round_bound(result: SolveResult, step: float | None, maximize: bool) -> SolveResult:
    """The result with its bound rounded to the objective's spacing ``step`` (down when maximising, up when
    minimising) and the gap recomputed: a proved optimum then shows gap 0, not the solver's tolerance."""
    if step is None or result.bound is None or not math.isfinite(result.bound):
        return result
    ratio = result.bound / step
    rounded = step * (math.floor(ratio + 1e-6) if maximize else math.ceil(ratio - 1e-6))
    if result.objective is not None and (rounded < result.objective if maximize else rounded > result.objective):
        rounded = result.objective
    result.extra["bound_before_rounding"] = result.bound
    result.bound = rounded
    result.gap = relative_gap(result.objective, rounded)
    result.restate_trace()
    return result


def _maximizes(model: pyo.ConcreteModel) -> bool:
    objective = next(model.component_data_objects(pyo.Objective, active=True))
    return objective.sense == pyo.maximize


def _fmt(value: float | None) -> str:
    return "none" if value is None else f"{value:.6g}"
