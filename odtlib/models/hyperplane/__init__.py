"""Trees that split by hyperplanes over [0, 1]-scaled features: paper 002 (Boutilier, Michini & Zhou).

:mod:`._formulation` holds formulation (1), the per-fit :class:`~._formulation.HyperplaneFormulation` (warm
start, decoding, statistics) and the estimators' base class; then one module per formulation: :mod:`.soct`
(S-OCT, with shattering inequalities), :mod:`.octh` (OCT-H, the big-M model), :mod:`.univariate_oct` (the
univariate special case). The plug-ins they hand the fit's formulation to: :mod:`.shattering` (the shattering
inequalities and their separation) and :mod:`.routing_repair` (a primal heuristic that repairs a candidate's
routing). Shared
with paper 004, and so in the core: the hyperplane layer (split variables, margin rows, decoding),
:mod:`odtlib.models._hyperplane`, and the SVM-split trees of the paper's comparison,
:mod:`odtlib.models.svm_tree` (the repair's splits here, SVM1ODT's warm start there).
"""
from odtlib.models.hyperplane.octh import OCTH
from odtlib.models.hyperplane.soct import SOCT
from odtlib.models.hyperplane.univariate_oct import UnivariateOCT

__all__ = ["SOCT", "OCTH", "UnivariateOCT"]
