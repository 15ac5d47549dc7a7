"""Decision trees learned by the MIP formulations: node types, prediction, (de)serialisation, text and plots.

A :class:`Tree` is a mapping from integer node ids to nodes. Internal nodes hold one of three split kinds,
matching the papers reproduced by odtlib:

* :class:`UnivariateSplit` -- ``x[feature] <= threshold`` goes left. On binary data with the default
  threshold 0.5 this is the rule "``x_f == 0`` goes left" of FlowOCT/BendersOCT (paper 001) and of the
  regularised Benders model (paper 003).
* :class:`SubsetSplit` -- a categorical feature group goes left when its value lies in a subset ``S`` of its
  categories (paper 000). On one-hot data: left iff any of the one-hot columns of ``S`` is 1.
* :class:`HyperplaneSplit` -- ``w . x <= bias`` goes left (multivariate trees of papers 002 and 004).

Leaves (:class:`Leaf`) hold the original class label (``int`` or ``str``).
"""
from __future__ import annotations

import numbers
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

__all__ = ["Leaf", "UnivariateSplit", "SubsetSplit", "HyperplaneSplit", "Node", "Tree"]


def _native(value: Any) -> Any:
    """Turn numpy scalars into the equivalent Python scalar (labels and ids must be JSON-safe)."""
    return value.item() if isinstance(value, np.generic) else value


def _node_id(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an integer node id, got {value!r}")
    return int(value)


def _feature_index(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"feature indices must be non-negative integers, got {value!r}")
    return int(value)


def _name(feature: int, feature_names: list[str] | None) -> str:
    return str(feature_names[feature]) if feature_names is not None else f"x{feature}"


@dataclass(frozen=True)
class Leaf:
    """A leaf predicting ``label`` (an original class label; numpy scalars are stored as Python scalars)."""

    label: Any

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", _native(self.label))

    def children(self) -> tuple[int, ...]:
        return ()


@dataclass(frozen=True)
class UnivariateSplit:
    """``x[feature] <= threshold`` goes to ``left``, otherwise to ``right``."""

    feature: int
    left: int
    right: int
    threshold: float = 0.5

    def __post_init__(self) -> None:
        object.__setattr__(self, "feature", _feature_index(self.feature))
        object.__setattr__(self, "left", _node_id(self.left, "left"))
        object.__setattr__(self, "right", _node_id(self.right, "right"))
        object.__setattr__(self, "threshold", float(self.threshold))

    def children(self) -> tuple[int, ...]:
        return (self.left, self.right)

    def goes_left(self, X: np.ndarray) -> np.ndarray:
        return X[:, self.feature] <= self.threshold

    def n_features_required(self) -> int:
        return self.feature + 1

    def condition(self, feature_names: list[str] | None, binary: bool) -> str:
        """Text of the condition under which a sample goes left."""
        name = _name(self.feature, feature_names)
        if binary:
            return f"{name} == 0"
        return f"{name} <= {self.threshold:g}"


@dataclass(frozen=True)
class SubsetSplit:
    """Left iff any of the one-hot columns ``features`` is 1 (their categories form the left set, paper 000).

    ``group`` names the categorical feature and ``values`` the categories of the left set; both only serve
    the readable text ("odor in {almond, anise, none}").
    """

    features: list[int]
    left: int
    right: int
    group: str | None = None
    values: list | None = None

    def __post_init__(self) -> None:
        features = [_feature_index(f) for f in self.features]
        if not features:
            raise ValueError("a SubsetSplit needs at least one feature column")
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "left", _node_id(self.left, "left"))
        object.__setattr__(self, "right", _node_id(self.right, "right"))
        if self.values is not None:
            object.__setattr__(self, "values", [_native(v) for v in self.values])

    def children(self) -> tuple[int, ...]:
        return (self.left, self.right)

    def goes_left(self, X: np.ndarray) -> np.ndarray:
        return (X[:, self.features] == 1).any(axis=1)

    def n_features_required(self) -> int:
        return max(self.features) + 1

    def condition(self, feature_names: list[str] | None, binary: bool) -> str:
        if self.group is not None and self.values is not None:
            return f"{self.group} in {{{', '.join(str(v) for v in self.values)}}}"
        return " or ".join(f"{_name(f, feature_names)} == 1" for f in self.features)


@dataclass(frozen=True, eq=False)
class HyperplaneSplit:
    """``weights . x <= bias`` goes to ``left``, otherwise to ``right``."""

    weights: np.ndarray
    bias: float
    left: int
    right: int

    def __post_init__(self) -> None:
        weights = np.array(self.weights, dtype=float)
        if weights.ndim != 1:
            raise ValueError(f"HyperplaneSplit weights must be 1-D, got shape {weights.shape}")
        weights.setflags(write=False)
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "bias", float(self.bias))
        object.__setattr__(self, "left", _node_id(self.left, "left"))
        object.__setattr__(self, "right", _node_id(self.right, "right"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HyperplaneSplit):
            return NotImplemented
        return (
            np.array_equal(self.weights, other.weights)
            and self.bias == other.bias
            and (self.left, self.right) == (other.left, other.right)
        )

    def children(self) -> tuple[int, ...]:
        return (self.left, self.right)

    def goes_left(self, X: np.ndarray) -> np.ndarray:
        return X[:, : len(self.weights)] @ self.weights <= self.bias

    def n_features_required(self) -> int:
        return len(self.weights)

    def condition(self, feature_names: list[str] | None, binary: bool) -> str:
        terms = [(w, _name(f, feature_names)) for f, w in enumerate(self.weights) if w != 0]
        if not terms:
            return f"0 <= {self.bias:g}"
        first_w, first_name = terms[0]
        text = f"{first_w:g}*{first_name}"
        for w, name in terms[1:]:
            text += f" {'-' if w < 0 else '+'} {abs(w):g}*{name}"
        return f"{text} <= {self.bias:g}"


Split = Union[UnivariateSplit, SubsetSplit, HyperplaneSplit]
Node = Union[Leaf, Split]
_KINDS: dict[type, str] = {
    Leaf: "leaf",
    UnivariateSplit: "univariate",
    SubsetSplit: "subset",
    HyperplaneSplit: "hyperplane",
}


class Tree:
    """A binary decision tree: ``nodes`` maps integer ids to nodes; the tree starts at ``root``.

    The constructor checks that the nodes form a tree: every referenced child exists, no node is reached
    twice (no cycles, no shared children) and every node is reachable from the root.
    ``feature_names`` (optional) are used by :meth:`to_text` and :meth:`plot`.
    """

    def __init__(
        self,
        nodes: Mapping[int, Node],
        root: int = 1,
        feature_names: list[str] | None = None,
    ) -> None:
        self.nodes: dict[int, Node] = {_node_id(k, "node id"): v for k, v in nodes.items()}
        self.root = _node_id(root, "root")
        self.feature_names = None if feature_names is None else [str(_native(n)) for n in feature_names]
        self._validate()

    # ------------------------------------------------------------------ validation and structure
    def _validate(self) -> None:
        for node_id, node in self.nodes.items():
            if type(node) not in _KINDS:
                raise TypeError(f"node {node_id} is a {type(node).__name__}, not a Leaf or a split")
        if self.root not in self.nodes:
            raise ValueError(f"root {self.root} is not among the nodes")
        seen: set[int] = set()
        stack = [self.root]
        while stack:
            node_id = stack.pop()
            if node_id in seen:
                raise ValueError(f"node {node_id} is reached twice: the nodes contain a cycle or a shared child")
            seen.add(node_id)
            for child in self.nodes[node_id].children():
                if child not in self.nodes:
                    raise ValueError(f"node {node_id} refers to child {child}, which does not exist")
                stack.append(child)
        unreachable = sorted(set(self.nodes) - seen)
        if unreachable:
            raise ValueError(f"nodes {unreachable} are not reachable from the root {self.root}")
        if self.feature_names is not None:
            needed = self.n_features_required
            if needed > len(self.feature_names):
                raise ValueError(
                    f"the splits use {needed} features but only {len(self.feature_names)} feature names were given"
                )

    @property
    def n_features_required(self) -> int:
        """Smallest number of columns X must have for this tree (0 for a single leaf)."""
        return max((node.n_features_required() for node in self._splits()), default=0)

    def _splits(self) -> list[Split]:
        return [node for node in self.nodes.values() if not isinstance(node, Leaf)]

    @property
    def depth(self) -> int:
        """Largest number of splits on a path from the root to a leaf (0 for a single leaf)."""
        depth_of = {self.root: 0}
        for node_id in self._preorder():
            for child in self.nodes[node_id].children():
                depth_of[child] = depth_of[node_id] + 1
        return max(depth_of.values())

    @property
    def n_leaves(self) -> int:
        return sum(isinstance(node, Leaf) for node in self.nodes.values())

    @property
    def n_splits(self) -> int:
        return len(self.nodes) - self.n_leaves

    @property
    def leaf_labels(self) -> dict[int, Any]:
        """Class label predicted by each leaf, keyed by leaf id."""
        return {i: node.label for i, node in self.nodes.items() if isinstance(node, Leaf)}

    def _preorder(self) -> list[int]:
        order, stack = [], [self.root]
        while stack:
            node_id = stack.pop()
            order.append(node_id)
            stack.extend(reversed(self.nodes[node_id].children()))
        return order

    def with_feature_names(self, feature_names: list[str] | None) -> Tree:
        """The same tree carrying ``feature_names``."""
        return Tree(self.nodes, self.root, feature_names)

    # ------------------------------------------------------------------ prediction
    def _check_X(self, X: Any) -> np.ndarray:
        if hasattr(X, "columns") and self.feature_names is not None:
            columns = [str(c) for c in X.columns]
            if columns != self.feature_names:
                raise ValueError(
                    f"X has columns {columns[:5]}{'...' if len(columns) > 5 else ''} but the tree was built for "
                    f"{self.feature_names[:5]}{'...' if len(self.feature_names) > 5 else ''}"
                )
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D array of shape (n_samples, n_features), got shape {X.shape}")
        expected = len(self.feature_names) if self.feature_names is not None else self.n_features_required
        if X.shape[1] < expected or (self.feature_names is not None and X.shape[1] != expected):
            raise ValueError(f"X has {X.shape[1]} columns but the tree needs {expected}")
        return X

    def apply(self, X: Any) -> np.ndarray:
        """Id of the leaf reached by each row of X (rows are routed down the tree as index sets)."""
        X = self._check_X(X)
        leaf_of_row = np.empty(X.shape[0], dtype=np.int64)
        stack = [(self.root, np.arange(X.shape[0]))]
        while stack:
            node_id, rows = stack.pop()
            node = self.nodes[node_id]
            if isinstance(node, Leaf):
                leaf_of_row[rows] = node_id
                continue
            left = node.goes_left(X[rows])
            stack.append((node.left, rows[left]))
            stack.append((node.right, rows[~left]))
        return leaf_of_row

    def predict(self, X: Any) -> np.ndarray:
        """Class label of the leaf reached by each row of X."""
        leaf_of_row = self.apply(X)
        label_of_leaf = self.leaf_labels
        leaf_ids = np.array(sorted(label_of_leaf), dtype=np.int64)
        labels = [label_of_leaf[i] for i in leaf_ids]
        mixed = len({type(label) for label in labels}) > 1
        label_array = np.array(labels, dtype=object if mixed else None)
        return label_array[np.searchsorted(leaf_ids, leaf_of_row)]

    def decision_path(self, x: Any) -> list[int]:
        """Node ids visited by the single sample ``x`` (1-D), from the root to its leaf."""
        row = self._check_X(np.asarray(x, dtype=float).reshape(1, -1))
        path, node_id = [self.root], self.root
        while not isinstance(self.nodes[node_id], Leaf):
            node = self.nodes[node_id]
            node_id = node.left if node.goes_left(row)[0] else node.right
            path.append(node_id)
        return path

    # ------------------------------------------------------------------ construction from MIP solutions
    @classmethod
    def from_flow_solution(
        cls,
        depth: int,
        branch_feature: Mapping[int, int],
        node_label: Mapping[int, Any],
        feature_names: list[str] | None = None,
    ) -> Tree:
        """Build the tree encoded by a solution on the full binary tree of the given depth.

        Nodes are numbered breadth first (root 1, children of ``n`` are ``2n`` and ``2n+1``), as in the
        flow formulations of paper 001 and 003. ``branch_feature[n] = f`` makes ``n`` a split "x_f == 0
        goes left"; ``node_label[n] = k`` makes ``n`` a leaf predicting ``k`` -- also when ``n`` is an
        internal node of the full tree, in which case everything below it is dropped.
        """
        if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 0:
            raise ValueError(f"depth must be a non-negative integer, got {depth!r}")
        n_internal = 2**depth  # ids 1 .. 2^depth - 1 may branch; ids 2^depth .. 2^(depth+1) - 1 are leaves
        nodes: dict[int, Node] = {}
        stack = [1]
        while stack:
            n = stack.pop()
            branches, predicts = n in branch_feature, n in node_label
            if branches and predicts:
                raise ValueError(f"node {n} has both a branching feature and a class label")
            if predicts:
                nodes[n] = Leaf(node_label[n])
            elif branches:
                if n >= n_internal:
                    raise ValueError(f"node {n} is at depth {depth} and cannot branch")
                nodes[n] = UnivariateSplit(branch_feature[n], 2 * n, 2 * n + 1)
                stack.extend((2 * n, 2 * n + 1))
            else:
                raise ValueError(f"node {n} is reached by the tree but has neither a branching feature nor a label")
        return cls(nodes, root=1, feature_names=feature_names)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe description of the tree (node list in pre-order); inverse of :meth:`from_dict`."""
        return {
            "root": self.root,
            "feature_names": None if self.feature_names is None else list(self.feature_names),
            "nodes": [_node_to_dict(node_id, self.nodes[node_id]) for node_id in self._preorder()],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tree:
        nodes = {int(entry["id"]): _node_from_dict(entry) for entry in data["nodes"]}
        return cls(nodes, root=int(data["root"]), feature_names=data.get("feature_names"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        return (
            self.root == other.root and self.nodes == other.nodes and self.feature_names == other.feature_names
        )

    def __repr__(self) -> str:
        return f"Tree(depth={self.depth}, n_splits={self.n_splits}, n_leaves={self.n_leaves})"

    # ------------------------------------------------------------------ text and plot
    def _binary_text(self, binary: bool | None) -> bool:
        if binary is not None:
            return binary
        splits = self._splits()
        return not any(isinstance(s, HyperplaneSplit) for s in splits) and all(
            s.threshold == 0.5 for s in splits if isinstance(s, UnivariateSplit)
        )

    def to_text(self, binary: bool | None = None) -> str:
        """Readable nested if/else rules using the feature names.

        ``binary`` chooses how univariate splits read: ``x == 0`` (binary features) or ``x <= threshold``.
        By default binary wording is used when every univariate split has the threshold 0.5 and the tree
        has no hyperplane split, i.e. the tree comes from a binary formulation.
        """
        binary = self._binary_text(binary)
        lines: list[str] = []

        def emit(node_id: int, indent: str) -> None:
            node = self.nodes[node_id]
            if isinstance(node, Leaf):
                lines.append(f"{indent}predict {node.label!r}")
                return
            lines.append(f"{indent}if {node.condition(self.feature_names, binary)}:")
            emit(node.left, indent + "    ")
            lines.append(f"{indent}else:")
            emit(node.right, indent + "    ")

        emit(self.root, "")
        return "\n".join(lines)

    def plot(self, ax: Any = None, binary: bool | None = None, wrap: int = 28) -> Any:
        """Draw the tree with matplotlib: split conditions in boxes, "yes" edges to the left; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(max(4.0, 2.2 * self.n_leaves), max(2.5, 1.6 * (self.depth + 1))))
        binary = self._binary_text(binary)
        position = self._layout()
        for node_id, (x, y) in position.items():
            node = self.nodes[node_id]
            for child, edge in zip(node.children(), ("yes", "no")):
                cx, cy = position[child]
                ax.plot([x, cx], [y, cy], color="0.4", linewidth=1, zorder=1)
                ax.text((x + cx) / 2, (y + cy) / 2, edge, ha="center", va="center", fontsize=8, color="0.3",
                        bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none"})
        for node_id, (x, y) in position.items():
            node = self.nodes[node_id]
            if isinstance(node, Leaf):
                text, style = str(node.label), {"boxstyle": "round", "fc": "#d9ead3", "ec": "0.3"}
            else:
                text = textwrap.fill(node.condition(self.feature_names, binary), wrap)
                style = {"boxstyle": "square", "fc": "#dde6f3", "ec": "0.3"}
            ax.text(x, y, text, ha="center", va="center", fontsize=9, bbox=style)
        xs = [x for x, _ in position.values()]
        ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
        ax.set_ylim(-self.depth - 0.5, 0.5)
        ax.set_axis_off()
        return ax

    def _layout(self) -> dict[int, tuple[float, float]]:
        """x = in-order leaf rank (parents centred over their children), y = minus the node's depth."""
        position: dict[int, tuple[float, float]] = {}
        next_leaf = 0.0

        def place(node_id: int, level: int) -> float:
            nonlocal next_leaf
            node = self.nodes[node_id]
            if isinstance(node, Leaf):
                x = next_leaf
                next_leaf += 1.0
            else:
                x = (place(node.left, level + 1) + place(node.right, level + 1)) / 2
            position[node_id] = (x, -float(level))
            return x

        place(self.root, 0)
        return position


def _node_to_dict(node_id: int, node: Node) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": node_id, "kind": _KINDS[type(node)]}
    if isinstance(node, Leaf):
        entry["label"] = _native(node.label)
    elif isinstance(node, UnivariateSplit):
        entry.update(feature=node.feature, threshold=node.threshold)
    elif isinstance(node, SubsetSplit):
        entry.update(features=list(node.features), group=node.group,
                     values=None if node.values is None else list(node.values))
    else:
        entry.update(weights=[float(w) for w in node.weights], bias=node.bias)
    if not isinstance(node, Leaf):
        entry.update(left=node.left, right=node.right)
    return entry


def _node_from_dict(entry: Mapping[str, Any]) -> Node:
    kind = entry.get("kind")
    if kind == "leaf":
        return Leaf(entry["label"])
    if kind == "univariate":
        return UnivariateSplit(entry["feature"], entry["left"], entry["right"], entry.get("threshold", 0.5))
    if kind == "subset":
        return SubsetSplit(entry["features"], entry["left"], entry["right"], entry.get("group"), entry.get("values"))
    if kind == "hyperplane":
        return HyperplaneSplit(np.asarray(entry["weights"], dtype=float), entry["bias"], entry["left"], entry["right"])
    raise ValueError(f"unknown node kind {kind!r} for node {entry.get('id')}")
