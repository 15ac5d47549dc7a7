"""Paper 003's accelerations on free solvers: plain BendOCT vs accelerated BendOCT on SCIP, and where the time goes.

For each instance (dataset of paper 003's Table A.1, depth D, leaf penalty λ) and method, one fit of
``accuracy - λ·leaves`` on the full dataset (paper 003 trains on the full data), each in its own subprocess
(after one untimed warm-up fit of the same method on a small random instance, unless ``--cold``) with a hard
wall-clock kill at ``time limit + grace`` (the time limit bounds the solver run only; building
the model and the warm start come on top, so the grace must cover them). Methods:

* ``bendoct-scip``: RegularizedBendOCT with every acceleration off (no strengthened cuts, no polishing, no
  EQP, no path-bound cuts); the CART warm start is kept, as in the paper's BendOCT;
* ``accel-scip``: RegularizedBendOCT's defaults: the paper's best configuration (PBCP with BNS and BSt,
  polishing, EQP recursive disaggregated with group selection, |F*| <= 2) with our three changes: top-down
  branching (priorities on the b of shallow nodes, and its SCIP settings), ``eqp="auto"`` (no EQP where
  the path-bound cuts run in the search: on SCIP) and path bounds on subtrees of height 3;
* ``accel-h2-scip``: the defaults with the paper's height-2 path bounds (``path_bound_height=2``: D2S only; the
  default 3 also bounds subtrees of height 3 by the root-split scan, which closes a depth-3 master at its root);
* ``accel-eqp-scip``: the same with EQP (``eqp="recursive"``);
* ``accel-paper-scip``: the paper's best configuration alone, with EQP, on SCIP's default search
  (``eqp="recursive", top_down_branching=False``);
* ``accel-nopbcp-scip``: the defaults without path-bound cuts (then with EQP; the paper's "Accelerated
  (No PBCP)" also has the strengthened cuts);
* ``accel-highs``: the accelerated defaults on HiGHS (no callbacks: path-bound and fractional Benders cuts in
  root LP rounds, then the Benders restart loop; no in-search polishing);
* ``flow-highs``: the compact RegularizedFlowOCT on HiGHS (no callbacks);
* ``search``: :class:`~odtlib.models.ThresholdTreeSearch`, the exact branch and bound over the 0/1 columns (each
  a feature with one threshold) that ``OptimalTreeClassifier`` takes up to depth 5: no MIP, no Pyomo model;
* ``optimal-tree``: :class:`~odtlib.models.OptimalTreeClassifier` with its defaults (its encoding and the path it
  picks: here the search), so that its own overhead is in the time;
* ``pystreed``: STreeD's dynamic program (cost-complex-accuracy, cost_complexity = λ, max_depth = D), whose
  tree is scored as ``accuracy - λ·leaves``. It runs first on every instance and is the reference: the
  ``= streed`` column says whether a method's objective equals its optimum within 1e-6 (``yes``/``NO``
  for a proven optimum, ``inc ok``/``inc worse`` for a time-limited incumbent).

Printed: the table (status, objective, bound, seconds = wall time of ``fit``), the number of instances each
method proves, each method's wall time over STreeD's per instance (and per depth the median and largest ratio),
the median speed-up of each accelerated SCIP method over bendoct-scip on the instances bendoct-scip proves
(and the paper's measure: how soon it proves as many instances as plain does in the limit), and "where the time
goes" for the SCIP methods: prep (Pyomo model, EQP sets, CART + polished warm start: the
part of ``fit`` outside ``solve``), build (standard form), hand-off, SCIP total (``solve_time``) and, inside
it, the Python callbacks by kind (lazy / cut / heuristic, from ``SolveResult.extra["callback_seconds"]``)
and SCIP's own share; D2S seconds (cold D2S solves, wherever they ran: warm-start polishing, PBCP in the cut
callback, polishing in the heuristic); nodes, lazy rows, cuts. Rows go to
``bench/results/paper003_acceleration_<UTC timestamp>.csv`` as they finish.

``--in-process`` runs the fast methods (pystreed, search, optimal-tree) in this process instead, side by side:
on each instance every method once after the other, ``--rounds`` times (column ``round``); the summary takes each
method's median round, so that every ratio to STreeD is measured under the same load.

Usage::

    .venv/bin/python bench/paper003_acceleration.py \\
        --time-limit 60 --datasets monk3 monk1 hayes-roth soybean-small --lambdas 0.01
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

from odtlib.models import RegularizedBendOCT

DATASETS = ("monk3", "monk1", "hayes-roth", "house-votes-84", "soybean-small", "car-evaluation", "kr-vs-kp")
PLAIN = RegularizedBendOCT.PAPER_METHODS["BendOCT"]
OURS = {   # method -> (estimator, solver, switches)
    "bendoct-scip": ("RegularizedBendOCT", "scip", PLAIN),
    "accel-scip": ("RegularizedBendOCT", "scip", {}),
    "accel-h2-scip": ("RegularizedBendOCT", "scip", {"path_bound_height": 2}),
    "accel-eqp-scip": ("RegularizedBendOCT", "scip", {"eqp": "recursive"}),
    "accel-paper-scip": ("RegularizedBendOCT", "scip", {"eqp": "recursive", "top_down_branching": False}),
    "accel-nopbcp-scip": ("RegularizedBendOCT", "scip", {"path_bound_cuts": False}),
    "accel-highs": ("RegularizedBendOCT", "highs", {}),
    "flow-highs": ("RegularizedFlowOCT", "highs", {}),
    "search": ("ThresholdTreeSearch", None, {}),
    "optimal-tree": ("OptimalTreeClassifier", None, {}),
}
METHODS = ("pystreed", *OURS)
SCIP_METHODS = [m for m, (_, solver, _) in OURS.items() if solver == "scip"]
KINDS = ("lazy", "cut", "heuristic")
FIELDS = ["dataset", "depth", "lam", "method", "round", "time_limit", "status", "objective", "bound", "wall_s",
          "prep_s", "build_s", "handoff_s", "solve_s", "lazy_s", "cut_s", "heuristic_s", "lazy_calls",
          "cut_calls", "heuristic_calls", "d2s_s", "d2s_calls", "d2s_hits", "nodes", "n_lazy", "n_cuts",
          "heuristic_solutions", "reference", "check", "message"]


# ----------------------------------------------------------------------------------------- one run (child)
def load(dataset: str) -> tuple[np.ndarray, np.ndarray]:
    from odtlib.data import paper_dataset

    X, y, _ = paper_dataset("003", dataset)
    return X.to_numpy(dtype=np.int64), np.unique(y.to_numpy(), return_inverse=True)[1]


def run_streed(X, y, depth: int, lam: float, time_limit: float) -> dict:
    from pystreed import STreeDClassifier

    model = STreeDClassifier(optimization_task="cost-complex-accuracy", max_depth=depth, cost_complexity=lam,
                             time_limit=time_limit, random_seed=0).fit(X, y)
    objective = float((model.predict(X) == y).mean()) - lam * model.get_n_leaves()
    optimal = model.fit_result.is_optimal()
    return dict(status="optimal" if optimal else "time_limit", objective=objective,
                bound=objective if optimal else None)


def run_ours(method: str, X, y, depth: int, lam: float, time_limit: float) -> dict:
    from odtlib import models

    cls_name, solver, switches = OURS[method]
    mip = {} if solver is None else dict(solver=solver, threads=1, random_state=0)     # the search has no solver
    est = getattr(models, cls_name)(depth=depth, leaf_penalty=lam, time_limit=time_limit, **mip, **switches)
    start = time.perf_counter()
    est.fit(X, y)
    wall = time.perf_counter() - start
    r = est.solve_result_
    seconds = r.extra.get("callback_seconds", {})
    calls = r.extra.get("callback_calls", {})
    out = dict(status=r.status, objective=r.objective, bound=r.bound, wall_s=wall, prep_s=wall - r.runtime,
               build_s=r.build_time, handoff_s=r.handoff_time, solve_s=r.solve_time, nodes=r.nodes,
               n_lazy=r.n_lazy, n_cuts=r.n_cuts, heuristic_solutions=r.extra.get("heuristic_solutions"),
               **{f"{k}_s": seconds.get(k) for k in KINDS}, **{f"{k}_calls": calls.get(k) for k in KINDS})
    info = getattr(est, "d2s_stats_", None)    # RegularizedBendOCT's D2S cache statistics (when D2S ran)
    if info is not None:
        out.update(d2s_s=info.seconds, d2s_calls=info.calls, d2s_hits=info.hits)
    return out


def warm_up(method: str, depth: int) -> None:
    """One untimed fit of ``method`` on a small random instance in the same process, so that the timed fit
    does not pay the one-time costs of a fresh interpreter (imports, first Pyomo/SCIP/sklearn calls: about
    0.2 s, measured) -- a notebook or an experiment grid pays them once, not per fit."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(40, 5))
    y = (X[:, 0] ^ X[:, 1]) | (rng.random(40) < 0.2)
    if method == "pystreed":
        run_streed(X, y.astype(np.int64), depth, 0.01, 10)
    else:
        run_ours(method, X, y.astype(np.int64), depth, 0.01, 10)


def timed_fit(method: str, X, y, depth: int, lam: float, time_limit: float) -> dict:
    """One fit of ``method``: its status, objective, bound and wall time (and, for ours, where the time went)."""
    if method == "pystreed":
        start = time.perf_counter()
        out = run_streed(X, y, depth, lam, time_limit)
        out["wall_s"] = time.perf_counter() - start
        return out
    return run_ours(method, X, y, depth, lam, time_limit)


def child(spec: dict) -> dict:
    X, y = load(spec["dataset"])
    if spec["warm_up"]:
        warm_up(spec["method"], spec["depth"])
    return timed_fit(spec["method"], X, y, spec["depth"], spec["lam"], spec["time_limit"])


# ----------------------------------------------------------------------------------------- driver (parent)


def check(row: dict, reference: float | None) -> str:
    """Does the objective equal STreeD's optimum (1e-6)? 'yes'/'NO' for proven optima, 'inc ok'/'inc worse'
    for time-limited incumbents."""
    if row["method"] == "pystreed":
        return "ref" if row["status"] == "optimal" else ""
    if reference is None or row.get("objective") is None:
        return ""
    equal = abs(float(row["objective"]) - reference) <= 1e-6
    if row["status"] == "optimal":
        return "yes" if equal else "NO"
    return "inc ok" if equal else "inc worse"


def run_all(instances: list[tuple], methods: list[str], args, out: Path) -> None:
    """pystreed first on every instance (the reference), then the other methods, ``args.jobs`` at a time."""
    references: dict[tuple, float | None] = {}

    def one(instance: tuple, method: str) -> None:
        dataset, depth, lam = instance
        spec = dict(dataset=dataset, depth=depth, lam=lam, method=method, time_limit=args.time_limit,
                    warm_up=not args.cold)
        row = {**spec, **run_in_subprocess(__file__, spec, args.grace)}
        if method == "pystreed":
            references[instance] = row["objective"] if row["status"] == "optimal" else None
        row["reference"] = references.get(instance)
        row["check"] = check(row, row["reference"])
        append_row(out, row, FIELDS)
        print(f"{dataset:15s} d={depth} λ={lam:<6} {method:18s} {row['status']:10s} "
              f"obj={_fmt(row.get('objective'))} {row['check']:9s} {row['wall_s']:7.1f}s", flush=True)

    for instance in instances:
        one(instance, "pystreed")
    others = [(i, m) for i in instances for m in methods if m != "pystreed"]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for future in [pool.submit(one, i, m) for i, m in others]:
            future.result()


def run_side_by_side(instances: list[tuple], methods: list[str], args, out: Path) -> None:
    """``--in-process``: every method on one instance in this process, one after the other, ``args.rounds``
    times (after one untimed warm-up fit per method and depth), so that each ratio to STreeD is measured side
    by side under the same load. For the fast methods (no run can hang: no hard kill here)."""
    warm: set[tuple[str, int]] = set()
    order = ["pystreed", *[m for m in methods if m != "pystreed"]]
    for dataset, depth, lam in instances:
        X, y = load(dataset)
        reference = None
        for round_ in range(args.rounds):
            for method in order:
                if (method, depth) not in warm:
                    warm_up(method, depth)
                    warm.add((method, depth))
                row = dict(dataset=dataset, depth=depth, lam=lam, method=method, round=round_,
                           time_limit=args.time_limit, **timed_fit(method, X, y, depth, lam, args.time_limit))
                if method == "pystreed":
                    reference = row["objective"] if row["status"] == "optimal" else None
                row["reference"] = reference
                row["check"] = check(row, reference)
                append_row(out, row, FIELDS)
        print(f"{dataset:15s} d={depth} λ={lam:<6} {args.rounds} rounds of {', '.join(order)}", flush=True)


def _fmt(value, digits: int = 6) -> str:
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else f"{value:.{digits}f}"


def median_rounds(frame: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    """One row per instance and method: the round whose wall time is the median (the lower one for an even
    number of rounds), marked with the worst status and check of all its rounds."""
    def median_round(runs: pd.DataFrame) -> pd.Series:
        row = runs.sort_values("wall_s").iloc[(len(runs) - 1) // 2].copy()
        if (runs.status != "optimal").any():
            row["status"] = runs.status[runs.status != "optimal"].iloc[0]
        for mark in ("NO", "inc worse"):
            if (runs.check == mark).any():
                row["check"] = mark
        return row

    groups = frame.groupby([*key, "method"], sort=False, dropna=False)
    return pd.DataFrame([median_round(runs) for _, runs in groups]).reset_index(drop=True)


def summarise(frame: pd.DataFrame, time_limit: float) -> None:
    pd.set_option("display.width", 220)
    pd.set_option("display.max_columns", 40)
    key = ["dataset", "depth", "lam"]
    if frame.duplicated([*key, "method"]).any():
        print(f"{frame.groupby([*key, 'method']).size().max()} rounds per instance and method: each time below is "
              "the median round's")
        frame = median_rounds(frame, key)
    table = frame[[*key, "method", "status", "objective", "bound", "wall_s", "check"]].rename(
        columns={"wall_s": "seconds", "check": "= streed (1e-6)"})
    print("\n" + table.to_string(index=False, na_rep="", formatters={
        "lam": "{:g}".format, "objective": _fmt, "bound": _fmt, "seconds": "{:.2f}".format}))

    proven = frame[frame.status == "optimal"]
    n_instances = frame.groupby(key).ngroups
    print(f"\nproved optimal (of {n_instances} instances): "
          + ", ".join(f"{m} {int((proven.method == m).sum())}" for m in frame.method.unique()))
    wrong = frame[frame.check == "NO"]
    if len(wrong):
        print(f"WRONG proven optima (objective != STreeD's): {len(wrong)} rows -- see the table")

    if "bendoct-scip" in set(frame.method):
        for method in [m for m in frame.method.unique() if m.startswith("accel-") and m.endswith("-scip")]:
            speed_ups(frame, key, method, time_limit)
    versus_streed(frame, key)
    where_the_time_goes(frame, key, time_limit)


def versus_streed(frame: pd.DataFrame, key: list[str]) -> None:
    """Each method's wall time over STreeD's on the same instance (side by side in this run), per instance
    and, per depth, the median and the largest ratio (a run that did not prove its instance is marked)."""
    streed = frame[(frame.method == "pystreed") & (frame.status == "optimal")].set_index(key).wall_s
    ours = frame[frame.method != "pystreed"]
    if streed.empty or ours.empty:
        return
    table = ours.set_index(key)[["method", "status", "wall_s"]].join(streed.rename("streed_s"), how="inner")
    table["ratio"] = table.wall_s / table.streed_s
    table["cell"] = [f"{t:.3f}s / {r:.3f}s = {q:.0f}x" + ("" if s == "optimal" else f" ({s})")
                     for t, r, q, s in zip(table.wall_s, table.streed_s, table.ratio, table.status)]
    wide = table.reset_index().pivot_table(index=["dataset", "lam"], columns=["method", "depth"], values="cell",
                                           aggfunc="first", sort=False)
    print("\nwall time of fit over STreeD's, same instance, same run (ours / STreeD = ratio):")
    print(wide.to_string())
    for (method, depth), group in table.reset_index().groupby(["method", "depth"]):
        proved = group[group.status == "optimal"]
        print(f"  {method:18s} depth {depth}: median {group.ratio.median():.1f}x, max {group.ratio.max():.1f}x "
              f"({group.loc[group.ratio.idxmax(), 'dataset']}), proved {len(proved)} of {len(group)}")


def speed_ups(frame: pd.DataFrame, key: list[str], method: str, time_limit: float) -> None:
    """``method`` over bendoct-scip: per-instance median on the instances plain proves, and the paper's
    measure (plain proves N instances within the time limit; how soon does ``method`` prove N?)."""
    plain_all = frame[frame.method == "bendoct-scip"].set_index(key)
    plain = plain_all[plain_all.status == "optimal"]
    accel = frame[frame.method == method].set_index(key)
    both = plain.merge(accel, left_index=True, right_index=True, suffixes=("", "_accel"))
    if len(both):
        # an accel run that did not prove the instance counts with its full wall time (a lower bound on it)
        wall = both.wall_s / both.wall_s_accel
        solve = both.solve_s / both.solve_s_accel
        print(f"{method} over bendoct-scip on the {len(both)} instances bendoct-scip proves: median speed-up "
              f"{wall.median():.2f}x wall (fit), {solve.median():.2f}x SCIP run (solve_time); >= 10x wall on "
              f"{int((wall >= 10).sum())}; {method} proves {int((both.status_accel == 'optimal').sum())} of them")
    else:
        print(f"{method} over bendoct-scip: bendoct-scip proves none of these instances (no speed-up to take)")
    only = plain_all[plain_all.status != "optimal"].merge(
        accel[accel.status == "optimal"], left_index=True, right_index=True, suffixes=("", "_accel"))
    if len(only):
        print(f"  on the {len(only)} instances only {method} proves, its speed-up is at least "
              f"{(only.wall_s / only.wall_s_accel).median():.1f}x (median; bendoct-scip stopped at the time limit)")
    n_plain = len(plain)
    accel_times = np.sort(accel[accel.status == "optimal"].wall_s.to_numpy())
    if n_plain and len(accel_times) >= n_plain:
        match = accel_times[n_plain - 1]
        last_plain = plain.wall_s.max()
        print(f"  paper's measure: bendoct-scip proves {n_plain} instances within the {time_limit:g} s limit; {method} "
              f"proves {n_plain} within {match:.1f} s ({time_limit / match:.1f}x; {last_plain / match:.1f}x against "
              f"the time of plain's last proof, {last_plain:.1f} s)")


def where_the_time_goes(frame: pd.DataFrame, key: list[str], time_limit: float) -> None:
    scip = frame[frame.method.isin(SCIP_METHODS)].copy()
    if not len(scip):
        return
    scip["callbacks_s"] = scip[[f"{k}_s" for k in KINDS]].sum(axis=1)
    scip["scip_own_s"] = scip.solve_s - scip.callbacks_s
    cols = ["wall_s", "prep_s", "build_s", "handoff_s", "solve_s", "scip_own_s", "lazy_s", "cut_s",
            "heuristic_s", "d2s_s", "nodes", "n_lazy", "n_cuts", "lazy_calls", "cut_calls", "heuristic_calls",
            "d2s_calls", "d2s_hits"]
    counts = cols[10:]
    print("\nwhere the time goes (seconds; solve = SCIP total = scip_own + lazy + cut + heuristic callbacks; "
          "d2s = cold D2S solves, inside prep/cut/heuristic):")
    shown = scip[[*key, "method", *cols]].astype({c: "Int64" for c in counts})
    print(shown.to_string(index=False, na_rep="", float_format=lambda v: f"{v:.2f}",
                          formatters={"lam": "{:g}".format}))
    totals = scip.groupby("method", sort=False)[cols].sum()
    print("\nsums per method (and share of the wall time):")
    for method, t in totals.iterrows():
        share = {c: 100 * t[c] / t.wall_s if t.wall_s else 0.0 for c in cols[:10]}
        print(f"  {method:18s} wall {t.wall_s:7.1f}s = prep {t.prep_s:.1f} ({share['prep_s']:.0f}%) + build "
              f"{t.build_s:.1f} + hand-off {t.handoff_s:.1f} + SCIP {t.solve_s:.1f} ({share['solve_s']:.0f}%): "
              f"SCIP own {t.scip_own_s:.1f} ({share['scip_own_s']:.0f}%), lazy {t.lazy_s:.1f} "
              f"({share['lazy_s']:.0f}%), cut {t.cut_s:.1f} ({share['cut_s']:.0f}%), heuristic "
              f"{t.heuristic_s:.1f} ({share['heuristic_s']:.0f}%); D2S {t.d2s_s:.1f}; nodes {t.nodes:.0f}, "
              f"lazy rows {t.n_lazy:.0f}, cuts {t.n_cuts:.0f}")
    print(f"(time limit {time_limit:g}s per solve; prep, build and hand-off come on top of it)")


def paper_names(requested: list[str], known: list[str]) -> list[str]:
    """Map '_' to '-' where that names a paper-003 dataset (car_evaluation -> car-evaluation, as paper 001
    spells it); unknown names are returned unchanged (and rejected by the caller)."""
    return [name if name in known or name.replace("_", "-") not in known else name.replace("_", "-")
            for name in requested]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS),
                        help="paper-003 dataset names (odtlib.data.list_paper_datasets('003'))")
    parser.add_argument("--depths", nargs="+", type=int, default=[3])
    parser.add_argument("--lambdas", nargs="+", type=float, default=[0.01, 0.04])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS,
                        help="pystreed always runs (it is the reference)")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per solve (default 120)")
    parser.add_argument("--grace", type=float, default=120.0,
                        help="seconds past the time limit before a run is killed (covers build and warm start)")
    parser.add_argument("--cold", action="store_true",
                        help="no untimed warm-up fit before each timed one (then ~0.2 s of interpreter start-up "
                             "costs count in every fit)")
    parser.add_argument("--jobs", type=int, default=1, help="runs at once (default 1: timings on a shared machine)")
    parser.add_argument("--in-process", action="store_true",
                        help="run every method in this process, side by side per instance, --rounds times (no "
                             "subprocess and no hard kill: for the fast methods, pystreed, search, optimal-tree)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per instance with --in-process (default 3)")
    parser.add_argument("--output", help="CSV to append to (default bench/results/paper003_acceleration_<UTC>.csv)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if answer_as_child(args.child, child):
        return

    from odtlib.data import list_paper_datasets

    known = list_paper_datasets("003")
    args.datasets = paper_names(args.datasets, known)
    unknown = sorted(set(args.datasets) - set(known))
    if unknown:
        parser.error(f"unknown paper-003 datasets {unknown}; names: {', '.join(known)}")
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = Path(args.output or f"bench/results/paper003_acceleration_{stamp}.csv")
    instances = [(d, depth, lam) for d in args.datasets for depth in args.depths for lam in args.lambdas]
    print(f"{len(instances)} instances x {len(args.methods)} methods, time limit {args.time_limit:g}s, "
          f"jobs {args.jobs}; rows -> {out}", flush=True)
    if args.in_process:
        run_side_by_side(instances, list(args.methods), args, out)
    else:
        run_all(instances, list(args.methods), args, out)

    frame = pd.read_csv(out)
    frame = frame[frame.dataset.isin(args.datasets) & frame.depth.isin(args.depths) & frame.lam.isin(args.lambdas)
                  & (frame.time_limit == args.time_limit) & frame.method.isin(["pystreed", *args.methods])]
    frame = frame.astype({"check": str}).replace({"check": {"nan": ""}})
    order = {"dataset": args.datasets, "method": ["pystreed", *[m for m in METHODS if m in args.methods]]}
    rank = {name: {v: j for j, v in enumerate(values)} for name, values in order.items()}
    frame = frame.sort_values(["dataset", "depth", "lam", "method"],
                              key=lambda c: c.map(rank[c.name]) if c.name in rank else c)
    summarise(frame, args.time_limit)


if __name__ == "__main__":
    main()
