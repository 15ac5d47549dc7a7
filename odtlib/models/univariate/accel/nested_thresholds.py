"""Exact subtrees of depth <= 3 when the binary columns are nested thresholds of numeric features (issue 32).

D2S (:mod:`~odtlib.models.univariate.accel.d2s`, paper 003, Appendix B.1) treats every binary column as unrelated
to every other, so it counts every *pair* of columns: O(n·F^2) for F columns. On the class-change thresholds
of a continuous dataset (banknote: F = 1,515 columns from 4 features) that is billions of multiply-adds for one
depth-2 subtree, and the depth-3 scan's triple counts do not fit in memory at all.

The columns ``x_f <= t_1, x_f <= t_2, ...`` of one numeric feature f are *nested*: a row with x_f <= t_1 also has
x_f <= t_2 when t_1 < t_2. A row is then described, per feature, by its **level**: the number of f's thresholds
below its value, so that the column of the j-th threshold (0-based) is 1 exactly for the rows of level <= j.
Every split on f is a cut of the sorted levels, and the class counts on both sides of every cut are running
sums over the sorted levels, as ConTree's depth-two solver scans sorted values (Brița, van der Linden &
Demirović, 2025). Any other binary column (a one-hot category) is a chain of one threshold.

**Depth 2** (the value of D2S, eq. (40) of paper 003, on a subset S). For each feature f1 of the subtree's root
and each feature f2 of a child: the weighted class counts of S by (level of f1, level of f2) are one
``bincount``; running sums over f1's levels give the two sides of every root cut, running sums over f2's levels
the two leaves of every child cut. A side is a leaf or its best child split, whichever is better after the
penalty. The work is O(p·n + u1·U·K) per root feature (u1 levels of f1 in S, U levels of all features, K
classes) instead of O(n·F^2). Two reductions keep U small, both exact:

* only levels present in S are kept (a cut between two absent levels changes nothing);
* for a child split, whose two sides are leaves, adjacent levels whose rows of S all carry one same class are
  merged: moving a leaf cut across such a block moves points of one class from one leaf to the other, so the
  number of correct points is linear across the block and one of its ends is as good as any cut inside.

**Depth 3** (the bound of a height-3 path and the exact tree of depth 3). A tree of depth <= 3 is a leaf or a
root cut with depth-2 subtrees on both sides. For a root feature f0, the right side's value V_R(s) (rows of
level <= s) can only grow with s and the left side's V_L(s) only shrink, and moving the points of levels
(a, b] across changes a side's value by at most their weight W(a, b]. So over an interval [a, b] of cuts

    V(s) <= min( V_L(a) + V_R(b),  V(a) + W(a, b],  V(b) + W(a, b] ),

and the search evaluates both ends of every root feature's interval, then repeatedly bisects the interval of
largest bound, dropping intervals whose bound does not beat the best tree found (best-first branch and bound on
the cut position, as ConTree does on every level of its search). Depth-2 subtrees are cached by sample set.

Both searches stop as soon as a tree classifies every point with two leaves' penalty or less (nothing with a
split can do better). Values are in weighted sample counts: ``value = correct - alpha * leaves`` (paper 003's
count scale, see d2s). Ties prefer fewer leaves, then the first feature and cut found, except that a search
stopped by a tree that classifies every point keeps that tree.
"""
from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from odtlib.models._resources import MemoryBudgetError, format_bytes, resolve_max_memory
from odtlib.models.univariate.accel.d2s import SubsetCache

__all__ = ["NestedLevels", "NestedSubtree", "NestedSubtreeSolver"]

_FLOAT = 8


# ---------------------------------------------------------------------------------------------- data
@dataclass(frozen=True)
class NestedLevels:
    """Rows described by their level on each chain of nested thresholds.

    ``levels[i, f]`` is the number of thresholds of chain f below row i's value (0..``n_cuts[f]``): the j-th
    threshold of chain f (0-based) sends the rows of level <= j to the right (its 0/1 column is 1 there).
    """

    levels: np.ndarray
    n_cuts: np.ndarray

    def __post_init__(self) -> None:
        levels = np.ascontiguousarray(self.levels, dtype=np.int64)
        n_cuts = np.asarray(self.n_cuts, dtype=np.int64)
        if levels.ndim != 2 or n_cuts.shape != (levels.shape[1],):
            raise ValueError(f"levels must be (n, p) with one threshold count per column, got {levels.shape} and "
                             f"{n_cuts.shape}")
        if levels.size and (levels.min() < 0 or (levels > n_cuts[None, :]).any()):
            raise ValueError("a level must lie in 0..n_cuts of its chain")
        levels.setflags(write=False)
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "n_cuts", n_cuts)

    @property
    def n_samples(self) -> int:
        return self.levels.shape[0]

    @property
    def n_chains(self) -> int:
        return self.levels.shape[1]


@dataclass(frozen=True)
class NestedSubtree:
    """An optimal subtree found on levels: ``branch[node] = (chain, level)`` (rows of level <= ``level`` go to
    ``2*node + 1``, the others to ``2*node``), ``leaf[node] = class``; nodes are breadth-first ids from 1."""

    value: float
    n_correct: float
    branch: dict[int, tuple[int, int]] = field(default_factory=dict)
    leaf: dict[int, int] = field(default_factory=dict)

    @property
    def n_leaves(self) -> int:
        return len(self.leaf)

    def placed_at(self, node: int) -> tuple[dict, dict]:
        """``(branch, leaf)`` with local id m at depth d renumbered ``node * 2^d + (m - 2^d)``."""
        def moved(m: int) -> int:
            level = m.bit_length() - 1
            return node * 2**level + (m - 2**level)
        return {moved(m): s for m, s in self.branch.items()}, {moved(m): k for m, k in self.leaf.items()}

    def apply(self, levels: np.ndarray) -> np.ndarray:
        """Leaf id reached by each row of a levels matrix."""
        node = np.ones(levels.shape[0], dtype=np.int64)
        for m in sorted(self.branch):
            chain, cut = self.branch[m]
            here = node == m
            node[here] = 2 * m + (levels[here, chain] <= cut)
        return node


# ---------------------------------------------------------------------------------------------- kernels
def _class_counts(codes: np.ndarray, y: np.ndarray, w: np.ndarray, n_codes: int, n_classes: int) -> np.ndarray:
    """Weighted class counts per code, shape (n_codes, K)."""
    flat = np.bincount(codes * n_classes + y, weights=w, minlength=n_codes * n_classes)
    return flat.reshape(n_codes, n_classes)


def _present_levels(level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct levels, each row's index among them)."""
    return np.unique(level, return_inverse=True)


def _leaf_cut_levels(level: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Levels grouped for a cut between two leaves (module doc): adjacent present levels whose rows all carry one
    same class form one group. Returns (highest level of each group, each row's group)."""
    present, index = _present_levels(level)
    counts = _class_counts(index, y, w, len(present), n_classes)
    pure = (counts > 0).sum(axis=1) == 1
    label = np.where(pure, counts.argmax(axis=1), -1)
    starts = np.ones(len(present), dtype=bool)
    starts[1:] = ~(pure[1:] & pure[:-1] & (label[1:] == label[:-1]))
    group = np.cumsum(starts) - 1
    tops = present[np.r_[np.flatnonzero(starts)[1:] - 1, len(present) - 1]]
    return tops, group[index]


@dataclass
class _ChildCodes:
    """The leaf-cut groups of every chain of a sample set, laid side by side: chain f's groups are the columns
    ``offsets[f] .. offsets[f+1]-1`` of a (U, K) count array."""

    tops: list[np.ndarray]
    codes: np.ndarray             # (m, p): each row's column in the side-by-side layout
    offsets: np.ndarray           # (p + 1,)

    @property
    def width(self) -> int:
        return int(self.offsets[-1])

    def cut(self, column: int) -> tuple[int, int]:
        """(chain, level) of the cut after side-by-side column ``column``."""
        chain = int(np.searchsorted(self.offsets, column, side="right") - 1)
        return chain, int(self.tops[chain][column - self.offsets[chain]])


def _child_codes(levels: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int) -> _ChildCodes:
    tops, codes = zip(*(_leaf_cut_levels(levels[:, f], y, w, n_classes) for f in range(levels.shape[1])))
    offsets = np.r_[0, np.cumsum([len(t) for t in tops])].astype(np.int64)
    return _ChildCodes(list(tops), np.stack(codes, axis=1) + offsets[:-1][None, :], offsets)


# The scans below are plain loops compiled by numba: one pass over the sorted rows per root feature, with running
# class counts, is what makes the nested subroutine fast; numpy would need (levels x U x K) temporaries.
@numba.njit(cache=True)
def _chain_best_cut(counts, start, stop):
    """Best cut between two leaves among the columns start..stop-1 of one chain (rows at or below a column go
    right): (correct points, column), column -1 when the chain has a single column."""
    n_classes = counts.shape[1]
    total = np.zeros(n_classes)
    for c in range(start, stop):
        total += counts[c]
    below = np.zeros(n_classes)
    best, best_column = -1.0, -1
    for c in range(start, stop - 1):
        right_max, left_max = 0.0, 0.0
        for k in range(n_classes):
            below[k] += counts[c, k]
            right_max = max(right_max, below[k])
            left_max = max(left_max, total[k] - below[k])
        if right_max + left_max > best:
            best, best_column = right_max + left_max, c
    return best, best_column


@numba.njit(cache=True)
def _best_child_split(counts, offsets):
    """Best split of a node into two leaves over every chain: (correct points, side-by-side column or -1)."""
    best, best_column = -1.0, -1
    for f in range(len(offsets) - 1):
        correct, column = _chain_best_cut(counts, offsets[f], offsets[f + 1])
        if column >= 0 and correct > best:
            best, best_column = correct, column
    return best, best_column


@numba.njit(cache=True)
def _side_value(counts, total, offsets, alpha, tol):
    """A child of the subtree's root: a leaf, or its best split when strictly better after the penalty.
    Returns (value, column of the split or -1)."""
    leaf = total.max() - alpha
    split, column = _best_child_split(counts, offsets)
    if column >= 0 and split - 2 * alpha > leaf + tol:
        return split - 2 * alpha, column
    return leaf, -1


@numba.njit(cache=True)
def _cut_value(left, right, left_total, right_total, offsets, alpha, tol):
    """Value of a root cut whose sides have these counts: (value, leaves, left child column, right child column)."""
    left_value, left_column = _side_value(left, left_total, offsets, alpha, tol)
    right_value, right_column = _side_value(right, right_total, offsets, alpha, tol)
    return left_value + right_value, 2 + (left_column >= 0) + (right_column >= 0), left_column, right_column


@numba.njit(cache=True)
def _counts_at(cut_chain, cut_level, levels, codes, y, w, width, n_classes):
    """Side counts (left, right, left total, right total) of one root cut, from one pass over the rows."""
    left, right = np.zeros((width, n_classes)), np.zeros((width, n_classes))
    left_total, right_total = np.zeros(n_classes), np.zeros(n_classes)
    for r in range(codes.shape[0]):
        goes_right = levels[r, cut_chain] <= cut_level
        for f in range(codes.shape[1]):
            if goes_right:
                right[codes[r, f], y[r]] += w[r]
            else:
                left[codes[r, f], y[r]] += w[r]
        if goes_right:
            right_total[y[r]] += w[r]
        else:
            left_total[y[r]] += w[r]
    return left, right, left_total, right_total


@numba.njit(cache=True)
def _depth2_scan(order, levels, codes, offsets, tops, y, w, n_classes, alpha, tol, best_value, best_leaves):
    """The best depth-2 subtree with a root cut that beats (``best_value``, ``best_leaves``).

    First each root chain's best stump cut is evaluated, so that a good tree is known early. Then, for each root
    chain, the rows in level order move one by one from the left side (x == 0) to the right; at each cut both
    sides' best child splits are scanned from the running counts. A cut is skipped when the last evaluated cut's
    value plus the weight moved since cannot beat the best (the similarity bound of the module doc). ``tops``:
    the highest level of each side-by-side child column.
    Returns (value, leaves, root chain or -1, cut level, left child column or -1, right child column or -1)."""
    n_rows, n_chains = codes.shape
    width = offsets[-1]
    every, _none, total, _zero = _counts_at(0, -1, levels, codes, y, w, width, n_classes)
    ceiling = total.sum() - 2 * alpha                            # no root cut does better: every point correct
    found = (best_value, best_leaves, -1, 0, -1, -1)
    for f1 in range(n_chains):                                  # the stump cuts
        _correct, column = _chain_best_cut(every, offsets[f1], offsets[f1 + 1])
        if column >= 0:
            value, leaves, left_column, right_column = _cut_value(
                *_counts_at(f1, tops[column], levels, codes, y, w, width, n_classes), offsets, alpha, tol)
            if value > found[0] + tol or (value >= found[0] - tol and leaves < found[1]):
                found = (value, leaves, f1, tops[column], left_column, right_column)
    for f1 in range(n_chains):                                  # every cut, by the similarity bound
        if found[0] >= ceiling - tol:
            break
        left, right = every.copy(), np.zeros((width, n_classes))
        left_total, right_total = total.copy(), np.zeros(n_classes)
        last_value, moved = np.inf, 0.0
        for i in range(n_rows - 1):
            r = order[f1, i]
            for f in range(n_chains):
                left[codes[r, f], y[r]] -= w[r]
                right[codes[r, f], y[r]] += w[r]
            left_total[y[r]] -= w[r]
            right_total[y[r]] += w[r]
            moved += w[r]
            if levels[order[f1, i + 1], f1] == levels[r, f1]:
                continue                                    # no cut between rows of one level
            if last_value + moved <= found[0] + tol or found[0] >= ceiling - tol:
                continue
            value, leaves, left_column, right_column = _cut_value(left, right, left_total, right_total, offsets,
                                                                  alpha, tol)
            last_value, moved = value, 0.0
            if value > found[0] + tol or (value >= found[0] - tol and leaves < found[1]):
                found = (value, leaves, f1, levels[r, f1], left_column, right_column)
    return found


def _preferred(value: float, n_leaves: int, incumbent: NestedSubtree, tol: float) -> bool:
    """A tree of this value and size beats ``incumbent``: a larger value, or the same with fewer leaves."""
    return value > incumbent.value + tol or (value >= incumbent.value - tol and n_leaves < incumbent.n_leaves)


# ---------------------------------------------------------------------------------------------- solver
@dataclass(frozen=True)
class NestedCacheInfo:
    """Cache statistics of a :class:`NestedSubtreeSolver` (as ``functools.lru_cache``'s, plus the seconds of
    cold solves and, for depth 3, the root cuts whose sides were solved)."""

    hits: int
    misses: int
    currsize: int
    maxsize: int
    seconds: float
    root_cuts_evaluated: int


class NestedSubtreeSolver:
    """Optimal subtrees of depth <= 3 on nested levels (module doc), memoised by sample set.

    ``solve(samples, depth, leaf_penalty)`` returns a :class:`NestedSubtree`. Memory: a depth-2 solve counts one
    root feature's levels against every child column at a time, in blocks of root levels that fit
    ``max_memory`` (None: a quarter of the machine's memory); a :class:`MemoryBudgetError` names the size when
    even one root level does not fit.
    """

    def __init__(self, levels: NestedLevels, y: Any, n_classes: int, sample_weight: Any = None,
                 maxsize: int = 4096, max_memory: float | None = None) -> None:
        self.levels = levels
        self.y = np.asarray(y, dtype=np.int64)
        self.n_classes = int(n_classes)
        if self.y.shape != (levels.n_samples,):
            raise ValueError(f"y must have one class index per row ({levels.n_samples}), got shape {self.y.shape}")
        self.w = np.ones(levels.n_samples) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        self.max_memory = resolve_max_memory(max_memory)
        self.maxsize = self._fitted_cache_size(maxsize)
        self._cache = SubsetCache(self.maxsize)
        self._root_cuts = 0
        self._seconds = 0.0

    def working_bytes(self) -> int:
        """Peak bytes of one solve: the rows' levels, codes and sort orders (3·n·p numbers), six count arrays
        of (every child column) x K, and the masks of a depth-3 search's root cuts (n bytes each, at most one per
        cut)."""
        n, p = self.levels.levels.shape
        width = int((self.levels.n_cuts + 1).sum())
        return _FLOAT * (3 * n * p + 6 * width * self.n_classes) + n * width

    def _fitted_cache_size(self, maxsize: int) -> int:
        """``maxsize`` lowered so that the cache (a key of n/8 bytes and ~1 KiB of objects per entry) and a solve
        fit ``max_memory``; a :class:`MemoryBudgetError` names the size when a solve alone does not."""
        needed = self.working_bytes()
        if needed > self.max_memory:
            raise MemoryBudgetError(
                f"the nested-threshold search needs {format_bytes(needed)} for {self.levels.n_samples} rows x "
                f"{self.levels.n_chains} features ({int(self.levels.n_cuts.sum())} thresholds), over max_memory = "
                f"{format_bytes(self.max_memory)}; raise max_memory, or use fewer rows or thresholds "
                "(thresholds='quantile')")
        entry = self.levels.n_samples // 8 + 1024
        return max(1, min(int(maxsize), (self.max_memory - needed) // entry))

    # -------------------------------------------------------------- public
    def solve(self, samples: Any = None, depth: int = 2, leaf_penalty: float = 0.0) -> NestedSubtree:
        """The optimal subtree of depth <= ``depth`` (0..3) on the rows ``samples`` (mask, indices or None)."""
        mask = self._mask(samples)
        key = SubsetCache.key(mask, int(depth), float(leaf_penalty))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        start = time.perf_counter()
        rows = np.flatnonzero(mask)
        if depth == 3:
            result = self._depth3(mask, rows, float(leaf_penalty))
        else:
            result = self._depth2(rows, int(depth), float(leaf_penalty))
        self._seconds += time.perf_counter() - start
        self._cache.put(key, result)
        return result

    def cache_info(self) -> NestedCacheInfo:
        return NestedCacheInfo(self._cache.hits, self._cache.misses, len(self._cache), self.maxsize, self._seconds,
                               self._root_cuts)

    # -------------------------------------------------------------- depth <= 2
    def _mask(self, samples: Any) -> np.ndarray:
        n = self.levels.n_samples
        if samples is None:
            return np.ones(n, dtype=bool)
        samples = np.asarray(samples)
        if samples.dtype == bool:
            return samples
        mask = np.zeros(n, dtype=bool)
        mask[samples.astype(np.int64)] = True
        return mask

    def _leaf(self, y: np.ndarray, w: np.ndarray, alpha: float) -> NestedSubtree:
        counts = np.bincount(y, weights=w, minlength=self.n_classes)
        return NestedSubtree(float(counts.max()) - alpha, float(counts.max()), {}, {1: int(counts.argmax())})

    def _depth2(self, rows: np.ndarray, depth: int, alpha: float) -> NestedSubtree:
        """D2S's value (paper 003, eq. (40)) on levels: leaf, stump, three-leaf and full depth-2 trees."""
        levels, y, w = self.levels.levels[rows], self.y[rows], self.w[rows]
        best = self._leaf(y, w, alpha)
        if depth == 0 or len(rows) == 0 or levels.shape[1] == 0:
            return best
        tol = 1e-9 * max(1.0, float(w.sum()))
        child = _child_codes(levels, y, w, self.n_classes)
        if depth == 1:
            counts = _class_counts(child.codes.ravel(), np.repeat(y, levels.shape[1]),
                                   np.repeat(w, levels.shape[1]), child.width, self.n_classes)
            correct, column = _best_child_split(counts, child.offsets)
            if column >= 0 and _preferred(correct - 2 * alpha, 2, best, tol):
                return self._labelled(rows, {1: child.cut(int(column))}, alpha)
            return best
        order = np.ascontiguousarray(np.argsort(levels, axis=0, kind="stable").T)
        value, _leaves, f1, cut, left, right = _depth2_scan(
            order, levels, child.codes, child.offsets, np.concatenate(child.tops), y, w.astype(np.float64),
            self.n_classes, alpha, tol, best.value, 1)
        if f1 < 0:
            return best
        branch = {1: (int(f1), int(cut))}
        for node, column in ((2, left), (3, right)):
            if column >= 0:
                branch[node] = child.cut(int(column))
        return self._labelled(rows, branch, alpha)

    def _labelled(self, rows: np.ndarray, branch: dict[int, tuple[int, int]], alpha: float) -> NestedSubtree:
        """The subtree with cuts ``branch``, each leaf labelled with its heaviest class (smallest on ties), and
        its value recounted from the rows."""
        leaves = [c for m in branch for c in (2 * m, 2 * m + 1) if c not in branch]
        node = NestedSubtree(0.0, 0.0, branch).apply(self.levels.levels[rows])
        counts = _class_counts(node, self.y[rows], self.w[rows], max(leaves) + 1, self.n_classes)
        correct = float(sum(counts[m].max() for m in leaves))
        return NestedSubtree(correct - alpha * len(leaves), correct, dict(branch),
                             {m: int(counts[m].argmax()) for m in leaves})

    # -------------------------------------------------------------- depth 3
    def search_depth3(self, samples: Any = None, leaf_penalty: float = 0.0, time_limit: float | None = None
                      ) -> tuple[NestedSubtree, float]:
        """The depth-3 search (module doc) with a time limit: (best subtree found, upper bound of the optimal
        value). The bound equals the subtree's value when the search finished; after ``time_limit`` seconds it
        is the largest bound of the root-cut intervals not yet searched."""
        mask = self._mask(samples)
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        return self._depth3_search(mask, np.flatnonzero(mask), float(leaf_penalty), deadline)

    def _depth3(self, mask: np.ndarray, rows: np.ndarray, alpha: float) -> NestedSubtree:
        return self._depth3_search(mask, rows, alpha, None)[0]

    def _depth3_search(self, mask: np.ndarray, rows: np.ndarray, alpha: float, deadline: float | None
                       ) -> tuple[NestedSubtree, float]:
        """The optimal subtree of depth <= 3: the depth-2 optimum unless a root cut with depth-2 sides is strictly
        better, found by best-first bisection of each root feature's cut positions (module doc)."""
        incumbent = self.solve(mask, 2, alpha)
        tol = 1e-9 * max(1.0, float(self.w[rows].sum()))
        search = _RootCutSearch(self, mask, rows, alpha)
        heap: list = []
        chains = [f0 for f0 in range(self.levels.n_chains) if search.ends(f0) is not None]
        for f0 in chains:                        # a good tree early: each chain's best stump cut as the root cut
            incumbent = search.better(incumbent, f0, search.stump_cut(f0), tol)
        for f0 in chains:
            if incumbent.value >= search.ceiling - tol:
                break
            ends = search.ends(f0)
            for s in sorted(set(ends)):
                incumbent = search.better(incumbent, f0, s, tol)
            if ends[1] - ends[0] > 1:
                heapq.heappush(heap, (-search.bound(f0, *ends), f0, *ends))
        while heap:
            if deadline is not None and time.perf_counter() > deadline:
                self._root_cuts += search.evaluated
                return incumbent, max(incumbent.value, -heap[0][0])
            negative_bound, f0, a, b = heapq.heappop(heap)
            if -negative_bound <= incumbent.value + tol:
                break
            mid = (a + b) // 2
            incumbent = search.better(incumbent, f0, mid, tol)
            for lo, hi in ((a, mid), (mid, b)):
                bound = search.bound(f0, lo, hi)
                if hi - lo > 1 and bound > incumbent.value + tol:
                    heapq.heappush(heap, (-bound, f0, lo, hi))
        self._root_cuts += search.evaluated
        return incumbent, incumbent.value


class _RootCutSearch:
    """The root cuts of one depth-3 search: each evaluated cut's two depth-2 sides, and the interval bounds."""

    def __init__(self, solver: NestedSubtreeSolver, mask: np.ndarray, rows: np.ndarray, alpha: float) -> None:
        self.solver, self.mask, self.alpha = solver, mask, alpha
        self.rows = rows
        self.sides: dict[tuple[int, int], tuple[NestedSubtree, NestedSubtree]] = {}
        self.present: dict[int, np.ndarray] = {}
        self.weight_below: dict[int, np.ndarray] = {}
        self.evaluated = 0
        self.ceiling = float(solver.w[rows].sum()) - 2 * alpha    # a root cut at best classifies every point

    def ends(self, f0: int) -> tuple[int, int] | None:
        """First and last cut position of chain f0 on these rows (None: one level, no cut)."""
        level = self.solver.levels.levels[self.rows, f0]
        present, index = _present_levels(level)
        if len(present) < 2:
            return None
        self.present[f0] = present
        self.weight_below[f0] = np.cumsum(np.bincount(index, weights=self.solver.w[self.rows],
                                                      minlength=len(present)))
        return 0, len(present) - 2

    def stump_cut(self, f0: int) -> int:
        """The cut position of chain f0 with the most correct points when both sides are leaves."""
        level = self.solver.levels.levels[self.rows, f0]
        index = np.searchsorted(self.present[f0], level)
        counts = _class_counts(index, self.solver.y[self.rows], self.solver.w[self.rows], len(self.present[f0]),
                               self.solver.n_classes)
        right = np.cumsum(counts, axis=0)[:-1]
        return int(np.argmax(right.max(axis=1) + (counts.sum(axis=0) - right).max(axis=1)))

    def value(self, f0: int, s: int) -> tuple[NestedSubtree, NestedSubtree]:
        """The depth-2 optima of the two sides of cut s of chain f0 (left: levels above the cut)."""
        if (f0, s) not in self.sides:
            goes_right = self.solver.levels.levels[:, f0] <= self.present[f0][s]
            self.sides[f0, s] = (self.solver.solve(self.mask & ~goes_right, 2, self.alpha),
                                 self.solver.solve(self.mask & goes_right, 2, self.alpha))
            self.evaluated += 1
        return self.sides[f0, s]

    def bound(self, f0: int, a: int, b: int) -> float:
        """Upper bound of the value of every cut in [a, b] (module doc), from the evaluated ends."""
        (left_a, right_a), (left_b, right_b) = self.value(f0, a), self.value(f0, b)
        moved = self.weight_below[f0][b] - self.weight_below[f0][a]
        return min(left_a.value + right_b.value, left_a.value + right_a.value + moved,
                   left_b.value + right_b.value + moved, self.ceiling)

    def better(self, incumbent: NestedSubtree, f0: int, s: int, tol: float) -> NestedSubtree:
        """The tree with root cut s of chain f0 when strictly better than ``incumbent``, else ``incumbent``."""
        left, right = self.value(f0, s)
        if not _preferred(left.value + right.value, left.n_leaves + right.n_leaves, incumbent, tol):
            return incumbent
        branch, leaf = {1: (f0, int(self.present[f0][s]))}, {}
        for node, side in ((2, left), (3, right)):
            side_branch, side_leaf = side.placed_at(node)
            branch.update(side_branch)
            leaf.update(side_leaf)
        return NestedSubtree(left.value + right.value, left.n_correct + right.n_correct, branch, leaf)
