"""What paper 003's estimators share: the problem ``accuracy - λ·leaves`` over sparse trees of depth <= D.

Keegan, Forbes, Corry & Abolghasemi (2025). :class:`RegularizedContext` carries what one fit of that problem knows
-- λ, the per-leaf penalty in samples α = |I|·λ (W·λ with point weights), the depth-2 solver D2S (built on first
use) and the EQP inequalities when a master uses them -- so every plug-in of :mod:`odtlib.models.univariate.accel`
reads them from one place. :class:`SparseTreeFormulation` is the formulation both estimators' ``_build`` returns a
subclass of: it starts from a :class:`~odtlib.models.univariate._sparse_tree.SparseTree`.
:class:`RegularizedTreeClassifier` gives both estimators exact gaps on the accuracy scale and the CART warm start
pruned with the leaf penalty.

**Point weights.** With a weight w_i >= 0 per point (``fit``'s ``sample_weight`` times ``class_weight``) and their
total W = Σ_i w_i (W = |I| without weights), the accuracy of (1) becomes the correct points' share of the weight:

    max_T  (1/W)·Σ_i w_i·θ_i(T) - λ·leaves(T)                                   (1) weighted, θ_i of (2)

and the models' (3a)/(4a) take w_i·θ_i in place of θ_i (:func:`~odtlib.models.univariate._sparse_tree.weighted_scores`).
On the count scale that the accelerations use, W·(1) = Σ_i w_i·θ_i - α·leaves with α = W·λ (:attr:`alpha`). So
a point of weight 0 adds nothing to either term, which is the point removed (W and α are those of the other
points); a weight k counts the point as k copies (W and the correct weight as with k rows); and scaling every
weight by c > 0 scales W, the correct weight and α by c, so (1) is unchanged for every tree and the optimal trees
are the same: λ keeps its meaning, the accuracy an extra leaf must gain, on the weighted accuracy.

With integer weights W·(1) takes values S - α·leaves for integers S and (1) values (q·S - p·W·leaves)/(q·W) for
λ = p/q: steps of 1/(q·W), the unweighted 1/(q·|I|) with W for |I| (:meth:`RegularizedTreeClassifier._objective_step`;
the pipeline drops the step for other weights). The CART warm start is fitted with the weights and pruned with
ccp_alpha = λ, which scikit-learn charges against the weighted impurity's share of the total weight, the scale of
λ in the weighted (1).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import cached_property

from sklearn.utils._param_validation import Interval

from odtlib.models.univariate._flow_model import FlowModelClassifier, FlowTreeFormulation
from odtlib.models._pipeline import FitContext, class_weight_constraint, common_constraints, objective_step
from odtlib.models.univariate._sparse_tree import SparseTree, sparse_from_assignment
from odtlib.models.univariate.accel.d2s import CacheInfo, Depth2Solver

__all__ = ["RegularizedContext", "RegularizedTreeClassifier", "SparseTreeFormulation", "regularized_constraints"]


def regularized_constraints(**extra) -> dict:
    """Parameter constraints of the paper-003 estimators (``leaf_penalty`` in [0, 1], ``class_weight``) plus
    ``extra``."""
    return {**common_constraints(), "leaf_penalty": [Interval(numbers.Real, 0, 1, closed="both")],
            **class_weight_constraint(), **extra}


@dataclass
class RegularizedContext(FitContext):
    """A fit of problem (1): the data, λ (``leaf_penalty``) and the master's per-fit objects."""

    leaf_penalty: float = 0.0
    eqp: object | None = None   # the EQPInequalities added to the master, or None
    max_memory: float | None = None   # bytes D2S may hold and allocate (None: a quarter of the machine's memory)

    @property
    def total_weight(self) -> float:
        """W = Σ_i w_i, the points' total weight (|I| without weights)."""
        return float(self.n_samples if self.sample_weight is None else self.sample_weight.sum())

    @property
    def alpha(self) -> float:
        """The per-leaf penalty counted in (weighted) samples, α = W·λ (what D2S and the path-bound cuts use)."""
        return self.total_weight * self.leaf_penalty

    @cached_property
    def d2s(self) -> Depth2Solver:
        """The depth-2 subroutine on this training set, counting the points' weights (its cache lives as long as
        the fit)."""
        return Depth2Solver(self.X01, self.y, sample_weight=self.sample_weight, n_classes=self.n_classes,
                            max_memory=self.max_memory)

    def d2s_info(self) -> CacheInfo | None:
        """The statistics of D2S's cache, or None when no D2S ran in this fit (then none is built)."""
        return self.d2s.cache_info() if "d2s" in vars(self) else None


class SparseTreeFormulation(FlowTreeFormulation):
    """One fit's model of problem (1): a warm start is a sparse tree (3b)-(3d) (``ctx`` is a RegularizedContext)."""

    def assignment_start(self, branch_feature, node_label):
        return self.sparse_start(sparse_from_assignment(branch_feature, node_label, self.ctx.depth))

    def sparse_start(self, tree: SparseTree):
        """Values of the model's variables for a sparse tree."""
        raise NotImplementedError


class RegularizedTreeClassifier(FlowModelClassifier):
    """Shared plumbing of the paper-003 estimators (not used directly)."""

    def _context(self, X, y) -> RegularizedContext:
        return RegularizedContext(X, y, self.classes_, depth=self.depth, leaf_penalty=self.leaf_penalty,
                                  max_memory=getattr(self, "max_memory", None))

    def _objective_step(self, ctx):
        """Objective (1) is ``(q·correct - W·p·leaves) / (W·q)`` for λ = p/q: steps of 1/(W·q), W = n without
        weights (module docstring)."""
        return objective_step(self.leaf_penalty, scale=ctx.total_weight)

    def _cart_ccp_alpha(self) -> float:
        """CART pruned with ccp_alpha = λ: scikit-learn charges α per leaf against the sample-weighted
        impurity (a fraction of the total weight), the same scale as λ per leaf against accuracy in (1)."""
        return self.leaf_penalty
