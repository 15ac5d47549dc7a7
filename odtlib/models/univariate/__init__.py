"""Univariate trees over binary features: papers 001 (Aghaei, Gómez & Vayanos) and 003 (Keegan et al.).

One module per formulation: :mod:`.oct` (big-M OCT), :mod:`.binoct` (BinOCT), :mod:`.flowoct` (problem (1),
the max-flow model), :mod:`.bendersoct` (its Benders decomposition, cuts in :mod:`.benders_cuts`),
:mod:`.regularized_flowoct` and :mod:`.regularized_bendoct` (paper 003's accuracy-minus-leaves models), with
paper 003's accelerations as plug-ins in :mod:`.accel`; :mod:`.threshold_search` solves the same objective to
depth 4 without a MIP when the columns are nested thresholds (the branch and bound of
:mod:`.accel.nested_thresholds`). Shared inside the family: the flow-tree indexing
(``_flow_tree``), the flow-model estimator and formulation bases (``_flow_model``), paper 003's sparse tree and
bases (``_sparse_tree``, ``_regularized``) and the accelerated engine that lets FlowOCT/BendersOCT use paper 003's
solver (``_accelerated_engine``: an adapter that supplies paper 003's hooks to the one fit pipeline).

Each estimator's ``_build`` returns its formulation (``FlowOCTFormulation``, ``BendOCTMaster``, ...): the model with
the warm start and the decoding of its variables; the plug-ins of ``_callbacks`` are made from it and its data.
"""
from odtlib.models.univariate.bendersoct import BendersOCT
from odtlib.models.univariate.binoct import BinOCT
from odtlib.models.univariate.flowoct import FlowOCT
from odtlib.models.univariate.oct import OCT
from odtlib.models.univariate.regularized_bendoct import RegularizedBendOCT
from odtlib.models.univariate.regularized_flowoct import RegularizedFlowOCT
from odtlib.models.univariate.threshold_search import ThresholdTreeSearch

__all__ = ["OCT", "BinOCT", "FlowOCT", "BendersOCT", "RegularizedFlowOCT", "RegularizedBendOCT",
           "ThresholdTreeSearch"]
