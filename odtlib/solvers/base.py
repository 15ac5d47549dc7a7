"""The small interface every solver backend implements, and the errors of the solver layer."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from odtlib.solvers.callbacks import Callbacks, Row
from odtlib.solvers.standard_form import StandardForm
from odtlib.solvers.trace import TraceRecorder


class SolverNotAvailableError(RuntimeError):
    """The requested solver is known but its package/executable is not installed."""


def rejected_option(solver: str, name: str, value, reason: object = "") -> ValueError:
    """The error for a ``solver_options`` entry the solver does not accept."""
    return ValueError(f"{solver} rejected solver option {name!r} = {value!r}" + (f": {reason}" if reason else "")
                      + " (check the name and type in the solver's documentation)")


@dataclass
class SolveOptions:
    """Options of `solve()` after defaults are applied (``time_limit`` inf = none)."""

    time_limit: float = math.inf
    mip_gap: float = 0.0
    abs_gap: float = 0.0
    threads: int = 1
    seed: int = 0
    log: bool = False
    solver_options: dict = field(default_factory=dict)   # the solver's own parameters, applied last


@dataclass
class RunOutcome:
    """One solver run in solver-independent terms.

    status: "optimal" | "time_limit" | "infeasible" | "unbounded" | "error";
    x: incumbent column values (None without one); bound: best bound in the model's sense.
    """

    status: str
    x: np.ndarray | None = None
    bound: float | None = None
    nodes: int | None = None
    message: str = ""
    n_lazy: int = 0
    n_cuts: int = 0
    extra: dict = field(default_factory=dict)


class Backend:
    """A solver loaded with a `StandardForm`.

    Constructing it hands the arrays to the solver (timed as ``handoff_time``). Backends
    without native callbacks (``supports_callbacks = False``) are driven by the restart loop
    through `set_start`, `add_rows`, `run` and (for root cut rounds) `run_relaxation`.

    ``trace``: `solve()` attaches a `TraceRecorder` before the first run; a backend that sees incumbents or bounds
    during a run records them there (values in the model's sense). The restart loop detaches it while it runs,
    since a round's incumbents need not satisfy the lazy rows, and records its rounds itself.
    """

    name: str = ""
    supports_callbacks: bool = False
    reports_incumbents: bool = False  # run() honours on_incumbent
    branching_priorities: bool = False  # reads StandardForm.branch_priority
    tuning: dict = {}  # search strategy -> solver parameters that suit it (odtlib.solvers.solver_tuning)
    trace: TraceRecorder | None = None

    def __init__(self, sf: StandardForm, options: SolveOptions):
        self.sf = sf
        self.options = options

    @staticmethod
    def available() -> bool:
        """True when the solver's package/executable is installed."""
        raise NotImplementedError

    @staticmethod
    def version() -> str:
        raise NotImplementedError

    def set_start(self, cols: np.ndarray, vals: np.ndarray) -> None:
        """Offer a (possibly partial) MIP start."""
        raise NotImplementedError

    def add_rows(self, rows: list[Row]) -> None:
        """Add rows to the model for the next `run`."""
        raise NotImplementedError

    def run_relaxation(self, time_limit: float) -> RunOutcome | None:
        """Solve the LP relaxation of the current model (with the rows added so far); None when the
        backend cannot (the restart loop then skips its root cut rounds)."""
        return None

    def run(self, time_limit: float, callbacks: Callbacks | None = None, on_incumbent=None) -> RunOutcome:
        """Solve within ``time_limit`` seconds. ``on_incumbent(x) -> bool`` (optional, restart
        loop) is called on improving incumbents where the solver allows it; returning True
        interrupts the run."""
        raise NotImplementedError
