"""Numbers on numeric axes (issue 31, item 3): paper 002's Fig. 4(d) once drew the paper's mean times as
categorical tick labels (read as text), out of order, our 4-10 s points right of 215 s. The figures of the
plotting helpers the paper notebooks use are built here and every numeric quantity must sit on a numeric axis."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.category import UnitData  # noqa: E402

from odtlib import plotting  # noqa: E402
from odtlib.experiments import paper002 as p002  # noqa: E402


def categorical(axis) -> bool:
    """Is ``axis`` a categorical (string) axis? matplotlib gives such an axis `UnitData` units."""
    return isinstance(axis.get_units(), UnitData)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_the_check_detects_a_categorical_axis():
    fig, ax = plt.subplots()
    ax.scatter(["215.45", "114.5"], [0.06, 0.03])        # numbers read as text: the fault
    assert categorical(ax.xaxis) and not categorical(ax.yaxis)


def test_paper002_fig4d_puts_times_on_a_numeric_log_axis():
    overall = pd.DataFrame({"method": ["SOCT-benders-last-1", "OCT-H"], "time_mean": [4.2, 10.0],
                            "gap_mean": [0.0, 0.01]})
    fig, ax = plt.subplots()
    p002.plot_overall(ax, overall, palette={})
    assert not categorical(ax.xaxis) and not categorical(ax.yaxis)
    assert ax.get_xscale() == "log"
    xs = np.concatenate([collection.get_offsets()[:, 0] for collection in ax.collections])
    # ours (4.2, 10.0) then the paper's Fig. 4(d) means (114.5, 119.0, 306.26, 215.45), as numbers
    np.testing.assert_allclose(sorted(xs), [4.2, 10.0, 114.5, 119.0, 215.45, 306.26])
    left, right = ax.get_xlim()
    assert left < 4.2 and right > 306.26                # 4 s is drawn left of 215 s


def test_plotting_helpers_keep_numeric_values_numeric():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"method": np.repeat(["a", "b"], 6), "depth": np.tile([2, 3, 4], 4),
                          "size": np.tile([50, 100, 200], 4), "solve_gap": rng.random(12),
                          "solve_runtime": rng.random(12) * 10, "solved": rng.random(12) < 0.7,
                          "test_accuracy": rng.random(12), "test_tpr": rng.random(12), "test_tnr": rng.random(12)})
    box = plotting.boxplot_by_depth(frame, "solve_runtime").axes[0]
    assert not categorical(box.yaxis)                    # the value; depth is a box position
    for fig in (plotting.gap_vs_size(frame), plotting.accuracy_lines(frame, x="size"),
                plotting.tpr_tnr_curve(frame), plotting.performance_profile(frame, time_limit=10)):
        for ax in fig.axes:
            assert not categorical(ax.xaxis) and not categorical(ax.yaxis), fig
