"""A :class:`~odtlib.tree.Tree` as text: nested if/else rules, scikit-learn-style indented lines, Graphviz DOT.

Each split reads as its condition worded by :mod:`odtlib.tree.conditions` (in terms of the original
attributes when the tree carries the encoders' feature groups); leaves read ``predict <label>``, with ``n`` and
the class counts when known. :meth:`Tree.to_text`, :meth:`Tree.export_text` and :meth:`Tree.export_graphviz`
call the functions here; :func:`export_text` and :func:`export_graphviz` also count the samples of X, y at
every node first.
"""
from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from odtlib.tree.conditions import ColumnReader, counts_text
from odtlib.tree.nodes import HyperplaneSplit, Leaf, UnivariateSplit

if TYPE_CHECKING:
    from odtlib.tree.core import Tree

__all__ = ["export_graphviz", "export_text"]


def binary_wording(tree: Tree, binary: bool | None) -> bool:
    """``binary`` when given; by default True when every univariate split has the threshold 0.5 and the tree
    has no hyperplane split (the tree comes from a binary formulation)."""
    if binary is not None:
        return binary
    splits = tree._splits()
    return not any(isinstance(s, HyperplaneSplit) for s in splits) and all(
        s.threshold == 0.5 for s in splits if isinstance(s, UnivariateSplit)
    )


def shown_tree(tree: Tree, groups: Sequence[Any] | None, simplify: bool) -> tuple[Tree, ColumnReader]:
    """The tree to display (with ``groups`` if given, simplified if asked) and its condition wording."""
    shown = tree if groups is None else tree.with_feature_groups(groups)
    if simplify:
        shown = shown.simplified()
    return shown, ColumnReader(shown.feature_names, shown.feature_groups)


def if_else_text(tree: Tree, binary: bool | None, groups: Sequence[Any] | None, simplify: bool) -> str:
    """:meth:`Tree.to_text`: nested ``if``/``else`` rules, leaves as ``predict <label>``."""
    binary = binary_wording(tree, binary)
    shown, reader = shown_tree(tree, groups, simplify)
    lines: list[str] = []

    def emit(node_id: int, indent: str) -> None:
        node = shown.nodes[node_id]
        if isinstance(node, Leaf):
            counts = "" if node.counts is None else f"  ({counts_text(node.counts)})"
            lines.append(f"{indent}predict {node.label!r}{counts}")
            return
        lines.append(f"{indent}if {node._condition(reader, binary)}:")
        emit(node.left, indent + "    ")
        lines.append(f"{indent}else:")
        emit(node.right, indent + "    ")

    emit(shown.root, "")
    return "\n".join(lines)


def indented_text(tree: Tree, binary: bool | None, groups: Sequence[Any] | None, simplify: bool) -> str:
    """:meth:`Tree.export_text`: one line per node, ``|--- yes:`` / ``|--- no:`` branches, node counts."""
    binary = binary_wording(tree, binary)
    shown, reader = shown_tree(tree, groups, simplify)
    counts = shown.node_counts() or {}
    lines: list[str] = []

    def emit(node_id: int, prefix: str, branch: str) -> None:
        node = shown.nodes[node_id]
        text = f"predict {node.label!r}" if isinstance(node, Leaf) else f"{node._condition(reader, binary)}?"
        tally = f"  {counts_text(counts[node_id])}" if node_id in counts else ""
        lines.append(f"{prefix}{branch}{text}{tally}")
        inner = prefix + ("|   " if branch else "")
        for child, edge in zip(node.children(), ("yes", "no")):
            emit(child, inner, f"|--- {edge}: ")

    emit(shown.root, "", "")
    return "\n".join(lines)


def dot_text(tree: Tree, binary: bool | None, groups: Sequence[Any] | None, simplify: bool, wrap: int) -> str:
    """:meth:`Tree.export_graphviz`: one DOT box per node, "yes" edges to the left child."""
    binary = binary_wording(tree, binary)
    shown, reader = shown_tree(tree, groups, simplify)
    counts = shown.node_counts() or {}
    lines = ["digraph Tree {",
             'node [shape=box, style="rounded,filled", fontname="helvetica", fillcolor="#dde6f3"];',
             'edge [fontname="helvetica"];']
    for node_id in shown._preorder():
        node = shown.nodes[node_id]
        head = f"predict {node.label}" if isinstance(node, Leaf) else node._condition(reader, binary)
        parts = [textwrap.fill(head, wrap)]
        if node_id in counts:
            parts.append(textwrap.fill(counts_text(counts[node_id]), wrap))
        fill = ', fillcolor="#d9ead3"' if isinstance(node, Leaf) else ""
        lines.append(f'{node_id} [label="{_dot_escape(chr(10).join(parts))}"{fill}];')
        for child, edge in zip(node.children(), ("yes", "no")):
            lines.append(f'{node_id} -> {child} [label="{edge}"];')
    lines.append("}")
    return "\n".join(lines)


def _dot_escape(text: str) -> str:
    """A DOT string's content: backslashes and quotes escaped, line breaks as ``\\n``."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def export_text(tree: Tree, X: Any = None, y: Any = None, **kwargs: Any) -> str:
    """:meth:`Tree.export_text` of ``tree``; with ``X`` and ``y`` (the data the tree takes and the class
    labels) every node's counts come from them (:meth:`Tree.with_leaf_counts`)."""
    return _counted(tree, X, y).export_text(**kwargs)


def export_graphviz(tree: Tree, out_file: Any = None, X: Any = None, y: Any = None, **kwargs: Any) -> str:
    """:meth:`Tree.export_graphviz` of ``tree`` (counted on ``X``, ``y`` when given); writes the DOT text to
    ``out_file`` (a path) when given, and returns it."""
    text = _counted(tree, X, y).export_graphviz(**kwargs)
    if out_file is not None:
        Path(out_file).write_text(text + "\n", encoding="utf-8")
    return text


def _counted(tree: Tree, X: Any, y: Any) -> Tree:
    if (X is None) != (y is None):
        raise ValueError("pass both X and y to count the samples at each node, or neither")
    return tree if X is None else tree.with_leaf_counts(X, y)
