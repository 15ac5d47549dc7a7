"""A primal heuristic for formulation (1): repair the solver's routing into a hyperplane tree (ours, not the
paper's).

Boutilier, Michini & Zhou give S-OCT no heuristic inside the search (their direct comparison relies on
Gurobi's own); SCIP's generic heuristics rarely find good trees on formulation (1), so a run without a warm
start can sit on a poor incumbent for minutes. :class:`RoutingRepair` is a declared
:class:`~odtlib.solvers.PrimalHeuristic` that turns a point of the search into a tree:

* **where it starts**: the last integer candidate the lazy check saw (S-OCT's Benders nodes reject many of
  them: their routing at a Benders node is not separable), or else the current LP point, rounded
  (point i goes right at t when w_{i,2t+1} > 1/2);
* **above the last level** it follows that routing: at a node with (a_t, b_t) in the model (big-M rows), the
  point's own hyperplane; at a node without (a Benders node), a hyperplane fitted to the routing (LP (16)
  when the two sides are separable, linear SVMs otherwise). The threshold along that direction is the one
  that agrees with the routing on the most points (:func:`best_threshold`). Where the point leaves most of a
  node's rows undecided (w_{i,2t+1} between 0.1 and 0.9), or sends them all one way, the node takes the
  best of the candidate splits below by Gini impurity, or by errors (one tree each, the better is kept), or
  passes its points down unsplit to a Benders node of the last level that separates their classes, when no
  margin split can;
* **at a parent of the last level** it first looks one level ahead: among the candidate splits with the best
  Gini it takes the first whose two children can each classify all their points with one split (at most two
  classes, separable with the child's gap), which makes the subtree perfect; it falls back to the rules above
  when there is none;
* **at the last level**, whose children are leaves, it ignores the routing and takes the split that classifies
  the most of the node's points: over the node's own direction, the axes, and for each one-vs-rest and
  one-vs-one task of its classes the exact separator (16) when the task is separable (else linear SVMs),
  every threshold is scanned;
* every threshold respects the node's rows: a gap of ε at nodes with margin rows, a strictly positive gap at
  Benders nodes (:data:`STRICT_GAP`); leaves predict their majority class.

With point weights (the fit's ``sample_weight`` times ``class_weight``, ``ctx.weights``) every count above is a
weighted count: the label counts behind "follow", "error" and Gini, a leaf's majority, and the points a tree
classifies, as in the weighted (1a) of :mod:`~odtlib.models.hyperplane._formulation`. The candidate directions
(axes, separators, SVMs) are not scores and stay unweighted: each is scored by weight before it is used.

The tree is proposed only when it classifies more weight than any tree the heuristic proposed before, and
each routing of the last level's parents is repaired once. It never changes what the model optimises (a
proposal is a feasible solution, checked by the solver like any other), so every optimum stays the same; it
only finds incumbents sooner. Runs on SCIP (heuristic callbacks); other solvers ignore it.
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from odtlib.models._hyperplane import FullTreeRouting, hyperplane_tree, nodes_with_margin_rows
from odtlib.models.hyperplane.shattering import strict_separator
from odtlib.models.svm_tree import binary_tasks
from odtlib.solvers import PrimalHeuristic, Values

if TYPE_CHECKING:
    from odtlib.models.hyperplane._formulation import HyperplaneFormulation

__all__ = ["RoutingRepair", "best_threshold", "threshold_scores", "class_directions", "routing_directions",
           "STRICT_GAP"]

STRICT_GAP = 1e-6          # the smallest gap a Benders node's threshold may sit in (strict separability, with
                           # slack for the separation LP's tolerances)
SVM_C = (1.0, 100.0)       # linear SVMs per task: a soft and a nearly hard margin
DECIDED = 0.4              # |w - 1/2| above this: the point's side at a node is decided
UPPER_SCORES = ("gini", "error")   # criteria of the splits above the last level that do not follow w; the repair
                                   # keeps the better tree (from an undecided LP point on Banknote, depths 3-4,
                                   # Gini reaches all 1372 points and errors 1362)
PASS = "pass"              # a node above the last level that sends its points down unsplit (_split_or_pass)
DIRECTION_CACHE = 256      # row sets whose class directions (SVM fits) and lookaheads are kept
MAX_TIME_SHARE = 0.2       # the repairs' share of the search time, at most (Iris, depth 2: 30 % without it)
LOOKAHEAD_TRIES = 400      # candidate splits of a last level's parent checked for perfect children, best Gini
                           # first. From an undecided point: strict children (SOCT-benders-last) on banknote,
                           # ionosphere, parkinsons at depth 2 have one by rank 8; ε-margin children (baseline)
                           # on ionosphere need more than 32, and 400 reach 351 of 351 at depths 2-4 (< 1 s each)


def threshold_scores(values: np.ndarray, labels: np.ndarray, n_labels: int, gap: float, score: str,
                     weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every threshold along one direction with its ``score`` (:func:`best_threshold`): returns the points in
    the order of their values, the scores (-1 where the gap above the position is narrower than ``gap``) and
    the label counts on the left of each position (row k: the k + 1 smallest points), each point counting its
    weight (1 without ``weights``)."""
    order = np.argsort(values, kind="stable")
    v, counts = values[order], np.eye(n_labels)[labels[order]]
    if weights is not None:
        counts = counts * weights[order, None]
    left = np.cumsum(counts, axis=0)
    right = left[-1] - left
    if score == "follow":
        scores = left[:, 0] + right[:, 1]
    elif score == "error":
        scores = left.max(axis=1) + right.max(axis=1)
    else:
        size_left, size_right = left.sum(axis=1), right.sum(axis=1)
        scores = (left**2).sum(axis=1) / _nonzero(size_left) + (right**2).sum(axis=1) / _nonzero(size_right)
    allowed = np.r_[np.diff(v) >= gap, True]            # a cut after position k needs a gap above v[k]
    return order, np.where(allowed, scores, -1.0), left


def _nonzero(sizes: np.ndarray) -> np.ndarray:
    """``sizes`` with 1 for 0 (an empty side adds 0 to a Gini score)."""
    return np.where(sizes > 0, sizes, 1.0)


def best_threshold(values: np.ndarray, labels: np.ndarray, n_labels: int, gap: float, score: str,
                   weights: np.ndarray | None = None) -> tuple[float, float]:
    """The best threshold β along one direction: points with value <= β go left.

    ``values`` are the points' projections. β may only sit in a gap of at least ``gap`` between consecutive
    distinct values (or above every value: everything left). ``score`` of a threshold:

    * "follow": the points whose side agrees with their label (0 = left, 1 = right; a routing to follow);
    * "error": the points classified correctly when each side predicts its majority label (children are
      leaves);
    * "gini": Σ_k L_k²/|L| + Σ_k R_k²/|R| over the label counts L, R of the two sides, which is |points| minus
      the size-weighted Gini impurity of the children (CART's criterion, for a split with subtrees below).

    With ``weights`` a point counts its weight in every count (in |points|, L_k, R_k alike).

    Returns (score, β) of the best, the lowest β on ties; β is the largest value on the left (so the right side
    lies at least ``gap`` beyond it).
    """
    order, scores, _ = threshold_scores(values, labels, n_labels, gap, score, weights)
    k = int(np.argmax(scores))
    return float(scores[k]), float(values[order[k]])


def separating_direction(X: np.ndarray, goes_right: np.ndarray) -> np.ndarray | None:
    """The direction a of system (16) (:func:`~odtlib.models.hyperplane.shattering.strict_separator`) when the two sides
    of the routing are strictly separable; None otherwise (or when one side is empty)."""
    if goes_right.all() or not goes_right.any():
        return None
    solution = strict_separator(X[~goes_right], X[goes_right])
    return None if solution is None else solution[0]


def svm_directions(X: np.ndarray, labels: np.ndarray, C_values=SVM_C) -> list[np.ndarray]:
    """The normals of linear SVMs (one per C) trained on 0/1 ``labels``."""
    directions = []
    for C in C_values:
        svm = LinearSVC(C=C, max_iter=2000, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svm.fit(X, labels)
        directions.append(svm.coef_[0])
    return directions


def routing_directions(X: np.ndarray, goes_right: np.ndarray) -> list[np.ndarray]:
    """Directions that reproduce a routing: the exact separator of (16) when there is one, else linear SVMs."""
    exact = separating_direction(X, goes_right)
    return [exact] if exact is not None else svm_directions(X, goes_right.astype(int))


def class_directions(X: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    """Candidate directions for a split whose children are leaves: the axes, and for each one-vs-rest and
    one-vs-one task of the classes present (:func:`~odtlib.models.svm_tree.binary_tasks`) its exact separator
    when the task is separable, else linear SVMs."""
    directions = list(np.eye(X.shape[1]))
    for rows, labels in binary_tasks(y):
        directions += routing_directions(X[rows], labels.astype(bool))
    return directions


def _cached(cache: dict, key, compute: Callable):
    """``cache[key]``, computed on a miss; the cache is emptied when it holds :data:`DIRECTION_CACHE` entries."""
    if key not in cache:
        if len(cache) >= DIRECTION_CACHE:
            cache.clear()
        cache[key] = compute()
    return cache[key]


class RoutingRepair(PrimalHeuristic):
    """Repair the solver's routing into a hyperplane tree and propose it (module docstring).

    ``formulation`` (a :class:`~odtlib.models.hyperplane._formulation.HyperplaneFormulation`) gives the data
    (with the points' weights, ``ctx.weights``), the model, ``epsilon`` (the margin of the nodes with big-M
    rows, ``model.H``) and ``max_splits`` (β of (1h): a repaired tree with more splits is not proposed); a
    proposal is ``formulation.routing_values(routing)`` of a :class:`~odtlib.models._hyperplane.FullTreeRouting`
    (the repair lays its tree on the full tree itself, so that a node that does not split keeps its place).
    """

    def __init__(self, formulation: HyperplaneFormulation):
        ctx, model = formulation.ctx, formulation.model
        self.formulation = formulation
        self.X, self.y, self.classes, self.depth = ctx.X, ctx.y, ctx.classes, ctx.depth
        self.weights = ctx.weights
        self.epsilon, self.max_splits = formulation.epsilon, formulation.max_splits
        self.n_classes = len(self.classes)
        self.margin_nodes = sorted(nodes_with_margin_rows(model) or ())
        self._w = [model.w[i, t] for i in model.I for t in model.V]
        self._a = [model.a[t, j] for t in self.margin_nodes for j in model.F]
        self._b = [model.b[t] for t in self.margin_nodes]
        self._pending: np.ndarray | None = None
        self._repaired: set[bytes] = set()
        self.best = -1
        self.seconds, self._started = 0.0, None
        self._directions: dict[bytes, list[np.ndarray]] = {}
        self._lookahead: dict[tuple, tuple | None] = {}

    # ------------------------------------------------------------------ heuristic callback
    def observe(self, values: Values) -> None:
        """Remember an integer candidate (the lazy check sees every one)."""
        if values.is_integral:
            self._pending = values.x.copy()

    def heuristic(self, values: Values):
        """Repair the last integer candidate (else the LP point); propose it when it beats every earlier one.
        The first call repairs the undecided point first (:meth:`undecided`), a tree from the data alone.
        Skipped while the repairs have taken more than ``MAX_TIME_SHARE`` of the time since the first call."""
        now = time.perf_counter()
        first, self._started = self._started is None, self._started or now
        if self.seconds > MAX_TIME_SHARE * (now - self._started):
            return None
        x, self._pending = (values.x if self._pending is None else self._pending), None
        try:
            proposal = self._propose(self.undecided(), {}) if first else None
            return proposal if proposal is not None else self._propose(*self._read(values, x))
        finally:
            self.seconds += time.perf_counter() - now

    def undecided(self) -> np.ndarray:
        """The routing w = 1/2 everywhere: every node splits by the data alone (Gini or errors above the
        parents of the last level, the lookahead there, the best split at the last level). Its tree is perfect
        on WDBC and ionosphere at depths 2-4 and on banknote and parkinsons at depths 3-4 (also 2 with Benders
        at the last level), for S-OCT and OCT-H alike, in at most 1.3 s; a search's LP points may take minutes
        to lead there, or never do (the ε-margin baseline on banknote at depth 3)."""
        return np.full((len(self.y), 2 ** (self.depth + 1)), 0.5)

    def _propose(self, w: np.ndarray, planes: dict):
        routing, correct = self.repair(w, planes)
        if routing is None or correct <= self.best or not self._within_budget(routing):
            return None
        self.best = correct
        return self.formulation.routing_values(routing)

    def _within_budget(self, routing: FullTreeRouting) -> bool:
        return self.max_splits is None or len(routing.splits) <= self.max_splits

    def tree(self, routing: FullTreeRouting):
        """The :class:`~odtlib.tree.Tree` of a repaired routing (thresholds in the middle of their gaps)."""
        splits = {t: (a, b + self._gap(t) / 2) for t, (a, b) in routing.splits.items()}
        return hyperplane_tree(self.depth, splits, routing.leaf_label)

    def _read(self, values: Values, x: np.ndarray) -> tuple[np.ndarray, dict]:
        """The routing w (points × node ids) and the (a_t, b_t) of the margin nodes at the point x."""
        n, p = self.X.shape
        w = np.zeros((n, 2 ** (self.depth + 1)))
        w[:, 1:] = x[values.columns(self._w)].reshape(n, -1)
        a = x[values.columns(self._a)].reshape(len(self.margin_nodes), p) if self._a else np.zeros((0, p))
        b = x[values.columns(self._b)] if self._b else np.zeros(0)
        return w, {t: (a[k], b[k]) for k, t in enumerate(self.margin_nodes)}

    # ------------------------------------------------------------------ the repair
    def repair(self, w: np.ndarray, planes: dict) -> tuple[FullTreeRouting | None, float]:
        """The best repaired tree of routing ``w`` over the criteria of :data:`UPPER_SCORES` (for the nodes
        above the last level that do not follow w), laid on the full tree, and the weight of the training points
        it classifies correctly; (None, -1) when the same rounded routing above the last level was repaired
        before. Each split (a_t, b_t) has its threshold b_t at the largest value on its left."""
        last = 2 ** (self.depth - 1)
        target = (w[:, 2:2 * last] > 0.5).tobytes()
        if target in self._repaired:
            return None, -1
        self._repaired.add(target)
        return max((self._repair_by(w, planes, score) for score in UPPER_SCORES), key=lambda found: found[1])

    def _repair_by(self, w: np.ndarray, planes: dict, upper_score: str) -> tuple[FullTreeRouting, float]:
        """One repaired tree: above the last level follow w (or split by ``upper_score``), then classify."""
        last = 2 ** (self.depth - 1)
        reach = {1: np.arange(len(self.y))}
        splits, passing = {}, set()
        for t in range(1, last):                                       # above the last level: follow w
            rows = reach[t]
            if t in passing:
                split = PASS
            else:
                split = self._perfect_children(rows, t) if 2 * t >= last else None
                if split is None:
                    split = self._follow(rows, w[rows, 2 * t + 1], t, planes.get(t), upper_score)
            if split is PASS:
                split = None
                passing.add(2 * t)
            splits[t] = split
            reach[2 * t], reach[2 * t + 1] = self._route(rows, split)
        for t in range(last, 2 * last):                                # the last level: classify
            rows = reach[t]
            splits[t] = self._classify(rows, t, planes.get(t))
            reach[2 * t], reach[2 * t + 1] = self._route(rows, splits[t])
        labels, correct = {}, 0.0
        node_of = np.zeros((len(self.y), self.depth + 1), dtype=np.int64)
        for t, rows in reach.items():
            node_of[rows, t.bit_length() - 1] = t
        for t in range(2 * last, 4 * last):
            counts = np.bincount(self.y[reach[t]], weights=self.weights[reach[t]], minlength=self.n_classes)
            labels[t] = self.classes[int(np.argmax(counts))]
            correct += float(counts.max())
        kept = {t: split for t, split in splits.items() if split is not None}
        return FullTreeRouting(self.depth, kept, labels, node_of), correct

    def _gap(self, t: int) -> float:
        return self.epsilon if t in self.margin_nodes else STRICT_GAP

    def _all_weight(self, rows: np.ndarray) -> float:
        """The weight of ``rows``, less a rounding slack: a split whose "error" score reaches it classifies them
        all (the weighted counts are float sums)."""
        total = float(self.weights[rows].sum())
        return total - 1e-9 * max(total, 1.0)

    def _route(self, rows: np.ndarray, split) -> tuple[np.ndarray, np.ndarray]:
        if split is None:
            return rows, rows[:0]
        a, b = split
        right = self.X[rows] @ a > b
        return rows[~right], rows[right]

    def _follow(self, rows: np.ndarray, w_right: np.ndarray, t: int, plane, upper_score: str):
        """The split at t that agrees with the routing (w_{i,2t+1} > 1/2: right) on the most points; where the
        point leaves more than half of the rows undecided (w_{i,2t+1} in [0.1, 0.9]) or sends every row one way,
        :meth:`_split_or_pass` instead."""
        if len(rows) == 0:
            return None
        goes_right = w_right > 0.5
        decided = np.mean(np.abs(w_right - 0.5) > DECIDED)
        if goes_right.all() or not goes_right.any() or decided < 0.5:
            return self._split_or_pass(rows, t, plane, upper_score)
        directions = [plane[0]] if plane is not None else routing_directions(self.X[rows], goes_right)
        directions = [a for a in directions if np.any(a)]
        if not directions:
            return None
        return self._along(directions, rows, goes_right.astype(int), 2, self._gap(t), "follow")[1]

    def _split_or_pass(self, rows: np.ndarray, t: int, plane, score: str):
        """A split at t with subtrees below: the candidate of :meth:`_class_candidates` with the best ``score``
        ("gini": the lowest Gini impurity of its children, CART's criterion; "error": the fewest errors as if
        its children were leaves). Or :data:`PASS`: when t has margin rows, no split at t
        classifies all its points even as leaves, and a strict split does, the points pass down the left chain
        of non-splitting nodes to the last level's node below t, which splits them strictly if it is a Benders
        node (a shallower tree embedded in a deeper one)."""
        directions = self._class_candidates(rows, plane)
        if directions is None:
            return None
        y, everything = self.y[rows], self._all_weight(rows)
        below = t << (self.depth - t.bit_length())
        if t in self.margin_nodes and below not in self.margin_nodes:
            if (self._along(directions, rows, y, self.n_classes, self._gap(t), "error")[0] < everything
                    and self._along(directions, rows, y, self.n_classes, STRICT_GAP, "error")[0] >= everything):
                return PASS
        return self._along(directions, rows, y, self.n_classes, self._gap(t), score)[1]

    def _perfect_children(self, rows: np.ndarray, t: int):
        """A one-level lookahead at a parent of the last level: among the :data:`LOOKAHEAD_TRIES` candidate
        splits at t with the best Gini (the class directions of :meth:`_class_candidates`, every threshold with
        at most two classes on each side), the first whose children can each classify all their points with one
        split (:meth:`_classifiable`); None when there is none. It depends on the rows only, so it is cached per
        row set (a depth-2 root sees every row at every call)."""
        return _cached(self._lookahead, (t, rows.tobytes()), lambda: self._search_perfect_children(rows, t))

    def _search_perfect_children(self, rows: np.ndarray, t: int):
        directions = self._class_candidates(rows, None)
        if directions is None:
            return None
        scans = []                                        # per direction: (a, values, order, Gini or -1)
        for direction in directions:
            a = direction / np.abs(direction).sum()
            values = self.X[rows] @ a
            order, scores, left = threshold_scores(values, self.y[rows], self.n_classes, self._gap(t), "gini",
                                                   self.weights[rows])
            right = left[-1] - left
            two_classes = ((left > 0).sum(axis=1) <= 2) & ((right > 0).sum(axis=1) <= 2)
            two_classes[-1] = False                                            # the last: all points left
            scans.append((a, values, order, np.where(two_classes, scores, -1.0)))
        scores = np.concatenate([scan[3] for scan in scans])
        n = len(rows)
        for best in np.argsort(-scores, kind="stable")[:LOOKAHEAD_TRIES]:
            if scores[best] < 0:
                break
            a, values, order, _ = scans[best // n]
            k = best % n
            beta = float(values[order[k]])
            if (-1 <= beta <= 1 and self._classifiable(rows[order[:k + 1]], 2 * t)
                    and self._classifiable(rows[order[k + 1:]], 2 * t + 1)):
                return a, beta
        return None

    def _classifiable(self, rows: np.ndarray, t: int) -> bool:
        """Whether one split at t (children: leaves) classifies all of ``rows``: one class, or two that (16)
        separates with a margin of at least t's gap (the widest margin of any hyperplane is 2 / ||a||_1 at the
        separator of smallest norm)."""
        y = self.y[rows]
        present = np.unique(y)
        if len(present) != 2:
            return len(present) < 2
        first = y == present[0]
        solution = strict_separator(self.X[rows[first]], self.X[rows[~first]])
        return solution is not None and 2 / np.abs(solution[0]).sum() >= self._gap(t)

    def _classify(self, rows: np.ndarray, t: int, plane) -> tuple | None:
        """The split at t (children are leaves) that classifies the most of its points."""
        directions = self._class_candidates(rows, plane)
        if directions is None:
            return None
        return self._along(directions, rows, self.y[rows], self.n_classes, self._gap(t), "error")[1]

    def _class_candidates(self, rows: np.ndarray, plane) -> list[np.ndarray] | None:
        """:func:`class_directions` at the rows and the node's own direction; None when one class is left."""
        y = self.y[rows]
        if len(np.unique(y)) < 2:
            return None
        directions = _cached(self._directions, rows.tobytes(), lambda: class_directions(self.X[rows], y))
        return directions + ([plane[0]] if plane is not None and np.any(plane[0]) else [])

    def _along(self, directions, rows, labels, n_labels, gap: float, score: str) -> tuple[float, tuple | None]:
        """The best ``score`` (:func:`best_threshold`) and split (a, β) over ``directions`` (each scaled to
        ||a||_1 = 1, the bounded splits (5)), with thresholds β in gaps of at least ``gap`` (β: the largest
        value on the left); a zero direction (a linear SVM that found no normal, as on XOR) is skipped."""
        best = (-1, None)
        for direction in directions:
            if not np.any(direction):
                continue
            a = direction / np.abs(direction).sum()
            value, beta = best_threshold(self.X[rows] @ a, labels, n_labels, gap, score, self.weights[rows])
            if value > best[0] and -1 <= beta <= 1:
                best = (value, (a, beta))
        return best
