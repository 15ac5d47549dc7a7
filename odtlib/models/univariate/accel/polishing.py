"""Solution polishing, the primal heuristic of paper 003 (Section 5.2, Algorithm 1).

Take a tree, cut it into subtree *tails*: the nodes n of height h(n) <= 2 in the sparse tree whose parent is
taller (or n is the root). The samples reaching a tail root only depend on the branches above it, so the tail
can be replaced by the optimal sparse subtree of depth <= 2 on those samples (D2S with the per-leaf penalty
α = |I|·λ in sample counts) without touching the rest; the objective cannot get worse. D2S results are
cached by sample subset (:class:`~odtlib.models.univariate.accel.d2s.Depth2Solver`), which the path to the tail root
determines, so repeated incumbents cost little.

On SCIP the heuristic sees every integer candidate the lazy callback checks (:meth:`observe`, whether or
not the Benders cuts reject it -- the paper's "check validity = false") and, at the next node LP, polishes
the last one it saw and proposes the result if it beats the best tree proposed so far by more than 0.1 %
(the paper's threshold, relative to the incumbent; the callback cannot read SCIP's incumbent, so the best
tree it knows stands in). LP points themselves are not rounded.

The heuristic holds the fit's master formulation (:class:`~odtlib.models.univariate.regularized_bendoct.BendOCTMaster`):
its ``ctx`` gives the data, λ and D2S, its ``model`` the master's columns, and its ``tree_values(tree)`` the values
of every master variable for a proposed tree. :meth:`SolutionPolishing.stats` reports the trees polished and
D2S's cache.

**Point weights** (derived in :mod:`odtlib.models.univariate.regularized_bendoct`): D2S counts the weights with
α = W·λ, so each tail is replaced by the subtree of the largest weighted share of (1) on the points reaching it and
the weighted (1) cannot get worse; trees are compared by the weighted (1).
"""
from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

import numpy as np

from odtlib.models.univariate._sparse_tree import SparseTree, TreeColumns
from odtlib.solvers import PrimalHeuristic, Values

if TYPE_CHECKING:
    from odtlib.models.univariate.regularized_bendoct import BendOCTMaster

__all__ = ["SolutionPolishing"]


class SolutionPolishing(PrimalHeuristic):
    """Algorithm 1 on a :class:`~odtlib.models.univariate._sparse_tree.SparseTree` (:meth:`polish`) and as a heuristic.

    ``master``: the fit's master formulation, whose ``tree_values(tree)`` turns a tree into values of every master
    variable (the proposal). ``min_gain``: the relative improvement a proposal needs (the paper's 0.1 %).
    """

    def __init__(self, master: BendOCTMaster, min_gain: float = 1e-3):
        self.master = master
        self.ctx = master.ctx
        self.columns = TreeColumns(master.model)
        self.min_gain = min_gain
        self.best = -np.inf
        self._pending: SparseTree | None = None
        self.n_polished = 0

    # ------------------------------------------------------------------ Algorithm 1
    def tail_roots(self, tree: SparseTree) -> list[int]:
        """Nodes of height <= 2 whose parent is taller than 2 (or the root itself)."""
        h = tree.heights()
        return [n for n in h if h[n] <= 2 and (n == 1 or h[n // 2] > 2)]

    def polish(self, tree: SparseTree) -> SparseTree:
        """Replace every tail by the optimal D2S subtree on the samples that reach it."""
        terminal = tree.terminal(self.ctx.X01)
        levels = node_level(terminal)
        for n in self.tail_roots(tree):
            level = n.bit_length() - 1
            reaches = (levels >= level) & ((terminal >> np.maximum(levels - level, 0)) == n)
            best = self.ctx.d2s.solve(reaches, depth=min(2, self.ctx.depth - level),
                                      leaf_penalty=self.ctx.alpha)
            tree = tree.replace_subtree(n, *best.subtree.placed_at(n))
        self.n_polished += 1
        return tree

    def value(self, tree: SparseTree) -> float:
        return tree.objective(self.ctx.X01, self.ctx.y, self.ctx.leaf_penalty, self.ctx.sample_weight)

    # ------------------------------------------------------------------ heuristic callback
    def observe(self, values: Values) -> None:
        """Remember an integer candidate (called by the lazy callback)."""
        if values.is_integral:
            self._pending = self.columns.tree(values)

    def heuristic(self, values: Values):
        """Polish the last observed candidate; propose it when it improves the best known tree."""
        if self._pending is None:
            return None
        tree, self._pending = self.polish(self._pending), None
        value = self.value(tree)
        if np.isfinite(self.best) and value <= self.best + self.min_gain * abs(self.best):
            return None
        self.best = value
        return self.master.tree_values(tree)

    def stats(self) -> dict:
        """The trees this heuristic polished and the statistics of D2S's cache (shared with the path-bound cuts)."""
        d2s = self.ctx.d2s_info()
        return {"polished": self.n_polished, **({"d2s": asdict(d2s)} if d2s is not None else {})}


def node_level(nodes: np.ndarray) -> np.ndarray:
    """Depth of each node id in a BFS-numbered tree (root = 0)."""
    return np.floor(np.log2(nodes)).astype(np.int64)
