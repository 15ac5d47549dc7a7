"""Data sources: cache, mirror, download from a UCI-like archive on 127.0.0.1, and `fetch_uci`.

The archive is an http.server thread serving zips built here from the mirror's files, laid out like
https://archive.ics.uci.edu/static/public/<id>/<name>.zip; ODTLIB_UCI_BASE_URL points to it.
No test touches the network.
"""
from __future__ import annotations

import functools
import hashlib
import http.server
import io
import os
import re
import socket
import threading
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from odtlib.data import (
    DataIntegrityError, DatasetNotFoundError, DataUnavailableError, fetch_uci, load_dataset,
)
from odtlib.data.sources import cache_dir

MIRROR = Path(os.environ.get("ODTLIB_DATA_MIRROR", "/nonexistent"))
needs_mirror = pytest.mark.skipif(not (MIRROR / "MANIFEST.csv").is_file(), reason="needs ODTLIB_DATA_MIRROR")


class Archive:
    """A folder served over HTTP on 127.0.0.1 that records the paths requested."""

    def __init__(self, root: Path):
        self.root = root
        self.requests: list[str] = []
        archive = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                archive.requests.append(self.path)
                super().do_GET()

            def log_message(self, *args):
                pass

        handler = functools.partial(Handler, directory=str(root))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    def add_zip(self, uci_id: int, zip_name: str, members: dict[str, bytes]) -> None:
        folder = self.root / str(uci_id)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / zip_name).write_bytes(make_zip(members))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


def make_zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def mirror_bytes(slug: str, name: str) -> bytes:
    return (MIRROR / slug / name).read_bytes()


@pytest.fixture
def archive(tmp_path, monkeypatch):
    """Empty cache, no mirror, downloads served from a local archive."""
    served = Archive(tmp_path / "archive")
    monkeypatch.setenv("ODTLIB_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ODTLIB_DATA_MIRROR", raising=False)
    monkeypatch.setenv("ODTLIB_UCI_BASE_URL", served.url)
    yield served
    served.close()


@needs_mirror
def test_download_extracts_needed_file_from_subfolder_then_hits_cache(archive, tmp_path):
    car = mirror_bytes("car-evaluation", "car.data")
    archive.add_zip(19, "car+evaluation.zip",
                    {"car/car.data": car, "car/car.names": b"docs", "car/car.c45-names": b"x"})
    ds = load_dataset("car-evaluation")
    assert ds.X.shape == (1728, 6) and ds.n_classes == 4
    assert archive.requests == ["/19/car+evaluation.zip"]
    cached = tmp_path / "cache" / "car-evaluation"
    assert sorted(p.name for p in cached.iterdir()) == ["car.data"]
    assert (cached / "car.data").read_bytes() == car

    again = load_dataset("car-evaluation")
    assert archive.requests == ["/19/car+evaluation.zip"]  # no second download
    pd.testing.assert_frame_equal(again.X, ds.X)


@needs_mirror
def test_download_only_the_files_of_the_variant(archive, tmp_path):
    names = ["monks-1.train", "monks-1.test", "monks-2.train", "monks-2.test", "monks-3.train", "monks-3.test"]
    archive.add_zip(70, "monk+s+problems.zip", {n: mirror_bytes("monks", n) for n in names})
    assert len(load_dataset("monks", "monks-2-test").X) == 432
    assert [p.name for p in (tmp_path / "cache" / "monks").iterdir()] == ["monks-2.test"]


@needs_mirror
def test_download_from_nested_zip(archive):
    inner = make_zip({"student-mat.csv": mirror_bytes("student-performance", "student-mat.csv"),
                      "student-por.csv": b"not needed"})
    archive.add_zip(320, "student+performance.zip", {"student.zip": inner})
    assert len(load_dataset("student-performance", "pass").X) == 395


@needs_mirror
def test_download_with_renamed_member_and_arff_header_checked_by_counts(archive, tmp_path):
    """UCI ships ThoraricSurgery.arff with its ARFF header; the mirror copy has data rows only."""
    header = "@relation 'Thoracic'\n@attribute DGN {DGN3,DGN2}\n% comment\n@data\n"
    arff = header.encode() + mirror_bytes("thoracic-surgery", "thoracic.arff")
    archive.add_zip(277, "thoracic+surgery+data.zip", {"ThoraricSurgery.arff": arff})
    ds = load_dataset("thoracic-surgery")
    assert ds.X.shape == (470, 16) and ds.X["DGN"].iloc[0] == "DGN2"
    assert (tmp_path / "cache" / "thoracic-surgery" / "thoracic.arff").read_bytes() == arff


@needs_mirror
def test_checksum_mismatch_names_file_expected_and_got(archive, tmp_path):
    tampered = mirror_bytes("car-evaluation", "car.data").replace(b"vhigh", b"VHIGH", 1)
    archive.add_zip(19, "car+evaluation.zip", {"car.data": tampered})
    with pytest.raises(DataIntegrityError) as info:
        load_dataset("car-evaluation")
    message = str(info.value)
    assert "car.data" in message
    assert "b703a9ac69f11e64ce8c223c0a40de4d2e9d769f7fb20be5f8f2e8a619893d83" in message  # MANIFEST sha
    assert hashlib.sha256(tampered).hexdigest() in message
    assert not (tmp_path / "cache" / "car-evaluation" / "car.data").exists()


@needs_mirror
def test_counts_catch_a_bad_download_without_checksum(archive):
    """A file checked by counts (not sha256) that lost rows is rejected after parsing."""
    lines = mirror_bytes("wall-following", "sensor_readings_2.csv").splitlines(keepends=True)
    archive.add_zip(194, "wall+following+robot+navigation+data.zip", {"sensor_readings_2.data": b"".join(lines[:-1])})
    with pytest.raises(DataIntegrityError, match="expected 5456 rows.*delete sensor_readings_2.csv from"):
        load_dataset("wall-following")


def _free_port() -> int:
    """A port with nobody listening on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_offline_error_says_how_to_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("ODTLIB_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ODTLIB_DATA_MIRROR", raising=False)
    monkeypatch.setenv("ODTLIB_UCI_BASE_URL", f"http://127.0.0.1:{_free_port()}")
    with pytest.raises(DataUnavailableError, match="ODTLIB_DATA_MIRROR=/path/to/uci") as info:
        load_dataset("iris")
    assert "iris.data" in str(info.value) and "network" in str(info.value)


def test_offline_error_is_one_short_line_with_the_details_as_attributes(tmp_path, monkeypatch):
    """The CLI prints str(exc): one line saying what is missing and the fix; the places tried are attributes."""
    monkeypatch.setenv("ODTLIB_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ODTLIB_DATA_MIRROR", raising=False)
    monkeypatch.setenv("ODTLIB_UCI_BASE_URL", f"http://127.0.0.1:{_free_port()}")
    with pytest.raises(DataUnavailableError) as info:
        load_dataset("avila")
    message, exc = str(info.value), info.value
    assert "\n" not in message and len(message) < 250, message
    assert message.startswith("dataset 'avila': cannot get avila-tr.txt, avila-ts.txt (not in the cache, no mirror set")
    assert (exc.dataset, exc.files) == ("avila", ("avila-tr.txt", "avila-ts.txt"))
    assert exc.tried[0] == f"cache {tmp_path / 'cache' / 'avila'}: missing"
    assert exc.tried[1] == "mirror: ODTLIB_DATA_MIRROR not set"
    assert exc.tried[2].startswith(f"UCI archive {os.environ['ODTLIB_UCI_BASE_URL']}/459/avila.zip: download failed")
    # the CLI reports FileNotFoundError and ValueError as one-line errors; RuntimeError is kept for old callers
    assert isinstance(exc, FileNotFoundError) and isinstance(exc, RuntimeError)
    assert issubclass(DataIntegrityError, ValueError) and issubclass(DataIntegrityError, RuntimeError)


def test_mirror_set_but_lacking_the_files_says_where_to_copy_them(archive, tmp_path, monkeypatch):
    (tmp_path / "mirror").mkdir()
    monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(tmp_path / "mirror"))
    target = tmp_path / "mirror" / "adult-a1a"
    expected = f"nor in the mirror; no UCI download, mirror only); copy the files into {target}"
    with pytest.raises(DataUnavailableError, match=re.escape(expected) + "$"):
        load_dataset("adult-a1a")


@pytest.mark.parametrize("make", [None, "file"], ids=["missing-folder", "a-file"])
def test_mirror_variable_that_is_not_a_folder_is_named_with_the_fix(archive, tmp_path, monkeypatch, make):
    """A wrong ODTLIB_DATA_MIRROR is reported as such, not as a download failure (no request is made)."""
    mirror = tmp_path / "no-such-mirror"
    if make == "file":
        mirror.write_text("not a folder")
    monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(mirror))
    with pytest.raises(DataUnavailableError) as info:
        load_dataset("iris")
    problem = "is not a folder" if make else "does not exist"
    assert str(info.value).startswith(f"ODTLIB_DATA_MIRROR={mirror} {problem}: point it to a folder")
    assert "or unset it to download from the UCI archive" in str(info.value)
    assert archive.requests == []


def test_corrupt_mirror_file_says_how_to_fix(archive, tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    (mirror / "iris").mkdir(parents=True)
    (mirror / "iris" / "iris.data").write_bytes(b"5.1,3.5,1.4,0.2,Iris-setosa\n")
    monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(mirror))
    with pytest.raises(DataIntegrityError) as info:
        load_dataset("iris")
    message = str(info.value)
    assert f"iris.data from the mirror ({mirror / 'iris' / 'iris.data'})" in message
    assert message.endswith("restore the file from a clean copy, or unset ODTLIB_DATA_MIRROR to download it")
    assert not (tmp_path / "cache" / "iris" / "iris.data").exists() and archive.requests == []


@needs_mirror
def test_cached_files_do_not_consult_the_mirror(archive, tmp_path, monkeypatch):
    (tmp_path / "cache" / "iris").mkdir(parents=True)
    (tmp_path / "cache" / "iris" / "iris.data").write_bytes(mirror_bytes("iris", "iris.data"))
    monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(tmp_path / "no-such-mirror"))
    assert len(load_dataset("iris").X) == 150


def test_shuffle_must_be_a_bool():
    with pytest.raises(TypeError, match="shuffle must be True or False, got 'yes'"):
        load_dataset("iris", shuffle="yes")


def test_dataset_without_uci_download_needs_the_mirror(archive):
    with pytest.raises(DataUnavailableError, match="mirror only"):
        load_dataset("adult-a1a")
    assert archive.requests == []


def test_unknown_dataset_is_reported_before_any_download(archive):
    with pytest.raises(DatasetNotFoundError, match="tic-tac-toe"):
        load_dataset("tictactoe")
    assert archive.requests == []


@needs_mirror
def test_mirror_files_are_verified_and_copied_to_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ODTLIB_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(MIRROR))
    monkeypatch.setenv("ODTLIB_UCI_BASE_URL", "http://127.0.0.1:9")
    assert len(load_dataset("iris").X) == 150
    assert (tmp_path / "cache" / "iris" / "iris.data").read_bytes() == mirror_bytes("iris", "iris.data")

    bad_mirror = tmp_path / "bad-mirror"
    (bad_mirror / "wine").mkdir(parents=True)
    (bad_mirror / "wine" / "wine.data").write_bytes(mirror_bytes("wine", "wine.data")[:-20])
    monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(bad_mirror))
    with pytest.raises(DataIntegrityError, match="wine.data.*expected"):
        load_dataset("wine")


@needs_mirror
def test_corrupted_cache_file_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("ODTLIB_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ODTLIB_DATA_MIRROR", raising=False)
    (tmp_path / "cache" / "iris").mkdir(parents=True)
    (tmp_path / "cache" / "iris" / "iris.data").write_bytes(mirror_bytes("iris", "iris.data")[:-30])
    with pytest.raises(DataIntegrityError, match="delete it"):
        load_dataset("iris")


def test_cache_dir_follows_env_and_defaults_to_repo_data_raw(tmp_path, monkeypatch):
    monkeypatch.setenv("ODTLIB_DATA_DIR", str(tmp_path / "elsewhere"))
    assert cache_dir() == tmp_path / "elsewhere"
    monkeypatch.delenv("ODTLIB_DATA_DIR")
    repo = Path(__file__).resolve().parents[1]
    expected = repo / "data" / "raw" if (repo / "data").is_dir() else None
    if expected is not None:
        assert cache_dir() == expected


# ---------------------------------------------------------------- fetch_uci (ucimlrepo mocked)

class DotDict(dict):
    __getattr__ = dict.get


def fake_repo(targets: pd.DataFrame) -> DotDict:
    features = pd.DataFrame({"colour": ["red", "blue", "?", "red"], "size": [1.5, 2.0, 3.0, None],
                             "flag": [0, 1, 1, 0]})
    variables = pd.DataFrame({"name": ["colour", "size", "flag", *targets.columns],
                              "type": ["Categorical", "Continuous", "Binary", *["Categorical"] * targets.shape[1]]})
    return DotDict(data=DotDict(features=features, targets=targets), variables=variables,
                   metadata=DotDict(name="Toy"))


def test_fetch_uci_wraps_ucimlrepo(monkeypatch):
    import ucimlrepo
    calls = []

    def fetch(id=None, name=None):
        calls.append(id)
        return fake_repo(pd.DataFrame({"label": ["a", "b", None, "a"]}))

    monkeypatch.setattr(ucimlrepo, "fetch_ucirepo", fetch)
    ds = fetch_uci(999)
    assert calls == [999]
    assert ds.name == "Toy" and ds.uci_id == 999
    assert ds.feature_kinds == {"colour": "categorical", "size": "numeric", "flag": "binary"}
    assert len(ds.X) == 3 and ds.y.tolist() == ["a", "b", "a"]  # row without label dropped
    assert isinstance(ds.X["colour"].dtype, pd.CategoricalDtype) and ds.X["size"].dtype == float
    assert ds.X["colour"].tolist() == ["red", "blue", "red"]
    assert ds.X["size"].isna().tolist() == [False, False, True]


def test_fetch_uci_needs_target_when_several(monkeypatch):
    import ucimlrepo
    targets = pd.DataFrame({"t1": ["a", "b", "a", "b"], "t2": ["x", "x", "y", "y"]})
    monkeypatch.setattr(ucimlrepo, "fetch_ucirepo", lambda id=None, name=None: fake_repo(targets))
    with pytest.raises(ValueError, match="t1.*t2"):
        fetch_uci(1)
    assert fetch_uci(1, target="t2").y.tolist() == ["x", "x", "y", "y"]


def test_fetch_uci_connection_error_becomes_offline_error(monkeypatch):
    import ucimlrepo

    def offline(id=None, name=None):
        raise ConnectionError("Error connecting to server")

    monkeypatch.setattr(ucimlrepo, "fetch_ucirepo", offline)
    with pytest.raises(DataUnavailableError, match="network"):
        fetch_uci(53)


@needs_mirror
def test_data_mirror_copies_two_datasets_into_a_mirror_that_loads_offline(tmp_path, monkeypatch, capsys):
    from odtlib.cli import main

    monkeypatch.setenv("ODTLIB_DATA_DIR", str(tmp_path / "cache"))
    target = tmp_path / "new-mirror"
    assert main(["data", "mirror", str(target), "--datasets", "iris", "balance-scale"]) == 0
    assert f"ODTLIB_DATA_MIRROR={target}" in capsys.readouterr().out
    copied = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert copied == ["MANIFEST.csv", "balance-scale/balance-scale.data", "balance-scale/balance-scale.names",
                      "iris/iris.data", "iris/iris.names"]
    for name in copied[1:]:
        assert (target / name).read_bytes() == (MIRROR / name).read_bytes()
    manifest = pd.read_csv(target / "MANIFEST.csv")
    assert manifest["slug"].tolist() == ["balance-scale", "iris"]
    # the new mirror alone (an empty cache, nothing to download) gives UCI's 150 iris and 625 balance-scale rows
    monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(target))
    monkeypatch.setenv("ODTLIB_DATA_DIR", str(tmp_path / "fresh-cache"))
    monkeypatch.setenv("ODTLIB_UCI_BASE_URL", f"http://127.0.0.1:{_free_port()}")
    assert len(load_dataset("iris").X) == 150 and len(load_dataset("balance-scale").X) == 625


def test_data_mirror_refuses_to_write_into_the_mirror_it_reads(tmp_path, monkeypatch):
    from odtlib.data.mirror import build_mirror

    monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(tmp_path))
    with pytest.raises(ValueError, match="already points at"):
        build_mirror(tmp_path, ["iris"])
