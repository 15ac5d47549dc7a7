"""Declared plug-ins for branch-and-cut: lazy-row families, cut families and primal heuristics.

A formulation that needs more than a plain MIP solve writes each piece of its separation logic as one small
object with one job, against the solver-neutral :class:`~odtlib.solvers.Values`:

* :class:`LazyRowFamily` -- rows the model needs but does not hold (Benders cuts): ``lazy(values)`` returns
  the rows violated by an integer candidate (and, with ``at_fractional``, by an LP point);
* :class:`CutFamily` -- valid inequalities that tighten the LP (shattering cuts, path-bound cuts):
  ``cut(values)`` returns the rows violated by a fractional LP point;
* :class:`PrimalHeuristic` -- ``heuristic(values)`` proposes a solution; ``observe(values)`` sees every integer
  candidate the solver checks (solution polishing works from those).

:class:`BranchAndCut` runs any number of each as one :class:`~odtlib.solvers.Callbacks` object, the one a
solver backend understands. It counts, for every plug-in, its calls, the rows it returned (or the solutions
it proposed) and its seconds, and adds the plug-in's own :meth:`~Plugin.stats`; :func:`odtlib.solvers.solve`
reports them as ``SolveResult.extra["plugins"]`` (:meth:`BranchAndCut.stats`). Which solvers run which
plug-ins natively, and which only emulate them, is answered by :func:`odtlib.solvers.capabilities`.

Example (paper 003's accelerated BendOCT)::

    callbacks = BranchAndCut(lazy=[benders], cuts=[path_bound_cuts], heuristics=[polishing])
    solve(model, solver="scip", callbacks=callbacks)
"""
from __future__ import annotations

import dataclasses
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence

from odtlib.solvers.callbacks import FEASIBILITY_TOL, Callbacks, Values, to_rows

__all__ = ["Plugin", "LazyRowFamily", "CutFamily", "PrimalHeuristic", "BranchAndCut", "PluginCounters"]


class Plugin(ABC):
    """What every plug-in shares: a name in the statistics and its own counters."""

    @property
    def name(self) -> str:
        """The plug-in's key in ``SolveResult.extra["plugins"]`` (default: its class name)."""
        return type(self).__name__

    def stats(self) -> dict:
        """The plug-in's own counters (e.g. LP solves of a separation), added to the uniform ones."""
        return {}


@dataclasses.dataclass
class PluginCounters:
    """The uniform statistics of one plug-in in one solve: calls (to separate or propose), rows returned
    (heuristics: solutions proposed), checks (a lazy family asked whether it rejects a candidate, SCIP's
    check of the solutions its own heuristics find) and the seconds of all of them."""

    calls: int = 0
    rows: int = 0
    checks: int = 0
    seconds: float = 0.0

    def timed(self, work, values, size=len):
        """``work(values)``, counted: one call, its seconds, and ``size`` of what it returned."""
        started = time.perf_counter()
        out = work(values)
        if size is len:
            out = list(out)
        self.calls += 1
        self.seconds += time.perf_counter() - started
        self.rows += size(out)
        return out

    def timed_check(self, check, values) -> bool:
        """``check(values)``, counted as one check and its seconds."""
        started = time.perf_counter()
        rejected = bool(check(values))
        self.checks += 1
        self.seconds += time.perf_counter() - started
        return rejected


class LazyRowFamily(Plugin):
    """A family of rows enforced lazily: the model is only correct once they hold.

    ``at_fractional``: the family can also separate fractional LP points (rows then act as cuts).
    """

    at_fractional: bool = False

    @abstractmethod
    def lazy(self, values: Values) -> list:
        """Rows of the family violated by ``values`` (empty when the point satisfies all of them)."""

    def rejects(self, values: Values) -> bool:
        """Whether the integer candidate ``values`` violates a row of the family. Override it when deciding
        is cheaper than building the rows (SCIP asks this of every solution its own heuristics find)."""
        return any(row.violation(values.x) > FEASIBILITY_TOL
                   for row in to_rows(self.lazy(values), values.column_index))


class CutFamily(Plugin):
    """A family of inequalities valid for (at least one) optimal solution, separated at LP points."""

    @abstractmethod
    def cut(self, values: Values) -> list:
        """Rows of the family violated by the LP point ``values``."""


class PrimalHeuristic(Plugin):
    """Proposes solutions during the search."""

    @abstractmethod
    def heuristic(self, values: Values):
        """A solution (Pyomo variable -> value pairs or a ComponentMap), or None."""

    def observe(self, values: Values) -> None:
        """See an integer candidate the solver checks (default: ignore it)."""


class BranchAndCut(Callbacks):
    """The callbacks of one solve, made of plug-ins.

    * ``lazy``: every :class:`LazyRowFamily` at integer candidates (and at LP points for the families with
      ``at_fractional``);
    * ``cuts``: every :class:`CutFamily` at fractional LP points;
    * ``heuristics``: after LP solves, the first proposal wins; each heuristic also observes every integer
      candidate the lazy check sees.

    ``cuts_at_integral_points``: the cut families also run at integer candidates, their rows returned with the
    lazy rows. A solver asks its cut callback only at fractional LP points; when the node LPs are integral in
    the structure variables and only the lazy rows are missing (many samples, few features), the search moves
    from integral point to integral point and the cuts would never run. The check of candidates
    (``rejects``) stays with the lazy families: feasibility does not depend on the cuts.

    On solvers without callbacks the cuts (and the lazy families with ``at_fractional``) run in cut rounds on
    the root LP, the lazy rows in a restart loop, and heuristics not at all
    (:func:`odtlib.solvers.capabilities`).
    """

    def __init__(self, lazy: Sequence[LazyRowFamily] = (), cuts: Sequence[CutFamily] = (),
                 heuristics: Sequence[PrimalHeuristic] = (), cuts_at_integral_points: bool = False):
        self.lazy_families = _checked(lazy, LazyRowFamily, "lazy")
        self.cut_families = _checked(cuts, CutFamily, "cuts")
        self.heuristics = _checked(heuristics, PrimalHeuristic, "heuristics")
        self.cuts_at_integral_points = cuts_at_integral_points
        self.lazy_at_fractional = any(family.at_fractional for family in self.lazy_families)
        self.counters = {id(p): PluginCounters() for p in self.plugins}

    @property
    def plugins(self) -> list[Plugin]:
        return [*self.lazy_families, *self.cut_families, *self.heuristics]

    def stats(self) -> dict[str, dict]:
        """Each plug-in's statistics, by name: ``calls``, ``rows`` (heuristics: solutions proposed), ``checks``,
        ``seconds`` (:class:`PluginCounters`) and the plug-in's own :meth:`Plugin.stats`. Two plug-ins of one
        name get "#2", "#3"."""
        out = {}
        for plugin in self.plugins:
            key, k = plugin.name, 2
            while key in out:
                key, k = f"{plugin.name}#{k}", k + 1
            counters = self.counters[id(plugin)]
            out[key] = {**dataclasses.asdict(counters), **plugin.stats()}
        return out

    def _run(self, plugin: Plugin, method, values: Values, size=len):
        return self.counters[id(plugin)].timed(method, values, size)

    @property
    def has_lazy(self) -> bool:
        return bool(self.lazy_families)

    @property
    def has_cut(self) -> bool:
        return bool(self.cut_families)

    @property
    def has_heuristic(self) -> bool:
        return bool(self.heuristics)

    def lazy(self, values: Values) -> list:
        families = self.lazy_families if values.is_integral else [f for f in self.lazy_families if f.at_fractional]
        rows = [row for family in families for row in self._run(family, family.lazy, values)]
        if values.is_integral:
            self._show_heuristics(values)
            if self.cuts_at_integral_points:
                rows += self.cut(values)
        return rows

    def rejects(self, values: Values) -> bool:
        self._show_heuristics(values)
        return any(self.counters[id(family)].timed_check(family.rejects, values) for family in self.lazy_families)

    def cut(self, values: Values) -> list:
        return [row for family in self.cut_families for row in self._run(family, family.cut, values)]

    def heuristic(self, values: Values):
        for heuristic in self.heuristics:
            proposal = self._run(heuristic, heuristic.heuristic, values, size=_is_proposal)
            if proposal:
                return proposal
        return None

    def _show_heuristics(self, values: Values) -> None:
        for heuristic in self.heuristics:
            heuristic.observe(values)


def _is_proposal(proposal) -> int:
    return int(proposal is not None and len(proposal) > 0)


def _checked(plugins: Sequence, kind: type, name: str) -> list:
    """The plug-ins as a list, each an instance of the declared ``kind``."""
    plugins = list(plugins)
    wrong = [type(p).__name__ for p in plugins if not isinstance(p, kind)]
    if wrong:
        raise TypeError(f"BranchAndCut({name}=...) takes {kind.__name__} objects, got {', '.join(wrong)}")
    return plugins
