"""Paper 004's LP data selection: per-point LPs per second, and the full skin-segmentation selection.

Prints, in one run: LPs per second of the per-point LP (24) on random clusters with all points as columns
(the plain LP) and with the hull-vertex columns (the shortcut); points per second of the whole LP (24) on a
cluster (3-D: hull columns, Delaunay for non-vertices; 10-D: column generation); the balanced variant's
time on small clusters; the time of the whole selection on skin-segmentation's 75 % training part (183,792
of 245,057 rows; depth 2 and 3, the paper's β1, β2, ε' from Tables 7-8) with its selected share beside the
paper's, at depth 2 again with every point by its LP, and on any other Table 7 datasets asked for.

    .venv/bin/python bench/data_selection_speed.py [--quick] [--datasets HTRU]

Measured 2026-11-25 on the shared 2-core machine under heavy load (load average 5-6; wall times noisy):
LPs/s over 2000 columns 244 (d = 3) and 82 (d = 10), over 78 hull columns 1236; LP (24) on a whole
cluster of 20,000 points in 3-D 9750 points/s (133 LPs), 2000 points in 10-D 106 points/s (column
generation, 6296 LPs). Skin-segmentation, 183,792 training rows: depth 2 3.9 s (1.6 s cpu, 340 LPs),
selected 0.18 % (paper 0.42 %); depth 3 5.4 s, 0.29 % (paper 0.39 %); depth 2 with every point by its LP
29.2 s (43,163 LPs). HTRU (d = 8, 13,423 rows, depth 2): 232 s (122 s cpu, 72,925 LPs), selected 29.4 %
(paper 3.0 %: J is large in 8-D, so Algorithm 1 keeps J where the paper's shares sit at β2).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from odtlib.models.svm1odt import data_selection
from odtlib.models.svm1odt.data_selection import (LPDataSelector, _solve_points, affine_coordinates,
                                          balanced_selection, barycentric_weights, hull_vertex_candidates,
                                          interior_points)
from odtlib.experiments import paper004


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


def selection(table: int, dataset: str, n_jobs: int, delaunay: bool = True) -> dict:
    """Data selection on the 75 % training part (split 0) of ``dataset`` with the parameters Table ``table``
    prints, as S1O-DS runs it; the selected share beside the paper's."""
    params = paper004.selection_params(table, dataset)
    X, y = paper004.load(dataset)
    train, _ = paper004.split(y, 0)
    start, cpu = time.perf_counter(), time.process_time()
    if not delaunay:                                   # every point by its LP over the hull columns
        data_selection.barycentric_weights = lambda coordinates, vertices, targets: [None] * len(targets)
    selector = LPDataSelector(depth=paper004.TABLE_DEPTH[table], beta1=params["beta1"], beta2=params["beta2"],
                              epsilon_prime=params["epsilon_prime"], n_jobs=n_jobs).fit(X[train], y[train])
    data_selection.barycentric_weights = barycentric_weights
    return {"dataset": dataset, "depth": paper004.TABLE_DEPTH[table], "d": X.shape[1],
            "non-vertices by": "Delaunay" if delaunay else "LP", "train rows": len(train),
            "clusters": len(selector.clusters_), "LPs": selector.n_lps_,
            "seconds": round(time.perf_counter() - start, 1), "cpu seconds": round(time.process_time() - cpu, 1),
            "selected %": round(100 * selector.support_.mean(), 2), "paper selected %": params["selected_data_pct"],
            "branches": "".join(map(str, selector.branches_))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-jobs", type=int, default=1, help="processes for the LPs (cpu seconds count this one)")
    parser.add_argument("--quick", action="store_true", help="skin-segmentation at depth 2 only")
    parser.add_argument("--datasets", nargs="*", default=[],
                        help="more Table 7 datasets (e.g. HTRU EEG shuttle), at depth 2")
    args = parser.parse_args()
    rates = []
    for n_points, d in [(2000, 3), (2000, 10)]:
        for hull in (False, True):
            if hull and d > 5:
                continue
            rate, n_columns = lps_per_second(n_points, d, hull)
            rates.append({"points": n_points, "d": d, "columns": "hull vertices" if hull else "all points",
                          "columns per LP": n_columns, "LPs/s": round(rate)})
    print(pd.DataFrame(rates).to_string(index=False), flush=True)
    print(pd.DataFrame([cover_points_per_second(n, d) for n, d in [(20000, 3), (2000, 10)]]).to_string(index=False))
    balanced = []
    for m in (50, 100, 150):
        points = np.random.default_rng(0).random((m, 2))
        start = time.perf_counter()
        selected, covered, _ = balanced_selection(points)
        balanced.append({"points": m, "seconds": round(time.perf_counter() - start, 2),
                         "selected": int(selected.sum()), "covered": int(covered.sum())})
    print(pd.DataFrame(balanced).to_string(index=False))
    runs = [(table, "skin-segmentation", True) for table in ((7,) if args.quick else (7, 8))]
    runs += [] if args.quick else [(7, "skin-segmentation", False)]
    runs += [(7, dataset, True) for dataset in args.datasets]
    for table, dataset, delaunay in runs:                      # printed as each run finishes
        row = pd.DataFrame([selection(table, dataset, args.n_jobs, delaunay)])
        print(row.to_string(index=False), flush=True)


if __name__ == "__main__":
    main()
