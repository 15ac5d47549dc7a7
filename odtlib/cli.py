"""Command line: ``odtlib datasets | fit | reproduce`` (also ``python -m odtlib``)."""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from odtlib.experiments.batch import PROFILES


def _parse_value(text: str):
    """``--param`` values: JSON when it parses (numbers, true/false, null, lists), else the string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="odtlib", description="Optimal decision trees by MIP: "
                                     "datasets, single fits and batch reproduction of the papers.")
    sub = parser.add_subparsers(dest="command", required=True)

    datasets = sub.add_parser("datasets", help="list the registered datasets with rows and classes")
    datasets.add_argument("--names-only", action="store_true", help="do not load the data (no counts)")

    fit = sub.add_parser("fit", help="fit one model on one dataset and print the tree and the solve result")
    fit.add_argument("--dataset", required=True, help="dataset name (see `odtlib datasets`)")
    fit.add_argument("--variant", help="dataset variant (load_dataset); ignored with --paper")
    fit.add_argument("--paper", help="use the paper's encoded data: odtlib.data.paper_dataset(PAPER, DATASET)")
    fit.add_argument("--encoding", help="encoding for --paper datasets with numeric features, e.g. QB-5")
    fit.add_argument("--model", default="FlowOCT", help="class name in odtlib.models (default FlowOCT)")
    fit.add_argument("--depth", type=int, default=2)
    fit.add_argument("--solver", default="highs")
    fit.add_argument("--time-limit", type=float, default=60.0, help="seconds (default 60)")
    fit.add_argument("--threads", type=int, default=1)
    fit.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                     help="other estimator parameter, repeatable (e.g. --param split_penalty=0.1)")

    rep = sub.add_parser("reproduce", help="execute the paper notebooks with papermill and write a report")
    rep.add_argument("--papers", nargs="*", help="paper numbers, e.g. 000 001 (default: all notebooks present)")
    rep.add_argument("--profile", choices=PROFILES, default="quick")
    rep.add_argument("--jobs", type=int, default=1, help="parallel runs inside each notebook (n_jobs)")
    rep.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786")
    rep.add_argument("--solver", default="highs")
    rep.add_argument("--time-limit", type=float, help="seconds per solve (default: the profile's)")
    rep.add_argument("--output", default="results/reproduce", help="output folder (default results/reproduce)")
    rep.add_argument("--notebooks-dir", default="notebooks", help="folder of paper<NNN>_*.ipynb (default notebooks)")
    rep.add_argument("--timeout", type=float, help="per-cell execution timeout in seconds")
    rep.add_argument("--log-output", action="store_true", help="stream the notebooks' output")
    return parser


def _cmd_datasets(args) -> int:
    try:
        from odtlib.data import list_datasets, load_dataset
    except ImportError as exc:
        print(f"odtlib.data is not available: {exc}", file=sys.stderr)
        return 2
    names = list_datasets()
    if args.names_only:
        print("\n".join(names))
        return 0
    rows, failed = [], 0
    for name in names:
        try:
            data = load_dataset(name)
            rows.append((name, str(len(data.X)), str(data.X.shape[1]), str(data.y.nunique()), ""))
        except Exception as exc:  # noqa: BLE001 - list what loads, say why the rest does not
            failed += 1
            rows.append((name, "", "", "", f"unavailable: {exc}"))
    header = ("dataset", "rows", "features", "classes", "note")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + ("  " + row[4] if row[4] else ""))
    return 1 if failed else 0


def _load_xy(args, model_cls):
    from odtlib import data

    if args.paper:
        X, y, _groups = data.paper_dataset(args.paper, args.dataset, encoding=args.encoding)
        return X, y
    dataset = data.load_dataset(args.dataset, args.variant)
    X = dataset.X
    if getattr(model_cls, "requires_binary_features", False):
        from odtlib.encoders import OneHotEncoder

        X = OneHotEncoder().fit_transform(X)
    return X, dataset.y


def _model_class(name: str):
    """The estimator class ``odtlib.models.<name>``, or None."""
    import odtlib.models

    estimators = set(odtlib.models.__all__) - {"ODTClassifier"}
    return getattr(odtlib.models, name) if name in estimators else None


def _cmd_fit(args) -> int:
    import odtlib.models

    model_cls = _model_class(args.model)
    if model_cls is None:
        known = sorted(set(odtlib.models.__all__) - {"ODTClassifier"})
        print(f"unknown model {args.model!r}; odtlib.models provides: {', '.join(known) or 'none yet'}",
              file=sys.stderr)
        return 2
    accepted = model_cls().get_params()
    params = {"depth": args.depth, "solver": args.solver, "time_limit": args.time_limit, "threads": args.threads}
    params = {k: v for k, v in params.items() if k in accepted}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or name not in accepted:
            print(f"bad --param {item!r}: expected NAME=VALUE with NAME in {sorted(accepted)}", file=sys.stderr)
            return 2
        params[name] = _parse_value(value)
    X, y = _load_xy(args, model_cls)
    model = model_cls(**params).fit(X, y)
    print(f"{args.model}({', '.join(f'{k}={v!r}' for k, v in params.items())}) on {args.dataset}: "
          f"{X.shape[0]} rows x {X.shape[1]} features, training accuracy {model.score(X, y):.4f}")
    print(model.tree_.to_text())
    result = model.solve_result_
    print(json.dumps(result.to_dict() if hasattr(result, "to_dict") else result, indent=2, default=str))
    return 0


def _cmd_reproduce(args) -> int:
    from odtlib.experiments.batch import reproduce

    runs = reproduce(papers=args.papers, profile=args.profile, n_jobs=args.jobs, scheduler=args.scheduler,
                     output_dir=args.output, notebooks_dir=args.notebooks_dir, solver=args.solver,
                     time_limit=args.time_limit, execution_timeout=args.timeout, log_output=args.log_output)
    if not runs:
        print(f"odtlib reproduce: no paper<NNN>_*.ipynb notebooks in {args.notebooks_dir}", file=sys.stderr)
        return 1
    for run in runs:
        print(f"paper {run.paper}  {run.status:6s}  {run.runtime:7.1f} s  {run.notebook.name}"
              + (f"  {run.error}" if run.error else ""))
    print(f"report: {args.output}/report.md and report.html")
    return 1 if any(run.status != "ok" for run in runs) else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    command = {"datasets": _cmd_datasets, "fit": _cmd_fit, "reproduce": _cmd_reproduce}[args.command]
    try:
        return command(args)
    except (FileNotFoundError, KeyError, ValueError) as exc:
        print(f"odtlib {args.command}: error: {exc}", file=sys.stderr)
        return 2
