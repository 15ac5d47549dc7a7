"""Where raw files come from: cache, then offline mirror, then the UCI archive.

* Cache: ``$ODTLIB_DATA_DIR``; by default ``<repo>/data/raw`` when odtlib runs from a source checkout
  (a ``data/`` folder next to a ``pyproject.toml`` above the package), else ``$XDG_CACHE_HOME/odtlib``
  (``~/.cache/odtlib``). Layout: ``<cache>/<slug>/<file>``.
* Mirror: ``$ODTLIB_DATA_MIRROR``, a folder laid out the same way (e.g. a copy of the shared ``uci/`` folder);
  consulted only for files the cache lacks, and a path that is not a folder is an error, not a fallback.
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


MIRROR_FIX = "restore the file from a clean copy, or unset ODTLIB_DATA_MIRROR to download it"


def mirror_dir() -> Path | None:
    """The offline mirror folder (``$ODTLIB_DATA_MIRROR``), or None when the variable is unset or empty."""
    configured = os.environ.get("ODTLIB_DATA_MIRROR")
    return Path(configured).expanduser() if configured else None


def _existing_mirror_dir() -> Path | None:
    """`mirror_dir`, checked: a path that is not a folder raises `DataUnavailableError` with the fix."""
    mirror = mirror_dir()
    if mirror is not None and not mirror.is_dir():
        problem = "is not a folder" if mirror.exists() else "does not exist"
        raise DataUnavailableError(
            f"ODTLIB_DATA_MIRROR={mirror} {problem}: point it to a folder of <slug>/<file> copies of "
            "the UCI files (e.g. ../shared/uci), or unset it to download from the UCI archive",
            tried=(f"mirror {mirror}: {problem}",),
        )
    return mirror


def download_url(spec: DatasetSpec) -> str | None:
    url = spec.download_url
    base = os.environ.get("ODTLIB_UCI_BASE_URL")
    if url and base and url.startswith(UCI_BASE_URL):
        url = base.rstrip("/") + url[len(UCI_BASE_URL):]
    return url


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check_sha(file: FileSpec, data: bytes, origin: str, fix: str) -> None:
    """Raise `DataIntegrityError` (naming `origin` and the `fix`) when `data` is not the registered file."""
    if file.sha256 is None:
        return
    got = sha256_of(data)
    if got != file.sha256:
        raise DataIntegrityError(
            f"sha256 mismatch for {file.name} from {origin}: expected {file.sha256}, got {got}; {fix}"
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
    for name, path in paths.items():
        if path.is_file() and spec.files[name].verify == "sha256":
            _check_sha(spec.files[name], path.read_bytes(), f"the cache ({path})", "delete it to fetch it again")
    missing = [spec.files[n] for n, p in paths.items() if not p.is_file()]
    if missing:
        missing = _copy_from_mirror(spec, missing, cache)
    if missing:
        _download(spec, missing, cache)
    return paths


def _copy_from_mirror(spec: DatasetSpec, files: list[FileSpec], cache: Path) -> list[FileSpec]:
    """Copy what the mirror has into the cache; returns the files still missing."""
    mirror = _existing_mirror_dir()
    if mirror is None:
        return files
    still_missing = []
    for file in files:
        source = mirror / spec.slug / file.name
        if not source.is_file():
            still_missing.append(file)
            continue
        data = source.read_bytes()
        _check_sha(file, data, f"the mirror ({source})", MIRROR_FIX)
        _write_atomic(cache / file.name, data)
    return still_missing


def _unavailable(spec: DatasetSpec, files: list[FileSpec], failure: str, url: str | None) -> DataUnavailableError:
    """The one-line error for files found nowhere (what, why, the fix); the places tried as attributes."""
    names = ", ".join(f.name for f in files)
    mirror = mirror_dir()
    if mirror is None:
        where, fix = "no mirror set", "set ODTLIB_DATA_MIRROR=/path/to/uci (folders <slug>/<file>)"
    else:
        where, fix = "nor in the mirror", f"copy the files into {mirror / spec.slug}"
    tried = (
        f"cache {cache_dir() / spec.slug}: missing",
        "mirror: ODTLIB_DATA_MIRROR not set" if mirror is None else f"mirror {mirror / spec.slug}: missing",
        f"UCI archive {url or '(none)'}: {failure}",
    )
    return DataUnavailableError(
        f"dataset {spec.slug!r}: cannot get {names} (not in the cache, {where}; {failure}); "
        f"{fix}{' or check the network' if url else ''}",
        dataset=spec.slug, files=tuple(f.name for f in files), tried=tried,
    )


def _download(spec: DatasetSpec, files: list[FileSpec], cache: Path) -> None:
    url = download_url(spec)
    if not url:
        raise _unavailable(spec, files, "no UCI download, mirror only", None)
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:
            payload = response.read()
    except (urllib.error.URLError, OSError) as exc:
        plain_url_error = isinstance(exc, urllib.error.URLError) and not isinstance(exc, urllib.error.HTTPError)
        reason = exc.reason if plain_url_error else exc  # "[Errno 111] Connection refused", "HTTP Error 404: ..."
        raise _unavailable(spec, files, f"download failed: {reason}", url) from exc
    try:
        archive = zipfile.ZipFile(io.BytesIO(payload))
    except zipfile.BadZipFile as exc:
        raise DataIntegrityError(f"{url} is not a zip file") from exc
    for file in files:
        data = _extract(archive, file.zip_member)
        if data is None:
            raise DataIntegrityError(f"{url} has no member {file.zip_member!r} (needed as {file.name})")
        if file.verify == "sha256":
            _check_sha(file, data, url, "try again later, or set ODTLIB_DATA_MIRROR to a verified copy")
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
