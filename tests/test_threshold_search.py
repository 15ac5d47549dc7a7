"""ThresholdTreeSearch and its nested-threshold subroutine (issue 32): exact trees of depth <= 3 over every
threshold of numeric columns.

Oracles, independent of the search:
* ``best_objective_1`` (tests/test_sample_weights.py): exhaustive recursion over 0/1 columns for paper 003's
  weighted objective (1); the 0/1 columns here are every midpoint of every column, built in this file;
* paper 003's D2S on those 0/1 columns (pair counts, no nesting): the toggle "nested levels on/off" must give
  the same optimal values at depths 0-3;
* pystreed on the midpoint columns, for a larger instance at depth 3.
"""
from __future__ import annotations

import numpy as np
import pytest

from oracles import brute_force_tree, pystreed_correct
from test_sample_weights import best_objective_1

from odtlib.models import NotProvedOptimalWarning, OptimalTreeClassifier, ThresholdTreeSearch
from odtlib.models._resources import MemoryBudgetError
from odtlib.models.univariate.accel.d2s import Depth2Solver
from odtlib.models.univariate.accel.nested_thresholds import NestedLevels, NestedSubtreeSolver


def random_numeric(n_rows: int, n_columns: int, n_values: int, n_classes: int, seed: int):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, n_values, size=(n_rows, n_columns)) / 2.0
    return X, rng.integers(0, n_classes, size=n_rows)


def every_midpoint(X: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """0/1 columns x_f <= t for every midpoint t of consecutive distinct values of each column, and the
    thresholds of each column: every univariate split of the rows is one of these columns."""
    thresholds = [(np.unique(x)[:-1] + np.unique(x)[1:]) / 2 for x in X.T]
    columns = [X[:, [f]] <= t[None, :] for f, t in enumerate(thresholds)]
    return np.concatenate(columns, axis=1).astype(int), thresholds


def objective_1(clf, X, y, weights, lam):
    weights = np.asarray(weights, dtype=float)
    return float(weights[clf.predict(X) == y].sum() / weights.sum()) - lam * clf.tree_.n_leaves


# ------------------------------------------------------------------------------------------ the estimator
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("lam", [0.0, 0.04])
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_the_exhaustive_search_over_every_threshold(depth, lam, weighted):
    X, y = random_numeric(14 if depth == 3 else 24, 2, 4, 3, seed=depth + 10 * weighted)
    weights = np.random.default_rng(1).uniform(0, 2, len(y)) * (np.arange(len(y)) % 5 != 0) if weighted \
        else np.ones(len(y))
    clf = ThresholdTreeSearch(depth=depth, leaf_penalty=lam).fit(X, y, sample_weight=weights if weighted else None)
    best = best_objective_1(every_midpoint(X)[0], y, weights, depth, lam, n_classes=3)
    assert clf.solve_result_.status == "optimal"
    assert objective_1(clf, X, y, weights, lam) == pytest.approx(best)
    assert clf.solve_result_.objective == pytest.approx(best) and clf.solve_result_.gap == 0


@pytest.mark.parametrize("depth, n_rows, seed", [(3, 120, 5), (4, 80, 6), (4, 60, 7), (5, 50, 8), (5, 40, 9)])
def test_agrees_with_streed_on_larger_instances(depth, n_rows, seed):
    X, y = random_numeric(n_rows, 3, 12, 3 if seed in (7, 9) else 2, seed=seed)
    clf = ThresholdTreeSearch(depth=depth).fit(X, y)
    assert clf.solve_result_.status == "optimal"
    assert int((clf.predict(X) == y).sum()) == pystreed_correct(every_midpoint(X)[0], y, depth)


@pytest.mark.parametrize("seed", range(12))
def test_depth_4_matches_the_exhaustive_search(seed):
    """Depth 4 (root-cut searches nested two levels above the compiled depth-2 search) against the exhaustive
    recursion, with fractional weights and a leaf penalty on half the seeds."""
    rng = np.random.default_rng(400 + seed)
    X, y = random_numeric(12, 2, 5, 2, seed=400 + seed)
    weights = rng.uniform(0.1, 2, len(y))
    lam = 0.03 if seed % 2 else 0.0
    clf = ThresholdTreeSearch(depth=4, leaf_penalty=lam).fit(X, y, sample_weight=weights)
    best = best_objective_1(every_midpoint(X)[0], y, weights, 4, lam, n_classes=2)
    assert clf.solve_result_.objective == pytest.approx(best) == objective_1(clf, X, y, weights, lam)


def test_an_inner_split_between_two_values_of_one_class_can_be_needed():
    """The class changes of a column (ClassChangeThresholdEncoder) keep the best single split, not the best
    depth-2 tree. On these 12 rows the midpoint 3.5 of column 1 (values 3 and 4 carry only class 1) is needed:
    found by a random search with this file's exhaustive oracle, kept here as the witness."""
    X = np.array([[0, 2, 0], [1, 4, 6], [2, 1, 0], [2, 4, 0], [3, 0, 4], [0, 6, 1], [1, 2, 6], [5, 2, 2],
                  [5, 4, 5], [6, 4, 5], [0, 5, 4], [3, 3, 2]], dtype=float)
    y = np.array([0, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1])
    every = brute_force_tree(every_midpoint(X)[0], y, 2)[1]
    class_change = []
    for x in X.T:
        values = np.unique(x)
        for a, b in zip(values[:-1], values[1:]):
            if len(set(y[(x == a) | (x == b)])) > 1:
                class_change.append(x <= (a + b) / 2)
    assert every == brute_force_tree(np.column_stack(class_change).astype(int), y, 2)[1] + 1
    assert int((ThresholdTreeSearch(depth=2).fit(X, y).predict(X) == y).sum()) == every


@pytest.mark.parametrize("depth", [2, 3])
def test_weight_invariances(depth):
    X, y = random_numeric(20, 2, 5, 2, seed=depth)
    weights = np.random.default_rng(2).integers(0, 3, len(y)).astype(float)
    lam = 0.03
    weighted = ThresholdTreeSearch(depth=depth, leaf_penalty=lam).fit(X, y, sample_weight=weights)
    kept = np.repeat(np.arange(len(y)), weights.astype(int))       # zero weight: removed; k: repeated k times
    repeated = ThresholdTreeSearch(depth=depth, leaf_penalty=lam).fit(X[kept], y[kept])
    scaled = ThresholdTreeSearch(depth=depth, leaf_penalty=lam).fit(X, y, sample_weight=2.5 * weights)
    assert weighted.solve_result_.objective == pytest.approx(repeated.solve_result_.objective)
    assert scaled.solve_result_.objective == pytest.approx(weighted.solve_result_.objective)
    assert np.array_equal(scaled.predict(X), weighted.predict(X))


def test_class_weight_balanced_is_the_balanced_sample_weight():
    X, y = random_numeric(30, 2, 6, 2, seed=7)
    y[:22] = 0
    balanced = ThresholdTreeSearch(depth=2, class_weight="balanced").fit(X, y)
    counts = np.bincount(y)
    explicit = ThresholdTreeSearch(depth=2).fit(X, y, sample_weight=(len(y) / (2 * counts))[y])
    assert balanced.solve_result_.objective == pytest.approx(explicit.solve_result_.objective)


@pytest.mark.parametrize("depth, n_rows", [(3, 300), (4, 300), (5, 60)])
def test_time_limit_returns_the_best_tree_with_its_bound(depth, n_rows):
    X, y = random_numeric(n_rows, 3, 40, 2, seed=8)
    with pytest.warns(NotProvedOptimalWarning, match="gap"):
        clf = ThresholdTreeSearch(depth=depth, time_limit=1e-6).fit(X, y)
    result = clf.solve_result_
    assert result.status == "time_limit" and result.bound > result.objective and result.gap > 0
    assert result.objective == pytest.approx(objective_1(clf, X, y, np.ones(len(y)), 0.0))
    full = ThresholdTreeSearch(depth=depth).fit(X, y).solve_result_
    assert result.objective <= full.objective + 1e-12 <= result.bound + 1e-12


def test_memory_budget_is_checked_before_allocating():
    X, y = random_numeric(50, 3, 10, 2, seed=9)
    with pytest.raises(MemoryBudgetError, match="max_memory"):
        ThresholdTreeSearch(depth=2, max_memory=1000).fit(X, y)


def test_bad_parameters_are_refused():
    X, y = random_numeric(10, 2, 3, 2, seed=3)
    with pytest.raises(ValueError, match="depth"):
        ThresholdTreeSearch(depth=6).fit(X, y)


# ------------------------------------------------------------------------------------------ the subroutine
@pytest.mark.parametrize("seed", range(16))
def test_nested_levels_agree_with_d2s_on_the_binary_columns(seed):
    """Toggle: the nested search and paper 003's D2S (pair counts over unrelated 0/1 columns) on the same
    midpoint columns give the same optimal value at every depth 0-3, with and without a leaf penalty."""
    rng = np.random.default_rng(seed)
    X, y = random_numeric(int(rng.integers(6, 60)), int(rng.integers(1, 4)), 16, int(rng.integers(2, 4)), seed)
    K = int(y.max()) + 1
    weights = 0.05 * rng.integers(0, 3, len(y)) if seed % 2 else None        # small: any slack in a bound shows
    binary, thresholds = every_midpoint(X)
    ranks = np.stack([np.searchsorted(t, x, side="left") for t, x in zip(thresholds, X.T)], axis=1)
    nested = NestedSubtreeSolver(NestedLevels(ranks, [len(t) for t in thresholds]), y, K, sample_weight=weights)
    pairs = Depth2Solver(binary, y, n_classes=K, sample_weight=weights)
    for depth in (0, 1, 2, 3):
        for alpha in (0.0, 0.08):
            assert nested.solve(None, depth, alpha).value == pytest.approx(pairs.solve(None, depth, alpha).value)


@pytest.mark.parametrize("seed", range(10))
def test_pair_counts_on_0_1_features_agree_with_the_scans(seed):
    """Toggle: on 0/1 features the solver takes subtrees of depth <= 3 from D2S's pair and triple counts; the
    scans (pair_counts=False) give the same optimal values at depths 0-5, with weights and a penalty."""
    rng = np.random.default_rng(500 + seed)
    n = int(rng.integers(12, 40))
    binary = rng.integers(0, 2, size=(n, int(rng.integers(2, 6))))
    y = rng.integers(0, 2 + seed % 2, n)
    weights = rng.uniform(0.05, 1.0, n) if seed % 3 else None
    levels = NestedLevels(1 - binary, np.ones(binary.shape[1], dtype=int))      # level 0: the column is 1
    counts = NestedSubtreeSolver(levels, y, int(y.max()) + 1, sample_weight=weights, max_depth=5)
    scans = NestedSubtreeSolver(levels, y, int(y.max()) + 1, sample_weight=weights, max_depth=5, pair_counts=False)
    assert counts._pairs is not None and scans._pairs is None
    for depth in range(6):
        for alpha in (0.0, 0.05):
            assert counts.solve(None, depth, alpha).value == pytest.approx(scans.solve(None, depth, alpha).value)


def test_pair_counts_need_0_1_features():
    with pytest.raises(ValueError, match="0/1 features"):
        NestedSubtreeSolver(NestedLevels(np.array([[0], [1], [2]]), [2]), [0, 1, 0], 2, pair_counts=True)


@pytest.mark.parametrize("seed", range(40))
def test_depth_3_search_agrees_with_the_d2s_scan_under_fractional_weights(seed):
    """The bounded bisection over root cuts against the depth-3 scan of D2S (every root column, no bounds), with
    weights in (0, 0.1]: a bound too loose by a single point's weight would show."""
    rng = np.random.default_rng(100 + seed)
    X, y = random_numeric(40, 3, 24, 2, seed=100 + seed)
    weights = rng.uniform(0.001, 0.1, len(y))
    binary, thresholds = every_midpoint(X)
    ranks = np.stack([np.searchsorted(t, x, side="left") for t, x in zip(thresholds, X.T)], axis=1)
    nested = NestedSubtreeSolver(NestedLevels(ranks, [len(t) for t in thresholds]), y, 2, sample_weight=weights)
    pairs = Depth2Solver(binary, y, n_classes=2, sample_weight=weights)
    assert nested.solve(None, 3, 0.0).value == pytest.approx(pairs.solve(None, 3, 0.0).value, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alpha", [0.0, 0.01])
def test_root_cut_bounds_keep_every_cut_that_can_win(seed, alpha):
    """The interval bound and the interval shrinking of the search (module doc of nested_thresholds), checked
    against every cut's exact value, computed here cut by cut from the two depth-2 sides."""
    from odtlib.models.univariate.accel.nested_thresholds import _root_cuts, _RootFeature, _rows_in_order, _shrunk

    rng = np.random.default_rng(200 + seed)
    X, y = random_numeric(30, 2, 14, 2, seed=200 + seed)
    weights = rng.uniform(0.001, 0.1, len(y))
    ranks = np.stack([np.unique(x, return_inverse=True)[1] for x in X.T], axis=1)
    solver = NestedSubtreeSolver(NestedLevels(ranks, ranks.max(axis=0)), y, 2, sample_weight=weights)
    everyone = np.ones(len(y), dtype=bool)
    for chain in range(2):
        rows = _rows_in_order(solver._orders, everyone)[chain]
        feature = _RootFeature(chain, *_root_cuts(rows, ranks, chain, y, weights, 2))
        goes_right = [ranks[:, chain] <= level for level in feature.level]
        feature.left[:] = [solver.solve(~right, 2, alpha).value for right in goes_right]
        feature.right[:] = [solver.solve(right, 2, alpha).value for right in goes_right]
        value = feature.left + feature.right
        last = len(value) - 1
        for a in range(-1, last + 1):
            for b in range(a + 2, last + 2):
                lo, hi = a + 1, min(b, last + 1) - 1
                b = b if b <= last else -1
                inside = value[lo:hi + 1]
                assert feature.bound(lo, hi, a, b, weights.sum(), alpha) >= inside.max() - 1e-12
                for best in np.unique(value):
                    kept_lo, kept_hi = _shrunk(feature.weight_below, feature.left, feature.right, lo, hi, a, b,
                                               weights.sum(), alpha, best, 1e-12)
                    winners = lo + np.flatnonzero(inside > best + 1e-12)
                    assert all(kept_lo <= s <= kept_hi for s in winners)


@pytest.mark.parametrize("seed", range(8))
def test_a_depth_2_search_with_a_target_returns_the_optimum_or_a_bound(seed):
    """Asked to beat a target, the depth-2 search returns the optimum when it beats the target and the target
    (an upper bound) otherwise: the contract the depth-3 search relies on."""
    X, y = random_numeric(40, 3, 10, 3, seed=300 + seed)
    ranks = np.stack([np.unique(x, return_inverse=True)[1] for x in X.T], axis=1)
    solver = NestedSubtreeSolver(NestedLevels(ranks, ranks.max(axis=0)), y, 3)
    mask = np.random.default_rng(seed).random(len(y)) < 0.7
    optimum = solver.solve(mask, 2, 0.5).value
    for target in (optimum - 3, optimum - 0.5, optimum, optimum + 2):
        value, found = solver._search(mask, 0.5, target, np.full(6, -1, dtype=np.int64))
        if optimum > target + 1e-9:
            assert found and value == pytest.approx(optimum)
        else:
            assert not found and value == target


def test_optimal_tree_classifier_passes_weights_to_the_search():
    X, y = random_numeric(24, 2, 5, 2, seed=11)
    weights = np.where(np.arange(24) < 6, 0.0, 1.0)
    weighted = OptimalTreeClassifier(depth=2).fit(X, y, sample_weight=weights)
    reduced = OptimalTreeClassifier(depth=2).fit(X[6:], y[6:])
    assert weighted.path_.estimator == "ThresholdTreeSearch"
    assert (weighted.predict(X[6:]) == y[6:]).sum() == (reduced.predict(X[6:]) == y[6:]).sum()


@pytest.mark.parametrize("seed", range(8))
def test_the_leaf_ceiling_bounds_every_optimum(seed):
    """The leaves-and-classes bound (module doc of nested_thresholds): on random row subsets with 2-4 classes and
    a leaf penalty, it is at least the exact optimum at depths 1-3 (with at least one leaf) and at least every
    tree with a split (the depth >= 1 optimum with two leaves or more, from the exhaustive recursion)."""
    from odtlib.models.univariate.accel.nested_thresholds import _leaf_ceiling

    rng = np.random.default_rng(700 + seed)
    n_classes = 2 + seed % 3
    X, y = random_numeric(24, 2, 6, n_classes, seed=700 + seed)
    weights = rng.uniform(0.2, 1.0, len(y))
    binary = every_midpoint(X)[0]
    for alpha in (0.0, 0.3, 1.5):
        for _ in range(3):
            rows = rng.random(len(y)) < 0.7
            class_weight = np.bincount(y[rows], weights=weights[rows], minlength=n_classes)
            exact = Depth2Solver(binary[rows], y[rows], n_classes=n_classes, sample_weight=weights[rows])
            for depth in (1, 2, 3):
                found = exact.solve(None, depth, alpha)
                assert _leaf_ceiling(class_weight, alpha, 1) >= found.value - 1e-9
                if len(found.subtree.branch):                  # a tree with a split: at least two leaves
                    assert _leaf_ceiling(class_weight, alpha, 2) >= found.value - 1e-9


def test_a_perfect_small_tree_closes_a_deep_search_at_once():
    """Four classes on four quadrants: a depth-2 tree with four leaves classifies every row, so at λ > 0 no
    deeper tree beats it and the leaf ceiling stops the depth-5 search before any root cut (the interval bounds
    alone allow a perfect side with one leaf, and evaluate root cuts one by one)."""
    rng = np.random.default_rng(11)
    X = rng.uniform(0, 1, size=(60, 3))
    y = 2 * (X[:, 0] > 0.5) + (X[:, 1] > 0.5)
    ranks = np.stack([np.unique(x, return_inverse=True)[1] for x in X.T], axis=1)
    solver = NestedSubtreeSolver(NestedLevels(ranks, ranks.max(axis=0)), y, 4, max_depth=5)
    found = solver.solve(None, 5, 0.5)
    assert found.value == pytest.approx(60 - 4 * 0.5) and len(found.leaf) == 4
    assert solver.cache_info().root_cuts_evaluated == 0
