"""OptimalTreeClassifier (issue 32): each path's tree against an optimum derived here, independently of odtlib's
models and encoders, on small raw DataFrames; its scikit-learn contract; the missing-value policy; and unique
threshold column names (``ClassChangeThresholdEncoder``).

Oracles: ``tests/oracles.py`` (exhaustive recursion over 0/1 columns), ``tests/oracles_subset.py`` (every subset
tree of a fixed shape, paper 000's leaf labels), ``tests/oracles_hyperplane.py`` (every bipartition of the rows
that an ε-margin hyperplane separates). The 0/1 columns they search are built in this file.
"""
from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from oracles import brute_force_tree
from oracles_hyperplane import best_hyperplane_tree
from oracles_subset import best_weighted, frontier
from test_estimator_checks import SAMPLE_WEIGHT_GAPS

from odtlib.encoders import ClassChangeThresholdEncoder
from odtlib.models import OptimalTreeClassifier


def mixed_frame(n_rows: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """A numeric column with repeated values, a small-integer column, a 3-valued category and a bool, with
    labels that depend on them plus noise."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "length": rng.integers(0, 12, n_rows) / 4.0,
        "count": rng.integers(0, 4, n_rows),
        "colour": rng.choice(["red", "green", "blue"], n_rows),
        "shiny": rng.random(n_rows) < 0.5,
    })
    signal = ((frame.length > 1.2) & (frame.colour != "green")) | (frame.shiny & (frame["count"] >= 2))
    y = np.where(rng.random(n_rows) < 0.8, signal, rng.random(n_rows) < 0.5)
    return frame, np.where(y, "yes", "no")


def every_threshold_binarisation(frame: pd.DataFrame) -> np.ndarray:
    """0/1 columns for every univariate test of the raw data: ``x <= t`` at the midpoint of every pair of
    consecutive distinct values of a numeric column (not only at class changes), ``x == v`` for every value of
    a categorical or bool column. Every univariate split of the data is one of these columns."""
    columns = []
    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
            values = np.unique(column.to_numpy(dtype=float))
            columns += [column.to_numpy(dtype=float) <= (a + b) / 2 for a, b in zip(values[:-1], values[1:])]
        else:
            columns += [column.to_numpy() == v for v in pd.unique(column)]
    return np.column_stack(columns).astype(int)


def training_correct(model, frame, y) -> int:
    return int((model.predict(frame) == y).sum())


# ------------------------------------------------------------------------------------------ paths
@pytest.mark.parametrize("depth, n_rows, seed", [(2, 40, 0), (2, 50, 1), (3, 24, 2)])
def test_univariate_path_is_optimal_over_every_threshold(depth, n_rows, seed):
    """thresholds="all": the most accurate tree of the depth over every threshold of the raw data (the
    exhaustive search over all midpoints, class changes or not)."""
    frame, y = mixed_frame(n_rows, seed)
    labels = np.unique(y, return_inverse=True)[1]
    best = brute_force_tree(every_threshold_binarisation(frame), labels, depth)[1]
    model = OptimalTreeClassifier(depth=depth).fit(frame, y)
    assert model.path_.splits == "univariate" and model.path_.estimator == "ThresholdTreeSearch"
    assert "UnitScaler" in model.path_.encoding and model.path_.solver == "none (exact search)"
    assert model.solve_result_.status == "optimal"
    assert training_correct(model, frame, y) == best


@pytest.mark.parametrize("depth, estimator", [(4, "ThresholdTreeSearch"), (5, "ThresholdTreeSearch"),
                                              (6, "RegularizedBendOCT")])
def test_deep_trees_match_streed(depth, estimator):
    """Depths 4 and 5 are still the exact search; beyond them the univariate path is paper 003's engine on SCIP. Both
    trees are as accurate as STreeD's (a dynamic program, independent of odtlib) on every midpoint of the raw
    data."""
    from oracles import pystreed_correct

    frame, y = mixed_frame(30, 8)
    labels = np.unique(y, return_inverse=True)[1]
    model = OptimalTreeClassifier(depth=depth).fit(frame, y)
    assert model.path_.estimator == estimator
    assert model.path_.solver == ("scip" if estimator == "RegularizedBendOCT" else "none (exact search)")
    assert model.solve_result_.status == "optimal"
    assert training_correct(model, frame, y) == pystreed_correct(every_threshold_binarisation(frame), labels,
                                                                 depth)


def test_quantile_path_is_optimal_over_its_thresholds():
    """thresholds="quantile", k=3: optimal over the tests x > q at the 1/3 and 2/3 quantiles (midpoint rule)
    of each numeric column and the categories; no better, here, than over every threshold."""
    frame, y = mixed_frame(45, 3)
    columns = []
    for name in ("length", "count"):
        x = frame[name].to_numpy(dtype=float)
        columns += [x > q for q in np.unique(np.quantile(x, [1 / 3, 2 / 3], method="midpoint"))]
    columns += [frame.colour.to_numpy() == v for v in ("red", "green", "blue")] + [frame.shiny.to_numpy()]
    labels = np.unique(y, return_inverse=True)[1]
    best = brute_force_tree(np.column_stack(columns).astype(int), labels, 2)[1]
    model = OptimalTreeClassifier(depth=2, thresholds="quantile", k=3).fit(frame, y)
    assert "QuantileThresholdEncoder(k=3)" in model.path_.encoding
    assert training_correct(model, frame, y) == best
    every = brute_force_tree(every_threshold_binarisation(frame), labels, 2)[1]
    assert best <= every


def test_subset_path_is_paper000_optimum():
    """splits="subset", binary labels: the best full depth-2 tree of subset tests on the categorical columns with
    paper 000's leaf labels (left to right: no, yes, no, yes), by enumeration of every subset at every node."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"fruit": rng.choice(list("abcd"), 36), "size": rng.choice(["S", "M", "L"], 36)})
    y = np.where(frame.fruit.isin(["a", "c"]) ^ (frame["size"] == "L") ^ (rng.random(36) < 0.15), "yes", "no")
    groups, blocks, start = [], [], 0
    for name in frame.columns:
        values = sorted(frame[name].unique())
        blocks += [frame[name].to_numpy() == v for v in values]
        groups.append(list(range(start, start + len(values))))
        start += len(values)
    A = np.column_stack(blocks).astype(int)
    best = best_weighted(frontier(A, y == "yes", groups, ((None, None), (None, None)), free_labels=False))
    model = OptimalTreeClassifier(depth=2, splits="subset").fit(frame, y)
    assert model.path_.splits == "subset" and "subtree_benders" in model.path_.estimator
    assert training_correct(model, frame, y) == best


def test_subset_splits_on_multiclass_data_take_the_univariate_path():
    frame, y = mixed_frame(30, 4)
    y = np.where(frame.colour == "blue", "maybe", y)
    model = OptimalTreeClassifier(depth=1, splits="subset").fit(frame, y)
    assert model.path_.splits == "univariate" and "3 classes" in model.path_.reason
    labels = np.unique(y, return_inverse=True)[1]
    assert training_correct(model, frame, y) == brute_force_tree(every_threshold_binarisation(frame), labels, 1)[1]


def test_hyperplane_path_is_soct_optimum():
    """splits="hyperplane", depth 1: the most points a single ε-margin hyperplane split classifies correctly
    on the min-max scaled columns (ε = 0.005, S-OCT's margin), by checking every bipartition of the rows."""
    rng = np.random.default_rng(6)
    frame = pd.DataFrame({"u": rng.random(9).round(2), "v": rng.random(9).round(2)})
    y = np.where(frame.u + frame.v > 1 + rng.normal(scale=0.3, size=9), "hi", "lo")
    scaled = (frame - frame.min()) / (frame.max() - frame.min())
    best = best_hyperplane_tree(scaled.to_numpy(), np.unique(y, return_inverse=True)[1], 1)
    model = OptimalTreeClassifier(depth=1, splits="hyperplane", time_limit=120).fit(frame, y)
    assert model.path_.splits == "hyperplane" and model.path_.estimator.startswith("SOCT")
    assert training_correct(model, frame, y) == best


# ------------------------------------------------------------------------------------------ the estimator
def test_scikit_learn_contract_and_path_report(caplog):
    frame, y = mixed_frame(40, 7)
    with caplog.at_level(logging.INFO, logger="odtlib.models.optimal_tree"):
        model = OptimalTreeClassifier(depth=2).fit(frame, y)
    assert [r.getMessage() for r in caplog.records] == [f"OptimalTreeClassifier: {model.path_}"]
    assert "univariate splits by ThresholdTreeSearch on none (exact search)" in repr(model.solve_result_)
    assert list(model.classes_) == ["no", "yes"]
    assert model.n_features_in_ == 4 and list(model.feature_names_in_) == ["length", "count", "colour", "shiny"]
    proba = model.predict_proba(frame)
    assert proba.shape == (40, 2) and np.allclose(proba.sum(axis=1), 1)
    assert np.array_equal(model.classes_[proba.argmax(axis=1)], model.predict(frame))
    assert model.score(frame, y) == pytest.approx(training_correct(model, frame, y) / 40)
    text = model.tree_.to_text()
    used = {name for name in frame.columns if name in text}
    assert used and ("<=" in text or ">" in text)
    assert not any(column in text for column in model.pipeline_[0].get_feature_names_out() if "<=" in column)
    assert clone(model).get_params() == model.get_params()
    with pytest.raises(ValueError, match="feature names"):
        model.predict(frame[["count", "length", "colour", "shiny"]])


@parametrize_with_checks([OptimalTreeClassifier(depth=2)], expected_failed_checks=lambda _: SAMPLE_WEIGHT_GAPS)
def test_sklearn_compatible(estimator, check):
    """scikit-learn's own estimator checks (numeric arrays: the univariate path, the exact search)."""
    check(estimator)


def test_arrays_work_without_feature_names():
    frame, y = mixed_frame(30, 8)
    X = frame[["length", "count"]].to_numpy()
    model = OptimalTreeClassifier(depth=1).fit(X, y)
    assert not hasattr(model, "feature_names_in_") and model.n_features_in_ == 2
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :1])


@pytest.mark.parametrize("params", [dict(splits="oblique"), dict(depth=0), dict(thresholds="some"), dict(k=1),
                                    dict(solver="cbc"), dict(missing="drop"), dict(leaf_penalty=2.0)])
def test_parameters_are_validated(params):
    frame, y = mixed_frame(10, 9)
    with pytest.raises(InvalidParameterError):
        OptimalTreeClassifier(**params).fit(frame, y)


def test_leaf_penalty_only_for_univariate_splits():
    frame, y = mixed_frame(10, 9)
    with pytest.raises(ValueError, match="leaf_penalty applies to univariate splits only"):
        OptimalTreeClassifier(splits="hyperplane", leaf_penalty=0.01).fit(frame, y)


def test_missing_values_policy():
    """missing="error" names the columns; missing="category": a category "missing", and for a numeric column an
    indicator plus the training maximum (so x <= t is false for a missing x at every threshold t of the data)."""
    frame, y = mixed_frame(30, 10)
    frame.loc[[1, 4], "colour"] = np.nan
    frame.loc[[2], "length"] = np.nan
    with pytest.raises(ValueError, match=r"\(NaN\) in 'length' \(1 rows\), 'colour' \(2 rows\).*missing='category'"):
        OptimalTreeClassifier(depth=1).fit(frame, y)
    model = OptimalTreeClassifier(depth=2, missing="category").fit(frame, y)
    encoded = model.pipeline_[0].transform(model._checked(frame))
    assert "colour=missing" in encoded.columns and "length is missing=True" in encoded.columns
    assert encoded["length is missing=True"].tolist() == [int(i == 2) for i in range(30)]
    assert encoded.loc[2, "length"] == 1.0       # the training maximum, scaled: above every threshold of the data
    labels = np.unique(y, return_inverse=True)[1]
    filled = frame.assign(length=frame.length.fillna(frame.length.max()), colour=frame.colour.fillna("missing"),
                          missing=frame.length.isna())
    assert training_correct(model, frame, y) == brute_force_tree(every_threshold_binarisation(filled), labels, 2)[1]
    new_row = frame.iloc[[0]].assign(count=np.nan)           # NaN where fit had none: the training maximum
    assert model.predict(new_row) == model.predict(frame.iloc[[0]].assign(count=frame["count"].max()))


# ------------------------------------------------------------------------------------------ column names
def test_threshold_names_are_unique_where_six_digits_agree():
    """Midpoints 1.00000015, 1.00000025, 1.00000035 all read "1" with 6 significant digits (segment had
    ``x7<=0.0010509`` three times); those names get the digits that read back as their exact threshold, the
    others keep 6 digits, and a fit on them runs."""
    x = np.array([1.0000001, 1.0000002, 1.0000003, 1.0000004, 2.0, 3.0])
    y = np.array([0, 1, 0, 1, 1, 0])
    encoder = ClassChangeThresholdEncoder().fit(pd.DataFrame({"x": x}), y)
    names = list(encoder.get_feature_names_out())
    assert len(names) == len(set(names)) == 4          # class changes between values 1-2, 2-3, 3-4 and 5-6
    assert names[-1] == "x<=2.5"
    for name, a, b in zip(names, x[:3], x[1:4]):
        assert float(name.split("<=")[1]) == (a + b) / 2
    model = OptimalTreeClassifier(depth=2).fit(pd.DataFrame({"x": x}), y)
    assert model.score(pd.DataFrame({"x": x}), y) == pytest.approx(5 / 6)    # 4 intervals for 5 runs of labels
