"""HiGHS backend: the standard-form arrays go to ``Highs.passModel`` in one call.

HiGHS 1.15 has no lazy-constraint or user-cut callbacks (see notes/toolchain.md section 4), so
lazy constraints run through the restart loop; improving incumbents are checked during the
run (``cbMipImprovingSolution``) and a violated one interrupts it early. The restart loop's
root cut rounds solve the LP relaxation in place (`run_relaxation`: integrality switched off
for the run, then restored together with the MIP start, which the LP run would overwrite).

Time limits: HiGHS 1.15's MIP presolve does not check the time limit everywhere (HiGHS issues
#1501, #2478): on the 200k-binary model of bench/solver_handoff.py a 60 s limit ended after 779 s
with no LP solved, on its 50k-binary version a 10 s limit after 20-57 s; with HiGHS' option
``presolve="off"`` the same 50k model stopped at 5.1 s for a 5 s limit. ODT models (10^3-10^4
columns) are not affected in our tests.

A MIP start and presolve (HiGHS 1.16): HiGHS evaluates the start in its presolved model, where columns
presolve fixed take their fixed values, so the start can be worth more there than in the original model
(restart loop: a θ of a sample that no lazy row bounds yet is fixed at 1, while the start has θ = 0 for
a misclassified sample). HiGHS may then prove that presolved point optimal and hand back the start itself:
status optimal, bound 0.839, returned point worth 0.814 (RegularizedBendOCT, monk3, depth 3, λ = 0.04).
`run` detects a returned point whose objective differs from the one HiGHS reports and solves again
without presolve.

HiGHS' thread scheduler is global per process: when ``threads`` differs from the previous
solve in this process, the scheduler is reset first (otherwise HiGHS refuses to run).
"""
from __future__ import annotations

import logging
import math
import time

import numpy as np

from odtlib.solvers.base import Backend, RunOutcome, SolveOptions, rejected_option
from odtlib.solvers.standard_form import StandardForm

try:
    import highspy
except ImportError:  # pragma: no cover - highspy is a hard dependency of odtlib
    highspy = None

logger = logging.getLogger(__name__)

_ROWWISE = 2
OBJECTIVE_TOL = 1e-7   # relative: larger differences between HiGHS' objective and c @ x are not rounding
_scheduler_threads: int | None = None


def _reset_scheduler_if_needed(threads: int) -> None:
    global _scheduler_threads
    if _scheduler_threads is not None and _scheduler_threads != threads:
        highspy.Highs.resetGlobalScheduler(True)
    _scheduler_threads = threads


class HighsBackend(Backend):
    name = "highs"
    reports_incumbents = True

    def __init__(self, sf: StandardForm, options: SolveOptions):
        super().__init__(sf, options)
        _reset_scheduler_if_needed(options.threads)
        h = self.h = highspy.Highs()
        for key, val in {
            "output_flag": bool(options.log),
            "mip_rel_gap": options.mip_gap,
            "mip_abs_gap": options.abs_gap,
            "threads": int(options.threads),
            "random_seed": int(options.seed),
        }.items():
            h.setOptionValue(key, val)
        for key, val in options.solver_options.items():
            if h.setOptionValue(key, val) != highspy.HighsStatus.kOk:
                raise rejected_option("HiGHS", key, val)
        A = sf.A
        h.passModel(
            sf.n_cols, sf.n_rows, A.nnz, _ROWWISE, sf.sense, sf.c_offset,
            sf.c, sf.col_lb, sf.col_ub, sf.row_lb, sf.row_ub,
            A.indptr.astype(np.int32), A.indices.astype(np.int32), A.data.astype(float),
            sf.is_integer.astype(np.int32),
        )
        self._is_mip = bool(sf.is_integer.any())
        self._start: tuple[np.ndarray, np.ndarray] | None = None

    @staticmethod
    def available() -> bool:
        return highspy is not None

    @staticmethod
    def version() -> str:
        return highspy.Highs().version() if highspy is not None else ""

    def set_start(self, cols: np.ndarray, vals: np.ndarray) -> None:
        self._start = (cols.astype(np.int32), vals.astype(float))
        self.h.setSolution(len(self._start[0]), *self._start)

    def add_rows(self, rows) -> None:
        starts = np.cumsum([0] + [len(r.cols) for r in rows[:-1]]).astype(np.int32)
        self.h.addRows(
            len(rows),
            np.array([r.lb for r in rows]), np.array([r.ub for r in rows]),
            int(sum(len(r.cols) for r in rows)), starts,
            np.concatenate([r.cols for r in rows]).astype(np.int32),
            np.concatenate([r.coefs for r in rows]),
        )

    def run(self, time_limit: float, callbacks=None, on_incumbent=None) -> RunOutcome:
        started = time.perf_counter()
        outcome = self._run_once(time_limit, on_incumbent)
        if self._returned_another_point(outcome):
            # HiGHS proved a point of its presolved model but handed back the MIP start, whose objective
            # differs (see the module docstring): solve once more without presolve
            logger.info("HiGHS: returned solution has objective %.9g, HiGHS reports %.9g; re-solving "
                        "without presolve", self.sf.objective_value(outcome.x),
                        self.h.getInfo().objective_function_value)
            self.h.setOptionValue("presolve", "off")
            if self._start is not None:
                self.h.setSolution(len(self._start[0]), *self._start)
            try:
                outcome = self._run_once(max(time_limit - (time.perf_counter() - started), 0.0), on_incumbent)
            finally:
                self.h.setOptionValue("presolve", self.options.solver_options.get("presolve", "choose"))
        return outcome

    def _returned_another_point(self, outcome: RunOutcome) -> bool:
        """An optimal MIP run whose returned x does not have the objective value HiGHS reports for it."""
        if not (self._is_mip and outcome.status == "optimal" and outcome.x is not None):
            return False
        reported = self.h.getInfo().objective_function_value
        return abs(self.sf.objective_value(outcome.x) - reported) > OBJECTIVE_TOL * max(1.0, abs(reported))

    def _run_once(self, time_limit: float, on_incumbent) -> RunOutcome:
        h = self.h
        h.setOptionValue("time_limit", float(time_limit) if math.isfinite(time_limit) else math.inf)
        errors = []
        if on_incumbent is not None:
            def check(event):
                try:
                    stop = on_incumbent(np.asarray(event.data_out.mip_solution))
                except Exception as exc:  # noqa: BLE001 - highspy >= 1.16 swallows it into "Solve error"
                    errors.append(exc)
                    stop = True
                if stop:
                    event.interrupt()
            h.cbMipImprovingSolution.subscribe(check)
        try:
            h.run()
        finally:
            if on_incumbent is not None:
                h.cbMipImprovingSolution.unsubscribe(check)
        if errors:
            raise errors[0]
        return self._outcome()

    def run_relaxation(self, time_limit: float) -> RunOutcome:
        integer = np.flatnonzero(self.sf.is_integer).astype(np.int32)
        self._set_integrality(integer, highspy.HighsVarType.kContinuous)
        try:
            self._is_mip = False
            return self.run(time_limit)
        finally:
            self._is_mip = bool(len(integer))
            self._set_integrality(integer, highspy.HighsVarType.kInteger)
            if self._start is not None:
                self.h.setSolution(len(self._start[0]), *self._start)

    def _set_integrality(self, cols: np.ndarray, kind) -> None:
        if len(cols):
            self.h.changeColsIntegrality(len(cols), cols, np.full(len(cols), int(kind), dtype=np.uint8))

    def _outcome(self) -> RunOutcome:
        h = self.h
        ms = highspy.HighsModelStatus
        status = h.getModelStatus()
        info = h.getInfo()
        message = h.modelStatusToString(status)
        has_sol = info.primal_solution_status == highspy.kSolutionStatusFeasible
        x = np.asarray(h.getSolution().col_value, dtype=float) if has_sol else None
        nodes = int(info.mip_node_count) if self._is_mip else 0
        if self._is_mip:
            bound = float(info.mip_dual_bound)
        else:
            bound = float(info.objective_function_value) if status == ms.kOptimal else None
        if bound is not None and not math.isfinite(bound):
            bound = None
        if status == ms.kOptimal:
            return RunOutcome("optimal", x, bound, nodes, message)
        if status in (ms.kTimeLimit, ms.kInterrupt, ms.kHighsInterrupt, ms.kSolutionLimit,
                      ms.kIterationLimit):
            return RunOutcome("time_limit", x, bound, nodes, message)
        if status == ms.kInfeasible:
            return RunOutcome("infeasible", None, None, nodes, message)
        if status == ms.kUnbounded:
            return RunOutcome("unbounded", x, None, nodes, message)
        if status == ms.kUnboundedOrInfeasible:
            return RunOutcome(self._infeasible_or_unbounded(), None, None, nodes, message)
        return RunOutcome("error", x, bound, nodes, message)

    def _infeasible_or_unbounded(self) -> str:
        """HiGHS' presolve may not tell infeasible from unbounded: solve the feasibility
        problem (zero objective) to decide."""
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", int(self.options.threads))
        lp = self.h.getLp()
        lp.col_cost_ = np.zeros(lp.num_col_)
        h.passModel(lp)
        h.run()
        return "unbounded" if h.getModelStatus() == highspy.HighsModelStatus.kOptimal else "infeasible"
