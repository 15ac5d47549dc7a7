"""paper_dataset for the multivariate papers 002 (S-OCT) and 004 (SVM1-ODT).

Expected counts come from the papers' dataset tables, transcribed in ``../shared/papers/tables``
(002: paper002_datasets.csv; 004: the n, d and class columns of paper004_table1..8), and, for
paper 002's five tuning datasets (no table in the paper), from the UCI documentation of the files
the authors used.
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import shuffle

from odtlib.data import load_dataset, paper_dataset
from odtlib.data.errors import DatasetNotFoundError
from odtlib.data.multivariate import (
    LabelChangeThresholdCoder,
    LinearQuantileThresholdCoder,
    OpenUnitScaler,
)
from odtlib.data.papers import list_paper_datasets, paper_attributes, paper_dataset_spec
from odtlib.encoders import ClassChangeThresholdEncoder

MIRROR = os.environ.get("ODTLIB_DATA_MIRROR")
TABLES = Path(__file__).resolve().parents[2] / "shared" / "papers" / "tables"
needs_mirror = pytest.mark.skipif(not MIRROR, reason="ODTLIB_DATA_MIRROR is not set (CI sets it)")
needs_tables = pytest.mark.skipif(not TABLES.is_dir(), reason=f"no paper tables at {TABLES}")

P002 = list_paper_datasets("002")
P002_TEST = list_paper_datasets("002", role="test")
# every dataset of Tables 1-8; the ones the mirror lacks (Spectf-heart) are skipped with the registry's reason
P004 = [pytest.param(n, marks=pytest.mark.skip(reason=" ".join(paper_dataset_spec("004", n).unavailable.split())))
            if paper_dataset_spec("004", n).unavailable else n for n in list_paper_datasets("004")]


@lru_cache(maxsize=None)
def _encoded(paper, name, encoding=None):
    """paper_dataset, computed once per case (the tests do not modify it)."""
    return paper_dataset(paper, name, encoding)


# ------------------------------------------------------------------------- paper 002: the table
def _table002() -> pd.DataFrame:
    return pd.read_csv(TABLES / "paper002_datasets.csv").set_index("dataset")


@needs_tables
def test_paper002_names_and_letters_are_the_table():
    table = _table002()
    assert P002_TEST == list(table.index)
    for name, row in table.iterrows():
        assert paper_dataset_spec("002", row["dataset_id"]).name == name
    assert list_paper_datasets("002", role="tuning") == [
        "Hayes-Roth", "Tic-Tac-Toe Endgame", "Climate Model Crashes", "Glass Identification",
        "Image Segmentation"]


@needs_tables
@pytest.mark.parametrize("name", P002_TEST)
def test_paper002_recorded_counts_equal_the_table(name):
    row, spec = _table002().loc[name], paper_dataset_spec("002", name)
    assert (spec.rows, spec.features["minmax"], spec.classes) == (
        row["n_samples"], row["n_features"], row["n_classes"])
    for encoding, column in [("flowoct", "flowoct_binary_features_avg"),
                             ("dl85", "dl85_binary_features_avg")]:
        expected = None if pd.isna(row[column]) else float(row[column])
        assert spec.fold_features.get(encoding) == expected


# ------------------------------------------------------------------------- paper 002: our data
TUNING_SHAPES = {  # UCI documentation of the files the tuning runs read (training files only)
    "Hayes-Roth": (132, 15, 3), "Tic-Tac-Toe Endgame": (958, 27, 2),
    "Climate Model Crashes": (540, 18, 2), "Glass Identification": (214, 9, 6),
    "Image Segmentation": (210, 19, 7),
}


@needs_mirror
@pytest.mark.parametrize("name", P002)
def test_paper002_minmax_shape_and_range(name):
    spec = paper_dataset_spec("002", name)
    X, y, groups = _encoded("002", name)
    assert X.shape == (spec.rows, spec.features["minmax"])
    assert y.nunique() == spec.classes
    if spec.role == "tuning":
        assert (*X.shape, y.nunique()) == TUNING_SHAPES[name]
    assert [c for g in groups for c in g.columns] == list(X.columns)
    numeric = [c for g in groups if g.kind == "numeric" for c in g.columns]
    one_hot = X.drop(columns=numeric).to_numpy()
    assert set(np.unique(one_hot)) <= {0, 1}
    # scaled on the full data to (1e-5, 0.99999), as S-OCT's experiments; a constant column
    # (ionosphere's second) is 1e-5, as with scikit-learn's MinMaxScaler
    for column in numeric:
        expected_max = 0.99999 if X[column].nunique() > 1 else 1e-5
        assert np.isclose(X[column].min(), 1e-5) and np.isclose(X[column].max(), expected_max)


@needs_mirror
@pytest.mark.parametrize("name", [n for n in P002_TEST if paper_dataset_spec("002", n).fold_features])
def test_paper002_baseline_encodings_match_the_tables_fold_averages(name):
    # the comprehensive comparison: shuffle(random_state=0), StratifiedKFold(3); the encoders are
    # fitted on each outer training fold. The table prints the mean number of binary features.
    spec = paper_dataset_spec("002", name)
    X, y = paper_attributes("002", name)
    X, y = shuffle(X, y, random_state=0)
    for encoding, expected in spec.fold_features.items():
        counts = [len(spec.encoder(encoding).fit(X.iloc[train], y.iloc[train]).get_feature_names_out())
                  for train, _ in StratifiedKFold(3).split(X, y)]
        assert round(np.mean(counts), 2) == expected, encoding


@needs_mirror
@pytest.mark.parametrize("encoding", ["flowoct", "dl85"])
def test_paper002_baseline_encodings_are_binary(encoding):
    X, y, groups = _encoded("002", "Blood Transfusion", encoding)
    assert len(X) == 748 and all(dtype.kind == "i" for dtype in X.dtypes)
    assert set(np.unique(X.to_numpy())) <= {0, 1}
    assert [c for g in groups for c in g.columns] == list(X.columns)
    if encoding == "flowoct":   # the first indicator of every column is x >= min: always 1
        assert all(X[g.columns[0]].all() for g in groups)


@needs_mirror
def test_paper002_data_choices():
    X, _, groups = _encoded("002", "B")                    # congress: all 435 rows, '?' a value
    assert len(X) == 435 and all(len(g.columns) == 3 for g in groups)
    assert all("?" in g.values for g in groups)
    X, y = paper_attributes("002", "Iris")                # scikit-learn's corrected copy
    uci = load_dataset("iris").X
    assert X.iloc[34].tolist() == [4.9, 3.1, 1.5, 0.2] and X.iloc[37].tolist() == [4.9, 3.6, 1.4, 0.1]
    assert (X.to_numpy() != uci.to_numpy()).any(axis=1).sum() == 2
    assert sorted(set(paper_attributes("002", "Wine")[1])) == [0, 1, 2]   # UCI classes 1-3, minus 1
    _, y = paper_attributes("002", "F")                   # WDBC: malignant (212 rows) = 0
    assert (y == 0).sum() == 212 and (y == 1).sum() == 357
    X, y = paper_attributes("002", "parkinsons")          # id column 'name' out, label 'status'
    assert "name" not in X.columns and y.name == "status"
    assert paper_attributes("002", "H")[0].shape == (748, 4)   # the header row is not a data row


@needs_mirror
def test_paper002_encoder_refits_inside_a_pipeline():
    spec = paper_dataset_spec("002", "Wine")
    X, y = paper_attributes("002", "Wine")
    scaler = clone(spec.encoder())                        # "minmax": an unfitted transformer
    assert isinstance(scaler, OpenUnitScaler)
    half = scaler.fit(X.iloc[:89], y.iloc[:89]).transform(X.iloc[89:])
    full = _encoded("002", "Wine")[0].iloc[89:]
    assert half.shape == full.shape and not np.allclose(half, full)


def test_linear_quantile_edges_are_numpys_default_percentiles():
    x = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, 10.0, 11.0, 50.0]})
    coder = LinearQuantileThresholdCoder().fit(x)
    edges = [0.0, 1.2, 2.4, 7.2, 10.8]   # linear interpolation at positions 0, 1.2, 2.4, 3.6, 4.8
    assert coder.groups_[0].values == pytest.approx(edges)
    averaged = np.percentile(x["x"], [0, 20, 40, 60, 80], method="averaged_inverted_cdf")
    assert not np.allclose(edges, averaged)   # scikit-learn >= 1.7's default would differ here
    assert coder.transform(x).sum(axis=0).tolist() == [7, 5, 4, 3, 2]


def test_label_change_thresholds_follow_the_sorted_labels():
    # values 1 (labels 0, 1) and 2 (label 1): the rows sorted by value then label are
    # (1,0) (1,1) (2,1): no change between 1 and 2, so no threshold; class-change (union) rule: one
    X = pd.DataFrame({"x": [1.0, 1.0, 2.0, 3.0]})
    y = pd.Series(["a", "b", "b", "a"])
    assert LabelChangeThresholdCoder().fit(X, y).groups_[0].values == [2.5]
    assert ClassChangeThresholdEncoder().fit(X, y).groups_[0].values == [1.5, 2.5]
    with pytest.raises(ValueError, match="needs the labels"):
        LabelChangeThresholdCoder().fit(X)


def test_paper002_encoding_names():
    spec = paper_dataset_spec("002", "Iris")
    assert spec.resolve_encoding(None) == "minmax" and spec.resolve_encoding("FlowOCT") == "flowoct"
    with pytest.raises(ValueError, match=r"choose encoding from \['minmax', 'flowoct', 'dl85'\]"):
        spec.resolve_encoding("QB-5")


# ------------------------------------------------------------------------- paper 004
def _table004() -> pd.DataFrame:
    frames = [pd.read_csv(TABLES / f"paper004_table{k}_{suffix}.csv")
              for k, suffix in [(1, "depth3_multiclass"), (2, "medium_depth2"), (3, "medium_depth2"),
                                (4, "medium_depth2"), (5, "medium_depth2_with_binoct"),
                                (6, "s1o_ds_medium_depth2"), (7, "large_depth2"), (8, "large_depth3")]]
    return pd.concat(frames)[["dataset", "n", "d", "n_classes"]].drop_duplicates()


@needs_tables
def test_paper004_every_table_dataset_is_recorded_with_its_counts():
    table = _table004()
    recorded = set()
    for _, row in table.iterrows():
        spec = paper_dataset_spec("004", row["dataset"])   # names or the tables' other spellings
        assert (spec.rows, spec.features["unit"], spec.classes) == (row["n"], row["d"], row["n_classes"])
        recorded.add(spec.name)
    assert recorded == set(list_paper_datasets("004"))


@needs_mirror
@pytest.mark.parametrize("name", P004)
def test_paper004_rows_attributes_and_scaling(name):
    # skin-segmentation (245,057 rows, 3 columns) loads and scales in well under a second
    spec = paper_dataset_spec("004", name)
    X, y, groups = _encoded("004", name)
    assert len(X) == len(y) == spec.rows and y.nunique() == spec.classes
    assert len(groups) == spec.encoded_features.get("unit", spec.features["unit"])  # attributes
    assert [c for g in groups for c in g.columns] == list(X.columns)
    values = X.to_numpy(dtype=float)
    assert values.min() >= 0 and values.max() <= 1 + 1e-12
    for group in groups:
        if group.kind == "numeric" and X[group.columns[0]].nunique() > 1:
            assert X[group.columns[0]].min() == 0 and X[group.columns[0]].max() == 1
        else:
            assert set(np.unique(X[group.columns].to_numpy())) <= {0, 1}


@needs_mirror
def test_paper004_groups_tell_the_categorical_attributes():
    _, _, groups = _encoded("004", "Monks-1")
    kinds = {g.name: (g.kind, len(g.columns)) for g in groups}
    assert kinds == {"a1": ("categorical", 3), "a2": ("categorical", 3), "a3": ("binary", 1),
                     "a4": ("categorical", 3), "a5": ("categorical", 4), "a6": ("binary", 1)}
    _, _, groups = _encoded("004", "Heart-disease")
    assert sorted(g.name for g in groups if g.kind == "categorical") == ["cp", "restecg", "slope", "thal"]
    assert all(g.kind == "numeric" for g in _encoded("004", "Iris")[2])


def test_paper004_missing_dataset_raises_a_clear_error():
    with pytest.raises(DatasetNotFoundError, match=r"(?s)Spectf-heart.*not in the data mirror"):
        paper_dataset("004", "Spectf-heart")


@needs_mirror
def test_registry_slugs_name_multivariate_datasets():
    assert paper_dataset_spec("004", "haberman").name == "survival"
    assert paper_dataset_spec("002", "breast-cancer-wisconsin-diagnostic").name == "Breast Cancer"
    assert paper_dataset("004", "echocardiogram")[0].shape == (61, 10)
