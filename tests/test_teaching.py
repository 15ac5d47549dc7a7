"""The teaching branch-and-bound and root bounds (`odtlib.teaching`) and their pictures (`odtlib.plotting`)."""
from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pyomo.environ as pyo  # noqa: E402
import pytest  # noqa: E402

from odtlib.models.univariate import flowoct  # noqa: E402
from odtlib.models.univariate import oct as octm  # noqa: E402
from odtlib.plotting import plot_branch_and_bound, plot_root_bounds  # noqa: E402
from odtlib.solvers import available_solvers  # noqa: E402
from odtlib.teaching import INFEASIBLE, INTEGRAL, PRUNED, UNEXPLORED, branch_and_bound, root_bounds  # noqa: E402

SOLVER = "highs"
VALUES, WEIGHTS, CAPACITY = (8, 11, 6, 4), (5, 7, 4, 3), 14
# Eight 0/1 rows, three features. Depth-1 trees by hand (majority class in each leaf):
#   x0: rows {0,1,4,6} have labels 0,0,0,1 -> 3 correct; rows {2,3,5,7} have 1,1,1,0 -> 3; total 6
#   x1: rows {0,2,4,7} -> 0,1,0,0 -> 3; rows {1,3,5,6} -> 0,1,1,1 -> 3; total 6
#   x2: rows {3,4,6,7} -> 1,0,1,0 -> 2; rows {0,1,2,5} -> 0,0,1,1 -> 2; total 4
#   no split: 4 of each class -> 4.  So the optimum is 6 correct points.
X_TOY = np.array([[0, 0, 1], [0, 1, 1], [1, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 0]])
Y_TOY = np.array([0, 0, 1, 1, 0, 1, 1, 0])


def knapsack() -> pyo.ConcreteModel:
    model = pyo.ConcreteModel()
    model.x = pyo.Var(range(4), within=pyo.Binary)
    model.capacity = pyo.Constraint(expr=sum(w * model.x[i] for i, w in enumerate(WEIGHTS)) <= CAPACITY)
    model.value = pyo.Objective(expr=sum(v * model.x[i] for i, v in enumerate(VALUES)), sense=pyo.maximize)
    return model


def brute_force_knapsack() -> int:
    # By hand: the best pairs/triples within weight 14 are {1,2,3} (7+4+3=14, value 11+6+4=21) and {0,1}
    # (weight 12, value 19); all four weigh 19 > 14; so 21.
    return max(sum(v for v, take in zip(VALUES, pick) if take) for pick in itertools.product((0, 1), repeat=4)
               if sum(w for w, take in zip(WEIGHTS, pick) if take) <= CAPACITY)


def brute_force_depth1(X, y) -> int:
    """Best number of correct points of a depth-1 tree (or a single leaf) over all features."""
    leaf = int(np.bincount(y, minlength=2).max())
    splits = [sum(int(np.bincount(y[X[:, f] == side], minlength=2).max()) for side in (0, 1))
              for f in range(X.shape[1])]
    return max(leaf, *splits)


def check_tree_invariants(result):
    """Children's bounds are no better than their parent's (a child's LP is the parent's LP with one more
    variable fixed: a smaller feasible set), and a node pruned by bound had a bound no better than the
    incumbent of that moment."""
    by_id = {node.id: node for node in result.nodes}
    for node in result.nodes:
        if node.parent is not None and node.bound is not None:
            assert node.bound <= by_id[node.parent].bound + 1e-6
        if node.status == PRUNED:
            assert node.incumbent_then is not None and node.bound <= node.incumbent_then + 1e-6


def test_knapsack_branch_and_bound_finds_the_brute_force_optimum():
    assert brute_force_knapsack() == 21
    result = branch_and_bound(knapsack(), solver=SOLVER)
    assert result.finished and result.objective == pytest.approx(21)
    # the root LP by hand: take the best value/weight ratios first, x0 (1.6) and x1 (1.57) fill 12 of 14, then
    # half of x2 (1.5): 8 + 11 + 3 = 22
    assert result.nodes[0].bound == pytest.approx(22) and result.nodes[0].parent is None
    chosen = [round(result.solution[f"x[{i}]"]) for i in range(4)]
    assert chosen == [0, 1, 1, 1]
    check_tree_invariants(result)
    statuses = {node.status for node in result.nodes}
    assert INTEGRAL in statuses and PRUNED in statuses


def test_flowoct_depth1_branch_and_bound_matches_the_enumeration():
    assert brute_force_depth1(X_TOY, Y_TOY) == 6
    result = branch_and_bound(flowoct.build_model(X_TOY, Y_TOY, depth=1), solver=SOLVER)
    assert result.finished and result.objective == pytest.approx(6)
    check_tree_invariants(result)


@pytest.mark.skipif("glpk" not in available_solvers(), reason="glpsol is not installed")
def test_glpk_gives_the_same_search():
    # one of the knapsack's node LPs is solved by glpsol's presolver alone ("OPTIMAL SOLUTION FOUND BY LP
    # PREPROCESSOR"), which must count as optimal
    on_glpk = branch_and_bound(knapsack(), solver="glpk")
    on_highs = branch_and_bound(knapsack(), solver=SOLVER)
    assert [(n.decision, n.status) for n in on_glpk.nodes] == [(n.decision, n.status) for n in on_highs.nodes]
    assert on_glpk.objective == pytest.approx(21)


def test_node_limit_stops_the_search_and_marks_the_rest():
    result = branch_and_bound(knapsack(), solver=SOLVER, node_limit=3)
    solved = [node for node in result.nodes if node.status != UNEXPLORED]
    assert len(solved) == 3 and not result.finished
    assert any(node.status == UNEXPLORED for node in result.nodes)


def test_general_integers_are_refused():
    model = knapsack()
    model.n = pyo.Var(within=pyo.NonNegativeIntegers, bounds=(0, 3))
    with pytest.raises(ValueError, match="binary"):
        branch_and_bound(model, solver=SOLVER)


def test_root_bound_of_big_m_oct_is_weaker_than_flowoct():
    # Every integer tree is feasible for each LP relaxation, so each root bound is >= the optimum (6) in this
    # maximisation. OCT's LP bound is n = 8 by hand: split the root on x0 (it sends 4 rows each way) and let each
    # leaf predict both classes at 1/2; the big-M row L[m] >= (misclassified in m, at most 4) - 8 * (1 - 1/2)
    # then allows L[m] = 0, every point counts as correct, and n is the most any solution can reach.
    # FlowOCT's bound is at most n because each point's flow is at most 1.
    frame = root_bounds({"OCT": octm.build_model(X_TOY, Y_TOY, depth=1),
                         "FlowOCT": flowoct.build_model(X_TOY, Y_TOY, depth=1)}, solver=SOLVER)
    bound = frame.set_index("formulation")["lp_bound"]
    optimum = frame["mip_objective"].max()
    assert optimum == pytest.approx(6) and (frame["mip_status"] == "optimal").all()
    assert bound["OCT"] == pytest.approx(len(Y_TOY))
    assert bound["OCT"] >= bound["FlowOCT"] - 1e-6 and bound["FlowOCT"] >= optimum - 1e-6


def test_pictures_draw_one_label_per_node_and_one_bar_per_formulation():
    result = branch_and_bound(knapsack(), solver=SOLVER)
    ax = plot_branch_and_bound(result)
    labels = [text.get_text() for text in ax.texts if text.get_text().startswith("#")]
    assert len(labels) == len(result.nodes) and labels[0] == "#0\n22"
    assert INFEASIBLE in [text.get_text() for text in ax.get_legend().get_texts()]
    plt.close(ax.figure)

    frame = pd.DataFrame({"formulation": ["OCT", "FlowOCT"] * 2, "lp_bound": [8.0, 6.5, 8.0, 7.5],
                          "mip_objective": [6.0, 6.0, 7.0, 7.0], "mip_status": ["optimal"] * 4,
                          "depth": [1, 1, 2, 2]})
    ax = plot_root_bounds(frame, by="depth")
    heights = sorted(patch.get_height() for patch in ax.patches)
    assert heights == [6.5, 7.5, 8.0, 8.0]
    assert [tick.get_text() for tick in ax.get_xticklabels()] == ["depth = 1", "depth = 2"]
    plt.close(ax.figure)


def test_model_summary_lists_flowoct_families_with_equation_numbers_and_row_counts():
    from odtlib.teaching import model_summary
    # FlowOCT at depth 1 on the 8 toy rows: internal nodes N = {1}, leaves L = {2, 3}, all nodes V = {1, 2, 3}.
    # (1.4) one row per point and internal node: 8 * 1 = 8; (1.5) per point and leaf: 8 * 2 = 16;
    # (1.7) and (1.8) per point and internal node: 8 each; (1.9) per point and node: 8 * 3 = 24.
    summary = model_summary(flowoct.build_model(X_TOY, Y_TOY, depth=1)).set_index("family")
    expected = {"flow_internal": (8, "(1.4)"), "flow_leaf": (16, "(1.5)"), "left_capacity": (8, "(1.7)"),
                "right_capacity": (8, "(1.8)"), "sink_capacity": (24, "(1.9)")}
    for family, (rows, equation) in expected.items():
        assert summary.loc[family, "kind"] == "constraint"
        assert summary.loc[family, "entries"] == rows
        assert equation in summary.loc[family, "paper"]
    assert summary.loc["z", "kind"] == "variable" and summary.loc["z", "entries"] == 8 * 3


def test_todo_stops_with_the_exercise_named():
    from odtlib.teaching import ExerciseNotDone, todo
    with pytest.raises(ExerciseNotDone, match="TODO exercise 2: switch the cuts off"):
        todo("exercise 2: switch the cuts off")
    assert issubclass(ExerciseNotDone, NotImplementedError)


def two_binaries() -> pyo.ConcreteModel:
    """max x + y over binaries with x + y <= 1.5: LP optimum 1.5 (x + y = 1.5), integer optimum 1."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(within=pyo.Binary)
    m.y = pyo.Var(within=pyo.Binary)
    m.cap = pyo.Constraint(expr=m.x + m.y <= 1.5)
    m.obj = pyo.Objective(expr=m.x + m.y, sense=pyo.maximize)
    return m


def test_a_cut_found_at_the_lp_point_is_added_and_moves_the_bound():
    from odtlib.solvers import CutFamily, LinearRow
    from odtlib.teaching import add_rows, lp_point, lp_relaxation_bound, rows_as_constraints

    class CoverCut(CutFamily):
        """x + y <= 1 (the integer hull), returned only where the point violates it."""

        def __init__(self, model):
            self.model = model

        def cut(self, values):
            if values.array([self.model.x, self.model.y]).sum() <= 1 + 1e-9:
                return []
            return [LinearRow(values.columns([self.model.x, self.model.y]), [1.0, 1.0], ub=1.0)]

    m = two_binaries()
    point = lp_point(m, SOLVER)
    assert not point.is_integral
    assert pyo.value(m.x) + pyo.value(m.y) == pytest.approx(1.5)       # the LP point is loaded into m itself
    rows = CoverCut(m).cut(point)
    [expression] = rows_as_constraints(rows, point)
    assert pyo.value(expression.args[0]) == pytest.approx(1.5)          # x + y at the LP point, above its bound 1
    added = add_rows(m, rows, point, name="covers")
    assert m.covers is added and len(added) == 1
    assert lp_relaxation_bound(m, SOLVER) == pytest.approx(1.0)         # the cut closes the LP bound to 1
    assert CoverCut(m).cut(lp_point(m, SOLVER)) == []                   # and is satisfied at the new LP point


def test_point_values_and_rows_with_lower_or_two_bounds():
    from odtlib.solvers import LinearRow
    from odtlib.teaching import point_values, rows_as_constraints

    m = two_binaries()
    m.x.set_value(1)
    m.y.set_value(0)
    point = point_values(m, integral=True)
    assert point.is_integral and point[m.x] == 1.0 and point[m.y] == 0.0
    at_least, between = rows_as_constraints([LinearRow([m.x, m.y], [2.0, -1.0], lb=0.5),
                                             LinearRow([m.x], [1.0], lb=0.0, ub=1.0)], point)
    # 2x - y >= 0.5 holds at (1, 0): 2 >= 0.5; 0 <= x <= 1 holds too
    assert pyo.value(at_least) and pyo.value(between)
    m.x.set_value(0)
    assert not pyo.value(at_least)                                       # 2·0 - 0 = 0 < 0.5
