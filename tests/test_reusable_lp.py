"""`odtlib.solvers.ReusableLP` against hand-solved LPs and scipy's linprog, its Farkas rays against the
conditions that make them certificates, and the rule that no module under `odtlib/models` talks to a solver's
own API (issue 30, item 4)."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

import odtlib.models
from odtlib.solvers import ReusableLP
from odtlib.solvers.core import _BACKENDS

INF = np.inf


def test_hand_solved_lp_in_both_senses():
    # max x1 + x2 s.t. x1 + 2 x2 <= 4, 3 x1 + x2 <= 6, x >= 0: the two rows meet at x2 = 6/5, x1 = 4 - 2 x2 = 8/5,
    # worth 14/5; the other vertices (0, 0), (2, 0), (0, 2) are worth less.
    A = np.array([[1.0, 2.0], [3.0, 1.0]])
    lp = ReusableLP(A, -INF, [4.0, 6.0], costs=[1.0, 1.0], sense="max")
    assert lp.solve() == "optimal" and lp.status == "optimal"
    np.testing.assert_allclose(lp.vertex(), [8 / 5, 6 / 5], atol=1e-9)
    # min of the same costs: the origin
    low = ReusableLP(A, -INF, [4.0, 6.0], costs=[1.0, 1.0])
    assert low.solve() == "optimal"
    np.testing.assert_allclose(low.vertex(), [0.0, 0.0], atol=1e-12)


def test_open_close_and_costs():
    # min -x0 - 2 x1 - 3 x2 s.t. x0 + x1 + x2 <= 1, x >= 0: the open column of lowest cost takes the whole 1.
    lp = ReusableLP(np.ones((1, 3)), -INF, 1.0, costs=[-1.0, -2.0, -3.0], closed=True)
    assert lp.open_columns.tolist() == []
    assert lp.solve() == "optimal"
    np.testing.assert_allclose(lp.vertex(), [0, 0, 0])               # every column closed: x = 0
    lp.open([0])
    lp.solve()
    np.testing.assert_allclose(lp.vertex(), [1, 0, 0])
    lp.close()
    lp.open([1, 2])
    lp.solve()
    np.testing.assert_allclose(lp.vertex(), [0, 0, 1])               # cost -3 beats -2
    lp.set_costs([2], 5.0)
    lp.solve()
    np.testing.assert_allclose(lp.vertex(), [0, 1, 0])               # now x1 (cost -2) is the best
    lp.close([1])
    lp.solve()
    np.testing.assert_allclose(lp.vertex(), [0, 0, 0])               # only x2 open, at cost 5: stays at 0
    lp.close()
    lp.open([2])
    lp.solve()
    np.testing.assert_allclose(lp.vertex(), [0, 0, 1])               # closing returned x2's cost to -3
    assert lp.n_solves == 6


def test_row_bounds_columns_and_bounds_change_in_place():
    # min -x0 - 2 x1 s.t. x0 + x1 <= 1, x >= 0: x1 = 1.
    lp = ReusableLP(np.ones((1, 2)), -INF, 1.0, costs=[-1.0, -2.0])
    lp.solve()
    np.testing.assert_allclose(lp.vertex(), [0, 1])
    lp.set_row_bounds([0], -INF, 3.0)                                # x0 + x1 <= 3: x1 = 3
    lp.solve()
    np.testing.assert_allclose(lp.vertex(), [0, 3])
    lp.set_column_bounds([1], 0.0, 2.0)                              # x1 <= 2: x1 = 2, x0 takes the rest, 1
    lp.solve()
    np.testing.assert_allclose(lp.vertex(), [1, 2])
    lp.add_columns(np.array([[2.0]]), costs=-5.0)                    # 2 x2 at cost -5: x2 = 3/2 is worth -7.5,
    lp.solve()                                                       # better than x0, x1 (-5 at most)
    np.testing.assert_allclose(lp.vertex(), [0, 0, 1.5])
    lp.close([2])
    lp.open([2])                                                     # reopened within its own bounds [0, inf)
    lp.solve()
    np.testing.assert_allclose(lp.vertex(), [0, 0, 1.5])


def test_set_integer_makes_it_a_mip():
    # max x0 + x1 s.t. 2 x0 + 2 x1 <= 3, x >= 0: the LP reaches 3/2, integers reach 1.
    lp = ReusableLP(np.array([[2.0, 2.0]]), -INF, 3.0, costs=[1.0, 1.0], sense="max")
    lp.solve()
    assert lp.vertex().sum() == pytest.approx(1.5)
    lp.set_integer([0, 1])
    assert lp.solve() == "optimal"
    assert lp.vertex().sum() == pytest.approx(1.0)
    assert set(np.round(lp.vertex(), 9)) <= {0.0, 1.0}


@pytest.mark.parametrize("seed", range(6))
def test_random_lps_against_linprog_while_columns_and_costs_change(seed):
    """Re-solves after changes equal fresh linprog solves of the changed LP (objective and vertex)."""
    rng = np.random.default_rng(seed)
    m, n = 4, 7
    A = rng.normal(size=(m, n))
    lower, upper = -rng.random(m) - 0.5, rng.random(m) + 0.5          # x = 0 is feasible: never infeasible
    costs = rng.normal(size=n)
    lp = ReusableLP(A, lower, upper, costs=costs, col_upper=1.0)
    open_ = np.ones(n, dtype=bool)
    for _ in range(8):
        change = rng.integers(3)
        column = int(rng.integers(n))
        if change == 0:
            if open_[column]:
                lp.close([column])
            else:
                lp.open([column])
            open_[column] = not open_[column]
        elif change == 1 and open_[column]:
            costs[column] = rng.normal()
            lp.set_costs([column], costs[column])
        assert lp.solve() == "optimal"
        x = lp.vertex()
        A_ub = np.vstack([A, -A])
        b_ub = np.r_[upper, -lower]
        bounds = [(0, 1.0 if is_open else 0.0) for is_open in open_]
        oracle = linprog(costs, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs-ds")
        assert oracle.status == 0
        assert costs @ x == pytest.approx(oracle.fun, abs=1e-8)
        assert np.all(A_ub @ x <= b_ub + 1e-9)
        assert np.all(x >= -1e-12) and np.all(x <= np.where(open_, 1, 0) + 1e-12)
        strictly_inside = np.sum((x > 1e-9) & (x < 1 - 1e-9))
        assert strictly_inside <= m                                  # a basic solution: at most m basic columns
        # generic random costs have one optimal vertex: the oracle's
        np.testing.assert_allclose(x, oracle.x, atol=1e-7)


def certificate_margin(y, A, row_lower, row_upper, col_lower, col_upper):
    """min over r in the row bounds of y·r minus max over x in the column bounds of y·(A x), computed here
    independently: > 0 proves that no x in its bounds has A x in the row bounds."""
    a = y @ A
    column_max = sum(aj * (u if aj > 0 else l) for aj, l, u in zip(a, col_lower, col_upper) if aj != 0)
    row_min = sum(yr * (lo if yr > 0 else up) for yr, lo, up in zip(y, row_lower, row_upper) if yr != 0)
    return row_min - column_max


def test_farkas_ray_of_a_point_outside_a_triangle():
    # Is (1, 1) a convex combination of (0, 0), (1, 0), (0, 1)? Rows: λ1 = 1, λ2 = 1, λ0 + λ1 + λ2 = 1: no.
    # A certificate is y = (1, 1, -1): y·(c, 1) = -1, 0, 0 on the columns and y·(x, 1) = 1 > 0.
    A = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    rhs = np.array([1.0, 1.0, 1.0])
    lp = ReusableLP(A, rhs, rhs)
    assert lp.solve() == "infeasible"
    y = lp.farkas_ray()
    assert y is not None and np.abs(y).max() == pytest.approx(1.0)
    assert np.all(y @ A <= 1e-9)                                      # λ >= 0 unbounded above: y·A_j <= 0
    assert y @ rhs > 1e-6
    assert certificate_margin(y, A, rhs, rhs, np.zeros(3), np.full(3, INF)) > 1e-6


def test_farkas_ray_of_free_columns_is_orthogonal_to_them():
    # x0 + x1 = 1 and x0 + x1 = 2 with x free: a certificate needs y·A = 0 (free columns), so y0 = -y1, and
    # y·r = y0 + 2 y1 = y1 > 0: scaled to max |y| = 1, y = (-1, 1) exactly.
    A = np.array([[1.0, 1.0], [1.0, 1.0]])
    lp = ReusableLP(A, [1.0, 2.0], [1.0, 2.0], col_lower=-INF, col_upper=INF)
    assert lp.solve() == "infeasible"
    np.testing.assert_allclose(lp.farkas_ray(), [-1.0, 1.0], atol=1e-9)


def test_farkas_ray_with_boxes_on_both_sides():
    # x0 + x1 = 1 and x0 - x1 = 3 give x0 = 2, x1 = -1 < 0: infeasible with x >= 0. A certificate, e.g. y = (-1, 1):
    # y·A = (0, -2) <= 0 and y·r = 2 > 0. With the second row widened to [3, 4] it stays infeasible.
    A = np.array([[1.0, 1.0], [1.0, -1.0]])
    for upper in (3.0, 4.0):
        lp = ReusableLP(A, [1.0, 3.0], [1.0, upper])
        assert lp.solve() == "infeasible"
        y = lp.farkas_ray()
        assert certificate_margin(y, A, [1.0, 3.0], [1.0, upper], [0, 0], [INF, INF]) > 1e-6


def test_feasible_lp_has_no_farkas_ray_and_counters_add_up():
    lp = ReusableLP(np.ones((1, 2)), 1.0, 1.0)
    assert lp.solve() == "optimal"
    assert lp.farkas_ray() is None
    lp.solve()
    assert lp.n_solves == 2 and lp.seconds > 0


def test_unknown_sense_is_refused():
    with pytest.raises(ValueError, match="sense"):
        ReusableLP(np.ones((1, 1)), 0.0, 1.0, sense="maximise")


# ---------------------------------------------------------------------------- models use no solver API
SOLVER_PACKAGES = {"highspy", "pyscipopt", "swiglpk", "gurobipy", "cplex", "docplex"}
BACKEND_MODULES = {module for module, _, _ in _BACKENDS.values()}


def solver_imports(source: str) -> list[str]:
    """The imports of a solver's own package or of an odtlib backend module in Python ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [name for name in names
                  if name.split(".")[0] in SOLVER_PACKAGES or name in BACKEND_MODULES]
    return found


def test_the_import_check_finds_solver_imports():
    assert solver_imports("import highspy") == ["highspy"]
    assert solver_imports("from odtlib.solvers.highs import new_highs") == ["odtlib.solvers.highs"]
    assert solver_imports("def f():\n    from odtlib.solvers import scip") == ["odtlib.solvers.scip"]
    assert solver_imports("from odtlib.solvers import ReusableLP, solve") == []


def test_no_model_module_imports_a_solver_or_a_backend():
    models = Path(odtlib.models.__file__).parent
    offending = {str(path.relative_to(models)): names for path in sorted(models.rglob("*.py"))
                 if (names := solver_imports(path.read_text(encoding="utf-8")))}
    assert offending == {}


def test_the_docstring_example_runs():
    import doctest

    from odtlib.solvers import reusable_lp

    result = doctest.testmod(reusable_lp)
    assert result.attempted >= 8 and result.failed == 0
