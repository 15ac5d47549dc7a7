"""scikit-learn's estimator checks on every odtlib estimator (small depth and time limits).

The binary formulations take 0/1 features, so they are checked behind a ``Binarizer`` -- the honest setup for
the real-valued data the checks generate; the multivariate ones take features in [0, 1], behind a
``MinMaxScaler``. CategoricalODT is a binary classifier (declared by its tags, so the
checks give it two classes). Each expected failure is listed with its reason.

A Pipeline's ``fit`` takes ``**params``, so scikit-learn's ``has_fit_parameter`` says it takes no ``sample_weight``
and yields none of its sample-weight checks for the pipelines above. The estimators whose ``fit`` takes weights
are therefore also run through those checks behind :class:`BinarizedFit` (a Binarizer whose ``fit`` passes
``sample_weight`` on), and the multivariate ones behind :class:`ScaledFit` (a MinMaxScaler alike).
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Binarizer, MinMaxScaler
from sklearn.utils import estimator_checks
from sklearn.utils.estimator_checks import parametrize_with_checks

from odtlib.models import (
    OCT,
    OCTH,
    SOCT,
    BendersOCT,
    BinOCT,
    CategoricalODT,
    DataSelectedClassifier,
    FlowOCT,
    RegularizedBendOCT,
    RegularizedFlowOCT,
    SVM1ODT,
    UnivariateOCT,
)

# no time limit: the checks' data are tiny (a time-limited HiGHS run forks a child, ~50 ms per fit); the
# pytest timeout below is the safety net
FAST = dict(depth=1)
BINARY = [FlowOCT(**FAST), BendersOCT(**FAST), OCT(**FAST), BinOCT(**FAST),
          RegularizedFlowOCT(**FAST), RegularizedBendOCT(**FAST)]
# features scaled to [0, 1]; a 100% gap stops at a warm start that classifies half the points (deterministic
# and fast: OCT-H's weak LP bound can take minutes to close on the checks' data); the limit is a safety net
# SVM1-ODT's LP bound is 0, so no relative gap closes: an absolute gap above any objective stops it at the
# CART warm start instead (with data selection: CART's tree on every row, fitted on the kept rows)
MULTIVARIATE = [SOCT(depth=1, mip_gap=1.0, time_limit=30), OCTH(depth=1, mip_gap=1.0, time_limit=30),
                UnivariateOCT(depth=1, mip_gap=1.0, time_limit=30),
                SVM1ODT(depth=1, mip_gap=1.0, time_limit=30, solver_options={"mip_abs_gap": 1e9}),
                DataSelectedClassifier(SVM1ODT(depth=1, mip_gap=1.0, time_limit=30,
                                               solver_options={"mip_abs_gap": 1e9}))]
ESTIMATORS = ([make_pipeline(Binarizer(), est) for est in BINARY]
              + [make_pipeline(MinMaxScaler(), est) for est in MULTIVARIATE] + [CategoricalODT()])

# CategoricalODT takes raw DataFrames and encodes them itself (paper 000's encoding) before validating the
# encoded 0/1 matrix; these checks feed it inputs its encoder does not handle as scikit-learn expects. Open
# work, each a real gap:
CATEGORICAL_ODT_GAPS = {
    "check_estimator_sparse_tag": "its encoder does not reject sparse input with scikit-learn's message",
    "check_estimator_sparse_array": "its encoder does not reject sparse input with scikit-learn's message",
    "check_estimator_sparse_matrix": "its encoder does not reject sparse input with scikit-learn's message",
    "check_estimators_nan_inf": "its decile encoder buckets infinite values instead of rejecting them",
    "check_estimators_empty_data_messages": "its encoder fails on empty X before scikit-learn's validation",
    "check_dtype_object": "its encoder treats object columns as categories (its purpose), not as numbers",
    "check_fit2d_predict1d": "its encoder reshapes a 1-d X before scikit-learn's validation can refuse it",
    "check_class_weight_classifiers": "with class_weight {0: 1000, 1: 0.0001} the exact optimum keeps every negative "
                                      "right and still fills its fixed positive leaves with positives where that "
                                      "loses no negative: 18% of the check's test rows are predicted 1 (it allows 13%)",
    "check_sample_weight_equivalence_on_dense_data":
        "predict_proba gives each leaf's unweighted class frequencies (Tree leaf counts are row counts), so it "
        "differs between weights and repeated rows (and the decile encoding is fitted on the rows as passed); "
        "the optimum is equivalent (tests/test_sample_weights.py)",
    "check_classifier_not_supporting_multiclass": "its multi-class error message is its own wording",
}

# scikit-learn's Pipeline fits its steps in place, so its ``steps`` parameter changes during fit
PIPELINE_IN_PLACE = {
    "check_dont_overwrite_parameters": "Pipeline fits its steps in place (a property of Pipeline)",
    "check_estimators_overwrite_params": "Pipeline fits its steps in place (a property of Pipeline)",
}


def expected_failed_checks(estimator) -> dict:
    return CATEGORICAL_ODT_GAPS if isinstance(estimator, CategoricalODT) else PIPELINE_IN_PLACE


# a safety net, not a speed test: check_estimators_dtypes fits CategoricalODT four times, which took over 120 s
# on a loaded 2-core machine (the timeout's signal then surfaced inside HiGHS as a "Solve error")
@pytest.mark.timeout(300)
@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    if "check_classifiers_train" in str(check) and not isinstance(estimator, CategoricalODT):
        step, last = estimator.steps[-1]
        depth = "estimator__depth" if isinstance(last, DataSelectedClassifier) else "depth"   # the selector follows
        estimator.set_params(**{f"{step}__{depth}": 2})   # its training-accuracy floor (0.83)
        if isinstance(estimator.steps[-1][1], OCT):
            # HiGHS spends ~20 s in OCT's root node on the checks' 300 rows (depth 2, big-M); within 5 s it
            # returns the better of its incumbent and the CART start (254 of 300 correct here, as the optimum)
            estimator.set_params(oct__time_limit=5)
    check(estimator)


class BinarizedFit(ClassifierMixin, BaseEstimator):
    """``estimator`` on X > 0.5 (as ``Binarizer()``), with ``fit(X, y, sample_weight=None)`` passing the weights on."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y, sample_weight=None):
        self.estimator_ = clone(self.estimator).fit(self._binary(X), y, sample_weight=sample_weight)
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        return self.estimator_.predict(self._binary(X))

    def predict_proba(self, X):
        return self.estimator_.predict_proba(self._binary(X))

    @staticmethod
    def _binary(X):
        return np.asarray(X, dtype=np.float64) > 0.5


class ScaledFit(ClassifierMixin, BaseEstimator):
    """``estimator`` on X min-max scaled to [0, 1] by the training data (as ``MinMaxScaler()``), with
    ``fit(X, y, sample_weight=None)`` passing the weights on."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y, sample_weight=None):
        self.scaler_ = MinMaxScaler().fit(X)
        self.estimator_ = clone(self.estimator).fit(self.scaler_.transform(X), y, sample_weight=sample_weight)
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        return self.estimator_.predict(self.scaler_.transform(X))

    def predict_proba(self, X):
        return self.estimator_.predict_proba(self.scaler_.transform(X))


# the checks scikit-learn yields for an estimator whose fit takes sample_weight (sklearn.utils.estimator_checks)
SAMPLE_WEIGHT_CHECKS = ["check_sample_weights_pandas_series", "check_sample_weights_not_an_array",
                        "check_sample_weights_list", "check_all_zero_sample_weights_error",
                        "check_sample_weights_shape", "check_sample_weights_not_overwritten",
                        "check_sample_weight_equivalence_on_dense_data", "check_classifiers_one_label_sample_weights"]
SAMPLE_WEIGHT_GAPS = {
    "check_sample_weight_equivalence_on_dense_data":
        "predict_proba gives each leaf's unweighted class frequencies (Tree leaf counts are row counts), so it "
        "differs between weights and repeated rows; predict and the optimum are equivalent "
        "(tests/test_sample_weights.py)",
}

# SOCT, OCTH, UnivariateOCT behind ScaledFit: the optima of the check's weighted and repeated fits are equal (24
# correct of 24 at depth 1, measured once by hand), their predictions need not be
SCALED_SAMPLE_WEIGHT_GAPS = {
    "check_sample_weight_equivalence_on_dense_data":
        "predict_proba gives each leaf's unweighted class frequencies; and the check's 15 points in 30 dimensions "
        "are separable in every routing, so many trees are optimal and the two fits (whose scalers also differ: "
        "rows of weight 0 set the range) may return different ones with the same optimum "
        "(tests/test_sample_weights.py)",
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("check_name", SAMPLE_WEIGHT_CHECKS)
@pytest.mark.parametrize("wrapped", [BinarizedFit(FlowOCT(**FAST)), BinarizedFit(BendersOCT(**FAST)),
                                     BinarizedFit(OCT(**FAST)), BinarizedFit(BinOCT(**FAST)),
                                     BinarizedFit(RegularizedFlowOCT(**FAST)), BinarizedFit(RegularizedBendOCT(**FAST)),
                                     ScaledFit(SOCT(**FAST)), ScaledFit(OCTH(**FAST)),
                                     ScaledFit(UnivariateOCT(**FAST)),
                                     BinarizedFit(SVM1ODT(depth=1, mip_gap=1.0, time_limit=30,
                                                          solver_options={"mip_abs_gap": 1e9}))],
                         ids=lambda wrapped: type(wrapped.estimator).__name__)
def test_sample_weight_checks(wrapped, check_name, request):
    gaps = SCALED_SAMPLE_WEIGHT_GAPS if isinstance(wrapped, ScaledFit) else SAMPLE_WEIGHT_GAPS
    if check_name in gaps:
        request.applymarker(pytest.mark.xfail(raises=AssertionError, strict=True, reason=gaps[check_name]))
    getattr(estimator_checks, check_name)(type(wrapped.estimator).__name__, wrapped)
