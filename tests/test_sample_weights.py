"""Sample weights and class weights of the MIP estimators: paper 001's (FlowOCT, BendersOCT, OCT, BinOCT) first.

With weights w_i the objective (1.1) becomes ``(1 - λ)·Σ_i w_i·[i correct] - λ·splits`` (BinOCT: λ = 0); FlowOCT and
BendersOCT reach it with both engines, ``engine="accelerated"`` on paper 003's weighted engine. The
checks compare each weighted fit with an unweighted fit of the data that the weights stand for (a row removed,
a row repeated), with a scaled fit, and with an exhaustive enumeration of every depth <= 2 tree
(``tests/oracles.py``). Every fitted tree is also scored independently: its predictions on the data, weighted
with numpy, minus λ times its number of splits, must equal the optimum.

SVM1ODT (paper 004), CategoricalODT (paper 000), paper 002's family on formulation (1) (SOCT, OCTH,
UnivariateOCT) and paper 003's (RegularizedBendOCT, RegularizedFlowOCT) have their own sections below: paper 004's
(1a) weights each point's error and margin slack, paper 000's (8a) each correctly classified point (C times more
for a negative), paper 002's (1a) each correctly classified point, with the split price α·W, and paper 003's (1) the
weighted accuracy Σ_i w_i·[i correct] / W, with the leaf penalty λ unchanged.
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import has_fit_parameter

from odtlib.models import (
    OCT,
    OCTH,
    SOCT,
    BendersOCT,
    BinOCT,
    CategoricalODT,
    DataSelectedClassifier,
    FlowOCT,
    RegularizedBendOCT,
    OptimalTreeClassifier,
    RegularizedFlowOCT,
    SVM1ODT,
    ThresholdTreeSearch,
    UnivariateOCT,
)
from odtlib.models._pipeline import FitContext, weighted_objective_step
from odtlib.models.univariate._regularized import RegularizedContext
from odtlib.models.univariate.accel import EQPInequalities, SolutionPolishing
from odtlib.models.univariate.regularized_bendoct import BendOCTMaster
from odtlib.models.univariate.regularized_bendoct import build_model as bendoct_model
from odtlib.solvers import solve
from odtlib.models.hyperplane._formulation import HyperplaneFormulation
from odtlib.models.hyperplane.soct import build_model as soct_model
from oracles import best_weighted_objective, random_binary_data
from oracles_hyperplane import best_hyperplane_tree

pytestmark = pytest.mark.filterwarnings("ignore::odtlib.solvers.SolverCapabilityWarning")  # Benders on HiGHS

ESTIMATORS = ["FlowOCT", "BendersOCT-scip", "BendersOCT-highs", "OCT", "BinOCT", "FlowOCT-accelerated",
              "BendersOCT-accelerated"]
TOL = 1e-5   # the solvers' feasibility tolerance shows in the reported objectives (about 1e-6 on BinOCT)


def make(name: str, depth: int, lam: float = 0.0, **params):
    """The estimator ``name`` (BinOCT has no split penalty: only λ = 0)."""
    if name == "BinOCT":
        assert lam == 0.0
        return BinOCT(depth=depth, **params)
    cls, solver, engine = {"FlowOCT": (FlowOCT, "highs", "formulation"),
                           "BendersOCT-scip": (BendersOCT, "scip", "formulation"),
                           "BendersOCT-highs": (BendersOCT, "highs", "formulation"), "OCT": (OCT, "highs", None),
                           "FlowOCT-accelerated": (FlowOCT, "scip", "accelerated"),
                           "BendersOCT-accelerated": (BendersOCT, "scip", "accelerated")}[name]
    if engine is not None:
        params["engine"] = engine
    return cls(depth=depth, split_penalty=lam, solver=solver, **params)


def lam_for(name: str) -> float:
    """A split penalty that matters on 16 rows (a split must gain more than λ/(1-λ) = 0.33 of weight)."""
    return 0.0 if name == "BinOCT" else 0.25


def tree_objective(clf, X, y, weights, lam: float) -> float:
    """(1.1) of the fitted tree on (X, y) with weights, computed here: weight of the rows it predicts right."""
    correct = clf.predict(X) == y
    return (1 - lam) * float(np.sum(np.asarray(weights, dtype=np.float64)[correct])) - lam * clf.tree_.n_splits


def fitted(name, X, y, depth, lam=0.0, sample_weight=None, **params):
    clf = make(name, depth, lam, **params).fit(X, y, sample_weight=sample_weight)
    assert clf.solve_result_.status == "optimal"
    return clf


@pytest.mark.parametrize("name", ESTIMATORS)
def test_zero_weight_is_the_row_removed(name):
    X, y = random_binary_data(16, 4, 2, seed=1)
    lam = lam_for(name)
    weights = np.ones(16)
    weights[[2, 7, 11]] = 0
    kept = weights > 0
    weighted = fitted(name, X, y, 2, lam, sample_weight=weights)
    reduced = fitted(name, X[kept], y[kept], 2, lam)
    assert weighted.solve_result_.objective == pytest.approx(reduced.solve_result_.objective, abs=TOL)
    assert tree_objective(weighted, X[kept], y[kept], np.ones(kept.sum()), lam) == pytest.approx(
        reduced.solve_result_.objective, abs=TOL)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_integer_weight_is_the_row_repeated(name):
    X, y = random_binary_data(14, 4, 2, seed=2)
    lam = lam_for(name)
    weights = np.random.default_rng(2).integers(1, 4, size=14)      # 1, 2 or 3 copies of each row
    weighted = fitted(name, X, y, 2, lam, sample_weight=weights)
    X_rep, y_rep = np.repeat(X, weights, axis=0), np.repeat(y, weights)
    repeated = fitted(name, X_rep, y_rep, 2, lam)
    assert weighted.solve_result_.objective == pytest.approx(repeated.solve_result_.objective, abs=TOL)
    assert tree_objective(weighted, X_rep, y_rep, np.ones(len(y_rep)), lam) == pytest.approx(
        repeated.solve_result_.objective, abs=TOL)
    # integer weights keep the objective's step: the solve proves the exact optimum, gap 0
    assert weighted.solve_result_.gap == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_scaling_the_weights_scales_the_optimum(name):
    X, y = random_binary_data(16, 4, 2, seed=3)
    weights = np.random.default_rng(3).uniform(0.5, 2.0, size=16)
    c = 2.5
    base = fitted(name, X, y, 2, sample_weight=weights)
    scaled = fitted(name, X, y, 2, sample_weight=c * weights)
    assert scaled.solve_result_.objective == pytest.approx(c * base.solve_result_.objective, abs=TOL)
    # the tree fitted with c·w is optimal for w too (λ = 0: scaling does not change which trees are best)
    assert tree_objective(scaled, X, y, weights, 0.0) == pytest.approx(base.solve_result_.objective, abs=TOL)


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("depth, n_classes, seed", [(1, 2, 4), (2, 3, 5)])
def test_fractional_weights_match_the_exhaustive_oracle(name, depth, n_classes, seed):
    X, y = random_binary_data(15, 4, n_classes, seed=seed)
    lam = lam_for(name)
    weights = np.random.default_rng(seed).uniform(0.0, 3.0, size=15)
    clf = fitted(name, X, y, depth, lam, sample_weight=weights)
    best = best_weighted_objective(X, y, weights, depth, lam, n_classes=n_classes)
    assert clf.solve_result_.objective == pytest.approx(best, abs=TOL)
    assert tree_objective(clf, X, y, weights, lam) == pytest.approx(best, abs=TOL)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_class_weight_multiplies_the_sample_weights(name):
    X, y = random_binary_data(16, 4, 2, seed=6)
    y = np.where(y == 1, "yes", "no")
    balanced = fitted(name, X, y, 1, class_weight="balanced")
    as_weights = fitted(name, X, y, 1, sample_weight=compute_sample_weight("balanced", y))
    assert balanced.solve_result_.objective == pytest.approx(as_weights.solve_result_.objective, abs=TOL)
    # a dict, on top of sample weights: row weight = sample weight × its class's weight
    sample_weight = np.random.default_rng(6).uniform(0.5, 1.5, size=16)
    by_dict = fitted(name, X, y, 1, class_weight={"yes": 3.0}, sample_weight=sample_weight)
    product = sample_weight * np.where(y == "yes", 3.0, 1.0)
    best = best_weighted_objective(X, (y == "yes").astype(int), product, 1)
    assert by_dict.solve_result_.objective == pytest.approx(best, abs=TOL)
    assert tree_objective(by_dict, X, y, product, 0.0) == pytest.approx(best, abs=TOL)


def assert_bad_weights_refused(make_estimator, X, y):
    """The checks every weighted estimator shares: negative weights, a wrong length, all zeros (scikit-learn's
    check of the weights), class weights that zero every row, and an unknown class_weight are refused."""
    n = len(y)
    clf = make_estimator()
    with pytest.raises(ValueError, match="[Nn]egative"):
        clf.fit(X, y, sample_weight=np.r_[-1.0, np.ones(n - 1)])
    with pytest.raises(ValueError, match="sample_weight"):
        clf.fit(X, y, sample_weight=np.ones(n - 1))
    with pytest.raises(ValueError, match="at least one non-zero"):
        clf.fit(X, y, sample_weight=np.zeros(n))
    with pytest.raises(ValueError, match="every point has weight 0"):
        make_estimator(class_weight={0: 0.0, 1: 0.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        make_estimator(class_weight="even").fit(X, y)


@pytest.mark.parametrize("name", ["FlowOCT", "OCT", "BinOCT", "BendersOCT-accelerated"])
def test_bad_weights_are_refused(name):
    X, y = random_binary_data(10, 3, 2, seed=7)
    assert_bad_weights_refused(lambda **params: make(name, 1, **params), X, y)


@pytest.mark.parametrize("name", ["FlowOCT-accelerated", "BendersOCT-accelerated"])
def test_accelerated_engine_takes_weights(name):
    X, y = random_binary_data(12, 3, 2, seed=8)
    weights = np.random.default_rng(8).uniform(0.1, 0.3, size=12)
    W = weights.sum()
    clf = fitted(name, X, y, 2, 0.25, sample_weight=weights)
    # paper 003's penalty at the total weight: λ' = λ / ((1 - λ)·W) = 0.25 / (0.75·W) = 1 / (3·W)
    assert clf.solve_result_.extra["leaf_penalty"] == pytest.approx(1 / (3 * W))
    assert clf.solve_result_.objective == pytest.approx(fitted("FlowOCT", X, y, 2, 0.25, sample_weight=weights)
                                                        .solve_result_.objective, abs=TOL)
    # λ' <= 1 needs λ <= W / (W + 1): here W < 3.6, so λ = 0.8 is refused although 12 unit rows would allow it
    with pytest.raises(ValueError, match="split_penalty <= N/"):
        make(name, 1, 0.8).fit(X, y, sample_weight=weights)
    make(name, 1, 0.8).fit(X, y)


def test_only_the_weighted_estimators_take_sample_weight():
    for cls in (FlowOCT, BendersOCT, OCT, BinOCT, SVM1ODT, CategoricalODT, SOCT, OCTH, UnivariateOCT,
                RegularizedBendOCT, RegularizedFlowOCT, ThresholdTreeSearch):
        assert has_fit_parameter(cls(), "sample_weight")
        assert "class_weight" in cls().get_params()
    # the router passes its weights on to the engine it picks (tests/test_threshold_search.py)
    assert has_fit_parameter(OptimalTreeClassifier(), "sample_weight")


def test_objective_step_needs_integer_weights():
    # the step 1/q of λ = p/q (here 1/4 for λ = 0.25) survives integer weights: a weighted count is an integer
    assert weighted_objective_step(0.25, None) == 0.25
    assert weighted_objective_step(0.25, np.array([0.0, 1.0, 3.0])) == 0.25
    # a weight of 0.5 makes (1 - λ)·0.5 a possible objective value, off the grid of 1/4: no step
    assert weighted_objective_step(0.25, np.array([1.0, 0.5])) is None
    assert weighted_objective_step(None, np.array([1.0, 2.0])) is None


@pytest.mark.parametrize("cls", [FlowOCT, BendersOCT, OCT, BinOCT, SVM1ODT, RegularizedBendOCT, RegularizedFlowOCT])
def test_cart_warm_start_uses_the_weights(cls):
    # rows (x0, x1 -> y): (0,0->0) (0,1->0) (1,0->0) (1,1->1) (1,1->1). Either feature leaves one class-0 row with
    # the two class-1 rows: x0 = 1 holds row 2, x1 = 1 holds row 1. Weighting row 2 by 5 makes x1 the better root
    # (1 wrong instead of min(5, 2) = 2); weighting row 1 by 5 makes x0 the better root.
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 1]])
    y = np.array([0, 0, 0, 1, 1])
    for heavy_row, root_feature in [(2, 1), (1, 0)]:
        weights = np.ones(5)
        weights[heavy_row] = 5.0
        ctx = FitContext.of(X, y, depth=1, sample_weight=weights)
        start = cls(depth=1)._initial_tree(ctx)
        assert start.nodes[start.root].feature == root_feature


# ------------------------------------------------------------------------------------------ SVM1ODT (paper 004)
# (1a) with weights: Σ_i w_i (c_i + α₁ Σ_b m_ib) + α₂ Σ_b ||h_b||_1. On one feature in [0, 1] with neighbours at
# least 0.1 apart, a depth-1 tree is a threshold between two neighbours; its hyperplane needs |h| >= ε / 0.05 =
# 0.2 for no point to sit inside the margin (slack costs α₁·w_i·ε = 2·w_i per point at α₁ = 2/ε, far more than
# α₂·|h| <= 0.002), so the optimum is the best weighted error of a threshold plus less than 0.002.
SVM_X = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9, 1.0])[:, None]
SVM_Y = np.array([0, 0, 1, 0, 0, 1, 1, 0, 1, 1])
SVM_ALPHA2 = 1e-3


def svm_fitted(X, y, sample_weight=None, **params):
    clf = SVM1ODT(**{"depth": 1, "alpha2": SVM_ALPHA2, "warm_start": True, **params}).fit(
        X, y, sample_weight=sample_weight)
    assert clf.solve_result_.status == "optimal"
    return clf


def best_threshold_error(x, y, weights) -> float:
    """The least weighted error of a depth-1 tree on one feature: every cut between sorted values (and none),
    each side labelled by its heavier class (computed here by enumeration, independently of the model)."""
    values = np.unique(x)
    cuts = np.r_[values[0] - 1, (values[:-1] + values[1:]) / 2]
    best = np.inf
    for cut in cuts:
        error = 0.0
        for side in (x <= cut, x > cut):
            by_class = np.bincount(y[side], weights=weights[side], minlength=2)
            error += by_class.sum() - by_class.max()
        best = min(best, error)
    return float(best)


def svm_objective_1a(clf, X, y, weights) -> float:
    """(1a) of the fitted depth-1 tree computed with numpy: weighted errors, weighted margin slack
    α₁ Σ_i w_i max(ε - |g - h·x_i|, 0), and α₂ ||h||_1."""
    root = clf.tree_.nodes[clf.tree_.root]
    gap = np.abs(root.bias - X @ root.weights)
    slack = np.maximum(clf.epsilon_ - gap, 0.0)
    errors = clf.predict(X) != y
    return float(weights @ errors + clf.alpha1_ * weights @ slack + SVM_ALPHA2 * np.abs(root.weights).sum())


def test_svm1odt_weighted_optimum_matches_the_threshold_oracle():
    weights = np.array([1.0, 0.5, 2.5, 0.4, 1.0, 0.7, 1.2, 3.0, 0.3, 1.0])
    clf = svm_fitted(SVM_X, SVM_Y, weights)
    best = best_threshold_error(SVM_X[:, 0], SVM_Y, weights)
    # by hand: the cut at 0.75 predicting 1 on the left, 0 on the right errs on rows 0, 1, 3, 4 (1 + 0.5 + 0.4 + 1)
    # and 8, 9 (0.3 + 1): 4.2; the next best cuts (after 0.1, after 0.8) err 4.4
    assert best == pytest.approx(4.2)
    assert float(weights @ (clf.predict(SVM_X) != SVM_Y)) == pytest.approx(best, abs=1e-9)
    assert best <= clf.solve_result_.objective < best + 0.002
    assert svm_objective_1a(clf, SVM_X, SVM_Y, weights) == pytest.approx(clf.solve_result_.objective, abs=1e-5)


def test_svm1odt_zero_weight_is_the_row_removed():
    # row 10 (x = 0.45, weight 0) would halve the data's resolution (epsilon=None: 0.025 instead of 0.01 clipped)
    # and bound the hyperplane's scale; a left-out row does neither
    X, y = np.vstack([SVM_X, [[0.45]]]), np.r_[SVM_Y, 1]
    weights = np.r_[np.ones(10), 0.0]
    weighted = svm_fitted(X, y, weights)
    reduced = svm_fitted(SVM_X, SVM_Y)
    assert weighted.epsilon_ == reduced.epsilon_ == 0.01
    assert weighted.solve_result_.objective == pytest.approx(reduced.solve_result_.objective, abs=1e-6)
    np.testing.assert_array_equal(weighted.predict(SVM_X), reduced.predict(SVM_X))


def test_svm1odt_integer_weight_is_the_row_repeated():
    weights = np.array([1, 2, 3, 1, 1, 2, 1, 3, 1, 2])
    weighted = svm_fitted(SVM_X, SVM_Y, weights)
    X_rep, y_rep = np.repeat(SVM_X, weights, axis=0), np.repeat(SVM_Y, weights)
    repeated = svm_fitted(X_rep, y_rep)
    assert weighted.solve_result_.objective == pytest.approx(repeated.solve_result_.objective, abs=1e-6)
    assert svm_objective_1a(weighted, X_rep, y_rep, np.ones(len(y_rep))) == pytest.approx(
        repeated.solve_result_.objective, abs=1e-5)


def test_svm1odt_repeated_rows_pay_their_margin_slack_each():
    # rows 2 and 3 (x = 0.40 and 0.42, classes 0 and 1, weights 3 and 2) are 0.02 apart, and |g - h·x| <= 1 at
    # x = 0 and 1 around a cut t in [0.40, 0.42] bounds |h| by 1 / 0.58 < 1.73: the five copies' slack is at least
    # 3·(ε - |h|(t - 0.40)) + 2·(ε - |h|(0.42 - t)) >= 5ε - 3·1.73·0.02 = 0.146 (ε = 0.05), i.e. α₁·0.146 = 1.46 at
    # α₁ = 10, and at most 5ε·α₁ = 2.5; an error costs 2 or 3 plus the rest's slack, so the optimum separates them
    X = np.array([0.0, 0.2, 0.40, 0.42, 0.6, 0.8, 1.0])[:, None]
    y = np.array([0, 0, 0, 1, 1, 1, 1])
    weights = np.array([1, 2, 3, 2, 1, 1, 2])
    weighted = svm_fitted(X, y, weights, alpha1=10.0, epsilon=0.05)
    repeated = svm_fitted(np.repeat(X, weights, axis=0), np.repeat(y, weights), alpha1=10.0, epsilon=0.05)
    assert weighted.score(X, y) == 1.0
    assert 1.46 < weighted.solve_result_.objective < 2.5 + 0.01         # the slack of 3 + 2 copies, + α₂·|h|
    assert weighted.solve_result_.objective == pytest.approx(repeated.solve_result_.objective, abs=1e-5)


def test_svm1odt_scaling_the_weights_is_scaling_alpha2():
    # (1a) is homogeneous in (w, α₂): c·w with c·α₂ has the same optima and c times the objective (α₁ = 2/ε and ε
    # do not depend on the weights)
    weights = np.array([1.0, 0.5, 2.5, 0.4, 1.0, 0.7, 1.2, 3.0, 0.3, 1.0])
    c = 2.5
    base = svm_fitted(SVM_X, SVM_Y, weights)
    scaled = svm_fitted(SVM_X, SVM_Y, c * weights, alpha2=c * SVM_ALPHA2)
    assert scaled.solve_result_.objective == pytest.approx(c * base.solve_result_.objective, abs=1e-5)
    np.testing.assert_array_equal(scaled.predict(SVM_X), base.predict(SVM_X))


def test_svm1odt_class_weight_multiplies_the_sample_weights():
    y = np.where(SVM_Y == 1, "yes", "no")
    balanced = svm_fitted(SVM_X, y, class_weight="balanced")
    as_weights = svm_fitted(SVM_X, y, compute_sample_weight("balanced", y))
    assert balanced.solve_result_.objective == pytest.approx(as_weights.solve_result_.objective, abs=1e-6)
    sample_weight = np.array([1.0, 0.5, 2.5, 0.4, 1.0, 0.7, 1.2, 3.0, 0.3, 1.0])
    by_dict = svm_fitted(SVM_X, y, sample_weight, class_weight={"no": 2.0})
    product = sample_weight * np.where(y == "no", 2.0, 1.0)
    best = best_threshold_error(SVM_X[:, 0], SVM_Y, product)
    assert float(product @ (by_dict.predict(SVM_X) != y)) == pytest.approx(best, abs=1e-9)
    assert best <= by_dict.solve_result_.objective < best + 0.002


def test_svm1odt_refuses_bad_weights_and_the_unweighted_svm_start():
    assert_bad_weights_refused(lambda **params: SVM1ODT(depth=1, **params), SVM_X, SVM_Y)
    with pytest.raises(ValueError, match="warm_start='best'"):
        SVM1ODT(depth=1, warm_start="svm").fit(SVM_X, SVM_Y, sample_weight=np.r_[2.0, np.ones(9)])
    with pytest.raises(ValueError, match="warm_start='best'"):
        SVM1ODT(depth=1, warm_start="svm", class_weight={0: 2.0}).fit(SVM_X, SVM_Y)
    # equal weights are the unweighted problem: the SVM start is allowed
    assert SVM1ODT(depth=1, warm_start="svm").fit(SVM_X, SVM_Y, sample_weight=np.full(10, 3.0)).tree_ is not None


def test_data_selection_fits_with_the_weights():
    # the kept rows' weights reach the MIP: its tree is optimal for the weighted error on those rows
    weights = np.array([1.0, 0.5, 2.5, 0.4, 1.0, 0.7, 1.2, 3.0, 0.3, 1.0])
    clf = DataSelectedClassifier(SVM1ODT(depth=1, alpha2=SVM_ALPHA2)).fit(SVM_X, SVM_Y, sample_weight=weights)
    kept = clf.selected_rows_
    best = best_threshold_error(SVM_X[kept, 0], SVM_Y[kept], weights[kept])
    assert float(weights[kept] @ (clf.predict(SVM_X[kept]) != SVM_Y[kept])) == pytest.approx(best, abs=1e-9)
    assert best <= clf.solve_result_.objective < best + 0.002


# ------------------------------------------------------------------------------------------ CategoricalODT (paper 000)
# (8a) with weights: max Σ_{i∈I+} w_i [i in a positive leaf] + C Σ_{i∈I-} w_i [i in a negative leaf]. Every
# topology's leaf-adjacent node sends left to a negative leaf and right to a positive one, so the best subtree of
# height h on the rows R is, over every test t of the node, the best of height h - 1 on R ∩ left(t) plus that on
# R \ left(t), down to height 1 (the weight of R's negatives that t sends left plus its positives sent right).
CAT_SIZES = (3, 2, 4)


def one_hot_data(seed: int, n: int = 16):
    """Rows with one value per group (CAT_SIZES values), random labels; the groups as column lists."""
    rng = np.random.default_rng(seed)
    values = np.stack([rng.integers(0, s, size=n) for s in CAT_SIZES], axis=1)
    starts = np.cumsum((0,) + CAT_SIZES[:-1])
    A = np.hstack([np.eye(s, dtype=int)[values[:, g]] for g, s in enumerate(CAT_SIZES)])
    return A, rng.integers(0, 2, size=n), [list(range(a, a + s)) for a, s in zip(starts, CAT_SIZES)]


def best_subset_tree(A, positive, groups, height: int, w_pos, w_neg) -> float:
    """The best (8a) of a balanced tree of ``height`` by enumeration of every test at every node (see above)."""
    from oracles_subset import allowed_subsets

    tests = np.array([A[:, [cols[t] for t in chosen]].any(axis=1) if chosen else np.zeros(len(A), bool)
                      for cols in groups for chosen in allowed_subsets(len(cols), False, None, False)])
    w_pos, w_neg = np.where(positive, w_pos, 0.0), np.where(positive, 0.0, w_neg)

    def best(rows, h):
        if h == 1:
            return float((tests @ (rows * w_neg) + ~tests @ (rows * w_pos)).max())
        return max(best(rows & left, h - 1) + best(rows & ~left, h - 1) for left in tests)

    return best(np.ones(len(A), bool), height)


def cat_fitted(A, y, groups, sample_weight=None, **params):
    clf = CategoricalODT(groups=groups, **params).fit(A, y, sample_weight=sample_weight)
    assert clf.solve_result_.status == "optimal"
    return clf


def cat_score(clf, A, y, weights, C: float = 1.0, positive=1) -> float:
    """(8a) of the fitted tree computed with numpy: weights of the correct positives plus C times the negatives'."""
    correct = clf.predict(A) == y
    return float(weights[correct & (y == positive)].sum() + C * weights[correct & (y != positive)].sum())


@pytest.mark.parametrize("topology, subtree_benders, seed", [("depth2", False, 11), ("depth3", True, 12),
                                                             ("depth2", True, 13)])
def test_categorical_fractional_weights_match_the_enumeration(topology, subtree_benders, seed):
    A, y, groups = one_hot_data(seed)
    weights = np.random.default_rng(seed).uniform(0.0, 3.0, size=len(y))
    clf = cat_fitted(A, y, groups, weights, topology=topology, subtree_benders=subtree_benders)
    height = {"depth2": 2, "depth3": 3}[topology]
    best = best_subset_tree(A, y == 1, groups, height, weights, weights)
    assert clf.solve_result_.objective == pytest.approx(best, abs=TOL)
    assert cat_score(clf, A, y, weights) == pytest.approx(best, abs=TOL)


@pytest.mark.parametrize("subtree_benders", [False, True])
def test_categorical_zero_weight_is_the_row_removed(subtree_benders):
    A, y, groups = one_hot_data(14)
    weights = np.ones(len(y))
    weights[[1, 5, 9]] = 0
    kept = weights > 0
    weighted = cat_fitted(A, y, groups, weights, subtree_benders=subtree_benders)
    reduced = cat_fitted(A[kept], y[kept], groups, subtree_benders=subtree_benders)
    assert weighted.solve_result_.objective == pytest.approx(reduced.solve_result_.objective, abs=TOL)
    assert cat_score(weighted, A[kept], y[kept], np.ones(kept.sum())) == pytest.approx(
        reduced.solve_result_.objective, abs=TOL)


@pytest.mark.parametrize("subtree_benders", [False, True])
def test_categorical_integer_weight_is_the_row_repeated(subtree_benders):
    A, y, groups = one_hot_data(15)
    weights = np.random.default_rng(15).integers(1, 4, size=len(y))
    weighted = cat_fitted(A, y, groups, weights, subtree_benders=subtree_benders)
    A_rep, y_rep = np.repeat(A, weights, axis=0), np.repeat(y, weights)
    repeated = cat_fitted(A_rep, y_rep, groups, subtree_benders=subtree_benders)
    assert weighted.solve_result_.objective == pytest.approx(repeated.solve_result_.objective, abs=TOL)
    assert cat_score(weighted, A_rep, y_rep, np.ones(len(y_rep))) == pytest.approx(
        repeated.solve_result_.objective, abs=TOL)
    assert weighted.solve_result_.gap == pytest.approx(0.0, abs=1e-9)     # integer weights keep the step 1


def test_categorical_scaling_the_weights_scales_the_optimum():
    A, y, groups = one_hot_data(16)
    weights = np.random.default_rng(16).uniform(0.5, 2.0, size=len(y))
    c = 2.5
    base = cat_fitted(A, y, groups, weights)
    scaled = cat_fitted(A, y, groups, c * weights)
    assert scaled.solve_result_.objective == pytest.approx(c * base.solve_result_.objective, abs=TOL)
    assert cat_score(scaled, A, y, weights) == pytest.approx(base.solve_result_.objective, abs=TOL)


def test_categorical_class_weight_keeps_the_papers_c():
    A, y, groups = one_hot_data(17)
    labels = np.where(y == 1, "pos", "neg")
    sample_weight = np.random.default_rng(17).uniform(0.5, 1.5, size=len(y))
    # a number is C of (8a): C times the weight of every correct negative, on top of sample_weight
    by_c = cat_fitted(A, labels, groups, sample_weight, class_weight=2.0)
    best = best_subset_tree(A, y == 1, groups, 2, sample_weight, 2.0 * sample_weight)
    assert by_c.solve_result_.objective == pytest.approx(best, abs=TOL)
    assert cat_score(by_c, A, labels, sample_weight, C=2.0, positive="pos") == pytest.approx(best, abs=TOL)
    # the dict {negative: C} is the same objective
    by_dict = cat_fitted(A, labels, groups, sample_weight, class_weight={"neg": 2.0})
    assert by_dict.solve_result_.objective == pytest.approx(best, abs=TOL)
    # "balanced" is scikit-learn's n / (2 n_k) per class, i.e. C = n+ / n- times n / (2 n+)
    balanced = cat_fitted(A, labels, groups, class_weight="balanced")
    as_weights = cat_fitted(A, labels, groups, compute_sample_weight("balanced", labels))
    assert balanced.solve_result_.objective == pytest.approx(as_weights.solve_result_.objective, abs=TOL)
    n, n_pos = len(y), int((y == 1).sum())
    as_c = cat_fitted(A, labels, groups, class_weight=n_pos / (n - n_pos))
    assert balanced.solve_result_.objective == pytest.approx(n / (2 * n_pos) * as_c.solve_result_.objective,
                                                             abs=TOL)


def test_categorical_weighted_rate_floor():
    # (16) with weights: the best weighted sensitivity among trees whose weighted specificity reaches the floor,
    # by enumerating every depth-2 tree (three tests) and its weighted counts
    from oracles_subset import allowed_subsets

    A, y, groups = one_hot_data(18, n=12)
    weights = np.random.default_rng(18).uniform(0.5, 2.0, size=len(y))
    floor = 0.8
    clf = cat_fitted(A, y, groups, weights, maximize="sensitivity", floor=floor)
    tests = [A[:, [cols[t] for t in chosen]].any(axis=1) if chosen else np.zeros(len(y), bool)
             for cols in groups for chosen in allowed_subsets(len(cols), False, None, False)]
    pos, neg = y == 1, y == 0
    best = -np.inf
    for root in tests:
        for left in tests:
            for right in tests:
                # leaves left to right: negative, positive, negative, positive
                predicted_positive = np.where(root, ~left, ~right)
                if weights[neg & ~predicted_positive].sum() >= floor * weights[neg].sum():
                    best = max(best, weights[pos & predicted_positive].sum())
    assert clf.solve_result_.objective == pytest.approx(best, abs=TOL)
    predicted_positive = clf.predict(A) == 1
    assert weights[pos & predicted_positive].sum() == pytest.approx(best, abs=TOL)
    assert weights[neg & ~predicted_positive].sum() >= floor * weights[neg].sum() - TOL


def test_categorical_refuses_bad_weights_and_the_unweighted_feature_selection():
    A, y, groups = one_hot_data(19, n=10)
    assert_bad_weights_refused(lambda **params: CategoricalODT(groups=groups, **params), A, y)
    with pytest.raises(ValueError, match=r"feature_selection=\[\.\.\.\]"):
        CategoricalODT(groups=groups, feature_selection="cart").fit(A, y, sample_weight=np.full(10, 2.0))


# ------------------------------------------------------------------------------------------ paper 002, formulation (1)
# With weights w_i, (1a) is Σ_i w_i·[i correct] - α·W·splits, W = Σ_i w_i (odtlib/models/hyperplane/_formulation.py).
# Hyperplane fits run at depth 1 (the oracle enumerates every routing of the points with one LP each) on points of
# a grid of step 1/4, whose separable routings have margins far above ε = 0.005 (no borderline LPs).
HYPERPLANE = ["SOCT", "SOCT-scip", "OCTH", "UnivariateOCT"]


def make_hyperplane(name: str, depth: int = 1, **params):
    cls, solver = {"SOCT": (SOCT, "highs"), "SOCT-scip": (SOCT, "scip"), "OCTH": (OCTH, "highs"),
                   "UnivariateOCT": (UnivariateOCT, "highs")}[name]
    return cls(depth=depth, solver=solver, **params)


def fitted_hyperplane(name, X, y, depth=1, sample_weight=None, **params):
    clf = make_hyperplane(name, depth, **params).fit(X, y, sample_weight=sample_weight)
    assert clf.solve_result_.status == "optimal"
    return clf


def grid_data(n_rows: int, seed: int, n_classes: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Points of the grid {0, 1/4, ..., 1}² with labels that a line mostly separates (and some noise)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n_rows, 2)) / 4
    y = np.where(rng.random(n_rows) < 0.75, (X[:, 0] + X[:, 1] > 1).astype(int), rng.integers(0, n_classes, n_rows))
    return X, y.astype(np.int64)


def objective_1a(clf, X, y, weights, alpha: float) -> float:
    """(1a) of the fitted tree, computed here: the weight of the rows it predicts right less α·W per split."""
    weights = np.asarray(weights, dtype=np.float64)
    correct = clf.predict(X) == y
    return float(np.sum(weights[correct])) - alpha * float(np.sum(weights)) * clf.tree_.n_splits


@pytest.mark.parametrize("name", HYPERPLANE)
def test_hyperplane_zero_weight_is_the_row_removed(name):
    X, y = grid_data(12, seed=11)
    weights = np.ones(12)
    weights[[0, 5, 9]] = 0
    kept = weights > 0
    alpha = 0.05       # α·W = 0.45 in both fits: W counts the 9 kept rows
    weighted = fitted_hyperplane(name, X, y, sample_weight=weights, ccp_alpha=alpha)
    reduced = fitted_hyperplane(name, X[kept], y[kept], ccp_alpha=alpha)
    assert weighted.solve_result_.objective == pytest.approx(reduced.solve_result_.objective, abs=TOL)
    assert objective_1a(weighted, X[kept], y[kept], np.ones(9), alpha) == pytest.approx(
        reduced.solve_result_.objective, abs=TOL)


@pytest.mark.parametrize("name", HYPERPLANE)
def test_hyperplane_integer_weight_is_the_row_repeated(name):
    X, y = grid_data(9, seed=12)
    weights = np.random.default_rng(12).integers(1, 4, size=9)      # 1, 2 or 3 copies of each row
    alpha = 1 / 32     # α·W = W/32: a split pays off when it gains more than 1/32 of the weight
    weighted = fitted_hyperplane(name, X, y, sample_weight=weights, ccp_alpha=alpha)
    X_rep, y_rep = np.repeat(X, weights, axis=0), np.repeat(y, weights)
    repeated = fitted_hyperplane(name, X_rep, y_rep, ccp_alpha=alpha)
    assert weighted.solve_result_.objective == pytest.approx(repeated.solve_result_.objective, abs=TOL)
    assert objective_1a(weighted, X_rep, y_rep, np.ones(len(y_rep)), alpha) == pytest.approx(
        repeated.solve_result_.objective, abs=TOL)


@pytest.mark.parametrize("name", HYPERPLANE)
def test_hyperplane_scaling_the_weights_keeps_the_tree(name):
    X, y = grid_data(10, seed=13)
    weights = np.random.default_rng(13).uniform(0.5, 2.0, size=10)
    c, alpha = 2.5, 0.1
    base = fitted_hyperplane(name, X, y, sample_weight=weights, ccp_alpha=alpha)
    scaled = fitted_hyperplane(name, X, y, sample_weight=c * weights, ccp_alpha=alpha)
    # the split price α·W scales with the weights, so even with α > 0 every tree's (1a) is multiplied by c
    assert scaled.solve_result_.objective == pytest.approx(c * base.solve_result_.objective, abs=TOL)
    assert objective_1a(scaled, X, y, weights, alpha) == pytest.approx(base.solve_result_.objective, abs=TOL)


@pytest.mark.parametrize("name", ["SOCT", "SOCT-scip", "OCTH"])
@pytest.mark.parametrize("seed", [14, 15])
def test_hyperplane_fractional_weights_match_the_routing_oracle(name, seed):
    X, y = grid_data(8, seed=seed, n_classes=3)
    weights = np.random.default_rng(seed).uniform(0.0, 3.0, size=8)
    clf = fitted_hyperplane(name, X, y, sample_weight=weights)
    best = best_hyperplane_tree(X, y, 1, epsilon=0.005, weights=weights)
    assert clf.solve_result_.objective == pytest.approx(best, abs=TOL)
    assert objective_1a(clf, X, y, weights, 0.0) == pytest.approx(best, abs=TOL)


@pytest.mark.parametrize("depth, n_classes, seed", [(1, 2, 16), (2, 3, 17)])
def test_univariate_oct_fractional_weights_match_the_exhaustive_oracle(depth, n_classes, seed):
    # on 0/1 features a threshold split is "x_f = 0 goes left": the trees of tests/oracles.py, at λ = 0
    X, y = random_binary_data(12, 3, n_classes, seed=seed)
    weights = np.random.default_rng(seed).uniform(0.0, 3.0, size=12)
    clf = fitted_hyperplane("UnivariateOCT", X, y, depth=depth, sample_weight=weights)
    best = best_weighted_objective(X, y, weights, depth, 0.0, n_classes=n_classes)
    assert clf.solve_result_.objective == pytest.approx(best, abs=TOL)
    assert objective_1a(clf, X, y, weights, 0.0) == pytest.approx(best, abs=TOL)


@pytest.mark.parametrize("name", HYPERPLANE)
def test_hyperplane_class_weight_multiplies_the_sample_weights(name):
    X, y = grid_data(8, seed=18)
    y = np.where(y == 1, "yes", "no")
    balanced = fitted_hyperplane(name, X, y, class_weight="balanced")
    as_weights = fitted_hyperplane(name, X, y, sample_weight=compute_sample_weight("balanced", y))
    assert balanced.solve_result_.objective == pytest.approx(as_weights.solve_result_.objective, abs=TOL)
    sample_weight = np.random.default_rng(18).uniform(0.5, 1.5, size=8)
    by_dict = fitted_hyperplane(name, X, y, class_weight={"yes": 3.0}, sample_weight=sample_weight)
    product = sample_weight * np.where(y == "yes", 3.0, 1.0)
    best = best_hyperplane_tree(X, (y == "yes").astype(int), 1, epsilon=0.005, weights=product)
    assert by_dict.solve_result_.objective == pytest.approx(best, abs=TOL)
    assert objective_1a(by_dict, X, y, product, 0.0) == pytest.approx(best, abs=TOL)


@pytest.mark.parametrize("name", ["SOCT", "OCTH", "UnivariateOCT"])
def test_hyperplane_bad_weights_are_refused(name):
    X, y = grid_data(10, seed=19)
    assert_bad_weights_refused(lambda **params: make_hyperplane(name, **params), X, y)


def test_soct_starts_from_weighted_cart_and_the_repair_counts_weights():
    # rows on the line x0 = 0, 1/4, 1/2, 3/4, 1 with labels 0 0 1 0 1: a depth-1 tree cuts the line once and each
    # side predicts one class. Unit weights: cutting above 1/4 or above 3/4 both classify 4 of 5 (a tie). Row 3
    # weighing 10 (W = 14): above 3/4 classifies rows 0, 1, 3, 4 = 13; above 1/4 rows 0, 1 and the right side's
    # majority, row 3: 12; no split: 12. So 13 is the optimum, reached only by the cut above 3/4.
    X = np.array([[0.0, 0.0], [0.25, 0.0], [0.5, 0.0], [0.75, 0.0], [1.0, 0.0]])
    y = np.array([0, 0, 1, 0, 1])
    weights = np.array([1.0, 1.0, 1.0, 10.0, 1.0])
    clf = fitted_hyperplane("SOCT", X, y, sample_weight=weights)
    assert clf.warm_start_source_ in ("cart", "repair")          # not the SVM heuristic's unweighted tree
    assert clf.solve_result_.objective == pytest.approx(13.0, abs=TOL)
    assert clf.predict(X).tolist() == [0, 0, 0, 0, 1]
    ctx = FitContext.of(X, y, depth=1, sample_weight=weights)
    formulation = HyperplaneFormulation(ctx, soct_model(X, y, 1, sample_weight=weights), epsilon=0.005,
                                        max_splits=None, ccp_alpha=0.0)
    routing = formulation.repaired_routing()
    assert formulation.routing_score(routing) == pytest.approx(13.0)   # the repair's tree is the weighted optimum


# ------------------------------------------------------------------------------------------ paper 003
# With weights w_i of total W, (1) is Σ_i w_i·[i correct] / W - λ·leaves (odtlib/models/univariate/_regularized.py):
# a row of weight 0 is the row removed (W counts the others), weight k is k copies, and scaling every weight by c
# changes no tree's value. Each fitted tree is scored here with numpy, and the optimum is checked against an
# exhaustive search over all trees of depth <= d written for these tests.
REGULARIZED = ["RegularizedBendOCT", "RegularizedBendOCT-highs", "RegularizedFlowOCT"]


def make_regularized(name: str, depth: int, lam: float, **params):
    cls, solver = {"RegularizedBendOCT": (RegularizedBendOCT, "scip"),
                   "RegularizedBendOCT-highs": (RegularizedBendOCT, "highs"),
                   "RegularizedFlowOCT": (RegularizedFlowOCT, "highs")}[name]
    return cls(depth=depth, leaf_penalty=lam, solver=solver, **params)


def regularized_fitted(name, X, y, depth, lam, sample_weight=None, **params):
    clf = make_regularized(name, depth, lam, **params).fit(X, y, sample_weight=sample_weight)
    assert clf.solve_result_.status == "optimal"
    return clf


def objective_1(clf, X, y, weights, lam: float) -> float:
    """(1) of the fitted tree, computed here: the weight of the rows it predicts right over the total weight, less
    λ per leaf."""
    weights = np.asarray(weights, dtype=np.float64)
    return float(weights[clf.predict(X) == y].sum() / weights.sum()) - lam * clf.tree_.n_leaves


def best_objective_1(X, y, weights, depth: int, lam: float, n_classes: int | None = None) -> float:
    """The optimum of the weighted (1) over every tree of depth <= ``depth``: the best subtree on a set of rows is a
    leaf of its heaviest class, or a split on some feature with the best subtrees on both sides (the objective
    times W is a sum over the leaves of their correct weight less α = W·λ)."""
    X, y, weights = np.asarray(X) > 0.5, np.asarray(y), np.asarray(weights, dtype=np.float64)
    K = int(y.max()) + 1 if n_classes is None else n_classes
    alpha = weights.sum() * lam

    def best(rows: np.ndarray, d: int) -> float:
        value = np.bincount(y[rows], weights=weights[rows], minlength=K).max() - alpha
        if d > 0:
            for f in range(X.shape[1]):
                right = X[rows, f]
                value = max(value, best(rows[~right], d - 1) + best(rows[right], d - 1))
        return value

    return float(best(np.arange(len(y)), depth) / weights.sum())


def test_the_paper003_oracle_agrees_with_listing_every_tree():
    # with leaves = splits + 1, (1) = (Σ w·correct - α·splits)/W - λ, and paper 001's (1 - μ)·Σ w·correct - μ·splits
    # with μ/(1 - μ) = α, i.e. μ = α/(1 + α), is (1 - μ) times Σ w·correct - α·splits
    X, y = random_binary_data(12, 3, 3, seed=30)
    weights = np.random.default_rng(30).uniform(0.0, 2.0, size=12)
    lam = 0.03
    alpha = lam * weights.sum()
    mu = alpha / (1 + alpha)
    listed = best_weighted_objective(X, y, weights, 2, mu, n_classes=3) / (1 - mu)
    assert best_objective_1(X, y, weights, 2, lam, n_classes=3) == pytest.approx(listed / weights.sum() - lam)


@pytest.mark.parametrize("name", REGULARIZED)
def test_regularized_zero_weight_is_the_row_removed(name):
    X, y = random_binary_data(16, 4, 2, seed=21)
    weights = np.ones(16)
    weights[[1, 6, 12]] = 0
    kept = weights > 0
    lam = 0.05        # α = W·λ = 13·0.05 = 0.65 in both fits: W counts the 13 kept rows
    weighted = regularized_fitted(name, X, y, 2, lam, sample_weight=weights)
    reduced = regularized_fitted(name, X[kept], y[kept], 2, lam)
    assert weighted.solve_result_.objective == pytest.approx(reduced.solve_result_.objective, abs=TOL)
    assert objective_1(weighted, X[kept], y[kept], np.ones(13), lam) == pytest.approx(
        reduced.solve_result_.objective, abs=TOL)


@pytest.mark.parametrize("name", REGULARIZED)
def test_regularized_integer_weight_is_the_row_repeated(name):
    X, y = random_binary_data(14, 4, 2, seed=22)
    weights = np.random.default_rng(22).integers(1, 4, size=14)      # 1, 2 or 3 copies of each row
    lam = 0.02
    weighted = regularized_fitted(name, X, y, 2, lam, sample_weight=weights)
    X_rep, y_rep = np.repeat(X, weights, axis=0), np.repeat(y, weights)
    repeated = regularized_fitted(name, X_rep, y_rep, 2, lam)
    assert weighted.solve_result_.objective == pytest.approx(repeated.solve_result_.objective, abs=TOL)
    assert objective_1(weighted, X_rep, y_rep, np.ones(len(y_rep)), lam) == pytest.approx(
        repeated.solve_result_.objective, abs=TOL)
    # integer weights keep the step 1/(q·W) of λ = 1/50 (q = 50): the exact optimum is proved, gap 0
    assert weighted.solve_result_.gap == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("name", REGULARIZED)
def test_regularized_scaling_the_weights_keeps_the_optimum(name):
    X, y = random_binary_data(16, 4, 3, seed=23)
    weights = np.random.default_rng(23).uniform(0.5, 2.0, size=16)
    c, lam = 2.5, 0.04
    base = regularized_fitted(name, X, y, 2, lam, sample_weight=weights)
    scaled = regularized_fitted(name, X, y, 2, lam, sample_weight=c * weights)
    # (1) divides by W, so scaling every weight changes no tree's value: the same optimum, and the scaled fit's
    # tree is optimal for the original weights
    assert scaled.solve_result_.objective == pytest.approx(base.solve_result_.objective, abs=TOL)
    assert objective_1(scaled, X, y, weights, lam) == pytest.approx(base.solve_result_.objective, abs=TOL)


@pytest.mark.parametrize("name", REGULARIZED)
@pytest.mark.parametrize("depth, n_classes, seed", [(1, 2, 24), (2, 3, 25), (3, 2, 26)])
def test_regularized_fractional_weights_match_the_exhaustive_oracle(name, depth, n_classes, seed):
    X, y = random_binary_data(15, 4, n_classes, seed=seed)
    weights = np.random.default_rng(seed).uniform(0.0, 3.0, size=15)
    weights[[3, 9]] = 0.0
    lam = 0.02
    clf = regularized_fitted(name, X, y, depth, lam, sample_weight=weights)
    best = best_objective_1(X, y, weights, depth, lam, n_classes=n_classes)
    assert clf.solve_result_.objective == pytest.approx(best, abs=TOL)
    assert objective_1(clf, X, y, weights, lam) == pytest.approx(best, abs=TOL)


@pytest.mark.parametrize("name", REGULARIZED)
def test_regularized_class_weight_multiplies_the_sample_weights(name):
    X, y = random_binary_data(16, 4, 2, seed=27)
    y = np.where(y == 1, "yes", "no")
    lam = 0.02
    balanced = regularized_fitted(name, X, y, 2, lam, class_weight="balanced")
    as_weights = regularized_fitted(name, X, y, 2, lam, sample_weight=compute_sample_weight("balanced", y))
    assert balanced.solve_result_.objective == pytest.approx(as_weights.solve_result_.objective, abs=TOL)
    sample_weight = np.random.default_rng(27).uniform(0.5, 1.5, size=16)
    by_dict = regularized_fitted(name, X, y, 2, lam, class_weight={"yes": 3.0}, sample_weight=sample_weight)
    product = sample_weight * np.where(y == "yes", 3.0, 1.0)
    best = best_objective_1(X, (y == "yes").astype(int), product, 2, lam)
    assert by_dict.solve_result_.objective == pytest.approx(best, abs=TOL)
    assert objective_1(by_dict, X, y, product, lam) == pytest.approx(best, abs=TOL)


@pytest.mark.parametrize("name", ["RegularizedBendOCT", "RegularizedFlowOCT"])
def test_regularized_bad_weights_are_refused(name):
    X, y = random_binary_data(10, 3, 2, seed=28)
    assert_bad_weights_refused(lambda **params: make_regularized(name, 1, 0.01, **params), X, y)


# every acceleration switch on and off, with weights (zeros among them), reaches the oracle's weighted optimum
WEIGHTED_TOGGLES = {
    "plain": {**RegularizedBendOCT.PAPER_METHODS["BendOCT"], "warm_start": False},
    "best": {},
    "paper's accelerated": RegularizedBendOCT.PAPER_METHODS["Accelerated BendOCT"],
    "all techniques": RegularizedBendOCT.PAPER_METHODS["All techniques"],
    "no polishing": {"polishing": False},
    "no path bounds": {"path_bound_cuts": False},
    "path bounds (24) height 2": {"path_bound_negative_samples": False, "path_bound_structure": False,
                                  "path_bound_height": 2},
    "path bounds only": {"polishing": False, "warm_start": False, "eqp": None},
    "eqp basic (16)-(17)": {"eqp": "basic", "eqp_group_selection": False, "path_bound_cuts": False},
    "eqp chain (18)-(22)": {"eqp": "chain", "eqp_disaggregated": False, "path_bound_cuts": False, "polishing": False},
    "eqp recursive (21)-(22) |F*|<=3": {"eqp": "recursive", "eqp_max_split": 3, "path_bound_cuts": False},
    "strengthened (11)-(12)": {"strengthened_benders_cuts": True},
    "polishing only": {**RegularizedBendOCT.PAPER_METHODS["Solution Polishing"]},
    "no top-down branching": {"top_down_branching": False},
    "highs": {"solver": "highs"},
}


@pytest.mark.parametrize("config", list(WEIGHTED_TOGGLES))
def test_weighted_toggle_matrix_depth3(config):
    # an instance whose weights matter: the unweighted optimum scores 0.693 on the weighted (1), the weighted 0.789;
    # W is about 10 times the number of rows, so a per-leaf penalty counted as |I|·λ instead of W·λ shows too
    X, y = random_binary_data(30, 5, 2, seed=35)
    weights = np.random.default_rng(35).uniform(0.0, 30.0, size=30)
    weights[[0, 7]] = 0.0
    lam = 0.02
    clf = RegularizedBendOCT(depth=3, leaf_penalty=lam, **WEIGHTED_TOGGLES[config]).fit(X, y, sample_weight=weights)
    best = best_objective_1(X, y, weights, 3, lam)
    assert clf.solve_result_.status == "optimal"
    assert clf.solve_result_.objective == pytest.approx(best, abs=1e-6)
    assert objective_1(clf, X, y, weights, lam) == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("family, group_selection", [("basic", False), ("chain", True), ("recursive", True),
                                                     ("recursive", False)])
def test_weighted_eqp_rows_cap_an_unsplit_set_at_its_heaviest_class(family, group_selection):
    """With b and p fixed to a tree that cannot split an EQP set S, max Σ_{i∈S} w_i·θ_i over the master with the EQP
    rows (no Benders cuts) is the weight of S's heaviest class, max_k Σ_{i∈S_k} w_i (computed here); the rows of
    the unweighted paper would allow more (the LP would fill the heavy rows of every class)."""
    from test_models_paper003 import _random_sparse_tree, _tree_splits

    X, y = random_binary_data(30, 4, 3, seed=92)
    weights = np.random.default_rng(92).uniform(0.0, 3.0, size=30)
    weights[[2, 5, 11]] = 0.0
    eqp = EQPInequalities(X, y, family, group_selection=group_selection, max_split=2, sample_weight=weights)
    assert all((weights[s.members] > 0).all() for s in eqp.sets)          # rows of weight 0 are removed
    rng = np.random.default_rng(1)
    caps = 0
    for s in eqp.sets[:8]:
        for _ in range(4):
            tree = _random_sparse_tree(rng, depth=3, n_features=4, n_classes=3)
            split = (any(f in s.split for f in tree.branch.values()) if family == "basic" else _tree_splits(tree, s))
            if split:
                continue
            model = bendoct_model(X, y, depth=3, leaf_penalty=0.01, n_classes=3, eqp=eqp, sample_weight=weights)
            for var, value in tree.start_values(model, X, y, weights).items():
                if var.parent_component() in (model.b, model.p):
                    var.fix(value)
            model.objective.deactivate()
            model.capped = pyo.Objective(expr=sum(weights[i] * model.theta[i] for i in s.members), sense=pyo.maximize)
            heaviest = np.bincount(y[s.members], weights=weights[s.members], minlength=3).max()
            assert solve(model, solver="highs").objective == pytest.approx(heaviest, abs=1e-6)
            caps += 1
    assert caps >= 5       # the random trees leave enough sets unsplit for the test to mean something


def test_weighted_polishing_never_worsens_and_is_the_weighted_optimum_at_depth2():
    """Algorithm 1 with weights: polishing a tree never lowers the weighted (1), computed here, and at depth 2 (the
    root is the one tail) it returns the weighted optimum."""
    from test_models_paper003 import _random_sparse_tree

    X, y = random_binary_data(40, 5, 2, seed=101)
    weights = np.random.default_rng(101).uniform(0.0, 30.0, size=40)
    lam = 0.01

    def value(tree) -> float:
        correct = tree.correct(X, y)
        return float(weights[correct].sum() / weights.sum()) - lam * tree.n_leaves

    rng = np.random.default_rng(1)
    for depth in (3, 2):
        ctx = RegularizedContext.of(X, y, depth=depth, leaf_penalty=lam, sample_weight=weights)
        model = bendoct_model(X, y, depth=depth, leaf_penalty=lam, sample_weight=weights)
        polisher = SolutionPolishing(BendOCTMaster(ctx, model))
        for _ in range(10):
            tree = _random_sparse_tree(rng, depth=depth, n_features=5, n_classes=2)
            polished = polisher.polish(tree)
            assert value(polished) >= value(tree) - 1e-12
            assert polisher.value(polished) == pytest.approx(value(polished), abs=1e-12)
            if depth == 2:
                assert value(polished) == pytest.approx(best_objective_1(X, y, weights, 2, lam), abs=1e-12)
