"""Paper 004's SVM1-ODT (Zhu et al. 2020): formulation (1a)-(1l), the cuts of Proposition 1, the categorical
extension (8a)-(8f), decoding, weights and the input contract.

Oracles: the enumeration of hyperplane trees of ``tests/oracles_hyperplane.py`` (strict separability and the
ε-margin problem), paper 002's S-OCT, and an exhaustive search over (column, value subset) splits written here.

**Which problem SVM1-ODT solves, and when its optimum counts correct points.** With M = 1 (Theorem 2) a split
needs |g - h·x| <= 1 on every point and a gap ε on each side; a point may sit on the hyperplane, on either
side, when its slack pays m >= ε (α₁·ε in (1a)). So

* with α₁·ε larger than the number of points, a routing that no hyperplane strictly separates never pays, and
  slack is never worth a misclassification;
* an S-OCT ε-margin split (||a||_1 <= 1, gap 0.005) is an SVM1-ODT split for ε <= 0.0025 (take h = a,
  g = b + 0.0025), and every SVM1-ODT split strictly separates.

On data where the strict and the 0.005-margin oracles agree (asserted in each test: points on a 0.1 grid),
SVM1-ODT with α₁·ε > n and a tiny α₂ therefore misclassifies exactly n - (oracle's optimum) points. (α₁ must
not be tiny: with cheap slack every routing is feasible, see
``test_cheap_slack_routes_points_on_the_plane_to_both_sides``.)
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pyomo.environ as pyo
import pytest
from oracles import violated_constraints
from oracles_hyperplane import best_hyperplane_tree

from odtlib.models import SOCT, SVM1ODT, NotProvedOptimalWarning
from odtlib.models.svm1odt.svm1odt import SVM1ODTContext, SVM1ODTFormulation, build_model, threshold_between
from odtlib.tree import CategorySplit, HyperplaneSplit, Leaf, Tree

EXACT = dict(alpha1=1e5, alpha2=1e-4, epsilon=1e-3)      # α₁·ε = 100 > n: counts correct points (module doc)


def grid_data(seed: int, n_rows: int, n_features: int = 2, n_classes: int = 2):
    """Points on a 0.1 grid in [0, 1] with random labels."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 11, size=(n_rows, n_features)) / 10
    return X, rng.integers(0, n_classes, size=n_rows)


def fit(X, y, **params):
    params.setdefault("warm_start", False)
    return SVM1ODT(time_limit=120, **params).fit(X, y)


def misclassified(model) -> float:
    return sum(pyo.value(model.c[i]) for i in model.I)


def model_leaves(model) -> np.ndarray:
    """The leaf of each training point in the solved model (e_il = 1)."""
    return np.array([max(model.L, key=lambda l: pyo.value(model.e[i, l])) for i in model.I])


# ------------------------------------------------------------------------------------------ optimum
@pytest.mark.parametrize("seed,depth,n_rows,n_classes", [(0, 1, 9, 2), (1, 1, 9, 3), (19, 2, 7, 3)])
def test_optimum_counts_the_correct_points_of_the_best_hyperplane_tree(seed, depth, n_rows, n_classes):
    """Against the enumeration oracle (strict separability) and S-OCT (the 0.005-margin problem, whose optimum
    is never above the strict one: equal here, so the problems coincide on these data)."""
    X, y = grid_data(seed, n_rows, n_classes=n_classes)
    strict = best_hyperplane_tree(X, y, depth, epsilon=None)
    assert strict < n_rows                                              # not a trivially separable instance
    soct = SOCT(depth=depth, warm_start=False, time_limit=120).fit(X, y)
    svm = fit(X, y, depth=depth, keep_model=True, **EXACT)
    assert svm.solve_result_.status == soct.solve_result_.status == "optimal"
    assert round(soct.solve_result_.objective) == strict
    assert round(misclassified(svm.model_)) == n_rows - strict
    assert int((svm.predict(X) == y).sum()) == strict


def test_on_one_feature_the_optimum_is_the_best_threshold_tree():
    """In one dimension a hyperplane is a threshold (either way round): depth 2 on more points than the
    enumeration of routings takes quickly, against an exhaustive search over thresholds and against S-OCT.
    Distinct values are 0.1 apart, so ε = 0.02 with |g - h·x| <= 1 realises every threshold; α₁·ε = 20 > n."""
    X, y = grid_data(0, 10, n_features=1, n_classes=3)
    expected = best_mixed_tree(X, y, 2, categorical=[])
    assert expected < len(y)
    svm = fit(X, y, depth=2, keep_model=True, warm_start=True, alpha1=1000, alpha2=1e-4, epsilon=0.02)
    assert round(misclassified(svm.model_)) == len(y) - expected
    assert round(SOCT(depth=2, time_limit=120).fit(X, y).solve_result_.objective) == expected


def test_cheap_slack_routes_points_on_the_plane_to_both_sides():
    """XOR at depth 1: no hyperplane does better than 3 of 4, but with α₁·ε = 0.01 the model puts points on
    the plane (h = 0 works for any routing) and claims all 4; the tree cannot, and fit says so."""
    X = np.array([[0, 0], [1, 1], [0, 1], [1, 0]], dtype=float)
    y = np.array([0, 0, 1, 1])
    assert best_hyperplane_tree(X, y, 1, epsilon=None) == 3
    with pytest.warns(UserWarning, match="routed them to both sides"):
        svm = fit(X, y, depth=1, alpha1=1.0, alpha2=0.1, epsilon=0.01, keep_model=True)
    assert round(misclassified(svm.model_)) == 0
    assert int((svm.predict(X) == y).sum()) <= 3


# ------------------------------------------------------------------------------------------ decoding
@pytest.mark.parametrize("seed,n_classes", [(5, 2), (6, 3)])
def test_the_tree_routes_every_training_point_as_the_solved_model(seed, n_classes):
    X, y = grid_data(seed, 10, n_features=3, n_classes=n_classes)
    svm = fit(X, y, depth=2, keep_model=True, warm_start=True)     # the paper's α₁, α₂, ε (defaults)
    np.testing.assert_array_equal(svm.apply(X), model_leaves(svm.model_))
    m = svm.model_
    u = {l: round(pyo.value(m.u[l])) for l in m.L}
    np.testing.assert_array_equal(svm.predict(X), [svm.classes_[u[l] - 1] for l in model_leaves(m)])
    assert all(isinstance(node, (HyperplaneSplit, Leaf)) for node in svm.tree_.nodes.values())


def test_threshold_keeps_g_when_it_separates_and_otherwise_moves_into_the_gap():
    left, right = np.array([0.1, 0.3]), np.array([0.5, 0.9])
    assert threshold_between(left, right, 0.4, 0.01) == 0.4
    assert threshold_between(left, right, 0.5, 0.01) == pytest.approx(0.4)   # a right point on the plane
    assert threshold_between(left, np.array([]), 0.2, 0.01) == 0.3
    assert threshold_between(np.array([]), right, 0.7, 0.01) == pytest.approx(0.49)
    assert threshold_between(np.array([0.5]), np.array([0.5]), 0.5, 0.01) is None


def test_a_point_on_the_plane_that_the_model_sent_right_goes_right_in_the_tree():
    """A solution set by hand: x = 0.5 lies on h·x = g (p⁺ = p⁻ = 0, slack m = ε) and is in the right leaf."""
    X, y = np.array([[0.0], [0.5], [1.0]]), np.array([0, 1, 1])
    model = build_model(X, y, 1, alpha1=1.0, alpha2=0.1, epsilon=0.01)
    leaf = {0: 2, 1: 3, 2: 3}
    for i, l in itertools.product(range(3), (2, 3)):
        model.e[i, l].value = float(leaf[i] == l)
    model.u[2].value, model.u[3].value = 1.0, 2.0
    model.h_pos[1, 0].value, model.h_neg[1, 0].value, model.g[1].value = 1.0, 0.0, 0.5
    ctx = SVM1ODTContext(X, y, np.array([0, 1]), depth=1)
    tree = SVM1ODTFormulation(ctx, model).decode()
    assert tree.nodes[1].bias == pytest.approx(0.25)
    np.testing.assert_array_equal(tree.apply(X), [2, 3, 3])


def test_svm1odt_fits_through_its_formulation_without_plugins():
    """Proposition 1's cuts are rows of the model, so SVM1ODT's solve runs no plug-in and reports no plug-in
    statistics. Its formulation holds the fit's data, not the estimator, and gives the fitted attributes: the
    α₁ and ε given, and the start (warm_start=True: CART's tree)."""
    X, y = np.array([[0.0], [0.2], [0.8], [1.0]]), np.array([0, 0, 1, 1])
    est = SVM1ODT(depth=1, alpha1=1000.0, epsilon=0.01, warm_start=True).fit(X, y)
    assert "plugins" not in est.solve_result_.extra
    assert (est.alpha1_, est.epsilon_, est.warm_start_source_) == (1000.0, 0.01, "cart")
    ctx = est._context(X, y)
    formulation = est._build(ctx)
    assert type(formulation) is SVM1ODTFormulation and est._callbacks(ctx, formulation) is None
    assert not any(value is est or getattr(value, "__self__", None) is est for value in vars(formulation).values())


def start_values(est, X, y):
    """The estimator's warm-start values for ``est.warm_start`` on (X, y), with the model they belong to."""
    est.classes_ = np.unique(y)
    ctx = est._context(X, np.searchsorted(est.classes_, y))
    formulation = est._build(ctx)
    return formulation.model, formulation.start_values(est._initial_tree(ctx))


@pytest.mark.parametrize("categorical", [None, [0]])
def test_warm_starts_satisfy_every_row(categorical):
    """CART's tree (on a categorical column: the codes <= θ go left) and a given hyperplane tree."""
    X, y = grid_data(13, 12, n_classes=3)
    if categorical:
        X[:, 0] = np.arange(12) % 4 * 3.0                              # codes 0, 3, 6, 9
    given = Tree({1: HyperplaneSplit(np.array([0.0, 2.0]), 1.0, 2, 3), 2: Leaf(int(y[0])), 3: Leaf(int(y[1]))})
    for start in (True, given) + (() if categorical else ("svm",)):
        est = SVM1ODT(depth=2, warm_start=start, categorical_features=categorical)
        model, values = start_values(est, X, y)
        assert violated_constraints(model, values) == []


def test_svm_warm_start_is_paper_002s_tree_on_the_rows_of_the_mip(monkeypatch):
    from odtlib.models.svm1odt import svm1odt as module
    from odtlib.models.svm_tree import SVMTreeClassifier

    def without_counts(tree):                      # a fitted tree_ also carries the leaves' training counts
        return [{k: v for k, v in node.items() if k != "counts"} for node in tree.to_dict()["nodes"]]

    X, y = grid_data(13, 12, n_classes=3)
    est = SVM1ODT(depth=2, warm_start="svm")
    est.classes_ = np.unique(y)
    expected = SVMTreeClassifier(depth=2, random_state=0).fit(X, y).tree_
    assert without_counts(est._initial_tree(SVM1ODTContext(X, y, est.classes_, depth=2))) == without_counts(expected)
    fitted_on = []                                   # with data selection: built on the selected rows only
    original = module.svm_split_tree
    monkeypatch.setattr(module, "svm_split_tree",
                        lambda A, *args, **kw: fitted_on.append(A) or original(A, *args, **kw))
    X, y = blobs(0)
    svm = SVM1ODT(depth=1, data_selection="lp", warm_start="svm", time_limit=30).fit(X, y)
    assert len(fitted_on) == 1
    np.testing.assert_array_equal(fitted_on[0], X[svm.selected_rows_])
    with pytest.raises(ValueError, match="warm_start='svm'"):
        SVM1ODT(warm_start="svm", categorical_features=[0]).fit(X, y)


# ------------------------------------------------------------------------------------------ the cuts
def test_every_combination_of_the_cuts_reaches_the_same_optimum():
    X, y = grid_data(11, 9, n_classes=3)        # Y = 3 > 2^1 leaves: all three cuts of Proposition 1 apply
    objectives = []
    for flags in itertools.product((False, True), repeat=3):
        switches = dict(zip(("leaf_capacity_cuts", "class_coverage_cuts", "pigeonhole_cut"), flags))
        svm = fit(X, y, depth=1, keep_model=True, **switches)
        assert svm.solve_result_.status == "optimal"
        for name, on in switches.items():
            assert hasattr(svm.model_, name) == on
        objectives.append(svm.solve_result_.objective)
    assert max(objectives) - min(objectives) <= 1e-5 * max(1.0, abs(objectives[0])) + 2e-6


def test_the_cuts_hold_at_the_optimum_of_the_model_without_them():
    X, y = grid_data(12, 9, n_classes=3)
    m = fit(X, y, depth=1, keep_model=True, leaf_capacity_cuts=False, class_coverage_cuts=False,
            pigeonhole_cut=False, **EXACT).model_
    sizes = np.sort(np.bincount(y))
    errors = misclassified(m)
    in_leaf = {l: sum(pyo.value(m.e[i, l]) for i in m.I) for l in m.L}
    assert all(errors >= in_leaf[l] - sizes[-1] - 1e-6 for l in m.L)                    # (1)
    assert all(errors + in_leaf[l] >= sizes[0] * (3 - 2 + 1) - 1e-6 for l in m.L)        # (2)
    assert errors >= sizes[0] - 1e-6                                                      # (3)


# ------------------------------------------------------------------------------------------ categorical
def best_mixed_tree(X, y, depth, categorical):
    """Most points a tree of depth <= ``depth`` classifies correctly when a node sends left the points whose
    code in one categorical column is in a subset, or (the numerical columns, one at most here) the points
    on one side of a threshold; exhaustive."""
    numeric = [j for j in range(X.shape[1]) if j not in categorical]
    assert len(numeric) <= 1

    def partitions(members):
        for j in categorical:
            codes = sorted(set(X[members, j]))
            for r in range(len(codes) + 1):
                for subset in itertools.combinations(codes, r):
                    yield frozenset(i for i in members if X[i, j] in subset)
        for j in numeric:
            for t in sorted(set(X[members, j])):
                yield frozenset(i for i in members if X[i, j] <= t)
                yield frozenset(i for i in members if X[i, j] > t)

    @lru_cache(maxsize=None)
    def best(points: frozenset, levels: int) -> int:
        members = sorted(points)
        majority = int(np.bincount(y[members]).max()) if members else 0
        if levels == 0:
            return majority
        return max([majority] + [best(left, levels - 1) + best(points - left, levels - 1)
                                 for left in set(partitions(members))])

    return best(frozenset(range(len(y))), depth)


@pytest.mark.parametrize("seed,depth", [(0, 1), (1, 2), (2, 2)])
def test_categorical_splits_equal_the_exhaustive_search(seed, depth):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(9, 2)).astype(float)            # two columns of codes 0, 1, 2
    y = rng.integers(0, 2, size=9)
    svm = fit(X, y, depth=depth, categorical_features=[0, 1], keep_model=True, alpha1=1e4, alpha2=1e-4,
              epsilon=0.01)
    expected = best_mixed_tree(X, y, depth, [0, 1])
    assert svm.solve_result_.status == "optimal"
    assert round(misclassified(svm.model_)) == len(y) - expected
    assert int((svm.predict(X) == y).sum()) == expected
    np.testing.assert_array_equal(svm.apply(X), model_leaves(svm.model_))
    splits = [node for node in svm.tree_.nodes.values() if not isinstance(node, Leaf)]
    assert all(isinstance(node, CategorySplit) or not node.weights.any() for node in splits)   # no numeric column


@pytest.mark.parametrize("seed", [3, 4])
def test_mixed_data_split_by_category_or_by_hyperplane_equal_the_exhaustive_search(seed):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 4, size=8) * 2.0, rng.integers(0, 11, size=8) / 10])  # codes 0..6, [0, 1]
    y = rng.integers(0, 2, size=8)
    svm = fit(X, y, depth=2, categorical_features=[0], keep_model=True, warm_start=True, alpha1=1e4,
              alpha2=1e-4, epsilon=0.01)
    expected = best_mixed_tree(X, y, 2, [0])
    assert round(misclassified(svm.model_)) == len(y) - expected
    assert int((svm.predict(X) == y).sum()) == expected
    np.testing.assert_array_equal(svm.apply(X), model_leaves(svm.model_))


def test_categorical_features_by_name_are_exempt_from_the_unit_interval():
    import pandas as pd

    X = pd.DataFrame({"colour": [0.0, 5.0, 5.0, 9.0, 0.0, 9.0], "size": [0.1, 0.2, 0.9, 0.8, 0.3, 0.7]})
    y = np.array([0, 1, 1, 0, 0, 0])
    svm = fit(X, y, depth=1, categorical_features=["colour"], alpha1=1e4, alpha2=1e-4)
    assert (svm.predict(X) == y).all()                           # colour in {5} goes one way
    assert isinstance(svm.tree_.nodes[svm.tree_.root], CategorySplit)
    with pytest.raises(ValueError, match="not a column of X"):
        fit(X, y, depth=1, categorical_features=["weight"])


def test_category_split_routes_by_membership_and_round_trips():
    tree = Tree({1: CategorySplit(0, [2, 0], 2, 3), 2: Leaf("a"), 3: Leaf("b")})
    np.testing.assert_array_equal(tree.predict(np.array([[0.0], [1.0], [2.0], [7.0]])), ["a", "b", "a", "b"])
    assert Tree.from_dict(tree.to_dict()) == tree
    assert "x0 in {0, 2}" in tree.to_text()


# ------------------------------------------------------------------------------------------ weights, input, limits
def test_sample_weight_multiplies_the_misclassification_of_a_point():
    """Two copies of one point with different labels: the heavier label wins the leaf."""
    X = np.array([[0.2, 0.2], [0.2, 0.2], [0.9, 0.9], [0.8, 0.9]])
    y = np.array([0, 1, 1, 1])
    for weights, label in (([3, 1, 1, 1], 0), ([1, 3, 1, 1], 1)):
        svm = SVM1ODT(depth=1, warm_start=False, **EXACT).fit(X, y, sample_weight=np.array(weights, dtype=float))
        assert svm.predict(X[:1])[0] == label
        assert svm.solve_result_.objective == pytest.approx(1.0, abs=0.05)   # the lighter copy is misclassified
    with pytest.raises(ValueError):
        SVM1ODT(depth=1).fit(X, y, sample_weight=np.array([1.0, -1.0, 1.0, 1.0]))


def test_alpha1_zero_is_rejected_with_the_reason():
    X, y = grid_data(0, 6)[0], np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match="alpha1=0 makes SVM1-ODT trivial"):
        SVM1ODT(alpha1=0).fit(X, y)


def test_features_outside_the_unit_interval_are_rejected():
    X, y = grid_data(0, 6)[0], np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"needs features scaled to \[0, 1\].*UnitScaler"):
        SVM1ODT().fit(X * 3, y)


def test_a_time_limited_solve_warns_and_returns_its_incumbent():
    X, y = grid_data(21, 60, n_features=4, n_classes=3)
    with pytest.warns(NotProvedOptimalWarning, match="not proved optimal"):
        svm = SVM1ODT(depth=2, time_limit=1).fit(X, y)
    assert svm.solve_result_.status == "time_limit" and np.isfinite(svm.solve_result_.objective)
    assert svm.tree_.depth <= 2 and svm.predict(X).shape == y.shape


# ------------------------------------------------------------------------------------------ data selection
def blobs(seed: int, n_rows: int = 60):
    """Two classes of points in [0, 1]^2, around (0.3, 0.3) and (0.7, 0.7)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n_rows) % 2
    X = np.clip(0.3 + 0.4 * y[:, None] + rng.normal(0, 0.12, size=(n_rows, 2)), 0, 1)
    return X, y


@pytest.mark.parametrize("method", ["lp", "balanced"])
def test_data_selection_trains_on_the_selectors_rows(method):
    from sklearn.tree import DecisionTreeClassifier

    from odtlib.models.svm1odt.data_selection import LPDataSelector

    X, y = blobs(0)
    svm = SVM1ODT(depth=1, data_selection=method).fit(X, y)   # in this process, after the selector's HiGHS LPs
    cart = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    expected = LPDataSelector(depth=1, method=method).fit(X, y, tree=cart).get_support(indices=True)
    np.testing.assert_array_equal(svm.selected_rows_, expected)
    assert 0 < svm.selection_["n_selected"] == len(expected) < len(y)
    assert svm.selection_["selected_fraction"] == pytest.approx(len(expected) / len(y))
    assert svm.score(X, y) >= cart.score(X, y) - 0.05
    assert sum(leaf.n_samples for leaf in svm.tree_.nodes.values() if isinstance(leaf, Leaf)) == len(y)


def test_iterative_data_selection_records_each_round():
    X, y = blobs(1, 40)
    svm = SVM1ODT(depth=1, data_selection="iterative", n_iterations=2, time_limit=60).fit(X, y)
    history = svm.selection_["history"]
    assert [h["iteration"] for h in history] == [0, 1, 2]
    assert history[-1]["n_selected"] == len(svm.selected_rows_) == svm.selection_["n_selected"]
    assert history[-1]["train_accuracy"] == pytest.approx(svm.score(X, y))


def test_data_selection_is_refused_with_categorical_features():
    X, y = blobs(0, 10)
    with pytest.raises(ValueError, match="data_selection works on numerical features"):
        SVM1ODT(data_selection="lp", categorical_features=[0]).fit(X, y)
