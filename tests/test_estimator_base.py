"""Tests of odtlib.models._base.ODTClassifier with small test doubles (no solver involved)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from odtlib.models import ODTClassifier
from odtlib.tree import Leaf, Tree, UnivariateSplit


# ---------------------------------------------------------------------------------------------- test doubles
class BruteForceStump(ODTClassifier):
    """Binary-feature double: the depth-1 tree with fewest errors, found by trying every feature."""

    def __init__(self, depth=1, solver="highs", time_limit=None):
        self.depth = depth
        self.solver = solver
        self.time_limit = time_limit

    def _fit(self, X, y):
        self.received_ = (X.copy(), y.copy())
        n_classes = len(self.classes_)
        best = None
        for f in range(X.shape[1]):
            left = X[:, f] == 0
            sides = [np.bincount(y[mask], minlength=n_classes) for mask in (left, ~left)]
            errors = sum(int(counts.sum() - counts.max()) for counts in sides)
            if best is None or errors < best[0]:
                best = (errors, f, [int(counts.argmax()) for counts in sides])
        errors, f, (k_left, k_right) = best
        tree = Tree({1: UnivariateSplit(f, 2, 3), 2: Leaf(self.classes_[k_left]), 3: Leaf(self.classes_[k_right])})
        return tree, SimpleNamespace(status="optimal", objective=errors)


class GreedyTree(ODTClassifier):
    """Real-valued double: scikit-learn's CART tree of the given depth, converted to an odtlib Tree."""

    requires_binary_features = False

    def __init__(self, depth=3, solver="highs"):
        self.depth = depth
        self.solver = solver

    def _fit(self, X, y):
        cart = DecisionTreeClassifier(max_depth=self.depth, random_state=0).fit(X, y).tree_
        nodes = {}
        for i in range(cart.node_count):
            left, right = int(cart.children_left[i]), int(cart.children_right[i])
            if left == -1:
                nodes[i] = Leaf(self.classes_[int(np.argmax(cart.value[i]))])
            else:
                nodes[i] = UnivariateSplit(int(cart.feature[i]), left, right, float(cart.threshold[i]))
        return Tree(nodes, root=0), SimpleNamespace(status="optimal")


def binary_data(seed=0, n=60, n_features=4):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, n_features))
    y = np.where(X[:, 2] == 1, "yes", "no")
    return X, y


# ---------------------------------------------------------------------------------------------- fit and predict
def test_fit_encodes_string_labels_and_predicts_original_labels():
    X, y = binary_data()
    model = BruteForceStump().fit(X, y)
    assert model.classes_.tolist() == ["no", "yes"]
    received_X, received_y = model.received_
    assert received_X.dtype == np.float64
    assert received_y.dtype.kind == "i" and set(received_y.tolist()) == {0, 1}
    np.testing.assert_array_equal(model.classes_[received_y], y)
    assert model.tree_.nodes[1].feature == 2  # the stump found the feature that defines y
    assert model.solve_result_.objective == 0
    assert model.n_features_in_ == 4 and not hasattr(model, "feature_names_in_")
    np.testing.assert_array_equal(model.predict(X), y)
    assert model.score(X, y) == 1.0


def test_fit_encodes_non_contiguous_integer_labels():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(40, 3))
    y = np.array([3, 7, 10])[rng.integers(0, 3, size=40)]
    model = BruteForceStump().fit(X, y)
    assert model.classes_.tolist() == [3, 7, 10]
    assert set(model.received_[1].tolist()) == {0, 1, 2}
    np.testing.assert_array_equal(model.classes_[model.received_[1]], y)
    pred = model.predict(X)
    assert pred.dtype == model.classes_.dtype and set(pred.tolist()) <= {3, 7, 10}
    np.testing.assert_array_equal(pred, model.tree_.predict(X))
    assert model.score(X, y) == np.mean(pred == y)


def test_dataframe_feature_names_reach_the_tree():
    X, y = binary_data()
    frame = pd.DataFrame(X, columns=["odor=none", "bruises", "gill=broad", "ring=one"])
    model = BruteForceStump().fit(frame, pd.Series(y, name="edible"))
    assert model.feature_names_in_.tolist() == list(frame.columns)
    assert model.tree_.feature_names == list(frame.columns)
    assert model.tree_.to_text().splitlines()[0] == "if gill != broad:"  # issue 31: one-hot as inequality
    np.testing.assert_array_equal(model.predict(frame), y)
    model.fit(X, y)  # refitting on an array forgets the names
    assert not hasattr(model, "feature_names_in_") and model.tree_.feature_names is None


def test_boolean_dataframe_is_accepted():
    X, y = binary_data()
    frame = pd.DataFrame(X.astype(bool), columns=list("abcd"))
    assert BruteForceStump().fit(frame, y).score(frame, y) == 1.0


def test_real_valued_estimator_accepts_floats_and_matches_cart():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 9, size=(150, 3)) / 8  # grid values: exact in float32, as CART compares
    y = np.array(["a", "b", "c"])[(X[:, 0] + X[:, 1] > 1).astype(int) + (X[:, 2] > 0.5).astype(int)]
    model = GreedyTree(depth=3).fit(X, y)
    cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), cart.predict(X))
    X_new = rng.integers(0, 9, size=(100, 3)) / 8
    np.testing.assert_array_equal(model.predict(X_new), cart.predict(X_new))
    np.testing.assert_array_equal(model.apply(X_new), model.tree_.apply(X_new))


def test_base_class_requires_fit_implementation():
    class NoFit(ODTClassifier):
        pass

    X, y = binary_data()
    with pytest.raises(NotImplementedError, match="NoFit must implement _fit"):
        NoFit().fit(X, y)


# ---------------------------------------------------------------------------------------------- input errors
def test_nan_and_inf_are_reported_with_their_columns():
    X, y = binary_data()
    X = X.astype(float)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="X contains NaN in columns 'x1'"):
        BruteForceStump().fit(X, y)
    frame = pd.DataFrame(X, columns=list("abcd"))
    frame.iloc[0, 3] = np.inf
    with pytest.raises(ValueError, match="X contains NaN and infinite values in columns 'b', 'd'"):
        BruteForceStump().fit(frame, y)
    X[3, 1] = -np.inf
    with pytest.raises(ValueError, match="X contains infinite values in columns 'x1'"):
        BruteForceStump().fit(X, y)


@pytest.mark.parametrize(
    "X, message",
    [
        (np.zeros(10), "2D array"),
        (np.zeros((10, 2, 2)), "dim 3"),
    ],
)
def test_x_must_be_two_dimensional(X, message):
    with pytest.raises(ValueError, match=message):
        BruteForceStump().fit(X, np.arange(10) % 2)


def test_length_mismatch_is_named():
    X, _ = binary_data(n=10)
    with pytest.raises(ValueError, match="X has 10 rows but y has 9 labels"):
        BruteForceStump().fit(X, np.arange(9) % 2)


def test_single_class_is_rejected():
    X, _ = binary_data()
    with pytest.raises(ValueError, match=r"y has only one class \('yes'\)"):
        BruteForceStump().fit(X, ["yes"] * len(X))


@pytest.mark.parametrize(
    "y, message",
    [
        (None, "requires y to be passed"),
        (np.array([0.0, 1.0, np.nan] * 20), "y has 20 missing labels"),
        (np.array(["a", None, "b"] * 20, dtype=object), "y has 20 missing labels"),
        (np.linspace(0, 1, 60), "Unknown label type"),
    ],
)
def test_bad_labels_are_rejected(y, message):
    X, _ = binary_data()
    with pytest.raises(ValueError, match=message):
        BruteForceStump().fit(X, y)


def test_non_binary_features_are_named():
    X, y = binary_data()
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).astype(float)
    frame.loc[0, "b"] = 2
    frame.loc[5, "d"] = 0.5
    with pytest.raises(ValueError, match="BruteForceStump needs binary \\(0/1\\) features, but columns 'b', 'd'"):
        BruteForceStump().fit(frame, y)
    wide = np.random.default_rng(0).random((20, 15))
    with pytest.raises(ValueError, match="'x9' and 5 more"):
        BruteForceStump().fit(wide, np.arange(20) % 2)


def test_non_numeric_columns_point_to_the_encoders():
    frame = pd.DataFrame({"odor": pd.Categorical(["a", "b"] * 5), "size": [0, 1] * 5})
    with pytest.raises(ValueError, match="non-numeric columns 'odor'.*OneHotEncoder"):
        BruteForceStump().fit(frame, [0, 1] * 5)


# scikit-learn's parameter validation (the base's shared constraints) words the first cases; a bool passes its
# Interval (True == 1), so the base's own check words the last one
@pytest.mark.parametrize("depth, message", [
    *[(depth, "'depth' parameter of BruteForceStump must be an int in the range \\[1, inf\\)")
      for depth in (0, -2, 1.5, "2", None)],
    (True, "depth must be an integer >= 1, got True"),
])
def test_depth_must_be_a_positive_integer(depth, message):
    X, y = binary_data()
    with pytest.raises(ValueError, match=message):
        BruteForceStump(depth=depth).fit(X, y)


def test_numpy_integer_depth_is_accepted():
    X, y = binary_data()
    assert BruteForceStump(depth=np.int64(2)).fit(X, y).score(X, y) == 1.0


@pytest.mark.parametrize("solver, message", [
    ("cbc", "unknown solver 'cbc'; choose one of .*highs"),
    ("", "unknown solver ''; choose one of .*highs"),
    (3, "'solver' parameter of BruteForceStump must be an instance of 'str'"),
])
def test_unknown_solver_is_rejected(solver, message):
    X, y = binary_data()
    with pytest.raises(ValueError, match=message):
        BruteForceStump(solver=solver).fit(X, y)


def test_solver_names_are_case_insensitive_like_solve():
    X, y = binary_data()
    assert BruteForceStump(solver="HiGHS").fit(X, y).score(X, y) == 1.0


@pytest.mark.parametrize("time_limit, message", [
    *[(limit, "'time_limit' parameter of BruteForceStump must be a float in the range \\(0.0, inf\\) or None")
      for limit in (0, -5, "60")],
    (True, "time_limit must be a positive number of seconds or None, got True"),
])
def test_time_limit_must_be_positive(time_limit, message):
    X, y = binary_data()
    with pytest.raises(ValueError, match=message):
        BruteForceStump(time_limit=time_limit).fit(X, y)


# ---------------------------------------------------------------------------------------------- predict errors
@pytest.mark.parametrize("method", ["predict", "apply", "score"])
def test_use_before_fit_raises_not_fitted(method):
    X, y = binary_data()
    args = (X, y) if method == "score" else (X,)
    with pytest.raises(NotFittedError):
        getattr(BruteForceStump(), method)(*args)


def test_predict_validates_its_input():
    X, y = binary_data()
    model = BruteForceStump().fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but BruteForceStump is expecting 4"):
        model.predict(X[:, :3])
    bad = X.astype(float)
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="X contains NaN in columns 'x0'"):
        model.predict(bad)


# ---------------------------------------------------------------------------------------------- scikit-learn API
def test_params_clone_and_set_params():
    model = BruteForceStump(depth=2, solver="scip", time_limit=10)
    assert model.get_params() == {"depth": 2, "solver": "scip", "time_limit": 10}
    copy = clone(model)
    assert copy.get_params() == model.get_params() and copy is not model
    copy.set_params(depth=3)
    assert copy.depth == 3 and model.depth == 2
    X, y = binary_data()
    model.fit(X, y)
    assert model.get_params() == {"depth": 2, "solver": "scip", "time_limit": 10}  # fit leaves params alone
    assert not hasattr(clone(model), "tree_")
    assert repr(BruteForceStump(depth=2)) == "BruteForceStump(depth=2)"


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")  # inside sklearn's y check
@parametrize_with_checks([GreedyTree(depth=4)])
def test_sklearn_estimator_checks(estimator, check):
    """scikit-learn's estimator checks on the real-valued double (the binary double fails them by design)."""
    check(estimator)
