"""Time to proven optimum: odtlib's paper-001 models on free solvers vs the peer odtlearn (CBC).

For each instance (dataset of paper 001's Table 1, depth, split penalty λ) and method, one fit on the
full dataset (the in-sample optimisation problem), each in its own subprocess with a hard wall-clock
kill at ``time limit + grace``. The reference optimum comes from outside any MIP: STreeD (pystreed) at
λ = 0 and the exhaustive search of tests/oracles.py (which handles λ > 0); the ``correct`` column says
whether a method's objective equals it (only meaningful when the method claims optimality; a wrong
"optimal" is a defect of that method).

Methods: ``flow-highs``, ``flow-scip``, ``flow-scip-cuts4`` (FlowOCT, the last with the valid inequalities
(4) as user cuts), ``benders-scip`` (lazy cuts in one branch-and-bound), ``benders-scip-frac`` (plus min-cut
separation at fractional LP points), ``benders-highs`` (restart loop), ``benders-accel-scip`` (BendersOCT with
``engine="accelerated"``: the same problem as paper 003's accuracy - λ'·leaves, λ' = λ/((1-λ)·N), solved by
RegularizedBendOCT's accelerations on SCIP and reported on (1.1)'s scale), ``oct-highs``, ``binoct-highs``
(λ = 0 only), ``odtlearn-flow-cbc``,
``odtlearn-benders-cbc`` (odtlearn 1.1 with CBC), and ``reference`` (the oracle itself, timed).

Usage::

    .venv/bin/python bench/paper001_vs_peers.py \\
        --datasets monk1 monk3 house-votes-84 --depths 2 --lambdas 0 0.5 --time-limit 60 \\
        --output bench/results/paper001_vs_peers.csv

Rows already in ``--output`` (same dataset, depth, λ, method, time limit) are skipped, so an interrupted
run resumes. At the end the script prints the table, median times per method, the speed ratios against
``--baseline`` (``flow-highs`` by default), and each method's share of instances proved within the times the
paper quotes for its Benders on Gurobi (Fig. 3).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _child import answer_as_child, append_row, run_in_subprocess

DATASETS = ("monk3", "monk1", "monk2", "house-votes-84", "balance-scale", "tic-tac-toe", "car_evaluation",
            "kr-vs-kp")
OURS = {   # method -> (estimator, solver, extra switches)
    "flow-highs": ("FlowOCT", "highs", {}),
    "flow-scip": ("FlowOCT", "scip", {}),
    "flow-scip-cuts4": ("FlowOCT", "scip", {"valid_inequalities": True}),
    "benders-scip": ("BendersOCT", "scip", {}),
    "benders-scip-frac": ("BendersOCT", "scip", {"fractional_benders_cuts": True}),
    "benders-highs": ("BendersOCT", "highs", {}),
    "benders-accel-scip": ("BendersOCT", "scip", {"engine": "accelerated"}),
    "oct-highs": ("OCT", "highs", {}),
    "binoct-highs": ("BinOCT", "highs", {}),
}
PEERS = {"odtlearn-flow-cbc": "FlowOCT", "odtlearn-benders-cbc": "BendersOCT"}
METHODS = (*OURS, *PEERS, "reference")
DEFAULT_METHODS = ("reference", "flow-highs", "flow-scip", "benders-scip", "benders-highs", "benders-accel-scip",
                   "odtlearn-flow-cbc", "odtlearn-benders-cbc")
FIELDS = ["dataset", "depth", "lam", "method", "time_limit", "status", "objective", "bound", "wall_s",
          "nodes", "n_lazy", "reference", "correct", "message"]
GRACE = 30.0   # seconds past the time limit before a run is killed


# ----------------------------------------------------------------------------------------- one run (child)
def load(dataset: str) -> tuple[np.ndarray, np.ndarray]:
    from odtlib.data import paper_dataset

    X, y, _ = paper_dataset("001", dataset)
    return X.to_numpy(dtype=np.int64), np.unique(y.to_numpy(), return_inverse=True)[1]


def reference_objective(X, y, depth: int, lam: float) -> float:
    """The optimum from outside the MIPs: STreeD at λ = 0, the exhaustive search for λ > 0."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from oracles import brute_force_tree, pystreed_correct

    if lam == 0:
        return float(pystreed_correct(X, y, depth))
    return float(brute_force_tree(X, y, depth, lam)[0])


def run_ours(method: str, X, y, depth: int, lam: float, time_limit: float) -> dict:
    import odtlib.models as models

    cls_name, solver, switches = OURS[method]
    params = dict(depth=depth, solver=solver, time_limit=time_limit, threads=1, **switches)
    if cls_name != "BinOCT":
        params["split_penalty"] = lam
    est = getattr(models, cls_name)(**params).fit(X, y)
    r = est.solve_result_
    return dict(status=r.status, objective=r.objective, bound=r.bound, nodes=r.nodes, n_lazy=r.n_lazy,
                message=f"build {r.build_time:.1f}s handoff {r.handoff_time:.1f}s rounds {r.rounds}")


def run_peer(method: str, X, y, depth: int, lam: float, time_limit: float) -> dict:
    import odtlearn.flow_oct as peer

    # num_threads=1 made odtlearn's BendersOCT hang past its limit here (notes/free_solver_benchmarks.md)
    threads = None if method == "odtlearn-benders-cbc" else 1
    est = getattr(peer, PEERS[method])(solver="cbc", depth=depth, _lambda=lam, time_limit=int(time_limit),
                                       num_threads=threads, verbose=False)
    est.fit(pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]), y)
    model = getattr(est._solver, "model", None)
    status = str(getattr(getattr(model, "status", None), "name", "unknown")).lower()
    return dict(status=status, objective=est.objective_value, bound=est.objective_bound, nodes=None, n_lazy=None,
                message="")


def child(spec: dict) -> dict:
    X, y = load(spec["dataset"])
    start = time.perf_counter()
    if spec["method"] == "reference":
        obj = reference_objective(X, y, spec["depth"], spec["lam"])
        out = dict(status="optimal", objective=obj, bound=obj, nodes=None, n_lazy=None, message="")
    elif spec["method"] in OURS:
        out = run_ours(spec["method"], X, y, spec["depth"], spec["lam"], spec["time_limit"])
    else:
        out = run_peer(spec["method"], X, y, spec["depth"], spec["lam"], spec["time_limit"])
    out["wall_s"] = time.perf_counter() - start
    return out


# ----------------------------------------------------------------------------------------- driver (parent)


def done_keys(path: Path) -> set[tuple]:
    if not path.exists():
        return set()
    frame = pd.read_csv(path)
    return {(r.dataset, int(r.depth), float(r.lam), r.method, float(r.time_limit)) for r in frame.itertuples()}


def judge(row: dict, reference: float | None) -> str:
    """'yes' / 'NO' when the method claims optimality; 'incumbent ok' / 'incumbent worse' otherwise."""
    if reference is None or row.get("objective") in (None, ""):
        return ""
    equal = abs(float(row["objective"]) - reference) < 1e-6
    if row["status"] == "optimal":
        return "yes" if equal else "NO"
    return "incumbent ok" if equal else "incumbent worse"


def summarise(frame: pd.DataFrame, baseline: str = "flow-highs") -> None:
    pd.set_option("display.width", 200)
    print(frame[["dataset", "depth", "lam", "method", "status", "objective", "reference", "correct", "wall_s",
                 "nodes", "n_lazy"]].to_string(index=False))
    proven = frame[(frame.status == "optimal") & (frame.correct == "yes")]
    print("\nmedian wall seconds over proven (and correct) runs:")
    print(proven.groupby("method").wall_s.agg(["median", "count"]).to_string())
    base = proven[proven.method == baseline].set_index(["dataset", "depth", "lam"]).wall_s
    print(f"\nspeed-up vs {baseline} (median of per-instance ratios, instances both proved):")
    for method, grp in proven.groupby("method"):
        ratios = (base / grp.set_index(["dataset", "depth", "lam"]).wall_s).dropna()
        if method != baseline and len(ratios):
            print(f"  {method:24s} {ratios.median():6.2f}x  over {len(ratios)} instances")
    print_beside_paper(frame)


def paper_benders_shares() -> dict[str, tuple[float, float]]:
    """The paper's Fig. 3 for its Benders on Gurobi: λ = 0 / λ > 0 -> (seconds, share of all instances proved
    within them), from the quoted text numbers (79 of 160 instances in 140 s; 666 of 1440 in 70 s)."""
    from odtlib.experiments import reference_table

    numbers = reference_table("001", "fig3").set_index(["figure", "quantity"]).value
    solved = {"0": numbers[("3(a)", "instances solved within 1 h time limit")],
              ">0": numbers[("3(b)", "instances solved within 1 h time limit")]}
    seconds = {"0": numbers[("3(a)", "time for Benders to solve the same number (79) of instances")],
               ">0": numbers[("3(b)", "time for Benders to solve the same number (666) of instances")]}
    counts = reference_table("001", "fig3").query("quantity == 'instance counts (derived)'").set_index("lambda").value
    return {lam: (float(seconds[lam]), float(solved[lam]) / float(counts[lam])) for lam in ("0", ">0")}


def print_beside_paper(frame: pd.DataFrame) -> None:
    """Share of our instances each method proves (correctly) within the paper's Benders times of Fig. 3. The
    instance sets differ -- the paper: depths 2-5, five 75 % samples per dataset, Gurobi; here: the depths and
    λ run, all rows, one thread -- so this places our times on the paper's scale, it is not a like-for-like
    ratio."""
    print("\nbeside the paper's Fig. 3 (its Benders on Gurobi): share of instances proved within its times")
    for lam, (seconds, paper_share) in paper_benders_shares().items():
        part = frame[frame.lam == 0] if lam == "0" else frame[frame.lam > 0]
        if part.empty:
            continue
        print(f"  λ {'= 0' if lam == '0' else '> 0'}: paper {paper_share:.0%} of its instances within {seconds:.0f} s")
        for method, grp in part[part.method != "reference"].groupby("method"):
            fast = ((grp.status == "optimal") & (grp.correct == "yes") & (grp.wall_s <= seconds)).sum()
            print(f"    {method:24s} {fast}/{len(grp)} = {fast / len(grp):.0%}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--depths", nargs="+", type=int, default=[2, 3])
    parser.add_argument("--lambdas", nargs="+", type=float, default=[0.0, 0.5])
    parser.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS), choices=METHODS)
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--output", default="bench/results/paper001_vs_peers.csv")
    parser.add_argument("--baseline", default="flow-highs", choices=METHODS,
                        help="the method whose times the speed-ups divide")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if answer_as_child(args.child, child):
        return

    out = Path(args.output)
    done = done_keys(out)
    methods = ["reference", *[m for m in args.methods if m != "reference"]]   # reference first: judged against
    for dataset in args.datasets:
        for depth in args.depths:
            for lam in args.lambdas:
                reference = None
                for method in methods:
                    if method == "binoct-highs" and lam > 0:
                        continue
                    key = (dataset, depth, float(lam), method, float(args.time_limit))
                    if key in done:
                        continue
                    spec = dict(dataset=dataset, depth=depth, lam=lam, method=method, time_limit=args.time_limit)
                    result = run_in_subprocess(__file__, spec, GRACE)
                    if reference is None and out.exists():
                        prior = pd.read_csv(out)
                        hit = prior[(prior.dataset == dataset) & (prior.depth == depth) & (prior.lam == lam)
                                    & (prior.method == "reference") & (prior.status == "optimal")]
                        reference = float(hit.objective.iloc[0]) if len(hit) else None
                    if method == "reference" and result.get("status") == "optimal":
                        reference = float(result["objective"])
                    row = {**spec, **result, "reference": reference}
                    row["correct"] = judge(row, reference)
                    append_row(out, row, FIELDS)
                    print(f"{dataset:15s} d={depth} λ={lam:<4} {method:22s} {row['status']:10s} "
                          f"obj={row.get('objective')} ref={reference} {row['correct']:16s} "
                          f"{row['wall_s']:.1f}s", flush=True)
    frame = pd.read_csv(out)
    frame = frame[frame.dataset.isin(args.datasets) & frame.depth.isin(args.depths) & frame.lam.isin(args.lambdas)
                  & (frame.time_limit == args.time_limit)]
    summarise(frame, args.baseline)


if __name__ == "__main__":
    main()
