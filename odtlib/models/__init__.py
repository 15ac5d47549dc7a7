"""Scikit-learn classifiers, one module per MIP formulation, all on one fit pipeline.

Every estimator is a :class:`MIPTreeClassifier` (``odtlib/models/_pipeline.py``): validation, the solve
and the decoding into a :class:`~odtlib.tree.Tree` happen there once; a formulation module supplies the
paper's model and a few hooks. See ``odtlib/models/README.md`` for adding a formulation.
"""
from odtlib.models._base import ODTClassifier
from odtlib.models._pipeline import MIPTreeClassifier, NotProvedOptimalWarning
from odtlib.models.bendersoct import BendersOCT
from odtlib.models.binoct import BinOCT
from odtlib.models.categorical_odt import CategoricalODT
from odtlib.models.flowoct import FlowOCT
from odtlib.models.oct import OCT
from odtlib.models.octh import OCTH
from odtlib.models.optimal_tree import OptimalTreeClassifier
from odtlib.models.regularized_bendoct import RegularizedBendOCT
from odtlib.models.regularized_flowoct import RegularizedFlowOCT
from odtlib.models.soct import SOCT
from odtlib.models.univariate_oct import UnivariateOCT
from odtlib.models.svm_tree import SVMTreeClassifier
from odtlib.models.svm1odt import SVM1ODT

__all__ = ["ODTClassifier", "MIPTreeClassifier", "NotProvedOptimalWarning", "CategoricalODT", "FlowOCT",
           "BendersOCT", "OCT", "BinOCT", "RegularizedBendOCT", "RegularizedFlowOCT", "SOCT", "OCTH", "UnivariateOCT",
           "SVMTreeClassifier", "SVM1ODT", "OptimalTreeClassifier"]
