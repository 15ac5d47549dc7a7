"""A `StandardForm` as a CPLEX-LP file, for handing large models to SCIP's C reader.

PySCIPOpt creates constraints one Python object at a time (tens of microseconds per row);
writing the rows as text with numpy and letting SCIP's LP reader parse them is several times
faster on large models (measured in ``bench/solver_handoff.py``).

File layout: columns are named ``x0 .. x{n-1}`` and all of them appear, in column order, in the
objective (zero coefficients included), so each one is declared even if it is in no row.
Numbers are written in Python's shortest round-trip form (``repr``), which reads back as the
identical double; values beyond +-``infinity`` are clipped to it, which SCIP reads as infinite.
Bounds are written for every column; binaries (integer columns with bounds inside [0, 1]) go
to the ``Binaries`` section, other integer columns to ``Generals``.

SCIP's LP reader has no ranged rows (``lo <= a.x <= up`` with lo < up both finite): such a row
is written with its lower side only, and the caller sets its right-hand side after reading
(see `ranged_rows`). Rows must have at least one nonzero (the standard-form compiler drops
empty rows).
"""
from __future__ import annotations

import numpy as np

from odtlib.solvers.standard_form import StandardForm


def column_names(n: int) -> list[str]:
    return [f"x{j}" for j in range(n)]


def _binary_columns(sf: StandardForm) -> np.ndarray:
    """Integer columns whose bounds lie inside [0, 1] (SCIP's binary variables)."""
    return sf.is_integer & (sf.col_lb >= 0) & (sf.col_ub <= 1)


def ranged_rows(sf: StandardForm, infinity: float) -> np.ndarray:
    """Rows with two different finite sides (written with their lower side only)."""
    return (sf.row_lb > -infinity) & (sf.row_ub < infinity) & (sf.row_lb != sf.row_ub)


def write_lp(path: str, sf: StandardForm, infinity: float) -> None:
    """Write ``sf`` as an LP file at ``path`` (see the module docstring for the layout)."""
    if sf.n_rows and np.diff(sf.A.indptr).min() == 0:
        raise ValueError("write_lp: every row needs at least one nonzero")
    names = np.array(column_names(sf.n_cols), dtype=object)
    sections = [
        "Maximize\n obj:\n" if sf.sense == -1 else "Minimize\n obj:\n",
        _join(_decimals(sf.c, " ", signed=True), " ", names, "\n"),
        "Subject To\n",
        _rows(sf, names, infinity),
        "Bounds\n",
        _join(_decimals(sf.col_lb, " ", clip=infinity), " <= ", names, " <= ",
              _decimals(sf.col_ub, "", clip=infinity), "\n"),
    ]
    binary = _binary_columns(sf)
    for title, cols in (("Binaries", binary), ("Generals", sf.is_integer & ~binary)):
        if cols.any():
            sections += [title, "\n", _join(" ", names[cols], "\n")]
    sections.append("End\n")
    with open(path, "w", encoding="ascii") as f:
        f.writelines(sections)


def _rows(sf: StandardForm, names: np.ndarray, infinity: float) -> str:
    """One line per row: `` +a1 xj1 +a2 xj2 ... <sense> side``."""
    indptr = sf.A.indptr
    n_rows, nnz = sf.n_rows, sf.A.nnz
    equal = sf.row_lb == sf.row_ub
    upper = ~equal & (sf.row_ub < infinity) & (sf.row_lb <= -infinity)  # only an upper side
    sense = np.where(equal, " = ", np.where(upper, " <= ", " >= ")).astype(object)
    side = _decimals(np.where(equal | upper, sf.row_ub, sf.row_lb), "", clip=infinity)
    # pieces: for each nonzero its coefficient and column name, then the row's tail
    pieces = np.empty(2 * nnz + n_rows, dtype=object)
    row_of_nz = np.repeat(np.arange(n_rows), np.diff(indptr))
    coef_at = 2 * np.arange(nnz) + row_of_nz
    pieces[coef_at] = _decimals(sf.A.data, " ", signed=True, suffix=" ")
    pieces[coef_at + 1] = names[sf.A.indices]
    pieces[2 * indptr[1:] + np.arange(n_rows)] = sense + side + "\n"
    return "".join(pieces.tolist())


def _decimals(values: np.ndarray, prefix: str, signed: bool = False, clip: float | None = None,
              suffix: str = "") -> np.ndarray:
    """``prefix + repr(value) + suffix`` for each value (object array), formatted once per
    distinct value; ``signed`` writes a leading ``+`` on non-negative numbers."""
    values = np.asarray(values, dtype=float)
    if clip is not None:
        values = np.clip(values, -clip, clip)
    distinct, position = np.unique(values, return_inverse=True)
    spec = "+" if signed else ""
    text = np.array([f"{prefix}{v:{spec}}{suffix}" for v in distinct.tolist()], dtype=object)
    return text[position.reshape(-1)]


def _join(*columns) -> str:
    """Concatenate equal-length object arrays (and str constants) element-wise, then all rows."""
    out = columns[0]
    for col in columns[1:]:
        out = out + col
    return "".join(out.tolist())
