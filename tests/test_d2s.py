"""D2S (paper 003, Appendix B.1) against independent oracles.

* An exhaustive enumeration written here: every sparse tree of depth <= 2 (leaf, stump, left-only /
  right-only expanded three-leaf trees, full trees), every feature at every branch node (repeats and constant
  features included) and every class at every leaf, scored by ``weighted correct - alpha * leaves``.
* STreeD (``pystreed``): its cost-complex-accuracy objective is misclassifications + c * n * (branch nodes);
  with c = alpha / n and leaves = branch nodes + 1 its optimum is ``n - alpha - our optimum``, exactly.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from oracles import brute_force_tree, random_binary_data

from odtlib.models.univariate.accel.d2s import Depth2Solver, Depth2Subtree, solve_depth2

SEEDS = range(12)
PENALTIES = (0.0, 0.7, 2.0, 1e6)  # none, small (fractional), a few samples, larger than any gain


# ------------------------------------------------------------------------------------------ oracle
def _structures(features, depth):
    """(root, left child, right child) features; None = that node is a leaf (or the root is a leaf)."""
    yield None, None, None
    if depth >= 1:
        for root in features:
            yield root, None, None
    if depth == 2:
        for root, child in itertools.product(features, features):
            yield root, child, None
            yield root, None, child
        for root, left, right in itertools.product(features, features, features):
            yield root, left, right


def _leaf_masks(X, root, left, right):
    n = X.shape[0]
    if root is None:
        return [np.ones(n, bool)]
    masks = []
    for side_mask, child in ((X[:, root] == 0, left), (X[:, root] == 1, right)):
        if child is None:
            masks.append(side_mask)
        else:
            masks += [side_mask & (X[:, child] == 0), side_mask & (X[:, child] == 1)]
    return masks


def brute_force(X, y, w, n_classes, depth, penalties, features=None):
    """For each alpha in ``penalties``: (best value, smallest (n_leaves, root feature) among optimal trees).

    Every tree is enumerated once; its correct count is scored under every penalty.
    """
    features = range(X.shape[1]) if features is None else features
    best = {alpha: (-np.inf, None) for alpha in penalties}
    for root, left, right in _structures(features, depth):
        masks = _leaf_masks(X, root, left, right)
        class_weight = [[w[m & (y == k)].sum() for k in range(n_classes)] for m in masks]
        key = (len(masks), -1 if root is None else root)
        for labels in itertools.product(range(n_classes), repeat=len(masks)):
            correct = sum(class_weight[j][k] for j, k in enumerate(labels))
            for alpha in penalties:
                value = correct - alpha * len(masks)
                best_value, best_key = best[alpha]
                if value > best_value + 1e-9:
                    best[alpha] = (value, key)
                elif value > best_value - 1e-9 and key < best_key:
                    best[alpha] = (best_value, key)
    return best


def random_instance(seed, weighted=False):
    """Small instance with duplicated rows (few distinct patterns) and possibly unbalanced classes."""
    rng = np.random.default_rng(seed)
    n_features = int(rng.integers(3, 8))
    n_classes = int(rng.integers(2, 5))
    patterns = rng.integers(0, 2, size=(int(rng.integers(3, 12)), n_features))
    n = int(rng.integers(8, 40))
    X = patterns[rng.integers(0, len(patterns), n)]
    y = rng.integers(0, n_classes, n)
    w = None
    if weighted == "int":
        w = rng.integers(0, 4, n).astype(float)
    elif weighted == "float":
        w = rng.uniform(0.1, 2.0, n)
    return X, y, w, n_classes


def tree_objective(result, X, y, w):
    """Objective of the returned Tree computed from its own predictions."""
    w = np.ones(len(y)) if w is None else w
    tree = result.tree
    correct = tree.predict(X) == y
    return w[correct].sum() - result.leaf_penalty * tree.n_leaves, correct, tree


# ------------------------------------------------------------------------------------------ exactness
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, "int", "float"])
def test_depth2_matches_brute_force(seed, weighted):
    X, y, w, K = random_instance(seed, weighted)
    weights = np.ones(len(y)) if w is None else w
    oracle = brute_force(X, y, weights, K, 2, PENALTIES)
    for alpha in PENALTIES:
        result = solve_depth2(X, y, depth=2, leaf_penalty=alpha, sample_weight=w, n_classes=K)
        value, (leaves, root) = oracle[alpha]
        assert result.value == pytest.approx(value, abs=1e-9)
        assert result.n_leaves == leaves                         # fewest leaves among optimal trees
        assert (result.subtree.root_feature if result.subtree.root_feature is not None else -1) == root
        tree_value, correct, tree = tree_objective(result, X, y, w)
        assert tree_value == pytest.approx(result.value, abs=1e-9)
        assert np.array_equal(correct, result.correct)
        assert tree.depth <= 2 and result.n_leaves == tree.n_leaves


@pytest.mark.parametrize("depth", [0, 1])
@pytest.mark.parametrize("seed", SEEDS)
def test_shallower_depths_match_brute_force(depth, seed):
    X, y, w, K = random_instance(100 + seed, weighted="int" if seed % 2 else False)
    weights = np.ones(len(y)) if w is None else w
    oracle = brute_force(X, y, weights, K, depth, PENALTIES)
    for alpha in PENALTIES:
        result = solve_depth2(X, y, depth=depth, leaf_penalty=alpha, sample_weight=w, n_classes=K)
        value, (leaves, _) = oracle[alpha]
        assert result.value == pytest.approx(value, abs=1e-9)
        assert result.n_leaves == leaves
        assert result.tree.depth <= depth
        assert tree_objective(result, X, y, w)[0] == pytest.approx(result.value, abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_feature_subset_matches_brute_force(seed):
    X, y, _, K = random_instance(200 + seed)
    features = [f for f in range(X.shape[1]) if f % 2 == 1]
    result = solve_depth2(X, y, leaf_penalty=0.5, features=features, n_classes=K)
    assert set(result.subtree.branch.values()) <= set(features)
    value, _ = brute_force(X, y, np.ones(len(y)), K, 2, [0.5], features=features)[0.5]
    assert result.value == pytest.approx(value)


def test_xor_needs_depth_two():
    X = np.array([[0, 0, 1], [0, 1, 1], [1, 0, 0], [1, 1, 0]] * 5)
    y = X[:, 0] ^ X[:, 1]
    assert solve_depth2(X, y, depth=1).value == 10                  # a stump cannot beat half
    full = solve_depth2(X, y, depth=2)
    assert full.value == 20 and full.n_leaves == 4
    assert full.subtree.root_feature in (0, 1)
    # alpha = 6: the depth-2 tree gains 10 correct over a leaf but costs 3 extra leaves (18 > 10)
    assert solve_depth2(X, y, depth=2, leaf_penalty=6).n_leaves == 1


# ------------------------------------------------------------------------------------------ edge cases
def test_single_class_gives_a_leaf():
    X = np.random.default_rng(0).integers(0, 2, (15, 4))
    result = solve_depth2(X, np.full(15, 2), leaf_penalty=0.0, n_classes=3)
    assert result.subtree == Depth2Subtree({}, {1: 2})
    assert result.value == 15 and result.correct.all()


def test_constant_feature_changes_nothing():
    X, y, _, K = random_instance(7)
    with_constant = np.column_stack([np.zeros(len(y), int), X, np.ones(len(y), int)])
    for alpha in PENALTIES:
        a = solve_depth2(X, y, leaf_penalty=alpha, n_classes=K)
        b = solve_depth2(with_constant, y, leaf_penalty=alpha, n_classes=K)
        assert a.value == b.value
        assert 0 not in b.subtree.branch.values() and X.shape[1] + 1 not in b.subtree.branch.values()


def test_empty_subset():
    result = solve_depth2(np.zeros((0, 3)), np.zeros(0, int), leaf_penalty=1.5, n_classes=2)
    assert result.value == -1.5 and result.subtree == Depth2Subtree({}, {1: 0})
    solver = Depth2Solver(np.eye(3, dtype=int), [0, 1, 1])
    assert solver.solve([], leaf_penalty=0.0).value == 0.0
    assert solver.solve([], leaf_penalty=0.0).correct_samples.size == 0


def test_zero_weights_ignore_samples():
    X, y, _, K = random_instance(3)
    w = np.where(np.arange(len(y)) % 3 == 0, 0.0, 1.0)
    weighted = solve_depth2(X, y, leaf_penalty=0.7, sample_weight=w, n_classes=K)
    kept = w > 0
    subset = solve_depth2(X[kept], y[kept], leaf_penalty=0.7, n_classes=K)
    assert weighted.value == pytest.approx(subset.value)


# ------------------------------------------------------------------------------------------ depth 3 (scan)
def exhaustive_depth3(X, y, alpha, n_classes):
    """max correct - alpha·leaves over trees of depth <= 3 by ``oracles.brute_force_tree`` (its objective
    (1 - l)·correct - l·splits with l = alpha/(1 + alpha) is (1 - l)·(correct - alpha·splits))."""
    split_cost = alpha / (1 + alpha)
    return brute_force_tree(X, y, 3, split_cost, n_classes=n_classes)[0] / (1 - split_cost) - alpha


@pytest.mark.parametrize("seed", range(8))
def test_depth3_scan_matches_exhaustive_search(seed):
    """Depth 3 of Depth2Solver (root-split scan + D2S on both sides) against the exhaustive recursion; integer
    weights are checked as repeated rows. The returned subtree scores its value and its correct mask."""
    X, y, w, K = random_instance(500 + seed, weighted="int" if seed % 2 else False)
    rows = np.arange(len(y)) if w is None else np.repeat(np.arange(len(y)), w.astype(int))
    for alpha in (0.0, 0.7, 2.0, 6.0):
        result = Depth2Solver(X, y, sample_weight=w, n_classes=K).solve(None, depth=3, leaf_penalty=alpha)
        assert result.value == pytest.approx(exhaustive_depth3(X[rows], y[rows], alpha, K), abs=1e-9)
        tree_value, correct, tree = tree_objective(result, X, y, w)
        assert tree_value == pytest.approx(result.value, abs=1e-9)
        assert np.array_equal(correct, result.correct) and tree.depth <= 3


def test_depth3_scan_on_a_subset_with_candidate_features():
    """Depth 3 on a sample subset with a feature subset: the optimum of the exhaustive search on those rows
    and columns, with the split features named in the full matrix."""
    X, y = random_binary_data(36, 6, 3, seed=7)
    features, subset = [1, 3, 4, 5], np.flatnonzero(X[:, 0] == 0)
    result = Depth2Solver(X, y, n_classes=3, features=features).solve(subset, depth=3, leaf_penalty=0.5)
    assert result.value == pytest.approx(exhaustive_depth3(X[subset][:, features], y[subset], 0.5, 3), abs=1e-9)
    assert set(result.subtree.branch.values()) <= set(features)
    assert np.array_equal(result.subtree.predict(X[subset]) == y[subset], result.correct)


def test_depth3_scan_returns_a_leaf_when_no_split_pays():
    X, y = random_binary_data(20, 4, 2, seed=3)
    result = Depth2Solver(X, y).solve(None, depth=3, leaf_penalty=100.0)
    assert result.n_leaves == 1 and result.value == pytest.approx(np.bincount(y).max() - 100.0)


# ------------------------------------------------------------------------------------------ STreeD
@pytest.mark.parametrize("seed", range(20))
def test_agrees_with_pystreed(seed):
    from pystreed import STreeDClassifier

    X, y, _, _ = random_instance(300 + seed)
    if np.unique(y).size < 2:
        pytest.skip("STreeD needs two classes")
    n = len(y)
    for alpha in (0.0, 0.7, 2.0, 5.5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if alpha == 0:
                streed = STreeDClassifier(optimization_task="accuracy", max_depth=2, time_limit=30)
            else:
                streed = STreeDClassifier(optimization_task="cost-complex-accuracy", max_depth=2,
                                          cost_complexity=alpha / n, time_limit=30)
            streed.fit(X, y)
        streed_value = (streed.predict(X) == y).sum() - alpha * streed.get_n_leaves()
        assert solve_depth2(X, y, leaf_penalty=alpha).value == pytest.approx(streed_value, abs=1e-9)


# ------------------------------------------------------------------------------------------ cache
def test_cached_solver_matches_direct_calls_and_counts_hits():
    X, y, _, K = random_instance(11)
    solver = Depth2Solver(X, y, n_classes=K, maxsize=3)
    subset = np.flatnonzero(X[:, 0] == 1)
    first = solver.solve(subset, leaf_penalty=0.7)
    direct = solve_depth2(X[subset], y[subset], leaf_penalty=0.7, n_classes=K)
    assert first.value == direct.value and first.subtree == direct.subtree
    assert np.array_equal(first.correct_samples, subset[direct.correct])
    assert solver.solve(X[:, 0] == 1, leaf_penalty=0.7) is first       # mask and indices share a key
    assert solver.solve(subset[::-1], leaf_penalty=0.7) is first       # order does not matter
    assert solver.solve(subset, leaf_penalty=0.7, depth=1) is not first
    assert solver.solve(subset, leaf_penalty=0.0) is not first
    info = solver.cache_info()
    assert (info.hits, info.misses, info.currsize, info.evictions) == (2, 3, 3, 0)
    solver.solve(None)                                                  # 4th key evicts the oldest
    assert solver.cache_info().evictions == 1
    assert solver.solve(subset, leaf_penalty=0.7) is not first          # evicted: recomputed
    assert solver.cache_info().hit_rate == pytest.approx(2 / 7)
    solver.cache_clear()
    assert solver.cache_info().currsize == 0 and solver.cache_info().hits == 0


def test_cached_results_are_read_only():
    X, y, _, K = random_instance(12)
    result = Depth2Solver(X, y, n_classes=K).solve(np.arange(5))
    with pytest.raises(ValueError):
        result.correct[0] = not result.correct[0]


# ------------------------------------------------------------------------------------------ structure
def test_placed_at_renumbers_the_subtree():
    subtree = Depth2Subtree({1: 4, 2: 0}, {4: 1, 5: 0, 3: 2})
    assert subtree.placed_at(1) == (subtree.branch, subtree.leaf)
    assert subtree.placed_at(5) == ({5: 4, 10: 0}, {20: 1, 21: 0, 11: 2})
    assert subtree.placed_at(3) == ({3: 4, 6: 0}, {12: 1, 13: 0, 7: 2})
    assert (subtree.root_feature, subtree.left_feature, subtree.right_feature) == (4, 0, None)
    assert subtree.depth == 2 and subtree.n_leaves == 3


# ------------------------------------------------------------------------------------------ validation
@pytest.mark.parametrize("kwargs, message", [
    (dict(X=[[0, 2], [1, 0]], y=[0, 1]), "only 0 and 1"),
    (dict(X=[[0, np.nan], [1, 0]], y=[0, 1]), "NaN"),
    (dict(X=[[0, 1], [1, 0]], y=[0, 1, 1]), "one label per row"),
    (dict(X=[[0, 1], [1, 0]], y=[0.5, 1]), "integer class indices"),
    (dict(X=[[0, 1], [1, 0]], y=[0, 1], depth=3), "depth must be 0, 1 or 2"),
    (dict(X=[[0, 1], [1, 0]], y=[0, 1], leaf_penalty=-1), "leaf_penalty"),
    (dict(X=[[0, 1], [1, 0]], y=[0, 1], sample_weight=[1, -1]), "non-negative"),
    (dict(X=[[0, 1], [1, 0]], y=[0, 1], features=[2]), "column indices"),
    (dict(X=[[0, 1], [1, 0]], y=[0, 3], n_classes=2), "n_classes"),
])
def test_bad_input_is_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        solve_depth2(**kwargs)


def test_bad_sample_subset_is_rejected():
    solver = Depth2Solver(np.eye(3, dtype=int), [0, 1, 1])
    with pytest.raises(ValueError, match="depth must be 0, 1, 2 or 3"):
        solver.solve(None, depth=4)
    with pytest.raises(ValueError, match="row indices"):
        solver.solve([0, 5])
    with pytest.raises(ValueError, match="boolean sample mask"):
        solver.solve(np.array([True, False]))


def test_subtree_maps_are_read_only():
    subtree = solve_depth2(np.eye(4, dtype=int), [0, 1, 1, 0]).subtree
    with pytest.raises(TypeError):
        subtree.leaf[1] = 5


def test_depth3_is_the_depth2_result_unless_strictly_better():
    """Nested path-bound cuts need one subtree per sample set: where no depth-3 tree beats D2S (here the
    labels are a function of one feature, so a stump is optimal at every depth), depth 3 returns D2S's own
    result; where one does (x0 XOR x1 XOR x2 needs depth 3), its value is strictly larger."""
    X, _ = random_binary_data(40, 5, 2, seed=9)
    solver = Depth2Solver(X, X[:, 2])
    assert solver.solve(None, depth=3, leaf_penalty=0.5) is solver.solve(None, depth=2, leaf_penalty=0.5)
    xor = X[:, 0] ^ X[:, 1] ^ X[:, 2]
    solver = Depth2Solver(X, xor)
    deeper, shallower = solver.solve(None, depth=3, leaf_penalty=0.5), solver.solve(None, depth=2, leaf_penalty=0.5)
    assert deeper.value > shallower.value and deeper.subtree.depth == 3
