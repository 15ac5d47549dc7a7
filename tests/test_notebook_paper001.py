"""Paper 001: the protocol helpers (splits, grids, λ selection, tables) and the notebook's smoke profile."""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from notebook_checks import NOTEBOOKS, assert_commit_clean, run_smoke

from odtlib.experiments import ResultStore, reference_table, run_grid
from odtlib.experiments import paper001 as p001

NOTEBOOK = NOTEBOOKS / "paper001_flowoct_benders.ipynb"


# ------------------------------------------------------------------------------------------ splits
@pytest.mark.parametrize("n_rows", [122, 625])
def test_split_is_a_stratified_50_25_25_partition(n_rows):
    y = np.array(["a", "b", "b", "c"] * (n_rows // 4) + ["a"] * (n_rows % 4))
    train, validation, test = p001.split_sample(y, sample=3)
    everything = np.concatenate([train, validation, test])
    assert sorted(everything) == list(range(n_rows))                      # disjoint and complete
    assert abs(len(train) - n_rows / 2) <= 1.5 and abs(len(test) - n_rows / 4) <= 1
    for part in (train, validation, test):                                 # class shares kept
        for label in "abc":
            assert abs(np.mean(y[part] == label) - np.mean(y == label)) <= 2 / len(part)


def test_split_is_deterministic_per_sample_and_differs_between_samples():
    y = np.repeat([0, 1], 60)
    first, again, other = (p001.split_sample(y, 0), p001.split_sample(y, 0), p001.split_sample(y, 1))
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[2], other[2])


def test_subsample_draws_that_many_rows_before_splitting():
    y = np.repeat([0, 1, 1], 40)
    parts = p001.split_sample(y, sample=0, subsample=40)
    assert [len(part) for part in parts] == [20, 10, 10]
    assert len(set(np.concatenate(parts))) == 40


# ------------------------------------------------------------------------------------------- grids
def test_paper_profile_is_the_papers_grid():
    paper = p001.get_profile("paper")
    configs = list(p001.tuning_grid(paper, solver="highs", benders_solver="scip"))
    # 8 datasets x 4 depths x 5 samples x (3 regularised methods x 10 λ + BinOCT once)
    assert len(configs) == paper.n_tuning_fits == 8 * 4 * 5 * 31
    frame = pd.DataFrame(configs)
    assert sorted(frame["split_penalty"].unique()) == [round(0.1 * j, 1) for j in range(10)]
    assert set(frame.loc[frame["method"] == "BinOCT", "split_penalty"]) == {0.0}
    assert set(frame.loc[frame["method"] == "Benders", "solver"]) == {"scip"}
    assert set(frame.loc[frame["method"] != "Benders", "solver"]) == {"highs"}
    assert (frame["time_limit"] == 3600).all() and frame["subsample"].isna().all()
    assert set(frame["dataset"]) == set(reference_table("001", "table1")["dataset"])


def test_profile_time_limit_override_and_unknown_profile():
    assert p001.get_profile("quick", time_limit=5).time_limit == 5
    with pytest.raises(ValueError, match="profile must be one of"):
        p001.get_profile("huge")


def _tuning_frame(rows):
    columns = ["dataset", "depth", "sample", "method", "split_penalty", "validation_accuracy", "status"]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.assign(solver="highs", time_limit=30, threads=1, subsample=np.nan)


def test_select_lambda_takes_best_validation_and_breaks_ties_towards_larger_lambda():
    tuning = _tuning_frame([
        ("monk1", 2, 0, "FlowOCT", 0.0, 0.70, "ok"),
        ("monk1", 2, 0, "FlowOCT", 0.5, 0.80, "ok"),
        ("monk1", 2, 0, "FlowOCT", 0.9, 0.75, "ok"),
        ("monk1", 2, 0, "OCT", 0.0, 0.80, "ok"),
        ("monk1", 2, 0, "OCT", 0.5, 0.80, "ok"),          # tie: 0.5 wins
        ("monk1", 2, 0, "OCT", 0.9, 0.95, "failed"),      # failed fits are ignored
        ("monk1", 2, 1, "OCT", 0.0, 0.60, "ok"),
    ])
    selected = p001.select_lambda(tuning).set_index(["method", "sample"])["split_penalty"]
    assert selected.to_dict() == {("FlowOCT", 0): 0.5, ("OCT", 0): 0.5, ("OCT", 1): 0.0}
    finals = p001.final_grid(p001.select_lambda(tuning), tuning)
    assert len(finals) == 3 and {c["stage"] for c in finals} == {"final"}
    assert {(c["method"], c["sample"], c["split_penalty"]) for c in finals} == {
        ("FlowOCT", 0, 0.5), ("OCT", 0, 0.5), ("OCT", 1, 0.0)}
    assert all(c["subsample"] is None and c["time_limit"] == 30 for c in finals)


def test_cells_with_an_unproved_fit_are_not_comparable():
    tuning = _tuning_frame([("monk1", 2, 0, "OCT", 0.0, 0.7, "ok"), ("monk1", 2, 0, "FlowOCT", 0.0, 0.7, "ok")])
    tuning["solve_status"] = ["time_limit", "optimal"]
    final = tuning.assign(stage="final", solve_status="optimal", test_accuracy=[0.5, 0.75])
    ours = p001.table2_ours(tuning, final).set_index("method")
    assert ours.loc["OCT", "reason"].startswith("ours: 1 of 2 solves")
    assert ours.loc["FlowOCT", "reason"] == ""
    assert ours.loc["FlowOCT", "test_accuracy"] == 75.0


def test_paper_table2_long_keeps_the_profiles_cells():
    profile = p001.Profile("t", datasets=("monk1", "house-votes-84"), depths=(2, 3), samples=(0,),
                           lambdas=(0.0,), methods=("OCT", "Benders"), time_limit=1)
    long = p001.paper_table2_long(reference_table("001", "table2"), profile).set_index(["dataset", "depth", "method"])
    assert len(long) == 2 * 2 * 2
    assert long.loc[("house-votes-84", 2, "Benders"), "test_accuracy"] == 97.2   # values as printed
    assert long.loc[("monk1", 3, "OCT"), "test_accuracy"] == 83.2


def test_in_sample_summary_measures_speedup_like_the_paper():
    # BinOCT (the λ = 0 baseline) solves 2 instances, the 2nd after 20 s; Benders has solved 2 after 4 s.
    # OCT's third fit raised: a failure, neither an instance nor a 100 % gap.
    runs = [("BinOCT", True, 10.0, False), ("BinOCT", True, 20.0, False), ("BinOCT", False, 30.0, False),
            ("Benders", True, 1.0, False), ("Benders", True, 4.0, False), ("Benders", True, 9.0, False),
            ("OCT", True, 25.0, False), ("OCT", False, 30.0, False), ("OCT", False, np.nan, True)]
    instances = pd.DataFrame(runs, columns=["method", "solved", "solve_runtime", "failed"]).assign(
        lambda_kind="λ = 0", proved_gap=lambda df: np.where(df["solved"], 0.0, np.where(df["failed"], np.nan, 0.25)))
    summary = p001.in_sample_summary(instances).set_index("method")
    assert summary.loc["Benders", "time_to_match_s"] == 4.0
    assert summary.loc["Benders", "speedup_vs_baseline"] == 5.0
    assert summary.loc["BinOCT", "speedup_vs_baseline"] == 1.0
    assert np.isnan(summary.loc["OCT", "time_to_match_s"])                # solves fewer than the baseline
    assert summary.loc["OCT", "max_proved_gap_pct"] == 25.0
    assert summary.loc["OCT", ["instances", "n_failed"]].tolist() == [2, 1]
    assert summary.loc["Benders", ["instances", "n_failed"]].tolist() == [3, 0]
    assert (summary["baseline_solved"] == 2).all()


def test_failed_fits_are_failures_not_unsolved_instances():
    tuning = _tuning_frame([("monk1", 2, 0, "OCT", 0.0, 0.7, "ok"), ("monk1", 2, 0, "OCT", 0.5, np.nan, "failed"),
                            ("monk1", 2, 0, "FlowOCT", 0.0, 0.7, "ok")])
    tuning = tuning.assign(solve_status=["optimal", None, "optimal"], solve_gap=[0.0, np.nan, 0.0],
                           solve_runtime=[1.0, np.nan, 2.0])
    instances = p001.instance_frame(tuning)
    assert instances["failed"].tolist() == [False, True, False]
    assert instances["solved"].tolist() == [True, False, True]
    assert np.isnan(instances.loc[1, "proved_gap"])                        # no gap, not 100 %
    final = tuning.iloc[[0, 2]].assign(stage="final", test_accuracy=[0.5, 0.75])
    reasons = p001.not_optimal_reasons(tuning, final).set_index("method")
    assert reasons.loc["OCT", "n_failed"] == 1 and reasons.loc["FlowOCT", "n_failed"] == 0
    assert reasons.loc["OCT", "reason"] == "ours: 1 of 3 run(s) failed (see the failed runs)"
    assert p001.table2_ours(tuning, final).set_index("method").loc["OCT", "n_failed"] == 1


def test_exact_optimum_grid_covers_table2s_cells_with_the_papers_lambdas():
    quick, paper = p001.get_profile("quick"), p001.get_profile("paper")
    configs = pd.DataFrame(list(p001.exact_tuning_grid(quick)))
    assert set(configs["dataset"]) == set(p001.DATASETS) and set(configs["depth"]) == {2, 3}
    assert sorted(configs["split_penalty"].unique()) == list(p001.LAMBDAS)
    assert set(configs["method"]) == {p001.EXACT} and set(configs["solver"]) == {"scip"}
    assert len(configs) + len(p001.DATASETS) * 2 == quick.n_exact_fits == 176
    assert set(pd.DataFrame(list(p001.exact_tuning_grid(paper)))["depth"]) == {2, 3, 4, 5}
    model = p001.make_model(p001.EXACT, depth=3, split_penalty=0.4, solver="scip", time_limit=5)
    assert model.get_params()["engine"] == "accelerated" and model.split_penalty == 0.4


def test_table2_exact_keeps_the_papers_columns_and_flags_unproved_cells():
    paper = reference_table("001", "table2")
    tuning = _tuning_frame([("monk1", 2, 0, p001.EXACT, 0.0, 0.7, "ok"), ("monk1", 3, 0, p001.EXACT, 0.0, 0.7, "ok")])
    tuning["solve_status"] = ["optimal", "time_limit"]
    final = tuning.assign(stage="final", solve_status="optimal", test_accuracy=[0.75, 0.5], n_scored=[31, 31])
    table = p001.table2_exact(paper, tuning, final).set_index(["dataset", "depth"])
    assert len(table) == len(paper) == 32                                  # every cell of Table 2
    assert table.loc[("kr-vs-kp", 5), "FlowOCT"] == 45.8                   # the paper's columns as published
    assert table.loc[("monk1", 2), p001.EXACT] == 75.0 and table.loc[("monk1", 2), "exact_proved"]
    assert not table.loc[("monk1", 3), "exact_proved"]
    assert table.loc[("monk1", 3), "exact_reason"].startswith("ours: 1 of 2 solves")
    assert table[p001.EXACT].notna().sum() == 2


# ------------------------------------------------------------------------------------- the notebook
def check_toy_section(report_dir, names):
    """The opening on the tutorial's ten points (section 4 of the notebook), depth 2.

    By hand: points 5 and 8 share the features (1, 1, 1) with different labels, so at most 9 points are correct,
    and the root test on x0 classifies all the others: optimum 9 at λ = 0. At λ = 0.25: no test keeps the 6
    points of class 0 (0.75 * 6 = 4.5), the x0 test gives 0.75 * 9 - 0.25 = 6.5, a second test fixes nothing.
    """
    for name in ("toy_root_bounds", "toy_branch_and_bound", "toy_benders_rounds", "benders_search_progress"):
        assert name in names
    bounds = pd.read_csv(report_dir / "toy_root_bounds.csv")
    optimum = {0.0: 9.0, 0.25: 6.5}
    assert sorted(bounds["λ"].unique()) == [0.0, 0.25] and (bounds["mip_status"] == "optimal").all()
    np.testing.assert_allclose(bounds["mip_objective"], bounds["λ"].map(optimum))
    lp = bounds.pivot(index="λ", columns="formulation", values="lp_bound")
    assert (lp["OCT (big-M)"] >= lp["FlowOCT"] - 1e-6).all()           # Section 2.2: FlowOCT is never weaker
    assert (lp["FlowOCT"] >= pd.Series(optimum) - 1e-6).all()          # a relaxation bounds the optimum
    rounds = pd.read_csv(report_dir / "toy_benders_rounds.csv")
    # the master without cuts counts every point (g = 1 for any tree): 10; cuts only lower the bound, and the
    # loop stops at a tree that achieves the bound, the optimum 9
    assert rounds["master_bound"].iloc[0] == 10 and rounds["master_bound"].is_monotonic_decreasing
    assert rounds["master_bound"].iloc[-1] == 9 and rounds["cuts_added"].iloc[-1] == 0
    assert (rounds["cuts_added"].iloc[:-1] > 0).all()


def test_benders_cut_of_one_point_at_a_hand_chosen_tree():
    from odtlib.models.univariate import bendersoct
    from odtlib.solvers import solve
    # depth 1, root tests x1 (b[1,1] = 1), leaf 2 predicts 0, leaf 3 predicts 1. Point 2 = (1, 0, 1) of class 1
    # has x1 = 0 and goes left to leaf 2, which predicts 0: misclassified. Its path is {1, 2}; the arc leaving
    # it at the root is the right arc, capacity Σ_{f: x_f = 1} b[1,f] = b[1,0] + b[1,2]; the sink arcs of the
    # path for class 1 are w[1,1] and w[2,1]. So (8.2) reads g[2] <= b[1,0] + b[1,2] + w[1,1] + w[2,1].
    b, w = np.zeros((4, 3)), np.zeros((4, 2))
    b[1, 1], w[2, 0], w[3, 1] = 1, 1, 1
    cut = p001.benders_cut(p001.TOY_X, p001.TOY_Y, b, w, depth=1, point=2)
    assert cut.path == (1, 2) and cut.label == 1
    assert str(cut) == "g[2] <= b[1,0] + b[1,2] + w[1,1] + w[2,1]"
    # point 4 = (0, 0, 0) of class 0 reaches leaf 2, which predicts 0: no cut is violated for it; the master
    # with that tree fixed and g free counts every point, and exactly the class-1 points sent left and the
    # class-0 points sent right are cut: x1 = 0 and y = 1 -> points 2, 7; x1 = 1 and y = 0 -> points 1, 6, 8
    master = bendersoct.build_model(p001.TOY_X, p001.TOY_Y, depth=1)
    for (n, f), var in master.b.items():
        var.fix(b[n, f])
    for (n, k), var in master.w.items():
        var.fix(w[n, k])
    assert solve(master, solver="highs").objective == 10
    cuts = p001.violated_benders_cuts(master, p001.TOY_X, p001.TOY_Y)
    assert [c.point for c in cuts] == [1, 2, 6, 7, 8]
    assert all(c.capacity(master) == 0 for c in cuts)
    for c in cuts:
        c.add_to(master)
    assert solve(master, solver="highs").objective == 10 - len(cuts)


def test_notebook_is_commit_clean():
    assert_commit_clean(NOTEBOOK)


@pytest.mark.timeout(180)
def test_smoke_profile_runs_and_reports(tmp_path, monkeypatch):
    report_dir, names = run_smoke("001", tmp_path, monkeypatch)
    for name in ("table1", "table2", "table2_verdict", "table2_exact", "table2_exact_verdict", "fig3a", "fig3b",
                 "fig3c", "fig3_summary"):
        assert name in names
    check_toy_section(report_dir, names)
    exact = pd.read_csv(report_dir / "table2_exact.csv")
    ran = exact[exact["exact optimum"].notna()]
    assert list(zip(ran["dataset"], ran["depth"])) == [("monk3", 2)] and ran["exact_proved"].all()
    assert (report_dir / "fig3a.png").stat().st_size > 0
    table2 = pd.read_csv(report_dir / "table2.csv")
    assert set(table2["method"]) == {"FlowOCT", "Benders"}
    assert table2["verdict"].str.contains("subsample").all()       # smoke numbers are never compared

    smoke = p001.get_profile("smoke")
    grid = p001.tuning_grid(smoke)
    store = ResultStore(tmp_path / "paper001" / "results" / "tuning")
    tuning = p001.results_of(store, grid)
    assert len(tuning) == smoke.n_tuning_fits and (tuning["status"] == "ok").all()
    # FlowOCT (HiGHS) and Benders (SCIP) solve the same problem: equal optimal objectives (1.1)
    solved = tuning[tuning["solve_status"] == "optimal"].pivot(
        index="split_penalty", columns="method", values="regularised_objective").dropna()
    assert len(solved) >= 1
    np.testing.assert_allclose(solved["FlowOCT"], solved["Benders"], atol=1e-6)
    # ... and so does the exact-optimum engine, on every instance it shares with them
    exact_store = ResultStore(tmp_path / "paper001" / "results" / "exact_tuning")
    exact = p001.results_of(exact_store, p001.exact_tuning_grid(smoke))
    assert (exact["solve_status"] == "optimal").all()
    shared = exact.set_index("split_penalty")["regularised_objective"].reindex(solved.index)
    np.testing.assert_allclose(shared, solved["Benders"], atol=1e-6)
    # a rerun skips every finished fit
    summary = run_grid(p001.run, grid, store, progress=False)
    assert (summary.skipped, summary.ran) == (len(grid), 0)
