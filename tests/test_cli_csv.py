"""``odtlib fit --csv/--parquet FILE --target COLUMN`` (issue 32 item 1): one's own table on the command line,
fitted by OptimalTreeClassifier by default."""
from __future__ import annotations

import re
import sys

import pandas as pd
import pytest

from odtlib import cli


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``odtlib ARGV`` in this process (argparse exits become codes)."""
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("odtlib fit: error: "), err
    return lines[0]


def people() -> pd.DataFrame:
    """16 rows: ``size`` 1..8 once in each ``colour``; the label is "yes" exactly for red rows of size >= 5.

    By hand: no depth-1 tree beats predicting "no" everywhere (12 of 16): a leaf holds at most as many "yes"
    rows (red, size >= 5) as "no" rows (the blue ones of the same sizes), so no leaf gains by predicting "yes".
    At depth 2 the tree "size > 4.5, then colour" (or "colour, then size > 4.5") classifies all 16; a perfect
    tree must split size between 4 and 5, since the red rows of sizes 4 and 5 differ only there.
    """
    sizes = list(range(1, 9))
    return pd.DataFrame({"size": sizes * 2, "colour": ["red"] * 8 + ["blue"] * 8,
                         "label": ["yes" if s >= 5 else "no" for s in sizes] + ["no"] * 8})


@pytest.fixture
def people_csv(tmp_path):
    path = tmp_path / "people.csv"
    people().to_csv(path, index=False)
    return path


def tree_conditions(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.strip().startswith("if ")]


def test_csv_fits_optimal_tree_classifier_and_prints_path_tree_and_accuracy(capsys, people_csv):
    code, out, err = run_main(capsys, "fit", "--csv", str(people_csv), "--target", "label", "--depth", "2",
                              "--time-limit", "60")
    assert code == 0, err
    assert "OptimalTreeClassifier(depth=2, solver='auto'" in out
    assert "on people.csv: 16 rows x 2 features, training accuracy 1.0000" in out
    assert re.search(r"^path: univariate splits by ThresholdTreeSearch on none \(exact search\); encoding: UnitScaler",
                     out, re.M), out
    conditions = tree_conditions(out)
    assert any(re.fullmatch(r"if size (<=|>) 4\.5:", c) for c in conditions), conditions   # original units
    assert any(c.startswith("if colour ") for c in conditions), conditions
    assert '"status": "optimal"' in out
    assert re.fullmatch(r"fit OptimalTreeClassifier depth=2 on people\.csv \(16 rows x 2 features\) \.\.\. "
                        r"optimal in \d+\.\d s", err.strip()), err


def test_depth_one_on_csv_reaches_the_hand_computed_optimum(capsys, people_csv):
    code, out, err = run_main(capsys, "fit", "--csv", str(people_csv), "--target", "label", "--depth", "1")
    assert code == 0, err
    assert "training accuracy 0.7500" in out          # 12 of 16 (people's docstring)


def test_test_size_holds_out_a_stratified_part(capsys, people_csv):
    """A quarter of 16 rows is 4 test rows; stratified by class (4 "yes", 12 "no"): 1 "yes" and 3 "no" held
    out, so the training part has 3 "yes" and 9 "no", the counts the printed leaves add up to."""
    code, out, err = run_main(capsys, "fit", "--csv", str(people_csv), "--target", "label", "--test-size", "0.25")
    assert code == 0, err
    assert re.search(r"on people\.csv: 12 rows x 2 features, training accuracy \d\.\d{4}, "
                     r"test accuracy \d\.\d{4} \(4 rows held out\)", out), out
    leaves = re.findall(r"\(n=\d+: no (\d+), yes (\d+)\)", out)
    assert sum(int(no) for no, _ in leaves) == 9 and sum(int(yes) for _, yes in leaves) == 3, leaves


def test_another_model_on_a_csv_gets_its_own_encoding(capsys, people_csv):
    """FlowOCT needs 0/1 columns: QT-5 of size (4 inner quantiles) and one-hot colour (two values: 1 column)."""
    code, out, err = run_main(capsys, "fit", "--csv", str(people_csv), "--target", "label", "--model", "FlowOCT",
                              "--depth", "1")
    assert code == 0, err
    assert "FlowOCT(depth=1, solver='highs'" in out and "on people.csv: 16 rows x 5 features" in out
    assert "path:" not in out


@pytest.mark.parametrize("target", ["lable", None])
def test_a_wrong_or_missing_target_lists_the_columns(capsys, people_csv, target):
    argv = ["fit", "--csv", str(people_csv)] + (["--target", target] if target else [])
    code, _, err = run_main(capsys, *argv)
    line = one_error_line(err)
    assert code == 2 and "--target" in line and "'size', 'colour', 'label'" in line


def test_a_missing_file_is_one_line(capsys, tmp_path):
    code, _, err = run_main(capsys, "fit", "--csv", str(tmp_path / "nope.csv"), "--target", "label")
    assert code == 2 and "no such file" in one_error_line(err)


def test_dataset_and_csv_are_mutually_exclusive(capsys, people_csv):
    code, _, err = run_main(capsys, "fit", "--dataset", "iris", "--csv", str(people_csv))
    assert code == 2 and "not allowed with argument" in err


def test_target_with_a_dataset_is_refused(capsys):
    code, _, err = run_main(capsys, "fit", "--dataset", "iris", "--target", "class")
    assert code == 2 and "--target" in one_error_line(err)


def test_missing_values_follow_the_missing_policy(capsys, tmp_path):
    """size 3 blank in a red row: refused by default (naming the column and --missing category); with
    --missing category the row keeps its place and the fit still separates the classes."""
    frame = people().astype({"size": float})
    frame.loc[2, "size"] = float("nan")
    path = tmp_path / "holes.csv"
    frame.to_csv(path, index=False)
    code, _, err = run_main(capsys, "fit", "--csv", str(path), "--target", "label")
    line = one_error_line(err)
    assert code == 2 and "size (1 row)" in line and "--missing category" in line
    code, out, err = run_main(capsys, "fit", "--csv", str(path), "--target", "label", "--missing", "category")
    assert code == 0, err
    # By hand: the blank becomes size 8 (the column's maximum) beside an indicator column. The red "no" row of
    # size 8 then sits with the red "yes" rows of size >= 5 for every size and colour test; only the indicator
    # separates it, and a depth-2 tree cannot test size, colour and the indicator on one path: 15 of 16.
    assert "16 rows x 2 features, training accuracy 0.9375" in out, out
    code, _, err = run_main(capsys, "fit", "--csv", str(path), "--target", "label", "--model", "FlowOCT",
                            "--missing", "category")
    assert code == 2 and "OptimalTreeClassifier" in one_error_line(err)


@pytest.mark.parametrize("option, name", [("--parquet", "people.pq.bin"), ("--csv", "people.parquet")])
def test_parquet_works_when_pyarrow_is_installed(capsys, tmp_path, option, name):
    """By ``--parquet`` whatever the name, or by the ``.parquet`` suffix given to ``--csv``."""
    pytest.importorskip("pyarrow")
    path = tmp_path / name
    people().to_parquet(path, engine="pyarrow")
    code, out, err = run_main(capsys, "fit", option, str(path), "--target", "label", "--depth", "2")
    assert code == 0, err
    assert f"on {name}: 16 rows x 2 features, training accuracy 1.0000" in out


def test_parquet_without_pyarrow_names_the_extra(capsys, tmp_path, monkeypatch):
    path = tmp_path / "people.parquet"
    path.write_bytes(b"PAR1 not read")
    monkeypatch.setitem(sys.modules, "pyarrow", None)          # `import pyarrow` raises ImportError
    code, _, err = run_main(capsys, "fit", "--parquet", str(path), "--target", "label")
    line = one_error_line(err)
    assert code == 2 and "pyarrow" in line and "pip install 'odtlib[parquet]'" in line


def test_optimal_tree_classifier_on_a_registered_dataset(capsys):
    """iris at depth 1: one split leaves two leaves, each right for at most one class of 50 rows, so 100 of
    150 is the optimum, reached by separating setosa."""
    code, out, err = run_main(capsys, "fit", "--dataset", "iris", "--model", "OptimalTreeClassifier", "--depth", "1")
    assert code == 0, err
    assert "on iris: 150 rows x 4 features, training accuracy 0.6667" in out and "path: " in out


def test_optimal_tree_classifier_refuses_an_encoding(capsys):
    code, _, err = run_main(capsys, "fit", "--dataset", "iris", "--model", "OptimalTreeClassifier",
                            "--encoding", "QT-5")
    assert code == 2 and "leave out --encoding" in one_error_line(err)
