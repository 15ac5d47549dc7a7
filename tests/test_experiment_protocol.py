"""The paper-experiment protocol (odtlib/experiments/protocol.py): every paper module declares it, and every
committed result file has the run function that re-runs it (what ``odtlib verify`` calls)."""
from __future__ import annotations

import pytest
from paths import REPO

from odtlib.experiments.protocol import PAPERS, PaperExperiments, paper_module, run_function
from odtlib.experiments.stored import RESULTS_SUFFIX


@pytest.mark.parametrize("paper", PAPERS)
def test_every_paper_module_declares_the_protocol(paper):
    module = paper_module(paper)
    assert isinstance(module, PaperExperiments)
    assert module.PAPER == paper
    assert {"smoke", "quick", "full"} <= set(module.PROFILES)
    assert all(callable(run) for run in module.EXPERIMENTS.values())


@pytest.mark.parametrize("paper", PAPERS)
def test_every_committed_result_file_has_its_run_function(paper):
    files = sorted((REPO / "results" / "full" / f"paper{paper}").glob(f"*{RESULTS_SUFFIX}"))
    for file in files:
        experiment = file.name[: -len(RESULTS_SUFFIX)]
        assert callable(run_function(paper, experiment)), file


def test_an_unknown_paper_or_experiment_is_named_in_the_error():
    with pytest.raises(ValueError, match="paper must be one of"):
        paper_module("009")
    with pytest.raises(ValueError, match="no experiment 'tables'.*'final'"):
        run_function("001", "tables")


def test_paper_estimator_resolves_a_method_through_the_estimators_paper_methods():
    from odtlib.experiments.protocol import paper_estimator
    from odtlib.models import OCT, OCTH, SOCT, BendersOCT, FlowOCT

    octh = paper_estimator("OCT-H", (SOCT, OCTH), depth=2)
    assert type(octh) is OCTH and octh.repaired_start is False and octh.depth == 2   # OCTH.PAPER_METHODS
    assert type(paper_estimator("Benders", (OCT, FlowOCT, BendersOCT), depth=1)) is BendersOCT
    with pytest.raises(ValueError, match=r"\['OCT', 'FlowOCT', 'Benders'\], got 'CART'"):
        paper_estimator("CART", (OCT, FlowOCT, BendersOCT))
