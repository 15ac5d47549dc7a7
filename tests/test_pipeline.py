"""The one fit pipeline (odtlib.models._pipeline): what every MIP estimator gets from it.

Pickling, class probabilities, honest reporting of fits that are not proved optimal, refusing models too
large to build, bounds rounded to the objective's spacing, predict-time input checks, the capability
policy, named paper configurations and keyword-only parameters.
"""
from __future__ import annotations

import io
import pickle
import warnings

import joblib
import numpy as np
import pytest
from oracles import brute_force_tree, random_binary_data
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Binarizer

from odtlib.models import (
    OCT,
    OCTH,
    SOCT,
    BendersOCT,
    BinOCT,
    CategoricalODT,
    FlowOCT,
    NotProvedOptimalWarning,
    RegularizedBendOCT,
    RegularizedFlowOCT,
)
from odtlib.models._pipeline import objective_step, round_bound
from odtlib.solvers import SolveResult

BINARY_MODELS = [FlowOCT, BendersOCT, OCT, BinOCT, RegularizedFlowOCT, RegularizedBendOCT]
ALL_MODELS = BINARY_MODELS + [CategoricalODT, SOCT, OCTH]


def small_data(seed=3, n_rows=24, n_features=4, n_classes=2):
    return random_binary_data(n_rows, n_features, n_classes, seed)


def categorical_data():
    X, y = small_data(5, n_rows=24, n_features=4)
    return X, (y > 0).astype(int)


def fitted(cls, **params):
    if cls in (SOCT, OCTH):                          # features in [0, 1]
        X, y = small_data()
        return cls(depth=2, **params).fit(X * 0.5 + 0.25, y), X * 0.5 + 0.25, y
    if cls is CategoricalODT:
        X, y = categorical_data()
        return cls(groups=[[0, 1], [2, 3]], **params).fit(X, y), X, y
    X, y = small_data()
    return cls(depth=2, **params).fit(X, y), X, y


# ------------------------------------------------------------------------------------------ pickling
@pytest.mark.parametrize("cls", ALL_MODELS, ids=lambda c: c.__name__)
def test_fitted_estimators_pickle_and_predict_the_same(cls):
    model, X, y = fitted(cls)
    assert not hasattr(model, "model_")              # the Pyomo model is not kept by default
    for dump, load in ((pickle.dumps, pickle.loads), (_joblib_dumps, _joblib_loads)):
        copy = load(dump(model))
        np.testing.assert_array_equal(copy.predict(X), model.predict(X))
        np.testing.assert_allclose(copy.predict_proba(X), model.predict_proba(X))


def _joblib_dumps(obj) -> bytes:
    buffer = io.BytesIO()
    joblib.dump(obj, buffer)
    return buffer.getvalue()


def _joblib_loads(data: bytes):
    return joblib.load(io.BytesIO(data))


def test_fitted_pipeline_and_grid_search_pickle():
    X, y = small_data(7, n_rows=30)
    Xr = X + np.random.default_rng(0).random(X.shape) * 0.4      # real values, binarised in the pipeline
    pipe = make_pipeline(Binarizer(threshold=0.7), RegularizedBendOCT(depth=2, time_limit=30)).fit(Xr, y)
    search = GridSearchCV(make_pipeline(Binarizer(threshold=0.7), FlowOCT(depth=1, time_limit=30)),
                          {"flowoct__split_penalty": [0.0, 0.1]}, cv=2).fit(Xr, y)
    for fitted_obj in (pipe, search):
        copy = pickle.loads(pickle.dumps(fitted_obj))
        np.testing.assert_array_equal(copy.predict(Xr), fitted_obj.predict(Xr))


def test_keep_model_keeps_the_solved_pyomo_model():
    model, X, _ = fitted(FlowOCT, keep_model=True)
    assert len(model.model_.zt) == 24 * 7            # the flows of 24 rows over 7 nodes
    assert not hasattr(model.set_params(keep_model=False).fit(X, model.predict(X)), "model_")


# ------------------------------------------------------------------------------------------ probabilities
@pytest.mark.parametrize("cls", ALL_MODELS, ids=lambda c: c.__name__)
def test_predict_proba_is_the_class_frequency_of_the_leaf(cls):
    model, X, y = fitted(cls)
    proba = model.predict_proba(X)
    assert proba.shape == (len(y), len(model.classes_))
    leaves = model.apply(X)
    for leaf in np.unique(leaves):
        here = leaves == leaf
        expected = np.array([np.mean(y[here] == c) for c in model.classes_])
        np.testing.assert_allclose(proba[here], np.tile(expected, (here.sum(), 1)))


# ------------------------------------------------------------------------------------------ honest results
def test_a_time_limited_fit_warns_with_status_bound_and_gap():
    X, y = random_binary_data(300, 12, 3, 11)
    with pytest.warns(NotProvedOptimalWarning, match=r"not proved optimal \(stopped at time_limit=0.01 s\).*"
                                                     r"objective .* bound .* gap"):
        model = FlowOCT(depth=3, time_limit=0.01).fit(X, y)
    assert model.solve_result_.status == "time_limit"
    assert model.score(X, y) > 0                      # the CART warm start is the incumbent at worst


def test_a_proved_optimum_does_not_warn():
    X, y = small_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotProvedOptimalWarning)
        FlowOCT(depth=1).fit(X, y)


def test_without_warm_start_and_without_time_the_error_says_how_to_get_a_tree():
    X, y = random_binary_data(400, 14, 3, 12)
    with pytest.raises(RuntimeError, match="no tree.*warm_start=True"):
        OCT(depth=3, time_limit=0.001, warm_start=False).fit(X, y)


@pytest.mark.parametrize("depth,size", [(50, "5.66e+17"), (12, "2.06e+06")])
def test_models_too_large_to_build_are_refused_with_their_size(depth, size):
    """2 flows × (2^(d+1) - 1) nodes × 122 rows (+ b): refused before anything is built."""
    X, y = random_binary_data(122, 15, 2, 1)
    nodes = 2 ** (depth + 1) - 1
    with pytest.raises(ValueError, match=rf"about {size.replace('+', '[+]')} variables, over the limit of 2,000,000.*"
                                         rf"largest part is the flows z, zt \(2 × {nodes} nodes × 122 rows\)"):
        FlowOCT(depth=depth).fit(X, y)


def test_proved_optimum_reports_gap_zero_and_the_rounded_bound():
    X, y = small_data(9)
    model = FlowOCT(depth=2, split_penalty=0.1).fit(X, y)
    result = model.solve_result_
    assert result.status == "optimal" and result.gap == 0.0
    assert result.bound == pytest.approx(result.objective)
    assert result.bound * 10 == pytest.approx(round(result.bound * 10))   # a multiple of 1/10 (λ = 1/10)


def test_round_bound_goes_down_when_maximising_and_up_when_minimising():
    assert objective_step(0.1) == pytest.approx(0.1) and objective_step(0.0) == 1.0
    assert objective_step(0.01, scale=50) == pytest.approx(1 / 5000) and objective_step(1 / 3 + 1e-4) is None
    up = round_bound(SolveResult("time_limit", objective=10.0, bound=12.7), 1.0, maximize=True)
    assert (up.bound, up.gap, up.extra["bound_before_rounding"]) == (12.0, pytest.approx(0.2), 12.7)
    down = round_bound(SolveResult("time_limit", objective=10.0, bound=7.2), 1.0, maximize=False)
    assert down.bound == 8.0
    proved = round_bound(SolveResult("optimal", objective=10.0, bound=10.9), 1.0, maximize=True)
    assert proved.gap == 0.0


# ------------------------------------------------------------------------------------------ input checks
@pytest.mark.parametrize("cls", BINARY_MODELS, ids=lambda c: c.__name__)
def test_predict_refuses_what_fit_refuses(cls):
    model, X, _ = fitted(cls)
    with pytest.raises(ValueError, match="binary \\(0/1\\) features.*x1"):
        model.predict(np.where(X == 1, 1.0, 0.0) + np.array([0, 0.5, 0, 0]))


def test_parameters_are_keyword_only_and_declared():
    with pytest.raises(TypeError):
        FlowOCT(2)                                     # noqa: the positional call a user might try
    with pytest.raises(ValueError, match="'threads' parameter of FlowOCT must be an int in the range"):
        FlowOCT(threads=0).fit(*small_data())
    with pytest.raises(ValueError, match="'warm_start' parameter of BendersOCT"):
        BendersOCT(warm_start="cart").fit(*small_data())


# ------------------------------------------------------------------------------------------ registry
def test_paper_methods_are_the_estimators_own_configurations():
    plain = RegularizedBendOCT.paper_method("BendOCT", depth=2, leaf_penalty=0.02)
    assert plain.get_params()["path_bound_cuts"] is False and plain.get_params()["warm_start"] is True
    accelerated = RegularizedBendOCT.paper_method("Accelerated BendOCT").get_params()
    assert accelerated["eqp"] == "recursive" and accelerated["top_down_branching"] is False
    assert CategoricalODT.paper_method("No Anchor").get_params()["anchors"] is False
    with pytest.raises(ValueError, match="no paper method 'fast'; known: 'BendOCT'"):
        RegularizedBendOCT.paper_method("fast")


def test_every_paper_003_method_reaches_the_optimum():
    X, y = small_data(13, n_rows=30, n_features=4)
    lam = 0.02
    objectives = {name: RegularizedBendOCT.paper_method(name, depth=2, leaf_penalty=lam).fit(X, y)
                  .solve_result_.objective for name in RegularizedBendOCT.PAPER_METHODS}
    split_cost = len(y) * lam / (1 + len(y) * lam)
    brute = brute_force_tree(X, y, 2, split_cost)[0]
    optimum = (brute / (1 - split_cost) - len(y) * lam) / len(y)
    assert objectives == {name: pytest.approx(optimum, abs=1e-6) for name in objectives}
