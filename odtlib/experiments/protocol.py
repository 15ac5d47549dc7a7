"""The paper-experiment protocol: what every paper module (``paper000.py`` ... ``paper004.py``) declares, and the
helpers they share.

**The declared shape**, `PaperExperiments`. Each paper module is read by three clients -- its notebook, the
claims ledger and ``odtlib verify`` -- and they rely on the same few names:

* ``PAPER``: the paper's id ("001");
* ``PROFILES`` and ``get_profile(name, time_limit=None)``: the profiles smoke, quick, full and paper (a
  ``Profile`` per paper: its grids' datasets, depths, seeds and time limits);
* ``load(dataset, ...)``: the paper's encoding of a dataset (`odtlib.data.paper_dataset`);
* ``make_model(method, ...)``: the estimator of one of the paper's methods (resolved through the estimator's
  ``PAPER_METHODS`` where it has them);
* ``EXPERIMENTS``: experiment name -> run function, one entry per result store the notebook fills with
  ``report.run_grid(run, configs, name)`` and per committed ``results/full/paper<NNN>/<name>.csv.gz``; a run
  function takes one config (a dict) and returns the record's metrics, solve result and tree;
* optionally ``readme_note(results)``: one line of the paper's own under the README's claims summary, from its
  stored results (paper 003: how many of the instances no published run proved our runs close).

The tables and the claims are per paper (functions named after the paper's tables; claims registered with
`odtlib.experiments.claims.metric`), so they are not part of the protocol. `paper_module` loads a paper's module
and checks it; `run_function` is the run function of one stored experiment.

**The shared helpers:**

* `select_profile` — a named profile of a paper, optionally with another per-solve time limit;
* `paper_data` — a paper's encoded dataset, cached per process;
* `results_of` — the stored records of exactly the configs of a grid;
* `instance_frame` — one row per optimisation instance with ``solved``, ``failed`` and gaps;
* `time_to_match` — the papers' speed-up measure (time to solve as many instances as a baseline);
* `failure_note` — why a table cell holding failed runs is not comparable;
* `replaced_by_reruns` — runs with the ones a profile re-solved (at a longer limit, on another solver)
  replaced;
* `paper_estimator` — a paper's method by name, from the estimators' ``PAPER_METHODS``;
* `encoded_tree` — a scikit-learn Pipeline that encodes the features, then fits a tree estimator on them
  (`TreePipeline`: the experiments that refit an encoder on each training part).

A failed run (its run function raised: unknown solver, missing data, a bug) is a *failure*, never an
unsolved instance: it has no runtime and no gap, so it is left out of every solved / time / gap number
and counted in ``n_failed`` instead.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from importlib import import_module
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from odtlib.experiments.store import ResultStore, config_key

__all__ = ["PAPERS", "PaperExperiments", "paper_module", "run_function", "select_profile", "paper_data",
           "results_of", "instance_frame", "time_to_match", "failure_note", "TreePipeline", "encoded_tree",
           "paper_estimator", "profile_getter", "replaced_by_reruns"]


def select_profile(profiles: Mapping[str, object], name: str, time_limit: float | None = None):
    """``profiles[name]``; with ``time_limit`` (seconds) its limits replaced: through the profile's
    ``with_time_limit`` method when it has one (several limits), else its ``time_limit`` field."""
    if name not in profiles:
        raise ValueError(f"profile must be one of {sorted(profiles)}, got {name!r}")
    profile = profiles[name]
    if time_limit is None:
        return profile
    if hasattr(profile, "with_time_limit"):
        return profile.with_time_limit(time_limit)
    return dataclasses.replace(profile, time_limit=float(time_limit))


def paper_estimator(method: str, estimators, **params):
    """The paper's method ``method``: ``cls.paper_method(method, **params)`` for the class among ``estimators``
    whose ``PAPER_METHODS`` names it (the one registry of the papers' named configurations)."""
    for cls in estimators:
        if method in cls.PAPER_METHODS:
            return cls.paper_method(method, **params)
    known = [name for cls in estimators for name in cls.PAPER_METHODS]
    raise ValueError(f"method must be one of {known}, got {method!r}")


def profile_getter(profiles: Mapping[str, object]):
    """The ``get_profile(name, time_limit=None)`` of a paper module: :func:`select_profile` on its ``profiles``."""

    def get_profile(name: str, time_limit: float | None = None):
        """The named profile of this paper, its per-solve time limits replaced by ``time_limit`` if given."""
        return select_profile(profiles, name, time_limit)

    return get_profile


@cache
def paper_data(paper: str, dataset: str, encoding: str | None = None):
    """``odtlib.data.paper_dataset(paper, dataset, encoding)``: (X, y, groups), cached per process."""
    from odtlib.data import paper_dataset

    if encoding is None:
        return paper_dataset(paper, dataset)
    return paper_dataset(paper, dataset, encoding=encoding)


def results_of(store: ResultStore, configs: Iterable[Mapping]) -> pd.DataFrame:
    """The stored records of exactly these configs (a store may also hold other profiles' runs)."""
    keys = {config_key(config) for config in configs}
    frame = store.to_frame()
    return frame[frame["key"].isin(keys)].reset_index(drop=True) if len(frame) else frame


def instance_frame(results: pd.DataFrame) -> pd.DataFrame:
    """One row per run with ``failed`` (the run raised), ``solved`` (proved optimal), ``solve_runtime``
    (s), ``gap_pct`` (the solver's relative gap in %, NaN when unknown) and ``proved_gap`` (0-1: 0 when
    solved, the solver's gap otherwise, 1 for a finished run without a gap, NaN for a failed run).

    Exact optimality is proved with an absolute gap below the objective's granularity, which may leave
    a tiny relative gap: a solved instance counts as gap 0."""
    df = results.copy()
    df["failed"] = df["status"] != "ok"
    status = df["solve_status"] if "solve_status" in df else pd.Series(None, index=df.index, dtype=object)
    df["solved"] = ~df["failed"] & (status == "optimal")
    gap = pd.to_numeric(df["solve_gap"], errors="coerce") if "solve_gap" in df else pd.Series(np.nan, df.index)
    df["gap_pct"] = 100 * gap
    df["proved_gap"] = np.where(df["solved"], 0.0, gap.fillna(1.0).clip(0, 1))
    df.loc[df["failed"], "proved_gap"] = np.nan
    runtime = df["solve_runtime"] if "solve_runtime" in df else pd.Series(np.nan, index=df.index)
    df["solve_runtime"] = pd.to_numeric(runtime, errors="coerce")
    return df


def time_to_match(instances: pd.DataFrame, baseline: str, time_limit: float | None = None) -> pd.DataFrame:
    """The papers' speed-up measure, per method of `instance_frame` rows.

    The baseline solves N instances (``baseline_solved``), the N-th after ``baseline_time_s``;
    ``time_to_match_s`` is when a method has solved N (NaN if it never does) and ``speedup`` is
    ``time_limit / time_to_match_s`` (paper 003: 3600 s / 12 s), or ``baseline_time_s /
    time_to_match_s`` without a limit (paper 001). ``instances`` counts the finished runs, ``n_failed``
    the failed ones (neither solved nor unsolved)."""
    finished = instances[~instances["failed"]]
    solved_times = {method: np.sort(finished.loc[(finished["method"] == method) & finished["solved"],
                                                 "solve_runtime"].to_numpy(dtype=float))
                    for method in instances["method"].drop_duplicates()}
    target = len(solved_times.get(baseline, []))
    baseline_time = solved_times[baseline][target - 1] if target else np.nan
    reference = baseline_time if time_limit is None else time_limit
    rows = []
    for method, times in solved_times.items():
        match = times[target - 1] if 0 < target <= len(times) else np.nan
        rows.append({"method": method, "instances": int((finished["method"] == method).sum()),
                     "n_failed": int((instances.loc[instances["failed"], "method"] == method).sum()),
                     "solved": len(times), "baseline_solved": target, "baseline_time_s": baseline_time,
                     "time_to_match_s": match, "speedup": reference / match if match > 0 else np.nan})
    return pd.DataFrame(rows)


def failure_note(n_failed: int, n_runs: int | None = None) -> str:
    """The not-comparable reason of a cell with failed runs ("" when none failed)."""
    if not n_failed:
        return ""
    of = f" of {int(n_runs)}" if n_runs is not None else ""
    return f"ours: {int(n_failed)}{of} run(s) failed (see the failed runs)"


class TreePipeline(Pipeline):
    """A scikit-learn Pipeline whose last step is a tree estimator. Its ``solve_result_`` and ``tree_`` are the
    last step's (an AttributeError when that step has none), as scikit-learn's Pipeline gives its last step's
    ``classes_``, so that a run reads a pipeline like a bare estimator. The tree reads the encoded columns."""

    @property
    def solve_result_(self):
        """The last step's solve result (a MIP estimator's ``solve_result_``)."""
        return self[-1].solve_result_

    @property
    def tree_(self):
        """The last step's tree, on the columns the earlier steps produce."""
        return self[-1].tree_


def replaced_by_reruns(runs: pd.DataFrame, reruns: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``runs`` with a ``rechecked`` column, each row replaced by the row of ``reruns`` with the same ``keys``
    (``rechecked`` True there); reruns that match no run are left out. The papers' profiles re-solve the runs a
    claim turns on at the paper's limit or on another solver, and their claims read the reruns this way."""
    runs = runs.assign(rechecked=False)
    if runs.empty or reruns.empty:
        return runs
    reruns = reruns[reruns.set_index(keys).index.isin(runs.set_index(keys).index)].assign(rechecked=True)
    kept = runs[~runs.set_index(keys).index.isin(reruns.set_index(keys).index)]
    return pd.concat([kept, reruns], ignore_index=True)


def encoded_tree(encoder, estimator) -> TreePipeline:
    """``encoder`` (an `odtlib.encoders`-style transformer, fitted on each training part), the encoded columns
    as a float array, then ``estimator``. The array step keeps the stored trees as the runs recorded them: on
    column indices (an estimator fitted on a DataFrame would name the encoded columns in its tree)."""
    as_array = FunctionTransformer(np.asarray, kw_args={"dtype": float})
    return TreePipeline([("encode", encoder), ("as_array", as_array), ("tree", estimator)])


# ------------------------------------------------------------------------------------------ the declared shape
PAPERS = ("000", "001", "002", "003", "004")


@runtime_checkable
class PaperExperiments(Protocol):
    """The names every ``odtlib.experiments.paper<NNN>`` module defines (see the module docstring)."""

    PAPER: str
    PROFILES: Mapping[str, Any]
    EXPERIMENTS: Mapping[str, Callable[[dict], dict]]

    def get_profile(self, name: str, time_limit: float | None = None) -> Any: ...

    def load(self, dataset: str, *args, **kwargs) -> Any: ...

    def make_model(self, *args, **kwargs) -> Any: ...


def paper_module(paper: str) -> PaperExperiments:
    """The module of ``paper`` ("000" ... "004"), checked against `PaperExperiments`."""
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {PAPERS}, got {paper!r}")
    module = import_module(f"odtlib.experiments.paper{paper}")
    if not isinstance(module, PaperExperiments):
        missing = [name for name in ("PAPER", "PROFILES", "EXPERIMENTS", "get_profile", "load", "make_model")
                   if not hasattr(module, name)]
        raise TypeError(f"odtlib.experiments.paper{paper} lacks {missing} of the paper-experiment protocol")
    return module


def run_function(paper: str, experiment: str) -> Callable[[dict], dict]:
    """The run function that fills ``experiment``'s result store of ``paper``."""
    experiments = paper_module(paper).EXPERIMENTS
    if experiment not in experiments:
        raise ValueError(f"paper {paper} has no experiment {experiment!r}; its experiments: {sorted(experiments)}")
    return experiments[experiment]
