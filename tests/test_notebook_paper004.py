"""Paper 004's notebook: committed clean, and its smoke profile runs headlessly and reports every table."""
from __future__ import annotations

import pandas as pd
import pytest
from notebook_checks import NOTEBOOKS, assert_commit_clean, run_smoke

from odtlib.experiments import ResultStore, run_grid
from odtlib.experiments import paper004 as p004

NOTEBOOK = NOTEBOOKS / "paper004_svm1odt.ipynb"


def test_notebook_is_commit_clean():
    assert_commit_clean(NOTEBOOK)


@pytest.mark.timeout(240)
def test_smoke_profile_runs_and_reports(tmp_path, monkeypatch):
    report_dir, names = run_smoke("004", tmp_path, monkeypatch)
    for name in ("toy_bounds", "toy_selection", "toy_branch_and_bound", "toy_search_progress", "selection_picture",
                 "datasets", "table2", "claims_depth2", "fig1", "table6", "selected_share", "fig2", "verdicts"):
        assert name in names
    assert names.index("toy_bounds") < names.index("datasets")          # the toy opens the notebook
    check_toy(pd.read_csv(report_dir / "toy_bounds.csv").set_index("model"))
    assert (report_dir / "selection_picture.png").stat().st_size > 0
    table2 = pd.read_csv(report_dir / "table2.csv")
    assert set(table2["method"]) == {"S1O", "CART", "OCT-H", "Fair"}
    assert table2["verdict"].str.startswith("not comparable").all()     # smoke numbers are never compared
    assert table2["ours"].notna().all()

    smoke = p004.get_profile("smoke")
    medium = p004.results_of(ResultStore(tmp_path / "paper004" / "results" / "medium"), p004.medium_grid(smoke))
    selection_store = ResultStore(tmp_path / "paper004" / "results" / "selection")
    selection = p004.results_of(selection_store, p004.selection_grid(smoke))
    assert len(medium) == smoke.n_medium and len(selection) == smoke.n_selection
    assert (medium["status"] == "ok").all() and (selection["status"] == "ok").all()
    kept = selection[selection["method"] == "S1O-DS"].iloc[0]
    assert 0 < kept["n_selected"] < kept["n_train"] == smoke.selection_rows
    summary = run_grid(p004.run_selection, p004.selection_grid(smoke), selection_store, progress=False)
    assert (summary.skipped, summary.ran) == (smoke.n_selection, 0)                 # a rerun skips every run


def check_toy(toy: pd.DataFrame) -> None:
    """The toy of section 1 (p004.toy_data, depth 1, epsilon 0.01, alpha1 200, alpha2 0.1), derived by hand.

    All 13 points: row 12 (class 1) lies inside the hull of the class-0 points, so one error is unavoidable; the
    triangles are 0.4 apart in the max-norm, so margins of 0.01 on both sides need ||h||_1 >= 2 * 0.01 / 0.4 =
    0.05: optimum 1 + 0.1 * 0.05 = 1.005. Binaries: e (13 points x 2 leaves) + c (13) = 39. The LP relaxation
    is 0: no term of (1a) is negative, and h = 0 with fractional e meets every row at no cost.
    Kept points: CART splits at x2 <= 0.6; Algorithm 1 (beta1 0.2, beta2 0.05) keeps the class-0 corners 0, 1, 2
    (each carries an inner point with weight 1/2 >= 1/3), the upper corners 7 and 11 (row 6 carries at most
    0.3125 of rows 9 and 10), and of the pair {8, 12} ceil(0.05 * 2) = 1 point, the one nearer the split: 8.
    Six points, 12 + 6 = 18 binaries, separable by the same line with the same norm: optimum 0.1 * 0.05 = 0.005.
    Both fitted trees use x1 + x2 = 1 and misclassify row 12 only: 12 of 13.
    """
    everything, kept = toy.loc["all 13 points"], toy.loc["6 kept points"]
    assert (everything["points"], everything["binaries"]) == (13, 39)
    assert (kept["points"], kept["binaries"]) == (6, 18)
    assert everything["integer_optimum"] == pytest.approx(1.005, abs=1e-6)
    assert kept["integer_optimum"] == pytest.approx(0.005, abs=1e-6)
    assert toy["lp_relaxation"].tolist() == pytest.approx([0.0, 0.0], abs=1e-6)
    assert (toy["status"] == "optimal").all()
    assert toy["accuracy_on_13"].tolist() == pytest.approx([12 / 13, 12 / 13])
