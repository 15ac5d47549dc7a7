"""A :class:`~odtlib.tree.Tree` as a JSON-safe dict and back (:meth:`Tree.to_dict`, :meth:`Tree.from_dict`).

The dict holds ``root``, ``feature_names``, the node list in pre-order (one entry per node: ``id``, ``kind``
and the node's fields) and, when present, ``feature_groups``. Leaf counts are written as ``[label, n]``
pairs, since JSON object keys would turn integer labels into strings.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from odtlib.tree.nodes import (NODE_KINDS, CategorySplit, HyperplaneSplit, Leaf, Node, SubsetSplit, UnivariateSplit,
                               native_scalar)

if TYPE_CHECKING:
    from odtlib.encoders import FeatureGroup
    from odtlib.tree.core import Tree

__all__ = ["tree_to_dict", "tree_arguments"]


def tree_to_dict(tree: Tree) -> dict[str, Any]:
    """JSON-safe description of ``tree`` (see the module docstring)."""
    data: dict[str, Any] = {
        "root": tree.root,
        "feature_names": None if tree.feature_names is None else list(tree.feature_names),
        "nodes": [_node_to_dict(node_id, tree.nodes[node_id]) for node_id in tree._preorder()],
    }
    if tree.feature_groups is not None:
        data["feature_groups"] = [_group_to_dict(group) for group in tree.feature_groups]
    return data


def tree_arguments(data: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of the :class:`~odtlib.tree.Tree` that :func:`tree_to_dict` described as ``data``."""
    return {"nodes": {int(entry["id"]): _node_from_dict(entry) for entry in data["nodes"]},
            "root": int(data["root"]), "feature_names": data.get("feature_names"),
            "feature_groups": data.get("feature_groups")}


def _node_to_dict(node_id: int, node: Node) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": node_id, "kind": NODE_KINDS[type(node)]}
    if isinstance(node, Leaf):
        entry["label"] = native_scalar(node.label)
        if node.counts is not None:  # pairs, not an object: JSON object keys would turn int labels into str
            entry["counts"] = [[label, count] for label, count in node.counts.items()]
    elif isinstance(node, UnivariateSplit):
        entry.update(feature=node.feature, threshold=node.threshold)
    elif isinstance(node, SubsetSplit):
        entry.update(features=list(node.features), group=node.group,
                     values=None if node.values is None else list(node.values))
    elif isinstance(node, CategorySplit):
        entry.update(feature=node.feature, categories=list(node.categories))
    else:
        entry.update(weights=[float(w) for w in node.weights], bias=node.bias)
    if not isinstance(node, Leaf):
        entry.update(left=node.left, right=node.right)
    return entry


def _node_from_dict(entry: Mapping[str, Any]) -> Node:
    kind = entry.get("kind")
    if kind == "leaf":
        counts = entry.get("counts")
        return Leaf(entry["label"], None if counts is None else {label: count for label, count in counts})
    if kind == "univariate":
        return UnivariateSplit(entry["feature"], entry["left"], entry["right"], entry.get("threshold", 0.5))
    if kind == "subset":
        return SubsetSplit(entry["features"], entry["left"], entry["right"], entry.get("group"), entry.get("values"))
    if kind == "category":
        return CategorySplit(entry["feature"], entry["categories"], entry["left"], entry["right"])
    if kind == "hyperplane":
        return HyperplaneSplit(np.asarray(entry["weights"], dtype=float), entry["bias"], entry["left"], entry["right"])
    raise ValueError(f"unknown node kind {kind!r} for node {entry.get('id')}")


def _group_to_dict(group: FeatureGroup) -> dict[str, Any]:
    return {"name": group.name, "columns": list(group.columns), "kind": group.kind,
            "values": [list(v) if isinstance(v, tuple) else v for v in group.values]}
