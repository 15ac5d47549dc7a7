"""Brute-force oracle for paper 000: enumerate every subset-split tree of a fixed shape on tiny data.

Independent of the MIP: a tree shape is nested (left, right) pairs with None for leaves; at each decision
node we try every group and every allowed subset S of its columns (a row goes left iff it has a 1 in a
column of S). Subtrees are independent once the rows reaching them are known, so the achievable
(correct positives, correct negatives) pairs of a subtree are combined from its children's, keeping only
the Pareto-optimal pairs, with a memo on (subtree, rows). Every tree is still considered: the pruning
only drops pairs dominated in both counts.

With ``free_labels`` every leaf may predict either class (the paper fixes them; Section 3 argues this
loses nothing — the oracle checks that claim too). With ``free_labels=False`` the leaves are labelled as
in the paper: numbering them left to right from 1, even leaves positive.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import product

import numpy as np


def allowed_subsets(n_columns: int, ordinal: bool, max_card: int | None, proper: bool) -> list[tuple[int, ...]]:
    """Subsets (as tuples of positions) a node may send left, under the paper's optional restrictions."""
    subsets = []
    for mask in product((0, 1), repeat=n_columns):
        chosen = tuple(t for t, bit in enumerate(mask) if bit)
        size = len(chosen)
        if proper and not 0 < size < n_columns:
            continue
        if ordinal and chosen and chosen != tuple(range(size)) and chosen != tuple(range(n_columns - size, n_columns)):
            continue  # neither a prefix ("<=") nor a suffix (">=")
        if max_card is not None and not ordinal and n_columns > max_card and max_card < size < n_columns - max_card:
            continue
        subsets.append(chosen)
    return subsets


def pareto(points) -> frozenset:
    pts = sorted(set(points), reverse=True)
    front, best_neg = [], -1
    for pos, neg in pts:
        if neg > best_neg:
            front.append((pos, neg))
            best_neg = neg
    return frozenset(front)


def frontier(A, positive, groups, shape, *, ordinal_groups=(), max_card=None, proper=False,
             free_labels=True) -> frozenset:
    """Pareto set of (correct positives, correct negatives) over all trees of ``shape``.

    ``groups``: list of column-index lists; ``ordinal_groups``: indices of groups restricted to prefix /
    suffix subsets (those are exempt from ``max_card``, as in the model with ``ordinal=True``).
    """
    A = np.asarray(A) > 0.5
    positive = np.asarray(positive, dtype=bool)
    n = len(positive)
    options = []  # the left subset (column list) of every allowed test
    for gi, cols in enumerate(groups):
        for chosen in allowed_subsets(len(cols), gi in ordinal_groups, max_card, proper):
            options.append([cols[t] for t in chosen])
    goes_left = [sum(1 << i for i in range(n) if A[i, cols].any()) if cols else 0 for cols in options]
    pos_mask = sum(1 << i for i in range(n) if positive[i])

    def count(bits: int) -> int:
        return bin(bits).count("1")

    def n_leaves(s) -> int:
        return 1 if s is None else n_leaves(s[0]) + n_leaves(s[1])

    @lru_cache(maxsize=None)
    def solve(s, first_leaf: int, rows: int) -> frozenset:
        if s is None:
            as_pos = (count(rows & pos_mask), 0)
            as_neg = (0, count(rows & ~pos_mask))
            if free_labels:
                return pareto([as_pos, as_neg])
            return frozenset([as_pos if first_leaf % 2 == 0 else as_neg])
        left_first, right_first = first_leaf, first_leaf + n_leaves(s[0])
        points = []
        for left_bits in set(goes_left):
            left_rows, right_rows = rows & left_bits, rows & ~left_bits
            for lp, ln in solve(s[0], left_first, left_rows):
                for rp, rn in solve(s[1], right_first, right_rows):
                    points.append((lp + rp, ln + rn))
        return pareto(points)

    return solve(shape, 1, (1 << n) - 1)


def best_weighted(front, class_weight: float = 1.0) -> float:
    """max pos + C·neg (objective (8a))."""
    return max(p + class_weight * q for p, q in front)


def best_with_floor(front, maximize: str, minimum: int) -> int | None:
    """max of one count subject to the other >= minimum (Section 4.6); None if infeasible."""
    if maximize == "sensitivity":
        values = [p for p, q in front if q >= minimum]
    else:
        values = [q for p, q in front if p >= minimum]
    return max(values) if values else None
