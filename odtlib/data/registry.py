"""The dataset registry: ``datasets.toml`` (shipped in the package) read into small dataclasses.

Each ``[datasets.<slug>]`` table says where the raw files come from (UCI id, download URL, file
names with their sha256), how to parse them (separator, header, column names copied from the UCI
``.names`` files, target, id columns, missing-value markers), the kind of each feature and the
expected row and class counts. ``[datasets.<slug>.variants.<name>]`` tables describe sub-files and
the cleaning choices made by the papers; a variant only lists what differs from the default.
"""
from __future__ import annotations

import difflib
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from odtlib.data.errors import DatasetNotFoundError

KINDS = ("categorical", "numeric", "binary")
SEPARATORS = {",": ",", ";": ";", "\t": "\t", "whitespace": r"\s+"}


@dataclass(frozen=True)
class FileSpec:
    """One raw file: its name in the cache/mirror, checksum and how to find it in the UCI zip."""

    name: str
    sha256: str | None = None
    member: str | None = None          # file name inside the UCI zip when it differs from `name`
    verify: str = "sha256"             # "sha256", or "counts" when the UCI bytes differ from the mirror
    columns: tuple[str, ...] | None = None  # per-file column list when it differs from the dataset's
    skip_rows: int | None = None

    @property
    def zip_member(self) -> str:
        return self.member or self.name


@dataclass(frozen=True)
class VariantSpec:
    """A named way of loading a dataset: which files, which rows, which label."""

    name: str
    files: tuple[str, ...]
    rows: int
    classes: int
    target: str
    complete: bool = False             # drop rows with any missing value
    missing_as_category: bool = False  # keep missing markers of categorical columns as a category
    target_threshold: float | None = None  # label = int(target >= threshold)
    drop: tuple[str, ...] = ()         # further columns removed from X
    description: str = ""


@dataclass(frozen=True)
class DatasetSpec:
    slug: str
    uci_id: int
    title: str
    download_url: str | None
    sep: str
    header: bool
    skip_rows: int
    columns: tuple[str, ...]
    target: str
    ignore: tuple[str, ...]
    missing: tuple[str, ...]
    kinds: dict[str, str]              # every non-ignored column (target included) -> kind
    files: dict[str, FileSpec]
    variants: dict[str, VariantSpec]
    default: str = "default"
    notes: str = ""

    def variant(self, name: str | None) -> VariantSpec:
        key = self.default if name in (None, "default") else name
        if key not in self.variants:
            raise DatasetNotFoundError(
                f"unknown variant {name!r} of dataset {self.slug!r}; "
                f"variants: {', '.join(variant_names(self))}"
            )
        return self.variants[key]

    def file_columns(self, file: FileSpec) -> tuple[str, ...]:
        return file.columns if file.columns is not None else self.columns

    def file_skip_rows(self, file: FileSpec) -> int:
        return file.skip_rows if file.skip_rows is not None else self.skip_rows + int(self.header)


def variant_names(spec: DatasetSpec) -> list[str]:
    """``"default"`` first, then the named variants in registry order."""
    return ["default"] + [v for v in spec.variants if v != "default"]


def _kinds(slug: str, table: dict, columns: tuple[str, ...], ignore: tuple[str, ...]) -> dict[str, str]:
    default_kind = table.get("kind", "categorical")
    kinds = {c: default_kind for c in columns if c not in ignore}
    for kind in KINDS:
        for column in table.get(kind, []):
            if column not in kinds:
                raise ValueError(f"registry: {slug}: {kind} column {column!r} is not a column")
            kinds[column] = kind
    bad = {k for k in kinds.values() if k not in KINDS}
    if bad:
        raise ValueError(f"registry: {slug}: unknown kind(s) {sorted(bad)}; use {KINDS}")
    return kinds


def _variant(slug: str, name: str, table: dict, base: dict) -> VariantSpec:
    merged = {**base, **table}
    unknown = set(table) - set(VariantSpec.__dataclass_fields__) | ({"name"} & set(table))
    if unknown:
        raise ValueError(f"registry: {slug}.variants.{name}: unknown keys {sorted(unknown)}")
    return VariantSpec(
        name=name,
        files=tuple(merged["files"]),
        rows=int(merged["rows"]),
        classes=int(merged["classes"]),
        target=merged["target"],
        complete=bool(merged.get("complete", False)),
        missing_as_category=bool(merged.get("missing_as_category", False)),
        target_threshold=merged.get("target_threshold"),
        drop=tuple(merged.get("drop", ())),
        description=table.get("description", ""),
    )


DATASET_KEYS = {
    "uci_id", "title", "download_url", "sep", "header", "skip_rows", "columns", "target", "ignore", "missing",
    "kind", *KINDS, "default", "data_files", "rows", "classes", "notes", "description", "files", "variants",
}
FILE_KEYS = {"sha256", "member", "verify", "columns", "skip_rows"}


def _dataset(slug: str, t: dict) -> DatasetSpec:
    unknown = set(t) - DATASET_KEYS | {k for f in t["files"].values() for k in f} - FILE_KEYS
    if unknown:
        raise ValueError(f"registry: {slug}: unknown keys {sorted(unknown)}")
    columns = tuple(t["columns"])
    ignore = tuple(t.get("ignore", ()))
    if t["target"] not in columns:
        raise ValueError(f"registry: {slug}: target {t['target']!r} is not a column")
    if t.get("sep", ",") not in SEPARATORS:
        raise ValueError(f"registry: {slug}: sep must be one of {list(SEPARATORS)}")
    files = {}
    for name, f in t["files"].items():
        if f.get("verify", "sha256") not in ("sha256", "counts"):
            raise ValueError(f"registry: {slug}: {name}: verify must be 'sha256' or 'counts'")
        cols = f.get("columns")
        files[name] = FileSpec(
            name=name, sha256=f.get("sha256"), member=f.get("member"), verify=f.get("verify", "sha256"),
            columns=tuple(cols) if cols is not None else None, skip_rows=f.get("skip_rows"),
        )
    base = {"files": t["data_files"], "rows": t["rows"], "classes": t["classes"], "target": t["target"]}
    variants = {"default": _variant(slug, "default", {"description": t.get("description", "")}, base)}
    for name, v in t.get("variants", {}).items():
        variants[name] = _variant(slug, name, v, base)
        missing = set(variants[name].files) - set(files)
        if missing:
            raise ValueError(f"registry: {slug}.variants.{name}: files {sorted(missing)} not in files table")
    default = t.get("default", "default")
    if default != "default":  # the default is an alias of a named variant (e.g. monks -> monks-1-train)
        variants["default"] = variants[default]
    return DatasetSpec(
        slug=slug, uci_id=int(t["uci_id"]), title=t["title"], download_url=t.get("download_url"),
        sep=t.get("sep", ","), header=bool(t.get("header", False)), skip_rows=int(t.get("skip_rows", 0)),
        columns=columns, target=t["target"], ignore=ignore, missing=tuple(t.get("missing", ())),
        kinds=_kinds(slug, t, columns, ignore), files=files, variants=variants, default=default,
        notes=t.get("notes", ""),
    )


@lru_cache(maxsize=1)
def registry() -> dict[str, DatasetSpec]:
    """All registry entries, by slug (read once)."""
    text = resources.files("odtlib.data").joinpath("datasets.toml").read_text(encoding="utf-8")
    tables = tomllib.loads(text)["datasets"]
    return {slug: _dataset(slug, t) for slug, t in tables.items()}


def normalized_name(name: str) -> str:
    """A dataset name compared loosely: case-folded, runs of spaces and underscores as one hyphen
    (``car_evaluation`` = ``Car Evaluation`` = ``car-evaluation``)."""
    return re.sub(r"[\s_]+", "-", str(name).strip()).casefold()


@lru_cache(maxsize=1)
def aliases() -> dict[str, str]:
    """Other names of the registered datasets -> their slug: the papers' names for them (``house-votes-84``,
    ``car_evaluation``, ``Congressional Voting Records``; :mod:`odtlib.data.papers`) when they name a single
    dataset, normalised (:func:`normalized_name`). A paper's name for other files than the default's (``monk3``:
    the variant ``monks-3-train``) is no alias: it would load the wrong rows."""
    from odtlib.data.papers import paper_names

    entries = registry()
    slugs_of: dict[str, set[str]] = {}
    for name, slug, variant in paper_names():
        spec = entries.get(slug)  # None: a paper's dataset outside the registry (heloc)
        if spec is not None and (variant is None or spec.variant(variant).files == spec.variant(None).files):
            slugs_of.setdefault(normalized_name(name), set()).add(slug)
    table = {key: slugs.pop() for key, slugs in slugs_of.items() if len(slugs) == 1 and key not in entries}
    table.update({normalized_name(slug): slug for slug in entries})
    return table


def resolve_name(name: str) -> str:
    """The registry slug of ``name``: a slug, or a spelling of one, or a paper's name for a dataset
    (:func:`aliases`); unknown names are returned unchanged."""
    if name in registry():
        return name
    return aliases().get(normalized_name(name), name)


def get_spec(name: str) -> DatasetSpec:
    """The registry entry of `name` (a slug or an alias, :func:`resolve_name`); unknown names raise with the
    closest slugs."""
    entries = registry()
    slug = resolve_name(name)
    if slug not in entries:
        close = difflib.get_close_matches(str(name), list(entries), n=5, cutoff=0.5)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise DatasetNotFoundError(
            f"unknown dataset {name!r}.{hint} list_datasets() gives all {len(entries)} names; "
            "fetch_uci(uci_id) loads any other UCI dataset."
        )
    return entries[slug]
