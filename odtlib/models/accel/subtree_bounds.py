"""A subtree decomposition of paper 000's problem (Günlük et al. 2019): exact subtrees of height <= 2 under
a small master of the upper tests, joined by combinatorial Benders cuts.

Not in the paper; it solves the same problem as formulation (8), with the same fixed topology and leaf labels.
Call a decision node of height <= 2 whose parent has height >= 3 (or the root, if it has height <= 2) a
*frontier* node k, of height h_k. The master holds the tests (v, z with (1), (2), (13) and Sections 4.4-4.5)
of the nodes of height >= 3 and one variable θ_k <= Σ_i w_i per frontier node, and maximises Σ_k θ_k; the
weights are those of (8a), w_i = 1 on I+ and C on I-. For a set S of samples let OPT_h(S) be the best
weighted count of correctly classified samples of S that a subtree of height h (<= 2, the topology's shape
and labels) reaches. Two facts about OPT (the counts of a tree add up over samples):

* monotone: S' ⊆ S gives OPT_h(S') <= OPT_h(S);
* OPT_h(S ∪ T) <= OPT_h(S) + Σ_{i∈T} w_i.

So if the master's tests send the set S to k, every other sample i fails some test on k's path -- at the
first such ancestor k_i the expression L(i, k_i) (3) or R(i, k_i) (4) of the side it would need is 0 -- and
for every master point

    θ_k <= OPT_{h_k}(S) + Σ_{i∉S} w_i · side_{k_i}(i, k_i)                                          (SB)

holds at the true value of k's subtree (the samples that really reach k are S' ⊆ S plus some i ∉ S whose
side expression is 1). At the master point that produced S the cut reads θ_k <= OPT(S), which is exact.
:class:`SubtreeBendersCuts` adds (SB) as lazy rows at integer master points. (SB) is valid for any S, so LP
points could be separated too, with S from the rounded tests; on SCIP that made krkp (Table 2) 5x slower. The optimal tree is then the master's
tests plus, at every frontier node, an optimal subtree on the samples sent there
(:meth:`SubsetSubtreeSolver.best_tests`).

:class:`SubsetSubtreeSolver` computes OPT_1 and OPT_2 exactly over the tests the model allows (all subsets,
ordinal prefixes and suffixes of Section 4.4, max.card of Section 4.5), vectorised over all tests of a node:

* height 1 (leaf-adjacent node, left leaf negative, right leaf positive, as in every topology): a test of
  group g with left subset S scores Σ_{i→right, i∈I+} w_i + Σ_{i→left, i∈I-} w_i = P + Σ_{j∈S} (N_j - P_j),
  with P the weighted positives and N_j, P_j the weighted negatives and positives with value j.
  Unrestricted groups take every j with N_j > P_j; restricted ones the best of their allowed subsets.
* height 2 (both children leaf-adjacent): every allowed test at k, each child solved as height 1 on the
  samples the test sends there.

Groups must have at most one 1 per row (a row with no 1 in a group always goes right), and at a height-2
node every group's allowed subsets are enumerated, so an unrestricted group may have at most
``log2(max_subsets)`` values (``max_card`` or ordinal groups lift the limit).
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from odtlib.solvers import LazyRowFamily, LinearRow, Values

if TYPE_CHECKING:
    import pyomo.environ as pyo

    from odtlib.models.categorical_odt import Group
    from odtlib.models.topologies import Topology

__all__ = ["SubsetSubtreeSolver", "SubtreeBendersCuts", "allowed_subsets", "frontier_nodes", "node_heights"]


def allowed_subsets(n_values: int, ordinal: bool, max_card: int | None) -> np.ndarray | None:
    """The left subsets a group of ``n_values`` columns may use, as a 0/1 matrix (subsets × values), or None
    when every subset is allowed. ``ordinal``: prefixes ("<=") and suffixes (">=") only (Section 4.4);
    ``max_card``: at most ``max_card`` or at least n_values - ``max_card`` values (Section 4.5)."""
    if ordinal:
        rows = {tuple(range(size)) for size in range(n_values + 1)}
        rows |= {tuple(range(n_values - size, n_values)) for size in range(1, n_values)}
    elif max_card is not None and n_values > max_card:
        sizes = set(range(max_card + 1)) | set(range(n_values - max_card, n_values + 1))
        rows = {chosen for size in sizes for chosen in combinations(range(n_values), size)}
    else:
        return None
    matrix = np.zeros((len(rows), n_values), dtype=np.float64)
    for r, chosen in enumerate(sorted(rows)):
        matrix[r, list(chosen)] = 1.0
    return matrix


def node_heights(topo: Topology) -> dict[int, int]:
    """Height of every decision node: 1 for a leaf-adjacent node, 1 + its children's height above."""
    heights: dict[int, int] = {}

    def height(k: int) -> int:
        if k not in heights:
            kids = [child for kind, child in topo.children[k] if kind == "node"]
            heights[k] = 1 + max((height(child) for child in kids), default=0)
        return heights[k]

    for k in topo.decision_nodes:
        height(k)
    return heights


def frontier_nodes(topo: Topology) -> list[int]:
    """The frontier nodes of the module docstring: height <= 2, and the root or a child of a node of height >= 3."""
    heights = node_heights(topo)
    below_tall = {child for k in topo.decision_nodes if heights[k] >= 3
                  for kind, child in topo.children[k] if kind == "node"}
    return [k for k in topo.decision_nodes if heights[k] <= 2 and (k == 1 or k in below_tall)]


class SubsetSubtreeSolver:
    """Exact OPT_1 and OPT_2 of the module docstring, and optimal subtrees, on sample sets of one training set.

    ``A``: 0/1 data (N × d); ``positive``: i ∈ I+; ``groups``: the groups the model may test; ``class_weight``:
    C of (8a); ``ordinal``/``max_card``: the model's test restrictions (:func:`allowed_subsets`);
    ``max_height``: 1 or 2, the highest subtree asked for.
    """

    def __init__(self, A: np.ndarray, positive: np.ndarray, groups: list[Group], class_weight: float = 1.0, *,
                 ordinal: bool = True, max_card: int | None = None, max_height: int = 2, max_subsets: int = 4096):
        A = np.asarray(A) > 0.5
        for g in groups:
            if (A[:, list(g.columns)].sum(axis=1) > 1).any():
                raise ValueError(f"the subtree decomposition needs at most one 1 per row in every group; group "
                                 f"{g.name!r} has rows with several (encode it one-hot, or switch subtree_benders "
                                 "off)")
        positive = np.asarray(positive, dtype=bool)
        self.groups = list(groups)
        columns = [j for g in groups for j in g.columns]
        self.X = A[:, columns].astype(np.float64)                  # N × D, the groups' columns in order
        self.w_pos = np.where(positive, 1.0, 0.0)
        self.w_neg = np.where(positive, 0.0, float(class_weight))
        bounds = np.cumsum([0] + [len(g.columns) for g in groups])
        self.slices = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
        self.subsets = [allowed_subsets(len(g.columns), ordinal and g.ordinal, max_card) for g in groups]
        if max_height >= 2:
            one_hot = [bool((A[:, list(g.columns)].sum(axis=1) == 1).all()) for g in groups]
            self.tests, self.test_group = self._all_tests(max_subsets, one_hot)
        self.value = lru_cache(maxsize=20000)(self._value)

    def _all_tests(self, max_subsets: int, one_hot: list[bool]) -> tuple[np.ndarray, np.ndarray]:
        """Every allowed test of a height-2 node as a 0/1 row over the D columns, and its group. For a group
        with exactly one 1 per row, S and its complement swap the two children, which have the same shape and
        labels, so only the subsets holding the group's first value are kept (the allowed sets of Sections
        4.4-4.5 are closed under complement)."""
        rows, owner = [], []
        for gi, (part, subsets) in enumerate(zip(self.slices, self.subsets)):
            size = part.stop - part.start
            if subsets is None:
                if 2**size > max_subsets:
                    raise ValueError(
                        f"the subtree decomposition enumerates every test of a node of height 2, but group "
                        f"{self.groups[gi].name!r} has {size} values, 2^{size} subsets (limit {max_subsets}); "
                        "set max_card (e.g. 2, the paper's comb-con) or switch subtree_benders off")
                subsets = (np.arange(2**size)[:, None] >> np.arange(size)) & 1
            if one_hot[gi]:
                subsets = subsets[subsets[:, 0] > 0.5]
            block = np.zeros((len(subsets), self.X.shape[1]))
            block[:, part] = subsets
            rows.append(block)
            owner += [gi] * len(subsets)
        return np.vstack(rows), np.array(owner, dtype=np.int64)

    # ------------------------------------------------------------------ height 1
    def _group_gains(self, gain: np.ndarray) -> list[tuple[np.ndarray, np.ndarray | None]]:
        """Per group: the best Σ_{j∈S} gain_j over its allowed S (shape gain.shape[:-1]), and the index of the
        best allowed subset (None for unrestricted groups, whose best S is {j: gain_j > 0})."""
        out = []
        for part, subsets in zip(self.slices, self.subsets):
            g = gain[..., part]
            if subsets is None:
                out.append((np.clip(g, 0, None).sum(axis=-1), None))
            else:
                sums = g @ subsets.T
                out.append((sums.max(axis=-1), sums.argmax(axis=-1)))
        return out

    def height1(self, pos: np.ndarray, neg: np.ndarray, pos_total: np.ndarray) -> np.ndarray:
        """OPT_1 from weighted counts per column, ``pos``/``neg`` of shape (..., D), ``pos_total`` (...)."""
        gains = [best for best, _ in self._group_gains(neg - pos)]
        return pos_total + np.max(gains + [np.zeros(np.shape(pos_total))], axis=0)

    def _counts(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        idx = np.flatnonzero(mask)
        X, wp, wn = self.X[idx], self.w_pos[idx], self.w_neg[idx]
        return X, wp, wn, wp @ X, wn @ X

    # ------------------------------------------------------------------ height <= 2
    def _value(self, rows: bytes, height: int) -> float:
        mask = np.frombuffer(rows, dtype=bool)
        if height == 1:
            _, wp, _, pos, neg = self._counts(mask)
            return float(self.height1(pos, neg, wp.sum()))
        return float(self._height2_values(mask).max())

    def _height2_values(self, mask: np.ndarray) -> np.ndarray:
        """OPT_1(left) + OPT_1(right) for every test at a height-2 node. With at most one 1 per group and row,
        sample i goes left under test t iff (X·tests^T)_it = 1, so the weighted counts per column on the left
        are tests · (X^T diag(w) X), co-occurrence counts of the columns."""
        X, wp, wn, pos, neg = self._counts(mask)
        pos_left, neg_left = self.tests @ ((X * wp[:, None]).T @ X), self.tests @ ((X * wn[:, None]).T @ X)
        pos_total_left = self.tests @ pos
        return (self.height1(pos_left, neg_left, pos_total_left)
                + self.height1(pos - pos_left, neg - neg_left, wp.sum() - pos_total_left))

    def bound(self, mask: np.ndarray, height: int) -> float:
        """OPT_height on the samples of the boolean ``mask`` (cached)."""
        if height not in (1, 2):
            raise ValueError(f"subtrees are solved exactly for heights 1 and 2, not {height}")
        return self.value(np.ascontiguousarray(mask, dtype=bool).tobytes(), height)

    def best_tests(self, mask: np.ndarray, height: int) -> list[tuple[int, list[int]]]:
        """An optimal subtree on ``mask`` as tests (group index, left columns): [k's] for height 1,
        [k's, its left child's, its right child's] for height 2."""
        mask = np.asarray(mask, dtype=bool)
        if height == 1:
            _, _, _, pos, neg = self._counts(mask)
            gains = self._group_gains(neg - pos)
            gi = int(np.argmax([best for best, _ in gains]))
            return [(gi, self._subset_columns(gi, neg - pos, gains[gi][1]))]
        t = int(self._height2_values(mask).argmax())
        gi = int(self.test_group[t])
        goes_left = (self.X @ self.tests[t]) > 0.5
        chosen = [self.groups[gi].columns[p] for p in np.flatnonzero(self.tests[t, self.slices[gi]])]
        return [(gi, chosen)] + self.best_tests(mask & goes_left, 1) + self.best_tests(mask & ~goes_left, 1)

    def _subset_columns(self, gi: int, gain: np.ndarray, best_row) -> list[int]:
        part, subsets = self.slices[gi], self.subsets[gi]
        picked = gain[part] > 0 if subsets is None else subsets[int(best_row)] > 0.5
        return [self.groups[gi].columns[p] for p in np.flatnonzero(picked)]


class SubtreeBendersCuts(LazyRowFamily):
    """The cuts (SB) of the module docstring for a master of
    :func:`odtlib.models.categorical_odt.build_master` (``lazy(values)`` -> rows)."""

    violation_tol = 1e-6

    def __init__(self, model: pyo.ConcreteModel, solver: SubsetSubtreeSolver):
        topo: Topology = model.topology
        self.model, self.solver = model, solver
        heights = node_heights(topo)
        self.frontier = [(k, heights[k], ancestors(topo, k)) for k in model.frontier]
        self.weight = solver.w_pos + solver.w_neg
        self.ones = solver.X                     # a^i_j over the groups' columns, in the master's order J
        self.z_vars = {k: [model.z[k, j] for j in model.J] for k in model.K}

    def reach(self, values: Values) -> dict[int, np.ndarray]:
        """For every frontier node, the samples the (rounded) master tests send there."""
        goes_left = {k: self.ones @ values.array(z) > 0.5 for k, z in self.z_vars.items()}
        out = {}
        for k, _, path in self.frontier:
            mask = np.ones(len(self.weight), dtype=bool)
            for node, side in path:
                mask &= goes_left[node] if side == "L" else ~goes_left[node]
            out[k] = mask
        return out

    def lazy(self, values: Values) -> list[LinearRow]:
        reached = self.reach(values)
        rows = []
        for k, height, path in self.frontier:
            bound = self.solver.bound(reached[k], height)
            if values[self.model.theta[k]] > bound + self.violation_tol:
                rows.append(self._row(values, k, path, reached[k], bound))
        return rows

    def _row(self, values: Values, k: int, path, mask: np.ndarray, bound: float) -> LinearRow:
        """(SB): θ_k - Σ_{i∉S} w_i·side(i, k_i) <= OPT(S), side = L = Σ_j a^i_j z_{k_i j} or R = 1 - L."""
        coef = {node: np.zeros(len(self.model.J)) for node, _ in path}
        constant = 0.0
        undecided = ~mask
        for node, side in path:
            left = self.ones @ values.array(self.z_vars[node]) > 0.5
            fails = undecided & (~left if side == "L" else left)       # first failing ancestor: this one
            weights = self.weight * fails
            if side == "L":
                coef[node] -= weights @ self.ones
            else:
                coef[node] += weights @ self.ones
                constant += weights.sum()
            undecided &= ~fails
        cols = np.concatenate([values.columns([self.model.theta[k]])]
                              + [values.columns(self.z_vars[node]) for node in coef])
        coefs = np.concatenate([np.ones(1)] + list(coef.values()))
        keep = coefs != 0
        return LinearRow(cols[keep], coefs[keep], ub=bound + constant)


def ancestors(topo: Topology, k: int) -> list[tuple[int, str]]:
    """The (node, side) pairs from the root down to k (k excluded)."""
    leaf_below = (topo.left_leaves(k) + topo.right_leaves(k))[0]
    path = topo.paths[leaf_below]
    return path[:[node for node, _ in path].index(k)]
