"""Ablation of paper 000's model enhancements (Günlük et al. 2019, Tables 2-3) on our solvers.

Variants (Section 5.1): Nothing (none of 4.3.1/4.3.2/4.3.4), No Anchor (relax + strengthen), No Relax
(anchor + strengthen), No Strength (anchor + relax), All. The deletion of c variables (4.3.3) is on in
every variant, as in the paper (CPLEX's presolve did it there); ``--no-prune`` switches it off.
One run per cell; prints solve time (s), branch-and-bound nodes, status and objective.

    ODTLIB_DATA_MIRROR=/work/shared/uci .venv/bin/python bench/paper000_enhancements.py \\
        --datasets tic-tac-toe breast-cancer-wisconsin-original --n 100 --topologies depth2 depth3 \\
        --time-limit 60 --solver highs

The paper's Table 2 is ``--n 200 --topologies depth3`` with a 3 h limit on CPLEX (8 cores).
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd

from odtlib.data import load_dataset
from odtlib.models import CategoricalODT

VARIANTS = tuple(CategoricalODT.PAPER_METHODS)   # Tables 2-3
# dataset slug -> variant of odtlib.data.load_dataset (paper 000's versions of the data)
DATASETS = {
    "mushroom": None,                                      # missing stalk-root kept as the category "?"
    "kr-vs-kp": None,
    "tic-tac-toe": None,
    "breast-cancer-wisconsin-original": "complete",        # 9 scores 1..10 -> 90 columns as in Table 1
    "congressional-voting": "missing-as-category",
    "monks": "monks-1-test",                               # the 432-row monks-1 file
}


def load(slug: str, n: int | None, seed: int) -> tuple[pd.DataFrame, pd.Series]:
    """The dataset with missing categorical values as a category, subsampled to n rows (seeded)."""
    if slug not in DATASETS:
        raise SystemExit(f"unknown dataset {slug!r}; choose from {', '.join(DATASETS)}")
    data = load_dataset(slug, DATASETS[slug])
    X, y = data.X, data.y
    categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    X = X.astype({c: object for c in categorical})
    X[categorical] = X[categorical].fillna("?")
    if n is not None and n < len(y):
        rows = np.sort(np.random.default_rng(seed).choice(len(y), size=n, replace=False))
        X, y = X.iloc[rows], y.iloc[rows]
    return X.reset_index(drop=True), y.reset_index(drop=True)


def run_cell(X, y, topology: str, variant: str, args) -> dict:
    model = CategoricalODT.paper_method(
        variant, topology=topology, pruned_routing=not args.no_prune, max_card=args.max_card,
        ordinal_splits=not args.categorical, feature_selection="cart" if args.feature_selection else None,
        solver=args.solver, time_limit=args.time_limit, threads=args.threads, seed=args.seed)
    start = time.perf_counter()
    model.fit(X, y)
    wall = time.perf_counter() - start
    r = model.solve_result_
    return {"time_s": round(r.runtime, 1), "wall_s": round(wall, 1), "nodes": r.nodes, "status": r.status,
            "objective": None if r.objective is None else round(r.objective, 2),
            "bound": None if r.bound is None else round(r.bound, 2)}


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["tic-tac-toe", "breast-cancer-wisconsin-original"])
    parser.add_argument("--n", type=int, nargs="+", default=[200], help="subsample sizes")
    parser.add_argument("--topologies", nargs="+", default=["depth3"])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--solver", default="highs")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-card", type=int, default=None, help="Section 4.5 (default: unconstrained)")
    parser.add_argument("--categorical", action="store_true", help="numeric groups without Section 4.4's constraints")
    parser.add_argument("--feature-selection", action="store_true", help="CART feature selection (Section 5.1)")
    parser.add_argument("--no-prune", action="store_true", help="keep all c variables (no deletion (14))")
    parser.add_argument("--out", help="also write the table to this CSV file")
    args = parser.parse_args(argv)

    rows = []
    for slug in args.datasets:
        for n in args.n:
            X, y = load(slug, n, args.seed)
            for topology in args.topologies:
                for variant in args.variants:
                    cell = run_cell(X, y, topology, variant, args)
                    rows.append({"dataset": slug, "n": len(y), "topology": topology, "variant": variant, **cell})
                    print(" ".join(f"{k}={v}" for k, v in rows[-1].items()), file=sys.stderr, flush=True)
    table = pd.DataFrame(rows)
    wide = table.assign(cell=[f"{t}/{nd}" + ("" if s == "optimal" else "*") for t, nd, s in
                              zip(table.time_s, table.nodes, table.status)])
    wide = wide.pivot_table(index=["dataset", "n", "topology"], columns="variant", values="cell",
                            aggfunc="first")[args.variants]
    print(f"\nseconds/nodes ({args.solver}, {args.threads} thread(s), limit {args.time_limit:g} s; * = not proved "
          "optimal)")
    print(wide.to_string())
    if args.out:
        table.to_csv(args.out, index=False)
    return table


if __name__ == "__main__":
    main()
