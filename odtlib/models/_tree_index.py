"""The full binary tree of depth d, numbered breadth first: the index sets every formulation shares.

Internal (branching) nodes N = {1, ..., 2^d - 1} and leaves L = {2^d, ..., 2^(d+1) - 1}; the children of n
are l(n) = 2n and r(n) = 2n + 1 and its parent is a(n) = n // 2 (Aghaei et al. 2020, Section 2.1; the same
numbering serves the univariate, hyperplane and sparse-tree formulations). :func:`linear_sum` builds the
long sums of their constraints fast.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyomo.environ as pyo
from pyomo.core.expr.numeric_expr import LinearExpression

__all__ = ["TreeIndex", "linear_sum", "tree_model", "as_binary"]


@dataclass(frozen=True)
class TreeIndex:
    """Index sets of the full binary tree of depth ``depth`` (breadth-first numbering from 1)."""

    depth: int

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise ValueError(f"depth must be >= 1, got {self.depth}")

    @cached_property
    def internal(self) -> list[int]:
        """N: branching nodes 1 .. 2^d - 1."""
        return list(range(1, 2**self.depth))

    @cached_property
    def leaves(self) -> list[int]:
        """L: leaves 2^d .. 2^(d+1) - 1."""
        return list(range(2**self.depth, 2 ** (self.depth + 1)))

    @cached_property
    def nodes(self) -> list[int]:
        """N ∪ L."""
        return self.internal + self.leaves

    @property
    def n_nodes(self) -> int:
        return 2 ** (self.depth + 1) - 1

    @staticmethod
    def left(n: int) -> int:
        return 2 * n

    @staticmethod
    def right(n: int) -> int:
        return 2 * n + 1

    @staticmethod
    def parent(n: int) -> int:
        return n // 2

    def is_leaf(self, n: int) -> bool:
        return n >= 2**self.depth

    @staticmethod
    def ancestors(n: int) -> list[tuple[int, bool]]:
        """Ancestors of ``n`` from the root down, each with True when the path goes to its left child."""
        path = []
        while n > 1:
            path.append((n // 2, n % 2 == 0))
            n //= 2
        return path[::-1]

    def height(self, n: int) -> int:
        """Levels from node ``n`` down to the leaves (root: depth, leaves: 0)."""
        return self.depth - (n.bit_length() - 1)

    def leaves_below(self, n: int) -> list[int]:
        """Leaves of the subtree rooted at ``n``."""
        height = self.height(n)
        first = n << height
        return list(range(first, first + 2**height))


def linear_sum(variables: list) -> LinearExpression:
    """Σ of Pyomo variables as one linear expression, built without ``sum(...)``'s chain of partial sums (the
    per-point constraints have millions of terms; bench/README.md, "Measured design choices", has the numbers)."""
    return LinearExpression(list(variables))


def tree_model(name: str, depth: int, X: np.ndarray, y: np.ndarray, n_classes: int | None = None
               ) -> tuple[pyo.ConcreteModel, np.ndarray]:
    """A new model on the full binary tree of ``depth``, with the index sets every formulation uses.

    Sets: N (branching nodes), L (leaves), V = N ∪ L, F (features: X's columns), K (classes 0..K-1, K from
    ``n_classes`` or y) and I (training points); ``model.tree`` is the :class:`TreeIndex`. Returns the model
    and y as class indices.
    """
    y = np.asarray(y, dtype=np.int64)
    tree = TreeIndex(depth)
    model = pyo.ConcreteModel(name=f"{name}(depth={depth})")
    model.tree = tree
    model.N = pyo.Set(initialize=tree.internal, ordered=True, doc="branching nodes")
    model.L = pyo.Set(initialize=tree.leaves, ordered=True, doc="leaves")
    model.V = pyo.Set(initialize=tree.nodes, ordered=True, doc="all nodes N ∪ L")
    model.F = pyo.Set(initialize=range(np.asarray(X).shape[1]), ordered=True, doc="features")
    model.K = pyo.Set(initialize=range(int(y.max()) + 1 if n_classes is None else n_classes), ordered=True,
                      doc="classes")
    model.I = pyo.Set(initialize=range(len(y)), ordered=True, doc="training points")
    return model, y


def as_binary(X: np.ndarray) -> np.ndarray:
    """0/1 data as booleans (> 0.5), the view the binary formulations build from."""
    return np.asarray(X) > 0.5
