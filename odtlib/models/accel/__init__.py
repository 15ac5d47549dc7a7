"""Paper 003's accelerations of BendOCT, one small object per cut family or heuristic.

Keegan, Forbes, Corry & Abolghasemi (2025), Section 5. Each object has one job and is registered with
the master of :mod:`odtlib.models.regularized_bendoct`, so the paper's ablations are loops over switches:

* :class:`StrengthenedBendersCuts` -- separate: Benders cuts (11)-(12) (lazy, every solver);
* :class:`SolutionPolishing` -- propose: Algorithm 1, D2S on the subtree tails of a tree (warm start on
  every solver; SCIP heuristic during the search);
* :class:`EQPInequalities` -- model: EQP valid inequalities (16)-(22), added up front (every solver);
* :class:`PathBoundCuts` -- separate: Algorithm 2, cuts (23)-(26) at fractional LP points (SCIP);
* :class:`BranchAndCut` -- the :class:`~odtlib.solvers.Callbacks` that runs the registered objects.
"""
from odtlib.models.accel.branch_and_cut import BranchAndCut
from odtlib.models.accel.eqp import EQP_FAMILIES, EQPInequalities, EQPSet, find_eqp_sets
from odtlib.models.accel.path_bound_cuts import PathBoundCuts
from odtlib.models.accel.polishing import SolutionPolishing
from odtlib.models.accel.strengthened_cuts import StrengthenedBendersCuts

__all__ = ["BranchAndCut", "EQP_FAMILIES", "EQPInequalities", "EQPSet", "find_eqp_sets", "PathBoundCuts",
           "SolutionPolishing", "StrengthenedBendersCuts"]
