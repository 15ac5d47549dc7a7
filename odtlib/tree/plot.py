"""Drawing a :class:`~odtlib.tree.Tree` with matplotlib (:meth:`Tree.plot`): boxes sized from their texts.

Split boxes hold the condition (worded as in :mod:`odtlib.tree.text`), leaf boxes the label and the class
counts; "yes" edges go to the left child. :func:`layout` places the boxes so that no two of a level overlap.
"""
from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from odtlib.tree.conditions import counts_text
from odtlib.tree.nodes import Leaf
from odtlib.tree.text import binary_wording, shown_tree

if TYPE_CHECKING:
    from odtlib.tree.core import Tree

__all__ = ["draw", "layout"]


def draw(tree: Tree, ax: Any = None, binary: bool | None = None, wrap: int = 28,
         groups: Sequence[Any] | None = None, simplify: bool = True, fontsize: float = 9) -> Any:
    """Draw ``tree`` with matplotlib: split conditions in boxes, "yes" edges to the left; returns the Axes.

    Leaves show their label and, when known, ``n`` and the class counts. ``binary``, ``groups`` and
    ``simplify`` act as in :meth:`Tree.to_text`; ``wrap`` is the line width of the box texts. The layout is
    measured in inches from the box texts (each subtree gets the width of its widest level, each level the
    height of its tallest box), so long conditions do not overlap; without ``ax`` the figure gets that
    size, with ``ax`` the drawing is scaled into it.
    """
    import matplotlib.pyplot as plt

    binary = binary_wording(tree, binary)
    shown, reader = shown_tree(tree, groups, simplify)
    texts = {node_id: leaf_box_text(node, wrap) if isinstance(node, Leaf)
             else textwrap.fill(node._condition(reader, binary), wrap)
             for node_id, node in shown.nodes.items()}
    sizes = {node_id: _box_size(text, fontsize) for node_id, text in texts.items()}
    position, (width, height) = layout(shown, sizes)
    if ax is None:  # axes filling the figure: one unit of the layout is one inch
        fig = plt.figure(figsize=(max(3.0, width + 0.4), max(2.0, height + 0.4)))
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    for node_id, (x, y) in position.items():
        for child, edge in zip(shown.nodes[node_id].children(), ("yes", "no")):
            cx, cy = position[child]
            ax.plot([x, cx], [y, cy], color="0.4", linewidth=1, zorder=1)
            middle = (y - sizes[node_id][1] / 2 + cy + sizes[child][1] / 2) / 2  # between the two boxes
            ax.text(x + (cx - x) * (y - middle) / (y - cy), middle, edge, ha="center", va="center",
                    fontsize=fontsize - 1, color="0.3", zorder=2,
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none"})
    for node_id, (x, y) in position.items():
        leaf = isinstance(shown.nodes[node_id], Leaf)
        style = {"boxstyle": "round,pad=0.3" if leaf else "square,pad=0.3", "fc": "#d9ead3" if leaf
                 else "#dde6f3", "ec": "0.3"}
        ax.text(x, y, texts[node_id], ha="center", va="center", fontsize=fontsize, bbox=style, zorder=3)
    margin_x, margin_y = max(0.2, (3.0 - width) / 2), max(0.2, (2.0 - height) / 2)
    ax.set_xlim(-margin_x, width + margin_x)
    ax.set_ylim(-height - margin_y, margin_y)
    ax.set_axis_off()
    return ax


def layout(tree: Tree, sizes: Mapping[int, tuple[float, float]] | None = None, h_gap: float = 0.25,
           v_gap: float = 0.5) -> tuple[dict[int, tuple[float, float]], tuple[float, float]]:
    """Box centres ``{node: (x, y)}`` and the drawing's ``(width, height)``, in the units of ``sizes``
    (``{node: (box width, box height)}``; unit boxes when None).

    Each subtree gets a horizontal span as wide as its root's box and as its two subtrees side by side
    (``h_gap`` apart); a node is centred over its span, so boxes of one level never overlap. Each level
    is as tall as its tallest box, ``v_gap`` below the level above (room for the yes/no labels).
    """
    sizes = sizes or {node_id: (1.0, 0.5) for node_id in tree.nodes}
    level_of = {node_id: len(path) for node_id, path in tree._walk()}
    n_levels = max(level_of.values()) + 1
    level_height = [max(sizes[n][1] for n, lv in level_of.items() if lv == level) for level in range(n_levels)]
    level_top = np.concatenate([[0.0], np.cumsum(np.add(level_height, v_gap))])
    span: dict[int, float] = {}
    for node_id in reversed(tree._preorder()):  # children before their parent
        node = tree.nodes[node_id]
        below = sum(span[c] for c in node.children()) + h_gap * (len(node.children()) - 1)
        span[node_id] = max(sizes[node_id][0], below)
    position: dict[int, tuple[float, float]] = {}

    def place(node_id: int, left: float) -> None:
        node, level = tree.nodes[node_id], level_of[node_id]
        position[node_id] = (left + span[node_id] / 2, -(level_top[level] + level_height[level] / 2))
        children = node.children()
        below = sum(span[c] for c in children) + h_gap * (len(children) - 1)
        x = left + (span[node_id] - below) / 2
        for child in children:
            place(child, x)
            x += span[child] + h_gap

    place(tree.root, 0.0)
    return position, (span[tree.root], float(level_top[-1] - v_gap))


def _box_size(text: str, fontsize: float) -> tuple[float, float]:
    """Width and height in inches of a plot box holding ``text`` (an upper bound: 0.62 em per character,
    1.3 lines of spacing, the box's padding of 0.3 em on each side)."""
    lines = text.split("\n")
    em = fontsize / 72
    return (max(len(line) for line in lines) * 0.62 + 0.8) * em, (len(lines) * 1.3 + 0.8) * em


def leaf_box_text(leaf: Leaf, wrap: int) -> str:
    """Label of a leaf's box in the plot: the class, then its counts when known."""
    if leaf.counts is None:
        return str(leaf.label)
    return f"{leaf.label}\n{textwrap.fill(counts_text(leaf.counts), wrap)}"
