"""Equivalent-point (EQP) valid inequalities of paper 003 (Section 5.3), added to the master up front.

An EQP set S is a group of samples that agree on every feature outside a small *split set* F* and carry at
least two classes (13). If no node on their common path branches on a feature of F*, all of S reach one
leaf and at most UB_S = (largest class count in S) of them are classified correctly. A variable
φ_S in [0, 1] may be positive only when the tree can split S (family H), and the θ of S are bounded through
it (family G):

* H basic (16): φ_S <= Σ_{n, f ∈ F*} b_nf (one φ per distinct F*);
* H chain (18) / chain disaggregated (19): α_{S,n} = "S reaches n together and n splits it", φ_S = Σ_n α_{S,n};
* H recursive (20) / recursive disaggregated (21): α_{S,n} = "S is split in the subtree of n", φ_S = α_{S,1};
* G basic (17): Σ_{i∈S} θ_i <= UB_S + (|S| - UB_S)·φ_S;
* G group selection (22): Σ_{i∈S_k} θ_i = |S_k|·γ_{S,k} per class k, Σ_k γ_{S,k} <= 1 + (#classes - 1)·φ_S.

**Smaller LP, same relaxation.** On data sets with thousands of EQP sets (car-evaluation: 2402 at |F*| <= 2)
these rows dominate the master's LP, so two exact reductions are applied: γ is determined by θ, so (22) is
added with γ substituted, Σ_k (1/|S_k|)·Σ_{i∈S_k} θ_i <= 1 + (#classes - 1)·φ_S (one row, no γ); and in the
recursive family the α of the last internal layer is bounded by Σ_{f∈F*} b_nf alone, so the sets sharing
F* share it (one α per (F*, n)). Both leave the projection of the LP onto (b, p, w, θ) unchanged.

**Sets.** Every pair of samples with different classes that differ on at most ``max_split`` features gives
F* = the features where they differ; S = all samples that agree with the pair outside F* (pairs with the same
F* and the same values outside it give one set). These inequalities are valid for every feasible tree, so
they work on every solver.

**Point weights.** With weights w_i the master maximises Σ_i w_i·θ_i
(:mod:`odtlib.models.univariate.regularized_bendoct` derives it), and the G rows bound the weighted score of S
with its classes' weights W_{S_k} = Σ_{i∈S_k} w_i in place of the counts |S_k|: (17) Σ_{i∈S} w_i·θ_i <= UB_S +
(W_S - UB_S)·φ_S with UB_S = max_k W_{S_k}, and (22) Σ_k (1/W_{S_k})·Σ_{i∈S_k} w_i·θ_i <= 1 + (#classes - 1)·φ_S.
When S cannot be split it reaches one leaf of one class k: θ_i = 0 outside S_k and θ_i <= 1 in it, so both hold,
and both let the LP give S at most UB_S. The sets are those of the points of positive weight (a point of weight 0
is a point removed). Unit weights give the paper's rows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo

from odtlib.models.univariate._flow_tree import TreeIndex, linear_sum
from odtlib.models.univariate._sparse_tree import SparseTree

__all__ = ["EQP_FAMILIES", "EQPSet", "find_eqp_sets", "EQPInequalities"]

EQP_FAMILIES = ("basic", "chain", "recursive")


@dataclass(frozen=True)
class EQPSet:
    """Samples ``members`` that agree outside the split set ``split``; ``pattern`` = their common row
    (the values on ``split`` are those of one member, i_0). ``class_counts``: the weight of each class in the set,
    W_{S_k} (its number of members without weights)."""

    members: np.ndarray
    split: tuple[int, ...]
    pattern: np.ndarray
    class_counts: np.ndarray

    @property
    def upper_bound(self) -> float:
        """UB_S: the most (weight of) samples of S one leaf can classify correctly."""
        return float(self.class_counts.max())


def find_eqp_sets(X: np.ndarray, y: np.ndarray, max_split: int = 2, sample_weight: np.ndarray | None = None
                  ) -> list[EQPSet]:
    """EQP sets (13) with |F*| <= ``max_split``, one per distinct (F*, values outside F*), among the samples of
    positive weight in ``sample_weight`` (all without weights); ``members`` index the rows of ``X``."""
    X = (np.asarray(X) > 0.5).astype(np.int64)
    y = np.asarray(y, dtype=np.int64)
    n_classes = int(y.max()) + 1
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    rows = np.flatnonzero(weights > 0)
    X, y, weights = X[rows], y[rows], weights[rows]
    ones = X.astype(np.float32)                       # BLAS products; counts < 2^24 are exact in float32
    hamming = ones @ (1 - ones).T + (1 - ones) @ ones.T
    pairs = np.argwhere(np.triu((hamming <= max_split) & (y[:, None] != y[None, :]), k=1))
    sets, seen = [], set()
    for i, j in pairs:
        differs = X[i] != X[j]
        key = (differs.tobytes(), np.where(differs, 0, X[i]).tobytes())
        if key in seen:
            continue
        seen.add(key)
        members = np.flatnonzero((X[:, ~differs] == X[i, ~differs]).all(axis=1))
        sets.append(EQPSet(rows[members], tuple(np.flatnonzero(differs).tolist()), X[i].copy(),
                           np.bincount(y[members], weights=weights[members], minlength=n_classes)))
    return sets


class EQPInequalities:
    """EQP inequalities for one training set: :meth:`add_to` puts them in a master with b and θ,
    :meth:`start_values` gives their variables' values for a fixed tree.

    ``h_family`` in :data:`EQP_FAMILIES`; ``disaggregated`` picks (19)/(21) over (18)/(20);
    ``group_selection`` picks (22) over (17); ``max_split`` bounds |F*|; ``sample_weight`` (None: all 1) weights
    the G rows (module docstring).
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, h_family: str = "recursive", disaggregated: bool = True,
                 group_selection: bool = True, max_split: int = 2, sample_weight: np.ndarray | None = None):
        if h_family not in EQP_FAMILIES:
            raise ValueError(f"h_family must be one of {EQP_FAMILIES}, got {h_family!r}")
        self.y = np.asarray(y, dtype=np.int64)
        self.weights = np.ones(len(self.y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        self.h_family = h_family
        self.disaggregated = disaggregated
        self.group_selection = group_selection
        self.sets = find_eqp_sets(X, y, max_split, sample_weight)
        self.splits = sorted({s.split for s in self.sets})
        self.split_of = [self.splits.index(s.split) for s in self.sets]   # set k -> its F* in ``splits``

    # ------------------------------------------------------------------ model
    def add_to(self, model: pyo.ConcreteModel) -> None:
        """Add the φ/α/γ variables and the H and G rows to ``model`` (a block ``model.eqp``)."""
        model.eqp = block = pyo.Block()
        block.sets = self.sets
        if not self.sets:
            return
        tree: TreeIndex = model.tree
        block.rows = pyo.ConstraintList(doc="(16)-(22)")
        phi = self._add_h(model, block, tree)
        self._add_g(model, block, phi)

    def _direction_sum(self, model, s: EQPSet, n: int, value: int):
        """Σ b_nf over features outside F* with x_{i0 f} = value: n sends S to that side together."""
        outside = set(s.split)
        return [model.b[n, f] for f in model.F if f not in outside and s.pattern[f] == value]

    def _split_sum(self, model, s: EQPSet, n: int) -> list:
        return [model.b[n, f] for f in s.split]

    def _add_h(self, model, block, tree: TreeIndex) -> list:
        """Rows of the H family; returns φ_S (a variable or an expression) per set."""
        rows = block.rows
        if self.h_family == "basic":                                           # (16)
            block.phi = pyo.Var(range(len(self.splits)), bounds=(0, 1), doc="(16)")
            for j, split in enumerate(self.splits):
                rows.add(block.phi[j] <= linear_sum([model.b[n, f] for n in tree.internal for f in split]))
            return [block.phi[j] for j in self.split_of]
        pairs = [(k, n) for k in range(len(self.sets)) for n in tree.internal]
        if self.h_family == "chain":
            domain = pyo.UnitInterval if self.disaggregated else pyo.Binary
            block.alpha = pyo.Var(pairs, within=domain, doc="(18)-(19)")
            for k, s in enumerate(self.sets):
                for n in tree.internal:
                    self._chain_rows(model, rows, block.alpha[k, n], s, n, tree)
            return [linear_sum([block.alpha[k, n] for n in tree.internal]) for k in range(len(self.sets))]
        return self._add_recursive(model, block, tree)                       # recursive (20)/(21)

    def _add_recursive(self, model, block, tree: TreeIndex) -> list:
        """(20)/(21); the last internal layer's α_{S,n} <= Σ_{f∈F*} b_nf is one variable per (F*, n)."""
        rows = block.rows
        last = [n for n in tree.internal if tree.is_leaf(2 * n)]
        upper = [n for n in tree.internal if not tree.is_leaf(2 * n)]
        block.alpha_last = pyo.Var(range(len(self.splits)), last, within=pyo.UnitInterval, doc="(20)-(21)")
        for j, split in enumerate(self.splits):
            for n in last:
                rows.add(block.alpha_last[j, n] <= linear_sum([model.b[n, f] for f in split]))
        inner = [(k, n) for k in range(len(self.sets)) for n in upper]
        block.alpha = pyo.Var(inner, within=pyo.UnitInterval, doc="(20)-(21)")
        domain = pyo.UnitInterval if self.disaggregated else pyo.Binary
        block.alpha_left = pyo.Var(inner, within=domain, doc="(20)-(21)")
        block.alpha_right = pyo.Var(inner, within=domain, doc="(20)-(21)")

        def alpha(k: int, n: int):
            return block.alpha_last[self.split_of[k], n] if n in last else block.alpha[k, n]

        for k, s in enumerate(self.sets):
            for n in upper:
                self._recursive_rows(model, block, k, s, n, alpha)
        return [alpha(k, 1) for k in range(len(self.sets))]

    def _chain_rows(self, model, rows, alpha, s: EQPSet, n: int, tree: TreeIndex) -> None:
        ancestors = tree.ancestors(n)
        paths = [self._direction_sum(model, s, a, 0 if goes_left else 1) for a, goes_left in ancestors]
        if self.disaggregated:                                                 # (19)
            rows.add(alpha <= linear_sum(self._split_sum(model, s, n)))
            for terms in paths:
                rows.add(alpha <= linear_sum(terms))
        else:                                                                  # (18)
            terms = self._split_sum(model, s, n) + [v for path in paths for v in path]
            rows.add((1 + len(ancestors)) * alpha <= linear_sum(terms))

    def _recursive_rows(self, model, block, k: int, s: EQPSet, n: int, alpha) -> None:
        """Rows of set k at a node n above the last internal layer; ``alpha(k, n)`` gives α_{S,n}."""
        rows = block.rows
        left, right = block.alpha_left[k, n], block.alpha_right[k, n]
        rows.add(block.alpha[k, n] <= linear_sum(self._split_sum(model, s, n) + [left, right]))
        for side, child, value in ((left, 2 * n, 0), (right, 2 * n + 1, 1)):
            together = self._direction_sum(model, s, n, value)
            if self.disaggregated:                                             # (21)
                rows.add(side <= linear_sum(together))
                rows.add(side <= alpha(k, child))
            else:                                                              # (20)
                rows.add(2 * side <= linear_sum(together + [alpha(k, child)]))

    def _add_g(self, model, block, phi: list) -> None:
        """The G rows of each set on the weighted scores w_i·θ_i (w_i = 1 without weights: the paper's rows)."""
        rows = block.rows
        if not self.group_selection:                                           # (17)
            for s, phi_s in zip(self.sets, phi):
                ub, total = s.upper_bound, float(s.class_counts.sum())
                score = linear_sum([float(self.weights[i]) * model.theta[i] for i in s.members])
                rows.add(score <= ub + (total - ub) * phi_s)
            return
        for s, phi_s in zip(self.sets, phi):                                   # (22), γ substituted
            class_weight = s.class_counts[self.y[s.members]]
            share = linear_sum([float(self.weights[i] / c) * model.theta[i]
                                for i, c in zip(s.members.tolist(), class_weight.tolist())])
            n_present = int(np.count_nonzero(s.class_counts))
            rows.add(share <= 1 + (n_present - 1) * phi_s)

    # ------------------------------------------------------------------ start values
    def start_values(self, model, tree: SparseTree, start) -> None:
        """Fill ``start`` with the EQP variables' values for ``tree``: each α/φ at the largest value its rows
        allow (1 exactly when the tree splits S where the family says)."""
        if not self.sets:
            return
        block, index = model.eqp, TreeIndex(tree.depth)
        if self.h_family == "basic":
            for j, split in enumerate(self.splits):
                start[block.phi[j]] = float(any(f in split for f in tree.branch.values()))
        for k, s in enumerate(self.sets):
            splits, left, right = self._node_roles(s, tree, index)
            if self.h_family == "chain":
                for n in index.internal:
                    together = all(left[a] if goes_left else right[a] for a, goes_left in index.ancestors(n))
                    start[block.alpha[k, n]] = float(splits[n] and together)
            elif self.h_family == "recursive":
                alpha = {}
                for n in reversed(index.internal):
                    if index.is_leaf(2 * n):
                        alpha[n] = float(splits[n])
                        continue
                    a_left = float(left[n] and alpha[2 * n])
                    a_right = float(right[n] and alpha[2 * n + 1])
                    start[block.alpha_left[k, n]] = a_left
                    start[block.alpha_right[k, n]] = a_right
                    alpha[n] = start[block.alpha[k, n]] = min(1.0, splits[n] + a_left + a_right)
        if self.h_family == "recursive":
            for j, n in block.alpha_last:
                start[block.alpha_last[j, n]] = float(tree.branch.get(n) in self.splits[j])

    @staticmethod
    def _node_roles(s: EQPSet, tree: SparseTree, index: TreeIndex) -> tuple[dict, dict, dict]:
        """Per internal node: branches on F*; sends S left together; sends S right together."""
        splits, left, right = {}, {}, {}
        for n in index.internal:
            f = tree.branch.get(n)
            splits[n] = f is not None and f in s.split
            together = f is not None and not splits[n]
            left[n] = together and s.pattern[f] == 0
            right[n] = together and s.pattern[f] == 1
        return splits, left, right
