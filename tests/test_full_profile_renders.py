"""Every paper notebook renders its `full` profile from the committed results/full/ (no recompute): the
tables, figures and claims ledger a reader sees come from data that grows run by run, so a table that assumes
a complete grid (every variant, every dataset) fails here first, not in a reader's run."""
from __future__ import annotations

import pytest

from notebook_checks import NOTEBOOKS
from paths import data_mirror


@pytest.mark.parametrize("paper", ["000", "001", "002", "003", "004"])
def test_full_profile_renders_from_the_stored_results(paper, tmp_path, monkeypatch):
    from odtlib.experiments import reproduce

    monkeypatch.setenv("MPLBACKEND", "Agg")
    if data_mirror().is_dir():
        monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(data_mirror()))
    [run] = reproduce(papers=[paper], profile="full", output_dir=tmp_path, notebooks_dir=NOTEBOOKS)
    assert run.status == "ok", run.error
