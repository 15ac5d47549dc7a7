"""Scikit-learn classifiers, one module per MIP formulation, all on one fit pipeline.

Every MIP estimator is a :class:`MIPTreeClassifier` (``odtlib/models/_pipeline.py``): validation, the solve
and the decoding into a :class:`~odtlib.tree.Tree` happen there once; a formulation module supplies the
paper's model and a few hooks. See ``odtlib/models/README.md`` for adding a formulation. One estimator solves
without a MIP: :class:`ThresholdTreeSearch` (``univariate/threshold_search``), the exact search for univariate
trees of depth <= 3 over every threshold.

One folder per model family: :mod:`~odtlib.models.univariate` (papers 001 and 003),
:mod:`~odtlib.models.categorical` (paper 000), :mod:`~odtlib.models.hyperplane` (paper 002) and
:mod:`~odtlib.models.svm1odt` (paper 004). The core beside them is what every family uses, or two families share:
the estimator base (``_base``), the fit pipeline (``_pipeline``), the tree indexing (``_tree_index``), the
hyperplane layer of papers 002 and 004 (``_hyperplane``), their SVM-split trees (``svm_tree``) and the memory
and BLAS resources of the exact subroutines of papers 000 and 003 (``_resources``).
:class:`OptimalTreeClassifier` (``optimal_tree``) routes one's own data to the fastest family. The modules'
paths before the folders still import, with a FutureWarning (``_moved``).
"""
from odtlib.models import _moved
from odtlib.models._base import ODTClassifier
from odtlib.models._pipeline import MIPTreeClassifier, NotProvedOptimalWarning
from odtlib.models.optimal_tree import OptimalTreeClassifier
from odtlib.models.svm_tree import SVMTreeClassifier
from odtlib.models.categorical.categorical_odt import CategoricalODT
from odtlib.models.hyperplane.octh import OCTH
from odtlib.models.hyperplane.soct import SOCT
from odtlib.models.hyperplane.univariate_oct import UnivariateOCT
from odtlib.models.svm1odt.selected import DataSelectedClassifier, IterativeTraining
from odtlib.models.svm1odt.svm1odt import SVM1ODT
from odtlib.models.univariate.bendersoct import BendersOCT
from odtlib.models.univariate.binoct import BinOCT
from odtlib.models.univariate.flowoct import FlowOCT
from odtlib.models.univariate.oct import OCT
from odtlib.models.univariate.regularized_bendoct import RegularizedBendOCT
from odtlib.models.univariate.regularized_flowoct import RegularizedFlowOCT
from odtlib.models.univariate.threshold_search import ThresholdTreeSearch

__all__ = ["ODTClassifier", "MIPTreeClassifier", "NotProvedOptimalWarning", "CategoricalODT", "FlowOCT",
           "BendersOCT", "OCT", "BinOCT", "RegularizedBendOCT", "RegularizedFlowOCT", "SOCT", "OCTH", "UnivariateOCT",
           "SVMTreeClassifier", "SVM1ODT", "DataSelectedClassifier", "IterativeTraining", "OptimalTreeClassifier",
           "ThresholdTreeSearch"]

_moved.install()
