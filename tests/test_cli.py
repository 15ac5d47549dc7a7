"""The `odtlib` command line (as `python -m odtlib` in a subprocess, or `odtlib.cli.main` in this process)
and the papermill batch."""
from __future__ import annotations

import json
import os
import re
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
    assert {p.name for p in executed.iterdir()} == {"paper900_ok.ipynb", "paper901_fail.ipynb",   # and their pages
                                                    "paper900_ok.html", "paper901_fail.html"}
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
    assert "argument --model: invalid choice: 'NoSuchTree' (choose from 'CategoricalODT', 'FlowOCT'" in result.stderr


def test_fit_flowoct_on_a_paper_dataset():
    pytest.importorskip("odtlib.models.univariate.flowoct", reason="FlowOCT not there yet")
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


# ------------------------------------------------------------------ in-process: `odtlib.cli.main([...])`
def run_main(capfd, *args: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``odtlib ARGS`` run in this process (argparse exits become codes)."""
    from odtlib.cli import main

    try:
        code = main(list(args))
    except SystemExit as exc:
        code = exc.code
    out, err = capfd.readouterr()
    return code, out, err


def assert_one_line_error(err: str, command: str) -> str:
    """stderr holds exactly one line, ``odtlib <command>: error: ...``, and no traceback; returns it."""
    lines = err.strip().splitlines()
    assert "Traceback" not in err and len(lines) == 1, err
    assert lines[0].startswith(f"odtlib {command}: error: "), err
    return lines[0]


def test_fit_iris_default_encoding_gives_an_accurate_tree_with_progress(capfd):
    """Item 1 and 4: numeric columns become QT-5 thresholds (4 columns x at most 4 thresholds, not 123
    one-hot columns), the optimal depth-2 tree is at least as accurate as CART on the same features, and
    one progress line goes to stderr."""
    from sklearn.tree import DecisionTreeClassifier

    from odtlib.data import load_dataset
    from odtlib.encoders import QuantileThresholdEncoder

    code, out, err = run_main(capfd, "fit", "--dataset", "iris", "--depth", "2", "--time-limit", "60")
    assert code == 0, err
    match = re.search(r"on iris: 150 rows x (\d+) features, training accuracy (\d\.\d{4})", out)
    assert match, out
    n_features, accuracy = int(match.group(1)), float(match.group(2))
    assert n_features <= 4 * 4
    data = load_dataset("iris")
    X = QuantileThresholdEncoder(k=5).fit_transform(data.X, data.y)
    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, data.y).score(X, data.y)
    assert accuracy >= max(0.9, cart - 1e-9)
    assert re.fullmatch(rf"fit FlowOCT depth=2 on iris \(150 rows x {n_features} features\) \.\.\. "
                        r"optimal in \d+\.\d s", err.strip()), err


def test_fit_encoding_option_works_without_paper(capfd):
    """QT-3 on iris: its four numeric columns each get the 2 inner tertile thresholds (all distinct)."""
    code, out, err = run_main(capfd, "fit", "--dataset", "iris", "--depth", "1", "--encoding", "qt-3")
    assert code == 0, err
    assert "on iris: 150 rows x 8 features" in out


def test_fit_unknown_encoding_names_the_choices(capfd):
    code, _, err = run_main(capfd, "fit", "--dataset", "iris", "--encoding", "QX-5")
    line = assert_one_line_error(err, "fit")
    assert code == 2 and "'QX-5'" in line and "onehot" in line and "QT-k" in line


def test_unknown_solver_lists_the_known_ones(capfd):
    from odtlib.solvers import SOLVERS

    code, _, err = run_main(capfd, "fit", "--dataset", "iris", "--solver", "nosuch")
    assert code == 2 and "invalid choice: 'nosuch'" in err
    assert all(name in err for name in SOLVERS)


@pytest.mark.parametrize("command", [["fit", "--dataset", "iris"], ["reproduce", "--output", "unused"]])
def test_solver_not_installed_is_checked_up_front(capfd, monkeypatch, command):
    """GLPK made unavailable: the error says how to install it and which solvers are installed."""
    from odtlib.solvers.glpk import GlpkBackend

    monkeypatch.setattr(GlpkBackend, "available", classmethod(lambda cls: False))
    code, _, err = run_main(capfd, *command, "--solver", "glpk")
    line = assert_one_line_error(err, command[0])
    assert code == 2 and "glpk-utils" in line and "--solver (highs" in line


def test_unavailable_data_is_one_line(capfd, monkeypatch, tmp_path):
    monkeypatch.setenv("ODTLIB_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(tmp_path / "no-mirror"))
    code, _, err = run_main(capfd, "fit", "--dataset", "iris")
    line = assert_one_line_error(err, "fit")
    assert code == 2 and "ODTLIB_DATA_MIRROR" in line


def test_corrupt_data_is_one_line(capfd, monkeypatch, tmp_path):
    """A mirror copy of iris.data with its last row cut off fails the integrity check."""
    mirror = tmp_path / "mirror" / "iris"
    mirror.mkdir(parents=True)
    source = Path(os.environ["ODTLIB_DATA_MIRROR"]) / "iris"
    (mirror / "iris.names").write_bytes((source / "iris.names").read_bytes())
    (mirror / "iris.data").write_text("\n".join((source / "iris.data").read_text().splitlines()[:-2]) + "\n")
    monkeypatch.setenv("ODTLIB_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(tmp_path / "mirror"))
    code, _, err = run_main(capfd, "fit", "--dataset", "iris")
    line = assert_one_line_error(err, "fit")
    assert code == 2 and "iris.data" in line


def test_no_tree_error_says_the_fix_in_option_terms(capfd, monkeypatch):
    import odtlib.models

    def no_tree(self, X, y):
        raise RuntimeError("FlowOCT: the solver returned no tree (status 'time_limit': Time limit reached); "
                           "raise time_limit, or set warm_start=True so that a time-limited solve always has a tree")

    monkeypatch.setattr(odtlib.models.FlowOCT, "fit", no_tree)
    code, _, err = run_main(capfd, "fit", "--dataset", "iris", "--depth", "1")
    line = assert_one_line_error(err.split("\n", 1)[1], "fit")       # after the progress line
    assert code == 2 and "raise --time-limit" in line and "--param warm_start=true" in line
    assert "warm_start=True" not in line and err.startswith("fit FlowOCT") and "failed in" in err


def test_out_of_memory_is_one_line(capfd, monkeypatch):
    import odtlib.models

    def out_of_memory(self, X, y):
        raise MemoryError()

    monkeypatch.setattr(odtlib.models.FlowOCT, "fit", out_of_memory)
    code, _, err = run_main(capfd, "fit", "--dataset", "iris", "--depth", "1")
    line = assert_one_line_error(err.split("\n", 1)[1], "fit")
    assert code == 2 and "out of memory" in line and "--encoding" in line


def test_bad_parameters_are_one_line(capfd):
    code, _, err = run_main(capfd, "fit", "--dataset", "iris", "--depth", "1", "--param", "split_penalty=-1")
    assert code == 2 and "split_penalty" in assert_one_line_error(err.split("\n", 1)[1], "fit")
    code, _, err = run_main(capfd, "fit", "--dataset", "iris", "--param", "no_such=1")
    assert code == 2 and "bad --param 'no_such=1'" in assert_one_line_error(err, "fit")
    code, _, err = run_main(capfd, "fit", "--dataset", "iris", "--depth", "0")
    assert code == 2 and "argument --depth: expected an integer >= 1, got '0'" in err


def test_version_is_the_installed_distributions(capfd):
    from importlib.metadata import version

    code, out, _ = run_main(capfd, "--version")
    assert code == 0 and out.strip() == f"odtlib {version('odtlib')}"


def test_help_shows_defaults_and_choices(capfd, monkeypatch):
    from odtlib.solvers import SOLVERS

    monkeypatch.setenv("COLUMNS", "400")                                  # one line per option
    _, fit_help, _ = run_main(capfd, "fit", "--help")
    estimators = ["CategoricalODT", "FlowOCT", "BendersOCT", "OCT", "BinOCT", "RegularizedBendOCT",
                  "RegularizedFlowOCT", "SOCT", "OCTH", "UnivariateOCT", "SVMTreeClassifier", "SVM1ODT",
                  "OptimalTreeClassifier", "ThresholdTreeSearch"]
    assert (f"formulation, a class of odtlib.models: {', '.join(estimators)} (default: OptimalTreeClassifier "
            "with --csv or --parquet, FlowOCT with --dataset)") in fit_help
    assert "--solver {" + ",".join(SOLVERS) + "}" in fit_help and "MIP solver (default: highs; " in fit_help
    assert "maximum depth of the tree (default: 2)" in fit_help
    assert "solver threads (default: 1)" in fit_help
    assert "time_limit=None (the estimators' default) means no limit (default: 60.0)" in fit_help
    assert "(default: the model's input" in fit_help and "QT-5 for the others" in fit_help  # issue 31 item 2
    _, rep_help, _ = run_main(capfd, "reproduce", "--help")
    assert "--profile {smoke,quick,full,paper}" in rep_help and "(default: quick)" in rep_help
    assert "output folder (default: results/reproduce)" in rep_help
    # an option whose help already names its default does not get it twice
    _, verify_help, _ = run_main(capfd, "verify", "--help")
    assert "optima per paper (default: 50)\n" in verify_help
    assert "stored results (default: results/full)\n" in verify_help
    for command in (["fit"], ["reproduce"], ["verify"], ["claims"], ["book"], ["figures"], ["datasets"],
                    ["data", "mirror"]):
        code, text, _ = run_main(capfd, *command, "--help")
        assert code == 0 and "usage: odtlib" in text
        assert not re.search(r"\(default: [^)]*\)\s*\(default:", text), command


def fake_papermill(monkeypatch, execute) -> None:
    """Replace papermill's notebook execution by ``execute(input_path, output_path, **kwargs)``."""
    import papermill

    monkeypatch.setattr(papermill, "execute_notebook", execute)


def test_reproduce_prints_one_progress_line_per_notebook(capfd, monkeypatch, tmp_path):
    def execute(input_path, output_path, **kwargs):
        if "fail" in input_path:
            raise RuntimeError("boom")

    fake_papermill(monkeypatch, execute)
    code, out, err = run_main(capfd, "reproduce", "--notebooks-dir", str(FIXTURE_NOTEBOOKS),
                              "--output", str(tmp_path / "out"), "--profile", "smoke")
    assert code == 1
    assert re.search(r"^\[1/2\] paper900_ok\.ipynb \.\.\. ok \(\d+ s\)$", err, re.M), err
    assert re.search(r"^\[2/2\] paper901_fail\.ipynb \.\.\. failed \(\d+ s\)$", err, re.M), err
    assert "paper 900  ok" in out and "[1/2]" not in out


def test_reproduce_ctrl_c_says_how_to_resume(capfd, monkeypatch, tmp_path):
    """Three runs stored by the first notebook, then Ctrl-C: exit 130 and one line naming the 3 kept runs."""
    from odtlib.experiments.store import ResultStore

    output = tmp_path / "out"

    def execute(input_path, output_path, **kwargs):
        store = ResultStore(output / "paper900" / "results" / "tuning")
        for i in range(3):
            store.put({"key": f"run{i}", "status": "ok"})
        raise KeyboardInterrupt

    fake_papermill(monkeypatch, execute)
    code, _, err = run_main(capfd, "reproduce", "--notebooks-dir", str(FIXTURE_NOTEBOOKS), "--output", str(output))
    assert code == 130 and "Traceback" not in err
    assert "[1/2] paper900_ok.ipynb ... interrupted" in err
    assert f"interrupted; rerun the same command to resume (3 runs kept in {output})" in err


def test_reproduce_outside_the_repository_finds_the_checkout_notebooks(monkeypatch, tmp_path):
    from odtlib.experiments import batch

    monkeypatch.chdir(tmp_path)
    repo_notebooks = Path(__file__).resolve().parents[1] / "notebooks"
    assert batch.default_notebooks_dir().resolve() == repo_notebooks


def test_reproduce_without_notebooks_says_to_pass_the_folder(capfd, monkeypatch, tmp_path):
    from odtlib.experiments import batch

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(batch, "CHECKOUT_NOTEBOOKS", tmp_path / "nowhere")
    code, _, err = run_main(capfd, "reproduce", "--output", str(tmp_path / "out"))
    assert code == 2 and "--notebooks-dir PATH" in assert_one_line_error(err, "reproduce")


@pytest.mark.timeout(300)
def test_reproduce_keeps_kernel_output_off_stdout(tmp_path):
    """A cell writing on the kernel's file descriptors 1 and 2 (as solver libraries do) and printing:
    none of it reaches stdout, which holds only the results."""
    import nbformat

    folder = tmp_path / "nb"
    folder.mkdir()
    parameters = nbformat.v4.new_code_cell('profile = "quick"\nsolver = "highs"\ntime_limit = None\n'
                                           'n_jobs = 1\nscheduler = None\noutput_dir = "."')
    parameters.metadata["tags"] = ["parameters"]
    chatter = nbformat.v4.new_code_cell('import os\nos.write(1, b"FD1 CHATTER\\n")\nos.write(2, b"FD2 CHATTER\\n")\n'
                                        'print("CELL PRINT")')
    notebook = nbformat.v4.new_notebook(cells=[parameters, chatter])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, folder / "paper950_chatter.ipynb")
    result = odtlib_cli("reproduce", "--notebooks-dir", str(folder), "--output", str(tmp_path / "out"),
                        "--profile", "smoke")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("paper 950  ok")
    assert "CHATTER" not in result.stdout + result.stderr and "CELL PRINT" not in result.stdout
    assert "[1/1] paper950_chatter.ipynb ... ok" in result.stderr
