"""The search trace of a solve: incumbent and bound over time (``SolveResult.trace``).

A trace is a tuple of `TracePoint` (time, incumbent, bound), sorted by time:

* ``time``: seconds since the solver started, i.e. since the model was handed over (the clock of ``time_limit``;
  ``build_time`` and ``handoff_time`` of the result come before it);
* ``incumbent``: objective value of the best feasible point found so far, None before the first one;
* ``bound``: best proved bound so far (an upper bound when maximising, a lower bound when minimising), None before
  the solver has one.

Both values are in the model's own sense and include its constant, as ``SolveResult.objective`` and ``bound`` do,
so that a maximisation shows incumbents rising towards bounds that fall. Each point holds the best values known at
its time: a solver report that improves neither (by more than rounding noise, `VALUE_TOL`) is not recorded, so
consecutive points always differ. The last point holds the result's own ``objective`` and ``bound``, at
``solve_time`` or at the earlier time they were reached; optimality is proved where the two meet.

Who records what: SCIP an event handler (new best solutions, improvements of the dual bound), HiGHS its MIP
callbacks (improving solutions and the interrupt checks, which carry the dual bound; also from the forked child of
a time-limited run), Gurobi its MIP callback, the restart loop one point per round (and one per LP of its root cut
rounds); GLPK and CPLEX only the final point.

Size: every new incumbent is kept. A point that only improves the bound, within ``max(MIN_SPACING, SPACING *
elapsed)`` seconds of a previous bound-only point, replaces that point instead of adding one. The trace then
shows the bound a little later than it was proved (never earlier), and a run of an hour keeps about 220 bound-only
points however many nodes it solves (20 in its first 0.2 s, then one per 5 % of the elapsed time), about 10 kB
of JSON in a stored result.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import NamedTuple

SPACING = 0.05      # bound-only points closer than this fraction of the elapsed time are merged
MIN_SPACING = 0.01  # ... or closer than this many seconds
VALUE_TOL = 1e-9    # relative: smaller changes of the incumbent or bound are not recorded


class TracePoint(NamedTuple):
    """One point of a search trace (see the module docstring); stored as ``[time, incumbent, bound]``."""

    time: float
    incumbent: float | None
    bound: float | None


class TraceRecorder:
    """Collects the points of one solve, keeping the best incumbent and bound seen so far.

    ``sense`` is the model's (1 minimise, -1 maximise); ``origin`` the `time.perf_counter` value at which the solve
    started. ``on_change(time, incumbent, bound)``, if set, sees every improvement before it is stored: the forked
    HiGHS child passes them to its parent this way.
    """

    def __init__(self, sense: int, origin: float | None = None):
        self.sense = 1 if sense >= 0 else -1
        self.origin = time.perf_counter() if origin is None else origin
        self.points: list[TracePoint] = []
        self.on_change: Callable[[float, float | None, float | None], None] | None = None
        self._merge_last = False  # the last point only improved the bound (it may absorb the next such point)

    @property
    def best(self) -> TracePoint:
        """The last point, or an empty point before the first one."""
        return self.points[-1] if self.points else TracePoint(0.0, None, None)

    def now(self) -> float:
        """Seconds since the solve started."""
        return time.perf_counter() - self.origin

    def record(self, incumbent: float | None = None, bound: float | None = None, at: float | None = None) -> None:
        """Note a solver report (values in the model's sense; None or non-finite = nothing to report) at ``at``
        seconds since the start (default: now). Stored only when it improves the incumbent or the bound."""
        last = self.best
        new_incumbent = self._better(_finite(incumbent), last.incumbent, prefer_low=True)
        new_bound = self._better(_finite(bound), last.bound, prefer_low=False)
        if new_incumbent == last.incumbent and new_bound == last.bound:
            return
        at = self.now() if at is None else at
        at = max(at, last.time)
        if self.on_change is not None:
            self.on_change(at, new_incumbent, new_bound)
        point = TracePoint(at, new_incumbent, new_bound)
        bound_only = new_incumbent == last.incumbent
        if bound_only and self._merge_last and at - self.points[-2].time < self._spacing(at):
            self.points[-1] = point
            return
        self.points.append(point)
        self._merge_last = bound_only and len(self.points) > 1

    def mark(self) -> int:
        """A position to `rollback` to."""
        return len(self.points)

    def rollback(self, position: int) -> None:
        """Forget the points recorded since `mark` returned ``position`` (reports about a run that is redone)."""
        del self.points[position:]
        self._merge_last = False

    def finish(self, objective: float | None, bound: float | None, at: float) -> tuple[TracePoint, ...]:
        """The trace, ending with the result's values ``(objective, bound)`` at ``at`` seconds (see `end_trace`)."""
        return end_trace(self.points, TracePoint(max(at, self.best.time), objective, bound), self.sense)

    def _better(self, new: float | None, old: float | None, prefer_low: bool) -> float | None:
        """The better of two values: for incumbents the one with the better objective (``prefer_low`` in
        minimisation terms), for bounds the tighter one."""
        if new is None:
            return old
        if old is None:
            return new
        if abs(new - old) <= VALUE_TOL * max(1.0, abs(old)):   # rounding noise, not progress
            return old
        lower_wins = prefer_low == (self.sense == 1)
        return min(new, old) if lower_wins else max(new, old)

    @staticmethod
    def _spacing(at: float) -> float:
        return max(MIN_SPACING, SPACING * at)


def end_trace(points, final: TracePoint, sense: int) -> tuple[TracePoint, ...]:
    """``points`` followed by the result's own point ``final``, as ``SolveResult.trace`` holds them.

    ``final`` takes the place of a last point with the same values (whose earlier time is kept), and of a point
    at the same time (which it supersedes). Earlier points
    that claim a better incumbent or a tighter bound than ``final`` (solver reports the result does not keep,
    or a bound the model rounded afterwards) are clipped to its values, so the incumbents improve and the bounds
    tighten along the trace. Points with neither value are dropped: an infeasible model has an empty trace.
    ``sense`` is the model's (1 minimise, -1 maximise).
    """
    final = TracePoint(final.time, _finite(final.incumbent), _finite(final.bound))
    clipped = [_clipped(TracePoint(*p), final, sense) for p in points] + [final]
    known = [p for p in clipped if p.incumbent is not None or p.bound is not None]
    known = [p for i, p in enumerate(known) if i + 1 == len(known) or known[i + 1].time > p.time]
    return tuple(p for i, p in enumerate(known) if i == 0 or not _same_values(p, known[i - 1]))


def _clipped(point: TracePoint, final: TracePoint, sense: int) -> TracePoint:
    """``point`` with no better incumbent and no tighter bound than ``final`` has."""
    incumbent, bound = point.incumbent, point.bound
    if incumbent is not None and final.incumbent is not None and sense * incumbent < sense * final.incumbent:
        incumbent = final.incumbent
    if bound is not None and final.bound is not None and sense * bound > sense * final.bound:
        bound = final.bound
    return TracePoint(point.time, incumbent, bound)


def _finite(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _same_values(a: TracePoint, b: TracePoint) -> bool:
    return a.incumbent == b.incumbent and a.bound == b.bound
