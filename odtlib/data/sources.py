"""Where raw files come from: cache, then offline mirror, then the UCI archive.

* Cache: ``$ODTLIB_DATA_DIR``; by default ``<repo>/data/raw`` when odtlib runs from a source checkout
  (a ``data/`` folder next to a ``pyproject.toml`` above the package), else ``$XDG_CACHE_HOME/odtlib``
  (``~/.cache/odtlib``). Layout: ``<cache>/<slug>/<file>``.
* Mirror: ``$ODTLIB_DATA_MIRROR``, a folder laid out the same way (e.g. a copy of the shared ``uci/`` folder).
* Download: the dataset's zip from the UCI archive (``download_url`` in the registry; the
  ``https://archive.ics.uci.edu/static/public`` prefix can be replaced with ``$ODTLIB_UCI_BASE_URL``).

Files taken from the mirror or the archive are copied into the cache. A file whose registry entry
has a sha256 is checked against it (``verify = "counts"`` marks files whose UCI bytes differ from
the mirror copy, e.g. an ARFF header the mirror lacks; those are checked by row/class counts after parsing).
"""
from __future__ import annotations

import hashlib
import io
import os
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from odtlib.data.errors import DataIntegrityError, DataUnavailableError
from odtlib.data.registry import DatasetSpec, FileSpec

UCI_BASE_URL = "https://archive.ics.uci.edu/static/public"
DOWNLOAD_TIMEOUT = 60  # seconds


def cache_dir() -> Path:
    """The cache folder (created on first write, not here)."""
    configured = os.environ.get("ODTLIB_DATA_DIR")
    if configured:
        return Path(configured).expanduser()
    repo = Path(__file__).resolve().parents[2]
    if (repo / "pyproject.toml").is_file() and (repo / "data").is_dir():
        return repo / "data" / "raw"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "odtlib"


def mirror_dir() -> Path | None:
    configured = os.environ.get("ODTLIB_DATA_MIRROR")
    return Path(configured).expanduser() if configured else None


def download_url(spec: DatasetSpec) -> str | None:
    url = spec.download_url
    base = os.environ.get("ODTLIB_UCI_BASE_URL")
    if url and base and url.startswith(UCI_BASE_URL):
        url = base.rstrip("/") + url[len(UCI_BASE_URL):]
    return url


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check_sha(file: FileSpec, data: bytes, origin: str) -> None:
    if file.sha256 is None:
        return
    got = sha256_of(data)
    if got != file.sha256:
        raise DataIntegrityError(
            f"sha256 mismatch for {file.name} from {origin}: expected {file.sha256}, got {got}"
        )


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def raw_files(spec: DatasetSpec, names: tuple[str, ...]) -> dict[str, Path]:
    """Paths in the cache of the raw files `names` of `spec`, fetching the missing ones."""
    cache = cache_dir() / spec.slug
    paths = {name: cache / name for name in names}
    missing = [spec.files[n] for n, p in paths.items() if not p.is_file()]
    for name, path in paths.items():
        if path.is_file() and spec.files[name].verify == "sha256":
            _check_sha(spec.files[name], path.read_bytes(), f"the cache ({path}; delete it to fetch again)")
    missing = _copy_from_mirror(spec, missing, cache)
    if missing:
        _download(spec, missing, cache)
    return paths


def _copy_from_mirror(spec: DatasetSpec, files: list[FileSpec], cache: Path) -> list[FileSpec]:
    """Copy what the mirror has into the cache; returns the files still missing."""
    mirror = mirror_dir()
    if mirror is None:
        return files
    still_missing = []
    for file in files:
        source = mirror / spec.slug / file.name
        if not source.is_file():
            still_missing.append(file)
            continue
        data = source.read_bytes()
        _check_sha(file, data, f"the mirror ({source})")
        _write_atomic(cache / file.name, data)
    return still_missing


def _unavailable(spec: DatasetSpec, files: list[FileSpec], reason: str) -> DataUnavailableError:
    names = ", ".join(f.name for f in files)
    return DataUnavailableError(
        f"dataset {spec.slug!r}: cannot get {names}: {reason}. Not in the cache ({cache_dir() / spec.slug})"
        f"{'' if mirror_dir() is None else f' nor in the mirror ({mirror_dir()})'}. "
        "Set ODTLIB_DATA_MIRROR=/path/to/uci mirror (folders <slug>/<file>), or check the network."
    )


def _download(spec: DatasetSpec, files: list[FileSpec], cache: Path) -> None:
    url = download_url(spec)
    if not url:
        raise _unavailable(spec, files, "this dataset has no UCI download (mirror only)")
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:
            payload = response.read()
    except (urllib.error.URLError, OSError) as exc:
        raise _unavailable(spec, files, f"download of {url} failed ({exc})") from exc
    try:
        archive = zipfile.ZipFile(io.BytesIO(payload))
    except zipfile.BadZipFile as exc:
        raise DataIntegrityError(f"{url} is not a zip file") from exc
    for file in files:
        data = _extract(archive, file.zip_member)
        if data is None:
            raise DataIntegrityError(f"{url} has no member {file.zip_member!r} (needed as {file.name})")
        if file.verify == "sha256":
            _check_sha(file, data, url)
        _write_atomic(cache / file.name, data)


def _extract(archive: zipfile.ZipFile, member: str) -> bytes | None:
    """Bytes of the member whose base name is `member`, searched in sub-folders and nested zips."""
    names = [n for n in archive.namelist() if not n.endswith("/")]
    base_names = {name: name.rsplit("/", 1)[-1] for name in names}
    exact = [n for n in names if base_names[n] == member]
    loose = [n for n in names if base_names[n].casefold() == member.casefold()]
    if exact or loose:
        return archive.read((exact or loose)[0])
    for name in names:
        if name.lower().endswith(".zip"):
            data = _extract(zipfile.ZipFile(io.BytesIO(archive.read(name))), member)
            if data is not None:
                return data
    return None
