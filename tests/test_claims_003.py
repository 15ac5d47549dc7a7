"""Paper 003's claims ledger: the TOML, its compute functions on hand-built stored results, the full profile's
coverage of the claims, and the notebook helpers that explain verdicts (reasons, "no tree found", the open
instances, the published optima)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from odtlib.experiments import claims
from odtlib.experiments import paper003 as p003
from odtlib.experiments.claims import StoredResults
from odtlib.experiments.store import config_key
from odtlib.experiments.stored import export_results, results_file

ACC, BASE, NO_PBCP = "Accelerated BendOCT", "BendOCT", "Accelerated (No PBCP)"


def record(dataset, encoding, depth, lam, method, status="optimal", runtime=1.0, objective=0.9, extra_config=None):
    """One stored run of the full grid (30 s, SCIP, one thread) as `run_one` would record it."""
    config = extra_config or {"dataset": dataset, "encoding": encoding, "depth": depth, "leaf_penalty": lam,
                              "method": method, "solver": "scip", "threads": 1, "time_limit": 30}
    solve = None if extra_config else {"status": status, "objective": objective, "bound": 1.0,
                                       "gap": 0.0 if status == "optimal" else 0.1, "runtime": runtime, "nodes": 1}
    return {"key": config_key(config), "status": "ok", "config": config, "metrics": {}, "solve_result": solve,
            "tree": None, "extra": {}, "error": None, "timing": {"started": "2026-01-01T00:00:00"},
            "versions": {}, "host": {}}


def stored(tmp_path, experiment, records) -> StoredResults:
    export_results(records, results_file(tmp_path, "003", experiment))
    return StoredResults("003", results_dir=tmp_path)


def sample_records(bendoct_proves, accelerated_proves, no_pbcp_proves=lambda d, e, depth, lam: False):
    """Every run of the λ sample (216 instances x 3 methods), proved or not by the given rules."""
    rules = {BASE: bendoct_proves, ACC: accelerated_proves, NO_PBCP: no_pbcp_proves}
    records = []
    for dataset, encoding in p003.DATASETS:
        for depth in p003.DEPTHS:
            for lam in p003.FULL_SAMPLE_LAMBDAS:
                for method, proves in rules.items():
                    status = "optimal" if proves(dataset, encoding, depth, lam) else "time_limit"
                    records.append(record(dataset, encoding, depth, lam, method, status))
    return records


# ------------------------------------------------------------------------------------- the claims file
def test_full_profile_covers_what_the_claims_name():
    full = p003.get_profile("full")
    frame = pd.DataFrame(list(p003.grid(full)))
    # Accelerated BendOCT on 54 x 2 x 15 = 1620 instances; BendOCT and No PBCP on 54 x 2 x 2 = 216 each
    assert len(frame) == full.n_runs == 1620 + 2 * 216
    assert frame.groupby("method").size().to_dict() == {ACC: 1620, BASE: 216, NO_PBCP: 216}
    for claim in claims.claims("003"):
        args = claim.get("args", {})
        for method in (args.get("method"), args.get("baseline")):
            assert method is None or method in full.methods, claim["id"]
        assert set(args.get("datasets", [])) <= set(frame["dataset"]), claim["id"]
    for method in full.methods:   # every dataset-encoding and depth is present for every method
        runs = frame[frame["method"] == method]
        assert len(runs[["dataset", "encoding"]].drop_duplicates()) == 54 and set(runs["depth"]) == {3, 4}
    # the sample runs first: the first 648 runs are the 216 sample instances of all three methods
    assert set(frame["leaf_penalty"].iloc[:648]) == set(p003.FULL_SAMPLE_LAMBDAS)


def test_ledger_without_stored_results_says_what_is_missing(tmp_path):
    ledger = claims.ledger(["003"], results_dir=tmp_path)
    assert len(ledger) == len(claims.claims("003")) and (ledger["verdict"] == "not tested").all()
    assert ledger["reasoning"].str.startswith("No stored results of experiment").all()


# ------------------------------------------------------------------------------------ compute functions
def test_solved_count_and_within_are_lower_bounds_on_a_partial_run(tmp_path):
    results = stored(tmp_path, "instances", [
        record("monk1", "onehot", 3, 0.01, ACC, "optimal", runtime=5.0),
        record("monk1", "onehot", 3, 0.02, ACC, "optimal", runtime=20.0),
        record("monk1", "onehot", 3, 0.04, ACC, "time_limit", runtime=30.0),
        record("segmentation", "QB-5", 4, 0.08, ACC, "optimal", runtime=3.0),
        record("biodeg", "QT-5", 3, 0.08, ACC, "time_limit", runtime=30.0),
        record("monk1", "onehot", 3, 0.04, BASE, "optimal", runtime=2.0),
    ])
    functions = claims.metrics("003")
    count = functions["solved_count"](results, method=ACC)
    # 3 of the 5 Accelerated runs are proved (the BendOCT run does not count), 5 of 1620 stored
    assert (count.value, count.n, count.bound) == (3, 5, "lower")
    assert "5 of 1620 runs of Accelerated BendOCT stored" in count.note
    three = functions["solved_count"](results, method=ACC, datasets=["segmentation", "spambase", "biodeg"])
    # segmentation 1 proved, biodeg 0, spambase no run; 2 of the 3 x 60 = 180 runs stored
    assert (three.value, three.n) == (1, 2) and "2 of 180" in three.note
    assert "segmentation 1, spambase 0, biodeg 0" in three.note
    fast = functions["solved_within"](results, method=ACC, seconds=12.0)
    # runtimes 5 and 3 s are within 12 s, the 20 s proof is not; the run is partial: a lower bound, and the
    # 1615 runs not stored could add at most one each
    assert (fast.value, fast.bound, fast.ceiling) == (2, "lower", 2 + 1620 - 5)


def test_ratios_wait_for_the_whole_sample_then_divide(tmp_path):
    records = sample_records(bendoct_proves=lambda d, e, depth, lam: depth == 3,
                             accelerated_proves=lambda d, e, depth, lam: True,
                             no_pbcp_proves=lambda d, e, depth, lam: depth == 3 or lam == 0.04)
    results = stored(tmp_path, "instances", records)
    functions = claims.metrics("003")
    # Accelerated proves all 216, BendOCT the 108 at depth 3: 216 / 108 = 2.0
    ratio = functions["solved_ratio"](results, method=ACC, baseline=BASE)
    assert (ratio.value, ratio.n) == (2.0, 216)
    # No PBCP proves depth 3 (108) plus depth 4 at λ = 0.04 (54): 162 / 216 = 0.75 and 162 / 108 = 1.5
    assert functions["solved_ratio"](results, method=NO_PBCP, baseline=ACC).value == 0.75
    assert functions["solved_ratio"](results, method=NO_PBCP, baseline=BASE).value == 1.5
    # Accelerated proves at least as many as BendOCT on every one of the 33 datasets
    assert functions["datasets_not_worse"](results, method=ACC, baseline=BASE).value == 33

    partial = stored(tmp_path, "instances", records[3:])   # one instance's three runs missing
    missing = functions["solved_ratio"](partial, method=ACC, baseline=BASE)
    assert missing.value is None and "215 of 216" in missing.reason


def test_datasets_not_worse_names_the_datasets_that_are_worse(tmp_path):
    # BendOCT proves everything on monk1 and wine, Accelerated everything except monk1 and wine at depth 4
    records = sample_records(bendoct_proves=lambda d, e, depth, lam: d in ("monk1", "wine"),
                             accelerated_proves=lambda d, e, depth, lam: d not in ("monk1", "wine") or depth == 3)
    measured = claims.metrics("003")["datasets_not_worse"](stored(tmp_path, "instances", records))
    assert measured.value == 31 and "fewer on: monk1, wine" in measured.note


def test_the_lost_instances_are_solved_again_technique_by_technique(tmp_path):
    # as above: Accelerated loses monk1 (one-hot) and wine (QB-5, QT-5) at depth 4, both sample λ: 6 instances
    records = sample_records(bendoct_proves=lambda d, e, depth, lam: d in ("monk1", "wine"),
                             accelerated_proves=lambda d, e, depth, lam: d not in ("monk1", "wine") or depth == 3)
    results = stored(tmp_path, "instances", records)
    lost = p003.lost_instances(p003.stored_instances(results))
    assert len(lost) == 6 and set(lost["depth"]) == {4} and set(lost["dataset"]) == {"monk1", "wine"}
    # every stored run stopped after one node, so the six unproved Accelerated runs all stalled at the root
    assert p003.root_stalls(p003.stored_instances(results)).to_dict() == {"wine": 4, "monk1": 2}
    configs = p003.lost_instance_configs(p003.get_profile("full"), p003.stored_instances(results))
    assert len(configs) == 12 and {c["method"] for c in configs} == {"All - EQP", "EQP"}
    assert p003.lost_instance_configs(p003.get_profile("quick"), p003.stored_instances(results)) == []
    # without EQP every lost instance is proved (2 s); EQP alone proves none
    reruns = [record(c["dataset"], c["encoding"], c["depth"], c["leaf_penalty"], c["method"],
                     "optimal" if c["method"] == "All - EQP" else "time_limit", runtime=2.0) for c in configs]
    export_results(reruns, results_file(tmp_path, "003", "lost_instances"))
    measured = claims.metrics("003")["datasets_not_worse"](StoredResults("003", results_dir=tmp_path))
    assert ("of the 6 instances BendOCT proves and it does not, All - EQP proves 6 of 6 (2.0-2.0 s), EQP proves "
            "0 of 6") in measured.note


def test_datasets_without_eqp_sets_counts_datasets_not_encodings(tmp_path):
    counts = {("soybean-small", "onehot"): 0, ("wine", "QB-5"): 0, ("wine", "QT-5"): 0, ("iris", "QB-5"): 0}
    records = [record(None, None, None, None, None, extra_config={"check": "eqp_sets", "dataset": d,
                                                                  "encoding": e, "max_split": 2})
               for d, e in p003.DATASETS]
    for rec in records:
        rec["metrics"] = {"n_eqp_sets": counts.get((rec["config"]["dataset"], rec["config"]["encoding"]), 7)}
    function = claims.metrics("003")["datasets_without_eqp_sets"]
    # soybean-small (one-hot) and wine (both encodings) have none; iris has sets in QT-5: 2 datasets
    measured = function(stored(tmp_path, "eqp_sets", records))
    assert measured.value == 2 and measured.note.endswith("soybean-small, wine")
    assert function(stored(tmp_path, "eqp_sets", records[:-1])).value is None   # 53 of 54 counted


def test_open_instances_closed_counts_checked_optima(tmp_path):
    # three open instances (ILPD QB-5, depth 4, λ = 1e-4, 2e-4, 4e-4) and one that is not open (monk1)
    runs = [record("ILPD", "QB-5", 4, 0.0001, ACC, "optimal", objective=0.79),
            record("ILPD", "QB-5", 4, 0.0002, ACC, "optimal", objective=0.78),
            record("ILPD", "QB-5", 4, 0.0004, ACC, "time_limit"),
            record("monk1", "onehot", 3, 0.01, ACC, "optimal")]
    checks = []
    for lam, value in ((0.0001, 0.79), (0.0002, 0.70)):
        check = record(None, None, None, None, None, extra_config={
            "check": "streed", "dataset": "ILPD", "encoding": "QB-5", "depth": 4, "leaf_penalty": lam,
            "time_limit": 600})
        check["metrics"] = {"streed_objective": value, "streed_proved": True, "streed_time": 1.0}
        checks.append(check)
    stored(tmp_path, "instances", runs)
    results = stored(tmp_path, "streed", checks)
    measured = claims.metrics("003")["open_instances_closed"](results)
    # two closed; STreeD agrees on 1e-4 and contradicts 2e-4, which is left out: 1
    assert (measured.value, measured.n, measured.bound) == (1, 3, "lower")
    assert "2 proved optimal" in measured.note and "1 agrees" in measured.note and "1 differs" in measured.note
    verdict, _ = claims.judge(next(c for c in claims.claims("003") if c["compute"] == "open_instances_closed"),
                              measured)
    assert verdict == "refuted"     # a lower bound above 0 settles "at most 0"


def test_the_open_instance_nearest_to_a_proof_is_solved_again_for_the_hour(tmp_path):
    # three open instances (ILPD QB-5, depth 4) stopped at 30 s with gaps of 5, 1 and 3 %, and monk1 (not open)
    # with a smaller gap still: the 1 % one (λ = 2e-4) is solved again
    runs = []
    for dataset, encoding, depth, lam, gap in (("ILPD", "QB-5", 4, 0.0001, 0.05), ("ILPD", "QB-5", 4, 0.0002, 0.01),
                                               ("ILPD", "QB-5", 4, 0.0004, 0.03), ("monk1", "onehot", 3, 0.01, 0.001)):
        runs.append(record(dataset, encoding, depth, lam, ACC, "time_limit"))
        runs[-1]["solve_result"]["gap"] = gap
    results = stored(tmp_path, "instances", runs)
    configs = p003.open_recheck_configs(p003.get_profile("full"), p003.stored_instances(results))
    assert configs == [{"dataset": "ILPD", "encoding": "QB-5", "depth": 4, "leaf_penalty": 0.0002, "method": ACC,
                        "solver": "scip", "time_limit": 3600.0, "threads": 1}]
    assert p003.open_recheck_configs(p003.get_profile("quick"), p003.stored_instances(results)) == []

    def recheck(status, gap):
        row = record("ILPD", "QB-5", 4, 0.0002, ACC, status, runtime=1800.0)
        row["solve_result"]["gap"] = gap
        return row | {"config": configs[0], "key": config_key(configs[0])}

    compute = claims.metrics("003")["open_instances_closed"]
    # stopped again, at 0.5 %: nothing closed, and the note says what the hour did
    export_results([recheck("time_limit", 0.005)], results_file(tmp_path, "003", "open_recheck"))
    measured = compute(StoredResults("003", results_dir=tmp_path))
    assert (measured.value, measured.bound) == (0, "lower")
    assert ("or within 3600 s for the 1 solved again, of which 0 proved: ILPD QB-5 depth 4 λ = 0.0002 "
            "(time_limit, gap 0.50 %)") in measured.note
    # proved within the hour: one closed instance, which refutes "at most 0"
    export_results([recheck("optimal", 0.0)], results_file(tmp_path, "003", "open_recheck"))
    measured = compute(StoredResults("003", results_dir=tmp_path))
    assert measured.value == 1 and "of which 1 proved" in measured.note
    claim = next(c for c in claims.claims("003") if c["compute"] == "open_instances_closed")
    assert claims.judge(claim, measured)[0] == "refuted"


def test_streed_on_every_open_instance_is_summarised_and_a_finished_search_wins(tmp_path):
    # ILPD QB-5 depth 4: λ = 1e-4 our incumbent 0.79 (not proved) and STreeD 0.79 at 60 s; λ = 2e-4 ours 0.70 and
    # STreeD 0.78 at 60 s; λ = 4e-4 no run of ours, STreeD stopped at 60 s (0.5) but finished at 600 s (0.77)
    runs = [record("ILPD", "QB-5", 4, 0.0001, ACC, "time_limit", objective=0.79),
            record("ILPD", "QB-5", 4, 0.0002, ACC, "time_limit", objective=0.70)]

    def check(lam, value, proved, limit, seconds):
        row = record(None, None, None, None, None, extra_config={
            "check": "streed", "dataset": "ILPD", "encoding": "QB-5", "depth": 4, "leaf_penalty": lam,
            "time_limit": limit})
        row["metrics"] = {"streed_objective": value, "streed_proved": proved, "streed_time": seconds}
        return row

    checks = [check(0.0001, 0.79, True, 60, 2.0), check(0.0002, 0.78, True, 60, 4.0),
              check(0.0004, 0.5, False, 60, 60.0), check(0.0004, 0.77, True, 600, 90.0)]
    stored(tmp_path, "instances", runs)
    results = stored(tmp_path, "streed", checks)
    table = p003.open_instances_table(p003.stored_instances(results), results.frame("streed"))
    ilpd = table[(table["dataset"] == "ILPD") & (table["encoding"] == "QB-5") & (table["depth"] == 4)]
    ilpd = ilpd.set_index("leaf_penalty")
    assert ilpd.loc[0.0004, "streed"] == pytest.approx(0.77) and ilpd.loc[0.0004, "streed_proved"]
    assert ilpd.loc[0.0002, "incumbent"] == pytest.approx(0.70)
    # STreeD proves 3 (median of 2, 4 and 90 s: 4.0); two have runs of ours, one reaches STreeD's optimum
    summary = p003.open_streed_summary(table)
    assert summary == ("STreeD has run on 3 of the 407 open instances so far and proves 3, in a median 4.0 s "
                       "(largest 90 s); on the 2 of them with a stored run of ours, our best tree reaches STreeD's "
                       "optimum on 1")
    measured = claims.metrics("003")["open_instances_closed"](results)
    assert measured.value == 0 and summary in measured.note


# ------------------------------------------------------------------------------- tables that explain
def test_open_instances_are_the_407_in_our_names():
    frame = p003.open_instances()
    assert len(frame) == p003.OPEN_INSTANCES == 407
    assert set(frame["encoding"]) == {"onehot", "QB-5", "QT-5"} and "car-evaluation" in set(frame["dataset"])
    grid = {(d, e) for d, e in p003.DATASETS}
    assert set(map(tuple, frame[["dataset", "encoding"]].to_numpy())) <= grid
    assert set(frame["depth"]) <= {3, 4} and set(frame["leaf_penalty"]) <= set(p003.LAMBDAS)


def test_published_check_and_no_tree_found():
    frame = pd.DataFrame([
        {"dataset": "monk3", "encoding": "onehot", "depth": 3, "leaf_penalty": 0.01, "method": ACC, "status": "ok",
         "solve_status": "optimal", "solve_objective": 0.904426, "solve_runtime": 1.0, "solve_gap": 0.0},
        {"dataset": "monk3", "encoding": "onehot", "depth": 3, "leaf_penalty": 0.01, "method": BASE, "status": "ok",
         "solve_status": "time_limit", "solve_objective": 0.95, "solve_runtime": 30.0, "solve_gap": 0.1},
        {"dataset": "monk1", "encoding": "onehot", "depth": 3, "leaf_penalty": 0.01, "method": BASE, "status": "ok",
         "solve_status": "time_limit", "solve_objective": np.nan, "solve_runtime": 30.0, "solve_gap": np.nan},
        {"dataset": "iris", "encoding": "QB-5", "depth": 3, "leaf_penalty": 0.04, "method": ACC, "status": "ok",
         "solve_status": "optimal", "solve_objective": 0.70, "solve_runtime": 1.0, "solve_gap": 0.0},
    ])
    instances = p003.instance_frame(frame)
    assert p003.no_tree_found(instances).tolist() == [False, False, True, False]
    check = p003.published_check(instances).set_index("method", append=True)["check"].tolist()
    # monk3 D3 λ = 0.01: published 0.904426 (proved: agrees; an incumbent of 0.95 exceeds it); monk1 D3
    # λ = 0.01: no tree; iris QB-5 D3 λ = 0.04: the authors' 0.74, ours proved 0.70 differs
    assert check == ["agrees", "above the published optimum", "no tree found", "differs"]


def test_compare_study_reason_only_beyond_twice_the_tolerance():
    full = p003.get_profile("full")
    row = {"method": BASE, "verdict": "lower", "paper_pct_solved": 100.0, "ours_pct_solved": 50.0}
    reason = p003.difference_reason(row, full, tolerance=10)
    # -50 points: BendOCT runs only the λ sample, and 30 s is shorter than the paper's hour
    assert reason.startswith("-50 points") and "λ ∈ {0.001, 0.04}" in reason and "lower bound" in reason
    assert p003.difference_reason({**row, "ours_pct_solved": 85.0}, full, tolerance=10) == ""   # 15 <= 2 x 10
    higher = p003.difference_reason({**row, "method": ACC, "verdict": "higher", "paper_pct_solved": 40.0,
                                     "ours_pct_solved": 70.0, "ours_n_no_tree": 2}, full, tolerance=10)
    assert higher.startswith("+30 points") and "λ" not in higher and "2 run(s): no tree found" in higher
