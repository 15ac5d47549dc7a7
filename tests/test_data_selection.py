"""Paper 004's LP-based data selection (odtlib.models.svm1odt.data_selection) against independent checks.

The oracles here are written apart from the module: hull membership by scipy's ``linprog`` on the literal
per-point LP (24) (with λ >= 0), and an exact depth-1 hyperplane tree for weighted misclassification by a
sweep over directions (checked against the subset-enumeration oracle of ``oracles_hyperplane``).
"""
from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.tree import DecisionTreeClassifier

from odtlib.models.svm1odt import data_selection
from odtlib.models.svm1odt.data_selection import (LPDataSelector, algorithm1, balanced_selection, interior_points,
                                          iterative_selection, iterative_training, leaf_boundaries)
from odtlib.tree import HyperplaneSplit, Leaf, Tree, UnivariateSplit
from tests.oracles_hyperplane import best_hyperplane_tree

TOL = 1e-6


# ---------------------------------------------------------------------------- oracles
def plain_lp_24(X: np.ndarray, j: int, epsilon_prime: float = 0.0) -> float:
    """Optimal b_j of the per-point piece of LP (24): max b_j, -ε' <= b_j x_j - Σ_{i≠j} λ_i x_i <= ε',
    Σ λ_i = b_j, 0 <= b_j <= 1, λ >= 0; every other point of the cluster is a column."""
    n, d = X.shape
    others = [i for i in range(n) if i != j]
    block = np.hstack([X[j][:, None], -X[others].T])
    result = linprog(np.r_[-1.0, np.zeros(len(others))], A_ub=np.vstack([block, -block]),
                     b_ub=np.full(2 * d, epsilon_prime), A_eq=np.r_[-1.0, np.ones(len(others))][None],
                     b_eq=[0.0], bounds=[(0, 1)] + [(0, None)] * len(others), method="highs")
    assert result.status == 0
    return result.x[0]


def within_hull(points: np.ndarray, x: np.ndarray, epsilon_prime: float = 0.0) -> bool:
    """x within ε' (per coordinate, plus a float tolerance) of conv(points)."""
    if len(points) == 0:
        return False
    slack = epsilon_prime + TOL
    result = linprog(np.zeros(len(points)), A_ub=np.vstack([points.T, -points.T]),
                     b_ub=np.r_[x + slack, -(x - slack)], A_eq=np.ones((1, len(points))), b_eq=[1.0],
                     bounds=[(0, None)] * len(points), method="highs")
    return result.status == 0


def assert_valid_weights(X: np.ndarray, cover, epsilon_prime: float = 0.0) -> None:
    """λ of every interior point: convex weights on non-interior points that reproduce it within ε'."""
    weights = cover.weights.toarray()
    assert np.all(weights >= 0)
    assert not weights[~cover.interior].any()
    assert not weights[:, cover.interior].any()
    for j in np.flatnonzero(cover.interior):
        assert weights[j].sum() == pytest.approx(1.0, abs=TOL)
        assert np.abs(weights[j] @ X - X[j]).max() <= epsilon_prime + TOL


def best_split_1d_sweep(X: np.ndarray, y: np.ndarray, weight: np.ndarray, classes: np.ndarray) -> Tree:
    """Exact depth-1 hyperplane tree minimising the weighted misclassifications of 2-D points in general
    position: every linear dichotomy is a prefix of the order along a direction between two critical
    directions (those orthogonal to x_i - x_k)."""
    critical = [np.arctan2(*(X[i] - X[k])[::-1]) % np.pi + np.pi / 2 for i in range(len(X)) for k in range(i)]
    critical = np.sort(np.mod(critical, np.pi))
    middles = (critical + np.roll(critical, -1) + np.r_[np.zeros(len(critical) - 1), np.pi]) / 2
    best = (np.inf, None)
    for angle in middles:
        w = np.array([np.cos(angle), np.sin(angle)])
        z = X @ w
        order = np.argsort(z)
        for k in range(len(X) + 1):
            left, right = order[:k], order[k:]
            labels, cost = [], 0.0
            for side in (left, right):
                per_class = np.array([weight[side][y[side] == c].sum() for c in classes])
                labels.append(classes[int(np.argmax(per_class))])
                cost += per_class.sum() - per_class.max()
            if cost < best[0] - 1e-9:
                if k == 0:
                    bias = z[order[0]] - 1.0
                elif k == len(X):
                    bias = z[order[-1]] + 1.0
                else:
                    bias = (z[order[k - 1]] + z[order[k]]) / 2
                best = (cost, Tree({1: HyperplaneSplit(w, bias, 2, 3), 2: Leaf(labels[0]), 3: Leaf(labels[1])}))
    return best[1]


# ---------------------------------------------------------------------------- LP (24) and its shortcuts
@pytest.mark.parametrize("d, n, seed", [(2, 24, 0), (3, 24, 1), (3, 24, 2), (7, 24, 3), (7, 100, 4)])
def test_interior_points_match_the_plain_per_point_lp(d, n, seed):
    """Hull columns + Delaunay (d <= 5) or column generation (d = 7; from 16 columns, so it generates), in the
    feasibility form: the same b as LP (24) itself."""
    rng = np.random.default_rng(seed)
    base = rng.random((n, d))
    X = np.vstack([base, rng.dirichlet(np.ones(n), 8) @ base])   # some points surely inside, in any dimension
    cover = interior_points(X)
    plain = np.array([plain_lp_24(X, j) for j in range(len(X))])
    assert np.all((plain < TOL) | (plain > 1 - TOL))            # Theorem 4: b is binary for ε' = 0
    np.testing.assert_array_equal(cover.interior, plain > 0.5)
    assert 0 < cover.interior.sum() < len(X)
    assert_valid_weights(X, cover)


def test_flat_cluster_uses_its_affine_hull():
    """Points on a plane in 3-D (a constant feature, as in a CART leaf split on it): Qhull runs in the plane."""
    rng = np.random.default_rng(4)
    X = np.c_[rng.random((25, 2)), np.full(25, 0.3)] @ np.array([[1, 0.2, 0], [0, 1, 0.5], [0, 0, 1.0]])
    assert data_selection.affine_coordinates(np.unique(X, axis=0)).shape[1] == 2
    cover = interior_points(X)
    np.testing.assert_array_equal(cover.interior, [plain_lp_24(X, j) > 0.5 for j in range(len(X))])
    assert_valid_weights(X, cover)


def test_lattice_cluster_with_points_on_faces_and_edges():
    """Integer-valued data (skin-segmentation is RGB / 255): a 3 x 3 x 3 grid has its 8 corners as vertices,
    and the other 19 points sit on edges, faces and the centre of a cube whose Delaunay split is degenerate
    (cospherical corners)."""
    X = np.array(np.meshgrid(*[np.arange(3)] * 3)).reshape(3, -1).T / 2.0
    cover = interior_points(X)
    np.testing.assert_array_equal(cover.interior, [plain_lp_24(X, j) > 0.5 for j in range(len(X))])
    assert (~cover.interior).sum() == 8
    assert_valid_weights(X, cover)


def test_positive_epsilon_prime_keeps_a_valid_floor_of_b():
    """ε' > 0: every interior point has b_j = 1 in LP (24) (floor(b) = 1, Theorem 4) and lies within ε' of the
    hull of the non-interior points."""
    X = np.random.default_rng(5).random((30, 3))
    epsilon_prime = 0.05
    cover = interior_points(X, epsilon_prime)
    plain = np.array([plain_lp_24(X, j, epsilon_prime) for j in range(len(X))])
    assert np.all(plain[cover.interior] > 1 - TOL)
    assert cover.interior.sum() > interior_points(X).interior.sum()       # the tolerance lets more points in
    assert_valid_weights(X, cover, epsilon_prime)


def test_duplicates_keep_one_copy():
    """(24) would call every copy of a point interior (each is the other's combination); one copy stays."""
    square = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [0.5, 0.5]], dtype=float)
    X = np.vstack([square, square[[0, 0, 4]]])                  # corner 0 three times, the centre twice
    cover = interior_points(X)
    np.testing.assert_array_equal(cover.interior, [False] * 4 + [True] * 4)
    assert_valid_weights(X, cover)
    assert cover.weights[5, 0] == 1.0 and cover.weights[6, 0] == 1.0


def test_parallel_chunks_give_the_same_cover(monkeypatch):
    """Seven features: above MAX_HULL_DIMENSION, every point has its LP, in chunks across two processes."""
    rng = np.random.default_rng(6)
    base = rng.random((60, 7))
    X = np.vstack([base, rng.dirichlet(np.ones(60), 30) @ base])
    serial = interior_points(X)
    monkeypatch.setattr(data_selection, "CHUNK", 40)
    parallel = interior_points(X, n_jobs=2)
    assert serial.interior.sum() >= 30 and serial.n_lps >= len(X)
    np.testing.assert_array_equal(serial.interior, parallel.interior)
    assert_valid_weights(X, parallel)


# ---------------------------------------------------------------------------- Algorithm 1
A, B, C = [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]


def test_algorithm1_branch_1_keeps_the_non_interior_points():
    """Square corners and 6 points inside: |I| / |N| = 0.6 >= 1 - β1 = 0.5, so N \\ I = the corners."""
    X = np.array([A, B, C, [1, 1]] + [[0.2 + 0.1 * k, 0.3 + 0.05 * k] for k in range(6)])
    selected, branch = algorithm1(X, interior_points(X), [], beta1=0.5, beta2=0.5)
    assert branch == 1
    np.testing.assert_array_equal(np.flatnonzero(selected), [0, 1, 2, 3])


def test_algorithm1_branch_2_keeps_the_main_representers():
    """Triangle and its centroid: λ = (1/3, 1/3, 1/3) >= 1/(d+1), J = the triangle; |I| / |N| = 1/4 < 1 - β1,
    |J| = 3 > β2 |N| = 2."""
    X = np.array([A, B, C, [1 / 3, 1 / 3]])
    selected, branch = algorithm1(X, interior_points(X), [], beta1=0.5, beta2=0.5)
    assert branch == 2
    np.testing.assert_array_equal(np.flatnonzero(selected), [0, 1, 2])


def test_algorithm1_branch_3_adds_the_points_nearest_the_leaf_boundary():
    """(0.5, 0.25) = 0.25 A + 0.5 B + 0.25 C: J = {B}, K = {A, C}; ceil(β2 |N|) = 2 points, so J plus the K point
    nearest the boundary x_2 = 0.9 (C at 0.1, A at 0.9)."""
    X = np.array([A, B, C, [0.5, 0.25]])
    cover = interior_points(X)
    np.testing.assert_allclose(cover.weights.toarray()[3, :3], [0.25, 0.5, 0.25], atol=1e-9)
    planes = [(np.array([0.0, 1.0]), 0.9)]
    selected, branch = algorithm1(X, cover, planes, beta1=0.5, beta2=0.5)
    assert branch == 3
    np.testing.assert_array_equal(np.flatnonzero(selected), [1, 2])
    selected, _ = algorithm1(X, cover, [(np.array([0.0, 1.0]), 0.05)], beta1=0.5, beta2=0.5)
    np.testing.assert_array_equal(np.flatnonzero(selected), [0, 1])          # now A is nearer


def test_leaf_boundaries_are_the_splits_on_the_path():
    rng = np.random.default_rng(7)
    X = rng.random((200, 2))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0.6).astype(int)
    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    selector = LPDataSelector(depth=2).fit(X, y, tree=cart)
    boundaries = leaf_boundaries(selector.tree_)
    t = cart.tree_
    for leaf_id, planes in boundaries.items():
        path_row = X[selector.tree_.apply(X) == leaf_id][0]
        sk_path = cart.decision_path(path_row[None]).indices[:-1]
        assert sorted(c for _, c in planes) == sorted(t.threshold[sk_path])
        assert all(np.count_nonzero(w) == 1 and w.max() == 1.0 for w, _ in planes)


# ---------------------------------------------------------------------------- the selector
def three_blobs(n: int = 150, seed: int = 8):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 2))
    y = np.where(X[:, 0] > 0.55, 2, np.where(X[:, 1] > 0.5, 1, 0))
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, 3, flip.sum())
    return X, y


@pytest.mark.parametrize("epsilon_prime", [0.0, 0.02])
def test_selected_points_cover_the_interior_points(epsilon_prime):
    """In every cluster the interior points lie within ε' of the hull of its non-interior points; where
    Algorithm 1 keeps N \\ I (branch 1), that is the hull of the selected points."""
    X, y = three_blobs()
    selector = LPDataSelector(depth=2, beta1=0.5, beta2=0.3, epsilon_prime=epsilon_prime).fit(X, y)
    rows_seen = np.concatenate(selector.clusters_)
    np.testing.assert_array_equal(np.sort(rows_seen), np.arange(len(X)))
    assert 1 in selector.branches_
    for rows, branch in zip(selector.clusters_, selector.branches_):
        inside = rows[selector.interior_[rows]]
        hull = rows[selector.support_[rows]] if branch == 1 else rows[~selector.interior_[rows]]
        for j in inside:
            assert within_hull(X[hull], X[j], epsilon_prime)
    assert selector.get_support().dtype == bool
    np.testing.assert_array_equal(selector.get_support(indices=True), np.flatnonzero(selector.support_))
    assert selector.n_lps_ > 0 and selector.lp_seconds_ > 0


def test_balanced_selection_covers_what_it_marks_covered():
    rng = np.random.default_rng(9)
    for points in (rng.random((40, 2)), np.vstack([rng.random((30, 3)), rng.random((3, 3))[[0, 0, 1]]])):
        selected, covered, _ = balanced_selection(points)
        assert not (selected & covered).any()
        assert covered.sum() > selected.sum() > 0                # it trades selected points for covered ones
        for j in np.flatnonzero(covered):
            assert within_hull(points[selected], points[j])


def test_balanced_selector_on_small_clusters():
    X, y = three_blobs(90)
    selector = LPDataSelector(method="balanced", depth=1).fit(X, y)
    assert set(selector.branches_) == {0}
    for rows in selector.clusters_:
        chosen = rows[selector.support_[rows]]
        for j in rows[selector.interior_[rows]]:
            assert within_hull(X[chosen], X[j])


# ---------------------------------------------------------------------------- Algorithm 3 and Proposition 2
def test_sweep_oracle_matches_the_enumeration_oracle():
    """The sweep (used below as an exact weighted solver) against the subset enumeration, unit weights."""
    rng = np.random.default_rng(10)
    for _ in range(2):
        X, y = rng.random((7, 2)), rng.integers(0, 2, 7)
        tree = best_split_1d_sweep(X, y, np.ones(7), np.array([0, 1]))
        assert int((tree.predict(X) == y).sum()) == best_hyperplane_tree(X, y, 1, epsilon=None)


def test_iterative_selection_weights_the_representers():
    X, y = three_blobs(80)
    tree = Tree({1: HyperplaneSplit([1.0, 0.0], 0.55, 2, 3), 2: Leaf(0), 3: Leaf(2)})
    rows, weights = iterative_selection(tree, X, y, 0.0)
    wrong = tree.predict(X) != y
    assert set(np.flatnonzero(wrong)) <= set(rows)
    assert set(np.unique(weights)) == {1.0, wrong.sum() + 1.0}
    dropped = np.setdiff1d(np.arange(len(X)), rows)
    heavy = rows[weights > 1]
    for j in dropped:                                             # Ī lies in the hull of J of its leaf
        same = heavy[(tree.apply(X[heavy]) == tree.apply(X[[j]])[0]) & (y[heavy] == y[j])]
        assert within_hull(X[same], X[j])


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_proposition_2_accuracy_never_decreases(seed):
    """Algorithm 3 with α1 = α2 = 0 and exact solves: training accuracy is monotone (Proposition 2).

    SVM1ODT refuses α1 = 0 (h = 0, g = 0 meets every margin row: a trivial model), so the exact solver is
    the sweep over depth-1 hyperplane trees of the weighted misclassification objective. Depth 1: one leaf
    per side of a hyperplane, so the leaf of the J points of a cluster also holds their hull (the proof's
    step; module docstring of iterative_training for depth >= 2)."""
    rng = np.random.default_rng(seed)
    X = rng.random((14, 2))
    y = (X[:, 0] + X[:, 1] > 1.0).astype(int)
    y[rng.choice(14, 4, replace=False)] ^= 1
    classes = np.array([0, 1])
    calls = []

    def fit_tree(rows, sample_weight, warm_start):
        calls.append((rows, sample_weight, warm_start))
        return best_split_1d_sweep(X[rows], y[rows], sample_weight, classes)

    stump = DecisionTreeClassifier(max_depth=1, random_state=0, max_features=1).fit(X, y)
    tree, history = iterative_training(fit_tree, X, y, depth=1, beta1=0.2, beta2=0.05, epsilon_prime=0.0,
                                       n_iterations=3, cart=stump)
    accuracy = [h["train_accuracy"] for h in history]
    assert [h["iteration"] for h in history] == [0, 1, 2, 3]
    assert all(b >= a - 1e-12 for a, b in zip(accuracy, accuracy[1:]))
    assert history[-1]["n_selected"] < len(X)                   # it did drop points
    assert isinstance(calls[0][2], Tree) and calls[1][2] is not calls[0][2]
    assert accuracy[-1] == pytest.approx(np.mean(tree.predict(X) == y))


def best_four_intervals(x: np.ndarray, y: np.ndarray, weight: np.ndarray, classes: np.ndarray) -> Tree:
    """Exact depth-2 tree on one feature for weighted misclassification: a depth-2 tree on a line is any
    three cuts (the middle one at the root) with the weighted majority class on each of the four intervals."""
    order = np.argsort(x)
    xs, ys, ws, n = x[order], y[order], weight[order], len(x)
    edges = np.r_[xs[0] - 1, (xs[:-1] + xs[1:]) / 2, xs[-1] + 1]           # a threshold before each position
    best = (np.inf, None)
    for cuts in combinations_with_replacement(range(n + 1), 3):
        bounds = (0, *cuts, n)
        per_class = [np.array([ws[lo:hi][ys[lo:hi] == c].sum() for c in classes]) for lo, hi in
                     zip(bounds, bounds[1:])]
        cost = sum(p.sum() - p.max() for p in per_class)
        if cost < best[0] - 1e-9:
            labels = [classes[int(np.argmax(p))] for p in per_class]
            t = edges[list(cuts)]
            best = (cost, Tree({1: UnivariateSplit(0, 2, 3, t[1]), 2: UnivariateSplit(0, 4, 5, t[0]),
                                3: UnivariateSplit(0, 6, 7, t[2]), 4: Leaf(labels[0]), 5: Leaf(labels[1]),
                                6: Leaf(labels[2]), 7: Leaf(labels[3])}))
    return best[1]


def test_proposition_2_can_fail_at_depth_2():
    """The proof's step "J classified right => Ī classified right" needs the J points of a cluster in one leaf.
    Here CART's leaf (0.3755, 0.9075] holds the class-1 cluster {0.175, 0.511, 0.544, 0.607, 0.872}:
    Ī = {0.511, 0.544, 0.607}, J = {0.175, 0.872}. An exact solve of the weighted objective (1 error, against
    CART's 2) puts the two J points in two class-1 leaves and Ī in a class-0 leaf between them, so the
    training accuracy falls from 0.8 to 0.6."""
    x = np.array([0.081, 0.175, 0.376, 0.511, 0.544, 0.607, 0.802, 0.872, 0.943, 0.976])
    y = np.array([0, 1, 0, 1, 1, 1, 0, 1, 0, 0])
    X = x[:, None]

    def fit_tree(rows, sample_weight, warm_start):
        return best_four_intervals(x[rows], y[rows], sample_weight, np.array([0, 1]))

    _, history = iterative_training(fit_tree, X, y, depth=2, beta1=0.2, beta2=0.05, epsilon_prime=0.0,
                                    n_iterations=1)
    assert [h["train_accuracy"] for h in history] == [0.8, 0.6]
    assert history[1]["n_selected"] == 7


# ---------------------------------------------------------------------------- input validation
def test_bad_parameters_are_named():
    X, y = three_blobs(40)
    with pytest.raises(ValueError, match=r"beta2=0.9 must be below \(d \+ 1\)\(1 - beta1\) = 0.3"):
        LPDataSelector(beta1=0.9, beta2=0.9).fit(X, y)
    with pytest.raises(ValueError, match="beta1"):
        LPDataSelector(beta1=1.0).fit(X, y)
    with pytest.raises(ValueError, match="method"):
        LPDataSelector(method="simplex").fit(X, y)
    with pytest.raises(ValueError, match="epsilon_prime=0 or use method='lp'"):
        LPDataSelector(method="balanced", epsilon_prime=0.1).fit(X, y)
    with pytest.raises(ValueError, match="fitted on 3 features, X has 2"):
        LPDataSelector().fit(X, y, tree=DecisionTreeClassifier(max_depth=2).fit(np.c_[X, X[:, 0]], y))
    with pytest.raises(ValueError, match="beta2"):
        iterative_training(lambda *a: None, X, y, depth=1, beta1=0.9, beta2=0.9, epsilon_prime=0.0,
                           n_iterations=1)
    with pytest.raises(ValueError, match="use method='lp'"):
        balanced_selection(np.random.default_rng(0).random((data_selection.MAX_BALANCED_POINTS + 1, 2)))
