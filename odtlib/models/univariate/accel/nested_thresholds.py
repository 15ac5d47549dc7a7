"""Exact subtrees when the binary columns are nested thresholds of numeric features (issue 32).

D2S (:mod:`~odtlib.models.univariate.accel.d2s`, paper 003, Appendix B.1) treats every binary column as unrelated
to every other, so it counts every *pair* of columns: O(n·F^2) for F columns. On the class-change thresholds
of a continuous dataset (banknote: F = 1,515 columns from 4 features) that is billions of multiply-adds for one
depth-2 subtree, and the depth-3 scan's triple counts do not fit in memory at all.

The columns ``x_f <= t_1, x_f <= t_2, ...`` of one numeric feature f are *nested*: a row with x_f <= t_1 also has
x_f <= t_2 when t_1 < t_2. A row is then described, per feature, by its **level**: the number of f's thresholds
below its value, so that the column of the j-th threshold (0-based) is 1 exactly for the rows of level <= j.
Every split on f is a cut of the rows sorted by level. The search below is a branch and bound on those cut
positions at every depth, as ConTree's (Brița, van der Linden & Demirović, 2025); the code is ours.

**Two facts bound every cut.** Values are in weighted counts, ``value = correct - alpha * leaves`` (paper 003's
count scale, see d2s). For a root cut at position s of a sorted feature, let V_R(s) be the best subtree of the
rows at or below the cut (they go right) and V_L(s) that of the rows above it.

1. *Monotone sides.* A tree's value on a subset is at most its value on the whole set (the same tree classifies
   the extra rows too), so V_R(s) grows with s and V_L(s) shrinks.
2. *Similarity.* Moving rows of weight W from one side to the other changes V(s) = V_L(s) + V_R(s) by at most W.

So over the cuts strictly between two evaluated cuts a < b, with W(a, s] the weight between a and s,

    V(s) <= V_L(a) + V_R(b)        and        V(s) <= V(a) + W(a, s],  V(s) <= V(b) + W(s, b].

Both hold when the values at a and b are only upper bounds, which is what a solve asked to beat a target returns.

**The search on one root feature** keeps a queue of intervals of unevaluated cuts with their evaluated neighbours.
An interval is first shrunk by the similarity bounds against the best value found (cuts within reach of a poor
neighbour cannot win) and dropped by the monotone bound; otherwise its middle cut is evaluated and the two halves
are queued. Each feature's best stump cut is evaluated first, so that a good tree is known early.

**Depth 2.** Evaluating a root cut needs the best split of each side into two leaves. One pass over the rows in
each feature's sorted order, each row counted on its side, gives every child cut's class counts as running sums
(O(m·p) per root cut for m rows and p features). Inside that pass a child cut is skipped while the last evaluated
cut's correct weight plus the weight moved since cannot beat the side's best (the similarity bound again).
The whole depth-2 search is compiled (numba); it starts from the rows' order in each feature, taken from the
feature orders of all rows, so nothing is sorted per subset.

**Depth 3 and more.** A root cut's sides are searches one level shallower (depth 2: the compiled search), and
the search starts from the best subtree one level shallower. Each side is asked only to beat the value it needs
for the cut to beat the best tree: the heavier side first, assuming the lighter one perfect, then the lighter
one given the heavier one's value. Both targets are lowered by the weight between the cut and the ends of its
interval, so that when a side cannot reach its target the similarity bound drops the whole interval at once. A
side that cannot reach its target is bounded by the target instead of solved. A time limit stops the search
between root cuts, with the best tree found and the largest bound of the cuts not searched.

**0/1 features.** When every feature has a single threshold, each has one cut, and scanning the rows once per
root cut is the slow way to count: D2S's pair and triple counts
(:class:`~odtlib.models.univariate.accel.d2s.Depth2Solver`) score every root feature at once (kr-vs-kp, 38
columns, depth 3: 0.02-0.04 s against 1.6 s for the scans). The solver then takes subtrees of depth <= 3 from
D2S (which is exact) and searches root cuts only above that depth.

**Leaves and classes.** With a leaf penalty, a third fact bounds a subtree of depth >= 3 before any cut is
searched: L leaves predict at most L classes, so on rows holding k classes they misclassify at least the k - L
lightest of them when L < k, and pay alpha for each leaf:

    value <= max over L >= L_min of  W - (weight of the max(k - L, 0) lightest classes) - alpha * L.

With L_min = 2 (a tree with a split) this is the ceiling a root-cut search stops at; with L_min = 1 a side whose
bound is below its target is not searched, and the lighter side's value is assumed no more than it. Without a
penalty the ceiling is W, every point classified. On soybean-small (47 rows, 4 classes, four leaves classify every
row) the ceiling at depth 5 and λ = 0.01 is the depth-2 tree's own value, which then closes the search at once
(24 s before).

A root-cut search stops as soon as a tree reaches that ceiling, the depth-2 search as soon as a tree classifies
every point with two leaves' penalty (no tree with a split does better). Ties prefer fewer leaves among the trees
evaluated, then the first feature and cut found.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from odtlib.models._resources import MemoryBudgetError, format_bytes, resolve_max_memory
from odtlib.models.univariate.accel.d2s import Depth2Solver, SubsetCache

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
        return _placed(self.branch, node), _placed(self.leaf, node)

    def apply(self, levels: np.ndarray) -> np.ndarray:
        """Leaf id reached by each row of a levels matrix."""
        node = np.ones(levels.shape[0], dtype=np.int64)
        for m in sorted(self.branch):
            chain, cut = self.branch[m]
            here = node == m
            node[here] = 2 * m + (levels[here, chain] <= cut)
        return node


def _placed(nodes: dict, node: int) -> dict:
    """A subtree's nodes (local breadth-first ids from 1) renumbered for its root at ``node``: local id m at
    depth d becomes ``node * 2^d + (m - 2^d)``."""
    def moved(m: int) -> int:
        level = m.bit_length() - 1
        return node * 2**level + (m - 2**level)
    return {moved(m): value for m, value in nodes.items()}


# ---------------------------------------------------------------------------------------------- kernels
# Plain loops compiled by numba: one pass over the sorted rows per feature and root cut, with running class
# counts, is what makes the search fast (module doc).
@numba.njit(cache=True)
def _rows_in_order(orders, mask):
    """The rows of ``mask`` in each feature's sorted order, (p, m), from the sorted orders of all rows (p, n)."""
    n_chains, n = orders.shape
    m = 0
    for r in range(n):
        if mask[r]:
            m += 1
    rows = np.empty((n_chains, m), dtype=np.int64)
    for f in range(n_chains):
        k = 0
        for i in range(n):
            if mask[orders[f, i]]:
                rows[f, k] = orders[f, i]
                k += 1
    return rows


@numba.njit(cache=True)
def _tolerance(weight):
    """Values closer than this are equal: a relative 1e-9 of the rows' total weight."""
    return 1e-9 * max(1.0, weight)


@numba.njit(cache=True)
def _two_leaves(below, total):
    """Correct weight of a cut into two leaves, each predicting its heaviest class."""
    right_max, left_max = 0.0, 0.0
    for k in range(len(total)):
        right_max = max(right_max, below[k])
        left_max = max(left_max, total[k] - below[k])
    return right_max + left_max


@numba.njit(cache=True)
def _root_cuts(sorted_rows, levels, chain, y, w, n_classes):
    """The cuts of one feature over rows sorted by it: (level of each cut, weight at or below each cut, the cut
    whose two sides as leaves classify the most weight). Rows at or below a cut's level go right."""
    m = len(sorted_rows)
    cut_level = np.empty(max(m - 1, 0), dtype=np.int64)
    weight_below = np.empty(max(m - 1, 0))
    total = np.zeros(n_classes)
    for i in range(m):
        total[y[sorted_rows[i]]] += w[sorted_rows[i]]
    below = np.zeros(n_classes)
    k, moved, stump, stump_correct = 0, 0.0, 0, -1.0
    for i in range(m - 1):
        r = sorted_rows[i]
        below[y[r]] += w[r]
        moved += w[r]
        if levels[sorted_rows[i + 1], chain] == levels[r, chain]:
            continue
        correct = _two_leaves(below, total)
        if correct > stump_correct:
            stump, stump_correct = k, correct
        cut_level[k], weight_below[k] = levels[r, chain], moved
        k += 1
    return cut_level[:k], weight_below[:k], stump


@numba.njit(cache=True)
def _settled(reach, unseen, best, tol):
    """No later cut of a side's scan can beat ``best``: no weight is left to move, or the last evaluated cut
    plus every weight moved since and still to come cannot."""
    return unseen <= tol or reach + unseen <= best + tol


@numba.njit(cache=True)
def _leaf_splits(sorted_rows, levels, side, totals, y, w, alpha, tol, split):
    """The best split into two leaves of each of two sides (``side[r]``: the side of row r; ``totals[s]``: side
    s's class weights) over every feature and cut, kept when it beats the side's leaf by more than ``alpha``.
    Writes ``split[s] = (chain, level)`` (-1, -1: the side stays a leaf) and returns both sides' values.

    One pass per feature over the rows in its order; a cut is skipped while the last evaluated cut's correct
    weight plus the weight moved since cannot beat the side's best (module doc)."""
    n_chains, m = sorted_rows.shape
    n_classes = totals.shape[1]
    best, whole = np.empty(2), np.empty(2)
    for s in range(2):
        best[s] = totals[s].max() + alpha            # a split's correct weight must beat this
        whole[s] = totals[s].sum()
        split[s, 0], split[s, 1] = -1, -1
    below = np.zeros((2, n_classes))
    last, moved, seen = np.empty(2), np.empty(2), np.empty(2)
    previous = np.empty(2, dtype=np.int64)
    for f in range(n_chains):
        if best[0] >= whole[0] - tol and best[1] >= whole[1] - tol:
            break                                        # both sides classify every point
        below[:] = 0.0
        last[:] = np.inf
        moved[:] = 0.0
        seen[:] = 0.0
        previous[:] = -1
        for i in range(m):
            r = sorted_rows[f, i]
            s = side[r]
            level = levels[r, f]
            if previous[s] >= 0 and level != previous[s] and last[s] + moved[s] > best[s] + tol:
                last[s], moved[s] = _two_leaves(below[s], totals[s]), 0.0
                if last[s] > best[s] + tol:
                    best[s] = last[s]
                    split[s, 0], split[s, 1] = f, previous[s]
            below[s, y[r]] += w[r]
            moved[s] += w[r]
            seen[s] += w[r]
            previous[s] = level
            if _settled(last[0] + moved[0], whole[0] - seen[0], best[0], tol) and \
                    _settled(last[1] + moved[1], whole[1] - seen[1], best[1], tol):
                break                                    # no later cut of this feature wins on either side
    values = np.empty(2)
    for s in range(2):
        values[s] = best[s] - 2 * alpha if split[s, 0] >= 0 else totals[s].max() - alpha
    return values


@numba.njit(cache=True)
def _evaluate_cut(sorted_rows, levels, chain, level, y, w, n_classes, alpha, tol, side, split):
    """Both sides of the root cut (chain, level) of a depth-2 subtree, each a leaf or its best leaf split:
    (left value, right value); ``split`` as in :func:`_leaf_splits` (row 0: left side, rows above the cut)."""
    totals = np.zeros((2, n_classes))
    for i in range(sorted_rows.shape[1]):
        r = sorted_rows[0, i]
        side[r] = 1 if levels[r, chain] <= level else 0
        totals[side[r], y[r]] += w[r]
    return _leaf_splits(sorted_rows, levels, side, totals, y, w, alpha, tol, split)


@numba.njit(cache=True)
def _interval_bound(weight_below, left, right, lo, hi, a, b, total, alpha):
    """Upper bound of the value of every cut in lo..hi, between the evaluated cuts a < lo and b > hi (-1: none),
    from the bounds of the module doc; ``left``/``right``: upper bounds of the sides' values at the evaluated
    cuts, ``total``: the weight of the rows. inf when neither neighbour is known."""
    bound = np.inf
    if a >= 0:
        bound = min(bound, left[a] + right[a] + weight_below[hi] - weight_below[a],     # similarity
                    right[a] + (total - weight_below[a]) - alpha)                    # a perfect left side
    if b >= 0:
        bound = min(bound, left[b] + right[b] + weight_below[b] - weight_below[lo],
                    left[b] + weight_below[b] - alpha)                               # a perfect right side
    if a >= 0 and b >= 0:
        bound = min(bound, left[a] + right[b],                                      # monotone sides
                    right[a] + left[b] + weight_below[b] - weight_below[a])         # both sides by similarity
    return bound


@numba.njit(cache=True)
def _shrunk(weight_below, left, right, lo, hi, a, b, total, alpha, best, tol):
    """The cuts of lo..hi (between the evaluated cuts a and b, as in :func:`_interval_bound`) that may still
    beat ``best``, as (lo, hi); empty when lo > hi. The interval is dropped when its bound does not beat
    ``best``, and shrunk by the similarity bound from each neighbour (a cut within reach of a poor neighbour
    cannot win)."""
    if _interval_bound(weight_below, left, right, lo, hi, a, b, total, alpha) <= best + tol:
        return 1, 0
    if a >= 0:
        reach = weight_below[a] + (best - left[a] - right[a]) + tol
        lo = max(lo, np.searchsorted(weight_below, reach, side="right"))
    if b >= 0:
        reach = weight_below[b] - (best - left[b] - right[b]) - tol
        hi = min(hi, np.searchsorted(weight_below, reach, side="left") - 1)
    return lo, hi


@numba.njit(cache=True)
def _push(queue, tail, lo, hi, a, b):
    queue[tail, 0], queue[tail, 1], queue[tail, 2], queue[tail, 3] = lo, hi, a, b
    return tail + 1


@numba.njit(cache=True)
def _depth2_search(mask, orders, levels, y, w, n_classes, alpha, target, tree):
    """The best subtree of depth <= 2 of the rows of ``mask`` whose value beats ``target`` (module doc).

    Each feature's stump cut is evaluated first; then the features are searched from the best stump down.
    Writes the tree into ``tree``: (root chain, root level, left chain, left level, right chain, right level),
    -1 where a node is a leaf or absent. Returns (value, found); when no subtree beats ``target``, found is
    False and the value is ``target``, an upper bound of the optimum."""
    sorted_rows = _rows_in_order(orders, mask)
    n_chains, m = sorted_rows.shape
    tree[:] = -1
    total = np.zeros(n_classes)
    for r in range(len(mask)):
        if mask[r]:
            total[y[r]] += w[r]
    tol = _tolerance(total.sum())
    state = np.empty(3)                                   # best value, its leaves, found (1.0) or not (0.0)
    state[0], state[1], state[2] = total.max() - alpha, 1.0, 1.0
    if state[0] < target:
        state[0], state[2] = target, 0.0
    weight = total.sum()
    ceiling = weight - 2 * alpha                          # a root cut at best classifies every point
    side = np.zeros(levels.shape[0], dtype=np.int8)
    split = np.empty((2, 2), dtype=np.int64)
    cut_level, weight_below = np.empty((n_chains, max(m - 1, 1)), dtype=np.int64), np.empty((n_chains, max(m - 1, 1)))
    left, right = np.empty((n_chains, max(m - 1, 1))), np.empty((n_chains, max(m - 1, 1)))
    n_cuts, stump, stump_value = np.zeros(n_chains, dtype=np.int64), np.zeros(n_chains, dtype=np.int64), \
        np.full(n_chains, -np.inf)
    for chain in range(n_chains):                         # every feature's stump cut
        if state[0] >= ceiling - tol:
            break
        levels_here, below_here, stump[chain] = _root_cuts(sorted_rows[chain], levels, chain, y, w, n_classes)
        n_cuts[chain] = len(levels_here)
        if n_cuts[chain] == 0:
            continue
        cut_level[chain, :n_cuts[chain]], weight_below[chain, :n_cuts[chain]] = levels_here, below_here
        stump_value[chain] = _try_cut(sorted_rows, levels, chain, stump[chain], cut_level[chain], left[chain],
                                      right[chain], y, w, n_classes, alpha, tol, side, split, state, tree)
    for chain in np.argsort(-stump_value):                # then the cuts around it, best stump first
        k = n_cuts[chain]
        if k == 0 or state[0] >= ceiling - tol:
            continue
        queue = np.empty((2 * k, 4), dtype=np.int64)     # intervals (lo, hi, a, b): module doc
        tail = 0
        if stump[chain] > 0:
            tail = _push(queue, tail, 0, stump[chain] - 1, -1, stump[chain])
        if stump[chain] < k - 1:
            tail = _push(queue, tail, stump[chain] + 1, k - 1, stump[chain], -1)
        head = 0
        while head < tail and state[0] < ceiling - tol:
            lo, hi, a, b = queue[head, 0], queue[head, 1], queue[head, 2], queue[head, 3]
            head += 1
            lo, hi = _shrunk(weight_below[chain, :k], left[chain], right[chain], lo, hi, a, b, weight, alpha,
                             state[0], tol)
            if lo > hi:
                continue
            mid = (lo + hi) // 2
            _try_cut(sorted_rows, levels, chain, mid, cut_level[chain], left[chain], right[chain], y, w, n_classes,
                     alpha, tol, side, split, state, tree)
            if lo < mid:
                tail = _push(queue, tail, lo, mid - 1, a, mid)
            if mid < hi:
                tail = _push(queue, tail, mid + 1, hi, mid, b)
    return state[0], state[2] > 0


@numba.njit(cache=True)
def _try_cut(sorted_rows, levels, chain, s, cut_level, left, right, y, w, n_classes, alpha, tol, side, split, state,
             tree):
    """Evaluate root cut s of ``chain`` (records both sides' values in ``left``/``right``) and keep it in
    ``state``/``tree`` (see :func:`_depth2_search`) when it is better; returns its value."""
    left[s], right[s] = _evaluate_cut(sorted_rows, levels, chain, cut_level[s], y, w, n_classes, alpha, tol, side,
                                      split)
    value = left[s] + right[s]
    n_leaves = 2 + (split[0, 0] >= 0) + (split[1, 0] >= 0)
    if value > state[0] + tol or (state[2] > 0 and value >= state[0] - tol and n_leaves < state[1]):
        state[0], state[1], state[2] = value, n_leaves, 1.0
        tree[0], tree[1] = chain, cut_level[s]
        tree[2], tree[3], tree[4], tree[5] = split[0, 0], split[0, 1], split[1, 0], split[1, 1]
    return value


@numba.njit(cache=True)
def _depth1_search(mask, orders, levels, y, w, n_classes, alpha, tree):
    """The best subtree of depth <= 1 of the rows of ``mask``: writes (chain, level) of its split into
    ``tree[:2]`` (-1: a leaf) and returns its value."""
    sorted_rows = _rows_in_order(orders, mask)
    totals = np.zeros((2, n_classes))
    side = np.zeros(levels.shape[0], dtype=np.int8)
    for r in range(len(mask)):
        if mask[r]:
            totals[0, y[r]] += w[r]
    split = np.empty((2, 2), dtype=np.int64)
    value = _leaf_splits(sorted_rows, levels, side, totals, y, w, alpha, _tolerance(totals.sum()), split)[0]
    tree[0], tree[1] = split[0, 0], split[0, 1]
    return value


def _class_counts(codes: np.ndarray, y: np.ndarray, w: np.ndarray, n_codes: int, n_classes: int) -> np.ndarray:
    """Weighted class counts per code, shape (n_codes, K)."""
    flat = np.bincount(codes * n_classes + y, weights=w, minlength=n_codes * n_classes)
    return flat.reshape(n_codes, n_classes)


def _branch(tree: np.ndarray) -> dict[int, tuple[int, int]]:
    """The cuts of a depth-2 tree array of the kernels (``_depth2_search``), on local node ids 1..3."""
    return {node: (int(tree[2 * i]), int(tree[2 * i + 1])) for i, node in enumerate((1, 2, 3))
            if tree[2 * i] >= 0 and (node == 1 or tree[0] >= 0)}


# ---------------------------------------------------------------------------------------------- solver
@dataclass(frozen=True)
class NestedCacheInfo:
    """Cache statistics of a :class:`NestedSubtreeSolver` (as ``functools.lru_cache``'s, plus the seconds of
    cold solves and, for depth >= 3, the root cuts of the outermost search whose sides were searched)."""

    hits: int
    misses: int
    currsize: int
    maxsize: int
    seconds: float
    root_cuts_evaluated: int


class NestedSubtreeSolver:
    """Optimal subtrees of depth <= ``max_depth`` on nested levels (module doc), memoised by sample set.

    ``solve(samples, depth, leaf_penalty)`` returns a :class:`NestedSubtree`. Memory is sized before anything is
    allocated (:meth:`working_bytes`); a :class:`MemoryBudgetError` names the size when a search does not fit
    ``max_memory`` (None: a quarter of the machine's memory). ``pair_counts`` (None: when every feature is 0/1)
    takes subtrees of depth <= 3 from D2S's pair and triple counts instead of the scans (module doc); False
    keeps the scans, the toggle the tests compare.
    """

    def __init__(self, levels: NestedLevels, y: Any, n_classes: int, sample_weight: Any = None,
                 maxsize: int = 4096, max_memory: float | None = None, max_depth: int = 3,
                 pair_counts: bool | None = None) -> None:
        self.levels = levels
        self.max_depth = int(max_depth)
        self.y = np.asarray(y, dtype=np.int64)
        self.n_classes = int(n_classes)
        if self.y.shape != (levels.n_samples,):
            raise ValueError(f"y must have one class index per row ({levels.n_samples}), got shape {self.y.shape}")
        self.w = np.ones(levels.n_samples) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        self.max_memory = resolve_max_memory(max_memory)
        self.maxsize = self._fitted_cache_size(maxsize)
        self._orders = np.ascontiguousarray(np.argsort(levels.levels, axis=0, kind="stable").T)
        self._levels = levels.levels.copy()       # writable: numba dispatches read-only arrays ~100 us slower
        self._cache = SubsetCache(self.maxsize)
        self._root_cuts = 0
        self._seconds = 0.0
        binary = levels.n_chains > 0 and bool((levels.n_cuts <= 1).all())
        if pair_counts and not binary:
            raise ValueError("pair_counts=True needs 0/1 features (at most one threshold each); leave it None")
        self._pairs = self._pair_counts() if binary and pair_counts is not False else None

    def _pair_counts(self) -> Depth2Solver | None:
        """D2S on the 0/1 columns of the features, for subtrees of depth <= 3 (module doc: binary features), or
        None when its count arrays do not fit the memory left."""
        binary = (self.levels.levels == 0).astype(np.int8)      # 1: at or below the one threshold (goes right)
        try:
            return Depth2Solver(binary, self.y, self.w, self.n_classes,
                                max_memory=max(self.max_memory - self.working_bytes(), 1))
        except MemoryBudgetError:
            return None

    def working_bytes(self) -> int:
        """Peak bytes of a search of depth ``max_depth``, in numbers of 8 bytes for n rows and p features: the
        levels, their writable copy and the feature orders (3·n·p); the root cuts with their bounds of each
        search level above 2 (4·n·p each); a depth-2 search's rows in feature order, cuts and bounds (5·n·p) and
        its queue of intervals (8·n); and per-row masks and sides (16·n bytes per level)."""
        n, p = self.levels.levels.shape
        levels_above_2 = max(self.max_depth - 2, 0)
        return _FLOAT * ((8 + 4 * levels_above_2) * n * p + 8 * n) + 16 * n * max(self.max_depth, 1)

    def _fitted_cache_size(self, maxsize: int) -> int:
        """``maxsize`` lowered so that the cache (a key of n/8 bytes and ~1 KiB of objects per entry) and a search
        fit ``max_memory``; a :class:`MemoryBudgetError` names the size when a search alone does not."""
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
        """The optimal subtree of depth <= ``depth`` (0..``max_depth``) on the rows ``samples`` (mask, indices or
        None)."""
        self._check_depth(depth)
        mask = self._mask(samples)
        key = SubsetCache.key(mask, int(depth), float(leaf_penalty))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        start = time.perf_counter()
        if depth >= 3:
            result = self._deep_search(mask, int(depth), float(leaf_penalty), None)[0]
        else:
            branch = self._subtree(mask, int(depth), float(leaf_penalty), -np.inf, None)[2]
            result = self._labelled(np.flatnonzero(mask), branch, float(leaf_penalty))
        self._seconds += time.perf_counter() - start
        self._cache.put(key, result)
        return result

    def search(self, samples: Any = None, depth: int = 3, leaf_penalty: float = 0.0,
               time_limit: float | None = None) -> tuple[NestedSubtree, float]:
        """The search of :meth:`solve` with a time limit: (best subtree found, upper bound of the optimal value).
        The bound equals the subtree's value when the search finished; after ``time_limit`` seconds it is the
        largest bound of the root cuts not yet searched (depths >= 3; shallower searches take milliseconds)."""
        self._check_depth(depth)
        if depth <= 2:
            found = self.solve(samples, depth, leaf_penalty)
            return found, found.value
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        return self._deep_search(self._mask(samples), int(depth), float(leaf_penalty), deadline)

    def _check_depth(self, depth: int) -> None:
        if not 0 <= depth <= self.max_depth:
            raise ValueError(f"depth must be in 0..{self.max_depth} (the solver's max_depth), got {depth}")

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

    def _search(self, mask: np.ndarray, alpha: float, target: float, tree: np.ndarray) -> tuple[float, bool]:
        """The compiled depth-2 search (``_depth2_search``) of the rows of ``mask``."""
        return _depth2_search(mask, self._orders, self._levels, self.y, self.w, self.n_classes, alpha,
                              target, tree)

    def _labelled(self, rows: np.ndarray, branch: dict[int, tuple[int, int]], alpha: float) -> NestedSubtree:
        """The subtree with cuts ``branch``, each leaf labelled with its heaviest class (smallest on ties), and
        its value recounted from the rows."""
        leaves = [c for m in branch for c in (2 * m, 2 * m + 1) if c not in branch] or [1]
        node = NestedSubtree(0.0, 0.0, branch).apply(self.levels.levels[rows])
        counts = _class_counts(node, self.y[rows], self.w[rows], max(leaves) + 1, self.n_classes)
        correct = float(sum(counts[m].max() for m in leaves))
        return NestedSubtree(correct - alpha * len(leaves), correct, dict(branch),
                             {m: int(counts[m].argmax()) for m in leaves})

    # -------------------------------------------------------------- depth >= 3
    def _subtree(self, mask: np.ndarray, depth: int, alpha: float, target: float, deadline: float | None
                 ) -> tuple[float, bool, dict[int, tuple[int, int]]]:
        """The best subtree of depth <= ``depth`` of the rows of ``mask`` whose value beats ``target``: (value,
        found, cuts on local ids) as in ``_depth2_search``; deeper than 2, a root-cut search whose sides are
        searched the same way one level down. Raises :class:`_TimeUp` past ``deadline``."""
        if self._pairs is not None and depth <= self._pairs.max_depth:
            found = self._pairs.solve(mask, depth, alpha)
            branch = {node: (int(chain), 0) for node, chain in found.subtree.branch.items()}
            return (found.value, True, branch) if found.value >= target else (target, False, {})
        if depth <= 2:
            tree = np.full(6, -1, dtype=np.int64)
            if depth == 2:
                value, found = self._search(mask, alpha, target, tree)
            else:
                value, found = self._shallow_value(mask, depth, alpha, target, tree)
            return value, found, _branch(tree)
        class_weight = self._class_weight(mask)
        if _leaf_ceiling(class_weight, alpha, 1) < target - _tolerance(class_weight.sum()):
            return target, False, {}                        # no subtree of these rows reaches the target
        search = _RootCutSearch(self, mask, class_weight, depth, alpha, target, deadline)
        if not search.run():
            raise _TimeUp
        return search.best, search.found, search.branch

    def _class_weight(self, mask: np.ndarray) -> np.ndarray:
        """Weight of each class among the rows of ``mask``."""
        return np.bincount(self.y[mask], weights=self.w[mask], minlength=self.n_classes)

    def _shallow_value(self, mask: np.ndarray, depth: int, alpha: float, target: float, tree: np.ndarray
                       ) -> tuple[float, bool]:
        """``_subtree`` at depth 0 or 1."""
        if depth == 1:
            value = _depth1_search(mask, self._orders, self._levels, self.y, self.w, self.n_classes, alpha, tree)
        else:
            value = float(self._class_weight(mask).max()) - alpha
        return (value, True) if value >= target else (target, False)

    def _deep_search(self, mask: np.ndarray, depth: int, alpha: float, deadline: float | None
                     ) -> tuple[NestedSubtree, float]:
        """The optimal subtree of depth <= ``depth`` (>= 3): (subtree, upper bound of the optimal value). The
        bound equals the value when the search finished. When ``deadline`` passes it is the largest bound of the
        root cuts not yet searched, and the subtree is the best found (at least the depth-2 optimum)."""
        rows = np.flatnonzero(mask)
        try:
            search = _RootCutSearch(self, mask, self._class_weight(mask), depth, alpha, -np.inf, deadline)
        except _TimeUp:                           # not even the depth-1 shallower optimum in time
            fallback = self.solve(mask, 2, alpha)
            return fallback, max(fallback.value, float(self.w[mask].sum()) - 2 * alpha)
        try:
            search.run()
        finally:
            self._root_cuts += search.evaluated
        return self._labelled(rows, search.branch, alpha), search.bound


def _leaf_ceiling(class_weight: np.ndarray, alpha: float, min_leaves: int) -> float:
    """Upper bound of the value of any subtree with at least ``min_leaves`` leaves on rows of these class weights
    (module doc, "Leaves and classes"): L leaves miss at least the k - L lightest of the k classes present."""
    present = np.sort(class_weight[class_weight > 0])
    missed = np.concatenate(([0.0], np.cumsum(present)))         # missed[j]: weight of the j lightest classes
    total, k = float(missed[-1]), len(present)
    return max(total - float(missed[max(k - leaves, 0)]) - alpha * leaves
               for leaves in range(min_leaves, max(k, min_leaves) + 1))


class _TimeUp(Exception):
    """The deadline passed inside a nested root-cut search, whose result would not be exact."""


@dataclass
class _RootFeature:
    """The cuts of one root feature in a root-cut search: each cut's level, the weight at or below it, and upper
    bounds of both sides' values at the evaluated cuts."""

    chain: int
    level: np.ndarray
    weight_below: np.ndarray
    stump: int
    left: np.ndarray = field(init=False)
    right: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.left, self.right = np.full(len(self.level), np.inf), np.full(len(self.level), np.inf)

    def bound(self, lo: int, hi: int, a: int, b: int, total: float, alpha: float) -> float:
        """Upper bound of the value of every cut in lo..hi, from the evaluated neighbours a and b (module doc)."""
        return min(_interval_bound(self.weight_below, self.left, self.right, lo, hi, a, b, total, alpha),
                   total - 2 * alpha)


class _RootCutSearch:
    """One search for a subtree of depth >= 3 (module doc): the best subtree one level shallower, then a queue of
    intervals of root cuts on every feature, each evaluated cut's sides searched one level down with the
    targets that make the cut matter. ``best``/``found``/``branch``: as ``NestedSubtreeSolver._subtree``."""

    def __init__(self, solver: NestedSubtreeSolver, mask: np.ndarray, class_weight: np.ndarray, depth: int,
                 alpha: float, target: float, deadline: float | None) -> None:
        self.solver, self.mask, self.depth, self.alpha, self.deadline = solver, mask, depth, alpha, deadline
        self.best, self.found, self.branch = solver._subtree(mask, depth - 1, alpha, target, deadline)
        self.weight = float(class_weight.sum())
        self.tol = _tolerance(self.weight)
        self.ceiling = _leaf_ceiling(class_weight, alpha, 2)    # no tree with a root cut does better (module doc)
        self.evaluated = 0
        self.bound = self.best
        rows = _rows_in_order(solver._orders, mask)
        self.features = [_RootFeature(chain, *_root_cuts(rows[chain], solver._levels, chain, solver.y,
                                                         solver.w, solver.n_classes))
                         for chain in range(solver.levels.n_chains)]
        self.features = [feature for feature in self.features if len(feature.level)]

    def run(self) -> bool:
        """Each feature's stump cut, then the intervals on both sides of it, first in first out. False when the
        deadline stopped the search (``bound``: the largest bound of the cuts not searched)."""
        queue = deque((feature, feature.stump, feature.stump, -1, -1) for feature in self.features)
        while queue and self.best < self.ceiling - self.tol:
            interval = queue.popleft()
            feature, lo, hi, a, b = interval
            lo, hi = _shrunk(feature.weight_below, feature.left, feature.right, lo, hi, a, b, self.weight,
                             self.alpha, self.best, self.tol)
            if lo > hi:
                continue
            mid = (lo + hi) // 2
            try:
                self._timed()
                self._evaluate(feature, mid, lo, hi)
            except _TimeUp:
                queue.appendleft(interval)
                open_bound = max(feature.bound(lo, hi, a, b, self.weight, self.alpha)
                                 for feature, lo, hi, a, b in queue)
                self.bound = max(self.best, min(open_bound, self.ceiling))
                return False
            if a == b == -1:                                # the stump cut: then the cuts on both sides of it
                lo, hi = 0, len(feature.level) - 1
            if lo < mid:
                queue.append((feature, lo, mid - 1, a, mid))
            if mid < hi:
                queue.append((feature, mid + 1, hi, mid, b))
        self.bound = self.best
        return True

    def _timed(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _TimeUp

    def _evaluate(self, feature: _RootFeature, s: int, lo: int, hi: int) -> None:
        """Search both sides of cut s, the heavier first; the lighter one only for the value that lets the cut
        beat the best tree; both targets lowered by the weight to the interval's ends (module doc). Records the
        sides' values or upper bounds and keeps the tree when it is better."""
        solver, alpha = self.solver, self.alpha
        goes_right = self.mask & (solver.levels.levels[:, feature.chain] <= feature.level[s])
        right_weight = float(feature.weight_below[s])
        sides = [(self.mask & ~goes_right, self.weight - right_weight), (goes_right, right_weight)]
        heavy = 0 if sides[0][1] >= sides[1][1] else 1
        light = 1 - heavy
        spread = max(feature.weight_below[s] - feature.weight_below[lo],
                     feature.weight_below[hi] - feature.weight_below[s])
        light_ceiling = _leaf_ceiling(solver._class_weight(sides[light][0]), alpha, 1)
        values, branches = [0.0, light_ceiling], [{}, {}]     # the light side's value is no more
        values[0], found, branches[heavy] = solver._subtree(sides[heavy][0], self.depth - 1, alpha,
                                                            self.best - values[1] - spread, self.deadline)
        if found:
            target = self.best - values[0] - spread
            if target < values[1]:
                values[1], found, branches[light] = solver._subtree(sides[light][0], self.depth - 1, alpha, target,
                                                                    self.deadline)
            else:
                found = False
        self.evaluated += 1
        feature.left[s], feature.right[s] = (values[0], values[1]) if heavy == 0 else (values[1], values[0])
        if not found:
            return
        value, leaves = values[0] + values[1], len(branches[0]) + len(branches[1]) + 2
        if value > self.best + self.tol or (self.found and value >= self.best - self.tol
                                            and leaves < len(self.branch) + 1):
            self.best, self.found = value, True
            self.branch = {1: (feature.chain, int(feature.level[s])), **_placed(branches[0], 2),
                           **_placed(branches[1], 3)}
