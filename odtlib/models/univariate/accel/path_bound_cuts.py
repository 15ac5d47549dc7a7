"""Path-bound cutting planes (PBCP) of paper 003 (Section 5.4, Algorithm 2).

At a fractional LP point, follow the *integral paths* from the root: while a node branches integrally
(b_nf > 1 - 1e-4), both children are visited, with the samples that go there. Every visited node n whose
height in the full tree is >= 2 is a candidate, and so is the root whatever its height (the empty path): the
whole tree of a depth-1 master is bounded too, by D2S at depth 1; paths are not extended below nodes of
height 2. For a candidate with samples I_P, D2S gives the best subtree of depth <= min(2, height) on I_P under
the leaf penalty α = |I|·λ (value OPT_P, correct set C_P). If the LP's value on the subtree,
Σ_{i∈I_P} θ_i - α·Σ_{m∈D[n]} p_m, exceeds OPT_P + 1e-4, the subtree is bounded by D2S unless the relaxing
term (23) is >= 1:

    R_P = Σ_{(n_j, f_j) on P} (Σ_{f≠f_j} b_{n_j f} + p_{n_j}) + Σ_{m more than 2 levels below n} p_m

(a different branch on the path, a leaf on the path, or a leaf below the depth-2 subtree). Cuts:

* (24) Σ_{i∈I_P} θ_i <= |C_P| + (|I_P| - |C_P|)·R_P, or with ``bound_negative_samples``
* (25) Σ_{i∈I_P \\ C_P} θ_i <= |I_P \\ C_P|·R_P (the samples D2S misclassifies stay misclassified);
* (26) with ``bound_structure``: the subtree at n takes D2S's structure (branch nodes Br*, leaves Lf*):
  Σ_{m∈Br*} (Σ_{f≠f*_m} b_mf + p_m) + Σ_{m∈Lf*} (Σ_{k≠k*_m} w_km + Σ_f b_mf) <= (|Br*| + |Lf*|)·R_P.

These cuts do not hold for every feasible tree; they keep an optimal one (the D2S subtree is optimal for the
samples that reach n, which depend only on the path), so they belong in a solver's cut callback (SCIP). At
depth 1 and 2 the root (empty path, R_P = 0) is the only candidate and its cut bounds the master by the D2S
optimum.
Samples sets smaller than 2·|I|·λ are skipped (no depth-2 subtree there can pay for its leaves).

**Height-3 bounds (ours, ``max_height=3``).** The exact subroutine may also be the optimal subtree of depth
<= 3 of :meth:`~odtlib.models.univariate.accel.d2s.Depth2Solver.solve` (a scan of every root split with D2S on both
sides). A candidate of height h then gets the optimum of depth min(3, h), and R_P's last sum takes the leaves
more than 3 levels below n. The argument above is unchanged: that subtree is optimal for the samples reaching
n, and nested cuts agree on it -- its sides are the cached D2S subtrees the height-2 cuts below use, and where
no depth-3 tree beats D2S it is D2S's own subtree -- so one optimal tree meets every cut.
At depth 3 the root's cut (R_P = 0) bounds the whole master by the exact optimum and (26) fixes its structure,
so the master closes at its first LP instead of enumerating root splits in the search.
When the depth-3 scan does not fit the memory budget of the depth-2 solver (its ``max_depth`` is 2), the cuts
bound subtrees of height 2 only: :meth:`PathBoundCuts.stats` reports the height used (``max_height``), and
RegularizedBendOCT's fit as ``path_bound_height_``.

**Point weights** (derived in :mod:`odtlib.models.univariate.regularized_bendoct`): D2S counts weights and α = W·λ,
the LP's value on the subtree is Σ_{i∈I_P} w_i·θ_i - α·Σ_{m∈D[n]} p_m, and (24) bounds the weighted score,
Σ_{i∈I_P} w_i·θ_i <= w(C_P) + (w(I_P) - w(C_P))·R_P; (25) and (26) keep their form, over the points of positive
weight (the master fixes θ_i = 0 for the others). Sets of weight below 2α are skipped.
"""
from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

import numpy as np

from odtlib.models.univariate._sparse_tree import TreeColumns
from odtlib.solvers import CutFamily, LinearRow, Values

if TYPE_CHECKING:
    from odtlib.models.univariate._regularized import RegularizedContext

__all__ = ["PathBoundCuts"]


class PathBoundCuts(CutFamily):
    """Algorithm 2 as a cut family (``cut(values)`` -> rows); ``max_height``: the height of the subtrees the
    exact subroutine solves, 2 (D2S, the paper's) or 3 (the root-split scan, ours; module doc), lowered to 2
    when the scan does not fit the memory budget."""

    integral_tol = 1e-4
    violation_tol = 1e-4

    def __init__(self, ctx: RegularizedContext, model, bound_negative_samples: bool = True,
                 bound_structure: bool = True, max_height: int = 2):
        if max_height not in (2, 3):
            raise ValueError(f"max_height must be 2 (D2S) or 3 (the root-split scan), got {max_height!r}")
        self.ctx = ctx
        self.max_height = min(max_height, ctx.d2s.max_depth)        # height 2 when the depth-3 scan does not fit
        self.columns = TreeColumns(model)
        self.bound_negative_samples = bound_negative_samples
        self.bound_structure = bound_structure
        self.weights = ctx.weights
        self.positive = self.weights > 0

    def candidates(self, b: np.ndarray):
        """(node, path [(n_j, f_j)], sample mask) of the root and of every node on an integral path with
        height >= 2: the roots of the subtrees of height <= 2 that D2S bounds."""
        stack = [(1, [], np.ones(len(self.ctx.y), dtype=bool))]
        while stack:
            n, path, mask = stack.pop()
            height = self.ctx.depth - (n.bit_length() - 1)
            if height < 2 and n != 1:
                continue
            yield n, path, mask
            if height <= 2:
                continue
            f = int(b[n].argmax())
            if b[n, f] > 1 - self.integral_tol:
                right = self.ctx.X01[:, f]
                stack += [(2 * n, path + [(n, f)], mask & ~right), (2 * n + 1, path + [(n, f)], mask & right)]

    def stats(self) -> dict:
        """The height of the subtrees bounded and the statistics of D2S's cache (shared with polishing)."""
        return {"max_height": self.max_height, "d2s": asdict(self.ctx.d2s.cache_info())}

    def cut(self, values: Values) -> list[LinearRow]:
        b, p, w, theta = self.columns.arrays(values)
        b_cols, p_cols, w_cols, t_cols = self.columns.columns(values)
        rows = []
        for n, path, mask in self.candidates(b):
            weight = float(self.weights[mask].sum())
            if not weight > 0 or weight < 2 * self.ctx.alpha:
                continue
            height = self.ctx.depth - (n.bit_length() - 1)
            best = self.ctx.d2s.solve(mask, depth=min(self.max_height, height), leaf_penalty=self.ctx.alpha)
            below = self._descendants(n)
            lp_value = self.weights[mask] @ theta[mask] - self.ctx.alpha * p[below].sum()
            if lp_value <= best.value + self.violation_tol:
                continue
            relax = self._relaxing_term(n, path, b_cols, p_cols)
            rows.append(self._bound_row(mask, best, relax, t_cols))
            if self.bound_structure:
                rows.append(self._structure_row(n, best, relax, b_cols, p_cols, w_cols))
        return rows

    def _descendants(self, n: int, min_gap: int = 0) -> np.ndarray:
        """D[n] (``min_gap=0``) or the descendants more than ``min_gap`` levels below n, as node ids."""
        nodes = []
        for gap in range(min_gap, self.ctx.depth - (n.bit_length() - 1) + 1):
            first = n << gap
            nodes.extend(range(first, first + 2**gap))
        return np.array(nodes, dtype=np.int64)

    def _relaxing_term(self, n: int, path, b_cols, p_cols) -> np.ndarray:
        """Columns of R_P (23), each with coefficient 1."""
        terms = []
        for node, f in path:
            terms.append(np.delete(b_cols[node], f))
            terms.append([p_cols[node]])
        terms.append(p_cols[self._descendants(n, min_gap=self.max_height + 1)])
        return np.concatenate(terms).astype(np.int64)

    def _bound_row(self, mask, best, relax, t_cols) -> LinearRow:
        correct = np.zeros(len(self.ctx.y), dtype=bool)
        correct[best.correct_samples] = True
        mask = mask & self.positive                                            # θ_i = 0 at weight 0
        if self.bound_negative_samples:                                        # (25)
            wrong = np.flatnonzero(mask & ~correct)
            return LinearRow(np.concatenate((t_cols[wrong], relax)),
                             np.concatenate((np.ones(len(wrong)), -float(len(wrong)) * np.ones(len(relax)))),
                             ub=0.0)
        samples = np.flatnonzero(mask)                                         # (24), weighted
        weights = self.weights[samples]
        correct_weight = float(weights[correct[samples]].sum())
        return LinearRow(np.concatenate((t_cols[samples], relax)),
                         np.concatenate((weights, -(float(weights.sum()) - correct_weight) * np.ones(len(relax)))),
                         ub=correct_weight)

    def _structure_row(self, n, best, relax, b_cols, p_cols, w_cols) -> LinearRow:
        """(26): every deviation from D2S's subtree placed at n costs one unit of R_P."""
        branch, leaf = best.subtree.placed_at(n)
        cols = []
        for m, f in branch.items():
            cols += [np.delete(b_cols[m], f), [p_cols[m]]]
        for m, k in leaf.items():
            cols.append(np.delete(w_cols[m], k))
            if b_cols[m, 0] >= 0:
                cols.append(b_cols[m])
        lhs = np.concatenate(cols).astype(np.int64)
        size = float(len(branch) + len(leaf))
        return LinearRow(np.concatenate((lhs, relax)),
                         np.concatenate((np.ones(len(lhs)), -size * np.ones(len(relax)))), ub=0.0)
