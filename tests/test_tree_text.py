"""Readable trees (issue 31, items 6 and 8): hyperplanes in original units without solver noise, one-term
hyperplanes as univariate tests, one-hot and ordinal columns in the attribute's words, export_text /
export_graphviz with the counts of every node, and a plot whose boxes do not overlap."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from odtlib.encoders import FeatureGroup
from odtlib.tree import HyperplaneSplit, Leaf, SubsetSplit, Tree, UnivariateSplit, export_graphviz, export_text

# income scaled by UnitScaler from [10,000, 60,000] (span 50,000), age from [20, 70] (span 50)
INCOME = FeatureGroup("income", ["income"], "numeric", [(10_000.0, 60_000.0)])
AGE = FeatureGroup("age", ["age"], "numeric", [(20.0, 70.0)])
A2 = FeatureGroup("a2", ["a2=1", "a2=2", "a2=3"], "categorical", [1, 2, 3])
NAMES = ["income", "age", "a2=1", "a2=2", "a2=3"]
GROUPS = [INCOME, AGE, A2]


def first_condition(weights, bias, groups=GROUPS) -> str:
    tree = Tree({1: HyperplaneSplit(weights, bias, 2, 3), 2: Leaf("no"), 3: Leaf("yes")}, feature_names=NAMES)
    line = tree.to_text(groups=groups).splitlines()[0]
    assert line.startswith("if ") and line.endswith(":")
    return line[3:-1]


def test_one_term_hyperplane_reads_as_a_univariate_test_in_original_units_without_noise():
    # 1 * income_scaled - 1.56125e-17 * age_scaled <= 0.172; the age term is noise (1.6e-17 of the largest)
    # income_scaled <= 0.172  <=>  income <= 10,000 + 0.172 * 50,000 = 18,600
    assert first_condition([1.0, -1.56125e-17, 0, 0, 0], 0.172) == "income <= 18,600"
    # -2 * age_scaled <= -1  <=>  age_scaled >= 0.5  <=>  age >= 20 + 0.5 * 50 = 45
    assert first_condition([0, -2.0, 0, 0, 0], -1.0) == "age >= 45"


def test_hyperplane_coefficients_and_bias_in_original_units():
    # 0.5 * (income - 10,000) / 50,000 - 1 * (age - 20) / 50 <= 0.1
    # <=> 1e-05 * income - 0.02 * age <= 0.1 + 0.5 * 10,000 / 50,000 - 1 * 20 / 50 = 0.1 + 0.1 - 0.4 = -0.2
    assert first_condition([0.5, -1.0, 0, 0, 0], 0.1) == "1e-05*income - 0.02*age <= -0.2"
    # without the scaler's groups the same split reads on the scaled columns
    assert first_condition([0.5, -1.0, 0, 0, 0], 0.1, groups=None) == "0.5*income - 1*age <= 0.1"


def test_printed_univariate_threshold_routes_as_the_split():
    split = HyperplaneSplit([1.0, 0, 0, 0, 0], 0.172, 2, 3)
    for income, left in ((18_500.0, True), (18_600.0, True), (18_700.0, False)):
        scaled = np.array([[(income - 10_000) / 50_000, 0, 0, 0, 0]])
        assert split.goes_left(scaled)[0] == left == (income <= 18_600)


def test_one_term_hyperplane_on_a_one_hot_column_reads_as_inequality():
    # 1 * [a2 == 3] <= 0.5: a2 = 3 (column 1) goes right, every other value left
    assert first_condition([0, 0, 0, 0, 1.0], 0.5) == "a2 != 3"
    # -1 * [a2 == 3] <= -0.5: only a2 = 3 goes left
    assert first_condition([0, 0, 0, 0, -1.0], -0.5) == "a2 == 3"


def test_one_hot_column_without_groups_reads_as_inequality():
    tree = Tree({1: UnivariateSplit(0, 2, 3), 2: Leaf(0), 3: Leaf(1)}, feature_names=["a2=3"])
    assert tree.to_text().splitlines()[0] == "if a2 != 3:"


SCORE = FeatureGroup("score", [f"score={v}" for v in range(1, 6)], "ordinal", [1, 2, 3, 4, 5])


@pytest.mark.parametrize("positions, expected", [
    ([0, 1, 2], "score <= 3"),          # a run from the smallest value
    ([3, 4], "score >= 4"),             # a run up to the largest
    ([2, 3], "3 <= score <= 4"),        # an inner run
    ([1], "score == 2"),
    ([0, 2], "score in {1, 3}"),        # not contiguous: the values
])
def test_contiguous_ordered_values_merge_into_one_comparison(positions, expected):
    values = [SCORE.values[p] for p in positions]  # as CategoricalODT builds its splits: group and values set
    tree = Tree({1: SubsetSplit(positions, 2, 3, group="score", values=values), 2: Leaf(0), 3: Leaf(1)},
                feature_names=SCORE.columns)
    assert tree.to_text(groups=[SCORE]).splitlines()[0] == f"if {expected}:"
    assert tree.to_text().splitlines()[0] == f"if score in {{{', '.join(map(str, values))}}}:"  # no groups


def small_tree_and_data():
    """x0 <= 0.5 goes left. Rows: x0 = 0, 0, 1, 1, 1 with labels a, a, a, b, b.
    Root: n=5 (a 3, b 2); left leaf: n=2 (a 2, b 0); right leaf: n=3 (a 1, b 2)."""
    tree = Tree({1: UnivariateSplit(0, 2, 3, threshold=0.5), 2: Leaf("a"), 3: Leaf("b")}, feature_names=["x0"])
    return tree, np.array([[0.0], [0.0], [1.0], [1.0], [1.0]]), np.array(["a", "a", "a", "b", "b"])


def test_export_text_gives_n_and_class_counts_of_every_node():
    tree, X, y = small_tree_and_data()
    assert export_text(tree, X, y).splitlines() == [
        "x0 == 0?  n=5: a 3, b 2",
        "|--- yes: predict 'a'  n=2: a 2, b 0",
        "|--- no: predict 'b'  n=3: a 1, b 2",
    ]
    assert tree.export_text().splitlines()[0] == "x0 == 0?"  # no counts known: none shown


@pytest.mark.parametrize("split, condition", [
    (SubsetSplit([0, 1], 2, 3), "a2 in {1, 2}"),
    (HyperplaneSplit([0.0, 1.0, 0.0], 0.5, 2, 3), "a2 != 2"),
    (UnivariateSplit(2, 2, 3), "a2 != 3"),
])
def test_export_text_and_graphviz_for_every_split_kind(split, condition):
    # rows a2 = 1, 2, 3, 3 (one-hot), labels x, y, y, y
    X = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]], dtype=float)
    y = ["x", "y", "y", "y"]
    tree = Tree({1: split, 2: Leaf("x"), 3: Leaf("y")}, feature_names=A2.columns, feature_groups=[A2])
    lines = export_text(tree, X, y).splitlines()
    assert lines[0] == f"{condition}?  n=4: x 1, y 3"
    left = split.goes_left(X)
    n_left_x = int(left[0])          # the one "x" row is row 0
    n_left = int(left.sum())
    assert lines[1] == f"|--- yes: predict 'x'  n={n_left}: x {n_left_x}, y {n_left - n_left_x}"
    dot = export_graphviz(tree, X=X, y=y)
    assert dot.startswith("digraph Tree {") and dot.endswith("}")
    assert f'1 [label="{condition}\\nn=4: x 1, y 3"];' in dot
    assert '1 -> 2 [label="yes"];' in dot and '1 -> 3 [label="no"];' in dot


def test_export_graphviz_nests_and_escapes_and_writes_a_file(tmp_path):
    quoted = FeatureGroup("say", ['say=a"b', "say=c"], "categorical", ['a"b', "c"])
    tree = Tree({1: SubsetSplit([0], 2, 3), 2: Leaf("x"), 3: UnivariateSplit(1, 4, 5), 4: Leaf("y"), 5: Leaf("z")},
                feature_names=quoted.columns, feature_groups=[quoted])
    dot = export_graphviz(tree, out_file=tmp_path / "tree.dot", simplify=False)
    assert '1 [label="say == a\\"b"];' in dot and '3 [label="say != c"];' in dot
    assert '3 -> 4 [label="yes"];' in dot
    assert (tmp_path / "tree.dot").read_text(encoding="utf-8") == dot + "\n"
    with pytest.raises(ValueError, match="both X and y"):
        export_text(tree, X=np.zeros((1, 2)))


def test_plot_boxes_of_long_hyperplanes_do_not_overlap():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [f"feature_{j}" for j in range(8)]
    weights = np.linspace(-1, 1, 8) + 0.05
    nodes = {1: HyperplaneSplit(weights, 0.3, 2, 3), 2: HyperplaneSplit(-weights, 0.1, 4, 5),
             3: HyperplaneSplit(weights[::-1], 0.2, 6, 7)}
    nodes.update({k: Leaf(label) for k, label in zip(range(4, 8), ("a", "b", "c", "d"))})
    tree = Tree(nodes, feature_names=names)
    ax = tree.plot()
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [text.get_bbox_patch().get_window_extent(renderer) for text in ax.texts
             if text.get_text() not in ("yes", "no")]
    assert len(boxes) == 7
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b), (a, b)
    figure_box = fig.bbox
    assert all(figure_box.x0 <= b.x0 and b.x1 <= figure_box.x1 and figure_box.y0 <= b.y0 and b.y1 <= figure_box.y1
               for b in boxes)
    plt.close(fig)
