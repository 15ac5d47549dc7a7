"""Paper 000's claims ledger: the declared claims, their compute functions on hand-made stored runs, and the
full profile's grid behind them."""
from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

from odtlib.experiments import claims
from odtlib.experiments import paper000 as p000
from odtlib.experiments.store import config_key
from odtlib.experiments.stored import export_results, results_file

FULL = p000.get_profile("full")
GRID = p000.grids(FULL)
PUBLIC = p000.AVAILABLE          # the 9 public datasets (heloc is not)


# ------------------------------------------------------------------------------------------ the claims file
def test_claims_name_this_papers_experiments():   # counts and compute names: test_claims_core.py
    declared = claims.claims("000")
    for claim in declared:
        assert claim["experiment"] == p000.CLAIMS_EXPERIMENT
    assert [c["id"] for c in declared if "not_tested" in c] == ["000-9"]      # heloc only


def test_claims_carry_the_papers_numbers():
    by_id = {c["id"]: c for c in claims.claims("000")}
    # Table 2: krkp Nothing / All = 5377 / 320 = 16.8 (the smallest of bc 2193/44, krkp, ttt 1837/31)
    assert by_id["000-1"]["paper_value"] == pytest.approx(5377 / 320, abs=0.05)
    # Tables 4-5, depth 2, rows 200 and 600: without (krkp 7 + 24, bc 3 + 10) = 44, with (0 + 2, 1 + 4) = 7
    assert by_id["000-2"]["paper_value"] == pytest.approx(44 / 7, abs=0.01)
    # Table 9, best ODT minus CART-D3: a1a 1.7, bc 2.0, heart -0.7, krkp 3.6, monks-1 23.2, mush 0.3,
    # student 5.5, ttt 6.4, votes 0.9 -> 42.9 / 9 = 4.77
    assert by_id["000-4"]["paper_value"] == pytest.approx(42.9 / 9, abs=0.01)
    # Table 14, depth 2, test TPR at floors 100, 99, 98 %: (99.1 + 97.7 + 97.7) / 3 = 98.17
    assert by_id["000-8"]["paper_value"] == pytest.approx(98.17, abs=0.01)


# ---------------------------------------------------------------------------------------- the full profile
def test_full_profile_covers_every_dataset_topology_and_method_of_the_claims():
    accuracy = Counter((c["dataset"], c["method"], c["topology"], c["feature_selection"]) for c in GRID["accuracy"])
    for dataset in PUBLIC:
        assert accuracy[(dataset, "CART-D3", None, None)] == 5
        for topology in p000.TOPOLOGIES:
            for selection in (False, True):
                assert accuracy[(dataset, "ODT", topology, selection)] == 5
    assert {(c["dataset"], c["topology"]) for c in GRID["validation"]} == {(d, t) for d in PUBLIC
                                                                            for t in p000.TOPOLOGIES}
    assert {(c["dataset"], c["variant"]) for c in GRID["ablation"]} == {(d, v) for d in ("bc", "krkp", "ttt")
                                                                         for v in ("All", "Nothing")}
    assert {(c["dataset"], c["n_train"], c["feature_selection"]) for c in GRID["timing"]} == {
        (d, n, fs) for d in ("krkp", "bc") for n in (200, 600) for fs in (False, True)}
    assert {c["max_card"] for c in GRID["branching"]} == {1, 2, None}
    assert {(c["floor"], c["time_limit"]) for c in GRID["tradeoff"]} == {(f, 300) for f in (1.0, 0.99, 0.98)}


def test_full_profile_has_the_stated_size_and_shares_table13s_test_runs():
    # accuracy 9 x 5 x (4 x 2 + 1) = 405, ablation 6, timing 8, branching 3 x 5 = 15, tradeoff 3 floors x 3
    # splits = 9 and the same on SCIP (tradeoff_recheck) 9, validation 9 x 3 x 4 = 108, selection_test 108 ODT
    # (= the accuracy runs with feature selection) + 27 CART
    assert {name: len(configs) for name, configs in GRID.items()} == {
        "ablation": 6, "timing": 8, "accuracy": 405, "branching": 15, "treatment": 0, "train_size": 0,
        "validation": 108, "tradeoff": 9, "tradeoff_recheck": 9, "selection_test": 135}
    keys = {config_key(c) for configs in GRID.values() for c in configs}
    assert len(keys) == 6 + 8 + 405 + 15 + 9 + 9 + 108 + 27 == 587
    assert "695 configs, 587 distinct runs" in FULL.notes
    assert {c["solver"] for c in GRID["tradeoff_recheck"]} == {"scip"}
    assert [dict(c, solver="highs") for c in GRID["tradeoff_recheck"]] == GRID["tradeoff"]


def test_the_other_profiles_grids_are_unchanged():
    # sizes before the full profile existed: smoke 12, quick 67, paper 2274 configs
    assert [sum(map(len, p000.grids(p000.get_profile(n)).values())) for n in ("smoke", "quick", "paper")] == \
        [12, 67, 2274]


def test_ordered_configs_puts_timing_first_then_split_by_split_with_cart_first():
    ordered = p000.ordered_configs(GRID)
    assert len(ordered) == sum(map(len, GRID.values()))
    assert {c["variant"] for c in ordered[:6]} <= {"All", "Nothing"} and ordered[13]["stage"] == "test"
    splits = [c["split"] for c in ordered[14:]]
    assert splits == sorted(splits)
    assert ordered[14]["method"] == "CART-D3"


# ----------------------------------------------------------------------------------- hand-made stored runs
def _record(config, status="ok", solve="optimal", runtime=1.0, **metrics):
    record = {"key": config_key(config), "status": status, "config": config}
    if status == "ok":
        record["metrics"] = metrics
        record["solve_result"] = {"status": solve, "runtime": runtime} if config["method"] == "ODT" else None
    else:
        record["error"] = {"message": "RuntimeError: CategoricalODT: the solver returned no tree (status 'x')"}
    return record


def _results(tmp_path, records):
    export_results(records, results_file(tmp_path, "000", p000.CLAIMS_EXPERIMENT))
    return claims.StoredResults("000", results_dir=tmp_path)


def _accuracy_records(test_of, selection=True):
    """Every Tables 8-9 config of the full grid with ``test_of(config)`` as its test accuracy (a fraction)."""
    return [_record(c, test_accuracy=test_of(c)) for c in GRID["accuracy"]
            if c["method"] == "CART-D3" or c["feature_selection"] == selection]


def test_accuracy_claims_on_hand_made_runs(tmp_path):
    def test_of(config):           # CART-D3 0.80 everywhere; the best topology 0.815 on bc, 0.82 elsewhere
        if config["method"] == "CART-D3":
            return 0.80
        best = 0.815 if config["dataset"] == "bc" else 0.82
        return best if config["topology"] == "depth3" else 0.70

    results = _results(tmp_path, _accuracy_records(test_of, selection=False) + _accuracy_records(test_of))
    functions = claims.metrics("000")
    # best - CART: bc 1.5 points, the 8 others 2.0 -> mean (1.5 + 8 x 2) / 9 = 1.944; all 9 beat it by > 1 point,
    # only the 8 others by > 1.8 points
    gain = functions["mean_gain_over_cart"](results, feature_selection=True)
    assert gain.value == pytest.approx(17.5 / 9, abs=0.01) and gain.n == 9
    assert functions["datasets_beating_cart"](results, feature_selection=False, margin=1.0).value == 9
    assert functions["datasets_beating_cart"](results, feature_selection=False, margin=1.8).value == 8
    monks = functions["odt_test_accuracy"](results, dataset="monks-1", topology="imbalanced",
                                           feature_selection=False)
    assert monks.value == pytest.approx(70.0) and monks.n == 5


def test_accuracy_claims_say_what_is_missing_and_ignore_runs_of_other_configs(tmp_path):
    records = [r for r in _accuracy_records(lambda c: 0.9) if r["config"]["dataset"] != "votes"]
    other = p000.run_config("votes", split=0, n_train=600, topology="depth2", time_limit=20)   # not in the grid
    results = _results(tmp_path, records + [_record(other, test_accuracy=1.0)])
    measured = claims.metrics("000")["mean_gain_over_cart"](results, feature_selection=True)
    # 8 datasets x 5 splits x (4 topologies + CART-D3) = 200 of the 9 x 5 x 5 = 225 runs with selection
    assert measured.value is None and "200 of 225 runs stored" in measured.reason and "votes" in measured.reason


def test_a_run_without_a_tree_is_counted_as_such_not_as_zero_accuracy(tmp_path):
    config = next(c for c in GRID["accuracy"] if c["dataset"] == "monks-1" and c["method"] == "ODT"
                  and c["topology"] == "imbalanced" and not c["feature_selection"] and c["split"] == 0)
    others = [c for c in GRID["accuracy"] if c["dataset"] == "monks-1" and c["method"] == "ODT"
              and c["topology"] == "imbalanced" and not c["feature_selection"] and c["split"] > 0]
    records = [_record(config, status="failed")] + [_record(c, test_accuracy=1.0) for c in others]
    measured = claims.metrics("000")["odt_test_accuracy"](_results(tmp_path, records), dataset="monks-1",
                                                          topology="imbalanced", feature_selection=False)
    # 4 splits with 100 %, the fifth found no tree: 100 over 4 runs, not (4 x 100 + 0) / 5 = 80
    assert measured.value == pytest.approx(100.0) and measured.n == 4
    assert "no tree found in 1" in measured.note and "5 of 5 runs stored" in measured.note


def test_branching_gain_on_hand_made_runs(tmp_path):
    test = {1: 0.95, 2: 0.99, None: 0.99}
    records = [_record(c, test_accuracy=test[c["max_card"]] + 0.01 * (c["split"] == 0)) for c in GRID["branching"]]
    measured = claims.metrics("000")["branching_gain"](_results(tmp_path, records), dataset="mush",
                                                        topology="depth2")
    # comb-con minus simple is 4 points on every split (split 0 adds 1 point to both)
    assert measured.value == pytest.approx(4.0) and measured.n == 5


def test_tradeoff_test_tpr_on_hand_made_runs_counts_proved_runs_only(tmp_path):
    # the paper's TPR is our rate on y = 0 (test_tnr): 1.0, 0.98, 0.96 at floors 100, 99, 98 % -> mean 98 %;
    # split 2 at floor 100 % stopped at the limit with the all-malignant tree (test TPR 1.0): left out, and the
    # floor-100 % mean stays 1.0 from splits 0-1, so the mean is still 98 % over 8 runs
    rate = {1.0: 1.0, 0.99: 0.98, 0.98: 0.96}
    records = [_record(c, test_accuracy=0.9, test_tnr=rate[c["floor"]], test_tpr=0.5, train_tpr=0.8,
                       solve="time_limit" if (c["floor"], c["split"]) == (1.0, 2) else "optimal")
               for c in GRID["tradeoff"]]
    function = claims.metrics("000")["tradeoff_test_tpr"]
    measured = function(_results(tmp_path, records), topology="depth2", floors=[1.0, 0.99, 0.98])
    assert measured.value == pytest.approx(98.0) and measured.n == 8
    # with no proved run at floor 100 %, nothing is measured
    unproved = [_record(c, test_accuracy=0.9, test_tnr=0.9, test_tpr=0.5, train_tpr=0.8,
                        solve="time_limit" if c["floor"] == 1.0 else "optimal") for c in GRID["tradeoff"]]
    assert function(_results(tmp_path / "b", unproved), topology="depth2", floors=[1.0, 0.99, 0.98]).value is None


def test_tradeoff_test_tpr_reads_a_stopped_run_from_its_proved_recheck(tmp_path):
    # HiGHS stopped every floor-98 % run; the SCIP rechecks prove splits 0 and 1 (test TPR 0.90) and stop split 2
    # (test TPR 0.50, left out); the rechecks of runs HiGHS proved (test TPR 0.10) replace nothing. Means per
    # floor: 100 % -> 1.0, 99 % -> 0.98, 98 % -> 0.90 from the two proved rechecks: (100 + 98 + 90) / 3 = 96
    rate = {1.0: 1.0, 0.99: 0.98}
    first = [_record(c, test_accuracy=0.9, test_tnr=rate.get(c["floor"], 0.99), test_tpr=0.5, train_tpr=0.8,
                     solve="time_limit" if c["floor"] == 0.98 else "optimal") for c in GRID["tradeoff"]]
    rechecks = [_record(c, test_accuracy=0.9, test_tnr=0.1 if c["floor"] != 0.98 else 0.9 if c["split"] < 2
                        else 0.5, test_tpr=0.5, train_tpr=0.8,
                        solve="time_limit" if (c["floor"], c["split"]) == (0.98, 2) else "optimal")
                for c in GRID["tradeoff_recheck"]]
    function = claims.metrics("000")["tradeoff_test_tpr"]
    measured = function(_results(tmp_path, first + rechecks), topology="depth2", floors=[1.0, 0.99, 0.98])
    assert measured.value == pytest.approx(96.0) and measured.n == 8
    assert "2 of them proved by the recheck on scip" in measured.note
    # without the rechecks no floor-98 % run is proved: nothing is measured
    assert function(_results(tmp_path / "b", first), topology="depth2", floors=[1.0, 0.99, 0.98]).value is None


def test_table13_count_on_hand_made_runs(tmp_path):
    # validation: depth2 best everywhere (0.9 against 0.8); test: depth2 0.85; CART 0.90 on krkp and ttt, else 0.80
    validation = [_record(c, validation_accuracy=0.9 if c["topology"] == "depth2" else 0.8, n_leaves=4)
                  for c in GRID["validation"]]
    tested = [_record(c, test_accuracy=(0.90 if c["dataset"] in ("krkp", "ttt") else 0.80)
                      if c["method"] == "CART" else 0.85, n_leaves=4) for c in GRID["selection_test"]]
    measured = claims.metrics("000")["datasets_not_worse_than_pruned_cart"](_results(tmp_path, validation + tested))
    assert measured.value == 7 and "krkp, ttt" in measured.note


def test_enhancement_speedup_is_a_lower_bound_when_nothing_stops_at_the_limit(tmp_path):
    times = {("bc", "All"): 2.0, ("bc", "Nothing"): 300.0, ("krkp", "All"): 10.0, ("krkp", "Nothing"): 200.0,
             ("ttt", "All"): 1.0, ("ttt", "Nothing"): 40.0}
    records = [_record(c, runtime=times[(c["dataset"], c["variant"])], test_accuracy=0.9,
                       solve="time_limit" if times[(c["dataset"], c["variant"])] == 300.0 else "optimal")
               for c in GRID["ablation"]]
    measured = claims.metrics("000")["enhancement_speedup"](_results(tmp_path, records), datasets=["bc", "krkp", "ttt"],
                                                            n_train=100)
    # ratios bc 150 (censored), krkp 20, ttt 40: the smallest is 20, a lower bound since bc's Nothing is censored
    assert measured.value == pytest.approx(20.0) and measured.bound == "lower"
    verdict, _ = claims.judge({"id": "000-1", "paper_value": 16.8, "tolerance": 6.8, "direction": "at_least"},
                              measured)
    assert verdict == "confirmed"


def test_feature_selection_speedup_needs_proved_runs_with_selection(tmp_path):
    def record(config, proved_with=True):
        selected = config["feature_selection"]
        runtime = (2.0 if config["n_train"] == 200 else 8.0) if selected else 300.0
        solve = "optimal" if (selected and proved_with) else "time_limit"
        return _record(config, runtime=runtime, solve=solve, test_accuracy=0.9)

    functions = claims.metrics("000")
    measured = functions["feature_selection_speedup"](_results(tmp_path, [record(c) for c in GRID["timing"]]),
                                                      datasets=["krkp", "bc"], sizes=[200, 600])
    # without: 4 x 300 s = 1200 s (all censored); with: 2 + 8 + 2 + 8 = 20 s -> 60, a lower bound
    assert measured.value == pytest.approx(60.0) and measured.bound == "lower"
    unproved = functions["feature_selection_speedup"](
        _results(tmp_path / "b", [record(c, proved_with=False) for c in GRID["timing"]]),
        datasets=["krkp", "bc"], sizes=[200, 600])
    assert unproved.value is None and "undetermined" in unproved.reason


def test_ledger_reads_the_hand_made_runs(tmp_path):
    records = _accuracy_records(lambda c: 0.9 if c["method"] == "ODT" else 0.8, selection=False)
    table = claims.ledger(["000"], results_dir=tmp_path if _results(tmp_path, records) else None)
    by_id = table.set_index("id")
    # every dataset 10 points above CART-D3 -> 9 datasets, at least the paper's 6
    assert by_id.loc["000-3", "verdict"] == "confirmed" and by_id.loc["000-3", "ours"] == 9
    assert by_id.loc["000-9", "verdict"] == "not tested"
    assert by_id.loc["000-6", "verdict"] == "not tested"         # no Table 6 run stored


def test_large_differences_carry_a_one_line_reason():
    quick, full = p000.get_profile("quick"), p000.get_profile("full")
    # within twice the tolerance (2 x 3 = 6 points): no reason
    assert p000.large_difference_reason("ttt", "ODT-depth2", -5.9, 3.0, full) == ""
    # our own reason (e.g. no tree found) comes first, then the data, then a baseline below the paper's
    assert p000.large_difference_reason("heart", "ODT-depth2", -30, 3.0, full, "ours: no tree found") == \
        "ours: no tree found"
    assert p000.large_difference_reason("heart", "ODT-depth3", -30, 3.0, full).startswith("SPECT heart")
    assert "rpart" in p000.large_difference_reason("mush", "CART-D3", -7, 3.0, full)
    assert "rpart" not in p000.large_difference_reason("student", "CART-D3", 6.5, 3.0, full)   # ours is higher
    assert p000.large_difference_reason("ttt", "ODT-depth2", -11.5, 5.0, quick).startswith("ours: 100 training rows")
    table = pd.DataFrame({"dataset": ["ttt", "bc"], "difference": [-11.5, 1.0],
                          "verdict": ["lower", "not comparable: ours: 1 ODT run(s) stopped at the time limit"]})
    assert list(p000.explain_differences(table, 5.0, quick, method="ODT")["reason"].str[:19]) == \
        ["ours: 100 training ", ""]
