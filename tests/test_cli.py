"""The `odtlib` command line (run as `python -m odtlib` in a subprocess) and the papermill batch."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from odtlib.experiments import ensure_kernel, find_notebooks

FIXTURE_NOTEBOOKS = Path(__file__).parent / "fixtures" / "notebooks"


def odtlib_cli(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "odtlib", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)


def test_help_lists_the_subcommands():
    result = odtlib_cli("--help")
    assert result.returncode == 0
    for command in ("datasets", "fit", "reproduce"):
        assert command in result.stdout
    reproduce_help = odtlib_cli("reproduce", "--help").stdout
    for option in ("--papers", "--profile", "--jobs", "--scheduler", "--output", "--notebooks-dir"):
        assert option in reproduce_help


def test_find_notebooks_by_paper_number():
    assert [p.name for p in find_notebooks(FIXTURE_NOTEBOOKS)] == ["paper900_ok.ipynb", "paper901_fail.ipynb"]
    assert [p.name for p in find_notebooks(FIXTURE_NOTEBOOKS, ["900"])] == ["paper900_ok.ipynb"]
    with pytest.raises(FileNotFoundError, match=r"\['902'\]"):
        find_notebooks(FIXTURE_NOTEBOOKS, ["902"])


def test_ensure_kernel_runs_this_python():
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(ensure_kernel())
    assert spec.argv[0] in ("python", "python3", sys.executable)


def test_ensure_kernel_installs_a_spec_into_the_environment_when_python3_is_foreign(tmp_path, monkeypatch):
    """A `python3` spec that starts another interpreter is not used: a spec for this Python is installed."""
    import shutil

    from jupyter_client.kernelspec import KernelSpecManager

    foreign = tmp_path / "kernels" / "python3"
    foreign.mkdir(parents=True)
    (foreign / "kernel.json").write_text(json.dumps(
        {"argv": ["/elsewhere/bin/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
         "display_name": "foreign", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    assert KernelSpecManager().get_kernel_spec("python3").argv[0] == "/elsewhere/bin/python"
    name = "odtlib-selftest"
    try:
        assert ensure_kernel(name) == name
        spec = KernelSpecManager().get_kernel_spec(name)
        assert spec.argv[0] == sys.executable
        assert Path(spec.resource_dir).is_relative_to(sys.prefix)
    finally:
        shutil.rmtree(Path(sys.prefix) / "share" / "jupyter" / "kernels" / name, ignore_errors=True)


@pytest.mark.timeout(300)
def test_reproduce_runs_notebooks_headlessly_and_reports_ok_and_failed(tmp_path):
    sources = {p: p.read_bytes() for p in FIXTURE_NOTEBOOKS.iterdir()}
    output = tmp_path / "out"
    result = odtlib_cli("reproduce", "--notebooks-dir", str(FIXTURE_NOTEBOOKS), "--output", str(output),
                        "--profile", "smoke", "--jobs", "2", cwd=tmp_path)
    assert result.returncode == 1, result.stderr                          # one notebook failed
    assert "paper 900  ok" in result.stdout and "paper 901  failed" in result.stdout
    assert {p: p.read_bytes() for p in FIXTURE_NOTEBOOKS.iterdir()} == sources   # sources untouched

    executed = output / "notebooks"
    assert {p.name for p in executed.iterdir()} == {"paper900_ok.ipynb", "paper901_fail.ipynb"}
    ok_nb = json.loads((executed / "paper900_ok.ipynb").read_text())
    injected = [c for c in ok_nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert injected and "n_jobs = 2" in "".join(injected[0]["source"])

    report_dir = output / "paper900" / "report"
    verdict = (report_dir / "verdict.md").read_text()
    assert "n_jobs=2" in verdict and "cwd=notebooks" in verdict         # parameters in, cwd = notebook folder
    assert (report_dir / "line.png").exists() and (report_dir / "line.svg").exists()

    md = (output / "report.md").read_text()
    assert "| 900 | paper900_ok.ipynb | ok |" in md
    assert "| 901 | paper901_fail.ipynb | failed |" in md
    assert "RuntimeError: fixture notebook fails on purpose" in md
    assert "within tolerance" in md and "lower" in md                     # the notebook's compare table
    assert "![line](paper900/report/line.png)" in md
    html = (output / "report.html").read_text()
    assert '<img src="paper900/report/line.png">' in html and "failed" in html


@pytest.mark.timeout(300)
def test_reproduce_exit_code_is_zero_when_all_notebooks_pass(tmp_path):
    result = odtlib_cli("reproduce", "--notebooks-dir", str(FIXTURE_NOTEBOOKS), "--papers", "900",
                        "--output", str(tmp_path / "out"), "--profile", "smoke")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "paper901" not in (tmp_path / "out" / "report.md").read_text()


def test_reproduce_refuses_to_write_into_the_notebooks_folder(tmp_path):
    result = odtlib_cli("reproduce", "--notebooks-dir", str(FIXTURE_NOTEBOOKS), "--output", str(FIXTURE_NOTEBOOKS))
    assert result.returncode == 2 and "must not be the notebooks folder" in result.stderr


def test_datasets_names_only():
    result = odtlib_cli("datasets", "--names-only")
    assert result.returncode == 0, result.stderr
    assert "monks" in result.stdout.split()


def test_fit_unknown_model_is_a_clear_error():
    result = odtlib_cli("fit", "--dataset", "monks", "--model", "NoSuchTree")
    assert result.returncode == 2
    assert "unknown model 'NoSuchTree'" in result.stderr


def test_fit_flowoct_on_a_paper_dataset():
    pytest.importorskip("odtlib.models.flowoct", reason="FlowOCT not there yet")
    result = odtlib_cli("fit", "--paper", "001", "--dataset", "monk1", "--model", "FlowOCT",
                        "--depth", "1", "--time-limit", "60")
    assert result.returncode == 0, result.stderr
    assert '"status": "optimal"' in result.stdout
    # oracle: the best depth-1 tree by enumeration of the 15 binary features (majority label per side)
    from odtlib.data import paper_dataset

    X, y, _ = paper_dataset("001", "monk1")
    best = max(sum(y[X[f] == side].value_counts().max() for side in (0, 1) if (X[f] == side).any())
               for f in X.columns)
    assert f"training accuracy {best / len(y):.4f}" in result.stdout
