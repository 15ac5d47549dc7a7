"""Running a grid: sequentially, in local processes (joblib) or on a Dask cluster.

The driver (the process that calls `run_grid`) writes every record to the `ResultStore` as soon as
its run finishes, whatever the backend, so a killed driver loses only the runs in flight.
"""
from __future__ import annotations

import datetime as dt
import os
import platform
import socket
import subprocess
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np
from tqdm import TqdmWarning

with warnings.catch_warnings():  # in a kernel without ipywidgets tqdm.auto falls back to a text bar
    warnings.simplefilter("ignore", TqdmWarning)
    from tqdm.auto import tqdm

from odtlib.experiments.store import ResultStore, config_key  # noqa: E402

RunFunction = Callable[[dict], Mapping[str, Any]]
OUTPUT_KEYS = ("metrics", "solve_result", "tree", "extra")
VERSIONED_PACKAGES = ("odtlib", "numpy", "pandas", "scikit-learn", "pyomo", "highspy", "pyscipopt")


@dataclass
class GridSummary:
    """What one `run_grid` call did: configs in the grid, skipped (already stored), run, failed."""

    total: int
    skipped: int
    ran: int
    failed: int


@lru_cache(maxsize=1)
def package_versions() -> dict[str, str | None]:
    """Installed versions of odtlib and the libraries that shape its numbers (None = not installed)."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in VERSIONED_PACKAGES:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = None
    versions["git_commit"] = git_commit()
    return versions


def git_commit() -> str | None:
    """The commit of the odtlib checkout this package runs from (``+dirty`` when its ``odtlib/`` folder has
    uncommitted changes), or None outside a git checkout."""
    package = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "-C", package, "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", package, "status", "--porcelain", "--", ".."],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "") if head else None


def host_info() -> dict[str, Any]:
    """Where a run ran: host, platform, cores, process, and the 1-minute load average when it ended (a load
    above the core count means the run shared its core, so wall-clock limits gave it less CPU)."""
    return {"hostname": socket.gethostname(), "platform": platform.platform(),
            "cpu_count": os.cpu_count(), "pid": os.getpid(), "load_average": _load_average()}


def _load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):     # not on every platform
        return None


def _as_dict(value: Any) -> Any:
    """SolveResult / Tree objects become their ``to_dict()``; dicts and None pass through."""
    if value is None or isinstance(value, Mapping):
        return value
    if hasattr(value, "to_dict"):
        return value.to_dict()
    raise TypeError(f"cannot store a {type(value).__name__}: expected a dict or an object with to_dict()")


def _check_output(output: Any) -> dict:
    if not isinstance(output, Mapping):
        raise TypeError(f"the run function must return a dict with keys among {OUTPUT_KEYS}, "
                        f"got {type(output).__name__}")
    unknown = set(output) - set(OUTPUT_KEYS)
    if unknown:
        raise ValueError(f"the run function returned unknown keys {sorted(unknown)}; "
                         f"allowed: {OUTPUT_KEYS} (put scalar results under 'metrics')")
    return {"metrics": dict(output.get("metrics") or {}),
            "solve_result": _as_dict(output.get("solve_result")),
            "tree": _as_dict(output.get("tree")),
            "extra": dict(output.get("extra") or {})}


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def run_one(run: RunFunction, config: Mapping[str, Any]) -> dict:
    """Execute ``run(config)`` and return its record; an exception becomes a "failed" record.

    A record: ``key`` (see `config_key`), ``status`` ("ok" | "failed"), ``config``, ``metrics``,
    ``solve_result`` (`SolveResult.to_dict()`), ``tree`` (`Tree.to_dict()`), ``extra``,
    ``error`` (``type``, ``message``, ``traceback``; None when ok), ``timing`` (``started``,
    ``finished`` in UTC ISO format, ``wall_time`` in seconds), ``versions`` and ``host``.
    """
    config = dict(config)
    record: dict[str, Any] = {"key": config_key(config), "config": config, "metrics": {},
                              "solve_result": None, "tree": None, "extra": {}, "error": None}
    started, tic = _now(), time.perf_counter()
    try:
        record.update(_check_output(run(dict(config))))
        record["status"] = "ok"
    except Exception as exc:  # noqa: BLE001 - a failing run must not stop the grid
        record["status"] = "failed"
        record["error"] = {"type": type(exc).__name__, "message": str(exc),
                           "traceback": traceback.format_exc()}
    record["timing"] = {"started": started, "finished": _now(), "wall_time": time.perf_counter() - tic}
    record["versions"] = package_versions()
    record["host"] = host_info()
    return record


def _lost_run_record(config: Mapping[str, Any], exc: BaseException) -> dict:
    """Record for a run whose worker died (the exception came from the backend, not the run)."""
    return {"key": config_key(config), "status": "failed", "config": dict(config), "metrics": {},
            "solve_result": None, "tree": None, "extra": {},
            "error": {"type": type(exc).__name__, "message": str(exc),
                      "traceback": "".join(traceback.format_exception(exc))},
            "timing": {"started": None, "finished": _now(), "wall_time": None},
            "versions": package_versions(), "host": None}


def parallel_runs(n_jobs: int, threads_per_run: int = 1, cores: int | None = None) -> int:
    """How many runs to execute at once so that ``runs * threads_per_run <= cores``.

    ``n_jobs=-1`` means "as many as fit". Asking for more than fit warns and clamps: solver threads
    times parallel runs beyond the core count only slows every run down (and distorts timings).
    """
    if threads_per_run < 1:
        raise ValueError(f"threads_per_run must be >= 1, got {threads_per_run}")
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive int or -1 (all cores), got {n_jobs}")
    cores = cores or os.cpu_count() or 1
    fit = max(1, cores // threads_per_run)
    if n_jobs == -1:
        return fit
    if n_jobs > fit:
        warnings.warn(f"n_jobs={n_jobs} runs x {threads_per_run} solver thread(s) would oversubscribe "
                      f"{cores} cores; running {fit} at a time", RuntimeWarning, stacklevel=3)
        return fit
    return n_jobs


def run_grid(run: RunFunction, grid: Iterable[Mapping[str, Any]], store: ResultStore | str | os.PathLike,
             *, n_jobs: int = 1, scheduler: Any = None, retry_failed: bool = False,
             threads_per_run: int | None = None, progress: bool = True, desc: str | None = None,
             on_record: Callable[[dict], Any] | None = None) -> GridSummary:
    """Run every config of ``grid`` not yet in ``store``; store each record as soon as it finishes.

    Parameters
    ----------
    run : callable ``config -> dict``
        Returns a dict with keys among ``metrics`` (scalars: accuracies, sizes...), ``solve_result``
        (a `SolveResult` or its dict), ``tree`` (a `Tree` or its dict) and ``extra`` (anything
        JSON-able). It must be picklable for ``n_jobs > 1`` / Dask (a module-level function).
    grid : a `Grid` or any iterable of config dicts (JSON-able values).
    store : a `ResultStore` or the folder for one.
    n_jobs : runs at once in local processes (joblib/loky); 1 = sequential in this process.
    scheduler : None, a Dask scheduler address (``"tcp://host:8786"``) or a ``distributed.Client``
        (then ``n_jobs`` is ignored).
        Each Dask worker thread executes one run at a time, so give workers
        ``threads_per_worker * threads_per_run <= cores`` of their machine.
    retry_failed : run again configs whose stored record is "failed" (else they are skipped).
    threads_per_run : solver threads of one run (default: the largest ``config["threads"]``, else 1);
        local parallelism is clamped to ``cores // threads_per_run`` (see `parallel_runs`).
    progress : show a tqdm progress bar (notebook widget or terminal).
    on_record : called with each record after it is stored (e.g. to export a checkpoint).
    """
    store = store if isinstance(store, ResultStore) else ResultStore(store)
    configs = _unique(grid)
    pending = [c for c in configs if not _is_done(store, c, retry_failed)]
    if threads_per_run is None:
        threads_per_run = max((int(c.get("threads", 1) or 1) for c in configs), default=1)
    summary = GridSummary(total=len(configs), skipped=len(configs) - len(pending), ran=0, failed=0)
    if not pending:
        return summary
    bar = tqdm(total=len(pending), desc=desc or store.path.name, disable=not progress)
    try:
        for record in _execute(run, pending, n_jobs, scheduler, threads_per_run):
            store.put(record)
            if on_record is not None:
                on_record(record)
            summary.ran += 1
            summary.failed += record["status"] == "failed"
            bar.update()
            if summary.failed:
                bar.set_postfix(failed=summary.failed)
    finally:
        bar.close()
    return summary


def _unique(grid: Iterable[Mapping[str, Any]]) -> list[dict]:
    seen, configs = set(), []
    for config in grid:
        key = config_key(config)
        if key not in seen:
            seen.add(key)
            configs.append(dict(config))
    return configs


def _is_done(store: ResultStore, config: dict, retry_failed: bool) -> bool:
    if not store.has(config):
        return False
    return not (retry_failed and store.get(config).get("status") == "failed")


def _execute(run: RunFunction, configs: list[dict], n_jobs: int, scheduler: Any, threads_per_run: int):
    """Yield records in completion order from the chosen backend."""
    if scheduler is not None:
        yield from _execute_dask(run, configs, scheduler)
        return
    n_parallel = parallel_runs(n_jobs, threads_per_run)
    if n_parallel == 1 or len(configs) == 1:
        for config in configs:
            yield run_one(run, config)
        return
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_parallel, return_as="generator_unordered")
    yield from parallel(delayed(run_one)(run, config) for config in configs)


def _execute_dask(run: RunFunction, configs: list[dict], scheduler: Any):
    from distributed import Client, as_completed

    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        futures = {client.submit(run_one, run, config, pure=False): config for config in configs}
        for future in as_completed(futures):
            try:
                record = future.result()
            except Exception as exc:  # noqa: BLE001 - e.g. KilledWorker: store it, keep going
                record = _lost_run_record(futures[future], exc)
            future.release()
            yield record
    finally:
        if client is not scheduler:
            client.close()


def fit_and_score(model, X_train, y_train, X_test=None, y_test=None) -> dict:
    """Fit a classifier and return a run-function output: accuracies, tree size, solve result, tree.

    Works with any scikit-learn classifier; odtlib models also contribute ``solve_result_`` and
    ``tree_`` (stored as dicts) and the tree's ``depth``/``n_leaves``.
    """
    tic = time.perf_counter()
    model.fit(X_train, y_train)
    metrics = {"fit_time": time.perf_counter() - tic,
               "train_accuracy": float(np.mean(model.predict(X_train) == np.asarray(y_train)))}
    if X_test is not None:
        metrics["test_accuracy"] = float(np.mean(model.predict(X_test) == np.asarray(y_test)))
    tree = getattr(model, "tree_", None)
    tree = tree if hasattr(tree, "to_dict") and hasattr(tree, "n_leaves") else None
    if tree is not None:
        metrics.update(tree_depth=int(tree.depth), n_leaves=int(tree.n_leaves))
    return {"metrics": metrics, "solve_result": getattr(model, "solve_result_", None), "tree": tree}
