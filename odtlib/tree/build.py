"""The nodes of a :class:`~odtlib.tree.Tree` from a fitted CART tree or from a solution on the full binary tree.

Both number the nodes breadth first, as the MIP formulations do (root 1, children of t are 2t and 2t + 1):

* :func:`sklearn_nodes` -- a scikit-learn ``DecisionTreeClassifier``'s ``tree_`` (:meth:`Tree.from_sklearn`);
* :func:`flow_solution_nodes` -- the (b, w) assignment of a flow formulation, papers 001 and 003
  (:meth:`Tree.from_flow_solution`);
* :func:`full_tree_walk` -- the nodes reached from the root when a rule says which nodes split, the walk those
  readings of a full-tree solution share.

Each model family's own decoder stays in its folder (``models/_hyperplane.py``, ``models/categorical/``, ...).
"""
from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from odtlib.tree.nodes import Leaf, Node, UnivariateSplit

__all__ = ["flow_solution_nodes", "full_tree_walk", "sklearn_nodes"]


def full_tree_walk(splits: Callable[[int], bool]) -> Iterator[tuple[int, bool]]:
    """``(t, splits(t))`` for every node t of the full binary tree reached from the root 1, in pre-order, when
    node t has the children 2t and 2t + 1 iff ``splits(t)``; ``splits`` must turn False within finite depth."""
    stack = [1]
    while stack:
        t = stack.pop()
        branches = bool(splits(t))
        yield t, branches
        if branches:
            stack += [2 * t + 1, 2 * t]


def flow_solution_nodes(depth: int, branch_feature: Mapping[int, int], node_label: Mapping[int, Any]
                        ) -> dict[int, Node]:
    """The nodes of :meth:`Tree.from_flow_solution`: ``branch_feature[n] = f`` is the split "x_f == 0 goes
    left" (threshold 0.5), ``node_label[n] = k`` a leaf predicting k; every node reached needs exactly one."""
    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 0:
        raise ValueError(f"depth must be a non-negative integer, got {depth!r}")
    n_internal = 2**depth  # ids 1 .. 2^depth - 1 may branch; ids 2^depth .. 2^(depth+1) - 1 are leaves

    def branches(n: int) -> bool:
        if n in branch_feature and n in node_label:
            raise ValueError(f"node {n} has both a branching feature and a class label")
        if n not in branch_feature and n not in node_label:
            raise ValueError(f"node {n} is reached by the tree but has neither a branching feature nor a label")
        if n in branch_feature and n >= n_internal:
            raise ValueError(f"node {n} is at depth {depth} and cannot branch")
        return n in branch_feature

    return {n: UnivariateSplit(branch_feature[n], 2 * n, 2 * n + 1) if split else Leaf(node_label[n])
            for n, split in full_tree_walk(branches)}


def sklearn_nodes(sk_tree: Any, labels: Sequence[Any]) -> dict[int, Node]:
    """The nodes of :meth:`Tree.from_sklearn` from CART's ``tree_`` arrays: node ``i`` of scikit-learn splits
    on ``feature[i] <= threshold[i]`` unless ``children_left[i] == -1`` (a leaf, predicting ``labels`` at the
    largest entry of ``value[i]``)."""
    heap_id = {0: 1}                                     # scikit-learn's node 0 is the root
    nodes: dict[int, Node] = {}
    for i in range(sk_tree.node_count):                 # scikit-learn numbers a parent before its children
        n, left = heap_id[i], int(sk_tree.children_left[i])
        if left == -1:
            nodes[n] = Leaf(labels[int(np.argmax(sk_tree.value[i][0]))])
            continue
        heap_id[left], heap_id[int(sk_tree.children_right[i])] = 2 * n, 2 * n + 1
        nodes[n] = UnivariateSplit(int(sk_tree.feature[i]), 2 * n, 2 * n + 1, float(sk_tree.threshold[i]))
    return nodes
