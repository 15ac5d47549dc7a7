"""Small, readable versions of what a MIP solver does, for teaching (drawn by `odtlib.plotting`).

* `lp_relaxation_bound` — the LP relaxation's optimum of a Pyomo MIP (integrality dropped with Pyomo's
  ``core.relax_integer_vars`` on a copy): the bound a solver starts branch-and-bound from.
* `root_bounds` — that bound for several formulations of the same problem next to their integer optimum, e.g.
  OCT's big-M model against FlowOCT (paper 001, Section 2.2: the flow formulation's relaxation is tighter).
* `branch_and_bound` — a depth-first branch-and-bound over the LP relaxation of a model whose integer variables
  are binary: branch on the most fractional binary, prune a node when its LP is infeasible, when its bound is no
  better than the incumbent, or when its LP solution is integral. It records every node (`BnBNode`) so that
  `odtlib.plotting.plot_branch_and_bound` can draw the tree. It is meant for toys of a few dozen nodes: every
  node is one LP solve through `odtlib.solvers.solve`, and ``node_limit`` stops it.
* `model_summary` — a Pyomo model as a table of its variable and constraint families, with the equation numbers
  each family's ``doc`` cites and its number of rows: how a paper notebook prints its formulation on a toy.
* `point_values`, `lp_point`, `rows_as_constraints`, `add_rows` — call a solver plug-in (a cut family, lazy-row
  family or heuristic of `odtlib.solvers`) by hand at a chosen or LP point, read its rows as formulas and add them
  to the model: a Benders cut at one tree, a path-bound cut at the root LP, the bound they move.
* `todo` — what an exercise notebook's unfinished cell calls: it stops the notebook with `ExerciseNotDone`, which
  names the exercise, instead of letting it run on without the student's answer.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyomo.environ as pyo

from odtlib.solvers import solve

__all__ = ["BnBNode", "BnBResult", "ExerciseNotDone", "add_rows", "branch_and_bound", "lp_point",
           "lp_relaxation_bound", "model_summary", "point_values", "root_bounds", "rows_as_constraints", "todo"]

#: node statuses, in the words of a textbook
BRANCHED, INTEGRAL, INFEASIBLE, PRUNED, UNEXPLORED = (
    "branched", "integral", "infeasible", "pruned by bound", "not explored (node limit)")
INTEGRALITY_TOLERANCE = 1e-6


@dataclass
class BnBNode:
    """One node of the search: its id (in the order solved), its parent's id (None at the root), the branching
    decision that created it (``"x[2] = 0"``; empty at the root), its LP bound (None when infeasible or not
    solved), its status, and the incumbent value when it was processed (None before any)."""

    id: int
    parent: int | None
    decision: str
    bound: float | None
    status: str
    incumbent_then: float | None = None
    depth: int = 0


@dataclass
class BnBResult:
    """The nodes, the best integer objective found (None if none) and its variable values, and whether the
    search finished (False when ``node_limit`` stopped it: the optimum is then not proved)."""

    nodes: list[BnBNode]
    objective: float | None
    solution: dict[str, float]
    sense: str
    finished: bool

    def frame(self) -> pd.DataFrame:
        """The nodes as a table (one row per node)."""
        return pd.DataFrame([vars(node) for node in self.nodes])


def relaxed_copy(model: pyo.ConcreteModel) -> tuple[pyo.ConcreteModel, list]:
    """A copy of ``model`` with integrality dropped, and the copy's variables that were binary."""
    relaxed = model.clone()
    binaries = [var for var in relaxed.component_data_objects(pyo.Var) if var.is_binary() and not var.fixed]
    pyo.TransformationFactory("core.relax_integer_vars").apply_to(relaxed)
    return relaxed, binaries


def lp_relaxation_bound(model: pyo.ConcreteModel, solver: str = "highs") -> float:
    """The optimum of ``model``'s LP relaxation: an upper bound on a maximisation's integer optimum (a lower
    bound for a minimisation), because every integer solution is feasible for the relaxation."""
    relaxed, _ = relaxed_copy(model)
    result = solve(relaxed, solver=solver)
    if result.status != "optimal":
        raise RuntimeError(f"the LP relaxation did not solve to optimality: {result.status}")
    return float(result.objective)


def root_bounds(models: Mapping[str, pyo.ConcreteModel], solver: str = "highs",
                time_limit: float | None = None) -> pd.DataFrame:
    """For each named formulation of the same problem: its LP relaxation bound (the root bound), its MIP
    objective, bound and status (within ``time_limit``). A stronger formulation has a root bound closer to the
    integer optimum, so the solver has less to branch on."""
    rows = []
    for name, model in models.items():
        lp = lp_relaxation_bound(model, solver=solver)
        mip = solve(model.clone(), solver=solver, time_limit=time_limit)
        rows.append({"formulation": name, "lp_bound": lp, "mip_objective": mip.objective,
                     "mip_bound": mip.bound, "mip_status": mip.status})
    return pd.DataFrame(rows)


def branch_and_bound(model: pyo.ConcreteModel, solver: str = "highs", node_limit: int = 60) -> BnBResult:
    """Depth-first branch-and-bound over the LP relaxation of ``model`` (all integer variables binary).

    At each node the LP is solved with the branching decisions as variable bounds. The node is pruned as
    infeasible, pruned by bound (its LP value is no better than the incumbent), or integral (its LP solution is
    a new incumbent); otherwise the most fractional binary (closest to 1/2) is branched on, and the child that
    rounds the LP value is searched first. At most ``node_limit`` LPs are solved; the nodes left on the stack
    are recorded as not explored.
    """
    if any(var.is_integer() and not var.is_binary() for var in model.component_data_objects(pyo.Var)):
        raise ValueError("branch_and_bound handles binary (0/1) integer variables only")
    relaxed, binaries = relaxed_copy(model)
    maximize = _objective(relaxed).sense == pyo.maximize
    nodes: list[BnBNode] = []
    incumbent, solution = None, {}
    stack = [(None, "", {}, 0)]            # (parent id, decision, {binary index: fixed value}, depth)
    while stack and len(nodes) < node_limit:
        parent, decision, fixed, depth = stack.pop()
        bound = _solve_node(relaxed, binaries, fixed, solver)
        node = BnBNode(len(nodes), parent, decision, bound, BRANCHED, incumbent, depth)
        nodes.append(node)
        if bound is None:
            node.status = INFEASIBLE
        elif incumbent is not None and not _better(bound, incumbent, maximize):
            node.status = PRUNED
        else:
            branch = _most_fractional(binaries)
            if branch is None:
                node.status = INTEGRAL
                incumbent = bound
                solution = {var.name: float(pyo.value(var)) for var in relaxed.component_data_objects(pyo.Var)}
            else:
                stack.extend(_children(node.id, binaries, branch, fixed, depth))
    for parent, decision, _, depth in reversed(stack):
        nodes.append(BnBNode(len(nodes), parent, decision, None, UNEXPLORED, incumbent, depth))
    return BnBResult(nodes, incumbent, solution, "maximize" if maximize else "minimize", finished=not stack)


def _objective(model: pyo.ConcreteModel):
    objectives = list(model.component_data_objects(pyo.Objective, active=True))
    if len(objectives) != 1:
        raise ValueError(f"the model needs exactly one active objective, it has {len(objectives)}")
    return objectives[0]


def _solve_node(relaxed: pyo.ConcreteModel, binaries: list, fixed: dict, solver: str) -> float | None:
    """The LP value at a node (binaries in ``fixed`` get lower = upper bound), None when infeasible."""
    for index, var in enumerate(binaries):
        value = fixed.get(index)
        var.setlb(0 if value is None else value)
        var.setub(1 if value is None else value)
    result = solve(relaxed, solver=solver)
    if result.status == "infeasible":
        return None
    if result.status != "optimal":
        raise RuntimeError(f"an LP of the branch-and-bound ended with status {result.status}")
    return float(result.objective)


def _better(bound: float, incumbent: float, maximize: bool) -> bool:
    """Whether a node with this LP bound may still hold a strictly better solution than the incumbent."""
    margin = 1e-6 * max(1.0, abs(incumbent))
    return bound > incumbent + margin if maximize else bound < incumbent - margin


def _most_fractional(binaries: list) -> int | None:
    """Index of the binary whose LP value is closest to 1/2, None when all are integral."""
    distances = [abs(pyo.value(var) - 0.5) for var in binaries]
    index = min(range(len(binaries)), key=distances.__getitem__, default=None)
    if index is None or distances[index] > 0.5 - INTEGRALITY_TOLERANCE:
        return None
    return index


def _children(node_id: int, binaries: list, branch: int, fixed: dict, depth: int) -> list[tuple]:
    """The two children of a node, ordered so that the one the LP value rounds to is popped first."""
    name = binaries[branch].name
    rounded = int(round(pyo.value(binaries[branch])))
    first, second = rounded, 1 - rounded
    return [(node_id, f"{name} = {value}", {**fixed, branch: value}, depth + 1) for value in (second, first)]



def model_summary(model: pyo.ConcreteModel) -> pd.DataFrame:
    """One row per variable or constraint family of ``model`` (its Pyomo components, blocks included): the
    family's name, its kind, the ``doc`` it was declared with (in odtlib's formulations: the paper's equation
    numbers and the symbol), and its number of entries (variables or rows). Families with no entry are left out."""
    rows = []
    for kind, component_type in (("variable", pyo.Var), ("constraint", pyo.Constraint)):
        for component in model.component_objects(component_type, active=True, descend_into=True):
            size = sum(1 for _ in component.values())
            if size:
                rows.append({"family": component.name, "kind": kind, "paper": component.doc or "",
                             "entries": size})
    return pd.DataFrame(rows, columns=["family", "kind", "paper", "entries"])


class ExerciseNotDone(NotImplementedError):
    """Raised by `todo`: an exercise cell still waits for the student's code."""


def todo(exercise: str) -> None:
    """Stop here: the exercise named by ``exercise`` (e.g. ``"exercise 2: switch the cuts off"``) is not done.
    Replace the call with your code; the solutions notebook shows one answer."""
    raise ExerciseNotDone(f"TODO {exercise}: replace this call with your code (see the solutions notebook)")


# ------------------------------------------------------------------ a solver plug-in called by hand (issue 33)
def point_values(model: pyo.ConcreteModel, integral: bool = False):
    """The current values of ``model``'s variables as the `odtlib.solvers.Values` that a cut family, lazy-row
    family or heuristic of `odtlib.solvers` reads inside a callback; ``integral`` says whether the point is an
    integer candidate (what a lazy callback sees) or an LP point. A notebook can then call a plug-in by hand at
    a point it chose, e.g. a Benders cut at a given tree (variables without a value count as 0)."""
    from odtlib.solvers import Values
    from odtlib.solvers.standard_form import compile_model

    index = compile_model(model).index
    x = np.array([0.0 if var.value is None else float(var.value) for var in index.columns])
    return Values(x, index, is_integral=integral)


def lp_point(model: pyo.ConcreteModel, solver: str = "highs"):
    """Solve ``model``'s LP relaxation (on a copy), load its optimum into ``model``'s own variables and return
    it as `point_values`: the point a cut family sees at the root node of the search. The rows a plug-in built
    on ``model`` returns there can be added to ``model`` with `add_rows`."""
    relaxed, _ = relaxed_copy(model)
    result = solve(relaxed, solver=solver)
    if result.status != "optimal":
        raise RuntimeError(f"the LP relaxation did not solve to optimality: {result.status}")
    # a clone lists its variables in the original's order
    for original, copy in zip(model.component_data_objects(pyo.Var), relaxed.component_data_objects(pyo.Var)):
        original.set_value(copy.value, skip_validation=True)
    return point_values(model, integral=False)


def rows_as_constraints(rows, values) -> list:
    """The rows a plug-in returned at ``values`` (`odtlib.solvers.LinearRow` or Pyomo expressions, over the
    columns of ``values``) as Pyomo relational expressions in the model's variables: ``print`` shows them as
    formulas, `add_rows` adds them, ``pyo.value(expression.args[0])`` evaluates the left-hand side (its
    terms) at the variables' values."""
    from odtlib.solvers.callbacks import to_rows

    index = values.column_index
    expressions = []
    for row in to_rows(rows, index):
        body = sum(float(coef) * index.columns[int(col)] for coef, col in zip(row.coefs, row.cols))
        if np.isfinite(row.lb) and np.isfinite(row.ub):
            expressions.append(body == row.ub if row.lb == row.ub else pyo.inequality(row.lb, body, row.ub))
        else:
            expressions.append(body <= row.ub if np.isfinite(row.ub) else body >= row.lb)
    return expressions


def add_rows(model: pyo.ConcreteModel, rows, values, name: str = "added_rows") -> pyo.ConstraintList:
    """Add the rows a plug-in returned at ``values`` (see `rows_as_constraints`) to ``model`` as the constraint
    list ``name`` (created, or extended when it exists): the cut becomes part of the model, so that its LP
    relaxation and `branch_and_bound` see it. Returns the list."""
    constraints = getattr(model, name, None)
    if constraints is None:
        constraints = pyo.ConstraintList(doc="rows added by hand from a solver plug-in")
        model.add_component(name, constraints)
    for expression in rows_as_constraints(rows, values):
        constraints.add(expression)
    return constraints
