"""Optimal sparse subtrees of depth <= 2 with a leaf penalty: the D2S subroutine of paper 003.

Keegan, Forbes, Corry & Abolghasemi (2025), Section 5.2 and Appendix B.1, extend the depth-two solver of
MurTree (Demirović et al., 2022) to *sparse* trees under a per-leaf penalty. D2S(I', alpha) returns a tree of
depth <= 2 on the binary samples I' maximising

    (number of correctly classified samples of I')  -  alpha * (number of leaves),            (40)

over the single leaf, the stumps, the two kinds of three-leaf trees and the full depth-2 trees.

**Scale.** Paper 003's problem (1) maximises ``accuracy - lambda * leaves`` with the accuracy normalised by
the size |I| of the *whole* training set. Both callers of D2S -- solution polishing (Algorithm 1) and the
path-bound cuts (Algorithm 2) -- work in sample counts and pass ``alpha = |I| * lambda``. This module uses
that count scale: ``leaf_penalty`` is alpha and :attr:`D2SResult.value` is ``correct - alpha * leaves``
(``correct`` is a weighted count when sample weights are given). For a call on the whole training set,
``value / |I|`` is objective (1) (see :meth:`D2SResult.accuracy_objective`).

**Algorithm (eqs. (27)-(40)).** One matrix product per class over that class's rows gives the frequency
counts of every feature pair, ``FQ11[f1, f2, k] = sum_{i: y_i = k} w_i x_if1 x_if2``, and
``FQ1[f, k] = sum_{i: y_i = k} w_i x_if``; inclusion-exclusion gives
the class counts of every node of every depth-2 subtree (27)-(30). A node's score is its largest class
count (31)-(33). For every root feature the best fully grown left and right children are maximised over
the child feature (35)-(36); each child is then a leaf or that best split, whichever is better after the
penalty, and the root feature with the best total wins (34), (37)-(39); the single leaf competes at the
end (40). All of this is array arithmetic over the feature pairs: O(n F^2) for the counts, O(F^2 K) after.
The count products run on one BLAS thread: these matrices are small (F <= ~100 columns), and a multi-threaded
OpenBLAS spent ~30 ms per product waking its threads on a busy 2-core machine against 0.1 ms on one thread
(tic-tac-toe, 958 x 27), which made D2S, not the MIP, the largest cost of a depth-2 fit.

**Ties.** Among optimal subtrees the one with the fewest leaves is returned, then the smallest root feature,
then the smallest child features, then the smallest class (the paper breaks ties by smallest features).

**Node numbering.** Subtrees are described on breadth-first local ids: root 1, children 2 (x_f == 0) and
3 (x_f == 1), grandchildren 4..7 -- the nodes {n, 2n, 2n+1, 4n, ..., 4n+3} of Algorithm 1 when the subtree
is placed at node n of a BendOCT tree (:meth:`Depth2Subtree.placed_at`).

:class:`Depth2Solver` binds the full training set once and memoises D2S by sample subset, as Algorithms 1
and 2 solve the same path subsets over and over.
"""
from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from odtlib.tree import Tree

__all__ = ["Depth2Subtree", "D2SResult", "solve_depth2", "Depth2Solver", "CacheInfo", "one_blas_thread"]


# ---------------------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Depth2Subtree:
    """A sparse tree of depth <= 2 on local breadth-first ids 1..7 (the MIP warm-start view of D2S); the
    depth-3 scan of :meth:`Depth2Solver.solve` composes two of them under a root split (ids 1..15).

    ``branch[m] = f``: node m splits on feature f (x_f == 0 -> 2m, x_f == 1 -> 2m+1);
    ``leaf[m] = k``: node m is a leaf predicting class k. Nodes in neither map are not part of the tree.
    Both maps are read-only views; :meth:`placed_at` returns fresh dicts.
    """

    branch: Mapping[int, int]
    leaf: Mapping[int, int]

    def __post_init__(self) -> None:   # read-only: cached results are shared between callers
        object.__setattr__(self, "branch", MappingProxyType(dict(self.branch)))
        object.__setattr__(self, "leaf", MappingProxyType(dict(self.leaf)))

    @property
    def root_feature(self) -> int | None:
        return self.branch.get(1)

    @property
    def left_feature(self) -> int | None:
        """Feature of the left child (node 2), None when it is a leaf or absent."""
        return self.branch.get(2)

    @property
    def right_feature(self) -> int | None:
        """Feature of the right child (node 3), None when it is a leaf or absent."""
        return self.branch.get(3)

    @property
    def n_leaves(self) -> int:
        return len(self.leaf)

    @property
    def depth(self) -> int:
        return max(int(math.log2(m)) for m in self.leaf)

    def placed_at(self, node: int) -> tuple[dict[int, int], dict[int, int]]:
        """``(branch, leaf)`` renumbered for the subtree rooted at ``node`` of a BFS-numbered tree.

        Local id m at local depth d (m in [2^d, 2^(d+1))) becomes ``node * 2^d + (m - 2^d)``; e.g. with
        ``node = 5`` the ids 1, 2, 3, 4..7 become 5, 10, 11, 20..23.
        """
        return ({_global_id(m, node): f for m, f in self.branch.items()},
                {_global_id(m, node): k for m, k in self.leaf.items()})

    def to_tree(self, feature_names: list[str] | None = None) -> Tree:
        """The subtree as an :class:`odtlib.tree.Tree` (root 1; leaf labels are the class indices)."""
        return Tree.from_flow_solution(max(2, self.depth), self.branch, self.leaf, feature_names=feature_names)

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Local leaf id reached by each row of the 0/1 matrix ``X`` (vectorised routing)."""
        node = np.ones(X.shape[0], dtype=np.int64)
        for m in sorted(self.branch):                   # breadth-first: a parent before its children
            at_m = node == m
            node[at_m] = 2 * m + (X[at_m, self.branch[m]] > 0.5)
        return node

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Class index predicted for each row of ``X``."""
        label_of = np.zeros(max(self.leaf) + 1, dtype=np.int64)
        for m, k in self.leaf.items():
            label_of[m] = k
        return label_of[self.apply(X)]


def _global_id(local: int, node: int) -> int:
    level = local.bit_length() - 1
    return node * 2**level + (local - 2**level)


@dataclass(frozen=True, eq=False)
class D2SResult:
    """Output of D2S (paper 003, Section 5.2): optimal value, structure and the correctly classified set.

    ``value = n_correct - leaf_penalty * n_leaves`` in sample counts (weighted when weights were given).
    ``correct`` is a read-only boolean mask over the rows that were solved (C of the paper; its complement
    is the misclassified set). ``samples`` is set by :class:`Depth2Solver`: the (sorted) row indices of the
    bound training set that were solved, so ``samples[correct]`` are the correctly classified samples.
    """

    value: float
    n_correct: float
    leaf_penalty: float
    subtree: Depth2Subtree
    correct: np.ndarray
    samples: np.ndarray | None = field(default=None)

    @property
    def n_leaves(self) -> int:
        return self.subtree.n_leaves

    @property
    def tree(self) -> Tree:
        return self.subtree.to_tree()

    @property
    def correct_samples(self) -> np.ndarray:
        """Indices (into the bound training set, or into the rows given) of the correctly classified samples."""
        rows = np.flatnonzero(self.correct)
        return rows if self.samples is None else self.samples[rows]

    def accuracy_objective(self, n_samples: int) -> float:
        """``value / n_samples``: paper 003's objective (1) when D2S ran on the whole training set of size
        ``n_samples`` with ``leaf_penalty = n_samples * lambda``."""
        return self.value / n_samples


# ---------------------------------------------------------------------------------------------- validation
def _check_binary_matrix(X: Any) -> np.ndarray:
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array of shape (n_samples, n_features), got shape {X.shape}")
    if X.dtype == object:
        raise ValueError("X must be numeric 0/1, got an object array")
    X = np.ascontiguousarray(X, dtype=np.float64)
    if np.isnan(X).any():
        raise ValueError("X contains NaN; D2S needs 0/1 features")
    if not ((X == 0) | (X == 1)).all():
        raise ValueError("X must contain only 0 and 1 (binary features, as in paper 003); binarise it first")
    return X


def _check_labels(y: Any, n_samples: int, n_classes: int | None) -> tuple[np.ndarray, int]:
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"y must be 1-D with one label per row of X ({n_samples}), got shape {y.shape}")
    if n_samples and (not np.issubdtype(y.dtype, np.integer) or y.min() < 0):
        raise ValueError("y must hold integer class indices 0..K-1 (encode the labels first)")
    y = y.astype(np.int64)
    needed = int(y.max()) + 1 if n_samples else 1
    if n_classes is None:
        n_classes = needed
    elif n_classes < needed:
        raise ValueError(f"n_classes={n_classes} but y contains class index {needed - 1}")
    return y, int(n_classes)


def _check_weights(sample_weight: Any, n_samples: int) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n_samples)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n_samples,):
        raise ValueError(f"sample_weight must have shape ({n_samples},), got {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must be finite and non-negative")
    return w


def _check_depth(depth: Any, max_depth: int = 2) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 0 <= depth <= max_depth:
        allowed = ", ".join(map(str, range(max_depth))) + f" or {max_depth}"
        raise ValueError(f"depth must be {allowed} here, got {depth!r}")
    return int(depth)


def _check_penalty(leaf_penalty: Any) -> float:
    alpha = float(leaf_penalty)
    if not math.isfinite(alpha) or alpha < 0:
        raise ValueError(f"leaf_penalty must be a finite number >= 0, got {leaf_penalty!r}")
    return alpha


def _check_features(features: Any, n_features: int) -> np.ndarray:
    if features is None:
        return np.arange(n_features)
    features = np.asarray(features, dtype=np.int64).ravel()
    if features.size and (features.min() < 0 or features.max() >= n_features):
        raise ValueError(f"features must be column indices in 0..{n_features - 1}")
    if np.unique(features).size != features.size:
        raise ValueError("features contains duplicate column indices")
    return np.sort(features)


# ---------------------------------------------------------------------------------------------- algorithm
def _frequency_counts(X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int, pairs: bool
                      ) -> tuple[np.ndarray, np.ndarray | None]:
    """FQ1[f, k] and (if ``pairs``) FQ11[f1, f2, k] of Appendix B.1, stored class first (``FQ1[k, f]``,
    ``FQ11[k, f1, f2]``): the maxima over classes are then elementwise maxima of contiguous slices, much faster
    than reductions along a short last axis.

    FQ11[k] is one BLAS product X_k^T diag(w_k) X_k over the rows X_k of class k, so all classes
    together cost one n x F x F product; with unit weights it is the symmetric product X_k^T X_k. As x^2 = x
    on binary data, FQ1[k] is the diagonal of FQ11[k].
    """
    FQ1 = np.zeros((n_classes, X.shape[1]))
    FQ11 = np.zeros((n_classes, X.shape[1], X.shape[1])) if pairs else None
    for k in range(n_classes):
        rows = y == k
        X_k = X[rows]
        if not pairs:
            FQ1[k] = w[rows] @ X_k
            continue
        FQ11[k] = _pair_counts(X_k, w[rows])
        FQ1[k] = np.diagonal(FQ11[k])
    return FQ1, FQ11


def _triple_counts(X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int) -> np.ndarray:
    """FQ111[k, r, f1, f2] = sum_{i: y_i = k} w_i x_ir x_if1 x_if2: the pair counts FQ11 of the rows with
    x_r = 1, for every feature r: one product X^T diag(w) X per class and feature over those rows (symmetric
    with unit weights), n·F^3/2 multiply-adds in all."""
    n_features = X.shape[1]
    FQ111 = np.zeros((n_classes, n_features, n_features, n_features))
    for k in range(n_classes):
        X_k, w_k = X[y == k], w[y == k]
        for r in range(n_features):
            on = X_k[:, r] > 0.5
            FQ111[k, r] = _pair_counts(X_k[on], w_k[on])
    return FQ111


def _pair_counts(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    """X^T diag(w) X: the weighted count of rows with x_f1 = x_f2 = 1 for every feature pair."""
    return X.T @ X if bool((w == 1).all()) else (X * w[:, None]).T @ X


@cache
def _blas_controller() -> ThreadpoolController:
    """The process's BLAS thread pools, found once (a few ms); ``limit`` is then cheap (~0.1 ms)."""
    return ThreadpoolController()


def one_blas_thread():
    """A context in which BLAS runs on one thread: the count products of the exact subroutines are small, and
    a second thread only costs (a 2-thread OpenBLAS took ~30 ms per 958 x 27 product on a 2-core VM, one 0.1 ms)."""
    return _blas_controller().limit(limits=1, user_api="blas")


def _grandchild_counts(N: np.ndarray, FQ1: np.ndarray, FQ11: np.ndarray) -> dict[str, np.ndarray]:
    """Class counts (axis 0) of the four grandchildren for root feature f1 (axis -2), child feature f2 (axis -1),
    eqs. (27)-(30); the key gives the directions "root child" with 0 = left (x == 0), 1 = right. Axes between
    the class and the features, if any, index several sample sets solved at once."""
    return {
        "11": FQ11,
        "10": FQ1[..., :, None] - FQ11,
        "01": FQ1[..., None, :] - FQ11,
        "00": N[..., None, None] - FQ1[..., :, None] - FQ1[..., None, :] + FQ11,
    }


def _best_child_split(left_counts: np.ndarray, right_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every root feature: best score of a child split over the child feature (35)-(36) and the
    smallest feature attaining it."""
    score = left_counts.max(axis=0) + right_counts.max(axis=0)
    return score.max(axis=-1), score.argmax(axis=-1)


@dataclass(frozen=True)
class _RootSplits:
    """Eqs. (34)-(39) for every root feature (last axis; leading axes index several sample sets): ``value`` of
    the best subtree with that root split and, per side "0" (x == 0) / "1", whether the child splits
    (``expand``), on which feature (``child_feature``, depth 2 only), with the counts that scored it."""

    value: np.ndarray
    expand: dict[str, np.ndarray]
    child_feature: dict[str, np.ndarray]
    child_counts: dict[str, np.ndarray]
    grand: dict[str, np.ndarray] | None


def _root_splits(N: np.ndarray, FQ1: np.ndarray, FQ11: np.ndarray | None, alpha: float, tol: float
                 ) -> _RootSplits:
    """Each child of the root a leaf (depth 1) or, with pair counts ``FQ11`` (depth 2), its best split when
    that is strictly better after the penalty."""
    child_counts = {"0": N[..., None] - FQ1, "1": FQ1}                   # (K, ..., F)
    child_value = {d: c.max(axis=0) - alpha for d, c in child_counts.items()}
    expand = {d: np.zeros(v.shape, dtype=bool) for d, v in child_value.items()}
    child_feature: dict[str, np.ndarray] = {}
    grand = None if FQ11 is None else _grandchild_counts(N, FQ1, FQ11)
    if grand is not None:
        for d in ("0", "1"):
            split_score, child_feature[d] = _best_child_split(grand[d + "0"], grand[d + "1"])
            expand[d] = split_score - 2 * alpha > child_value[d] + tol
            child_value[d] = np.where(expand[d], split_score - 2 * alpha, child_value[d])
    return _RootSplits(child_value["0"] + child_value["1"], expand, child_feature, child_counts, grand)


def _optimal_subtree(X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int, depth: int, alpha: float
                     ) -> tuple[Depth2Subtree, float]:
    """Eqs. (27)-(40) on validated arrays: (optimal sparse subtree, its weighted correct count).

    ``X`` is the float 0/1 matrix of the candidate features only; features in the result index its columns.
    """
    n_features = X.shape[1]
    N = np.bincount(y, weights=w, minlength=n_classes)
    tol = 1e-9 * max(1.0, float(N.sum()))
    leaf_only = (Depth2Subtree({}, {1: int(N.argmax())}), float(N.max()))
    if depth == 0 or n_features == 0:
        return leaf_only

    with one_blas_thread():
        FQ1, FQ11 = _frequency_counts(X, y, w, n_classes, pairs=depth == 2)
    splits = _root_splits(N, FQ1, FQ11, alpha, tol)
    leaves = 2 + splits.expand["0"].astype(int) + splits.expand["1"].astype(int)

    best = splits.value.max()
    if N.max() - alpha >= best - tol:                            # (40): the single leaf wins ties
        return leaf_only
    root = int(np.argmin(np.where(splits.value >= best - tol, leaves, np.iinfo(np.int64).max)))

    branch, leaf = {1: root}, {}
    correct = 0.0
    for d, node in (("0", 2), ("1", 3)):
        if splits.expand[d][root]:
            f2 = int(splits.child_feature[d][root])
            branch[node] = f2
            for d2, grandchild in (("0", 2 * node), ("1", 2 * node + 1)):
                counts = splits.grand[d + d2][:, root, f2]
                leaf[grandchild] = int(counts.argmax())
                correct += float(counts.max())
        else:
            counts = splits.child_counts[d][:, root]
            leaf[node] = int(counts.argmax())
            correct += float(counts.max())
    return Depth2Subtree(branch, leaf), correct


def _best_depth3_root(X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int, alpha: float) -> int | None:
    """Root feature (a column of ``X``) of an optimal sparse tree of depth <= 3, or None when the single leaf is
    optimal: a tree of depth <= 3 is a leaf or a root split r with subtrees of depth <= 2 on its two sides, so
    the best r maximises D2S(x_r == 0 side) + D2S(x_r == 1 side). All 2F sides are scored at once from the
    triple counts: the side x_r == 1 has N = FQ1[:, r], FQ1 = FQ11[:, r], FQ11 = FQ111[:, r]; the side x_r == 0
    the differences with the whole set's counts. Ties go to the smallest r."""
    N = np.bincount(y, weights=w, minlength=n_classes)
    tol = 1e-9 * max(1.0, float(N.sum()))
    if X.shape[1] == 0:
        return None
    with one_blas_thread():
        FQ1, FQ11 = _frequency_counts(X, y, w, n_classes, pairs=True)
        FQ111 = _triple_counts(X, y, w, n_classes)
    total = np.zeros(X.shape[1])
    left = (N[:, None] - FQ1, FQ1[:, None, :] - FQ11, FQ11[:, None] - FQ111)
    for N_side, FQ1_side, FQ11_side in (left, (FQ1, FQ11, FQ111)):
        splits = _root_splits(N_side, FQ1_side, FQ11_side, alpha, tol)
        total += np.maximum(N_side.max(axis=0) - alpha, splits.value.max(axis=-1))     # (40) on each side
    best = total.max()
    if N.max() - alpha >= best - tol:
        return None
    return int(np.argmax(total >= best - tol))


def _relabel_features(subtree: Depth2Subtree, features: np.ndarray) -> Depth2Subtree:
    return Depth2Subtree({m: int(features[f]) for m, f in subtree.branch.items()}, dict(subtree.leaf))


def _solve(X_all: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int, features: np.ndarray,
           depth: int, alpha: float) -> D2SResult:
    X = X_all if features.size == X_all.shape[1] else X_all[:, features]   # features: sorted, unique
    local, n_correct = _optimal_subtree(X, y, w, n_classes, depth, alpha)
    subtree = _relabel_features(local, features)
    correct = subtree.predict(X_all) == y
    correct.setflags(write=False)
    return D2SResult(value=n_correct - alpha * subtree.n_leaves, n_correct=n_correct, leaf_penalty=alpha,
                     subtree=subtree, correct=correct)


# ---------------------------------------------------------------------------------------------- public API
def solve_depth2(X: Any, y: Any, depth: int = 2, leaf_penalty: float = 0.0, sample_weight: Any = None,
                 n_classes: int | None = None, features: Any = None) -> D2SResult:
    """D2S of paper 003: the optimal sparse tree of depth <= ``depth`` (0, 1 or 2) and its value.

    Parameters
    ----------
    X : (n, F) array of 0/1 features; ``x_f == 0`` goes left.
    y : (n,) integer class indices 0..K-1.
    depth : maximum depth of the subtree (0 = a single leaf, 1 = leaf or stump, 2 = full D2S).
    leaf_penalty : alpha >= 0, the penalty per leaf *in samples*; paper 003 calls D2S with
        ``alpha = |I| * lambda`` where |I| is the full training-set size and lambda the per-leaf penalty on
        accuracy of its objective (1).
    sample_weight : optional non-negative weight per sample (counts become weighted sums).
    n_classes : K when some classes are absent from ``y`` (leaf labels stay in 0..K-1).
    features : optional subset of column indices the splits may use (result features index X's columns).

    Returns a :class:`D2SResult`: ``value = correct - leaf_penalty * leaves``, the subtree
    (``result.subtree`` for branch/leaf maps, ``result.tree`` as an :class:`odtlib.tree.Tree`) and the mask
    of correctly classified rows. An empty sample set gives a single leaf predicting class 0 (value
    ``-leaf_penalty``).
    """
    X = _check_binary_matrix(X)
    y, n_classes = _check_labels(y, X.shape[0], n_classes)
    return _solve(X, y, _check_weights(sample_weight, X.shape[0]), n_classes,
                  _check_features(features, X.shape[1]), _check_depth(depth), _check_penalty(leaf_penalty))


@dataclass(frozen=True)
class CacheInfo:
    """Statistics of a :class:`Depth2Solver` cache (as ``functools.lru_cache``'s, plus evictions and the
    wall seconds spent in cold solves, i.e. in the ``misses``; hits cost a dictionary lookup)."""

    hits: int
    misses: int
    evictions: int
    currsize: int
    maxsize: int
    seconds: float = 0.0

    @property
    def calls(self) -> int:
        """D2S solves asked for, cached or not."""
        return self.hits + self.misses

    @property
    def hit_rate(self) -> float:
        return self.hits / self.calls if self.calls else 0.0


class Depth2Solver:
    """D2S bound to one training set, memoised by sample subset (the D2S cache of Algorithms 1 and 2).

    ``solve(samples, depth, leaf_penalty)`` runs D2S on the rows ``samples`` (an index array or a boolean
    mask over the training set). Results are kept in a least-recently-used cache of at most ``maxsize``
    entries keyed by (bitset of the subset, depth, leaf_penalty); the paper keys its cache by the branching
    path to the subtree root, which determines the subset, so keying by the subset itself also shares
    results between different paths that select the same samples. ``cache_info()`` reports the statistics.
    """

    def __init__(self, X: Any, y: Any, sample_weight: Any = None, n_classes: int | None = None,
                 features: Any = None, maxsize: int = 4096) -> None:
        self.X = _check_binary_matrix(X)
        self.y, self.n_classes = _check_labels(y, self.X.shape[0], n_classes)
        self.sample_weight = _check_weights(sample_weight, self.X.shape[0])
        self.features = _check_features(features, self.X.shape[1])
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
            raise ValueError(f"maxsize must be a positive integer, got {maxsize!r}")
        self.maxsize = maxsize
        self._cache: OrderedDict[tuple, D2SResult] = OrderedDict()
        self._hits = self._misses = self._evictions = 0
        self._seconds = 0.0

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    def _mask(self, samples: Any) -> np.ndarray:
        if samples is None:
            return np.ones(self.n_samples, dtype=bool)
        samples = np.asarray(samples)
        if samples.dtype == bool:
            if samples.shape != (self.n_samples,):
                raise ValueError(f"a boolean sample mask must have shape ({self.n_samples},), got {samples.shape}")
            return samples
        if samples.size and (not np.issubdtype(samples.dtype, np.integer)
                             or samples.min() < 0 or samples.max() >= self.n_samples):
            raise ValueError(f"samples must be row indices in 0..{self.n_samples - 1} or a boolean mask")
        mask = np.zeros(self.n_samples, dtype=bool)
        mask[samples.astype(np.int64)] = True
        return mask

    def solve(self, samples: Any = None, depth: int = 2, leaf_penalty: float = 0.0) -> D2SResult:
        """D2S on the given rows (all rows when ``samples`` is None); see :func:`solve_depth2`. ``depth=3``
        (ours, not the paper's): the optimal sparse tree of depth <= 3, the best root split found by a scan
        of every feature (:func:`_best_depth3_root`) with D2S's subtrees (cached) on its two sides."""
        mask = self._mask(samples)
        depth, alpha = _check_depth(depth, max_depth=3), _check_penalty(leaf_penalty)
        key = (np.packbits(mask).tobytes(), depth, alpha)
        cached = self._cache.get(key)
        if cached is not None:
            self._hits += 1
            self._cache.move_to_end(key)
            return cached
        self._misses += 1
        rows = np.flatnonzero(mask)
        rows.setflags(write=False)
        result = self._depth3(mask, rows, alpha) if depth == 3 else self._depth2(rows, depth, alpha)
        self._cache[key] = result
        if len(self._cache) > self.maxsize:
            self._cache.popitem(last=False)
            self._evictions += 1
        return result

    def _depth2(self, rows: np.ndarray, depth: int, alpha: float) -> D2SResult:
        start = time.perf_counter()
        result = _solve(self.X[rows], self.y[rows], self.sample_weight[rows], self.n_classes, self.features,
                        depth, alpha)
        self._seconds += time.perf_counter() - start
        return D2SResult(result.value, result.n_correct, alpha, result.subtree, result.correct, rows)

    def _depth3(self, mask: np.ndarray, rows: np.ndarray, alpha: float) -> D2SResult:
        """The depth-3 optimum: root split of the scan, each side's D2S subtree placed at nodes 2 and 3.

        D2S's own result on the same rows is returned unless a depth-3 tree is strictly better, so nested
        callers see one subtree per sample set: a height-3 path-bound cut and the height-2 cuts below it then
        keep the same optimal tree (PathBoundCuts).
        """
        depth2 = self.solve(mask, depth=2, leaf_penalty=alpha)
        start = time.perf_counter()
        root = _best_depth3_root(self.X[rows][:, self.features], self.y[rows], self.sample_weight[rows],
                                 self.n_classes, alpha)
        self._seconds += time.perf_counter() - start
        if root is None:
            return depth2
        feature = int(self.features[root])
        goes_right = self.X[:, feature] > 0.5
        sides = [self.solve(mask & ~goes_right, 2, alpha), self.solve(mask & goes_right, 2, alpha)]
        value = sides[0].value + sides[1].value
        if value <= depth2.value + 1e-9 * max(1.0, float(self.sample_weight[rows].sum())):
            return depth2
        branch, leaf = {1: feature}, {}
        correct = np.zeros(self.n_samples, dtype=bool)
        for node, side in zip((2, 3), sides):
            side_branch, side_leaf = side.subtree.placed_at(node)
            branch.update(side_branch)
            leaf.update(side_leaf)
            correct[side.correct_samples] = True
        correct = correct[rows]
        correct.setflags(write=False)
        return D2SResult(value, sides[0].n_correct + sides[1].n_correct, alpha, Depth2Subtree(branch, leaf),
                         correct, rows)

    def cache_info(self) -> CacheInfo:
        return CacheInfo(self._hits, self._misses, self._evictions, len(self._cache), self.maxsize, self._seconds)

    def cache_clear(self) -> None:
        """Empty the cache and reset the statistics."""
        self._cache.clear()
        self._hits = self._misses = self._evictions = 0
        self._seconds = 0.0
