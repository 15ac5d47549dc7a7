"""Paper 003: the protocol helpers (grid, methods, Solved/Time/Gap tables, optimum cross-check) and the
notebook's smoke profile."""
from __future__ import annotations

import importlib.util
import json

import numpy as np
import pandas as pd
import pytest
from notebook_checks import NOTEBOOKS, assert_commit_clean, run_smoke

from odtlib.experiments import ResultStore, reference_table, run_grid
from odtlib.experiments import paper003 as p003

NOTEBOOK = NOTEBOOKS / "paper003_accelerated_bendoct.ipynb"


# ------------------------------------------------------------------------------------------- grids
def test_paper_profile_is_the_papers_grid():
    paper = p003.get_profile("paper")
    assert paper.n_instances == 1620 and paper.time_limit == 3600
    frame = pd.DataFrame(list(p003.grid(paper)))
    assert len(frame) == paper.n_runs == 1620 * len(paper.methods)
    assert (frame.groupby("method").size() == 1620).all()
    assert set(frame["method"]) == set(p003.METHODS)              # every method of every study
    assert (frame["solver"] == "scip").all() and (frame["threads"] == 1).all()
    pairs = frame[["dataset", "encoding"]].drop_duplicates()
    assert len(pairs) == 54 and pairs["dataset"].nunique() == 33
    assert sorted(frame["depth"].unique()) == [3, 4] and frame["leaf_penalty"].nunique() == 15
    # the dataset names of the paper's tables (after the one spelling fix) are ours
    printed = set(reference_table("003", "table1")["dataset"].replace(p003.PAPER_NAMES))
    assert printed == set(frame["dataset"]) == set(reference_table("003", "tableA1")["dataset"])


def test_paper_tables_count_the_instances_the_text_quotes():
    table1 = p003.paper_table("table1")
    assert table1.groupby("method")["n_instances"].sum().eq(1620).all()
    solved = table1.groupby("method")["n_solved"].sum()
    assert solved.to_dict() == {"BendOCT": 582, "Accelerated BendOCT": 1173, "Accelerated (No PBCP)": 816}
    assert table1.loc[table1["dataset"] == "iris", "n_instances"].eq(60).all()
    assert table1.loc[table1["dataset"] == "monk3", "n_instances"].eq(30).all()


@pytest.mark.parametrize("name", ["smoke", "quick"])
def test_small_profiles_run_a_subset_of_the_papers_grid(name):
    profile = p003.get_profile(name)
    configs = list(p003.grid(profile))
    assert len(configs) == profile.n_runs == profile.n_instances * len(profile.methods)
    assert set(profile.datasets) <= set(p003.DATASETS) and set(profile.depths) <= set(p003.DEPTHS)
    assert set(profile.lambdas) <= set(p003.LAMBDAS) and set(profile.methods) <= set(p003.METHODS)
    assert "table1" in profile.studies()


def test_profile_time_limit_override_and_unknown_profile():
    assert p003.get_profile("quick", time_limit=5).time_limit == 5
    with pytest.raises(ValueError, match="profile must be one of"):
        p003.get_profile("huge")


# ----------------------------------------------------------------------------------------- methods
def test_methods_are_distinct_estimators_and_studies_name_known_methods():
    params = {name: p003.make_model(name, depth=3, leaf_penalty=0.01).get_params() for name in p003.METHODS}
    as_text = {name: json.dumps(p, sort_keys=True, default=str) for name, p in params.items()}
    assert len(set(as_text.values())) == len(as_text)            # no configuration is run twice
    for study, names in p003.STUDIES.items():
        assert set(names) <= set(p003.METHODS), study
        assert study in p003.STUDY_SOURCES


def test_baseline_and_best_configuration():
    from odtlib.models import RegularizedBendOCT

    plain = p003.make_model("BendOCT", 3, 0.01).get_params()
    assert not plain["strengthened_benders_cuts"] and not plain["polishing"] and not plain["path_bound_cuts"]
    assert plain["eqp"] is None and plain["warm_start"] is True and not plain["top_down_branching"]
    best = p003.make_model("Accelerated BendOCT", 3, 0.01).get_params()
    defaults = RegularizedBendOCT(depth=3, leaf_penalty=0.01).get_params()   # documented as the paper's best
    # the paper's best switches, with EQP, on SCIP's default search and the paper's height-2 path bounds
    # (top_down_branching, eqp="auto" and path_bound_height=3 are the estimator's own defaults, not the paper's)
    assert best == {**defaults, "solver": "scip", "time_limit": None, "top_down_branching": False,
                    "eqp": "recursive", "path_bound_height": 2}
    no_pbcp = p003.make_model("Accelerated (No PBCP)", 3, 0.01).get_params()
    assert no_pbcp["strengthened_benders_cuts"] and not no_pbcp["path_bound_cuts"] and no_pbcp["eqp"] == "recursive"
    with pytest.raises(ValueError, match="method must be one of"):
        p003.make_model("Gurobi", 3, 0.01)


def test_run_records_the_solve_and_the_trees_own_objective():
    config = {"dataset": "soybean-small", "encoding": "onehot", "depth": 3, "leaf_penalty": 0.08,
              "method": "Accelerated BendOCT", "solver": "scip", "time_limit": 30, "threads": 1}
    output = p003.run(config)
    metrics, result = output["metrics"], output["solve_result"]
    assert result.status == "optimal" and metrics["n_samples"] == 47 and metrics["n_features"] == 45
    # accuracy - λ·leaves recomputed from the tree's predictions is the solver's objective
    assert metrics["tree_objective"] == pytest.approx(result.objective, abs=1e-6)
    assert metrics["warm_start_objective"] <= result.objective + 1e-9
    assert result.build_time >= 0 and result.solve_time >= 0 and output["tree"].n_leaves == metrics["n_leaves"]


# ------------------------------------------------------------------------------------------ tables
def _results(rows):
    """A hand-made results frame: (dataset, method, status, solve_status, runtime, gap)."""
    frame = pd.DataFrame(rows, columns=["dataset", "method", "status", "solve_status", "solve_runtime", "solve_gap"])
    return frame.assign(encoding="onehot", depth=3, leaf_penalty=0.01)


HAND = _results([
    ("monk1", "BendOCT", "ok", "optimal", 10.0, 0.0),
    ("monk1", "BendOCT", "ok", "optimal", 30.0, 0.0),
    ("monk1", "BendOCT", "ok", "time_limit", 60.0, 0.05),
    ("monk1", "BendOCT", "ok", "time_limit", 60.0, 0.15),
    ("monk1", "Accelerated BendOCT", "ok", "optimal", 1.0, 0.0),
    ("monk1", "Accelerated BendOCT", "ok", "optimal", 2.0, 0.0),
    ("monk1", "Accelerated BendOCT", "ok", "optimal", 3.0, 0.0),
    ("monk1", "Accelerated BendOCT", "failed", None, None, None),
])


def test_solved_time_gap_by_hand():
    table = p003.table1_ours(p003.instance_frame(HAND)).set_index("method")
    # BendOCT: 2 of 4 solved, mean time (10 + 30) / 2 = 20 s, mean gap of the 2 unsolved (5 + 15) / 2 = 10 %
    assert table.loc["BendOCT", ["n_instances", "n_solved", "pct_solved"]].tolist() == [4, 2, 50.0]
    assert table.loc["BendOCT", "mean_time_solved_s"] == pytest.approx(20.0)
    assert table.loc["BendOCT", "mean_gap_unsolved_pct"] == pytest.approx(10.0)
    # Accelerated: 3 solved of 3 finished runs and 1 failure (not an unsolved instance), mean time 2 s
    assert table.loc["Accelerated BendOCT", ["n_instances", "n_solved", "n_failed"]].tolist() == [3, 3, 1]
    assert table.loc["Accelerated BendOCT", "pct_solved"] == 100.0
    assert table.loc["Accelerated BendOCT", "mean_time_solved_s"] == pytest.approx(2.0)
    assert np.isnan(table.loc["Accelerated BendOCT", "mean_gap_unsolved_pct"])


def test_instance_frame_gaps_for_profiles():
    instances = p003.instance_frame(HAND)
    assert instances["proved_gap"].tolist()[:7] == [0.0, 0.0, 0.05, 0.15, 0.0, 0.0, 0.0]
    assert np.isnan(instances["proved_gap"].iloc[7]) and instances["failed"].tolist() == [False] * 7 + [True]


def test_compare_study_shares_scope_and_ranks():
    ours = p003.table1_ours(p003.instance_frame(HAND))
    paper = p003.paper_table("table1")                  # monk1: BendOCT 30/30, Accelerated 30/30 (1.1 s)
    profile = p003.Profile("t", (("monk1", "onehot"),), (3,), (0.01,), ("BendOCT", "Accelerated BendOCT"), 60)
    table = p003.compare_study(ours, paper, profile, tolerance=10).set_index("method")
    assert set(table.index) == {"BendOCT", "Accelerated BendOCT"}           # Accelerated (No PBCP) not run
    assert table.loc["BendOCT", "paper_pct_solved"] == 100.0 and table.loc["BendOCT", "ours_pct_solved"] == 50.0
    assert table.loc["BendOCT", "verdict"] == "lower"
    # Accelerated solved its 3 finished runs, but one run failed: the cell is not comparable
    assert table.loc["Accelerated BendOCT", "verdict"] == "not comparable: ours: 1 run(s) failed (see the failed runs)"
    assert table.loc["Accelerated BendOCT", "ours_n_failed"] == 1
    assert table.loc["BendOCT", "scope"] == "ours: 4 of the paper's 30 instances, 60 s limit vs 3600 s"
    assert table["time_verdict"].str.startswith("not comparable").all()
    assert "1 run(s) failed" in table.loc["Accelerated BendOCT", "time_verdict"]

    totals = p003.method_totals(ours, paper).set_index("method")
    assert totals.loc["Accelerated BendOCT", "ours_rank"] == 1 and totals.loc["BendOCT", "ours_rank"] == 2
    assert totals.loc["Accelerated BendOCT", "ours_n_failed"] == 1
    assert (totals["paper_rank"] == 1).all()            # the paper solves all 30 with both: a tie
    assert p003.ordering(totals.reset_index(), "paper") == "Accelerated BendOCT = BendOCT"
    assert p003.ordering(totals.reset_index(), "ours") == "Accelerated BendOCT > BendOCT"


def test_time_to_match_is_the_papers_speedup_measure():
    # BendOCT solves 2 instances (the 2nd at 30 s); Accelerated has solved 2 after 2 s: 60 s / 2 s = 30x
    speed = p003.time_to_match(p003.instance_frame(HAND), time_limit=60).set_index("method")
    assert speed.loc["Accelerated BendOCT", "time_to_match_s"] == 2.0
    assert speed.loc["Accelerated BendOCT", "speedup"] == 30.0
    assert speed.loc["BendOCT", "time_to_match_s"] == 30.0
    assert speed.loc["Accelerated BendOCT", ["instances", "n_failed"]].tolist() == [3, 1]


@pytest.mark.parametrize("name", ["smoke", "quick"])
def test_small_profiles_label_speedups_not_comparable(name):
    profile = p003.get_profile(name)
    verdict = p003.speedup_verdict(profile)
    assert verdict.startswith("not comparable") and f"{profile.n_instances} of the paper's 1620" in verdict
    speed = p003.time_to_match(p003.instance_frame(HAND), time_limit=60, profile=profile)
    assert (speed["speedup_verdict"] == verdict).all()
    assert p003.speedup_verdict(p003.get_profile("paper")) == ""
    assert p003.speedup_verdict(p003.get_profile("paper", time_limit=60)).startswith("not comparable")


def test_optimum_crosscheck_uses_published_optima_and_flags_disagreement():
    rows = _results([("monk3", "BendOCT", "ok", "optimal", 5.0, 0.0), ("monk3", "EQP", "ok", "optimal", 5.0, 0.0),
                     ("monk3", "PBCP", "ok", "time_limit", 60.0, 0.1)])
    rows["solve_objective"] = [0.9044262295, 0.91, 0.8]
    rows["tree_objective"] = [0.9044262295, 0.91, 0.8]
    check = p003.optimum_crosscheck(p003.instance_frame(rows), use_streed=False).set_index("method")
    assert list(check.index) == ["BendOCT", "EQP"]                         # only proved optima
    assert (check["published"] == 0.904426).all()                          # monk3 D3 λ = 0.01
    assert check.loc["BendOCT", "agree"] and not check.loc["EQP", "agree"]
    assert (check["streed_check"] == "not checked (not asked)").all()
    agree = p003.methods_agree(p003.instance_frame(rows))
    assert len(agree) == 1 and not agree["agree"].iloc[0]


# ------------------------------------------------------------------------------- the ten-point toy (Section 1)
@pytest.mark.parametrize("lam,expected,leaves", [(0.05, 0.70, 4), (0.12, 0.48, 1)])
def test_toy_optimum_derived_by_hand(lam, expected, leaves):
    """Rows right out of 10: one leaf 6, a stump 6, three leaves 8, the XOR tree 9 (rows 7 and 8 conflict).
    λ = 0.05: 0.9 - 4 x 0.05 = 0.70 with four leaves; λ = 0.12: 0.6 - 0.12 = 0.48 with one leaf
    (the XOR tree would give 0.9 - 0.48 = 0.42)."""
    from odtlib.models import RegularizedFlowOCT

    assert p003.toy_optimum(lam) == pytest.approx(expected)
    fit = RegularizedFlowOCT(depth=2, leaf_penalty=lam, solver="highs").fit(p003.TOY_X, p003.TOY_Y)
    assert fit.solve_result_.status == "optimal"
    assert fit.solve_result_.objective == pytest.approx(expected, abs=1e-9)
    assert fit.tree_.n_leaves == leaves


def test_root_path_bound_cuts_close_the_toys_search():
    """Depth 2: the root is the only candidate of Algorithm 2 and R_P = 0, so (26) fixes the tree to D2S's optimal
    XOR tree and the search ends at the root; without the cuts the root LP lies above 0.70 and the search branches."""
    from odtlib.models.univariate._regularized import RegularizedContext
    from odtlib.models.univariate.accel import PathBoundCuts
    from odtlib.teaching import add_rows, branch_and_bound, lp_point

    lam = p003.TOY_LEAF_PENALTY
    ctx = RegularizedContext.of(p003.TOY_X, p003.TOY_Y, depth=2, leaf_penalty=lam)
    searches = {}
    for with_cuts in (False, True):
        model = p003.flow_model_with_scores(p003.TOY_X, p003.TOY_Y, depth=2, leaf_penalty=lam)
        if with_cuts:
            point = lp_point(model, "highs")
            add_rows(model, PathBoundCuts(ctx, model).cut(point), point)
        searches[with_cuts] = branch_and_bound(model, solver="highs", node_limit=40)
    for search in searches.values():
        assert search.finished and search.objective == pytest.approx(0.70, abs=1e-6)
    assert len(searches[True].nodes) == 1 and searches[True].nodes[0].bound == pytest.approx(0.70, abs=1e-6)
    assert searches[False].nodes[0].bound > 0.70 + 1e-6 and len(searches[False].nodes) > 1


# ------------------------------------------------------------------------------------- the notebook
def test_notebook_is_commit_clean():
    assert_commit_clean(NOTEBOOK)


@pytest.mark.timeout(240)
def test_smoke_profile_runs_and_reports(tmp_path, monkeypatch):
    report_dir, names = run_smoke("003", tmp_path, monkeypatch)
    for name in ("toy_branch_and_bound", "search_progress", "tableA1", "table1", "table1_totals", "speedup",
                 "optimum_crosscheck", "verdict", "run_info"):
        assert name in names
    assert names.index("toy_branch_and_bound") < names.index("tableA1")       # Section 1 opens the notebook
    assert (report_dir / "fig6a.png").stat().st_size > 0      # BendOCT vs PBCP + BSt + BNS
    assert "table5" in names                                   # Table 5's methods are in the smoke profile
    table1 = pd.read_csv(report_dir / "table1.csv")
    smoke = p003.get_profile("smoke")
    assert set(table1["method"]) == set(smoke.methods) & set(p003.STUDIES["table1"])
    assert table1["time_verdict"].str.startswith("not comparable").all()   # 20 s and 4 instances: never comparable
    assert (pd.read_csv(report_dir / "tableA1.csv")["verdict"] == "within tolerance").all()

    # every proved optimum agrees with its tree, with STreeD (when installed) and between methods
    check = pd.read_csv(report_dir / "optimum_crosscheck.csv")
    assert len(check) >= 1 and check["agree"].all()
    if importlib.util.find_spec("pystreed") is not None:
        assert (check["streed_check"] == "checked").all()
    store = ResultStore(tmp_path / "paper003" / "results" / "instances")
    configs = p003.grid(smoke)
    results = p003.results_of(store, configs)
    assert len(results) == smoke.n_runs and (results["status"] == "ok").all()
    # a rerun skips every finished run
    summary = run_grid(p003.run, configs, store, progress=False)
    assert (summary.skipped, summary.ran) == (len(configs), 0)
