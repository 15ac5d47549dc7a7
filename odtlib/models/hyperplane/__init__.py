"""Trees that split by hyperplanes over [0, 1]-scaled features: paper 002 (Boutilier, Michini & Zhou).

One module per formulation: :mod:`.soct` (S-OCT, formulation (1) with shattering inequalities, and the
family's base class), :mod:`.octh` (OCT-H, the big-M model), :mod:`.univariate_oct` (the univariate
special case). The cuts and heuristics they plug in: :mod:`.shattering` (the shattering inequalities and
their separation) and :mod:`.routing_repair` (a primal heuristic that repairs a candidate's routing). Shared
with paper 004, and so in the core: the hyperplane layer (split variables, margin rows, decoding),
:mod:`odtlib.models._hyperplane`, and the SVM-split trees of the paper's comparison,
:mod:`odtlib.models.svm_tree` (the repair's splits here, SVM1ODT's warm start there).
"""
from odtlib.models.hyperplane.octh import OCTH
from odtlib.models.hyperplane.soct import SOCT
from odtlib.models.hyperplane.univariate_oct import UnivariateOCT

__all__ = ["SOCT", "OCTH", "UnivariateOCT"]
