"""Tests of odtlib.solvers: every backend against brute-force optima on small models, limits,
statuses, warm starts, callbacks (lazy rows, cuts, heuristic) and error messages."""
from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pyomo.environ as pyo
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from odtlib.solvers import (
    SOLVERS,
    BranchAndCut,
    Callbacks,
    LazyRowFamily,
    LinearRow,
    SolverNotAvailableError,
    StartRejectedWarning,
    available_solvers,
    solve,
)

AVAILABLE = available_solvers()
ALL = [pytest.param(s, marks=pytest.mark.skipif(s not in AVAILABLE, reason=f"{s} not installed"))
       for s in SOLVERS]
RESTART = [s for s in ("highs", "glpk") if s in AVAILABLE]
NEEDS_SCIP = pytest.mark.skipif("scip" not in AVAILABLE, reason="pyscipopt not installed")


# ---------------------------------------------------------------------------------------
# small MIPs with brute-force optima


def random_mip(seed: int):
    """Integer variables 0..3 and binaries, <=, >=, == and ranged rows, random sense."""
    rng = np.random.default_rng(seed)
    n_int, n_bin, n_rows = 3, 3, 4
    A = rng.integers(-3, 5, size=(n_rows, n_int + n_bin))
    c = rng.integers(-5, 8, size=n_int + n_bin)
    x0 = np.r_[rng.integers(0, 4, n_int), rng.integers(0, 2, n_bin)]  # keeps the model feasible
    act = A @ x0
    kinds = ["le", "ge", "eq", "range"]
    sense = pyo.maximize if seed % 2 else pyo.minimize
    m = pyo.ConcreteModel()
    m.y = pyo.Var(range(n_int), domain=pyo.NonNegativeIntegers, bounds=(0, 3))
    m.b = pyo.Var(range(n_bin), domain=pyo.Binary)
    xs = [m.y[i] for i in range(n_int)] + [m.b[i] for i in range(n_bin)]
    m.obj = pyo.Objective(expr=sum(int(c[j]) * xs[j] for j in range(len(xs))) + 7, sense=sense)
    m.rows = pyo.ConstraintList()
    rows = []
    for i, kind in enumerate(kinds):
        body = sum(int(A[i, j]) * xs[j] for j in range(len(xs)))
        lo, up = {"le": (-math.inf, act[i] + 2), "ge": (act[i] - 1, math.inf),
                  "eq": (act[i], act[i]), "range": (act[i] - 2, act[i] + 1)}[kind]
        if kind == "le":
            m.rows.add(body <= int(up))
        elif kind == "ge":
            m.rows.add(body >= int(lo))
        elif kind == "eq":
            m.rows.add(body == int(up))
        else:
            m.rows.add(pyo.inequality(int(lo), body, int(up)))
        rows.append((lo, up))
    best = None
    for point in itertools.product(*([range(4)] * n_int + [range(2)] * n_bin)):
        p = np.array(point)
        a = A @ p
        if all(lo <= a_i <= up for a_i, (lo, up) in zip(a, rows)):
            val = float(c @ p + 7)
            if best is None or (val > best if sense == pyo.maximize else val < best):
                best = val
    return m, xs, best


@pytest.mark.parametrize("solver", ALL)
@pytest.mark.parametrize("seed", range(4))
def test_small_mip_matches_brute_force(solver, seed):
    m, xs, best = random_mip(seed)
    res = solve(m, solver=solver)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(best)
    assert res.bound == pytest.approx(best, abs=1e-6)
    assert res.gap == pytest.approx(0.0, abs=1e-9)
    # values are loaded into the Pyomo model and are feasible
    assert pyo.value(m.obj) == pytest.approx(best)
    for con in m.rows.values():
        assert con.lslack() >= -1e-6 and con.uslack() >= -1e-6
    assert all(float(v.value).is_integer() for v in xs)
    assert res.solver == solver and res.solver_version
    assert res.runtime >= res.build_time + res.handoff_time - 1e-9


@pytest.mark.parametrize("solver", ALL)
def test_lp_matches_scipy_linprog(solver):
    rng = np.random.default_rng(3)
    A = rng.uniform(0, 1, size=(5, 4))
    b = rng.uniform(1, 2, size=5)
    c = rng.uniform(0.5, 2, size=4)
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(4), bounds=(0, 1.5))
    m.obj = pyo.Objective(expr=sum(c[j] * m.x[j] for j in range(4)), sense=pyo.maximize)
    m.c = pyo.Constraint(range(5), rule=lambda m, i: sum(A[i, j] * m.x[j] for j in range(4)) <= b[i])
    ref = linprog(-c, A_ub=A, b_ub=b, bounds=[(0, 1.5)] * 4)
    res = solve(m, solver=solver)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(-ref.fun, rel=1e-6)


@pytest.mark.parametrize("solver", ALL)
def test_infeasible_and_unbounded_are_reported(solver):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(2), domain=pyo.Binary)
    m.obj = pyo.Objective(expr=m.x[0] + m.x[1], sense=pyo.maximize)
    m.c = pyo.Constraint(expr=m.x[0] + m.x[1] >= 3)
    res = solve(m, solver=solver)
    assert res.status == "infeasible" and res.objective is None

    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.NonNegativeIntegers)
    m.y = pyo.Var(domain=pyo.Binary)
    m.obj = pyo.Objective(expr=m.x + m.y, sense=pyo.maximize)
    m.c = pyo.Constraint(expr=m.x - m.y >= 1)
    assert solve(m, solver=solver).status == "unbounded"


def hard_knapsack(n=100, m=8, seed=0):
    """Multi-dimensional knapsack: no free solver proves it in a second."""
    rng = np.random.default_rng(seed)
    W = rng.integers(1, 1000, size=(m, n))
    cap = W.sum(1) // 4
    v = W.sum(0) // m + rng.integers(1, 50, size=n)
    M = pyo.ConcreteModel()
    M.x = pyo.Var(range(n), domain=pyo.Binary)
    M.obj = pyo.Objective(expr=sum(int(v[j]) * M.x[j] for j in range(n)), sense=pyo.maximize)
    M.c = pyo.Constraint(range(m), rule=lambda M, i: sum(int(W[i, j]) * M.x[j] for j in range(n)) <= int(cap[i]))
    return M, W, cap, v


@pytest.mark.parametrize("solver", ALL)
def test_time_limit_returns_incumbent_bound_and_gap(solver):
    M, W, cap, v = hard_knapsack()
    res = solve(M, solver=solver, time_limit=1)
    assert res.status == "time_limit"
    assert res.runtime < 1 + 10  # generous: the limit is honoured, not a speed assertion
    assert res.has_solution
    x = np.array([M.x[j].value for j in range(len(v))])
    assert np.all(W @ x <= cap) and res.objective == pytest.approx(float(v @ x))
    if res.bound is not None:  # glpsol may not print one
        assert res.bound >= res.objective - 1e-6
        assert res.gap == pytest.approx((res.bound - res.objective) / res.objective)
    json.dumps(res.to_dict())


def greedy_start(M, W, cap, v):
    """A poor feasible solution: items in index order while they fit."""
    x = np.zeros(len(v))
    for j in range(len(v)):
        if np.all(W @ x + W[:, j] <= cap):
            x[j] = 1
    return x


@pytest.mark.parametrize("solver", ["highs", "scip"])
def test_warm_start_is_used(solver):
    if solver not in AVAILABLE:
        pytest.skip(f"{solver} not installed")
    M, W, cap, v = hard_knapsack()
    x = greedy_start(M, W, cap, v)
    pairs = [(M.x[j], x[j]) for j in range(len(v))]
    start = pyo.ComponentMap(pairs) if solver == "highs" else pairs  # both forms are accepted
    # with no time to search, the only incumbent the solver can have is the start
    res = solve(M, solver=solver, time_limit=0.0, warm_start=start)
    assert res.objective == pytest.approx(float(v @ x))
    assert [M.x[j].value for j in range(len(v))] == x.tolist()
    # without the start there is no incumbent at all
    M2 = hard_knapsack()[0]
    assert solve(M2, solver=solver, time_limit=0.0).objective is None


def test_a_start_that_violates_the_model_is_reported_not_dropped_silently():
    M, W, cap, v = hard_knapsack()
    full = np.ones(len(v))                                            # every item: over the capacity
    with pytest.warns(StartRejectedWarning, match=r"violates \d+ of the model's rows"):
        solve(M, solver="highs", time_limit=0.0, warm_start=[(M.x[j], full[j]) for j in range(len(v))])
    with warnings.catch_warnings():
        warnings.simplefilter("error", StartRejectedWarning)          # feasible, or partial: nothing to say
        greedy = greedy_start(M, W, cap, v)
        solve(M, solver="highs", time_limit=0.0, warm_start=[(M.x[j], greedy[j]) for j in range(len(v))])
        solve(M, solver="highs", time_limit=0.0, warm_start=[(M.x[0], 1.0)])


# ---------------------------------------------------------------------------------------
# lazy constraints: TSP with subtour elimination given only lazily


def tsp_model(n: int, seed: int):
    rng = np.random.default_rng(seed)
    pts = rng.uniform(0, 100, size=(n, 2))
    d = np.rint(np.linalg.norm(pts[:, None] - pts[None], axis=2))
    edges = [(i, j) for i in range(n) for j in range(i + 1, n)]
    m = pyo.ConcreteModel()
    m.x = pyo.Var(edges, domain=pyo.Binary)
    m.obj = pyo.Objective(expr=sum(d[i, j] * m.x[i, j] for i, j in edges))
    m.degree = pyo.Constraint(range(n), rule=lambda m, k: sum(m.x[e] for e in edges if k in e) == 2)
    return m, d, edges


def tsp_brute_force(d) -> float:
    n = len(d)
    return min(sum(d[p[k], p[(k + 1) % n]] for k in range(n))
               for p in ((0,) + q for q in itertools.permutations(range(1, n))))


def components(n, edges, chosen):
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for (i, j), on in zip(edges, chosen):
        if on:
            parent[find(i)] = find(j)
    groups = {}
    for k in range(n):
        groups.setdefault(find(k), []).append(k)
    return list(groups.values())


class SubtourCuts(Callbacks):
    """Subtour elimination sum_{e in E(S)} x_e <= |S| - 1 for each component S of the support."""

    def __init__(self, m, n, edges, row_form="fast", fractional_cuts=False):
        self.m, self.n, self.edges = m, n, edges
        self.row_form = row_form
        self.fractional_cuts = fractional_cuts
        self.calls = 0

    def _rows(self, values, threshold):
        x = values.array(self.m.x)  # index order of m.x == self.edges
        comps = components(self.n, self.edges, x > threshold)
        if len(comps) == 1:
            return []
        cols = values.columns(self.m.x)
        rows = []
        for S in comps:
            inside = [k for k, (i, j) in enumerate(self.edges) if i in S and j in S]
            if self.row_form == "fast":
                rows.append(LinearRow(cols[inside], np.ones(len(inside)), ub=len(S) - 1))
            else:
                rows.append(sum(self.m.x[self.edges[k]] for k in inside) <= len(S) - 1)
        return rows

    def lazy(self, values):
        self.calls += 1
        assert values.is_integral
        return self._rows(values, 0.5)

    def cut(self, values):
        return self._rows(values, 1e-6) if self.fractional_cuts else []


TSP_CASES = [(6, 0), (7, 1), (8, 2)]


def test_tsp_relaxation_without_lazy_rows_is_wrong():
    """The lazy rows matter: without them the degree-only relaxation misses the optimum."""
    wrong = 0
    for n, seed in TSP_CASES:
        m, d, _ = tsp_model(n, seed)
        wrong += solve(m).objective < tsp_brute_force(d) - 1e-6
    assert wrong >= 1


@pytest.mark.parametrize("solver", ["scip"] + RESTART + ["gurobi", "cplex"])
@pytest.mark.parametrize("row_form", ["fast", "pyomo"])
def test_lazy_subtour_elimination_gives_tsp_optimum(solver, row_form):
    if solver not in AVAILABLE:
        pytest.skip(f"{solver} not installed")
    for n, seed in TSP_CASES:
        m, d, edges = tsp_model(n, seed)
        cb = SubtourCuts(m, n, edges, row_form)
        res = solve(m, solver=solver, callbacks=cb, time_limit=60)
        assert res.status == "optimal"
        assert res.objective == pytest.approx(tsp_brute_force(d))
        chosen = [m.x[e].value > 0.5 for e in edges]
        assert len(components(n, edges, chosen)) == 1  # the loaded solution is one tour
        assert cb.calls > 0


@NEEDS_SCIP
def test_scip_cuts_do_not_change_the_optimum():
    total_cuts = 0
    for n, seed in TSP_CASES:
        m, d, edges = tsp_model(n, seed)
        res = solve(m, solver="scip", callbacks=SubtourCuts(m, n, edges, fractional_cuts=True))
        assert res.status == "optimal" and res.objective == pytest.approx(tsp_brute_force(d))
        total_cuts += res.n_cuts
    assert total_cuts > 0  # the separator really added rows


@NEEDS_SCIP
def test_scip_asks_for_cuts_at_every_depth():
    """The cut callback runs at the node LPs of every depth, not only at the depths 0, 1, 4, 16 of SCIP's
    default exponential back-off. The search: 10 binaries of almost equal value, room for 5.5 of them
    (every LP fractional until deep in the tree), SCIP's presolve, own cuts and heuristics off."""
    from pyscipopt import SCIP_PARAMSETTING

    from odtlib.solvers.base import SolveOptions
    from odtlib.solvers.scip import ScipBackend
    from odtlib.solvers.standard_form import compile_model

    n = 10
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(n), domain=pyo.Binary)
    m.obj = pyo.Objective(expr=sum((1 + 0.01 * i) * m.x[i] for i in range(n)), sense=pyo.maximize)
    m.cap = pyo.Constraint(expr=sum(2 * m.x[i] for i in range(n)) <= n + 1)
    backend = ScipBackend(compile_model(m), SolveOptions())
    for switch_off in (backend.m.setPresolve, backend.m.setSeparating, backend.m.setHeuristics):
        switch_off(SCIP_PARAMSETTING.OFF)

    class RecordDepths(Callbacks):
        def __init__(self):
            self.depths = set()

        def cut(self, values):
            self.depths.add(backend.m.getDepth())
            return []

    cb = RecordDepths()
    out = backend.run(math.inf, callbacks=cb)
    assert out.status == "optimal" and out.x @ backend.sf.c == pytest.approx(sum(1 + 0.01 * i for i in range(5, n)))
    assert {2, 3, 5, 6} <= cb.depths


@NEEDS_SCIP
def test_scip_lazy_at_fractional_points():
    n, seed = 8, 2
    m, d, edges = tsp_model(n, seed)
    cb = SubtourCuts(m, n, edges)
    cb.lazy_at_fractional = True
    cb.lazy = lambda values: cb._rows(values, 0.5 if values.is_integral else 1e-6)
    res = solve(m, solver="scip", callbacks=cb)
    assert res.status == "optimal" and res.objective == pytest.approx(tsp_brute_force(d))


class ProposeOnce(Callbacks):
    def __init__(self, proposal):
        self.proposal, self.proposed = proposal, 0

    def heuristic(self, values):
        if self.proposed:
            return None
        self.proposed += 1
        return self.proposal


def knapsack(n=16, seed=5):
    """A 4-row knapsack (SCIP's presolve does not solve it away) and its brute-force optimum."""
    M, W, cap, v = hard_knapsack(n=n, m=4, seed=seed)
    points = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    feasible = points[np.all(points @ W.T <= cap, axis=1)]
    p = feasible[np.argmax(feasible @ v)]
    return M, (float(v @ p), p)


@NEEDS_SCIP
def test_scip_heuristic_proposal_is_accepted_and_infeasible_one_rejected():
    m, (best, p) = knapsack()
    # a feasible point SCIP is unlikely to have found itself (a duplicate would not be stored):
    # the optimum minus one of its items
    q = p.copy()
    q[np.flatnonzero(p)[0]] = 0
    res = solve(m, solver="scip", callbacks=ProposeOnce(pyo.ComponentMap((m.x[j], q[j]) for j in m.x)))
    assert res.extra["heuristic_solutions"] == 1
    assert res.objective == pytest.approx(best)

    m, (best, _) = knapsack()
    res = solve(m, solver="scip", callbacks=ProposeOnce(pyo.ComponentMap((m.x[j], 1) for j in m.x)))
    assert res.extra["heuristic_solutions"] == 0  # violates the capacity
    assert res.objective == pytest.approx(best)


@NEEDS_SCIP
def test_scip_heuristic_cannot_bypass_lazy_rows():
    n, seed = 6, 0
    m, d, edges = tsp_model(n, seed)
    # two triangles: degree-feasible but two subtours
    tri = {(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)}
    cb = SubtourCuts(m, n, edges)
    cb.heuristic = lambda values: pyo.ComponentMap((m.x[e], float(e in tri)) for e in edges)
    res = solve(m, solver="scip", callbacks=cb)
    assert res.objective == pytest.approx(tsp_brute_force(d))
    assert res.extra["heuristic_solutions"] == 0


def test_values_api_and_fixed_variables_in_lazy_rows():
    """values[var], values.array(IndexedVar) order, and a fixed variable inside a lazy row."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(["b", "a", "c"], domain=pyo.Binary)
    m.f = pyo.Var(domain=pyo.Binary)
    m.f.fix(1)
    m.obj = pyo.Objective(expr=3 * m.x["a"] + 2 * m.x["b"] + m.x["c"] + m.f, sense=pyo.maximize)
    seen = []

    class AtMostOne(Callbacks):
        def lazy(self, values):
            arr = values.array(m.x)
            seen.append((arr.tolist(), [values[m.x[k]] for k in ("b", "a", "c")], values[m.f]))
            return [m.x["a"] + m.x["b"] + m.x["c"] + m.f <= 2]  # with f fixed to 1: at most one x

    for solver in ["highs"] + (["scip"] if "scip" in AVAILABLE else []):
        seen.clear()
        res = solve(m, solver=solver, callbacks=AtMostOne())
        assert res.objective == pytest.approx(4.0) and m.x["a"].value == 1
        arr, by_var, f = seen[0]
        assert arr == by_var and f == 1.0


def test_highs_threads_change_between_solves():
    for threads in (1, 2, 1):
        m, xs, best = random_mip(1)
        assert solve(m, threads=threads).objective == pytest.approx(best)


def test_gaps_are_passed_through():
    M = hard_knapsack(n=40, m=3)[0]
    res = solve(M, mip_gap=0.5)
    assert res.status == "optimal" and res.gap <= 0.5
    with pytest.raises(ValueError, match="mip_gap"):
        solve(M, mip_gap=-1)


def test_unknown_solver_lists_known_ones():
    m, _, _ = random_mip(0)
    with pytest.raises(ValueError, match="known solvers: highs, scip, glpk, gurobi, cplex"):
        solve(m, solver="cbc")


def test_missing_solver_names_the_package(monkeypatch):
    import odtlib.solvers.glpk as glpk_mod
    import odtlib.solvers.scip as scip_mod

    m, _, _ = random_mip(0)
    monkeypatch.setattr(scip_mod, "pyscipopt", None)
    with pytest.raises(SolverNotAvailableError, match="pip install pyscipopt"):
        solve(m, solver="scip")
    monkeypatch.setattr(glpk_mod, "glpsol_path", lambda: None)
    with pytest.raises(SolverNotAvailableError, match="glpk-utils"):
        solve(m, solver="glpk")
    assert "scip" not in available_solvers() and "glpk" not in available_solvers()


def test_callback_exception_propagates():
    class Broken(Callbacks):
        def lazy(self, values):
            raise RuntimeError("bug in separation")

    for solver in ["highs"] + (["scip"] if "scip" in AVAILABLE else []):
        m, _, _ = random_mip(0)
        with pytest.raises(RuntimeError, match="bug in separation"):
            solve(m, solver=solver, callbacks=Broken())


@pytest.mark.parametrize("raised", [KeyboardInterrupt, SystemExit])
def test_an_interrupt_in_a_highs_callback_is_not_turned_into_a_solve_error(raised):
    """highspy reports an exception of a Python callback as "Solve error"; a Ctrl-C (or a test's timeout, also a
    BaseException) in a separation must reach the caller as itself."""
    class Interrupted(Callbacks):
        def lazy(self, values):
            raise raised("stop")

    m, _, _ = random_mip(0)
    with pytest.raises(raised):
        solve(m, solver="highs", callbacks=Interrupted())


def test_result_to_dict_is_json():
    m, _, best = random_mip(2)
    d = solve(m).to_dict()
    assert json.loads(json.dumps(d))["objective"] == pytest.approx(best)
    assert {"status", "objective", "bound", "gap", "runtime", "nodes", "n_lazy", "n_cuts", "solver",
            "solver_version", "build_time", "handoff_time", "solve_time"} <= set(d)


class SlowSubtourCuts(SubtourCuts):
    """Subtour elimination that takes 0.3 s per call, so the time limit strikes mid-loop."""

    def lazy(self, values):
        import time

        time.sleep(0.3)
        return super().lazy(values)


@pytest.mark.parametrize("solver", ["scip"] + RESTART)
def test_time_limit_with_lazy_rows_returns_only_lazy_feasible_incumbents(solver):
    if solver not in AVAILABLE:
        pytest.skip(f"{solver} not installed")
    for n, seed in TSP_CASES:
        m, d, edges = tsp_model(n, seed)
        if solve(m).objective >= tsp_brute_force(d) - 1e-6:
            continue  # only instances whose relaxation is wrong need lazy rows
        # the first lazy call alone outlasts the limit; the relaxation's first incumbent has subtours
        res = solve(m, solver=solver, callbacks=SlowSubtourCuts(m, n, edges), time_limit=0.2)
        assert res.status == "time_limit"
        if res.has_solution:  # whatever is returned satisfies every lazy row
            chosen = [m.x[e].value > 0.5 for e in edges]
            assert len(components(n, edges, chosen)) == 1
        if res.bound is not None:  # a bound of a relaxation: never above the optimum (min)
            assert res.bound <= tsp_brute_force(d) + 1e-6
        break
    else:
        pytest.fail("no TSP case needs lazy rows")


# ---------------------------------------------------------------------------------------
# SCIP hand-off through an LP file: the model SCIP reads is exactly the arrays


# column kinds: (lb, ub, is_integer); bounds beyond SCIP's infinity (1e20) mean infinite
COLUMN_KINDS = [(0, 1, True), (1, 1, True), (0, 0, True), (-3, 7, True), (0, np.inf, True),
                (-np.inf, np.inf, False), (-np.inf, 2.5, False), (0.1, np.inf, False),
                (-1e30, 1e25, False), (-2.75, 1 / 3, False), (0, 1, False)]


def random_standard_form(seed: int, n_rows: int = 12, n_cols: int = 40, dense_cols: int = 0):
    """Arrays with every column kind and every row kind (<=, >=, ==, ranged, sides beyond
    infinity), coefficients without a short decimal form; ``dense_cols`` extra columns all in
    the last row (a line longer than SCIP's 64 KiB line buffer)."""
    from odtlib.solvers.standard_form import ColumnIndex, StandardForm

    rng = np.random.default_rng(seed)
    n = n_cols + dense_cols
    kinds = [COLUMN_KINDS[k] for k in rng.integers(0, len(COLUMN_KINDS), n)]
    col_lb, col_ub, is_integer = (np.array(v) for v in zip(*kinds))
    dense = rng.random((n_rows, n)) < 0.3
    dense[:, n_cols:] = False
    dense[-1, n_cols:] = True
    dense[np.arange(n_rows), rng.integers(0, n_cols, n_rows)] = True  # no empty row
    values = rng.normal(size=(n_rows, n)) * 10.0 ** rng.integers(-5, 6, (n_rows, n))
    A = sp.csr_array(np.where(dense, values, 0.0))
    side = rng.normal(size=n_rows) * 7.1
    row_kind = np.arange(n_rows) % 6
    row_lb = np.select([row_kind == 0, row_kind == 5], [-np.inf, -1e21], side)
    row_ub = np.select([row_kind == 1, row_kind == 2, row_kind == 3], [np.inf, side, side + np.pi], 1e21)
    c = np.where(rng.random(n) < 0.2, 0.0, rng.normal(size=n) / 3)
    return StandardForm(A=A, row_lb=row_lb, row_ub=row_ub, c=c, c_offset=float(rng.normal()),
                        sense=1 if seed % 2 else -1, col_lb=col_lb.astype(float), col_ub=col_ub.astype(float),
                        is_integer=is_integer.astype(bool), index=ColumnIndex([]))


@NEEDS_SCIP
@pytest.mark.parametrize("seed", range(4))
def test_scip_model_read_from_lp_file_equals_the_arrays(seed):
    from odtlib.solvers.base import SolveOptions
    from odtlib.solvers.scip import ScipBackend

    sf = random_standard_form(seed, dense_cols=6000 if seed == 0 else 0)
    backend = ScipBackend(sf, SolveOptions())
    m, inf = backend.m, backend.m.infinity()
    assert m.getObjectiveSense() == ("maximize" if sf.sense == -1 else "minimize")
    assert m.getObjoffset() == sf.c_offset
    binary = sf.is_integer & (sf.col_lb >= 0) & (sf.col_ub <= 1)
    for j, v in enumerate(backend.vars):
        assert v.name == f"x{j}"
        assert v.vtype() == ("BINARY" if binary[j] else "INTEGER" if sf.is_integer[j] else "CONTINUOUS")
        assert (v.getLbOriginal(), v.getUbOriginal()) == (max(sf.col_lb[j], -inf), min(sf.col_ub[j], inf))
        assert v.getObj() == sf.c[j]
    conss = m.getConss()
    assert len(conss) == sf.n_rows
    for i, cons in enumerate(conss):
        s, e = sf.A.indptr[i], sf.A.indptr[i + 1]
        expected = {f"x{j}": a for j, a in zip(sf.A.indices[s:e].tolist(), sf.A.data[s:e].tolist())}
        assert m.getValsLinear(cons) == expected
        assert (m.getLhs(cons), m.getRhs(cons)) == (max(sf.row_lb[i], -inf), min(sf.row_ub[i], inf))


@NEEDS_SCIP
@pytest.mark.parametrize("seed", range(6))
def test_scip_lp_file_route_matches_scipy_milp(seed):
    """Same optimum as scipy's MILP solver on random MIPs with every row and bound kind."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    from odtlib.solvers.base import SolveOptions
    from odtlib.solvers.scip import ScipBackend

    sf = random_standard_form(seed, n_rows=6, n_cols=8)
    sf.col_lb, sf.col_ub = np.maximum(sf.col_lb, -5.0), np.minimum(sf.col_ub, 5.0)  # bounded
    sf.A.data = np.round(sf.A.data, 3)
    # finite row sides around the activity of a point inside the bounds: feasible
    rng = np.random.default_rng(seed)
    x0 = np.clip(rng.normal(size=sf.n_cols) * 3, sf.col_lb, sf.col_ub)
    act = sf.A @ np.where(sf.is_integer, np.round(x0), x0)
    equal, finite = sf.row_lb == sf.row_ub, lambda side: np.abs(side) < 1e20
    sf.row_lb = np.where(equal, act, np.where(finite(sf.row_lb), act - rng.uniform(0, 2, sf.n_rows), sf.row_lb))
    sf.row_ub = np.where(equal, act, np.where(finite(sf.row_ub), act + rng.uniform(0, 2, sf.n_rows), sf.row_ub))
    out = ScipBackend(sf, SolveOptions()).run(math.inf)
    ref = milp(sf.sense * sf.c, integrality=sf.is_integer, bounds=Bounds(sf.col_lb, sf.col_ub),
               constraints=LinearConstraint(sf.A, sf.row_lb, sf.row_ub))
    assert ref.status == 0 and out.status == "optimal"
    assert sf.objective_value(out.x) == pytest.approx(sf.sense * ref.fun + sf.c_offset, rel=1e-6, abs=1e-6)


@NEEDS_SCIP
def test_scip_lp_file_is_removed_and_empty_rows_are_rejected(tmp_path, monkeypatch):
    import tempfile

    from odtlib.solvers.lp_file import write_lp

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    m, _, best = random_mip(0)
    assert solve(m, solver="scip").objective == pytest.approx(best)
    assert list(tmp_path.iterdir()) == []
    sf = random_standard_form(0)
    sf.A = sp.csr_array((sf.A.data[:0], sf.A.indices[:0], np.zeros(sf.n_rows + 1, int)), shape=sf.A.shape)
    with pytest.raises(ValueError, match="at least one nonzero"):
        write_lp(str(tmp_path / "x.lp"), sf, 1e20)


def test_default_feasibility_check_tests_the_lazy_rows():
    from odtlib.solvers import Values
    from odtlib.solvers.standard_form import ColumnIndex

    m = pyo.ConcreteModel()
    m.x = pyo.Var([0, 1], domain=pyo.Binary)

    class AtMostOne(Callbacks):
        def lazy(self, values):
            return [m.x[0] + m.x[1] <= 1]

    index = ColumnIndex([m.x[0], m.x[1]])
    assert AtMostOne().rejects(Values(np.array([1.0, 1.0]), index))
    assert not AtMostOne().rejects(Values(np.array([1.0, 0.0]), index))


class CountedSubtourCuts(SubtourCuts):
    """Subtour rows lazily and as cuts, plus one heuristic proposal; counts the calls of each method."""

    def __init__(self, m, n, edges, proposal):
        super().__init__(m, n, edges, fractional_cuts=True)
        self.proposal = proposal
        self.cut_calls = self.heuristic_calls = 0

    def cut(self, values):
        self.cut_calls += 1
        return super().cut(values)

    def heuristic(self, values):
        self.heuristic_calls += 1
        return self.proposal if self.heuristic_calls == 1 else None


@NEEDS_SCIP
def test_scip_reports_time_and_calls_per_callback_kind():
    n, seed = 8, 2
    m, d, edges = tsp_model(n, seed)
    tour = [(k, k + 1) for k in range(n - 1)] + [(0, n - 1)]       # feasible: the tour 0-1-...-7-0
    cb = CountedSubtourCuts(m, n, edges, pyo.ComponentMap((m.x[e], float(e in tour)) for e in edges))
    res = solve(m, solver="scip", callbacks=cb)
    assert res.objective == pytest.approx(tsp_brute_force(d))
    seconds, calls = res.extra["callback_seconds"], res.extra["callback_calls"]
    assert set(seconds) == set(calls) == {"lazy", "cut", "heuristic"}
    # every lazy-handler call (check, enforce) asks Callbacks.lazy once (rejects() goes through lazy)
    assert calls == {"lazy": cb.calls, "cut": cb.cut_calls, "heuristic": cb.heuristic_calls}
    assert min(calls.values()) > 0
    assert all(s >= 0 for s in seconds.values()) and sum(seconds.values()) <= res.solve_time
    assert res.to_dict()["extra"]["callback_calls"] == calls                # JSON-safe


@NEEDS_SCIP
def test_scip_reports_zero_callback_time_without_callbacks():
    m, _ = knapsack()
    res = solve(m, solver="scip")
    assert res.extra["callback_seconds"] == {"lazy": 0.0, "cut": 0.0, "heuristic": 0.0}
    assert res.extra["callback_calls"] == {"lazy": 0, "cut": 0, "heuristic": 0}


# ---------------------------------------------------------------------------------------
# restart solvers: the LP relaxation and root cut rounds


def relaxation_by_scipy(m):
    """LP relaxation of a small Pyomo MIP by scipy's linprog (an independent LP solver)."""
    from odtlib.solvers.standard_form import compile_model

    sf = compile_model(m)
    A = sf.A.toarray()
    rows_ub = [(A[i], sf.row_ub[i]) for i in range(sf.n_rows) if np.isfinite(sf.row_ub[i])]
    rows_lb = [(-A[i], -sf.row_lb[i]) for i in range(sf.n_rows) if np.isfinite(sf.row_lb[i])]
    A_ub = np.array([a for a, _ in rows_ub + rows_lb])
    b_ub = np.array([b for _, b in rows_ub + rows_lb])
    ref = linprog(sf.sense * sf.c, A_ub=A_ub, b_ub=b_ub, bounds=list(zip(sf.col_lb, sf.col_ub)))
    assert ref.status == 0
    return sf, sf.sense * ref.fun + sf.c_offset


@pytest.mark.parametrize("solver", RESTART)
@pytest.mark.parametrize("seed", range(4))
def test_restart_backends_solve_the_lp_relaxation_then_the_mip_again(solver, seed):
    from odtlib.solvers.base import SolveOptions
    from odtlib.solvers.core import backend_class

    m, _, best = random_mip(seed)
    sf, lp_value = relaxation_by_scipy(m)
    backend = backend_class(solver)(sf, SolveOptions())
    lp = backend.run_relaxation(60)
    assert lp.status == "optimal" and sf.objective_value(lp.x) == pytest.approx(lp_value, abs=1e-6)
    mip = backend.run(60)                              # integrality is back
    assert mip.status == "optimal" and sf.objective_value(mip.x) == pytest.approx(best)


def test_highs_keeps_the_mip_start_across_a_relaxation():
    from odtlib.solvers.base import SolveOptions
    from odtlib.solvers.highs import HighsBackend
    from odtlib.solvers.standard_form import compile_model

    M, W, cap, v = hard_knapsack()
    x = greedy_start(M, W, cap, v)
    sf = compile_model(M)
    backend = HighsBackend(sf, SolveOptions())
    backend.set_start(sf.index.columns_of([M.x[j] for j in range(len(v))]), x)
    assert backend.run_relaxation(60).status == "optimal"
    out = backend.run(0.0)                 # no time to search: the only incumbent it can have is the start
    assert out.x is not None and sf.objective_value(out.x) == pytest.approx(float(v @ x))


@pytest.mark.parametrize("solver", RESTART)
def test_root_cut_rounds_on_restart_solvers_keep_the_tsp_optimum(solver):
    total_cuts = 0
    for n, seed in TSP_CASES:
        m, d, edges = tsp_model(n, seed)
        res = solve(m, solver=solver, callbacks=SubtourCuts(m, n, edges, fractional_cuts=True), time_limit=60)
        assert res.status == "optimal" and res.objective == pytest.approx(tsp_brute_force(d))
        total_cuts += res.n_cuts
    assert total_cuts > 0                              # the root rounds really added rows


class CutsOnly(SubtourCuts):
    """Subtour rows only as cuts at fractional points: no lazy method."""
    lazy = Callbacks.lazy


@pytest.mark.parametrize("solver", RESTART)
def test_root_cut_rows_tighten_the_relaxation(solver, monkeypatch):
    """With cuts alone the restart solver runs the root rounds; the LP bound after them, read back from
    the rows added, is at least the degree-only LP bound (minimisation) and at most the optimum."""
    from odtlib.solvers import restart

    n, seed = 8, 2
    m, d, edges = tsp_model(n, seed)
    _, degree_lp = relaxation_by_scipy(m)
    bounds, original = [], restart.root_cut_rounds

    def rounds_then_bound(backend, callbacks, deadline):
        added = original(backend, callbacks, deadline)
        bounds.append(backend.run_relaxation(60).bound)
        return added

    monkeypatch.setattr(restart, "root_cut_rounds", rounds_then_bound, raising=True)
    res = solve(m, solver=solver, callbacks=CutsOnly(m, n, edges, fractional_cuts=True), time_limit=60)
    assert res.n_cuts > 0 and res.status == "optimal" and res.objective == pytest.approx(tsp_brute_force(d))
    assert degree_lp + 1e-6 < bounds[0] <= tsp_brute_force(d) + 1e-6   # this degree LP has subtours


# ---------------------------------------------------------------------------------------
# solver_options: the solver's own parameters

VALID_OPTION = {"highs": {"presolve": "off"}, "scip": {"presolving/maxrounds": 0}, "glpk": {"nopresol": True},
                "gurobi": {"Presolve": 0}, "cplex": {"preprocessing.presolve": 0}}
UNKNOWN_OPTION = {"highs": {"no_such_option": 1}, "scip": {"no/such/param": 1}, "glpk": {"no-such-option": True},
                  "gurobi": {"NoSuchParam": 1}, "cplex": {"no.such.param": 1}}


@pytest.mark.parametrize("solver", ALL)
def test_solver_options_are_passed_and_checked(solver):
    m, _, best = random_mip(0)
    res = solve(m, solver=solver, solver_options=VALID_OPTION[solver])
    assert res.status == "optimal" and res.objective == pytest.approx(best)
    if solver == "glpk":                               # glpsol itself refuses it when it runs
        assert solve(random_mip(0)[0], solver=solver, solver_options=UNKNOWN_OPTION[solver]).status == "error"
    else:
        with pytest.raises(ValueError, match="rejected solver option"):
            solve(random_mip(0)[0], solver=solver, solver_options=UNKNOWN_OPTION[solver])


@pytest.mark.parametrize("solver,node_limit", [("highs", "mip_max_nodes"), ("scip", "limits/nodes")])
def test_solver_options_take_effect(solver, node_limit):
    """A node limit of 1 stops the hard knapsack before it is proved (a limit status, not optimal); a limit of
    50 lets it explore more (a node limit, not a time limit, so a loaded machine cannot change the outcome)."""
    M, *_ = hard_knapsack()
    res = solve(M, solver=solver, solver_options={node_limit: 1}, time_limit=60)
    assert res.status == "time_limit" and res.nodes <= 2
    assert solve(M, solver=solver, solver_options={node_limit: 50}, time_limit=60).nodes > 2


# ---------------------------------------------------------------------------------------
# branching priorities (Pyomo suffix ``priority``)


def two_fractional_binaries(priority: dict | None = None) -> pyo.ConcreteModel:
    """max x + y + (z0 + z1)/2 with x + y <= 1.5, x - y <= 0.5, y - x <= 0.5: the LP optimum has
    x = y = 0.75, the integer one x = y = 0 (objective 1). ``priority``: {component name: priority}
    as a LOCAL suffix."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(within=pyo.Binary)
    m.y = pyo.Var(within=pyo.Binary)
    m.z = pyo.Var([0, 1], within=pyo.Binary)
    m.rows = pyo.ConstraintList()
    m.rows.add(m.x + m.y <= 1.5)
    m.rows.add(m.x - m.y <= 0.5)
    m.rows.add(m.y - m.x <= 0.5)
    m.obj = pyo.Objective(expr=m.x + m.y + 0.5 * (m.z[0] + m.z[1]), sense=pyo.maximize)
    if priority is not None:
        m.priority = pyo.Suffix(direction=pyo.Suffix.LOCAL)
        for name, value in priority.items():
            m.priority[m.component(name)] = value
    return m


def test_priority_suffix_becomes_one_number_per_column():
    from odtlib.solvers.standard_form import compile_model

    m = two_fractional_binaries({"y": 5, "z": 2})       # z is indexed: both members get 2
    sf = compile_model(m)
    by_name = dict(zip((v.name for v in sf.index.columns), sf.branch_priority.tolist()))
    assert by_name == {"x": 0, "y": 5, "z[0]": 2, "z[1]": 2}
    assert compile_model(two_fractional_binaries()).branch_priority is None
    assert compile_model(two_fractional_binaries({"x": 0})).branch_priority is None


@NEEDS_SCIP
@pytest.mark.parametrize("priority,expected", [(None, {"x", "y"}), ({"y": 5}, {"y"}), ({"x": 1, "y": 0}, {"x"})])
def test_scip_branches_on_the_highest_priority_first(priority, expected):
    """SCIP hands its branching rules only the fractional candidates of highest priority: record them
    at the root (presolve and cuts off, so the LP point x = y = 0.75 reaches branching)."""
    from pyscipopt import SCIP_RESULT, Branchrule

    from odtlib.solvers.base import SolveOptions
    from odtlib.solvers.scip import ScipBackend
    from odtlib.solvers.standard_form import compile_model

    class FirstCandidates(Branchrule):
        seen = None

        def branchexeclp(self, allowaddcons):
            cands, _, _, _, n_top, _ = self.model.getLPBranchCands()
            if self.seen is None:
                self.seen = {v.name.removeprefix("t_") for v in cands[:n_top]}
            return {"result": SCIP_RESULT.DIDNOTRUN}

    sf = compile_model(two_fractional_binaries(priority))
    backend = ScipBackend(sf, SolveOptions(solver_options={"presolving/maxrounds": 0,
                                                           "separating/maxroundsroot": 0}))
    rule = FirstCandidates()
    backend.m.includeBranchrule(rule, "record", "records the first candidates", priority=10**6,
                                maxdepth=-1, maxbounddist=1.0)
    out = backend.run(math.inf)
    names = dict(zip(range(sf.n_cols), (v.name for v in sf.index.columns)))
    assert out.status == "optimal" and out.x @ sf.c == pytest.approx(1.0)
    assert {names[int(c.removeprefix("x"))] for c in rule.seen} == expected


@pytest.mark.parametrize("solver", [s for s in ("gurobi", "cplex") if s in AVAILABLE])
def test_commercial_backends_receive_the_priorities(solver):
    from odtlib.solvers.base import SolveOptions
    from odtlib.solvers.core import backend_class
    from odtlib.solvers.standard_form import compile_model

    sf = compile_model(two_fractional_binaries({"y": 5, "z": 2}))
    backend = backend_class(solver)(sf, SolveOptions())
    if solver == "gurobi":
        backend.m.update()
        given = backend.m.getAttr("BranchPriority", backend.m.getVars())
    else:
        order = dict((j, prio) for j, prio, _ in backend.c.order.get())
        given = [order.get(j, 0) for j in range(sf.n_cols)]
    assert list(given) == sf.branch_priority.tolist()
    assert solve(two_fractional_binaries({"y": 5}), solver=solver).objective == pytest.approx(1.0)


# ---------------------------------------------------------------------------------------
# HiGHS: the time limit holds where HiGHS does not check it; log=False is silent on stdout


def stuck_highs_run(assignment, bound):
    """A stand-in for `HighsBackend._run_here` that reports ``assignment`` (Pyomo variable -> value)
    as an incumbent and ``bound`` as the dual bound, then hangs like HiGHS' MIP set-up on a large model."""
    import time

    from odtlib.solvers.standard_form import start_vector

    def run_here(self, time_limit, on_incumbent=None, on_progress=None):
        x = np.zeros(self.sf.n_cols)
        cols, vals = start_vector(self.sf, assignment)
        x[cols] = vals
        on_incumbent(x)
        on_progress(bound, 3)
        time.sleep(60)

    return run_here


@pytest.fixture
def stuck_highs(monkeypatch):
    """Patch HiGHS runs to hang (in the forked child) and shorten the kill grace to 0.3 s."""
    from odtlib.solvers import highs

    if not highs._CAN_FORK:
        pytest.skip("no os.fork here: HiGHS runs in-process")
    monkeypatch.setattr(highs, "KILL_GRACE", 0.3)

    def patch(assignment, bound):
        monkeypatch.setattr(highs.HighsBackend, "_run_here", stuck_highs_run(assignment, bound))

    return patch


def test_highs_run_that_ignores_the_limit_is_killed_with_its_incumbent_and_bound(stuck_highs):
    M, W, cap, v = hard_knapsack(n=20)
    stuck_highs([(M.x[0], 1), (M.x[1], 1)], bound=5000.0)
    res = solve(M, solver="highs", time_limit=0.5)
    assert res.solve_time < 0.5 + 0.3 + 1.0  # limit + grace + fork/pipe slack; the fake hangs for 60 s
    assert res.status == "time_limit" and res.extra["highs_killed"] is True
    assert "killed" in res.message
    assert [M.x[j].value for j in range(3)] == [1, 1, 0]
    assert res.objective == pytest.approx(float(v[0] + v[1]))
    assert res.bound == 5000.0 and res.gap == pytest.approx((5000.0 - res.objective) / res.objective)
    assert res.nodes == 3


def test_highs_restart_loop_keeps_its_limit_when_runs_are_killed(stuck_highs, caplog):
    """Root cut round (LP relaxation) and MIP round both hang: each is killed, the loop ends."""
    n = 6
    m, d, edges = tsp_model(n, 0)
    tour = {(k, k + 1) for k in range(n - 1)} | {(0, n - 1)}
    cb = SubtourCuts(m, n, edges)  # has a cut method: the loop starts with root cut rounds
    stuck_highs([(m.x[e], float(e in tour)) for e in edges], bound=1.0)
    res = solve(m, solver="highs", callbacks=cb, time_limit=0.5)
    kills = [r for r in caplog.records if "process was killed" in r.getMessage()]
    assert len(kills) == 2  # the relaxation at the limit, then the MIP round started with 0 s left
    assert res.solve_time < 0.5 + 2 * 0.3 + 1.0
    assert res.status == "time_limit" and "killed" in res.message
    assert cb.calls >= 1  # the child's incumbent was separated in this process
    assert res.objective == pytest.approx(sum(d[e] for e in tour)) and res.bound == 1.0


def test_highs_child_run_matches_the_in_process_run():
    """Same optimum, rounds and lazy rows with a time limit (runs in a child) and without (in-process)."""
    n = 7
    m, d, edges = tsp_model(n, 1)
    limited = solve(m, solver="highs", callbacks=SubtourCuts(m, n, edges), time_limit=60)
    unlimited = solve(m, solver="highs", callbacks=SubtourCuts(m, n, edges))
    assert limited.status == unlimited.status == "optimal"
    assert limited.objective == pytest.approx(unlimited.objective) == pytest.approx(tsp_brute_force(d))
    assert limited.rounds == unlimited.rounds and limited.n_lazy == unlimited.n_lazy


def test_highs_log_false_prints_nothing_on_stdout(capfd):
    """Not even HiGHS' banner, which its C++ code prints from the first Highs() of a process: a fresh
    interpreter solves a model with log=False and writes only its own marker to the captured fd 1."""
    import subprocess
    import sys

    code = ("import pyomo.environ as pyo; from odtlib.solvers import solve\n"
            "m = pyo.ConcreteModel(); m.x = pyo.Var(domain=pyo.Binary)\n"
            "m.o = pyo.Objective(expr=m.x, sense=pyo.maximize)\n"
            "assert solve(m, solver='highs', time_limit=5).objective == 1\n"
            "assert solve(m, solver='highs').objective == 1\n"
            "print('marker')\n")
    subprocess.run([sys.executable, "-c", code], check=True)
    m, *_ = hard_knapsack(n=10)
    solve(m, solver="highs", time_limit=5)
    out, err = capfd.readouterr()
    assert out == "marker\n"


class SubtourRows(LazyRowFamily):
    """The subtour rows as a declared plug-in, counting its own calls and rows (the oracle of the statistics)."""

    def __init__(self, m, n, edges):
        self.cuts = SubtourCuts(m, n, edges)
        self.own_calls = self.own_rows = 0

    def lazy(self, values):
        rows = self.cuts.lazy(values)
        self.own_calls += 1
        self.own_rows += len(rows)
        return rows

    def stats(self):
        return {"tours_checked": self.own_calls}


@pytest.mark.parametrize("solver", ["scip", "highs"])
def test_branch_and_cut_reports_each_plugins_calls_rows_and_seconds(solver):
    if solver not in AVAILABLE:
        pytest.skip(f"{solver} not installed")
    n, seed = TSP_CASES[1]
    m, d, edges = tsp_model(n, seed)
    family = SubtourRows(m, n, edges)
    res = solve(m, solver=solver, callbacks=BranchAndCut(lazy=[family]), time_limit=60)
    assert res.objective == pytest.approx(tsp_brute_force(d))
    stats = res.extra["plugins"]["SubtourRows"]
    # LazyRowFamily's default rejects() calls lazy() once per check, outside the counted lazy() calls
    assert stats["calls"] >= 1 and stats["calls"] + stats["checks"] == family.own_calls
    assert stats["rows"] <= family.own_rows
    assert stats["rows"] >= 1                       # the degree-only relaxation is wrong here (test above)
    assert stats["seconds"] >= 0 and stats["tours_checked"] == family.own_calls


def test_branch_and_cut_names_two_plugins_of_one_class_apart():
    m, _, edges = tsp_model(6, 0)
    stats = BranchAndCut(lazy=[SubtourRows(m, 6, edges), SubtourRows(m, 6, edges)]).stats()
    assert list(stats) == ["SubtourRows", "SubtourRows#2"]
    assert stats["SubtourRows"] == {"calls": 0, "rows": 0, "checks": 0, "seconds": 0.0, "tours_checked": 0}
