"""Issue 31, model layer: a time-limited fit always returns a tree, warnings at the user's line, SVM1ODT's
defaults, and the introspection users of peer libraries expect (feature names, model size).

Expected values come from scikit-learn (the CART tree the warm start is), from hand counts in the comments,
or from this file's own line numbers; none is read from odtlib's output.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyomo.environ as pyo
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier

from odtlib.encoders import QuantileThresholdEncoder
from odtlib.models import (
    OCT,
    OCTH,
    SOCT,
    SVM1ODT,
    BendersOCT,
    BinOCT,
    CategoricalODT,
    FlowOCT,
    NotProvedOptimalWarning,
    RegularizedBendOCT,
    RegularizedFlowOCT,
    SVMTreeClassifier,
    UnivariateOCT,
)
from odtlib.solvers import available_solvers, solve
from odtlib.solvers.base import RunOutcome
from odtlib.solvers.core import _better_of_run_and_start
from odtlib.solvers.standard_form import compile_model

pytestmark = pytest.mark.timeout(300)
SOLVERS = available_solvers()
needs_glpk = pytest.mark.skipif("glpk" not in SOLVERS, reason="glpsol not installed")

# Limits too short for any incumbent of the solver's own (deterministic, not a race):
# - HiGHS: 1e-6 s stops it before its first node, with only the start we hand it;
# - GLPK: 1 s of glpsol's exact-arithmetic simplex does not finish the root LP of an 8,000-column model,
#   and glpsol takes no start at all.
NO_TIME = {"highs": dict(time_limit=1e-6), "glpk": dict(time_limit=1, solver_options={"exact": True})}


@pytest.fixture(scope="module")
def cancer_encoded():
    """Breast cancer (569 rows, 30 features) as QT-5 0/1 columns: 150 columns, FlowOCT depth 2 has ~8,000
    variables, far more than a solver settles in the limits above."""
    X, y = load_breast_cancer(return_X_y=True)
    return QuantileThresholdEncoder(k=5).fit_transform(X, y), y


def _cart(X, y, depth):
    return DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)


# ------------------------------------------------------------------ item 1: a time-limited fit returns a tree
@pytest.mark.parametrize("solver", ["highs", pytest.param("glpk", marks=needs_glpk)])
def test_time_limit_without_incumbent_returns_the_cart_start_with_a_warning(cancer_encoded, solver):
    X, y = cancer_encoded
    cart = _cart(X, y, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = FlowOCT(depth=2, solver=solver, **NO_TIME[solver]).fit(X, y)
    result = model.solve_result_
    # the tree is CART's: same prediction on every row
    np.testing.assert_array_equal(model.predict(X), cart.predict(X))
    # FlowOCT's objective (1.1) with split_penalty 0 counts correctly classified rows: CART's count
    assert result.objective == pytest.approx(int((cart.predict(X) == y).sum()))
    assert result.status == "time_limit" and result.from_warm_start
    assert result.extra["incumbent"] == "warm_start"
    messages = [str(w.message) for w in caught if issubclass(w.category, NotProvedOptimalWarning)]
    assert len(messages) == 1 and "warm start" in messages[0] and "bound" in messages[0]


def test_time_limited_pipeline_in_cross_validation_never_fails(cancer_encoded):
    X, y = load_breast_cancer(return_X_y=True)
    pipe = make_pipeline(QuantileThresholdEncoder(k=5), FlowOCT(depth=2, **NO_TIME["highs"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotProvedOptimalWarning)
        scores = cross_val_score(pipe, X, y, cv=2, error_score="raise")
    # every fold returns CART's depth-2 tree; on breast cancer that is far above the majority rate 357/569
    assert len(scores) == 2 and all(score > 357 / 569 for score in scores)


def test_a_fit_with_neither_incumbent_nor_start_raises_a_clear_error(cancer_encoded):
    X, y = cancer_encoded
    with pytest.raises(RuntimeError, match="no tree.*warm_start=True"):
        FlowOCT(depth=2, warm_start=False, **NO_TIME["highs"]).fit(X, y)


def _small_minimisation():
    """min x + 2y with x + y >= 1, x, y binary: optimum 1 at (1, 0); (0, 1) costs 2."""
    m = pyo.ConcreteModel()
    m.x, m.y = pyo.Var(domain=pyo.Binary), pyo.Var(domain=pyo.Binary)
    m.cover = pyo.Constraint(expr=m.x + m.y >= 1)
    m.cost = pyo.Objective(expr=m.x + 2 * m.y)
    return m, compile_model(m)


def test_the_better_of_incumbent_and_start_is_kept():
    _, sf = _small_minimisation()
    order = [v.name for v in sf.index.columns]
    point = {"x": 1.0, "y": 0.0}
    best = np.array([point[name] for name in order])     # cost 1
    worse = 1.0 - best                                   # (0, 1): cost 2
    x, source = _better_of_run_and_start(sf, RunOutcome("time_limit", worse), best)
    assert source == "warm_start" and np.array_equal(x, best)
    x, source = _better_of_run_and_start(sf, RunOutcome("time_limit", best), worse)
    assert source == "solver" and np.array_equal(x, best)
    x, source = _better_of_run_and_start(sf, RunOutcome("time_limit", None), worse)
    assert source == "warm_start" and np.array_equal(x, worse)


# ------------------------------------------------------------------ item 10: the warning at the user's line
def test_not_proved_optimal_warning_points_to_the_users_line(cancer_encoded):
    X, y = cancer_encoded
    raw, _ = load_breast_cancer(return_X_y=True)
    pipe = make_pipeline(QuantileThresholdEncoder(k=5), FlowOCT(depth=2, **NO_TIME["highs"]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        FlowOCT(depth=2, **NO_TIME["highs"]).fit(X, y); direct = _line()  # noqa: E702
        pipe.fit(raw, y); piped = _line()  # noqa: E702
    found = [(w.filename, w.lineno) for w in caught if issubclass(w.category, NotProvedOptimalWarning)]
    assert found == [(__file__, direct), (__file__, piped)]


def _line() -> int:
    """The caller's line number (the line of the fit above, written on the same line)."""
    import inspect

    return inspect.currentframe().f_back.f_lineno


# ------------------------------------------------------------------ item 8: feature names and model size
def _frames():
    rng = np.random.default_rng(0)
    unit = pd.DataFrame(rng.random((30, 3)), columns=["a", "b", "c"])
    y = (unit.a + unit.b > 1).astype(int).to_numpy()
    return unit, (unit > 0.5).astype(float), y


ON_BINARY = [FlowOCT, BendersOCT, OCT, BinOCT, RegularizedBendOCT, RegularizedFlowOCT]
ON_UNIT = [SOCT, OCTH, UnivariateOCT, SVM1ODT, SVMTreeClassifier]


@pytest.mark.parametrize("estimator", ON_BINARY + ON_UNIT, ids=lambda e: e.__name__)
def test_feature_names_in_only_for_string_column_names(estimator):
    unit, binary, y = _frames()
    X = binary if estimator in ON_BINARY else unit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = estimator(depth=1).fit(X, y)
        assert list(model.feature_names_in_) == ["a", "b", "c"]
        model.fit(X.to_numpy(), y)
    assert not hasattr(model, "feature_names_in_") and model.n_features_in_ == 3


def test_categorical_odt_names_the_columns_it_was_given():
    """CategoricalODT encodes a raw frame itself; its feature names are the frame's two columns, not the
    encoded ones (3 colours + 4 sizes = 7 indicators), and a numpy array gives none, as in scikit-learn."""
    frame = pd.DataFrame({"colour": ["red", "green", "blue"] * 4, "size": [1, 2, 3, 4] * 3})
    y = (frame.colour == "red").astype(int).to_numpy()       # one subset test separates it: accuracy 1
    model = CategoricalODT().fit(frame, y)
    assert list(model.feature_names_in_) == ["colour", "size"] and model.n_features_in_ == 2
    assert len(model.encoded_columns_) == 7
    assert model.score(frame, y) == 1.0
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(frame.rename(columns={"size": "weight"}))
    model.fit(frame.to_numpy(dtype=object), y)
    assert not hasattr(model, "feature_names_in_") and model.n_features_in_ == 2
    assert model.score(frame.to_numpy(dtype=object), y) == 1.0


# ------------------------------------------------------------------ item 5: SVM1ODT on string categories
def _string_frame():
    frame = pd.DataFrame({"colour": ["red", "green"] * 5, "shape": ["round", "square"] * 5,
                          "weight": np.linspace(0, 1, 10)})
    return frame, np.arange(10) % 2


def test_svm1odt_string_categories_ask_for_integer_codes():
    frame, y = _string_frame()
    with pytest.raises(ValueError) as error:
        SVM1ODT(categorical_features=["colour", 1]).fit(frame, y)       # by name and by index
    message = str(error.value)
    assert "non-numeric columns 'colour', 'shape'" in message
    assert 'X[c] = X[c].astype("category").cat.codes for each column c of \'colour\', \'shape\'' in message
    assert "OneHotEncoder" not in message


def test_svm1odt_undeclared_string_column_is_named_with_both_fixes():
    frame, y = _string_frame()
    with pytest.raises(ValueError) as error:
        SVM1ODT(categorical_features=["colour"]).fit(frame, y)
    message = str(error.value)
    assert """X['colour'] = X['colour'].astype("category").cat.codes;""" in message
    assert "'shape' is not in categorical_features" in message and "OneHotEncoder" in message


def test_svm1odt_fits_the_codes_its_error_recommends():
    frame, y = _string_frame()
    for column in ("colour", "shape"):
        frame[column] = frame[column].astype("category").cat.codes
    model = SVM1ODT(depth=1, categorical_features=["colour", "shape"], time_limit=30).fit(frame, y)
    assert model.score(frame, y) == 1.0      # colour alone separates y (red rows are the even ones)


def test_model_size_counts_the_solver_model():
    m, _ = _small_minimisation()
    result = solve(m, solver="highs")
    # 2 binary columns, 1 row (x + y >= 1), 2 nonzeros
    assert result.model_size == {"variables": 2, "binaries": 2, "integers": 0, "rows": 1, "nonzeros": 2}
    assert result.objective == 1.0 and result.extra["incumbent"] == "solver"


def test_fitted_estimator_reports_model_size():
    _, binary, y = _frames()
    model = FlowOCT(depth=1, keep_model=True).fit(binary, y)
    size = model.solve_result_.model_size
    # the same counts read from the Pyomo model through Pyomo's own API
    variables = [v for v in model.model_.component_data_objects(pyo.Var) if not v.fixed]
    rows = list(model.model_.component_data_objects(pyo.Constraint, active=True))
    assert size["variables"] == len(variables) and size["rows"] == len(rows)
    assert size["binaries"] == sum(v.is_binary() for v in variables)
    assert size["nonzeros"] >= size["rows"]


# ------------------------------------------------------------------ item 9: SVM1ODT's defaults
def _grid_data():
    """40 neighbouring values of a grid of 1/255 (as skin segmentation's colours), 100/255 to 139/255, one
    feature; label: value >= 120/255 (20 rows of each class)."""
    x = np.arange(100, 140) / 255
    return x[:, None], (x >= 120 / 255).astype(int)


def test_svm1odt_defaults_scale_the_margin_to_the_data():
    X, y = _grid_data()
    model = SVM1ODT(depth=1, time_limit=60).fit(X, y)
    # resolution 1/255 (neighbouring grid values differ by at least one step) -> ε = 1/510, α₁ = 2 / ε = 1020
    assert model.epsilon_ == pytest.approx(1 / 510) and model.alpha1_ == pytest.approx(1020)
    # a row in a margin costs at most α₁·ε = 2 errors, and CART's split has no row within ε: the tree errs at
    # most as often as CART's (which is perfect here: the classes are split by x <= 119.5/255)
    assert np.mean(model.predict(X) == y) >= _cart(X, y, 1).score(X, y) == 1.0


def test_one_leaf_tree_on_data_cart_splits_warns():
    X, y = _grid_data()
    # ε = 0.5, α₁ = 1e4: the rows span 0.39-0.55, so every row is closer than 0.5 to any plane that splits them,
    # and a split costs thousands while one leaf errs on 20 rows
    with pytest.warns(Warning) as caught:
        model = SVM1ODT(depth=1, alpha1=1e4, epsilon=0.5, time_limit=60).fit(X, y)
    assert len(np.unique(model.predict(X))) == 1
    assert any(w.category.__name__ == "OneLeafTreeWarning" and w.filename == __file__ for w in caught)


def test_objective_at_prices_a_start_by_hand():
    from odtlib.models.svm1odt.svm1odt import objective_at

    X, y = np.array([[0.0], [0.2], [0.8], [1.0]]), np.array([0, 0, 1, 1])
    model = SVM1ODT(depth=1, alpha1=1000.0, alpha2=0.1, epsilon=0.01)
    model.classes_ = np.array([0, 1])
    ctx = model._context(X, y)
    formulation = model._build(ctx)
    pyomo_model, start = formulation.model, formulation.values_of(_cart_tree_of(X, y))
    # CART: x <= 0.5 left. Scaled so that max |g - h x| = 1: h = 2, g = 1; margins 1, 0.6, 0.6, 1 >= ε (no
    # slack), no error: (1a) = α₂ · ||h||₁ = 0.1 · 2
    assert objective_at(pyomo_model, start) == pytest.approx(0.2)


def _cart_tree_of(X, y):
    from odtlib.tree import Tree

    return Tree.from_sklearn(_cart(X, y, 1), np.array([0, 1]))


def test_time_limited_svm1odt_reports_no_trivial_bound():
    X, y = _grid_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotProvedOptimalWarning)
        model = SVM1ODT(depth=2, **NO_TIME["highs"]).fit(X, y)
    result = model.solve_result_
    # (1a)'s LP bound is 0 (fractional e, c meet every row for free): never "bound 0, gap 100 %"
    assert result.bound is None or result.bound > 0
    assert result.gap is None or result.gap < 1


def test_svm1odt_paper_method_keeps_the_printed_values():
    model = SVM1ODT.paper_method("S1O", depth=2)
    assert (model.alpha1, model.alpha2, model.epsilon, model.warm_start) == (1000.0, 0.1, 0.01, True)


# ------------------------------------------------------------------ item 8: S-OCT / OCT-H start on HiGHS
@pytest.mark.parametrize("estimator", [SOCT, OCTH], ids=lambda e: e.__name__)
def test_hyperplane_models_on_highs_start_from_the_better_of_svm_and_repair(estimator):
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = estimator(depth=2, **NO_TIME["highs"]).fit(X, y)
        paper = estimator(depth=2, repaired_start=False, **NO_TIME["highs"]).fit(X, y)
    # with no time to search, each returns its start: the paper's is S-OCT's SVM heuristic's tree, OCT-H's
    # CART's (its thresholds moved into gaps of ε), ours the better of that and the repair's tree, so never
    # fewer correct rows
    paper_start = "svm" if estimator is SOCT else "cart"
    assert paper.warm_start_source_ == paper_start and ours.warm_start_source_ in (paper_start, "repair")
    assert (ours.predict(X) == y).sum() >= (paper.predict(X) == y).sum()
    # the repair's tree from the data alone: (1a) = correct rows; breast cancer is all but separable at depth 2,
    # CART's depth-2 tree alone already gets more than 90 % of the 569 rows
    assert (ours.predict(X) == y).sum() >= _cart(X, y, 2).score(X, y) * len(y) > 0.9 * 569


def test_soct_paper_methods_keep_the_papers_start():
    assert all(not SOCT.paper_method(name).repaired_start for name in SOCT.PAPER_METHODS)
