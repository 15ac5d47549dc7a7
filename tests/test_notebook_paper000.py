"""Paper 000: the protocol helpers (splits, run configs, grids, tables) and the notebook's smoke profile."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from notebook_checks import NOTEBOOKS, assert_commit_clean, run_smoke

from odtlib.experiments import ResultStore, config_key, reference_table, run_grid
from odtlib.experiments import paper000 as p000

NOTEBOOK = NOTEBOOKS / "paper000_categorical_odt.ipynb"


# ------------------------------------------------------------------------------------------ splits
@pytest.mark.parametrize("n_rows", [267, 958])
def test_split_is_a_10_percent_test_set_and_a_90_percent_pool(n_rows):
    odt, pool, test = p000.split_rows(n_rows, split=2)
    assert sorted(np.concatenate([pool, test])) == list(range(n_rows))    # disjoint and complete
    assert len(test) == round(0.1 * n_rows)
    assert np.array_equal(odt, pool)                                       # no cap: the ODT uses the pool
    capped, same_pool, same_test = p000.split_rows(n_rows, split=2, n_train=100)
    assert len(capped) == 100 and set(capped) <= set(pool)
    assert np.array_equal(same_pool, pool) and np.array_equal(same_test, test)


def test_split_is_deterministic_per_split_and_differs_between_splits():
    first, again, other = (p000.split_rows(500, 0), p000.split_rows(500, 0), p000.split_rows(500, 1))
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[2], other[2])


def test_validation_stage_scores_held_out_pool_rows_never_the_test_rows():
    _, pool, test = p000.split_rows(400, 3)
    odt, inner_pool, validation = p000.split_rows(400, 3, stage="validate")
    assert set(validation) | set(inner_pool) == set(pool)
    assert not set(validation) & set(inner_pool) and not set(validation) & set(test)
    assert len(validation) == round(0.2 * len(pool))
    with pytest.raises(ValueError, match="stage must be"):
        p000.split_rows(400, 3, stage="train")


# ------------------------------------------------------------------------------------------- grids
def test_cart_configs_ignore_the_odt_settings():
    a = p000.run_config("bc", "CART-D3", split=1, topology="depth3", max_card=1, time_limit=5)
    b = p000.run_config("bc", "CART-D3", split=1, topology="depth2", time_limit=60)
    assert config_key(a) == config_key(b)
    assert config_key(p000.run_config("bc", split=1)) != config_key(p000.run_config("bc", split=1, max_card=1))


def test_paper_profile_is_the_papers_protocol():
    paper = p000.get_profile("paper")
    grid = p000.grids(paper)
    datasets = set(reference_table("000", "table1")["dataset"]) - {"heloc"}
    # Tables 8-11: 9 datasets x 5 splits x 2 limits x 2 feature selections x 4 topologies, + CART-D3 per split
    assert len(grid["accuracy"]) == 9 * 5 * 2 * 2 * 4 + 9 * 5
    acc = pd.DataFrame(grid["accuracy"])
    assert set(acc["dataset"]) == datasets
    assert set(acc.loc[acc["method"] == "ODT", "time_limit"]) == {1800, 300}
    assert set(acc.loc[acc["method"] == "ODT", "n_train"]) == {600}
    # Tables 2-3: the ten (dataset, n) cells of the paper x 5 variants at depth 3
    paper23 = pd.concat([reference_table("000", "table2"), reference_table("000", "table3")])
    cells = {(d, n) for d, n in zip(paper23["dataset"], paper23["n_samples"])}
    ablation = pd.DataFrame(grid["ablation"])
    assert {(d, n) for d, n in zip(ablation["dataset"], ablation["n_train"])} == cells
    assert set(ablation["variant"]) == {*p000.VARIANTS, p000.DECOMPOSITION} and set(ablation["topology"]) == {"depth3"}
    # Table 14: bc, 8 floors as printed, depths 2 and 3, 30 runs each
    tradeoff = pd.DataFrame(grid["tradeoff"])
    floors = sorted(set(100 * tradeoff["floor"]))
    assert np.allclose(floors, sorted(set(reference_table("000", "table14")["train_tpr"])))
    assert len(tradeoff) == 2 * 8 * 30


def test_quick_profile_runs_table_2_at_depth_3_with_the_decomposition():
    quick = p000.get_profile("quick")
    ablation = pd.DataFrame(p000.grids(quick)["ablation"])
    table2 = reference_table("000", "table2")
    assert set(zip(ablation["dataset"], ablation["n_train"])) <= set(zip(table2["dataset"], table2["n_samples"]))
    assert set(ablation["topology"]) == {"depth3"} and set(ablation["variant"]) == {"All", p000.DECOMPOSITION}
    limits = dict(zip(ablation["variant"], ablation["time_limit"]))
    assert limits == {"All": quick.timing_limit, p000.DECOMPOSITION: quick.decomposition_limit}
    assert dict(zip(ablation["variant"], ablation["solver"])) == {"All": "highs", p000.DECOMPOSITION: "scip"}
    one_limit = p000.grids(p000.get_profile("quick", time_limit=5))["ablation"]
    assert {c["time_limit"] for c in one_limit} == {5}                         # one limit overrides all
    config = p000.run_config("bc", variant=p000.DECOMPOSITION, topology="depth3")
    model = p000.make_model(config, groups=None)
    assert model.subtree_benders and model.anchors and model.max_card == 2


def test_quick_profile_solves_the_depth_3_accuracy_column_by_the_decomposition_on_200_rows():
    quick = p000.get_profile("quick")
    accuracy = pd.DataFrame(p000.grids(quick)["accuracy"])
    odt = accuracy[accuracy["method"] == "ODT"]
    deep, shallow = odt[odt["topology"] == "depth3"], odt[odt["topology"] == "depth2"]
    assert set(deep["dataset"]) == set(shallow["dataset"]) == set(quick.accuracy_datasets)
    assert set(deep["variant"]) == {p000.DECOMPOSITION} and set(deep["solver"]) == {"scip"}
    assert set(deep["n_train"]) == {200} and set(deep["time_limit"]) == set(quick.accuracy_limits)
    assert set(deep["feature_selection"]) == {True, False}          # Tables 9 and 8
    assert set(shallow["variant"]) == {"All"} and set(shallow["solver"]) == {"highs"}
    assert set(shallow["n_train"]) == {100} and set(shallow["feature_selection"]) == {True}
    paper = p000.paper_accuracy_long(quick)
    assert set(paper["method"]) == {"ODT-depth2", "ODT-depth3", "CART-D3"}
    assert p000.make_model(deep.iloc[0].to_dict(), groups=None).subtree_benders


def test_a_topology_is_solved_one_way_in_tables_8_to_11():
    with pytest.raises(ValueError, match=r"\['depth3'\] are both in accuracy_topologies and decomposed_topologies"):
        replace(p000.get_profile("quick"), accuracy_topologies=("depth2", "depth3"))


def test_shared_runs_have_one_key():
    quick = p000.grids(p000.get_profile("quick"))
    accuracy = {config_key(c) for c in quick["accuracy"]}
    comb_con = [c for c in quick["branching"] if c["max_card"] == 2]
    assert comb_con and all(config_key(c) in accuracy for c in comb_con)   # Table 6's comb-con = Table 9's run


def test_profile_time_limit_override_and_unknown_profile():
    quick = p000.get_profile("quick", time_limit=5)
    assert (quick.time_limit, quick.timing_limit, quick.accuracy_limits) == (5, 5, (5,))
    with pytest.raises(ValueError, match="profile must be one of"):
        p000.get_profile("huge")


# ------------------------------------------------------------------------------------------- tables
def _runs(rows, columns):
    frame = pd.DataFrame(rows, columns=columns).assign(status="ok")
    return frame if "method" in frame else frame.assign(method="ODT")


def test_time_table_marks_unproved_cells_and_ratios_are_to_the_reference():
    runs = _runs([("bc", "All", 2.0, "optimal"), ("bc", "Nothing", 10.0, "optimal"),
                  ("bc", "No Relax", 20.0, "time_limit")], ["dataset", "variant", "solve_runtime", "solve_status"])
    times = p000.time_table(runs, ["dataset", "variant"])
    ratios = p000.time_ratios(times, ["dataset"], "variant", "All").set_index("variant")
    assert ratios.loc["Nothing", "ratio"] == 5.0 and ratios.loc["All", "ratio"] == 1.0
    assert ratios.loc["No Relax", "marker"] == "*" and ratios.loc["Nothing", "marker"] == ""


def test_failed_runs_are_counted_apart_from_times_and_make_cells_not_comparable():
    runs = _runs([("bc", "All", 2.0, "optimal"), ("bc", "All", 4.0, "optimal"), ("bc", "Nothing", None, None)],
                 ["dataset", "variant", "solve_runtime", "solve_status"])
    runs.loc[2, "status"] = "failed"
    times = p000.time_table(runs, ["dataset", "variant"]).set_index("variant")
    assert times.loc["All", ["time_s", "runs", "n_failed", "marker"]].tolist() == [3.0, 2, 0, ""]
    assert times.loc["Nothing", ["runs", "n_failed"]].tolist() == [0, 1]
    assert times.loc["Nothing", "reason"] == "ours: 1 of 1 run(s) failed (see the failed runs)"
    columns = ["dataset", "topology", "n_train", "solve_status", "train_accuracy", "test_accuracy"]
    sizes = _runs([("krkp", "depth2", 100, "optimal", 0.9, 0.8), ("krkp", "depth2", 100, None, None, None),
                   ("krkp", "depth2", 200, "optimal", 0.9, 0.85)], columns)
    sizes.loc[1, "status"] = "failed"
    table = p000.train_size_table(sizes).set_index("n_train")
    assert len(table) == 2 and table.loc[100, "reason"] == "ours: 1 run(s) failed (see the failed runs)"
    assert table.loc[200, "reason"] == "" and table.loc[200, "test_accuracy"] == pytest.approx(85.0)


def test_pruned_cart_is_a_scikit_learn_classifier():
    from sklearn.base import clone, is_classifier
    from sklearn.exceptions import NotFittedError

    model = p000.PrunedCART(random_state=3, cv=3)
    assert is_classifier(model)
    assert model.get_params() == {"random_state": 3, "min_samples_split": 20, "min_samples_leaf": 7, "cv": 3,
                                  "n_alphas": 20, "seed": "deprecated"}
    copy = clone(model).set_params(n_alphas=5)
    assert copy.get_params()["n_alphas"] == 5 and model.n_alphas == 20 and copy.random_state == 3
    with pytest.raises(NotFittedError):
        model.predict(np.zeros((2, 3)))
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(120, 4))
    y = X[:, 0] & X[:, 1]                                  # needs two levels: pruning must keep them
    model.fit(X, y)
    assert not hasattr(p000.PrunedCART(), "estimator_") and hasattr(model, "estimator_")
    assert list(model.classes_) == [0, 1] and model.ccp_alpha_ >= 0
    assert model.score(X, y) == 1.0 and model.get_n_leaves() == 3


def test_accuracy_table_maps_limits_and_repeats_cart_for_every_cell():
    columns = ["dataset", "method", "topology", "split", "time_limit", "feature_selection", "solve_status",
               "train_accuracy", "test_accuracy"]
    runs = _runs([("bc", "ODT", "depth2", 0, 20, True, "optimal", 0.9, 0.8),
                  ("bc", "ODT", "depth2", 0, 5, True, "time_limit", 0.9, 0.7),
                  ("bc", "CART-D3", None, 0, None, None, None, 0.85, 0.75)], columns)
    table = p000.accuracy_table(runs, paper_minutes={20: 30, 5: 5}).set_index(["method", "odt_time_limit_min"])
    assert table.loc[("ODT-depth2", 30), "test_accuracy"] == 80.0
    assert table.loc[("ODT-depth2", 5), "reason"].startswith("ours: stopped")
    assert sorted(table.loc["CART-D3"].index) == [5, 30]                   # CART beside both limits
    assert (table.loc["CART-D3", "feature_selection"] == "yes").all()


def test_topology_selection_takes_best_validation_then_fewer_leaves():
    columns = ["dataset", "split", "topology", "method", "validation_accuracy", "n_leaves"]
    validation = _runs([("votes", 0, "depth2", "ODT", 0.90, 4), ("votes", 0, "depth2.5", "ODT", 0.90, 6),
                        ("votes", 1, "depth2", "ODT", 0.80, 4), ("votes", 1, "depth2.5", "ODT", 0.85, 6)], columns)
    tested = _runs([("votes", 0, "depth2", "ODT", 0.95, 4), ("votes", 0, "depth2.5", "ODT", 0.99, 6),
                    ("votes", 1, "depth2", "ODT", 0.99, 4), ("votes", 1, "depth2.5", "ODT", 0.93, 6),
                    ("votes", 0, None, "CART", 0.90, 3), ("votes", 1, None, "CART", 0.92, 5)],
                   ["dataset", "split", "topology", "method", "test_accuracy", "n_leaves"])
    row = p000.topology_selection(validation, tested).set_index("dataset").loc["votes"]
    assert row["odt_test_acc"] == pytest.approx(100 * (0.95 + 0.93) / 2)   # depth2 on split 0, depth2.5 on 1
    assert row["odt_avg_leaves"] == 5 and row["cart_avg_leaves"] == 4
    assert row["cart_test_acc"] == pytest.approx(91.0)


def test_tradeoff_table_is_keyed_by_the_floor_in_percent():
    columns = ["topology", "floor", "split", "solve_status", "train_tpr", "train_tnr", "test_tpr", "test_tnr"]
    # our y = 1 is benign; the paper's Table 14 calls malignant (our y = 0) positive: rates swap
    runs = _runs([("depth2", 0.995, 0, "optimal", 0.8, 1.0, 0.7, 0.99),
                  ("depth2", 0.995, 1, "optimal", 0.9, 0.995, 0.8, 0.97)], columns)
    table = p000.tradeoff_table(runs).iloc[0]
    assert (table["depth"], table["train_tpr"], table["runs"]) == (2, 99.5, 2)
    assert table["train_tpr_achieved"] == pytest.approx(99.75) and table["train_tnr"] == pytest.approx(85.0)
    assert table["test_tpr"] == pytest.approx(98.0) and table["test_tnr"] == pytest.approx(75.0)
    assert table["reason"] == ""


def test_table6_sets_our_mean_test_accuracy_beside_the_papers_with_our_training_accuracy():
    quick = p000.get_profile("quick")                          # compared, tolerance 5 points
    columns = ["dataset", "topology", "max_card", "split", "solve_status", "train_accuracy", "test_accuracy"]
    runs = _runs([("mush", "depth2", 1, 0, "optimal", 0.96, 0.95), ("mush", "depth2", 1, 1, "optimal", 0.98, 0.97),
                  ("mush", "depth2", None, 0, "time_limit", 0.99, 0.88)], columns)
    table = p000.compare_table6(runs, quick).set_index("branching")
    # by hand: simple = mean(95, 97) = 96.0 against Table 6's 95.7 (mush, depth 2): +0.3, within 5 points;
    # training mean(96, 98) = 97.0. comb-unc stopped at the limit: not comparable, and 88 - 99.4 = -11.4 is
    # beyond twice the tolerance, so its reason is ours. comb-con was not run: no row.
    assert list(table.index) == ["simple", "comb-unc"]
    assert table.loc["simple", ["paper", "ours", "ours_train_acc"]].tolist() == pytest.approx([95.7, 96.0, 97.0])
    assert table.loc["simple", "verdict"] == "within tolerance" and table.loc["simple", "reason"] == ""
    stopped = "ours: 1 ODT run(s) stopped at the time limit"
    assert table.loc["comb-unc", "verdict"] == f"not comparable: {stopped}"
    assert table.loc["comb-unc", "reason"] == stopped and table.loc["comb-unc", "difference"] == pytest.approx(-11.4)
    smoke = p000.compare_table6(runs, p000.get_profile("smoke")).set_index("branching")
    assert smoke.loc["simple", "verdict"] == "not comparable: ours: smoke profile, a code-path check on 40 rows"


def test_table7_compares_ordinal_and_categorical_groups_and_lists_our_times():
    columns = ["dataset", "topology", "ordinal", "solve_status", "train_accuracy", "test_accuracy", "solve_runtime"]
    runs = _runs([("bc", "depth2", True, "optimal", 0.97, 0.97, 3.0),
                  ("bc", "depth2", False, "optimal", 0.98, 0.90, 5.0)], columns)
    table = p000.compare_table7(runs, p000.get_profile("quick")).set_index("feature_treatment")
    # by hand, Table 7 bc depth2: "n" 96.6 -> 97.0 - 96.6 = +0.4 within 5; "c" 96.0 -> 90.0 - 96.0 = -6.0 lower,
    # not beyond twice the tolerance (10), so without a reason
    assert table.loc["n", "verdict"] == "within tolerance" and table.loc["n", "difference"] == pytest.approx(0.4)
    assert table.loc["c", "verdict"] == "lower" and table.loc["c", "difference"] == pytest.approx(-6.0)
    assert table.loc["c", "reason"] == "" and table.loc["c", "ours_train_acc"] == pytest.approx(98.0)
    times = p000.table7_times(runs).loc[("bc", "depth2")]
    assert times.loc["n"].tolist() == [3.0, 6.0] and times.loc["c"].tolist() == [5.0, 6.0]   # Table 7: 6 s each


def test_table12_keeps_cells_with_failed_runs_as_not_comparable():
    columns = ["dataset", "topology", "n_train", "solve_status", "train_accuracy", "test_accuracy"]
    runs = _runs([("krkp", "depth2", 600, "optimal", 0.87, 0.86), ("krkp", "depth2", 600, "optimal", 0.89, 0.90),
                  ("krkp", "depth2", 1200, "optimal", 0.88, 0.87), ("krkp", "depth2", 1200, None, None, None)],
                 columns)
    runs.loc[3, "status"] = "failed"
    table = p000.compare_table12(runs, p000.get_profile("quick")).set_index("n_train")
    # by hand: 600 rows: mean(86, 90) = 88.0 against Table 12's 87.0, +1.0 within; 1200 rows: one failed run
    assert table.loc[600, ["paper", "ours", "ours_train_acc"]].tolist() == pytest.approx([87.0, 88.0, 88.0])
    assert table.loc[600, "verdict"] == "within tolerance"
    assert table.loc[1200, "verdict"] == "not comparable: ours: 1 run(s) failed (see the failed runs)"


def test_table13_compares_accuracies_within_the_tolerance_and_leaves_within_one():
    selected = pd.DataFrame({"dataset": ["votes"], "odt_test_acc": [95.0], "odt_avg_leaves": [4.0],
                             "cart_test_acc": [90.0], "cart_avg_leaves": [3.0]})
    table = p000.compare_table13(selected, p000.get_profile("quick")).set_index("quantity")
    # by hand, Table 13 votes: ODT 95.7 % / 7.2 leaves, CART 95.5 % / 2.4 leaves; tolerance 5 points, 1 leaf
    assert table["difference"].tolist() == pytest.approx([-0.7, -5.5, -3.2, 0.6])
    assert table["verdict"].tolist() == ["within tolerance", "lower", "lower", "within tolerance"]
    assert table["method"].tolist() == ["ODT", "CART", "ODT", "CART"]


def test_table14_compares_each_rate_and_explains_large_differences():
    tradeoff = pd.DataFrame({"depth": [2, 2], "train_tpr": [99.0, 98.0], "train_tnr": [80.0, 90.0],
                             "test_tpr": [99.0, 97.0], "test_tnr": [70.0, 80.0],
                             "reason": ["", "ours: 1 ODT run(s) stopped at the time limit"]})
    table = p000.compare_table14(tradeoff, p000.get_profile("quick"))
    floor99 = table[table["train_tpr"] == 99.0].set_index("quantity")
    # by hand, Table 14 depth 2 at 99 %: train TNR 89.5, test TPR 97.7, test TNR 89.4 -> -9.5, +1.3, -19.4;
    # only -19.4 is beyond twice the tolerance (10): quick trains on 100 rows, so that is the reason given
    assert floor99["difference"].tolist() == pytest.approx([-9.5, 1.3, -19.4])
    assert floor99["verdict"].tolist() == ["lower", "within tolerance", "lower"]
    assert floor99.loc["train_tnr", "reason"] == "" and floor99.loc["test_tnr", "reason"].startswith("ours: 100 ")
    assert (table.loc[table["train_tpr"] == 98.0, "verdict"] == "not comparable: " + tradeoff["reason"][1]).all()
    smoke = p000.compare_table14(tradeoff, p000.get_profile("smoke"))
    assert smoke["verdict"].str.startswith("not comparable: ours").all() and (table["dataset"] == "bc").all()


# ------------------------------------------------------------------------------------------- the toy
def test_toy_instance_is_ten_one_hot_days_in_three_groups():
    A, positive, groups, columns = p000.toy_instance()
    # outlook has 3 values, humidity and wind 2 each: 7 columns, one 1 per group and row; days 2, 3, 5, 6, 9 play
    assert A.shape == (10, 7) and (A.sum(axis=1) == 3).all()
    assert [g.name for g in groups] == ["outlook", "humidity", "wind"]
    assert columns[0] == "outlook=overcast" and list(np.flatnonzero(positive) + 1) == [2, 3, 5, 6, 9]


def test_toy_bounds_and_optimum_are_the_ones_derived_by_hand():
    from odtlib.models.categorical.categorical_odt import build_model
    from odtlib.teaching import root_bounds

    A, positive, groups, _ = p000.toy_instance()
    bounds = {}
    for topology in ("depth2", "depth2.5"):
        models = {name: build_model(A, positive, groups, topology, **switches)
                  for name, switches in p000.TOY_VARIANTS.items()}
        frame = root_bounds(models).set_index("formulation")
        # by hand: days 9 and 10 are one day with two labels, the rule "overcast or normal humidity" gets the
        # other nine right, so every model's optimum is 9
        assert np.allclose(frame["mip_objective"], 9) and (frame["mip_status"] == "optimal").all()
        bounds[topology] = frame["lp_bound"].round(6).tolist()
    # by hand, in the order plain (5)-(6), strengthened (11)-(12), (11)-(12) + anchors (13):
    # depth 2: with (14) each side of the root holds one leaf per class, so (11)-(12) are (5)-(6): L = 1/2
    #   everywhere gives every day 1/2 + 1/2 = 1, bound 10; the anchored root sends the twins 9-10 (all three
    #   anchor values: overcast, high, strong) left together, where they share one correct leaf: 9.
    # depth 2.5: plain lets each day count 1/2 in each of its 3 own-class leaves: 15; (11) + (12) at the root cap a
    #   day at 1: 10; the root is not anchored (its subtrees differ), so anchors leave 10.
    assert bounds == {"depth2": [10, 10, 9], "depth2.5": [15, 10, 10]}


# ------------------------------------------------------------------------------------- the notebook
def test_notebook_is_commit_clean():
    assert_commit_clean(NOTEBOOK)


@pytest.mark.timeout(180)
def test_smoke_profile_runs_and_reports(tmp_path, monkeypatch):
    report_dir, names = run_smoke("000", tmp_path, monkeypatch)
    for name in ("toy_root_bounds", "toy_branch_and_bound", "search_progress", "table1", "table2_3",
                 "table2_methods", "table2_3_verdict", "table6", "table8_11", "table8_11_decomposed",
                 "table8_11_verdict", "run_info"):
        assert name in names
    assert names.index("search_progress") < names.index("table1")           # the toy section opens the notebook
    toy = pd.read_csv(report_dir / "toy_root_bounds.csv")
    assert np.allclose(toy["mip_objective"], 9)                              # the optimum derived by hand
    plain = toy[(toy["topology"] == "depth2.5") & (toy["formulation"] == "plain (5)-(6)")]
    assert plain["lp_bound"].tolist() == pytest.approx([15.0])              # 10 days x 3 leaves x 1/2
    table1 = pd.read_csv(report_dir / "table1.csv")
    assert table1.loc[table1["dataset"] == "heloc", "verdict"].str.startswith("not comparable").all()
    table8 = pd.read_csv(report_dir / "table8_11.csv")
    assert table8["verdict"].str.contains("code-path check").all()        # smoke numbers are never compared
    assert {"ODT-depth2", "ODT-depth3", "CART-D3"} <= set(table8["method"])

    grids = p000.grids(p000.get_profile("smoke"))
    store = ResultStore(tmp_path / "paper000" / "results" / "runs")
    ablation = p000.results_of(store, grids["ablation"])
    assert len(ablation) == len(p000.VARIANTS) + 1 and (ablation["status"] == "ok").all()
    # the enhancements and the decomposition never change the optimum: the same training accuracy
    solved = ablation[ablation["solve_status"] == "optimal"]
    assert len(solved) >= 2 and solved["train_accuracy"].nunique() == 1
    # the depth-3 optimum (decomposition) is at least the depth-2 optimum (formulation (8)) on the same rows
    accuracy = p000.results_of(store, grids["accuracy"])
    odt = accuracy[accuracy["method"] == "ODT"].set_index("topology")
    assert odt.loc["depth3", "variant"] == p000.DECOMPOSITION and odt.loc["depth3", "solver"] == "scip"
    assert (odt["solve_status"] == "optimal").all()
    assert odt.loc["depth3", "train_accuracy"] >= odt.loc["depth2", "train_accuracy"]
    # a rerun skips every finished run
    configs = [c for configs in grids.values() for c in configs]
    summary = run_grid(p000.run, configs, store, progress=False)
    assert summary.ran == 0 and summary.skipped == len({config_key(c) for c in configs})   # shared runs once
