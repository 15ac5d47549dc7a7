"""SVM1ODT and its LP data selection: paper 004 (Zhu, Murali, Phan, Nguyen & Kalagnanam).

:mod:`.svm1odt` is formulation (1) and its estimator; :mod:`.data_selection` the LP data selection
(Algorithms 1-3) that keeps the points the MIP needs; :mod:`.selected` the meta-estimators that fit an estimator
on those points (``DataSelectedClassifier``, ``IterativeTraining``). ``odtlib.models.svm1odt`` re-exports the
modules' public names, so ``from odtlib.models import svm1odt; svm1odt.build_model(...)`` reads as before the
family folders.
"""
from odtlib.models.svm1odt import data_selection, selected, svm1odt
from odtlib.models.svm1odt.data_selection import *  # noqa: F403
from odtlib.models.svm1odt.selected import *  # noqa: F403
from odtlib.models.svm1odt.svm1odt import *  # noqa: F403

__all__ = [*svm1odt.__all__, *data_selection.__all__, *selected.__all__]
