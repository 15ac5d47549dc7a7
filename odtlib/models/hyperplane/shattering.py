"""Shattering inequalities of S-OCT (Boutilier, Michini & Zhou 2022, Section 4) and their separation.

A set of points whose two sides cannot be separated by a hyperplane cannot be routed that way at any branch
node t: (13) forbids it, with one row of at most p + 2 terms (the VC dimension of hyperplanes in R^p is
p + 1). Given a point w̄ of the model (fractional or integral), :class:`ShatteringSeparator` finds violated
rows (Section 4.1):

1. N_s = {i : w̄_{is} > (p + 1)/(p + 2)} for the children s = 2t, 2t + 1;
2. if the convex hulls of the points of N_2t and N_2t+1 intersect, system (16) (a·x^i + 1 <= b on the left,
   a·x^i - 1 >= b on the right) is infeasible, and its Farkas polyhedron Q_t -- q >= 0 with
   Σ_{N_2t} q_i x^i = Σ_{N_2t+1} q_i x^i and Σ_{N_2t} q_i = Σ_{N_2t+1} q_i = 1 -- is not empty;
3. a vertex q* of Q_t (a simplex solution) has as support an irreducible infeasible subsystem I', and
   Σ_{i ∈ I' ∩ N_2t} w_{i,2t} + Σ_{i ∈ I' ∩ N_2t+1} w_{i,2t+1} <= |I'| - 1 (17) is violated by w̄
   (Proposition 2); on integral w̄ the separation is exact (Proposition 3).

``n_cuts`` repetitions per node change the LP's objective to reach other vertices: a counter g (0 at first)
is updated after each cut by ``g := 1_{I'} + g / 2`` and the LP *minimises* g·q (``cut_order="avoid_recent"``,
our reading of the paper's intent: prefer points not used by recent cuts) or maximises it
(``"favour_recent"``, the text as printed); a repeated cut ends the repetitions. Measured side by side
(``bench/paper002_mip_comparison.py --datasets A B D E F --depths 2 --methods SOCT-benders-last-10 --solvers scip
--time-limit 60 --set cut_order=...``, one thread): the same outcome on all five instances (Wine proved, the
other four time-limited at the same incumbent and bound); "favour_recent" added 114 lazy cuts where
"avoid_recent" added 711 (its rounds repeat a cut sooner and stop) and proved Wine in 6.0 s instead of 11.2 s.
One proved instance does not settle the choice, so the default stays our reading of the intent.

The LPs are many and tiny, so they run on one :class:`~odtlib.solvers.ReusableLP` per training set (on HiGHS,
whatever solver runs the MIP), built once with two columns per point (its left and its right copy); a call
only opens the columns of N_2t and N_2t+1 and sets their costs, and the simplex warm-starts from the previous
basis. No Pyomo per LP.

Plug-ins (:mod:`odtlib.solvers.plugins`): :class:`ShatteringUserCuts` (cut family, at fractional points) and
:class:`ShatteringBendersCuts` (lazy rows at integer and fractional points, for the nodes whose big-M rows the
model drops). :func:`initial_shattering_cuts` runs the paper's initial-cut rounds on the LP relaxation of (1)
without (1m); :func:`separating_hyperplane` recovers (a_t, b_t) of a Benders node from its final routing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyomo.environ as pyo
from scipy.optimize import linprog

from odtlib.solvers import CutFamily, LazyRowFamily, LinearRow, ReusableLP, Values

__all__ = ["ShatteringCut", "ShatteringSeparator", "ShatteringUserCuts", "ShatteringBendersCuts",
           "initial_shattering_cuts", "separating_hyperplane", "strict_separator", "CUT_ORDERS"]

CUT_ORDERS = ("avoid_recent", "favour_recent")
SUPPORT_TOL = 1e-9
MAX_INITIAL_ROUNDS = 10   # Section 4.2: initial cuts, at most 10 rounds


@dataclass(frozen=True)
class ShatteringCut:
    """Row (17) at node t: Σ_{i ∈ left} w_{i,2t} + Σ_{i ∈ right} w_{i,2t+1} <= |left| + |right| - 1."""

    node: int
    left: tuple[int, ...]
    right: tuple[int, ...]

    @property
    def rhs(self) -> int:
        return len(self.left) + len(self.right) - 1

    def lhs(self, w: np.ndarray) -> float:
        """The row's left-hand side at w (points × nodes of the full tree, 1-based node columns)."""
        return float(w[list(self.left), 2 * self.node].sum() + w[list(self.right), 2 * self.node + 1].sum())


class FarkasLP:
    """min c·q over Q_t for chosen (N_2t, N_2t+1): one :class:`~odtlib.solvers.ReusableLP` per training set.

    Q_t of Section 4.1 for every possible pair of sides at once: columns q_i of a left copy of every point x^i
    (0..n-1) and of a right copy (n..2n-1); rows Σ_{N_2t} q_i x^i - Σ_{N_2t+1} q_i x^i = 0 (p rows),
    Σ_{N_2t} q_i = 1 and Σ_{N_2t+1} q_i = 1. Every copy is closed (q_i = 0) until a call opens it."""

    def __init__(self, X: np.ndarray):
        self.n, self.p = X.shape
        copies = np.hstack([X.T, -X.T])                                # x^i on the left, -x^i on the right
        sides = np.kron(np.eye(2), np.ones(self.n))                    # Σ_left q_i, Σ_right q_i
        rhs = np.r_[np.zeros(self.p), 1.0, 1.0]
        self.lp = ReusableLP(np.vstack([copies, sides]), rhs, rhs, closed=True)   # simplex: a vertex (support: an IIS)

    @property
    def n_solves(self) -> int:
        return self.lp.n_solves

    @property
    def seconds(self) -> float:
        return self.lp.seconds

    def solve(self, left: np.ndarray, right: np.ndarray, cost: np.ndarray) -> np.ndarray | None:
        """A vertex q of Q_t (length n for the left copies, then n for the right copies), or None if empty.

        ``cost`` (length n) is the objective coefficient of each point, minimised."""
        columns = np.concatenate([left, self.n + right])
        self.lp.close()                                                # the previous call's sides
        self.lp.open(columns)
        self.lp.set_costs(columns, np.concatenate([cost[left], cost[right]]))
        return self.lp.vertex() if self.lp.solve() == "optimal" else None


@dataclass
class ShatteringSeparator:
    """Section 4.1's separation on the training points X (in [0, 1]) for the branch nodes ``nodes``."""

    X: np.ndarray
    nodes: list[int]
    n_cuts: int = 1
    cut_order: str = "avoid_recent"
    lp: FarkasLP = field(init=False)

    def __post_init__(self) -> None:
        if self.cut_order not in CUT_ORDERS:
            raise ValueError(f"cut_order must be one of {CUT_ORDERS}, got {self.cut_order!r}")
        self.lp = FarkasLP(np.asarray(self.X, dtype=np.float64))

    def stats(self) -> dict:
        """The separation LPs solved so far and their seconds."""
        return {"lp_solves": self.lp.n_solves, "lp_seconds": self.lp.seconds}

    @property
    def threshold(self) -> float:
        p = self.X.shape[1]
        return (p + 1) / (p + 2)

    def separate(self, w: np.ndarray) -> list[ShatteringCut]:
        """Violated rows (17) at w (points × nodes of the full tree, columns indexed by node id)."""
        return [cut for t in self.nodes for cut in self.separate_node(w, t)]

    def separate_node(self, w: np.ndarray, t: int) -> list[ShatteringCut]:
        left = np.flatnonzero(w[:, 2 * t] > self.threshold)
        right = np.flatnonzero(w[:, 2 * t + 1] > self.threshold)
        if len(left) == 0 or len(right) == 0:
            return []
        counter = np.zeros(len(self.X))
        sign = 1.0 if self.cut_order == "avoid_recent" else -1.0
        cuts: list[ShatteringCut] = []
        for _ in range(self.n_cuts):
            q = self.lp.solve(left, right, sign * counter)
            if q is None:
                break                                            # (16) feasible: nothing to cut at t
            n = len(self.X)
            cut = ShatteringCut(t, tuple(np.flatnonzero(q[:n] > SUPPORT_TOL).tolist()),
                                tuple(np.flatnonzero(q[n:] > SUPPORT_TOL).tolist()))
            if cut in cuts:
                break
            if cut.lhs(w) > cut.rhs + 1e-9:                     # Proposition 2 (kept as a guard)
                cuts.append(cut)
            support = list(cut.left) + list(cut.right)
            counter = 0.5 * counter
            counter[support] += 1.0
        return cuts


class _ShatteringRows:
    """Rows (17) from a separator, over the model's w (columns found once per solve); its ``stats()`` are the
    separator's LP solves and seconds."""

    def __init__(self, model: pyo.ConcreteModel, separator: ShatteringSeparator):
        self.separator = separator
        self.n_points, self.n_nodes = len(model.I), len(model.V) + 1
        self._vars = [model.w[i, t] for i in model.I for t in model.V]
        self._cols = None

    def _grid(self, values: Values) -> tuple[np.ndarray, np.ndarray]:
        if self._cols is None:
            cols = np.full((self.n_points, self.n_nodes), -1, dtype=np.int64)
            cols[:, 1:] = values.columns(self._vars).reshape(self.n_points, -1)
            self._cols = cols
        return self._cols, np.where(self._cols >= 0, values.x[self._cols], 0.0)

    def stats(self) -> dict:
        return self.separator.stats()

    def rows(self, values: Values) -> list[LinearRow]:
        cols, w = self._grid(values)
        rows = []
        for cut in self.separator.separate(w):
            terms = np.concatenate([cols[list(cut.left), 2 * cut.node], cols[list(cut.right), 2 * cut.node + 1]])
            rows.append(LinearRow(terms, np.ones(len(terms)), ub=float(cut.rhs)))
        return rows


class ShatteringUserCuts(_ShatteringRows, CutFamily):
    """(17) as user cuts at fractional LP points, on nodes that keep their big-M rows (valid for them)."""

    def cut(self, values: Values) -> list[LinearRow]:
        return self.rows(values)


class ShatteringBendersCuts(_ShatteringRows, LazyRowFamily):
    """(17) as lazy rows (combinatorial Benders cuts), on nodes whose big-M rows the model drops: separated at
    integer candidates (exact there, Proposition 3) and at fractional points."""

    at_fractional = True

    def lazy(self, values: Values) -> list[LinearRow]:
        return self.rows(values)


def initial_shattering_cuts(model_without_1m: pyo.ConcreteModel, separator: ShatteringSeparator,
                            max_rounds: int = MAX_INITIAL_ROUNDS) -> list[ShatteringCut]:
    """Section 4.2's initial cuts: solve the LP relaxation of (1) without (1m), separate at every node, add the
    cuts, repeat until no cut is found or ``max_rounds`` rounds; returns every cut found."""
    from odtlib.solvers import solve

    lp = model_without_1m
    pyo.TransformationFactory("core.relax_integer_vars").apply_to(lp)
    lp.shattering = pyo.ConstraintList(doc="(17)")
    found: list[ShatteringCut] = []
    n_points, n_nodes = len(lp.I), len(lp.V) + 1
    for _ in range(max_rounds):
        result = solve(lp, solver="highs")
        if result.status != "optimal":
            break
        w = np.zeros((n_points, n_nodes))
        for (i, t), var in lp.w.items():
            w[i, t] = var.value
        cuts = separator.separate(w)
        if not cuts:
            break
        for cut in cuts:
            lp.shattering.add(shattering_row(lp, cut))
        found += cuts
    return found


def shattering_row(model: pyo.ConcreteModel, cut: ShatteringCut):
    """Row (17) of ``cut`` as a Pyomo constraint on the model's w."""
    t = cut.node
    return (sum(model.w[i, 2 * t] for i in cut.left) + sum(model.w[i, 2 * t + 1] for i in cut.right)
            <= cut.rhs)


def strict_separator(X_left: np.ndarray, X_right: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The solution (a, b) of system (16) -- a·x + 1 <= b on the left, a·x - 1 >= b on the right -- with the
    smallest ||a||_1, or None when the two sides are not strictly separable (both sides non-empty).

    Scaled to ||a||_1 = 1 (the bounded splits (5)), the sides lie 2 / ||a||_1 apart: the smallest norm is the
    widest margin of any hyperplane, so a node with margin rows gets an ε-margin split whenever one exists."""
    p = X_left.shape[1]
    # variables a+ >= 0, a- >= 0 (a = a+ - a-) and b (free): rows a·x - b <= -1 (left), -a·x + b <= -1 (right)
    sides = np.vstack([np.hstack([X_left, -np.ones((len(X_left), 1))]),
                       np.hstack([-X_right, np.ones((len(X_right), 1))])])
    A = np.hstack([sides[:, :p], -sides[:, :p], sides[:, p:]])
    cost = np.r_[np.ones(2 * p), 0.0]
    result = linprog(cost, A_ub=A, b_ub=-np.ones(len(A)), bounds=[(0, None)] * (2 * p) + [(None, None)],
                     method="highs")
    if result.status != 0:
        return None
    return result.x[:p] - result.x[p:2 * p], float(result.x[2 * p])


def separating_hyperplane(X_left: np.ndarray, X_right: np.ndarray) -> tuple[np.ndarray, float]:
    """(a, b) of system (16) with the widest margin (:func:`strict_separator`), scaled to ||a||_1 = 1 (the
    threshold b stays in the middle of the margin); for the Benders nodes after the solve."""
    p = X_left.shape[1] if len(X_left) else X_right.shape[1]
    if len(X_right) == 0 or len(X_left) == 0:
        return np.zeros(p), 0.0 if len(X_right) == 0 else -1.0
    solution = strict_separator(X_left, X_right)
    if solution is None:
        raise RuntimeError("the solved routing at a Benders node is not separable by a hyperplane; "
                           "this is a bug or a numerical failure of the solve")
    a, b = solution
    scale = max(np.abs(a).sum(), 1e-12)
    return a / scale, b / scale
