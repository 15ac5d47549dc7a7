"""The claims ledger's verdict rules (odtlib.experiments.claims.judge) and its declared claims files."""
import pytest

from odtlib.experiments.claims import (PAPERS, VERDICTS, Measured, _check_claim, claims, judge, settled_by_ceiling,
                                      summary)

CLAIM = {"id": "x-1", "statement": "A solves at least 100 instances", "source": "Table 1", "experiment": "e",
         "metric": "count", "compute": "f", "paper_value": 100, "tolerance": 5, "direction": "at_least"}


@pytest.mark.parametrize("ours, bound, verdict", [
    (96, None, "confirmed"),         # 96 >= 100 - 5
    (94, None, "refuted"),           # 94 < 95
    (120, "lower", "confirmed"),     # a lower bound already above the claim settles it
    (90, "lower", "not tested"),     # a lower bound below the claim settles nothing
    (90, "upper", "refuted"),        # even the most we could reach is below the claim
    (120, "upper", "not tested"),    # an upper bound above the claim settles nothing
])
def test_at_least_claims_and_bounds(ours, bound, verdict):
    got, reasoning = judge(CLAIM, Measured(ours, bound=bound))
    assert got == verdict
    assert reasoning.endswith(".") and "100" in reasoning


@pytest.mark.parametrize("ours, verdict", [(10.0, "confirmed"), (13.0, "confirmed"), (13.5, "refuted"),
                                           (6.0, "refuted")])
def test_within_claims(ours, verdict):
    claim = CLAIM | {"direction": "within", "paper_value": 10.0, "tolerance": 3.0}
    assert judge(claim, Measured(ours))[0] == verdict


@pytest.mark.parametrize("ceiling, verdict", [
    (94, "refuted"),       # even if every missing run counted, 94 < 100 - 5
    (95, "not tested"),    # the missing runs could still reach the tolerance
    (None, "not tested"),  # no ceiling: a lower bound below the claim settles nothing
])
def test_a_ceiling_below_the_claim_settles_a_partial_count(ceiling, verdict):
    measured = Measured(60, bound="lower", ceiling=ceiling)
    got, reasoning = judge(CLAIM, measured)
    assert got == verdict
    assert settled_by_ceiling(CLAIM, measured) == (verdict == "refuted")
    if verdict == "refuted":
        assert "at most" in reasoning and "94" in reasoning


def test_at_most_claims():
    claim = CLAIM | {"direction": "at_most", "paper_value": 60, "tolerance": 0}
    assert judge(claim, Measured(55))[0] == "confirmed"
    assert judge(claim, Measured(61))[0] == "refuted"
    assert judge(claim, Measured(70, bound="upper"))[0] == "not tested"


def test_no_value_is_not_tested_with_the_reason():
    verdict, reasoning = judge(CLAIM, Measured(None, reason="full run: 10 of 200 runs stored"))
    assert verdict == "not tested" and "10 of 200" in reasoning


def test_a_compute_function_may_decide_partly():
    verdict, reasoning = judge(CLAIM, Measured(3, verdict="partly", reason="holds at depth 2, not at depth 3"))
    assert verdict == "partly" and "depth 2" in reasoning
    with pytest.raises(ValueError, match="verdict"):
        judge(CLAIM, Measured(3, verdict="maybe"))


def test_claims_are_checked_for_their_fields():
    with pytest.raises(ValueError, match="missing"):
        _check_claim("999", {"id": "a"})
    with pytest.raises(ValueError, match="unknown"):
        _check_claim("999", CLAIM | {"colour": "red"})
    with pytest.raises(ValueError, match="direction"):
        _check_claim("999", CLAIM | {"direction": "above"})
    _check_claim("999", {k: CLAIM[k] for k in ("id", "statement", "source", "experiment", "metric")}
                 | {"not_tested": "needs heloc, which is not public"})


def test_summary_counts_every_verdict_and_the_provisional_ones():
    import pandas as pd
    frame = pd.DataFrame({"paper": ["000", "000", "001"], "verdict": ["confirmed", "refuted", "confirmed"],
                          "provisional": [True, False, False]})
    table = summary(frame).set_index("paper")
    assert list(table.columns) == [*VERDICTS, "of which provisional", "claims"]
    assert table.loc["000", "claims"] == 2 and table.loc["001", "confirmed"] == 1
    assert table.loc["000", "of which provisional"] == 1 and table.loc["001", "of which provisional"] == 0


@pytest.mark.parametrize(("note", "reason", "missing"), [
    ("70 of 225 runs stored", "", True), ("225 of 225 runs stored", "", False),
    ("bc 3.1x; 6 of 6 runs stored", "", False), ("", "full run: 1,099 of 1,120 runs of the full grid stored", True),
    ("8 of 8 runs stored; 2 of 5 runs stopped at the limit", "", False), ("no coverage stated", "", False)])
def test_a_verdict_is_provisional_while_the_stated_coverage_misses_runs(note, reason, missing):
    from odtlib.experiments.claims import runs_missing

    assert runs_missing(Measured(1.0, note=note, reason=reason)) is missing


@pytest.mark.parametrize("paper", PAPERS)
def test_every_paper_declares_6_to_12_claims_whose_compute_functions_exist(paper):
    from odtlib.experiments.claims import metrics

    declared = claims(paper)
    assert 6 <= len(declared) <= 12
    assert len({claim["id"] for claim in declared}) == len(declared)
    functions = metrics(paper)
    for claim in declared:
        assert "not_tested" in claim or claim["compute"] in functions, claim["id"]


def test_the_batch_report_opens_with_the_notebooks_claims(tmp_path):
    import pandas as pd

    from odtlib.experiments.batch import NotebookRun, write_report
    from odtlib.experiments.report import ReportWriter

    report = ReportWriter(tmp_path, paper="950")
    ledger = pd.DataFrame({"paper": ["950"], "id": ["950-1"], "claim": ["A beats B"], "source": ["Table 1"],
                           "paper_value": [10.0], "ours": [9.5], "unit": ["points"], "verdict": ["confirmed"],
                           "reasoning": ["Ours 9.5 points against 10."]})
    report.table("claims", ledger, "the ledger")
    notebook = tmp_path / "paper950_fake.ipynb"
    write_report([NotebookRun("950", notebook, notebook, "ok", 1.0)], tmp_path, {"profile": "full"})
    md = (tmp_path / "report.md").read_text()
    assert md.index("## Claims ledger") < md.index("## Notebooks")
    assert "1 confirmed" in md and md.count("A beats B") == 1     # not repeated in the notebook's section
    assert "<h2>Claims ledger</h2>" in (tmp_path / "report.html").read_text()


def test_the_readme_summary_is_the_current_ledger():
    """The README's claims table is generated (odtlib claims --readme README.md): it must match the stored
    results, so a commit that adds results refreshes it."""
    from pathlib import Path

    from odtlib.experiments.claims import README_BEGIN, README_END, readme_summary

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme.split(README_BEGIN, 1)[1].split(README_END, 1)[0].strip()
    assert block == readme_summary(), "run: odtlib claims --readme README.md"


def test_run_time_sums_the_wall_time_of_every_stored_run(tmp_path):
    from odtlib.experiments.claims import run_time
    from odtlib.experiments.stored import export_results, results_file

    def record(key, seconds):
        return {"key": key, "status": "ok", "config": {"n": key}, "metrics": {}, "timing": {"wall_time": seconds}}

    # two experiments: 1800 s + 3600 s in one file, 1800 s in the other -> 7200 s = 2 CPU-hours over 3 runs
    export_results([record("a", 1800.0), record("b", 3600.0)], results_file(tmp_path, "002", "direct"))
    export_results([record("c", 1800.0)], results_file(tmp_path, "002", "comprehensive"))
    total = run_time("002", tmp_path)
    assert (total.runs, total.cpu_hours) == (3, pytest.approx(2.0))
    assert "2.0 CPU-hours over 3 runs" in total.text("002")
    empty = run_time("004", tmp_path)                      # nothing stored for that paper
    assert (empty.runs, empty.cpu_hours) == (0, 0.0)


def test_readme_summary_adds_the_line_of_each_paper_module_that_has_one(monkeypatch, tmp_path):
    from odtlib.experiments import claims as claims_module
    from odtlib.experiments import paper001

    monkeypatch.setattr(paper001, "readme_note", lambda results: "paper 001's own line", raising=False)
    text = claims_module.readme_summary(tmp_path)          # nothing stored there
    assert "\n\npaper 001's own line" in text
    assert "Paper 003's open instances (no published run proved them): full run: none of the 407" in text
