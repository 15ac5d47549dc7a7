"""paper_dataset reproduces the binarised data of papers 001 and 003 (000 below; 002 and 004 in
test_paper_datasets_multivariate.py).

Two independent references:
* the papers' dataset tables (001 Table 1, 003 Table A.1), carried into ``paper_datasets.toml``
  and checked here against the transcriptions in ``../shared/papers/tables`` when present;
* the authors' own encoded files (StrongTree ``DataSets/*_enc.csv`` for 001, accel-OCT
  ``Datasets/*_enc.csv`` for 003), kept in the data mirror under ``_paper_processed/``.
  Our matrix must equal theirs up to the order of the columns, row for row, and our labels must
  map one-to-one onto theirs.
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from odtlib.data import paper_dataset
from odtlib.data.papers import list_paper_datasets, paper_dataset_spec
from odtlib.data.errors import DatasetNotFoundError

MIRROR = os.environ.get("ODTLIB_DATA_MIRROR")
TABLES = Path(__file__).resolve().parents[2] / "shared" / "papers" / "tables"
needs_mirror = pytest.mark.skipif(
    not MIRROR, reason="ODTLIB_DATA_MIRROR is not set: the raw UCI files and the authors' encoded "
    "files live in the data mirror (CI sets it)"
)
needs_tables = pytest.mark.skipif(
    not TABLES.is_dir(), reason=f"paper table transcriptions not found at {TABLES}"
)

CASES = [
    (paper, name, encoding)
    for paper in ("001", "003")
    for name in list_paper_datasets(paper)
    for encoding in paper_dataset_spec(paper, name).encodings
]
IDS = [f"{p}-{n}-{e}" for p, n, e in CASES]


@lru_cache(maxsize=None)
def _encoded(paper, name, encoding):
    """paper_dataset, computed once per case for the tests below (they do not modify it)."""
    return paper_dataset(paper, name, encoding)


# ------------------------------------------------------------------------- the recorded counts
def _table(paper: str) -> pd.DataFrame:
    file = {"001": "paper001_table1_datasets.csv", "003": "paper003_tableA1_datasets.csv"}[paper]
    return pd.read_csv(TABLES / file).set_index("dataset")


@needs_tables
@pytest.mark.parametrize("paper", ["001", "003"])
def test_names_are_the_papers_table(paper):
    assert sorted(list_paper_datasets(paper)) == sorted(_table(paper).index)


@needs_tables
@pytest.mark.parametrize("paper, name, encoding", CASES, ids=IDS)
def test_recorded_counts_equal_the_paper_table(paper, name, encoding):
    spec = paper_dataset_spec(paper, name)
    row = _table(paper).loc[name]
    column = {"001": {"onehot": "n_binary_features"},
              "003": {"onehot": "n_binary_features_categorical_only",
                      "QB-5": "n_binary_features_QB5", "QT-5": "n_binary_features_QT5"}}[paper][encoding]
    assert spec.rows == row["n_samples"]
    assert spec.classes == row["n_classes"]
    assert spec.features[encoding] == int(row[column])
    if paper == "003":
        assert (spec.n_categorical, spec.n_numerical) == (
            row["n_categorical_features"], row["n_numerical_features"])


# ------------------------------------------------------------------------- our data
@needs_mirror
@pytest.mark.parametrize("paper, name, encoding", CASES, ids=IDS)
def test_paper_dataset_counts_and_groups(paper, name, encoding):
    spec = paper_dataset_spec(paper, name)
    X, y, groups = _encoded(paper, name, encoding)
    expected_features = spec.encoded_features.get(encoding, spec.features[encoding])
    assert X.shape == (spec.rows, expected_features)
    assert y.nunique() == spec.classes and len(y) == spec.rows
    assert set(np.unique(X.to_numpy())) <= {0, 1}
    assert all(dtype.kind == "i" for dtype in X.dtypes)
    assert [c for g in groups for c in g.columns] == list(X.columns)
    if spec.n_numerical is not None:  # 003 Table A.1: attributes by kind (constant ones dropped)
        numeric = [g for g in groups if g.kind == "ordinal" or g.columns[0].startswith(f"{g.name}>")]
        assert (len(groups) - len(numeric), len(numeric)) == (spec.n_categorical, spec.n_numerical)


def _canonical_columns(matrix: np.ndarray) -> list[tuple]:
    return sorted(map(tuple, matrix.T.tolist()))


@needs_mirror
@pytest.mark.parametrize("paper, name, encoding", CASES, ids=IDS)
def test_equals_the_authors_encoded_file(paper, name, encoding):
    spec = paper_dataset_spec(paper, name)
    reference = Path(MIRROR) / "_paper_processed" / spec.reference[encoding]
    theirs = pd.read_csv(reference)
    X, y, _ = _encoded(paper, name, encoding)
    assert X.shape == (len(theirs), theirs.shape[1] - 1)
    assert _canonical_columns(X.to_numpy()) == _canonical_columns(theirs.iloc[:, :-1].to_numpy())
    # labels: a bijection between our labels and their integer codes, row for row
    pairs = pd.crosstab(y.to_numpy(), theirs["target"].to_numpy())
    assert ((pairs > 0).sum(axis=1) == 1).all() and ((pairs > 0).sum(axis=0) == 1).all()


# ------------------------------------------------------------------------- documented deviations
def test_car_evaluation_follows_the_authors_files():
    # Both authors' car_evaluation.csv files recode 'safety' with med and high merged (value 1)
    # and low = 0; their one-hot files therefore have 19 columns. Paper 003's Table A.1 prints 19;
    # paper 001's Table 1 prints 20. We follow the files (the data the authors trained on).
    assert paper_dataset_spec("001", "car_evaluation").features["onehot"] == 20
    assert paper_dataset_spec("001", "car_evaluation").encoded_features == {"onehot": 19}
    assert paper_dataset_spec("003", "car-evaluation").features["onehot"] == 19


@needs_mirror
def test_two_valued_attributes_keep_the_papers_indicator():
    # 001 (StrongTree, R factors) keeps the indicator of the first level, 003 (accel-OCT) the
    # second: house-votes-84 'n' vs 'y'.
    X1, _, g1 = paper_dataset("001", "house-votes-84")
    X3, _, g3 = paper_dataset("003", "house-votes-84")
    assert all(g.kind == "binary" and len(g.columns) == 1 for g in g1 + g3)
    assert [g.values for g in g1] == [["n"]] * 16 and [g.values for g in g3] == [["y"]] * 16
    assert (X1.to_numpy() + X3.to_numpy() == 1).all()


@needs_mirror
def test_numeric_dataset_needs_an_encoding():
    with pytest.raises(ValueError, match=r"choose encoding from \['QB-5', 'QT-5'\]"):
        paper_dataset("003", "iris")
    X, _, _ = paper_dataset("003", "iris", "qb_5")  # spelling is forgiving
    assert X.shape == (150, 20)
    # categorical-only data ignores the requested numeric encoding
    assert paper_dataset("003", "monk1", "QT-5")[0].shape == (124, 15)


def test_unknown_names():
    with pytest.raises(DatasetNotFoundError, match="no dataset 'monk4'.*monk1"):
        paper_dataset_spec("001", "monk4")
    with pytest.raises(DatasetNotFoundError, match="no datasets recorded for paper '005'"):
        list_paper_datasets("005")
    assert list_paper_datasets(1) == list_paper_datasets("001")


def test_registry_slugs_and_aliases_name_paper_datasets():
    assert paper_dataset_spec("001", "car-evaluation").name == "car_evaluation"
    assert paper_dataset_spec("003", "thyroid-ann").name == "ann-thyroid"
    assert paper_dataset_spec("001", "congressional-voting").name == "house-votes-84"
    assert paper_dataset_spec("001", "KR-VS-KP").name == "kr-vs-kp"          # case-insensitive
    with pytest.raises(DatasetNotFoundError, match="several datasets of paper 001: monk3, monk1, monk2"):
        paper_dataset_spec("001", "monks")


# ------------------------------------------------------------------------- paper 000 (Table 1)
P000 = [n for n in list_paper_datasets("000") if not paper_dataset_spec("000", n).unavailable]


@needs_tables
def test_paper000_recorded_counts_equal_table1():
    table = pd.read_csv(TABLES / "paper000_table1_datasets.csv").set_index("dataset")
    assert sorted(list_paper_datasets("000")) == sorted(table.index)
    for name, row in table.iterrows():
        spec = paper_dataset_spec("000", name)
        assert (spec.rows, spec.features["categorical"], spec.n_groups, spec.pct_positive) == (
            row["n_samples"], row["n_binary_features"], row["n_groups"], row["pct_positive"]), name


@needs_mirror
@pytest.mark.parametrize("name", P000)
def test_paper000_counts_match_table1_where_our_data_allow(name):
    # Differences, documented in paper_datasets.toml: bc has 683 complete UCI rows (the paper's
    # 695-row LIBSVM copy is not available) and 89 columns (Mitoses never equals 9 there); a1a keeps
    # 113 of LIBSVM's 123 columns (10 are all zero; the paper prints 122); student has 119 columns
    # (the paper's 109 come from an unstated bucketing). heloc is not available at all.
    spec = paper_dataset_spec("000", name)
    X, y, groups = paper_dataset("000", name)
    assert len(X) == len(y) == (spec.encoded_rows or spec.rows)
    assert X.shape[1] == spec.encoded_features.get("categorical", spec.features["categorical"])
    assert len(groups) == spec.n_groups                                  # every group count matches
    assert round(100 * y.mean()) == spec.pct_positive                    # every % positive matches
    assert set(y) == {0, 1} and set(np.unique(X.to_numpy())) <= {0, 1}
    assert [c for g in groups for c in g.columns] == list(X.columns)
    assert not (X.sum(axis=0) == 0).any()                               # constant columns dropped


@needs_mirror
def test_paper000_groups_are_one_hot_or_ordinal_as_in_section_4_4():
    X, _, groups = paper_dataset("000", "krkp")          # 35 two-valued attributes + 1 three-valued
    assert sorted(len(g.columns) for g in groups) == [2] * 35 + [3]
    assert (X.sum(axis=1) == 36).all()                   # one value per attribute: complete one-hot
    X, _, groups = paper_dataset("000", "bc")
    assert all(g.kind == "ordinal" for g in groups) and X.shape[1] == 89
    assert [len(g.columns) for g in groups] == [10] * 8 + [9]
    X, _, groups = paper_dataset("000", "a1a")
    kinds = {g.name: g.kind for g in groups}
    assert kinds["age"] == "ordinal" and kinds["workclass"] == "categorical"
    assert (X[next(g for g in groups if g.name == "sex").columns].sum(axis=1) == 1).all()


def test_paper000_heloc_is_unavailable_with_a_clear_error():
    with pytest.raises(DatasetNotFoundError, match="not a UCI dataset"):
        paper_dataset("000", "heloc")
