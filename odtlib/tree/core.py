"""The :class:`Tree`: its structure (the walk, the paths to the leaves, the full-tree numbering), prediction,
and its construction from CART and from MIP solutions.

Reading the tree as text, drawing it and (de)serialising it are :class:`Tree` methods too; they delegate to
:mod:`odtlib.tree.text`, :mod:`odtlib.tree.plot` and :mod:`odtlib.tree.serialise`, and the builders to
:mod:`odtlib.tree.build`.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from odtlib.tree import build, plot, serialise, text
from odtlib.tree.nodes import NODE_KINDS, Leaf, Node, Split, checked_node_id, merged_counts, native_scalar

if TYPE_CHECKING:
    from odtlib.encoders import FeatureGroup

__all__ = ["Tree", "TreePath"]

#: a path from the root: one ``(split id, went_left)`` pair per split passed (see :meth:`Tree.leaf_paths`)
TreePath = tuple[tuple[int, bool], ...]
_GROUP_KINDS = ("categorical", "ordinal", "binary", "numeric")


class Tree:
    """A binary decision tree: ``nodes`` maps integer ids to nodes; the tree starts at ``root``.

    The constructor checks that the nodes form a tree: every referenced child exists, no node is reached
    twice (no cycles, no shared children) and every node is reachable from the root.
    ``feature_names`` (optional) are used by :meth:`to_text` and :meth:`plot`, and so are ``feature_groups``
    (optional, see :meth:`with_feature_groups`; they need ``feature_names``).
    """

    def __init__(
        self,
        nodes: Mapping[int, Node],
        root: int = 1,
        feature_names: list[str] | None = None,
        feature_groups: Sequence[Any] | None = None,
    ) -> None:
        self.nodes: dict[int, Node] = {checked_node_id(k, "node id"): v for k, v in nodes.items()}
        self.root = checked_node_id(root, "root")
        self.feature_names = None if feature_names is None else [str(native_scalar(n)) for n in feature_names]
        self.feature_groups = None if feature_groups is None else [_feature_group(g) for g in feature_groups]
        self._validate()
        self._validate_groups()

    # ------------------------------------------------------------------ validation and structure
    def _validate(self) -> None:
        for node_id, node in self.nodes.items():
            if type(node) not in NODE_KINDS:
                raise TypeError(f"node {node_id} is a {type(node).__name__}, not a Leaf or a split")
        if self.root not in self.nodes:
            raise ValueError(f"root {self.root} is not among the nodes")
        seen = {node_id for node_id, _ in self._walk()}  # raises on a missing child or a cycle
        unreachable = sorted(set(self.nodes) - seen)
        if unreachable:
            raise ValueError(f"nodes {unreachable} are not reachable from the root {self.root}")
        if self.feature_names is not None:
            needed = self.n_features_required
            if needed > len(self.feature_names):
                raise ValueError(
                    f"the splits use {needed} features but only {len(self.feature_names)} feature names were given"
                )

    def _validate_groups(self) -> None:
        """Feature groups need feature names, may not share columns and must cover some named column."""
        if self.feature_groups is None:
            return
        if self.feature_names is None:
            raise ValueError("feature groups need feature names: give the tree its column names first")
        owner: dict[str, str] = {}
        for group in self.feature_groups:
            for column in group.columns:
                if column in owner:
                    raise ValueError(
                        f"column {column!r} is in both feature groups {owner[column]!r} and {group.name!r}"
                    )
                owner[column] = group.name
        if self.feature_groups and not set(owner) & set(self.feature_names):
            raise ValueError(
                f"none of the feature groups' columns is a feature of the tree (features {self.feature_names[:5]}"
                f"{'...' if len(self.feature_names) > 5 else ''}, group columns {list(owner)[:5]}"
                f"{'...' if len(owner) > 5 else ''})"
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
        return max(len(path) for _, path in self.leaf_paths())

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

    def _walk(self) -> Iterator[tuple[int, TreePath]]:
        """Every node with its path from the root (as in :meth:`leaf_paths`), in pre-order, left subtree first.

        The one walk over the tree's structure; it raises when a child is missing or a node is reached twice
        (a cycle or a shared child), which is how the constructor validates the nodes.
        """
        seen: set[int] = set()
        stack: list[tuple[int, TreePath]] = [(self.root, ())]
        while stack:
            node_id, path = stack.pop()
            if node_id in seen:
                raise ValueError(f"node {node_id} is reached twice: the nodes contain a cycle or a shared child")
            seen.add(node_id)
            yield node_id, path
            children = self.nodes[node_id].children()
            for child, went_left in reversed(tuple(zip(children, (True, False)))):
                if child not in self.nodes:
                    raise ValueError(f"node {node_id} refers to child {child}, which does not exist")
                stack.append((child, (*path, (node_id, went_left))))

    def _preorder(self) -> list[int]:
        return [node_id for node_id, _ in self._walk()]

    def leaf_paths(self) -> Iterator[tuple[int, TreePath]]:
        """The route to every leaf, leaves from left to right: pairs ``(leaf id, path)``.

        ``path`` is a tuple of ``(split id, went_left)``, one per split passed from the root down to the leaf,
        ``went_left`` telling which side was taken. A tree that is a single leaf yields ``(root, ())``. For the
        tree ``1: x0 <= 0.5 ? 2 : 3``, ``3: x1 <= 0.5 ? 6 : 7`` with leaves 2, 6, 7::

            (2, ((1, True),))
            (6, ((1, False), (3, True)))
            (7, ((1, False), (3, False)))

        A sample reaches a leaf iff it meets every step of its path (goes left at the splits marked True).
        """
        for node_id, path in self._walk():
            if isinstance(self.nodes[node_id], Leaf):
                yield node_id, path

    def full_tree_positions(self) -> dict[int, int]:
        """Each node's number on the full binary tree, keyed by node id: the root is 1 and the children of t
        are 2t (left) and 2t + 1 (right), so t lies on level ``t.bit_length() - 1``.

        This is how the MIP formulations of papers 001-004 number the nodes of their tree of fixed depth; a
        tree with any ids is laid on it this way to warm-start them.
        """
        position: dict[int, int] = {}
        for node_id, path in self._walk():
            parent, went_left = path[-1] if path else (None, True)
            position[node_id] = 1 if parent is None else 2 * position[parent] + (not went_left)
        return position

    def with_feature_names(self, feature_names: list[str] | None) -> Tree:
        """The same tree carrying ``feature_names`` (and its feature groups, if any)."""
        return Tree(self.nodes, self.root, feature_names, self.feature_groups)

    def with_feature_groups(self, groups: Sequence[Any] | None) -> Tree:
        """The same tree carrying the feature groups of an encoder (``encoder.groups_``); None removes them.

        ``groups`` are :class:`odtlib.encoders.FeatureGroup` objects (or dicts of their fields). Their
        ``columns`` are matched to the tree's feature names; columns the tree does not have (e.g. dropped by a
        feature selection) are ignored. :meth:`to_text` and :meth:`plot` then word splits on these columns in
        terms of the original attributes. The tree must have feature names.
        """
        return Tree(self.nodes, self.root, self.feature_names, groups)

    def with_leaf_counts(self, X: Any, y: Any) -> Tree:
        """A copy whose every leaf holds the number of samples of each class of ``y`` that reach it in ``X``.

        ``y`` holds the original class labels. Every leaf gets a count (possibly 0) for every class seen in
        ``y``, in sorted order; a leaf no row reaches gets all zeros.
        """
        leaf_of_row = self.apply(X)
        labels = _labels(y, len(leaf_of_row))
        classes = _sorted_labels(set(labels))
        column_of = {label: j for j, label in enumerate(classes)}
        leaf_ids = np.array(sorted(self.leaf_labels), dtype=np.int64)
        table = np.zeros((len(leaf_ids), len(classes)), dtype=np.int64)
        class_of_row = np.array([column_of[label] for label in labels], dtype=np.int64)
        np.add.at(table, (np.searchsorted(leaf_ids, leaf_of_row), class_of_row), 1)
        nodes = dict(self.nodes)
        for leaf_id, row in zip(leaf_ids.tolist(), table.tolist()):
            nodes[leaf_id] = Leaf(self.nodes[leaf_id].label, dict(zip(classes, row)))
        return Tree(nodes, self.root, self.feature_names, self.feature_groups)

    def simplified(self) -> Tree:
        """The same classifier with redundant splits collapsed, bottom-up.

        A split whose two subtrees both predict one single class becomes a leaf of that class (keeping the
        split's id); its counts are the sum of theirs (unknown if either is unknown).
        """
        nodes = dict(self.nodes)
        for node_id in reversed(self._preorder()):  # children before their parent
            node = nodes[node_id]
            if isinstance(node, Leaf):
                continue
            left, right = nodes[node.left], nodes[node.right]
            if isinstance(left, Leaf) and isinstance(right, Leaf) and left.label == right.label:
                nodes[node_id] = Leaf(left.label, merged_counts(left.counts, right.counts))
                del nodes[node.left], nodes[node.right]
        return Tree(nodes, self.root, self.feature_names, self.feature_groups)

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

    def predict_proba(self, X: Any, classes: Sequence[Any]) -> np.ndarray:
        """Class probabilities, shape ``(n_rows, len(classes))``, columns in the order of ``classes``.

        A row gets the class frequencies of the training samples in the leaf it reaches (the leaf counts, see
        :meth:`with_leaf_counts`), as scikit-learn's ``DecisionTreeClassifier`` does; a leaf with unknown
        counts or no samples gives probability 1 to its own label. Every leaf label and counted class must be
        among ``classes``.
        """
        column_of = _class_columns(classes)
        leaf_ids = np.array(sorted(self.leaf_labels), dtype=np.int64)
        table = np.zeros((len(leaf_ids), len(column_of)))
        for row, leaf_id in enumerate(leaf_ids.tolist()):
            table[row] = _leaf_proba(leaf_id, self.nodes[leaf_id], column_of)
        return table[np.searchsorted(leaf_ids, self.apply(X))]

    def decision_path(self, x: Any) -> list[int]:
        """Node ids visited by the single sample ``x`` (1-D), from the root to its leaf."""
        row = self._check_X(np.asarray(x, dtype=float).reshape(1, -1))
        path, node_id = [self.root], self.root
        while not isinstance(self.nodes[node_id], Leaf):
            node = self.nodes[node_id]
            node_id = node.left if node.goes_left(row)[0] else node.right
            path.append(node_id)
        return path

    # ------------------------------------------------------------------ construction
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
        return cls(build.flow_solution_nodes(depth, branch_feature, node_label), root=1,
                   feature_names=feature_names)

    @classmethod
    def from_sklearn(cls, cart: Any, labels: Sequence[Any] | None = None,
                     feature_names: list[str] | None = None) -> Tree:
        """A fitted scikit-learn ``DecisionTreeClassifier`` (CART) as a Tree of
        :class:`~odtlib.tree.UnivariateSplit` nodes.

        Both send ``x_f <= t`` left, and the splits keep CART's thresholds (0.5 on 0/1 data: "x_f = 0 goes
        left", the rule of the binary formulations), so the Tree predicts as CART does. Ids are breadth first
        (root 1, children 2n and 2n+1), as the MIPs' warm starts expect. ``labels[k]`` is the label of CART's
        k-th class (default ``cart.classes_``); each leaf predicts CART's majority class there.
        """
        labels = cart.classes_ if labels is None else labels
        return cls(build.sklearn_nodes(cart.tree_, labels), root=1, feature_names=feature_names)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe description of the tree (node list in pre-order); inverse of :meth:`from_dict`.

        Leaf counts (``counts``: ``[label, n]`` pairs) and ``feature_groups`` are written only when present.
        """
        return serialise.tree_to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tree:
        """The tree described by :meth:`to_dict`'s output."""
        return cls(**serialise.tree_arguments(data))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        return (
            self.root == other.root
            and self.nodes == other.nodes
            and self.feature_names == other.feature_names
            and self.feature_groups == other.feature_groups
        )

    def __repr__(self) -> str:
        return f"Tree(depth={self.depth}, n_splits={self.n_splits}, n_leaves={self.n_leaves})"

    # ------------------------------------------------------------------ text and plot
    def to_text(self, binary: bool | None = None, groups: Sequence[Any] | None = None,
                simplify: bool = True) -> str:
        """Readable nested if/else rules using the feature names (and feature groups, when known).

        ``binary`` chooses how univariate splits on columns outside the feature groups read: as tests of 0/1
        columns (``x == 0``, or the negation of the comparison a column's name states, ``petal_width>1.8`` ->
        ``petal_width <= 1.8``) or as ``x <= threshold``. By default binary wording is used when every
        univariate split has the threshold 0.5 and the tree has no hyperplane split, i.e. the tree comes from a
        binary formulation. ``groups`` (an encoder's ``groups_``) replace the tree's own feature groups.
        With ``simplify`` redundant splits are collapsed (see :meth:`simplified`). Leaves with known counts
        show them: ``predict 'setosa'  (n=50: setosa 50, versicolor 0, virginica 0)``.
        """
        return text.if_else_text(self, binary, groups, simplify)

    def node_counts(self) -> dict[int, dict[Any, int]] | None:
        """Class counts of the training samples reaching every node (the sums of its leaves' counts); None
        when some leaf's counts are unknown (see :meth:`with_leaf_counts`)."""
        counts: dict[int, dict[Any, int] | None] = {}
        for node_id in reversed(self._preorder()):  # children before their parent
            node = self.nodes[node_id]
            counts[node_id] = node.counts if isinstance(node, Leaf) else \
                merged_counts(counts[node.left], counts[node.right])
        return None if counts[self.root] is None else counts

    def export_text(self, binary: bool | None = None, groups: Sequence[Any] | None = None,
                    simplify: bool = True) -> str:
        """The tree as indented lines, one per node, with ``n`` and the class counts of every node when known
        (as scikit-learn's ``export_text``; the module function :func:`export_text` also counts X, y)::

            petal_width <= 0.8?  n=150: setosa 50, versicolor 50, virginica 50
            |--- yes: predict 'setosa'  n=50: setosa 50, versicolor 0, virginica 0
            |--- no: ...

        Every split kind reads as in :meth:`to_text` (``binary``, ``groups``, ``simplify`` act the same).
        """
        return text.indented_text(self, binary, groups, simplify)

    def export_graphviz(self, binary: bool | None = None, groups: Sequence[Any] | None = None,
                        simplify: bool = True, wrap: int = 40) -> str:
        """The tree in Graphviz's DOT language: one box per node (the split's condition or the leaf's class,
        then ``n`` and the class counts when known), "yes" edges to the left child. Render it with the
        ``dot`` program or the optional ``graphviz`` package (``graphviz.Source(text)``); the module function
        :func:`export_graphviz` also counts X, y and writes a file."""
        return text.dot_text(self, binary, groups, simplify, wrap)

    def plot(self, ax: Any = None, binary: bool | None = None, wrap: int = 28,
             groups: Sequence[Any] | None = None, simplify: bool = True, fontsize: float = 9) -> Any:
        """Draw the tree with matplotlib: split conditions in boxes, "yes" edges to the left; returns the Axes.

        Leaves show their label and, when known, ``n`` and the class counts. ``binary``, ``groups`` and
        ``simplify`` act as in :meth:`to_text`; ``wrap`` is the line width of the box texts. The layout is
        measured in inches from the box texts (each subtree gets the width of its widest level, each level the
        height of its tallest box), so long conditions do not overlap; without ``ax`` the figure gets that
        size, with ``ax`` the drawing is scaled into it.
        """
        return plot.draw(self, ax, binary, wrap, groups, simplify, fontsize)


def _feature_group(group: Any) -> FeatureGroup:
    """A FeatureGroup from an encoder's group or its dict form, with Python scalars and tuples as values."""
    from odtlib.encoders import FeatureGroup

    keys = ("name", "columns", "kind", "values")
    try:
        name, columns, kind, values = (group[k] if isinstance(group, Mapping) else getattr(group, k) for k in keys)
    except (KeyError, AttributeError) as error:
        raise TypeError(
            f"a feature group needs a name, columns, kind and values (odtlib.encoders.FeatureGroup), got {group!r}"
        ) from error
    if kind not in _GROUP_KINDS:
        raise ValueError(f"feature group {name!r} has kind {kind!r}; expected one of {', '.join(_GROUP_KINDS)}")
    if len(values) != len(columns):
        raise ValueError(f"feature group {name!r} has {len(columns)} columns but {len(values)} values")
    values = [tuple(native_scalar(x) for x in v) if isinstance(v, (tuple, list)) else native_scalar(v) for v in values]
    return FeatureGroup(str(name), [str(native_scalar(c)) for c in columns], kind, values)


def _labels(y: Any, n_rows: int) -> list:
    """The class labels ``y`` as a list of Python scalars, one per row of X."""
    array = np.asarray(y)
    if array.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {array.shape}")
    if len(array) != n_rows:
        raise ValueError(f"y has {len(array)} labels but X has {n_rows} rows")
    return [native_scalar(label) for label in array.tolist()]


def _sorted_labels(labels: set) -> list:
    """Labels in sorted order (by type name, then text, when they cannot be compared)."""
    try:
        return sorted(labels)
    except TypeError:
        return sorted(labels, key=lambda label: (type(label).__name__, str(label)))


def _class_columns(classes: Sequence[Any]) -> dict[Any, int]:
    """Column of each class in a probability matrix; classes must be distinct."""
    labels = [native_scalar(label) for label in np.asarray(classes, dtype=object).ravel().tolist()]
    column_of = {label: j for j, label in enumerate(labels)}
    if len(column_of) != len(labels):
        raise ValueError(f"classes must be distinct, got {labels}")
    return column_of


def _leaf_proba(leaf_id: int, leaf: Leaf, column_of: dict[Any, int]) -> np.ndarray:
    """Class frequencies of a leaf's samples (all mass on its label when it has none or they are unknown)."""
    if leaf.label not in column_of:
        raise ValueError(f"leaf {leaf_id} predicts {leaf.label!r}, which is not among the classes {list(column_of)}")
    proba = np.zeros(len(column_of))
    if not leaf.n_samples:
        proba[column_of[leaf.label]] = 1.0
        return proba
    for label, count in leaf.counts.items():
        if label not in column_of:
            raise ValueError(
                f"leaf {leaf_id} counts samples of class {label!r}, which is not among the classes {list(column_of)}"
            )
        proba[column_of[label]] += count
    return proba / leaf.n_samples
