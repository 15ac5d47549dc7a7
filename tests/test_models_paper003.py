"""Paper 003 (Keegan et al. 2025): RegularizedBendOCT, its acceleration switches and RegularizedFlowOCT.

Every optimum is checked against oracles that share no code with the models:

* ``tests/oracles.brute_force_tree`` (exhaustive recursion over all trees of depth <= d): its objective
  ``(1 - l)·correct - l·splits`` with ``l = α/(1+α)`` is ``(1 - l)·(correct - α·splits)``, and with
  leaves = splits + 1 our objective (1) is ``(correct - α·leaves) / n`` for α = n·λ;
* STreeD (``pystreed``), cost-complex-accuracy with c = α/n (see tests/test_d2s.py);
* the authors' published optima of paper instances (``tests/fixtures/paper003_published_optima.csv``: rows of
  their per-instance Gurobi results and of ``paper_results.md``'s calibration table).

The toggle matrix (STreeD's pattern): the same instances solved under many switch combinations -- every
switch on and off against the plain master and against the paper's best configuration, plus seeded random
combinations -- must all reach the oracle's optimum.
"""
from __future__ import annotations

import random
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyomo.environ as pyo
import pytest
from oracles import brute_force_tree, random_binary_data

from odtlib.models import RegularizedBendOCT, RegularizedFlowOCT
from odtlib.models.univariate._sparse_tree import SparseTree
from odtlib.models.univariate.accel import EQPInequalities, PathBoundCuts, SolutionPolishing, find_eqp_sets
from odtlib.models.univariate.accel.d2s import solve_depth2
from odtlib.models.univariate._regularized import RegularizedContext
from odtlib.models.univariate.regularized_bendoct import BendOCTMaster, branch_and_cut, build_model
from odtlib.solvers import solve

# the paper's plain BendOCT from the estimator's registry, here also without its CART warm start (the
# toggle matrix switches warm_start on separately)
PLAIN = {**RegularizedBendOCT.PAPER_METHODS["BendOCT"], "warm_start": False}
BEST: dict = {}   # the estimator's defaults: the paper's best configuration, top-down, EQP "auto"


def oracle_value(X, y, depth, lam):
    """max accuracy - λ·leaves over all trees of depth <= ``depth``, by exhaustive recursion."""
    n = len(y)
    alpha = n * lam
    split_cost = alpha / (1 + alpha)
    objective = brute_force_tree(X, y, depth, split_cost)[0]
    return (objective / (1 - split_cost) - alpha) / n


def fitted_value(model, X, y, lam):
    """Objective (1) of the fitted tree, recomputed from its predictions."""
    return float((model.predict(X) == y).mean()) - lam * model.tree_.n_leaves


def instance(seed, n_rows=30, n_features=5, n_classes=2):
    return random_binary_data(n_rows, n_features, n_classes, seed)


# ------------------------------------------------------------------------------------------ toggle matrix
SWITCH_VALUES = {
    "strengthened_benders_cuts": [False, True],
    "polishing": [False, True],
    "warm_start": [False, True],
    "eqp": [None, "basic", "chain", "recursive", "auto"],
    "eqp_disaggregated": [False, True],
    "eqp_group_selection": [False, True],
    "eqp_max_split": [1, 2, 3],
    "path_bound_cuts": [False, True],
    "path_bound_negative_samples": [False, True],
    "path_bound_structure": [False, True],
    "path_bound_height": [2, 3],
    "top_down_branching": [False, True],
}


def _configurations():
    configs = {"plain": dict(PLAIN), "best": dict(BEST)}
    defaults = RegularizedBendOCT().get_params()
    for name, options in SWITCH_VALUES.items():
        for value in options:
            if value != PLAIN.get(name, defaults[name]):
                on_plain = {**PLAIN, name: value}
                if name.startswith(("eqp_", "path_bound_")) and name != "path_bound_cuts":  # sub-switches need
                    on_plain.update(eqp="chain" if name.startswith("eqp_") else None,       # their family on
                                    path_bound_cuts=name.startswith("path_bound_"))
                configs[f"plain+{name}={value}"] = on_plain
            if value != defaults[name]:
                configs[f"best+{name}={value}"] = {name: value}
    rng = random.Random(2025)
    for j in range(4):
        configs[f"random{j}"] = {name: rng.choice(options) for name, options in SWITCH_VALUES.items()}
    configs["pbcp basic (24) only"] = {**PLAIN, "path_bound_cuts": True, "path_bound_negative_samples": False,
                                       "path_bound_structure": False}
    return configs


CONFIGS = _configurations()
DEPTH2 = [(11, 24, 4, 2, 0.02), (12, 30, 5, 3, 0.01)]


@pytest.fixture(scope="module")
def depth2_instances():
    data = []
    for seed, n, f, k, lam in DEPTH2:
        X, y = instance(seed, n, f, k)
        data.append((X, y, lam, oracle_value(X, y, 2, lam)))
    return data


@pytest.mark.parametrize("config", list(CONFIGS))
def test_toggle_matrix_depth2(config, depth2_instances):
    for X, y, lam, optimum in depth2_instances:
        model = RegularizedBendOCT(depth=2, leaf_penalty=lam, **CONFIGS[config]).fit(X, y)
        assert model.solve_result_.status == "optimal"
        assert model.solve_result_.objective == pytest.approx(optimum, abs=1e-6)
        assert fitted_value(model, X, y, lam) == pytest.approx(optimum, abs=1e-9)


DEPTH3_CONFIGS = ["plain", "best", "best+path_bound_negative_samples=False", "best+path_bound_structure=False",
                  "pbcp basic (24) only", "plain+path_bound_structure=False", "best+eqp=chain",
                  "best+strengthened_benders_cuts=True", "plain+path_bound_cuts=True", "random1", "best+eqp=recursive",
                  "best+top_down_branching=False", "plain+top_down_branching=True", "best+path_bound_height=2",
                  "plain+path_bound_height=3"]


@pytest.mark.parametrize("config", DEPTH3_CONFIGS)
def test_toggle_matrix_depth3(config):
    assert_reaches_the_exhaustive_optimum(config, *instance(31, n_rows=20, n_features=4, n_classes=2), depth=3,
                                          lam=0.02)


@pytest.mark.parametrize("config", ["best", "best+path_bound_height=2", "best+path_bound_negative_samples=False"])
def test_toggle_matrix_depth4(config):
    """Depth 4: height-3 bounds at the root (height 4, relaxed by the leaves of level 4) and at nodes 2, 3
    under an integral root, height-2 bounds below them; every configuration reaches the exhaustive optimum."""
    assert_reaches_the_exhaustive_optimum(config, *instance(32, n_rows=24, n_features=4, n_classes=3), depth=4,
                                          lam=0.01)


def assert_reaches_the_exhaustive_optimum(config, X, y, *, depth, lam):
    """The configuration's fit is proved optimal, and both its objective and its tree's value equal the oracle's."""
    model = RegularizedBendOCT(depth=depth, leaf_penalty=lam, **CONFIGS[config]).fit(X, y)
    assert model.solve_result_.status == "optimal"
    assert model.solve_result_.objective == pytest.approx(oracle_value(X, y, depth, lam), abs=1e-6)
    assert fitted_value(model, X, y, lam) == pytest.approx(oracle_value(X, y, depth, lam), abs=1e-9)


def test_height3_root_cut_closes_a_depth3_master_at_its_root():
    """Depth 3 with height-3 bounds: the root's cuts (25)-(26) have R_P = 0, so they fix the exact optimum and
    SCIP proves it at the root node; with the paper's height-2 bounds the same instance needs a search."""
    X, y = instance(24, n_rows=60, n_features=6, n_classes=3)
    lam = 0.01
    nodes = {}
    for height in (2, 3):
        model = RegularizedBendOCT(depth=3, leaf_penalty=lam, warm_start=False, polishing=False,
                                   path_bound_height=height).fit(X, y)
        assert model.solve_result_.objective == pytest.approx(oracle_value(X, y, 3, lam), abs=1e-6)
        nodes[height] = model.solve_result_.nodes
    assert nodes[3] == 1 < nodes[2]


DEPTH1 = [(13, 30, 5, 3, 0.01), (14, 40, 6, 2, 0.02)]


@pytest.mark.parametrize("config", list(CONFIGS))
def test_toggle_matrix_depth1(config):
    """Depth 1: the root is a subtree of height 1, bounded by D2S at depth 1 (path-bound cuts on); every
    configuration reaches the exhaustive search's optimum."""
    for seed, n, f, k, lam in DEPTH1:
        X, y = instance(seed, n, f, k)
        model = RegularizedBendOCT(depth=1, leaf_penalty=lam, **CONFIGS[config]).fit(X, y)
        assert model.solve_result_.status == "optimal"
        assert model.solve_result_.objective == pytest.approx(oracle_value(X, y, 1, lam), abs=1e-6)
        assert fitted_value(model, X, y, lam) == pytest.approx(oracle_value(X, y, 1, lam), abs=1e-9)


@pytest.mark.parametrize("bns,bst", [(False, False), (True, True)])
def test_root_path_bound_cut_at_depth1_is_the_d2s_bound(bns, bst):
    """At depth 1 the root (height 1) is the only candidate: its cut bounds the master by D2S at depth 1."""
    X, y = instance(22, n_rows=30, n_features=5, n_classes=3)
    lam = 0.01
    model = build_model(X, y, depth=1, leaf_penalty=lam)
    ctx = RegularizedContext.of(X, y, depth=1, leaf_penalty=lam)
    cuts = PathBoundCuts(ctx, model, bound_negative_samples=bns, bound_structure=bst)
    assert [n for n, _, _ in cuts.candidates(np.zeros((4, 5)))] == [1]
    result = solve(model, solver="scip", callbacks=branch_and_cut(ctx, model, path_bound_cuts=cuts), abs_gap=1e-6)
    d2s = solve_depth2(X, y, depth=1, leaf_penalty=len(y) * lam).value / len(y)
    assert result.status == "optimal" and result.n_cuts > 0
    assert result.objective == pytest.approx(d2s, abs=1e-6)
    assert result.objective == pytest.approx(oracle_value(X, y, 1, lam), abs=1e-6)


def test_path_bound_candidates_are_the_root_and_the_nodes_of_height_at_least_2():
    """Depth 3, root and its left child branching integrally: candidates 1 (height 3) and 2, 3 (height 2),
    never a node of height 1; with a fractional root only the root."""
    X, y = instance(23, n_rows=20, n_features=4, n_classes=2)
    model = build_model(X, y, depth=3, leaf_penalty=0.01)
    cuts = PathBoundCuts(RegularizedContext.of(X, y, depth=3, leaf_penalty=0.01), model)
    b = np.zeros((16, 4))
    b[1, 2] = b[2, 0] = 1.0
    assert sorted(n for n, _, _ in cuts.candidates(b)) == [1, 2, 3]
    b[1, 2] = 0.5
    assert [n for n, _, _ in cuts.candidates(b)] == [1]


# ------------------------------------------------------------------------------------------ cross-checks
def streed_value(X, y, depth, lam):
    """Objective (1) of STreeD's optimal tree (cost-complex-accuracy with c = α/n = λ)."""
    from pystreed import STreeDClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        streed = STreeDClassifier(optimization_task="cost-complex-accuracy", max_depth=depth,
                                  cost_complexity=lam, time_limit=30).fit(X, y)
    return float((streed.predict(X) == y).mean()) - lam * streed.get_n_leaves()


@pytest.mark.parametrize("seed,depth,lam", [(41, 2, 0.01), (42, 2, 0.05), (43, 3, 0.02)])
def test_bendoct_equals_flowoct_and_pystreed(seed, depth, lam):
    X, y = instance(seed, n_rows=24 if depth == 3 else 40, n_features=4 if depth == 3 else 5, n_classes=2)
    bend = RegularizedBendOCT(depth=depth, leaf_penalty=lam).fit(X, y)
    flow = RegularizedFlowOCT(depth=depth, leaf_penalty=lam, solver="highs").fit(X, y)
    streed = streed_value(X, y, depth, lam)
    assert flow.solve_result_.status == bend.solve_result_.status == "optimal"
    assert bend.solve_result_.objective == pytest.approx(streed, abs=1e-6)
    assert flow.solve_result_.objective == pytest.approx(streed, abs=1e-6)
    assert fitted_value(flow, X, y, lam) == pytest.approx(streed, abs=1e-9)


@pytest.mark.parametrize("bns,bst", [(False, False), (True, True)])
def test_path_bound_cuts_registered_by_hand_at_depth2(bns, bst):
    """At depth 2 the root's path-bound cut is the D2S bound: with it SCIP closes the gap at once."""
    X, y = instance(21, n_rows=30, n_features=5, n_classes=2)
    lam = 0.02
    model = build_model(X, y, depth=2, leaf_penalty=lam)
    ctx = RegularizedContext.of(X, y, depth=2, leaf_penalty=lam)
    cuts = PathBoundCuts(ctx, model, bound_negative_samples=bns, bound_structure=bst)
    result = solve(model, solver="scip", callbacks=branch_and_cut(ctx, model, path_bound_cuts=cuts), abs_gap=1e-6)
    assert result.status == "optimal" and result.n_cuts > 0
    assert result.objective == pytest.approx(oracle_value(X, y, 2, lam), abs=1e-6)


def test_depth2_optimum_is_d2s_on_all_samples():
    X, y = instance(51, n_rows=36, n_features=5, n_classes=3)
    lam = 0.015
    d2s = solve_depth2(X, y, depth=2, leaf_penalty=len(y) * lam).value / len(y)
    for config in ("plain", "best"):
        model = RegularizedBendOCT(depth=2, leaf_penalty=lam, **CONFIGS[config]).fit(X, y)
        assert model.solve_result_.objective == pytest.approx(d2s, abs=1e-6)


@pytest.mark.parametrize("solver", ["highs", "glpk"])
@pytest.mark.parametrize("config", ["plain", "best", "pbcp basic (24) only", "best+path_bound_structure=False",
                                    "best+strengthened_benders_cuts=True"])
def test_restart_loop_solvers_reach_the_optimum(solver, config):
    """HiGHS/GLPK: PBCP and fractional Benders cuts in root LP rounds, then Benders by restart loop, with
    EQP and the polished warm start: the same optimum as the oracle for every switch combination."""
    X, y = instance(31, n_rows=20, n_features=4, n_classes=2)
    lam = 0.02
    model = RegularizedBendOCT(depth=3, leaf_penalty=lam, solver=solver, time_limit=120, **CONFIGS[config]).fit(X, y)
    assert model.solve_result_.status == "optimal"
    assert model.solve_result_.objective == pytest.approx(oracle_value(X, y, 3, lam), abs=1e-6)
    assert fitted_value(model, X, y, lam) == pytest.approx(oracle_value(X, y, 3, lam), abs=1e-9)


def test_highs_restart_loop_proves_what_it_claims(monkeypatch):
    """monk3 at depth 3, λ = 0.04 on HiGHS: HiGHS 1.16 proved a point of its presolved master worth 0.839
    and handed back the MIP start (worth 0.814) as optimal; the backend must notice and re-solve, so that
    "optimal" comes with a bound equal to the objective, and both equal STreeD's optimum."""
    X, y = paper_instance("monk3", "", monkeypatch)
    result = RegularizedBendOCT(depth=3, leaf_penalty=0.04, solver="highs", time_limit=120).fit(X, y).solve_result_
    assert result.status == "optimal"
    assert result.bound == pytest.approx(result.objective, abs=1e-6)
    assert result.objective == pytest.approx(streed_value(X, y, 3, 0.04), abs=1e-6)


def test_root_path_bound_cuts_on_highs_tighten_the_master_lp():
    """The root LP bound after the restart loop's cut rounds is lower (tighter) with PBCP than with
    fractional Benders cuts alone, and never below the optimum."""
    from odtlib.solvers import restart
    from odtlib.solvers.base import SolveOptions
    from odtlib.solvers.highs import HighsBackend
    from odtlib.solvers.standard_form import compile_model

    X, y = instance(33, n_rows=40, n_features=5, n_classes=2)
    lam = 0.02
    optimum = oracle_value(X, y, 3, lam)
    bounds = {}
    for pbcp in (False, True):
        model = build_model(X, y, depth=3, leaf_penalty=lam)
        ctx = RegularizedContext.of(X, y, depth=3, leaf_penalty=lam)
        cuts = PathBoundCuts(ctx, model) if pbcp else None
        callbacks = branch_and_cut(ctx, model, path_bound_cuts=cuts, fractional_benders_cuts=True)
        backend = HighsBackend(compile_model(model), SolveOptions())
        restart.root_cut_rounds(backend, callbacks, deadline=float("inf"))
        bounds[pbcp] = backend.run_relaxation(60).bound
    assert optimum - 1e-6 <= bounds[True] < bounds[False] - 1e-6


def test_zero_penalty_and_flow_warm_start():
    X, y = instance(71, n_rows=30, n_features=4, n_classes=2)
    optimum = oracle_value(X, y, 2, 0.0)
    bend = RegularizedBendOCT(depth=2, leaf_penalty=0.0).fit(X, y)
    flow = RegularizedFlowOCT(depth=2, leaf_penalty=0.0, warm_start=True).fit(X, y)
    assert bend.solve_result_.objective == pytest.approx(optimum, abs=1e-6)
    assert flow.solve_result_.objective == pytest.approx(optimum, abs=1e-6)


# ------------------------------------------------------------------------------------------ published optima
PUBLISHED = Path(__file__).parent / "fixtures" / "paper003_published_optima.csv"


def published_optima() -> pd.DataFrame:
    return pd.read_csv(PUBLISHED, comment="#", keep_default_na=False)


def paper_instance(name: str, encoding: str, monkeypatch):
    """Our binary encoding of a paper-003 dataset, from the offline UCI mirror (skip without it)."""
    from paths import data_mirror

    from odtlib.data import paper_dataset

    mirror = data_mirror()
    if not (mirror / "MANIFEST.csv").is_file():
        pytest.skip("offline UCI mirror not available")
    monkeypatch.setenv("ODTLIB_DATA_MIRROR", str(mirror))
    X, y, _ = paper_dataset("003", name, encoding or None)
    return X.to_numpy(dtype=np.int64), np.unique(y.to_numpy(), return_inverse=True)[1]


def test_published_optima_are_the_optima_of_our_encodings(monkeypatch):
    """Every optimum the authors published (depths 1-4, categorical one-hot, QB-5 and QT-5) is STreeD's
    optimum on our encoding of the same dataset: same data, same encoders, same objective (1)."""
    rows = published_optima()
    assert len(rows) > 90
    wrong = []
    for row in rows.itertuples():
        X, y = paper_instance(row.dataset, row.encoding, monkeypatch)
        value = streed_value(X, y, row.depth, row.leaf_penalty)
        if abs(value - row.objective) > 1e-6:
            wrong.append((row.dataset, row.encoding, row.depth, row.leaf_penalty, row.objective, value))
    assert not wrong


@pytest.mark.parametrize("name,encoding,depth,lam", [
    ("monk3", "", 2, 0.01), ("hayes-roth", "", 2, 0.001), ("monk1", "", 3, 0.01), ("iris", "QB-5", 3, 0.001),
    ("iris", "QT-5", 3, 0.01), ("transfusion", "QB-5", 3, 0.02), ("breast-cancer", "", 4, 0.1),
    ("car-evaluation", "", 1, 0.01), ("balance-scale", "", 1, 0.004),
    ("hayes-roth", "", 4, 0.04), ("banknote", "QT-5", 4, 0.04)])
def test_accelerated_bendoct_reaches_the_published_optimum(name, encoding, depth, lam, monkeypatch):
    """The estimator's defaults on SCIP prove the authors' Gurobi optimum (the authors' plain BendOCT
    needed 163 s on transfusion, 350 s on banknote and 466 s on hayes-roth at depth 4)."""
    rows = published_optima()
    published = rows[(rows.dataset == name) & (rows.encoding == encoding) & (rows.depth == depth)
                     & (rows.leaf_penalty == lam)].objective
    assert len(published) == 1
    X, y = paper_instance(name, encoding, monkeypatch)
    model = RegularizedBendOCT(depth=depth, leaf_penalty=lam, time_limit=120).fit(X, y)
    assert model.solve_result_.status == "optimal"
    assert model.solve_result_.objective == pytest.approx(published.iloc[0], abs=1e-6)
    assert fitted_value(model, X, y, lam) == pytest.approx(published.iloc[0], abs=1e-6)


@pytest.mark.parametrize("solver,depth,pbcp,with_eqp", [("scip", 3, True, False), ("scip", 2, True, False),
                                                         ("scip", 1, True, False), ("scip", 1, False, True),
                                                         ("scip", 3, False, True), ("highs", 3, True, True),
                                                         ("highs", 2, True, True)])
def test_auto_eqp_is_off_only_where_path_bound_cuts_run_in_the_search(solver, depth, pbcp, with_eqp):
    X, y = instance(31, n_rows=20, n_features=4, n_classes=2)
    model = RegularizedBendOCT(depth=depth, leaf_penalty=0.02, solver=solver, path_bound_cuts=pbcp,
                               keep_model=True).fit(X, y)
    assert hasattr(model.model_, "eqp") == with_eqp
    assert model.solve_result_.objective == pytest.approx(oracle_value(X, y, depth, 0.02), abs=1e-6)


# ------------------------------------------------------------------------------------------ pieces
@pytest.mark.parametrize("max_split", [1, 2, 3])
def test_eqp_sets_are_equivalent_point_sets(max_split):
    X, y = instance(81, n_rows=40, n_features=5, n_classes=3)
    sets = find_eqp_sets(X, y, max_split)
    assert sets
    for s in sets:
        outside = [f for f in range(X.shape[1]) if f not in s.split]
        assert len(s.split) <= max_split
        assert (X[s.members][:, outside] == s.pattern[outside]).all()                      # (13)
        assert np.unique(y[s.members]).size >= 2
        assert s.upper_bound == np.bincount(y[s.members]).max()
        # maximal: every sample agreeing outside F* is a member
        agree = np.flatnonzero((X[:, outside] == s.pattern[outside]).all(axis=1))
        assert np.array_equal(agree, s.members)


@pytest.mark.parametrize("family,disaggregated,group", [
    ("basic", False, False), ("chain", False, True), ("chain", True, False),
    ("recursive", False, False), ("recursive", True, True)])
def test_eqp_start_values_satisfy_every_row(family, disaggregated, group):
    """The EQP variables' values of random trees satisfy the added rows (the inequalities are valid)."""
    X, y = instance(91, n_rows=30, n_features=4, n_classes=2)
    eqp = EQPInequalities(X, y, family, disaggregated=disaggregated, group_selection=group, max_split=2)
    model = build_model(X, y, depth=3, leaf_penalty=0.01, eqp=eqp)
    rng = np.random.default_rng(0)
    for _ in range(20):
        tree = _random_sparse_tree(rng, depth=3, n_features=4, n_classes=2)
        start = tree.start_values(model, X, y)
        eqp.start_values(model, tree, start)
        for var, value in start.items():
            var.set_value(value, skip_validation=True)
        for con in model.eqp.rows.values():
            body = pyo.value(con.body)
            assert (con.lower is None or body >= pyo.value(con.lower) - 1e-9)
            assert (con.upper is None or body <= pyo.value(con.upper) + 1e-9)


@pytest.mark.parametrize("family,disaggregated,group", [
    ("basic", False, False), ("basic", False, True), ("chain", False, True), ("chain", True, False),
    ("recursive", False, False), ("recursive", True, True), ("recursive", False, True)])
def test_eqp_rows_cap_a_set_the_tree_cannot_split(family, disaggregated, group):
    """With b and p fixed to a tree, max Σ_{i∈S} θ_i over the master with EQP rows (no Benders cuts) is UB_S
    (S's largest class) when the tree cannot split S, and at least the best labelling of the tree's leaves
    otherwise (the rows cut off nothing a tree reaches). "Splits": a node on S's common path branches on F*
    (chain, recursive); any node branches on F* (basic (16), which ignores the path)."""
    X, y = instance(92, n_rows=30, n_features=4, n_classes=3)
    eqp = EQPInequalities(X, y, family, disaggregated=disaggregated, group_selection=group, max_split=2)
    rng = np.random.default_rng(1)
    caps = 0
    for s in eqp.sets[:8]:
        for _ in range(4):
            tree = _random_sparse_tree(rng, depth=3, n_features=4, n_classes=3)
            model = build_model(X, y, depth=3, leaf_penalty=0.01, n_classes=3, eqp=eqp)
            for var, value in tree.start_values(model, X, y).items():
                if var.parent_component() in (model.b, model.p):
                    var.fix(value)
            model.objective.deactivate()
            model.capped = pyo.Objective(expr=sum(model.theta[i] for i in s.members), sense=pyo.maximize)
            best = solve(model, solver="highs").objective
            split = (any(f in s.split for f in tree.branch.values()) if family == "basic"
                     else _tree_splits(tree, s))
            if split:
                assert best >= _best_labelling(tree, X[s.members], y[s.members]) - 1e-6
            else:
                caps += 1
                assert best == pytest.approx(s.upper_bound, abs=1e-6), (s.split, tree.branch)
    assert caps >= 5       # the random trees leave enough sets unsplit for the test to mean something


def _best_labelling(tree: SparseTree, X, y) -> int:
    """Most samples of (X, y) the tree's structure classifies correctly with the best class at each leaf."""
    leaves = tree.terminal(X)
    return sum(int(np.bincount(y[leaves == leaf]).max()) for leaf in np.unique(leaves))


def _tree_splits(tree: SparseTree, s) -> bool:
    """Does the path S follows together reach a node branching on a feature of F*?"""
    n = 1
    while n in tree.branch:
        f = tree.branch[n]
        if f in s.split:
            return True
        n = 2 * n + int(s.pattern[f])
    return False


def _random_sparse_tree(rng, depth, n_features, n_classes):
    branch, leaf, stack = {}, {}, [1]
    while stack:
        n = stack.pop()
        if n < 2**depth and rng.random() < 0.7:
            branch[n] = int(rng.integers(n_features))
            stack += [2 * n, 2 * n + 1]
        else:
            leaf[n] = int(rng.integers(n_classes))
    return SparseTree(depth, branch, leaf)


def test_polishing_never_worsens_and_is_optimal_at_depth2():
    X, y = instance(101, n_rows=40, n_features=5, n_classes=2)
    lam = 0.01
    model = build_model(X, y, depth=3, leaf_penalty=lam)
    polisher = SolutionPolishing(BendOCTMaster(RegularizedContext.of(X, y, depth=3, leaf_penalty=lam), model))
    rng = np.random.default_rng(1)
    for _ in range(20):
        tree = _random_sparse_tree(rng, depth=3, n_features=5, n_classes=2)
        polished = polisher.polish(tree)
        assert polished.objective(X, y, lam) >= tree.objective(X, y, lam) - 1e-12
        assert max(polished.heights().values()) <= 3
    model2 = build_model(X, y, depth=2, leaf_penalty=lam)
    at_depth2 = SolutionPolishing(BendOCTMaster(RegularizedContext.of(X, y, depth=2, leaf_penalty=lam), model2))
    polished = at_depth2.polish(_random_sparse_tree(rng, depth=2, n_features=5, n_classes=2))
    assert polished.objective(X, y, lam) == pytest.approx(oracle_value(X, y, 2, lam), abs=1e-12)


# ------------------------------------------------------------------------------------------ validation
@pytest.mark.parametrize("params,message", [
    (dict(eqp="fancy"), "'eqp' parameter"),
    (dict(eqp_max_split=4), "eqp_max_split"),
    (dict(leaf_penalty=-0.1), "leaf_penalty"),
    (dict(depth=0), "depth"),
    (dict(solver="nope"), "solver"),
])
def test_bad_parameters_are_rejected(params, message):
    X, y = instance(1, n_rows=10, n_features=3)
    with pytest.raises(ValueError, match=message):
        RegularizedBendOCT(**params).fit(X, y)


def test_solver_options_must_be_a_dict_and_reach_the_solver():
    X, y = instance(1, n_rows=10, n_features=3)
    with pytest.raises(ValueError, match="'solver_options' parameter"):
        RegularizedBendOCT(solver_options=[("limits/nodes", 1)]).fit(X, y)
    with pytest.raises(ValueError, match="rejected solver option"):
        RegularizedBendOCT(depth=3, solver_options={"no/such/param": 1}).fit(X, y)


def test_top_down_branching_ranks_each_level_of_b_above_the_next():
    """Priority of b[n, f] = internal levels from n down (root: D, last internal level: 1); nothing else."""
    from odtlib.solvers.standard_form import compile_model

    X, y = instance(3, n_rows=12, n_features=3)
    for depth in (2, 3):
        sf = compile_model(build_model(X, y, depth, 0.01, top_down_branching=True))
        got = {v.name: int(p) for v, p in zip(sf.index.columns, sf.branch_priority)}
        expected = {f"b[{n},{f}]": depth - (n.bit_length() - 1) for n in range(1, 2**depth) for f in range(3)}
        assert {name: p for name, p in got.items() if p} == expected
        assert all(got[name] == 0 for name in got if not name.startswith("b["))
        assert compile_model(build_model(X, y, depth, 0.01)).branch_priority is None


def test_non_binary_features_are_rejected():
    X, y = instance(1, n_rows=10, n_features=3)
    with pytest.raises(ValueError, match="binary|0/1|0 and 1"):
        RegularizedBendOCT().fit(X + 0.5, y)
    with pytest.raises(ValueError, match="binary|0/1|0 and 1"):
        RegularizedFlowOCT().fit(X * 2, y)


def test_branch_and_cut_separates_fractional_points_only_for_benders():
    """With fractional Benders cuts the lazy callback runs at LP points too; polishing only sees integer
    candidates (it would read a fractional tree otherwise)."""
    from odtlib.solvers import BranchAndCut, LazyRowFamily, PrimalHeuristic, Values
    from odtlib.solvers.standard_form import ColumnIndex

    class Benders(LazyRowFamily):
        at_fractional = True

        def lazy(self, values):
            return ["row"]

    class Polisher(PrimalHeuristic):
        seen = []

        def observe(self, values):
            self.seen.append(values.is_integral)

        def heuristic(self, values):
            return None

    polisher = Polisher()
    callbacks = BranchAndCut(lazy=[Benders()], heuristics=[polisher])
    assert callbacks.lazy_at_fractional
    m = pyo.ConcreteModel()
    m.x = pyo.Var()
    index = ColumnIndex([m.x])
    assert callbacks.lazy(Values(np.array([0.5]), index, is_integral=False)) == ["row"]
    assert callbacks.lazy(Values(np.array([1.0]), index, is_integral=True)) == ["row"]
    assert polisher.seen == [True]


def test_branch_and_cut_adds_cut_families_at_integer_candidates_when_asked():
    """``cuts_at_integral_points``: the lazy callback returns the Benders rows, then the cut families' rows,
    at integer candidates only; the candidate check stays Benders-only."""
    from odtlib.solvers import BranchAndCut, CutFamily, LazyRowFamily, Values
    from odtlib.solvers.standard_form import ColumnIndex

    class Benders(LazyRowFamily):
        at_fractional = True

        def lazy(self, values):
            return ["benders"]

        def rejects(self, values):
            return False

    class Family(CutFamily):
        def cut(self, values):
            return ["path bound"]

    m = pyo.ConcreteModel()
    m.x = pyo.Var()
    index = ColumnIndex([m.x])
    integral, fractional = (Values(np.array([v]), index, is_integral=v == 1.0) for v in (1.0, 0.5))
    for flag, at_integer in ((True, ["benders", "path bound"]), (False, ["benders"])):
        callbacks = BranchAndCut(lazy=[Benders()], cuts=[Family()], cuts_at_integral_points=flag)
        assert callbacks.lazy(integral) == at_integer
        assert callbacks.lazy(fractional) == ["benders"]
        assert callbacks.cut(fractional) == ["path bound"]
        assert not callbacks.rejects(integral)


def test_branch_and_cut_rejects_exactly_the_candidates_with_a_violated_benders_row():
    """SCIP's feasibility check goes through BranchAndCut.rejects (separation only): it must agree with the
    generic check (build every lazy row, test it) on trees with θ = correct and with θ raised."""
    from odtlib.solvers import Callbacks, Values
    from odtlib.solvers.standard_form import compile_model

    X, y = instance(93, n_rows=25, n_features=4, n_classes=2)
    model = build_model(X, y, depth=3, leaf_penalty=0.01)
    callbacks = branch_and_cut(RegularizedContext.of(X, y, depth=3, leaf_penalty=0.01), model)
    index = compile_model(model).index
    rng = np.random.default_rng(5)
    verdicts = []
    for _ in range(30):
        tree = _random_sparse_tree(rng, depth=3, n_features=4, n_classes=2)
        start = tree.start_values(model, X, y)
        raised = rng.random(len(y)) < 0.1
        for i in np.flatnonzero(raised):
            start[model.theta[int(i)]] = 1.0
        x = np.zeros(index.n_cols)
        for var, value in start.items():
            x[index.column(var)] = value
        values = Values(x, index, is_integral=True)
        verdict = callbacks.rejects(values)
        assert verdict == Callbacks.rejects(callbacks, values)
        verdicts.append(verdict)
    assert any(verdicts) and not all(verdicts)
