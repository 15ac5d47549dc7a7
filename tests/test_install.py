"""The lean install (issue 31, item 4): `make demo` installs the runtime and the notebook extra only, and
environment.yml pins a Python for which every dependency publishes a wheel. No network: the wheel facts are
a declared table below, checked against the wheels installed on this machine where it has them.

The Binder configuration (issue 34, item 5: binder/environment.yml and binder/postBuild, read by repo2docker)
pins the same Python, brings GLPK, and installs the runtime and the notebook extra with no commercial solver."""
from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
ENVIRONMENT_FILES = ("environment.yml", "binder/environment.yml")
COMMERCIAL = {"gurobipy", "cplex", "docplex", "xpress", "mosek"}

# The dependencies whose wheels limit the Python version (all others publish wheels for 3.10-3.13).
# Each: the version the extras resolve to, and the CPython tags it publishes (or None: a pure "py3" wheel) with
# the Python versions its metadata accepts.
#   pystreed 1.4.0: wheels cp38-cp312 on PyPI; newer Pythons build from the sdist (g++, cmake). Installed
#                   here from pystreed-1.4.0-cp311-cp311-manylinux_2_17_x86_64.whl.
#   mip 1.15.0:     one py3-none-any wheel; METADATA "Requires-Python: <3.12,>=3.7" (ODTlearn's CBC).
#   cffi 1.15.1:    mip 1.15 requires cffi==1.15.*; 1.15.1's CPython wheels stop at cp311 on PyPI.
WHEEL_ONLY = {
    "pystreed": ("1.4.0", {"cp38", "cp39", "cp310", "cp311", "cp312"}),
    "mip": ("1.15.0", None),
    "cffi": ("1.15.1", {"cp36", "cp37", "cp38", "cp39", "cp310", "cp311"}),
}
MIP_PYTHONS = ((3, 7), (3, 12))   # mip 1.15.0's Requires-Python: >= 3.7, < 3.12


def _environment(name: str = "environment.yml") -> dict:
    return yaml.safe_load((ROOT / name).read_text())


def _conda_packages(name: str) -> list[str]:
    """The conda (not pip) dependencies of an environment file."""
    return [d for d in _environment(name)["dependencies"] if isinstance(d, str)]


def _pinned_python(name: str = "environment.yml") -> tuple[int, int]:
    """The environment file's ``python=X.Y`` (a conda match spec for X.Y.*)."""
    specs = [d for d in _conda_packages(name) if d.startswith("python")]
    assert len(specs) == 1, specs
    match = re.fullmatch(r"python\s*=\s*(\d+)\.(\d+)(\.\*)?", specs[0])
    assert match, f"{name} should pin one minor Python version, not {specs[0]!r}"
    return int(match.group(1)), int(match.group(2))


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _requirements_of(extras: set[str]) -> list[Requirement]:
    """The runtime requirements plus those of the given extras, as pip reads them."""
    project = _project()
    lines = list(project["dependencies"])
    for extra in sorted(extras):
        lines += project["optional-dependencies"][extra]
    return [Requirement(line) for line in lines]


def _extras_of_pip_line(line: str) -> set[str]:
    match = re.search(r'-e\s+"?\.\[([a-z,\s]+)\]"?', line)
    assert match, f"not an editable install of this project: {line!r}"
    return {extra.strip() for extra in match.group(1).split(",")}


def _wheel_tags(dist: importlib.metadata.Distribution) -> list[str]:
    """The ``Tag:`` lines of an installed distribution's dist-info WHEEL file."""
    text = dist.read_text("WHEEL") or ""
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]


def _make_recipe(target_pattern: str) -> str:
    """The recipe lines of the first Makefile rule whose target matches the pattern."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    for index, line in enumerate(lines):
        if re.match(target_pattern, line):
            recipe = []
            for body in lines[index + 1:]:
                if not body.startswith("\t"):
                    break
                recipe.append(body.strip())
            return "\n".join(recipe)
    raise AssertionError(f"no Makefile rule matches {target_pattern}")


def _make_prerequisites(target: str) -> list[str]:
    text = (ROOT / "Makefile").read_text()
    match = re.search(rf"^{target}:\s*(.*)$", text, flags=re.MULTILINE)
    assert match, f"no Makefile target {target}"
    return match.group(1).split()


def _install_line_of(target: str) -> str:
    """The ``pip install`` line that the target's stamp-file prerequisite runs."""
    (stamp,) = [p for p in _make_prerequisites(target) if ".installed" in p]
    recipe = _make_recipe(re.escape(stamp) + ":")
    (line,) = [line for line in recipe.splitlines() if "pip install" in line]
    return line


@pytest.mark.parametrize("name", ENVIRONMENT_FILES)
def test_environment_pins_a_python_that_pyproject_accepts(name):
    major, minor = _pinned_python(name)
    lower = re.search(r">=\s*(\d+)\.(\d+)", _project()["requires-python"])
    assert (major, minor) >= (int(lower.group(1)), int(lower.group(2)))


@pytest.mark.parametrize("name", ENVIRONMENT_FILES)
def test_pinned_python_has_a_wheel_of_every_wheel_only_dependency(name):
    pinned = _pinned_python(name)
    tag = f"cp{pinned[0]}{pinned[1]}"
    for name, (version, cpython_tags) in WHEEL_ONLY.items():
        if cpython_tags is not None:
            assert tag in cpython_tags, f"{name} {version} publishes no {tag} wheel"
    assert MIP_PYTHONS[0] <= pinned < MIP_PYTHONS[1], "mip 1.15 (ODTlearn's CBC) does not install on this Python"


def test_declared_wheel_table_agrees_with_the_wheels_installed_here():
    """Where this machine has one of the table's versions, the wheel it came from carries a declared tag."""
    checked = 0
    for name, (version, cpython_tags) in WHEEL_ONLY.items():
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        if dist.version != version:
            continue
        python_tags = {tag.split("-")[0] for tag in _wheel_tags(dist)}
        assert python_tags, f"{name} has no WHEEL tags (installed from an sdist?)"
        assert python_tags <= (cpython_tags or {"py3"}), (name, python_tags)
        if name == "mip":
            assert dist.metadata["Requires-Python"].replace(" ", "") in ("<3.12,>=3.7", ">=3.7,<3.12")
        checked += 1
    if checked == 0:
        pytest.skip("none of the table's versions is installed here")


def test_on_the_pinned_python_no_dependency_was_compiled_here():
    """On the pinned Python every installed dependency came from a published wheel: a wheel built from an sdist
    on this machine carries the bare ``linux_x86_64`` platform tag instead of ``manylinux``."""
    if sys.version_info[:2] != _pinned_python():
        pytest.skip(f"this Python is {sys.version_info[0]}.{sys.version_info[1]}, not environment.yml's")
    built_here = [dist.metadata["Name"] for dist in importlib.metadata.distributions()
                  if dist.metadata["Name"] != "odtlib"
                  and any(re.search(r"-linux_[a-z0-9_]+$", tag) for tag in _wheel_tags(dist))]
    assert built_here == []


def test_environment_installs_runtime_and_notebook_extra_only():
    pip_lists = [d["pip"] for d in _environment()["dependencies"] if isinstance(d, dict) and "pip" in d]
    assert len(pip_lists) == 1
    (line,) = pip_lists[0]
    assert _extras_of_pip_line(line) == {"notebook"}


def test_make_demo_installs_the_notebook_extra_and_not_dev():
    extras = _extras_of_pip_line(_install_line_of("demo"))
    assert "notebook" in extras and "dev" not in extras


def test_make_test_and_venv_install_the_dev_extra():
    for target in ("test", "venv"):
        assert "dev" in _extras_of_pip_line(_install_line_of(target)), target


def test_peers_are_in_the_notebook_extra_and_cbcbox_is_nowhere():
    """The notebooks compare against STreeD and ODTlearn, so the demo installs them; ODTlearn's CBC comes
    through its own "cbc" extra (mip 1.15), never mip >= 1.16 with its 600 MB cbcbox."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {re.split(r"[<>=\[; ]", req, maxsplit=1)[0].lower() for req in extras["notebook"]}
    assert {"pystreed", "odtlearn"} <= names
    for requirements in extras.values():
        for req in requirements:
            assert not req.lower().startswith(("mip", "cbcbox")), req
            if req.lower().startswith("odtlearn"):
                assert "[cbc]" in req, req


@pytest.mark.skipif(sys.version_info >= MIP_PYTHONS[1], reason="mip 1.15 (ODTlearn's CBC) needs Python < 3.12")
def test_odtlearn_cbc_loads_and_fits_four_points():
    """The regression of issue 31: with mip >= 1.16 odtlearn's loader finds no CBC ("Osi_getNumCols")."""
    odtlearn_flow = pytest.importorskip("odtlearn.flow_oct")
    import numpy as np

    X, y = np.array([[0], [0], [1], [1]]), np.array([0, 0, 1, 1])
    model = odtlearn_flow.FlowOCT(solver="cbc", depth=1, time_limit=10, num_threads=1).fit(X, y)
    # one split on the single feature separates the classes: x = 0 -> 0, x = 1 -> 1
    assert list(model.predict(np.array([[0], [1]]))) == [0, 1]


def test_binder_pins_the_same_python_as_environment_yml():
    assert _pinned_python("binder/environment.yml") == _pinned_python("environment.yml")


def test_binder_brings_glpk_and_no_commercial_solver():
    """GLPK's glpsol comes from conda-forge (the tutorial's default solver); HiGHS and SCIP come with odtlib."""
    conda = {re.split(r"[<>=\s]", spec, maxsplit=1)[0] for spec in _conda_packages("binder/environment.yml")}
    assert "glpk" in conda
    assert not conda & COMMERCIAL
    installed = {req.name.lower() for req in _requirements_of({"notebook"})}
    assert {"highspy", "pyscipopt"} <= installed
    assert not installed & COMMERCIAL


def test_binder_post_build_installs_the_checkout_with_the_notebook_extra_only():
    """repo2docker runs binder/postBuild from the repository root, after the conda environment: the editable
    install of the checkout belongs there (a pip line in binder/environment.yml would run from binder/)."""
    pip_lists = [d["pip"] for d in _environment("binder/environment.yml")["dependencies"] if isinstance(d, dict)]
    assert pip_lists == [], "binder/environment.yml: install odtlib in postBuild, not in a pip list"
    post_build = ROOT / "binder" / "postBuild"
    assert os.access(post_build, os.X_OK), "postBuild must be executable"
    assert subprocess.run(["bash", "-n", str(post_build)], capture_output=True).returncode == 0
    (line,) = [line for line in post_build.read_text().splitlines() if "pip install" in line]
    assert _extras_of_pip_line(line) == {"notebook"}


def test_binder_requirements_are_met_by_the_packages_installed_here():
    """As far as this machine can tell the Binder environment resolves: every runtime requirement that applies
    to this Python is installed here in a matching version, and so is every notebook-extra requirement this
    venv has (the dev venv lacks the Jupyter front end; the peers with wheel limits, pystreed and odtlearn's
    mip/cffi, are in both extras)."""
    runtime = {req.name for req in _requirements_of(set())}
    unmet = []
    for req in _requirements_of({"notebook"}):
        if req.marker is not None and not req.marker.evaluate():
            continue
        try:
            version = importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            if req.name in runtime:
                unmet.append(f"{req} (not installed)")
            continue
        if not req.specifier.contains(version, prereleases=True):
            unmet.append(f"{req} (installed {version})")
    assert unmet == []
