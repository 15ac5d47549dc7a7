"""The datasets of the five papers, encoded as each paper did: 000 (categorical ODT), 001 (FlowOCT/
BendersOCT), 002 (S-OCT), 003 (BendOCT) and 004 (SVM1-ODT).

``paper_datasets.toml`` (shipped next to this module) maps each dataset name, spelled as in the
paper's own table, to a registry dataset (``load_dataset(slug, variant)``), the cleaning the
authors applied (recoded values, columns whose kind they chose differently) and the encoding. The
result reproduces the authors' published encoded files column for column (see
``tests/test_paper_datasets.py``); where those files and the paper's table disagree, the entry
says so in ``note`` and we follow the files.

Pipeline for one dataset (all steps are data in the TOML file):

1. ``load_dataset(slug, variant)``;
2. replace values as in ``recode``;
3. make the (integer-valued numeric) columns in ``as_categorical`` categorical;
4. drop constant columns (both papers' code ignores them);
5. encode: ``onehot`` (every column one-hot), ``QB-k`` or ``QT-k`` (numeric columns, categorical
   ones one-hot), with the paper's ``drop_binary`` choice for two-valued attributes.

Paper 000 uses the ``categorical`` encoding: attributes listed in ``drop`` are left out, every
categorical attribute is one-hot with all its values and every numeric one becomes an ordinal group
(:class:`odtlib.encoders.CategoricalEncoding`, Section 4.4); already-binary data (a1a)
are grouped by ``column_groups``. Its labels are 0/1 with 1 = the paper's positive class.

Paper 002 (multivariate, S-OCT) keeps the data as the authors' code read it (no row dropped,
constant attributes kept; Iris, Wine and WDBC from scikit-learn) and has three encodings, each
with categorical columns one-hot with ``drop="if_binary"`` (:mod:`odtlib.data.multivariate`):

* ``"minmax"`` (default): numeric columns min-max scaled to (1e-5, 0.99999) on the full data, as
  in the direct MIP comparison. The comprehensive comparison scales inside its cross-validation
  pipeline: take the unencoded columns from :func:`paper_attributes` and an unfitted encoder from
  ``paper_dataset_spec("002", name).encoder("minmax")`` (a scikit-learn transformer);
* ``"flowoct"``: 5 linear-percentile quantile bins per numeric column, threshold-coded (FlowOCT);
* ``"dl85"``: thresholds at label changes (DL8.5).

``list_paper_datasets("002", role="test")`` gives the ten test datasets (A-J, also accepted as
names), ``role="tuning"`` the five tuning datasets.

Paper 004 (SVM1-ODT) has the ``"unit"`` encoding: numeric attributes min-max scaled to [0, 1],
categorical attributes one-hot; its ``groups`` have one entry per attribute, of kind ``"numeric"``,
``"categorical"`` or ``"binary"``, which is what the categorical extension (Supplement A.2) needs.
Rows follow the paper's tables (complete rows, training files). Spectf-heart is not in the mirror:
asking for it raises :class:`~odtlib.data.errors.DatasetNotFoundError`.

Names: a dataset is named as in the paper's table; its registry slug (``load_dataset`` name, e.g.
``paper_dataset("001", "car-evaluation")`` for ``car_evaluation``) and the spellings in ``aliases``
are accepted too, case-insensitively, where they pick a single dataset of that paper (the three
monks datasets share one slug). :func:`list_paper_datasets` lists the names of every paper.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import pandas as pd

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from odtlib.data.dataset import load_dataset
from odtlib.data.errors import DatasetNotFoundError
from odtlib.data.registry import normalized_name, resolve_name
from odtlib.data.multivariate import (
    LabelChangeThresholdCoder,
    LinearQuantileThresholdCoder,
    OpenUnitScaler,
)
from odtlib.encoders import (
    CategoricalEncoding,
    FeatureGroup,
    OneHotEncoder,
    QuantileBucketEncoder,
    QuantileThresholdEncoder,
    UnitScaler,
)

_ENCODERS = {"QB": QuantileBucketEncoder, "QT": QuantileThresholdEncoder}
# papers 002 and 004: encodings whose encoder takes no parameter from the spec
_MULTIVARIATE = {"minmax": OpenUnitScaler, "flowoct": LinearQuantileThresholdCoder,
                 "dl85": LabelChangeThresholdCoder}
_SCALED = ("minmax", "unit")   # encodings with real-valued output columns


@dataclass(frozen=True)
class PaperDatasetSpec:
    """One dataset as a paper used it (one ``[papers.<id>.datasets.<name>]`` table)."""

    paper: str
    name: str
    slug: str
    variant: str | None
    encodings: tuple[str, ...]          # ("onehot",) for categorical-only data, else ("QB-5", "QT-5")
    drop_binary: bool | str
    rows: int                           # as printed in the paper's table
    classes: int
    features: dict[str, int]            # encoding -> features printed in the paper (004: attributes d)
    encoded_features: dict[str, int] = field(default_factory=dict)  # where the authors' file differs
    n_categorical: int | None = None    # attributes by kind, as printed (003 Table A.1)
    n_numerical: int | None = None
    reference: dict[str, str] = field(default_factory=dict)  # encoding -> authors' encoded file
    recode: dict[str, dict] = field(default_factory=dict)
    as_categorical: tuple[str, ...] = ()
    note: str = ""
    # paper 000 (Table 1): groups, % positive, the positive label and the data choices
    n_groups: int | None = None
    encoded_rows: int | None = None
    pct_positive: float | None = None
    positive: str | None = None
    drop: tuple[str, ...] = ()
    column_groups: dict[str, list[int]] = field(default_factory=dict)
    ordinal_groups: tuple[str, ...] = ()
    unavailable: str = ""
    # papers 002 and 004
    default_encoding: str | None = None
    drop_constant: bool = True          # False: keep constant attributes (002, 004)
    role: str = ""                      # 002: "test" (datasets A-J) or "tuning"
    aliases: tuple[str, ...] = ()       # other spellings of the name
    source: str = ""                    # "sklearn:<loader>": read from scikit-learn, not the registry
    fold_features: dict[str, float] = field(default_factory=dict)  # 002: table's mean over CV folds

    def resolve_encoding(self, encoding: str | None) -> str:
        """The encoding to use; categorical-only datasets ignore the requested one."""
        if self.encodings in (("onehot",), ("categorical",)):
            return self.encodings[0]
        if encoding is None and self.default_encoding:
            return self.default_encoding
        known = {e.upper(): e for e in self.encodings}
        key = None if encoding is None else str(encoding).upper().replace("_", "-")
        if key not in known:
            raise ValueError(
                f"paper {self.paper} dataset {self.name!r} has numeric features: "
                f"choose encoding from {list(self.encodings)}, got {encoding!r}"
            )
        return known[key]

    def encoder(self, encoding: str | None = None):
        """An unfitted encoder doing what the paper did (e.g. to refit on training folds)."""
        key = self.resolve_encoding(encoding)
        if key == "onehot":
            return OneHotEncoder(drop_binary=self.drop_binary)
        if key == "categorical":
            return CategoricalEncoding()
        if key in _MULTIVARIATE:
            return _MULTIVARIATE[key]()
        if key == "unit":
            return UnitScaler(drop_binary=self.drop_binary)
        scheme, k = key.split("-")
        return _ENCODERS[scheme](k=int(k), drop_binary=self.drop_binary)


def _paper_key(paper) -> str:
    return str(paper).strip().zfill(3)


@lru_cache(maxsize=1)
def _specs() -> dict[str, dict[str, PaperDatasetSpec]]:
    text = resources.files("odtlib.data").joinpath("paper_datasets.toml").read_text("utf-8")
    papers = tomllib.loads(text)["papers"]
    specs: dict[str, dict[str, PaperDatasetSpec]] = {}
    for paper, table in papers.items():
        defaults = {k: v for k, v in table.items() if k != "datasets"}
        specs[paper] = {
            name: _spec(paper, name, {**defaults, **entry})
            for name, entry in table["datasets"].items()
        }
    return specs


def _spec(paper: str, name: str, t: dict) -> PaperDatasetSpec:
    features = t["features"]
    if "encodings" in t:
        encodings = tuple(t["encodings"])
    else:
        encodings = tuple(features) if isinstance(features, dict) else (t.get("encoding", "onehot"),)
    encoded = t.get("encoded_features", {})
    if not isinstance(features, dict):
        features, encoded = {encodings[0]: features}, ({encodings[0]: encoded} if encoded else {})
    reference = t.get("reference", {})
    if isinstance(reference, str):
        reference = {e: reference.format(encoding=e.replace("-", "_")) for e in encodings}
    return PaperDatasetSpec(
        paper=paper, name=name, slug=t["slug"], variant=t.get("variant"), encodings=encodings,
        drop_binary=t["drop_binary"], rows=int(t["rows"]), classes=int(t["classes"]),
        features={k: int(v) for k, v in features.items()},
        encoded_features={k: int(v) for k, v in encoded.items()},
        n_categorical=t.get("n_categorical"), n_numerical=t.get("n_numerical"), reference=reference,
        recode=t.get("recode", {}), as_categorical=tuple(t.get("as_categorical", ())),
        note=t.get("note", ""), n_groups=t.get("groups"), encoded_rows=t.get("encoded_rows"),
        pct_positive=t.get("pct_positive"), positive=t.get("positive"), drop=tuple(t.get("drop", ())),
        column_groups=t.get("column_groups", {}), ordinal_groups=tuple(t.get("ordinal_groups", ())),
        unavailable=t.get("unavailable", ""), default_encoding=t.get("default_encoding"),
        drop_constant=t.get("drop_constant", True), role=t.get("role", ""),
        aliases=tuple(t.get("aliases", ())), source=t.get("source", ""),
        fold_features={k: float(v) for k, v in t.get("fold_features", {}).items()},
    )


def list_paper_datasets(paper, role: str | None = None) -> list[str]:
    """Dataset names of a paper (``"000"`` to ``"004"``), in the order of the paper's table.

    ``role`` keeps the datasets of one role (paper 002: ``"test"`` or ``"tuning"``).
    """
    key = _paper_key(paper)
    if key not in _specs():
        raise DatasetNotFoundError(f"no datasets recorded for paper {paper!r}; papers: {sorted(_specs())}")
    specs = _specs()[key]
    return [name for name, spec in specs.items() if role is None or spec.role == role]


def paper_names() -> list[tuple[str, str, str | None]]:
    """``(name, registry slug, variant)`` of every dataset of every paper, by the name in the paper's table."""
    return [(name, spec.slug, spec.variant) for specs in _specs().values() for name, spec in specs.items()]


def paper_dataset_spec(paper, name: str) -> PaperDatasetSpec:
    """The recorded choices for one dataset of a paper (slug, cleaning, encodings, paper counts).

    ``name`` is the paper's name of the dataset, or an alias: its registry slug or a spelling in
    ``aliases``, compared case-insensitively, when it picks a single dataset of the paper.
    """
    names = list_paper_datasets(paper)
    specs = _specs()[_paper_key(paper)]
    if name in specs:
        return specs[name]
    wanted = {normalized_name(name), normalized_name(resolve_name(name))}
    matches = [n for n, spec in specs.items()
               if wanted & {normalized_name(a) for a in (n, spec.slug, *spec.aliases)}]
    if len(matches) == 1:
        return specs[matches[0]]
    if matches:
        raise DatasetNotFoundError(
            f"{name!r} names several datasets of paper {_paper_key(paper)}: {', '.join(matches)}"
        )
    raise DatasetNotFoundError(
        f"paper {_paper_key(paper)} has no dataset {name!r}; names: {', '.join(names)}"
    )


def paper_attributes(paper, name: str) -> tuple[pd.DataFrame, pd.Series]:
    """The dataset's original columns after the paper's cleaning (steps 1-4), before encoding, and y."""
    spec = paper_dataset_spec(paper, name)
    if spec.unavailable:
        raise DatasetNotFoundError(spec.unavailable)
    X, y = _load(spec)
    X = X.drop(columns=list(spec.drop))
    for column, mapping in spec.recode.items():
        X[column] = pd.Categorical(X[column].astype(object).replace(mapping))
    for column in spec.as_categorical:
        X[column] = pd.Categorical(X[column])
    if not spec.drop_constant:
        return X, y
    constant = [c for c in X.columns if X[c].nunique() <= 1]
    return X.drop(columns=constant), y


def _load(spec: PaperDatasetSpec) -> tuple[pd.DataFrame, pd.Series]:
    """The raw columns and labels: from scikit-learn's bundled copy (``source``) or the registry."""
    if not spec.source:
        data = load_dataset(spec.slug, spec.variant)
        return data.X, data.y
    kind, loader = spec.source.split(":")
    if kind != "sklearn":
        raise ValueError(f"paper {spec.paper} {spec.name}: unknown source {spec.source!r}")
    from sklearn import datasets

    return getattr(datasets, loader)(return_X_y=True, as_frame=True)


def paper_dataset(
    paper, name: str, encoding: str | None = None
) -> tuple[pd.DataFrame, pd.Series, list[FeatureGroup]]:
    """The binary data a paper trained on: ``(X, y, groups)``.

    ``paper`` is ``"000"`` to ``"004"``; ``name`` as printed in that paper's dataset table (see
    :func:`list_paper_datasets`; registry slugs and aliases are accepted too); ``encoding`` is
    ``"QB-5"`` or ``"QT-5"`` for paper 003's datasets with numeric features (ignored for
    categorical-only ones), ``"minmax"`` (default), ``"flowoct"`` or ``"dl85"`` for paper 002,
    ``"unit"`` (default) for paper 004. ``X`` holds 0/1 ints with readable column names
    (``attribute=value``, ``attribute in (a, b]``, ``attribute>q``), except for the scaled encodings
    (``"minmax"``, ``"unit"``) whose numeric columns are floats; ``y`` the original labels,
    ``groups`` the :class:`~odtlib.encoders.FeatureGroup` of each original attribute.

    >>> X, y, groups = paper_dataset("001", "monk1")   # doctest: +SKIP
    >>> X.shape
    (124, 15)
    """
    spec = paper_dataset_spec(paper, name)
    key = spec.resolve_encoding(encoding)
    X, y = paper_attributes(paper, name)
    encoder = spec.encoder(key)
    if spec.positive is not None:   # paper 000: 1 = the positive class of Table 1
        y = (y.astype(str) == spec.positive).astype(int)
    if spec.column_groups:
        return _grouped_binary(X, spec), y, _column_groups(X, spec)
    if key in _SCALED:
        return encoder.fit(X, y).transform(X), y, encoder.groups_
    if key == "categorical":   # paper 000's encoder takes no labels
        encoder.fit(X)
    else:
        encoder.fit(X, y)
    return encoder.transform(X).astype(int), y, encoder.groups_


def _grouped_binary(X: pd.DataFrame, spec: PaperDatasetSpec) -> pd.DataFrame:
    """Already-binary columns (a1a) as 0/1 ints."""
    return X.apply(lambda column: pd.to_numeric(column.astype(str))).astype(int)


def _column_groups(X: pd.DataFrame, spec: PaperDatasetSpec) -> list[FeatureGroup]:
    """The groups of already-binary data from their 1-based [first, last] column ranges (the columns
    kept after dropping constant ones); every kept column must belong to exactly one group."""
    position = {column: j + 1 for j, column in enumerate(load_dataset(spec.slug, spec.variant).X.columns)}
    groups = []
    for group, (first, last) in spec.column_groups.items():
        columns = [c for c in X.columns if first <= position[c] <= last]
        kind = "ordinal" if group in spec.ordinal_groups else "categorical"
        groups.append(FeatureGroup(group, columns, kind, list(columns)))
    grouped = [c for g in groups for c in g.columns]
    if sorted(grouped) != sorted(X.columns):
        raise ValueError(f"paper {spec.paper} {spec.name}: column_groups do not cover each column once")
    return groups


__all__ = ["paper_dataset", "list_paper_datasets", "paper_dataset_spec", "paper_attributes",
           "PaperDatasetSpec"]
