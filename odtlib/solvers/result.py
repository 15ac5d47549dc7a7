"""The outcome of one `solve()` call, solver-independent and JSON-friendly."""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from odtlib._json import json_safe
from odtlib.solvers.trace import TracePoint, end_trace

STATUSES = ("optimal", "time_limit", "infeasible", "unbounded", "error")


@dataclass
class SolveResult:
    """What a solver returned, in one shape for every backend.

    Attributes
    ----------
    status : "optimal" | "time_limit" | "infeasible" | "unbounded" | "error"
        "optimal" means proved within the requested gap (``mip_gap``/``abs_gap``).
        "time_limit" may come with an incumbent (``has_solution``) or without one.
    objective : float | None
        Objective value of the incumbent loaded into the model (None without one).
    bound : float | None
        Best proved bound (a lower bound when minimising, an upper bound when maximising).
    gap : float | None
        ``|objective - bound| / max(|objective|, 1e-10)``, computed here the same way for every
        solver (0 when both are equal, None when either is missing).
    runtime : float
        Wall seconds of the whole `solve()` call: ``build_time + handoff_time + solve_time``.
    nodes : int | None
        Branch-and-bound nodes (summed over rounds of a restart loop; None if the solver does not say).
    n_lazy, n_cuts : int
        Lazy-constraint rows and user cuts added by callbacks.
    solver, solver_version : str
    build_time : float
        Seconds spent turning the Pyomo model into arrays (standard-form compilation).
    handoff_time : float
        Seconds spent passing the arrays to the solver until it is ready to run.
    solve_time : float
        Seconds inside the solver's run call(s), callbacks included, plus loading values back.
    rounds : int
        Solver runs: 1, or the number of rounds of the lazy-constraint restart loop.
    message : str
        The solver's own status text.
    extra : dict
        Backend-specific counters. SCIP: ``callback_seconds`` and ``callback_calls``, dicts with
        keys "lazy", "cut", "heuristic": wall seconds spent in the Python callbacks of that kind
        (reading the point, the user's method, handing its rows to SCIP; "lazy" covers the
        constraint handler's check, enforcement and separation; "heuristic" excludes SCIP's check
        of the proposal, whose lazy part is under "lazy") and how often they ran (0 for kinds not
        used). The rest of ``solve_time`` is SCIP itself. ``heuristic_solutions``: proposals of
        ``Callbacks.heuristic`` that SCIP accepted. Every backend: ``model_size`` (see the property),
        ``incumbent``, "solver" or "warm_start" (see ``from_warm_start``), and ``objective_sense``,
        "maximize" or "minimize". With callbacks: ``plugins``, each plug-in's own time, calls, checks and
        rows (``Callbacks.stats``; :class:`~odtlib.solvers.BranchAndCut` counts them), inside the backend's
        ``callback_seconds``, which adds the solver's side of the hand-over.
    trace : tuple of `TracePoint`
        The search trace: ``(time, incumbent, bound)`` points, seconds since the solver started and values in the
        model's sense, sorted by time; the last point is ``(.., objective, bound)`` (see `odtlib.solvers.trace`;
        ``odtlib.plotting.plot_search_progress`` draws it). ``to_dict`` writes it as a list of
        ``[time, incumbent, bound]`` lists. Empty for a result not made by ``solve()``.
    """

    status: str
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    runtime: float = 0.0
    nodes: int | None = None
    n_lazy: int = 0
    n_cuts: int = 0
    solver: str = ""
    solver_version: str = ""
    build_time: float = 0.0
    handoff_time: float = 0.0
    solve_time: float = 0.0
    rounds: int = 1
    message: str = ""
    extra: dict = field(default_factory=dict)
    trace: tuple[TracePoint, ...] = ()

    @property
    def model_size(self) -> dict | None:
        """Size of the model the solver got: ``variables``, ``binaries``, ``integers`` (non-binary), ``rows``,
        ``nonzeros`` (rows added by callbacks not included); None for a result not made by ``solve()``."""
        return self.extra.get("model_size")

    @property
    def from_warm_start(self) -> bool:
        """True when the loaded solution is the warm start, because the solver found no better incumbent
        (``extra["incumbent"] == "warm_start"``); ``bound`` is then still the solver's bound, if it had one."""
        return self.extra.get("incumbent") == "warm_start"

    @property
    def has_solution(self) -> bool:
        """True when an incumbent was found and its values were loaded into the model."""
        return self.objective is not None

    def restate_trace(self, value: Callable[[float], float] | None = None) -> None:
        """End ``trace`` at the current ``objective`` and ``bound``, after a model changed them: rounded the bound
        to the objective's step, or restated both on another scale, given as ``value`` (applied to every incumbent
        and bound of the trace first; it must be increasing, so that the sense, ``extra["objective_sense"]``,
        still holds). Earlier points are clipped as `odtlib.solvers.trace.end_trace` says."""
        if not self.trace:
            return
        points = [TracePoint(*p) for p in self.trace]
        if value is not None:
            points = [TracePoint(p.time, *(None if v is None else float(value(v)) for v in p[1:])) for p in points]
        sense = -1 if self.extra.get("objective_sense") == "maximize" else 1
        self.trace = end_trace(points, TracePoint(points[-1].time, self.objective, self.bound), sense)

    def to_dict(self) -> dict:
        """JSON-safe dict (infinities and NaN become None)."""
        return json_safe(asdict(self))


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """The gap as reported in `SolveResult.gap` (same formula for every solver)."""
    if objective is None or bound is None or not math.isfinite(bound):
        return None
    diff = abs(objective - bound)
    if diff <= 1e-9 * max(1.0, abs(objective)):
        return 0.0
    return diff / max(abs(objective), 1e-10)
