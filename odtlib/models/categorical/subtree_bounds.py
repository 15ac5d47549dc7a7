"""A subtree decomposition of paper 000's problem (Günlük et al. 2019): exact subtrees of height <= 2 under
a small master of the upper tests, joined by combinatorial Benders cuts.

Not in the paper; it solves the same problem as formulation (8), with the same fixed topology and leaf labels.
Call a decision node of height <= 2 whose parent has height >= 3 (or the root, if it has height <= 2) a
*frontier* node k, of height h_k. The master holds the tests (v, z with (1), (2), (13) and Sections 4.4-4.5)
of the nodes of height >= 3 and one variable θ_k <= Σ_i w_i per frontier node, and maximises Σ_k θ_k; the
weights are those of (8a), w_i = 1 on I+ and C on I-, each times the point's ``sample_weight`` when ``fit``
has one (every count below is a weighted count, so the cuts and subtree solves hold for any w >= 0). For a
set S of samples let OPT_h(S) be the best weighted count of correctly classified samples of S that a subtree
of height h (<= 2, the topology's shape and labels) reaches. Two facts about OPT (the counts of a tree add up
over samples):

* monotone: S' ⊆ S gives OPT_h(S') <= OPT_h(S);
* OPT_h(S ∪ T) <= OPT_h(S) + Σ_{i∈T} w_i.

So if the master's tests send the set S to k, every other sample i fails some test on k's path -- at the
first such ancestor k_i the expression L(i, k_i) (3) or R(i, k_i) (4) of the side it would need is 0 -- and
for every master point

    θ_k <= OPT_{h_k}(S) + Σ_{i∉S} w_i · side_{k_i}(i, k_i)                                          (SB)

holds at the true value of k's subtree (the samples that really reach k are S' ⊆ S plus some i ∉ S whose
side expression is 1). At the master point that produced S the cut reads θ_k <= OPT(S), which is exact.
:class:`SubtreeBendersCuts` adds (SB) as lazy rows at integer master points. (SB) is valid for any S, so LP
points could be separated too, with S from the rounded tests; on SCIP that made krkp (Table 2) 5x slower.
The optimal tree is then the master's tests plus, at every frontier node, an optimal subtree on the samples
sent there (:meth:`SubsetSubtreeSolver.best_tests`).

:class:`SubsetSubtreeSolver` computes OPT_1 and OPT_2 exactly over the tests the model allows (all subsets,
ordinal prefixes and suffixes of Section 4.4, max.card of Section 4.5), vectorised over all tests of a node:

* height 1 (leaf-adjacent node, left leaf negative, right leaf positive, as in every topology): a test of
  group g with left subset S scores Σ_{i→right, i∈I+} w_i + Σ_{i→left, i∈I-} w_i = P + Σ_{j∈S} (N_j - P_j),
  with P the weighted positives and N_j, P_j the weighted negatives and positives with value j.
  Unrestricted groups take every j with N_j > P_j; restricted ones the best of their allowed subsets.
* height 2 (both children leaf-adjacent): every allowed test at k, each child solved as height 1 on the
  samples the test sends there. Only tests that split the samples at hand differently are enumerated: an
  unrestricted group's subsets range over the values present among these samples, and one of S and its
  complement is kept when every sample has exactly one of the group's values
  (:meth:`SubsetSubtreeSolver._root_subsets`). On a1a (Table 2, 200 rows) that is 2^12 tests of education's
  16 values on all rows, and 2^9-2^12 on the samples of a node of height 2.

Groups must have at most one 1 per row (a row with no 1 in a group always goes right). Each subtree solve of
height 2 costs O(D) time and memory per test, so data whose height-2 nodes have more than ``max_tests`` tests
on all rows (2^16 by default; an unrestricted group with 17 or more values present) are refused; ``max_card``
or ordinal groups lift the limit. The arrays of one solve are sized before the first one
(:meth:`SubsetSubtreeSolver.solve_bytes`) and data whose solves do not fit ``max_memory`` bytes (None: a quarter
of the machine's memory, :mod:`odtlib.models._resources`) are refused with that size; the cache of subtree
values keeps at most a quarter of the budget.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from odtlib.models._resources import MemoryBudgetError, format_bytes, one_blas_thread, resolve_max_memory
from odtlib.solvers import LazyRowFamily, LinearRow, Values

if TYPE_CHECKING:
    import pyomo.environ as pyo

    from odtlib.models.categorical.categorical_odt import Group
    from odtlib.models.categorical.topologies import Topology

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
    C of (8a); ``sample_weight``: the points' weights (None: 1), so that w_i = sample_weight_i on I+ and
    C·sample_weight_i on I- (module docstring); ``ordinal``/``max_card``: the model's test restrictions
    (:func:`allowed_subsets`); ``max_height``: 1 or 2, the highest subtree asked for; ``max_memory``: the byte
    budget of the module docstring.
    """

    def __init__(self, A: np.ndarray, positive: np.ndarray, groups: list[Group], class_weight: float = 1.0, *,
                 sample_weight: np.ndarray | None = None, ordinal: bool = True, max_card: int | None = None,
                 max_height: int = 2, max_tests: int = 2**16, max_memory: float | None = None):
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
        weight = np.ones(len(positive)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        self.w_pos = np.where(positive, weight, 0.0)
        self.w_neg = np.where(positive, 0.0, float(class_weight) * weight)
        bounds = np.cumsum([0] + [len(g.columns) for g in groups])
        self.slices = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
        self.subsets = [allowed_subsets(len(g.columns), ordinal and g.ordinal, max_card) for g in groups]
        self.max_memory = resolve_max_memory(max_memory)
        n_tests = self._check_test_count(max_tests) if max_height >= 2 else 0
        self._check_memory(n_tests)
        entry = len(self.X) + 200                                     # a cached key (one byte per row) and value
        self.value = lru_cache(maxsize=int(max(1, min(20000, self.max_memory // 4 // entry))))(self._value)

    def solve_bytes(self, n_tests: int) -> int:
        """Peak bytes of one subtree solve with ``n_tests`` tests at its height-2 node: the samples' columns
        (2·N·D), the co-occurrence gains (D^2) and, per test, the left child's gains and the right child's
        (D each) with the group maxima of both (2·D)."""
        n, d = self.X.shape
        return 8 * (2 * n * d + d * d + 4 * d * n_tests + 4 * n)

    def _check_memory(self, n_tests: int) -> None:
        needed = self.solve_bytes(n_tests) + self.X.nbytes
        if needed > self.max_memory * 3 // 4:
            raise MemoryBudgetError(
                f"the subtree decomposition needs about {format_bytes(needed)} per subtree solve ({self.X.shape[0]} "
                f"rows x {self.X.shape[1]} columns, {n_tests} tests per node of height 2), over three quarters of "
                f"max_memory = {format_bytes(self.max_memory)}; raise max_memory, set max_card, drop groups, or "
                "switch subtree_benders off")

    def _check_test_count(self, max_tests: int) -> int:
        """Refuse data whose height-2 nodes have more than ``max_tests`` tests on the whole training set (an
        upper bound on every subtree solve's count; each test costs O(D) work and memory per solve); return the
        count."""
        counts = [len(self._root_subsets(gi, self.X[:, part], count_only=True))
                  for gi, part in enumerate(self.slices)]
        if sum(counts) > max_tests:
            gi = int(np.argmax(counts))
            raise ValueError(
                f"the subtree decomposition enumerates every test of a node of height 2 on each subtree solve: "
                f"{sum(counts)} tests here, {counts[gi]} of them of group {self.groups[gi].name!r} (limit "
                f"max_tests={max_tests}); set max_card (e.g. 2, the paper's comb-con), drop groups, or switch "
                "subtree_benders off")
        return sum(counts)

    def _root_subsets(self, gi: int, X_g: np.ndarray, count_only: bool = False) -> np.ndarray | range:
        """The tests of group ``gi`` at a height-2 node on samples whose group columns are ``X_g``, as left
        subsets (rows, 0/1 over the group's values), keeping one test of each set of tests that split these
        samples alike:

        * a value none of the samples has may go either way, so an unrestricted group's subsets are those of
          its values present in ``X_g`` (a1a, 200 rows: 13 of education's 16 values, 10 of native-country's 33);
        * if every sample has exactly one of the group's values, S and its complement swap the two children,
          which have the same shape and labels, so only the subsets holding the first present value are kept
          (the allowed sets of Sections 4.4-4.5 are closed under complement).

        ``count_only``: a range as long as the list of subsets, without building it (for the size check)."""
        subsets = self.subsets[gi]
        present = np.flatnonzero(X_g.any(axis=0))
        one_hot = len(present) > 0 and bool((X_g.sum(axis=1) == 1).all())
        if subsets is not None:
            return subsets[subsets[:, present[0]] > 0.5] if one_hot else subsets
        free = present[1:] if one_hot else present
        if count_only:
            return range(2**len(free))
        subsets = np.zeros((2**len(free), X_g.shape[1]))
        subsets[:, free] = (np.arange(2**len(free))[:, None] >> np.arange(len(free))) & 1
        if one_hot:
            subsets[:, present[0]] = 1.0
        return subsets

    # ------------------------------------------------------------------ height 1
    def _group_gains(self, gain: np.ndarray) -> list[np.ndarray]:
        """Per group: the best Σ_{j∈S} gain_j over its allowed S, of shape gain.shape[1:] (the columns run along
        axis 0, so that a group's rows are contiguous); an unrestricted group's best S is {j: gain_j > 0}."""
        return [np.maximum(gain[part], 0.0).sum(axis=0) if subsets is None else (subsets @ gain[part]).max(axis=0)
                for part, subsets in zip(self.slices, self.subsets)]

    def height1(self, gain: np.ndarray, pos_total: np.ndarray) -> np.ndarray:
        """OPT_1 from the weighted negatives minus positives per column, ``gain`` of shape (D, ...), and the
        weighted positives ``pos_total`` (...)."""
        best = np.zeros(np.shape(pos_total))
        for group_best in self._group_gains(gain):
            best = np.maximum(best, group_best)
        return pos_total + best

    def _counts(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The samples of ``mask``: their columns, weights w+ and w-, and the gains N_j - P_j per column."""
        idx = np.flatnonzero(mask)
        X, wp, wn = self.X[idx], self.w_pos[idx], self.w_neg[idx]
        return X, wp, wn, (wn - wp) @ X

    # ------------------------------------------------------------------ height <= 2
    def _value(self, rows: bytes, height: int) -> float:
        mask = np.frombuffer(rows, dtype=bool)
        with one_blas_thread():
            if height == 1:
                _, wp, _, gain = self._counts(mask)
                return float(self.height1(gain, wp.sum()))
            return float(self._height2_values(mask)[1].max())

    def _height2_values(self, mask: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """Every group's tests at a height-2 node (:meth:`_root_subsets`), and OPT_1(left) + OPT_1(right) of
        each, in the order of the groups. With at most one 1 per group and row, sample i goes left under the
        subset T of group g iff Σ_{v∈T} x_iv = 1, so the left child's gains per column are
        (X^T diag(w- - w+) X_g) · T, co-occurrence counts (one column per test)."""
        X, wp, wn, gain = self._counts(mask)
        co_gain = (X * (wn - wp)[:, None]).T @ X
        pos, pos_total = wp @ X, wp.sum()
        subsets = [self._root_subsets(gi, X[:, part]) for gi, part in enumerate(self.slices)]
        gain_left = np.hstack([co_gain[:, part] @ left.T for left, part in zip(subsets, self.slices)])
        pos_left = np.concatenate([left @ pos[part] for left, part in zip(subsets, self.slices)])
        return subsets, (self.height1(gain_left, pos_left)
                         + self.height1(gain[:, None] - gain_left, pos_total - pos_left))

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
            _, _, _, gain = self._counts(mask)
            gi = int(np.argmax(self._group_gains(gain)))
            return [(gi, self._subset_columns(gi, gain))]
        subsets, values = self._height2_values(mask)
        best = int(values.argmax())
        ends = np.cumsum([len(left) for left in subsets])
        gi = int(np.searchsorted(ends, best, side="right"))
        left = subsets[gi][best - (ends[gi] - len(subsets[gi]))]
        goes_left = (self.X[:, self.slices[gi]] @ left) > 0.5
        chosen = [self.groups[gi].columns[p] for p in np.flatnonzero(left)]
        return [(gi, chosen)] + self.best_tests(mask & goes_left, 1) + self.best_tests(mask & ~goes_left, 1)

    def _subset_columns(self, gi: int, gain: np.ndarray) -> list[int]:
        """The best left subset of group ``gi`` at a leaf-adjacent node whose columns have gains ``gain``."""
        part, subsets = self.slices[gi], self.subsets[gi]
        picked = gain[part] > 0 if subsets is None else subsets[int((subsets @ gain[part]).argmax())] > 0.5
        return [self.groups[gi].columns[p] for p in np.flatnonzero(picked)]


class SubtreeBendersCuts(LazyRowFamily):
    """The cuts (SB) of the module docstring for a master of
    :func:`odtlib.models.categorical.categorical_odt.build_master` (``lazy(values)`` -> rows), on the master
    ``model`` and the exact subtree ``solver`` of the fit (it holds no estimator)."""

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

    def stats(self) -> dict:
        """The bounds OPT(S) of (SB) the separation asked for: ``subtree_solves`` computed by the subtree
        solver, ``cached_bounds`` read from its cache (a set S seen before)."""
        info = self.solver.value.cache_info()
        return {"subtree_solves": info.misses, "cached_bounds": info.hits}

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
