"""Gurobi (gurobipy) and CPLEX (cplex Python API) backends, used when the packages are installed.

Both take the standard-form arrays directly (matrix APIs: no Pyomo expression walk). Lazy
constraints run through the restart loop like on HiGHS/GLPK — the solvers' native callbacks
are not wired up; user cuts and heuristics are ignored. pip's ``gurobipy`` and ``cplex``
wheels carry size-limited licences (enough for the tests' tiny models).

Search trace (`odtlib.solvers.trace`): Gurobi's callback reports its best objective and bound at its MIP progress
calls and each new solution; CPLEX's trace holds the final point only (added by `solve()`).
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from odtlib.solvers.base import Backend, RunOutcome, SolveOptions, rejected_option
from odtlib.solvers.callbacks import Row, rows_matrix
from odtlib.solvers.standard_form import StandardForm

try:
    import gurobipy
except ImportError:
    gurobipy = None
try:
    import cplex
except ImportError:
    cplex = None


def _split_rows(A: sp.csr_array, lb: np.ndarray, ub: np.ndarray):
    """(matrix, sense, rhs) blocks for rows ``lb <= A x <= ub`` ("=", "<", ">"; ranges give two)."""
    eq = lb == ub
    le = ~eq & np.isfinite(ub)
    ge = ~eq & np.isfinite(lb)
    for mask, sense, rhs in ((eq, "=", ub), (le, "<", ub), (ge, ">", lb)):
        if mask.any():
            yield A[mask], sense, rhs[mask]


class GurobiBackend(Backend):
    name = "gurobi"
    branching_priorities = True

    def __init__(self, sf: StandardForm, options: SolveOptions):
        super().__init__(sf, options)
        GRB = gurobipy.GRB
        self.env = gurobipy.Env(params={"OutputFlag": int(options.log)})
        m = self.m = gurobipy.Model(env=self.env)
        self.x = m.addMVar(sf.n_cols, lb=sf.col_lb, ub=sf.col_ub, obj=sf.c,
                           vtype=np.where(sf.is_integer, GRB.INTEGER, GRB.CONTINUOUS))
        m.ModelSense = sf.sense
        m.ObjCon = sf.c_offset
        self._add(sf.A, sf.row_lb, sf.row_ub)
        m.Params.MIPGap = options.mip_gap
        m.Params.MIPGapAbs = options.abs_gap
        m.Params.Threads = options.threads
        m.Params.Seed = options.seed
        if sf.branch_priority is not None:
            self.x.BranchPriority = sf.branch_priority
        for key, val in options.solver_options.items():
            try:
                m.setParam(key, val)
            except gurobipy.GurobiError as exc:
                raise rejected_option("Gurobi", key, val, exc) from None

    @staticmethod
    def available() -> bool:
        return gurobipy is not None

    @staticmethod
    def version() -> str:
        return ".".join(map(str, gurobipy.gurobi.version())) if gurobipy else ""

    def _add(self, A, lb, ub) -> None:
        for block, sense, rhs in _split_rows(sp.csr_array(A), lb, ub):
            self.m.addMConstr(block, self.x, sense, rhs)

    def set_start(self, cols: np.ndarray, vals: np.ndarray) -> None:
        start = np.full(self.sf.n_cols, gurobipy.GRB.UNDEFINED)
        start[cols] = vals
        self.x.Start = start

    def add_rows(self, rows: list[Row]) -> None:
        A, lb, ub = rows_matrix(rows, self.sf.n_cols)
        self._add(A, lb, ub)

    def run(self, time_limit: float, callbacks=None, on_incumbent=None) -> RunOutcome:
        GRB, m = gurobipy.GRB, self.m
        m.Params.TimeLimit = time_limit if math.isfinite(time_limit) else GRB.INFINITY
        m.optimize(_gurobi_trace_callback(self.trace) if self.trace is not None else None)
        if m.Status == GRB.INF_OR_UNBD:
            m.Params.DualReductions = 0
            m.optimize()
        s = m.Status
        has_sol = m.SolCount > 0
        x = np.asarray(self.x.X, dtype=float) if has_sol else None
        nodes = int(m.NodeCount) if m.IsMIP else 0
        bound = None
        if m.IsMIP and s in (GRB.OPTIMAL, GRB.TIME_LIMIT, GRB.INTERRUPTED):
            bound = float(m.ObjBound) if math.isfinite(m.ObjBound) else None
        elif s == GRB.OPTIMAL:
            bound = float(m.ObjVal)
        status = {GRB.OPTIMAL: "optimal", GRB.INFEASIBLE: "infeasible", GRB.UNBOUNDED: "unbounded",
                  GRB.TIME_LIMIT: "time_limit", GRB.INTERRUPTED: "time_limit"}.get(s, "error")
        return RunOutcome(status, x if status in ("optimal", "time_limit") else None, bound, nodes,
                          f"gurobi status {s}")


def _gurobi_trace_callback(trace):
    """A Gurobi callback that feeds ``trace``: best objective and bound at MIP progress calls, the objective of
    each new solution (Gurobi reports "none yet" as +-GRB.INFINITY)."""
    GRB = gurobipy.GRB

    def known(value: float) -> float | None:
        return value if abs(value) < GRB.INFINITY else None

    def callback(model, where):
        if where == GRB.Callback.MIP:
            trace.record(known(model.cbGet(GRB.Callback.MIP_OBJBST)), known(model.cbGet(GRB.Callback.MIP_OBJBND)))
        elif where == GRB.Callback.MIPSOL:
            trace.record(incumbent=known(model.cbGet(GRB.Callback.MIPSOL_OBJ)))
    return callback


class CplexBackend(Backend):
    name = "cplex"
    branching_priorities = True

    def __init__(self, sf: StandardForm, options: SolveOptions):
        super().__init__(sf, options)
        c = self.c = cplex.Cplex()
        if not options.log:
            for stream in (c.set_log_stream, c.set_results_stream, c.set_warning_stream):
                stream(None)
        inf = cplex.infinity
        types = "".join(np.where(sf.is_integer, "I", "C")) if sf.is_integer.any() else ""
        c.variables.add(obj=sf.c.tolist(), lb=np.maximum(sf.col_lb, -inf).tolist(),
                        ub=np.minimum(sf.col_ub, inf).tolist(), types=types)
        c.objective.set_sense(c.objective.sense.maximize if sf.sense == -1 else c.objective.sense.minimize)
        c.objective.set_offset(sf.c_offset)
        self._add(sf.A, sf.row_lb, sf.row_ub)
        p = c.parameters
        p.mip.tolerances.mipgap.set(options.mip_gap)
        p.mip.tolerances.absmipgap.set(options.abs_gap)
        p.threads.set(options.threads)
        p.randomseed.set(options.seed)
        if sf.branch_priority is not None:
            nonzero = np.flatnonzero(sf.branch_priority).tolist()
            c.order.set([(j, int(sf.branch_priority[j]), c.order.branch_direction.default) for j in nonzero])
        for key, val in options.solver_options.items():
            try:
                parameter = p
                for part in key.split("."):
                    parameter = getattr(parameter, part)
                parameter.set(val)
            except (AttributeError, cplex.exceptions.CplexError, TypeError, ValueError) as exc:
                raise rejected_option("CPLEX", key, val, exc) from None

    @staticmethod
    def available() -> bool:
        return cplex is not None

    @staticmethod
    def version() -> str:
        return cplex.Cplex().get_version() if cplex else ""

    def _add(self, A, lb, ub) -> None:
        A = sp.csr_array(A)
        lin, senses, rhs, ranges = [], [], [], []
        for i, (lo, up) in enumerate(zip(lb.tolist(), ub.tolist())):
            s, e = A.indptr[i], A.indptr[i + 1]
            lin.append(cplex.SparsePair(A.indices[s:e].tolist(), A.data[s:e].tolist()))
            if lo == up:
                senses.append("E"); rhs.append(up); ranges.append(0.0)
            elif not math.isfinite(lo):
                senses.append("L"); rhs.append(up); ranges.append(0.0)
            elif not math.isfinite(up):
                senses.append("G"); rhs.append(lo); ranges.append(0.0)
            else:
                senses.append("R"); rhs.append(lo); ranges.append(up - lo)
        if lin:
            self.c.linear_constraints.add(lin_expr=lin, senses="".join(senses), rhs=rhs, range_values=ranges)

    def set_start(self, cols: np.ndarray, vals: np.ndarray) -> None:
        c = self.c
        c.MIP_starts.add(cplex.SparsePair(cols.tolist(), vals.tolist()), c.MIP_starts.effort_level.auto)

    def add_rows(self, rows: list[Row]) -> None:
        self._add(*rows_matrix(rows, self.sf.n_cols))

    def run(self, time_limit: float, callbacks=None, on_incumbent=None) -> RunOutcome:
        c = self.c
        if math.isfinite(time_limit):
            c.parameters.timelimit.set(max(time_limit, 0.0))
        c.solve()
        sol, st = c.solution, c.solution.status
        code = sol.get_status()
        is_mip = bool(self.sf.is_integer.any())
        if code in (st.MIP_optimal, st.optimal_tolerance, st.optimal):
            status = "optimal"
        elif code in (st.MIP_infeasible, st.infeasible):
            status = "infeasible"
        elif code in (st.MIP_unbounded, st.unbounded):
            status = "unbounded"
        elif code in (st.MIP_infeasible_or_unbounded, st.infeasible_or_unbounded):
            c.parameters.preprocessing.presolve.set(0)
            return self.run(time_limit)
        elif code in (st.MIP_time_limit_feasible, st.MIP_time_limit_infeasible, st.abort_time_limit):
            status = "time_limit"
        else:
            status = "error"
        has_sol = status in ("optimal", "time_limit") and sol.is_primal_feasible()
        x = np.asarray(sol.get_values(), dtype=float) if has_sol else None
        if is_mip and status in ("optimal", "time_limit"):
            bound = sol.MIP.get_best_objective()
            bound = bound if abs(bound) < cplex.infinity else None
            nodes = sol.progress.get_num_nodes_processed()
        else:
            bound = sol.get_objective_value() if status == "optimal" else None
            nodes = 0
        return RunOutcome(status, x, bound, nodes, sol.get_status_string())

