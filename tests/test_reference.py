"""Paper reference tables shipped as package data, and the paper-vs-ours `compare` helper."""
from __future__ import annotations

import re
from importlib.resources import files

import numpy as np
import pandas as pd
import pytest
from paths import SHARED

from odtlib.experiments import compare, list_reference_tables, reference_table
from odtlib.experiments.reference import verdict_kind, verdict_summary

PAPER_TEXTS = SHARED / "papers"


def test_index_lists_every_shipped_table_with_provenance():
    index = list_reference_tables()
    assert len(index) == 40
    assert set(index.paper) == {"000", "001", "002", "003", "004"}
    assert index[["source", "caption", "units", "paper_title"]].ne("").all().all()
    assert not index.duplicated(["paper", "table"]).any()
    package_dir = files("odtlib") / "reference"
    shipped = {p.name for p in package_dir.iterdir() if re.fullmatch(r"paper\d{3}_.*\.csv", p.name)}
    assert shipped == set(index.file)                  # every shipped table is indexed, and vice versa


@pytest.mark.parametrize("row", list_reference_tables().to_dict("records"), ids=lambda r: f"{r['paper']}-{r['table']}")
def test_each_table_loads_and_has_the_key_and_value_columns_its_index_names(row):
    table = reference_table(row["paper"], row["table"])
    assert len(table) > 0
    columns = row["keys"].split(";") + row["values"].split(";")
    assert set(columns) <= set(table.columns), set(columns) - set(table.columns)
    assert table.attrs["units"] == row["units"]


def test_table_names_are_flexible_and_unknown_ones_are_named_in_the_error():
    a = reference_table("001", "table2")
    assert a.equals(reference_table(1, "Table 2")) and a.equals(reference_table("paper001", 2))
    assert a.shape == (32, 7)
    with pytest.raises(KeyError, match="known: table1, table2, fig3"):
        reference_table("001", "table9")
    with pytest.raises(ValueError, match="paper must be a number"):
        reference_table("flowoct", "table2")


def test_units_distinguish_fraction_and_percent_tables():
    assert "fraction" in reference_table("002", "table1").attrs["units"]
    assert reference_table("002", "table1").test_acc.max() <= 1.0
    assert reference_table("001", "table2").attrs["units"] == "percent"
    assert reference_table("001", "table2").Benders.min() > 1.0


@pytest.mark.skipif(not (PAPER_TEXTS / "001_aghaei_flowoct_benders.txt").exists(), reason="paper texts absent")
def test_paper001_table2_matches_the_paper_text():
    """Independent check of our transcription: parse Table 2's tab-separated rows from the paper text."""
    lines = (PAPER_TEXTS / "001_aghaei_flowoct_benders.txt").read_text().splitlines()
    start = lines.index("Table 2: Out of sample accuracy")
    rows = [line.split("\t") for line in lines[start:start + 40] if line.count("\t") == 5][1:]
    assert len(rows) == 32
    table = reference_table("001", "table2")
    text = np.array([[float(v) for v in row[2:]] for row in rows])
    assert np.array_equal(text, table[["OCT", "BinOCT", "FlowOCT", "Benders"]].to_numpy())
    assert [row[0].strip("$ ") for row in rows] == table.dataset.tolist()


# --- compare --------------------------------------------------------------------------------------

@pytest.fixture
def paper():
    return pd.DataFrame({"dataset": ["a", "b", "c", "d", "e"], "depth": 2,
                         "acc": [80.0, 70.0, 60.0, np.nan, 50.0],
                         "limit": ["", "", "", "", "paper hit the time limit"]})


@pytest.fixture
def ours():
    return pd.DataFrame({"dataset": ["a", "a", "b", "c", "d", "e", "z"], "depth": 2,
                         "acc": [80.5, 79.5, 72.0, 55.0, 66.0, 50.0, 90.0]})


def test_compare_verdicts(paper, ours):
    table = compare(ours, paper, on=["dataset", "depth"], value="acc", tolerance=1.0, paper_reason="limit")
    assert list(table.columns) == ["dataset", "depth", "paper", "ours", "difference", "verdict", "n_ours"]
    by = table.set_index("dataset")
    assert by.loc["a", "ours"] == pytest.approx(80.0) and by.loc["a", "n_ours"] == 2       # mean of 2 seeds
    assert by.loc["a", "verdict"] == "within tolerance"
    assert by.loc["b", "verdict"] == "higher" and by.loc["b", "difference"] == pytest.approx(2.0)
    assert by.loc["c", "verdict"] == "lower" and by.loc["c", "difference"] == pytest.approx(-5.0)
    assert by.loc["d", "verdict"] == "not comparable: no number in the paper"
    assert by.loc["e", "verdict"] == "not comparable: paper hit the time limit"
    assert by.loc["z", "verdict"] == "not comparable: not in the paper"
    assert list(table.dataset) == ["a", "b", "c", "d", "e", "z"]                         # paper order first


def test_compare_missing_on_our_side_and_our_reasons(paper):
    ours = pd.DataFrame({"dataset": ["a", "b"], "depth": 2, "acc": [80.0, 10.0],
                         "why": ["", "our run hit the time limit"]})
    table = compare(ours, paper, on=["dataset", "depth"], value="acc", ours_reason="why").set_index("dataset")
    assert table.loc["b", "verdict"] == "not comparable: our run hit the time limit"
    assert table.loc["c", "verdict"] == "not comparable: missing on our side" and table.loc["c", "n_ours"] == 0


def test_compare_with_a_wide_paper_table_and_a_different_value_name():
    paper = reference_table("001", "table2")
    ours = pd.DataFrame({"dataset": ["monk1"], "depth": [2], "test_accuracy": [72.3]})
    table = compare(ours, paper, on=["dataset", "depth"], value="test_accuracy", paper_value="FlowOCT")
    row = table[table.dataset == "monk1"].set_index("depth").loc[2]
    assert row.paper == 72.3 and row.verdict == "within tolerance"


def test_compare_rejects_ambiguous_or_incomplete_input(paper, ours):
    with pytest.raises(ValueError, match="paper table has several rows per key"):
        compare(ours, paper, on=["depth"], value="acc")
    with pytest.raises(ValueError, match="agg='mean'"):
        compare(ours, paper, on=["dataset", "depth"], value="acc", agg=None)
    with pytest.raises(KeyError, match="ours has no column"):
        compare(ours, paper, on=["dataset", "seed"], value="acc")


# ------------------------------------------------------------------------------------------ verdict summary
def _judged_table() -> pd.DataFrame:
    """A `compare` table made by hand (tolerance 2 points): two cells within, one lower, one higher, two not
    comparable for different reasons and one a short profile held back."""
    rows = [("a", 80.0, 81.0, "within tolerance"), ("b", 70.0, 64.0, "lower"), ("c", 60.0, 63.5, "higher"),
            ("d", 50.0, 50.7, "within tolerance"), ("e", 90.0, np.nan, "not comparable: missing on our side"),
            ("f", 90.0, 99.0, "not comparable: ours: 1 run(s) failed"),
            ("g", 40.0, 45.0, "not comparable: smoke profile (1 split); would be: higher")]
    table = pd.DataFrame(rows, columns=["dataset", "paper", "ours", "verdict"]).assign(depth=2)
    table["difference"] = table["ours"] - table["paper"]
    return table[["dataset", "depth", "paper", "ours", "difference", "verdict"]].assign(n_ours=1)


def test_verdict_kind_drops_the_reason_and_keeps_a_held_back_verdict():
    assert verdict_kind("lower") == "lower"
    assert verdict_kind("not comparable: paper hit the time limit") == "not comparable"
    assert verdict_kind("not comparable: quick profile (1 split); would be: within tolerance") == \
        "not comparable, would be: within tolerance"


def test_verdict_summary_counts_verdicts_and_names_the_largest_differences():
    text = verdict_summary(_judged_table(), "Table X, tolerance 2 points", largest=2)
    # by hand: compared cells a, b, c, d with |differences| 1.0, 6.0, 3.5, 0.7 -> mean 11.2 / 4 = 2.8; the two
    # largest are b (-6.0) and c (+3.5); f's 9-point difference is not compared, so it is not listed
    assert text == ("Table X, tolerance 2 points:\n\n"
                    "- 2 cells: within tolerance\n"
                    "- 1 cell: higher\n"
                    "- 1 cell: lower\n"
                    "- 2 cells: not comparable\n"
                    "- 1 cell: not comparable, would be: higher\n"
                    "- mean |ours - paper| over 4 cells compared: 2.8 points\n"
                    "- largest differences (ours - paper, points): b / 2 -6.0; c / 2 +3.5")


def test_verdict_summary_of_fractions_with_chosen_keys_and_without_compared_cells():
    table = _judged_table()
    fractions = table.assign(difference=table["difference"] / 100, quantity="test_acc")
    text = verdict_summary(fractions, "Tables 1-3", keys=["dataset", "quantity"], digits=3, unit="", largest=1)
    # by hand: mean 2.8 points = 0.028; the largest is b, -6 points = -0.060
    assert text.endswith("- mean |ours - paper| over 4 cells compared: 0.028\n"
                         "- largest differences (ours - paper): b / test_acc -0.060")
    held_back = table[table["verdict"].str.startswith("not comparable")]
    assert verdict_summary(held_back, "Smoke") == ("Smoke:\n\n- 2 cells: not comparable\n"
                                                    "- 1 cell: not comparable, would be: higher")
    assert verdict_summary(table.iloc[:0], "Nothing yet") == "Nothing yet:\n\n- no cell to compare"
