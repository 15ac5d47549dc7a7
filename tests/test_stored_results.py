"""Stored results of the full profile: CSV round trip, a notebook that renders from them, verification."""
import gzip

import pandas as pd
import pytest

from odtlib.experiments import paper001 as p001
from odtlib.experiments import paper003 as p003
from odtlib.experiments.report import ReportWriter
from odtlib.experiments.runner import run_one
from odtlib.experiments.store import ResultStore
from odtlib.experiments.stored import (
    export_results,
    import_results,
    read_records,
    read_results,
    results_file,
    stored_results_dir,
)
from odtlib.experiments.verify import finished_runs, incumbents_among, mismatches, verify


def _record(value: float, **config) -> dict:
    def run(_config):
        return {"metrics": {"train_accuracy": value}, "solve_result": {"status": "optimal", "objective": value,
                                                                         "bound": value, "gap": 0.0, "runtime": 0.5,
                                                                         "nodes": 3},
                "tree": {"kind": "leaf"}}
    return run_one(run, config)


def test_export_import_round_trip_keeps_every_record(tmp_path):
    records = [_record(0.75, dataset="b", depth=2, solver="scip"), _record(0.5, dataset="a", depth=3, solver="scip")]
    file = export_results(records, tmp_path / "paper003" / "x.csv.gz")
    assert read_records(file) == records[::-1]               # sorted by config: dataset "a" first
    store = ResultStore(tmp_path / "store")
    assert import_results(file, store) == 2
    assert import_results(file, store) == 0                  # already there: nothing rewritten
    assert store.get(records[0]["key"]) == records[0]


def test_the_csv_leaves_out_the_search_trace_and_a_repeated_extra(tmp_path):
    record = _record(0.75, dataset="a", depth=2, solver="scip")
    counters = {"callback_calls": {"lazy": 5}}
    record["solve_result"].update(trace=[[0.1, 0.5, 1.0], [0.4, 0.75, 0.75]], extra=counters)
    own = dict(record, key="other", extra={"mine": 1})
    repeated = dict(record, extra=dict(counters))
    stored = {r["key"]: r for r in read_records(export_results([repeated, own], tmp_path / "x.csv.gz"))}
    assert "trace" not in stored[record["key"]]["solve_result"]
    assert stored[record["key"]]["solve_result"]["extra"] == counters and stored[record["key"]]["extra"] == {}
    assert stored["other"]["extra"] == {"mine": 1}           # a run's own extra stays
    assert {k: v for k, v in stored[record["key"]].items() if k not in ("solve_result", "extra")} == \
        {k: v for k, v in record.items() if k not in ("solve_result", "extra")}


def test_csv_has_the_readable_columns_and_provenance(tmp_path):
    file = export_results([_record(0.75, dataset="a", depth=2, solver="scip", time_limit=60, threads=1)],
                          tmp_path / "x.csv.gz")
    frame = pd.read_csv(file)
    for column in ("key", "status", "dataset", "depth", "time_limit", "threads", "solve_status", "objective", "bound",
                   "gap", "runtime", "nodes", "odtlib_version", "git_commit", "solver_version", "cpu_count",
                   "load_average", "date", "tree_json"):
        assert column in frame, column
    assert frame.loc[0, "objective"] == 0.75 and frame.loc[0, "nodes"] == 3
    assert frame.loc[0, "solver_version"] == frame.loc[0, "solver_version"]   # not NaN: pyscipopt is installed


def test_the_same_runs_give_the_same_bytes(tmp_path):
    records = [_record(0.75, dataset="a"), _record(0.5, dataset="b")]
    first = gzip.decompress(export_results(records, tmp_path / "1.csv.gz").read_bytes())
    second = gzip.decompress(export_results(records[::-1], tmp_path / "2.csv.gz").read_bytes())
    assert first == second


def test_stored_results_dir_only_for_stored_profiles():
    assert stored_results_dir("quick") is None
    assert stored_results_dir("full", root="/x") == stored_results_dir("full", root="/x")
    assert str(stored_results_dir("full", root="/x")).endswith("results/full")


SMOKE_CONFIGS = list(p003.grid(p003.PROFILES["smoke"]))[:2]   # soybean-small, depth 3: a fraction of a second


def test_full_profile_renders_without_computing_and_recompute_fills_the_gaps(tmp_path):
    results = tmp_path / "results"
    export_results([run_one(p003.run, SMOKE_CONFIGS[0])], results_file(results, "003", "instances"))
    reader = ReportWriter(tmp_path / "out", "003", profile="full", results_dir=results)
    summary = reader.run_grid(p003.run, SMOKE_CONFIGS, "instances", progress=False)
    assert (summary.ran, summary.skipped) == (0, 1)          # renders: the missing config is not run
    assert reader.coverage().to_dict("records") == [{"experiment": "instances", "configs": 2, "stored": 1,
                                                     "failed": 0}]
    assert len(reader.results("instances", SMOKE_CONFIGS)) == 1

    writer = ReportWriter(tmp_path / "out2", "003", profile="full", recompute=True, results_dir=results)
    summary = writer.run_grid(p003.run, SMOKE_CONFIGS, "instances", progress=False)
    assert (summary.ran, summary.skipped) == (1, 1)
    assert len(read_results(results_file(results, "003", "instances"))) == 2   # exported back


def test_quick_profile_computes_and_stores_nothing_in_results(tmp_path):
    writer = ReportWriter(tmp_path / "out", "003", profile="quick")
    assert not writer.stored and writer.computes
    summary = writer.run_grid(p003.run, SMOKE_CONFIGS[:1], "instances", progress=False)
    assert summary.ran == 1


def test_recompute_must_be_known(tmp_path):
    with pytest.raises(ValueError, match="recompute"):
        ReportWriter(tmp_path, "003", profile="full", recompute="yes")


def test_verify_confirms_true_optima_and_flags_a_tampered_one(tmp_path):
    results = tmp_path / "results"
    records = [run_one(p003.run, config) for config in SMOKE_CONFIGS]
    export_results(records, results_file(results, "003", "instances"))
    checked = verify(results, sample=5)
    assert list(checked["check"]) == ["ok", "ok"]

    tampered = records[0] | {"solve_result": records[0]["solve_result"] | {"objective": 0.5}}
    export_results([tampered, records[1]], results_file(results, "003", "instances"))
    checked = verify(results, sample=5)
    bad = mismatches(checked)
    assert len(bad) == 1
    # the fresh solve reaches the true optimum, and the stored tree reaches it too: neither is 0.5
    assert "objective differs" in bad.iloc[0]["check"]
    assert "stored tree does not reach" in bad.iloc[0]["check"]


def test_every_committed_results_file_names_an_experiment_its_paper_can_rerun():
    """`odtlib verify` re-runs a stored record with its experiment's run function: a results file whose
    experiment the paper module does not declare in EXPERIMENTS could not be verified."""
    from odtlib.experiments.protocol import paper_module

    files = sorted(stored_results_dir("full").glob("paper*/*.csv.gz"))
    assert files, "no committed results under results/full"
    for file in files:
        paper, experiment = file.parent.name.removeprefix("paper"), file.name.removesuffix(".csv.gz")
        assert experiment in paper_module(paper).EXPERIMENTS, f"{file}: no run function for {experiment!r}"


P001_SMOKE = next(iter(p001.tuning_grid(p001.get_profile("smoke"))))   # monk3, 20 training rows, depth 2


def _stopped_at_limit(record: dict, objective: float, bound: float) -> dict:
    """``record`` as if its solve had stopped at its limit with this incumbent objective and bound."""
    solve = record["solve_result"] | {"status": "time_limit", "objective": objective, "bound": bound}
    return record | {"solve_result": solve}


def test_verify_reads_paper_001s_trees_and_checks_time_limited_runs_against_incumbent_and_bound(tmp_path):
    record = run_one(p001.run, P001_SMOKE)
    assert record["solve_result"]["status"] == "optimal" and P001_SMOKE["split_penalty"] == 0
    # objective (1.1) at λ = 0: the points the estimator's own predictions get right
    correct = round(record["metrics"]["train_accuracy"] * record["metrics"]["n_train"])
    results = tmp_path / "results"
    file = results_file(results, "001", "tuning")
    export_results([record], file)
    checked = verify(results, sample=5)
    assert list(checked["check"]) == ["ok"] and checked.loc[0, "tree_objective"] == correct

    incumbents_and_bounds = {"below": (correct - 1, correct + 2), "within": (correct, correct),
                             "beaten": (correct, correct - 1), "above": (correct + 1, correct + 2)}
    export_results([_stopped_at_limit(record | {"key": key}, *numbers)
                    for key, numbers in incumbents_and_bounds.items()], file)
    checked = verify(results, sample=5, incumbents=10).set_index("key")
    assert set(checked["kind"]) == {"incumbent"}              # nothing proved is left to re-solve
    assert checked.loc["below", "check"] == "ok"              # a tree may beat its incumbent's count
    assert checked.loc["within", "check"] == "ok"
    assert checked.loc["beaten", "check"] == "stored tree beats the stored bound"
    assert checked.loc["above", "check"] == "stored tree does not reach the stored objective"
    assert set(mismatches(checked.reset_index())["key"]) == {"beaten", "above"}


def test_incumbents_are_only_checked_where_the_paper_reads_its_objective_off_a_tree(tmp_path):
    record = _stopped_at_limit(_record(0.75, dataset="a", depth=2), 0.75, 0.9)
    export_results([record], results_file(tmp_path, "002", "x"))
    assert incumbents_among("002", finished_runs(tmp_path, "002")) == []
    assert verify(tmp_path, incumbents=5).empty


@pytest.mark.parametrize("paper", ["000", "001", "002", "003", "004"])
def test_a_sample_of_the_committed_results_verifies(paper):
    """CI's sample of `odtlib verify results/full`: one quick stored optimum per paper is solved again, and the
    trees of 20 stored time-limited runs are checked against their incumbents and bounds (papers 001, 003)."""
    checked = verify(stored_results_dir("full"), papers=[paper], sample=1, max_runtime=1.0, incumbents=20)
    assert len(checked) == 1 + (20 if paper in ("001", "003") else 0)
    assert mismatches(checked).empty, mismatches(checked).to_string()
