"""Paper 004's notebook: committed clean, and its smoke profile runs headlessly and reports every table."""
from __future__ import annotations

import pandas as pd
import pytest
from notebook_checks import NOTEBOOKS, assert_commit_clean, run_smoke

from odtlib.experiments import ResultStore, run_grid
from odtlib.experiments import paper004 as p004

NOTEBOOK = NOTEBOOKS / "paper004_svm1odt.ipynb"


def test_notebook_is_commit_clean():
    assert_commit_clean(NOTEBOOK)


@pytest.mark.timeout(240)
def test_smoke_profile_runs_and_reports(tmp_path, monkeypatch):
    report_dir, names = run_smoke("004", tmp_path, monkeypatch)
    for name in ("selection_picture", "datasets", "table2", "claims_depth2", "fig1", "table6", "selected_share",
                 "fig2", "verdicts"):
        assert name in names
    assert (report_dir / "selection_picture.png").stat().st_size > 0
    table2 = pd.read_csv(report_dir / "table2.csv")
    assert set(table2["method"]) == {"S1O", "CART", "OCT-H", "Fair"}
    assert table2["verdict"].str.startswith("not comparable").all()     # smoke numbers are never compared
    assert table2["ours"].notna().all()

    smoke = p004.get_profile("smoke")
    medium = p004.results_of(ResultStore(tmp_path / "paper004" / "results" / "medium"), p004.medium_grid(smoke))
    selection_store = ResultStore(tmp_path / "paper004" / "results" / "selection")
    selection = p004.results_of(selection_store, p004.selection_grid(smoke))
    assert len(medium) == smoke.n_medium and len(selection) == smoke.n_selection
    assert (medium["status"] == "ok").all() and (selection["status"] == "ok").all()
    kept = selection[selection["method"] == "S1O-DS"].iloc[0]
    assert 0 < kept["n_selected"] < kept["n_train"] == smoke.selection_rows
    summary = run_grid(p004.run_selection, p004.selection_grid(smoke), selection_store, progress=False)
    assert (summary.skipped, summary.ran) == (smoke.n_selection, 0)                 # a rerun skips every run
