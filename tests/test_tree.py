"""Tests of odtlib.tree: prediction against a per-row reference walk, leaf counts and probabilities, serialisation,
text (with feature groups), plot, validation."""
from __future__ import annotations

import itertools
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from odtlib.tree import HyperplaneSplit, Leaf, SubsetSplit, Tree, UnivariateSplit  # noqa: E402

N_FEATURES = 6
LABELS = [0, 1, 2, "a", "b"]


# ---------------------------------------------------------------------------------------------- helpers
def random_tree(rng: np.random.Generator, max_depth: int, kinds: tuple[str, ...], labels=LABELS) -> Tree:
    """A random tree whose node ids are shuffled (not BFS numbers) to exercise arbitrary ids."""
    ids = iter(rng.permutation(np.arange(10, 10 + 2 ** (max_depth + 1))).tolist())
    nodes = {}

    def grow(level: int) -> int:
        node_id = next(ids)
        if level == max_depth or (level > 0 and rng.random() < 0.3):
            nodes[node_id] = Leaf(labels[rng.integers(len(labels))])
            return node_id
        left, right = grow(level + 1), grow(level + 1)
        kind = kinds[rng.integers(len(kinds))]
        if kind == "univariate":
            threshold = rng.integers(0, 5) / 4  # on the data grid below, so ties x == threshold occur
            nodes[node_id] = UnivariateSplit(int(rng.integers(N_FEATURES)), left, right, threshold)
        elif kind == "subset":
            size = int(rng.integers(1, 4))
            nodes[node_id] = SubsetSplit(rng.choice(N_FEATURES, size, replace=False).tolist(), left, right)
        else:
            # small integer weights and quarter biases: w.x is exact on the grid, so ties w.x == bias occur
            weights = rng.integers(-2, 3, size=N_FEATURES).astype(float)
            nodes[node_id] = HyperplaneSplit(weights, rng.integers(-4, 5) / 4, left, right)
        return node_id

    root = grow(0)
    return Tree(nodes, root=root)


def reference_leaf(tree: Tree, row) -> int:
    """Walk one row down the tree, evaluating each rule with plain Python (the oracle for apply/predict)."""
    node_id = tree.root
    while True:
        node = tree.nodes[node_id]
        if isinstance(node, Leaf):
            return node_id
        if isinstance(node, UnivariateSplit):
            left = float(row[node.feature]) <= node.threshold
        elif isinstance(node, SubsetSplit):
            left = any(float(row[j]) == 1.0 for j in node.features)
        else:
            left = sum(float(w) * float(v) for w, v in zip(node.weights, row)) <= node.bias
        node_id = node.left if left else node.right


def reference_depth(tree: Tree, node_id: int | None = None) -> int:
    node = tree.nodes[tree.root if node_id is None else node_id]
    if isinstance(node, Leaf):
        return 0
    return 1 + max(reference_depth(tree, node.left), reference_depth(tree, node.right))


def example_tree() -> Tree:
    """odor (one-hot, subset split) then a univariate split on a binary column, then a hyperplane."""
    names = ["odor=almond", "odor=anise", "odor=none", "odor=foul", "bruises", "size"]
    return Tree(
        {
            1: SubsetSplit([0, 1, 2], 2, 3, group="odor", values=["almond", "anise", "none"]),
            2: UnivariateSplit(4, 4, 5),
            3: Leaf("p"),
            4: HyperplaneSplit(np.array([0.5, 0.0, 0.0, 0.0, 0.0, -1.25]), 0.75, 6, 7),
            5: Leaf("e"),
            6: Leaf("e"),
            7: Leaf("p"),
        },
        feature_names=names,
    )


# ---------------------------------------------------------------------------------------------- prediction
@pytest.mark.parametrize("kinds", [("univariate",), ("subset",), ("hyperplane",),
                                   ("univariate", "subset", "hyperplane")])
@pytest.mark.parametrize("binary_data", [True, False])
def test_apply_and_predict_match_reference_walk(kinds, binary_data):
    rng = np.random.default_rng([len(kinds), len(kinds[0]), int(binary_data)])
    for _ in range(25):
        tree = random_tree(rng, max_depth=int(rng.integers(1, 5)), kinds=kinds)
        grid = 2 if binary_data else 5  # {0, 1} or {0, 0.25, 0.5, 0.75, 1}
        X = rng.integers(0, grid, size=(200, N_FEATURES)) / (grid - 1)
        expected_leaves = np.array([reference_leaf(tree, row) for row in X])
        np.testing.assert_array_equal(tree.apply(X), expected_leaves)
        expected_labels = [tree.nodes[i].label for i in expected_leaves]
        assert tree.predict(X).tolist() == expected_labels
        assert tree.depth == reference_depth(tree)
        assert tree.n_leaves + tree.n_splits == len(tree.nodes)
        assert tree.n_splits == sum(not isinstance(n, Leaf) for n in tree.nodes.values())
        # every sample is routed along a path ending in its leaf
        for row, leaf in zip(X[:5], expected_leaves[:5]):
            path = tree.decision_path(row)
            assert path[0] == tree.root and path[-1] == leaf and len(path) - 1 <= tree.depth


def test_predict_accepts_pandas_and_keeps_label_types():
    tree = Tree({1: UnivariateSplit(1, 2, 3), 2: Leaf(np.int64(4)), 3: Leaf(7)}, feature_names=["a", "b"])
    X = pd.DataFrame({"a": [0, 1, 1], "b": [1, 0, 1]})
    pred = tree.predict(X)
    assert pred.tolist() == [7, 4, 7]
    assert pred.dtype.kind == "i"
    str_tree = Tree({1: UnivariateSplit(0, 2, 3), 2: Leaf(np.str_("yes")), 3: Leaf("no")})
    assert str_tree.predict(np.array([[0], [1]])).tolist() == ["yes", "no"]


def test_predict_on_empty_input_and_single_leaf():
    tree = Tree({5: Leaf("only")}, root=5)
    assert tree.depth == 0 and tree.n_leaves == 1 and tree.n_splits == 0
    assert tree.predict(np.zeros((3, 2))).tolist() == ["only"] * 3
    assert example_tree().predict(np.zeros((0, 6))).shape == (0,)


def test_predict_rejects_wrong_shapes_and_columns():
    tree = example_tree()
    with pytest.raises(ValueError, match="2-D"):
        tree.predict(np.zeros(6))
    with pytest.raises(ValueError, match="X has 5 columns but the tree needs 6"):
        tree.predict(np.zeros((2, 5)))
    with pytest.raises(ValueError, match="columns"):
        tree.predict(pd.DataFrame(np.zeros((2, 6)), columns=list("abcdef")))
    unnamed = Tree({1: UnivariateSplit(3, 2, 3), 2: Leaf(0), 3: Leaf(1)})
    with pytest.raises(ValueError, match="X has 3 columns but the tree needs 4"):
        unnamed.predict(np.zeros((1, 3)))
    assert unnamed.predict(np.zeros((1, 9))).tolist() == [0]  # extra columns are fine without names
    hyperplane = Tree({1: HyperplaneSplit([1.0, 1.0], 1.5, 2, 3), 2: Leaf(0), 3: Leaf(1)})
    assert hyperplane.predict(np.array([[1, 1, 5, 5], [1, 0, 5, 5]])).tolist() == [1, 0]


# ---------------------------------------------------------------------------------------------- serialisation
@pytest.mark.parametrize("kind", ["univariate", "subset", "hyperplane"])
def test_json_round_trip_each_split_kind(kind):
    rng = np.random.default_rng(3)
    tree = random_tree(rng, max_depth=3, kinds=(kind,), labels=[np.int64(1), np.int64(2), np.str_("x"), "y", 3])
    text = json.dumps(tree.to_dict())
    back = Tree.from_dict(json.loads(text))
    assert back == tree
    X = rng.random((50, N_FEATURES))
    assert back.predict(X).tolist() == tree.predict(X).tolist()
    leaf_types = {type(label) for label in back.leaf_labels.values()}
    assert leaf_types <= {int, str}


def test_round_trip_keeps_names_groups_values_and_label_types():
    tree = example_tree()
    back = Tree.from_dict(json.loads(json.dumps(tree.to_dict())))
    assert back == tree
    assert back.feature_names == tree.feature_names
    assert back.nodes[1].group == "odor" and back.nodes[1].values == ["almond", "anise", "none"]
    int_tree = Tree({1: UnivariateSplit(np.int64(0), 2, 3), 2: Leaf(np.int32(0)), 3: Leaf(1)})
    restored = Tree.from_dict(json.loads(json.dumps(int_tree.to_dict())))
    assert [type(v) for v in restored.leaf_labels.values()] == [int, int]


def test_equality_distinguishes_trees():
    tree = example_tree()
    assert tree == example_tree()
    assert tree != Tree(tree.nodes, tree.root)  # feature names differ
    changed = dict(tree.nodes)
    changed[4] = HyperplaneSplit(np.array([0.5, 0, 0, 0, 0, -1.0]), 0.75, 6, 7)
    assert tree != Tree(changed, feature_names=tree.feature_names)
    assert HyperplaneSplit([1, 2], 0, 2, 3) == HyperplaneSplit(np.array([1.0, 2.0]), 0.0, 2, 3)
    assert UnivariateSplit(0, 2, 3) != UnivariateSplit(0, 2, 3, threshold=0.25)


def test_from_dict_rejects_unknown_kind():
    with pytest.raises(ValueError, match="unknown node kind 'oblique'"):
        Tree.from_dict({"root": 1, "nodes": [{"id": 1, "kind": "oblique"}]})


# ---------------------------------------------------------------------------------------------- text and plot
def test_to_text_reads_as_nested_rules_with_feature_names():
    expected = "\n".join(
        [
            "if odor in {almond, anise, none}:",
            "    if bruises == 0:",
            "        if 0.5*odor=almond - 1.25*size <= 0.75:",
            "            predict 'e'",
            "        else:",
            "            predict 'p'",
            "    else:",
            "        predict 'e'",
            "else:",
            "    predict 'p'",
        ]
    )
    assert example_tree().to_text(binary=True) == expected


def test_to_text_univariate_wording():
    binary = Tree({1: UnivariateSplit(2, 2, 3), 2: Leaf(0), 3: Leaf(1)}, feature_names=["a", "b", "odor=none"])
    assert binary.to_text().splitlines()[0] == "if odor != none:"  # 0.5 only: binary wording
    assert binary.to_text(binary=False).splitlines()[0] == "if odor=none <= 0.5:"
    continuous = Tree({1: UnivariateSplit(3, 2, 3, threshold=0.25), 2: Leaf(0), 3: Leaf(1)})
    assert continuous.to_text().splitlines()[0] == "if x3 <= 0.25:"
    subset_without_names = Tree({1: SubsetSplit([0, 2], 2, 3), 2: Leaf("L"), 3: Leaf("R")})
    assert subset_without_names.to_text().splitlines()[0] == "if x0 == 1 or x2 == 1:"
    assert Tree({1: Leaf(3)}).to_text() == "predict 3"


def test_plot_draws_conditions_and_leaves():
    tree = example_tree()
    fig, ax = plt.subplots()
    returned = tree.plot(ax=ax, binary=True)
    assert returned is ax
    texts = [" ".join(t.get_text().split()) for t in ax.texts]  # conditions may be wrapped over lines
    assert "odor in {almond, anise, none}" in texts
    assert "bruises == 0" in texts
    assert sum(t == "e" for t in texts) == 2 and sum(t == "p" for t in texts) == 2
    assert texts.count("yes") == tree.n_splits and texts.count("no") == tree.n_splits
    plt.close(fig)
    own_ax = Tree({1: Leaf("x")}).plot()
    assert [t.get_text() for t in own_ax.texts] == ["x"]
    plt.close(own_ax.figure)


# ---------------------------------------------------------------------------------------------- flow solutions
def reference_flow_predict(branch_feature, node_label, row):
    """Follow a BFS-numbered solution directly: x_f == 0 goes to 2n, otherwise 2n+1, until a labelled node."""
    n = 1
    while n not in node_label:
        n = 2 * n if row[branch_feature[n]] == 0 else 2 * n + 1
    return n, node_label[n]


def test_from_flow_solution_with_internal_predicting_node():
    # depth 2: node 2 predicts although it is internal in the full tree; 4 and 5 (below it) are dropped
    branch_feature = {1: 0, 3: 2, 4: 1}  # node 4 is below the leaf 2: ignored
    node_label = {2: "a", 4: "b", 5: "c", 6: "b", 7: "c"}
    tree = Tree.from_flow_solution(2, branch_feature, node_label, feature_names=["f0", "f1", "f2"])
    assert sorted(tree.nodes) == [1, 2, 3, 6, 7]
    assert tree.nodes[2] == Leaf("a")
    assert tree.nodes[1] == UnivariateSplit(0, 2, 3) and tree.nodes[3] == UnivariateSplit(2, 6, 7)
    assert tree.depth == 2 and tree.n_leaves == 3
    X = np.array(list(itertools.product([0, 1], repeat=3)), dtype=float)
    for row, leaf, label in zip(X, tree.apply(X), tree.predict(X)):
        assert (leaf, label) == reference_flow_predict(branch_feature, node_label, row)


def test_from_flow_solution_random_solutions_match_direct_walk():
    rng = np.random.default_rng(11)
    depth = 3
    X = np.array(list(itertools.product([0, 1], repeat=4)), dtype=float)
    for _ in range(30):
        branch_feature, node_label = {}, {}
        for n in range(1, 2 ** (depth + 1)):
            if n >= 2**depth or rng.random() < 0.25:
                node_label[n] = int(rng.integers(3))
            else:
                branch_feature[n] = int(rng.integers(4))
        tree = Tree.from_flow_solution(depth, branch_feature, node_label)
        for row, leaf in zip(X, tree.apply(X)):
            assert leaf == reference_flow_predict(branch_feature, node_label, row)[0]


def test_from_flow_solution_errors():
    with pytest.raises(ValueError, match="node 3 is reached by the tree but has neither"):
        Tree.from_flow_solution(1, {1: 0}, {2: 0})
    with pytest.raises(ValueError, match="node 2 has both a branching feature and a class label"):
        Tree.from_flow_solution(1, {1: 0, 2: 1}, {2: 0, 3: 1})
    with pytest.raises(ValueError, match="node 2 is at depth 1 and cannot branch"):
        Tree.from_flow_solution(1, {1: 0, 2: 1}, {3: 1})
    with pytest.raises(ValueError, match="depth must be a non-negative integer"):
        Tree.from_flow_solution(-1, {}, {1: 0})
    assert Tree.from_flow_solution(0, {}, {1: "z"}) == Tree({1: Leaf("z")})


# ---------------------------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "nodes, root, message",
    [
        ({1: UnivariateSplit(0, 2, 3), 2: Leaf(0)}, 1, "node 1 refers to child 3, which does not exist"),
        ({1: UnivariateSplit(0, 2, 3), 2: Leaf(0), 3: UnivariateSplit(0, 1, 2)}, 1, "reached twice"),
        ({1: UnivariateSplit(0, 2, 2), 2: Leaf(0)}, 1, "reached twice"),
        ({1: UnivariateSplit(0, 2, 3), 2: Leaf(0), 3: Leaf(1), 9: Leaf(2)}, 1, r"nodes \[9\] are not reachable"),
        ({2: Leaf(0)}, 1, "root 1 is not among the nodes"),
    ],
)
def test_structure_validation(nodes, root, message):
    with pytest.raises(ValueError, match=message):
        Tree(nodes, root=root)


def test_node_validation():
    with pytest.raises(TypeError, match="node 1 is a str"):
        Tree({1: "leaf"})
    with pytest.raises(ValueError, match="non-negative integers"):
        UnivariateSplit(-1, 2, 3)
    with pytest.raises(ValueError, match="at least one feature"):
        SubsetSplit([], 2, 3)
    with pytest.raises(ValueError, match="1-D"):
        HyperplaneSplit(np.zeros((2, 2)), 0.0, 2, 3)
    with pytest.raises(TypeError, match="left must be an integer node id"):
        UnivariateSplit(0, "2", 3)
    with pytest.raises(ValueError, match="the splits use 4 features but only 2 feature names"):
        Tree({1: UnivariateSplit(3, 2, 3), 2: Leaf(0), 3: Leaf(1)}, feature_names=["a", "b"])


# ---------------------------------------------------------------------------------------------- counts, probabilities
IRIS_CLASSES = ["setosa", "versicolor", "virginica"]


def threshold_tree() -> Tree:
    """Two QT-style indicator columns: petal_length>2.45 == 0 -> setosa, else petal_width>1.75 splits."""
    return Tree(
        {1: UnivariateSplit(0, 2, 3), 2: Leaf("setosa"), 3: UnivariateSplit(1, 4, 5),
         4: Leaf("versicolor"), 5: Leaf("virginica")},
        feature_names=["petal_length>2.45", "petal_width>1.75"],
    )


# rows 0-2 reach leaf 2, rows 3-6 leaf 4, rows 7-8 leaf 5
THRESHOLD_X = np.array([[0, 0], [0, 0], [0, 1], [1, 0], [1, 0], [1, 0], [1, 0], [1, 1], [1, 1]], dtype=float)
THRESHOLD_Y = ["setosa", "setosa", "versicolor", "versicolor", "versicolor", "versicolor", "virginica",
               "virginica", "virginica"]


def test_with_leaf_counts_counts_the_classes_reaching_each_leaf():
    tree = threshold_tree()
    counted = tree.with_leaf_counts(THRESHOLD_X, pd.Series(THRESHOLD_Y))
    assert counted.nodes[2].counts == {"setosa": 2, "versicolor": 1, "virginica": 0}
    assert counted.nodes[4].counts == {"setosa": 0, "versicolor": 3, "virginica": 1}
    assert counted.nodes[5].counts == {"setosa": 0, "versicolor": 0, "virginica": 2}
    assert list(counted.nodes[2].counts) == IRIS_CLASSES  # classes in sorted order
    assert [counted.nodes[i].n_samples for i in (2, 4, 5)] == [3, 4, 2]
    assert all(leaf.counts is None for leaf in (tree.nodes[2], tree.nodes[4], tree.nodes[5]))  # tree unchanged
    assert counted.nodes[1] == tree.nodes[1] and counted.feature_names == tree.feature_names
    unreached = tree.with_leaf_counts(THRESHOLD_X[:3], np.array(THRESHOLD_Y[:3]))
    assert unreached.nodes[5].counts == {"setosa": 0, "versicolor": 0} and unreached.nodes[5].n_samples == 0
    with pytest.raises(ValueError, match="y has 2 labels but X has 9 rows"):
        tree.with_leaf_counts(THRESHOLD_X, ["setosa", "virginica"])


def test_predict_proba_gives_the_class_frequencies_of_the_leaf():
    counted = threshold_tree().with_leaf_counts(THRESHOLD_X, THRESHOLD_Y)
    X = np.array([[0, 1], [1, 0], [1, 1]], dtype=float)  # leaves 2, 4, 5
    proba = counted.predict_proba(X, IRIS_CLASSES)
    np.testing.assert_allclose(proba, [[2 / 3, 1 / 3, 0], [0, 3 / 4, 1 / 4], [0, 0, 1]])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    reordered = counted.predict_proba(X, np.array(["virginica", "setosa", "versicolor"]))
    np.testing.assert_allclose(reordered, [[0, 2 / 3, 1 / 3], [1 / 4, 0, 3 / 4], [1, 0, 0]])
    assert counted.predict_proba(np.zeros((0, 2)), IRIS_CLASSES).shape == (0, 3)


def test_predict_proba_without_samples_puts_all_mass_on_the_leaf_label():
    X = np.array([[0, 0], [1, 0], [1, 1]], dtype=float)
    expected = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    np.testing.assert_array_equal(threshold_tree().predict_proba(X, IRIS_CLASSES), expected)  # counts unknown
    empty = threshold_tree().with_leaf_counts(np.zeros((0, 2)), [])  # counts known, but no samples
    assert empty.nodes[4].counts == {}
    np.testing.assert_array_equal(empty.predict_proba(X, IRIS_CLASSES), expected)


def test_predict_proba_errors_name_the_leaf_and_the_class():
    tree = threshold_tree()
    with pytest.raises(ValueError, match="leaf 5 predicts 'virginica', which is not among the classes"):
        tree.predict_proba(np.zeros((1, 2)), ["setosa", "versicolor"])
    odd = Tree({1: UnivariateSplit(0, 2, 3), 2: Leaf("a", {"a": 2, "z": 1}), 3: Leaf("b")})
    with pytest.raises(ValueError, match="leaf 2 counts samples of class 'z'"):
        odd.predict_proba(np.zeros((1, 1)), ["a", "b"])
    with pytest.raises(ValueError, match="classes must be distinct"):
        tree.predict_proba(np.zeros((1, 2)), ["setosa", "setosa", "versicolor", "virginica"])


def sklearn_to_tree(cart) -> Tree:
    """Our Tree with the splits and leaf labels of a fitted DecisionTreeClassifier (no counts)."""
    t = cart.tree_
    nodes = {}
    for i in range(t.node_count):
        if t.children_left[i] == -1:
            nodes[i] = Leaf(cart.classes_[int(np.argmax(t.value[i][0]))])
        else:
            nodes[i] = UnivariateSplit(t.feature[i], t.children_left[i], t.children_right[i], t.threshold[i])
    return Tree(nodes, root=0)


def test_predict_proba_matches_scikit_learn_decision_tree():
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(300, 4)).astype(float)
    y = np.where(X[:, 0] + rng.integers(0, 3, 300) > 3, "hi", np.where(X[:, 1] > 1, "mid", "lo"))
    cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    tree = sklearn_to_tree(cart).with_leaf_counts(X, y)
    X_new = rng.integers(0, 4, size=(50, 4)).astype(float)
    np.testing.assert_allclose(tree.predict_proba(X_new, cart.classes_), cart.predict_proba(X_new))


# ---------------------------------------------------------------------------------------------- simplification
def test_simplified_collapses_splits_whose_subtrees_predict_one_class():
    tree = Tree(
        {1: UnivariateSplit(0, 2, 3), 2: Leaf("a", {"a": 3, "b": 1}), 3: UnivariateSplit(1, 4, 5),
         4: UnivariateSplit(2, 6, 7), 5: Leaf("b", {"a": 0, "b": 4}),
         6: Leaf("b", {"a": 1, "b": 2}), 7: Leaf("b", {"b": 5})},
    )
    simple = tree.simplified()
    # 4 -> b (6 and 7 predict b), then 3 -> b (4 and 5 predict b); 1 stays (a vs b)
    assert sorted(simple.nodes) == [1, 2, 3]
    assert simple.nodes[3] == Leaf("b", {"a": 1, "b": 11})
    assert simple.nodes[1] == tree.nodes[1] and simple.nodes[2] == tree.nodes[2]
    X = np.array(list(itertools.product([0, 1], repeat=3)), dtype=float)
    assert simple.predict(X).tolist() == tree.predict(X).tolist()
    assert len(tree.nodes) == 7  # the tree itself is unchanged
    unknown = Tree({1: UnivariateSplit(0, 2, 3), 2: Leaf(0, {0: 1}), 3: Leaf(0)}).simplified()
    assert unknown == Tree({1: Leaf(0)})  # counts unknown when a part is unknown
    assert Tree({1: UnivariateSplit(0, 2, 3), 2: Leaf(0), 3: Leaf(1)}).simplified().n_splits == 1


# ---------------------------------------------------------------------------------------------- text with groups
def encoded_frame():
    """petal_width -> QT-2 threshold column, a2 -> one-hot (categorical), bin -> one kept indicator."""
    from odtlib.encoders import QuantileThresholdEncoder

    frame = pd.DataFrame({
        "petal_width": [0.2, 1.3, 2.3, 2.5, 0.2, 2.5],  # median midpoint (1.3 + 2.3) / 2 = 1.8
        "a2": pd.Series([1, 3, 2, 1, 2, 3], dtype="category"),
        "bin": ["n", "y", "n", "y", "y", "n"],
    })
    y = ["x", "y", "x", "y", "y", "x"]
    encoder = QuantileThresholdEncoder(k=2, drop_binary=True).fit(frame)
    return encoder.transform(frame), y, encoder.groups_


def grouped_tree(X) -> Tree:
    """Rows of encoded_frame reach: 0 -> 4, 1 -> 5, 2 -> 8, 3 -> 9, 4 -> 4, 5 -> 7."""
    return Tree(
        {1: UnivariateSplit(0, 2, 3), 2: UnivariateSplit(3, 4, 5), 3: SubsetSplit([1, 2], 6, 7),
         4: Leaf("x"), 5: Leaf("y"), 6: UnivariateSplit(4, 8, 9), 7: Leaf("y"), 8: Leaf("x"), 9: Leaf("x")},
        feature_names=list(X.columns),
    )


def test_to_text_with_encoder_groups_counts_and_simplification():
    X, y, groups = encoded_frame()
    assert list(X.columns) == ["petal_width>1.8", "a2=1", "a2=2", "a2=3", "bin=y"]
    tree = grouped_tree(X).with_leaf_counts(X, y)
    assert tree.apply(X).tolist() == [4, 5, 8, 9, 4, 7]
    assert tree.to_text(groups=groups).splitlines() == [
        "if petal_width <= 1.8:",
        "    if a2 != 3:",
        "        predict 'x'  (n=2: x 1, y 1)",
        "    else:",
        "        predict 'y'  (n=1: x 0, y 1)",
        "else:",
        "    if a2 in {1, 2}:",
        "        predict 'x'  (n=2: x 1, y 1)",
        "    else:",
        "        predict 'y'  (n=1: x 1, y 0)",
    ]
    full = tree.with_feature_groups(groups).to_text(simplify=False).splitlines()
    assert full[6:11] == [
        "    if a2 in {1, 2}:",
        "        if bin != y:",
        "            predict 'x'  (n=1: x 1, y 0)",
        "        else:",
        "            predict 'x'  (n=1: x 0, y 1)",
    ]
    plain = grouped_tree(X).to_text(simplify=False).splitlines()  # no groups: wording from the column names
    assert [line.strip() for line in plain if line.strip().startswith("if")] == [
        "if petal_width <= 1.8:", "if a2 != 3:", "if a2 == 1 or a2 == 2:", "if bin != y:",
    ]


def feature_group(name, columns, kind, values):
    from odtlib.encoders import FeatureGroup

    return FeatureGroup(name, columns, kind, values)


BUCKETS = feature_group("x", ["x in [1, 2.75]", "x in (2.75, 4.5]", "x in (4.5, 8]"], "ordinal",
                        [(1.0, 2.75), (2.75, 4.5), (4.5, 8.0)])
THRESHOLDS_ABOVE = feature_group("pw", ["pw>0.8", "pw>1.8"], "binary", [0.8, 1.8])
THRESHOLDS_BELOW = feature_group("pw", ["pw<=1.8"], "binary", [1.8])
CATEGORIES = feature_group("a2", ["a2=1", "a2=2", "a2=3"], "categorical", [1, 2, 3])
KEPT_INDICATOR = feature_group("bin", ["bin=y"], "binary", ["y"])


@pytest.mark.parametrize(
    "group, column, if_zero, if_one",
    [
        (CATEGORIES, 2, "a2 != 3", "a2 == 3"),
        (KEPT_INDICATOR, 0, "bin != y", "bin == y"),
        (THRESHOLDS_ABOVE, 1, "pw <= 1.8", "pw > 1.8"),
        (THRESHOLDS_BELOW, 0, "pw > 1.8", "pw <= 1.8"),
        (BUCKETS, 0, "x > 2.75", "x <= 2.75"),  # the first bucket also holds values below 1
        (BUCKETS, 1, "x not in (2.75, 4.5]", "x in (2.75, 4.5]"),
        (BUCKETS, 2, "x <= 4.5", "x > 4.5"),  # the last bucket also holds values above 8
    ],
)
def test_each_group_kind_reads_in_terms_of_the_attribute(group, column, if_zero, if_one):
    names = group.columns
    univariate = Tree({1: UnivariateSplit(column, 2, 3), 2: Leaf(0), 3: Leaf(1)}, feature_names=names)
    assert univariate.to_text(groups=[group]).splitlines()[0] == f"if {if_zero}:"
    subset = Tree({1: SubsetSplit([column], 2, 3), 2: Leaf(0), 3: Leaf(1)}, feature_names=names)
    assert subset.to_text(groups=[group]).splitlines()[0] == f"if {if_one}:"


@pytest.mark.parametrize(
    "group, columns, expected",
    [
        (CATEGORIES, [2, 0], "a2 in {1, 3}"),
        (BUCKETS, [0, 1], "x <= 4.5"),
        (BUCKETS, [2, 1], "x > 2.75"),
        (BUCKETS, [0, 2], "x <= 2.75 or x > 4.5"),  # not one interval: one test per bucket
        (THRESHOLDS_ABOVE, [0, 1], "pw > 0.8 or pw > 1.8"),
    ],
)
def test_subset_splits_read_as_sets_and_intervals(group, columns, expected):
    tree = Tree({1: SubsetSplit(columns, 2, 3), 2: Leaf(0), 3: Leaf(1)}, feature_names=group.columns)
    assert tree.to_text(groups=[group]).splitlines()[0] == f"if {expected}:"


def test_scaled_numeric_group_reads_in_original_units_and_other_columns_by_name():
    scaled = feature_group("v", ["v"], "numeric", [(0.0, 10.0)])
    tree = Tree({1: UnivariateSplit(0, 2, 3, threshold=0.25), 2: UnivariateSplit(1, 4, 5), 3: Leaf(1),
                 4: Leaf(0), 5: Leaf(1)}, feature_names=["v", "bruises"])
    assert tree.to_text(groups=[scaled]).splitlines()[:2] == ["if v <= 2.5:", "    if bruises <= 0.5:"]
    assert tree.to_text(binary=True, groups=[scaled]).splitlines()[:2] == ["if v <= 2.5:", "    if bruises == 0:"]


@pytest.mark.parametrize(
    "name, if_zero, if_one",
    [
        ("petal_width>1.8", "petal_width <= 1.8", "petal_width > 1.8"),
        ("pw<=1.8", "pw > 1.8", "pw <= 1.8"),
        ("age >= 40", "age < 40", "age >= 40"),
        ("x in (2.75, 4.5]", "x not in (2.75, 4.5]", "x in (2.75, 4.5]"),
        ("lives in town", "lives in town == 0", "lives in town == 1"),
        ("odor=none", "odor != none", "odor == none"),  # issue 31: a one-hot column reads as (in)equality
        ("bruises", "bruises == 0", "bruises == 1"),
    ],
)
def test_without_groups_column_names_stating_a_comparison_are_negated(name, if_zero, if_one):
    univariate = Tree({1: UnivariateSplit(0, 2, 3), 2: Leaf(0), 3: Leaf(1)}, feature_names=[name])
    assert univariate.to_text().splitlines()[0] == f"if {if_zero}:"
    subset = Tree({1: SubsetSplit([0], 2, 3), 2: Leaf(0), 3: Leaf(1)}, feature_names=[name])
    assert subset.to_text().splitlines()[0] == f"if {if_one}:"


def test_plot_shows_grouped_conditions_and_leaf_counts():
    X, y, groups = encoded_frame()
    tree = grouped_tree(X).with_leaf_counts(X, y).with_feature_groups(groups)
    fig, ax = plt.subplots()
    tree.plot(ax=ax)
    texts = [" ".join(t.get_text().split()) for t in ax.texts]
    assert {"petal_width <= 1.8", "a2 != 3", "a2 in {1, 2}"} <= set(texts)
    leaves = sorted(t for t in texts if t.startswith(("x n=", "y n=")))
    assert leaves == ["x n=2: x 1, y 1", "x n=2: x 1, y 1", "y n=1: x 0, y 1", "y n=1: x 1, y 0"]
    assert texts.count("yes") == 3  # node 6 collapsed
    plt.close(fig)
    fig, ax = plt.subplots()
    tree.plot(ax=ax, simplify=False)
    assert "bin != y" in [" ".join(t.get_text().split()) for t in ax.texts]
    plt.close(fig)


# ---------------------------------------------------------------------------------------------- counts, groups in JSON
def test_round_trip_keeps_counts_and_groups():
    X, y, groups = encoded_frame()
    tree = grouped_tree(X).with_leaf_counts(X, [0 if label == "x" else 1 for label in y]).with_feature_groups(
        groups + [BUCKETS])
    data = json.loads(json.dumps(tree.to_dict()))
    back = Tree.from_dict(data)
    assert back == tree
    assert back.nodes[4].counts == {0: 1, 1: 1} and [type(k) for k in back.nodes[4].counts] == [int, int]
    assert back.feature_groups[-1].values == [(1.0, 2.75), (2.75, 4.5), (4.5, 8.0)]
    assert back.to_text() == tree.to_text()
    assert back != tree.with_feature_groups(None) and tree.with_feature_groups(None).feature_groups is None


def test_old_format_dict_without_counts_or_groups_still_loads():
    old = {
        "root": 1,
        "feature_names": ["a", "b"],
        "nodes": [
            {"id": 1, "kind": "univariate", "feature": 1, "threshold": 0.5, "left": 2, "right": 3},
            {"id": 2, "kind": "leaf", "label": "no"},
            {"id": 3, "kind": "leaf", "label": "yes"},
        ],
    }
    tree = Tree.from_dict(old)
    assert tree.feature_groups is None and tree.nodes[2].counts is None
    assert tree.predict(np.array([[0, 1], [1, 0]])).tolist() == ["yes", "no"]
    assert tree.to_dict() == old  # nothing new is written for a tree without counts or groups


def test_counts_take_part_in_equality_but_not_in_the_hash():
    assert Leaf("a", {"a": 2}) == Leaf(np.str_("a"), {np.str_("a"): np.int64(2)})
    assert Leaf("a", {"a": 2}) != Leaf("a") and Leaf("a", {"a": 2}) != Leaf("a", {"a": 3})
    assert hash(Leaf("a", {"a": 2})) == hash(Leaf("a"))
    tree = threshold_tree()
    assert tree.with_leaf_counts(THRESHOLD_X, THRESHOLD_Y) != tree
    assert tree.with_leaf_counts(THRESHOLD_X, THRESHOLD_Y) == tree.with_leaf_counts(THRESHOLD_X, THRESHOLD_Y)


def test_counts_and_groups_validation():
    with pytest.raises(ValueError, match="non-negative integers, got -1 for class 'a'"):
        Leaf("a", {"a": -1})
    with pytest.raises(TypeError, match="must map class labels"):
        Leaf("a", [("a", 1)])
    unnamed = Tree({1: UnivariateSplit(0, 2, 3), 2: Leaf(0), 3: Leaf(1)})
    with pytest.raises(ValueError, match="feature groups need feature names"):
        unnamed.with_feature_groups([KEPT_INDICATOR])
    named = unnamed.with_feature_names(["bin=y"])
    with pytest.raises(ValueError, match="column 'bin=y' is in both feature groups 'bin' and 'b2'"):
        named.with_feature_groups([KEPT_INDICATOR, feature_group("b2", ["bin=y"], "binary", ["y"])])
    with pytest.raises(ValueError, match="none of the feature groups' columns is a feature of the tree"):
        named.with_feature_groups([CATEGORIES])
    with pytest.raises(ValueError, match="kind 'nominal'"):
        named.with_feature_groups([{"name": "bin", "columns": ["bin=y"], "kind": "nominal", "values": ["y"]}])
    with pytest.raises(ValueError, match="1 columns but 2 values"):
        named.with_feature_groups([feature_group("bin", ["bin=y"], "binary", ["y", "n"])])
    with pytest.raises(TypeError, match="needs a name, columns, kind and values"):
        named.with_feature_groups([{"name": "bin", "columns": [0]}])
    grouped = named.with_feature_groups([KEPT_INDICATOR, CATEGORIES])  # columns the tree lacks are ignored
    assert grouped.to_text() == "if bin != y:\n    predict 0\nelse:\n    predict 1"
