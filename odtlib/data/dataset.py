"""`Dataset` and the registry-backed loaders `list_datasets`, `list_variants`, `load_dataset`."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from odtlib.data.errors import DataIntegrityError
from odtlib.data.parsing import assemble, read_raw_file
from odtlib.data.registry import get_spec, registry, variant_names
from odtlib.data.sources import raw_files


@dataclass
class Dataset:
    """A classification dataset with its original columns.

    X: features (categorical/binary columns as pandas ``category``, numeric as float, missing as NaN);
    y: labels; feature_kinds: column -> "categorical" | "numeric" | "binary".
    """

    X: pd.DataFrame
    y: pd.Series
    name: str
    uci_id: int | None = None
    feature_kinds: dict[str, str] = field(default_factory=dict)
    variant: str | None = None
    description: str = ""

    @property
    def n_classes(self) -> int:
        return int(self.y.nunique())

    @property
    def n_rows(self) -> int:
        return len(self.X)

    def summary(self) -> dict:
        """One row for a data table: name, variant, rows, features by kind, classes, missing cells."""
        kinds = list(self.feature_kinds.values())
        return {
            "name": self.name, "variant": self.variant, "uci_id": self.uci_id, "rows": self.n_rows,
            "features": self.X.shape[1], "categorical": kinds.count("categorical"),
            "binary": kinds.count("binary"), "numeric": kinds.count("numeric"),
            "classes": self.n_classes, "missing_cells": int(self.X.isna().sum().sum()),
        }

    def __repr__(self) -> str:
        variant = f", variant={self.variant!r}" if self.variant else ""
        return (f"Dataset({self.name!r}{variant}: {self.n_rows} rows, {self.X.shape[1]} features, "
                f"{self.n_classes} classes)")


def list_datasets() -> list[str]:
    """Slugs of all registered datasets (the names `load_dataset` accepts), sorted."""
    return sorted(registry())


def list_variants(name: str) -> list[str]:
    """Variant names of dataset `name`: ``"default"`` first, then the named ones."""
    return variant_names(get_spec(name))


def load_dataset(name: str, variant: str | None = None, *, shuffle: bool = False,
                 random_state: int | np.random.Generator | None = 0) -> Dataset:
    """Load a registered UCI dataset (from cache, mirror or download; see :mod:`odtlib.data.sources`).

    ``name`` is a registry slug (``list_datasets()``) or another spelling of one: the papers' names
    (``house-votes-84`` for ``congressional-voting``, ``car_evaluation`` for ``car-evaluation``), any case,
    ``_`` or spaces for ``-`` (:func:`odtlib.data.registry.resolve_name`); ``Dataset.name`` is the slug.

    Without `variant`, the dataset is the one counted in the project's manifest (all files of a
    train/test split, missing values as NaN); `list_variants(name)` lists the paper-specific choices.
    Row and class counts are checked against the registry.

    Rows come in the file's order unless ``shuffle=True``, which returns them in one random order
    drawn from ``numpy.random.default_rng(random_state)`` (the same order for the same
    `random_state`; the index is reset to 0..n-1, X and y stay aligned).

    Cross-validation: many UCI files are sorted (car-evaluation by attribute values, tic-tac-toe
    by class, ...), and scikit-learn's ``cv=<int>`` (in ``cross_val_score``, ``GridSearchCV``, ...)
    splits with ``KFold``/``StratifiedKFold`` *without* shuffling, so each test fold is a contiguous
    block whose categories or classes its training folds may lack. Load with ``shuffle=True`` or
    pass ``cv=StratifiedKFold(k, shuffle=True, random_state=0)``.
    """
    if not isinstance(shuffle, bool):
        raise TypeError(f"shuffle must be True or False, got {shuffle!r}")
    spec = get_spec(name)
    chosen = spec.variant(variant)
    paths = raw_files(spec, chosen.files)
    frames = [read_raw_file(paths[f], spec, spec.files[f], keep_markers=chosen.missing_as_category)
              for f in chosen.files]
    X, y, kinds = assemble(spec, chosen, frames)
    classes = y.nunique()
    if len(X) != chosen.rows or classes != chosen.classes:
        folder = paths[chosen.files[0]].parent
        raise DataIntegrityError(
            f"{name} (variant {chosen.name}): expected {chosen.rows} rows and {chosen.classes} classes, "
            f"got {len(X)} rows and {classes} classes; the raw files in {folder} do not match the registry: "
            f"delete {', '.join(chosen.files)} from {folder} to fetch them again"
        )
    if shuffle:
        X, y = _shuffled(X, y, random_state)
    return Dataset(X=X, y=y, name=spec.slug, variant=chosen.name, uci_id=spec.uci_id, feature_kinds=kinds,
                   description=chosen.description or spec.title)


def _shuffled(X: pd.DataFrame, y: pd.Series, random_state) -> tuple[pd.DataFrame, pd.Series]:
    """X and y with their rows in the same random order (``default_rng(random_state)``), index 0..n-1."""
    order = np.random.default_rng(random_state).permutation(len(X))
    return X.iloc[order].reset_index(drop=True), y.iloc[order].reset_index(drop=True)
