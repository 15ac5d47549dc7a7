"""Issue 31 on the command line and in the data names: each model gets its own input (item 2), missing values
and names (item 5), the reproduce summary's labels (item 10)."""
from __future__ import annotations

import logging
import re
import socket
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from odtlib import cli

FIXTURE_NOTEBOOKS = Path(__file__).parent / "fixtures" / "notebooks"


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str, command: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"odtlib {command}: error: "), err
    return lines[0]


# ---------------------------------------------------------------------------------------------- item 2
@pytest.mark.parametrize("model, expected", [
    ("FlowOCT", "QT-5"), ("BendersOCT", "QT-5"), ("RegularizedBendOCT", "QT-5"),
    ("SOCT", "unit"), ("OCTH", "unit"), ("UnivariateOCT", "unit"), ("SVM1ODT", "unit"),
    ("SVMTreeClassifier", "unit"), ("CategoricalODT", "raw"),
])
def test_each_model_gets_the_input_of_its_readme_row(model, expected):
    import odtlib.models

    assert cli.default_encoding(getattr(odtlib.models, model)) == expected


def test_fit_soct_on_wine_prints_a_readable_tree(capsys):
    """Wine has 13 numeric columns: UnitScaler keeps 13 (QT-5 made 52 threshold columns)."""
    code, out, err = run_main(capsys, "fit", "--dataset", "wine", "--model", "SOCT", "--time-limit", "5")
    assert code == 0, err
    assert "on wine: 178 rows x 13 features" in out
    tree_lines = [line for line in out.splitlines() if line.lstrip().startswith(("if ", "else", "predict"))]
    assert tree_lines[0].startswith("if ") and "*Alcohol" in tree_lines[0]
    assert not any(re.search(r"\w>\d", line) for line in tree_lines)  # no QT-k column names (Alcohol>12.25)
    assert not any(re.search(r"e-1\d", line) for line in tree_lines)   # no solver noise (1e-17)


def test_printed_hyperplane_in_original_units_routes_the_raw_rows_as_the_tree():
    """The root hyperplane as printed, evaluated on the raw (unscaled) wine columns, sends the rows where the
    fitted tree sends their scaled copies (coefficients with 4 significant digits: 2 of 178 rows may differ)."""
    from odtlib.data import load_dataset
    from odtlib.encoders import UnitScaler
    from odtlib.models import SOCT

    data = load_dataset("wine")
    scaler = UnitScaler().fit(data.X)
    scaled = scaler.transform(data.X)
    model = SOCT(depth=2, time_limit=5, solver="highs").fit(scaled, data.y)
    root = cli.readable_tree(model, scaler.groups_).splitlines()[0]
    assert root.startswith("if ") and root.endswith(":")
    lhs, bias = root[3:-1].rsplit(" <= ", 1)
    terms = re.findall(r"(^|[+-] )([\d.,e+-]+)\*(\w+)", lhs)
    assert len(terms) >= 2 and {name for _, _, name in terms} <= set(data.X.columns)
    value = np.zeros(len(data.X))
    for sign, coef, name in terms:
        value += (-1 if sign.strip() == "-" else 1) * float(coef.replace(",", "")) * data.X[name].to_numpy(float)
    printed_left = value <= float(bias.replace(",", ""))
    tree_left = model.tree_.nodes[model.tree_.root].goes_left(scaled.to_numpy(float))
    assert (printed_left != tree_left).sum() <= 2


def test_fit_svm_tree_classifier_does_not_crash(capsys):
    code, out, err = run_main(capsys, "fit", "--dataset", "iris", "--model", "SVMTreeClassifier")
    assert code == 0, err
    assert "no solver" in err and "on iris: 150 rows x 4 features" in out
    assert "petal_width" in out and "petal_width>" not in out


def test_fit_categorical_odt_gets_the_raw_columns(capsys):
    """monks-1: six categorical attributes a1..a6; the tree speaks of them, never of one-hot column names."""
    code, out, err = run_main(capsys, "fit", "--dataset", "monks", "--model", "CategoricalODT", "--time-limit", "20")
    assert code == 0, err
    assert "on monks: 124 rows x 6 features" in out
    conditions = [line.strip() for line in out.splitlines() if line.strip().startswith("if ")]
    assert conditions and all(re.match(r"if a[1-6] ", c) for c in conditions), conditions
    assert not any(re.search(r"a\d=\d", c) for c in conditions)


@pytest.mark.parametrize("model, encoding, words", [
    ("FlowOCT", "unit", "needs 0/1 features"), ("BendersOCT", "raw", "needs 0/1 features"),
    ("SOCT", "raw", "needs numeric features in [0, 1]"),
])
def test_fit_refuses_an_encoding_the_model_cannot_take(capsys, model, encoding, words):
    code, _, err = run_main(capsys, "fit", "--dataset", "iris", "--model", model, "--encoding", encoding)
    assert code == 2 and words in one_error_line(err, "fit")


def test_fit_with_unit_encoding_on_a_hyperplane_model(capsys):
    code, out, err = run_main(capsys, "fit", "--dataset", "iris", "--model", "OCTH", "--encoding", "unit",
                              "--time-limit", "10")
    assert code == 0, err
    assert "on iris: 150 rows x 4 features" in out


# ---------------------------------------------------------------------------------------------- item 5
def test_missing_values_name_every_column_and_the_variants(capsys):
    """breast-cancer: '?' in node-caps (8 rows) and breast-quad (1 row), per the UCI .names file; the
    registry's variant without them is 'complete'."""
    code, _, err = run_main(capsys, "fit", "--dataset", "breast-cancer")
    line = one_error_line(err, "fit")
    assert code == 2
    assert "node-caps (8 rows)" in line and "breast-quad (1 row)" in line and "--variant complete" in line


def test_missing_values_offer_both_voting_variants(capsys):
    code, _, err = run_main(capsys, "fit", "--dataset", "house-votes-84")   # a paper's name: an alias
    line = one_error_line(err, "fit")
    assert "--variant complete" in line and "--variant missing-as-category" in line
    assert "16 columns" in line


def test_datasets_note_counts_missing_values_from_the_raw_file():
    """The note is derived here from the raw file: columns with a '?' and rows with one."""
    import os

    from odtlib.data import load_dataset

    raw = pd.read_csv(Path(os.environ.get("ODTLIB_DATA_MIRROR", "../shared/uci")) / "congressional-voting"
                      / "house-votes-84.data", header=None).iloc[:, 1:]
    n_columns, n_rows = int((raw == "?").any().sum()), int((raw == "?").any(axis=1).sum())
    assert n_rows == 435 - 232  # the registry's 435 rows, 232 without '?'
    note = cli.dataset_note("congressional-voting", load_dataset("congressional-voting").X)
    assert note == (f"missing values in {n_columns} columns, {n_rows} rows (use --variant complete or "
                    "missing-as-category); variants: complete, missing-as-category")
    assert cli.dataset_note("iris", load_dataset("iris").X) == ""


def test_encoder_names_every_column_with_missing_values_at_once():
    from odtlib.encoders import QuantileThresholdEncoder

    frame = pd.DataFrame({"bill": [1.0, np.nan, 3.0, 4.0], "island": ["a", "b", "a", "b"],
                          "sex": ["m", None, None, "f"]})
    with pytest.raises(ValueError) as info:
        QuantileThresholdEncoder(k=2).fit(frame)
    message = str(info.value)
    assert "'bill' (1 row)" in message and "'sex' (2 rows)" in message and "island" not in message
    assert "drop the 2 rows" in message  # rows 1 and 2


def test_unknown_dataset_hint_speaks_cli(capsys):
    code, _, err = run_main(capsys, "fit", "--dataset", "irs")
    line = one_error_line(err, "fit")
    assert code == 2 and "`odtlib datasets` lists" in line and "list_datasets()" not in line
    assert "fetch_uci" not in line and "Did you mean: iris" in line


def test_dataset_names_agree_across_loaders():
    from odtlib.data import DatasetNotFoundError, load_dataset, paper_dataset

    votes = load_dataset("house-votes-84", "complete")
    assert votes.name == "congressional-voting" and votes.n_rows == 232   # paper 001's 232 complete rows
    assert load_dataset("car_evaluation").name == "car-evaluation"
    assert load_dataset("Car Evaluation").n_rows == 1728
    X1, y1, _ = paper_dataset("003", "car_evaluation")
    X2, y2, _ = paper_dataset("003", "car-evaluation")
    assert X1.equals(X2) and y1.equals(y2)
    X3, _, _ = paper_dataset("001", "congressional-voting")
    assert len(X3) == 232
    with pytest.raises(DatasetNotFoundError):
        load_dataset("monk3")  # paper 001's monk3 is the variant monks-3-train, not an alias of monks


def test_reproduce_unknown_paper_lists_the_valid_ids(capsys, monkeypatch):
    from odtlib.experiments import batch

    monkeypatch.setattr(batch, "reproduce", lambda **kw: pytest.fail("must fail before running notebooks"))
    code, _, err = run_main(capsys, "reproduce", "--papers", "007", "--notebooks-dir", str(FIXTURE_NOTEBOOKS))
    line = one_error_line(err, "reproduce")
    assert code == 2 and "007" in line and "valid --papers: 900 901" in line


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens on it once closed


def test_reproduce_checks_the_scheduler_before_starting(capsys, monkeypatch):
    from odtlib.experiments import batch

    monkeypatch.setattr(batch, "reproduce", lambda **kw: pytest.fail("must fail before running notebooks"))
    port = closed_port()
    tic = time.perf_counter()
    code, _, err = run_main(capsys, "reproduce", "--scheduler", f"tcp://127.0.0.1:{port}",
                            "--notebooks-dir", str(FIXTURE_NOTEBOOKS))
    assert time.perf_counter() - tic < 10
    line = one_error_line(err, "reproduce")
    assert code == 2 and f"no Dask scheduler answers at tcp://127.0.0.1:{port}" in line
    assert "leave out --scheduler" in line


def test_reproduce_ctrl_c_silences_the_kernels_cleanup(capsys, monkeypatch, tmp_path):
    from odtlib.experiments import batch

    def interrupted(**kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(batch, "reproduce", interrupted)
    loggers = [logging.getLogger(name) for name in ("asyncio", "papermill", "nbclient", "traitlets")]
    before = [logger.disabled for logger in loggers]
    handler = logging.StreamHandler(sys.stderr)
    logging.getLogger("asyncio").addHandler(handler)
    try:
        code = cli.main(["reproduce", "--notebooks-dir", str(FIXTURE_NOTEBOOKS), "--output", str(tmp_path)])
        logging.getLogger("asyncio").error("Task exception was never retrieved: DeadKernelError")
    finally:
        logging.getLogger("asyncio").removeHandler(handler)
        for logger, disabled in zip(loggers, before):
            logger.disabled = disabled
    err = capsys.readouterr().err
    assert code == 130 and "DeadKernelError" not in err
    assert err.strip().endswith(f"(0 runs kept in {tmp_path})")


# ---------------------------------------------------------------------------------------------- item 10
def test_reproduce_summary_labels_teaching_notebooks_as_notebooks(capsys, monkeypatch, tmp_path):
    from odtlib.experiments import batch

    def finished(**kwargs):
        return [batch.NotebookRun("001", Path("paper001_x.ipynb"), tmp_path / "a", "ok", 1.0),
                batch.NotebookRun("tutorial_mip_trees", Path("tutorial_mip_trees.ipynb"), tmp_path / "b", "ok", 2.0)]

    monkeypatch.setattr(batch, "reproduce", finished)
    code, out, _ = run_main(capsys, "reproduce", "--notebooks-dir", str(FIXTURE_NOTEBOOKS), "--output", str(tmp_path))
    assert code == 0
    assert out.splitlines()[0].startswith("paper 001  ok")
    assert out.splitlines()[1].startswith("notebook tutorial_mip_trees  ok")
    assert "paper tutorial" not in out


def test_reproduce_echoes_one_line_per_grid_while_a_notebook_runs(capfd, monkeypatch, tmp_path):
    """The fake notebook runs two grids through a ReportWriter, as the paper notebooks do; reproduce prints
    their lines (from the notebook's progress file) below the notebook's own line, then its status."""
    import papermill

    from odtlib.experiments import ReportWriter

    def execute(input_path, output_path, parameters, **kwargs):
        if "paper900" in input_path:
            report = ReportWriter(parameters["output_dir"], paper="900")
            report.run_grid(_trivial_run, [{"seed": s} for s in range(3)], "tuning", progress=False)
            report.run_grid(_trivial_run, [{"seed": s} for s in range(3)], "tuning", progress=False)

    monkeypatch.setattr(papermill, "execute_notebook", execute)
    code, out, err = run_main(capfd, "reproduce", "--notebooks-dir", str(FIXTURE_NOTEBOOKS),
                              "--output", str(tmp_path / "out"), "--profile", "smoke")
    lines = err.splitlines()
    assert code == 0 and "paper900 tuning" not in out
    start = lines.index("[1/2] paper900_ok.ipynb ... ")
    assert re.fullmatch(r"    paper900 tuning: 3/3 runs in \d+ s, 0 failed", lines[start + 1]), err
    assert lines[start + 2] == "    paper900 tuning: all 3 runs already stored"
    assert re.fullmatch(r"\[1/2\] paper900_ok\.ipynb \.\.\. ok \(\d+ s\)", lines[start + 3]), err
    assert re.search(r"^\[2/2\] paper901_fail\.ipynb \.\.\. ok \(\d+ s\)$", err, re.M), err   # ran no grid


def _trivial_run(config: dict) -> dict:
    return {"metrics": {"seed": config["seed"]}}
