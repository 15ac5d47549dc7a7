"""Shared scikit-learn estimator base for the optimal-decision-tree formulations.

Every formulation of odtlib is a subclass of :class:`ODTClassifier`. The subclass declares its parameters
in ``__init__`` (stored as given, scikit-learn style) and implements :meth:`ODTClassifier._fit`, which builds
and solves its model on validated data and returns the learned :class:`~odtlib.tree.Tree` with the
:class:`~odtlib.solvers.SolveResult`. Input validation, label encoding, feature names and prediction live here
once, so every formulation rejects bad input with the same clear messages.
"""
from __future__ import annotations

import numbers
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Hidden, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    assert_all_finite,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from odtlib.solvers import SOLVERS
from odtlib.tree import Tree

if TYPE_CHECKING:
    from odtlib.solvers import SolveResult

__all__ = ["ODTClassifier", "warn_user"]

_MAX_NAMED = 10  # how many offending columns an error message lists
DEPRECATED = "deprecated"    # the default of a parameter's old name while it is deprecated (one release)
SEED_RENAMED = {"seed": "random_state"}    # old name -> new name (scikit-learn's name for the seed)


def _library_dirs() -> tuple[str, ...]:
    """Folders whose frames a warning skips to reach the user's line: odtlib, scikit-learn (Pipeline,
    cross-validation, the fit wrappers) and joblib (the sequential backend of ``n_jobs``)."""
    import joblib
    import sklearn

    import odtlib

    return tuple(os.path.dirname(module.__file__) + os.sep for module in (odtlib, sklearn, joblib))


def warn_user(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` attributed to the first caller outside the libraries of :func:`_library_dirs`: the
    user's ``fit`` line, also through a Pipeline or ``cross_val_score`` (the role of ``stacklevel``, whatever
    the depth of odtlib's own calls in between)."""
    library = _library_dirs()
    frame, level = sys._getframe(0), 1
    while frame is not None and frame.f_code.co_filename.startswith(library):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level if frame is not None else 2)


def _list_names(names: list[str]) -> str:
    shown = ", ".join(repr(n) for n in names[:_MAX_NAMED])
    more = len(names) - _MAX_NAMED
    return shown + (f" and {more} more" if more > 0 else "")


def shared_constraints() -> dict:
    """Parameter constraints (scikit-learn's ``_parameter_constraints``) of the parameters every formulation
    has when it has them at all: ``depth``, ``solver``, ``time_limit``. :meth:`ODTClassifier._check_params`
    adds what they cannot say."""
    return {
        "depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "solver": [str],
        "time_limit": [Interval(numbers.Real, 0, None, closed="neither"), None],
    }


def with_old_names(constraints: dict, renamed: dict[str, str]) -> dict:
    """``constraints`` plus, for each old name of ``renamed`` (old -> new), the new name's constraints and the
    hidden option ``DEPRECATED`` (the old name's default: not given)."""
    return {**constraints, **{old: [*constraints[new], Hidden(StrOptions({DEPRECATED}))]
                              for old, new in renamed.items()}}


def _given(value: Any) -> bool:
    """Whether a deprecated parameter was given (its value is not the default ``DEPRECATED``)."""
    return not (isinstance(value, str) and value == DEPRECATED)


class RenamedParameters:
    """Parameters renamed in odtlib 0.2, kept under their old names for one release (scikit-learn's pattern).

    ``_renamed_parameters`` maps old name -> new name. ``__init__`` takes both, the old one with the default
    ``DEPRECATED``, and ``_parameter_constraints`` list it (:func:`with_old_names`). Given, the old name warns
    at fit (:meth:`_warn_renamed_parameters`, a FutureWarning naming the new one) and its value is the one
    used: the code reads a renamed parameter through :meth:`_parameter`, never as an attribute.
    """

    _renamed_parameters: ClassVar[dict[str, str]] = {}

    def _warn_renamed_parameters(self) -> None:
        """A FutureWarning at the user's line for each old name that was given."""
        for old, new in self._renamed_parameters.items():
            value = getattr(self, old, DEPRECATED)
            if _given(value):
                warn_user(f"{type(self).__name__}: `{old}` was renamed `{new}` in odtlib 0.2 and will be removed in "
                          f"0.3; use {new}={value!r}", FutureWarning)

    def _parameter(self, name: str) -> Any:
        """The value of parameter ``name`` in this fit: the one given under its old name, if any."""
        for old, new in self._renamed_parameters.items():
            if new == name and _given(getattr(self, old, DEPRECATED)):
                return getattr(self, old)
        return getattr(self, name)


class ODTClassifier(RenamedParameters, ClassifierMixin, BaseEstimator):
    """Base class of the odtlib classifiers (not used directly).

    Subclasses set ``requires_binary_features = False`` when their formulation accepts real-valued features
    (papers 002 and 004 work on data scaled to [0, 1]); otherwise ``fit`` rejects X with values other than 0/1.

    After ``fit``: ``tree_`` (:class:`~odtlib.tree.Tree` with the original class labels and feature names),
    ``solve_result_`` (the solver's :class:`~odtlib.solvers.SolveResult`), ``classes_``, ``n_features_in_``
    and ``feature_names_in_`` (when X was a DataFrame with string column names).
    """

    requires_binary_features: bool = True
    _parameter_constraints: dict = shared_constraints()

    # ------------------------------------------------------------------ to be implemented by formulations
    def _fit(self, X: np.ndarray, y: np.ndarray) -> tuple[Tree, SolveResult]:
        """Learn a tree from validated ``X`` (float array) and ``y`` (ints 0..K-1 indexing ``self.classes_``).

        Leaf labels of the returned tree must be original labels, i.e. ``self.classes_[k]``.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement _fit(X, y)")

    # ------------------------------------------------------------------ scikit-learn API
    def fit(self, X: Any, y: Any) -> ODTClassifier:
        """Validate X and y, then learn the tree with the subclass's formulation."""
        return self._checked_fit(X, y)

    def _checked_fit(self, X: Any, y: Any, sample_weight: Any = None) -> ODTClassifier:
        """``fit``'s validation and learning; a formulation that weights points defines
        ``fit(X, y, sample_weight=None)`` as ``return self._checked_fit(X, y, sample_weight)``, and its ``_fit``
        then receives the checked weights (non-negative, one per row) as ``sample_weight``."""
        self._validate_params()
        self._check_params()
        _check_numeric_columns(X, self._non_numeric_advice)
        X_arr = validate_data(self, X, reset=True, dtype=np.float64, ensure_all_finite=False)
        _check_finite(X_arr, self._column_names(X_arr.shape[1]))
        y_arr = self._check_y(y, X_arr.shape[0])
        self._check_feature_values(X_arr)
        classes, y_encoded = np.unique(y_arr, return_inverse=True)
        if len(classes) < 2:
            label = classes[0].item() if isinstance(classes[0], np.generic) else classes[0]
            raise ValueError(f"y has only one class ({label!r}): a classifier needs at least two classes")
        self.classes_ = classes
        weights = {} if sample_weight is None else {
            "sample_weight": _check_sample_weight(sample_weight, X_arr, ensure_non_negative=True)}
        tree, result = self._fit(X_arr, y_encoded.astype(np.int64), **weights)
        if tree.feature_names is None and hasattr(self, "feature_names_in_"):
            tree = tree.with_feature_names(list(self.feature_names_in_))
        self.tree_ = tree.with_leaf_counts(X_arr, classes[y_encoded])
        self.solve_result_ = result
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Class labels predicted by the learned tree."""
        X_arr = self._check_X_fitted(X)
        labels = self.tree_.predict(X_arr)
        return labels.astype(self.classes_.dtype, copy=False)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes_``: the class frequencies of the training
        samples in the leaf each row reaches (as scikit-learn's DecisionTreeClassifier). A leaf that no training
        sample reaches gives probability 1 to its own label. The predicted label is the leaf's label, which
        an optimal tree makes a most frequent class of its leaf (ties aside); a tree that is not proved
        optimal, or a weighted objective, may label a leaf with a less frequent class."""
        X_arr = self._check_X_fitted(X)
        return self.tree_.predict_proba(X_arr, self.classes_)

    def apply(self, X: Any) -> np.ndarray:
        """Id of the tree leaf reached by each row of X."""
        X_arr = self._check_X_fitted(X)
        return self.tree_.apply(X_arr)

    # ------------------------------------------------------------------ validation helpers
    def _check_params(self) -> None:
        """What ``_parameter_constraints`` cannot say (run after them): a bool is no ``depth`` or ``time_limit``
        (scikit-learn's Interval takes True for 1), and ``solver`` must be one :func:`odtlib.solvers.solve`
        knows, in any case. Warns for the renamed parameters that were given. Extend with super()."""
        params = self.get_params(deep=False)
        if isinstance(params.get("depth"), bool):
            raise ValueError(f"depth must be an integer >= 1, got {params['depth']!r}")
        if isinstance(params.get("time_limit"), bool):
            raise ValueError(f"time_limit must be a positive number of seconds or None, got {params['time_limit']!r}")
        if "solver" in params and params["solver"].lower() not in SOLVERS:
            raise ValueError(f"unknown solver {params['solver']!r}; choose one of {', '.join(SOLVERS)}")
        self._warn_renamed_parameters()

    def _non_numeric_advice(self, X: pd.DataFrame, columns: list[str]) -> str:
        """The end of fit's error for the non-numeric ``columns`` of X: how to make them numbers. Formulations
        that take category codes override it."""
        return "encode them first (e.g. odtlib.encoders.OneHotEncoder)"

    def _check_X_fitted(self, X: Any) -> np.ndarray:
        """X for predict/apply: fitted estimator, same columns as in fit, the values fit accepts."""
        check_is_fitted(self, "tree_")
        X_arr = validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=False)
        _check_finite(X_arr, self._column_names(X_arr.shape[1]))
        self._check_feature_values(X_arr)
        return X_arr

    def _check_feature_values(self, X: np.ndarray) -> None:
        """The formulation's input contract: 0/1 values when ``requires_binary_features``."""
        if self.requires_binary_features:
            _check_binary(X, self._column_names(X.shape[1]), type(self).__name__)

    def _column_names(self, n_columns: int) -> list[str]:
        if hasattr(self, "feature_names_in_"):
            return [str(n) for n in self.feature_names_in_]
        return [f"x{j}" for j in range(n_columns)]

    @staticmethod
    def _check_y(y: Any, n_rows: int) -> np.ndarray:
        if y is None:
            raise ValueError(
                "this estimator requires y to be passed, but the target y is None: pass the class labels of X's rows"
            )
        y_arr = column_or_1d(np.asarray(y), warn=True)
        if len(y_arr) != n_rows:
            raise ValueError(f"X has {n_rows} rows but y has {len(y_arr)} labels")
        missing = pd.isna(y_arr)
        if missing.any():
            raise ValueError(f"Input y contains NaN: y has {int(missing.sum())} missing labels "
                             f"(first at row {int(np.argmax(missing))})")
        if np.issubdtype(y_arr.dtype, np.floating):
            assert_all_finite(y_arr, input_name="y")     # scikit-learn's wording for infinity
        check_classification_targets(y_arr)
        return y_arr


def _check_numeric_columns(X: Any, advice) -> None:
    """Reject DataFrames with non-numeric columns, naming them and saying the fix (``advice(X, columns)``)."""
    if not isinstance(X, pd.DataFrame):
        return
    bad = [
        str(c)
        for c, dtype in X.dtypes.items()
        if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))
    ]
    if bad:
        raise ValueError(f"X has non-numeric columns {_list_names(bad)}; {advice(X, bad)}")


def _check_finite(X: np.ndarray, names: list[str]) -> None:
    finite = np.isfinite(X)
    if finite.all():
        return
    bad_columns = [names[j] for j in np.flatnonzero(~finite.all(axis=0))]
    found = (("NaN", np.isnan(X).any()), ("infinite values", np.isinf(X).any()))
    kind = " and ".join(name for name, present in found if present)
    raise ValueError(f"X contains {kind} in columns {_list_names(bad_columns)}; impute or drop them first")


def _check_binary(X: np.ndarray, names: list[str], estimator: str) -> None:
    non_binary = ~((X == 0) | (X == 1))
    if not non_binary.any():
        return
    bad_columns = [names[j] for j in np.flatnonzero(non_binary.any(axis=0))]
    raise ValueError(
        f"{estimator} needs binary (0/1) features, but columns {_list_names(bad_columns)} have other values; "
        "binarise X first (e.g. odtlib.encoders.OneHotEncoder or QuantileThresholdEncoder)"
    )
