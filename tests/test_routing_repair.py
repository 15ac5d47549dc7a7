"""The routing-repair heuristic of formulation (1) (odtlib.models.hyperplane.routing_repair) and the warm-start
margin of S-OCT's Benders nodes.

Expected values are derived by hand in the comments (threshold scans) or come from the data's construction (a
tree that labels the points) and the enumeration oracle (optima with the heuristic on and off).
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from oracles import violated_constraints
from oracles_hyperplane import best_hyperplane_tree

from odtlib.models import OCTH, SOCT
from odtlib.models._pipeline import FitContext
from odtlib.models.hyperplane._formulation import HyperplaneFormulation
from odtlib.models.hyperplane.routing_repair import RoutingRepair, best_threshold
from odtlib.models.hyperplane.shattering import strict_separator
from odtlib.models.hyperplane.soct import build_model
from odtlib.solvers import Values
from odtlib.solvers.standard_form import ColumnIndex
from odtlib.tree import Leaf, Tree, UnivariateSplit

EPSILON = 0.005


def test_best_threshold_classifies_with_leaves_and_respects_the_gap():
    values, labels = np.array([0.1, 0.2, 0.203, 0.5]), np.array([0, 0, 1, 1])
    # margin ε: the cut after 0.2 (gap 0.003) is not allowed; after 0.1: 1 + 2 correct, after 0.203: 2 + 1,
    # everything left: 2. The lowest β among the best wins: 0.1.
    assert best_threshold(values, labels, 2, EPSILON, "error") == (3, 0.1)
    # a strict gap allows the cut after 0.2, which classifies all four
    assert best_threshold(values, labels, 2, 1e-6, "error") == (4, 0.2)


def test_best_threshold_by_gini_prefers_the_purer_children():
    values, labels = np.array([0.1, 0.2, 0.3, 0.4, 0.5]), np.array([0, 0, 1, 0, 1])
    # Σ L²/|L| + Σ R²/|R| per cut: after 0.1: 1 + (4+4)/4 = 3; after 0.2: 2 + (1+4)/3 = 11/3; after 0.3:
    # (4+1)/3 + (1+1)/2 = 8/3; after 0.4: (9+1)/4 + 1 = 3.5; all left: (9+4)/5 = 2.6. Best: after 0.2.
    assert best_threshold(values, labels, 2, 1e-6, "gini") == (pytest.approx(11 / 3), 0.2)
    # by errors, cuts after 0.2 (2 + 2) and after 0.4 (3 + 1) tie at 4: the lower wins
    assert best_threshold(values, labels, 2, 1e-6, "error") == (4, 0.2)


def test_best_threshold_follows_a_routing():
    values, goes_right = np.array([0.1, 0.2, 0.203, 0.5]), np.array([0, 1, 0, 1])
    # agreements: cut after 0.1 -> 1 (left) + 2 (right); after 0.2 -> 1 + 1; after 0.203 -> 2 + 1; all left -> 2
    assert best_threshold(values, goes_right, 2, 1e-6, "follow") == (3, 0.1)
    # sides are fixed when following: labels all 1 are best served by everything right of the smallest value
    assert best_threshold(values, np.ones(4, dtype=int), 2, 1e-6, "follow") == (3, 0.1)


def tree_labelled_data(seed: int, n: int = 60):
    """Points in [0, 1]^3 labelled by a depth-2 tree: root x0 <= 0.5, left child x1 + x2 <= 1, right child
    x1 <= x2; points within 0.02 of a split are dropped, so every split has margins far above ε."""
    rng = np.random.default_rng(seed)
    X = rng.random((4 * n, 3))
    left_plane, right_plane = X[:, 1] + X[:, 2] - 1, X[:, 1] - X[:, 2]
    keep = (np.abs(X[:, 0] - 0.5) > 0.02) & (np.abs(left_plane) > 0.02) & (np.abs(right_plane) > 0.02)
    X, left_plane, right_plane = X[keep][:n], left_plane[keep][:n], right_plane[keep][:n]
    root_right = X[:, 0] > 0.5
    y = np.where(root_right, right_plane > 0, left_plane > 0).astype(int)
    leaf = np.where(root_right, 6 + (right_plane > 0), 4 + (left_plane > 0))
    w = np.zeros((n, 8))
    w[:, 1] = 1
    w[np.arange(n), 2 + root_right] = 1
    w[np.arange(n), leaf] = 1
    return X, y, w


def repair_for(model, X, y, depth=2, max_splits=None):
    ctx = FitContext.of(X, np.searchsorted(np.unique(y), y), depth=depth)
    return RoutingRepair(HyperplaneFormulation(ctx, model, epsilon=EPSILON, max_splits=max_splits, ccp_alpha=0.0))


@pytest.mark.parametrize("seed", range(3))
def test_repair_rebuilds_a_perfect_tree_from_its_routing_above_the_last_level(seed):
    """S-OCT-benders-last's candidate: the root's own hyperplane (big-M node), the last level free (Benders
    nodes). The last level's points are separable by class, so the repair classifies every point, and the
    root's threshold keeps the margin ε."""
    X, y, w = tree_labelled_data(seed)
    model = build_model(X, y, 2, benders_nodes=[2, 3])
    root = (np.array([1.0, 0.0, 0.0]), 0.5)
    heuristic = repair_for(model, X, y)
    routing, correct = heuristic.repair(w, {1: root})
    assert correct == len(y)
    assert (heuristic.tree(routing).predict(X) == y).all()
    values = X[:, 0]
    assert values[values > 0.5].min() - values[values <= 0.5].max() >= EPSILON
    assert repair_for(model, X, y).repair(w, {1: root})[1] == correct      # deterministic
    repeat = repair_for(model, X, y)
    repeat.repair(w, {1: root})
    assert repeat.repair(w, {1: root}) == (None, -1)                        # one repair per routing


def test_repair_without_planes_fits_the_routing_and_respects_the_budget():
    """OCT-H-like (every node has margin rows) and no (a_t, b_t) given: the root follows w by a fitted
    hyperplane; with a budget of one split the repaired three-split tree is not proposed."""
    X, y, w = tree_labelled_data(7)
    model = build_model(X, y, 2)
    heuristic = repair_for(model, X, y)
    routing, correct = heuristic.repair(w, {})
    assert correct == len(y) and (heuristic.tree(routing).predict(X) == y).all()
    assert not repair_for(model, X, y, max_splits=1)._within_budget(routing)


@pytest.mark.parametrize("benders_nodes", [None, "last"])
def test_a_repaired_tree_is_a_feasible_start_of_the_model(benders_nodes):
    """The proposal (the estimator's start values of the repaired tree) satisfies every row of the model."""
    X, y, w = tree_labelled_data(3, n=30)
    est = SOCT(depth=2, benders_nodes=benders_nodes, solver="scip")
    est.classes_ = np.unique(y)
    ctx = est._context(X, y)
    formulation = est._build(ctx)
    model = formulation.model
    routing, _ = repair_for(model, X, y).repair(w, {1: (np.array([1.0, 0.0, 0.0]), 0.5)})
    assert violated_constraints(model, formulation.routing_values(routing)) == []


@pytest.mark.parametrize("cls,params", [(SOCT, {}), (SOCT, {"benders_nodes": "last"}), (OCTH, {})],
                         ids=["SOCT-baseline", "SOCT-benders-last", "OCTH"])
@pytest.mark.parametrize("seed", range(2))
def test_the_optimum_is_the_same_with_and_without_the_repair(cls, params, seed):
    """Toggle: on SCIP the heuristic on or off, the proved optimum is the enumeration oracle's."""
    rng = np.random.default_rng(40 + seed)
    X, y = rng.integers(0, 11, size=(8, 2)) / 10, rng.integers(0, 3, size=8)
    expected = best_hyperplane_tree(X, y, 2)
    for repair in (True, False):
        model = cls(depth=2, solver="scip", routing_repair=repair, warm_start=False, time_limit=120,
                    **params).fit(X, y)
        assert model.solve_result_.status == "optimal"
        assert round(model.solve_result_.objective) == expected == int((model.predict(X) == y).sum())


def test_a_benders_node_keeps_the_start_threshold_inside_the_margin():
    """x0 = 0.500 / 0.502 on the two sides of the start's threshold, closer than ε: a big-M node moves the
    threshold (3 of 4 correct), a Benders node needs only strict separability and keeps all 4."""
    X = np.array([[0.1, 0.5], [0.500, 0.2], [0.502, 0.7], [0.9, 0.4]])
    y = np.array([0, 0, 1, 1])
    start = Tree({1: UnivariateSplit(0, 2, 3, 0.501), 2: Leaf(0), 3: Leaf(1)})
    correct = {}
    for benders_nodes in (None, "all"):
        est = SOCT(depth=1, benders_nodes=benders_nodes, solver="scip", warm_start=start)
        est.classes_ = np.unique(y)
        ctx = est._context(X, y)
        formulation = est._build(ctx)
        model, values = formulation.model, formulation.start_values(start)
        correct[benders_nodes] = round(sum(values[model.z[i, t]] for i in model.I for t in model.L))
    assert correct == {None: 3, "all": 4}


def test_points_pass_unsplit_to_a_benders_node_that_separates_them():
    """Six points 0.0004 apart along x0 (x1 is constant), three of each class: every gap along any direction
    with ||a||_1 = 1 is at most 0.0004 < ε, so the big-M root has no split (not even one that the lookahead
    could use), while a strict split separates the classes. From an undecided LP point (w = 1/2) the root
    passes every point down to the Benders node 2, which splits there; the proposal is feasible and classifies
    every point."""
    X = np.column_stack([0.5 + 0.0004 * np.arange(6), np.full(6, 0.5)])
    y = np.array([0, 0, 0, 1, 1, 1])
    est = SOCT(depth=2, benders_nodes="last", solver="scip")
    est.classes_ = np.unique(y)
    ctx = est._context(X, y)
    formulation = est._build(ctx)
    model = formulation.model
    heuristic = repair_for(model, X, y)
    routing, correct = heuristic.repair(np.full((len(y), 8), 0.5), {})
    assert correct == len(y) and sorted(routing.splits) == [2]
    assert (heuristic.tree(routing).predict(X) == y).all()
    assert violated_constraints(model, formulation.routing_values(routing)) == []


def test_the_separator_of_system_16_has_the_widest_margin():
    """Two points d = (0.004, 0.001) apart: a·d >= 2 at the least ||a||_1 is a = (500, 0), whose margin after
    scaling to ||a||_1 = 1 is 2 / 500 = 0.004 = ||d||_inf, the widest of any hyperplane."""
    a, _ = strict_separator(np.array([[0.5, 0.5]]), np.array([[0.504, 0.501]]))
    assert np.abs(a).sum() == pytest.approx(500) and a[0] == pytest.approx(500)


def test_one_split_classifies_a_node_only_within_its_gap():
    """The same two points 0.004 apart (L∞): a Benders node (gap 1e-6) classifies them with one split, a node with
    margin rows (gap ε = 0.005) cannot; three classes never, one class always."""
    X = np.array([[0.5, 0.5], [0.504, 0.501], [0.9, 0.9]])
    model = build_model(X, np.array([0, 1, 0]), 2, benders_nodes=[2, 3])     # node 1: margin rows; 2, 3: Benders
    heuristic = repair_for(model, X, np.array([0, 1, 0]))
    pair = np.array([0, 1])
    assert heuristic._classifiable(pair, 2) and not heuristic._classifiable(pair, 1)
    heuristic.y = np.array([0, 1, 2])
    assert not heuristic._classifiable(np.arange(3), 2) and heuristic._classifiable(np.array([2]), 1)


def test_the_lookahead_finds_a_root_whose_children_are_separable():
    """Ten points (found by a random search in which the best Gini root leaves a child that one split cannot
    classify: 9 of 10 without the lookahead). Labelled by the depth-2 tree root x1 <= 0.18; left child
    x0 <= 0.04 (point (0.04, 0.02), class 0, against three of class 1); right child x0 <= 0.3 (point
    (0.3, 0.42), class 1, against five of class 0). The lookahead at the root finds a split whose children
    are each separable, and the repair from an undecided point classifies all ten."""
    X = np.array([[0.64, 0.27], [0.04, 0.02], [0.81, 0.91], [0.61, 0.73], [0.54, 0.94], [0.82, 0.0],
                  [0.86, 0.03], [0.73, 0.18], [0.86, 0.54], [0.3, 0.42]])
    y = np.array([0, 0, 0, 0, 0, 1, 1, 1, 0, 1])
    heuristic = repair_for(build_model(X, y, 2, benders_nodes=[2, 3]), X, y)
    routing, correct = heuristic.repair(np.full((len(y), 8), 0.5), {})
    assert correct == 10 and (heuristic.tree(routing).predict(X) == y).all()


def test_the_first_call_repairs_the_undecided_point_before_the_solvers_point():
    """The first heuristic call repairs w = 1/2 everywhere (a tree from the data alone), then the solver's
    point; later calls repair the solver's point only."""
    X, y, _ = tree_labelled_data(0, n=20)
    model = build_model(X, y, 2, benders_nodes=[2, 3])
    heuristic = repair_for(model, X, y)
    seen = []
    heuristic._propose = lambda w, planes: seen.append(w[:, 1:].copy())        # records, proposes nothing
    columns = list(model.component_data_objects(pyo.Var))
    values = Values(np.zeros(len(columns)), ColumnIndex(columns), is_integral=False)
    heuristic.heuristic(values)
    assert len(seen) == 2 and (seen[0] == 0.5).all() and (seen[1] == 0).all()
    heuristic.seconds = 0.0                                                    # not skipped by the time share
    heuristic.heuristic(values)
    assert len(seen) == 3 and (seen[2] == 0).all()


@pytest.mark.parametrize("cls", [SOCT, OCTH])
def test_symmetry_handling_is_off_where_the_repair_runs(cls):
    """SCIP's symmetry handling keeps one copy of symmetric solutions and drops proposals of the others; the
    estimators turn it off exactly where the repair proposes trees (SCIP, routing_repair on)."""
    assert cls(solver="scip")._tuning(None) == {"misc/usesymmetry": 0}
    assert cls(solver="scip", routing_repair=False)._tuning(None) == {}
    assert cls(solver="highs")._tuning(None) == {}
