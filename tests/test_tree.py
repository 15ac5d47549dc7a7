"""Tests of odtlib.tree: prediction against a per-row reference walk, serialisation, text, plot, validation."""
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
@pytest.mark.parametrize("kinds", [("univariate",), ("subset",), ("hyperplane",), ("univariate", "subset", "hyperplane")])
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
    assert binary.to_text().splitlines()[0] == "if odor=none == 0:"  # threshold 0.5 only: binary wording
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
