"""OptimalTreeClassifier: one estimator for one's own table, which takes the fastest exact path (issue 32).

A user with a raw DataFrame (numeric, categorical and binary columns) should not have to choose among the
paper estimators, an encoder and a solver. This meta-estimator picks them from the data and three options, by
the measurements recorded in the ``which_formulation`` notebook and the benches of ``bench/``:

==========================  =================================================  =====================================
``splits``                  encoding                                            engine
==========================  =================================================  =====================================
``"univariate"`` (default), numeric columns as they are (min-max scaled);      :class:`ThresholdTreeSearch`: exact
depth <= 5                  categories one-hot, two-valued columns one column;  branch and bound over every
                            or k quantile thresholds (``"quantile"``)          threshold, no MIP
``"univariate"``, depth     numeric columns: x <= t at every midpoint           paper 003's accelerated BendOCT
>= 6                        (``thresholds="all"``) or at k quantiles;           (:class:`RegularizedBendOCT`, its
                            categories one-hot                                  defaults: path-bound cuts of height
                                                                                3, polishing, top-down branching)
``"subset"``, 2 classes     paper 000's: categories one-hot groups, numeric     :class:`CategoricalODT`, full tree of
                            columns by value or in ordinal deciles              ``depth``, ``subtree_benders=True``
``"subset"``, > 2 classes   as ``"univariate"`` (paper 000's model labels its leaves positive/negative, so
                            multiclass data go one-hot to the univariate engine; ``path_`` says so)
``"hyperplane"``            numeric columns min-max scaled, categories one-hot  :class:`SOCT` with its routing-repair
                                                                                heuristic
==========================  =================================================  =====================================

The MIP engines need solver callbacks (lazy Benders cuts, path-bound cuts, primal heuristics), which SCIP runs
inside its search; on HiGHS or GLPK the paper estimators emulate them by restarts and say so in a
``SolverCapabilityWarning``. ``solver="auto"`` therefore means SCIP. The exact search uses no solver.

``thresholds="all"`` means every midpoint between two consecutive distinct values of a numeric column, so the
tree is optimal over every threshold of the data. The class changes alone would not be enough beyond depth 1
(:class:`~odtlib.encoders.ClassChangeThresholdEncoder`).

**Composition.** ``fit`` builds a scikit-learn :class:`~sklearn.pipeline.Pipeline` (the encoder, then the
paper estimator) and fits it; the paper estimators keep their paper-faithful defaults. ``path_`` records the
path (a :class:`FitPath`), one log line (logger ``odtlib.models.optimal_tree``, level INFO) states it, and
``solve_result_.extra["path"]`` carries it into the result's repr.

**Missing values.** ``missing="error"`` (default) refuses NaN naming the columns and counts.
``missing="category"`` makes NaN a category of its own (``"missing"``) in categorical columns; a numeric
column with NaN in the training data gets an indicator column ``"<name> is missing"``, and its NaN takes the
column's training maximum, so every threshold test sends a missing value with the largest values and the
indicator lets a split isolate them (a NaN in another numeric column at predict time is treated the same way).
"""
from __future__ import annotations

import logging
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.pipeline import Pipeline
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from odtlib.encoders import MidpointThresholdEncoder, QuantileThresholdEncoder, UnitScaler, categorical_by_dtype
from odtlib.models._base import DEPRECATED, SEED_RENAMED, RenamedParameters, with_old_names
from odtlib.models.categorical.categorical_odt import CategoricalODT
from odtlib.models.univariate.regularized_bendoct import RegularizedBendOCT
from odtlib.models.univariate.threshold_search import ThresholdTreeSearch
from odtlib.models.hyperplane.soct import SOCT
from odtlib.solvers import SOLVERS

__all__ = ["OptimalTreeClassifier", "FitPath", "MISSING_LABEL"]

logger = logging.getLogger(__name__)

MISSING_LABEL = "missing"      # the category NaN becomes with missing="category"
_MAX_NAMED = 10


@dataclass(frozen=True)
class FitPath:
    """Which exact path a fit took: the kind of splits, the estimator, the solver, the encoding, and why."""

    splits: str
    estimator: str
    solver: str
    encoding: str
    reason: str

    def __str__(self) -> str:
        return (f"{self.splits} splits by {self.estimator} on {self.solver}; encoding: {self.encoding} "
                f"({self.reason})")


class OptimalTreeClassifier(RenamedParameters, ClassifierMixin, BaseEstimator):
    """Optimal classification tree for one's own data, by the fastest exact path odtlib has (module doc).

    Parameters
    ----------
    depth : int, default 2
        Maximum depth of the tree (the full depth of paper 000's topology with ``splits="subset"``).
    splits : {"univariate", "subset", "hyperplane"}, default "univariate"
        Axis-parallel tests on thresholds and categories; subsets of a categorical column's values (paper 000,
        binary labels); or hyperplanes over the scaled columns (S-OCT, paper 002).
    thresholds : {"all", "quantile"}, default "all"
        Univariate splits on a numeric column: every threshold of the data (the midpoints of consecutive
        distinct values) or the k-1 inner k-quantiles (QT-k of paper 003: optimal over those only, fewer columns).
    k : int >= 2, default 5
        Quantiles with ``thresholds="quantile"``.
    leaf_penalty : float in [0, 1], default 0
        λ of paper 003's objective ``accuracy - λ·leaves`` (univariate splits only; 0: the most accurate tree).
    missing : {"error", "category"}, default "error"
        What NaN in X does (module doc).
    solver : "auto" or a solver name, default "auto"
        "auto": SCIP, which runs every path's callbacks inside its search.
    time_limit : float or None, default None
        Seconds of the solver's run (None: until the optimum is proved). A tree not proved optimal comes with a
        ``NotProvedOptimalWarning``.
    threads, random_state, log
        Passed to the engine (``random_state``: the solver's seed and CART's; ``seed`` is its deprecated old
        name).
    max_memory : float or None, default None
        Bytes the exact subroutines may use (None: a quarter of the machine's memory); see
        :class:`RegularizedBendOCT`.

    Attributes
    ----------
    path_ : FitPath
        The path taken (also ``str(path_)``, logged, and in ``solve_result_.extra["path"]``).
    pipeline_ : sklearn.pipeline.Pipeline
        The fitted encoder and paper estimator (``pipeline_[-1]``).
    tree_ : odtlib.tree.Tree
        The tree, printed in the original columns (``print(model.tree_.to_text())``).
    solve_result_ : odtlib.solvers.SolveResult
        The engine's result (objective on the engine's scale; ``extra["path"]``).
    classes_, n_features_in_, feature_names_in_
        As for every scikit-learn classifier (``feature_names_in_`` when X is a DataFrame with string names).

    Examples
    --------
    Only ``a`` separates the two classes, and the threshold halfway between its values is the only one
    that does, so the optimal depth-1 tree is unique:

    >>> import pandas as pd
    >>> from odtlib.models import OptimalTreeClassifier
    >>> X = pd.DataFrame({"a": [0.0, 0.0, 1.0, 1.0], "b": [0.0, 1.0, 0.0, 1.0]})
    >>> y = [0, 0, 1, 1]
    >>> clf = OptimalTreeClassifier(depth=1).fit(X, y)
    >>> clf.score(X, y)
    1.0
    >>> print(clf.tree_.to_text())
    if a <= 0.5:
        predict 0  (n=2: 0 2, 1 0)
    else:
        predict 1  (n=2: 0 0, 1 2)
    """

    _renamed_parameters = SEED_RENAMED
    _parameter_constraints = with_old_names({
        "depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "splits": [StrOptions({"univariate", "subset", "hyperplane"})],
        "thresholds": [StrOptions({"all", "quantile"})],
        "k": [Interval(numbers.Integral, 2, None, closed="left")],
        "leaf_penalty": [Interval(numbers.Real, 0, 1, closed="both")],
        "missing": [StrOptions({"error", "category"})],
        "solver": [StrOptions({"auto", *SOLVERS})],
        "time_limit": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "threads": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": [Interval(numbers.Integral, 0, None, closed="left")],
        "max_memory": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "log": ["boolean"],
    }, SEED_RENAMED)

    def __init__(self, *, depth: int = 2, splits: str = "univariate", thresholds: str = "all", k: int = 5,
                 leaf_penalty: float = 0.0, missing: str = "error", solver: str = "auto",
                 time_limit: float | None = None, threads: int = 1, random_state: int = 0,
                 max_memory: float | None = None, log: bool = False, seed=DEPRECATED):
        self.depth = depth
        self.splits = splits
        self.thresholds = thresholds
        self.k = k
        self.leaf_penalty = leaf_penalty
        self.missing = missing
        self.solver = solver
        self.time_limit = time_limit
        self.threads = threads
        self.random_state = random_state
        self.max_memory = max_memory
        self.log = log
        self.seed = seed

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = self.missing == "category"
        return tags

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None) -> OptimalTreeClassifier:
        """Encode X for the path the data and options call for, fit the engine, record the path.
        ``sample_weight`` (one non-negative number per row) weights each point in the engine's objective."""
        self._warn_renamed_parameters()
        frame = self._frame(X, reset=True)
        y = self._labels(y, len(frame))
        self.categorical_columns_ = [c for c, dtype in frame.dtypes.items() if categorical_by_dtype(dtype)]
        numeric = frame[[c for c in frame.columns if c not in set(self.categorical_columns_)]]
        maxima = np.nan_to_num(numeric.max(skipna=True).to_numpy(dtype=float))
        self.numeric_fill_ = dict(zip(numeric.columns, maxima.tolist()))
        self.missing_indicators_ = (numeric.columns[numeric.isna().any()].tolist() if self.missing == "category"
                                    else [])
        frame = self._fill_missing(frame)
        n_classes = len(np.unique(y))
        if n_classes < 2:
            raise ValueError(f"y has only one class ({y[0]!r}): a classifier needs at least two classes")
        self.path_, self.pipeline_ = self._plan(frame, n_classes)
        self.pipeline_.fit(frame, y, **({} if sample_weight is None else {"tree__sample_weight": sample_weight}))
        self.path_ = self._with_column_counts(self.path_)
        engine = self.pipeline_[-1]
        self.classes_ = engine.classes_
        groups = self.pipeline_[0].groups_ if len(self.pipeline_) > 1 else None
        self.tree_ = engine.tree_ if groups is None else engine.tree_.with_feature_groups(groups)
        self.solve_result_ = engine.solve_result_
        self.solve_result_.extra["path"] = str(self.path_)
        logger.info("OptimalTreeClassifier: %s", self.path_)
        return self

    def _plan(self, frame: pd.DataFrame, n_classes: int) -> tuple[FitPath, Pipeline]:
        """The path for these data and options, as (FitPath, unfitted Pipeline)."""
        solver = "scip" if self.solver == "auto" else self.solver
        common = dict(solver=solver, time_limit=self.time_limit, threads=self.threads,
                      random_state=self._parameter("random_state"), log=self.log)
        if self.splits != "univariate" and self.leaf_penalty:
            raise ValueError(f"leaf_penalty applies to univariate splits only; splits={self.splits!r} maximises "
                             "training accuracy (set leaf_penalty=0)")
        if self.splits == "subset" and n_classes == 2:
            engine = CategoricalODT(topology=_full_shape(self.depth), subtree_benders=True, **common)
            return (FitPath("subset", "CategoricalODT (subtree_benders=True)", solver,
                            "CategoricalEncoding: categories one-hot groups, numeric columns by value or in deciles "
                            "(ordinal)", "subset splits, binary labels: paper 000's model by the subtree "
                            "decomposition"), Pipeline([("tree", engine)]))
        if self.splits == "hyperplane":
            engine = SOCT(depth=self.depth, **common)
            return (FitPath("hyperplane", "SOCT (routing repair)", solver,
                            "UnitScaler: numeric columns scaled to [0, 1], categories one-hot",
                            "hyperplane splits: S-OCT with its heuristics"),
                    Pipeline([("encode", UnitScaler(drop_binary=True)), ("tree", engine)]))
        reason = ("univariate splits" if self.splits == "univariate"
                  else f"subset splits need binary labels (y has {n_classes} classes): one-hot categories on the "
                       "univariate engine instead")
        if self.depth <= ThresholdTreeSearch.MAX_DEPTH:
            engine = ThresholdTreeSearch(depth=self.depth, leaf_penalty=self.leaf_penalty, time_limit=self.time_limit,
                                         max_memory=self.max_memory)
            encoder = UnitScaler(drop_binary=True) if self.thresholds == "all" else self._threshold_encoder()
            path = FitPath("univariate", "ThresholdTreeSearch", "none (exact search)", self._encoder_name(),
                           reason + f", depth <= {ThresholdTreeSearch.MAX_DEPTH}: the exact branch and bound over the "
                           "sorted thresholds")
        else:
            engine = RegularizedBendOCT(depth=self.depth, leaf_penalty=self.leaf_penalty, max_memory=self.max_memory,
                                        **common)
            encoder = self._threshold_encoder()
            path = FitPath("univariate", "RegularizedBendOCT", solver, self._encoder_name(),
                           reason + ": paper 003's accelerated BendOCT")
        return path, Pipeline([("encode", encoder), ("tree", engine)])

    def _threshold_encoder(self):
        if self.thresholds == "all":
            return MidpointThresholdEncoder(drop_binary=True)
        return QuantileThresholdEncoder(k=self.k, drop_binary=True)

    def _encoder_name(self) -> str:
        if self.thresholds == "quantile":
            return (f"QuantileThresholdEncoder(k={self.k}): x > q at the inner {self.k}-quantiles of the numeric "
                    "columns")
        if self.depth <= ThresholdTreeSearch.MAX_DEPTH:
            return "UnitScaler: numeric columns scaled to [0, 1] (every threshold searched), categories one-hot"
        return "MidpointThresholdEncoder: x <= t at every midpoint of the numeric columns"

    def _with_column_counts(self, path: FitPath) -> FitPath:
        """The path with the number of 0/1 columns the engine got (known once the encoder is fitted)."""
        engine = self.pipeline_[-1]
        counts = f"; {engine.n_features_in_} encoded columns from {self.n_features_in_} original"
        return FitPath(path.splits, path.estimator, path.solver, path.encoding + counts, path.reason)

    # ------------------------------------------------------------------ predict
    def predict(self, X) -> np.ndarray:
        """Class labels predicted by the tree."""
        frame = self._checked(X)
        return self.pipeline_.predict(frame)

    def predict_proba(self, X) -> np.ndarray:
        """Class frequencies of the training samples in the leaf each row reaches (columns as ``classes_``)."""
        frame = self._checked(X)
        return self.pipeline_.predict_proba(frame)

    def apply(self, X) -> np.ndarray:
        """Id of the leaf each row reaches."""
        frame = self._checked(X)
        encoded = frame if len(self.pipeline_) == 1 else self.pipeline_[0].transform(frame)
        return self.pipeline_[-1].apply(encoded)

    # ------------------------------------------------------------------ input checks
    def _checked(self, X) -> pd.DataFrame:
        check_is_fitted(self, "pipeline_")
        return self._fill_missing(self._frame(X, reset=False))

    def _frame(self, X, reset: bool) -> pd.DataFrame:
        """X as a DataFrame (columns x0, x1, ... for arrays), with scikit-learn's checks of the shape, the number
        and names of the columns against fit, and no infinite numbers (NaN is the ``missing`` policy's)."""
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, reset=reset, skip_check_array=True)
            frame = X.set_axis([str(c) for c in X.columns], axis=1)
        else:
            array = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=False, accept_sparse=False)
            frame = pd.DataFrame(array, columns=[f"x{j}" for j in range(array.shape[1])])
        if len(frame) == 0:
            raise ValueError("Found array with 0 sample(s) (shape=(0, ...)) while a minimum of 1 is required.")
        numeric = frame.select_dtypes("number")
        infinite = numeric.columns[np.isinf(numeric.to_numpy(dtype=float)).any(axis=0)].tolist()
        if infinite:
            raise ValueError(f"X contains infinite values (inf) in columns {infinite[:_MAX_NAMED]}; replace them")
        return frame

    @staticmethod
    def _labels(y, n_rows: int) -> np.ndarray:
        y = column_or_1d(np.asarray(y), warn=True)
        if len(y) != n_rows:
            raise ValueError(f"X has {n_rows} rows but y has {len(y)} labels")
        if pd.isna(y).any():
            raise ValueError(f"y has {int(pd.isna(y).sum())} missing labels: drop those rows")
        check_classification_targets(y)
        return y

    def _fill_missing(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Apply the ``missing`` policy (module doc): refuse NaN naming the columns, or make it a category of
        categorical columns and, in numeric ones, the training maximum plus the fit's indicator columns."""
        counts = frame.isna().sum()
        counts = counts[counts > 0]
        if self.missing == "error" and len(counts):
            listing = ", ".join(f"{c!r} ({n} rows)" for c, n in list(counts.items())[:_MAX_NAMED])
            more = f" and {len(counts) - _MAX_NAMED} more columns" if len(counts) > _MAX_NAMED else ""
            raise ValueError(f"X has missing values (NaN) in {listing}{more}: drop or impute them, or pass "
                             "missing='category'")
        if not len(counts) and not self.missing_indicators_:
            return frame
        filled = frame.copy()
        for column in self.missing_indicators_:
            filled[f"{column} is missing"] = frame[column].isna()
        for column in counts.index:
            if column in self.categorical_columns_:
                filled[column] = filled[column].astype(object).where(filled[column].notna(), MISSING_LABEL)
            else:
                filled[column] = filled[column].fillna(self.numeric_fill_[column])
        return filled


def _full_shape(depth: int):
    """The full binary tree of ``depth`` as a topology shape of nested (left, right) pairs (None: a leaf)."""
    return None if depth == 0 else (_full_shape(depth - 1), _full_shape(depth - 1))
