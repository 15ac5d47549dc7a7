"""What the paper-001 estimators share: fit = build the Pyomo model, warm-start, solve, read the tree.

Each estimator (FlowOCT, BendersOCT, OCT, BinOCT) only says how to build its model, how to turn a
(b, w) tree into start values for its variables, which callbacks it needs and how to read the tree
back; :class:`FlowModelClassifier` does the rest once.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from odtlib.models._base import ODTClassifier
from odtlib.models._flow_tree import (
    cart_assignment,
    check_split_penalty,
    decode_branching,
    tree_assignment,
)
from odtlib.tree import Tree

__all__ = ["FlowModelClassifier", "exact_gaps"]


def exact_gaps(split_penalty: float, mip_gap: float | None) -> tuple[float, float]:
    """(relative gap, absolute gap) for :func:`odtlib.solvers.solve`.

    With ``mip_gap=None`` the solve must be exact. Objective (1.1) is ``(1-λ)·a - λ·b`` with integers a, b;
    for λ = p/q (a fraction with a small denominator, e.g. 0, 0.1, ..., 0.9) every objective value is a
    multiple of 1/q, so any absolute gap below 1/q proves the exact optimum (0.999 for λ = 0: "fewer than
    one point"). Otherwise the absolute gap is 1e-6. A user-given ``mip_gap`` is passed on as it is.
    """
    if mip_gap is not None:
        return float(mip_gap), 0.0
    lam = Fraction(split_penalty).limit_denominator(1000)
    if abs(float(lam) - split_penalty) < 1e-12:
        return 0.0, 0.999 / lam.denominator
    return 0.0, 1e-6


class FlowModelClassifier(ODTClassifier):
    """Base of the paper-001 estimators (not used directly; see FlowOCT for the parameters).

    Subclasses implement ``_build(X, y)`` (a model with ``b``, ``w`` and ``tree``), ``_start_values`` and
    optionally ``_callbacks`` and ``_decode``.
    """

    def _build(self, X: np.ndarray, y: np.ndarray):
        raise NotImplementedError

    def _start_values(self, model, X, y, branch_feature: dict[int, int], node_label: dict[int, int]) -> dict:
        raise NotImplementedError

    def _callbacks(self, model, X, y):
        return None

    def _solver_options(self) -> dict | None:
        """The solver's own parameters for :func:`odtlib.solvers.solve` (None: the solver's defaults)."""
        return None

    def _decode(self, model) -> tuple[dict[int, int], dict[int, int]]:
        """Branching features and predicted classes {n: k} of the solved model."""
        return decode_branching(model, model.tree)

    def _gaps(self) -> tuple[float, float]:
        """(relative, absolute) gap for the solver; a model whose objective has another scale overrides it."""
        return exact_gaps(getattr(self, "split_penalty", 0.0), self.mip_gap)

    def _check_params(self) -> None:
        super()._check_params()
        check_split_penalty(getattr(self, "split_penalty", 0.0))
        ws = self.warm_start
        if ws is not None and not isinstance(ws, Tree) and ws != "cart":
            raise ValueError(f"warm_start must be None, 'cart' or an odtlib Tree, got {ws!r}")

    def _warm_start_assignment(self, X, y) -> tuple[dict[int, int], dict[int, int]]:
        if isinstance(self.warm_start, Tree):
            return tree_assignment(self.warm_start, self.classes_, self.depth)
        return cart_assignment(X, y, self.depth, seed=self.seed)

    def _fit(self, X: np.ndarray, y: np.ndarray):
        from odtlib.solvers import solve

        model = self._build(X, y)
        start = None
        if self.warm_start is not None:
            start = self._start_values(model, X, y, *self._warm_start_assignment(X, y))
        mip_gap, abs_gap = self._gaps()
        result = solve(model, solver=self.solver, time_limit=self.time_limit, mip_gap=mip_gap,
                       abs_gap=abs_gap, threads=self.threads, seed=self.seed, warm_start=start,
                       callbacks=self._callbacks(model, X, y), log=self.log,
                       solver_options=self._solver_options())
        if not result.has_solution:
            raise RuntimeError(f"{type(self).__name__}: the solver returned no tree "
                               f"(status {result.status!r}: {result.message}); raise time_limit, or pass "
                               f"warm_start='cart' so that a time-limited solve always has a tree")
        self.model_ = model  # the solved Pyomo model (values loaded), for inspection
        branch_feature, node_label = self._decode(model)
        labels = {n: self.classes_[k] for n, k in node_label.items()}
        tree = Tree.from_flow_solution(self.depth, branch_feature, labels)
        return tree, result
