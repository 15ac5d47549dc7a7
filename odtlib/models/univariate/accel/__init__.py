"""Paper 003's accelerations of BendOCT, one small object per cut family or heuristic.

Keegan, Forbes, Corry & Abolghasemi (2025), Section 5. Each object has one job and is registered with
the master of :mod:`odtlib.models.univariate.regularized_bendoct`, so the paper's ablations are loops over switches:

* :class:`StrengthenedBendersCuts` -- separate: Benders cuts (11)-(12) (lazy, every solver);
* :class:`SolutionPolishing` -- propose: Algorithm 1, D2S on the subtree tails of a tree (warm start on
  every solver; SCIP heuristic during the search);
* :class:`EQPInequalities` -- model: EQP valid inequalities (16)-(22), added up front (every solver);
* :class:`PathBoundCuts` -- separate: Algorithm 2, cuts (23)-(26) at LP points;
* :class:`~odtlib.models.univariate.accel.d2s.Depth2Solver` -- D2S, the exact depth-2 subroutine both of the last use.

Each is a plug-in of :mod:`odtlib.solvers.plugins` (a lazy-row family, a cut family or a primal heuristic)
built from the fit's :class:`~odtlib.models.univariate._regularized.RegularizedContext`;
:class:`odtlib.solvers.BranchAndCut` runs them.
"""
from odtlib.models.univariate.accel.d2s import Depth2Solver
from odtlib.models.univariate.accel.eqp import EQP_FAMILIES, EQPInequalities, EQPSet, find_eqp_sets
from odtlib.models.univariate.accel.path_bound_cuts import PathBoundCuts
from odtlib.models.univariate.accel.polishing import SolutionPolishing
from odtlib.models.univariate.accel.strengthened_cuts import StrengthenedBendersCuts

__all__ = ["Depth2Solver", "EQP_FAMILIES", "EQPInequalities", "EQPSet", "find_eqp_sets", "PathBoundCuts",
           "SolutionPolishing", "StrengthenedBendersCuts"]
