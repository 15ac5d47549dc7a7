"""What the formulations on the full binary tree with 0/1 features share (papers 001 and 003).

Their trees are (b, w) assignments on the breadth-first numbered tree of :mod:`odtlib.models.univariate._flow_tree`.
Each estimator's ``_build`` returns a :class:`FlowTreeFormulation`: a warm-start :class:`~odtlib.tree.Tree` becomes
an assignment (:func:`tree_assignment`) that the formulation turns into values of its own variables
(:meth:`FlowTreeFormulation.assignment_start`), and the solved model becomes a Tree again through the (b, w)
assignment it encodes (:meth:`FlowTreeFormulation.decode_assignment`; (1.10)/(1.11) read directly by default).
"""
from __future__ import annotations

import numbers

from sklearn.utils._param_validation import Interval

from odtlib.models.univariate._flow_tree import decode_branching, tree_assignment
from odtlib.models._pipeline import (
    Formulation,
    MIPTreeClassifier,
    class_weight_constraint,
    common_constraints,
    objective_step,
)
from odtlib.tree import Tree

__all__ = ["FlowModelClassifier", "FlowTreeFormulation", "flow_constraints"]


def flow_constraints(**extra) -> dict:
    """Parameter constraints of the paper-001 estimators (``split_penalty`` in [0, 1], ``class_weight``) plus
    ``extra``."""
    return {**common_constraints(), "split_penalty": [Interval(numbers.Real, 0, 1, closed="both")],
            **class_weight_constraint(), **extra}


class FlowTreeFormulation(Formulation):
    """One fit's model of a (b, w)-tree formulation: warm starts and decoding go through (b, w) assignments."""

    def assignment_start(self, branch_feature: dict[int, int], node_label: dict[int, int]):
        """Values of the model's variables for a full (b, w) assignment of class indices."""
        raise NotImplementedError

    def decode_assignment(self) -> tuple[dict[int, int], dict[int, int]]:
        """Branching features {n: f} (b_nf = 1, (1.10)) and predicted class indices {n: k} (w_nk = 1, (1.11))
        of the solved model."""
        return decode_branching(self.model, self.model.tree)

    def start_values(self, tree: Tree):
        return self.assignment_start(*tree_assignment(tree, self.ctx.classes, self.ctx.depth))

    def decode(self) -> Tree:
        branch_feature, node_label = self.decode_assignment()
        labels = {n: self.ctx.classes[k] for n, k in node_label.items()}
        return Tree.from_flow_solution(self.ctx.depth, branch_feature, labels)


class FlowModelClassifier(MIPTreeClassifier):
    """Base of the (b, w)-tree estimators (not used directly; see FlowOCT for the parameters)."""

    def _objective_step(self, ctx) -> float | None:
        """Objective (1.1) takes values ``(1-λ)·a - λ·b`` for integers a, b (a weighted count a is an integer when
        every weight is; the pipeline drops the step otherwise)."""
        return objective_step(self.split_penalty)
