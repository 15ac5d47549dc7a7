"""Paper 004's data selection as meta-estimators (odtlib.models.svm1odt.selected): DataSelectedClassifier
(Section 3, Algorithms 1-2) and IterativeTraining (Algorithm 3) around SVM1ODT, and the deprecated
``SVM1ODT(data_selection=...)`` that now fits through them."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.tree import DecisionTreeClassifier

from odtlib.models import SVM1ODT, DataSelectedClassifier, IterativeTraining
from odtlib.models.svm1odt import LPDataSelector, default_epsilon, iterative_selection
from odtlib.tree import Leaf, Tree


def blobs(seed: int, n_rows: int = 60):
    """Two classes of points in [0, 1]^2, around (0.3, 0.3) and (0.7, 0.7)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n_rows) % 2
    X = np.clip(0.3 + 0.4 * y[:, None] + rng.normal(0, 0.12, size=(n_rows, 2)), 0, 1)
    return X, y


def squares():
    """A square of each class on either side of x0 = 0.5, each with its centre (rows 4 and 9)."""
    X = np.array([[0.1, 0.1], [0.3, 0.1], [0.1, 0.3], [0.3, 0.3], [0.2, 0.2],
                  [0.7, 0.7], [0.9, 0.7], [0.7, 0.9], [0.9, 0.9], [0.8, 0.8]])
    return X, np.repeat([0, 1], 5)


def section_3_by_hand(X, y, depth: int, method: str = "lp"):
    """Section 3 spelled out (the steps SVM1ODT(data_selection=...) took before the meta-estimator): CART's tree
    of the same depth on every row, LPDataSelector on its clusters, then SVM1ODT on the kept rows with ε
    resolved on every row (α₁ = 2/ε) and CART's tree as the warm start."""
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
    rows = LPDataSelector(depth=depth, method=method).fit(X, y, tree=cart).get_support(indices=True)
    epsilon = default_epsilon(X)
    start = Tree.from_sklearn(cart)
    mip = SVM1ODT(depth=depth, alpha1=2 / epsilon, epsilon=epsilon, warm_start=start).fit(X[rows], y[rows])
    return rows, mip.tree_


@pytest.mark.parametrize("method", ["lp", "balanced"])
def test_data_selected_classifier_is_section_3_and_the_old_svm1odt_tree(method):
    X, y = blobs(0)
    rows, expected = section_3_by_hand(X, y, depth=1, method=method)
    clf = DataSelectedClassifier(SVM1ODT(depth=1), LPDataSelector(depth=1, method=method)).fit(X, y)
    np.testing.assert_array_equal(clf.selected_rows_, rows)
    assert 0 < len(rows) < len(y)
    np.testing.assert_array_equal(clf.predict(X), expected.predict(X))
    assert clf.tree_.to_dict() == expected.with_leaf_counts(X, y).to_dict()     # its leaves count every row
    with pytest.warns(FutureWarning, match=r"DataSelectedClassifier\(SVM1ODT\(...\), LPDataSelector\("):
        old = SVM1ODT(depth=1, data_selection=method).fit(X, y)
    np.testing.assert_array_equal(old.selected_rows_, rows)
    assert old.tree_.to_dict() == clf.tree_.to_dict()         # leaf counts too: both count every training row
    assert sum(leaf.n_samples for leaf in clf.tree_.nodes.values() if isinstance(leaf, Leaf)) == len(y)


def test_best_start_under_selection_prices_the_svm_tree_of_the_kept_rows(monkeypatch):
    """warm_start="best" under data selection: CART's tree on every row against paper 002's SVM tree grown on
    the kept rows (on a diagonal boundary the oblique SVM split wins); True keeps CART's tree alone. The start
    changes nothing once the solve proves its optimum."""
    from odtlib.models.svm1odt import svm1odt as module

    grown_on = []
    original = module.svm_split_tree
    monkeypatch.setattr(module, "svm_split_tree", lambda A, *args, **kw: grown_on.append(A) or original(A, *args, **kw))
    X = np.random.default_rng(0).uniform(0, 1, size=(80, 2))
    y = (X.sum(axis=1) > 1).astype(int)
    best = DataSelectedClassifier(SVM1ODT(depth=1, warm_start="best", time_limit=30)).fit(X, y)
    assert len(grown_on) == 1 and best.estimator_.warm_start_source_ == "svm"
    np.testing.assert_array_equal(grown_on[0], X[best.selected_rows_])
    cart = DataSelectedClassifier(SVM1ODT(depth=1, warm_start=True, time_limit=30)).fit(X, y)
    assert len(grown_on) == 1 and cart.estimator_.warm_start_source_ == "tree"
    np.testing.assert_array_equal(cart.selected_rows_, best.selected_rows_)
    assert best.solve_result_.status == cart.solve_result_.status == "optimal"
    assert best.solve_result_.objective == pytest.approx(cart.solve_result_.objective)


def test_the_squares_keep_their_corners():
    # each class is one cluster of CART's stump; its centre is the one point inside the hull of the other four,
    # and with beta1 = 0.9 Algorithm 1 keeps N \ I once |I| = 1 >= (1 - 0.9) * 5: rows 0-3 and 5-8
    X, y = squares()
    clf = DataSelectedClassifier(SVM1ODT(depth=1), LPDataSelector(depth=1, beta1=0.9)).fit(X, y)
    assert clf.selected_rows_.tolist() == [0, 1, 2, 3, 5, 6, 7, 8]
    assert clf.score(X, y) == 1.0 and clf.n_features_in_ == 2
    assert clf.selector_.interior_.tolist() == [False] * 4 + [True] + [False] * 4 + [True]
    np.testing.assert_array_equal(clf.classes_, [0, 1])
    assert clf.solve_result_ is clf.estimator_.solve_result_
    assert clf.predict_proba(X).shape == (10, 2)


def test_default_selector_takes_the_estimators_depth_and_parameters_nest():
    X, y = blobs(3, 30)
    clf = DataSelectedClassifier(SVM1ODT(depth=1)).fit(X, y)
    assert clf.selector_.depth == 1 and clf.selector_.tree_.depth == 1
    assert clf.estimator is not clf.estimator_ and not hasattr(clf.estimator, "tree_")
    nested = clone(clf).set_params(estimator__depth=2, selector=LPDataSelector(depth=2))
    assert nested.get_params()["estimator__depth"] == 2 and nested.get_params()["selector__depth"] == 2


def test_feature_names_and_weights_reach_the_kept_rows():
    X, y = blobs(4, 30)
    frame = pd.DataFrame(X, columns=["a", "b"])
    weights = np.arange(1, 31, dtype=float)
    clf = DataSelectedClassifier(SVM1ODT(depth=1)).fit(frame, y, sample_weight=weights)
    assert list(clf.feature_names_in_) == ["a", "b"] and clf.tree_.feature_names == ["a", "b"]
    with pytest.warns(FutureWarning):
        old = SVM1ODT(depth=1, data_selection="lp").fit(frame, y, sample_weight=weights)
    assert old.tree_.to_dict() == clf.tree_.to_dict()


def test_selection_refuses_categorical_features_and_an_estimator_that_selects_itself():
    X, y = blobs(0, 10)
    with pytest.raises(ValueError, match="data selection works on numerical features"):
        DataSelectedClassifier(SVM1ODT(categorical_features=[0])).fit(X, y)
    with pytest.raises(ValueError, match="selects data itself"):
        DataSelectedClassifier(SVM1ODT(data_selection="lp")).fit(X, y)
    with pytest.raises(ValueError, match=r"needs features scaled to \[0, 1\].*'b'"):
        DataSelectedClassifier(SVM1ODT(depth=1)).fit(pd.DataFrame(X * [1, 3], columns=["a", "b"]), y)
    with pytest.raises(ValueError, match="selector"):
        DataSelectedClassifier(SVM1ODT(), selector="lp").fit(X, y)


def test_iterative_training_rounds_follow_algorithm_3():
    X, y = blobs(1, 40)
    one = IterativeTraining(SVM1ODT(depth=1, time_limit=60), n_iterations=1).fit(X, y)
    two = IterativeTraining(SVM1ODT(depth=1, time_limit=60), n_iterations=2).fit(X, y)
    # round 2 trains on the rows Algorithm 3 selects around round 1's tree
    rows, _ = iterative_selection(one.tree_, X, y, 0.0)
    np.testing.assert_array_equal(two.selected_rows_, rows)
    assert [h["iteration"] for h in two.history_] == [0, 1, 2]
    assert two.history_[-1]["n_selected"] == len(two.selected_rows_)
    assert two.history_[-1]["train_accuracy"] == pytest.approx(two.score(X, y))
    assert two.history_[0]["train_accuracy"] == pytest.approx(
        DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y).score(X, y))
    with pytest.warns(FutureWarning, match=r"IterativeTraining\(SVM1ODT\(...\), n_iterations=2\)"):
        old = SVM1ODT(depth=1, data_selection="iterative", n_iterations=2, time_limit=60).fit(X, y)
    assert old.tree_.to_dict() == two.tree_.to_dict()
    assert old.selection_["history"] == two.history_


def test_deprecated_parameters_warn_even_without_data_selection():
    X, y = squares()
    with pytest.warns(FutureWarning, match=r"SVM1ODT\(beta1=0.3\).*remove them"):
        SVM1ODT(depth=1, beta1=0.3).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)        # neither the plain estimator nor the composition warns
        SVM1ODT(depth=1).fit(X, y)
        DataSelectedClassifier(SVM1ODT(depth=1)).fit(X, y)
