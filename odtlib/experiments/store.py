"""Crash-safe result store: one JSON file per finished run, keyed by a hash of its config.

Layout: ``<path>/<key>.json`` where ``key = config_key(config)`` (sha256 of the canonical JSON of the
config). Why one file per record rather than one JSON-lines file:

* a record is written to a temporary file in the same folder and moved into place with
  ``os.replace``, which is atomic on POSIX: a killed process leaves either the whole record or
  nothing (at worst a ``*.part`` file, which is ignored) — never a torn line;
* "is this config done?" is an ``exists()`` on its key, so reruns skip finished runs without
  parsing anything, and a config can never be stored twice (a retried failure replaces its file);
* several writers (e.g. two drivers on a shared disk) need no lock;
* records get the permissions of the process umask (like any file the user creates, typically
  ``rw-r--r--``), so collaborators and Dask workers running as other users can read them.

A few thousand small files per experiment is well within what any file system handles; call
`ResultStore.to_frame` (or `ResultStore.export`) to get one table.
"""
from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from odtlib._json import json_default, json_safe

RECORD_SUFFIX = ".json"


def canonical_json(config: Mapping[str, Any]) -> str:
    """The canonical JSON text of a config: sorted keys, no spaces, numpy scalars as Python numbers."""
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping, got {type(config).__name__}")
    return json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False, default=json_default)


def config_key(config: Mapping[str, Any]) -> str:
    """Stable identity of a run: sha256 (hex) of `canonical_json` of its config.

    Equal configs give equal keys across processes, machines and Python versions; ``1`` and ``1.0``
    are different keys (as their JSON differs), so declare grid values with consistent types.
    """
    return hashlib.sha256(canonical_json(config).encode("ascii")).hexdigest()


class ResultStore:
    """The records of one experiment, one JSON file per run under ``path``.

    >>> store = ResultStore("results/paper001_accuracy")       # doctest: +SKIP
    >>> store.has(config), store.get(config), store.to_frame()  # doctest: +SKIP
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)

    def __repr__(self) -> str:
        return f"ResultStore({str(self.path)!r})"

    def _file(self, key: str) -> Path:
        return self.path / f"{key}{RECORD_SUFFIX}"

    def keys(self) -> set[str]:
        """Keys of all stored records (finished or failed)."""
        return {p.name[: -len(RECORD_SUFFIX)] for p in self.path.glob(f"*{RECORD_SUFFIX}")}

    def __len__(self) -> int:
        return len(self.keys())

    def has(self, config_or_key: Mapping[str, Any] | str) -> bool:
        return self._file(self._key(config_or_key)).exists()

    def get(self, config_or_key: Mapping[str, Any] | str) -> dict | None:
        """The stored record of a config (or key), or None if it was never stored."""
        file = self._file(self._key(config_or_key))
        if not file.exists():
            return None
        return json.loads(file.read_text(encoding="utf-8"))

    def put(self, record: Mapping[str, Any]) -> Path:
        """Write ``record`` atomically (temp file + fsync + ``os.replace``); returns its path.

        The record must carry its ``key``; an existing record with the same key is replaced. The file's
        mode is 0o666 minus the process umask (``tempfile.mkstemp`` would make it 0o600).
        """
        key = record.get("key")
        if not key:
            raise ValueError("record has no 'key' (build records with odtlib.experiments.run_one)")
        text = json.dumps(json_safe(record), sort_keys=True, allow_nan=False)
        tmp = self.path / f".{key[:16]}-{uuid.uuid4().hex}.part"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self._file(key))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return self._file(key)

    def records(self, status: str | None = None) -> Iterator[dict]:
        """All stored records (optionally only those with ``status`` "ok" or "failed"), by key."""
        for file in sorted(self.path.glob(f"*{RECORD_SUFFIX}")):
            record = json.loads(file.read_text(encoding="utf-8"))
            if status is None or record.get("status") == status:
                yield record

    def failed(self) -> list[dict]:
        """Records of failed runs (each with ``error.type``, ``error.message``, ``error.traceback``)."""
        return list(self.records(status="failed"))

    def to_frame(self, include_failed: bool = True, include_tree: bool = False) -> pd.DataFrame:
        """One row per record: see `records_to_frame`."""
        records = self.records() if include_failed else self.records(status="ok")
        return records_to_frame(records, include_tree=include_tree)

    def export(self, file: str | os.PathLike) -> Path:
        """Write all records to one JSON-lines file (``.jsonl``) or Parquet file (``.parquet``)."""
        file = Path(file)
        if file.suffix == ".parquet":
            self.to_frame(include_tree=True).to_parquet(file, index=False)
        else:
            with file.open("w", encoding="utf-8") as handle:
                for record in self.records():
                    handle.write(json.dumps(record, sort_keys=True) + "\n")
        return file

    @staticmethod
    def _key(config_or_key: Mapping[str, Any] | str) -> str:
        return config_or_key if isinstance(config_or_key, str) else config_key(config_or_key)


def records_to_frame(records, include_tree: bool = False) -> pd.DataFrame:
    """Flatten records into a DataFrame.

    Columns: ``key``, ``status``, every config key, every metric, the solve-result fields prefixed
    ``solve_`` (e.g. ``solve_status``, ``solve_gap``, ``solve_runtime``), ``wall_time``, ``error``
    (message of failed runs) and, if asked, ``tree`` (the tree's dict). A metric named like a config
    key is an error (the two would be indistinguishable).
    """
    rows = []
    for record in records:
        config, metrics = record.get("config", {}), record.get("metrics") or {}
        clash = set(config) & set(metrics)
        if clash:
            raise ValueError(f"metric names {sorted(clash)} are also config keys; rename the metrics")
        row = {"key": record["key"], "status": record["status"], **config, **metrics}
        for name, value in (record.get("solve_result") or {}).items():
            if not isinstance(value, (dict, list)):
                row[f"solve_{name}"] = value
        row["wall_time"] = (record.get("timing") or {}).get("wall_time")
        row["error"] = (record.get("error") or {}).get("message")
        if include_tree:
            row["tree"] = record.get("tree")
        rows.append(row)
    return pd.DataFrame(rows)
