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

:class:`AcceleratedEngine` is the switch: with ``engine="accelerated"`` the estimator's fit runs
:class:`~odtlib.models.RegularizedBendOCT` (all of paper 003's accelerations, its defaults) with λ' and the
estimator's solver, limits and warm start, and reports ``solve_result_`` on paper 001's scale, with
``solve_result_.extra["engine"]`` saying which engine ran.

The accelerated engine counts every point once: a fit with point weights (``sample_weight`` or ``class_weight``,
other than all 1) is refused with ``engine="accelerated"``, naming ``engine="formulation"``, which weights them.
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils._param_validation import StrOptions

from odtlib.models._pipeline import NotProvedOptimalWarning, objective_step, round_bound
from odtlib.solvers import SolveResult
from odtlib.solvers.result import relative_gap
from odtlib.tree import Tree

__all__ = ["AcceleratedEngine", "ENGINES", "leaf_penalty_for", "paper001_value"]

ENGINES = ("formulation", "accelerated")
ENGINE_CONSTRAINT = {"engine": [StrOptions(set(ENGINES))]}


def leaf_penalty_for(split_penalty: float, n_samples: int) -> float:
    """λ' = λ / ((1 - λ)·N): paper 003's per-leaf penalty (on accuracy) equivalent to paper 001's λ."""
    if split_penalty >= 1 or split_penalty / ((1 - split_penalty) * n_samples) > 1:
        raise ValueError(
            f"engine='accelerated' needs a leaf penalty λ/((1-λ)·N) <= 1, i.e. split_penalty <= N/(N+1) = "
            f"{n_samples / (n_samples + 1):.4g} for N = {n_samples} rows; got split_penalty={split_penalty!r} "
            f"(a larger λ makes a single leaf optimal: use engine='formulation')")
    return split_penalty / ((1 - split_penalty) * n_samples)


def paper001_value(value: float | None, split_penalty: float, n_samples: int) -> float | None:
    """Paper 003's objective (1) (or a bound on it) at λ' converted to paper 001's (1.1): (1-λ)·N·v + λ."""
    if value is None or not np.isfinite(value):
        return value
    return (1 - split_penalty) * n_samples * value + split_penalty


class AcceleratedEngine:
    """Mixin of FlowOCT and BendersOCT: ``engine="accelerated"`` fits through RegularizedBendOCT (module doc)."""

    def _fit(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None
             ) -> tuple[Tree, SolveResult]:
        if self.engine == "formulation":
            tree, result = super()._fit(X, y, sample_weight)
            result.extra["engine"] = "formulation"
            return tree, result
        self._refuse_weights(self._point_weights(y, sample_weight))
        return self._fit_accelerated(X, y)

    def _refuse_weights(self, weights: np.ndarray | None) -> None:
        """Paper 003's engine (its EQP sets, D2S bounds, path-bound and Benders cuts, polishing) counts points
        unweighted here: refuse weights other than all 1 rather than ignore them."""
        if weights is not None and not np.all(weights == 1):
            raise ValueError(f"{type(self).__name__}(engine='accelerated') does not take sample_weight or "
                             "class_weight (paper 003's engine counts every point once); use "
                             "engine='formulation' for a weighted fit")

    def _fit_accelerated(self, X: np.ndarray, y: np.ndarray) -> tuple[Tree, SolveResult]:
        """Solve at λ' on RegularizedBendOCT; report the tree's objective (1.1), counted exactly, and the bound
        converted to (1.1) and rounded to its step."""
        from odtlib.models.univariate.regularized_bendoct import RegularizedBendOCT

        lam = float(self.split_penalty)
        inner = RegularizedBendOCT(
            depth=self.depth, leaf_penalty=leaf_penalty_for(lam, len(y)), solver=self.solver,
            time_limit=self.time_limit, mip_gap=self.mip_gap, threads=self.threads,
            random_state=self._parameter("random_state"),
            warm_start=self.warm_start, solver_options=self.solver_options, keep_model=self.keep_model, log=self.log)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotProvedOptimalWarning)   # re-issued below on paper 001's scale
            inner.fit(X, self.classes_[y])
        result = inner.solve_result_
        result.extra.update(engine="accelerated", leaf_penalty=inner.leaf_penalty,
                            accelerated_objective=result.objective, accelerated_bound=result.bound)
        correct = int((inner.predict(X) == self.classes_[y]).sum())
        result.objective = (1 - lam) * correct - lam * inner.tree_.n_splits                     # (1.1)
        result.bound = paper001_value(result.bound, lam, len(y))
        result.gap = relative_gap(result.objective, result.bound)
        result.restate_trace(lambda value: paper001_value(value, lam, len(y)))
        result = round_bound(result, objective_step(lam), maximize=True)
        self._warn_if_not_proved(result)
        if self.keep_model:
            self.model_ = inner.model_
        elif hasattr(self, "model_"):
            del self.model_
        return inner.tree_, result
