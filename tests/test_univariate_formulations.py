"""The univariate family on the per-fit formulation: plug-in statistics and plug-ins that never see the estimator.

Papers 001 (FlowOCT, BendersOCT) and 003 (RegularizedBendOCT, and FlowOCT's ``engine="accelerated"``, which runs
paper 003's master through an adapter of hooks): every fit reports its plug-ins in
``solve_result_.extra["plugins"]``, and the plug-ins hold the fit's formulation and data, never the estimator.
"""
from __future__ import annotations

import types
from dataclasses import asdict

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

from odtlib.models import BendersOCT, FlowOCT, RegularizedBendOCT


def _xor_data(seed: int = 3, n_rows: int = 40):
    """Two classes given by x0 XOR x1 on 5 binary features, 10 % of the labels flipped: no depth-1 tree (and no
    single leaf) classifies every row, so the models without their lazy rows overestimate the optimum."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n_rows, 5))
    y = (X[:, 0] ^ X[:, 1]) ^ (rng.random(n_rows) < 0.1)
    return X, y.astype(int)


# Why each named plug-in must have run (SCIP runs them all inside one branch-and-bound):
# * BendersOCT without a warm start: the master (8) without the cuts (8.2) bounds each g^i by 1 only, so its LP
#   value is (1 - λ)·N, above the optimum (no tree classifies every row). Only the lazy rows (8.2) lower it, so
#   SCIP must enforce at least one candidate through MinCutBendersCuts.lazy, which returns at least one row.
# * RegularizedBendOCT (and FlowOCT's accelerated engine, the same master at λ'): without Benders cuts the LP
#   gives θ_i = 1 to every row with one leaf, 1 - λ, above the optimum (one leaf misclassifies a class, more
#   leaves cost 2λ or more). Lowering it needs a separated LP point: a fractional one goes to the cut callback
#   (PathBoundCuts.cut), an integral one to the lazy check, which also runs the path-bound cuts there
#   (cuts_at_integral_points in the search); either way PathBoundCuts is called at least once.
CASES = {
    "BendersOCT": (BendersOCT(depth=2, solver="scip", warm_start=False), {"MinCutBendersCuts"}, "MinCutBendersCuts"),
    "RegularizedBendOCT": (RegularizedBendOCT(depth=2, leaf_penalty=0.01),
                           {"MinCutBendersCuts", "PathBoundCuts", "SolutionPolishing"}, "PathBoundCuts"),
    "FlowOCT accelerated": (FlowOCT(depth=2, split_penalty=0.1, solver="scip", engine="accelerated"),
                            {"MinCutBendersCuts", "PathBoundCuts", "SolutionPolishing"}, "PathBoundCuts"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_fit_reports_its_plugins_and_the_ones_that_must_run_ran(case):
    estimator, names, must_run = clone(CASES[case][0]), *CASES[case][1:]
    X, y = _xor_data()
    plugins = estimator.fit(X, y).solve_result_.extra["plugins"]
    assert set(plugins) == names
    assert plugins[must_run]["calls"] > 0
    if case == "BendersOCT":
        assert plugins[must_run]["rows"] > 0
    if case == "RegularizedBendOCT":          # the fitted attributes and the plug-in's statistics agree
        assert asdict(estimator.d2s_stats_) == plugins["PathBoundCuts"]["d2s"]
        assert estimator.path_bound_height_ == plugins["PathBoundCuts"]["max_height"] == 3


@pytest.mark.parametrize("case", list(CASES))
def test_no_plugin_holds_the_estimator_or_a_function(case):
    estimator = clone(CASES[case][0])
    X, y = _xor_data()
    estimator.classes_ = np.unique(y)
    hooks = estimator._hooks()
    ctx = hooks._context(X.astype(float), y)
    formulation = hooks._build(ctx)
    tree = hooks._initial_tree(ctx)
    if tree is not None:                      # the warm start makes the polished start of paper 003's master
        formulation.start_values(tree)
    callbacks = hooks._callbacks(ctx, formulation)
    for plugin in callbacks.plugins:
        for held in _reachable(plugin):
            assert not isinstance(held, BaseEstimator), f"{plugin.name} holds {type(held).__name__}"
            assert not isinstance(held, (types.FunctionType, types.MethodType)), f"{plugin.name} holds {held}"


def _reachable(start):
    """Every object reachable from ``start`` through attributes and containers (Pyomo components and arrays are
    leaves: they hold the model, not the estimator)."""
    seen, stack = set(), [start]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        yield obj
        if type(obj).__module__.startswith("pyomo") or isinstance(obj, np.ndarray):
            continue
        if isinstance(obj, dict):
            stack += [*obj.keys(), *obj.values()]
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack += list(obj)
        elif hasattr(obj, "__dict__") and not isinstance(obj, type):
            stack += list(vars(obj).values())
