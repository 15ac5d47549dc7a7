"""Paper 004 at scale: SVM1-ODT with and without LP data selection as the training set grows, beside CART and OCT-H.

The paper's selling point (Sec. 3-4, Table 7): with data selection, SVM1-ODT trains on 245,057 rows
(skin-segmentation) where the other MIPs stop at about 5,000. Here, per dataset (skin-segmentation, EEG; depth 2
by default), one 75/25 split (`odtlib.experiments.paper004.split`, number 0), and training parts of growing size
(stratified draws of the training 75 %; ``full`` = all of it), each method is fitted once:

* ``S1O``    — ``SVM1ODT`` on every training row (the parameters the paper prints for the dataset in Table 7);
* ``S1O-DS`` — the same in ``DataSelectedClassifier`` (ε′, β₁, β₂ as printed), trained on the selected rows;
  with ``--tune``, ε, α₁, α₂ are chosen first by `odtlib.experiments.paper004.tune_selection` (3-fold CV over
  ``SELECTION_GRID`` on a 20,000-row draw of the training part; its seconds are ``tune_s``, outside ``wall_s``);
* ``OCT-H``  — ``OCTH`` from the CART start;
* ``CART``   — scikit-learn, default parameters, same depth.

``--start svm`` starts S1O and S1O-DS from paper 002's SVM tree (fitted on the MIP's rows) instead of the paper's
CART tree (``--start cart``, the default); ``--solver`` picks the MIP solver (default highs).

Each fit runs in a fresh subprocess (``bench/_child.py``), killed ``--grace`` seconds after its time limit. Printed:

1. one line per fit as it finishes, then the table: status, train / test accuracy (test: the whole 25 %), wall
   time and peak memory (the child's max RSS);
2. where the time goes: selection LPs (``lp_seconds``, LPs per second), model build, hand-off, solve and the
   rest of ``fit`` (CART, decoding);
3. the share of rows data selection kept, beside the share the paper prints.

Rows go to ``bench/results/paper004_scale_<UTC timestamp>.csv`` as they finish.

Usage::

    .venv/bin/python bench/paper004_scale.py --sizes 1000 4000 16000 \\
        --time-limit 120
    .venv/bin/python bench/paper004_scale.py --datasets skin-segmentation \\
        --sizes full --methods S1O-DS CART --time-limit 600
"""
from __future__ import annotations

import argparse
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
from _child import answer_as_child, append_row, run_in_subprocess

METHODS = ("S1O", "S1O-DS", "OCT-H", "CART")
FIELDS = ["dataset", "depth", "size", "method", "solver", "start", "tune", "time_limit", "status", "n_train", "n_test",
          "train_acc", "test_acc", "wall_s", "peak_rss_mb", "lp_seconds", "n_lps", "n_selected", "selected_pct",
          "paper_selected_pct", "build_s", "handoff_s", "solve_s", "solve_status", "tune_s", "params", "message"]
PARAMS_TABLE = {2: 7, 3: 8}                 # the paper's data-selection parameters per depth


# ----------------------------------------------------------------------------------------- one fit (child)
def child(spec: dict) -> dict:
    import resource
    import warnings

    from odtlib.experiments import paper004 as p004

    warnings.simplefilter("ignore")
    X, y = p004.load(spec["dataset"])
    train, test = p004.split(y, 0)
    size = None if spec["size"] == "full" else int(spec["size"])
    train = p004.draw_rows(y, train, size, 0)
    params = p004.selection_params(PARAMS_TABLE[spec["depth"]], spec["dataset"])
    paper_pct = params.pop("selected_data_pct")
    if spec["method"] == "S1O":
        params = {k: params[k] for k in ("epsilon", "alpha1", "alpha2")}
    elif spec["method"] != "S1O-DS":
        params = {}
    if spec["method"] in ("S1O", "S1O-DS") and spec["start"] == "svm":
        params["warm_start"] = "svm"
    tune_s = None
    if spec["method"] == "S1O-DS" and spec["tune"]:
        begin = time.perf_counter()
        params, _ = p004.tune_selection(X[train], y[train], spec["depth"], params, solver=spec["solver"])
        tune_s = time.perf_counter() - begin
    model = p004.make_model(spec["method"], spec["depth"], solver=spec["solver"], time_limit=spec["time_limit"],
                            params=params)
    chosen = ", ".join(f"{k}={v:g}" for k, v in params.items() if k in ("epsilon", "alpha1", "alpha2"))
    start = time.perf_counter()
    try:
        p004.fit_quietly(model, X[train], y[train])
    except (RuntimeError, ValueError) as error:       # no tree in time, or a model over max_variables
        return dict(status="no_tree", wall_s=time.perf_counter() - start, n_train=len(train), message=str(error)[:200],
                    tune_s=tune_s, params=chosen)
    row = dict(status="ok", wall_s=time.perf_counter() - start, n_train=len(train), n_test=len(test), tune_s=tune_s,
               params=chosen,
               train_acc=100 * p004.accuracy(model, X[train], y[train]),
               test_acc=100 * p004.accuracy(model, X[test], y[test]),
               peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    result = getattr(model, "solve_result_", None)
    if result is not None:
        row.update(build_s=result.build_time, handoff_s=result.handoff_time, solve_s=result.solve_time,
                   solve_status=result.status)
    if spec["method"] == "S1O-DS":
        row.update(p004.selection_metrics(model, len(train)), paper_selected_pct=paper_pct)
    return row


# ----------------------------------------------------------------------------------------- driver (parent)
def run_all(runs: list[dict], args, out: Path) -> None:
    def one(spec: dict) -> None:
        row = {**spec, **run_in_subprocess(__file__, spec, args.grace)}
        append_row(out, row, FIELDS)
        print(f"{spec['dataset']:18s} d={spec['depth']} n={spec['size']:>6s} {spec['method']:7s} {row['status']:8s} "
              f"test={_fmt(row.get('test_acc'))} {row['wall_s']:7.1f}s {_fmt(row.get('peak_rss_mb'))} MB "
              f"{row.get('params') or ''}", flush=True)

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for future in [pool.submit(one, spec) for spec in runs]:
            future.result()


def _fmt(value) -> str:
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else f"{value:.1f}"


def summarise(frame: pd.DataFrame) -> None:
    pd.set_option("display.width", 220)
    pd.set_option("display.max_columns", 40)
    fmt = dict(index=False, na_rep="", float_format=lambda v: f"{v:.2f}")
    print("\n" + frame[["dataset", "depth", "size", "method", "solver", "start", "status", "n_train", "train_acc",
                        "test_acc", "wall_s", "tune_s", "peak_rss_mb", "params"]].to_string(**fmt))
    timed = frame[frame["status"] == "ok"].copy()
    if not len(timed):
        return
    for column in ("lp_seconds", "build_s", "handoff_s", "solve_s"):
        timed[column] = pd.to_numeric(timed[column], errors="coerce").fillna(0.0)
    timed["rest_s"] = timed["wall_s"] - timed[["lp_seconds", "build_s", "handoff_s", "solve_s"]].sum(axis=1)
    timed["lps_per_s"] = pd.to_numeric(timed["n_lps"], errors="coerce") / timed["lp_seconds"].replace(0, np.nan)
    print("\nwhere the time goes (s): selection LPs, model build, hand-off, solve, the rest of fit (CART, decoding):")
    print(timed[["dataset", "size", "method", "wall_s", "lp_seconds", "lps_per_s", "build_s", "handoff_s", "solve_s",
                 "rest_s"]].to_string(**fmt))
    selected = timed[timed["method"] == "S1O-DS"]
    if len(selected):
        print("\nrows kept by data selection (% of the training rows) beside the paper's share (on all rows):")
        print(selected[["dataset", "size", "n_train", "n_selected", "selected_pct", "paper_selected_pct",
                        "n_lps"]].to_string(**fmt))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["skin-segmentation", "EEG"])
    parser.add_argument("--sizes", nargs="+", default=["1000", "4000", "16000"],
                        help="training rows drawn from the 75 %% part, or 'full' (default 1000 4000 16000)")
    parser.add_argument("--depth", type=int, default=2, choices=sorted(PARAMS_TABLE))
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per MIP solve (default 120)")
    parser.add_argument("--solver", default="highs", help="MIP solver of S1O, S1O-DS and OCT-H (default highs)")
    parser.add_argument("--start", choices=("cart", "svm"), default="cart",
                        help="warm start of S1O / S1O-DS: the paper's CART tree or paper 002's SVM tree (default cart)")
    parser.add_argument("--tune", action="store_true",
                        help="choose S1O-DS's epsilon, alpha1, alpha2 by paper004.tune_selection (CV on training rows)")
    parser.add_argument("--grace", type=float, default=300.0,
                        help="seconds past the time limit before a fit is killed (covers selection and building)")
    parser.add_argument("--jobs", type=int, default=1, help="fits at once (default 1: timings on a shared machine)")
    parser.add_argument("--output", help="CSV to append to (default bench/results/paper004_scale_<UTC>.csv)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if answer_as_child(args.child, child):
        return
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = Path(args.output or f"bench/results/paper004_scale_{stamp}.csv")
    runs = [dict(dataset=d, depth=args.depth, size=s, method=m, solver=args.solver, start=args.start, tune=args.tune,
                 time_limit=args.time_limit)
            for d in args.datasets for s in args.sizes for m in args.methods]
    print(f"{len(runs)} fits, {args.time_limit:g} s per solve, jobs {args.jobs}; rows -> {out}", flush=True)
    run_all(runs, args, out)
    frame = pd.read_csv(out, dtype={"size": str})
    summarise(frame[frame["dataset"].isin(args.datasets) & frame["size"].isin(args.sizes)
                    & frame["method"].isin(args.methods) & (frame["time_limit"] == args.time_limit)])


if __name__ == "__main__":
    main()
