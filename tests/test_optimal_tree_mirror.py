"""OptimalTreeClassifier on every dataset of the offline mirror, as loaded (issue 32: "works on every mirror
dataset with mixed columns").

Each dataset's default variant goes in raw: numeric, categorical and binary columns, NaN kept
(``missing="category"``). Trees of depth 1 and 2 are checked against two bounds derived without odtlib's
search: each is at least as accurate on the training rows as the majority class and as scikit-learn's CART tree
of the same depth on the same scaled columns (CART's splits are among the thresholds the search ranges over, so
an optimal tree cannot do worse). Needs ODTLIB_DATA_MIRROR (a folder laid out like the shared uci/).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from odtlib.data import list_datasets, load_dataset
from odtlib.models import OptimalTreeClassifier

MIRROR = Path(os.environ.get("ODTLIB_DATA_MIRROR", "/nonexistent"))
pytestmark = pytest.mark.skipif(not (MIRROR / "MANIFEST.csv").is_file(),
                                reason="needs ODTLIB_DATA_MIRROR with MANIFEST.csv")


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path_factory, monkeypatch):
    """Copies from the mirror go to one temporary cache per test session, never to the network."""
    monkeypatch.setenv("ODTLIB_DATA_DIR", str(tmp_path_factory.getbasetemp() / "odtlib-cache"))
    monkeypatch.setenv("ODTLIB_UCI_BASE_URL", "http://127.0.0.1:9")


@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("slug", list_datasets())
def test_optimal_tree_on_the_raw_table(slug, depth):
    data = load_dataset(slug)
    model = OptimalTreeClassifier(depth=depth, missing="category").fit(data.X, data.y)
    assert model.path_.estimator == "ThresholdTreeSearch"
    assert model.solve_result_.status == "optimal"
    accuracy = model.score(data.X, data.y)

    y = data.y.to_numpy()
    majority = np.unique(y, return_counts=True)[1].max() / len(y)
    frame = model._fill_missing(model._frame(data.X, reset=False))     # the columns the engine saw
    encoded = model.pipeline_[0].transform(frame).to_numpy(dtype=float)
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(encoded, y)
    assert accuracy >= max(majority, cart.score(encoded, y)) - 1e-12
    assert model.tree_.depth <= depth
