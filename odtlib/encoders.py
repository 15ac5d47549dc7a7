"""Encoders that turn a mixed pandas DataFrame into the inputs of the ODT formulations.

Every encoder is a scikit-learn transformer (``fit`` / ``transform`` / ``fit_transform`` /
``get_feature_names_out``) that takes a DataFrame and returns a DataFrame. They share one rule
for categorical columns (dtype ``category``, ``object``, ``string`` or ``bool``): one-hot
indicators named ``col=value``. They differ in what they do with numeric columns:

===============================  =========================================================  =========
encoder                          numeric column ->                                          paper
===============================  =========================================================  =========
``OneHotEncoder``                one indicator per distinct value (treated as categorical)  001, 003
``QuantileBucketEncoder(k)``     QB-k: indicator of each of the k quantile buckets          003
``QuantileThresholdEncoder(k)``  QT-k: indicators ``x > q_j`` at the inner k-quantiles      003
``DecileEncoder``                ordered decile buckets (one group per column)              000 (4.4)
``UnitScaler``                   min-max scaling to [0, 1]                                  002, 004
``ClassChangeThresholdEncoder``  indicators ``x <= t`` at class-change midpoints            002
===============================  =========================================================  =========

After ``fit`` each encoder exposes ``groups_``: one :class:`FeatureGroup` per original column,
listing the output columns that encode it, so models can impose group constraints (paper 000)
and trees can be printed in terms of the original attributes.

Group kinds:

* ``"categorical"``: one-hot columns, exactly one of them is 1 on every (seen) row;
* ``"ordinal"``: one-hot columns over ordered buckets (low to high), exactly one is 1;
* ``"binary"``: independent 0/1 tests (the one kept column of a two-valued attribute, or
  threshold indicators, which are nested rather than one-hot);
* ``"numeric"``: a single real column (``UnitScaler``).

Missing values are rejected: drop or impute them before encoding (papers 001/003 drop rows).

Values not seen in ``fit``. A numeric column is encoded by its thresholds, buckets or scaling,
which take any number (values beyond the training range fall into the first or last bucket). A
category not seen in ``fit`` follows ``unseen``: ``"warn"`` (default) encodes the row as all zeros
in that column's group and emits one warning per ``transform`` call naming the columns and values;
``"ignore"`` does the same silently; ``"error"`` raises ``ValueError``. The default keeps
cross-validation working on files sorted by attribute value (many UCI files are): scikit-learn's
``cv=<int>`` folds are not shuffled, so a test fold may hold a value its training folds lack.
Shuffle the rows (``load_dataset(..., shuffle=True)`` or ``KFold(shuffle=True)``) to avoid it.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from pandas.api import types as ptypes
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

GroupKind = Literal["categorical", "ordinal", "binary", "numeric"]
UNSEEN_POLICIES = ("warn", "ignore", "error")


@dataclass(frozen=True)
class FeatureGroup:
    """The output columns that encode one original column.

    ``values`` describes each output column, in the same order as ``columns``: the category
    for one-hot columns, the ``(low, high]`` bucket bounds for ordinal buckets, the threshold
    for threshold indicators, ``(min, max)`` for a scaled column.
    """

    name: str
    columns: list[str]
    kind: GroupKind
    values: list = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# Column rules: what a fitted encoder remembers about one original column.
# --------------------------------------------------------------------------------------------
def _label(value: Any) -> str:
    """Readable text of a category or a threshold (``1.0`` -> ``1``, ``0.35000001`` -> ``0.35``)."""
    if isinstance(value, (float, np.floating)):
        return format(float(value), ".6g")
    return str(value)


def _preview(values, limit: int = 5) -> str:
    """``['a', 'b']``, or the first `limit` values and how many more."""
    shown = ", ".join(repr(v) if isinstance(v, str) else _label(v) for v in list(values)[:limit])
    more = f" and {len(values) - limit} more" if len(values) > limit else ""
    return f"[{shown}]{more}"


def _as_float(column: pd.Series) -> np.ndarray:
    """The values of a column that was numeric in ``fit``; non-numbers raise naming the column."""
    if ptypes.is_numeric_dtype(column.dtype):
        return column.to_numpy(dtype=float)
    values = pd.to_numeric(pd.Series(column.to_numpy(dtype=object)), errors="coerce").to_numpy(dtype=float)
    bad = pd.unique(column.to_numpy(dtype=object)[np.isnan(values)])
    if len(bad):
        raise ValueError(
            f"column {column.name!r} was numeric in fit but has non-numeric values {_preview(bad)}; "
            "convert the column to numbers (or make it categorical and fit again)"
        )
    return values


@dataclass
class _OneHotRule:
    """``col=value`` indicators for ``values``; ``kept`` are the ones that get a column."""

    name: str
    values: list
    kept: list

    def group(self) -> FeatureGroup:
        columns = [f"{self.name}={_label(v)}" for v in self.kept]
        kind = "binary" if len(self.kept) < len(self.values) else "categorical"
        return FeatureGroup(self.name, columns, kind, list(self.kept))

    def unseen_rows(self, column: pd.Series) -> np.ndarray:
        """Boolean mask of the rows whose value was not seen in fit (they encode as all zeros)."""
        return ~column.isin(self.values).to_numpy()

    def encode(self, column: pd.Series) -> np.ndarray:
        values = column.to_numpy(dtype=object)
        return np.stack([values == v for v in self.kept], axis=1).astype(int)


@dataclass
class _BucketRule:
    """Ordered one-hot buckets ``(edges[j], edges[j+1]]`` (the first one closed on the left).

    Values below the first edge fall in the first bucket, values above the last in the last one.
    """

    name: str
    edges: np.ndarray

    def group(self) -> FeatureGroup:
        bounds = list(zip(self.edges[:-1].tolist(), self.edges[1:].tolist()))
        columns = [
            f"{self.name} in {'[' if j == 0 else '('}{_label(lo)}, {_label(hi)}]"
            for j, (lo, hi) in enumerate(bounds)
        ]
        return FeatureGroup(self.name, columns, "ordinal", bounds)

    def encode(self, x: np.ndarray) -> np.ndarray:
        n_buckets = len(self.edges) - 1
        bucket = np.searchsorted(self.edges[1:-1], x, side="left")
        return np.eye(n_buckets, dtype=int)[bucket]


@dataclass
class _ThresholdRule:
    """Indicators ``x > t`` (``above=True``) or ``x <= t`` (``above=False``) for each threshold."""

    name: str
    thresholds: np.ndarray
    above: bool

    def group(self) -> FeatureGroup:
        op = ">" if self.above else "<="
        columns = [f"{self.name}{op}{label}" for label in _distinct_labels(self.thresholds)]
        return FeatureGroup(self.name, columns, "binary", self.thresholds.tolist())

    def encode(self, x: np.ndarray) -> np.ndarray:
        x = x[:, None]
        hits = x > self.thresholds[None, :] if self.above else x <= self.thresholds[None, :]
        return hits.astype(int).reshape(len(x), len(self.thresholds))


def _distinct_labels(values: np.ndarray) -> list[str]:
    """:func:`_label` of each value (6 significant digits), except for values whose 6-digit labels coincide:
    those get the shortest text that reads back as exactly that float (``repr``), so distinct thresholds get
    distinct names. Thresholds 0.00105090, 0.001050902 and 0.001050904 all read ``0.0010509`` at 6 digits."""
    labels = pd.Series([_label(v) for v in values], dtype=object)
    clash = labels.duplicated(keep=False).to_numpy()
    return [repr(float(v)) if c else text for v, c, text in zip(values, clash, labels)]


@dataclass
class _ScaleRule:
    """``(x - low) / (high - low)``; a constant column maps to 0."""

    name: str
    low: float
    high: float

    def group(self) -> FeatureGroup:
        return FeatureGroup(self.name, [self.name], "numeric", [(self.low, self.high)])

    def encode(self, x: np.ndarray) -> np.ndarray:
        span = self.high - self.low
        return ((x - self.low) / span if span > 0 else np.zeros_like(x))[:, None]


# --------------------------------------------------------------------------------------------
# Shared transformer machinery
# --------------------------------------------------------------------------------------------
def categorical_by_dtype(dtype) -> bool:
    """The encoders' rule: a column of dtype category, object, string or bool is categorical; other
    numbers are numeric."""
    return not ptypes.is_numeric_dtype(dtype) or ptypes.is_bool_dtype(dtype)


def _columns(frame: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """``frame[names]``, or the frame itself when those are its columns in order (selecting columns costs
    hundreds of microseconds in pandas 3, which fits of a few milliseconds notice)."""
    return frame if list(frame.columns) == list(names) else frame[list(names)]


def _numeric_values(frame: pd.DataFrame, names: list[str]) -> dict[str, np.ndarray]:
    """Column name -> float values, for the columns ``names`` that a rule encodes as numbers. Columns of a
    numeric dtype are converted together in one block (one pandas call instead of one per column); a column
    of another dtype goes through :func:`_as_float`, which names the values that are no numbers."""
    dtypes = frame.dtypes
    numeric = [name for name in names if ptypes.is_numeric_dtype(dtypes[name])]
    block = np.ascontiguousarray(_columns(frame, numeric).to_numpy(dtype=float).T) if numeric else []
    values = dict(zip(numeric, block))
    return {name: values[name] if name in values else _as_float(frame[name]) for name in names}


def _sorted_values(column: pd.Series) -> list:
    """Distinct observed values: category order for ordered categoricals, else sorted."""
    observed = pd.unique(column.to_numpy(dtype=object))
    if isinstance(column.dtype, pd.CategoricalDtype) and column.dtype.ordered:
        return [c for c in column.dtype.categories if c in set(observed)]
    try:
        return sorted(observed)
    except TypeError:  # mixed types: order by their text
        return sorted(observed, key=str)


def _as_frame(X) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        return X
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {array.shape}")
    return pd.DataFrame(array, columns=[f"x{j}" for j in range(array.shape[1])])


class _GroupEncoder(TransformerMixin, BaseEstimator):
    """Encode each column by a per-column rule; categorical columns are always one-hot.

    Subclasses implement :meth:`_numeric_rule` (how a numeric column is encoded).
    """

    #: dtype of the output columns
    _output_dtype: type = int

    def __init__(self, drop_binary: bool | str = False, unseen: str = "warn"):
        self.drop_binary = drop_binary
        self.unseen = unseen

    # -- sklearn API -------------------------------------------------------------------------
    def fit(self, X, y=None):
        self._check_params()
        frame = _as_frame(X)
        self._check_no_missing(frame)
        if y is not None and len(y) != len(frame):
            raise ValueError(f"X has {len(frame)} rows but y has {len(y)}")
        y_array = None if y is None else np.asarray(y)
        numbers = _numeric_values(frame, [name for name, dtype in frame.dtypes.items()
                                          if not self._treat_as_categorical(dtype)])
        self.rules_ = [
            self._numeric_rule(name, numbers[name], y_array) if name in numbers
            else self._categorical_rule(name, frame[name])
            for name in frame.columns
        ]
        self.groups_ = [rule.group() for rule in self.rules_]
        self.feature_names_in_ = np.asarray(frame.columns, dtype=object)
        self.n_features_in_ = frame.shape[1]
        return self

    def transform(self, X) -> pd.DataFrame:
        check_is_fitted(self, "rules_")
        frame = _as_frame(X)
        missing = [c for c in self.feature_names_in_ if c not in frame.columns]
        if missing:
            raise ValueError(f"X lacks the columns seen in fit: {missing}")
        self._check_no_missing(_columns(frame, self.feature_names_in_))
        self._apply_unseen_policy(frame)
        numbers = _numeric_values(frame, [rule.name for rule in self.rules_ if not isinstance(rule, _OneHotRule)])
        blocks = [rule.encode(numbers[rule.name] if rule.name in numbers else frame[rule.name])
                  for rule in self.rules_]
        n_columns = sum(len(g.columns) for g in self.groups_)
        data = np.hstack(blocks) if blocks else np.empty((len(frame), 0))
        return pd.DataFrame(
            data.reshape(len(frame), n_columns).astype(self._output_dtype),
            index=frame.index,
            columns=self.get_feature_names_out(),
        )

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self, "groups_")
        return np.asarray([c for g in self.groups_ for c in g.columns], dtype=object)

    # -- pieces --------------------------------------------------------------------------------
    def _check_params(self) -> None:
        if self.unseen not in UNSEEN_POLICIES:
            raise ValueError(f"unseen must be 'warn', 'ignore' or 'error', got {self.unseen!r}")
        if self.drop_binary not in (False, True, "first", "last"):
            raise ValueError(
                f"drop_binary must be False, True/'first' or 'last', got {self.drop_binary!r}"
            )

    @staticmethod
    def _check_no_missing(frame: pd.DataFrame) -> None:
        """Reject missing values, naming every column that has some (and how many rows) in one message."""
        if not frame.isna().to_numpy().any():
            return
        counts = frame.isna().sum()
        counts = counts[counts > 0]
        if len(counts):
            listing = ", ".join(f"{column!r} ({n} row{'s' * (n != 1)})" for column, n in counts.items())
            n_rows = int(frame.isna().any(axis=1).sum())
            raise ValueError(
                f"missing values in {len(counts)} column{'s' * (len(counts) != 1)}: {listing}; drop the {n_rows} "
                f"row{'s' * (n_rows != 1)} (X.dropna(), or a registered dataset's variant 'complete' or "
                "'missing-as-category': odtlib.data.list_variants(name)) or impute them before encoding"
            )

    def _unseen_rows(self, frame: pd.DataFrame) -> dict[str, np.ndarray]:
        """Categorical column -> mask of its rows with a value not seen in fit (columns with any)."""
        masks = {rule.name: rule.unseen_rows(frame[rule.name]) for rule in self.rules_
                 if isinstance(rule, _OneHotRule)}
        return {name: mask for name, mask in masks.items() if mask.any()}

    def _apply_unseen_policy(self, frame: pd.DataFrame) -> None:
        """Warn once (``"warn"``) or raise (``"error"``) about categories not seen in fit."""
        masks = {} if self.unseen == "ignore" else self._unseen_rows(frame)
        if not masks:
            return
        listing = "; ".join(
            f"{name!r}: {_preview(pd.unique(frame[name].to_numpy(dtype=object)[mask]))}"
            for name, mask in masks.items()
        )
        n_rows = int(np.logical_or.reduce(list(masks.values())).sum())
        where = f"{type(self).__name__}.transform: {n_rows} of {len(frame)} rows have values not seen in fit"
        if self.unseen == "error":
            raise ValueError(
                f"{where} ({listing}); pass unseen='warn' or 'ignore' to encode them as all zeros in "
                "their group, or shuffle the rows before splitting them"
            )
        warnings.warn(
            f"{where}, encoded as all zeros in their group ({listing}). Rows sorted by value give such "
            "folds in unshuffled cross-validation: shuffle them (load_dataset(..., shuffle=True) or "
            "KFold(shuffle=True)). unseen='ignore' silences this warning, unseen='error' raises.",
            UserWarning,
            stacklevel=3,
        )

    def _treat_as_categorical(self, dtype) -> bool:
        """Does a column of this dtype get the one-hot rule (else :meth:`_numeric_rule`)?"""
        return categorical_by_dtype(dtype)

    def _categorical_rule(self, name: str, column: pd.Series) -> _OneHotRule:
        """One-hot; with ``drop_binary`` a two-valued column keeps a single indicator.

        ``drop_binary=True`` or ``"first"`` drops the first value (in sorted order) and keeps
        the indicator of the second, as paper 003's files do; ``"last"`` keeps the first value's
        indicator, as paper 001's files do.
        """
        values = _sorted_values(column)
        kept = values
        if len(values) == 2 and self.drop_binary:
            kept = values[:1] if self.drop_binary == "last" else values[1:]
        return _OneHotRule(name, values, kept)

    def _numeric_rule(self, name: str, x: np.ndarray, y: np.ndarray | None):
        raise NotImplementedError


class OneHotEncoder(_GroupEncoder):
    """One indicator column ``col=value`` per distinct value of every column (numeric included).

    Parameters
    ----------
    drop_binary : False, True/"first" or "last"
        For two-valued columns keep a single indicator: ``True``/``"first"`` drops the first
        value in sorted order (paper 003's encoded files), ``"last"`` drops the last one (paper
        001's files). Default ``False`` keeps both.
    unseen : "warn", "ignore" or "error"
        A value not seen in ``fit`` is encoded as all zeros in its column's group, with one
        warning per ``transform`` call naming the columns and values (``"warn"``, the default)
        or silently (``"ignore"``); ``"error"`` raises ``ValueError`` naming them. Dropping a
        binary column's indicator (``drop_binary``) makes an unseen value look like the dropped one.

    Attributes
    ----------
    groups_ : list of FeatureGroup
        One group per input column, listing its output columns.
    feature_names_in_, n_features_in_
        The input columns.

    Examples
    --------
    Every value of every column becomes an indicator, numbers included:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"colour": ["red", "green", "red", "blue"], "size": [1.0, 2.0, 3.0, 4.0]})
    >>> OneHotEncoder().fit(frame).get_feature_names_out().tolist()
    ['colour=blue', 'colour=green', 'colour=red', 'size=1', 'size=2', 'size=3', 'size=4']
    >>> OneHotEncoder().fit_transform(frame[["colour"]])
       colour=blue  colour=green  colour=red
    0            0             0           1
    1            0             1           0
    2            0             0           1
    3            1             0           0
    """

    def _treat_as_categorical(self, dtype) -> bool:
        return True


class QuantileBucketEncoder(_GroupEncoder):
    """QB-k (paper 003, Sec. 6.1, Fig. 4): one indicator per quantile bucket of each numeric column.

    Bucket edges are the ``k``-quantiles of the training column (``pandas.qcut``); equal edges
    are merged, so a column with many ties gets fewer than ``k`` buckets (a column whose inner
    quantiles all equal its minimum gets a single, always-1 bucket, as in the paper's files).
    Buckets are ``(q_{j}, q_{j+1}]``, the first closed on the left; values outside the training
    range at transform time fall into the first or last bucket. Categorical columns are one-hot.

    Parameters
    ----------
    k : int, default 5
        Number of quantile buckets per numeric column.
    drop_binary, unseen
        As for :class:`OneHotEncoder`.

    Examples
    --------
    The median of 1, 2, 3, 4 is 2.5, so k = 2 gives the buckets [1, 2.5] and (2.5, 4]:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"colour": ["red", "green", "red", "blue"], "size": [1.0, 2.0, 3.0, 4.0]})
    >>> encoded = QuantileBucketEncoder(k=2).fit_transform(frame[["size"]])
    >>> encoded.columns.tolist(), encoded["size in (2.5, 4]"].tolist()
    (['size in [1, 2.5]', 'size in (2.5, 4]'], [0, 0, 1, 1])
    >>> QuantileBucketEncoder(k=2).fit(frame).groups_[1].kind
    'ordinal'
    """

    def __init__(self, k: int = 5, drop_binary: bool | str = False, unseen: str = "warn"):
        super().__init__(drop_binary=drop_binary, unseen=unseen)
        self.k = k

    def _n_buckets(self) -> int:
        return self.k

    def _numeric_rule(self, name, x, y) -> _BucketRule:
        k = self._n_buckets()
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        if x.min() == x.max():
            return _BucketRule(name, np.array([x.min(), x.max()]))
        _, edges = pd.qcut(x, k, retbins=True, duplicates="drop")
        return _BucketRule(name, np.asarray(edges, dtype=float))


class DecileEncoder(QuantileBucketEncoder):
    """Numeric columns -> ordered groups of (at most 10) decile indicators (paper 000, Sec. 4.4).

    The groups have kind ``"ordinal"``: the formulation may then only send a prefix or a suffix
    of the buckets to the left (paper 000's numerical-feature constraints).

    Parameters
    ----------
    drop_binary, unseen
        As for :class:`OneHotEncoder`.

    Examples
    --------
    Eleven distinct values give ten decile buckets, the lowest holding 0 and 1:

    >>> import pandas as pd
    >>> encoder = DecileEncoder().fit(pd.DataFrame({"x": range(11)}))
    >>> len(encoder.groups_[0].columns), encoder.groups_[0].columns[0]
    (10, 'x in [0, 1]')
    """

    def __init__(self, drop_binary: bool | str = False, unseen: str = "warn"):
        super().__init__(k=10, drop_binary=drop_binary, unseen=unseen)


class QuantileThresholdEncoder(_GroupEncoder):
    """QT-k (paper 003, Sec. 6.1, Fig. 5): indicators ``x > q_j`` at the inner k-quantiles.

    The thresholds are the ``j/k``-quantiles, ``j = 1..k-1``, of the training column with
    midpoint interpolation (``numpy.quantile(..., method="midpoint")``), duplicates removed.
    The strict ``>`` is what the authors' encoded files contain (their code tests
    ``x >= q + 1e-8``). Categorical columns are one-hot.

    Parameters
    ----------
    k : int >= 2, default 5
        The thresholds are the inner k-quantiles.
    drop_binary, unseen
        As for :class:`OneHotEncoder`.

    Examples
    --------
    With k = 2 the one threshold is the median 2.5 of 1, 2, 3, 4:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"colour": ["red", "green", "red", "blue"], "size": [1.0, 2.0, 3.0, 4.0]})
    >>> QuantileThresholdEncoder(k=2).fit_transform(frame[["size"]])
       size>2.5
    0         0
    1         0
    2         1
    3         1
    """

    def __init__(self, k: int = 5, drop_binary: bool | str = False, unseen: str = "warn"):
        super().__init__(drop_binary=drop_binary, unseen=unseen)
        self.k = k

    def _numeric_rule(self, name, x, y) -> _ThresholdRule:
        if not isinstance(self.k, (int, np.integer)) or self.k < 2:
            raise ValueError(f"k must be an integer >= 2, got {self.k!r}")
        levels = np.arange(1, self.k) / self.k
        thresholds = np.unique(np.quantile(x, levels, method="midpoint"))
        return _ThresholdRule(name, thresholds, above=True)


class ClassChangeThresholdEncoder(_GroupEncoder):
    """Indicators ``x <= t`` at the class changes of each numeric column (DL8.5 style, paper 002).

    Sort the distinct values ``v_1 < ... < v_m`` of a column. A threshold ``(v_i + v_{i+1}) / 2``
    is made when the rows with value ``v_i`` or ``v_{i+1}`` do not all share one class: a single
    split between two values that carry the same single class never beats one at a class change.
    In a deeper tree such a split can still be needed at an inner node (a depth-2 example is in
    ``tests/test_threshold_search.py``), so a tree over these columns is optimal over every
    threshold at depth 1 and close to it beyond; :class:`MidpointThresholdEncoder` keeps every
    threshold. ``fit`` needs ``y``. Categorical columns are one-hot.

    Parameters
    ----------
    drop_binary, unseen
        As for :class:`OneHotEncoder`.

    Examples
    --------
    The labels of sizes 1, 2, 3, 4 are 1, 0, 0, 1: the class changes between 1 and 2 and between 3 and 4,
    not between 2 and 3, so the thresholds are 1.5 and 3.5:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"colour": ["red", "green", "red", "blue"], "size": [1.0, 2.0, 3.0, 4.0]})
    >>> encoder = ClassChangeThresholdEncoder().fit(frame[["size"]], [1, 0, 0, 1])
    >>> encoder.get_feature_names_out().tolist()
    ['size<=1.5', 'size<=3.5']
    """

    def _numeric_rule(self, name, x, y) -> _ThresholdRule:
        if y is None:
            raise ValueError("ClassChangeThresholdEncoder.fit needs the labels y")
        values, inverse = np.unique(x, return_inverse=True)
        classes = [set(y[inverse == i].tolist()) for i in range(len(values))]
        cuts = [
            (values[i] + values[i + 1]) / 2
            for i in range(len(values) - 1)
            if len(classes[i] | classes[i + 1]) > 1
        ]
        return _ThresholdRule(name, np.asarray(cuts, dtype=float), above=False)


class MidpointThresholdEncoder(_GroupEncoder):
    """Indicators ``x <= t`` at the midpoint of every two consecutive distinct values of each numeric column.

    Every univariate split of the training rows is one of these columns, so a tree over them is optimal over
    every threshold of the data (:class:`ClassChangeThresholdEncoder` keeps fewer). Categorical columns are
    one-hot.

    Parameters
    ----------
    drop_binary, unseen
        As for :class:`OneHotEncoder`.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"size": [1.0, 2.0, 3.0, 4.0]})
    >>> MidpointThresholdEncoder().fit(frame).get_feature_names_out().tolist()
    ['size<=1.5', 'size<=2.5', 'size<=3.5']
    """

    def _numeric_rule(self, name, x, y) -> _ThresholdRule:
        values = np.unique(x)
        return _ThresholdRule(name, (values[:-1] + values[1:]) / 2, above=False)


class UnitScaler(_GroupEncoder):
    """Numeric columns min-max scaled to [0, 1] (papers 002 and 004); categorical one-hot.

    The training minimum and maximum are kept; new data is scaled with them and not clipped,
    so test values may fall slightly outside [0, 1]. A constant column maps to 0.

    Parameters
    ----------
    drop_binary, unseen
        As for :class:`OneHotEncoder` (for the categorical columns).

    Examples
    --------
    Sizes 1 to 4 map to (size - 1) / 3; a new value 7 maps to 2 (not clipped):

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"colour": ["red", "green", "red", "blue"], "size": [1.0, 2.0, 3.0, 4.0]})
    >>> scaler = UnitScaler().fit(frame)
    >>> scaler.transform(frame)["size"].round(3).tolist()
    [0.0, 0.333, 0.667, 1.0]
    >>> scaler.transform(pd.DataFrame({"colour": ["red"], "size": [7.0]}))["size"].tolist()
    [2.0]
    """

    _output_dtype = float

    def _numeric_rule(self, name, x, y) -> _ScaleRule:
        return _ScaleRule(name, float(x.min()), float(x.max()))


class CategoricalEncoding(TransformerMixin, BaseEstimator):
    """Paper 000's encoding of a mixed DataFrame: categorical columns one-hot, numeric columns ordinal.

    A numeric column with at most ``max_values_as_buckets`` distinct values gets one column per value (so
    breast-cancer's 1..10 scores give 10 columns, as the paper's 90 features); other numeric columns are
    bucketed into deciles (:class:`DecileEncoder`, Section 4.4 of Günlük et al.). Both become ordinal groups.
    Categories unseen in ``fit`` encode as all zeros (they go right at every subset test of their group).

    Parameters
    ----------
    max_values_as_buckets : int, default 10
        A numeric column with at most this many distinct values gets one column per value.

    Attributes
    ----------
    groups_ : list of FeatureGroup
        One group per original column, kind "ordinal" for numeric columns.
    by_value_ : list of str
        The numeric columns encoded value by value.
    encoder_ : DecileEncoder
        The fitted encoder.

    Examples
    --------
    ``size`` has 4 <= 10 values, so it is encoded value by value, as an ordinal group:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"colour": ["red", "green", "red", "blue"], "size": [1.0, 2.0, 3.0, 4.0]})
    >>> encoding = CategoricalEncoding().fit(frame)
    >>> [(group.name, group.kind, len(group.columns)) for group in encoding.groups_]
    [('colour', 'categorical', 3), ('size', 'ordinal', 4)]
    >>> encoding.by_value_
    ['size']
    """

    def __init__(self, max_values_as_buckets: int = 10):
        self.max_values_as_buckets = max_values_as_buckets

    def fit(self, X, y=None) -> CategoricalEncoding:
        frame = _as_frame(X)
        numeric = [c for c in frame.columns
                   if ptypes.is_numeric_dtype(frame[c]) and not ptypes.is_bool_dtype(frame[c])]
        self.by_value_ = [c for c in numeric if frame[c].nunique() <= self.max_values_as_buckets]
        self.encoder_ = DecileEncoder(unseen="ignore").fit(self._by_value_as_categories(frame))
        self.groups_ = [
            FeatureGroup(g.name, g.columns, "ordinal" if g.name in numeric else g.kind, g.values)
            for g in self.encoder_.groups_
        ]
        return self

    def _by_value_as_categories(self, frame: pd.DataFrame) -> pd.DataFrame:
        if not self.by_value_:
            return frame
        return frame.astype({c: object for c in self.by_value_})

    def transform(self, X) -> pd.DataFrame:
        check_is_fitted(self, "groups_")
        return self.encoder_.transform(self._by_value_as_categories(_as_frame(X)))

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self, "groups_")
        return self.encoder_.get_feature_names_out()


__all__ = [
    "CategoricalEncoding",
    "FeatureGroup",
    "OneHotEncoder",
    "QuantileBucketEncoder",
    "QuantileThresholdEncoder",
    "MidpointThresholdEncoder",
    "DecileEncoder",
    "UnitScaler",
    "ClassChangeThresholdEncoder",
]
