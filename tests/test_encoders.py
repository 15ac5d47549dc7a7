"""Encoders on small hand-made frames; expected values derived by hand or by brute force."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from odtlib.encoders import (
    ClassChangeThresholdEncoder,
    DecileEncoder,
    FeatureGroup,
    OneHotEncoder,
    QuantileBucketEncoder,
    QuantileThresholdEncoder,
    UnitScaler,
)

ALL_ENCODERS = [
    OneHotEncoder(),
    QuantileBucketEncoder(k=3),
    QuantileThresholdEncoder(k=3),
    DecileEncoder(),
    UnitScaler(),
    ClassChangeThresholdEncoder(),
]


@pytest.fixture
def mixed():
    X = pd.DataFrame(
        {
            "color": pd.Categorical(["red", "green", "red", "blue", "green", "red"]),
            "size": ["S", "L", "S", "S", "L", "L"],
            "weight": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    )
    y = pd.Series(["a", "a", "b", "b", "a", "b"])
    return X, y


# ---------------------------------------------------------------------------- groups contract
@pytest.mark.parametrize("encoder", ALL_ENCODERS, ids=lambda e: type(e).__name__)
def test_groups_cover_output_columns_in_order(encoder, mixed):
    X, y = mixed
    out = clone(encoder).fit(X, y).transform(X)
    enc = clone(encoder).fit(X, y)
    assert [g.name for g in enc.groups_] == list(X.columns)
    flat = [c for g in enc.groups_ for c in g.columns]
    assert flat == list(enc.get_feature_names_out()) == list(out.columns)
    assert len(set(flat)) == len(flat)
    for g in enc.groups_:
        assert isinstance(g, FeatureGroup)
        assert g.kind in ("categorical", "ordinal", "binary", "numeric")
        assert len(g.values) == len(g.columns)


@pytest.mark.parametrize("encoder", ALL_ENCODERS, ids=lambda e: type(e).__name__)
def test_fit_transform_equals_fit_then_transform_and_is_row_wise(encoder, mixed):
    X, y = mixed
    full = clone(encoder).fit_transform(X, y)
    enc = clone(encoder).fit(X, y)
    pd.testing.assert_frame_equal(full, enc.transform(X))
    rows = [4, 0, 2]
    pd.testing.assert_frame_equal(enc.transform(X.iloc[rows]), full.iloc[rows])


def test_feature_group_is_frozen():
    g = FeatureGroup("a", ["a=1"], "binary", [1])
    with pytest.raises(AttributeError):
        g.name = "b"


def test_one_hot_groups_are_exactly_one_hot(mixed):
    X, y = mixed
    enc = QuantileBucketEncoder(k=3).fit(X)
    out = enc.transform(X)
    for g in enc.groups_:
        if g.kind in ("categorical", "ordinal"):
            assert (out[g.columns].sum(axis=1) == 1).all(), g.name


# ---------------------------------------------------------------------------- OneHotEncoder
def test_one_hot_by_hand(mixed):
    X, _ = mixed
    out = OneHotEncoder().fit_transform(X[["color", "size"]])
    expected = pd.DataFrame(
        {
            "color=blue": [0, 0, 0, 1, 0, 0],
            "color=green": [0, 1, 0, 0, 1, 0],
            "color=red": [1, 0, 1, 0, 0, 1],
            "size=L": [0, 1, 0, 0, 1, 1],
            "size=S": [1, 0, 1, 1, 0, 0],
        }
    )
    pd.testing.assert_frame_equal(out, expected)


def test_one_hot_treats_numeric_as_categorical():
    X = pd.DataFrame({"n": [3.0, 1.0, 3.0, 2.0]})
    enc = OneHotEncoder().fit(X)
    assert enc.groups_[0].columns == ["n=1", "n=2", "n=3"]
    assert enc.transform(X).to_numpy().tolist() == [[0, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 0]]


@pytest.mark.parametrize(
    "drop_binary, kept", [(True, "S"), ("first", "S"), ("last", "L"), (False, None)]
)
def test_drop_binary_keeps_one_indicator(mixed, drop_binary, kept):
    X, _ = mixed
    enc = OneHotEncoder(drop_binary=drop_binary).fit(X[["color", "size"]])
    color, size = enc.groups_
    assert color.kind == "categorical" and len(color.columns) == 3  # 3 values: never dropped
    if kept is None:
        assert size.kind == "categorical" and size.columns == ["size=L", "size=S"]
    else:
        assert size.kind == "binary" and size.columns == [f"size={kept}"]
        out = enc.transform(X[["color", "size"]])
        assert out[f"size={kept}"].tolist() == (X["size"] == kept).astype(int).tolist()


def test_ordered_categorical_uses_its_order_for_drop_binary():
    X = pd.DataFrame({"lvl": pd.Categorical(["hi", "lo", "hi"], ["lo", "hi"], ordered=True)})
    enc = OneHotEncoder(drop_binary=True).fit(X)
    assert enc.groups_[0].columns == ["lvl=hi"]


def test_unseen_error_names_columns_and_values(mixed):
    X, _ = mixed
    enc = OneHotEncoder(unseen="error").fit(X[["color", "size"]])
    new = pd.DataFrame({"color": ["purple", "red", "teal"], "size": ["S", "XL", "S"]})
    with pytest.raises(ValueError, match=r"3 of 3 rows.*'color': \['purple', 'teal'\]; 'size': \['XL'\]"):
        enc.transform(new)


def test_unseen_default_warns_once_per_transform_and_gives_all_zero(mixed):
    X, _ = mixed
    enc = OneHotEncoder().fit(X[["color", "size"]])
    new = pd.DataFrame({"color": ["purple"] * 50 + ["teal", "red"], "size": ["XL"] + ["S"] * 51})
    with pytest.warns(UserWarning) as record:
        out = enc.transform(new)
    assert len(record) == 1  # one warning for the call, not one per row or per column
    message = str(record[0].message)
    assert "51 of 52 rows have values not seen in fit" in message  # rows, not cells (row 0 has two)
    assert "'color': ['purple', 'teal']; 'size': ['XL']" in message
    assert out.filter(like="color=").sum(axis=1).tolist() == [0] * 51 + [1]
    assert out.filter(like="size=").sum(axis=1).tolist() == [0] + [1] * 51


def test_unseen_warning_lists_a_few_values_only():
    enc = OneHotEncoder().fit(pd.DataFrame({"c": ["a"]}))
    with pytest.warns(UserWarning, match=r"'c': \['v0', 'v1', 'v2', 'v3', 'v4'\] and 15 more"):
        enc.transform(pd.DataFrame({"c": [f"v{i}" for i in range(20)]}))


def test_unseen_ignore_gives_all_zero_silently(mixed, recwarn):
    X, _ = mixed
    enc = OneHotEncoder(unseen="ignore").fit(X[["color", "size"]])
    out = enc.transform(pd.DataFrame({"color": ["purple"], "size": ["S"]}))
    assert out.filter(like="color=").sum(axis=1).tolist() == [0]
    assert out["size=S"].tolist() == [1]
    assert len(recwarn) == 0


def _sorted_blocks(n_per_block: int = 30) -> tuple[pd.DataFrame, pd.Series]:
    """Rows sorted by 'block' (x, y, z: each value in one third only); 'b' carries the label."""
    block = np.repeat(["x", "y", "z"], n_per_block)
    label = np.tile([0, 1], len(block) // 2)
    X = pd.DataFrame({"block": pd.Categorical(block), "b": np.where(label == 1, "p", "q")})
    return X, pd.Series(label)


def test_cross_validation_on_sorted_categorical_data_has_no_nan():
    """cv=3 (unshuffled StratifiedKFold): every test fold holds a 'block' value its training lacks."""
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.tree import DecisionTreeClassifier

    X, y = _sorted_blocks()
    pipe = make_pipeline(OneHotEncoder(), DecisionTreeClassifier(random_state=0))
    with pytest.warns(UserWarning, match="not seen in fit") as record:
        scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.tolist() == [1.0, 1.0, 1.0]
    assert len(record) == 3  # one per test fold (30 rows each), not one per row
    assert all("30 of 30 rows" in str(w.message) for w in record)

    strict = make_pipeline(OneHotEncoder(unseen="error"), DecisionTreeClassifier(random_state=0))
    with pytest.warns(UserWarning, match="Scoring failed"):
        assert np.isnan(cross_val_score(strict, X, y, cv=3)).all()


@pytest.mark.parametrize(
    "encoder",
    [QuantileBucketEncoder(k=3), DecileEncoder(), QuantileThresholdEncoder(k=3),
     ClassChangeThresholdEncoder(), UnitScaler()],
    ids=lambda e: type(e).__name__,
)
def test_numeric_values_not_seen_in_fit_are_encoded_without_warning(encoder, recwarn):
    train = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    enc = clone(encoder).fit(train, [0, 0, 1, 1, 0, 1])
    new = pd.DataFrame({"x": [-1e9, 2.5, 3.25, 1e9, -np.inf, np.inf]})
    out = enc.transform(new)
    assert out.shape == (6, len(enc.get_feature_names_out())) and len(recwarn) == 0
    group = enc.groups_[0]
    if group.kind == "ordinal":
        assert (out.sum(axis=1) == 1).all()
        assert out.to_numpy().argmax(axis=1).tolist()[::3] == [0, len(group.columns) - 1]
    if group.kind == "binary":  # nested indicators: the extremes answer every test the same way
        assert out.iloc[[0, 4]].nunique().le(1).all() and out.iloc[[3, 5]].nunique().le(1).all()
    if group.kind == "numeric":
        assert out["x"].iloc[:4].tolist() == pytest.approx([(-1e9 - 1) / 5, 0.3, 0.45, (1e9 - 1) / 5])


def test_non_numeric_value_in_numeric_column_is_named():
    enc = QuantileThresholdEncoder(k=2).fit(pd.DataFrame({"w": [1.0, 2.0, 3.0]}))
    out = enc.transform(pd.DataFrame({"w": ["2", 7]}, dtype=object))
    assert out["w>2"].tolist() == [0, 1]  # numbers given as text or objects are fine
    with pytest.raises(ValueError, match=r"'w' was numeric in fit but has non-numeric values \['heavy'\]"):
        enc.transform(pd.DataFrame({"w": [1.0, "heavy"]}, dtype=object))


# ---------------------------------------------------------------------------- QB / Decile
def test_quantile_buckets_by_hand():
    # 1..10: 5-quantiles 1, 2.8, 4.6, 6.4, 8.2, 10 -> two values per bucket
    X = pd.DataFrame({"x": np.arange(1.0, 11.0)})
    out = QuantileBucketEncoder(k=5).fit_transform(X)
    assert out.shape == (10, 5)
    assert out.to_numpy().argmax(axis=1).tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert list(out.columns)[:2] == ["x in [1, 2.8]", "x in (2.8, 4.6]"]


def test_quantile_buckets_collapse_duplicate_edges():
    # eight zeros, 1, 2: quantiles (linear) 0,0,0,0,0.2,2 -> edges {0, 0.2, 2} -> 2 buckets
    X = pd.DataFrame({"x": [0.0] * 8 + [1.0, 2.0]})
    enc = QuantileBucketEncoder(k=5).fit(X)
    assert enc.groups_[0].kind == "ordinal"
    assert enc.groups_[0].values == [(0.0, pytest.approx(0.2)), (pytest.approx(0.2), 2.0)]
    assert enc.transform(X).to_numpy().argmax(axis=1).tolist() == [0] * 8 + [1, 1]


@pytest.mark.parametrize("seed", range(5))
def test_quantile_buckets_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 6, size=37).astype(float)  # many ties
    k = 4
    out = QuantileBucketEncoder(k=k).fit_transform(pd.DataFrame({"x": x})).to_numpy()
    # brute force: distinct edges = distinct linear k-quantiles, sorted; bucket j holds the values
    # v with edge_j < v <= edge_{j+1} (v == min goes to bucket 0)
    srt = np.sort(x)
    edges = []
    for j in range(k + 1):
        pos = j / k * (len(x) - 1)
        lo, frac = int(np.floor(pos)), pos - np.floor(pos)
        hi = min(lo + 1, len(x) - 1)
        edges.append(srt[lo] + frac * (srt[hi] - srt[lo]))
    edges = sorted(set(np.round(edges, 12)))
    assert out.shape[1] == len(edges) - 1
    for i, v in enumerate(x):
        j = 0 if v <= edges[1] else max(b for b in range(len(edges) - 1) if edges[b] < v)
        assert out[i].tolist() == [int(b == j) for b in range(len(edges) - 1)]


def test_quantile_buckets_clip_out_of_range_values():
    enc = QuantileBucketEncoder(k=2).fit(pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]}))
    out = enc.transform(pd.DataFrame({"x": [-5.0, 99.0]}))
    assert out.to_numpy().tolist() == [[1, 0], [0, 1]]


def test_decile_encoder_gives_ten_ordered_buckets():
    X = pd.DataFrame({"x": np.arange(100.0)[::-1], "c": ["u", "v"] * 50})
    enc = DecileEncoder().fit(X)
    g = enc.groups_[0]
    assert g.kind == "ordinal" and len(g.columns) == 10
    out = enc.transform(X)[g.columns].to_numpy()
    assert out.sum(axis=0).tolist() == [10] * 10
    assert (out.argmax(axis=1) == (99 - np.arange(100)) // 10).all()
    assert enc.groups_[1].kind == "categorical"
    assert "k" not in DecileEncoder().get_params()


# ---------------------------------------------------------------------------- QT
def _midpoint_quantile(values: np.ndarray, p: float) -> float:
    srt = np.sort(values)
    pos = p * (len(srt) - 1)
    return (srt[int(np.floor(pos))] + srt[int(np.ceil(pos))]) / 2


@pytest.mark.parametrize("seed", range(5))
def test_quantile_thresholds_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=41), 1)
    x[:10] = 0.0  # ties
    k = 5
    enc = QuantileThresholdEncoder(k=k).fit(pd.DataFrame({"x": x}))
    expected = sorted({_midpoint_quantile(x, j / k) for j in range(1, k)})
    assert enc.groups_[0].values == pytest.approx(expected)
    out = enc.transform(pd.DataFrame({"x": x})).to_numpy()
    for col, t in enumerate(expected):
        assert out[:, col].tolist() == [int(v > t) for v in x]  # strict, as the paper's files
        assert out[:, col].sum() == sum(v > t for v in x)


def test_quantile_thresholds_by_hand_and_names():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0]})
    enc = QuantileThresholdEncoder(k=2).fit(X)
    assert list(enc.get_feature_names_out()) == ["x>3"]
    assert enc.transform(X)["x>3"].tolist() == [0, 0, 0, 1, 1]
    assert enc.groups_[0].kind == "binary"


# ---------------------------------------------------------------------------- class change
def test_class_change_thresholds_by_hand():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0]})
    enc = ClassChangeThresholdEncoder().fit(X, ["a", "a", "b", "b", "a"])
    assert enc.groups_[0].values == [2.5, 4.5]
    assert list(enc.get_feature_names_out()) == ["x<=2.5", "x<=4.5"]
    assert enc.transform(X).to_numpy().tolist() == [[1, 1], [1, 1], [0, 1], [0, 1], [0, 0]]


def test_class_change_thresholds_with_ties():
    # value 1 carries classes {a, b}: cut between 1 and 2; 2 and 3 both only 'a': no cut
    X = pd.DataFrame({"x": [1.0, 1.0, 2.0, 3.0]})
    enc = ClassChangeThresholdEncoder().fit(X, ["a", "b", "a", "a"])
    assert enc.groups_[0].values == [1.5]


def test_class_change_needs_y():
    with pytest.raises(ValueError, match="needs the labels y"):
        ClassChangeThresholdEncoder().fit(pd.DataFrame({"x": [1.0, 2.0]}))


# ---------------------------------------------------------------------------- UnitScaler
def test_unit_scaler(mixed):
    X, _ = mixed
    enc = UnitScaler().fit(X)
    out = enc.transform(X)
    assert out["weight"].tolist() == pytest.approx([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    assert enc.groups_[2] == FeatureGroup("weight", ["weight"], "numeric", [(1.0, 6.0)])
    assert enc.groups_[0].kind == "categorical"
    new = X.iloc[:1].assign(weight=11.0)
    assert enc.transform(new)["weight"].tolist() == [2.0]  # not clipped
    const = UnitScaler().fit_transform(pd.DataFrame({"c": [3.0, 3.0]}))
    assert const["c"].tolist() == [0.0, 0.0]


# ---------------------------------------------------------------------------- errors & API
@pytest.mark.parametrize("encoder", ALL_ENCODERS, ids=lambda e: type(e).__name__)
def test_missing_values_rejected_with_column_name(encoder):
    X = pd.DataFrame({"ok": [1.0, 2.0], "holes": [1.0, np.nan]})
    with pytest.raises(ValueError, match=r"missing values.*holes"):
        clone(encoder).fit(X, [0, 1])


def test_transform_checks_columns_and_fit(mixed):
    X, y = mixed
    enc = QuantileBucketEncoder().fit(X)
    with pytest.raises(ValueError, match="lacks the columns.*weight"):
        enc.transform(X.drop(columns="weight"))
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        QuantileBucketEncoder().transform(X)


@pytest.mark.parametrize(
    "encoder, message",
    [
        (OneHotEncoder(unseen="drop"), "unseen must be"),
        (OneHotEncoder(drop_binary="middle"), "drop_binary must be"),
        (QuantileBucketEncoder(k=0), "k must be"),
        (QuantileThresholdEncoder(k=1), "k must be"),
    ],
)
def test_bad_parameters(encoder, message, mixed):
    X, _ = mixed
    with pytest.raises(ValueError, match=message):
        encoder.fit(X)


def test_label_row_mismatch(mixed):
    X, _ = mixed
    with pytest.raises(ValueError, match="6 rows but y has 2"):
        ClassChangeThresholdEncoder().fit(X, [0, 1])


def test_numpy_input_and_sklearn_pipeline(mixed):
    from sklearn.pipeline import make_pipeline
    from sklearn.tree import DecisionTreeClassifier

    X, y = mixed
    out = QuantileThresholdEncoder(k=2).fit_transform(X[["weight"]].to_numpy())
    assert list(out.columns) == ["x0>3.5"]
    pipe = make_pipeline(QuantileBucketEncoder(k=3, drop_binary=True), DecisionTreeClassifier())
    assert pipe.fit(X, y).score(X, y) == 1.0
    assert clone(QuantileBucketEncoder(k=7)).get_params()["k"] == 7
