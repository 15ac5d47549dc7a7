"""The formulation guide: committed clean, and its smoke profile runs through `odtlib reproduce` with every
model that `odtlib.models` has and the CART/STreeD baselines, on all three kinds of data."""
from __future__ import annotations

import json

import pandas as pd
import pytest
from notebook_checks import NOTEBOOKS, assert_commit_clean
from paths import data_mirror

import odtlib.models

NOTEBOOK = NOTEBOOKS / "which_formulation.ipynb"


def test_notebook_is_commit_clean():
    assert_commit_clean(NOTEBOOK)


@pytest.mark.timeout(240)
def test_smoke_profile_runs_and_reports(tmp_path, monkeypatch):
    from odtlib.experiments import reproduce

    monkeypatch.setenv("MPLBACKEND", "Agg")
    if data_mirror().is_dir():
        monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(data_mirror()))
    [run] = reproduce(papers=["which_formulation"], profile="smoke", output_dir=tmp_path, notebooks_dir=NOTEBOOKS)
    assert run.status == "ok", run.error
    assert run.page == tmp_path / "notebooks" / "which_formulation.html"
    report_dir = tmp_path / "which_formulation" / "report"
    names = [item["name"] for item in json.loads((report_dir / "summary.json").read_text())["items"]]
    assert "results" in names and "decision" in names
    table = pd.read_csv(report_dir / "results.csv")
    models = {name for name in ("FlowOCT", "BendersOCT", "RegularizedBendOCT", "CategoricalODT", "SOCT", "OCTH",
                                "SVM1ODT") if hasattr(odtlib.models, name)}
    assert models | {"CART", "STreeD"} <= set(table["method"])
    assert set(table["kind"]) == {"categorical", "numerical", "mixed"}
    mips = table[table["method"].isin(models)]
    assert (mips["proved"] == mips["fits"]).all()                 # smoke instances are proved optimal
    # every exact univariate method reaches the same training accuracy as STreeD on the same encoding
    for dataset, group in table.groupby("dataset"):
        exact = group.set_index("method")["train_acc"]
        for method in ("FlowOCT", "BendersOCT"):
            assert exact[method] == pytest.approx(exact["STreeD"]), (dataset, method)
    assert "which_formulation" in (tmp_path / "report.md").read_text()
