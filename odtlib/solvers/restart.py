"""Lazy constraints on solvers without callbacks: the restart loop.

Round k solves the model with the lazy rows found so far (a relaxation of the full model),
separates the incumbent with ``callbacks.lazy`` and adds the violated rows; it stops when an
optimal incumbent violates nothing, which is then optimal for the full model. Where the
backend reports improving incumbents during a run (HiGHS), each one is separated at once and a
violated one interrupts the run, so a round does not prove optimality of a point that is
going to be cut off anyway; incumbents that satisfy every lazy row are remembered and offered
as the MIP start of the next round.

Root cut rounds: when the callbacks have a ``cut`` method (or ask for ``lazy`` at fractional
points), the loop first solves the LP relaxation, adds the rows they return that the LP point
violates, and repeats until a round adds nothing, the LP bound stops moving or `MAX_ROOT_ROUNDS`
is reached. The rows stay in the model for every later round (as SCIP keeps global cuts), so
the cut callback tightens the relaxation once, at the root, instead of at every node of a
branch-and-cut. Backends that cannot solve the relaxation skip this step.

The time limit covers the whole loop. On a time-out the best incumbent that satisfies every
lazy row (if any) is returned with the tightest bound of the rounds: a bound of a relaxation is a
valid bound for the full model. Correct, but much slower than single-tree branch-and-cut on SCIP.
The model without its lazy rows must be bounded (an unbounded relaxation is reported as
"unbounded").

Search trace (`odtlib.solvers.trace`): the backend's own recorder is set aside while the loop runs, because the
incumbents of a round may violate lazy rows not added yet. The loop records one point per LP of the root cut
rounds (its bound: the cuts are valid for the full model) and one per round: the best lazy-feasible incumbent so
far and the round's bound, at the time the round ended.
"""
from __future__ import annotations

import logging
import math
import time

import numpy as np

from odtlib.solvers.base import Backend, RunOutcome
from odtlib.solvers.callbacks import FEASIBILITY_TOL, Callbacks, Values, to_rows
from odtlib.solvers.trace import TraceRecorder

logger = logging.getLogger(__name__)


class _Separator:
    """Runs ``callbacks.lazy`` on a point and keeps the violated rows it has not added yet."""

    def __init__(self, backend: Backend, callbacks: Callbacks):
        self.backend, self.callbacks = backend, callbacks
        self.sf = backend.sf
        self.pending: dict[tuple, object] = {}
        self.best_x: np.ndarray | None = None
        self.best_obj = math.inf  # in minimisation terms: sense * objective

    def violated_rows(self, x: np.ndarray) -> list:
        rows = to_rows(self.callbacks.lazy(Values(x, self.sf.index)), self.sf.index)
        return [r for r in rows if r.violation(x) > FEASIBILITY_TOL]

    def on_incumbent(self, x: np.ndarray) -> bool:
        """Separate an improving incumbent; True (= interrupt) when it violates a lazy row."""
        violated = self.violated_rows(x)
        if violated:
            for r in violated:
                self.pending.setdefault(r.key(), r)
            return True
        self.remember_feasible(x)
        return False

    def best_objective(self) -> float | None:
        """Objective value (model's sense) of the best lazy-feasible point so far, None without one."""
        return None if self.best_x is None else self.sf.sense * self.best_obj

    def remember_feasible(self, x: np.ndarray) -> None:
        obj = self.sf.sense * self.sf.objective_value(x)
        if obj < self.best_obj:
            self.best_obj, self.best_x = obj, x.copy()


MAX_ROOT_ROUNDS = 50
ROOT_STALL_TOL = 1e-6   # a round that moves the LP bound by less (relative) ends the root rounds


def root_cut_rounds(backend: Backend, callbacks: Callbacks, deadline: float) -> tuple[int, int]:
    """Cut rounds on the LP relaxation (see the module docstring); returns (rows added, LP solves). Each LP
    bound goes to the backend's search trace, when it has one."""
    trace = backend.trace
    index = backend.sf.index
    added, solves, last_bound = 0, 0, None
    while solves < MAX_ROOT_ROUNDS and time.perf_counter() < deadline:
        out = backend.run_relaxation(max(deadline - time.perf_counter(), 0.0))
        if out is None or out.status != "optimal" or out.x is None:
            break
        solves += 1
        bound = out.bound
        if trace is not None:
            trace.record(bound=bound)
        if last_bound is not None and abs(bound - last_bound) <= ROOT_STALL_TOL * max(1.0, abs(bound)):
            break
        last_bound = bound
        values = Values(out.x, index, is_integral=False)
        constraints = list(callbacks.cut(values))
        if callbacks.lazy_at_fractional:
            constraints += list(callbacks.lazy(values))
        violated = {r.key(): r for r in to_rows(constraints, index) if r.violation(out.x) > FEASIBILITY_TOL}
        if not violated:
            break
        backend.add_rows(list(violated.values()))
        added += len(violated)
        logger.debug("root cut round %d: LP bound %.6g, %d rows", solves, bound, len(violated))
    return added, solves


def restart_loop(backend: Backend, callbacks: Callbacks, time_limit: float) -> tuple[RunOutcome, int]:
    """Enforce ``callbacks.lazy`` by re-solving, after root cut rounds when the callbacks have cuts;
    returns (outcome, number of MIP rounds). ``n_cuts`` of the outcome counts the root cut rows. The search trace
    gets one point per round (module docstring)."""
    deadline = time.perf_counter() + time_limit
    n_cuts = 0
    if callbacks.has_cut or callbacks.lazy_at_fractional:
        n_cuts, lp_solves = root_cut_rounds(backend, callbacks, deadline)
        logger.info("restart loop: %d root cut rows from %d LP solves", n_cuts, lp_solves)
    trace, backend.trace = backend.trace, None
    try:
        return _rounds(backend, callbacks, deadline, n_cuts, trace)
    finally:
        backend.trace = trace


def _rounds(backend: Backend, callbacks: Callbacks, deadline: float, n_cuts: int,
            trace: TraceRecorder | None) -> tuple[RunOutcome, int]:
    """The MIP rounds of `restart_loop`, with the backend's trace recorder set aside as ``trace``."""
    sep = _Separator(backend, callbacks)
    bounds = _BestBound(backend.sf.sense)
    n_lazy, nodes, rounds = 0, None, 0
    while True:
        rounds += 1
        remaining = max(deadline - time.perf_counter(), 0.0)
        if sep.best_x is not None:
            backend.set_start(np.arange(sep.sf.n_cols), sep.best_x)
        out = backend.run(remaining, on_incumbent=sep.on_incumbent if backend.reports_incumbents else None)
        if out.nodes is not None:
            nodes = (nodes or 0) + out.nodes
        if out.status in ("infeasible", "unbounded", "error"):
            if out.status == "infeasible" and sep.best_x is not None:
                out = RunOutcome("error", None, None, nodes, "restart loop: a lazy-feasible point "
                                 "was found but the relaxation became infeasible (inconsistent lazy rows?)")
            out.nodes, out.n_lazy, out.n_cuts = nodes, n_lazy, n_cuts
            return out, rounds
        bound = bounds.update(out.bound)
        if out.x is not None:
            if not sep.pending:  # the final incumbent was not checked by the hook (or there is no hook)
                violated = sep.violated_rows(out.x)
                for r in violated:
                    sep.pending.setdefault(r.key(), r)
                if not violated:
                    sep.remember_feasible(out.x)
        if trace is not None:
            trace.record(sep.best_objective(), bound)
        new_rows = list(sep.pending.values())
        sep.pending.clear()
        if new_rows:
            backend.add_rows(new_rows)
            n_lazy += len(new_rows)
        if out.status == "optimal" and not new_rows:
            return RunOutcome("optimal", out.x, out.bound, nodes, out.message, n_lazy=n_lazy, n_cuts=n_cuts), rounds
        if not new_rows or time.perf_counter() >= deadline:
            logger.info("restart loop: time limit after %d rounds, %d lazy rows", rounds, n_lazy)
            return (RunOutcome("time_limit", sep.best_x, bound, nodes, out.message, n_lazy=n_lazy, n_cuts=n_cuts),
                    rounds)
        logger.debug("restart loop: round %d added %d rows", rounds, len(new_rows))


class _BestBound:
    """The tightest of the rounds' bounds: each round solves a relaxation of the full model, so each of its
    bounds holds for the full model."""

    def __init__(self, sense: int):
        self.sense = sense
        self.value: float | None = None

    def update(self, bound: float | None) -> float | None:
        """Take a round's bound (None: it has none) and return the tightest so far."""
        if bound is not None and math.isfinite(bound):
            tighter = self.value is None or self.sense * bound > self.sense * self.value
            self.value = bound if tighter else self.value
        return self.value
