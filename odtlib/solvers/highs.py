"""HiGHS backend: the standard-form arrays go to ``Highs.passModel`` in one call.

HiGHS 1.15 has no lazy-constraint or user-cut callbacks (see notes/toolchain.md section 4), so
lazy constraints run through the restart loop; improving incumbents are checked during the
run (``cbMipImprovingSolution``) and a violated one interrupts it early. The restart loop's
root cut rounds solve the LP relaxation in place (`run_relaxation`: integrality switched off
for the run, then restored together with the MIP start, which the LP run would overwrite).

Time limits. ``time_limit`` covers the solver run only: `run` / `run_relaxation` from the moment
they are called until they return. Compiling the Pyomo model to arrays and handing them to HiGHS
(``build_time``, ``handoff_time`` of the result) come before it and are not covered. HiGHS does not
check its limit everywhere (HiGHS issues #1501, #2478): on the 200k-binary model of
bench/solver_handoff.py HiGHS 1.16 was still in its MIP set-up (objective clique partition, after
presolve) 460 s into a run with a 10 s limit, and with ``presolve="off"`` in its feasibility-jump
heuristic. A C++ call stuck in such a phase cannot be stopped from inside the process (highspy's
``cancelSolve`` only acts where HiGHS polls its interrupt callbacks, as it does its clock). A run with a
finite limit therefore runs in a forked child process (the loaded model is inherited, nothing is copied up
front): the child reports every improving incumbent, every improvement of the search trace and, about once a
second, the dual bound and node count through a pipe, and sends the final outcome when HiGHS returns. If HiGHS
has not returned `KILL_GRACE` seconds after the limit, the child is killed and the run ends with status
"time_limit", the last incumbent and bound it reported, a message that says so and
``extra["highs_killed"] = True`` (200k model, 10 s limit: 12.2 s, see bench/README.md). Runs
without a limit stay in this process. The incumbent hook of the restart loop (``on_incumbent``) runs
in this process; HiGHS waits for its answer, as it does in-process. A child starts from the model as
passed, so an LP run does not warm-start from the previous run's basis. A fork costs time per run: a
bare fork of a test process took 26 ms, a 12-item knapsack solve 101 ms instead of 44 ms (loaded
2-core machine). The restart loop starts one more run after a killed one (with 0 s left), so its
worst case is the limit + 2 x `KILL_GRACE`. Needs ``os.fork`` (Linux, macOS); elsewhere every run
stays in this process and the limit is HiGHS' own.

A MIP start and presolve (HiGHS 1.16): HiGHS evaluates the start in its presolved model, where columns
presolve fixed take their fixed values, so the start can be worth more there than in the original model
(restart loop: a θ of a sample that no lazy row bounds yet is fixed at 1, while the start has θ = 0 for
a misclassified sample). HiGHS may then prove that presolved point optimal and hand back the start itself:
status optimal, bound 0.839, returned point worth 0.814 (RegularizedBendOCT, monk3, depth 3, λ = 0.04).
`run` detects a returned point whose objective differs from the one HiGHS reports and solves again
without presolve.

HiGHS' thread scheduler is global per process and keeps the thread count of the run that started it; a run
whose ``threads`` differs then refuses to start (status "error"). Other ``Highs`` objects of the process (the
LPs of shattering cuts or of data selection) can start or restart it at any time, so the scheduler is reset
before every run (microseconds when idle). A forked child gets the same reset (the parent's worker threads
do not exist in the child).

Output: with ``log=False`` nothing reaches stdout. HiGHS prints its banner from the first ``Highs``
of a process, before any option can be set, so `new_highs` points file descriptor 1 at /dev/null
while it constructs that first instance (output of other threads during that moment is lost too).
"""
from __future__ import annotations

import contextlib
import ctypes
import logging
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import warnings

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
KILL_GRACE = 2.0       # seconds past the time limit before a run that has not returned is killed
PROGRESS_INTERVAL = 1.0  # seconds between the bound reports of a child run
_CAN_FORK = hasattr(os, "fork")
_LIBC = ctypes.CDLL(None) if os.name == "posix" else None
_banner_lock = threading.Lock()
_banner_printed = False


def _flush_stdio() -> None:
    """Flush Python's and C's stdout/stderr buffers (HiGHS writes through C stdio)."""
    sys.stdout.flush()
    sys.stderr.flush()
    if _LIBC is not None:
        _LIBC.fflush(None)


@contextlib.contextmanager
def _stdout_to_devnull():
    """Point file descriptor 1 at /dev/null for the duration of the block."""
    _flush_stdio()
    saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        yield
    finally:
        _flush_stdio()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def new_highs(log: bool = False) -> highspy.Highs:
    """A ``Highs`` with ``output_flag=log``; with ``log=False`` not even the banner that HiGHS
    prints when the first instance of a process is constructed reaches stdout."""
    global _banner_printed
    with _banner_lock:
        if log or _banner_printed:
            h = highspy.Highs()
        else:
            with _stdout_to_devnull():
                h = highspy.Highs()
        _banner_printed = True
    h.setOptionValue("output_flag", bool(log))
    return h


def run_with_fresh_scheduler(h) -> None:
    """``h.run()`` after a reset of HiGHS' global thread scheduler (module docstring)."""
    highspy.Highs.resetGlobalScheduler(True)
    h.run()


def _kept_errors(callback, errors: list):
    """``callback`` as a HiGHS Python callback whose exceptions survive the run: highspy turns an exception
    raised in a callback into the status "Solve error", which would hide a bug, a Ctrl-C (KeyboardInterrupt) or
    a test's timeout. The first exception (any BaseException) is kept in ``errors`` and the run interrupted;
    the caller re-raises it once HiGHS has returned."""

    def kept(event):
        if errors:
            event.interrupt()
            return
        try:
            callback(event)
        except BaseException as exc:  # noqa: BLE001 - re-raised by the caller after the run
            errors.append(exc)
            event.interrupt()

    return kept

class HighsBackend(Backend):
    name = "highs"
    reports_incumbents = True

    def __init__(self, sf: StandardForm, options: SolveOptions):
        super().__init__(sf, options)
        h = self.h = new_highs(options.log)
        for key, val in {
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
        self._reported_objective = math.nan  # HiGHS' objective value of the last run

    @staticmethod
    def available() -> bool:
        return highspy is not None

    @staticmethod
    def version() -> str:
        return new_highs().version() if highspy is not None else ""

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
        trace_mark = self.trace.mark() if self.trace is not None else 0
        outcome = self._run_once(time_limit, on_incumbent)
        if self._returned_another_point(outcome):
            # HiGHS proved a point of its presolved model but handed back the MIP start, whose objective
            # differs (see the module docstring): solve once more without presolve
            logger.info("HiGHS: returned solution has objective %.9g, HiGHS reports %.9g; re-solving "
                        "without presolve", self.sf.objective_value(outcome.x),
                        self.h.getInfo().objective_function_value)
            self.h.setOptionValue("presolve", "off")
            if self.trace is not None:  # its incumbents were valued in the presolved model
                self.trace.rollback(trace_mark)
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
        reported = self._reported_objective
        return abs(self.sf.objective_value(outcome.x) - reported) > OBJECTIVE_TOL * max(1.0, abs(reported))

    def _run_once(self, time_limit: float, on_incumbent) -> RunOutcome:
        """One HiGHS run: in a child process when there is a limit to enforce (module docstring)."""
        if math.isfinite(time_limit) and _CAN_FORK:
            return self._run_in_child(time_limit, on_incumbent)
        return self._run_here(time_limit, on_incumbent)

    def _run_here(self, time_limit: float, on_incumbent=None, on_progress=None) -> RunOutcome:
        """Run HiGHS in this process. ``on_incumbent(x) -> bool`` sees improving incumbents (True
        interrupts the run); ``on_progress(bound, nodes)`` is called from HiGHS' interrupt checks.
        Both callbacks also feed the search trace (``self.trace``), when there is one, on a MIP."""
        h = self.h
        h.setOptionValue("time_limit", float(time_limit) if math.isfinite(time_limit) else math.inf)
        errors = []
        subscriptions = []
        trace = self.trace if self._is_mip else None
        if on_incumbent is not None or trace is not None:
            def check(event):
                if trace is not None:
                    trace.record(incumbent=event.data_out.objective_function_value)
                if on_incumbent is not None and on_incumbent(np.asarray(event.data_out.mip_solution)):
                    event.interrupt()
            subscriptions.append((h.cbMipImprovingSolution, _kept_errors(check, errors)))
        if on_progress is not None or trace is not None:
            def progress(event):
                out = event.data_out
                if trace is not None:
                    trace.record(incumbent=out.mip_primal_bound, bound=out.mip_dual_bound)
                if on_progress is not None:
                    on_progress(float(out.mip_dual_bound), int(out.mip_node_count))
            subscriptions.append((h.cbMipInterrupt, _kept_errors(progress, errors)))
        for callback, fn in subscriptions:
            callback.subscribe(fn)
        try:
            run_with_fresh_scheduler(h)
        finally:
            for callback, fn in subscriptions:
                callback.unsubscribe(fn)
        if errors:
            raise errors[0]
        self._reported_objective = float(h.getInfo().objective_function_value)
        return self._outcome()

    def _run_in_child(self, time_limit: float, on_incumbent) -> RunOutcome:
        """Run HiGHS in a forked child and kill it `KILL_GRACE` s after ``time_limit`` if it has not
        returned; incumbents and bounds it reported on the way are kept (module docstring)."""
        kill_at = time.perf_counter() + time_limit + KILL_GRACE
        ours, theirs = multiprocessing.Pipe()
        _flush_stdio()  # or the child would write our buffered output a second time
        with warnings.catch_warnings():  # Python >= 3.12 warns about forking a threaded process;
            warnings.simplefilter("ignore", DeprecationWarning)  # the child only runs HiGHS
            pid = os.fork()
        if pid == 0:
            ours.close()
            _child_main(self, theirs, time_limit, ask_parent=on_incumbent is not None)
        theirs.close()
        returned = False
        try:
            outcome = self._follow_child(ours, pid, kill_at, time_limit, on_incumbent)
            returned = "highs_killed" not in outcome.extra
            return outcome
        finally:
            ours.close()
            _reap(pid, kill=not returned)

    def _follow_child(self, conn, pid: int, kill_at: float, time_limit: float, on_incumbent) -> RunOutcome:
        """Handle the child's messages until its outcome arrives, it dies or ``kill_at`` passes."""
        last = RunOutcome("time_limit", nodes=None if self._is_mip else 0)
        while True:
            if not conn.poll(max(kill_at - time.perf_counter(), 0.0)):
                return _killed_outcome(last, time_limit)
            try:
                kind, *payload = conn.recv()
            except EOFError:
                code = _reap(pid, kill=False)
                return RunOutcome("error", last.x, last.bound, last.nodes,
                                  f"the HiGHS child process ended without a result (exit status {code})")
            if kind == "incumbent":
                last.x = payload[0]
                if on_incumbent is not None:
                    conn.send(bool(on_incumbent(last.x)))
            elif kind == "progress":
                last.bound, last.nodes = payload
            elif kind == "trace":
                if self.trace is not None:
                    self.trace.record(*payload)
            elif kind == "done":
                outcome, self._reported_objective = payload
                return outcome
            else:  # "error": an exception in the child, as text
                raise RuntimeError(f"HiGHS child process failed: {payload[0]}")

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
        h = new_highs()
        h.setOptionValue("threads", int(self.options.threads))
        lp = self.h.getLp()
        lp.col_cost_ = np.zeros(lp.num_col_)
        h.passModel(lp)
        run_with_fresh_scheduler(h)
        return "unbounded" if h.getModelStatus() == highspy.HighsModelStatus.kOptimal else "infeasible"


def _killed_outcome(last: RunOutcome, time_limit: float) -> RunOutcome:
    """The outcome of a child run killed after the limit: what it reported before."""
    message = (f"time limit reached; HiGHS had not returned {KILL_GRACE:g} s after the {time_limit:g} s limit "
               "(a phase that does not check it, HiGHS issues #1501, #2478), so its process was killed")
    logger.warning("HiGHS: %s", message)
    bound = last.bound if last.bound is not None and math.isfinite(last.bound) else None
    return RunOutcome("time_limit", last.x, bound, last.nodes, message, extra={"highs_killed": True})


def _reap(pid: int, kill: bool) -> int | None:
    """Collect the child ``pid`` (killing it first if ``kill``); its exit code (negative: the signal
    that ended it), None when it was already collected."""
    if kill:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    try:
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    except ChildProcessError:
        return None


class _ChildReporter:
    """The child's side of the pipe: incumbents (answered by the parent when it has a hook) and bounds."""

    def __init__(self, conn, ask_parent: bool):
        self.conn, self.ask_parent = conn, ask_parent
        self.next_progress = 0.0

    def trace_point(self, at: float, incumbent: float | None, bound: float | None) -> None:
        """Pass an improvement of the search trace to the parent, whose recorder keeps it."""
        self.conn.send(("trace", incumbent, bound, at))

    def incumbent(self, x: np.ndarray) -> bool:
        self.conn.send(("incumbent", x))
        return self.conn.recv() if self.ask_parent else False

    def progress(self, bound: float, nodes: int) -> None:
        now = time.monotonic()
        if now >= self.next_progress:
            self.next_progress = now + PROGRESS_INTERVAL
            self.conn.send(("progress", bound, nodes))


def _child_main(backend: HighsBackend, conn, time_limit: float, ask_parent: bool) -> None:
    """Body of a forked child: run HiGHS, send the outcome, exit without returning to the caller."""
    code = 0
    try:
        reporter = _ChildReporter(conn, ask_parent)
        if backend.trace is not None:
            backend.trace.on_change = reporter.trace_point
        outcome = backend._run_here(time_limit, reporter.incumbent, reporter.progress)
        conn.send(("done", outcome, backend._reported_objective))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it
        code = 1
        with contextlib.suppress(Exception):
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        with contextlib.suppress(Exception):
            _flush_stdio()
        os._exit(code)
