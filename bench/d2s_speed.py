"""Time paper 003's D2S subroutine (odtlib.models.univariate.accel.d2s) against STreeD at depth 2.

For each dataset (paper 003's binary encoding) and leaf penalty lambda (per leaf, on accuracy; D2S gets
alpha = n * lambda samples) it prints the median time per call of

* ``d2s cold``   -- :func:`solve_depth2` on all rows (validation + counts + selection, no cache),
* ``d2s miss``   -- :class:`Depth2Solver` on a new sample subset (half of the rows, chosen by a feature),
* ``d2s hit``    -- the same subset again (cache hit),
* ``streed``     -- pystreed's STreeDClassifier, max_depth=2 (accuracy, or cost-complex-accuracy with
  cost_complexity = lambda, which is the same objective up to a constant),

and checks that both report the same optimum. BLAS runs single-threaded, as the papers' solvers do.

    .venv/bin/python bench/d2s_speed.py
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from odtlib.data import paper_dataset  # noqa: E402
from odtlib.models.univariate.accel.d2s import Depth2Solver, solve_depth2  # noqa: E402

DATASETS = ("kr-vs-kp", "car-evaluation")
LAMBDAS = (0.0, 0.01)
REPEATS = 15


def median_time(call, repeats: int = REPEATS) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


def streed_value(X: np.ndarray, y: np.ndarray, lam: float) -> float:
    from pystreed import STreeDClassifier

    if lam == 0:
        model = STreeDClassifier(optimization_task="accuracy", max_depth=2, time_limit=60)
    else:
        model = STreeDClassifier(optimization_task="cost-complex-accuracy", max_depth=2,
                                 cost_complexity=lam, time_limit=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    return float((model.predict(X) == y).sum() - lam * len(y) * model.get_n_leaves())


def bench_dataset(name: str) -> list[dict]:
    X_df, y_raw, _ = paper_dataset("003", name)
    X = X_df.to_numpy()
    y = pd.factorize(y_raw, sort=True)[0]
    n = len(y)
    half = X[:, int(np.argmin(np.abs(X.mean(axis=0) - 0.5)))] == 1   # the most balanced feature's right side
    solve_depth2(X, y)                                                 # warm-up (imports, BLAS init)
    rows = []
    for lam in LAMBDAS:
        alpha = lam * n
        cold, result = median_time(lambda: solve_depth2(X, y, leaf_penalty=alpha))

        miss_times = []
        for _ in range(REPEATS):
            solver = Depth2Solver(X, y)                     # fresh cache: every call a miss
            start = time.perf_counter()
            solver.solve(half, leaf_penalty=alpha)
            miss_times.append(time.perf_counter() - start)
        hit, _ = median_time(lambda: solver.solve(half, leaf_penalty=alpha), repeats=200)

        streed_time, streed_opt = median_time(lambda: streed_value(X, y, lam), repeats=5)
        rows.append({
            "dataset": name, "n x F": f"{n} x {X.shape[1]}", "lambda": lam,
            "d2s cold [ms]": 1e3 * cold, "d2s miss (half) [ms]": 1e3 * float(np.median(miss_times)),
            "d2s hit [us]": 1e6 * hit, "streed [ms]": 1e3 * streed_time,
            "d2s value": result.value, "streed value": streed_opt, "leaves": result.n_leaves,
            "hit rate": solver.cache_info().hit_rate,
        })
    return rows


def main() -> None:
    table = pd.DataFrame([row for name in DATASETS for row in bench_dataset(name)])
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.float_format", "{:.3f}".format):
        print(table.to_string(index=False))
    if not np.allclose(table["d2s value"], table["streed value"]):
        raise SystemExit("D2S and STreeD disagree on an optimum")


if __name__ == "__main__":
    main()
