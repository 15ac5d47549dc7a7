"""The papers' published numbers (package data in ``odtlib/reference/``), paper-vs-ours tables (`compare`) and
the summary of their verdicts that the paper notebooks print (`verdict_summary`)."""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from importlib.resources import files

import numpy as np
import pandas as pd

VERDICT_WITHIN = "within tolerance"
VERDICT_LOWER = "lower"
VERDICT_HIGHER = "higher"
NOT_COMPARABLE = "not comparable"     # a verdict's prefix, followed by ": <why>"
WOULD_BE = "would be: "               # ... and by "; would be: <verdict>" when a short profile holds one back


def _reference_dir():
    return files("odtlib") / "reference"


def _read_text_csv(name: str) -> pd.DataFrame:
    with _reference_dir().joinpath(name).open(encoding="utf-8") as handle:
        return pd.read_csv(handle, dtype=str, keep_default_na=False)


@lru_cache(maxsize=1)
def _index() -> pd.DataFrame:
    papers = _read_text_csv("papers.csv")[["paper", "authors", "title"]]
    papers = papers.rename(columns={"authors": "paper_authors", "title": "paper_title"})
    return _read_text_csv("index.csv").merge(papers, on="paper", how="left", validate="many_to_one")


def _paper_id(paper: str | int) -> str:
    text = str(paper).lower().removeprefix("paper").strip()
    if not text.isdigit():
        raise ValueError(f"paper must be a number such as '001' or 1, got {paper!r}")
    return text.zfill(3)


def list_reference_tables(paper: str | int | None = None) -> pd.DataFrame:
    """The index of the published tables: paper, table, file, source, caption, units, keys, values,
    notes, paper_authors, paper_title.

    ``keys``/``values`` list the table's key and value columns separated by ``;``.
    """
    index = _index()
    if paper is not None:
        index = index[index["paper"] == _paper_id(paper)]
    return index.reset_index(drop=True)


def reference_table(paper: str | int, table: str | int) -> pd.DataFrame:
    """A published table as a DataFrame, numbers as printed (mind the units: see ``df.attrs``).

    ``paper``: "001", 1 or "paper001"; ``table``: "table2", "Table 2", 2, "fig3", "text_numbers"...
    ``df.attrs`` holds the index row (source, caption, units, keys, values, notes).
    """
    paper_id = _paper_id(paper)
    name = str(table).lower().replace(" ", "")
    if name.isdigit():
        name = f"table{name}"
    index = _index()
    rows = index[(index["paper"] == paper_id) & (index["table"].str.lower() == name)]
    if rows.empty:
        known = ", ".join(index.loc[index["paper"] == paper_id, "table"]) or "none"
        raise KeyError(f"no reference table {table!r} for paper {paper_id}; known: {known}")
    row = rows.iloc[0].to_dict()
    with _reference_dir().joinpath(row["file"]).open(encoding="utf-8") as handle:
        frame = pd.read_csv(handle)
    frame.attrs.update(row)
    return frame


def compare(ours: pd.DataFrame, paper: pd.DataFrame, on: Sequence[str] | str, value: str,
            tolerance: float = 1.0, *, paper_value: str | None = None, agg: str | None = "mean",
            ours_reason: str | None = None, paper_reason: str | None = None) -> pd.DataFrame:
    """Side-by-side table of the paper's numbers and ours: paper, ours, difference, verdict.

    Parameters
    ----------
    ours, paper : DataFrames holding the ``on`` key columns and the value column(s), in the SAME units
        (convert first: paper 002 prints accuracies as fractions, the others as percent).
    on : key column(s) to join on (e.g. ``["dataset", "depth"]``).
    value : the value column in ``ours`` (and in ``paper`` unless ``paper_value`` names another one).
    tolerance : ``|ours - paper| <= tolerance`` is "within tolerance"; beyond it "lower" or "higher".
    agg : how to aggregate several rows of ``ours`` per key (seeds, folds): "mean", "median", ...;
        the number of rows is reported in ``n_ours``. None = duplicates are an error.
    ours_reason, paper_reason : optional columns with a reason why a row is not comparable
        (e.g. "paper hit the time limit"); empty/NaN = comparable.

    Returns one row per key found on either side with columns ``on + [paper, ours, difference,
    verdict, n_ours]``; the verdict is "not comparable: <why>" for a reason, a missing side or a
    missing number.
    """
    on = [on] if isinstance(on, str) else list(on)
    paper_value = paper_value or value
    for name, frame, columns in (("ours", ours, [*on, value]), ("paper", paper, [*on, paper_value])):
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise KeyError(f"{name} has no column(s) {missing}; it has {list(frame.columns)}")
    if paper.duplicated(on).any():
        raise ValueError(f"paper table has several rows per key {on}: add key columns to 'on'")
    left = _paper_side(paper, on, paper_value, paper_reason)
    right = _our_side(ours, on, value, agg, ours_reason)
    left["paper_row"], right["our_row"] = np.arange(len(left)), np.arange(len(right))
    table = left.merge(right, on=on, how="outer", indicator="found_in")
    table = table.sort_values(["paper_row", "our_row"], na_position="last")  # the paper's row order
    table["difference"] = table["ours"] - table["paper"]
    table["verdict"] = [_verdict(row, tolerance) for row in table.to_dict("records")]
    table["n_ours"] = table["n_ours"].fillna(0).astype(int)
    return table[[*on, "paper", "ours", "difference", "verdict", "n_ours"]].reset_index(drop=True)


def _paper_side(paper, on, value, reason) -> pd.DataFrame:
    side = paper[on].copy()
    side["paper"] = pd.to_numeric(paper[value], errors="coerce")
    side["paper_reason"] = _reasons(paper, reason)
    return side


def _our_side(ours, on, value, agg, reason) -> pd.DataFrame:
    side = ours[on].copy()
    side["ours"] = pd.to_numeric(ours[value], errors="coerce")
    side["ours_reason"] = _reasons(ours, reason)
    if agg is None:
        if side.duplicated(on).any():
            raise ValueError(f"ours has several rows per key {on}; pass agg='mean' or add key columns")
        side["n_ours"] = 1
        return side
    grouped = side.groupby(on, dropna=False, sort=False)
    return grouped.agg(ours=("ours", agg), n_ours=("ours", "size"),
                       ours_reason=("ours_reason", _first_reason)).reset_index()


def _reasons(frame: pd.DataFrame, column: str | None) -> pd.Series:
    if column is None:
        return pd.Series("", index=frame.index, dtype=object)
    return frame[column].fillna("").astype(str).str.strip()


def _first_reason(reasons: pd.Series) -> str:
    found = [r for r in reasons if r]
    return "; ".join(sorted(set(found)))


def _verdict(side: dict, tolerance: float) -> str:
    if side["found_in"] == "left_only":
        return "not comparable: missing on our side"
    if side["found_in"] == "right_only":
        return "not comparable: not in the paper"
    for reason in (side["paper_reason"], side["ours_reason"]):
        if isinstance(reason, str) and reason:
            return f"not comparable: {reason}"
    if pd.isna(side["paper"]):
        return "not comparable: no number in the paper"
    if pd.isna(side["ours"]):
        return "not comparable: no number on our side"
    difference = side["difference"]
    if np.abs(difference) <= tolerance + 1e-12:
        return VERDICT_WITHIN
    return VERDICT_LOWER if difference < 0 else VERDICT_HIGHER


def verdict_kind(verdict: str) -> str:
    """A `compare` verdict without its reason: "not comparable: <why>" -> "not comparable", and a verdict a short
    profile held back ("not comparable: <profile> ...; would be: lower") -> "not comparable, would be: lower"."""
    verdict = str(verdict)
    if not verdict.startswith(NOT_COMPARABLE):
        return verdict
    held_back = verdict.rpartition(WOULD_BE)[2] if WOULD_BE in verdict else ""
    return f"{NOT_COMPARABLE}, {WOULD_BE}{held_back}" if held_back else NOT_COMPARABLE


def _verdict_order(kind: str) -> tuple[int, str]:
    """Agreement first, then the two directions, then everything not compared (alphabetically)."""
    ranks = {VERDICT_WITHIN: 0, VERDICT_HIGHER: 1, VERDICT_LOWER: 2}
    return ranks.get(kind, len(ranks)), kind


def _cells(n: int) -> str:
    return f"{n} cell" if n == 1 else f"{n} cells"


def _cell_name(row: pd.Series, keys: Sequence[str]) -> str:
    return " / ".join(str(row[k]) for k in keys)


def verdict_summary(table: pd.DataFrame, title: str, *, keys: Sequence[str] | None = None, digits: int = 1,
                    unit: str = "points", largest: int = 3) -> str:
    """A Markdown summary of the verdicts of a `compare` table, for a notebook's verdict cell.

    After ``title`` come one line per kind of verdict with its number of cells (`verdict_kind`: the reasons of
    "not comparable" cells are collapsed), the mean ``|ours - paper|`` over the comparable cells (those judged
    within tolerance, higher or lower) and the ``largest`` comparable cells with the largest ``|difference|``,
    named by their ``keys`` (default: the columns before ``paper``, i.e. `compare`'s ``on``). ``digits`` and
    ``unit`` format the differences (accuracies in percent: 1 and "points"; fractions: 3 and "")."""
    if keys is None:
        keys = list(table.columns[:list(table.columns).index("paper")])
    kinds = table["verdict"].map(verdict_kind)
    counts = kinds.value_counts()
    lines = [f"- {_cells(counts[kind])}: {kind}" for kind in sorted(counts.index, key=_verdict_order)]
    comparable = table[kinds.isin([VERDICT_WITHIN, VERDICT_HIGHER, VERDICT_LOWER])]
    if len(comparable):
        mean = f"{comparable['difference'].abs().mean():.{digits}f} {unit}".rstrip()
        lines.append(f"- mean |ours - paper| over {_cells(len(comparable))} compared: {mean}")
        far = comparable.loc[comparable["difference"].abs().sort_values(ascending=False, kind="stable").index]
        cells = [f"{_cell_name(row, keys)} {row['difference']:+.{digits}f}" for _, row in far.head(largest).iterrows()]
        if cells:
            lines.append(f"- largest differences (ours - paper{', ' + unit if unit else ''}): {'; '.join(cells)}")
    return f"{title}:\n\n" + ("\n".join(lines) or "- no cell to compare")
