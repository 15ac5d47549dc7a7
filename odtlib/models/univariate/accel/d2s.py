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
(``correct`` is a weighted count when sample weights are given; the callers then pass ``alpha = W * lambda`` with
W the total weight, :mod:`odtlib.models.univariate._regularized`). For a call on the whole training set,
``value / |I|`` (``value / W``) is objective (1) (see :meth:`D2SResult.accuracy_objective`).

**Algorithm (eqs. (27)-(40)).** One matrix product per class over that class's rows gives the frequency
counts of every feature pair, ``FQ11[f1, f2, k] = sum_{i: y_i = k} w_i x_if1 x_if2``, and
``FQ1[f, k] = sum_{i: y_i = k} w_i x_if``; inclusion-exclusion gives
the class counts of every node of every depth-2 subtree (27)-(30). A node's score is its largest class
count (31)-(33). For every root feature the best fully grown left and right children are maximised over
the child feature (35)-(36); each child is then a leaf or that best split, whichever is better after the
penalty, and the root feature with the best total wins (34), (37)-(39); the single leaf competes at the
end (40). All of this is array arithmetic over the feature pairs: O(n F^2) for the counts, O(F^2 K) after.
The count products run on one BLAS thread: these matrices are small (F <= ~100 columns), and waking a
multi-threaded BLAS's threads cost more than the product (bench/README.md, "Measured design choices").

**Memory.** The pair counts take K·F^2 numbers and the depth-3 scan's triple counts K·F^3: on the class-change
thresholds of a continuous dataset (banknote: F = 1,515) the latter alone would be 51.8 GiB. Both are therefore
computed for a chunk of root features at a time, the largest chunk whose peak (:func:`depth2_bytes`,
:func:`depth3_bytes`) fits the budget of a :class:`MemoryPlan`; the result does not depend on the chunk. A
:class:`Depth2Solver` whose budget cannot hold the depth-3 scan for one root feature reports ``max_depth == 2``,
and one that cannot hold D2S for one root feature is refused (:class:`~odtlib.models._resources.MemoryBudgetError`).

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
from types import MappingProxyType
from typing import Any

import numpy as np

from odtlib.models._resources import MemoryBudgetError, format_bytes, one_blas_thread, resolve_max_memory
from odtlib.tree import Tree

__all__ = ["Depth2Subtree", "D2SResult", "solve_depth2", "Depth2Solver", "CacheInfo", "MemoryPlan", "SubsetCache",
           "depth2_bytes", "depth3_bytes"]


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
def _chunks(n_features: int, chunk: int | None) -> list[slice]:
    """The root features 0..F-1 in consecutive slices of at most ``chunk`` (all at once when None)."""
    step = n_features if chunk is None else max(1, int(chunk))
    return [slice(start, min(start + step, n_features)) for start in range(0, n_features, step)]


def _rows_by_class(X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int
                   ) -> list[tuple[np.ndarray, np.ndarray]]:
    """(rows of X of class k, their weights) for every class k."""
    return [(X[y == k], w[y == k]) for k in range(n_classes)]


def _single_counts(by_class: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """FQ1[k, f] = sum_{i: y_i = k} w_i x_if of Appendix B.1, stored class first: the maxima over classes are
    then elementwise maxima of contiguous slices, much faster than reductions along a short last axis."""
    return np.stack([w_k @ X_k for X_k, w_k in by_class])


def _pair_counts_of_roots(by_class: list[tuple[np.ndarray, np.ndarray]], roots: slice) -> np.ndarray:
    """FQ11[k, f1, f2] = sum_{i: y_i = k} w_i x_if1 x_if2 for the root features f1 in ``roots`` and every f2:
    one BLAS product X_k[:, roots]^T diag(w_k) X_k per class (the symmetric X_k^T X_k when ``roots`` covers
    every feature and the weights are 1)."""
    n_features = by_class[0][0].shape[1]
    if roots.start == 0 and roots.stop == n_features:
        return np.stack([_pair_counts(X_k, w_k) for X_k, w_k in by_class])
    return np.stack([(X_k[:, roots] * w_k[:, None]).T @ X_k for X_k, w_k in by_class])


def _triple_counts(by_class: list[tuple[np.ndarray, np.ndarray]], roots: slice) -> np.ndarray:
    """FQ111[k, r, f1, f2] = sum_{i: y_i = k} w_i x_ir x_if1 x_if2 for the root features r in ``roots``: the pair
    counts FQ11 of the rows with x_r = 1, one product X^T diag(w) X per class and root over those rows
    (symmetric with unit weights), n·F^2/2 multiply-adds per root."""
    n_features = by_class[0][0].shape[1]
    FQ111 = np.empty((len(by_class), roots.stop - roots.start, n_features, n_features))
    for k, (X_k, w_k) in enumerate(by_class):
        for j, r in enumerate(range(roots.start, roots.stop)):
            on = X_k[:, r] > 0.5
            FQ111[k, j] = _pair_counts(X_k[on], w_k[on])
    return FQ111


def _pair_counts(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    """X^T diag(w) X: the weighted count of rows with x_f1 = x_f2 = 1 for every feature pair."""
    return X.T @ X if bool((w == 1).all()) else (X * w[:, None]).T @ X


def _grandchild_counts(N: np.ndarray, FQ1_root: np.ndarray, FQ1_child: np.ndarray, FQ11: np.ndarray
                       ) -> dict[str, np.ndarray]:
    """Class counts (axis 0) of the four grandchildren for root feature f1 (axis -2), child feature f2 (axis -1),
    eqs. (27)-(30); the key gives the directions "root child" with 0 = left (x == 0), 1 = right. ``FQ1_root``
    holds the single counts of the root features (a chunk of them), ``FQ1_child`` those of every child feature.
    Axes between the class and the features, if any, index several sample sets solved at once."""
    return {
        "11": FQ11,
        "10": FQ1_root[..., :, None] - FQ11,
        "01": FQ1_child[..., None, :] - FQ11,
        "00": N[..., None, None] - FQ1_root[..., :, None] - FQ1_child[..., None, :] + FQ11,
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
    (``expand``) and on which feature (``child_feature``, depth 2 only)."""

    value: np.ndarray
    expand: dict[str, np.ndarray]
    child_feature: dict[str, np.ndarray]


def _root_splits(N: np.ndarray, FQ1: np.ndarray, FQ11: np.ndarray | None, alpha: float, tol: float,
                 FQ1_child: np.ndarray | None = None) -> _RootSplits:
    """Each child of the root a leaf (depth 1) or, with pair counts ``FQ11`` (depth 2), its best split when
    that is strictly better after the penalty. ``FQ1`` are the single counts of the root features scored (a
    chunk of them when ``FQ1_child``, the counts of every child feature, is given)."""
    child_value = {"0": (N[..., None] - FQ1).max(axis=0) - alpha, "1": FQ1.max(axis=0) - alpha}
    expand = {d: np.zeros(v.shape, dtype=bool) for d, v in child_value.items()}
    child_feature: dict[str, np.ndarray] = {}
    if FQ11 is not None:
        grand = _grandchild_counts(N, FQ1, FQ1 if FQ1_child is None else FQ1_child, FQ11)
        for d in ("0", "1"):
            split_score, child_feature[d] = _best_child_split(grand[d + "0"], grand[d + "1"])
            expand[d] = split_score - 2 * alpha > child_value[d] + tol
            child_value[d] = np.where(expand[d], split_score - 2 * alpha, child_value[d])
    return _RootSplits(child_value["0"] + child_value["1"], expand, child_feature)


def _optimal_subtree(X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int, depth: int, alpha: float,
                     chunk: int | None = None) -> tuple[Depth2Subtree, float]:
    """Eqs. (27)-(40) on validated arrays: (optimal sparse subtree, its weighted correct count).

    ``X`` is the float 0/1 matrix of the candidate features only; features in the result index its columns.
    ``chunk``: how many root features are scored at once (all when None); the pair counts then take
    K·chunk·F numbers instead of K·F^2 (:func:`depth2_bytes`), with the same result.
    """
    n_features = X.shape[1]
    N = np.bincount(y, weights=w, minlength=n_classes)
    tol = 1e-9 * max(1.0, float(N.sum()))
    leaf_only = (Depth2Subtree({}, {1: int(N.argmax())}), float(N.max()))
    if depth == 0 or n_features == 0:
        return leaf_only

    by_class = _rows_by_class(X, y, w, n_classes)
    value = np.empty(n_features)
    expand = {d: np.zeros(n_features, dtype=bool) for d in ("0", "1")}
    child_feature = {d: np.zeros(n_features, dtype=np.int64) for d in ("0", "1")}
    with one_blas_thread():
        FQ1 = _single_counts(by_class)
        for roots in _chunks(n_features, chunk):
            FQ11 = _pair_counts_of_roots(by_class, roots) if depth == 2 else None
            splits = _root_splits(N, FQ1[:, roots], FQ11, alpha, tol, FQ1_child=FQ1)
            value[roots] = splits.value
            for d in ("0", "1"):
                expand[d][roots] = splits.expand[d]
                if depth == 2:
                    child_feature[d][roots] = splits.child_feature[d]
    leaves = 2 + expand["0"].astype(int) + expand["1"].astype(int)

    best = value.max()
    if N.max() - alpha >= best - tol:                            # (40): the single leaf wins ties
        return leaf_only
    root = int(np.argmin(np.where(value >= best - tol, leaves, np.iinfo(np.int64).max)))
    branch = {1: root}
    for d, node in (("0", 2), ("1", 3)):
        if expand[d][root]:
            branch[node] = int(child_feature[d][root])
    return _labelled(branch, X, y, w, n_classes)


def _labelled(branch: dict[int, int], X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int
              ) -> tuple[Depth2Subtree, float]:
    """The subtree with splits ``branch``, each leaf labelled with its heaviest class (smallest on ties), and its
    weighted correct count."""
    leaves = [c for m in branch for c in (2 * m, 2 * m + 1) if c not in branch]
    routing = Depth2Subtree(branch, {m: 0 for m in leaves})
    counts = np.zeros((max(leaves) + 1, n_classes))
    np.add.at(counts, (routing.apply(X), y), w)
    leaf = {m: int(counts[m].argmax()) for m in leaves}
    return Depth2Subtree(branch, leaf), float(sum(counts[m].max() for m in leaves))


def _best_depth3_root(X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int, alpha: float,
                      chunk: int | None = None) -> int | None:
    """Root feature (a column of ``X``) of an optimal sparse tree of depth <= 3, or None when the single leaf is
    optimal: a tree of depth <= 3 is a leaf or a root split r with subtrees of depth <= 2 on its two sides, so
    the best r maximises D2S(x_r == 0 side) + D2S(x_r == 1 side). The 2F sides are scored from the triple
    counts, ``chunk`` roots r at a time (all when None; :func:`depth3_bytes`): the side x_r == 1 has
    N = FQ1[:, r], FQ1 = FQ11[:, r], FQ11 = FQ111[:, r]; the side x_r == 0 the differences with the whole
    set's counts. Ties go to the smallest r."""
    N = np.bincount(y, weights=w, minlength=n_classes)
    tol = 1e-9 * max(1.0, float(N.sum()))
    n_features = X.shape[1]
    if n_features == 0:
        return None
    by_class = _rows_by_class(X, y, w, n_classes)
    total = np.empty(n_features)
    with one_blas_thread():
        FQ1 = _single_counts(by_class)
        FQ11 = _pair_counts_of_roots(by_class, slice(0, n_features))
        for roots in _chunks(n_features, chunk):
            FQ111 = _triple_counts(by_class, roots)
            left = _side_value(N[:, None] - FQ1[:, roots], FQ1[:, None, :] - FQ11[:, roots],
                               FQ11[:, None] - FQ111, alpha, tol)
            total[roots] = left + _side_value(FQ1[:, roots], FQ11[:, roots], FQ111, alpha, tol)
            del FQ111
    best = total.max()
    if N.max() - alpha >= best - tol:
        return None
    return int(np.argmax(total >= best - tol))


def _side_value(N: np.ndarray, FQ1: np.ndarray, FQ11: np.ndarray, alpha: float, tol: float) -> np.ndarray:
    """D2S's optimal value on one side of each root split (axis 0 after the classes): the best of the single
    leaf (40) and the best depth-2 subtree."""
    splits = _root_splits(N, FQ1, FQ11, alpha, tol)
    return np.maximum(N.max(axis=0) - alpha, splits.value.max(axis=-1))


# ---------------------------------------------------------------------------------------------- memory
_FLOAT = 8       # bytes of a float64 count


def depth2_bytes(n_samples: int, n_features: int, n_classes: int, roots: int) -> int:
    """Peak bytes of one D2S solve scoring ``roots`` root features at a time: the rows' copies (the features of
    the sample set, split by class, and a weighted copy: 4·n·F), the single counts (4·K·F) and, per root
    feature, its pair counts and the grandchild counts of eqs. (27)-(30) with their temporaries (6·K·F) and
    the child-split scores (4·F)."""
    n, F, K = n_samples, n_features, n_classes
    return _FLOAT * (4 * n * F + 4 * K * F + roots * F * (6 * K + 4))


def depth3_bytes(n_samples: int, n_features: int, n_classes: int, roots: int) -> int:
    """Peak bytes of the depth-3 root scan scoring ``roots`` root features at a time: D2S's fixed part, every
    pair count (K·F^2) and, per root feature, its triple counts, the x_r == 0 side's pair counts, that side's
    grandchild counts with their temporaries (7·K·F^2 in all) and the child-split scores (3·F^2)."""
    n, F, K = n_samples, n_features, n_classes
    return depth2_bytes(n, F, K, 1) + _FLOAT * (K * F * F + roots * F * F * (7 * K + 3))


def _largest_chunk(cost, n_features: int, budget: int) -> int:
    """The largest number of root features (at most F) whose ``cost(roots)`` fits ``budget``; 0 if none."""
    if n_features == 0 or cost(n_features) <= budget:
        return n_features
    lo, hi = 0, n_features                  # cost(lo) fits (or lo == 0), cost(hi) does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if cost(mid) <= budget else (lo, mid)
    return lo


def _cache_entry_bytes(n_samples: int) -> int:
    """Bytes of one cached result: its correct-set mask, its row indices and key (n/8), and ~2 KiB of objects."""
    return n_samples * (1 + _FLOAT) + n_samples // 8 + 2048


def _relabel_features(subtree: Depth2Subtree, features: np.ndarray) -> Depth2Subtree:
    return Depth2Subtree({m: int(features[f]) for m, f in subtree.branch.items()}, dict(subtree.leaf))


def _solve(X_all: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int, features: np.ndarray,
           depth: int, alpha: float, chunk: int | None = None) -> D2SResult:
    X = X_all if features.size == X_all.shape[1] else X_all[:, features]   # features: sorted, unique
    local, n_correct = _optimal_subtree(X, y, w, n_classes, depth, alpha, chunk)
    subtree = _relabel_features(local, features)
    correct = subtree.predict(X_all) == y
    correct.setflags(write=False)
    return D2SResult(value=n_correct - alpha * subtree.n_leaves, n_correct=n_correct, leaf_penalty=alpha,
                     subtree=subtree, correct=correct)


# ---------------------------------------------------------------------------------------------- public API
def solve_depth2(X: Any, y: Any, depth: int = 2, leaf_penalty: float = 0.0, sample_weight: Any = None,
                 n_classes: int | None = None, features: Any = None, max_memory: float | None = None) -> D2SResult:
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
    max_memory : bytes the count arrays may take (None: a quarter of the machine's memory); the root features
        are scored in chunks that fit (:func:`depth2_bytes`), and a :class:`MemoryBudgetError` names the size
        when even one does not.

    Returns a :class:`D2SResult`: ``value = correct - leaf_penalty * leaves``, the subtree
    (``result.subtree`` for branch/leaf maps, ``result.tree`` as an :class:`odtlib.tree.Tree`) and the mask
    of correctly classified rows. An empty sample set gives a single leaf predicting class 0 (value
    ``-leaf_penalty``).
    """
    X = _check_binary_matrix(X)
    y, n_classes = _check_labels(y, X.shape[0], n_classes)
    features = _check_features(features, X.shape[1])
    plan = MemoryPlan(X.shape[0], features.size, n_classes, resolve_max_memory(max_memory))
    return _solve(X, y, _check_weights(sample_weight, X.shape[0]), n_classes, features, _check_depth(depth),
                  _check_penalty(leaf_penalty), plan.depth2_chunk)


@dataclass(frozen=True)
class MemoryPlan:
    """How the exact subroutines on n samples, F features and K classes fit a budget of ``max_memory`` bytes, of
    which the caller already holds ``held`` (its data and cache): D2S scores ``depth2_chunk`` root features at a
    time, the depth-3 scan ``depth3_chunk`` (0: the scan does not fit, so bounds stop at height 2). A
    :class:`MemoryBudgetError` when D2S does not fit with one root feature at a time."""

    n_samples: int
    n_features: int
    n_classes: int
    max_memory: int
    held: int = 0

    def __post_init__(self) -> None:
        needed = self.held + self.bytes(2, 1)
        if self.n_features and needed > self.max_memory:
            raise MemoryBudgetError(
                f"the exact depth-2 subroutine (D2S) needs at least {format_bytes(needed)} for {self.n_samples} "
                f"rows x {self.n_features} binary columns x {self.n_classes} classes, over max_memory = "
                f"{format_bytes(self.max_memory)}; raise max_memory, or use fewer columns (fewer thresholds: "
                "thresholds='quantile' or QuantileThresholdEncoder(k)) or fewer rows")

    def bytes(self, depth: int, roots: int) -> int:
        """Peak bytes of a solve of ``depth`` (2 or 3) scoring ``roots`` root features at a time."""
        cost = depth3_bytes if depth == 3 else depth2_bytes
        return cost(self.n_samples, self.n_features, self.n_classes, roots)

    @property
    def work(self) -> int:
        """Bytes left for the count arrays of a solve."""
        return self.max_memory - self.held

    @property
    def depth2_chunk(self) -> int:
        return _largest_chunk(lambda roots: self.bytes(2, roots), self.n_features, self.work)

    @property
    def depth3_chunk(self) -> int:
        return _largest_chunk(lambda roots: self.bytes(3, roots), self.n_features, self.work)


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


class SubsetCache:
    """A least-recently-used cache of results keyed by a sample subset (a boolean mask over the training rows) and
    the solve's other arguments, with ``functools.lru_cache``-like counters (``hits``, ``misses``, ``evictions``).
    Shared by the exact subroutines that solve the same path subsets over and over (D2S and the nested-threshold
    search)."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._entries: OrderedDict[tuple, Any] = OrderedDict()
        self.hits = self.misses = self.evictions = 0

    @staticmethod
    def key(mask: np.ndarray, *arguments) -> tuple:
        return (np.packbits(mask).tobytes(), *arguments)

    def get(self, key: tuple):
        """The cached result (a hit) or None (a miss)."""
        found = self._entries.get(key)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        self._entries.move_to_end(key)
        return found

    def put(self, key: tuple, result) -> None:
        self._entries[key] = result
        if len(self._entries) > self.maxsize:
            self._entries.popitem(last=False)
            self.evictions += 1

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Empty the cache and reset the counters."""
        self._entries.clear()
        self.hits = self.misses = self.evictions = 0


class Depth2Solver:
    """D2S bound to one training set, memoised by sample subset (the D2S cache of Algorithms 1 and 2).

    ``solve(samples, depth, leaf_penalty)`` runs D2S on the rows ``samples`` (an index array or a boolean
    mask over the training set). Results are kept in a least-recently-used cache of at most ``maxsize``
    entries keyed by (bitset of the subset, depth, leaf_penalty); the paper keys its cache by the branching
    path to the subtree root, which determines the subset, so keying by the subset itself also shares
    results between different paths that select the same samples. ``cache_info()`` reports the statistics.

    **Memory.** Everything the solver holds or allocates stays within ``max_memory`` bytes (None: a quarter
    of the machine's memory; :mod:`odtlib.models._resources`): its float copy of X, the cache (at most a
    quarter of the budget: ``maxsize`` is lowered to fit) and the count arrays of a solve, which score the
    root features in chunks of ``plan.depth2_chunk`` (D2S) and ``plan.depth3_chunk`` (the depth-3 scan).
    ``max_depth`` is 3 when the depth-3 scan fits with one root feature at a time, else 2; data on which D2S
    does not fit at all raise a :class:`MemoryBudgetError` naming the size.
    """

    def __init__(self, X: Any, y: Any, sample_weight: Any = None, n_classes: int | None = None,
                 features: Any = None, maxsize: int = 4096, max_memory: float | None = None) -> None:
        self.X = _check_binary_matrix(X)
        self.y, self.n_classes = _check_labels(y, self.X.shape[0], n_classes)
        self.sample_weight = _check_weights(sample_weight, self.X.shape[0])
        self.features = _check_features(features, self.X.shape[1])
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
            raise ValueError(f"maxsize must be a positive integer, got {maxsize!r}")
        self.max_memory = resolve_max_memory(max_memory)
        entry = _cache_entry_bytes(self.n_samples)
        self.maxsize = max(1, min(maxsize, self.max_memory // 4 // entry))
        held = self.X.nbytes + 2 * self.n_samples * _FLOAT + self.maxsize * entry
        self.plan = MemoryPlan(self.n_samples, self.features.size, self.n_classes, self.max_memory, held)
        self._cache = SubsetCache(self.maxsize)
        self._seconds = 0.0

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def max_depth(self) -> int:
        """The deepest subtree :meth:`solve` can give within the memory budget: 3, or 2 when the depth-3 scan
        does not fit even one root feature at a time."""
        return 3 if self.plan.depth3_chunk > 0 else 2

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
        if depth > self.max_depth:
            raise MemoryBudgetError(
                f"the depth-3 scan needs at least {format_bytes(self.plan.held + self.plan.bytes(3, 1))} for "
                f"{self.n_samples} rows x {self.features.size} columns, over max_memory = "
                f"{format_bytes(self.max_memory)}; ask for depth <= {self.max_depth} (max_depth)")
        key = SubsetCache.key(mask, depth, alpha)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        rows = np.flatnonzero(mask)
        rows.setflags(write=False)
        result = self._depth3(mask, rows, alpha) if depth == 3 else self._depth2(rows, depth, alpha)
        self._cache.put(key, result)
        return result

    def _depth2(self, rows: np.ndarray, depth: int, alpha: float) -> D2SResult:
        start = time.perf_counter()
        result = _solve(self.X[rows], self.y[rows], self.sample_weight[rows], self.n_classes, self.features,
                        depth, alpha, self.plan.depth2_chunk)
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
                                 self.n_classes, alpha, self.plan.depth3_chunk)
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
        cache = self._cache
        return CacheInfo(cache.hits, cache.misses, cache.evictions, len(cache), self.maxsize, self._seconds)

    def cache_clear(self) -> None:
        """Empty the cache and reset the statistics."""
        self._cache.clear()
        self._seconds = 0.0
