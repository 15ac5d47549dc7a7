"""What the formulations on the full binary tree with 0/1 features share (papers 001 and 003).

Their trees are (b, w) assignments on the breadth-first numbered tree of :mod:`odtlib.models.univariate._flow_tree`:
a warm-start :class:`~odtlib.tree.Tree` becomes an assignment (:func:`tree_assignment`), and the solved
(b, w) become a Tree again. A formulation says how an assignment sets its own variables
(:meth:`FlowModelClassifier._assignment_start`) and, when its variables differ from (b, w), how to read
the assignment back (:meth:`FlowModelClassifier._decode_assignment`).
"""
from __future__ import annotations

import numbers

import pyomo.environ as pyo
from sklearn.utils._param_validation import Interval

from odtlib.models.univariate._flow_tree import decode_branching, tree_assignment
from odtlib.models._pipeline import (
    FitContext,
    MIPTreeClassifier,
    class_weight_constraint,
    common_constraints,
    objective_step,
)
from odtlib.tree import Tree

__all__ = ["FlowModelClassifier", "flow_constraints"]


def flow_constraints(**extra) -> dict:
    """Parameter constraints of the paper-001 estimators (``split_penalty`` in [0, 1], ``class_weight``) plus
    ``extra``."""
    return {**common_constraints(), "split_penalty": [Interval(numbers.Real, 0, 1, closed="both")],
            **class_weight_constraint(), **extra}


class FlowModelClassifier(MIPTreeClassifier):
    """Base of the (b, w)-tree estimators (not used directly; see FlowOCT for the parameters)."""

    def _assignment_start(self, ctx: FitContext, model: pyo.ConcreteModel, branch_feature: dict[int, int],
                          node_label: dict[int, int]):
        """Values of the model's variables for a full (b, w) assignment of class indices."""
        raise NotImplementedError

    def _decode_assignment(self, ctx: FitContext, model: pyo.ConcreteModel) -> tuple[dict[int, int], dict[int, int]]:
        """Branching features {n: f} and predicted class indices {n: k} of the solved model."""
        return decode_branching(model, model.tree)

    def _start_values(self, ctx: FitContext, model: pyo.ConcreteModel, tree: Tree):
        return self._assignment_start(ctx, model, *tree_assignment(tree, ctx.classes, ctx.depth))

    def _decode(self, ctx: FitContext, model: pyo.ConcreteModel) -> Tree:
        branch_feature, node_label = self._decode_assignment(ctx, model)
        return Tree.from_flow_solution(ctx.depth, branch_feature, {n: ctx.classes[k] for n, k in node_label.items()})

    def _objective_step(self, ctx: FitContext) -> float | None:
        """Objective (1.1) takes values ``(1-λ)·a - λ·b`` for integers a, b (a weighted count a is an integer when
        every weight is; the pipeline drops the step otherwise)."""
        return objective_step(self.split_penalty)
