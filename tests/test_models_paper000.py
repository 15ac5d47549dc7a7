"""Paper 000 (Günlük et al. 2019): CategoricalODT against brute-force enumeration of subset trees.

Tiny data (a dozen rows, three or four groups), HiGHS, single thread.
"""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pyomo.environ as pyo
import pytest

from odtlib.encoders import FeatureGroup
from odtlib.feature_selection import cart_feature_groups
from odtlib.models import CategoricalODT
from odtlib.models.categorical.subtree_bounds import SubsetSubtreeSolver
from odtlib.models.categorical.categorical_odt import Group, build_model, floor_count
from odtlib.models.categorical.topologies import SHAPES, Topology, get_topology
from odtlib.solvers import SolverCapabilityWarning, available_solvers, solve
from odtlib.tree import SubsetSplit
from tests.oracles_subset import best_weighted, best_with_floor, frontier

TOPOLOGIES = list(SHAPES)
SIZES = (3, 2, 4)  # columns per group; the last group is ordinal in the ordinal tests


def tiny_data(seed: int, n: int = 24, sizes=SIZES):
    """One-hot data (exactly one 1 per group and row) with random labels: 24 rows over 3·2·4 value
    combinations leave conflicting duplicates, so deeper topologies and looser constraints score higher."""
    rng = np.random.default_rng(seed)
    values = np.stack([rng.integers(0, s, size=n) for s in sizes], axis=1)
    blocks, groups, start = [], [], 0
    for g, s in enumerate(sizes):
        blocks.append(np.eye(s, dtype=int)[values[:, g]])
        groups.append(list(range(start, start + s)))
        start += s
    return np.hstack(blocks), rng.integers(0, 2, size=n), groups


def fit(A, y, groups, **params):
    params.setdefault("threads", 1)
    return CategoricalODT(groups=groups, **params).fit(A, y)


def assert_tree_matches(model, objective):
    """The returned tree really scores the solver's objective on the training data."""
    assert model.solve_result_.status == "optimal"
    assert model.solve_result_.objective == pytest.approx(objective, abs=1e-6)
    pos, neg = model.train_counts_
    assert pos + model.class_weight * neg == pytest.approx(objective, abs=1e-6)


# ------------------------------------------------------------------------------------------ topologies
def test_named_topologies_have_the_papers_sizes():
    sizes = {name: (len(get_topology(name).decision_nodes), len(get_topology(name).leaves)) for name in SHAPES}
    assert sizes == {"depth2": (3, 4), "depth2.5": (5, 6), "depth3": (7, 8), "imbalanced": (7, 8)}
    assert get_topology("imbalanced").depth == 4
    assert [k for k in get_topology("depth3").decision_nodes if get_topology("depth3").symmetric(k)] == [1, 2, 3]
    assert not get_topology("imbalanced").symmetric(1)
    assert not get_topology("depth2.5").symmetric(1)


def test_leaf_labels_alternate_and_paths_partition_the_leaves():
    topo = get_topology("depth2.5")
    assert [b for b in topo.leaves if topo.is_positive_leaf(b)] == [2, 4, 6]
    for k in topo.decision_nodes:
        assert set(topo.left_leaves(k)).isdisjoint(topo.right_leaves(k))
    assert sorted(topo.left_leaves(1) + topo.right_leaves(1)) == topo.leaves


def test_shape_with_a_leaf_next_to_a_decision_node_is_rejected():
    with pytest.raises(ValueError, match="two leaves or two decision nodes"):
        Topology(((None, None), None))
    with pytest.raises(ValueError, match="unknown topology"):
        get_topology("depth9")


# ------------------------------------------------------------------------------------------ oracle
@pytest.mark.parametrize("topology", TOPOLOGIES)
@pytest.mark.parametrize("seed", [0, 3])
def test_optimum_equals_brute_force(topology, seed):
    A, y, groups = tiny_data(seed)
    model = fit(A, y, groups, topology=topology, ordinal_splits=False)
    expected = best_weighted(frontier(A, y == 1, groups, SHAPES[topology]))
    assert_tree_matches(model, expected)


def test_oracle_distinguishes_the_topologies():
    A, y, groups = tiny_data(3)
    values = [best_weighted(frontier(A, y == 1, groups, SHAPES[t])) for t in ("depth2", "depth2.5", "depth3")]
    assert values[0] < values[1] < values[2] < len(y)


def test_fixed_leaf_labels_lose_nothing():
    A, y, groups = tiny_data(3)
    for shape in SHAPES.values():
        free = frontier(A, y == 1, groups, shape)
        fixed = frontier(A, y == 1, groups, shape, free_labels=False)
        assert best_weighted(free) == best_weighted(fixed)


def test_class_weight_enters_the_objective():
    A, y, groups = tiny_data(4)
    model = fit(A, y, groups, topology="depth2", class_weight=3, ordinal_splits=False)
    assert_tree_matches(model, best_weighted(frontier(A, y == 1, groups, SHAPES["depth2"]), 3))


SWITCHES = ("strengthened_routing", "anchors", "pruned_routing", "relaxed_integrality")


@pytest.mark.parametrize("topology", ["depth2.5", "imbalanced"])
def test_every_switch_combination_gives_the_same_optimum(topology):
    A, y, groups = tiny_data(2, n=12)  # small: "Nothing" is slow already at n = 24
    expected = best_weighted(frontier(A, y == 1, groups, SHAPES[topology]))
    assert expected < len(y)
    for flags in itertools.product((False, True), repeat=len(SWITCHES)):
        model = fit(A, y, groups, topology=topology, ordinal_splits=False, **dict(zip(SWITCHES, flags)))
        assert_tree_matches(model, expected)


def test_switches_change_the_model():
    A, y, groups = tiny_data(0)
    grouped = [Group(f"g{t}", tuple(c)) for t, c in enumerate(groups)]
    plain = build_model(A, y == 1, grouped, "depth3", strengthen=False, anchor=False, prune_c=False, relax=False)
    full = build_model(A, y == 1, grouped, "depth3")
    assert not hasattr(full, "route") and hasattr(full, "route_strong") and hasattr(full, "anchor")
    assert len(full.anchor) == 3 * len(groups)          # root, node 2, node 3
    assert len(full.c) * 2 == len(plain.c)              # (14) halves the c variables
    integer = [v for v in full.component_data_objects(ctype=None) if hasattr(v, "is_integer") and v.is_integer()]
    assert len(integer) == 3 * A.shape[1]                # Prop. 3: only z of the 3 non-leaf-adjacent nodes


# ------------------------------------------------------------------------------------------ variants
def test_ordinal_groups_only_branch_on_thresholds():
    A, y, groups = tiny_data(0)
    fgroups = [FeatureGroup(f"g{t}", cols, "ordinal" if t == 2 else "categorical") for t, cols in enumerate(groups)]
    ordinal_cols = groups[2]
    for topology in ("depth2", "depth3"):
        model = fit(A, y, fgroups, topology=topology)
        expected = best_weighted(frontier(A, y == 1, groups, SHAPES[topology], ordinal_groups=(2,)))
        assert_tree_matches(model, expected)
        if topology == "depth2":  # the constraint binds on this instance
            assert expected < best_weighted(frontier(A, y == 1, groups, SHAPES[topology]))
        for node in model.tree_.nodes.values():
            if isinstance(node, SubsetSplit) and node.group == "g2":
                positions = sorted(ordinal_cols.index(f) for f in node.features)
                size = len(positions)
                assert positions in (list(range(size)), list(range(len(ordinal_cols) - size, len(ordinal_cols))))
        unconstrained = fit(A, y, fgroups, topology=topology, ordinal_splits=False)
        assert_tree_matches(unconstrained, best_weighted(frontier(A, y == 1, groups, SHAPES[topology])))


@pytest.mark.parametrize("relax", [True, False])
def test_max_card_is_respected(relax):
    A, y, groups = tiny_data(6, sizes=(5, 2, 4))
    for topology in ("depth2", "depth2.5"):
        model = fit(A, y, groups, topology=topology, max_card=1, relaxed_integrality=relax)
        expected = best_weighted(frontier(A, y == 1, groups, SHAPES[topology], max_card=1))
        assert_tree_matches(model, expected)
        assert expected < best_weighted(frontier(A, y == 1, groups, SHAPES[topology]))  # the constraint binds
        for node in model.tree_.nodes.values():
            if isinstance(node, SubsetSplit):
                group = next(cols for cols in groups if node.features[0] in cols)
                assert len(node.features) <= 1 or len(node.features) >= len(group) - 1


def test_proper_splits_9_10_match_the_oracle_with_fixed_labels():
    A, y, groups = tiny_data(1)
    for topology in ("depth2", "depth2.5"):
        model = fit(A, y, groups, topology=topology, ordinal_splits=False, proper_splits=True)
        expected = best_weighted(frontier(A, y == 1, groups, SHAPES[topology], proper=True, free_labels=False))
        assert_tree_matches(model, expected)
        for node in model.tree_.nodes.values():
            if isinstance(node, SubsetSplit):
                group = next(cols for cols in groups if node.features[0] in cols)
                assert len(node.features) < len(group)


@pytest.mark.parametrize("maximize,floor", [("sensitivity", 0.8), ("specificity", 0.9), ("specificity", 1.0)])
def test_rate_floor_holds_on_training_data(maximize, floor):
    A, y, groups = tiny_data(2)
    positive = y == 1
    model = fit(A, y, groups, topology="depth2", ordinal_splits=False, maximize=maximize, floor=floor)
    pos, neg = model.train_counts_
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    front = frontier(A, positive, groups, SHAPES["depth2"])
    if maximize == "sensitivity":
        assert neg / n_neg >= floor
        assert pos == best_with_floor(front, maximize, floor_count(floor, n_neg))
    else:
        assert pos / n_pos >= floor
        assert neg == best_with_floor(front, maximize, floor_count(floor, n_pos))
    assert model.solve_result_.objective == pytest.approx(pos if maximize == "sensitivity" else neg)


def test_floor_count_is_robust_to_rounding():
    assert floor_count(0.95, 20) == 19 and floor_count(0.951, 20) == 20 and floor_count(1.0, 7) == 7


# ------------------------------------------------------------------------------------------ data handling
def mixed_frame(n=40, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "color": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
        "shape": rng.choice(["round", "square"], n).astype(object),
        "size": rng.normal(10, 3, n),          # many values -> deciles, ordinal
        "score": rng.integers(1, 5, n),         # few values -> one column per value, ordinal
    })
    label = np.where((frame["color"] == "red") | (frame["size"] > 12), "bad", "good")
    return frame, pd.Series(label)


def test_dataframe_input_gives_readable_rules_and_original_labels():
    X, y = mixed_frame()
    model = CategoricalODT(topology="depth2", threads=1).fit(X, y)
    assert {g.name: g.ordinal for g in model.groups_} == {"color": False, "shape": False, "size": True,
                                                         "score": True}
    assert len(next(g for g in model.groups_ if g.name == "size").columns) == 10
    assert set(model.predict(X)) <= {"bad", "good"}
    assert model.score(X, y) == pytest.approx(sum(model.train_counts_) / len(y))
    text = model.tree_.to_text()
    assert " in {" in text and any(name in text for name in ("color", "size"))
    # the same data pre-encoded with explicit groups gives the same optimum
    X01 = model.encoder_.transform(X)
    again = CategoricalODT(topology="depth2", groups=model.encoder_.groups_, threads=1).fit(X01, y)
    assert again.solve_result_.objective == pytest.approx(model.solve_result_.objective)


def test_positive_class_chooses_the_b_plus_leaves():
    X, y = mixed_frame(seed=1)
    model = CategoricalODT(topology="depth2", positive_class="good", maximize="sensitivity", floor=0.5,
                           threads=1).fit(X, y)
    pred = model.predict(X)
    assert ((pred == "good") & (y == "good")).sum() == model.train_counts_[0]


def test_cart_feature_selection_restricts_the_groups():
    A, y, groups = tiny_data(4, sizes=(3, 2, 4, 3))
    named = [Group(f"g{t}", tuple(c)) for t, c in enumerate(groups)]
    kept = cart_feature_groups(A, y, named, seed=0)
    assert kept and set(kept) <= {g.name for g in named}
    model = fit(A, y, groups, topology="depth2", ordinal_splits=False, feature_selection="cart")
    idx = [int(name[1:]) for name in kept]
    expected = best_weighted(frontier(A, y == 1, [groups[t] for t in idx], SHAPES["depth2"]))
    assert_tree_matches(model, expected)
    assert {n.group for n in model.tree_.nodes.values() if isinstance(n, SubsetSplit)} <= set(kept)
    only = fit(A, y, groups, topology="depth2", ordinal_splits=False, feature_selection=["g1"])
    assert {n.group for n in only.tree_.nodes.values() if isinstance(n, SubsetSplit)} <= {"g1"}


@pytest.mark.parametrize("params,X_y,match", [
    ({}, "three_classes", "binary classifier"),
    ({"topology": "depth7"}, "ok", "unknown topology"),
    ({"maximize": "sensitivity"}, "ok", "needs a floor"),
    ({"max_card": 0}, "ok", "max_card"),
    ({"groups": [[0, 1, 2]]}, "ok", "in no group"),
    ({"feature_selection": ["nope"]}, "ok", "unknown groups"),
    ({}, "nan", "missing values"),
])
def test_bad_input_is_named(params, X_y, match):
    A, y, groups = tiny_data(0)
    params = {"groups": groups, **params}
    if X_y == "three_classes":
        y = np.arange(len(y)) % 3
    if X_y == "nan":
        X, _ = mixed_frame()
        X.loc[0, "color"] = np.nan
        params.pop("groups")
        with pytest.raises(ValueError, match=match):
            CategoricalODT(**params).fit(X, np.arange(len(X)) % 2)
        return
    with pytest.raises(ValueError, match=match):
        CategoricalODT(**params).fit(A, y)


# ------------------------------------------------------------------------------------------ other solvers
@pytest.mark.parametrize("solver", ["glpk", "scip"])
def test_other_free_solvers_agree(solver):
    if solver not in available_solvers():
        pytest.skip(f"{solver} not installed")
    A, y, groups = tiny_data(5, n=12)
    model = fit(A, y, groups, topology="depth2", ordinal_splits=False, solver=solver)
    assert_tree_matches(model, best_weighted(frontier(A, y == 1, groups, SHAPES["depth2"])))


def test_build_model_solves_directly():
    A, y, groups = tiny_data(2)
    grouped = [Group(f"g{t}", tuple(c)) for t, c in enumerate(groups)]
    result = solve(build_model(A, y == 1, grouped, "depth2"), threads=1, abs_gap=0.999)
    assert math.isclose(result.objective, best_weighted(frontier(A, y == 1, groups, SHAPES["depth2"])))


def test_max_card_with_relaxation_stays_exact():
    """On this instance the printed form of Sec. 4.5 with Prop. 3's relaxation reaches 18.5 > 18 (a
    half-selected group using a 2-value subset); the form with v in place of 1 keeps the true optimum."""
    A, y, groups = tiny_data(7, sizes=(5, 2, 4))
    model = fit(A, y, groups, topology="depth2", max_card=1, relaxed_integrality=True)
    assert_tree_matches(model, best_weighted(frontier(A, y == 1, groups, SHAPES["depth2"], max_card=1)))


# ------------------------------------------------------------------------------------------ subtree decomposition
def subtree_score(A, positive, tests, weight):
    """Weighted correct count of a height-1 or height-2 subtree given as best_tests() returns it."""
    A = np.asarray(A) > 0.5

    def leaf_adjacent(rows, test):
        left = rows & A[:, test[1]].any(axis=1)
        return weight[left & ~positive].sum() + weight[rows & ~left & positive].sum()

    def score(rows):
        if len(tests) == 1:
            return leaf_adjacent(rows, tests[0])
        left = A[:, tests[0][1]].any(axis=1)
        return leaf_adjacent(rows & left, tests[1]) + leaf_adjacent(rows & ~left, tests[2])
    return score


@pytest.mark.parametrize("ordinal,max_card,class_weight", [(False, None, 1.0), (True, None, 1.0), (False, 1, 2.0),
                                                           (True, 2, 0.5)])
def test_subtree_solver_equals_the_oracle_on_sample_sets(ordinal, max_card, class_weight):
    """OPT_1 and OPT_2 (fixed labels, allowed tests) against enumeration, and best_tests reaches them."""
    rng = np.random.default_rng(1)
    for seed in range(3):
        A, y, groups = tiny_data(seed, n=30, sizes=(3, 2, 5))
        positive = y == 1
        named = [Group(f"g{t}", tuple(c), ordinal=t == 2) for t, c in enumerate(groups)]
        solver = SubsetSubtreeSolver(A, positive, named, class_weight, ordinal=ordinal, max_card=max_card)
        weight = np.where(positive, 1.0, class_weight)
        for _ in range(3):
            rows = rng.random(len(y)) < 0.7
            for height, shape in ((1, (None, None)), (2, SHAPES["depth2"])):
                expected = best_weighted(frontier(A[rows], positive[rows], groups, shape,
                                                  ordinal_groups=(2,) if ordinal else (), max_card=max_card,
                                                  free_labels=False), class_weight)
                assert solver.bound(rows, height) == pytest.approx(expected)
                score = subtree_score(A, positive, solver.best_tests(rows, height), weight)
                assert score(rows) == pytest.approx(expected)


def test_subtree_solver_keeps_one_test_per_split_of_the_samples_at_hand():
    """Wide groups: 16 values of which 6 occur in the data (2^15 subsets if enumerated in full), sample sets
    that miss a group's first value, and a group whose rows may have no 1, so S and its complement split
    differently (on all rows, keeping only one of each pair there loses 1 of the optimum's 31). The oracle
    runs on the data without the all-zero columns: a value no sample has moves no sample either way."""
    A, y, groups = tiny_data(4, n=28, sizes=(6, 5, 3))
    A[:5, groups[1]] = 0
    wide = np.hstack([A[:, :3], np.zeros((len(A), 10), dtype=A.dtype), A[:, 3:]])
    wide_groups = [list(range(16))] + [[c + 10 for c in cols] for cols in groups[1:]]
    positive, weight = y == 1, np.where(y == 1, 1.0, 1.5)
    solver = SubsetSubtreeSolver(wide, positive, [Group(f"g{t}", tuple(c)) for t, c in enumerate(wide_groups)], 1.5,
                                 ordinal=False)
    rng = np.random.default_rng(2)
    for rows in [np.ones(len(y), dtype=bool)] + [(rng.random(len(y)) < 0.7) & (A[:, 0] == 0) for _ in range(2)]:
        for height, shape in ((1, (None, None)), (2, SHAPES["depth2"])):
            expected = best_weighted(frontier(A[rows], positive[rows], groups, shape, free_labels=False), 1.5)
            assert solver.bound(rows, height) == pytest.approx(expected)
            assert subtree_score(wide, positive, solver.best_tests(rows, height), weight)(rows) == \
                pytest.approx(expected)


def test_subtree_optimum_facts_behind_the_cuts():
    """(SB) rests on OPT_h being monotone and OPT_h(S ∪ T) <= OPT_h(S) + w(T); checked on random sets."""
    A, y, groups = tiny_data(4, n=30)
    positive = y == 1
    solver = SubsetSubtreeSolver(A, positive, [Group(f"g{t}", tuple(c)) for t, c in enumerate(groups)], 1.5,
                                 ordinal=False)
    weight = np.where(positive, 1.0, 1.5)
    rng = np.random.default_rng(0)
    for _ in range(20):
        S, T = rng.random(len(y)) < 0.5, rng.random(len(y)) < 0.3
        for height in (1, 2):
            assert solver.bound(S & ~T, height) <= solver.bound(S, height) + 1e-9
            assert solver.bound(S | T, height) <= solver.bound(S, height) + weight[T & ~S].sum() + 1e-9


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_subtree_benders_equals_brute_force(topology):
    if "scip" not in available_solvers():
        pytest.skip("scip not installed")
    A, y, groups = tiny_data(3)
    expected = best_weighted(frontier(A, y == 1, groups, SHAPES[topology]))
    model = fit(A, y, groups, topology=topology, ordinal_splits=False, subtree_benders=True, solver="scip")
    assert_tree_matches(model, expected)


@pytest.mark.parametrize("anchors,ordinal,max_card,class_weight", [
    (False, False, None, 1.0), (True, True, None, 1.0), (True, False, 1, 1.0), (False, True, 1, 2.0)])
def test_subtree_benders_joins_the_toggle_matrix(anchors, ordinal, max_card, class_weight):
    """The decomposition on SCIP and on HiGHS (restart loop) reaches the oracle's optimum whatever the switches
    of its master (formulation (8)'s own switches are checked above)."""
    A, y, groups = tiny_data(6, sizes=(3, 2, 4))
    fgroups = [FeatureGroup(f"g{t}", cols, "ordinal" if t == 2 else "categorical") for t, cols in enumerate(groups)]
    expected = best_weighted(frontier(A, y == 1, groups, SHAPES["depth3"], ordinal_groups=(2,) if ordinal else (),
                                      max_card=max_card), class_weight)
    params = dict(topology="depth3", anchors=anchors, ordinal_splits=ordinal, max_card=max_card,
                  class_weight=class_weight)
    for solver in ("scip", "highs"):
        if solver not in available_solvers():
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SolverCapabilityWarning)
            model = fit(A, y, fgroups, subtree_benders=True, solver=solver, **params)
        assert_tree_matches(model, expected)


def test_subtree_benders_on_highs_says_it_runs_a_restart_loop():
    A, y, groups = tiny_data(0, n=12)
    with pytest.warns(SolverCapabilityWarning, match="restart loop"):
        fit(A, y, groups, topology="depth2", subtree_benders=True, solver="highs")


def reaches(root, target, depth: int = 3) -> bool:
    """Whether ``target`` is reachable from ``root`` in at most ``depth`` steps through instance attributes,
    container items, the object of a bound method and the cells of a closure (Pyomo models and arrays hold
    data only and are not entered)."""
    if root is target:
        return True
    if depth == 0 or root is None or isinstance(root, (np.ndarray, pyo.Block, str, bytes, int, float)):
        return False
    if isinstance(root, dict):
        children = [*root.keys(), *root.values()]
    elif isinstance(root, (list, tuple, set, frozenset)):
        children = list(root)
    else:
        children = [*getattr(root, "__dict__", {}).values(), getattr(root, "__self__", None),
                    *(cell.cell_contents for cell in getattr(root, "__closure__", None) or ())]
    return any(reaches(child, target, depth - 1) for child in children)


def test_reaches_finds_an_estimator_behind_a_closure_or_a_bound_method():
    est = CategoricalODT()
    assert reaches({"f": lambda: est}, est) and reaches([est.fit], est) and not reaches({"x": [1, 2]}, est)


def test_subtree_benders_runs_its_plugin_which_holds_no_estimator():
    """The cuts (SB) are the master's only link to the samples below the frontier: without them θ_k is bounded by
    the weight of the samples its parent sends to k, and the master's optimum is the total weight (24, C = 1).
    These labels leave conflicting duplicates (``tiny_data``), so the optimum is below 24, and the lazy family
    must have been called and have returned at least one row; every row is a bound OPT(S) it computed."""
    A, y, groups = tiny_data(6, sizes=(3, 2, 4))
    solver = "scip" if "scip" in available_solvers() else "highs"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SolverCapabilityWarning)
        model = fit(A, y, groups, topology="depth3", subtree_benders=True, solver=solver)
    assert model.solve_result_.objective < len(y)
    stats = model.solve_result_.extra["plugins"]
    assert list(stats) == ["SubtreeBendersCuts"]
    assert stats["SubtreeBendersCuts"]["calls"] >= 1 and stats["SubtreeBendersCuts"]["rows"] >= 1
    assert stats["SubtreeBendersCuts"]["subtree_solves"] >= 1
    ctx = model._context(A.astype(float), np.searchsorted(model.classes_, y))
    callbacks = model._callbacks(ctx, model._build(ctx))
    assert [type(p).__name__ for p in callbacks.plugins] == ["SubtreeBendersCuts"]
    assert not any(reaches(plugin, model) for plugin in callbacks.plugins)


@pytest.mark.parametrize("params,data,match", [
    ({"maximize": "sensitivity", "floor": 0.9}, "tiny", "maximize='accuracy'"),
    ({"proper_splits": True}, "tiny", "proper_splits"),
    ({}, "wide", "set max_card"),
    ({}, "multi_hot", "at most one 1 per row"),
])
def test_subtree_benders_refuses_what_it_cannot_solve(params, data, match):
    A, y, groups = tiny_data(0, n=200, sizes=(3, 2, 20)) if data == "wide" else tiny_data(0)
    if data == "multi_hot":
        A[0, groups[0]] = 1
    with pytest.raises(ValueError, match=match):
        fit(A, y, groups, topology="depth3", ordinal_splits=False, subtree_benders=True, solver="highs", **params)
