"""Fixed tree topologies for paper 000 (Günlük, Kalagnanam, Li, Menickelly & Scheinberg, 2019).

The formulation of Section 4 optimises the tests of a tree whose shape is given in advance. In the
paper's shapes a decision node has either two leaf children or two decision-node children, and the
leaves are labelled in advance: numbering the leaves 1..|B| from left to right, the even ones predict
the positive class (B+) and the odd ones the negative class (B-), i.e. in every pair of sibling leaves
the left leaf is negative and the right leaf positive. Fixing the labels loses nothing because a subset
test can be complemented (Section 3).

A shape is written as nested pairs: ``None`` is a leaf, ``(left, right)`` a decision node.

The four named shapes of the paper (the figures are not in our text copy, so two are inferred):

* ``"depth2"``: the balanced tree with 3 decision nodes and 4 leaves.
* ``"depth3"``: the balanced tree with 7 decision nodes and 8 leaves (the paper's Fig. 2).
* ``"depth2.5"`` [inferred]: 5 decision nodes, 6 leaves — the root has one child that is a depth-2
  tree and one child whose two children are leaves. Table 13's average leaf counts (4.8 … 8.0 over
  five runs, between the 4 of depth 2 and the 8 of depth 3) are consistent with 6 leaves, and the
  text says it is a minor of the depth-3 tree. We put the depth-2 subtree on the left.
* ``"imbalanced"`` [inferred]: 7 decision nodes and 8 leaves like depth 3 ("the same number of
  nodes", Section 5.1) but not symmetric at the root, and containing depth 2 and depth 2.5 as
  subtrees (Section 4.2). We take the root with a leaf pair on the left and the depth-2.5 tree on the
  right (depth 4).

Anchors (13) apply at decision nodes that are not adjacent to a leaf and whose two subtrees have the
same shape (:meth:`Topology.symmetric`): every non-leaf-adjacent node of depth 2/3, the depth-2 child of
depth 2.5's root, and the corresponding node of the imbalanced tree; never at the roots of depth 2.5 and
imbalanced.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

__all__ = ["SHAPES", "Topology", "get_topology"]

_PAIR = (None, None)
_DEPTH2 = (_PAIR, _PAIR)

SHAPES: dict[str, Any] = {
    "depth2": _DEPTH2,
    "depth2.5": (_DEPTH2, _PAIR),
    "depth3": (_DEPTH2, _DEPTH2),
    "imbalanced": (_PAIR, (_DEPTH2, _PAIR)),
}


def _check_shape(shape: Any, where: str = "root") -> None:
    if shape is None:
        return
    if not (isinstance(shape, (tuple, list)) and len(shape) == 2):
        raise ValueError(f"tree shape at {where}: expected None (a leaf) or a (left, right) pair, got {shape!r}")
    left, right = shape
    if (left is None) != (right is None):
        raise ValueError(
            f"tree shape at {where}: a decision node needs two leaves or two decision nodes as children "
            "(paper 000's topologies; the fixed leaf labels rely on it)"
        )
    _check_shape(left, where + ".left")
    _check_shape(right, where + ".right")


def _canonical(shape: Any) -> Any:
    return None if shape is None else (_canonical(shape[0]), _canonical(shape[1]))


@dataclass(frozen=True)
class Topology:
    """A fixed tree shape with the paper's index sets.

    Decision nodes K are numbered 1..|K| breadth first (root = 1); leaves B are numbered 1..|B| left
    to right. ``children[k] = (left, right)`` where each child is ``("node", k')`` or ``("leaf", b)``.
    """

    shape: Any
    name: str = "custom"
    children: dict[int, tuple[tuple[str, int], tuple[tuple[str, int], tuple[str, int]]]] = field(
        init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_shape(self.shape)
        if self.shape is None:
            raise ValueError("tree shape must have at least one decision node, got a single leaf")
        object.__setattr__(self, "shape", _canonical(self.shape))
        object.__setattr__(self, "children", self._number())

    def _number(self) -> dict:
        """Breadth-first numbering of the decision nodes, left-to-right numbering of the leaves."""
        first_leaf: dict[tuple, int] = {}  # path of a subtree -> number of its leftmost leaf

        def number_leaves(shape: Any, first: int, path: tuple) -> int:
            first_leaf[path] = first
            if shape is None:
                return first + 1
            after_left = number_leaves(shape[0], first, path + (0,))
            return number_leaves(shape[1], after_left, path + (1,))

        number_leaves(self.shape, 1, ())
        children: dict = {}
        subtree_shape: dict[int, Any] = {1: self.shape}
        queue = [(1, (), self.shape)]
        while queue:
            k, path, shape = queue.pop(0)
            kids = []
            for side in (0, 1):
                child_path, child = path + (side,), shape[side]
                if child is None:
                    kids.append(("leaf", first_leaf[child_path]))
                else:
                    k_child = len(subtree_shape) + 1
                    subtree_shape[k_child] = child
                    kids.append(("node", k_child))
                    queue.append((k_child, child_path, child))
            children[k] = tuple(kids)
        object.__setattr__(self, "_subtree_shape", subtree_shape)
        return children

    # ------------------------------------------------------------------ index sets of Section 4
    @cached_property
    def decision_nodes(self) -> list[int]:
        """K = {1, ..., |K|}."""
        return sorted(self.children)

    @cached_property
    def leaves(self) -> list[int]:
        """B = {1, ..., |B|}, left to right."""
        return sorted(b for kids in self.children.values() for kind, b in kids if kind == "leaf")

    def is_positive_leaf(self, b: int) -> bool:
        """b ∈ B+ (even index); B- are the odd ones."""
        return b % 2 == 0

    @cached_property
    def paths(self) -> dict[int, list[tuple[int, str]]]:
        """For each leaf b the root-to-b path as (k, "L"/"R") pairs: K^L(b) and K^R(b)."""
        out: dict[int, list[tuple[int, str]]] = {}

        def walk(k: int, path: list[tuple[int, str]]) -> None:
            for (kind, child), side in zip(self.children[k], "LR"):
                if kind == "leaf":
                    out[child] = path + [(k, side)]
                else:
                    walk(child, path + [(k, side)])

        walk(1, [])
        return out

    def left_leaves(self, k: int) -> list[int]:
        """{b : k ∈ K^L(b)} — the leaves below k's left branch."""
        return [b for b, path in self.paths.items() if (k, "L") in path]

    def right_leaves(self, k: int) -> list[int]:
        """{b : k ∈ K^R(b)} — the leaves below k's right branch."""
        return [b for b, path in self.paths.items() if (k, "R") in path]

    def leaf_adjacent(self, k: int) -> bool:
        """True when k's children are leaves (Proposition 3's nodes whose z may be continuous)."""
        return self.children[k][0][0] == "leaf"

    def symmetric(self, k: int) -> bool:
        """k is not adjacent to a leaf and its left and right subtrees have the same shape (anchors (13))."""
        shape = self._subtree_shape[k]
        return not self.leaf_adjacent(k) and shape[0] == shape[1]

    @property
    def depth(self) -> int:
        return max(len(p) for p in self.paths.values())

    def __repr__(self) -> str:
        return f"Topology({self.name!r}, |K|={len(self.decision_nodes)}, |B|={len(self.leaves)})"


def get_topology(topology: str | Topology | Any) -> Topology:
    """A :class:`Topology` from a name of :data:`SHAPES`, a nested-pair shape, or a Topology."""
    if isinstance(topology, Topology):
        return topology
    if isinstance(topology, str):
        if topology not in SHAPES:
            raise ValueError(f"unknown topology {topology!r}; choose one of {', '.join(SHAPES)} or give a shape "
                             "as nested (left, right) pairs with None for leaves")
        return Topology(SHAPES[topology], name=topology)
    return Topology(topology)
