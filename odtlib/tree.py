"""Decision trees learned by the MIP formulations: node types, prediction, (de)serialisation, text and plots.

A :class:`Tree` is a mapping from integer node ids to nodes. Internal nodes hold one of three split kinds,
matching the papers reproduced by odtlib:

* :class:`UnivariateSplit` -- ``x[feature] <= threshold`` goes left. On binary data with the default
  threshold 0.5 this is the rule "``x_f == 0`` goes left" of FlowOCT/BendersOCT (paper 001) and of the
  regularised Benders model (paper 003).
* :class:`SubsetSplit` -- a categorical feature group goes left when its value lies in a subset ``S`` of its
  categories (paper 000). On one-hot data: left iff any of the one-hot columns of ``S`` is 1.
* :class:`HyperplaneSplit` -- ``w . x <= bias`` goes left (multivariate trees of papers 002 and 004).
* :class:`CategorySplit` -- a column holding category codes goes left when its value is one of ``categories``
  (paper 004's categorical extension, which splits the unencoded column).

Leaves (:class:`Leaf`) hold the original class label (``int`` or ``str``) and, optionally, the number of
training samples of each class that reach them (:meth:`Tree.with_leaf_counts`), from which
:meth:`Tree.predict_proba` gives class probabilities as scikit-learn's ``DecisionTreeClassifier`` does.

A tree may carry the encoders' feature groups (:meth:`Tree.with_feature_groups`, a list of
:class:`odtlib.encoders.FeatureGroup`); :meth:`Tree.to_text` and :meth:`Tree.plot` then word each split in
terms of the original attributes (``petal_width <= 1.8``, ``a2 != 3``) instead of the encoded columns; a
hyperplane over :class:`~odtlib.encoders.UnitScaler` columns then reads in original units, without
coefficients below :data:`COEF_TOLERANCE` of the largest, and with one term as a univariate test
(``income <= 18,600``). :func:`export_text` and :func:`export_graphviz` (DOT) add ``n`` and the class counts
of every node, for all split kinds.
"""
from __future__ import annotations

import numbers
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import numpy as np

if TYPE_CHECKING:
    from odtlib.encoders import FeatureGroup

__all__ = ["Leaf", "UnivariateSplit", "SubsetSplit", "HyperplaneSplit", "CategorySplit", "Node", "Tree",
           "export_graphviz", "export_text"]


def _native(value: Any) -> Any:
    """Turn numpy scalars into the equivalent Python scalar (labels and ids must be JSON-safe)."""
    return value.item() if isinstance(value, np.generic) else value


def _node_id(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an integer node id, got {value!r}")
    return int(value)


def _feature_index(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"feature indices must be non-negative integers, got {value!r}")
    return int(value)


def _name(feature: int, feature_names: list[str] | None) -> str:
    return str(feature_names[feature]) if feature_names is not None else f"x{feature}"


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
        result[_native(label)] = int(n)
    return result


def _sum_counts(a: dict[Any, int] | None, b: dict[Any, int] | None) -> dict[Any, int] | None:
    """Class counts of two leaves merged into one (unknown if either is unknown)."""
    if a is None or b is None:
        return None
    return {label: a.get(label, 0) + b.get(label, 0) for label in dict.fromkeys([*a, *b])}


def _counts_text(counts: dict[Any, int]) -> str:
    """``n=50: setosa 50, versicolor 0, virginica 0`` (just ``n=0`` for a leaf no sample reaches)."""
    n = sum(counts.values())
    if not counts:
        return f"n={n}"
    return f"n={n}: " + ", ".join(f"{label} {count}" for label, count in counts.items())


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
        object.__setattr__(self, "label", _native(self.label))
        object.__setattr__(self, "counts", _leaf_counts(self.counts))

    @property
    def n_samples(self) -> int | None:
        """Number of training samples reaching the leaf (None when the counts are unknown)."""
        return None if self.counts is None else sum(self.counts.values())

    def children(self) -> tuple[int, ...]:
        return ()


# ---------------------------------------------------------------------------------------- readable conditions
# "in" only before an interval; a lone "=" (one-hot columns named ``a2=3``) reads as "=="
_COMPARISON = re.compile(r"<=|>=|!=|==|<|>|(?<![<>!=])=(?!=)|\sin\s(?=[\[(])")
_NEGATION = {"<=": ">", ">=": "<", "<": ">=", ">": "<=", "==": "!=", "!=": "==", "in": "not in"}
#: hyperplane coefficients below this fraction of the largest one (on the [0, 1]-scaled columns) are not shown
COEF_TOLERANCE = 1e-6
_GROUP_KINDS = ("categorical", "ordinal", "binary", "numeric")


def _format_value(value: Any) -> str:
    """A category or a bound as text, floats with 6 significant digits (as the encoders name columns)."""
    return format(float(value), ".6g") if isinstance(value, float) else str(value)


def _number(value: float, digits: int = 6) -> str:
    """A bound or coefficient for reading: ``digits`` significant digits, thousands separated
    (``18,600``, ``0.149``), no ``-0``."""
    text = format(float(value), f",.{digits}g")
    return "0" if text in ("-0", "0") else text


def _named_indicator(name: str, is_one: bool) -> str:
    """Text of "the 0/1 column ``name`` is 1" (``is_one``) or "is 0", knowing only the column's name.

    A name stating a comparison (``petal_width>1.8``, ``x<=3``, ``age in (30, 40]``) reads as that comparison
    or as its negation (``petal_width <= 1.8``); any other name reads ``name == 1`` / ``name == 0``.
    """
    match = _COMPARISON.search(name)
    lhs = name[: match.start()].strip() if match else ""
    rhs = name[match.end():].strip() if match else ""
    if not lhs or not rhs:
        return f"{name} == {int(is_one)}"
    op = match.group().strip().replace("=", "==") if match.group() == "=" else match.group().strip()
    return f"{lhs} {op if is_one else _NEGATION[op]} {rhs}"


def _bucket_text(name: str, bounds: list, first: int, last: int, inside: bool) -> str:
    """Text of "``name`` lies in the ordered buckets ``first..last``" (``inside``) or outside them.

    ``bounds[j] = (low, high)``; as the encoders bin new data, the first bucket also takes the values below
    its low end and the last bucket the values above its high end, so the end buckets read as one comparison.
    """
    if not isinstance(bounds[first], (tuple, list)):
        return _values_text(name, bounds, first, last, inside)
    low, high = _format_value(bounds[first][0]), _format_value(bounds[last][1])
    is_first, is_last = first == 0, last == len(bounds) - 1
    if is_first and not is_last:
        return f"{name} {'<=' if inside else '>'} {high}"
    if is_last and not is_first:
        return f"{name} {'>' if inside else '<='} {low}"
    interval = f"[{low}, {high}]" if is_first else f"({low}, {high}]"
    return f"{name} {'in' if inside else 'not in'} {interval}"


def _values_text(name: str, values: list, first: int, last: int, inside: bool) -> str:
    """Text of "``name`` is one of the ordered values ``values[first..last]``" (``inside``) or none of them.

    An ordinal group coded value by value (paper 000's 1..10 scores): a run from the smallest value reads
    ``name <= v``, a run up to the largest ``name >= v``, a single value ``name == v``.
    """
    low, high = _format_value(values[first]), _format_value(values[last])
    is_first, is_last = first == 0, last == len(values) - 1
    if first == last and not (is_first or is_last):
        return f"{name} {'==' if inside else '!='} {low}"
    if is_first and not is_last:
        return f"{name} <= {high}" if inside else f"{name} > {high}"
    if is_last and not is_first:
        return f"{name} >= {low}" if inside else f"{name} < {low}"
    return f"{low} <= {name} <= {high}" if inside else f"{name} < {low} or {name} > {high}"


def _group_indicator(group: FeatureGroup, position: int, is_one: bool) -> str | None:
    """Text of "column ``group.columns[position]`` is 1" (or "is 0") in terms of the original attribute.

    None when the group does not say what the column means (a numeric group, or a binary group whose column
    is named neither ``name=value`` nor ``name>t`` / ``name<=t``).
    """
    name, column, value = group.name, group.columns[position], group.values[position]
    if group.kind == "ordinal":
        return _bucket_text(name, group.values, position, position, is_one)
    if group.kind == "categorical" or (group.kind == "binary" and column.startswith(f"{name}=")):
        return f"{name} {'==' if is_one else '!='} {_format_value(value)}"
    if group.kind == "binary" and column.startswith((f"{name}>", f"{name}<=")):
        above = column.startswith(f"{name}>")  # the column is 1 iff x > t (QT-k), else iff x <= t
        return f"{name} {'>' if above == is_one else '<='} {_format_value(value)}"
    return None


def _group_any(group: FeatureGroup, positions: list[int]) -> str | None:
    """Text of "one of the columns at ``positions`` (sorted, at least two) is 1", or None if no short form.

    Categories read ``name in {a, b}``; a run of consecutive ordered buckets reads as one interval.
    """
    if group.kind == "categorical":
        return f"{group.name} in {{{', '.join(_format_value(group.values[p]) for p in positions)}}}"
    if group.kind == "ordinal" and positions == list(range(positions[0], positions[-1] + 1)):
        return _bucket_text(group.name, group.values, positions[0], positions[-1], True)
    if group.kind == "ordinal" and not isinstance(group.values[0], (tuple, list)):
        return f"{group.name} in {{{', '.join(_format_value(group.values[p]) for p in positions)}}}"
    return None


class _ColumnReader:
    """Words tests on single columns: through the feature group covering a column, else from its name."""

    def __init__(self, feature_names: list[str] | None, groups: list[FeatureGroup] | None) -> None:
        self.feature_names = feature_names
        self.group_of: dict[int, tuple[FeatureGroup, int]] = {}
        index = {name: i for i, name in enumerate(feature_names or [])}
        for group in groups or []:
            for position, column in enumerate(group.columns):
                if column in index:
                    self.group_of[index[column]] = (group, position)

    def name(self, feature: int) -> str:
        return _name(feature, self.feature_names)

    def indicator(self, feature: int, is_one: bool) -> str:
        """Text of "the 0/1 column ``feature`` is 1" (``is_one``) or "is 0"."""
        grouped = self.group_of.get(feature)
        text = _group_indicator(*grouped, is_one) if grouped else None
        return text if text is not None else _named_indicator(self.name(feature), is_one)

    def original_units(self, feature: int) -> tuple[str, float, float] | None:
        """``(name, low, span)`` when column ``feature`` is ``(x - low) / span`` of an attribute (a numeric
        group of :class:`~odtlib.encoders.UnitScaler`, span > 0), else None."""
        grouped = self.group_of.get(feature)
        if grouped and grouped[0].kind == "numeric":
            low, high = grouped[0].values[grouped[1]]
            if high > low:
                return grouped[0].name, float(low), float(high - low)
        return None

    def is_indicator(self, feature: int, binary: bool) -> bool:
        """Whether column ``feature`` holds 0/1 values (a column of a one-hot or threshold group, or any
        column when ``binary``)."""
        grouped = self.group_of.get(feature)
        return grouped[0].kind != "numeric" if grouped else binary

    def at_most(self, feature: int, threshold: float, binary: bool) -> str:
        """Text of ``x[feature] <= threshold``: "is 0" for 0/1 columns, in original units for scaled ones.

        A column of a 0/1 group reads as "is 0" when the threshold lies in [0, 1); other columns do when
        ``binary`` is set.
        """
        grouped = self.group_of.get(feature)
        scale = self.original_units(feature)
        if scale is not None:
            name, low, span = scale
            return f"{name} <= {_number(low + threshold * span)}"
        numeric = grouped is not None and grouped[0].kind == "numeric"  # here: a constant column
        if not numeric and (binary or (grouped and 0 <= threshold < 1)):
            return self.indicator(feature, False)
        return f"{self.name(feature)} <= {threshold:g}"

    def one_group(self, features: list[int]) -> FeatureGroup | None:
        """The feature group holding every column of ``features``, or None."""
        grouped = [self.group_of.get(f) for f in features]
        if all(grouped) and all(g is grouped[0][0] for g, _ in grouped):
            return grouped[0][0]
        return None

    def any_of(self, features: list[int]) -> str:
        """Text of "at least one of the 0/1 columns ``features`` is 1"."""
        grouped = [self.group_of.get(f) for f in features]
        if len(features) > 1 and self.one_group(features) is not None:
            text = _group_any(grouped[0][0], sorted(p for _, p in grouped))
            if text is not None:
                return text
        return " or ".join(self.indicator(f, True) for f in features)


@dataclass(frozen=True)
class UnivariateSplit:
    """``x[feature] <= threshold`` goes to ``left``, otherwise to ``right``."""

    feature: int
    left: int
    right: int
    threshold: float = 0.5

    def __post_init__(self) -> None:
        object.__setattr__(self, "feature", _feature_index(self.feature))
        object.__setattr__(self, "left", _node_id(self.left, "left"))
        object.__setattr__(self, "right", _node_id(self.right, "right"))
        object.__setattr__(self, "threshold", float(self.threshold))

    def children(self) -> tuple[int, ...]:
        return (self.left, self.right)

    def goes_left(self, X: np.ndarray) -> np.ndarray:
        return X[:, self.feature] <= self.threshold

    def n_features_required(self) -> int:
        return self.feature + 1

    def condition(self, feature_names: list[str] | None, binary: bool) -> str:
        """Text of the condition under which a sample goes left."""
        return self._condition(_ColumnReader(feature_names, None), binary)

    def _condition(self, reader: _ColumnReader, binary: bool) -> str:
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
        object.__setattr__(self, "left", _node_id(self.left, "left"))
        object.__setattr__(self, "right", _node_id(self.right, "right"))
        if self.values is not None:
            object.__setattr__(self, "values", [_native(v) for v in self.values])

    def children(self) -> tuple[int, ...]:
        return (self.left, self.right)

    def goes_left(self, X: np.ndarray) -> np.ndarray:
        return (X[:, self.features] == 1).any(axis=1)

    def n_features_required(self) -> int:
        return max(self.features) + 1

    def condition(self, feature_names: list[str] | None, binary: bool) -> str:
        """Text of the condition under which a sample goes left."""
        return self._condition(_ColumnReader(feature_names, None), binary)

    def _condition(self, reader: _ColumnReader, binary: bool) -> str:
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
        object.__setattr__(self, "left", _node_id(self.left, "left"))
        object.__setattr__(self, "right", _node_id(self.right, "right"))

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
        return self._condition(_ColumnReader(feature_names, None), binary)

    def shown_terms(self, reader: _ColumnReader, tolerance: float = COEF_TOLERANCE
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

    def _condition(self, reader: _ColumnReader, binary: bool) -> str:
        terms, bias = self.shown_terms(reader)
        if not terms:
            return f"0 <= {_number(bias, 5)}"
        if len(terms) == 1:
            return _one_term_text(reader, *terms[0], bias, binary)
        names = [(reader.original_units(f) or (reader.name(f),))[0] for f, _ in terms]
        first_name, first_w = names[0], terms[0][1]
        text = f"{_number(first_w, 4)}*{first_name}"
        for name, (_, w) in zip(names[1:], terms[1:]):
            text += f" {'-' if w < 0 else '+'} {_number(abs(w), 4)}*{name}"
        return f"{text} <= {_number(bias, 5)}"


def _one_term_text(reader: _ColumnReader, feature: int, coef: float, bias: float, binary: bool) -> str:
    """A hyperplane with one term, ``coef * x <= bias``, read as a univariate test.

    A 0/1 column reads as the indicator test that sends the same values left (``a2 != 3``); a real column
    as ``x <= bias / coef`` (``x >= bias / coef`` when ``coef < 0``), in original units.
    """
    if reader.is_indicator(feature, binary):
        zero_left, one_left = 0 <= bias, coef <= bias
        if zero_left != one_left:
            return reader.indicator(feature, one_left)
    name = (reader.original_units(feature) or (reader.name(feature),))[0]
    return f"{name} {'<=' if coef > 0 else '>='} {_number(bias / coef)}"


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
        object.__setattr__(self, "left", _node_id(self.left, "left"))
        object.__setattr__(self, "right", _node_id(self.right, "right"))

    def children(self) -> tuple[int, ...]:
        return (self.left, self.right)

    def goes_left(self, X: np.ndarray) -> np.ndarray:
        return np.isin(X[:, self.feature], self.categories)

    def n_features_required(self) -> int:
        return self.feature + 1

    def condition(self, feature_names: list[str] | None, binary: bool) -> str:
        """Text of the condition under which a sample goes left."""
        return self._condition(_ColumnReader(feature_names, None), binary)

    def _condition(self, reader: _ColumnReader, binary: bool) -> str:
        return f"{reader.name(self.feature)} in {{{', '.join(format(v, 'g') for v in self.categories)}}}"


Split = Union[UnivariateSplit, SubsetSplit, HyperplaneSplit, CategorySplit]
Node = Union[Leaf, Split]
_KINDS: dict[type, str] = {
    Leaf: "leaf",
    UnivariateSplit: "univariate",
    SubsetSplit: "subset",
    HyperplaneSplit: "hyperplane",
    CategorySplit: "category",
}


class Tree:
    """A binary decision tree: ``nodes`` maps integer ids to nodes; the tree starts at ``root``.

    The constructor checks that the nodes form a tree: every referenced child exists, no node is reached
    twice (no cycles, no shared children) and every node is reachable from the root.
    ``feature_names`` (optional) are used by :meth:`to_text` and :meth:`plot`, and so are ``feature_groups``
    (optional, see :meth:`with_feature_groups`; they need ``feature_names``).
    """

    def __init__(
        self,
        nodes: Mapping[int, Node],
        root: int = 1,
        feature_names: list[str] | None = None,
        feature_groups: Sequence[Any] | None = None,
    ) -> None:
        self.nodes: dict[int, Node] = {_node_id(k, "node id"): v for k, v in nodes.items()}
        self.root = _node_id(root, "root")
        self.feature_names = None if feature_names is None else [str(_native(n)) for n in feature_names]
        self.feature_groups = None if feature_groups is None else [_feature_group(g) for g in feature_groups]
        self._validate()
        self._validate_groups()

    # ------------------------------------------------------------------ validation and structure
    def _validate(self) -> None:
        for node_id, node in self.nodes.items():
            if type(node) not in _KINDS:
                raise TypeError(f"node {node_id} is a {type(node).__name__}, not a Leaf or a split")
        if self.root not in self.nodes:
            raise ValueError(f"root {self.root} is not among the nodes")
        seen: set[int] = set()
        stack = [self.root]
        while stack:
            node_id = stack.pop()
            if node_id in seen:
                raise ValueError(f"node {node_id} is reached twice: the nodes contain a cycle or a shared child")
            seen.add(node_id)
            for child in self.nodes[node_id].children():
                if child not in self.nodes:
                    raise ValueError(f"node {node_id} refers to child {child}, which does not exist")
                stack.append(child)
        unreachable = sorted(set(self.nodes) - seen)
        if unreachable:
            raise ValueError(f"nodes {unreachable} are not reachable from the root {self.root}")
        if self.feature_names is not None:
            needed = self.n_features_required
            if needed > len(self.feature_names):
                raise ValueError(
                    f"the splits use {needed} features but only {len(self.feature_names)} feature names were given"
                )

    def _validate_groups(self) -> None:
        """Feature groups need feature names, may not share columns and must cover some named column."""
        if self.feature_groups is None:
            return
        if self.feature_names is None:
            raise ValueError("feature groups need feature names: give the tree its column names first")
        owner: dict[str, str] = {}
        for group in self.feature_groups:
            for column in group.columns:
                if column in owner:
                    raise ValueError(
                        f"column {column!r} is in both feature groups {owner[column]!r} and {group.name!r}"
                    )
                owner[column] = group.name
        if self.feature_groups and not set(owner) & set(self.feature_names):
            raise ValueError(
                f"none of the feature groups' columns is a feature of the tree (features {self.feature_names[:5]}"
                f"{'...' if len(self.feature_names) > 5 else ''}, group columns {list(owner)[:5]}"
                f"{'...' if len(owner) > 5 else ''})"
            )

    @property
    def n_features_required(self) -> int:
        """Smallest number of columns X must have for this tree (0 for a single leaf)."""
        return max((node.n_features_required() for node in self._splits()), default=0)

    def _splits(self) -> list[Split]:
        return [node for node in self.nodes.values() if not isinstance(node, Leaf)]

    @property
    def depth(self) -> int:
        """Largest number of splits on a path from the root to a leaf (0 for a single leaf)."""
        depth_of = {self.root: 0}
        for node_id in self._preorder():
            for child in self.nodes[node_id].children():
                depth_of[child] = depth_of[node_id] + 1
        return max(depth_of.values())

    @property
    def n_leaves(self) -> int:
        return sum(isinstance(node, Leaf) for node in self.nodes.values())

    @property
    def n_splits(self) -> int:
        return len(self.nodes) - self.n_leaves

    @property
    def leaf_labels(self) -> dict[int, Any]:
        """Class label predicted by each leaf, keyed by leaf id."""
        return {i: node.label for i, node in self.nodes.items() if isinstance(node, Leaf)}

    def _preorder(self) -> list[int]:
        order, stack = [], [self.root]
        while stack:
            node_id = stack.pop()
            order.append(node_id)
            stack.extend(reversed(self.nodes[node_id].children()))
        return order

    def with_feature_names(self, feature_names: list[str] | None) -> Tree:
        """The same tree carrying ``feature_names`` (and its feature groups, if any)."""
        return Tree(self.nodes, self.root, feature_names, self.feature_groups)

    def with_feature_groups(self, groups: Sequence[Any] | None) -> Tree:
        """The same tree carrying the feature groups of an encoder (``encoder.groups_``); None removes them.

        ``groups`` are :class:`odtlib.encoders.FeatureGroup` objects (or dicts of their fields). Their
        ``columns`` are matched to the tree's feature names; columns the tree does not have (e.g. dropped by a
        feature selection) are ignored. :meth:`to_text` and :meth:`plot` then word splits on these columns in
        terms of the original attributes. The tree must have feature names.
        """
        return Tree(self.nodes, self.root, self.feature_names, groups)

    def with_leaf_counts(self, X: Any, y: Any) -> Tree:
        """A copy whose every leaf holds the number of samples of each class of ``y`` that reach it in ``X``.

        ``y`` holds the original class labels. Every leaf gets a count (possibly 0) for every class seen in
        ``y``, in sorted order; a leaf no row reaches gets all zeros.
        """
        leaf_of_row = self.apply(X)
        labels = _labels(y, len(leaf_of_row))
        classes = _sorted_labels(set(labels))
        column_of = {label: j for j, label in enumerate(classes)}
        leaf_ids = np.array(sorted(self.leaf_labels), dtype=np.int64)
        table = np.zeros((len(leaf_ids), len(classes)), dtype=np.int64)
        class_of_row = np.array([column_of[label] for label in labels], dtype=np.int64)
        np.add.at(table, (np.searchsorted(leaf_ids, leaf_of_row), class_of_row), 1)
        nodes = dict(self.nodes)
        for leaf_id, row in zip(leaf_ids.tolist(), table.tolist()):
            nodes[leaf_id] = Leaf(self.nodes[leaf_id].label, dict(zip(classes, row)))
        return Tree(nodes, self.root, self.feature_names, self.feature_groups)

    def simplified(self) -> Tree:
        """The same classifier with redundant splits collapsed, bottom-up.

        A split whose two subtrees both predict one single class becomes a leaf of that class (keeping the
        split's id); its counts are the sum of theirs (unknown if either is unknown).
        """
        nodes = dict(self.nodes)
        for node_id in reversed(self._preorder()):  # children before their parent
            node = nodes[node_id]
            if isinstance(node, Leaf):
                continue
            left, right = nodes[node.left], nodes[node.right]
            if isinstance(left, Leaf) and isinstance(right, Leaf) and left.label == right.label:
                nodes[node_id] = Leaf(left.label, _sum_counts(left.counts, right.counts))
                del nodes[node.left], nodes[node.right]
        return Tree(nodes, self.root, self.feature_names, self.feature_groups)

    # ------------------------------------------------------------------ prediction
    def _check_X(self, X: Any) -> np.ndarray:
        if hasattr(X, "columns") and self.feature_names is not None:
            columns = [str(c) for c in X.columns]
            if columns != self.feature_names:
                raise ValueError(
                    f"X has columns {columns[:5]}{'...' if len(columns) > 5 else ''} but the tree was built for "
                    f"{self.feature_names[:5]}{'...' if len(self.feature_names) > 5 else ''}"
                )
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D array of shape (n_samples, n_features), got shape {X.shape}")
        expected = len(self.feature_names) if self.feature_names is not None else self.n_features_required
        if X.shape[1] < expected or (self.feature_names is not None and X.shape[1] != expected):
            raise ValueError(f"X has {X.shape[1]} columns but the tree needs {expected}")
        return X

    def apply(self, X: Any) -> np.ndarray:
        """Id of the leaf reached by each row of X (rows are routed down the tree as index sets)."""
        X = self._check_X(X)
        leaf_of_row = np.empty(X.shape[0], dtype=np.int64)
        stack = [(self.root, np.arange(X.shape[0]))]
        while stack:
            node_id, rows = stack.pop()
            node = self.nodes[node_id]
            if isinstance(node, Leaf):
                leaf_of_row[rows] = node_id
                continue
            left = node.goes_left(X[rows])
            stack.append((node.left, rows[left]))
            stack.append((node.right, rows[~left]))
        return leaf_of_row

    def predict(self, X: Any) -> np.ndarray:
        """Class label of the leaf reached by each row of X."""
        leaf_of_row = self.apply(X)
        label_of_leaf = self.leaf_labels
        leaf_ids = np.array(sorted(label_of_leaf), dtype=np.int64)
        labels = [label_of_leaf[i] for i in leaf_ids]
        mixed = len({type(label) for label in labels}) > 1
        label_array = np.array(labels, dtype=object if mixed else None)
        return label_array[np.searchsorted(leaf_ids, leaf_of_row)]

    def predict_proba(self, X: Any, classes: Sequence[Any]) -> np.ndarray:
        """Class probabilities, shape ``(n_rows, len(classes))``, columns in the order of ``classes``.

        A row gets the class frequencies of the training samples in the leaf it reaches (the leaf counts, see
        :meth:`with_leaf_counts`), as scikit-learn's ``DecisionTreeClassifier`` does; a leaf with unknown
        counts or no samples gives probability 1 to its own label. Every leaf label and counted class must be
        among ``classes``.
        """
        column_of = _class_columns(classes)
        leaf_ids = np.array(sorted(self.leaf_labels), dtype=np.int64)
        table = np.zeros((len(leaf_ids), len(column_of)))
        for row, leaf_id in enumerate(leaf_ids.tolist()):
            table[row] = _leaf_proba(leaf_id, self.nodes[leaf_id], column_of)
        return table[np.searchsorted(leaf_ids, self.apply(X))]

    def decision_path(self, x: Any) -> list[int]:
        """Node ids visited by the single sample ``x`` (1-D), from the root to its leaf."""
        row = self._check_X(np.asarray(x, dtype=float).reshape(1, -1))
        path, node_id = [self.root], self.root
        while not isinstance(self.nodes[node_id], Leaf):
            node = self.nodes[node_id]
            node_id = node.left if node.goes_left(row)[0] else node.right
            path.append(node_id)
        return path

    # ------------------------------------------------------------------ construction from MIP solutions
    @classmethod
    def from_flow_solution(
        cls,
        depth: int,
        branch_feature: Mapping[int, int],
        node_label: Mapping[int, Any],
        feature_names: list[str] | None = None,
    ) -> Tree:
        """Build the tree encoded by a solution on the full binary tree of the given depth.

        Nodes are numbered breadth first (root 1, children of ``n`` are ``2n`` and ``2n+1``), as in the
        flow formulations of paper 001 and 003. ``branch_feature[n] = f`` makes ``n`` a split "x_f == 0
        goes left"; ``node_label[n] = k`` makes ``n`` a leaf predicting ``k`` -- also when ``n`` is an
        internal node of the full tree, in which case everything below it is dropped.
        """
        if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 0:
            raise ValueError(f"depth must be a non-negative integer, got {depth!r}")
        n_internal = 2**depth  # ids 1 .. 2^depth - 1 may branch; ids 2^depth .. 2^(depth+1) - 1 are leaves
        nodes: dict[int, Node] = {}
        stack = [1]
        while stack:
            n = stack.pop()
            branches, predicts = n in branch_feature, n in node_label
            if branches and predicts:
                raise ValueError(f"node {n} has both a branching feature and a class label")
            if predicts:
                nodes[n] = Leaf(node_label[n])
            elif branches:
                if n >= n_internal:
                    raise ValueError(f"node {n} is at depth {depth} and cannot branch")
                nodes[n] = UnivariateSplit(branch_feature[n], 2 * n, 2 * n + 1)
                stack.extend((2 * n, 2 * n + 1))
            else:
                raise ValueError(f"node {n} is reached by the tree but has neither a branching feature nor a label")
        return cls(nodes, root=1, feature_names=feature_names)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe description of the tree (node list in pre-order); inverse of :meth:`from_dict`.

        Leaf counts (``counts``: ``[label, n]`` pairs) and ``feature_groups`` are written only when present.
        """
        data: dict[str, Any] = {
            "root": self.root,
            "feature_names": None if self.feature_names is None else list(self.feature_names),
            "nodes": [_node_to_dict(node_id, self.nodes[node_id]) for node_id in self._preorder()],
        }
        if self.feature_groups is not None:
            data["feature_groups"] = [_group_to_dict(group) for group in self.feature_groups]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tree:
        nodes = {int(entry["id"]): _node_from_dict(entry) for entry in data["nodes"]}
        return cls(nodes, root=int(data["root"]), feature_names=data.get("feature_names"),
                   feature_groups=data.get("feature_groups"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        return (
            self.root == other.root
            and self.nodes == other.nodes
            and self.feature_names == other.feature_names
            and self.feature_groups == other.feature_groups
        )

    def __repr__(self) -> str:
        return f"Tree(depth={self.depth}, n_splits={self.n_splits}, n_leaves={self.n_leaves})"

    # ------------------------------------------------------------------ text and plot
    def _binary_text(self, binary: bool | None) -> bool:
        if binary is not None:
            return binary
        splits = self._splits()
        return not any(isinstance(s, HyperplaneSplit) for s in splits) and all(
            s.threshold == 0.5 for s in splits if isinstance(s, UnivariateSplit)
        )

    def _shown(self, groups: Sequence[Any] | None, simplify: bool) -> tuple[Tree, _ColumnReader]:
        """The tree to display (with ``groups`` if given, simplified if asked) and its condition wording."""
        shown = self if groups is None else self.with_feature_groups(groups)
        if simplify:
            shown = shown.simplified()
        return shown, _ColumnReader(shown.feature_names, shown.feature_groups)

    def to_text(self, binary: bool | None = None, groups: Sequence[Any] | None = None,
                simplify: bool = True) -> str:
        """Readable nested if/else rules using the feature names (and feature groups, when known).

        ``binary`` chooses how univariate splits on columns outside the feature groups read: as tests of 0/1
        columns (``x == 0``, or the negation of the comparison a column's name states, ``petal_width>1.8`` ->
        ``petal_width <= 1.8``) or as ``x <= threshold``. By default binary wording is used when every
        univariate split has the threshold 0.5 and the tree has no hyperplane split, i.e. the tree comes from a
        binary formulation. ``groups`` (an encoder's ``groups_``) replace the tree's own feature groups.
        With ``simplify`` redundant splits are collapsed (see :meth:`simplified`). Leaves with known counts
        show them: ``predict 'setosa'  (n=50: setosa 50, versicolor 0, virginica 0)``.
        """
        binary = self._binary_text(binary)
        shown, reader = self._shown(groups, simplify)
        lines: list[str] = []

        def emit(node_id: int, indent: str) -> None:
            node = shown.nodes[node_id]
            if isinstance(node, Leaf):
                counts = "" if node.counts is None else f"  ({_counts_text(node.counts)})"
                lines.append(f"{indent}predict {node.label!r}{counts}")
                return
            lines.append(f"{indent}if {node._condition(reader, binary)}:")
            emit(node.left, indent + "    ")
            lines.append(f"{indent}else:")
            emit(node.right, indent + "    ")

        emit(shown.root, "")
        return "\n".join(lines)

    def node_counts(self) -> dict[int, dict[Any, int]] | None:
        """Class counts of the training samples reaching every node (the sums of its leaves' counts); None
        when some leaf's counts are unknown (see :meth:`with_leaf_counts`)."""
        counts: dict[int, dict[Any, int] | None] = {}
        for node_id in reversed(self._preorder()):  # children before their parent
            node = self.nodes[node_id]
            counts[node_id] = node.counts if isinstance(node, Leaf) else \
                _sum_counts(counts[node.left], counts[node.right])
        return None if counts[self.root] is None else counts

    def export_text(self, binary: bool | None = None, groups: Sequence[Any] | None = None,
                    simplify: bool = True) -> str:
        """The tree as indented lines, one per node, with ``n`` and the class counts of every node when known
        (as scikit-learn's ``export_text``; the module function :func:`export_text` also counts X, y)::

            petal_width <= 0.8?  n=150: setosa 50, versicolor 50, virginica 50
            |--- yes: predict 'setosa'  n=50: setosa 50, versicolor 0, virginica 0
            |--- no: ...

        Every split kind reads as in :meth:`to_text` (``binary``, ``groups``, ``simplify`` act the same).
        """
        binary = self._binary_text(binary)
        shown, reader = self._shown(groups, simplify)
        counts = shown.node_counts() or {}
        lines: list[str] = []

        def emit(node_id: int, prefix: str, branch: str) -> None:
            node = shown.nodes[node_id]
            text = f"predict {node.label!r}" if isinstance(node, Leaf) else f"{node._condition(reader, binary)}?"
            tally = f"  {_counts_text(counts[node_id])}" if node_id in counts else ""
            lines.append(f"{prefix}{branch}{text}{tally}")
            inner = prefix + ("|   " if branch else "")
            for child, edge in zip(node.children(), ("yes", "no")):
                emit(child, inner, f"|--- {edge}: ")

        emit(shown.root, "", "")
        return "\n".join(lines)

    def export_graphviz(self, binary: bool | None = None, groups: Sequence[Any] | None = None,
                        simplify: bool = True, wrap: int = 40) -> str:
        """The tree in Graphviz's DOT language: one box per node (the split's condition or the leaf's class,
        then ``n`` and the class counts when known), "yes" edges to the left child. Render it with the
        ``dot`` program or the optional ``graphviz`` package (``graphviz.Source(text)``); the module function
        :func:`export_graphviz` also counts X, y and writes a file."""
        binary = self._binary_text(binary)
        shown, reader = self._shown(groups, simplify)
        counts = shown.node_counts() or {}
        lines = ["digraph Tree {",
                 'node [shape=box, style="rounded,filled", fontname="helvetica", fillcolor="#dde6f3"];',
                 'edge [fontname="helvetica"];']
        for node_id in shown._preorder():
            node = shown.nodes[node_id]
            head = f"predict {node.label}" if isinstance(node, Leaf) else node._condition(reader, binary)
            parts = [textwrap.fill(head, wrap)]
            if node_id in counts:
                parts.append(textwrap.fill(_counts_text(counts[node_id]), wrap))
            fill = ', fillcolor="#d9ead3"' if isinstance(node, Leaf) else ""
            lines.append(f'{node_id} [label="{_dot_escape(chr(10).join(parts))}"{fill}];')
            for child, edge in zip(node.children(), ("yes", "no")):
                lines.append(f'{node_id} -> {child} [label="{edge}"];')
        lines.append("}")
        return "\n".join(lines)

    def plot(self, ax: Any = None, binary: bool | None = None, wrap: int = 28,
             groups: Sequence[Any] | None = None, simplify: bool = True, fontsize: float = 9) -> Any:
        """Draw the tree with matplotlib: split conditions in boxes, "yes" edges to the left; returns the Axes.

        Leaves show their label and, when known, ``n`` and the class counts. ``binary``, ``groups`` and
        ``simplify`` act as in :meth:`to_text`; ``wrap`` is the line width of the box texts. The layout is
        measured in inches from the box texts (each subtree gets the width of its widest level, each level the
        height of its tallest box), so long conditions do not overlap; without ``ax`` the figure gets that
        size, with ``ax`` the drawing is scaled into it.
        """
        import matplotlib.pyplot as plt

        binary = self._binary_text(binary)
        shown, reader = self._shown(groups, simplify)
        texts = {node_id: _leaf_box_text(node, wrap) if isinstance(node, Leaf)
                 else textwrap.fill(node._condition(reader, binary), wrap)
                 for node_id, node in shown.nodes.items()}
        sizes = {node_id: _box_size(text, fontsize) for node_id, text in texts.items()}
        position, (width, height) = shown._layout(sizes)
        if ax is None:  # axes filling the figure: one unit of the layout is one inch
            fig = plt.figure(figsize=(max(3.0, width + 0.4), max(2.0, height + 0.4)))
            ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
        for node_id, (x, y) in position.items():
            for child, edge in zip(shown.nodes[node_id].children(), ("yes", "no")):
                cx, cy = position[child]
                ax.plot([x, cx], [y, cy], color="0.4", linewidth=1, zorder=1)
                middle = (y - sizes[node_id][1] / 2 + cy + sizes[child][1] / 2) / 2  # between the two boxes
                ax.text(x + (cx - x) * (y - middle) / (y - cy), middle, edge, ha="center", va="center",
                        fontsize=fontsize - 1, color="0.3", zorder=2,
                        bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none"})
        for node_id, (x, y) in position.items():
            leaf = isinstance(shown.nodes[node_id], Leaf)
            style = {"boxstyle": "round,pad=0.3" if leaf else "square,pad=0.3", "fc": "#d9ead3" if leaf
                     else "#dde6f3", "ec": "0.3"}
            ax.text(x, y, texts[node_id], ha="center", va="center", fontsize=fontsize, bbox=style, zorder=3)
        margin_x, margin_y = max(0.2, (3.0 - width) / 2), max(0.2, (2.0 - height) / 2)
        ax.set_xlim(-margin_x, width + margin_x)
        ax.set_ylim(-height - margin_y, margin_y)
        ax.set_axis_off()
        return ax

    def _layout(self, sizes: Mapping[int, tuple[float, float]] | None = None, h_gap: float = 0.25,
                v_gap: float = 0.5) -> tuple[dict[int, tuple[float, float]], tuple[float, float]]:
        """Box centres ``{node: (x, y)}`` and the drawing's ``(width, height)``, in the units of ``sizes``
        (``{node: (box width, box height)}``; unit boxes when None).

        Each subtree gets a horizontal span as wide as its root's box and as its two subtrees side by side
        (``h_gap`` apart); a node is centred over its span, so boxes of one level never overlap. Each level
        is as tall as its tallest box, ``v_gap`` below the level above (room for the yes/no labels).
        """
        sizes = sizes or {node_id: (1.0, 0.5) for node_id in self.nodes}
        level_of = {self.root: 0}
        for node_id in self._preorder():
            for child in self.nodes[node_id].children():
                level_of[child] = level_of[node_id] + 1
        n_levels = max(level_of.values()) + 1
        level_height = [max(sizes[n][1] for n, lv in level_of.items() if lv == level) for level in range(n_levels)]
        level_top = np.concatenate([[0.0], np.cumsum(np.add(level_height, v_gap))])
        span: dict[int, float] = {}
        for node_id in reversed(self._preorder()):  # children before their parent
            node = self.nodes[node_id]
            below = sum(span[c] for c in node.children()) + h_gap * (len(node.children()) - 1)
            span[node_id] = max(sizes[node_id][0], below)
        position: dict[int, tuple[float, float]] = {}

        def place(node_id: int, left: float) -> None:
            node, level = self.nodes[node_id], level_of[node_id]
            position[node_id] = (left + span[node_id] / 2, -(level_top[level] + level_height[level] / 2))
            children = node.children()
            below = sum(span[c] for c in children) + h_gap * (len(children) - 1)
            x = left + (span[node_id] - below) / 2
            for child in children:
                place(child, x)
                x += span[child] + h_gap

        place(self.root, 0.0)
        return position, (span[self.root], float(level_top[-1] - v_gap))


def _box_size(text: str, fontsize: float) -> tuple[float, float]:
    """Width and height in inches of a plot box holding ``text`` (an upper bound: 0.62 em per character,
    1.3 lines of spacing, the box's padding of 0.3 em on each side)."""
    lines = text.split("\n")
    em = fontsize / 72
    return (max(len(line) for line in lines) * 0.62 + 0.8) * em, (len(lines) * 1.3 + 0.8) * em


def _dot_escape(text: str) -> str:
    """A DOT string's content: backslashes and quotes escaped, line breaks as ``\\n``."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def export_text(tree: Tree, X: Any = None, y: Any = None, **kwargs: Any) -> str:
    """:meth:`Tree.export_text` of ``tree``; with ``X`` and ``y`` (the data the tree takes and the class
    labels) every node's counts come from them (:meth:`Tree.with_leaf_counts`)."""
    return _counted(tree, X, y).export_text(**kwargs)


def export_graphviz(tree: Tree, out_file: Any = None, X: Any = None, y: Any = None, **kwargs: Any) -> str:
    """:meth:`Tree.export_graphviz` of ``tree`` (counted on ``X``, ``y`` when given); writes the DOT text to
    ``out_file`` (a path) when given, and returns it."""
    text = _counted(tree, X, y).export_graphviz(**kwargs)
    if out_file is not None:
        Path(out_file).write_text(text + "\n", encoding="utf-8")
    return text


def _counted(tree: Tree, X: Any, y: Any) -> Tree:
    if (X is None) != (y is None):
        raise ValueError("pass both X and y to count the samples at each node, or neither")
    return tree if X is None else tree.with_leaf_counts(X, y)


def _node_to_dict(node_id: int, node: Node) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": node_id, "kind": _KINDS[type(node)]}
    if isinstance(node, Leaf):
        entry["label"] = _native(node.label)
        if node.counts is not None:  # pairs, not an object: JSON object keys would turn int labels into str
            entry["counts"] = [[label, count] for label, count in node.counts.items()]
    elif isinstance(node, UnivariateSplit):
        entry.update(feature=node.feature, threshold=node.threshold)
    elif isinstance(node, SubsetSplit):
        entry.update(features=list(node.features), group=node.group,
                     values=None if node.values is None else list(node.values))
    elif isinstance(node, CategorySplit):
        entry.update(feature=node.feature, categories=list(node.categories))
    else:
        entry.update(weights=[float(w) for w in node.weights], bias=node.bias)
    if not isinstance(node, Leaf):
        entry.update(left=node.left, right=node.right)
    return entry


def _node_from_dict(entry: Mapping[str, Any]) -> Node:
    kind = entry.get("kind")
    if kind == "leaf":
        counts = entry.get("counts")
        return Leaf(entry["label"], None if counts is None else {label: count for label, count in counts})
    if kind == "univariate":
        return UnivariateSplit(entry["feature"], entry["left"], entry["right"], entry.get("threshold", 0.5))
    if kind == "subset":
        return SubsetSplit(entry["features"], entry["left"], entry["right"], entry.get("group"), entry.get("values"))
    if kind == "category":
        return CategorySplit(entry["feature"], entry["categories"], entry["left"], entry["right"])
    if kind == "hyperplane":
        return HyperplaneSplit(np.asarray(entry["weights"], dtype=float), entry["bias"], entry["left"], entry["right"])
    raise ValueError(f"unknown node kind {kind!r} for node {entry.get('id')}")


def _group_to_dict(group: FeatureGroup) -> dict[str, Any]:
    return {"name": group.name, "columns": list(group.columns), "kind": group.kind,
            "values": [list(v) if isinstance(v, tuple) else v for v in group.values]}


def _feature_group(group: Any) -> FeatureGroup:
    """A FeatureGroup from an encoder's group or its dict form, with Python scalars and tuples as values."""
    from odtlib.encoders import FeatureGroup

    keys = ("name", "columns", "kind", "values")
    try:
        name, columns, kind, values = (group[k] if isinstance(group, Mapping) else getattr(group, k) for k in keys)
    except (KeyError, AttributeError) as error:
        raise TypeError(
            f"a feature group needs a name, columns, kind and values (odtlib.encoders.FeatureGroup), got {group!r}"
        ) from error
    if kind not in _GROUP_KINDS:
        raise ValueError(f"feature group {name!r} has kind {kind!r}; expected one of {', '.join(_GROUP_KINDS)}")
    if len(values) != len(columns):
        raise ValueError(f"feature group {name!r} has {len(columns)} columns but {len(values)} values")
    values = [tuple(_native(x) for x in v) if isinstance(v, (tuple, list)) else _native(v) for v in values]
    return FeatureGroup(str(name), [str(_native(c)) for c in columns], kind, values)


def _leaf_box_text(leaf: Leaf, wrap: int) -> str:
    """Label of a leaf's box in the plot: the class, then its counts when known."""
    if leaf.counts is None:
        return str(leaf.label)
    return f"{leaf.label}\n{textwrap.fill(_counts_text(leaf.counts), wrap)}"


def _labels(y: Any, n_rows: int) -> list:
    """The class labels ``y`` as a list of Python scalars, one per row of X."""
    array = np.asarray(y)
    if array.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {array.shape}")
    if len(array) != n_rows:
        raise ValueError(f"y has {len(array)} labels but X has {n_rows} rows")
    return [_native(label) for label in array.tolist()]


def _sorted_labels(labels: set) -> list:
    """Labels in sorted order (by type name, then text, when they cannot be compared)."""
    try:
        return sorted(labels)
    except TypeError:
        return sorted(labels, key=lambda label: (type(label).__name__, str(label)))


def _class_columns(classes: Sequence[Any]) -> dict[Any, int]:
    """Column of each class in a probability matrix; classes must be distinct."""
    labels = [_native(label) for label in np.asarray(classes, dtype=object).ravel().tolist()]
    column_of = {label: j for j, label in enumerate(labels)}
    if len(column_of) != len(labels):
        raise ValueError(f"classes must be distinct, got {labels}")
    return column_of


def _leaf_proba(leaf_id: int, leaf: Leaf, column_of: dict[Any, int]) -> np.ndarray:
    """Class frequencies of a leaf's samples (all mass on its label when it has none or they are unknown)."""
    if leaf.label not in column_of:
        raise ValueError(f"leaf {leaf_id} predicts {leaf.label!r}, which is not among the classes {list(column_of)}")
    proba = np.zeros(len(column_of))
    if not leaf.n_samples:
        proba[column_of[leaf.label]] = 1.0
        return proba
    for label, count in leaf.counts.items():
        if label not in column_of:
            raise ValueError(
                f"leaf {leaf_id} counts samples of class {label!r}, which is not among the classes {list(column_of)}"
            )
        proba[column_of[label]] += count
    return proba / leaf.n_samples
