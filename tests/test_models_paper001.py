"""Paper 001 formulations (FlowOCT, BendersOCT, OCT, BinOCT) against independent oracles.

The oracles (tests/oracles.py) are an exhaustive search over univariate trees and the STreeD dynamic
program (pystreed); neither shares code with the MIP models. Instances are tiny so every test takes
seconds on a busy 2-core machine.
"""
from __future__ import annotations

import warnings

import numpy as np
import pyomo.environ as pyo
import pytest
from scipy.optimize import linprog

from odtlib.models.univariate._flow_tree import NO_SPLIT, route
from odtlib.models._pipeline import FitContext
from odtlib.models._tree_index import TreeIndex
from odtlib.models.univariate.benders_cuts import cut_coefficients, min_cut_source_sets, path_source_sets
from odtlib.models.univariate.bendersoct import BendersOCT
from odtlib.models.univariate.binoct import BinOCT
from odtlib.models.univariate.flowoct import FlowOCT
from odtlib.models.univariate.oct import OCT
from odtlib.solvers import SolverCapabilityWarning, available_solvers
from odtlib.tree import Leaf, Tree, UnivariateSplit

from oracles import (
    brute_force_tree,
    enumerate_trees_explicitly,
    predict_tree,
    pystreed_correct,
    random_binary_data,
    violated_constraints,
)

pytestmark = pytest.mark.timeout(300)
SOLVERS = available_solvers()
needs_scip = pytest.mark.skipif("scip" not in SOLVERS, reason="PySCIPOpt not installed")
needs_glpk = pytest.mark.skipif("glpk" not in SOLVERS, reason="glpsol not installed")


def small_data(seed: int, n_rows: int = 20, n_features: int = 4, n_classes: int = 3):
    return random_binary_data(n_rows, n_features, n_classes, seed)


def fit(cls, X, y, **params):
    """Fit without a warm start unless asked (the toggle matrix switches it on separately)."""
    params.setdefault("warm_start", False)
    return cls(threads=1, time_limit=120, **params).fit(X, y)


# ------------------------------------------------------------------------------------------- the oracles
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("lam", [0.0, 0.2, 0.6])
def test_exhaustive_search_equals_explicit_enumeration(seed, depth, lam):
    X, y = random_binary_data(14, 3, 3, seed)
    assert brute_force_tree(X, y, depth, lam)[0] == pytest.approx(enumerate_trees_explicitly(X, y, depth, lam))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("depth", [2, 3])
def test_exhaustive_search_equals_pystreed(seed, depth):
    X, y = random_binary_data(40, 6, 2 + seed % 2, seed)
    objective, correct, _, tree = brute_force_tree(X, y, depth)
    assert correct == pystreed_correct(X, y, depth)
    assert int((predict_tree(tree, X) == y).sum()) == correct == objective


# ------------------------------------------------------------------------------------------- Benders core
def _random_tree_values(rng, depth, n_features, n_classes, fractional):
    """(b, w) on the full node grid satisfying (1.2)/(1.3); integer or fractional."""
    tree = TreeIndex(depth)
    b = np.zeros((tree.n_nodes + 1, n_features))
    w = np.zeros((tree.n_nodes + 1, n_classes))
    for n in tree.nodes:
        size = n_features + n_classes if n in tree.internal else n_classes
        weights = rng.dirichlet(np.ones(size)) if fractional else np.eye(size)[rng.integers(size)]
        if n in tree.internal:
            b[n], w[n] = weights[:n_features], weights[n_features:]
        else:
            w[n] = weights
    return b, w


def _lp_max_flow(x, label, b, w, depth):
    """Max flow (6) of one point by scipy's LP solver: an independent check of the min cut."""
    tree = TreeIndex(depth)
    arcs = [("s", 1, 1.0)]
    for n in tree.internal:
        arcs += [(n, 2 * n, float(b[n] @ (1 - x))), (n, 2 * n + 1, float(b[n] @ x))]
    arcs += [(n, "t", float(w[n, label])) for n in tree.nodes]
    A_eq = np.zeros((len(tree.nodes), len(arcs)))
    for j, (u, v, _) in enumerate(arcs):
        if v != "t":
            A_eq[tree.nodes.index(v), j] += 1
        if u != "s":
            A_eq[tree.nodes.index(u), j] -= 1
    c = -np.array([1.0 if v == "t" else 0.0 for _, v, _ in arcs])
    res = linprog(c, A_eq=A_eq, b_eq=np.zeros(len(tree.nodes)), bounds=[(0, cap) for *_, cap in arcs])
    return -res.fun


def _cut_rhs(X, y, in_source, b, w, depth):
    """Right-hand side of the cut (8.2) of each point, evaluated at (b, w)."""
    coef = cut_coefficients(X, in_source, depth)
    return (coef * b[None]).sum(axis=(1, 2)) + (in_source * w[:, y].T).sum(axis=1)


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("fractional", [False, True])
def test_min_cut_value_equals_lp_max_flow(depth, fractional):
    rng = np.random.default_rng(depth)
    X, y = random_binary_data(25, 4, 3, depth)
    for _ in range(5):
        b, w = _random_tree_values(rng, depth, 4, 3, fractional)
        separate = min_cut_source_sets if fractional else path_source_sets
        flow, in_source = separate(X.astype(float), b, w, y, depth)
        expected = [_lp_max_flow(X[i], y[i], b, w, depth) for i in range(len(y))]
        np.testing.assert_allclose(flow, expected, atol=1e-7)
        # the cut's capacity at (b, w) is the min cut whenever it is below 1 (the arc (s, 1) otherwise)
        rhs = _cut_rhs(X, y, in_source, b, w, depth)
        np.testing.assert_allclose(np.minimum(rhs, 1), flow, atol=1e-7)


@pytest.mark.parametrize("depth", [1, 2])
def test_benders_cuts_are_valid_for_every_tree(depth):
    """A cut found at one tree never cuts off a point that another tree classifies correctly."""
    rng = np.random.default_rng(7)
    X, y = random_binary_data(12, 3, 2, 5)
    for _ in range(20):
        b, w = _random_tree_values(rng, depth, 3, 2, fractional=bool(rng.integers(2)))
        separate = min_cut_source_sets if b.max() < 1 else path_source_sets
        _, in_source = separate(X.astype(float), b, w, y, depth)
        for _ in range(20):
            b2, w2 = _random_tree_values(rng, depth, 3, 2, fractional=False)
            flow2, _ = path_source_sets(X.astype(float), b2, w2, y, depth)
            assert np.all(_cut_rhs(X, y, in_source, b2, w2, depth) >= flow2 - 1e-9)


@pytest.mark.parametrize("depth", [1, 2])
def test_benders_feasibility_check_agrees_with_its_rows(depth):
    """`rejects` (separation only, SCIP's check of heuristic solutions) says the same as testing the rows."""
    from odtlib.models.univariate import bendersoct
    from odtlib.solvers import LazyRowFamily, Values
    from odtlib.solvers.standard_form import ColumnIndex

    rng = np.random.default_rng(11)
    X, y = random_binary_data(15, 3, 2, depth)
    model = bendersoct.build_model(X, y, depth)
    cuts = bendersoct.benders_cuts(FitContext.of(X, y, depth=depth), model)
    columns = list(model.component_data_objects(pyo.Var))
    index = ColumnIndex(columns)
    seen = set()
    for trial in range(30):
        b, w = _random_tree_values(rng, depth, 3, 2, fractional=False)
        flow, _ = path_source_sets(X.astype(float), b, w, y, depth)
        g = flow if trial % 2 else np.maximum(flow, rng.random(len(y)) < 0.1)   # feasible, or maybe not
        value = {id(model.b[n, f]): b[n, f] for n, f in model.b}
        value |= {id(model.w[n, k]): w[n, k] for n, k in model.w}
        value |= {id(model.g[i]): float(g[i]) for i in model.g}
        values = Values(np.array([value[id(v)] for v in columns]), index)
        rejected = cuts.rejects(values)
        assert rejected == LazyRowFamily.rejects(cuts, values)
        seen.add(rejected)
    assert seen == {True, False}


def test_route_follows_the_tree():
    X = np.array([[0, 1], [1, 0], [1, 1]])
    branch = np.full(8, NO_SPLIT)
    branch[1], branch[3] = 0, 1          # root on x0; node 3 on x1; node 2 predicts
    terminal, on_path = route(X, branch, 2)
    assert terminal.tolist() == [2, 6, 7]
    assert on_path[2].nonzero()[0].tolist() == [1, 3, 7]


# ------------------------------------------------------------------------------------------- optimum vs oracle
MODELS_AT_ZERO = [FlowOCT, BendersOCT, OCT, BinOCT]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("cls", MODELS_AT_ZERO, ids=lambda c: c.__name__)
def test_all_four_models_reach_the_oracle_optimum_at_lambda_zero(cls, seed):
    X, y = small_data(seed, n_classes=2 + seed)
    expected = brute_force_tree(X, y, 2)[1]
    solver = "scip" if cls is BendersOCT and "scip" in SOLVERS else "highs"
    model = fit(cls, X, y, depth=2, solver=solver)
    assert model.solve_result_.status == "optimal"
    assert round(model.solve_result_.objective) == expected
    assert model.score(X, y) * len(y) == pytest.approx(expected)


@pytest.mark.parametrize("lam", [0.1, 0.5])
@pytest.mark.parametrize("cls", [FlowOCT, BendersOCT, OCT], ids=lambda c: c.__name__)
def test_split_penalty_optimum_equals_brute_force(cls, lam):
    X, y = small_data(2, n_rows=18)
    expected, correct, splits, _ = brute_force_tree(X, y, 2, lam)
    solver = "scip" if cls is BendersOCT and "scip" in SOLVERS else "highs"
    model = fit(cls, X, y, depth=2, split_penalty=lam, solver=solver)
    assert model.solve_result_.status == "optimal"
    assert model.solve_result_.objective == pytest.approx(expected, abs=1e-6)
    tree_correct = int((model.predict(X) == y).sum())
    assert (1 - lam) * tree_correct - lam * model.tree_.n_splits == pytest.approx(expected, abs=1e-6)


def test_depth_three_matches_pystreed():
    X, y = random_binary_data(24, 4, 2, 3)
    model = fit(FlowOCT, X, y, depth=3)
    assert round(model.solve_result_.objective) == pystreed_correct(X, y, 3)


# ------------------------------------------------------------------------------------------- switches
TOGGLES = [
    pytest.param(FlowOCT, "highs", {}, id="flow-highs"),
    pytest.param(FlowOCT, "highs", {"warm_start": True}, id="flow-highs-cart"),
    pytest.param(FlowOCT, "scip", {}, id="flow-scip", marks=needs_scip),
    pytest.param(FlowOCT, "scip", {"valid_inequalities": True}, id="flow-scip-cuts4", marks=needs_scip),
    pytest.param(FlowOCT, "scip", {"valid_inequalities": True, "warm_start": True}, id="flow-scip-cuts4-cart",
                 marks=needs_scip),
    pytest.param(BendersOCT, "scip", {}, id="benders-scip", marks=needs_scip),
    pytest.param(BendersOCT, "scip", {"fractional_benders_cuts": True}, id="benders-scip-frac", marks=needs_scip),
    pytest.param(BendersOCT, "scip", {"fractional_benders_cuts": True, "warm_start": True}, id="benders-scip-frac-cart",
                 marks=needs_scip),
    pytest.param(BendersOCT, "highs", {}, id="benders-highs-restart"),
    pytest.param(BendersOCT, "highs", {"warm_start": True}, id="benders-highs-restart-cart"),
    pytest.param(FlowOCT, "scip", {"engine": "accelerated"}, id="flow-scip-accelerated", marks=needs_scip),
    pytest.param(BendersOCT, "scip", {"engine": "accelerated", "warm_start": True}, id="benders-scip-accelerated-cart",
                 marks=needs_scip),
    pytest.param(BendersOCT, "highs", {"engine": "accelerated"}, id="benders-highs-accelerated"),
    pytest.param(OCT, "highs", {"warm_start": True}, id="oct-highs-cart"),
    pytest.param(OCT, "scip", {}, id="oct-scip", marks=needs_scip),
]


@pytest.mark.parametrize("lam", [0.0, 0.5])
@pytest.mark.parametrize("cls, solver, switches", TOGGLES)
@pytest.mark.parametrize("depth", [1, 2])
def test_every_switch_gives_the_same_optimum(cls, solver, switches, lam, depth):
    X, y = small_data(3, n_rows=16)
    expected = brute_force_tree(X, y, depth, lam)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SolverCapabilityWarning)      # the accelerated engine on HiGHS
        model = fit(cls, X, y, depth=depth, split_penalty=lam, solver=solver, **switches)
    assert model.solve_result_.status == "optimal"
    assert model.solve_result_.objective == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("cls", [BinOCT, OCT], ids=lambda c: c.__name__)
def test_baselines_with_cart_start_on_scip(cls):
    if "scip" not in SOLVERS:
        pytest.skip("PySCIPOpt not installed")
    X, y = small_data(4, n_rows=16)
    model = fit(cls, X, y, depth=2, solver="scip", warm_start=True)
    assert round(model.solve_result_.objective) == brute_force_tree(X, y, 2)[1]


@needs_glpk
@pytest.mark.parametrize("cls", [FlowOCT, BendersOCT, BinOCT], ids=lambda c: c.__name__)
def test_glpk_on_a_tiny_instance(cls):
    X, y = random_binary_data(10, 3, 2, 6)
    model = fit(cls, X, y, depth=2, solver="glpk")
    assert model.solve_result_.status == "optimal"
    assert round(model.solve_result_.objective) == brute_force_tree(X, y, 2)[1]


# ------------------------------------------------------------------------------------------- tree vs model
@pytest.mark.parametrize("lam", [0.0, 0.3])
def test_tree_predicts_what_the_flow_says(lam):
    X, y = small_data(5, n_rows=20)
    model = fit(FlowOCT, X, y, depth=2, split_penalty=lam, keep_model=True)
    m = model.model_
    flow_to_sink = sum(pyo.value(m.zt[i, n]) for i in m.I for n in m.V)
    tree_correct = int((model.predict(X) == y).sum())
    assert tree_correct == round(flow_to_sink)
    # point by point: the flow reaches the sink exactly for the correctly classified points
    per_point = np.array([sum(pyo.value(m.zt[i, n]) for n in m.V) for i in m.I])
    np.testing.assert_allclose(per_point, model.predict(X) == y, atol=1e-6)
    splits = sum(pyo.value(m.b[n, f]) for n in m.N for f in m.F)
    assert model.solve_result_.objective == pytest.approx((1 - lam) * tree_correct - lam * splits, abs=1e-6)
    if lam > 0:
        assert round(splits) == model.tree_.n_splits


def test_benders_g_matches_tree():
    X, y = small_data(6, n_rows=20)
    model = fit(BendersOCT, X, y, depth=2, solver="scip" if "scip" in SOLVERS else "highs", keep_model=True)
    g = np.array([pyo.value(model.model_.g[i]) for i in model.model_.I])
    np.testing.assert_allclose(g, model.predict(X) == y, atol=1e-6)


def test_original_labels_and_feature_names_are_kept():
    import pandas as pd

    X, y = small_data(7, n_rows=16, n_classes=2)
    labels = np.array(["no", "yes"])[y]
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    model = fit(FlowOCT, frame, labels, depth=1)
    assert set(model.predict(frame)) <= {"no", "yes"}
    assert model.tree_.feature_names == list(frame.columns)


# ------------------------------------------------------------------------------------------- warm starts
@pytest.mark.parametrize("cls", [FlowOCT, BendersOCT, OCT, BinOCT], ids=lambda c: c.__name__)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_cart_start_is_feasible_and_scores_like_cart(cls, depth):
    from sklearn.tree import DecisionTreeClassifier

    X, y = small_data(8, n_rows=25)
    est = cls(depth=depth)
    est.classes_ = np.unique(y)
    ctx = est._context(X.astype(float), y)
    formulation = est._build(ctx)
    model = formulation.model
    start = formulation.start_values(est._initial_tree(ctx))
    assert len(start) == sum(1 for v in model.component_data_objects(pyo.Var))   # every variable set
    assert violated_constraints(model, start) == []
    cart_correct = int((DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y).predict(X) == y).sum())
    assert pyo.value(model.objective) == pytest.approx(cart_correct)


def test_tree_warm_start_is_used_as_given():
    X, y = small_data(9, n_rows=16, n_classes=2)
    given = Tree({1: UnivariateSplit(0, 2, 3), 2: Leaf(0), 3: Leaf(1)})
    model = fit(FlowOCT, X, y, depth=2, warm_start=given)
    assert round(model.solve_result_.objective) == brute_force_tree(X, y, 2)[1]


# ------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("cls", MODELS_AT_ZERO, ids=lambda c: c.__name__)
def test_non_binary_features_are_rejected(cls):
    X = np.array([[0, 2], [1, 0], [0, 1]])
    with pytest.raises(ValueError, match="binary"):
        cls(depth=1).fit(X, [0, 1, 0])


@pytest.mark.parametrize("bad", [-0.1, 1.5, "a"])
def test_bad_split_penalty(bad):
    with pytest.raises(ValueError, match="split_penalty"):
        FlowOCT(depth=1, split_penalty=bad).fit(np.eye(3), [0, 1, 0])


def test_bad_warm_start_and_the_capability_policy():
    """A cut switch runs in root LP rounds on HiGHS (with a warning) and is refused where no cut runs at all."""
    from odtlib.solvers import SolverCapabilityWarning

    X, y = np.eye(3), [0, 1, 0]
    with pytest.raises(ValueError, match="warm_start"):
        FlowOCT(depth=1, warm_start="nope").fit(X, y)
    with pytest.warns(SolverCapabilityWarning, match="valid_inequalities runs by root LP rounds"):
        assert FlowOCT(depth=1, valid_inequalities=True, solver="highs").fit(X, y).score(X, y) == 1.0
    with pytest.warns(SolverCapabilityWarning, match="fractional_benders_cuts runs by root LP rounds"):
        assert BendersOCT(depth=1, fractional_benders_cuts=True, solver="highs").fit(X, y).score(X, y) == 1.0
    for cls, switch in ((FlowOCT, "valid_inequalities"), (BendersOCT, "fractional_benders_cuts")):
        with pytest.raises(ValueError, match=f"{switch} needs cuts callbacks.*use solver='scip'"):
            cls(depth=1, solver="gurobi", **{switch: True}).fit(X, y)


def test_depth_zero_and_unknown_solver():
    X, y = np.eye(3), [0, 1, 0]
    with pytest.raises(ValueError, match="depth"):
        FlowOCT(depth=0).fit(X, y)
    with pytest.raises(ValueError, match="solver"):
        BendersOCT(depth=1, solver="nosuch").fit(X, y)


# ------------------------------------------------------------------------------------------- paper data
@pytest.fixture(scope="module")
def monk3():
    data = pytest.importorskip("odtlib.data")
    if not hasattr(data, "paper_dataset"):
        pytest.skip("odtlib.data.paper_dataset not available")
    X, y, _ = data.paper_dataset("001", "monk3")
    return X.to_numpy(), y.to_numpy()


@pytest.mark.parametrize("cls", [FlowOCT, BendersOCT], ids=lambda c: c.__name__)
def test_monk3_depth1_equals_pystreed(monk3, cls):
    X, y = monk3
    model = fit(cls, X, y, depth=1, solver="scip" if cls is BendersOCT and "scip" in SOLVERS else "highs")
    assert model.solve_result_.status == "optimal"
    assert round(model.solve_result_.objective) == pystreed_correct(X, y, 1)


@pytest.mark.slow
@needs_scip
def test_monk3_depth2_benders_equals_pystreed(monk3):
    X, y = monk3
    model = fit(BendersOCT, X, y, depth=2)
    assert model.solve_result_.status == "optimal"
    assert round(model.solve_result_.objective) == pystreed_correct(X, y, 2)


@pytest.mark.slow
def test_monk3_subsample_depth2_all_models_agree(monk3):
    X, y = monk3
    rows = np.random.default_rng(0).choice(len(y), 40, replace=False)
    X, y = X[rows], y[rows]
    expected = pystreed_correct(X, y, 2)
    for cls in MODELS_AT_ZERO:
        solver = "scip" if cls is BendersOCT and "scip" in SOLVERS else "highs"
        assert round(fit(cls, X, y, depth=2, solver=solver).solve_result_.objective) == expected, cls.__name__


# ------------------------------------------------------------------- paper 001's problem is paper 003's at λ'
# (1 - λ)·correct - λ·splits = (1 - λ)·N·(accuracy - λ'·leaves) + λ with λ' = λ/((1 - λ)·N), splits = leaves - 1
# (odtlib/models/univariate/_accelerated_engine.py). The oracles below never go through that conversion: the exhaustive
# search scores (1.1) itself, STreeD scores accuracy - λ'·leaves itself.
PAPER001_DATASETS = ("monk3", "monk1", "monk2", "house-votes-84", "balance-scale", "tic-tac-toe", "car_evaluation",
                     "kr-vs-kp")


@pytest.fixture(scope="module")
def paper001_data():
    from odtlib.data import paper_dataset

    data = {}
    for name in PAPER001_DATASETS:
        X, y, _ = paper_dataset("001", name)
        data[name] = X.to_numpy(dtype=np.int64), np.unique(y.to_numpy(), return_inverse=True)[1]
    return data


def paper001_objective(model, X, y, lam):
    """(1.1) of a fitted tree, counted from its predictions."""
    return (1 - lam) * int((model.predict(X) == y).sum()) - lam * model.tree_.n_splits


def paper003_objective(model, X, y, leaf_penalty):
    """Paper 003's objective (1), accuracy - λ'·leaves, of a fitted tree."""
    return float((model.predict(X) == y).mean()) - leaf_penalty * model.tree_.n_leaves


def streed_objective(X, y, depth, leaf_penalty):
    """max accuracy - λ'·leaves by STreeD (cost-complex-accuracy with cost_complexity = λ')."""
    from pystreed import STreeDClassifier

    streed = STreeDClassifier(optimization_task="cost-complex-accuracy", max_depth=depth,
                              cost_complexity=leaf_penalty, time_limit=60, random_seed=0).fit(X, y)
    assert streed.fit_result.is_optimal()
    return float((streed.predict(X) == y).mean()) - leaf_penalty * streed.get_n_leaves()


def _rows(n_total, n_rows, seed):
    return np.sort(np.random.default_rng(seed).choice(n_total, n_rows, replace=False)) if n_rows else slice(None)


# the paper's formulations are slow on the large datasets: depth 1 on all rows where it takes about a second,
# depth 2 on a row sample; every dataset appears, each λ of {0.1, 0.3, 0.5, 0.7, 0.9} at least once
EQUIVALENCE = [("monk3", BendersOCT, 1, None, 0.1), ("monk1", FlowOCT, 1, None, 0.5),
               ("monk2", BendersOCT, 1, None, 0.9), ("house-votes-84", FlowOCT, 1, None, 0.3),
               ("house-votes-84", FlowOCT, 2, 30, 0.5), ("balance-scale", BendersOCT, 2, 30, 0.1),
               ("tic-tac-toe", BendersOCT, 1, 200, 0.7), ("car_evaluation", BendersOCT, 2, 30, 0.5),
               ("kr-vs-kp", BendersOCT, 1, 300, 0.3)]


@needs_scip
@pytest.mark.parametrize("name,cls,depth,n_rows,lam", EQUIVALENCE,
                         ids=[f"{c[0]}-{c[1].__name__}-d{c[2]}-{c[3] or 'all'}-{c[4]}" for c in EQUIVALENCE])
def test_paper001_optimum_is_paper003s_at_the_converted_penalty(paper001_data, name, cls, depth, n_rows, lam):
    """The formulation's optimal tree is optimal for accuracy - λ'·leaves and RegularizedBendOCT's optimal tree
    is optimal for (1.1); both optima convert into each other and equal the exhaustive search's."""
    from odtlib.models import RegularizedBendOCT

    X, y = paper001_data[name]
    rows = _rows(len(y), n_rows, seed=len(name))
    X, y = X[rows], y[rows]
    leaf_penalty = lam / ((1 - lam) * len(y))
    expected = brute_force_tree(X, y, depth, lam)[0]
    paper001 = fit(cls, X, y, depth=depth, split_penalty=lam, solver="scip" if cls is BendersOCT else "highs",
                   warm_start=True)
    paper003 = RegularizedBendOCT(depth=depth, leaf_penalty=leaf_penalty).fit(X, y)
    assert paper001.solve_result_.status == paper003.solve_result_.status == "optimal"
    assert paper001.solve_result_.objective == pytest.approx(expected, abs=1e-6)
    assert (1 - lam) * len(y) * paper003.solve_result_.objective + lam == pytest.approx(expected, abs=1e-6)
    # equal optimal trees: each engine's tree is optimal for the other's objective
    assert paper001_objective(paper003, X, y, lam) == pytest.approx(expected, abs=1e-9)
    assert paper003_objective(paper001, X, y, leaf_penalty) == pytest.approx(
        paper003.solve_result_.objective, abs=1e-9)


ACCELERATED = [(name, lam) for j, name in enumerate(PAPER001_DATASETS) for lam in ((0.1, 0.5, 0.9)[j % 3], 0.3)]


@needs_scip
@pytest.mark.parametrize("name,lam", ACCELERATED)
def test_accelerated_engine_on_paper001_datasets_equals_brute_force_and_pystreed(paper001_data, name, lam):
    """All rows, depth 2: BendersOCT(engine="accelerated") proves the exhaustive search's optimum of (1.1), and
    its optimum on paper 003's scale is STreeD's at λ'."""
    X, y = paper001_data[name]
    model = BendersOCT(depth=2, split_penalty=lam, engine="accelerated").fit(X, y)
    result = model.solve_result_
    leaf_penalty = lam / ((1 - lam) * len(y))
    expected = brute_force_tree(X, y, 2, lam)[0]
    assert result.status == "optimal" and result.extra["engine"] == "accelerated"
    assert result.objective == pytest.approx(expected, abs=1e-6)
    assert result.bound == pytest.approx(expected, abs=1e-6) and result.gap == 0
    assert paper001_objective(model, X, y, lam) == pytest.approx(expected, abs=1e-9)
    assert result.extra["leaf_penalty"] == pytest.approx(leaf_penalty, rel=1e-12)
    assert result.extra["accelerated_objective"] == pytest.approx(streed_objective(X, y, 2, leaf_penalty), abs=1e-9)


@pytest.mark.parametrize("cls,solver", [(FlowOCT, "scip"), (BendersOCT, "scip"), (FlowOCT, "highs")],
                         ids=["flow-scip", "benders-scip", "flow-highs"])
def test_engine_switch_reports_on_paper001s_scale(cls, solver):
    if solver == "scip" and "scip" not in SOLVERS:
        pytest.skip("PySCIPOpt not installed")
    X, y = small_data(12, n_rows=30)
    lam = 0.2
    expected = brute_force_tree(X, y, 2, lam)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SolverCapabilityWarning)      # HiGHS: cuts in root rounds
        fast = fit(cls, X, y, depth=2, split_penalty=lam, solver=solver, engine="accelerated", keep_model=True)
    paper = fit(cls, X, y, depth=2, split_penalty=lam, solver=solver)
    assert paper.solve_result_.extra["engine"] == "formulation"
    assert fast.solve_result_.extra["engine"] == "accelerated"
    assert hasattr(fast.model_, "theta")                           # the master of RegularizedBendOCT ran
    for model in (fast, paper):
        assert model.solve_result_.status == "optimal"
        assert model.solve_result_.objective == pytest.approx(expected, abs=1e-6)
        assert model.solve_result_.bound == pytest.approx(expected, abs=1e-6)
    accelerated = fast.solve_result_.extra["accelerated_objective"]
    assert accelerated == pytest.approx((expected - lam) / ((1 - lam) * len(y)), abs=1e-9)
    assert fast.get_params()["engine"] == "accelerated" and FlowOCT().get_params()["engine"] == "formulation"


def test_engine_switch_is_validated_and_refuses_a_penalty_it_cannot_convert():
    X, y = small_data(13, n_rows=9, n_classes=2)
    with pytest.raises(ValueError, match="'engine' parameter"):
        FlowOCT(depth=1, engine="fast").fit(X, y)
    with pytest.raises(ValueError, match=r"engine='accelerated' needs .*split_penalty <= N/\(N\+1\) = 0.9 "):
        BendersOCT(depth=1, split_penalty=0.95, engine="accelerated").fit(X, y)
