"""Do the optima proved in paper 002's direct comparison agree? Reads result CSVs of `paper002_mip_comparison.py`.

For every instance (dataset, depth) it prints the proved optimum (correctly classified points) of each method
and solver, and beside them two independent references:

* the **univariate optimum**: STreeD (``pystreed``, exact, optimal-accuracy search) on the paper's DL8.5
  encoding, whose thresholds sit at every class change of every feature, so it is the best axis-aligned tree
  of the depth. A hyperplane optimum may not fall below it -- except by the ε-margin: a big-M node cannot
  split two values closer than ε = 0.005 (min-max scale), which a univariate threshold can;
* the **conflict bound**: points with identical features and different labels cannot all be right, so no tree
  classifies more than the sum over groups of identical rows of their largest class.

Flagged: the proved runs of one method (from several CSVs) disagree; two methods that solve the same problem
(SOCT-baseline, SOCT-init-*, OCT-H: the ε-margin problem; the Benders variants relax the margin at their
Benders nodes and may score more) disagree; an optimum lies below the univariate one or above the conflict
bound.

Usage::

    .venv/bin/python bench/paper002_optima_check.py bench/results/*.csv
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

MARGIN_METHODS = ("SOCT-baseline", "SOCT-init-1", "SOCT-init-5", "OCT-H")


def univariate_optimum(dataset: str, depth: int, time_limit: float) -> tuple[int | None, bool]:
    """STreeD's optimal number of correct points at ``depth`` on the DL8.5 thresholds, and whether it proved it."""
    from pystreed import STreeDClassifier

    from odtlib.experiments.protocol import paper_data

    Z, y, _ = paper_data("002", dataset, encoding="dl85")
    codes = np.unique(y.to_numpy(), return_inverse=True)[1]
    model = STreeDClassifier(optimization_task="accuracy", max_depth=depth, time_limit=time_limit, random_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(Z.to_numpy().astype(np.int64), codes)
    correct = int((model.predict(Z.to_numpy().astype(np.int64)) == codes).sum())
    return correct, bool(model.fit_result.is_optimal())


def conflict_bound(dataset: str) -> int:
    """The most points any classifier gets right: per group of identical rows, its largest class."""
    from odtlib.experiments import paper002 as p002

    X, y = p002.load(dataset)
    frame = X.copy()
    frame["_label"] = y.to_numpy()
    counts = frame.groupby(list(X.columns) + ["_label"]).size()
    return int(counts.groupby(level=list(range(len(X.columns)))).max().sum())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", nargs="+", help="result CSVs of paper002_mip_comparison.py")
    parser.add_argument("--streed-time-limit", type=float, default=120.0)
    args = parser.parse_args(argv)

    runs = pd.concat([pd.read_csv(path) for path in args.csv], ignore_index=True)
    runs["proved"] = runs["proved"].astype(str).str.lower().eq("true")
    proved = runs[runs.proved]
    # one method's proved runs (several CSVs) must agree: a disagreement shows as -1 and is flagged
    table = proved.pivot_table(index=["dataset", "depth"], columns=["method", "solver"], values="incumbent",
                               aggfunc=lambda v: v.iloc[0] if v.nunique() == 1 else -1)
    table.columns = [f"{m} ({s})" for m, s in table.columns]
    rows = []
    for (dataset, depth), row in table.iterrows():
        univariate, streed_proved = univariate_optimum(dataset, int(depth), args.streed_time_limit)
        bound = conflict_bound(dataset)
        values = row.dropna()
        margin = values[[c for c in values.index if c.split(" (")[0] in MARGIN_METHODS]]
        flags = ["runs of one method disagree"] if (values == -1).any() else []
        if margin.nunique() > 1:
            flags.append("margin methods disagree")
        if streed_proved and (values < univariate).any():
            flags.append("below univariate: " + ", ".join(values.index[values < univariate]))
        if (values > bound).any():
            flags.append("above the conflict bound")
        rows.append({"dataset": dataset, "depth": depth, **values.to_dict(), "univariate (STreeD)": univariate,
                     "STreeD proved": streed_proved, "conflict bound": bound, "flags": "; ".join(flags)})
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 40)
    print(pd.DataFrame(rows).to_string(index=False, na_rep="", float_format=lambda v: f"{v:g}"))


if __name__ == "__main__":
    main()
