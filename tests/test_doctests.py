"""The Examples sections of the public estimators and encoders run as doctests (issue 34, item 1): each is a
tiny fit on a toy whose answer the docstring derives by hand, so a change of behaviour breaks the docs here."""
from __future__ import annotations

import doctest
import importlib
import time

import pytest

MODULES = [
    "odtlib.models.univariate.flowoct",
    "odtlib.models.univariate.bendersoct",
    "odtlib.models.univariate.oct",
    "odtlib.models.univariate.binoct",
    "odtlib.models.univariate.regularized_bendoct",
    "odtlib.models.univariate.regularized_flowoct",
    "odtlib.models.categorical.categorical_odt",
    "odtlib.models.hyperplane.soct",
    "odtlib.models.hyperplane.octh",
    "odtlib.models.hyperplane.univariate_oct",
    "odtlib.models.svm1odt.svm1odt",
    "odtlib.models.svm_tree",
    "odtlib.models.optimal_tree",
    "odtlib.models.svm1odt.data_selection",
    "odtlib.models.svm1odt.selected",
    "odtlib.encoders",
]
# the estimators and encoders that must carry an Examples section (module -> class names)
DOCUMENTED = {
    "odtlib.models": ["FlowOCT", "BendersOCT", "OCT", "BinOCT", "RegularizedBendOCT", "RegularizedFlowOCT",
                      "CategoricalODT", "SOCT", "OCTH", "UnivariateOCT", "SVM1ODT", "SVMTreeClassifier",
                      "OptimalTreeClassifier", "DataSelectedClassifier", "IterativeTraining"],
    "odtlib.models.svm1odt.data_selection": ["LPDataSelector"],
    "odtlib.encoders": ["OneHotEncoder", "QuantileBucketEncoder", "DecileEncoder", "QuantileThresholdEncoder",
                        "ClassChangeThresholdEncoder", "UnitScaler", "CategoricalEncoding"],
}
SECONDS_PER_MODULE = 10   # each example is meant to run in well under a second


@pytest.mark.parametrize("name", MODULES)
def test_examples_of_module_pass(name):
    module = importlib.import_module(name)
    started = time.perf_counter()
    outcome = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False, report=True)
    assert outcome.attempted > 0, f"{name} has no doctest"
    assert outcome.failed == 0, f"{outcome.failed} of {outcome.attempted} examples of {name} failed (see stdout)"
    assert time.perf_counter() - started < SECONDS_PER_MODULE


@pytest.mark.parametrize("module, cls", [(m, c) for m, names in DOCUMENTED.items() for c in names])
def test_public_class_has_numpydoc_examples(module, cls):
    doc = getattr(importlib.import_module(module), cls).__doc__
    assert "\n    Examples\n    --------\n" in doc and ">>> " in doc.split("Examples")[-1], cls
    assert "Parameters (keyword-only)" not in doc, "numpydoc knows no such section"
