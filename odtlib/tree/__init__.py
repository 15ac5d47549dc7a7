"""Decision trees learned by the MIP formulations: node types, prediction, (de)serialisation, text and plots.

A :class:`Tree` is a mapping from integer node ids to nodes. Internal nodes hold one of four split kinds,
matching the papers reproduced by odtlib:

* :class:`UnivariateSplit` -- ``x[feature] <= threshold`` goes left. On binary data with the default
  threshold 0.5 this is the rule "``x_f == 0`` goes left" of FlowOCT/BendersOCT (paper 001) and of the
  regularised Benders model (paper 003).
* :class:`SubsetSplit` -- a categorical feature group goes left when its value lies in a subset ``S`` of its
  categories (paper 000). On one-hot data: left iff any of the one-hot columns of ``S`` is 1.
* :class:`HyperplaneSplit` -- ``w . x <= bias`` goes left (multivariate trees of papers 002 and 004).
* :class:`CategorySplit` -- a column holding category codes goes left when its value is one of ``categories``
  (paper 004's categorical extension, which splits the unencoded column).

Leaves (:class:`Leaf`) hold the original class label (``int`` or ``str``) and, optionally, the number of
training samples of each class that reach them (:meth:`Tree.with_leaf_counts`), from which
:meth:`Tree.predict_proba` gives class probabilities as scikit-learn's ``DecisionTreeClassifier`` does.

A tree may carry the encoders' feature groups (:meth:`Tree.with_feature_groups`, a list of
:class:`odtlib.encoders.FeatureGroup`); :meth:`Tree.to_text` and :meth:`Tree.plot` then word each split in
terms of the original attributes (``petal_width <= 1.8``, ``a2 != 3``) instead of the encoded columns; a
hyperplane over :class:`~odtlib.encoders.UnitScaler` columns then reads in original units, without
coefficients below :data:`COEF_TOLERANCE` of the largest, and with one term as a univariate test
(``income <= 18,600``). :func:`export_text` and :func:`export_graphviz` (DOT) add ``n`` and the class counts
of every node, for all split kinds.

The package is split by job; every public name is importable from ``odtlib.tree``:

* :mod:`odtlib.tree.nodes` -- the leaf and the split types;
* :mod:`odtlib.tree.core` -- :class:`Tree`: structure (:meth:`Tree.leaf_paths`, :meth:`Tree.full_tree_positions`),
  prediction, construction (:meth:`Tree.from_sklearn`, :meth:`Tree.from_flow_solution`, via
  :mod:`odtlib.tree.build`);
* :mod:`odtlib.tree.conditions`, :mod:`odtlib.tree.text` -- the wording of splits, :meth:`Tree.to_text`, the
  indented and DOT exports;
* :mod:`odtlib.tree.plot` -- :meth:`Tree.plot`;
* :mod:`odtlib.tree.serialise` -- :meth:`Tree.to_dict` / :meth:`Tree.from_dict`.
"""
from odtlib.tree.conditions import COEF_TOLERANCE
from odtlib.tree.core import Tree, TreePath
from odtlib.tree.nodes import CategorySplit, HyperplaneSplit, Leaf, Node, Split, SubsetSplit, UnivariateSplit
from odtlib.tree.text import export_graphviz, export_text

__all__ = ["Leaf", "UnivariateSplit", "SubsetSplit", "HyperplaneSplit", "CategorySplit", "Node", "Split", "Tree",
           "TreePath", "COEF_TOLERANCE", "export_graphviz", "export_text"]
