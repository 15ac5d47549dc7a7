"""Benchmark: how long does it take to hand a large Pyomo MIP to a solver?

Model (as notes/toolchain.md section 6): binaries x[n,k], N x K (default 2000 x 100 = 200k),
two constraint families per (n,k) with 3 and 5 terms (400k rows, ~1.6M nonzeros), random
objective. One Pyomo model is built once and handed to each path in turn:

- odtlib highs / odtlib scip: ``odtlib.solvers.solve`` (standard-form compiler -> arrays ->
  ``Highs.passModel`` / an LP file written with numpy and read by SCIP's C reader);
- scip addConss: the previous SCIP hand-off, for comparison: the same arrays through PySCIPOpt
  objects (``addMatrixVar`` + ``addConss``, one ``Expr`` per row);
- naive paths: Pyomo's new-interface ``highs`` (``pyomo.contrib.solver``) and ``appsi_highs``
  (``set_instance`` then ``solve``), optionally ``scip_persistent``.

Columns: hand-off = Pyomo model -> solver ready (for odtlib: compile + pass), solve = the
solver run with the time limit (plus loading values back), share = hand-off / (hand-off + solve).
With the default 5 s limit any hand-off looks large; ``--time-limit 60`` is closer to real use.
HiGHS does not stop at its limit on this model (its MIP set-up after presolve does not check the clock,
see odtlib/solvers/highs.py): odtlib kills its run 2 s after the limit (status "time_limit (killed)");
Pyomo's HiGHS paths have no such guard (use ``--highs-presolve-off`` or ``--skip-naive``).
``--highs-only`` measures just the odtlib HiGHS path (the time-limit check of bench/README.md).

Run:  .venv/bin/python bench/solver_handoff.py [--quick] [--skip-naive] [--with-naive-scip]
      [--highs-only] [--highs-presolve-off] [--n N] [--k K] [--time-limit SECONDS]
"""
from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import pyomo.environ as pyo


def build_model(N: int, K: int, seed: int = 0) -> pyo.ConcreteModel:
    rng = np.random.default_rng(seed)
    c = rng.uniform(0, 1, size=(N, K))
    m = pyo.ConcreteModel()
    m.N = pyo.RangeSet(0, N - 1)
    m.K = pyo.RangeSet(0, K - 1)
    m.x = pyo.Var(m.N, m.K, domain=pyo.Binary)
    m.obj = pyo.Objective(expr=sum(float(c[n, k]) * m.x[n, k] for n in range(N) for k in range(K)),
                          sense=pyo.maximize)

    def three_terms(m, n, k):
        return m.x[n, k] + m.x[n, (k + 1) % K] + m.x[(n + 1) % N, k] <= 2

    def five_terms(m, n, k):
        return (m.x[n, k] + m.x[n, (k + 2) % K] + m.x[(n + 2) % N, k]
                + m.x[(n + 3) % N, (k + 1) % K] + m.x[n, (k + 3) % K] <= 1)

    m.c1 = pyo.Constraint(m.N, m.K, rule=three_terms)
    m.c2 = pyo.Constraint(m.N, m.K, rule=five_terms)
    return m


def odtlib_path(m, solver: str, time_limit: float, options: dict) -> dict:
    from odtlib.solvers import solve

    res = solve(m, solver=solver, time_limit=time_limit, threads=1, solver_options=options)
    status = res.status + (" (killed)" if res.extra.get("highs_killed") else "")
    return dict(handoff=res.build_time + res.handoff_time, compile=res.build_time, pass_=res.handoff_time,
                solve=res.solve_time, status=status, objective=res.objective)


def scip_addconss_path(m, time_limit: float) -> dict:
    """The previous SCIP hand-off (before the LP-file route): one Expr per row + addConss."""
    import pyscipopt
    from pyscipopt.scip import Expr, Term

    from odtlib.solvers.standard_form import compile_model

    t0 = time.perf_counter()
    sf = compile_model(m)
    t1 = time.perf_counter()
    s = pyscipopt.Model()
    s.hideOutput()
    inf = s.infinity()
    binary = sf.is_integer & (sf.col_lb >= 0) & (sf.col_ub <= 1)
    X = s.addMatrixVar((sf.n_cols,), vtype=np.where(binary, "B", np.where(sf.is_integer, "I", "C")),
                       lb=np.maximum(sf.col_lb, -inf), ub=np.minimum(sf.col_ub, inf), obj=sf.c)
    if sf.sense == -1:
        s.setMaximize()
    terms = [Term(v) for v in X]
    ip, ind, dat = sf.A.indptr.tolist(), sf.A.indices.tolist(), sf.A.data.tolist()
    conss = []
    for i, up in enumerate(sf.row_ub.tolist()):  # this model has only <= rows
        conss.append(Expr(dict(zip([terms[j] for j in ind[ip[i]:ip[i + 1]]], dat[ip[i]:ip[i + 1]]))) <= up)
    s.addConss(conss)
    t2 = time.perf_counter()
    s.setParam("limits/time", time_limit)
    s.setParam("lp/threads", 1)
    s.optimize()
    t3 = time.perf_counter()
    objective = s.getObjVal() if s.getNSols() else None
    return dict(handoff=t2 - t0, compile=t1 - t0, pass_=t2 - t1, solve=t3 - t2, status=s.getStatus(),
                objective=objective)


def naive_contrib(m, name: str, time_limit: float, options: dict) -> dict:
    from pyomo.contrib.solver.common.factory import SolverFactory

    opt = SolverFactory(name)
    t0 = time.perf_counter()
    opt.set_instance(m)
    t1 = time.perf_counter()
    r = opt.solve(m, time_limit=time_limit, threads=1, raise_exception_on_nonoptimal_result=False,
                  load_solutions=False, solver_options=options)
    t2 = time.perf_counter()
    return dict(handoff=t1 - t0, compile=None, pass_=None, solve=t2 - t1,
                status=str(r.termination_condition.name), objective=r.incumbent_objective)


def naive_appsi(m, time_limit: float, options: dict) -> dict:
    from pyomo.contrib.appsi.solvers import Highs

    s = Highs()
    s.config.time_limit = time_limit
    s.highs_options = {"threads": 1, **options}
    s.config.load_solution = False
    t0 = time.perf_counter()
    s.set_instance(m)
    t1 = time.perf_counter()
    r = s.solve(m)
    t2 = time.perf_counter()
    return dict(handoff=t1 - t0, compile=None, pass_=None, solve=t2 - t1,
                status=str(r.termination_condition.name), objective=r.best_feasible_objective)


def fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="N=100 (20k rows) smoke run")
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--time-limit", type=float, default=5.0)
    ap.add_argument("--skip-naive", action="store_true", help="only the odtlib paths")
    ap.add_argument("--highs-only", action="store_true", help="only the odtlib HiGHS path")
    ap.add_argument("--with-naive-scip", action="store_true", help="also Pyomo's scip_persistent (slow)")
    ap.add_argument("--highs-presolve-off", action="store_true",
                    help="HiGHS option presolve=off on every HiGHS path (HiGHS 1.15 overruns its time limit in "
                         "MIP presolve on this model)")
    args = ap.parse_args()
    N = args.n or (100 if args.quick else 2000)

    t0 = time.perf_counter()
    m = build_model(N, args.k)
    build = time.perf_counter() - t0
    n_vars, n_rows = N * args.k, 2 * N * args.k
    print(f"model: {n_vars} binaries, {n_rows} rows; Pyomo construction {build:.1f} s; "
          f"time limit {args.time_limit} s; threads 1; HiGHS presolve {'off' if args.highs_presolve_off else 'on'}; "
          f"{platform.node()}")

    highs = {"presolve": "off"} if args.highs_presolve_off else {}
    paths = [("odtlib highs (compiler + passModel)", lambda: odtlib_path(m, "highs", args.time_limit, highs)),
             ("odtlib scip (compiler + LP file)", lambda: odtlib_path(m, "scip", args.time_limit, {})),
             ("scip addConss, previous (compiler + addConss)", lambda: scip_addconss_path(m, args.time_limit))]
    if args.highs_only:
        paths = paths[:1]
    elif not args.skip_naive:
        paths += [("Pyomo contrib.solver 'highs'", lambda: naive_contrib(m, "highs", args.time_limit, highs)),
                  ("Pyomo appsi_highs", lambda: naive_appsi(m, args.time_limit, highs))]
        if args.with_naive_scip:
            paths.append(("Pyomo contrib.solver 'scip_persistent'",
                          lambda: naive_contrib(m, "scip_persistent", args.time_limit, {})))

    print()
    print("| path | hand-off s (compile + pass) | solve s | hand-off share | status | objective |")
    print("|---|---|---|---|---|---|")
    for name, run in paths:
        r = run()
        split = f" ({fmt(r['compile'])} + {fmt(r['pass_'])})" if r["compile"] is not None else ""
        share = r["handoff"] / (r["handoff"] + r["solve"])
        print(f"| {name} | {fmt(r['handoff'])}{split} | {fmt(r['solve'])} | {share:.0%} | {r['status']} | "
              f"{fmt(r['objective'], 1)} |", flush=True)


if __name__ == "__main__":
    main()
