"""Paper 004's data selection as composition: a classifier fitted on the rows a selection keeps.

Zhu et al. (Section 3) shrink the training set of SVM1-ODT before the MIP. The CART tree of the tree's depth
cuts the rows into clusters (one class in one leaf), and each cluster keeps the points its convex hull needs:
LP (24) with Algorithm 1, or LP (32) with Algorithm 2 (supplement B.1) for small clusters. The MIP (1) then
runs on the kept rows, starting from that CART tree. Algorithm 3 refits the tree on the rows the last tree
misclassifies plus the representers of the others (weighted |I| + 1), a fixed number of times.

Two scikit-learn meta-estimators put that around an estimator instead of inside it:

* :class:`DataSelectedClassifier` (Algorithms 1-2): fits an
  :class:`~odtlib.models.svm1odt.data_selection.LPDataSelector` on CART's clusters, then a clone of the
  estimator on the kept rows;
* :class:`IterativeTraining` (Algorithm 3): refits a clone of the estimator on each round's rows
  (:func:`~odtlib.models.svm1odt.data_selection.iterative_training`).

Each tree comes from one ordinary ``fit`` of the estimator (the one pipeline of ``models/_pipeline.py``).
An estimator that defines ``for_selected_rows(X, start, column_names)``, as :class:`~odtlib.models.SVM1ODT`
does, hands back the copy to fit on rows selected from X: its data-dependent defaults resolved on all of X
and the warm start ``start`` (Section 3: CART's tree; Algorithm 3: the last round's tree). Other odtlib
classifiers are cloned as they are. The fitted ``tree_`` is the estimator's tree with leaf counts (and so
``predict_proba``) taken over every training row, not only the kept ones, which are boundary rows rather
than a sample.
"""
from __future__ import annotations

import numbers
import time

import numpy as np
from sklearn.base import MetaEstimatorMixin, clone
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import Interval

from odtlib.models._base import ODTClassifier
from odtlib.models._pipeline import store_parameters
from odtlib.models.svm1odt.data_selection import LPDataSelector, iterative_training
from odtlib.models.svm1odt.svm1odt import SVM1ODT
from odtlib.tree import Tree

__all__ = ["DataSelectedClassifier", "IterativeTraining"]

# Algorithm 3 has no thresholds; iterative_training checks Algorithm 1's condition β2 < (d + 1)(1 - β1) on the
# values it is given, which β1 = β2 = 0 meet for any number of features d.
_NO_THRESHOLDS = {"beta1": 0.0, "beta2": 0.0}


class _RowSelectingClassifier(MetaEstimatorMixin, ODTClassifier):
    """What the two meta-estimators share: the inner estimator, CART's tree and the copy fitted on some rows.

    As an :class:`~odtlib.models.ODTClassifier` it validates X and y, encodes the labels, and predicts with
    ``tree_`` (the inner estimator's tree, its leaves counted on every training row).
    """

    requires_binary_features = False

    def fit(self, X, y, sample_weight=None):
        """Select rows and fit the estimator on them; ``sample_weight`` (one non-negative number per row) weights
        CART's tree and is passed on for the kept rows (times Algorithm 3's weights in :class:`IterativeTraining`)."""
        return self._checked_fit(X, y, sample_weight)

    def _estimator(self) -> ODTClassifier:
        return SVM1ODT() if self.estimator is None else self.estimator

    def _cart(self, X: np.ndarray, labels: np.ndarray, depth: int,
              sample_weight: np.ndarray | None) -> DecisionTreeClassifier:
        """CART's tree of ``depth`` on every row, weighted as the fit (Section 3's clusters and the first start)."""
        return DecisionTreeClassifier(max_depth=depth, random_state=self.random_state).fit(X, labels, sample_weight)

    def _estimator_for_rows(self, X: np.ndarray, start) -> ODTClassifier:
        """The unfitted copy of the estimator to fit on rows selected from X, starting from the Tree ``start``
        when the estimator takes it (module docstring)."""
        estimator = self._estimator()
        if hasattr(estimator, "for_selected_rows"):
            return estimator.for_selected_rows(X, start, self._column_names(X.shape[1]))
        return clone(estimator)

    @staticmethod
    def _weights(sample_weight: np.ndarray | None, rows: np.ndarray, factor: np.ndarray | None = None):
        """The kept rows' weights (None when there are neither weights nor a factor)."""
        if sample_weight is None and factor is None:
            return None
        weights = np.ones(len(rows)) if sample_weight is None else sample_weight[rows]
        return weights if factor is None else weights * factor


class DataSelectedClassifier(_RowSelectingClassifier):
    """A classifier trained on the rows paper 004's LP data selection keeps (Section 3, Algorithms 1 and 2).

    ``fit`` fits CART's tree of the selector's depth on every row, the selector on that tree's clusters, and a
    clone of ``estimator`` on the kept rows. With :class:`~odtlib.models.SVM1ODT` (the default) this is the
    paper's S1O-DS: α₁ and ε resolved on all rows, and the MIP started from CART's tree when its
    ``warm_start`` is True; "best" (SVM1ODT's default) starts from the better in (1a), on the kept rows, of that
    tree and paper 002's SVM tree grown on the kept rows, and "svm" from the SVM tree alone.

    Parameters
    ----------
    estimator : odtlib classifier, default None
        The classifier to train on the kept rows; None: ``SVM1ODT()``. Data selection works on numerical
        features (convex hulls of points): not with ``categorical_features``.
    selector : LPDataSelector, default None
        The data selection: ``method`` "lp" (LP (24) + Algorithm 1) or "balanced" (LP (32) + Algorithm 2), its
        β₁, β₂, ε′, and ``depth``, the depth of the CART tree whose leaves are the clusters (the paper: the
        tree's depth). None: ``LPDataSelector(depth=estimator.depth)``.
    random_state : int, default 0
        ``random_state`` of that CART tree.

    Attributes
    ----------
    estimator_ : odtlib classifier
        The fitted clone of ``estimator`` (trained on the kept rows).
    selector_ : LPDataSelector
        The fitted selector (``n_lps_``, ``lp_seconds_``: the selection's LPs and seconds, ``clusters_``, ...).
    selected_rows_ : ndarray of int
        The kept rows.
    tree_ : odtlib.tree.Tree
        ``estimator_``'s tree, its leaves counted on every training row.
    solve_result_ : odtlib.solvers.SolveResult
        ``estimator_``'s.
    classes_, n_features_in_, feature_names_in_
        As for every odtlib classifier (``classes_`` from every row).

    Examples
    --------
    Two squares, one per class, on either side of x0 = 0.5, so CART's stump has one cluster per class. In each,
    the centre (rows 4 and 9) is the one point inside the hull of the others; with β₁ = 0.9, Algorithm 1 keeps
    the rest of a cluster once 1 >= (1 - β₁)·5 of its 5 points are inside, so the four corners of each square:

    >>> import numpy as np
    >>> from odtlib.models import SVM1ODT, DataSelectedClassifier
    >>> from odtlib.models.svm1odt import LPDataSelector
    >>> X = np.array([[0.1, 0.1], [0.3, 0.1], [0.1, 0.3], [0.3, 0.3], [0.2, 0.2],
    ...               [0.7, 0.7], [0.9, 0.7], [0.7, 0.9], [0.9, 0.9], [0.8, 0.8]])
    >>> y = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    >>> clf = DataSelectedClassifier(SVM1ODT(depth=1), LPDataSelector(depth=1, beta1=0.9)).fit(X, y)
    >>> clf.selected_rows_.tolist(), clf.score(X, y)
    ([0, 1, 2, 3, 5, 6, 7, 8], 1.0)
    """

    _parameter_constraints = {
        "estimator": [ODTClassifier, None],
        "selector": [LPDataSelector, None],
        "random_state": [Interval(numbers.Integral, 0, None, closed="left")],
    }

    def __init__(self, estimator=None, selector=None, *, random_state: int = 0):
        store_parameters(self, locals())

    def _fit(self, X, y, sample_weight=None):
        labels = self.classes_[y]
        selector = LPDataSelector(depth=self._estimator().depth) if self.selector is None else self.selector
        cart = self._cart(X, labels, selector.depth, sample_weight)
        estimator = self._estimator_for_rows(X, Tree.from_sklearn(cart))
        self.selector_ = clone(selector).fit(X, labels, tree=cart)
        self.selected_rows_ = self.selector_.get_support(indices=True)
        rows = self.selected_rows_
        self.estimator_ = estimator.fit(X[rows], labels[rows], sample_weight=self._weights(sample_weight, rows))
        return self.estimator_.tree_, self.estimator_.solve_result_


class IterativeTraining(_RowSelectingClassifier):
    """Paper 004's iterative training (Algorithm 3): a classifier refitted on the rows its last tree needs.

    ``fit`` starts from CART's tree of the estimator's depth on every row. Each of ``n_iterations`` rounds
    keeps the rows the last tree misclassifies (I) and, in each cluster of the rows it classifies right (one
    class in one leaf), the points LP (24) does not find inside the hull of the others; the representers J
    (the points carrying some λ) weigh |I| + 1, the others 1 (Algorithm 3's weighted misclassification; times
    ``fit``'s ``sample_weight``, and with SVM1ODT the weight multiplies a point's margin slack too: see
    "Weights" in :mod:`odtlib.models.svm1odt.svm1odt`). A
    clone of ``estimator`` is fitted on them, warm-started from the last tree when it takes a start
    (:class:`~odtlib.models.SVM1ODT` with ``warm_start`` True or "best"); its tree is the next round's.

    Parameters
    ----------
    estimator : odtlib classifier, default None
        The classifier refitted each round (it must take ``sample_weight`` and have a ``depth``); None:
        ``SVM1ODT()``. Not with ``categorical_features``.
    n_iterations : int, default 3
        Rounds of Algorithm 3 (the paper gives no number).
    epsilon_prime : float, default 0
        Tolerance ε′ of LP (24), per coordinate, in the units of X.
    random_state : int, default 0
        ``random_state`` of the starting CART tree.

    Attributes
    ----------
    estimator_ : odtlib classifier
        The last round's fitted clone of ``estimator``.
    selected_rows_ : ndarray of int
        The rows of the last round.
    history_ : list of dict
        One per tree (iteration 0: CART's, on every row): iteration, n_selected, train_accuracy (on every row).
    selection_seconds_ : float
        Seconds of the rounds' selections (LP (24)), the fits excluded.
    tree_, solve_result_, classes_, n_features_in_, feature_names_in_
        As for :class:`DataSelectedClassifier`; ``solve_result_`` is the last round's.

    Examples
    --------
    The squares of :class:`DataSelectedClassifier`'s example. CART's stump classifies every row right (I is
    empty), so round 1 keeps, in each class's cluster, the points LP (24) does not find inside the hull of the
    others: the four corners of each square, not the centres (rows 4 and 9):

    >>> import numpy as np
    >>> from odtlib.models import SVM1ODT, IterativeTraining
    >>> X = np.array([[0.1, 0.1], [0.3, 0.1], [0.1, 0.3], [0.3, 0.3], [0.2, 0.2],
    ...               [0.7, 0.7], [0.9, 0.7], [0.7, 0.9], [0.9, 0.9], [0.8, 0.8]])
    >>> y = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    >>> clf = IterativeTraining(SVM1ODT(depth=1), n_iterations=1).fit(X, y)
    >>> clf.selected_rows_.tolist(), [h["n_selected"] for h in clf.history_], clf.score(X, y)
    ([0, 1, 2, 3, 5, 6, 7, 8], [10, 8], 1.0)
    """

    _parameter_constraints = {
        "estimator": [ODTClassifier, None],
        "n_iterations": [Interval(numbers.Integral, 1, None, closed="left")],
        "epsilon_prime": [Interval(numbers.Real, 0, None, closed="left")],
        "random_state": [Interval(numbers.Integral, 0, None, closed="left")],
    }

    def __init__(self, estimator=None, *, n_iterations: int = 3, epsilon_prime: float = 0.0,
                 random_state: int = 0):
        store_parameters(self, locals())

    def _fit(self, X, y, sample_weight=None):
        labels = self.classes_[y]
        depth = self._estimator().depth
        last = {"fit_seconds": 0.0}

        def fit_round(rows, round_weights, start):
            begin = time.perf_counter()
            estimator = self._estimator_for_rows(X, start)
            last["estimator"] = estimator.fit(X[rows], labels[rows],
                                              sample_weight=self._weights(sample_weight, rows, round_weights))
            last["rows"] = rows
            last["fit_seconds"] += time.perf_counter() - begin
            return last["estimator"].tree_

        begin = time.perf_counter()
        cart = self._cart(X, labels, depth, sample_weight)
        _, self.history_ = iterative_training(fit_round, X, labels, depth=depth, epsilon_prime=self.epsilon_prime,
                                              n_iterations=self.n_iterations, cart=cart, **_NO_THRESHOLDS)
        self.selection_seconds_ = time.perf_counter() - begin - last["fit_seconds"]
        self.estimator_, self.selected_rows_ = last["estimator"], np.asarray(last["rows"])
        return self.estimator_.tree_, self.estimator_.solve_result_
