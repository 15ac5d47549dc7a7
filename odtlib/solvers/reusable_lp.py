"""A small LP solved many times over with a few changes: one HiGHS model, built once, changed in place.

Some models solve thousands of tiny LPs that differ only a little from one solve to the next: paper 002's
shattering separation solves the Farkas polyhedron Q_t of system (16) for other point sets and objectives,
paper 004's data selection solves LP (24) once per point, with other right-hand sides. Building a Pyomo
model per LP would cost far more than the solve. :class:`ReusableLP` keeps one solver model instead:

* build it once from arrays: the constraint matrix A, row bounds ``row_lower <= A x <= row_upper``, column
  bounds, costs and the sense;
* between solves, change only what differs: :meth:`open` / :meth:`close` columns (a closed column is fixed at
  0), :meth:`set_costs`, :meth:`set_row_bounds`, :meth:`set_column_bounds`, :meth:`add_columns`,
  :meth:`set_integer`;
* :meth:`solve`, then read :meth:`vertex` (the primal solution) or, when the LP is infeasible,
  :meth:`farkas_ray` (a certificate of infeasibility);
* ``n_solves`` and ``seconds`` count the solves and the time spent in this object.

The simplex restarts from the previous basis, so a solve after a small change costs a few pivots. With
``simplex=True`` (the default) the solution is a basic one, a vertex of the feasible region: its support is
small, which both papers use (an irreducible infeasible subsystem of (16); at most d + 1 weights in (24)).

::

    lp = ReusableLP(A, row_lower, row_upper, closed=True)   # every column at 0 until opened
    lp.open([0, 3, 4]); lp.set_costs([0, 3, 4], [1.0, 0.0, 2.0])
    if lp.solve() == "optimal":
        x = lp.vertex()
    else:
        y = lp.farkas_ray()

HiGHS runs these LPs whatever solver runs the MIP around them.
"""
from __future__ import annotations

import time
from functools import wraps

import numpy as np
from scipy import sparse

__all__ = ["ReusableLP"]

SENSES = ("min", "max")


def _timed(method):
    """Add the method's wall time to ``self.seconds``."""
    @wraps(method)
    def timed(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return method(self, *args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start
    return timed


def _indices(columns) -> np.ndarray:
    return np.asarray(columns, dtype=np.int32).ravel()


def _per_index(values, n: int) -> np.ndarray:
    """``values`` (a scalar or one value per index) as n floats."""
    out = np.empty(n)
    out[:] = values
    return out


def _as_matrix(matrix) -> np.ndarray | sparse.csc_matrix:
    """A sparse matrix as CSC (its entries' order kept), anything else as a dense array of floats: a small dense
    matrix costs far less per operation than scipy's sparse machinery."""
    if sparse.issparse(matrix):
        return sparse.csc_matrix(matrix, dtype=np.float64)
    return np.array(matrix, dtype=np.float64, ndmin=2)


def _column_wise(matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """HiGHS's column-wise arrays (starts, row indices, values) of the non-zeros, rows ascending in a dense
    matrix's columns."""
    if sparse.issparse(matrix):
        return matrix.indptr.astype(np.int32), matrix.indices.astype(np.int32), matrix.data
    columns, rows = np.nonzero(matrix.T)
    starts = np.zeros(matrix.shape[1] + 1, dtype=np.int32)
    np.cumsum(np.bincount(columns, minlength=matrix.shape[1]), out=starts[1:])
    return starts, rows.astype(np.int32), matrix.T[columns, rows]


class ReusableLP:
    """A small LP ``min (or max) c·x  s.t.  row_lower <= A x <= row_upper,  col_lower <= x <= col_upper``, built
    once on HiGHS and re-solved after changes (module docstring).

    Parameters
    ----------
    matrix : array or scipy sparse matrix, shape (rows, columns)
        The constraint matrix A (a sparse one is passed column-wise in the order of its entries).
    row_lower, row_upper : float or array
        Row bounds (-inf / inf for a one-sided row, equal for an equality).
    costs : float or array, default 0
        The objective's coefficients c; :meth:`close` returns a column's cost to this value.
    col_lower, col_upper : float or array, default 0 and inf
        The bounds of an open column.
    sense : {"min", "max"}, default "min"
    closed : bool, default False
        Start with every column closed (fixed at 0), to be opened by :meth:`open`.
    simplex : bool, default True
        Solve with HiGHS's simplex (a vertex solution); False lets HiGHS choose.
    presolve : bool, default True
        False keeps HiGHS's presolve off, so every solve starts from the last basis.

    Attributes
    ----------
    n_solves : int
        Solves so far.
    seconds : float
        Wall seconds spent in this object's changes and solves.
    status : str
        The last solve's outcome: "optimal", "infeasible", "unbounded", or HiGHS's own name of another status.

    Examples
    --------
    max x1 + x2 s.t. x1 + 2 x2 <= 4 and 3 x1 + x2 <= 6 (x >= 0): the two rows meet at (8/5, 6/5).

    >>> import numpy as np
    >>> from odtlib.solvers import ReusableLP
    >>> lp = ReusableLP([[1.0, 2.0], [3.0, 1.0]], -np.inf, [4.0, 6.0], costs=[1.0, 1.0], sense="max")
    >>> lp.solve()
    'optimal'
    >>> lp.vertex().round(6).tolist()
    [1.6, 1.2]

    Close x2: only 3 x1 <= 6 binds. Then ask for x1 + 2 x2 = 5, which x1 <= 2 cannot reach:

    >>> lp.close([1])
    >>> lp.solve(), lp.vertex().round(6).tolist()
    ('optimal', [2.0, 0.0])
    >>> lp.set_row_bounds([0], 5.0, 5.0)
    >>> lp.solve()
    'infeasible'

    The Farkas ray y proves it: y·A_1 = y1 + 3 y2 <= 0 keeps y·(A x) <= 0 for every x1 >= 0 (x2 = 0), while every
    right-hand side r (r1 = 5, r2 <= 6) has y·r = 5 y1 + y2 r2 >= 5 y1 + 6 y2 > 0 (as y2 <= 0):

    >>> y = lp.farkas_ray()
    >>> bool(y[0] + 3 * y[1] <= 1e-9 and y[1] <= 0 and 5 * y[0] + 6 * y[1] > 0)
    True
    """

    def __init__(self, matrix, row_lower, row_upper, *, costs=0.0, col_lower=0.0, col_upper=np.inf,
                 sense: str = "min", closed: bool = False, simplex: bool = True, presolve: bool = True):
        import highspy

        from odtlib.solvers.highs import new_highs

        if sense not in SENSES:
            raise ValueError(f"sense must be one of {SENSES}, got {sense!r}")
        self.n_solves, self.seconds, self.status = 0, 0.0, "not solved"
        start = time.perf_counter()
        self._highspy = highspy
        matrix = _as_matrix(matrix)
        n_rows, n_cols = matrix.shape
        self._costs = _per_index(costs, n_cols)        # the built costs, what close() returns to
        self._current_costs, self._costs_changed = self._costs.copy(), False
        self._lower, self._upper = _per_index(col_lower, n_cols), _per_index(col_upper, n_cols)
        self._is_open = np.full(n_cols, not closed)
        self._row_lower, self._row_upper = _per_index(row_lower, n_rows), _per_index(row_upper, n_rows)
        self.highs = new_highs(log=False)
        if simplex:
            self.highs.setOptionValue("solver", "simplex")
        if not presolve:
            self.highs.setOptionValue("presolve", "off")
        self._matrix = matrix
        self.highs.passModel(self._highs_lp(matrix, sense))
        self._statuses = {highspy.HighsModelStatus.kOptimal: "optimal",
                          highspy.HighsModelStatus.kInfeasible: "infeasible",
                          highspy.HighsModelStatus.kUnbounded: "unbounded"}
        self.seconds += time.perf_counter() - start

    def _highs_lp(self, matrix, sense: str):
        lp = self._highspy.HighsLp()
        lp.num_row_, lp.num_col_ = matrix.shape
        lp.col_cost_ = self._costs
        lp.col_lower_ = np.where(self._is_open, self._lower, 0.0)
        lp.col_upper_ = np.where(self._is_open, self._upper, 0.0)
        lp.row_lower_, lp.row_upper_ = self._row_lower, self._row_upper
        lp.a_matrix_.format_ = self._highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = _column_wise(matrix)
        if sense == "max":
            lp.sense_ = self._highspy.ObjSense.kMaximize
        return lp

    @property
    def open_columns(self) -> np.ndarray:
        """The indices of the open columns."""
        return np.flatnonzero(self._is_open)

    # ------------------------------------------------------------------ changes
    @_timed
    def open(self, columns) -> None:
        """Let ``columns`` take values within their bounds again (those given at build or by
        :meth:`set_column_bounds`)."""
        columns = _indices(columns)
        self.highs.changeColsBounds(len(columns), columns, self._lower[columns], self._upper[columns])
        self._is_open[columns] = True

    @_timed
    def close(self, columns=None) -> None:
        """Fix ``columns`` (default: every open column) at 0; their costs return to the built costs."""
        columns = self.open_columns.astype(np.int32) if columns is None else _indices(columns)
        if len(columns) == 0:
            return
        zeros = np.zeros(len(columns))
        self.highs.changeColsBounds(len(columns), columns, zeros, zeros)
        self._is_open[columns] = False
        if not self._costs_changed:
            return
        changed = columns[self._current_costs[columns] != self._costs[columns]]
        if len(changed):
            self.highs.changeColsCost(len(changed), changed, self._costs[changed])
            self._current_costs[changed] = self._costs[changed]

    @_timed
    def set_costs(self, columns, costs) -> None:
        """The objective coefficients of ``columns`` (until changed again or the columns close)."""
        columns = _indices(columns)
        costs = _per_index(costs, len(columns))
        self.highs.changeColsCost(len(columns), columns, costs)
        self._current_costs[columns] = costs
        self._costs_changed = True

    @_timed
    def set_row_bounds(self, rows, lower, upper) -> None:
        """``lower <= (A x)_r <= upper`` for the rows ``rows`` (scalars or one value per row)."""
        rows = _indices(rows)
        lower, upper = _per_index(lower, len(rows)), _per_index(upper, len(rows))
        self.highs.changeRowsBounds(len(rows), rows, lower, upper)
        self._row_lower[rows], self._row_upper[rows] = lower, upper

    def set_column_bounds(self, columns, lower, upper) -> None:
        """New bounds of ``columns`` (scalars or one value per column); the columns are open."""
        columns = _indices(columns)
        self._lower[columns], self._upper[columns] = lower, upper
        self.open(columns)

    @_timed
    def set_integer(self, columns) -> None:
        """``columns`` take integer values: the model becomes a MIP, which :meth:`solve` solves to a zero gap."""
        columns = _indices(columns)
        self.highs.changeColsIntegrality(len(columns), columns,
                                         np.full(len(columns), self._highspy.HighsVarType.kInteger))
        self.highs.setOptionValue("mip_rel_gap", 0.0)

    @_timed
    def add_columns(self, matrix, *, costs=0.0, col_lower=0.0, col_upper=np.inf) -> None:
        """Append open columns: ``matrix`` has one column per new column (rows as in A)."""
        matrix = _as_matrix(matrix)
        k = matrix.shape[1]
        costs, lower, upper = (_per_index(v, k) for v in (costs, col_lower, col_upper))
        starts, index, value = _column_wise(matrix)
        self.highs.addCols(k, costs, lower, upper, len(value), starts[:-1], index, value)
        if sparse.issparse(self._matrix):
            self._matrix = sparse.hstack([self._matrix, sparse.csc_matrix(matrix)], format="csc")
        else:
            self._matrix = np.hstack([self._matrix, matrix.toarray() if sparse.issparse(matrix) else matrix])
        self._costs = np.concatenate([self._costs, costs])
        self._current_costs = np.concatenate([self._current_costs, costs])
        self._lower, self._upper = np.concatenate([self._lower, lower]), np.concatenate([self._upper, upper])
        self._is_open = np.concatenate([self._is_open, np.ones(k, dtype=bool)])

    # ------------------------------------------------------------------ solve and read
    @_timed
    def solve(self) -> str:
        """Solve from the last basis; returns (and stores in ``status``) "optimal", "infeasible", ..."""
        self.highs.run()
        self.n_solves += 1
        status = self.highs.getModelStatus()
        self.status = self._statuses.get(status, self.highs.modelStatusToString(status))
        return self.status

    def vertex(self) -> np.ndarray:
        """The primal solution x of the last solve (a vertex with ``simplex=True``), one value per column."""
        return np.asarray(self.highs.getSolution().col_value)

    def farkas_ray(self, tol: float = 1e-9) -> np.ndarray | None:
        """After an infeasible solve: row multipliers y that prove it, scaled to max |y_r| = 1; None when HiGHS
        has no ray or its ray proves nothing.

        y is oriented so that ``max_x y·(A x) < min_r y·r`` over the columns' bounds (x) and the rows' bounds
        (r): no x within its bounds has A x within the row bounds. The max is finite: y·A_j <= tol on a column
        with no upper bound, >= -tol on one with no lower bound (entries within ``tol`` of 0 count as 0). Of
        the two signs of HiGHS's ray, the one with the larger difference of the two sides is returned."""
        _, has_ray, ray = self.highs.getDualRay()
        if not has_ray:
            return None
        y = np.asarray(ray, dtype=np.float64)
        y = y / max(np.abs(y).max(), 1e-300)
        on_columns = self._matrix.T @ y
        lower = np.where(self._is_open, self._lower, 0.0)
        upper = np.where(self._is_open, self._upper, 0.0)
        column_max = [_max_dot(s * on_columns, lower, upper, tol) for s in (1.0, -1.0)]
        if np.isinf(column_max).all():
            return None
        if np.isinf(column_max).any():                     # only one sign keeps max_x y·(A x) finite
            return y if column_max[0] < np.inf else -y
        row_min = [-_max_dot(-s * y, self._row_lower, self._row_upper, tol) for s in (1.0, -1.0)]
        return y if row_min[0] - column_max[0] >= row_min[1] - column_max[1] else -y


def _max_dot(a: np.ndarray, lower: np.ndarray, upper: np.ndarray, tol: float) -> float:
    """max a·z over the box lower <= z <= upper; inf when an a_j beyond ``tol`` meets an infinite bound (entries
    of a within ``tol`` of 0 count as 0 there)."""
    bound = np.where(a > 0, upper, lower)
    finite = np.isfinite(bound)
    if not finite.all():
        if np.any(np.abs(a[~finite]) > tol):
            return np.inf
        bound = np.where(finite, bound, 0.0)
    return float(a @ bound)
