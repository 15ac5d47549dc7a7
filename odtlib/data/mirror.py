"""Build an offline mirror of the registry's raw files, for machines without internet.

``odtlib data mirror PATH [--datasets ...]`` (`build_mirror`) fetches every file of every registered dataset
once, by the usual route (`odtlib.data.sources.raw_files`: the cache, then the mirror already set in
``ODTLIB_DATA_MIRROR``, then the UCI archive, each file checked against its sha256), and copies it to
``PATH/<slug>/<file>``, the layout that ``ODTLIB_DATA_MIRROR`` expects. It also writes ``PATH/MANIFEST.csv``
(slug, files, sha256 of each file). Copy PATH to the offline machine and set ``ODTLIB_DATA_MIRROR=PATH``.
"""
from __future__ import annotations

import csv
import hashlib
import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from odtlib.data.registry import DatasetSpec, get_spec, registry
from odtlib.data.sources import mirror_dir, raw_files

MANIFEST = "MANIFEST.csv"


def _specs(datasets: Iterable[str] | None) -> list[DatasetSpec]:
    """The registry entries of ``datasets`` (names or aliases), or all of them."""
    if not datasets:
        return list(registry().values())
    return [get_spec(name) for name in dict.fromkeys(datasets)]


def build_mirror(path: str | os.PathLike, datasets: Iterable[str] | None = None, progress=None) -> list[Path]:
    """Fetch the raw files of ``datasets`` (default: every registered dataset) and copy them to
    ``<path>/<slug>/<file>``, then write ``<path>/MANIFEST.csv``; returns the files written. ``progress``: a
    text stream that gets one line per dataset."""
    target = Path(path).expanduser()
    current = mirror_dir()
    if current is not None and current.exists() and target.exists() and target.resolve() == current.resolve():
        raise ValueError(f"{target} is the mirror ODTLIB_DATA_MIRROR already points at: choose another folder")
    written, rows = [], []
    for spec in _specs(datasets):
        sources = raw_files(spec, tuple(spec.files))
        for name, source in sources.items():
            destination = target / spec.slug / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
            written.append(destination)
        rows.append({"slug": spec.slug, "files": ";".join(sources),
                     "sha256": ";".join(f"{name}={_sha256(target / spec.slug / name)}" for name in sources)})
        if progress is not None:
            progress.write(f"{spec.slug}: {len(sources)} file(s)\n")
    _write_manifest(target / MANIFEST, rows)
    return written


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_manifest(path: Path, rows: list[dict]) -> None:
    """MANIFEST.csv: one row per dataset of the mirror (merged with the rows of an existing manifest)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    merged = {}
    if path.is_file():
        with path.open(newline="", encoding="utf-8") as handle:
            merged = {row["slug"]: row for row in csv.DictReader(handle) if row.get("slug")}
    merged.update({row["slug"]: row for row in rows})
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["slug", "files", "sha256"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(merged[slug] for slug in sorted(merged))
