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
def test_notebook_is_commit_clean():
    assert_commit_clean(NOTEBOOK)


@pytest.mark.timeout(180)
def test_smoke_profile_runs_and_reports(tmp_path, monkeypatch):
    report_dir, names = run_smoke("001", tmp_path, monkeypatch)
    for name in ("table1", "table2", "table2_verdict", "table2_exact", "table2_exact_verdict", "fig3a", "fig3b",
                 "fig3c", "fig3_summary"):
        assert name in names
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
    exact = p001.results_of(ResultStore(tmp_path / "paper001" / "results" / "exact_tuning"), p001.exact_tuning_grid(smoke))
    assert (exact["solve_status"] == "optimal").all()
    shared = exact.set_index("split_penalty")["regularised_objective"].reindex(solved.index)
    np.testing.assert_allclose(shared, solved["Benders"], atol=1e-6)
    # a rerun skips every finished fit
    summary = run_grid(p001.run, grid, store, progress=False)
    assert (summary.skipped, summary.ran) == (len(grid), 0)
