"""Raw UCI files -> typed pandas frames, driven by the registry entry.

Every raw file is read the same way: fields split by the registry's separator (``whitespace`` covers
leading/trailing blanks and double tabs), header or comment lines skipped (``skip_rows``/``header``,
or an ARFF header detected up to ``@data``), any line ending (LF, CRLF, CR) and blank lines accepted.
Numeric columns become float; categorical and binary columns become pandas ``category`` (numbers
when every value looks like a number, e.g. the monks attribute values 1..3); missing markers become NaN.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from odtlib.data.errors import DataIntegrityError
from odtlib.data.registry import SEPARATORS, DatasetSpec, FileSpec, VariantSpec


def _arff_data_start(path: Path) -> int | None:
    """Number of lines before the data of an ARFF file, or None when the file has no ARFF header."""
    with open(path, encoding="latin-1") as fh:
        for i, line in enumerate(fh):
            text = line.strip()
            if not text or text.startswith("%"):
                continue
            if not text.startswith("@"):
                return None
            if text.lower().startswith("@data"):
                return i + 1
    return None


def read_raw_file(path: Path, spec: DatasetSpec, file: FileSpec, keep_markers: bool = False) -> pd.DataFrame:
    """Read one raw file into a frame with the registry's column names.

    Numeric columns are parsed as numbers; every other column is kept as stripped text.
    Missing markers (plus empty fields) become NaN, except in categorical/binary columns when
    `keep_markers` (a variant that keeps '?' as a category of its own).
    """
    columns = spec.file_columns(file)
    skip = _arff_data_start(path)
    is_arff = skip is not None
    if skip is None:
        skip = spec.file_skip_rows(file)
    markers = [*spec.missing, ""]
    numeric = {i for i, c in enumerate(columns) if spec.kinds.get(c) == "numeric" and c != spec.target}
    na_values = {i: (markers if i in numeric or not keep_markers else [""]) for i in range(len(columns))}
    text_columns = {i: str for i in range(len(columns)) if i not in numeric}
    frame = pd.read_csv(
        path, sep=SEPARATORS[spec.sep], header=None, skiprows=skip, dtype=text_columns,
        na_values=na_values, keep_default_na=False, skipinitialspace=True, skip_blank_lines=True,
        comment="%" if is_arff else None, encoding="latin-1", engine="c",
    )
    if frame.shape[1] != len(columns):
        raise DataIntegrityError(
            f"{path}: expected {len(columns)} columns ({spec.slug} registry), found {frame.shape[1]}"
        )
    frame.columns = list(columns)
    for i, column in enumerate(columns):
        if i in numeric:
            frame[column] = _to_float(frame[column], markers, f"{path.name}: column {column!r}")
        else:
            frame[column] = frame[column].str.strip()
    return frame


def _to_float(values: pd.Series, markers: list[str], where: str) -> pd.Series:
    if pd.api.types.is_numeric_dtype(values):
        return values.astype(float)
    text = values.astype("string").str.strip().replace(dict.fromkeys(markers, pd.NA))
    try:
        return pd.to_numeric(text, errors="raise").astype(float)
    except ValueError as exc:
        raise DataIntegrityError(f"{where}: non-numeric value in a numeric column ({exc})") from None


def _categorical(values: pd.Series) -> pd.Categorical:
    """Categories of `values`; when every category looks like a number they become numbers (int when
    integral, sorted), e.g. the monks attribute values 1..3 or the heart-disease classes 0..4."""
    codes = pd.Categorical(values)
    numbers = pd.to_numeric(pd.Series(codes.categories, dtype=object), errors="coerce")
    if numbers.empty or numbers.isna().any():
        return codes
    if (numbers % 1 == 0).all():
        numbers = numbers.astype("int64")
    if numbers.duplicated().any():  # e.g. "1" and "1.0": convert value by value instead
        return pd.Categorical(pd.to_numeric(values))
    return codes.rename_categories(numbers.tolist()).reorder_categories(sorted(numbers.tolist()))


def assemble(spec: DatasetSpec, variant: VariantSpec, frames: list[pd.DataFrame]):
    """Concatenate the variant's files and apply its choices; returns (X, y, feature_kinds)."""
    data = pd.concat(frames, ignore_index=True)
    target = variant.target
    dropped = set(spec.ignore) | set(variant.drop) | {target}
    features = [c for c in spec.columns if c not in dropped]
    keep = data[target].notna()
    if variant.complete:
        keep &= data[features].notna().all(axis=1)
    data = data.loc[keep].reset_index(drop=True)

    kinds = {c: spec.kinds[c] for c in features}
    columns = {}
    for column in features:
        if kinds[column] == "numeric":
            columns[column] = data[column].astype(float)
            continue
        columns[column] = _categorical(data[column])
        if variant.missing_as_category and len(columns[column].categories) > 2:
            kinds[column] = "categorical"
    X = pd.DataFrame(columns, index=data.index)
    labels = _categorical(data[target])
    y = pd.Series(labels, name=target).astype(labels.categories.dtype)
    if variant.target_threshold is not None:
        y = (y >= variant.target_threshold).astype(int)
    return X, y, kinds
