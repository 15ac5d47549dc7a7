"""CART-based feature-group selection of paper 000 (Günlük et al. 2019, Section 5.1).

Fit an unrestricted CART tree and keep the feature groups it branches on at least once; the optimal tree
is then searched over these groups only (the other groups' v are 0). The paper runs R's ``rpart`` with
default settings on the 90 % training part of each dataset; we use scikit-learn's
``DecisionTreeClassifier`` with its defaults (fully grown, Gini) on the one-hot columns, where a split on
column j uses the group of j.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.tree import DecisionTreeClassifier

__all__ = ["cart_feature_groups"]


def cart_feature_groups(X, y, groups: Sequence, fraction: float = 1.0, seed: int = 0) -> list[str]:
    """Names of the groups used by an unrestricted CART tree, in the order of ``groups``.

    Parameters
    ----------
    X : (n, d) 0/1 array or DataFrame, the encoded columns.
    y : labels.
    groups : objects with ``name`` and ``columns`` (column indices into X), e.g.
        :class:`odtlib.models.categorical.categorical_odt.Group` (``CategoricalODT().fit(...).groups_``).
    fraction : fit CART on this random fraction of the rows (the paper: CART on 90 % of the data, which is
        its training part; pass 0.9 to subsample the given rows instead).
    seed : random seed of the subsample and of CART's tie-breaking.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction!r}")
    rows = np.arange(len(y))
    if fraction < 1:
        rng = np.random.default_rng(seed)
        rows = np.sort(rng.choice(len(y), size=max(1, round(fraction * len(y))), replace=False))
    cart = DecisionTreeClassifier(random_state=seed).fit(X[rows], y[rows])
    used = {int(f) for f in cart.tree_.feature if f >= 0}
    return [g.name for g in groups if used & {int(j) for j in g.columns}]
