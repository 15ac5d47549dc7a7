"""Scikit-learn classifiers, one module per MIP formulation; all share :class:`ODTClassifier`."""
from odtlib.models._base import ODTClassifier
from odtlib.models.categorical_odt import CategoricalODT
from odtlib.models.bendersoct import BendersOCT
from odtlib.models.binoct import BinOCT
from odtlib.models.flowoct import FlowOCT
from odtlib.models.oct import OCT
from odtlib.models.regularized_bendoct import RegularizedBendOCT
from odtlib.models.regularized_flowoct import RegularizedFlowOCT

__all__ = ["ODTClassifier", "CategoricalODT", "FlowOCT", "BendersOCT", "OCT", "BinOCT",
           "RegularizedBendOCT", "RegularizedFlowOCT"]
