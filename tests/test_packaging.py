"""The conda environment file cannot be exercised on CI (no conda here); keep it consistent
with pyproject.toml instead (its Python pin and pip line: tests/test_install.py)."""
from __future__ import annotations

import re
from pathlib import Path

import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _environment() -> dict:
    return yaml.safe_load((ROOT / "environment.yml").read_text())


def _lower_bound(spec: str) -> str | None:
    match = re.search(r">=\s*([0-9][0-9.]*)", spec)
    return match.group(1) if match else None


def test_conda_packages_do_not_contradict_pyproject():
    names = {re.split(r"[<>=\[ ]", dep, maxsplit=1)[0].lower(): dep for dep in _pyproject()["project"]["dependencies"]}
    for dep in _environment()["dependencies"]:
        if not isinstance(dep, str) or dep.startswith(("python", "pip", "glpk")):
            continue
        name = re.split(r"[<>= ]", dep, maxsplit=1)[0].lower()
        assert name in names, f"{name} is in environment.yml but not in pyproject.toml"
        assert _lower_bound(dep) == _lower_bound(names[name])


def test_glpk_comes_from_conda_forge():
    env = _environment()
    assert "conda-forge" in env["channels"]
    assert "glpk" in env["dependencies"]
