"""The exact subroutines stay within a memory budget (issue 32, item 2): they size their arrays first, score
root features in chunks that fit, drop the path bounds to height 2 when the depth-3 scan does not fit, and
refuse data they cannot handle at all, naming the size.

The optima are checked against the exhaustive recursion of ``tests/oracles.py`` (independent of D2S), and the
budget itself by tracing every allocation of a solve (numpy reports its buffers to ``tracemalloc``).
"""
from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest

from oracles import brute_force_tree, random_binary_data

from odtlib.models import RegularizedBendOCT
from odtlib.models.univariate.accel.d2s import Depth2Solver, depth3_bytes
from odtlib.models._resources import MemoryBudgetError, default_max_memory, format_bytes, physical_memory
from odtlib.models.categorical.subtree_bounds import SubsetSubtreeSolver
from odtlib.models.categorical.categorical_odt import Group


def _solver_or_none(X, y, budget, **kwargs):
    try:
        return Depth2Solver(X, y, max_memory=budget, **kwargs)
    except MemoryBudgetError:
        return None


def smallest_budget(X, y, wanted, **kwargs) -> int:
    """The smallest budget (to 1 %) on which a Depth2Solver exists and ``wanted(solver)`` holds (monotone in the
    budget): doubling, then bisection."""
    high = 1024
    while (solver := _solver_or_none(X, y, high, **kwargs)) is None or not wanted(solver):
        high *= 2
    low = high // 2
    while high - low > high // 100:
        mid = (low + high) // 2
        solver = _solver_or_none(X, y, mid, **kwargs)
        low, high = (low, mid) if solver is not None and wanted(solver) else (mid, high)
    return high


def exhaustive_value(X, y, depth, alpha, n_classes):
    """Optimum of ``correct - alpha * leaves`` over trees of depth <= ``depth`` by the exhaustive recursion:
    it maximises (1 - c)·correct - c·splits, which is (1 - c)·(correct - alpha·leaves) + c·... with
    c = alpha / (1 + alpha) and leaves = splits + 1, so our optimum is its value / (1 - c) - alpha."""
    split_cost = alpha / (1 + alpha)
    return brute_force_tree(X, y, depth, split_cost, n_classes=n_classes)[0] / (1 - split_cost) - alpha


# ------------------------------------------------------------------------------------------ chunks
@pytest.mark.parametrize("seed", range(4))
def test_chunked_solves_give_the_unchunked_optimum(seed):
    """The smallest budgets for D2S and for the depth-3 scan force chunks of fewer than F root features; they
    give the exhaustive optimum and the same subtree as the unlimited solver."""
    X, y = random_binary_data(80, 7, 3, seed)
    unlimited = Depth2Solver(X, y, n_classes=3)
    assert unlimited.plan.depth3_chunk == unlimited.plan.depth2_chunk == 7
    d2s_only = Depth2Solver(X, y, n_classes=3, max_memory=smallest_budget(X, y, lambda s: True, n_classes=3))
    scan = Depth2Solver(X, y, n_classes=3, max_memory=smallest_budget(X, y, lambda s: s.max_depth == 3, n_classes=3))
    assert d2s_only.max_depth == 2 and d2s_only.plan.depth2_chunk < 7
    assert 0 < scan.plan.depth3_chunk < 7
    rows = np.flatnonzero(X[:, 0] == 1)
    for alpha in (0.0, 2.0):
        for solver, depth in ((d2s_only, 2), (scan, 2), (scan, 3)):
            for samples in (None, rows):
                got = solver.solve(samples, depth=depth, leaf_penalty=alpha)
                want = unlimited.solve(samples, depth=depth, leaf_penalty=alpha)
                assert got.value == pytest.approx(want.value, abs=1e-9)
                assert dict(got.subtree.branch) == dict(want.subtree.branch)
                picked = np.arange(len(y)) if samples is None else samples
                assert got.value == pytest.approx(exhaustive_value(X[picked], y[picked], depth, alpha, 3), abs=1e-9)


def test_a_solve_allocates_within_its_budget():
    """Every byte traced from the solver's construction to the end of depth-3 and depth-2 solves stays within
    ``max_memory``. Unchunked, the depth-3 scan of 30 columns and 2 classes holds (2, 30, 30, 30) float arrays
    of 432 KB each, about 4 MB in all; 1.5 MB forces chunks."""
    X, y = random_binary_data(300, 30, 2, 3)
    budget = 1_500_000
    assert depth3_bytes(300, 30, 2, 30) > 2 * budget
    tracemalloc.start()
    try:
        solver = Depth2Solver(X, y, max_memory=budget)
        assert 0 < solver.plan.depth3_chunk < 30
        solver.solve(None, depth=3, leaf_penalty=0.0)
        solver.solve(X[:, 1] == 0, depth=3, leaf_penalty=1.0)
        solver.solve(X[:, 2] == 1, depth=2, leaf_penalty=0.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= budget


def test_banknote_sized_scan_is_planned_in_chunks():
    """The case of the issue: 1,097 rows, 1,515 threshold columns, 2 classes. Unchunked, the triple counts alone
    are a (2, 1515, 1515, 1515) float array, 2·1515^3·8 bytes = 51.8 GiB; with a 4 GiB budget the scan is
    planned in chunks whose peak fits (no solve here)."""
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 2, size=(1097, 1515)), rng.integers(0, 2, size=1097)
    assert format_bytes(2 * 1515**3 * 8) == "51.8 GiB"
    assert depth3_bytes(1097, 1515, 2, 1515) > 2 * 1515**3 * 8
    solver = Depth2Solver(X, y, max_memory=4 * 2**30)
    chunk = solver.plan.depth3_chunk
    assert solver.max_depth == 3 and 0 < chunk < 1515
    assert solver.plan.bytes(3, chunk) <= solver.plan.work < solver.plan.bytes(3, chunk + 1)


# ------------------------------------------------------------------------------------------ refusals
def test_impossible_budget_is_refused_with_the_size():
    X, y = random_binary_data(50, 6, 2, 0)
    with pytest.raises(MemoryBudgetError, match=r"needs at least [\d.]+ KiB .* 50 rows x 6 binary columns"):
        Depth2Solver(X, y, max_memory=4000)
    height2 = smallest_budget(X, y, lambda s: True)
    solver = Depth2Solver(X, y, max_memory=height2)
    assert solver.max_depth == 2
    with pytest.raises(MemoryBudgetError, match="depth-3 scan needs at least"):
        solver.solve(None, depth=3)


def test_subset_subtree_solver_is_refused_with_the_size():
    """The subtree decomposition of paper 000 sizes one height-2 solve: 40 rows, a group of 10 values (2^9
    tests when every row has one value) need ~170 KB, not within 50 KB."""
    rng = np.random.default_rng(1)
    A = np.eye(10, dtype=int)[rng.integers(0, 10, size=40)]
    A[:10] = np.eye(10, dtype=int)                           # every value present
    groups = [Group("g", list(range(10)))]
    with pytest.raises(MemoryBudgetError, match=r"needs about [\d.]+ KiB per subtree solve"):
        SubsetSubtreeSolver(A, rng.random(40) < 0.5, groups, max_memory=50_000)
    assert SubsetSubtreeSolver(A, rng.random(40) < 0.5, groups, max_memory=10**7).bound(np.ones(40, bool), 2) > 0


def test_default_budget_is_a_quarter_of_the_machine():
    assert default_max_memory() == int(0.25 * physical_memory())


# ------------------------------------------------------------------------------------------ the estimator
def test_regularized_bendoct_falls_back_and_keeps_the_optimum():
    """RegularizedBendOCT at depth 3, λ = 0: unlimited (height-3 path bounds), in chunks, and with the depth-3
    scan out of budget (height-2 path bounds) all prove the exhaustive optimum; a budget too small for D2S is
    refused naming the size."""
    X, y = random_binary_data(60, 5, 2, 7)
    best_correct = brute_force_tree(X, y, 3)[1]
    height2 = smallest_budget(X, y, lambda s: True)
    chunks = smallest_budget(X, y, lambda s: s.max_depth == 3)
    runs = {}
    for name, budget in (("unlimited", None), ("chunks", chunks), ("height 2", height2)):
        model = RegularizedBendOCT(depth=3, leaf_penalty=0.0, max_memory=budget, time_limit=120)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model.fit(X, y)
        runs[name] = model
        assert model.solve_result_.status == "optimal"
        assert int((model.predict(X) == y).sum()) == best_correct
        assert model.solve_result_.objective == pytest.approx(best_correct / len(y))
    assert runs["unlimited"].path_bound_height_ == runs["chunks"].path_bound_height_ == 3
    assert runs["height 2"].path_bound_height_ == 2
    with pytest.raises(ValueError, match="needs at least .* over max_memory"):
        RegularizedBendOCT(depth=3, leaf_penalty=0.0, max_memory=2000).fit(X, y)
