"""Solver callbacks written once against Pyomo variables.

A model that needs lazy constraints (Benders cuts, subtour elimination), user cuts or a primal
heuristic subclasses `Callbacks` and passes an instance to ``solve(..., callbacks=cb)``.
On SCIP the methods run inside branch-and-cut (constraint handler, separator, heuristic);
on HiGHS/GLPK/commercial backends lazy constraints are enforced by a restart loop
(see `odtlib.solvers.restart`) and ``cut``/``heuristic`` are ignored with a logged notice.

Worked example: Benders-style lazy cuts, vectorised
---------------------------------------------------
Master model: binaries ``m.b[f]``, one continuous ``m.g[i] <= 1`` per sample with objective
``max sum(m.g)``; sample ``i`` may count only if it is "routed" correctly, i.e. the cut
``g[i] <= sum_{f in S_i(b)} b[f]`` holds for the set ``S_i`` found by separation::

    import numpy as np
    from odtlib.solvers import Callbacks, LinearRow, solve

    class BendersCuts(Callbacks):
        def __init__(self, m, X):
            self.m, self.X = m, X                     # X: (n_samples, n_features) 0/1 array

        def lazy(self, values):
            b = values.array(self.m.b)               # numpy array, index order of m.b
            g = values.array(self.m.g)
            # vectorised separation over all samples at once (no Python loop over samples)
            routed = (self.X @ (b > 0.5)) > 0        # toy rule standing in for real separation
            violated = np.flatnonzero(~routed & (g > 1e-6))
            g_cols = values.columns(self.m.g)        # column numbers, cached per component
            b_cols = values.columns(self.m.b)
            rows = []
            for i in violated:                       # loop only over the violated samples
                support = b_cols[self.X[i] == 1]
                rows.append(LinearRow(
                    np.concatenate(([g_cols[i]], support)),   # column numbers (or Pyomo variables)
                    np.concatenate(([1.0], -np.ones(len(support)))),
                    ub=0.0))                         # g_i - sum b_f <= 0
            return rows

    res = solve(m, solver="scip", callbacks=BendersCuts(m, X))
    res.n_lazy                                       # rows added

The same ``lazy`` could return Pyomo relational expressions instead,
``[m.g[i] <= sum(m.b[f] for f in S) for i in violated]`` — correct and readable but slower:
for a 21-term row, building plus conversion cost ~350 us as a Pyomo expression against
~35 us as a `LinearRow` built with ``np.concatenate`` (``np.r_`` alone adds ~25 us). Use
`LinearRow` in hot callbacks that return many rows; keep the separation itself vectorised.

Rows added by callbacks live only in the solver, not in the Pyomo model: copying thousands
of cuts into Pyomo constraints would cost more than the cuts themselves, and the model stays
re-solvable from scratch. ``SolveResult.n_lazy`` / ``n_cuts`` count them; a callback that
wants to keep them can store its own rows.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import scipy.sparse as sp
from pyomo.core.base.var import VarData
from pyomo.core.expr.relational_expr import (
    EqualityExpression,
    InequalityExpression,
    RangedExpression,
)
from pyomo.repn.standard_repn import generate_standard_repn

from odtlib.solvers.standard_form import ColumnIndex

FEASIBILITY_TOL = 1e-6


class Callbacks:
    """Base class for solver callbacks; override any of `lazy`, `cut`, `heuristic`.

    Every method receives a `Values` object (the current point, see there) and must not
    modify the Pyomo model. Returned constraints may be Pyomo relational expressions
    (``m.g[i] <= m.b[0] + m.b[1]``) or `LinearRow` objects (faster); they must be linear
    and valid for the model (a lazy row cuts off infeasible points only; a cut must not cut
    off any feasible integer point).

    Attributes
    ----------
    lazy_at_fractional : bool
        Also call `lazy` at fractional LP solutions (SCIP only; rows returned there are added
        as cuts, which can tighten the LP bound earlier — paper 001's fractional separation).
        Default False: only integer candidates are separated.
    """

    lazy_at_fractional: bool = False

    def lazy(self, values: Values) -> Iterable:
        """Lazy constraints violated by ``values``, called at every integer candidate.

        Return an empty list when the candidate is feasible. A candidate is rejected exactly
        when one of the returned rows is violated by it (by more than 1e-6); rows it
        satisfies are harmless (SCIP adds them as cuts, restart backends skip them).
        """
        return ()

    def cut(self, values: Values) -> Iterable:
        """User cuts at a fractional LP solution (SCIP separator, asked at the LP of every node).
        Must be valid for every feasible integer solution. Default: none."""
        return ()

    def rejects(self, values: Values) -> bool:
        """Whether the integer candidate ``values`` violates some lazy constraint (SCIP's
        feasibility check of solutions found by its heuristics, where no row is added).

        Default: build ``lazy(values)`` and test its rows. Override it when deciding is much
        cheaper than building the rows (Benders: the separation alone answers it)."""
        return any(row.violation(values.x) > FEASIBILITY_TOL
                   for row in to_rows(self.lazy(values), values.column_index))

    def heuristic(self, values: Values):
        """Propose a solution from the current LP point (SCIP primal heuristic): a
        ``ComponentMap`` or iterable of (Pyomo variable, value) pairs, or None. Variables left
        out are 0. The solver checks it (incl. the lazy constraints) before accepting it;
        ``SolveResult.extra["heuristic_solutions"]`` counts accepted proposals."""
        return None

    def stats(self) -> dict:
        """Statistics of the solve's plug-ins, reported as ``SolveResult.extra["plugins"]`` (default: none;
        :class:`~odtlib.solvers.BranchAndCut` counts each plug-in's calls, rows and seconds)."""
        return {}

    # -- which methods a subclass overrides decides what the backends install ------------
    @property
    def has_lazy(self) -> bool:
        return _overridden(self.lazy, Callbacks.lazy)

    @property
    def has_cut(self) -> bool:
        return _overridden(self.cut, Callbacks.cut)

    @property
    def has_heuristic(self) -> bool:
        return _overridden(self.heuristic, Callbacks.heuristic)


class Values:
    """The solver's current point, read through Pyomo variables.

    - ``values[var]`` -> float, for one Pyomo variable (VarData).
    - ``values.array(vars)`` -> numpy array of values for an IndexedVar (in its index order,
      i.e. ``list(m.b.values())``), a sequence of variables, or an int array of column numbers.
    - ``values.columns(vars)`` -> int array of column numbers (cached per IndexedVar); use it to
      build `LinearRow` objects without touching Pyomo objects in the hot loop.
    - ``values.x`` -> the raw numpy vector over all columns (``x[values.columns(v)]``).
    - ``values.is_integral`` -> True at an integer candidate (lazy), False at an LP point.
    - ``values.column_index`` -> the model's `ColumnIndex` (column number <-> Pyomo variable), read-only:
      what `to_rows` needs to turn expressions into rows over these columns.
    """

    def __init__(self, x: np.ndarray, index: ColumnIndex, is_integral: bool = True):
        self._index = index
        self.is_integral = is_integral
        if index.n_off_model:
            x = np.concatenate([x, index.off_model_values()])
        self.x = x

    @property
    def column_index(self) -> ColumnIndex:
        """The `ColumnIndex` of the model these values belong to (column number <-> Pyomo variable)."""
        return self._index

    def __getitem__(self, var: VarData) -> float:
        j = self._index.column(var)
        if j >= len(self.x):
            return float(self._index.off_model_values()[j - self._index.n_cols])
        return float(self.x[j])

    def columns(self, variables) -> np.ndarray:
        cols = self._index.columns_of(variables)
        if len(cols) and cols.max() >= len(self.x):  # new off-model variables: extend x
            self.x = np.concatenate([self.x[: self._index.n_cols], self._index.off_model_values()])
        return cols

    def array(self, variables) -> np.ndarray:
        return self.x[self.columns(variables)]


class LinearRow:
    """A linear row ``lb <= sum(coefs[k] * x[vars[k]]) <= ub``, the fast way to return
    constraints from callbacks.

    ``vars`` is either an integer numpy array of column numbers (from ``values.columns``; the
    fastest) or a sequence of Pyomo variables. ``lb``/``ub`` default to -inf/+inf.
    """

    __slots__ = ("vars", "coefs", "lb", "ub")

    def __init__(self, vars, coefs, lb: float = -math.inf, ub: float = math.inf):
        self.vars = vars
        self.coefs = np.asarray(coefs, dtype=float)
        self.lb = float(lb)
        self.ub = float(ub)

    def __repr__(self) -> str:
        return f"LinearRow({len(self.coefs)} terms, lb={self.lb}, ub={self.ub})"


class Row:
    """A callback row resolved to solver columns (internal; see `to_rows`)."""

    __slots__ = ("cols", "coefs", "lb", "ub")

    def __init__(self, cols: np.ndarray, coefs: np.ndarray, lb: float, ub: float):
        self.cols, self.coefs, self.lb, self.ub = cols, coefs, lb, ub

    def violation(self, x: np.ndarray) -> float:
        activity = float(self.coefs @ x[self.cols])
        return max(self.lb - activity, activity - self.ub, 0.0)

    def key(self) -> tuple:
        return (self.cols.tobytes(), self.coefs.tobytes(), self.lb, self.ub)


def to_rows(constraints, index: ColumnIndex) -> list[Row]:
    """Resolve what a callback returned (Pyomo relational expressions and/or `LinearRow`s)
    to rows over solver columns; constants and fixed/off-model variables move to the bounds."""
    if constraints is None:
        return []
    rows = []
    for con in constraints:
        if isinstance(con, LinearRow):
            cols, coefs, lb, ub = index.columns_of(con.vars), con.coefs, con.lb, con.ub
            if len(cols) != len(coefs):
                raise ValueError(f"{con!r}: {len(cols)} variables but {len(coefs)} coefficients")
        elif isinstance(con, (bool, np.bool_)):
            if not con:
                raise ValueError("a callback returned the constant constraint False")
            continue
        else:
            cols, coefs, lb, ub = _relational_terms(con, index)
        rows.append(_fold_off_model(cols, coefs, lb, ub, index))
    return rows


def _relational_terms(expr, index: ColumnIndex):
    if isinstance(expr, RangedExpression):
        lo, body, hi = expr.args
        lb, ub = _const(lo), _const(hi)
    elif isinstance(expr, InequalityExpression):
        body, lb, ub = expr.args[0] - expr.args[1], -math.inf, 0.0
    elif isinstance(expr, EqualityExpression):
        body, lb, ub = expr.args[0] - expr.args[1], 0.0, 0.0
    else:
        raise TypeError(
            f"callbacks must return Pyomo relational expressions (e.g. m.x[1] + m.x[2] <= 1) "
            f"or LinearRow objects, got {type(expr).__name__}: {expr!r}"
        )
    repn = generate_standard_repn(body, compute_values=True, quadratic=False)
    if not repn.is_linear():
        raise ValueError(f"callback constraint is not linear: {expr}")
    const = float(repn.constant)
    cols = np.fromiter((index.column(v) for v in repn.linear_vars), np.int64)
    coefs = np.asarray(repn.linear_coefs, dtype=float)
    return cols, coefs, lb - const, ub - const


def _const(e) -> float:
    from pyomo.environ import value

    v = value(e)
    return -math.inf if v is None else float(v)


def _fold_off_model(cols, coefs, lb, ub, index: ColumnIndex) -> Row:
    off = cols >= index.n_cols if index.n_off_model else None
    if off is not None and off.any():
        shift = 0.0
        for j, a in zip(cols[off].tolist(), coefs[off].tolist()):
            var = index.off_model_var(j)
            if not var.fixed:
                raise ValueError(
                    f"variable {var.name} appears in a callback row but in no objective or "
                    f"constraint of the model, so the solver has no column for it; add it to "
                    f"the model (e.g. with objective coefficient 0)"
                )
            shift += a * float(var.value)
        cols, coefs, lb, ub = cols[~off], coefs[~off], lb - shift, ub - shift
    return Row(np.ascontiguousarray(cols, np.int64), np.ascontiguousarray(coefs, float), lb, ub)


def rows_matrix(rows: list[Row], n_cols: int) -> tuple[sp.csr_array, np.ndarray, np.ndarray]:
    """Stack rows as (CSR matrix, lower bounds, upper bounds)."""
    A = sp.csr_array(
        (np.concatenate([r.coefs for r in rows]), np.concatenate([r.cols for r in rows]),
         np.cumsum([0] + [len(r.cols) for r in rows])),
        shape=(len(rows), n_cols),
    )
    return A, np.array([r.lb for r in rows]), np.array([r.ub for r in rows])


def _overridden(bound_method, base_function) -> bool:
    """True when a subclass (or the instance itself) replaced the base class's method."""
    return getattr(bound_method, "__func__", bound_method) is not base_function
