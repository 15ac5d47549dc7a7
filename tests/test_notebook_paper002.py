"""Paper 002: the protocol helpers (folds, β grid, the "proved" rule, tables) and the notebook's smoke profile."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from notebook_checks import NOTEBOOKS, assert_commit_clean, run_smoke
from oracles_hyperplane import best_hyperplane_tree, strictly_separable
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import shuffle

from odtlib.experiments import ResultStore, reference_table, run_grid
from odtlib.experiments import paper002 as p002
from odtlib.models import SOCT
from odtlib.models.hyperplane import octh, soct
from odtlib.models.hyperplane.shattering import ShatteringCut
from odtlib.solvers import solve

NOTEBOOK = NOTEBOOKS / "paper002_shattering_soct.ipynb"


# ------------------------------------------------------------------------------------------- folds
def test_folds_are_stratified_kfold_after_the_papers_shuffle():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.random(40), "b": rng.integers(0, 3, 40)})
    y = pd.Series(np.repeat(["p", "q", "r"], [12, 13, 15]))
    Xs, ys = p002.shuffled(X, y)
    X_ref, y_ref = shuffle(X, y, random_state=0)
    np.testing.assert_array_equal(Xs.to_numpy(), X_ref.to_numpy())
    np.testing.assert_array_equal(ys.to_numpy(), y_ref.to_numpy())
    assert not np.array_equal(ys.to_numpy(), y.to_numpy())                    # the rows really moved
    outer = p002.outer_folds(ys)
    expected = list(StratifiedKFold(3).split(np.zeros(40), y_ref.to_numpy()))
    assert len(outer) == 3
    for (train, test), (train_ref, test_ref) in zip(outer, expected):
        np.testing.assert_array_equal(train, train_ref)
        np.testing.assert_array_equal(test, test_ref)
    assert sorted(np.concatenate([test for _, test in outer])) == list(range(40))
    train = outer[0][0]
    inner = p002.inner_folds(ys.iloc[train])
    expected_inner = list(StratifiedKFold(2).split(np.zeros(len(train)), ys.iloc[train].to_numpy()))
    assert [list(v) for _, v in inner] == [list(v) for _, v in expected_inner]


def test_beta_grid_per_depth():
    assert [p002.betas(d) for d in (2, 3, 4)] == [(2, 3), (3, 5, 7), (5, 10, 15)]
    with pytest.raises(ValueError, match="tunes β at depths"):
        p002.betas(5)
    assert p002._search_space("OCT-H", 3) == [{"max_splits": 3}, {"max_splits": 5}, {"max_splits": 7}]
    assert p002._search_space("CART", 2) == [{"max_leaf_nodes": 3}, {"max_leaf_nodes": 4}]
    assert p002._search_space("DL8.5", 4) == [{"min_sup": 1}, {"min_sup": 10}, {"min_sup": 20}]
    assert p002._search_space("FlowOCT", 2) == [{}]


# ------------------------------------------------------------------------------------ proved / gap
@pytest.mark.parametrize(("bound", "incumbent", "expected"), [
    (100.0, 100.0, True), (100.5, 100.0, True), (0.998, 0.0, True), (0.999, 0.0, False), (101.0, 100.0, False),
    (None, 100.0, False), (np.nan, 100.0, False)])
def test_proved_is_bound_minus_incumbent_below_0999(bound, incumbent, expected):
    assert p002.proved(bound, incumbent) is expected


def test_relative_gap_as_the_paper_defines_it():
    assert p002.paper_gap(100, 110) == pytest.approx(0.1)   # (110 - 100) / 100
    assert p002.paper_gap(0, 0) == 0.0
    assert p002.paper_gap(0, 5) == np.inf
    assert np.isnan(p002.paper_gap(3, None))


# ------------------------------------------------------------------------------------------- grids
def test_methods_follow_the_estimators_registry():
    assert p002.mip_methods() == [*SOCT.PAPER_METHODS, "OCT-H"]
    assert p002.soct_variants() == list(SOCT.PAPER_METHODS)
    paper = p002.get_profile("paper")
    assert p002.cv_methods(paper)[: len(SOCT.PAPER_METHODS)] == list(SOCT.PAPER_METHODS)
    assert p002.cv_methods(paper)[-4:] == ["OCT-H", "FlowOCT", "DL8.5", "CART"]


def test_paper_profile_is_the_papers_protocol():
    paper = p002.get_profile("paper")
    direct = pd.DataFrame(list(p002.direct_grid(paper, solver="scip")))
    assert len(direct) == paper.n_direct == 10 * 3 * len(p002.mip_methods())
    assert (direct["time_limit"] == 600).all() and (direct["threads"] == 1).all()
    assert list(dict.fromkeys(direct["dataset"])) == list(reference_table("002", "datasets")["dataset"])
    cv = pd.DataFrame(list(p002.cv_grid(paper)))
    assert sorted(cv["fold"].unique()) == [0, 1, 2]
    assert len(cv) == paper.n_cv == 10 * 3 * 3 * len(p002.cv_methods(paper))
    tuning = pd.DataFrame(list(p002.tuning_grid(paper)))
    assert set(tuning["dataset"]) == set(p002.TUNING_DATASETS) and tuning["subsample"].isna().all()
    assert p002.get_profile("quick", time_limit=7).cv_time_limit == 7
    with pytest.raises(ValueError, match="profile must be one of"):
        p002.get_profile("huge")


# ------------------------------------------------------------------------------------------ tables
def test_direct_frame_counts_failures_apart_and_runs_without_a_tree_as_unproved():
    results = pd.DataFrame({
        "status": ["ok", "ok", "failed", "ok"], "method": ["A", "A", "A", "B"], "depth": 2,
        "proved": [True, False, np.nan, False], "no_incumbent": [False, False, np.nan, True],
        "solve_runtime": [3.0, 10.0, np.nan, np.nan], "relative_gap": [0.0, 0.2, np.nan, np.nan],
        "in_sample_accuracy": [1.0, 0.8, np.nan, 0.0]})
    frame = p002.direct_frame(results, time_limit=10)
    assert frame["failed"].tolist() == [False, False, True, False]
    # a run without a tree: the time limit, no gap and no accuracy (shown as "no tree found"), counted apart
    assert frame.loc[3, "time_s"] == 10 and np.isnan(frame.loc[3, "gap"]) and frame.loc[3, "no_tree"]
    summary = p002.direct_summary(frame, by=("method",)).set_index("method")
    assert summary.loc["A", ["instances", "proved", "no_tree", "n_failed"]].tolist() == [2, 1, 0, 1]
    assert summary.loc["A", "time_mean"] == 6.5 and summary.loc["B", "no_tree"] == 1
    assert np.isnan(summary.loc["B", "gap_mean"])


def test_comprehensive_means_and_compare_flag_unproved_and_failed_cells():
    rows = [("Iris", 2, f, "OCT-H", "ok", 1.0, 0.9, 1.0, True) for f in range(3)]
    rows += [("Iris", 2, 0, "CART", "ok", 0.96, 0.93, 0.0, None),
             ("Iris", 2, 1, "CART", "failed", np.nan, np.nan, np.nan, None)]
    rows += [("Wine", 2, f, "OCT-H", "ok", 1.0, 0.8, 5.0, f != 0) for f in range(3)]
    results = pd.DataFrame(rows, columns=["dataset", "depth", "fold", "method", "status", "train_accuracy",
                                          "test_accuracy", "fit_time", "proved"])
    means = p002.comprehensive_means(results).set_index(["dataset", "method"])
    assert means.loc[("Iris", "OCT-H"), "reason"] == ""
    assert means.loc[("Iris", "OCT-H"), "test_acc"] == pytest.approx(0.9)
    assert means.loc[("Iris", "CART"), "n_failed"] == 1 and "failed" in means.loc[("Iris", "CART"), "reason"]
    assert means.loc[("Wine", "OCT-H"), "reason"].startswith("ours: 1 of 3 refits")
    table = p002.compare_comprehensive(means.reset_index(), 2, "test_acc", tolerance=0.05)
    table = table.set_index(["dataset", "method"])
    assert set(table.index.get_level_values("method")) == {"OCT-H"}            # CART is not in the paper
    assert table.loc[("Iris", "OCT-H"), "paper"] == 0.94                      # Table 1, as printed
    assert table.loc[("Iris", "OCT-H"), "verdict"] == "within tolerance"
    assert table.loc[("Wine", "OCT-H"), "verdict"].startswith("not comparable")
    assert table.loc[("Iris", "OCT-H"), "id"] == "D"


# ------------------------------------------------------------------------------ the toy (notebook section 1)
def test_toy_optima_are_the_counts_derived_by_hand():
    X, y = p002.toy_data()
    # depth 1, by hand: 9 correct points would put a point of each class-0 corner on one side and a point of each
    # class-1 corner on the other, and those two segments cross near (0.5, 0.5); a line cutting off the top-left
    # corner (x2 - x1 >= 0.5) gets 6 + 2 = 8. The oracle enumerates every routing with its own LP.
    assert best_hyperplane_tree(X, y, depth=1) == 8 == p002.TOY_OPTIMUM[1]
    for module in (soct, octh):
        assert solve(module.build_model(X, y, depth=1)).objective == pytest.approx(8)
    # depth 2, by hand: x1 <= 0.5 at the root, then x2 <= 0.5 on both sides: each corner in a leaf of its own
    low, left = X[:, 1] <= 0.5, X[:, 0] <= 0.5
    assert (np.where(left, np.where(low, 0, 1), np.where(low, 1, 0)) == y).all() and p002.TOY_OPTIMUM[2] == 10


def test_toy_cut_text_names_the_routing_variables():
    # node 1: left child 2, right child 3; four terms, so the right-hand side is 4 - 1 = 3
    assert p002.cut_text(ShatteringCut(1, (0, 5), (7, 9))) == "w[0,2] + w[5,2] + w[7,3] + w[9,3] <= 3"
    assert p002.cut_text(ShatteringCut(2, (1,), (3, 4))) == "w[1,4] + w[3,5] + w[4,5] <= 2"


def test_toy_separation_rounds_cut_off_impossible_routings_and_only_lower_the_bound():
    X, y = p002.toy_data()
    rounds, cuts = p002.separation_rounds(X, y, depth=1, leaf_labels={2: 0, 3: 1})
    # round 0 solves (1) without (1m): each class in its own leaf, all 10 points correct
    assert rounds["lp_bound"].iloc[0] == pytest.approx(10) and rounds["lhs at the LP point"].iloc[0] == "4"
    bounds = rounds["lp_bound"].to_numpy()
    assert (np.diff(bounds) <= 1e-6).all() and (bounds >= 8 - 1e-6).all()    # cuts are valid: never below 8
    assert cuts and rounds["cuts found"].iloc[-1] == "none"
    for cut in cuts:   # each cut forbids a routing no line realises, with at most p + 2 = 4 points
        assert len(cut.left) + len(cut.right) <= 4 and not strictly_separable(X, list(cut.left), list(cut.right))


# ------------------------------------------------------------------------------------- the notebook
def test_notebook_is_commit_clean():
    assert_commit_clean(NOTEBOOK)


@pytest.mark.timeout(240)
def test_smoke_profile_runs_and_reports(tmp_path, monkeypatch):
    report_dir, names = run_smoke("002", tmp_path, monkeypatch)
    for name in ("claims", "xor_example", "toy_data", "toy_separation_rounds", "toy_root_bounds",
                 "toy_branch_and_bound", "fig3", "fig3_summary", "fig4abc", "fig4d", "fig4_vs_paper",
                 "proved_counts", "table1", "tables_verdict", "fig5"):
        assert name in names
    assert names.index("claims") < names.index("xor_example")            # the ledger heads the notebook
    assert names.index("toy_branch_and_bound") < names.index("fig4abc")  # the toy opens, before any experiment
    rounds = pd.read_csv(report_dir / "toy_separation_rounds.csv")
    assert rounds["lp_bound"].iloc[0] == pytest.approx(10) and rounds["lp_bound"].min() >= 8 - 1e-6
    claims = pd.read_csv(report_dir / "claims.csv")
    assert len(claims) == 12 and set(claims["id"]) == {f"002-{k}" for k in range(1, 13)}
    assert (report_dir / "fig4abc.png").stat().st_size > 0
    table1 = pd.read_csv(report_dir / "table1.csv")
    assert table1["verdict"].str.startswith("not comparable").all()      # smoke numbers are never compared

    smoke = p002.get_profile("smoke")
    store = ResultStore(tmp_path / "paper002" / "results" / "direct")
    direct = p002.results_of(store, p002.direct_grid(smoke))
    assert len(direct) == smoke.n_direct and (direct["status"] == "ok").all()
    # Soybean (Small) is separable at depth 2: every variant and OCT-H proves all 47 points correct
    assert direct["proved"].all() and (direct["incumbent"] == 47).all()
    cv_store = ResultStore(tmp_path / "paper002" / "results" / "comprehensive")
    cv = p002.results_of(cv_store, p002.cv_grid(smoke))
    assert len(cv) == smoke.n_cv and (cv["status"] == "ok").all()
    summary = run_grid(p002.run_mip, p002.direct_grid(smoke), store, progress=False)   # a rerun skips every run
    assert (summary.skipped, summary.ran) == (smoke.n_direct, 0)
