"""Encodings of paper 002 (S-OCT), as its authors fed data to each method.

All three are scikit-learn transformers built like the encoders of :mod:`odtlib.encoders`:
categorical columns become one-hot indicators with scikit-learn's ``drop="if_binary"`` choice
(a two-valued attribute keeps the indicator of its second sorted value; a one-valued attribute
keeps its single, constant indicator), and numeric columns are encoded as follows.

=================================  ===============================================================
transformer                        numeric column ->
=================================  ===============================================================
``OpenUnitScaler``                 min-max scaled to (1e-5, 0.99999) (S-OCT, OCT, OCT-H)
``LinearQuantileThresholdCoder``   5 quantile bins, threshold-coded ``x >= left edge of bin k``
                                   (FlowOCT, FlowOCT-Benders)
``LabelChangeThresholdCoder``      ``x <= t`` at midpoints where the sorted labels change (DL8.5)
=================================  ===============================================================

The direct MIP comparison fits the encoder on the full data; the comprehensive comparison fits it
inside the cross-validation pipeline (use an unfitted copy from
``paper_dataset_spec("002", name).encoder(encoding)`` on ``paper_attributes("002", name)``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from odtlib.encoders import FeatureGroup, UnitScaler

#: S-OCT's MinMaxScaler feature range: strictly inside (0, 1)
OPEN_UNIT = (1e-5, 0.99999)


def _label(value: float) -> str:
    return format(float(value), ".6g")


@dataclass
class _OpenScaleRule:
    """``low + (x - x_min) * (high - low) / (x_max - x_min)``; a constant column maps to ``low``
    (scikit-learn's MinMaxScaler treats a zero range as 1)."""

    name: str
    x_min: float
    x_max: float
    low: float
    high: float

    def group(self) -> FeatureGroup:
        return FeatureGroup(self.name, [self.name], "numeric", [(self.x_min, self.x_max)])

    def encode(self, x: np.ndarray) -> np.ndarray:
        span = (self.x_max - self.x_min) or 1.0
        return (self.low + (x - self.x_min) * (self.high - self.low) / span)[:, None]


@dataclass
class _AtLeastRule:
    """Indicators ``x >= edge`` with scikit-learn KBinsDiscretizer's tolerance
    (``x + 1e-8 + 1e-5 |x|`` is compared with the edge)."""

    name: str
    edges: np.ndarray

    def group(self) -> FeatureGroup:
        columns = [f"{self.name}>={_label(e)}" for e in self.edges]
        return FeatureGroup(self.name, columns, "binary", self.edges.tolist())

    def encode(self, x: np.ndarray) -> np.ndarray:
        x = x[:, None]
        return (x + (1e-8 + 1e-5 * np.abs(x)) >= self.edges[None, :]).astype(int)


@dataclass
class _AtMostRule:
    """Indicators ``x <= t``."""

    name: str
    thresholds: np.ndarray

    def group(self) -> FeatureGroup:
        columns = [f"{self.name}<={_label(t)}" for t in self.thresholds]
        return FeatureGroup(self.name, columns, "binary", self.thresholds.tolist())

    def encode(self, x: np.ndarray) -> np.ndarray:
        x = x[:, None]
        return (x <= self.thresholds[None, :]).astype(int).reshape(len(x), len(self.thresholds))


class _IfBinaryOneHot(UnitScaler):
    """Categorical columns one-hot with ``drop="if_binary"``; numeric ones by ``_numeric_rule``."""

    _output_dtype = int

    def __init__(self, unseen: str = "error"):
        super().__init__(drop_binary="first", unseen=unseen)


class OpenUnitScaler(_IfBinaryOneHot):
    """Numeric columns min-max scaled to ``feature_range`` (default (1e-5, 0.99999)), as S-OCT's
    experiments did; categorical columns one-hot with ``drop="if_binary"``.

    Fitted minima and maxima are kept; new data is scaled with them and not clipped.
    """

    _output_dtype = float

    def __init__(self, feature_range: tuple[float, float] = OPEN_UNIT, unseen: str = "error"):
        super().__init__(unseen=unseen)
        self.feature_range = feature_range

    def _numeric_rule(self, name, x, y) -> _OpenScaleRule:
        low, high = self.feature_range
        if not low < high:
            raise ValueError(f"feature_range must be (low, high) with low < high, got {self.feature_range}")
        return _OpenScaleRule(name, float(x.min()), float(x.max()), float(low), float(high))


class LinearQuantileThresholdCoder(_IfBinaryOneHot):
    """FlowOCT's input in paper 002: ``n_bins`` quantile bins per numeric column, threshold-coded.

    Bin edges are ``numpy.percentile(x, linspace(0, 100, n_bins + 1))`` with numpy's default
    *linear* interpolation (scikit-learn < 1.7's ``KBinsDiscretizer(strategy="quantile")``;
    scikit-learn >= 1.7 defaults to ``quantile_method="averaged_inverted_cdf"``, which changes the
    bins and the published optima). Edges closer than 1e-8 to the previous one are merged. Bin
    ``k`` gets the indicator ``x >= left edge of bin k``, so the first indicator of every column is
    1 on all training rows, as in the authors' matrices (one column per bin).
    """

    def __init__(self, n_bins: int = 5, unseen: str = "error"):
        super().__init__(unseen=unseen)
        self.n_bins = n_bins

    def _numeric_rule(self, name, x, y) -> _AtLeastRule:
        if not isinstance(self.n_bins, (int, np.integer)) or self.n_bins < 2:
            raise ValueError(f"n_bins must be an integer >= 2, got {self.n_bins!r}")
        edges = np.percentile(x, np.linspace(0, 100, self.n_bins + 1))
        edges = edges[np.ediff1d(edges, to_begin=np.inf) > 1e-8]
        if len(edges) == 1:    # constant column: a single bin
            edges = np.array([edges[0], edges[0]])
        return _AtLeastRule(name, edges[:-1])


class LabelChangeThresholdCoder(_IfBinaryOneHot):
    """DL8.5's input in paper 002: indicators ``x <= t`` at label changes of each numeric column.

    Rows are sorted by value, then by label; wherever two consecutive rows differ in both value
    and label, the midpoint of the two values is a threshold. Between distinct values ``v < w``
    that is the case when the largest label at ``v`` differs from the smallest label at ``w``
    (a stricter rule than :class:`odtlib.encoders.ClassChangeThresholdEncoder`'s "the rows at
    ``v`` and ``w`` are not all of one class"). ``fit`` needs ``y``.
    """

    def _numeric_rule(self, name, x, y) -> _AtMostRule:
        if y is None:
            raise ValueError("LabelChangeThresholdCoder.fit needs the labels y")
        labels = np.unique(y, return_inverse=True)[1]    # label ranks: sorts any label type
        order = np.lexsort((labels, x))
        xs, ys = x[order], labels[order]
        change = (xs[1:] > xs[:-1]) & (ys[1:] != ys[:-1])
        return _AtMostRule(name, (xs[:-1][change] + xs[1:][change]) / 2)


__all__ = ["OPEN_UNIT", "OpenUnitScaler", "LinearQuantileThresholdCoder", "LabelChangeThresholdCoder"]
