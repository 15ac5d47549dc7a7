"""The node types of a :class:`~odtlib.tree.Tree`: a leaf and four split kinds, each routing rows left or right.

* :class:`UnivariateSplit` -- ``x[feature] <= threshold`` goes left (papers 001 and 003 on 0/1 data, CART);
* :class:`SubsetSplit` -- left iff a one-hot column of the left subset of categories is 1 (paper 000);
* :class:`HyperplaneSplit` -- ``w . x <= bias`` goes left (papers 002 and 004);
* :class:`CategorySplit` -- a column of category codes goes left when its code is in a set (paper 004);
* :class:`Leaf` -- an original class label and, optionally, the class counts of the samples reaching it.

Nodes are frozen dataclasses holding the ids of their children; a split's ``condition`` is worded by
:mod:`odtlib.tree.conditions`.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from odtlib.tree.conditions import COEF_TOLERANCE, ColumnReader, number_text, one_term_text

__all__ = ["Leaf", "UnivariateSplit", "SubsetSplit", "HyperplaneSplit", "CategorySplit", "Split", "Node"]


def native_scalar(value: Any) -> Any:
    """Turn numpy scalars into the equivalent Python scalar (labels and ids must be JSON-safe)."""
    return value.item() if isinstance(value, np.generic) else value


def checked_node_id(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an integer node id, got {value!r}")
    return int(value)


def _feature_index(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"feature indices must be non-negative integers, got {value!r}")
    return int(value)


def _leaf_counts(counts: Any) -> dict[Any, int] | None:
    """Validated copy of a leaf's class counts (labels as Python scalars), or None when unknown."""
    if counts is None:
        return None
    if not isinstance(counts, Mapping):
        raise TypeError(f"Leaf counts must map class labels to numbers of samples, got {counts!r}")
    result = {}
    for label, n in counts.items():
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
            raise ValueError(f"Leaf counts must be non-negative integers, got {n!r} for class {label!r}")
        result[native_scalar(label)] = int(n)
    return result


def merged_counts(a: dict[Any, int] | None, b: dict[Any, int] | None) -> dict[Any, int] | None:
    """Class counts of two leaves merged into one (unknown if either is unknown)."""
    if a is None or b is None:
        return None
    return {label: a.get(label, 0) + b.get(label, 0) for label in dict.fromkeys([*a, *b])}


@dataclass(frozen=True)
class Leaf:
    """A leaf predicting ``label`` (an original class label; numpy scalars are stored as Python scalars).

    ``counts`` maps class labels to the number of training samples of that class reaching the leaf (None
    when unknown; see :meth:`Tree.with_leaf_counts`). It takes part in equality but not in the hash, and
    must not be modified in place.
    """

    label: Any
    counts: dict[Any, int] | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", native_scalar(self.label))
        object.__setattr__(self, "counts", _leaf_counts(self.counts))

    @property
    def n_samples(self) -> int | None:
        """Number of training samples reaching the leaf (None when the counts are unknown)."""
        return None if self.counts is None else sum(self.counts.values())

    def children(self) -> tuple[int, ...]:
        return ()


@dataclass(frozen=True)
class UnivariateSplit:
    """``x[feature] <= threshold`` goes to ``left``, otherwise to ``right``."""

    feature: int
    left: int
    right: int
    threshold: float = 0.5

    def __post_init__(self) -> None:
        object.__setattr__(self, "feature", _feature_index(self.feature))
        object.__setattr__(self, "left", checked_node_id(self.left, "left"))
        object.__setattr__(self, "right", checked_node_id(self.right, "right"))
        object.__setattr__(self, "threshold", float(self.threshold))

    def children(self) -> tuple[int, ...]:
        return (self.left, self.right)

    def goes_left(self, X: np.ndarray) -> np.ndarray:
        return X[:, self.feature] <= self.threshold

    def n_features_required(self) -> int:
        return self.feature + 1

    def condition(self, feature_names: list[str] | None, binary: bool) -> str:
        """Text of the condition under which a sample goes left."""
        return self._condition(ColumnReader(feature_names, None), binary)

    def _condition(self, reader: ColumnReader, binary: bool) -> str:
        return reader.at_most(self.feature, self.threshold, binary)


@dataclass(frozen=True)
class SubsetSplit:
    """Left iff any of the one-hot columns ``features`` is 1 (their categories form the left set, paper 000).

    ``group`` names the categorical feature and ``values`` the categories of the left set; both only serve
    the readable text ("odor in {almond, anise, none}").
    """

    features: list[int]
    left: int
    right: int
    group: str | None = None
    values: list | None = None

    def __post_init__(self) -> None:
        features = [_feature_index(f) for f in self.features]
        if not features:
            raise ValueError("a SubsetSplit needs at least one feature column")
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "left", checked_node_id(self.left, "left"))
        object.__setattr__(self, "right", checked_node_id(self.right, "right"))
        if self.values is not None:
            object.__setattr__(self, "values", [native_scalar(v) for v in self.values])

    def children(self) -> tuple[int, ...]:
        return (self.left, self.right)

    def goes_left(self, X: np.ndarray) -> np.ndarray:
        return (X[:, self.features] == 1).any(axis=1)

    def n_features_required(self) -> int:
        return max(self.features) + 1

    def condition(self, feature_names: list[str] | None, binary: bool) -> str:
        """Text of the condition under which a sample goes left."""
        return self._condition(ColumnReader(feature_names, None), binary)

    def _condition(self, reader: ColumnReader, binary: bool) -> str:
        """Through the feature group of the columns when known (``a2 == 3``, runs of ordered values as one
        comparison), else by the split's own group name and values."""
        if self.group is not None and self.values is not None and reader.one_group(self.features) is None:
            return f"{self.group} in {{{', '.join(str(v) for v in self.values)}}}"
        return reader.any_of(self.features)


@dataclass(frozen=True, eq=False)
class HyperplaneSplit:
    """``weights . x <= bias`` goes to ``left``, otherwise to ``right``."""

    weights: np.ndarray
    bias: float
    left: int
    right: int

    def __post_init__(self) -> None:
        weights = np.array(self.weights, dtype=float)
        if weights.ndim != 1:
            raise ValueError(f"HyperplaneSplit weights must be 1-D, got shape {weights.shape}")
        weights.setflags(write=False)
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "bias", float(self.bias))
        object.__setattr__(self, "left", checked_node_id(self.left, "left"))
        object.__setattr__(self, "right", checked_node_id(self.right, "right"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HyperplaneSplit):
            return NotImplemented
        return (
            np.array_equal(self.weights, other.weights)
            and self.bias == other.bias
            and (self.left, self.right) == (other.left, other.right)
        )

    def children(self) -> tuple[int, ...]:
        return (self.left, self.right)

    def goes_left(self, X: np.ndarray) -> np.ndarray:
        return X[:, : len(self.weights)] @ self.weights <= self.bias

    def n_features_required(self) -> int:
        return len(self.weights)

    def condition(self, feature_names: list[str] | None, binary: bool) -> str:
        """Text of the condition under which a sample goes left."""
        return self._condition(ColumnReader(feature_names, None), binary)

    def shown_terms(self, reader: ColumnReader, tolerance: float = COEF_TOLERANCE
                    ) -> tuple[list[tuple[int, float]], float]:
        """The hyperplane as it is printed: ``([(feature, coefficient), ...], bias)`` in original units.

        A column ``(x - low) / span`` of a :class:`~odtlib.encoders.UnitScaler` group contributes
        ``w / span`` to x's coefficient and ``w * low / span`` to the bias (``w . x_scaled <= b`` is
        ``sum (w / span) x <= b + sum w low / span``). Terms whose weight is at most ``tolerance`` times the
        largest |weight| are left out: on columns scaled to [0, 1] the weight is the term's whole range, so
        they cannot move a point by more than that fraction of the largest term (solver noise such as
        ``-1.6e-17``).
        """
        largest = float(np.max(np.abs(self.weights), initial=0.0))
        terms, bias = [], self.bias
        for feature, weight in enumerate(self.weights.tolist()):
            if abs(weight) <= tolerance * largest:
                continue
            scale = reader.original_units(feature)
            if scale is not None:
                _, low, span = scale
                terms.append((feature, weight / span))
                bias += weight * low / span
            else:
                terms.append((feature, weight))
        return terms, bias

    def _condition(self, reader: ColumnReader, binary: bool) -> str:
        terms, bias = self.shown_terms(reader)
        if not terms:
            return f"0 <= {number_text(bias, 5)}"
        if len(terms) == 1:
            return one_term_text(reader, *terms[0], bias, binary)
        names = [(reader.original_units(f) or (reader.name(f),))[0] for f, _ in terms]
        first_name, first_w = names[0], terms[0][1]
        text = f"{number_text(first_w, 4)}*{first_name}"
        for name, (_, w) in zip(names[1:], terms[1:]):
            text += f" {'-' if w < 0 else '+'} {number_text(abs(w), 4)}*{name}"
        return f"{text} <= {number_text(bias, 5)}"


@dataclass(frozen=True)
class CategorySplit:
    """``x[feature]`` (a column of category codes) goes to ``left`` when it is one of ``categories``, otherwise
    (other and unseen codes) to ``right``."""

    feature: int
    categories: tuple
    left: int
    right: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "feature", _feature_index(self.feature))
        object.__setattr__(self, "categories", tuple(sorted(float(v) for v in self.categories)))
        object.__setattr__(self, "left", checked_node_id(self.left, "left"))
        object.__setattr__(self, "right", checked_node_id(self.right, "right"))

    def children(self) -> tuple[int, ...]:
        return (self.left, self.right)

    def goes_left(self, X: np.ndarray) -> np.ndarray:
        return np.isin(X[:, self.feature], self.categories)

    def n_features_required(self) -> int:
        return self.feature + 1

    def condition(self, feature_names: list[str] | None, binary: bool) -> str:
        """Text of the condition under which a sample goes left."""
        return self._condition(ColumnReader(feature_names, None), binary)

    def _condition(self, reader: ColumnReader, binary: bool) -> str:
        return f"{reader.name(self.feature)} in {{{', '.join(format(v, 'g') for v in self.categories)}}}"


Split = Union[UnivariateSplit, SubsetSplit, HyperplaneSplit, CategorySplit]
Node = Union[Leaf, Split]
NODE_KINDS: dict[type, str] = {
    Leaf: "leaf",
    UnivariateSplit: "univariate",
    SubsetSplit: "subset",
    HyperplaneSplit: "hyperplane",
    CategorySplit: "category",
}
