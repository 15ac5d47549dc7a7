"""Pyomo model -> arrays, shared by every solver backend.

Pyomo's own solver interfaces walk the model expression by expression and are 5-10x slower
than Pyomo's standard-form compiler (``pyomo.repn.plugins.standard_form``), which produces a
sparse matrix in one pass (measured in ``bench/solver_handoff.py``). `compile_model` runs that
compiler once and gathers everything a MIP solver needs as numpy arrays::

    row_lb <= A x <= row_ub,   col_lb <= x <= col_ub,   x[j] integer where is_integer[j],
    objective  c.x + c_offset  minimised (sense = +1) or maximised (sense = -1).

Branching priorities come from a Pyomo suffix named ``priority`` (the name Pyomo's own Gurobi/CPLEX
interfaces use): ``model.priority = Suffix(direction=Suffix.LOCAL)``, then ``model.priority[var] = 2``
(a value for an IndexedVar applies to all its members); a larger number is branched on first, unset means 0. SCIP,
Gurobi and CPLEX use them; HiGHS and GLPK have no branching priorities. (An EXPORT suffix is read
as well, but Pyomo's compiler then logs that it skips it.)

Columns are the Pyomo variables that appear in an active objective or constraint and are not
fixed (fixed variables are folded into the bounds by the compiler). `ColumnIndex` maps Pyomo
variables to column numbers for warm starts, callback values and callback rows.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from pyomo.core.base.suffix import Suffix
from pyomo.core.base.var import IndexedVar, VarData
from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler
from pyomo.repn.util import FileDeterminism


@dataclass
class StandardForm:
    """A linear MIP as arrays (see the module docstring for the meaning of each field)."""

    A: sp.csr_array
    row_lb: np.ndarray
    row_ub: np.ndarray
    c: np.ndarray
    c_offset: float
    sense: int
    col_lb: np.ndarray
    col_ub: np.ndarray
    is_integer: np.ndarray
    index: ColumnIndex = field(repr=False)
    branch_priority: np.ndarray | None = field(default=None, repr=False)   # int per column, None: all 0

    @property
    def n_cols(self) -> int:
        return self.A.shape[1]

    @property
    def n_rows(self) -> int:
        return self.A.shape[0]

    def objective_value(self, x: np.ndarray) -> float:
        return float(self.c @ x + self.c_offset)


class ColumnIndex:
    """Pyomo variable <-> column number.

    Variables that are not columns (fixed, or used in no active objective/constraint) get
    numbers from ``n_cols`` on ("off-model" variables); their value in callbacks is their
    fixed value (or their current value clipped to the bounds, else 0), see `off_model_values`.
    """

    def __init__(self, columns: list[VarData]):
        self.columns = columns
        self.n_cols = len(columns)
        self._position = {id(v): j for j, v in enumerate(columns)}
        self._off_model: list[VarData] = []
        self._component_cache: dict[int, np.ndarray] = {}

    def column(self, var: VarData) -> int:
        """Column number of one Pyomo variable (off-model variables get numbers >= n_cols)."""
        j = self._position.get(id(var))
        if j is None:
            if not isinstance(var, VarData):
                raise TypeError(f"expected a Pyomo variable, got {var!r}")
            j = self.n_cols + len(self._off_model)
            self._off_model.append(var)
            self._position[id(var)] = j
        return j

    def columns_of(self, variables) -> np.ndarray:
        """Column numbers (int64 array) of an IndexedVar (in its index order; cached) or of a
        sequence of Pyomo variables."""
        if isinstance(variables, IndexedVar):
            key = id(variables)
            cols = self._component_cache.get(key)
            if cols is None:
                cols = np.fromiter((self.column(v) for v in variables.values()), np.int64)
                self._component_cache[key] = cols
            return cols
        if isinstance(variables, np.ndarray) and variables.dtype.kind in "iu":
            return variables.astype(np.int64, copy=False)
        if isinstance(variables, VarData):
            return np.array([self.column(variables)], np.int64)
        return np.fromiter((self.column(v) for v in variables), np.int64)

    @property
    def n_off_model(self) -> int:
        return len(self._off_model)

    def off_model_var(self, j: int) -> VarData:
        return self._off_model[j - self.n_cols]

    def off_model_values(self) -> np.ndarray:
        """Values used for off-model variables (in the order of their numbers)."""
        return np.array([_constant_value(v) for v in self._off_model], dtype=float)


def _constant_value(var: VarData) -> float:
    if var.value is not None:
        value = float(var.value)
    else:
        value = 0.0
    if var.fixed:
        return value
    lb, ub = var.bounds
    if lb is not None:
        value = max(value, lb)
    if ub is not None:
        value = min(value, ub)
    return value


def compile_model(model) -> StandardForm:
    """Compile a linear Pyomo model (one active objective, or none) into a `StandardForm`."""
    # file_determinism=NONE: components and indices in their insertion order (deterministic for a
    # model built the same way) instead of re-sorting every indexed component through its index set,
    # which made the compile ~2.4x slower (bench/solver_handoff.py).
    info = LinearStandardFormCompiler().write(model, mixed_form=True, set_sense=None,
                                              file_determinism=FileDeterminism.NONE)
    columns = list(info.columns)
    n = len(columns)
    if len(info.objectives) > 1:
        raise ValueError(f"model has {len(info.objectives)} active objectives; solve() needs at most one")
    if info.objectives:
        sense = int(info.objectives[0].sense)  # pyomo: minimize = 1, maximize = -1
        c = np.asarray(info.c.toarray()[0], dtype=float) if info.c.shape[0] else np.zeros(n)
        c_offset = float(info.c_offset[0]) if len(info.c_offset) else 0.0
    else:
        sense, c, c_offset = 1, np.zeros(n), 0.0

    rhs = np.asarray(info.rhs, dtype=float)
    bound_type = np.fromiter((r.bound_type for r in info.rows), np.int8, len(info.rows))
    row_lb = np.where(bound_type == 1, -np.inf, rhs)  # 1: <=, -1: >=, 0: ==
    row_ub = np.where(bound_type == -1, np.inf, rhs)

    col_lb = np.empty(n)
    col_ub = np.empty(n)
    is_integer = np.empty(n, dtype=bool)
    for j, v in enumerate(columns):
        lb, ub = v.bounds
        col_lb[j] = -np.inf if lb is None else lb
        col_ub[j] = np.inf if ub is None else ub
        is_integer[j] = v.is_integer()

    A = sp.csr_array(info.A)
    A.sort_indices()
    return StandardForm(
        A=A, row_lb=row_lb, row_ub=row_ub, c=c, c_offset=c_offset, sense=sense,
        col_lb=col_lb, col_ub=col_ub, is_integer=is_integer, index=ColumnIndex(columns),
        branch_priority=branch_priorities(model, columns),
    )


def branch_priorities(model, columns: list[VarData]) -> np.ndarray | None:
    """The model's ``priority`` suffix as one integer per column (0 where unset); None without one.
    A value given for an IndexedVar (``suffix[model.b] = 2``) applies to each of its members."""
    suffix = model.component("priority")
    if not isinstance(suffix, Suffix):
        return None
    priority = np.fromiter((suffix.get(v, suffix.get(v.parent_component(), 0)) or 0 for v in columns),
                           dtype=np.int64, count=len(columns))
    return priority if priority.any() else None


def clean_values(sf: StandardForm, x: np.ndarray) -> np.ndarray:
    """Round integer columns and undo tiny bound violations of a solver's column values."""
    x = np.where(sf.is_integer, np.round(x), x)
    return np.minimum(np.maximum(x, sf.col_lb), sf.col_ub)


def load_values(sf: StandardForm, x: np.ndarray) -> None:
    """Write column values into the Pyomo variables."""
    for v, val in zip(sf.index.columns, x.tolist()):
        v.set_value(val, skip_validation=True)


def start_violations(sf: StandardForm, cols: np.ndarray, vals: np.ndarray, tol: float = 1e-6) -> int | None:
    """Rows and column bounds a complete start violates by more than ``tol`` (None: the start leaves some
    columns open, so the solver completes it and nothing can be checked here)."""
    if len(np.unique(cols)) < sf.n_cols:
        return None
    x = np.empty(sf.n_cols)
    x[cols] = vals
    activity = sf.A @ x
    rows = (activity < sf.row_lb - tol) | (activity > sf.row_ub + tol)
    bounds = (x < sf.col_lb - tol) | (x > sf.col_ub + tol)
    return int(rows.sum() + bounds.sum())


def start_vector(sf: StandardForm, assignment) -> tuple[np.ndarray, np.ndarray]:
    """An assignment (ComponentMap or iterable of (Pyomo variable, value) pairs) as (column
    numbers, values); entries for fixed or unused variables are dropped, None values skipped."""
    cols, vals = [], []
    pairs = assignment.items() if hasattr(assignment, "items") else assignment
    for var, val in pairs:
        if val is None:
            continue
        j = sf.index.column(var)
        if j < sf.n_cols:
            cols.append(j)
            vals.append(float(val))
    return np.asarray(cols, dtype=np.int64), np.asarray(vals, dtype=float)
