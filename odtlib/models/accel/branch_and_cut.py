"""The callbacks of one BendOCT solve: lazy Benders cuts plus the registered cut families and heuristics."""
from __future__ import annotations

from collections.abc import Sequence

from odtlib.models.benders import MinCutBendersCuts
from odtlib.solvers import Callbacks, Values

__all__ = ["BranchAndCut"]


class BranchAndCut(Callbacks):
    """Runs ``benders.lazy`` at integer candidates, every ``cuts[j].cut`` at fractional LP points and the
    ``heuristics`` after node LPs (first proposal wins).

    Heuristics that work from integer points (solution polishing) see every integer candidate the lazy
    callback checks through their ``observe(values)`` method. ``lazy`` also runs at fractional points when
    the Benders cuts separate there (``benders.lazy_at_fractional``). On solvers without callbacks the
    cuts (and fractional Benders cuts) run in root LP rounds, then ``lazy`` in the restart loop.

    ``cuts_at_integral_points``: ``lazy`` also returns the rows of the cut families at integer candidates.
    A solver calls its cut callback only at fractional LP points; when the node LPs are integral in the tree
    variables and only θ is too optimistic (many samples, few features: car-evaluation), the search moves
    from integral tree to integral tree, each refuted by Benders cuts alone, and the path-bound cuts never
    run. The check of candidates (``rejects``) stays Benders-only: feasibility does not depend on them.
    """

    def __init__(self, benders: MinCutBendersCuts, cuts: Sequence = (), heuristics: Sequence = (),
                 cuts_at_integral_points: bool = False):
        self.benders = benders
        self.cuts = list(cuts)
        self.heuristics = list(heuristics)
        self.cuts_at_integral_points = cuts_at_integral_points
        self.lazy_at_fractional = benders.lazy_at_fractional

    @property
    def has_cut(self) -> bool:
        return bool(self.cuts)

    @property
    def has_heuristic(self) -> bool:
        return bool(self.heuristics)

    def lazy(self, values: Values) -> list:
        rows = self.benders.lazy(values)
        if values.is_integral:
            self._show_heuristics(values)
            if self.cuts_at_integral_points:
                rows += self.cut(values)
        return rows

    def rejects(self, values: Values) -> bool:
        """SCIP's check of a candidate it found itself: the Benders separation answers it without building
        rows (the default would build every violated cut, measured 57% of a car-evaluation solve)."""
        self._show_heuristics(values)
        return self.benders.rejects(values)

    def _show_heuristics(self, values: Values) -> None:
        """Let the heuristics that work from integer points (polishing) see an integer candidate."""
        for heuristic in self.heuristics:
            heuristic.observe(values)

    def cut(self, values: Values) -> list:
        return [row for family in self.cuts for row in family.cut(values)]

    def heuristic(self, values: Values):
        for heuristic in self.heuristics:
            proposal = heuristic.heuristic(values)
            if proposal:
                return proposal
        return None
