"""Trees with subset splits over categorical feature groups: paper 000 (Günlük, Kalagnanam, Li, Menickelly
& Scheinberg).

:mod:`.categorical_odt` is the formulation (the groups, the model (1)-(13), its per-fit ``CategoricalFormulation``
and its estimator), :mod:`.topologies` the paper's tree shapes, and :mod:`.subtree_bounds` the decomposition that
solves the subtrees below a frontier exactly and adds them as Benders-like cuts.
"""
from odtlib.models.categorical.categorical_odt import CategoricalODT, Group

__all__ = ["CategoricalODT", "Group"]
