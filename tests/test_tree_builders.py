"""Tests of the tree builders and walks beside Tree (issue 30): Tree.from_sklearn, Tree.leaf_paths,
Tree.full_tree_positions and odtlib.tree.build.full_tree_walk, on hand-built trees with the answers written out."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from odtlib.tree import HyperplaneSplit, Leaf, SubsetSplit, Tree, UnivariateSplit
from odtlib.tree.build import full_tree_walk


# ---------------------------------------------------------------------------------------------- from_sklearn
def test_from_sklearn_on_a_hand_checked_stump():
    # one feature, classes 0 0 | 1 1: CART cuts halfway between 1 and 2, at 1.5; "x <= 1.5" goes left (class 0)
    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1])
    cart = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    expected = Tree({1: UnivariateSplit(0, 2, 3, 1.5), 2: Leaf(0), 3: Leaf(1)})
    assert Tree.from_sklearn(cart) == expected
    named = Tree.from_sklearn(cart, labels=["no", "yes"], feature_names=["age"])
    assert named == Tree({1: UnivariateSplit(0, 2, 3, 1.5), 2: Leaf("no"), 3: Leaf("yes")}, feature_names=["age"])


def test_from_sklearn_of_a_cart_without_a_split_is_one_leaf():
    cart = DecisionTreeClassifier().fit(np.zeros((3, 2)), ["b", "b", "b"])
    assert Tree.from_sklearn(cart) == Tree({1: Leaf("b")})


def test_from_sklearn_numbers_the_nodes_breadth_first_two_levels_deep():
    # x0 <= 0.5 separates {0, 1} from {2}; among x0 = 0 the rows split on x1 (0 -> class 0, 1 -> class 1), so
    # the left child 2 splits into 4, 5 and the right child 3 is a leaf: ids of the full tree, root 1
    X = np.array([[0, 0], [0, 0], [0, 1], [0, 1], [1, 0], [1, 1], [1, 0]], dtype=float)
    y = np.array([0, 0, 1, 1, 2, 2, 2])
    tree = Tree.from_sklearn(DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y))
    assert tree == Tree({1: UnivariateSplit(0, 2, 3, 0.5), 2: UnivariateSplit(1, 4, 5, 0.5), 3: Leaf(2),
                         4: Leaf(0), 5: Leaf(1)})


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("max_depth", [2, 5, None])
def test_from_sklearn_predicts_as_the_cart_tree_on_random_data(seed, max_depth):
    rng = np.random.default_rng(seed)
    # float32 values: scikit-learn compares X cast to float32 with its thresholds, the Tree compares X as given;
    # on values that float32 holds exactly both comparisons are the same
    X = rng.normal(size=(300, 4)).astype(np.float32).astype(float)
    labels = np.array(["ant", "bee", "cat"])
    y = labels[rng.integers(0, 3, 300)]
    cart = DecisionTreeClassifier(max_depth=max_depth, random_state=seed).fit(X, y)
    tree = Tree.from_sklearn(cart)
    X_new = rng.normal(size=(500, 4)).astype(np.float32).astype(float)
    for data in (X, X_new):
        np.testing.assert_array_equal(tree.predict(data), cart.predict(data))
    assert tree.n_leaves == cart.get_n_leaves() and tree.depth == cart.get_depth()


# ---------------------------------------------------------------------------------------------- leaf_paths
def _hand_built_tree() -> Tree:
    """Ids chosen out of order on purpose::

        10: x0 <= 0.5 ? 4 : 7
            4: leaf "a"
            7: x1 <= 0.5 ? 3 : 8
                3: x0 + x1 <= 1 ? 1 : 2   (leaves "b", "c")
                8: leaf "d"
    """
    return Tree({10: UnivariateSplit(0, 4, 7), 4: Leaf("a"), 7: UnivariateSplit(1, 3, 8),
                 3: HyperplaneSplit([1.0, 1.0], 1.0, 1, 2), 1: Leaf("b"), 2: Leaf("c"), 8: Leaf("d")}, root=10)


def test_leaf_paths_of_a_hand_built_tree():
    assert list(_hand_built_tree().leaf_paths()) == [
        (4, ((10, True),)),
        (1, ((10, False), (7, True), (3, True))),
        (2, ((10, False), (7, True), (3, False))),
        (8, ((10, False), (7, False))),
    ]


def test_leaf_paths_of_a_single_leaf():
    assert list(Tree({5: Leaf(0)}, root=5).leaf_paths()) == [(5, ())]


def test_a_row_reaches_the_leaf_whose_path_it_follows():
    tree = Tree({1: SubsetSplit([0, 2], 2, 3), 2: Leaf(0), 3: UnivariateSplit(1, 6, 7), 6: Leaf(1), 7: Leaf(0)})
    X = np.random.default_rng(0).integers(0, 2, size=(64, 3)).astype(float)
    follows = {}
    for leaf, path in tree.leaf_paths():
        mask = np.ones(len(X), dtype=bool)
        for split, went_left in path:
            mask &= tree.nodes[split].goes_left(X) == went_left
        follows[leaf] = mask
    reached = tree.apply(X)
    for leaf, mask in follows.items():
        np.testing.assert_array_equal(mask, reached == leaf)


def test_full_tree_positions_of_a_hand_built_tree():
    # 10 is the root (1); its children 4, 7 are 2, 3; 7's children 3, 8 are 6, 7; 3's children 1, 2 are 12, 13
    assert _hand_built_tree().full_tree_positions() == {10: 1, 4: 2, 7: 3, 3: 6, 1: 12, 2: 13, 8: 7}


def test_full_tree_walk_stops_below_the_nodes_that_do_not_split():
    # nodes 1 and 3 split: 1 -> 2 (leaf), 3; 3 -> 6, 7 (leaves); pre-order, left first
    assert list(full_tree_walk(lambda t: t in {1, 3, 4})) == [(1, True), (2, False), (3, True), (6, False),
                                                              (7, False)]
