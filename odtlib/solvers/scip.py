"""SCIP backend (PySCIPOpt): the same arrays, plus callbacks inside branch-and-cut.

Hand-off: the arrays are written as an LP file (`odtlib.solvers.lp_file`, vectorised with
numpy) into a temporary directory and read by SCIP's C reader. Building the model through
PySCIPOpt objects instead (``addMatrixVar`` + ``addConss``, one ``Expr`` per row) costs
~30-50 us per row in Python: 2-4x slower from a few hundred rows on, and about the same
(a few ms) on tiny models (bench/solver_handoff.py).

Callbacks (see `odtlib.solvers.callbacks`):

- ``lazy``  -> constraint handler `_LazyHandler` (check / enforce LP / enforce pseudo / lock,
  plus separation of LP points when ``callbacks.lazy_at_fractional``), enforcement and check
  priorities below integrality so candidates are integral;
- ``cut``   -> separator `_CutSeparator`, called at every node LP (SCIP's exponential back-off,
  which would call it only at depths 0, 1, 4, 16, ..., is switched off);
- ``heuristic`` -> primal heuristic `_Heuristic` during the root's LP rounds and after each node LP (``trySol``).

With lazy rows the model is incomplete, so SCIP must not draw conclusions from it alone:
every variable gets up and down locks, dual reductions are switched off
(``misc/allowstrongdualreds``/``misc/allowweakdualreds``; otherwise a variable that only
appears in lazy rows is fixed at its best objective value) and presolve restarts are off.
Rows are added with transformed variables as global cuts (``addCut`` + ``addPoolCut``) and
cached by content, so a row separated twice is built once.

Where the time goes: each plugin clocks its Python body (reading the point, the user's method,
turning its rows into SCIP cuts) with ``perf_counter`` and counts its calls; `run` reports them
per kind in ``extra["callback_seconds"]`` / ``extra["callback_calls"]``. The heuristic's clock
stops before SCIP checks its proposal (``trySol``): that check runs the lazy handler, which is
counted under "lazy", so the kinds never overlap.

An exception raised inside a callback interrupts the solve and is re-raised by `solve()`.

Search trace (`odtlib.solvers.trace`): the event handler `_TraceEvents`, installed on every run, reads SCIP's
primal and dual bound when a new best solution is found or the global dual bound improves (a few calls per run:
7 on a FlowOCT fit of 101 nodes, where an event per solved node made 105).
"""
from __future__ import annotations

import functools
import math
import os
import tempfile
import time
from contextlib import contextmanager
from dataclasses import replace

import numpy as np

from odtlib.solvers.base import Backend, RunOutcome, SolveOptions, rejected_option
from odtlib.solvers.callbacks import FEASIBILITY_TOL, Callbacks, Row, Values, to_rows
from odtlib.solvers.lp_file import column_names, ranged_rows, write_lp
from odtlib.solvers.standard_form import StandardForm, start_vector

try:
    import pyscipopt
    from pyscipopt import SCIP_EVENTTYPE, SCIP_HEURTIMING, SCIP_RESULT, Conshdlr, Eventhdlr, Heur, Sepa
    from pyscipopt.scip import Expr, MatrixVariable, Term
except ImportError:
    pyscipopt = None
    # a base other than object keeps the plug-ins' MRO valid
    Conshdlr = Eventhdlr = Heur = Sepa = type("_NoSCIPPlugin", (), {})

_STATUS = {
    "optimal": "optimal",
    "gaplimit": "optimal",
    "timelimit": "time_limit",
    "userinterrupt": "time_limit",
    "nodelimit": "time_limit",
    "totalnodelimit": "time_limit",
    "stallnodelimit": "time_limit",
    "memlimit": "time_limit",
    "sollimit": "time_limit",
    "bestsollimit": "time_limit",
    "restartlimit": "time_limit",
    "infeasible": "infeasible",
    "unbounded": "unbounded",
}


class ScipBackend(Backend):
    name = "scip"
    supports_callbacks = True
    branching_priorities = True
    #: "top_down_branching" (paper 003's master with path-bound cuts, ours): no aggregation (c-MIR) separator,
    #: strong branching only until one reliable estimate per candidate. The subtree bounds come from the
    #: depth-2 cuts and the priorities make the branching choices. With EQP rows they halve the run (depth 3,
    #: eqp="recursive": monk3 2.5 -> 1.0 s, hayes-roth 5.4 -> 2.3 s, house-votes-84 1.5 -> 0.8 s at
    #: lambda = 1e-4); without EQP no clear effect (0.5-2.5x either way on eight datasets).
    tuning = {"top_down_branching": {"separating/aggregation/freq": -1, "branching/relpscost/maxreliable": 1},
              # a heuristic that may propose any of a model's symmetric solutions: symmetry handling keeps one
              # copy and rejects the others without a word (paper 002's S-OCT baseline on Balance Scale at depth 3:
              # a perfect tree proposed at the root and dropped, 288 of 625 after 120 s; 625 in 5 s without it)
              "symmetric_proposals": {"misc/usesymmetry": 0}}

    def __init__(self, sf: StandardForm, options: SolveOptions):
        super().__init__(sf, options)
        m = self.m = pyscipopt.Model()
        if not options.log:
            m.hideOutput()
        self.vars = self._read_lp_file()
        self.X = np.fromiter(self.vars, dtype=object, count=len(self.vars)).view(MatrixVariable)
        self._tracing = False  # the trace event handler is included (once per model)
        if sf.c_offset:
            m.addObjoffset(sf.c_offset)
        m.setParam("limits/gap", options.mip_gap)
        m.setParam("limits/absgap", options.abs_gap)
        m.setParam("randomization/randomseedshift", int(options.seed))
        m.setParam("lp/threads", int(options.threads))
        if sf.branch_priority is not None:
            for j in np.flatnonzero(sf.branch_priority).tolist():
                m.chgVarBranchPriority(self.vars[j], int(sf.branch_priority[j]))
        for key, val in options.solver_options.items():
            try:
                m.setParam(key, val)
            except (LookupError, ValueError, TypeError) as exc:
                raise rejected_option("SCIP", key, val, exc) from None

    def _read_lp_file(self) -> list:
        """The model through an LP file read by SCIP; returns the SCIP variables in column order."""
        sf, m = self.sf, self.m
        with tempfile.TemporaryDirectory(prefix="odtlib_scip_") as tmp:
            path = os.path.join(tmp, "model.lp")
            write_lp(path, sf, m.infinity())
            m.readProblem(path)
        by_name = {v.name: v for v in m.getVars()}  # SCIP orders its variables by type
        ranged = np.flatnonzero(ranged_rows(sf, m.infinity()))
        if len(ranged):  # written with their lower side only; rows keep the file's order
            conss = m.getConss()
            for i in ranged.tolist():
                m.chgRhs(conss[i], float(sf.row_ub[i]))
        return [by_name[name] for name in column_names(sf.n_cols)]

    @staticmethod
    def available() -> bool:
        return pyscipopt is not None

    @staticmethod
    def version() -> str:
        return f"{pyscipopt.Model().version()} (PySCIPOpt {pyscipopt.__version__})" if pyscipopt else ""

    def set_start(self, cols: np.ndarray, vals: np.ndarray) -> None:
        m = self.m
        sol = m.createSol() if len(cols) == self.sf.n_cols else m.createPartialSol()
        for j, v in zip(cols.tolist(), vals.tolist()):
            m.setSolVal(sol, self.vars[j], v)
        m.addSol(sol)

    def values(self, sol=None) -> np.ndarray:
        """Column values of a SCIP solution (None: the current LP/pseudo solution)."""
        return np.asarray(self.m.getSolVal(sol, self.X), dtype=float)

    def run(self, time_limit: float, callbacks: Callbacks | None = None, on_incumbent=None) -> RunOutcome:
        m = self.m
        if math.isfinite(time_limit):
            m.setParam("limits/time", max(time_limit, 0.0))
        plugins = _install_callbacks(self, callbacks) if callbacks is not None else []
        if self.trace is not None and not self._tracing:
            m.includeEventhdlr(_TraceEvents(self.trace), "odtlib_trace", "search trace of odtlib")
            self._tracing = True
        m.optimize()
        for plugin in plugins:
            if plugin.error is not None:
                raise plugin.error
        n_lazy = sum(getattr(p, "n_lazy", 0) for p in plugins)
        n_cuts = sum(getattr(p, "n_cuts", 0) for p in plugins)
        extra = _callback_times(plugins)
        extra.update(("heuristic_solutions", p.n_found) for p in plugins if isinstance(p, _Heuristic))
        raw = m.getStatus()
        status = _STATUS.get(raw, "error")
        sol = m.getBestSol() if m.getNSols() > 0 else None
        x = self.values(sol) if sol is not None and status not in ("infeasible",) else None
        bound = m.getDualbound() if status in ("optimal", "time_limit") else None
        if bound is not None and abs(bound) >= m.infinity():
            bound = None
        if raw == "inforunbd":
            status = self._infeasible_or_unbounded()
        return RunOutcome(status, x, bound, int(m.getNNodes()), raw, n_lazy=n_lazy, n_cuts=n_cuts,
                          extra=extra)

    def _infeasible_or_unbounded(self) -> str:
        """Decide SCIP's 'infeasible or unbounded' by solving the model with zero objective."""
        feas = ScipBackend(replace(self.sf, c=np.zeros(self.sf.n_cols), c_offset=0.0), self.options)
        return "unbounded" if feas.run(math.inf).status == "optimal" else "infeasible"


def _row_cons(variables, r: Row):
    expr = Expr(dict(zip([Term(variables[j]) for j in r.cols.tolist()], r.coefs.tolist())))
    if r.lb == r.ub:
        return expr == r.ub
    if not math.isfinite(r.lb):
        return expr <= r.ub
    if not math.isfinite(r.ub):
        return expr >= r.lb
    return (r.lb <= expr) <= r.ub


class _TraceEvents(Eventhdlr):
    """Feeds the search trace: SCIP's primal and dual bound at each new best solution and each improvement of the
    global dual bound (SCIP >= 8; older versions: each solved node)."""

    def __init__(self, trace):
        self.trace = trace
        bound_event = getattr(SCIP_EVENTTYPE, "DUALBOUNDIMPROVED", None) or SCIP_EVENTTYPE.NODESOLVED
        self.events = SCIP_EVENTTYPE.BESTSOLFOUND | bound_event

    def eventinit(self):
        self.model.catchEvent(self.events, self)

    def eventexit(self):
        self.model.dropEvent(self.events, self)

    def eventexec(self, event):
        m = self.model
        infinity = m.infinity()
        incumbent = m.getPrimalbound() if m.getNSols() > 0 else None
        bound = m.getDualbound()
        self.trace.record(incumbent=incumbent if incumbent is not None and abs(incumbent) < infinity else None,
                          bound=bound if abs(bound) < infinity else None)
        return {}


# --------------------------------------------------------------------------------------
# callbacks


def _install_callbacks(backend: ScipBackend, callbacks: Callbacks) -> list:
    m = backend.m
    plugins = []
    cuts = _CutAdder(backend)
    if callbacks.has_lazy:
        m.setParam("misc/allowstrongdualreds", False)
        m.setParam("misc/allowweakdualreds", False)
        m.setParam("presolving/maxrestarts", 0)
        handler = _LazyHandler(backend, callbacks, cuts)
        m.includeConshdlr(
            handler, "odtlib_lazy", "lazy constraints from odtlib Callbacks.lazy",
            sepapriority=0, enfopriority=-1, chckpriority=-1,
            sepafreq=1 if callbacks.lazy_at_fractional else -1, needscons=False,
        )
        plugins.append(handler)
    if callbacks.has_cut:
        sepa = _CutSeparator(backend, callbacks, cuts)
        m.includeSepa(sepa, "odtlib_cuts", "user cuts from odtlib Callbacks.cut", priority=1000, freq=1)
        # SCIP backs separators off exponentially by default (expbackoff 4: with freq 1 they run at depths
        # 0, 1, 4, 16, 64 only); ``cut`` is asked at every node LP, as the Callbacks contract says
        m.setParam("separating/odtlib_cuts/expbackoff", 1)
        plugins.append(sepa)
    if callbacks.has_heuristic:
        m.setParam("presolving/donotmultaggr", True)  # proposals set original variables one by one
        heur = _Heuristic(backend, callbacks)
        m.includeHeur(heur, "odtlib_heur", "odtlib Callbacks.heuristic", "Y", priority=1000,
                      freq=1, timingmask=SCIP_HEURTIMING.DURINGLPLOOP | SCIP_HEURTIMING.AFTERLPNODE)
        plugins.append(heur)
    return plugins


class _CutAdder:
    """Turns `Row`s into SCIP LP rows over transformed variables (cached) and adds the
    violated ones as global cuts."""

    def __init__(self, backend: ScipBackend):
        self.backend = backend
        self._tvars: dict[int, object] = {}
        self._rows: dict[tuple, object] = {}

    def _tvar(self, j: int):
        tv = self._tvars.get(j)
        if tv is None:
            tv = self._tvars[j] = self.backend.m.getTransformedVar(self.backend.vars[j])
        return tv

    def add(self, rows: list[Row], x: np.ndarray) -> tuple[int, bool]:
        """Add the rows violated at x; returns (number added, cutoff detected)."""
        m, inf = self.backend.m, self.backend.m.infinity()
        added, cutoff = 0, False
        for r in rows:
            if r.violation(x) <= FEASIBILITY_TOL:
                continue
            key = r.key()
            row = self._rows.get(key)
            if row is None:
                row = m.createEmptyRowUnspec(
                    lhs=r.lb if math.isfinite(r.lb) else -inf,
                    rhs=r.ub if math.isfinite(r.ub) else inf,
                    local=False, removable=True,
                )
                m.cacheRowExtensions(row)
                for j, a in zip(r.cols.tolist(), r.coefs.tolist()):
                    m.addVarToRow(row, self._tvar(j), a)
                m.flushRowExtensions(row)
                self._rows[key] = row
                added += 1
            cutoff |= m.addCut(row, forcecut=True)
            m.addPoolCut(row)
        return added, cutoff


CALLBACK_KINDS = ("lazy", "cut", "heuristic")


def _callback_times(plugins: list) -> dict:
    """``callback_seconds`` and ``callback_calls`` per kind (0 for kinds not installed)."""
    return {"callback_seconds": {k: sum(p.seconds for p in plugins if p.kind == k) for k in CALLBACK_KINDS},
            "callback_calls": {k: sum(p.calls for p in plugins if p.kind == k) for k in CALLBACK_KINDS}}


class _GuardedPlugin:
    """Stores the first exception of a user callback and interrupts the solve; clocks its calls."""

    kind: str = ""
    error: BaseException | None = None
    seconds: float = 0.0
    calls: int = 0

    def _fail(self, exc: BaseException) -> None:
        if self.error is None:
            self.error = exc
        self.model.interruptSolve()

    @contextmanager
    def _clock(self):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds += time.perf_counter() - start
            self.calls += 1


def _clocked(method):
    """Run a plugin method under the plugin's clock."""
    @functools.wraps(method)
    def clocked(self, *args, **kwargs):
        with self._clock():
            return method(self, *args, **kwargs)
    return clocked


class _LazyHandler(Conshdlr, _GuardedPlugin):
    kind = "lazy"

    def __init__(self, backend: ScipBackend, callbacks: Callbacks, cuts: _CutAdder):
        self.backend, self.callbacks, self.cuts = backend, callbacks, cuts
        self.error = None
        self.n_lazy = 0

    def _violated(self, sol, integral: bool) -> tuple[list[Row], np.ndarray]:
        x = self.backend.values(sol)
        index = self.backend.sf.index
        rows = to_rows(self.callbacks.lazy(Values(x, index, is_integral=integral)), index)
        return [r for r in rows if r.violation(x) > FEASIBILITY_TOL], x

    @_clocked
    def conscheck(self, constraints, solution, checkintegrality, checklprows, printreason,
                  completely, **kwargs):
        if self.error is not None:
            return {"result": SCIP_RESULT.INFEASIBLE}
        try:
            values = Values(self.backend.values(solution), self.backend.sf.index, is_integral=True)
            rejected = self.callbacks.rejects(values)
        except Exception as exc:  # noqa: BLE001 - re-raised after the solve
            self._fail(exc)
            return {"result": SCIP_RESULT.INFEASIBLE}
        return {"result": SCIP_RESULT.INFEASIBLE if rejected else SCIP_RESULT.FEASIBLE}

    def _enforce(self):
        if self.error is not None:
            return {"result": SCIP_RESULT.CUTOFF}
        try:
            violated, x = self._violated(None, True)
            if not violated:
                return {"result": SCIP_RESULT.FEASIBLE}
            added, cutoff = self.cuts.add(violated, x)
        except Exception as exc:  # noqa: BLE001
            self._fail(exc)
            return {"result": SCIP_RESULT.CUTOFF}
        self.n_lazy += added
        return {"result": SCIP_RESULT.CUTOFF if cutoff else SCIP_RESULT.SEPARATED}

    @_clocked
    def consenfolp(self, constraints, nusefulconss, solinfeasible):
        return self._enforce()

    @_clocked
    def consenfops(self, constraints, nusefulconss, solinfeasible, objinfeasible):
        # no LP at this node: add the violated rows as constraints
        if self.error is not None:
            return {"result": SCIP_RESULT.CUTOFF}
        try:
            violated, _ = self._violated(None, True)
            if not violated:
                return {"result": SCIP_RESULT.FEASIBLE}
            for r in violated:
                self.model.addCons(_row_cons(self.backend.vars, r))
        except Exception as exc:  # noqa: BLE001
            self._fail(exc)
            return {"result": SCIP_RESULT.CUTOFF}
        self.n_lazy += len(violated)
        return {"result": SCIP_RESULT.CONSADDED}

    @_clocked
    def conssepalp(self, constraints, nusefulconss):  # only when lazy_at_fractional
        if self.error is not None:
            return {"result": SCIP_RESULT.DIDNOTRUN}
        try:
            violated, x = self._violated(None, False)
            added, cutoff = self.cuts.add(violated, x) if violated else (0, False)
        except Exception as exc:  # noqa: BLE001
            self._fail(exc)
            return {"result": SCIP_RESULT.DIDNOTRUN}
        self.n_lazy += added
        if cutoff:
            return {"result": SCIP_RESULT.CUTOFF}
        return {"result": SCIP_RESULT.SEPARATED if violated else SCIP_RESULT.DIDNOTFIND}

    def conslock(self, constraint, locktype, nlockspos, nlocksneg):
        n = nlockspos + nlocksneg
        for v in self.backend.vars:
            self.model.addVarLocks(v, n, n)


class _CutSeparator(Sepa, _GuardedPlugin):
    kind = "cut"

    def __init__(self, backend: ScipBackend, callbacks: Callbacks, cuts: _CutAdder):
        self.backend, self.callbacks, self.cuts = backend, callbacks, cuts
        self.error = None
        self.n_cuts = 0

    @_clocked
    def sepaexeclp(self):
        if self.error is not None:
            return {"result": SCIP_RESULT.DIDNOTRUN}
        try:
            x = self.backend.values(None)
            index = self.backend.sf.index
            rows = to_rows(self.callbacks.cut(Values(x, index, is_integral=False)), index)
            violated = [r for r in rows if r.violation(x) > FEASIBILITY_TOL]
            added, cutoff = self.cuts.add(violated, x) if violated else (0, False)
        except Exception as exc:  # noqa: BLE001
            self._fail(exc)
            return {"result": SCIP_RESULT.DIDNOTRUN}
        self.n_cuts += added
        if cutoff:
            return {"result": SCIP_RESULT.CUTOFF}
        return {"result": SCIP_RESULT.SEPARATED if violated else SCIP_RESULT.DIDNOTFIND}


class _Heuristic(Heur, _GuardedPlugin):
    kind = "heuristic"

    def __init__(self, backend: ScipBackend, callbacks: Callbacks):
        self.backend, self.callbacks = backend, callbacks
        self.error = None
        self.n_found = 0
        self._fixed: set[int] | None = None

    def heurexec(self, heurtiming, nodeinfeasible):
        if self.error is not None:
            return {"result": SCIP_RESULT.DIDNOTRUN}
        try:
            with self._clock():
                sol = self._proposal()
            if sol is None:
                return {"result": SCIP_RESULT.DIDNOTFIND}
            accepted = self.model.trySol(sol, printreason=False)   # runs the lazy check: not clocked here
        except Exception as exc:  # noqa: BLE001
            self._fail(exc)
            return {"result": SCIP_RESULT.DIDNOTRUN}
        self.n_found += bool(accepted)
        return {"result": SCIP_RESULT.FOUNDSOL if accepted else SCIP_RESULT.DIDNOTFIND}

    def _proposal(self):
        """The user's proposal at the current LP point as a SCIP solution (None without one)."""
        index = self.backend.sf.index
        proposal = self.callbacks.heuristic(Values(self.backend.values(None), index, is_integral=False))
        if proposal is None:
            return None
        sol = self.model.createSol(self)
        cols, vals = start_vector(self.backend.sf, proposal)
        fixed = self._fixed_columns()
        for j, val in zip(cols.tolist(), vals.tolist()):
            if j not in fixed:
                self.model.setSolVal(sol, self.backend.vars[j], val)
        return sol

    def _fixed_columns(self) -> set[int]:
        """Columns that presolve fixed: SCIP refuses another value for them, so a proposal keeps the fixed value
        there (``trySol`` then judges the whole solution; presolve may fix a variable by dual arguments that
        cut off some optimal solutions, such as a split indicator that can only help)."""
        if self._fixed is None:
            self._fixed = {j for j, var in enumerate(self.backend.vars)
                           if self.model.getTransformedVar(var).getStatus() == "FIXED"}
        return self._fixed
