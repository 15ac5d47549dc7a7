"""The search trace (``solve_result_.trace``): incumbent and bound over time on every solver, the restart loop's
rounds, the forked HiGHS child, the recorder's rules, and `plot_search_progress`."""
from __future__ import annotations

import json
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pyomo.environ as pyo  # noqa: E402
import pytest  # noqa: E402

from odtlib import plotting  # noqa: E402
from odtlib.models.univariate.bendersoct import BendersOCT  # noqa: E402
from odtlib.models.univariate.flowoct import FlowOCT  # noqa: E402
from odtlib.solvers import Callbacks, SolveResult, available_solvers, solve  # noqa: E402
from odtlib.solvers import highs as highs_module  # noqa: E402
from odtlib.solvers.trace import TracePoint, TraceRecorder, end_trace  # noqa: E402

AVAILABLE = available_solvers()
TOL = 1e-6


def needs(solver: str):
    return pytest.mark.skipif(solver not in AVAILABLE, reason=f"{solver} not installed")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def monk3_rows():
    """The first 40 rows of monk3 (binary features): FlowOCT at depth 2 solves them in a few seconds."""
    data = pytest.importorskip("odtlib.data")
    X, y, _ = data.paper_dataset("001", "monk3")
    return X.to_numpy()[:40], y.to_numpy()[:40]


def assert_valid_maximisation_trace(result: SolveResult, n_rows: int) -> None:
    """The properties every trace of a maximisation has: sorted times from 0 on, each incumbent the number of
    correctly classified rows of some tree (an integer in [0, n_rows]: FlowOCT's objective at λ = 0), bound >=
    incumbent, incumbents rising and bounds falling, consecutive points different, the result at the end."""
    trace = result.trace
    assert trace, "empty trace"
    times = [p.time for p in trace]
    assert times[0] >= 0 and times == sorted(times)
    assert times[-1] <= result.solve_time + TOL
    incumbents = [p.incumbent for p in trace if p.incumbent is not None]
    bounds = [p.bound for p in trace if p.bound is not None]
    for value in incumbents:
        assert abs(value - round(value)) < TOL and 0 <= round(value) <= n_rows
    assert all(b >= a - TOL for a, b in zip(incumbents, incumbents[1:])), "an incumbent got worse"
    assert all(b <= a + TOL for a, b in zip(bounds, bounds[1:])), "a bound got weaker"
    for p in trace:
        if p.incumbent is not None and p.bound is not None:
            assert p.bound >= p.incumbent - TOL
    assert all((a.incumbent, a.bound) != (b.incumbent, b.bound) for a, b in zip(trace, trace[1:]))
    assert (trace[-1].incumbent, trace[-1].bound) == (result.objective, result.bound)


# ------------------------------------------------------------------------------------- the recorder's rules
def test_recorder_keeps_only_improvements_in_the_models_sense():
    rec = TraceRecorder(sense=-1, origin=0.0)            # maximisation: incumbents rise, bounds fall
    rec.record(incumbent=None, bound=10.0, at=0.5)       # first bound
    rec.record(incumbent=3.0, bound=12.0, at=1.0)        # 12 is weaker than 10: the bound stays 10
    rec.record(incumbent=2.0, bound=10.0, at=2.0)        # improves nothing: not stored
    rec.record(incumbent=math.inf, bound=None, at=2.5)   # "no incumbent yet" as HiGHS reports it: ignored
    rec.record(incumbent=None, bound=8.0, at=3.0)
    rec.record(incumbent=3.0 + 1e-13, bound=8.0 - 1e-13, at=3.5)    # rounding noise (under 1e-9 relative)
    assert rec.points == [(0.5, None, 10.0), (1.0, 3.0, 10.0), (3.0, 3.0, 8.0)]

    rec = TraceRecorder(sense=1, origin=0.0)             # minimisation: incumbents fall, bounds rise
    rec.record(incumbent=9.0, bound=1.0, at=0.1)
    rec.record(incumbent=11.0, bound=0.5, at=0.2)        # worse on both counts
    rec.record(incumbent=7.0, bound=2.0, at=0.3)
    assert rec.points == [(0.1, 9.0, 1.0), (0.3, 7.0, 2.0)]


def test_recorder_merges_close_bound_only_points_but_keeps_every_incumbent():
    # A bound-only point replaces the last point when that one is bound-only too and lies within the spacing
    # max(0.01 s, 5 % of the time) of its predecessor. 2.0: new (the last point, 1.0, has a new incumbent).
    # 2.005: new (the last point, 2.0, is 1.0 s after its predecessor 1.0). 2.010: the last point, 2.005, is
    # 0.005 s after its predecessor 2.0, under the spacing 0.1005 s: replaced, the bound 6 now shows at 2.010.
    # An incumbent (2.011) is always a new point.
    rec = TraceRecorder(sense=-1, origin=0.0)
    rec.record(incumbent=1.0, bound=9.0, at=1.0)
    rec.record(bound=8.0, at=2.0)
    rec.record(bound=7.0, at=2.005)
    rec.record(bound=6.0, at=2.010)
    rec.record(incumbent=2.0, at=2.011)
    assert rec.points == [(1.0, 1.0, 9.0), (2.0, 1.0, 8.0), (2.010, 1.0, 6.0), (2.011, 2.0, 6.0)]


def test_end_trace_appends_the_result_and_clips_what_it_does_not_keep():
    points = [TracePoint(0.1, None, 60.0), TracePoint(0.2, 50.0, 58.4), TracePoint(0.3, 58.0, 58.4)]
    # maximisation; the model rounds the bound 58.4 down to 58: the earlier 58.4s stay (they are weaker), the
    # final point (58, 58) is appended at 0.5 s
    assert end_trace(points, TracePoint(0.5, 58.0, 58.0), sense=-1) == (
        (0.1, None, 60.0), (0.2, 50.0, 58.4), (0.3, 58.0, 58.4), (0.5, 58.0, 58.0))
    # a result that keeps a worse incumbent (57) than reported (58): the report is clipped to 57, and the final
    # point, equal to the clipped last one, keeps the earlier time 0.3
    assert end_trace(points, TracePoint(0.5, 57.0, 58.4), sense=-1) == (
        (0.1, None, 60.0), (0.2, 50.0, 58.4), (0.3, 57.0, 58.4))
    assert end_trace([], TracePoint(0.5, None, None), sense=1) == ()       # infeasible: nothing known


def test_trace_is_stored_as_lists_in_the_result_dict():
    result = SolveResult("time_limit", objective=3.0, bound=5.0,
                         trace=(TracePoint(0.25, None, math.inf), TracePoint(1.5, 3.0, 5.0)))
    stored = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert stored["trace"] == [[0.25, None, None], [1.5, 3.0, 5.0]]


def test_restate_trace_moves_the_values_to_the_reported_scale():
    # accuracy fractions v of 10 rows restated as counts 10 v; the model reports the bound 9.5 rounded to 9,
    # which supersedes the last point (same time 0.4 s)
    result = SolveResult("optimal", objective=9.0, bound=9.0, extra={"objective_sense": "maximize"},
                         trace=(TracePoint(0.1, 0.5, 1.0), TracePoint(0.4, 0.9, 0.95)))
    result.restate_trace(lambda v: 10 * v)
    assert result.trace == ((0.1, 5.0, 10.0), (0.4, 9.0, 9.0))


# ------------------------------------------------------------------------------------------ every solver
def test_infeasible_model_has_an_empty_trace():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Binary)
    m.c = pyo.Constraint(expr=m.x >= 2)
    m.obj = pyo.Objective(expr=m.x)
    result = solve(m, solver="highs")
    assert result.status == "infeasible" and result.trace == ()


@pytest.mark.parametrize("solver", [pytest.param(s, marks=needs(s)) for s in ("highs", "scip", "glpk")])
def test_flowoct_trace_on_every_solver(monk3_rows, solver):
    X, y = monk3_rows
    model = FlowOCT(depth=2, solver=solver, warm_start=False).fit(X, y)
    result = model.solve_result_
    assert result.status == "optimal"
    assert_valid_maximisation_trace(result, len(y))
    if solver == "glpk":
        assert len(result.trace) == 1                                        # glpsol: the final point only
    else:
        assert len(result.trace) >= 3                                        # the search is visible
        assert result.trace[0].time < result.trace[-1].time
        first_incumbent = next(p.incumbent for p in result.trace if p.incumbent is not None)
        assert first_incumbent < result.objective or result.trace[0].bound > result.bound


@needs("highs")
def test_time_limited_highs_run_brings_its_trace_back_from_the_child(monk3_rows, monkeypatch):
    calls = []
    original = highs_module.HighsBackend._run_in_child

    def counted(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(highs_module.HighsBackend, "_run_in_child", counted)
    X, y = monk3_rows
    result = FlowOCT(depth=2, solver="highs", warm_start=False, time_limit=120).fit(X, y).solve_result_
    assert calls, "the run did not go through the forked child"
    assert_valid_maximisation_trace(result, len(y))
    assert len(result.trace) >= 3                         # points recorded in the child reached the parent


# ------------------------------------------------------------------------------------------ the restart loop
class TwoLazyRows(Callbacks):
    """Lazy rows x + y <= 4 and x - y <= 1, each returned only when the point violates it."""

    def __init__(self, m):
        self.m = m

    def lazy(self, values):
        x, y = values[self.m.x], values[self.m.y]
        rows = []
        if x + y > 4 + TOL:
            rows.append(self.m.x + self.m.y <= 4)
        if x - y > 1 + TOL:
            rows.append(self.m.x - self.m.y <= 1)
        return rows


@needs("glpk")
def test_restart_loop_records_one_point_per_round():
    # max 3x + 2y, x, y integers in [0, 3]. Round 1 (no rows): (3, 3), 15, violates x + y <= 4 only (x - y = 0).
    # Round 2: best with x + y <= 4 is (3, 1), 11 ((2, 2) gives 10), violates x - y <= 1. Round 3: best with both
    # rows is (2, 2), 10 ((1, 3) gives 9), feasible. GLPK solves each round to optimality, so the bounds are 15,
    # 11, 10, and the only lazy-feasible incumbent is the last round's.
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Integers, bounds=(0, 3))
    m.y = pyo.Var(domain=pyo.Integers, bounds=(0, 3))
    m.obj = pyo.Objective(expr=3 * m.x + 2 * m.y, sense=pyo.maximize)
    m.loose = pyo.Constraint(expr=m.x + m.y <= 6)   # never binding; glpsol wants at least one row
    result = solve(m, solver="glpk", callbacks=TwoLazyRows(m))
    assert result.rounds == 3 and result.objective == pytest.approx(10.0)
    assert [(p.incumbent, p.bound) for p in result.trace] == [
        (None, pytest.approx(15.0)), (None, pytest.approx(11.0)), (pytest.approx(10.0), pytest.approx(10.0))]
    times = [p.time for p in result.trace]
    assert times == sorted(times)


@needs("highs")
def test_bendersoct_restart_loop_trace_on_highs(monk3_rows):
    X, y = monk3_rows
    with pytest.warns(UserWarning, match="restart loop"):
        result = BendersOCT(depth=2, solver="highs", warm_start=False).fit(X, y).solve_result_
    assert result.status == "optimal" and result.rounds > 1
    assert_valid_maximisation_trace(result, len(y))


# ------------------------------------------------------------------------------------------ the picture
def test_plot_search_progress_draws_incumbent_and_bound():
    result = SolveResult("optimal", objective=58.0, bound=58.0, solve_time=2.0,
                         trace=(TracePoint(0.1, None, 60.0), TracePoint(0.5, 50.0, 60.0), TracePoint(2.0, 58.0, 58.0)))
    ax = plotting.plot_search_progress(result)
    assert isinstance(ax, matplotlib.axes.Axes)
    incumbent, bound = ax.get_lines()
    assert len(ax.get_lines()) == 2
    assert np.allclose(bound.get_ydata(), [60.0, 60.0, 58.0])
    assert np.isnan(incumbent.get_ydata()[0]) and list(incumbent.get_ydata()[1:]) == [50.0, 58.0]
    assert "(s)" in ax.get_xlabel() and ax.get_ylabel()
    assert any("optimality proved (2 s)" in t.get_text() for t in ax.get_legend().get_texts())
    # the stored form (to_dict) draws the same lines, on a given Axes
    _, given = plt.subplots()
    assert plotting.plot_search_progress(result.to_dict(), ax=given) is given
    assert np.allclose(given.get_lines()[1].get_ydata(), [60.0, 60.0, 58.0])


def test_plot_search_progress_runs_the_lines_on_to_the_end_of_the_run():
    # a time-limited run whose last improvement came at 1 s of a 5 s run: both lines hold their values to 5 s,
    # and nothing marks a proof
    result = SolveResult("time_limit", objective=4.0, bound=None, solve_time=5.0, trace=(TracePoint(1.0, 4.0, None),))
    ax = plotting.plot_search_progress(result)
    incumbent, bound = ax.get_lines()
    assert list(incumbent.get_xdata()) == [1.0, 5.0] and list(incumbent.get_ydata()) == [4.0, 4.0]
    assert np.isnan(bound.get_ydata()).all()
    assert not any("optimality" in t.get_text() for t in ax.get_legend().get_texts())


def test_plot_search_progress_refuses_an_empty_trace_and_a_model_without_a_solve():
    with pytest.raises(ValueError, match="search trace is empty"):
        plotting.plot_search_progress(SolveResult("infeasible"))
    unfitted = FlowOCT(depth=1)
    with pytest.raises(ValueError, match="has no solve_result_"):
        plotting.plot_search_progress(unfitted)
    with pytest.raises(TypeError, match="expected a fitted estimator"):
        plotting.plot_search_progress([1, 2, 3])


@needs("highs")
def test_accelerated_engine_restates_the_trace_on_paper_001s_scale(monk3_rows):
    # FlowOCT's accelerated engine solves RegularizedBendOCT and reports (1.1) = (1 - λ)·correct - λ·splits. At
    # λ = 0.1 every incumbent of the restated trace is 0.9 c - 0.1 s for c correct rows (0..40) and s splits (0..3
    # at depth 2), the trace ends at the reported (objective, bound), and no bound is below the objective.
    X, y = monk3_rows
    with pytest.warns(UserWarning):
        result = FlowOCT(depth=2, solver="highs", engine="accelerated", split_penalty=0.1,
                         warm_start=False).fit(X, y).solve_result_
    assert result.extra["engine"] == "accelerated" and result.status == "optimal"
    reachable = {round(0.9 * c - 0.1 * s, 6) for c in range(len(y) + 1) for s in range(4)}
    assert all(round(p.incumbent, 6) in reachable for p in result.trace if p.incumbent is not None)
    assert all(p.bound >= result.objective - TOL for p in result.trace if p.bound is not None)
    assert (result.trace[-1].incumbent, result.trace[-1].bound) == (result.objective, result.bound)
