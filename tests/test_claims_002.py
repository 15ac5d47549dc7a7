"""Paper 002's claims ledger: the TOML, the full profile's grid, and every compute function on hand-made stored
runs (expected numbers worked out by hand in the comments)."""
from __future__ import annotations

import pytest

from odtlib.experiments import claims
from odtlib.experiments import paper002 as p002
from odtlib.experiments.claims import StoredResults
from odtlib.experiments.store import config_key
from odtlib.experiments.stored import export_results, results_file

H, IRIS, BALANCE, WINE = "Blood Transfusion", "Iris", "Balance Scale", "Wine"
BL1, BL10, OCTH = "SOCT-benders-last-1", "SOCT-benders-last-10", "OCT-H"


def _record(config: dict, metrics: dict, runtime: float | None = None) -> dict:
    return {"key": config_key(config), "status": "ok", "config": config, "metrics": metrics,
            "solve_result": None if runtime is None else {"runtime": runtime, "status": "ok"}}


def _direct_record(config: dict) -> dict:
    """SOCT-benders-last-1/-10: proved in 10 s, but Blood Transfusion (unproved at 120 s, gap 0.1, accuracy 0.8).
    OCT-H: proved in 20 s, but Blood Transfusion (as above) and Iris at depth 2 (no tree)."""
    unproved = config["dataset"] == H
    no_tree = config["method"] == OCTH and config["dataset"] == IRIS and config["depth"] == 2
    if no_tree:
        metrics = {"incumbent": 0.0, "bound": None, "proved": False, "relative_gap": None,
                   "in_sample_accuracy": 0.0, "no_incumbent": True}
        return _record(config, metrics)
    runtime = 120.0 if unproved else (20.0 if config["method"] == OCTH else 10.0)
    metrics = {"incumbent": 80.0 if unproved else 100.0, "bound": 88.0 if unproved else 100.0,
               "proved": not unproved, "relative_gap": 0.1 if unproved else 0.0,
               "in_sample_accuracy": 0.8 if unproved else 1.0, "no_incumbent": False}
    return _record(config, metrics, runtime)


def _cv_record(config: dict) -> dict:
    """Test accuracy: S-OCT 0.97 on Balance Scale, 0.98 on Wine, 0.9 elsewhere; OCT-H 0.9; FlowOCT 0.7; DL8.5 0.72
    (0.96 on Wine at depth 4). S-OCT trains to 1.0 (0.8 on Blood Transfusion) and proves every refit, but fold 0
    of Iris at depth 2 (train 0.97, unproved)."""
    dataset, method, depth = config["dataset"], config["method"], config["depth"]
    test = {BL1: {BALANCE: 0.97, WINE: 0.98}.get(dataset, 0.9), OCTH: 0.9, "FlowOCT": 0.7,
            "DL8.5": 0.96 if (dataset, depth) == (WINE, 4) else 0.72}.get(method, 0.8)
    weak = (method, dataset, depth, config["fold"]) == (BL1, IRIS, 2, 0)
    train = 0.8 if dataset == H else (0.97 if weak else 1.0)
    return _record(config, {"train_accuracy": train, "test_accuracy": test, "fit_time": 1.0, "proved": not weak})


@pytest.fixture
def stored(tmp_path):
    """Hand-made full-profile runs: the direct comparison of SOCT-benders-last-1, -last-10 and OCT-H, and the
    comprehensive comparison of SOCT-benders-last-1, OCT-H, FlowOCT and DL8.5 (CART and the other variants not
    stored)."""
    direct = [c for c in p002.full_configs("direct") if c["method"] in (BL1, BL10, OCTH)]
    cv = [c for c in p002.full_configs("comprehensive") if c["method"] in (BL1, OCTH, "FlowOCT", "DL8.5")]
    export_results([_direct_record(c) for c in direct], results_file(tmp_path, "002", "direct"))
    export_results([_cv_record(c) for c in cv], results_file(tmp_path, "002", "comprehensive"))
    return StoredResults("002", results_dir=tmp_path)


def test_claims_file_parses_with_6_to_12_claims_and_known_compute_functions():
    declared = claims.claims("002")
    assert 6 <= len(declared) <= 12
    functions = claims.metrics("002")
    for claim in declared:
        assert "not_tested" in claim or claim["compute"] in functions, claim["id"]
    assert len({claim["id"] for claim in declared}) == len(declared)


def test_full_profile_covers_every_dataset_depth_and_method_of_the_claims():
    full = p002.get_profile("full")
    direct, cv, tuning = (p002.full_configs(name) for name in ("direct", "comprehensive", "tuning"))
    # 10 datasets x 3 depths x (5 S-OCT variants + OCT-H); x 3 folds x 5 methods; 5 tuning sets x 3 x 5 variants
    assert (len(direct), len(cv), len(tuning)) == (180, 450, 75) == (full.n_direct, full.n_cv, full.n_tuning)
    # the recheck: Banknote Authentication at depth 4, the three claim methods, at the paper's 600 s
    assert [(c["dataset"], c["depth"], c["method"], c["time_limit"]) for c in p002.full_configs("recheck")] == [
        ("Banknote Authentication", 4, m, 600.0) for m in (BL1, OCTH, BL10)]
    assert {(c["dataset"], c["depth"], c["method"]) for c in direct} == {
        (d, depth, m) for d in p002.DATASETS for depth in (2, 3, 4) for m in p002.mip_methods()}
    assert {c["method"] for c in cv} == {BL1, OCTH, "FlowOCT", "DL8.5", "CART"}
    assert {(c["dataset"], c["depth"], c["fold"]) for c in cv} == {
        (d, depth, f) for d in p002.DATASETS for depth in (2, 3, 4) for f in range(3)}
    assert {c["solver"] for c in direct + cv + tuning} == {"scip"}
    assert [c["method"] for c in direct[:3]] == [BL1, OCTH, BL10]        # the claims' runs first
    named = {claim["args"].get(k) for claim in claims.claims("002") for k in ("method", "baseline")
             if "args" in claim}
    assert named - {None} <= {c["method"] for c in direct} | {c["method"] for c in cv}


def test_direct_comparison_claims_on_hand_made_runs(stored):
    # 27 of 30 proved (all but Blood Transfusion's 3), a lower bound
    proved = p002.proved_count(stored, BL1)
    assert (proved.value, proved.n, proved.bound) == (27, 30, "lower")
    # unproved at 600 s: S-OCT (27 x 10 + 3 x 600) / 30 = 69; OCT-H (26 x 20 + 4 x 600) / 30 = 97.33;
    # 100 (1 - 69 / 97.33) = 29.11
    assert p002.time_reduction(stored, BL1).value == pytest.approx(100 * (1 - 69 / (2920 / 30)))
    assert p002.time_reduction(stored, BL1).value == pytest.approx(29.11, abs=0.01)
    # depth 3: S-OCT (9 x 10 + 600) / 10 = 69, OCT-H (9 x 20 + 600) / 10 = 78: 100 (1 - 69 / 78) = 11.54
    assert p002.time_reduction(stored, BL1, depths=[3]).value == pytest.approx(11.538, abs=0.001)
    # gap: 3 runs at 0.1, 27 at 0 -> 0.01, an upper bound
    gap = p002.gap_mean(stored, BL1)
    assert (gap.value, gap.bound) == (pytest.approx(0.01), "upper")
    # accuracy: S-OCT (27 + 3 x 0.8) / 30 = 0.98; OCT-H (26 + 2.4 + 0, no tree) / 30 = 0.94667: +3.33 points
    assert p002.accuracy_difference(stored, BL1).value == pytest.approx(100 * (0.98 - 28.4 / 30))


def test_notes_say_which_instances_decide_the_difference(stored):
    # depth 2: both prove 8 (10 s against 20 s: ratio 0.5); Blood Transfusion stops both; only S-OCT proves Iris
    # (OCT-H has no tree: 120 s counted at 600), which moves the difference of means by (10 - 600) / 10 = -59 s
    note = p002.time_reduction(stored, BL1, depths=[2]).note
    assert "both prove 8, SOCT-benders-last-1 faster on 8 (median time ratio 0.50)" in note
    assert "neither proves Blood Transfusion (depth 2)" in note
    assert "only SOCT-benders-last-1 proves Iris (depth 2), which moves the difference of means by -59.0 s" in note
    assert "only OCT-H proves" not in note
    # accuracy: the 26 instances both prove tie; Blood Transfusion ties (0.8 each), so only Iris depth 2 is apart:
    # 1.0 against 0 (no tree) = +100 points
    note = p002.accuracy_difference(stored, BL1).note
    assert "both prove 26 instances, where the accuracies differ by at most 0.0 points" in note
    assert note.endswith("on the others: Iris (depth 2) +100.0")


def test_comprehensive_claims_on_hand_made_runs(stored):
    # (24 x 0.9 + 3 x 0.97 + 3 x 0.98) / 30 = 0.915
    assert p002.mean_test_accuracy(stored, BL1).value == pytest.approx(0.915)
    assert p002.test_accuracy_difference(stored, BL1).value == pytest.approx(1.5)      # 0.915 - 0.9
    # Balance Scale: 0.97 - max(0.7, 0.72) = 0.25 at every depth
    assert p002.multivariate_margin(stored, BALANCE, BL1).value == pytest.approx(25)
    # Wine: 0.26, 0.26, 0.98 - 0.96 = 0.02 -> mean 0.18
    assert p002.multivariate_margin(stored, WINE, BL1).value == pytest.approx(18)
    # 27 cells without Blood Transfusion; Iris depth 2 averages (0.97 + 1 + 1) / 3 = 0.99 < 0.995 -> 26, and its
    # unproved refit makes the count a lower bound
    perfect = p002.perfect_training_cells(stored, BL1)
    assert (perfect.value, perfect.n, perfect.bound) == (26, 27, "lower")


def test_partial_runs_say_how_many_are_stored(tmp_path):
    direct = [c for c in p002.full_configs("direct") if c["method"] in (BL1, OCTH)][:10]
    export_results([_direct_record(c) for c in direct], results_file(tmp_path, "002", "direct"))
    results = StoredResults("002", results_dir=tmp_path)
    # the first 10 configs: depth 2, datasets A-E, S-OCT and OCT-H in turn: 5 S-OCT runs, all proved
    proved = p002.proved_count(results, BL1)
    assert (proved.value, proved.n) == (5, 5) and "5 of 30 runs stored" in proved.note
    timed = p002.time_reduction(results, BL1)
    assert timed.value is None and timed.reason == "full run: 10 of 60 runs stored"
    assert p002.mean_test_accuracy(results, BL1).value is None


def test_ledger_reads_the_stored_runs(stored):
    table = claims.ledger(["002"], results_dir=stored.results_dir).set_index("id")
    assert table.loc["002-1", "verdict"] == "confirmed"            # 27 >= 27, a lower bound on the right side
    assert table.loc["002-2", "verdict"] == "refuted"              # 29.1 < 46.9 - 15
    assert table.loc["002-12", "verdict"] == "not tested"
    assert len(table) == len(claims.claims("002"))


def test_no_tree_and_large_differences_explain_themselves():
    import pandas as pd

    runs = pd.DataFrame([
        {"dataset": IRIS, "depth": 2, "method": OCTH, "status": "ok", "no_incumbent": True, "proved": False,
         "incumbent": 0.0, "bound": None, "relative_gap": None, "in_sample_accuracy": 0.0, "solve_status": "x"},
        {"dataset": IRIS, "depth": 2, "method": BL1, "status": "ok", "no_incumbent": False, "proved": True,
         "incumbent": 149.0, "bound": 149.0, "relative_gap": 0.0, "in_sample_accuracy": 149 / 150,
         "solve_status": "optimal", "solve_runtime": 3.0}])
    table = p002.direct_table(p002.direct_frame(runs, time_limit=120)).set_index("method")
    assert table.loc[OCTH, "gap"] == table.loc[OCTH, "in_sample_accuracy"] == "no tree found"
    assert table.loc[BL1, "incumbent"] == 149.0
    assert p002.large_difference_reason(OCTH, 0.05, tolerance=0.03) == ""               # within 2 x 0.03
    assert "Interpretable AI" in p002.large_difference_reason(OCTH, -0.07, tolerance=0.03)
    assert p002.large_difference_reason(BL1, 0.1, 0.03, "ours: 1 of 3 refits not proved") == \
        "ours: 1 of 3 refits not proved"


def test_accuracy_gap_from_stopped_refits_is_partly(tmp_path):
    """OCT-H stopped on every Balance Scale fold with a poor tree (test 0.5): over every fold S-OCT leads, over the
    folds both prove the two nearly agree."""
    def record(config):
        made = _cv_record(config)
        if config["method"] == OCTH and config["dataset"] == BALANCE:
            made["metrics"] |= {"test_accuracy": 0.5, "proved": False}
        return made

    cv = [c for c in p002.full_configs("comprehensive") if c["method"] in (BL1, OCTH)]
    export_results([record(c) for c in cv], results_file(tmp_path, "002", "comprehensive"))
    results = StoredResults("002", results_dir=tmp_path)
    # every fold: S-OCT 0.915 (as above); OCT-H (27 x 0.9 + 3 x 0.5) / 30 = 0.86 -> +5.5 points
    # both proved: 90 folds less Balance's 9 and Iris depth 2 fold 0 = 80, S-OCT ahead only on Wine's 9 by 8 points
    # -> 72 / 80 = +0.9 points
    assert p002.proved_fold_difference(results, BL1, OCTH) == (pytest.approx(0.9), 80, 90)
    measured = p002.test_accuracy_difference(results, BL1, agree_within=2)
    assert measured.value == pytest.approx(5.5) and measured.verdict == "partly"
    assert "+0.9 points" in measured.note
    # without agree_within, or when the proved folds disagree too, the ledger's rule decides as before
    assert p002.test_accuracy_difference(results, BL1).verdict is None
    assert p002.test_accuracy_difference(results, BL1, agree_within=0.5).verdict is None


def test_rechecks_at_600_s_replace_the_short_runs(stored):
    """Banknote Authentication at depth 4 re-solved at 600 s: S-OCT-last-1 proves it in 200 s, OCT-H in 50 s,
    S-OCT-last-10 stops at the limit (in the 120 s runs all three proved it, in 10 s and 20 s)."""
    def rerun(config):
        proved = config["method"] != BL10
        runtime = {BL1: 200.0, OCTH: 50.0, BL10: 600.0}[config["method"]]
        metrics = {"incumbent": 100.0 if proved else 90.0, "bound": 100.0, "proved": proved,
                   "relative_gap": 0.0 if proved else 0.1, "in_sample_accuracy": 1.0 if proved else 0.9,
                   "no_incumbent": False}
        return _record(config, metrics, runtime)

    export_results([rerun(c) for c in p002.full_configs("recheck")], results_file(stored.results_dir, "002", "recheck"))
    results = StoredResults("002", results_dir=stored.results_dir)
    assert p002.proved_count(results, BL1).value == 27                  # proved either way
    proved = p002.proved_count(results, BL10)
    assert proved.value == 26 and "SOCT-benders-last-10 on Banknote Authentication (depth 4) not proved" in proved.note
    # depth 4 with the reruns: S-OCT (8 x 10 + 200 + 600) / 10 = 88, OCT-H (8 x 20 + 50 + 600) / 10 = 81
    timed = p002.time_reduction(results, BL1, depths=[4])
    assert timed.value == pytest.approx(100 * (1 - 88 / 81))
    assert "SOCT-benders-last-1 on Banknote Authentication (depth 4) proved in 200 s" in timed.note
    # accuracy over all 30: S-OCT unchanged (0.98); OCT-H unchanged: the reruns of proved runs tie
    assert p002.accuracy_difference(results, BL1).value == pytest.approx(100 * (0.98 - 28.4 / 30))


def test_refits_rechecked_at_600_s_replace_the_stopped_refits(tmp_path):
    """S-OCT trains to 1.0 on every outer fold but the 11 refits the full profile rechecks (0.9, stopped at the
    limit, with the β the profile lists). The reruns prove 10 of them at 1.0; the one of Parkinsons at depth 4
    was rerun with another β, so it replaces nothing."""
    refits = {(d, depth, fold): beta for d, depth, fold, beta in p002.get_profile("full").refit_recheck}
    assert len(refits) == 11 and H not in {d for d, _, _ in refits}
    assert all(c["time_limit"] == 600.0 and c["method"] == BL1 for c in p002.full_configs("refit_recheck"))

    def short(config):
        stopped = (config["dataset"], config["depth"], config["fold"]) in refits
        beta = refits.get((config["dataset"], config["depth"], config["fold"]), 2)
        return _record(config, {"train_accuracy": 0.9 if stopped else 1.0, "test_accuracy": 0.9, "fit_time": 1.0,
                                "proved": not stopped, "selected": f"max_splits={beta}"})

    def rerun(config):
        beta = config["max_splits"] + (config["dataset"] == "Parkinsons" and config["depth"] == 4)
        return _record(config, {"train_accuracy": 1.0, "test_accuracy": 0.9, "fit_time": 30.0, "proved": True,
                                "selected": f"max_splits={beta}"})

    cv = [c for c in p002.full_configs("comprehensive") if c["method"] == BL1]
    export_results([short(c) for c in cv], results_file(tmp_path, "002", "comprehensive"))
    before = p002.perfect_training_cells(StoredResults("002", results_dir=tmp_path), BL1)
    # the 11 refits sit in 9 cells (Banknote 2-4, Ionosphere 2-3, Iris 3, Parkinsons 2-4): 27 - 9 = 18 at 1.00,
    # a lower bound
    assert (before.value, before.bound) == (18, "lower")
    export_results([rerun(c) for c in p002.full_configs("refit_recheck")],
                   results_file(tmp_path, "002", "refit_recheck"))
    after = p002.perfect_training_cells(StoredResults("002", results_dir=tmp_path), BL1)
    # only Parkinsons at depth 4 stays below: (1.0 + 0.9 + 1.0) / 3 < 0.995
    assert (after.value, after.bound) == (26, "lower")
    assert "10 stopped refit(s) solved again at 600 s; 1 refit(s) still stopped" in after.note
