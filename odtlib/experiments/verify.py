"""Stored results are verified, not trusted: re-solve a sample of stored proved optima and compare.

``odtlib verify results/full [--papers 003] [--sample 50] [--seed 0]`` draws, per paper, a random sample of the
stored runs that were proved optimal, and for each:

* re-runs the run function of its experiment (the paper module's ``EXPERIMENTS``,
  `odtlib.experiments.protocol.run_function`) on the stored config: the fresh solve must be
  proved optimal again and reach the same objective (`OBJECTIVE_TOLERANCE`);
* recomputes, where the paper's objective can be read off a tree (`TREE_OBJECTIVES`), the objective of the
  *stored* tree on the data: it must equal the stored objective, so the committed tree is the optimum it claims.

A fresh solve that stops at its limit (a loaded machine) is reported as "not re-proved", never as a mismatch;
`mismatches` are the rows whose check found a different objective, a tree that misses it, or a failed re-run.
"""
from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from odtlib.experiments.protocol import run_function
from odtlib.experiments.runner import run_one
from odtlib.experiments.stored import RESULTS_SUFFIX, read_records

OBJECTIVE_TOLERANCE = 1e-6
# (paper, experiment) -> "module:function" of the run function that produced the stored runs
VERIFY_COLUMNS = ["paper", "experiment", "key", "config", "stored_objective", "resolved_objective",
                  "resolved_status", "tree_objective", "check"]


def _tree_objective_003(config: dict, tree: dict) -> float:
    """Paper 003's objective of a stored tree: training accuracy - λ·(number of leaves), on the whole data."""
    from odtlib.experiments.paper003 import load
    from odtlib.tree import Tree

    X, y = load(config["dataset"], config["encoding"])
    tree = Tree.from_dict(tree)
    accuracy = float(np.mean(tree.predict(X) == y.to_numpy()))
    return accuracy - config["leaf_penalty"] * tree.n_leaves


TREE_OBJECTIVES: dict[str, Callable[[dict, dict], float]] = {"003": _tree_objective_003}


def proved_records(results_dir: str | os.PathLike, paper: str) -> list[tuple[str, dict]]:
    """(experiment, record) of every stored run of ``paper`` that finished proved optimal."""
    folder = Path(results_dir) / f"paper{paper}"
    found = []
    for file in sorted(folder.glob(f"*{RESULTS_SUFFIX}")):
        experiment = file.name[: -len(RESULTS_SUFFIX)]
        for record in read_records(file):
            if record["status"] == "ok" and (record.get("solve_result") or {}).get("status") == "optimal":
                found.append((experiment, record))
    return found


def verify_record(paper: str, experiment: str, record: dict) -> dict:
    """Re-solve one stored proved optimum and check its objective and its tree (see the module docstring)."""
    config = record["config"]
    stored = float(record["solve_result"]["objective"])
    fresh = run_one(run_function(paper, experiment), config)
    fresh_solve = fresh.get("solve_result") or {}
    row = {"paper": paper, "experiment": experiment, "key": record["key"],
           "config": ", ".join(f"{k}={v}" for k, v in config.items()), "stored_objective": stored,
           "resolved_objective": fresh_solve.get("objective"), "resolved_status": fresh_solve.get("status"),
           "tree_objective": np.nan}
    problems = []
    if fresh["status"] != "ok":
        problems.append(f"re-run failed: {(fresh.get('error') or {}).get('message', '')}")
    elif fresh_solve.get("status") != "optimal":
        problems.append("not re-proved")
    elif not _close(fresh_solve.get("objective"), stored):
        problems.append("objective differs")
    tree_objective = TREE_OBJECTIVES.get(paper)
    if tree_objective is not None and record.get("tree"):
        row["tree_objective"] = tree_objective(config, record["tree"])
        if not _close(row["tree_objective"], stored):
            problems.append("stored tree does not reach the stored objective")
    row["check"] = "; ".join(problems) or "ok"
    return row


def _close(a, b) -> bool:
    if a is None or b is None:
        return False
    return math.isclose(float(a), float(b), rel_tol=OBJECTIVE_TOLERANCE, abs_tol=OBJECTIVE_TOLERANCE)


def verify(results_dir: str | os.PathLike, papers=None, sample: int = 50, seed: int = 0,
           max_runtime: float | None = None, progress=None) -> pd.DataFrame:
    """Verify a random sample of ``sample`` stored proved optima per paper (all of them when fewer); one row
    per checked run. ``max_runtime``: sample only optima whose stored solve took at most that many seconds
    (a quick check, as in CI). ``progress``: a text stream that gets one line per paper."""
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        raise FileNotFoundError(f"no stored results in {results_dir} (expected {results_dir}/paper<NNN>/*"
                                f"{RESULTS_SUFFIX}; produce them with odtlib reproduce --profile full --recompute)")
    found = sorted(p.name.removeprefix("paper") for p in results_dir.glob("paper[0-9][0-9][0-9]"))
    papers = found if not papers else [str(p).removeprefix("paper").zfill(3) for p in papers]
    rng = np.random.default_rng(seed)
    rows = []
    for paper in papers:
        candidates = [(experiment, record) for experiment, record in proved_records(results_dir, paper)
                      if max_runtime is None or (record["solve_result"].get("runtime") or 0) <= max_runtime]
        picked = rng.permutation(len(candidates))[:sample] if candidates else []
        for index in picked:
            rows.append(verify_record(paper, *candidates[index]))
        if progress is not None:
            checked = [row for row in rows if row["paper"] == paper]
            ok = sum(row["check"] == "ok" for row in checked)
            progress.write(f"paper {paper}: {ok} of {len(checked)} sampled optima verified "
                           f"({len(candidates)} stored)\n")
    return pd.DataFrame(rows, columns=VERIFY_COLUMNS)


def mismatches(checked: pd.DataFrame) -> pd.DataFrame:
    """The rows of `verify` that found a real disagreement (not merely a solve that was not re-proved)."""
    return checked[~checked["check"].isin(["ok", "not re-proved"])]
