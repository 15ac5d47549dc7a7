"""The experiments' models are scikit-learn Pipelines (issue 30): paper 004's BinOCT (the class-change threshold
encoder, then BinOCT) and paper 002's comprehensive comparison (the method's encoder, then the estimator; DL8.5's
stand-in, STreeD, is a scikit-learn classifier). An encoder in a Pipeline is refitted on every training part."""
from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from paths import data_mirror
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from sklearn.tree import DecisionTreeClassifier

from odtlib.encoders import UnitScaler
from odtlib.experiments import paper002 as p002
from odtlib.experiments import paper004 as p004
from odtlib.experiments.protocol import TreePipeline, encoded_tree

needs_mirror = pytest.mark.skipif(not data_mirror().is_dir(), reason="no UCI mirror (ODTLIB_DATA_MIRROR)")


# ------------------------------------------------------------------------------------------- paper 004
def test_binoct_is_a_pipeline_whose_thresholds_follow_the_training_part():
    model = p004.make_model("BinOCT", 1, time_limit=30)
    assert isinstance(model, Pipeline) and isinstance(clone(model), TreePipeline)
    # x = 0.1, 0.2 labelled a and 0.3, 0.4 labelled b: one class change, threshold (0.2 + 0.3) / 2 = 0.25
    X = np.array([[0.1], [0.2], [0.3], [0.4]])
    model.fit(X, np.array(["a", "a", "b", "b"]))
    assert model.named_steps["encode"].get_feature_names_out().tolist() == ["x0<=0.25"]
    assert model.solve_result_.status == "optimal" and model.tree_ is model[-1].tree_
    assert model.predict(np.array([[0.0], [0.26], [1.0]])).tolist() == ["a", "b", "b"]
    # refitted with b from 0.4 on: the threshold moves to (0.3 + 0.4) / 2 = 0.35, so 0.32 is now an a
    model.fit(X, np.array(["a", "a", "a", "b"]))
    assert model.named_steps["encode"].get_feature_names_out().tolist() == ["x0<=0.35"]
    assert model.predict(np.array([[0.32]])).tolist() == ["a"]


def test_a_pipeline_without_a_solver_has_no_solve_result():
    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1])
    cart = encoded_tree(UnitScaler(), DecisionTreeClassifier(max_depth=1)).fit(X, y)
    assert getattr(cart, "solve_result_", None) is None
    assert cart.score(X, y) == 1.0        # x <= 1.5 after scaling (x <= 0.5) separates the classes


# ------------------------------------------------------------------------------------------- paper 002
def test_the_dl85_stand_in_is_a_classifier_on_any_labels():
    # depth 1 on two 0/1 features: feature 1 gives leaves {no, no, no} and {yes, yes, no}: 5 of 6 right;
    # feature 0 gives {no, no, yes} and {no, yes, no}: 4 of 6. So the optimum splits on feature 1.
    X = np.array([[0, 0], [1, 0], [0, 0], [1, 1], [0, 1], [1, 1]])
    y = np.array(["no", "no", "no", "yes", "yes", "no"])
    tree = p002._STreeDAsDL85(depth=1, min_sup=1, time_limit=10).fit(X, y)
    assert tree.score(X, y) == pytest.approx(5 / 6)
    assert tree.predict(np.array([[0, 1], [1, 0]])).tolist() == ["yes", "no"]
    # min_sup = 4: a split of 6 rows cannot give two leaves of 4, so one leaf, the majority "no" (4 of 6)
    small = clone(tree).set_params(min_sup=4)
    assert small.get_params() == {"depth": 1, "min_sup": 4, "time_limit": 10}
    assert small.fit(X, y).score(X, y) == pytest.approx(4 / 6)


def test_a_cv_mip_starts_as_the_paper_did():
    pipeline = p002._cv_pipeline("SOCT-baseline", 2, {"max_splits": 2}, dataset="Iris", solver="highs",
                                 time_limit=5, threads=1)
    soct = pipeline[-1]
    assert (soct.warm_start, soct.repaired_start, soct.max_splits) == (True, False, 2)   # the SVM tree alone
    assert p002._start_source("SOCT-baseline") == "svm" and p002._start_source("OCT-H") == "cart"
    assert p002._start_source("CART") == ""


@needs_mirror
def test_the_inner_search_scores_the_inner_folds_with_refitted_encoders():
    X, y = p002.shuffled(*p002._attributes("Soybean (Small)"))
    model = partial(p002._cv_pipeline, "CART", 2, dataset="Soybean (Small)", solver="highs", time_limit=5, threads=1)
    space = [{"max_leaf_nodes": 2}, {"max_leaf_nodes": 4}]
    # by hand: per inner fold, the min-max encoder fitted on the fold's training rows, CART on its output
    expected = []
    for params in space:
        correct = []
        for a, b in p002.inner_folds(y):
            encoder = clone(model(params)["encode"]).fit(X.iloc[a], y.iloc[a])
            cart = DecisionTreeClassifier(max_depth=2, random_state=0, **params)
            cart.fit(np.asarray(encoder.transform(X.iloc[a]), dtype=float), y.iloc[a])
            correct.append(np.mean(cart.predict(np.asarray(encoder.transform(X.iloc[b]), dtype=float)) == y.iloc[b]))
        expected.append(float(np.mean(correct)))
    assert p002._inner_scores(model, space, X, y) == pytest.approx(expected)
    assert p002._inner_scores(model, space[:1], X, y) == []           # one point: no search
