"""Paper 002's multivariate models so far (SOCT-baseline, OCT-H) and the hyperplane-tree layer under them.

Oracles: enumeration of routings with an LP feasibility check per split (tests/oracles_hyperplane.py), and on
0/1 data the univariate optimum (brute force), which no hyperplane tree can fall below.
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from oracles import brute_force_tree, random_binary_data, violated_constraints
from oracles_hyperplane import best_hyperplane_tree, margin_separable, strictly_separable

from odtlib.models import OCTH, SOCT
from odtlib.models._hyperplane import full_tree_routing, hyperplane_tree, margin_threshold
from odtlib.tree import HyperplaneSplit, Leaf, Tree, UnivariateSplit

MODELS = [SOCT, OCTH]


def grid_data(seed: int, n_rows: int, n_features: int = 2, n_classes: int = 2):
    """Points on a 0.1 grid in [0, 1] (gaps far above the margin ε), with random labels."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 11, size=(n_rows, n_features)) / 10
    return X, rng.integers(0, n_classes, size=n_rows)


def fit(cls, X, y, **params):
    params.setdefault("warm_start", False)
    return cls(threads=1, time_limit=120, **params).fit(X, y)


# ------------------------------------------------------------------------------------------ the oracle
def test_the_oracle_knows_xor_is_not_linearly_separable():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    assert not margin_separable(X, [1, 2], [0, 3], 0.005)          # the XOR labelling, (14)-(15)
    assert margin_separable(X, [0, 1], [2, 3], 0.005)
    assert best_hyperplane_tree(X, np.array([0, 1, 1, 0]), 1) == 3
    assert best_hyperplane_tree(X, np.array([0, 1, 1, 0]), 2) == 4


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("seed,depth,n_rows,n_classes", [(0, 1, 8, 2), (1, 1, 8, 3), (2, 2, 6, 2), (3, 2, 6, 3)])
def test_optimum_equals_the_enumeration_oracle(cls, seed, depth, n_rows, n_classes):
    X, y = grid_data(seed, n_rows, n_classes=n_classes)
    model = fit(cls, X, y, depth=depth)
    expected = best_hyperplane_tree(X, y, depth)
    assert model.solve_result_.status == "optimal"
    assert round(model.solve_result_.objective) == expected
    assert int((model.predict(X) == y).sum()) == expected


@pytest.mark.parametrize("seed", range(3))
def test_soct_and_octh_agree_and_never_fall_below_the_univariate_optimum(seed):
    X, y = random_binary_data(16, 3, 2, seed)
    univariate = brute_force_tree(X, y, 2)[1]
    objectives = {cls.__name__: round(fit(cls, X.astype(float), y, depth=2).solve_result_.objective)
                  for cls in MODELS}
    assert objectives["SOCT"] == objectives["OCTH"] >= univariate


# ------------------------------------------------------------------------------------------ decoding
@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_the_tree_routes_every_training_point_as_the_solved_model(cls):
    X, y = grid_data(7, 12, n_features=3, n_classes=3)
    model = fit(cls, X, y, depth=2, keep_model=True)
    m = model.model_
    model_leaf = np.array([max(m.L, key=lambda t: pyo.value(m.w[i, t])) for i in m.I])
    np.testing.assert_array_equal(model.apply(X), model_leaf)
    splits = [node for node in model.tree_.nodes.values() if not isinstance(node, Leaf)]
    assert splits and all(isinstance(node, HyperplaneSplit) for node in splits)


def test_a_node_that_does_not_split_is_replaced_by_its_left_subtree():
    a = np.array([1.0, 0.0])
    tree = hyperplane_tree(2, {1: None, 2: (a, 0.5), 3: (a, 0.2)}, {4: "x", 5: "y", 6: "z", 7: "w"}, margin=0.1)
    assert tree.root == 2 and set(tree.nodes) == {2, 4, 5}
    assert tree.nodes[2].bias == pytest.approx(0.55)                 # b + ε/2
    np.testing.assert_array_equal(tree.predict(np.array([[0.5, 0], [0.6, 0]])), ["x", "y"])


# ------------------------------------------------------------------------------------------ warm starts
def test_full_tree_routing_lays_any_tree_on_the_full_tree():
    tree = Tree({1: UnivariateSplit(0, 2, 3, threshold=0.45), 2: Leaf("a"),
                 3: HyperplaneSplit(np.array([2.0, -2.0]), 0.0, 6, 7), 6: Leaf("b"), 7: Leaf("c")})
    X = np.array([[0.2, 0.9], [0.9, 0.9], [0.9, 0.1]])
    routing = full_tree_routing(tree, X, depth=2)
    np.testing.assert_array_equal(routing.leaf, [4, 6, 7])          # the leaf at depth 1 continues left
    assert routing.leaf_label == {4: "a", 6: "b", 7: "c"}
    a, b = routing.splits[3]
    assert np.abs(a).sum() == pytest.approx(1.0) and b == pytest.approx(0.0)
    with pytest.raises(ValueError, match="deeper than depth=1"):
        full_tree_routing(tree, X, depth=1)


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_warm_starts_satisfy_the_model_and_reach_the_optimum(cls):
    X, y = grid_data(11, 8, n_classes=2)
    expected = best_hyperplane_tree(X, y, 2)
    given = Tree({1: HyperplaneSplit(np.array([1.0, 1.0]), 1.0, 2, 3), 2: Leaf(int(y[0])), 3: Leaf(int(y[1]))})
    for start in (True, given):
        est = cls(depth=2, warm_start=start)
        est.classes_ = np.unique(y)
        ctx = est._context(X, np.searchsorted(est.classes_, y))
        formulation = est._build(ctx)
        model, values = formulation.model, formulation.start_values(est._initial_tree(ctx))
        assert violated_constraints(model, values) == []
        assert round(fit(cls, X, y, depth=2, warm_start=start).solve_result_.objective) == expected


@pytest.mark.parametrize("max_splits", [0, 1, 2, 3])
def test_carts_start_keeps_the_split_budget(max_splits):
    """With β = ``max_splits`` below CART's three depth-2 splits, CART's start is grown best-first to β + 1
    leaves, so it satisfies (1h) and the solver keeps it (it was dropped: the paper-002 inner CV at β = 2); with
    β = 0 there is no start (the one-leaf tree needs none). With or without the start the fit reaches the same
    optimum."""
    import warnings

    from sklearn.tree import DecisionTreeClassifier

    from odtlib.models import UnivariateOCT
    from odtlib.solvers import StartRejectedWarning

    X, y = grid_data(5, 24, n_classes=3)
    assert DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y).tree_.node_count == 7    # three splits
    for cls in (OCTH, UnivariateOCT):
        est = cls(depth=2, max_splits=max_splits, warm_start=True)
        est.classes_ = np.unique(y)
        ctx = est._context(X, np.searchsorted(est.classes_, y))
        start = est._initial_tree(ctx)
        if max_splits == 0:
            assert start is None
            continue
        assert sum(not isinstance(node, Leaf) for node in start.nodes.values()) == max_splits
        formulation = est._build(ctx)
        assert violated_constraints(formulation.model, formulation.start_values(start)) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", StartRejectedWarning)
        started = fit(UnivariateOCT, X, y, depth=2, max_splits=max_splits, warm_start=True).solve_result_
    plain = fit(UnivariateOCT, X, y, depth=2, max_splits=max_splits).solve_result_
    assert started.status == plain.status == "optimal" and started.objective == pytest.approx(plain.objective)


def test_margin_threshold_moves_to_the_nearest_gap_of_width_epsilon():
    values = np.array([0.10, 0.30, 0.302, 0.304, 0.60])
    assert margin_threshold(values, 0.303, 0.005) == pytest.approx(0.304)       # 1 point moves left, not 2 right
    assert margin_threshold(values, 0.301, 0.005) == pytest.approx(0.10)        # 0.30 moves right, not 2 left
    assert margin_threshold(values, 0.45, 0.005) == pytest.approx(0.304)        # already in a gap: unchanged side
    assert margin_threshold(np.array([0.5, 0.501]), 0.5, 0.005) == pytest.approx(0.495)   # a tie: all right
    assert margin_threshold(np.array([-0.998, -0.997]), -0.998, 0.005) == pytest.approx(-0.997)  # all left


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_a_start_with_points_inside_the_margin_is_moved_to_a_feasible_one(cls):
    """x0 = 0.500 / 0.502 on the two sides of the start's threshold: closer than ε = 0.005, so the start as
    given violates the right-margin row; the routing moves one point and the start becomes feasible."""
    X = np.array([[0.1, 0.5], [0.500, 0.2], [0.502, 0.7], [0.9, 0.4]])
    y = np.array([0, 0, 1, 1])
    start = Tree({1: UnivariateSplit(0, 2, 3, 0.501), 2: Leaf(0), 3: Leaf(1)})
    est = cls(depth=1, warm_start=start)
    est.classes_ = np.unique(y)
    ctx = est._context(X, y)
    formulation = est._build(ctx)
    model, values = formulation.model, formulation.start_values(start)
    assert violated_constraints(model, values) == []
    assert round(sum(values[model.z[i, t]] for i in model.I for t in model.L)) == 3


# ------------------------------------------------------------------------------------------ parameters, input
def test_no_split_allowed_or_worth_it_predicts_the_majority():
    X, y = grid_data(5, 10, n_classes=2)
    majority = int(np.bincount(y).max())
    assert round(fit(SOCT, X, y, depth=2, max_splits=0).solve_result_.objective) == majority
    assert fit(SOCT, X, y, depth=2, ccp_alpha=1.0).tree_.n_leaves == 1


def test_one_split_budget_gives_the_depth_one_optimum():
    X, y = grid_data(6, 7, n_classes=3)
    assert round(fit(SOCT, X, y, depth=2, max_splits=1).solve_result_.objective) == best_hyperplane_tree(X, y, 1)


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_features_outside_the_unit_interval_are_refused_with_the_fix(cls):
    X, y = grid_data(1, 6)
    with pytest.raises(ValueError, match=r"needs features scaled to \[0, 1\].*'x1'.*UnitScaler"):
        cls(depth=1).fit(X * [1, 3], y)


# ------------------------------------------------------------------------------------------ shattering cuts
from odtlib.models.hyperplane.shattering import ShatteringCut, ShatteringSeparator, separating_hyperplane  # noqa: E402
from odtlib.solvers import SolverCapabilityWarning  # noqa: E402

STRICT = None     # the oracle's strict separability (Benders nodes)


def _root_routing(n_points: int, right: np.ndarray) -> np.ndarray:
    """w (points × nodes 0..3) of a depth-1 routing: every point at the root, ``right`` ones at node 3."""
    w = np.zeros((n_points, 4))
    w[:, 1] = 1.0
    w[right, 3] = 1.0
    w[~right, 2] = 1.0
    return w


def test_the_xor_routing_gets_cut_14_or_15():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    cuts = ShatteringSeparator(X, [1], n_cuts=3).separate(_root_routing(4, np.array([True, False, False, True])))
    assert cuts and all(cut.rhs == 3 for cut in cuts)
    assert ShatteringCut(1, (1, 2), (0, 3)) in cuts                    # (14) on the points 2, 3 | 1, 4


@pytest.mark.parametrize("seed", range(12))
def test_separation_is_exact_on_integral_routings(seed):
    """Proposition 3: on a binary w̄ a cut is found exactly when the two sides are not strictly separable."""
    rng = np.random.default_rng(seed)
    X = rng.random((7, 2))
    right = rng.random(7) < 0.5
    if right.all() or not right.any():
        right[0] = not right[0]
    cuts = ShatteringSeparator(X, [1]).separate(_root_routing(7, right))
    separable = strictly_separable(X, list(np.flatnonzero(~right)), list(np.flatnonzero(right)))
    assert bool(cuts) == (not separable)


@pytest.mark.parametrize("seed", range(6))
def test_no_cut_removes_a_routing_that_a_hyperplane_realises(seed):
    rng = np.random.default_rng(100 + seed)
    X = rng.random((9, 2))
    separator = ShatteringSeparator(X, [1], n_cuts=5)
    cuts = []
    for _ in range(30):                                 # cuts from random fractional points
        w = _root_routing(9, rng.random(9) < 0.5)
        w[:, 2:] = np.clip(w[:, 2:] + rng.normal(0, 0.05, (9, 2)), 0, 1)
        cuts += separator.separate(w)
    assert cuts
    for _ in range(200):                                # routings of random hyperplanes
        a, b = rng.normal(size=2), rng.normal() * 0.5
        w = _root_routing(9, X @ a > b)
        assert all(cut.lhs(w) <= cut.rhs for cut in cuts)


def test_the_benders_hyperplane_separates_its_routing_with_a_margin():
    X = np.array([[0.1, 0.2], [0.3, 0.1], [0.8, 0.9], [0.7, 0.6]])
    a, b = separating_hyperplane(X[:2], X[2:])
    assert np.abs(a).sum() == pytest.approx(1.0)
    assert (X[:2] @ a < b).all() and (X[2:] @ a > b).all()


VARIANTS = {**{name: params for name, params in SOCT.PAPER_METHODS.items()},
            "benders-all": {"benders_nodes": "all", "benders_cuts_per_node": 3},
            "benders-root+user-last": {"benders_nodes": "root", "user_cut_nodes": "last", "user_cuts_per_node": 2},
            "init-5 favour_recent": {"initial_cuts_per_node": 5, "cut_order": "favour_recent"}}


@pytest.mark.parametrize("solver", ["scip", "highs"])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_variant_reaches_the_oracle_optimum(variant, solver):
    """The toggle matrix: on grid data (separable routings keep wide margins) every variant, on either solver,
    proves the enumeration oracle's optimum and its tree scores it."""
    X, y = grid_data(21, 7, n_classes=3)
    expected = best_hyperplane_tree(X, y, 2)
    assert expected == best_hyperplane_tree(X, y, 2, epsilon=STRICT)       # margin and strict agree here
    emulated = solver == "highs" and ("benders" in variant or "user" in variant)   # restart loop, root rounds
    with pytest.warns(SolverCapabilityWarning) if emulated else _no_warning():
        model = SOCT(depth=2, solver=solver, time_limit=120, warm_start=False, **VARIANTS[variant]).fit(X, y)
    assert model.solve_result_.status == "optimal"
    assert round(model.solve_result_.objective) == expected == int((model.predict(X) == y).sum())


class _no_warning:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_benders_nodes_solve_strict_separability_and_big_m_the_margin_problem():
    """Two points 0.0005 apart: strictly separable, but not with the margin ε = 0.005 of the big-M rows."""
    X, y = np.array([[0.5, 0.5], [0.5005, 0.5]]), np.array([0, 1])
    assert round(fit(SOCT, X, y, depth=1).solve_result_.objective) == 1 == best_hyperplane_tree(X, y, 1)
    strict = fit(SOCT, X, y, depth=1, benders_nodes="all", solver="scip")
    assert round(strict.solve_result_.objective) == 2 == best_hyperplane_tree(X, y, 1, epsilon=STRICT)
    assert (strict.predict(X) == y).all()


def test_benders_trees_route_like_the_model_and_separation_is_counted():
    X, y = grid_data(22, 10, n_features=3, n_classes=3)
    model = fit(SOCT, X, y, depth=2, benders_nodes="last", benders_cuts_per_node=2, solver="scip", keep_model=True)
    m = model.model_
    model_leaf = np.array([max(m.L, key=lambda t: pyo.value(m.w[i, t])) for i in m.I])
    np.testing.assert_array_equal(model.apply(X), model_leaf)
    assert model.separation_stats_["lp_solves"] > 0 and model.separation_stats_["lp_seconds"] > 0


def test_overlapping_cut_node_sets_are_refused():
    X, y = grid_data(1, 6)
    with pytest.raises(ValueError, match="share nodes \\[1\\]"):
        SOCT(depth=2, benders_nodes="all", user_cut_nodes="root").fit(X, y)


# ------------------------------------------------------------------------------------------ univariate OCT
from odtlib.models import UnivariateOCT  # noqa: E402


def threshold_columns(X: np.ndarray) -> np.ndarray:
    """0/1 columns [x_j >= v] for every feature j and every distinct value v above its smallest: a univariate
    split at any threshold is a split on one of them."""
    return np.column_stack([X[:, j] >= v for j in range(X.shape[1]) for v in np.unique(X[:, j])[1:]]).astype(int)


@pytest.mark.parametrize("warm_start", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_univariate_oct_equals_brute_force_over_every_threshold(seed, warm_start):
    X, y = grid_data(30 + seed, 12, n_classes=2)
    X = np.round(X / 2, 2)                                   # uneven gaps between the values, ε_j differ
    model = fit(UnivariateOCT, X, y, depth=2, warm_start=warm_start)
    expected = brute_force_tree(threshold_columns(X), y, 2)[1]
    assert model.solve_result_.status == "optimal"
    assert round(model.solve_result_.objective) == expected == int((model.predict(X) == y).sum())
    assert all(isinstance(n, (UnivariateSplit, Leaf)) for n in model.tree_.nodes.values())


def test_the_multivariate_optimum_is_never_below_the_univariate_one():
    X, y = grid_data(41, 8, n_classes=3)
    univariate = round(fit(UnivariateOCT, X, y, depth=2).solve_result_.objective)
    assert univariate == brute_force_tree(threshold_columns(X), y, 2)[1]
    assert round(fit(SOCT, X, y, depth=2).solve_result_.objective) >= univariate


# ------------------------------------------------------------------------------------------ plug-ins
def test_the_fit_reports_the_shattering_plugin_that_had_to_run():
    """XOR on four points at depth 1 with the root a Benders node (no big-M rows): without (1m) the model routes
    every point to the leaf of its class (4 correct), but no line separates XOR, so the optimum is 3 (the
    oracle). Only the lazy rows (17) cut the 4-correct routings off, and every branch-and-bound leaf holding one
    ends at an integral LP point that SCIP enforces by asking the family for rows: it ran and returned rows,
    each found by a separation LP of its own. The routing repair runs on SCIP (heuristic callbacks), so it is
    listed too; separation_stats_ is the family's LP count (no initial cuts)."""
    X, y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float), np.array([0, 1, 1, 0])
    est = fit(SOCT, X, y, depth=1, benders_nodes="all", solver="scip")
    assert round(est.solve_result_.objective) == 3 == best_hyperplane_tree(X, y, 1)
    plugins = est.solve_result_.extra["plugins"]
    assert set(plugins) == {"ShatteringBendersCuts", "RoutingRepair"}
    benders = plugins["ShatteringBendersCuts"]
    assert benders["calls"] >= 1 and benders["rows"] >= 1 and benders["lp_solves"] >= benders["rows"]
    assert est.separation_stats_ == {"lp_solves": benders["lp_solves"], "lp_seconds": benders["lp_seconds"],
                                     "initial_cuts": 0}


def _reachable(obj, levels: int = 3) -> list:
    """What ``obj`` reaches in ``levels`` steps through the attributes of odtlib objects, containers, bound
    methods (their ``self``) and closures (their cells)."""
    found, frontier = [], [obj]
    for _ in range(levels):
        children = []
        for item in frontier:
            if isinstance(item, (list, tuple, set)):
                children += list(item)
            elif isinstance(item, dict):
                children += list(item.values())
            elif hasattr(item, "__self__"):
                children.append(item.__self__)
            elif getattr(item, "__closure__", None):
                children += [cell.cell_contents for cell in item.__closure__]
            elif hasattr(item, "__dict__") and type(item).__module__.startswith("odtlib"):
                children += list(vars(item).values())
        found += children
        frontier = children
    return found


@pytest.mark.parametrize("cls,params", [(SOCT, {"benders_nodes": "last", "user_cut_nodes": "root"}), (OCTH, {})],
                         ids=["SOCT", "OCTH"])
def test_no_plugin_holds_a_reference_to_the_estimator(cls, params):
    """The plug-ins of a fit (lazy rows, user cuts and the routing repair on SCIP) hold the formulation and
    plain data: nothing they reach -- through the formulation down to its context -- is the estimator."""
    X, y = grid_data(5, 12)
    est = cls(depth=2, solver="scip", **params)
    est.classes_ = np.unique(y)
    ctx = est._context(X, np.searchsorted(est.classes_, y))
    formulation = est._build(ctx)
    plugins = est._callbacks(ctx, formulation).plugins
    assert len(plugins) == (3 if cls is SOCT else 1)
    assert not any(isinstance(item, (SOCT, OCTH)) for plugin in plugins for item in _reachable(plugin))
