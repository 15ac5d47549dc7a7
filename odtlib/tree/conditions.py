"""How splits and counts read: the wording of split conditions and of class counts, for text and plots.

A :class:`ColumnReader` words a test on one encoded column through the feature group that produced it
(:class:`odtlib.encoders.FeatureGroup`): ``petal_width <= 1.8`` for a threshold column, ``a2 != 3`` for a
one-hot column, an interval for a run of ordered buckets, original units for a
:class:`~odtlib.encoders.UnitScaler` column; without a group it reads the column's name. The split types of
:mod:`odtlib.tree.nodes` call it in their ``condition``.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from odtlib.encoders import FeatureGroup

__all__ = ["COEF_TOLERANCE", "ColumnReader", "counts_text", "number_text", "one_term_text"]

# "in" only before an interval; a lone "=" (one-hot columns named ``a2=3``) reads as "=="
_COMPARISON = re.compile(r"<=|>=|!=|==|<|>|(?<![<>!=])=(?!=)|\sin\s(?=[\[(])")
_NEGATION = {"<=": ">", ">=": "<", "<": ">=", ">": "<=", "==": "!=", "!=": "==", "in": "not in"}
#: hyperplane coefficients below this fraction of the largest one (on the [0, 1]-scaled columns) are not shown
COEF_TOLERANCE = 1e-6


def _format_value(value: Any) -> str:
    """A category or a bound as text, floats with 6 significant digits (as the encoders name columns)."""
    return format(float(value), ".6g") if isinstance(value, float) else str(value)


def number_text(value: float, digits: int = 6) -> str:
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


class ColumnReader:
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
            return f"{name} <= {number_text(low + threshold * span)}"
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


def _name(feature: int, feature_names: list[str] | None) -> str:
    return str(feature_names[feature]) if feature_names is not None else f"x{feature}"


def counts_text(counts: dict[Any, int]) -> str:
    """``n=50: setosa 50, versicolor 0, virginica 0`` (just ``n=0`` for a leaf no sample reaches)."""
    n = sum(counts.values())
    if not counts:
        return f"n={n}"
    return f"n={n}: " + ", ".join(f"{label} {count}" for label, count in counts.items())


def one_term_text(reader: ColumnReader, feature: int, coef: float, bias: float, binary: bool) -> str:
    """A hyperplane with one term, ``coef * x <= bias``, read as a univariate test.

    A 0/1 column reads as the indicator test that sends the same values left (``a2 != 3``); a real column
    as ``x <= bias / coef`` (``x >= bias / coef`` when ``coef < 0``), in original units.
    """
    if reader.is_indicator(feature, binary):
        zero_left, one_left = 0 <= bias, coef <= bias
        if zero_left != one_left:
            return reader.indicator(feature, one_left)
    name = (reader.original_units(feature) or (reader.name(feature),))[0]
    return f"{name} {'<=' if coef > 0 else '>='} {number_text(bias / coef)}"
