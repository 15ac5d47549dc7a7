"""What each solver can do with plug-ins, and the solver-specific tuning the models may ask for.

:func:`capabilities` answers, for one solver, how it runs each kind of plug-in of
:mod:`odtlib.solvers.plugins`:

==========  ========================  =============================  =================  ====================
solver      lazy rows                 cuts                           heuristics         branching priorities
==========  ========================  =============================  =================  ====================
scip        native (constraint        native (separator at every     native             yes
            handler)                  node LP)
highs       restart loop              root rounds (LP relaxation)    none               no
glpk        restart loop              root rounds (LP relaxation)    none               no
gurobi      restart loop              none                           none               yes
cplex       restart loop              none                           none               yes
==========  ========================  =============================  =================  ====================

"restart loop": the model is re-solved with the violated lazy rows added until the incumbent satisfies them
(:mod:`odtlib.solvers.restart`). "root rounds": cuts are separated on the root LP relaxation before the
first MIP run; deeper in the search they are not.

**The estimators' policy** (one rule, applied by :class:`odtlib.models.MIPTreeClassifier`): a switch that
needs a capability runs in the best way the solver offers. When that way is an emulation (restart loop,
root rounds) the fit warns once with :class:`SolverCapabilityWarning` naming what is lost; when the solver
offers no way at all, ``fit`` raises ValueError naming a solver that has it.

:func:`solver_tuning` returns solver parameters that a model's search strategy benefits from on one solver
(e.g. top-down branching on SCIP), so that no model module holds a solver's parameter names.

:func:`check_solvers` is the first code cell of every notebook: it prints each solver the notebook needs with
its version, and stops with the install instructions when one is missing.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from odtlib.solvers.base import Backend, SolverNotAvailableError

__all__ = ["SolverCapabilities", "SolverCapabilityWarning", "capabilities", "check_solvers", "solver_tuning", "NATIVE",
           "EMULATED", "MISSING"]

NATIVE, EMULATED, MISSING = "native", "emulated", "missing"


class SolverCapabilityWarning(UserWarning):
    """A switch runs in a weaker form on the chosen solver (see :func:`capabilities`)."""


@dataclass(frozen=True)
class SolverCapabilities:
    """How one solver runs each kind of plug-in: ``NATIVE``, ``EMULATED`` or ``MISSING``, with the way.

    ``how`` maps each kind ("lazy", "cuts", "heuristics") to a short description of the way it runs.
    """

    solver: str
    lazy: str
    cuts: str
    heuristics: str
    branching_priorities: bool
    how: dict

    def level(self, kind: str) -> str:
        """``NATIVE``, ``EMULATED`` or ``MISSING`` for kind "lazy", "cuts" or "heuristics"."""
        if kind not in ("lazy", "cuts", "heuristics"):
            raise ValueError(f"unknown plug-in kind {kind!r}; expected 'lazy', 'cuts' or 'heuristics'")
        return getattr(self, kind)


def _backend_type(solver: str) -> type[Backend]:
    """The backend class of a solver name, whether or not the solver is installed."""
    from odtlib.solvers.core import _BACKENDS, SOLVERS

    if not isinstance(solver, str) or solver.lower() not in _BACKENDS:
        raise ValueError(f"unknown solver {solver!r}; known solvers: {', '.join(SOLVERS)}")
    module, cls_name, _ = _BACKENDS[solver.lower()]
    return getattr(importlib.import_module(module), cls_name)


def capabilities(solver: str) -> SolverCapabilities:
    """How ``solver`` runs lazy rows, cuts and heuristics (see the module docstring's table)."""
    cls = _backend_type(solver)
    if cls.supports_callbacks:
        return SolverCapabilities(cls.name, NATIVE, NATIVE, NATIVE, cls.branching_priorities,
                                  {"lazy": "constraint handler", "cuts": "separator at every node LP",
                                   "heuristics": "primal heuristic after LP solves"})
    root_rounds = cls.run_relaxation is not Backend.run_relaxation
    return SolverCapabilities(cls.name, EMULATED, EMULATED if root_rounds else MISSING, MISSING,
                              cls.branching_priorities,
                              {"lazy": "restart loop", "cuts": "root LP rounds only" if root_rounds else "not run",
                               "heuristics": "not run"})


def solver_tuning(solver: str, strategy: str) -> dict:
    """The solver parameters that suit a model's search ``strategy`` on ``solver`` ({} when none)."""
    return dict(_backend_type(solver).tuning.get(strategy, {}))


def check_solvers(solvers: Iterable[str], echo: Callable[[str], object] = print) -> dict[str, str]:
    """Check that the solvers a notebook needs are installed, printing one line per solver.

    Parameters
    ----------
    solvers : iterable of str
        Solver names of :data:`odtlib.solvers.SOLVERS`; repeated names are checked once.
    echo : callable, default print
        Receives each line: ``"highs: available, version 1.16.0"`` or ``"glpk: MISSING, solver 'glpk' needs ..."``.

    Returns
    -------
    dict
        Solver name -> version, for the solvers found.

    Raises
    ------
    SolverNotAvailableError
        When any solver is missing, after every line is printed; the message names, for each missing solver,
        the package to install (``pip install highspy``, ``apt-get install glpk-utils``, ...).
    ValueError
        For a name that is not a solver of this library.
    """
    from odtlib.solvers.core import backend_class, solver_version

    versions, missing = {}, []
    for name in dict.fromkeys(solver.lower() for solver in solvers):
        try:
            backend = backend_class(name)
        except SolverNotAvailableError as error:
            missing.append(str(error))
            echo(f"{name}: MISSING, {error}")
            continue
        versions[name] = solver_version(backend)
        echo(f"{name}: available, version {versions[name]}")
    if missing:
        raise SolverNotAvailableError("this notebook needs a solver that is not installed: " + "; ".join(missing)
                                      + ". Install it and restart the kernel, or choose another solver in the "
                                        "parameters cell.")
    return versions
