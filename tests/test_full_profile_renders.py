"""Every paper notebook renders its `full` profile from the committed results/full/ (no recompute): the
tables, figures and claims ledger a reader sees come from data that grows run by run, so a table that assumes
a complete grid (every variant, every dataset) fails here first, not in a reader's run."""
from __future__ import annotations

import pytest

from notebook_checks import run_profile


@pytest.mark.parametrize("paper", ["000", "001", "002", "003", "004"])
def test_full_profile_renders_from_the_stored_results(paper, tmp_path, monkeypatch):
    run_profile(paper, "full", tmp_path, monkeypatch)
