"""Solve Pyomo MIP models with free (HiGHS, SCIP, GLPK) or commercial solvers.

::

    from odtlib.solvers import solve, Callbacks, LinearRow
    res = solve(model, solver="highs", time_limit=60, threads=1)
    res.status, res.objective, res.bound, res.gap      # values are loaded into the model

Pipeline: Pyomo model --(standard-form compiler, `standard_form`)--> arrays --> one backend
module per solver (`highs`, `scip`, `glpk`, `commercial`) --> `SolveResult`. Callbacks
(`callbacks`) are written once against Pyomo variables; SCIP runs them in branch-and-cut,
the other solvers enforce lazy constraints by a restart loop (`restart`).

Public API::

    solve(model, solver="highs", time_limit=None, mip_gap=None, threads=1, seed=0,
          warm_start=None, callbacks=None, log=False, abs_gap=None) -> SolveResult
    SolveResult   status, objective, bound, gap, runtime, nodes, n_lazy, n_cuts, solver,
                  solver_version, build_time, handoff_time, solve_time, rounds, message, extra,
                  trace (TracePoint(time, incumbent, bound), see `trace`); .has_solution, .to_dict()
    Callbacks     subclass; override lazy(values) / cut(values) / heuristic(values);
                  attribute lazy_at_fractional (see `odtlib.solvers.callbacks` for a worked
                  Benders example)
    Values        values[var], values.array(vars), values.columns(vars), values.x, .is_integral
    LinearRow     LinearRow(vars_or_columns, coefs, lb=-inf, ub=inf): fast callback rows
    SOLVERS, available_solvers(), SolverNotAvailableError
    StartRejectedWarning                         a complete warm start that violates the model
    capabilities(solver) -> SolverCapabilities   how a solver runs lazy rows, cuts, heuristics
    check_solvers(names) -> {name: version}      a notebook's first cell: prints each solver, or says what to install
    solver_tuning(solver, strategy) -> dict     solver parameters that suit a search strategy

Plug-ins (`plugins`): LazyRowFamily, CutFamily, PrimalHeuristic, and BranchAndCut, the
Callbacks object that runs any number of each.

Small LPs solved many times (`reusable_lp`): ReusableLP(A, row_lower, row_upper, costs=..., closed=...),
one HiGHS model changed in place between solves (open/close columns, set_costs, set_row_bounds, ...),
with vertex(), farkas_ray(), n_solves and seconds; models use it instead of a solver's own API.
"""
from odtlib.solvers.base import SolverNotAvailableError
from odtlib.solvers.callbacks import Callbacks, LinearRow, Values
from odtlib.solvers.capabilities import (
    SolverCapabilities,
    SolverCapabilityWarning,
    capabilities,
    check_solvers,
    solver_tuning,
)
from odtlib.solvers.core import SOLVERS, StartRejectedWarning, available_solvers, solve
from odtlib.solvers.plugins import BranchAndCut, CutFamily, LazyRowFamily, Plugin, PrimalHeuristic
from odtlib.solvers.result import SolveResult
from odtlib.solvers.reusable_lp import ReusableLP
from odtlib.solvers.trace import TracePoint

__all__ = [
    "SOLVERS",
    "BranchAndCut",
    "Callbacks",
    "CutFamily",
    "LazyRowFamily",
    "Plugin",
    "PrimalHeuristic",
    "ReusableLP",
    "SolverCapabilities",
    "SolverCapabilityWarning",
    "StartRejectedWarning",
    "capabilities",
    "check_solvers",
    "solver_tuning",
    "LinearRow",
    "SolveResult",
    "SolverNotAvailableError",
    "TracePoint",
    "Values",
    "available_solvers",
    "solve",
]
