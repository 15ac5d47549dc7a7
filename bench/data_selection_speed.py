"""Paper 004's LP data selection: per-point LPs per second, and the full skin-segmentation selection.

Prints, in one run: LPs per second of the per-point LP (24) on random clusters with all points as columns
(the plain LP) and with the hull-vertex columns (the shortcut); points per second of the whole LP (24) on a
cluster (hull columns, Delaunay for non-vertices); the balanced variant's time on small clusters; the time
of the whole selection on skin-segmentation (245,057 rows, depth 2 and 3, the paper's β1, β2, ε' from
Tables 7-8) with its selected fraction beside the paper's, and at depth 2 again with every point by its LP.

    ODTLIB_DATA_MIRROR=../shared/uci .venv/bin/python bench/data_selection_speed.py [--n-jobs 2] [--quick]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from odtlib.data import paper_dataset
from odtlib.models import data_selection
from odtlib.models.data_selection import (LPDataSelector, _solve_points, affine_coordinates,
                                          balanced_selection, barycentric_weights, hull_vertex_candidates,
                                          interior_points)
from odtlib.experiments.reference import reference_table


def lps_per_second(n_points: int, d: int, hull: bool, seed: int = 0) -> tuple[float, int]:
    """Per-point LPs per second on one random cluster (and the number of columns each LP has)."""
    points = np.random.default_rng(seed).random((n_points, d))
    columns = hull_vertex_candidates(affine_coordinates(points)) if hull else np.arange(n_points)
    own = np.full(n_points, -1)
    own[columns] = np.arange(len(columns))
    start = time.perf_counter()
    _, n_lps = _solve_points(points[columns], 0.0, points, own)
    return n_lps / (time.perf_counter() - start), len(columns)


def cover_points_per_second(n_points: int, d: int, seed: int = 0) -> dict:
    """Points per second of the whole LP (24) on one random cluster (hull columns, Delaunay, LPs)."""
    points = np.random.default_rng(seed).random((n_points, d))
    start = time.perf_counter()
    cover = interior_points(points)
    seconds = time.perf_counter() - start
    return {"points": n_points, "d": d, "LPs": cover.n_lps, "interior": int(cover.interior.sum()),
            "points/s": round(n_points / seconds)}


def skin_selection(depth: int, n_jobs: int, delaunay: bool = True) -> dict:
    params = reference_table("004", "data_selection_params")
    row = params[(params.dataset == "skin-segmentation") & (params.depth == depth)].iloc[0]
    X, y, _ = paper_dataset("004", "skin-segmentation")
    start = time.perf_counter()
    if not delaunay:                                   # every point by its LP over the hull columns
        data_selection.barycentric_weights = lambda coordinates, vertices, targets: [None] * len(targets)
    selector = LPDataSelector(depth=depth, beta1=row.beta1, beta2=row.beta2, epsilon_prime=row.epsilon_prime,
                              n_jobs=n_jobs).fit(np.asarray(X), np.asarray(y))
    data_selection.barycentric_weights = barycentric_weights
    return {"depth": depth, "non-vertices by": "Delaunay" if delaunay else "LP", "rows": len(X), "clusters": len(selector.clusters_), "LPs": selector.n_lps_,
            "seconds": round(time.perf_counter() - start, 1),
            "selected %": round(100 * selector.support_.mean(), 2), "paper selected %": row.selected_data_pct,
            "branches": "".join(map(str, selector.branches_))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="depth 2 only")
    args = parser.parse_args()
    rates = []
    for n_points, d in [(2000, 3), (2000, 10)]:
        for hull in (False, True):
            if hull and d > 5:
                continue
            rate, n_columns = lps_per_second(n_points, d, hull)
            rates.append({"points": n_points, "d": d, "columns": "hull vertices" if hull else "all points",
                          "columns per LP": n_columns, "LPs/s": round(rate)})
    print(pd.DataFrame(rates).to_string(index=False))
    print(pd.DataFrame([cover_points_per_second(n, d) for n, d in [(20000, 3), (2000, 10)]]).to_string(index=False))
    balanced = []
    for m in (50, 100, 150):
        points = np.random.default_rng(0).random((m, 2))
        start = time.perf_counter()
        selected, covered, _ = balanced_selection(points)
        balanced.append({"points": m, "seconds": round(time.perf_counter() - start, 2),
                         "selected": int(selected.sum()), "covered": int(covered.sum())})
    print(pd.DataFrame(balanced).to_string(index=False))
    runs = [skin_selection(depth, args.n_jobs) for depth in ((2,) if args.quick else (2, 3))]
    if not args.quick:
        runs.append(skin_selection(2, args.n_jobs, delaunay=False))
    print(pd.DataFrame(runs).to_string(index=False))


if __name__ == "__main__":
    main()
