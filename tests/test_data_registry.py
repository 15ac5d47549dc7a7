"""The dataset registry against the project manifest and the raw files of the offline mirror.

Expected counts come from MANIFEST.csv (and its notes) and from the issue's list of paper variants,
never from the registry itself. Needs ODTLIB_DATA_MIRROR (a folder laid out like the shared uci/).
"""
from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from odtlib.data import (
    Dataset, DatasetNotFoundError, list_datasets, list_variants, load_dataset,
)
from odtlib.data.registry import registry

MIRROR = Path(os.environ.get("ODTLIB_DATA_MIRROR", "/nonexistent"))
MANIFEST = MIRROR / "MANIFEST.csv"
pytestmark = pytest.mark.skipif(not MANIFEST.is_file(), reason="needs ODTLIB_DATA_MIRROR with MANIFEST.csv")


def manifest_rows() -> dict[str, dict]:
    if not MANIFEST.is_file():
        return {}
    with open(MANIFEST, newline="") as fh:
        return {r["slug"]: r for r in csv.DictReader(fh) if not r["slug"].startswith("_")}


ROWS = manifest_rows()

# (slug, variant) -> rows, as listed in the issue / MANIFEST notes.
PAPER_VARIANTS = {
    ("monks", "monks-1-train"): 124, ("monks", "monks-1-test"): 432,
    ("monks", "monks-2-train"): 169, ("monks", "monks-2-test"): 432,
    ("monks", "monks-3-train"): 122, ("monks", "monks-3-test"): 432,
    ("congressional-voting", "complete"): 232, ("congressional-voting", "missing-as-category"): 435,
    ("breast-cancer-wisconsin-original", "complete"): 683, ("breast-cancer", "complete"): 277,
    ("student-performance", "pass"): 395, ("hayes-roth", "test"): 28,
    ("spect", "train"): 80, ("spect", "test"): 187,
    ("image-segmentation", "data"): 210, ("image-segmentation", "test"): 2100,
    ("thyroid-ann", "train"): 3772, ("thyroid-ann", "test"): 3428,
    ("ozone", "complete"): 1848, ("hepatitis", "complete"): 80, ("credit-approval", "complete"): 653,
    ("ilpd", "complete"): 579, ("breast-cancer-wisconsin-prognostic", "complete"): 194,
    ("dermatology", "complete"): 358, ("heart-disease-cleveland", "complete"): 297,
    ("avila", "train"): 10430, ("avila", "test"): 10437,
    ("pendigits", "train"): 7494, ("pendigits", "test"): 3498,
    ("statlog-shuttle", "train"): 43500, ("statlog-shuttle", "test"): 14500,
    ("mushroom", "complete"): 8124 - 2480,
}


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path_factory, monkeypatch):
    """Copies from the mirror go to one temporary cache per test session, not to data/raw."""
    monkeypatch.setenv("ODTLIB_DATA_DIR", str(tmp_path_factory.getbasetemp() / "odtlib-cache"))
    monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(MIRROR))
    monkeypatch.setenv("ODTLIB_UCI_BASE_URL", "http://127.0.0.1:9")  # never the real archive


def test_registry_has_every_manifest_dataset():
    assert set(list_datasets()) == set(ROWS)
    assert list_datasets() == sorted(ROWS)


@pytest.mark.parametrize("slug", sorted(ROWS))
def test_registry_files_and_checksums_match_manifest(slug):
    row, spec = ROWS[slug], registry()[slug]
    expected = dict(item.split("=", 1) for item in row["sha256"].split(";"))
    assert set(spec.files) == set(row["files"].split(";"))
    assert {name: f.sha256 for name, f in spec.files.items()} == expected
    assert spec.uci_id == int(row["uci_id"])


@pytest.mark.parametrize("slug", sorted(ROWS))
def test_default_matches_manifest_counts(slug):
    """load_dataset(slug) has MANIFEST's rows, features and classes (monks: see the next test)."""
    row = ROWS[slug]
    ds = load_dataset(slug)
    assert isinstance(ds, Dataset) and ds.name == slug and ds.uci_id == int(row["uci_id"])
    assert ds.X.shape[1] == int(row["n_features"])
    assert ds.n_classes == int(row["n_classes"])
    if slug == "monks":  # MANIFEST counts the six files together; the default is one problem
        assert (ds.variant, len(ds.X)) == ("monks-1-train", 124)
    else:
        assert len(ds.X) == int(row["n_rows"])
    assert len(ds.y) == len(ds.X) and not ds.y.isna().any()
    assert ds.y.name not in ds.X.columns


def test_monks_files_add_up_to_manifest_rows():
    total = sum(len(load_dataset("monks", v).X) for v in list_variants("monks") if v != "default")
    assert total == int(ROWS["monks"]["n_rows"])


@pytest.mark.parametrize(("slug", "variant"), sorted(PAPER_VARIANTS))
def test_paper_variants_have_the_published_rows(slug, variant):
    ds = load_dataset(slug, variant)
    assert len(ds.X) == PAPER_VARIANTS[(slug, variant)]
    assert ds.variant == variant
    if "complete" in variant:
        assert not ds.X.isna().any().any()


@pytest.mark.parametrize("slug", sorted(ROWS))
def test_columns_are_typed_by_kind(slug):
    ds = load_dataset(slug)
    assert list(ds.feature_kinds) == list(ds.X.columns)
    for column, kind in ds.feature_kinds.items():
        assert kind in {"categorical", "numeric", "binary"}
        dtype = ds.X[column].dtype
        if kind == "numeric":
            assert dtype == float, (column, dtype)
        else:
            assert isinstance(dtype, pd.CategoricalDtype), (column, dtype)
        if kind == "binary":
            assert len(ds.X[column].cat.categories) <= 2, column


def test_column_names_come_from_the_names_files():
    assert list(load_dataset("spect").X.columns) == [f"F{i}" for i in range(1, 23)]
    assert "physician-fee-freeze" in load_dataset("congressional-voting").X.columns
    assert list(load_dataset("monks").X.columns) == ["a1", "a2", "a3", "a4", "a5", "a6"]
    heart = load_dataset("heart-disease-cleveland")
    assert list(heart.X.columns)[-2:] == ["ca", "thal"] and heart.y.name == "num"
    assert "MDVP:Fo(Hz)" in load_dataset("parkinsons").X.columns  # the file's own header row


def _raw_lines(slug: str, name: str) -> list[str]:
    text = (MIRROR / slug / name).read_bytes().decode("latin-1").replace("\r\n", "\n").replace("\r", "\n")
    return [line for line in text.split("\n") if line.strip()]


def test_values_match_the_raw_text():
    """Spot checks against lines split by hand (whitespace, ';' with quotes, header rows)."""
    monks = load_dataset("monks", "monks-2-train")
    first = _raw_lines("monks", "monks-2.train")[0].split()
    assert [int(v) for v in first[1:7]] == monks.X.iloc[0].astype(int).tolist()
    assert int(first[0]) == monks.y.iloc[0]

    student = load_dataset("student-performance")
    last = _raw_lines("student-performance", "student-mat.csv")[-1].split(";")
    assert student.X["school"].iloc[-1] == last[0].strip('"')
    assert student.X["G2"].iloc[-1] == float(last[31].strip('"'))
    assert student.y.iloc[-1] == int(last[32])

    seeds = load_dataset("seeds")  # rows with double tabs
    lines = _raw_lines("seeds", "seeds_dataset.txt")
    assert seeds.X.to_numpy().tolist() == [[float(v) for v in line.split()[:7]] for line in lines]

    htru = load_dataset("htru2")  # CR-only line ends
    assert htru.X.iloc[0, 0] == 140.5625

    seg = load_dataset("image-segmentation", "data")  # 5 lines of header text
    assert seg.X.columns[0] == "REGION-CENTROID-COL" and seg.y.iloc[0] == "BRICKFACE"


def test_missing_values():
    votes = load_dataset("congressional-voting")
    n_marks = sum(line.count("?") for line in _raw_lines("congressional-voting", "house-votes-84.data"))
    assert votes.X.isna().sum().sum() == n_marks
    as_category = load_dataset("congressional-voting", "missing-as-category")
    assert as_category.X.isna().sum().sum() == 0
    assert all("?" in as_category.X[c].cat.categories for c in as_category.X)
    assert set(as_category.feature_kinds.values()) == {"categorical"}
    # 16 votes x {y, n, ?} = the 48 one-hot features of papers 000/002
    assert sum(len(as_category.X[c].cat.categories) for c in as_category.X) == 48
    assert load_dataset("breast-cancer-wisconsin-original").X["Bare_nuclei"].isna().sum() == 16
    assert load_dataset("ilpd").X["A_G_Ratio"].isna().sum() == 4
    assert load_dataset("mushroom").X["stalk-root"].isna().sum() == 2480


def test_student_pass_label_is_g3_at_least_10():
    raw = load_dataset("student-performance")
    passed = load_dataset("student-performance", "pass")
    assert passed.n_classes == 2 and raw.n_classes == 18
    assert (passed.y == (raw.y >= 10).astype(int)).all()
    assert round(passed.y.mean(), 3) == 0.671  # MANIFEST note: 67.1% positive


def test_prognostic_complete_drops_time():
    ds = load_dataset("breast-cancer-wisconsin-prognostic", "complete")
    assert "Time" not in ds.X and "ID" not in ds.X and ds.X.shape[1] == 32


def test_monks_binary_attributes_give_15_one_hot_columns():
    """Paper 001 encodes monk1 as 124 x 15: a3 and a6 have two values, a1..a6 have 3+3+2+3+4+2 values."""
    ds = load_dataset("monks", "monks-1-train")
    widths = [1 if ds.feature_kinds[c] == "binary" else len(ds.X[c].cat.categories) for c in ds.X]
    assert sum(widths) == 15


def test_unknown_dataset_lists_close_names():
    with pytest.raises(DatasetNotFoundError, match="monks"):
        load_dataset("monk")


def test_unknown_variant_lists_variants():
    with pytest.raises(DatasetNotFoundError, match="monks-1-train.*monks-3-test"):
        load_dataset("monks", "monks-4-train")


def test_list_variants_and_summary():
    assert list_variants("spect") == ["default", "train", "test"]
    assert list_variants("iris") == ["default"]
    row = load_dataset("credit-approval").summary()
    assert row["rows"] == 690 and row["features"] == 15
    assert row["categorical"] + row["binary"] + row["numeric"] == 15
    assert row["missing_cells"] > 0
    assert "690 rows" in repr(load_dataset("credit-approval"))


def test_shuffle_gives_one_fixed_order_of_the_same_labelled_rows():
    plain = load_dataset("car-evaluation")
    shuffled = load_dataset("car-evaluation", shuffle=True)
    again = load_dataset("car-evaluation", shuffle=True, random_state=0)
    other = load_dataset("car-evaluation", shuffle=True, random_state=1)
    pd.testing.assert_frame_equal(shuffled.X, again.X)
    pd.testing.assert_series_equal(shuffled.y, again.y)
    assert not shuffled.X.equals(plain.X) and not shuffled.X.equals(other.X)
    assert list(shuffled.X.index) == list(range(1728))

    def labelled_rows(ds):  # each row with its label, as a multiset
        return sorted(map(tuple, ds.X.astype(str).assign(label=ds.y.astype(str)).to_numpy().tolist()))

    assert labelled_rows(shuffled) == labelled_rows(plain)
    assert all(isinstance(shuffled.X[c].dtype, pd.CategoricalDtype) for c in shuffled.X)


def test_cross_validation_on_the_sorted_uci_file():
    """car-evaluation is sorted by attribute value: unshuffled 3-fold CV meets unseen categories."""
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.tree import DecisionTreeClassifier

    from odtlib.encoders import OneHotEncoder

    def scores(ds, unseen):
        pipe = make_pipeline(OneHotEncoder(unseen=unseen), DecisionTreeClassifier(max_depth=3, random_state=0))
        return cross_val_score(pipe, ds.X, ds.y, cv=3)

    with pytest.warns(UserWarning, match="'buying': \\['vhigh'\\]"):
        assert not np.isnan(scores(load_dataset("car-evaluation"), "warn")).any()
    assert not np.isnan(scores(load_dataset("car-evaluation", shuffle=True), "error")).any()
