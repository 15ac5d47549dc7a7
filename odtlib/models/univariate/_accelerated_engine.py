"""Paper 001's problem on paper 003's accelerated engine (the ``engine="accelerated"`` switch).

FlowOCT and BendersOCT (Aghaei, Gómez & Vayanos 2020) maximise, over trees of depth <= d whose internal nodes
may predict, objective (1.1)

    (1 - λ)·correct - λ·splits.

Such a tree is a sparse tree of paper 003 (Keegan et al. 2025) with splits = leaves - 1, so with N training
rows and λ < 1

    (1 - λ)·correct - λ·splits = (1 - λ)·N·(correct/N - λ'·leaves) + λ,    λ' = λ / ((1 - λ)·N),

which is a positive multiple of paper 003's objective (1), accuracy - λ'·leaves, plus a constant: both
problems have the same optimal trees, and an objective or bound of one converts to the other by this affine
map (:func:`paper001_value`). ``tests/test_models_paper001.py`` checks it on the paper's datasets against
the formulations, STreeD and the exhaustive search.

The switch is an adapter, not a second fit: with ``engine="accelerated"`` the estimator's ``_hooks()`` is an
:class:`AcceleratedHooks` made for the fit, and the one pipeline of :mod:`odtlib.models._pipeline` runs on it. It
supplies the hooks of :class:`~odtlib.models.RegularizedBendOCT` (paper 003's master with all its accelerations,
its defaults) at λ', with the estimator's solver, limits and warm start; its formulation (:class:`Paper001Scale`)
restates ``solve_result_`` on the scale of (1.1), with ``solve_result_.extra["engine"]`` saying which engine ran.
With ``engine="formulation"`` the hooks are the estimator's own and its formulation (:class:`OwnEngine`) says so.

**Point weights.** With weights w_i (``sample_weight`` times ``class_weight``) of total W, (1.1) counts the correct
points' weight, and the same identity holds with W for N and the weighted accuracy for correct/N:

    (1 - λ)·Σ_i w_i·[i correct] - λ·splits = (1 - λ)·W·(Σ_i w_i·[i correct]/W - λ'·leaves) + λ,    λ' = λ / ((1 - λ)·W),

whose bracket is paper 003's weighted (1) (:mod:`odtlib.models.univariate._regularized`), which its engine solves
with every acceleration counting weights. The per-leaf penalty in counts, W·λ' = λ/(1 - λ), does not depend on W.
W is known once the pipeline has weighed the points, after ``_context``: :meth:`AcceleratedHooks._build` sets λ'.
"""
from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import StrOptions

from odtlib.models._pipeline import Formulation, objective_step, round_bound, weighted_objective_step
from odtlib.models.univariate.regularized_bendoct import RegularizedBendOCT
from odtlib.solvers import SolveResult
from odtlib.solvers.result import relative_gap
from odtlib.tree import Tree

__all__ = ["AcceleratedEngine", "AcceleratedHooks", "Paper001Scale", "OwnEngine", "ENGINES", "leaf_penalty_for",
           "paper001_value"]

ENGINES = ("formulation", "accelerated")
ENGINE_CONSTRAINT = {"engine": [StrOptions(set(ENGINES))]}
# the estimator's parameters that paper 003's hooks and solve read (keep_model and the warnings stay the estimator's)
_SHARED_PARAMETERS = ("depth", "solver", "time_limit", "mip_gap", "threads", "random_state", "warm_start",
                      "solver_options", "log")


def leaf_penalty_for(split_penalty: float, n_samples: float) -> float:
    """λ' = λ / ((1 - λ)·N): paper 003's per-leaf penalty (on accuracy) equivalent to paper 001's λ; N is the
    number of rows, or their total weight W with point weights."""
    if split_penalty >= 1 or split_penalty / ((1 - split_penalty) * n_samples) > 1:
        raise ValueError(
            f"engine='accelerated' needs a leaf penalty λ/((1-λ)·N) <= 1, i.e. split_penalty <= N/(N+1) = "
            f"{n_samples / (n_samples + 1):.4g} for N = {n_samples:g} rows (their total weight with weights); got "
            f"split_penalty={split_penalty!r} (a larger λ makes a single leaf optimal: use engine='formulation')")
    return split_penalty / ((1 - split_penalty) * n_samples)


def paper001_value(value: float | None, split_penalty: float, n_samples: float) -> float | None:
    """Paper 003's objective (1) (or a bound on it) at λ' converted to paper 001's (1.1): (1-λ)·N·v + λ (N: the
    rows, or their total weight W)."""
    if value is None or not np.isfinite(value):
        return value
    return (1 - split_penalty) * n_samples * value + split_penalty


class AcceleratedEngine:
    """Mixin of FlowOCT and BendersOCT (listed first among the bases): the hooks of a fit, the estimator's own or
    paper 003's (``engine="accelerated"``, module docstring)."""

    def _hooks(self):
        if self.engine == "formulation":
            return self
        return AcceleratedHooks(self.split_penalty, self.classes_,
                                **{name: self._parameter(name) for name in _SHARED_PARAMETERS})


class AcceleratedHooks:
    """The hooks of one ``engine="accelerated"`` fit of a paper-001 estimator with split penalty λ.

    They are those of a :class:`~odtlib.models.RegularizedBendOCT` made at ``_context`` with ``params`` (the
    estimator's solver, limits, warm start, ...), whose own fit never runs: its context, model sizes, plug-in needs,
    initial tree, callbacks and solve (objective step and solver tuning of paper 003's master). Its leaf penalty
    λ' = λ/((1-λ)·W) is set at ``_build``, when the points' total weight W (N without weights) is known. Its
    formulation is wrapped in :class:`Paper001Scale`.
    """

    def __init__(self, split_penalty: float, classes: np.ndarray, **params):
        self.split_penalty = split_penalty
        self.classes = classes
        self.params = params
        self.master: RegularizedBendOCT | None = None

    def _context(self, X: np.ndarray, y: np.ndarray):
        self.master = RegularizedBendOCT(leaf_penalty=0.0, **self.params)      # λ' at _build
        self.master.classes_ = self.classes
        return self.master._context(X, y)

    def _size_terms(self, ctx):
        return self.master._size_terms(ctx)

    def _plugin_needs(self, ctx):
        return self.master._plugin_needs(ctx)

    def _build(self, ctx):
        """Paper 003's master at λ' = λ/((1-λ)·W), for the master and its context (the objective step, CART's
        pruning, D2S's α and the plug-ins read it from there)."""
        ctx.leaf_penalty = self.master.leaf_penalty = leaf_penalty_for(self.split_penalty, ctx.total_weight)
        return Paper001Scale(self.master._build(ctx), self.split_penalty)

    def _initial_tree(self, ctx):
        return self.master._initial_tree(ctx)

    def _callbacks(self, ctx, formulation):
        return self.master._callbacks(ctx, formulation.master)

    def _solve(self, ctx, model, start, callbacks) -> SolveResult:
        return self.master._solve(ctx, model, start, callbacks)


class Paper001Scale(Formulation):
    """Paper 003's master formulation ``master`` at λ', with the result restated on paper 001's (1.1) at λ.

    Its ``stats()`` are none: paper 003's fitted attributes (``warm_start_objective_``, ...) are not the
    estimator's; the plug-ins' statistics are in ``solve_result_.extra["plugins"]``.
    """

    def __init__(self, master: Formulation, split_penalty: float):
        super().__init__(master.ctx, master.model)
        self.master = master
        self.split_penalty = split_penalty

    def start_values(self, tree: Tree):
        return self.master.start_values(tree)

    def decode(self) -> Tree:
        return self.master.decode()

    def restate(self, result: SolveResult) -> SolveResult:
        """The tree's objective (1.1), counted exactly (the weight of its correct points with weights), and the
        bound converted to (1.1) and rounded to its step (none with non-integer weights); the values on paper
        003's scale stay in ``extra`` (``accelerated_objective``, ``accelerated_bound``)."""
        result = self.master.restate(result)
        lam, ctx = self.split_penalty, self.ctx
        result.extra.update(engine="accelerated", leaf_penalty=ctx.leaf_penalty,
                            accelerated_objective=result.objective, accelerated_bound=result.bound)
        tree = self.solved_tree()
        correct = tree.predict(ctx.X) == ctx.labels
        correct_weight = int(correct.sum()) if ctx.sample_weight is None else float(ctx.sample_weight[correct].sum())
        result.objective = (1 - lam) * correct_weight - lam * tree.n_splits               # (1.1)
        result.bound = paper001_value(result.bound, lam, ctx.total_weight)
        result.gap = relative_gap(result.objective, result.bound)
        result.restate_trace(lambda value: paper001_value(value, lam, ctx.total_weight))
        return round_bound(result, weighted_objective_step(objective_step(lam), ctx.sample_weight), maximize=True)


class OwnEngine:
    """Mixin of FlowOCT's and BendersOCT's formulations: with ``engine="formulation"`` the result says so."""

    def restate(self, result: SolveResult) -> SolveResult:
        result.extra["engine"] = "formulation"
        return result
