"""Exact trees on continuous features (issue 32, item 2): OptimalTreeClassifier beside ConTree and STreeD.

For each numeric dataset of the mirror and depth, three methods fit the whole dataset (the in-sample problem:
the most accurate tree of that depth over every threshold of the data), each in its own subprocess with a hard
wall-clock kill at ``time limit + grace``:

* ``ours``: :class:`odtlib.models.OptimalTreeClassifier` with its defaults (``thresholds="all"``: every
  threshold of the data; depth <= 5: the exact search :class:`~odtlib.models.ThresholdTreeSearch`, deeper:
  paper 003's accelerated BendOCT on SCIP), status from its ``solve_result_``;
* ``contree``: ConTree (``pycontree``, a dynamic program on the continuous features themselves), proved when it
  returns before its time limit (it has no status flag; its ``max_gap`` is 0);
* ``pystreed-mid``: STreeD (``pystreed``) on a 0/1 column per midpoint of consecutive values
  (:class:`odtlib.encoders.MidpointThresholdEncoder`), proved when it returns before its time limit.

All three solve the same problem (the best tree over every threshold), so every proved optimum must have the
same number of training errors; the ``agree`` column checks it. The times are whole fits in a fresh process
(ours: encoding, the search and loading its compiled scans from numba's cache, whose start-up costs about
0.5 s once per process). ``warm_s`` is ours fitted again in the same process (when the first fit took under
60 s): what a notebook or a grid pays per fit. The table ends with the median time ratios ours / ConTree per
depth, fresh and warm (issue 32's target: every depth-3 instance proved, median within 10x ConTree).

Usage::

    .venv/bin/python bench/continuous.py \\
        --datasets banknote wdbc ionosphere --depths 2 3 4 --time-limit 600 \\
        --output bench/results/continuous.csv

Rows already in ``--output`` (same dataset, rows, depth, method, time limit) are skipped, so an interrupted
run resumes. ``pycontree`` is optional (``pip install pycontree``); without it its rows say so.
"""
from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _child import answer_as_child, append_row, run_in_subprocess

DATASETS = {   # short name -> mirror name
    "banknote": "banknote",
    "wdbc": "breast-cancer-wisconsin-diagnostic",
    "ionosphere": "ionosphere",
    "skin": "skin-segmentation",
    "eeg": "eeg-eye-state",
    "htru2": "htru2",
    "transfusion": "blood-transfusion",
    "seeds": "seeds",
    "wine": "wine",
}
DEFAULT_ROWS = {"skin": 5000}          # skin-segmentation (245,057 rows) is measured on a sample
METHODS = ("ours", "contree", "pystreed-mid")
FIELDS = ["dataset", "rows", "depth", "method", "time_limit", "status", "errors", "wall_s", "warm_s", "n_columns",
          "message"]
WARM_REFIT_UNDER = 60.0   # seconds: ours is fitted a second time in the same process when the first fit was faster
GRACE = 30.0   # seconds past the time limit before a run is killed


# ----------------------------------------------------------------------------------------- one run (child)
def load(dataset: str, rows: int | None) -> tuple[pd.DataFrame, np.ndarray]:
    """The dataset's numeric columns and class indices; ``rows``: a fixed random sample of that many rows."""
    from odtlib.data import load_dataset

    data = load_dataset(DATASETS[dataset])
    X, y = data.X.reset_index(drop=True), np.unique(np.asarray(data.y), return_inverse=True)[1]
    if rows is not None and rows < len(X):
        keep = np.sort(np.random.default_rng(0).choice(len(X), size=rows, replace=False))
        X, y = X.iloc[keep].reset_index(drop=True), y[keep]
    return X.astype(float), y


def run_ours(X: pd.DataFrame, y: np.ndarray, depth: int, time_limit: float) -> dict:
    from sklearn.base import clone

    from odtlib.models import OptimalTreeClassifier

    model = OptimalTreeClassifier(depth=depth, time_limit=time_limit)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # a NotProvedOptimalWarning shows in the status column
        model.fit(X, y)
    wall = time.perf_counter() - start
    out = dict(wall_s=wall, status=model.solve_result_.status, errors=int((model.predict(X) != y).sum()),
               n_columns=int(model.pipeline_[-1].n_features_in_), message=model.path_.estimator)
    if wall < WARM_REFIT_UNDER:          # the same fit again in this process: without numba's start-up
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clone(model).fit(X, y)
        out["warm_s"] = time.perf_counter() - start
    return out


def run_contree(X: pd.DataFrame, y: np.ndarray, depth: int, time_limit: float) -> dict:
    try:
        from pycontree import ConTree
    except ImportError:
        return dict(status="unavailable", message="pycontree is not installed (pip install pycontree)")
    start = time.perf_counter()
    model = ConTree(max_depth=depth, time_limit=time_limit).fit(X.to_numpy(), y)
    seconds = time.perf_counter() - start
    return dict(wall_s=seconds, status="optimal" if seconds < time_limit else "time_limit",
                errors=int((model.predict(X.to_numpy()) != y).sum()), n_columns=X.shape[1])


def run_pystreed(X: pd.DataFrame, y: np.ndarray, depth: int, time_limit: float) -> dict:
    from pystreed import STreeDClassifier

    from odtlib.encoders import MidpointThresholdEncoder

    start = time.perf_counter()
    encoded = MidpointThresholdEncoder().fit_transform(X, y).to_numpy(dtype=np.int32)
    model = STreeDClassifier(max_depth=depth, cost_complexity=0.0, time_limit=time_limit, random_seed=0)
    model.fit(encoded, y)
    seconds = time.perf_counter() - start
    return dict(wall_s=seconds, status="optimal" if seconds < time_limit else "time_limit",
                errors=int((model.predict(encoded) != y).sum()), n_columns=encoded.shape[1])


RUNNERS = {"ours": run_ours, "contree": run_contree, "pystreed-mid": run_pystreed}


def child(spec: dict) -> dict:
    """One fit in a fresh process; ``wall_s`` is the fit alone (encoding included, imports and loading not)."""
    X, y = load(spec["dataset"], spec["rows"])
    return {"message": "", **RUNNERS[spec["method"]](X, y, spec["depth"], spec["time_limit"])}


# ----------------------------------------------------------------------------------------- the run (parent)
def done_keys(output: Path) -> set[tuple]:
    if not output.exists():
        return set()
    frame = pd.read_csv(output)
    return {(r.dataset, int(r.rows), int(r.depth), r.method, float(r.time_limit)) for r in frame.itertuples()}


def n_rows(dataset: str, cap: int | None) -> int:
    """Rows measured: ``--rows`` if given, the dataset's default sample, else all (counted in the parent)."""
    rows = cap or DEFAULT_ROWS.get(dataset)
    total = len(load(dataset, None)[1])
    return total if rows is None else min(rows, total)


def run(args) -> pd.DataFrame:
    done = done_keys(args.output)
    for dataset in args.datasets:
        rows = n_rows(dataset, args.rows)
        for depth in args.depths:
            for method in args.methods:
                key = (dataset, rows, depth, method, float(args.time_limit))
                if key in done:
                    continue
                spec = dict(dataset=dataset, rows=rows, depth=depth, method=method, time_limit=args.time_limit)
                result = run_in_subprocess(__file__, spec, GRACE)
                row = {**spec, **result}
                append_row(args.output, row, FIELDS)
                print(f"{dataset:>10} rows={rows:<6} depth={depth} {method:<12} {row.get('status', ''):<11} "
                      f"errors={row.get('errors', '')} {row['wall_s']:.2f}s {row.get('message', '')}", flush=True)
    return pd.read_csv(args.output)


def table(frame: pd.DataFrame, time_limit: float) -> pd.DataFrame:
    """One row per (dataset, depth): each method's status, errors and seconds, whether the proved optima agree,
    and the time ratio ours / ConTree."""
    frame = frame[frame.time_limit == time_limit]
    wide = frame.pivot_table(index=["dataset", "rows", "depth"], columns="method",
                             values=["status", "errors", "wall_s"], aggfunc="last")
    wide.columns = [f"{method} {what}" for what, method in wide.columns]
    proved = frame[frame.status == "optimal"].groupby(["dataset", "rows", "depth"]).errors.nunique()
    wide["agree"] = proved.reindex(wide.index).map(lambda n: "yes" if n == 1 else ("NO" if n > 1 else "-"))
    if "warm_s" in frame.columns:
        wide["ours warm_s"] = frame[frame.method == "ours"].set_index(["dataset", "rows", "depth"]).warm_s
    if {"ours wall_s", "contree wall_s"} <= set(wide.columns):
        wide["ours / contree"] = wide["ours wall_s"].astype(float) / wide["contree wall_s"].astype(float)
        if "ours warm_s" in wide.columns:
            wide["warm / contree"] = wide["ours warm_s"].astype(float) / wide["contree wall_s"].astype(float)
    order = [f"{method} {what}" for method in METHODS for what in ("status", "errors", "wall_s", "warm_s")]
    ratios = ("agree", "ours / contree", "warm / contree")
    return wide[[c for c in order if c in wide.columns] + [c for c in ratios if c in wide.columns]]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--depths", nargs="+", type=int, default=[2, 3, 4])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--rows", type=int, default=None, help="sample this many rows of every dataset")
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--output", type=Path, default=Path("bench/results/continuous.csv"))
    args = parser.parse_args(argv)
    if answer_as_child(args.child, child):
        return
    result = table(run(args), args.time_limit)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(result.to_string(float_format=lambda v: f"{v:.2f}"))
    for column in ("ours / contree", "warm / contree"):
        if column in result.columns:
            ratios = result[column].groupby(level="depth").median()
            print(f"\nmedian time ratio {column} by depth:", ratios.round(1).to_dict())


if __name__ == "__main__":
    main()
