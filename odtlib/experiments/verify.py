"""Stored results are verified, not trusted: re-solve a sample of stored proved optima, and check the trees of a
sample of stored time-limited runs against their incumbents and bounds.

``odtlib verify results/full [--papers 003] [--sample 50] [--incumbents 50] [--seed 0]`` draws, per paper:

* a random sample of the stored runs that were proved optimal (`proved_among`), and for each
  - re-runs the run function of its experiment (the paper module's ``EXPERIMENTS``,
    `odtlib.experiments.protocol.run_function`) on the stored config: the fresh solve must be
    proved optimal again and reach the same objective (`OBJECTIVE_TOLERANCE`);
  - recomputes, where the paper's objective can be read off a tree (the ``tree_objective`` of the papers in
    `TREE_OBJECTIVE_PAPERS`), the objective of the *stored* tree on the data: it must equal the stored
    objective, so the committed tree is the optimum it claims;
* with ``incumbents``, a random sample of the stored runs that stopped at their limit with a tree
  (`incumbents_among`; papers of `TREE_OBJECTIVE_PAPERS` only, and nothing is solved). A run stopped at its
  limit cannot be reproduced, but its tree can be read: its objective must reach at least the stored
  incumbent's (it may exceed it: the formulations bound the variables that count correct points from above
  only, so an incumbent may count fewer than its tree gets right) and at most the stored bound, which checks
  each stored bound against a tree anyone can evaluate. Both objectives are maximised.

A fresh solve that stops at its limit (a loaded machine) is reported as "not re-proved", never as a mismatch;
`mismatches` are the rows whose check found a different objective, a tree that misses it or beats the bound, or
a failed re-run.
"""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from odtlib.experiments.protocol import paper_module, run_function
from odtlib.experiments.runner import run_one
from odtlib.experiments.stored import RESULTS_SUFFIX, read_records

OBJECTIVE_TOLERANCE = 1e-6
VERIFY_COLUMNS = ["paper", "experiment", "kind", "key", "config", "stored_objective", "stored_bound",
                  "resolved_objective", "resolved_status", "tree_objective", "check"]
# the papers whose module has ``tree_objective(config, tree)``: the paper's objective of a stored tree, on the
# scale of the stored solve objective (maximised)
TREE_OBJECTIVE_PAPERS = ("001", "003")


def proved_among(runs: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The (experiment, record) pairs of ``runs`` (from `finished_runs`) that were proved optimal."""
    return [run for run in runs if _proved(run[1])]


def incumbents_among(paper: str, runs: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The (experiment, record) pairs of ``runs`` (from `finished_runs` of ``paper``) that stopped at their limit
    with a tree, an objective and a bound (papers of `TREE_OBJECTIVE_PAPERS`; none for the others)."""
    return [run for run in runs if _has_incumbent(paper, run[1])]


def finished_runs(results_dir: str | os.PathLike, paper: str) -> list[tuple[str, dict]]:
    """(experiment, record) of every stored run of ``paper`` that finished (did not raise)."""
    folder = Path(results_dir) / f"paper{paper}"
    return [(file.name[: -len(RESULTS_SUFFIX)], record) for file in sorted(folder.glob(f"*{RESULTS_SUFFIX}"))
            for record in read_records(file) if record["status"] == "ok"]


def _proved(record: dict) -> bool:
    return (record.get("solve_result") or {}).get("status") == "optimal"


def _has_incumbent(paper: str, record: dict) -> bool:
    solve = record.get("solve_result") or {}
    return paper in TREE_OBJECTIVE_PAPERS and bool(record.get("tree")) and solve.get("status") == "time_limit" \
        and solve.get("objective") is not None and solve.get("bound") is not None


def verify_record(paper: str, experiment: str, record: dict) -> dict:
    """Re-solve one stored proved optimum and check its objective and its tree (see the module docstring)."""
    config = record["config"]
    row = _row(paper, experiment, "optimum", record)
    fresh = run_one(run_function(paper, experiment), config)
    fresh_solve = fresh.get("solve_result") or {}
    row.update(resolved_objective=fresh_solve.get("objective"), resolved_status=fresh_solve.get("status"))
    problems = []
    if fresh["status"] != "ok":
        problems.append(f"re-run failed: {(fresh.get('error') or {}).get('message', '')}")
    elif fresh_solve.get("status") != "optimal":
        problems.append("not re-proved")
    elif not _close(fresh_solve.get("objective"), row["stored_objective"]):
        problems.append("objective differs")
    if paper in TREE_OBJECTIVE_PAPERS and record.get("tree"):
        row["tree_objective"] = paper_module(paper).tree_objective(config, record["tree"])
        if not _close(row["tree_objective"], row["stored_objective"]):
            problems.append("stored tree does not reach the stored objective")
    row["check"] = "; ".join(problems) or "ok"
    return row


def verify_incumbent(paper: str, experiment: str, record: dict) -> dict:
    """Check the tree of one stored time-limited run against its incumbent objective and its bound, without
    solving (see the module docstring)."""
    row = _row(paper, experiment, "incumbent", record)
    row["tree_objective"] = paper_module(paper).tree_objective(record["config"], record["tree"])
    problems = []
    if _clearly_below(row["tree_objective"], row["stored_objective"]):
        problems.append("stored tree does not reach the stored objective")
    if _clearly_below(row["stored_bound"], row["tree_objective"]):
        problems.append("stored tree beats the stored bound")
    row["check"] = "; ".join(problems) or "ok"
    return row


def _row(paper: str, experiment: str, kind: str, record: dict) -> dict:
    solve = record["solve_result"]
    bound = solve.get("bound")
    return {"paper": paper, "experiment": experiment, "kind": kind, "key": record["key"],
            "config": ", ".join(f"{k}={v}" for k, v in record["config"].items()),
            "stored_objective": float(solve["objective"]), "stored_bound": np.nan if bound is None else float(bound),
            "resolved_objective": None, "resolved_status": None, "tree_objective": np.nan}


def _close(a, b) -> bool:
    if a is None or b is None:
        return False
    return math.isclose(float(a), float(b), rel_tol=OBJECTIVE_TOLERANCE, abs_tol=OBJECTIVE_TOLERANCE)


def _clearly_below(a: float, b: float) -> bool:
    return a < b and not _close(a, b)


def verify(results_dir: str | os.PathLike, papers=None, sample: int = 50, seed: int = 0,
           max_runtime: float | None = None, progress=None, incumbents: int = 0) -> pd.DataFrame:
    """Verify a random sample of ``sample`` stored proved optima per paper (all of them when fewer), and of
    ``incumbents`` stored time-limited runs' trees; one row per checked run. ``max_runtime``: sample only
    optima whose stored solve took at most that many seconds (a quick check, as in CI). ``progress``: a text
    stream that gets one line per paper."""
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        raise FileNotFoundError(f"no stored results in {results_dir} (expected {results_dir}/paper<NNN>/*"
                                f"{RESULTS_SUFFIX}; produce them with odtlib reproduce --profile full --recompute)")
    found = sorted(p.name.removeprefix("paper") for p in results_dir.glob("paper[0-9][0-9][0-9]"))
    papers = found if not papers else [str(p).removeprefix("paper").zfill(3) for p in papers]
    rng = np.random.default_rng(seed)
    rows = []
    for paper in papers:
        runs = finished_runs(results_dir, paper)
        optima = [(experiment, record) for experiment, record in proved_among(runs)
                  if max_runtime is None or (record["solve_result"].get("runtime") or 0) <= max_runtime]
        checked = [verify_record(paper, *run) for run in _sample(optima, sample, rng)]
        line = f"paper {paper}: {_count_ok(checked)} of {len(checked)} sampled optima verified ({len(optima)} stored)"
        if incumbents:
            open_runs = incumbents_among(paper, runs)
            checked_open = [verify_incumbent(paper, *run) for run in _sample(open_runs, incumbents, rng)]
            line += (f"; {_count_ok(checked_open)} of {len(checked_open)} sampled incumbents' trees within their"
                     f" objective and bound ({len(open_runs)} stored)")
            checked += checked_open
        rows += checked
        if progress is not None:
            progress.write(line + "\n")
    return pd.DataFrame(rows, columns=VERIFY_COLUMNS)


def _sample(runs: list, size: int, rng: np.random.Generator) -> list:
    """``size`` of ``runs`` drawn at random (all of them, shuffled, when fewer)."""
    return [runs[index] for index in rng.permutation(len(runs))[:size]] if runs else []


def _count_ok(rows: list[dict]) -> int:
    return sum(row["check"] == "ok" for row in rows)


def mismatches(checked: pd.DataFrame) -> pd.DataFrame:
    """The rows of `verify` that found a real disagreement (not merely a solve that was not re-proved)."""
    return checked[~checked["check"].isin(["ok", "not re-proved"])]
