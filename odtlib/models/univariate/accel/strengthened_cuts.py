"""Strengthened Benders cuts (11)-(12) of paper 003 (Section 5.1).

At an integer master solution a misclassified sample i ends at leaf n_L. When n_L is a terminal node of the
full tree, with parent P and sibling S, cut (10) is rewritten as (11) (the same row: P's features that send
i to S are separated from the other ancestors' only for readability). If S does not predict y_i either
(w_{y_i S} < θ_i - 1e-4), rerouting i at P alone cannot make it correct: the sample also needs S to predict
y_i, so P's features and w_{y_i S} each enter with coefficient 1/2 (12). Valid only with binary w.
"""
from __future__ import annotations

import numpy as np

from odtlib.models.univariate.benders_cuts import MinCutBendersCuts
from odtlib.solvers import LinearRow, Values

__all__ = ["StrengthenedBendersCuts"]


class StrengthenedBendersCuts(MinCutBendersCuts):
    """:class:`~odtlib.models.univariate.benders_cuts.MinCutBendersCuts` with (12) in place of (10) where it applies."""

    sibling_tol = 1e-4

    def cut_rows(self, values: Values, points: np.ndarray, in_source: np.ndarray) -> list[LinearRow]:
        rows = super().cut_rows(values, points, in_source)
        if not values.is_integral:
            return rows
        b_cols, w_cols, g_cols = self._columns(values)
        x = values.x
        first_terminal = 2**self.depth
        for r, i in enumerate(points):
            leaf = int(np.flatnonzero(in_source[r]).max())       # deepest node of the path
            if leaf < first_terminal:
                continue
            parent, sibling = leaf // 2, leaf ^ 1
            sibling_w = w_cols[sibling, self.y[i]]
            if x[sibling_w] >= x[g_cols[i]] - self.sibling_tol:
                continue                                          # (11) = (10): keep the row
            row = rows[r]
            at_parent = np.isin(row.vars, b_cols[parent])
            coefs = np.where(at_parent, 0.5 * row.coefs, row.coefs)
            rows[r] = LinearRow(np.append(row.vars, sibling_w), np.append(coefs, -0.5), ub=0.0)   # (12)
        return rows
