"""odtlib.plotting: every plot kind draws from a tidy frame and is saved as PNG + SVG (headless)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from odtlib import plotting  # noqa: E402
from odtlib.tree import Leaf, Tree, UnivariateSplit  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def runs():
    rng = np.random.default_rng(0)
    n = 40
    frame = pd.DataFrame({
        "method": np.repeat(["FlowOCT", "BendersOCT"], n // 2),
        "dataset": np.tile(["monk1", "monk2", "monk3", "votes"], n // 4),
        "depth": np.tile([2, 3], n // 2),
        "size": rng.integers(100, 5000, n),
        "solve_runtime": rng.uniform(0.1, 60, n),
        "solve_gap": rng.uniform(0, 0.3, n),
        "test_accuracy": rng.uniform(0.6, 1.0, n),
    })
    frame["solved"] = frame.solve_gap < 0.1
    frame.loc[frame.solved, "solve_gap"] = 0.0
    return frame


def assert_saved(fig, tmp_path, name):
    paths = plotting.save_figure(fig, "paper001", name, root=tmp_path)
    assert [p.suffix for p in paths] == [".png", ".svg"]
    assert all(p.parent == tmp_path / "paper001" for p in paths)
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in paths[1].read_text()


def test_performance_profile_counts_solved_instances_per_method(runs, tmp_path):
    fig = plotting.performance_profile(runs, gap="solve_gap", time_limit=60)
    assert len(fig.axes) == 2
    lines = {line.get_label(): line for line in fig.axes[0].get_lines() if not line.get_label().startswith("_")}
    for method, group in runs.groupby("method"):
        assert lines[method].get_ydata()[-1] == group.solved.sum()        # the curve ends at #solved
    gap_lines = {line.get_label(): line for line in fig.axes[1].get_lines()}
    for method, group in runs.groupby("method"):
        assert gap_lines[method].get_ydata()[-1] == len(group)           # every instance has a gap
    assert_saved(fig, tmp_path, "profile")


def test_other_plot_kinds_draw_and_save(runs, tmp_path):
    figures = {
        "gap": plotting.gap_vs_size(runs),
        "box": plotting.boxplot_by_depth(runs, "test_accuracy"),
        "lines": plotting.accuracy_lines(runs, x="dataset"),
        "tpr": plotting.tpr_tnr_curve(pd.DataFrame({"test_tpr": [0.9, 0.95, 1.0] * 2,
                                                    "test_tnr": [0.9, 0.85, 0.7, 0.92, 0.88, 0.8],
                                                    "depth": [2, 2, 2, 3, 3, 3]})),
    }
    for name, fig in figures.items():
        assert fig.axes and fig.axes[0].has_data()
        assert_saved(fig, tmp_path, name)


def test_plot_tree_delegates_to_tree_plot_and_accepts_dicts(tmp_path):
    tree = Tree({1: UnivariateSplit(feature=0, left=2, right=3), 2: Leaf("no"), 3: Leaf("yes")},
                feature_names=["x0"])
    for given in (tree, tree.to_dict()):
        fig = plotting.plot_tree(given)
        texts = " ".join(t.get_text() for t in fig.axes[0].texts)
        assert "x0" in texts and "yes" in texts
    assert_saved(fig, tmp_path, "tree")


def test_bad_columns_and_names_are_named_in_the_error(runs, tmp_path):
    with pytest.raises(KeyError, match="no column"):
        plotting.boxplot_by_depth(runs, "train_accuracy")
    fig, _ = plt.subplots()
    with pytest.raises(ValueError, match="plain file stem"):
        plotting.save_figure(fig, "paper001", "sub/name", root=tmp_path)


def test_a_method_keeps_its_colour_when_other_methods_are_absent():
    from odtlib.plotting import method_palette

    full = method_palette(["OCT", "BinOCT", "FlowOCT", "Benders"])
    df = pd.DataFrame({"method": ["OCT", "FlowOCT"], "solve_runtime": [1.0, 2.0], "solved": [True, True]})
    fig = plotting.performance_profile(df, palette=full)
    colours = {line.get_label(): matplotlib.colors.to_hex(line.get_color())
               for line in fig.axes[0].get_lines() if line.get_label() in full}
    assert colours == {name: matplotlib.colors.to_hex(full[name]) for name in ("OCT", "FlowOCT")}
    assert method_palette(["b", "a"]) == method_palette(["a", "b", "a"])


def test_plot_tree_passes_groups_and_shows_counts_from_a_dict():
    from odtlib.encoders import FeatureGroup

    tree = Tree({1: UnivariateSplit(0, 2, 3), 2: UnivariateSplit(1, 4, 5), 3: Leaf("tall"),
                 4: Leaf("short"), 5: Leaf("short")}, feature_names=["height>1.7", "weight>60"])
    X = np.array([[0, 0], [0, 1], [0, 1], [1, 0]], dtype=float)  # leaves 4, 5, 5, 3
    data = tree.with_leaf_counts(X, ["short", "short", "tall", "tall"]).to_dict()
    group = FeatureGroup("height", ["height>1.7"], "binary", [1.7])
    fig = plotting.plot_tree(data, groups=[group])
    texts = [" ".join(t.get_text().split()) for t in fig.axes[0].texts]
    # node 2 predicts "short" on both sides: shown as one leaf with the summed counts
    assert sorted(texts) == sorted(["height <= 1.7", "short n=3: short 2, tall 1", "tall n=1: short 0, tall 1",
                                    "yes", "no"])
    unsimplified = plotting.plot_tree(data, simplify=False)
    assert "weight <= 60" in [" ".join(t.get_text().split()) for t in unsimplified.axes[0].texts]
