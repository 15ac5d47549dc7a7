"""Paper 000's Table 2 on our solvers: the enhancements of Section 4.3 and the subtree decomposition.

Methods, each run on the same subsample of the paper's encoding of the data (Table 1):

* the paper's variants (Section 5.1, ``CategoricalODT.PAPER_METHODS``): Nothing (none of 4.3.1/4.3.2/4.3.4),
  No Anchor (relax + strengthen), No Relax (anchor + strengthen), No Strength (anchor + relax), All -- on
  every solver of ``--solvers``; the deletion of c variables (4.3.3) is on in every variant, as in the paper
  (CPLEX's presolve did it there), ``--no-prune`` switches it off;
* ``Subtree-Benders``: All's master switches with ``subtree_benders=True`` (not in the paper; exact subtrees of
  height <= 2 under a master of the upper tests, :mod:`odtlib.models.categorical.subtree_bounds`) on every solver
  of ``--benders-solvers`` (SCIP adds its cuts in the search, HiGHS in a restart loop).

One run per cell; prints solve time (s), branch-and-bound nodes, status and objective, then a table with the
paper's CPLEX time (Table 2, 8 cores, 3 h limit) beside ours and the ratio ours / paper.

    .venv/bin/python bench/paper000_enhancements.py \\
        --datasets a1a bc krkp mush ttt --variants All Subtree-Benders --time-limit 60 --benders-time-limit 600

The paper's Table 2 is ``--n 200 --topologies depth3`` (the defaults). It does not say which branching rule it
used; the default here is unrestricted subsets (comb-unc), the largest problem (``--max-card 2`` is the paper's
comb-con). a1a has unrestricted groups of 16 and 33 values, of which 13 and 10
occur in 200 rows: the decomposition enumerates the subsets of the values present (2^12 tests of education at
a node of height 2). A cell the decomposition refuses (too many tests) says why.
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
import pandas as pd

from odtlib.experiments.paper000 import AVAILABLE, load
from odtlib.experiments.reference import reference_table
from odtlib.models import CategoricalODT
from odtlib.models._pipeline import NotProvedOptimalWarning
from odtlib.solvers import SolverCapabilityWarning

DECOMPOSITION = "Subtree-Benders"
VARIANTS = (*CategoricalODT.PAPER_METHODS, DECOMPOSITION)    # Table 2's columns, then ours


def subsample(dataset: str, n: int | None, seed: int):
    """The paper's encoding of ``dataset`` (0/1 columns and their groups), n random rows (seeded)."""
    X, y, groups = load(dataset)
    if n is not None and n < len(y):
        rows = np.sort(np.random.default_rng(seed).choice(len(y), size=n, replace=False))
        X, y = X.iloc[rows], y.iloc[rows]
    return X.reset_index(drop=True), y.reset_index(drop=True), groups


def make_model(variant: str, solver: str, groups, topology: str, args) -> CategoricalODT:
    time_limit = args.benders_time_limit if variant == DECOMPOSITION and args.benders_time_limit else args.time_limit
    common = dict(topology=topology, groups=groups, pruned_routing=not args.no_prune, max_card=args.max_card,
                  ordinal_splits=not args.categorical, solver=solver, time_limit=time_limit,
                  threads=args.threads, random_state=args.seed)
    if variant == DECOMPOSITION:
        return CategoricalODT.paper_method("All", subtree_benders=True, **common)
    return CategoricalODT.paper_method(variant, **common)


def run_cell(X, y, groups, topology: str, variant: str, solver: str, args) -> dict:
    model = make_model(variant, solver, groups, topology, args)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotProvedOptimalWarning)       # the status column says it
            warnings.simplefilter("ignore", SolverCapabilityWarning)       # HiGHS: the restart loop, known
            model.fit(X, y)
    except ValueError as error:                                             # the decomposition refuses
        return {"solver": model.solver, "time_s": None, "wall_s": None, "nodes": None, "status": "refused",
                "objective": None, "bound": None, "note": str(error)}
    wall = time.perf_counter() - start
    r = model.solve_result_
    return {"solver": model.solver, "time_s": round(r.runtime, 1), "wall_s": round(wall, 1), "nodes": r.nodes,
            "status": r.status, "objective": None if r.objective is None else round(r.objective, 2),
            "bound": None if r.bound is None else round(r.bound, 2), "note": ""}


def paper_times() -> pd.DataFrame:
    """Table 2's CPLEX seconds per (dataset, variant); NaN where CPLEX hit its 3 h limit."""
    table = reference_table("000", "table2")
    return table.set_index(["dataset", "variant"])["time_s"]


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Our time beside the paper's CPLEX time for the same (dataset, variant); Subtree-Benders is compared with
    the paper's All. ``ratio`` = ours / paper; "*" marks a run not proved optimal."""
    paper = paper_times()
    out = table[["dataset", "n", "topology", "variant", "solver", "time_s", "status", "objective"]].copy()
    keys = zip(out["dataset"], out["variant"].replace(DECOMPOSITION, "All"))
    out["paper_cplex_s"] = [paper.get(key, np.nan) if t == "depth3" and n == 200 else np.nan
                            for key, t, n in zip(keys, out["topology"], out["n"])]
    out["ratio"] = (pd.to_numeric(out["time_s"]) / out["paper_cplex_s"]).round(2)
    out["proved"] = np.where(out["status"] == "optimal", "", "*")
    return out


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["bc", "krkp", "mush", "ttt"], choices=AVAILABLE)
    parser.add_argument("--n", type=int, nargs="+", default=[200], help="subsample sizes")
    parser.add_argument("--topologies", nargs="+", default=["depth3"])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--benders-time-limit", type=float, help="Subtree-Benders' limit (default: --time-limit)")
    parser.add_argument("--solvers", nargs="+", default=["highs", "scip"], help="solvers of the paper's variants")
    parser.add_argument("--benders-solvers", nargs="+", default=["scip", "highs"], help="solvers of Subtree-Benders")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-card", type=int, default=None, help="Section 4.5 (default: unconstrained)")
    parser.add_argument("--categorical", action="store_true", help="numeric groups without Section 4.4's constraints")
    parser.add_argument("--no-prune", action="store_true", help="keep all c variables (no deletion (14))")
    parser.add_argument("--out", help="also write the table to this CSV file")
    args = parser.parse_args(argv)

    rows = []
    for dataset in args.datasets:
        for n in args.n:
            X, y, groups = subsample(dataset, n, args.seed)
            for topology in args.topologies:
                for variant in args.variants:
                    for solver in args.benders_solvers if variant == DECOMPOSITION else args.solvers:
                        cell = run_cell(X, y, groups, topology, variant, solver, args)
                        rows.append({"dataset": dataset, "n": len(y), "topology": topology, "variant": variant,
                                     **cell})
                        print(" ".join(f"{k}={v}" for k, v in rows[-1].items() if v != ""), file=sys.stderr,
                              flush=True)
    table = pd.DataFrame(rows)
    benders_limit = f", Subtree-Benders {args.benders_time_limit:g} s" if args.benders_time_limit else ""
    print(f"\nseconds ({args.threads} thread(s), limit {args.time_limit:g} s{benders_limit}, "
          f"max_card={args.max_card}) beside the paper's CPLEX seconds (Table 2, 8 cores; Subtree-Benders is "
          "compared with its All); * = not proved optimal")
    print(summary(table).to_string(index=False))
    if args.out:
        table.to_csv(args.out, index=False)
    return table


if __name__ == "__main__":
    main()
