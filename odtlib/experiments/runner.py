"""Running a grid: sequentially, in local processes (joblib) or on a Dask cluster.

The driver (the process that calls `run_grid`) writes every record to the `ResultStore` as soon as
its run finishes, whatever the backend, so a killed driver loses only the runs in flight.

A grid shows one progress line: in a Jupyter kernel a display rewritten in place (an executed notebook
keeps only its last state, `GridSummary.line`), elsewhere a tqdm bar. The warnings of its runs, which
each run puts in its record (so none is lost in a worker process; they are not stored), are shown once per
grid at the end, each distinct (category, message) with the number of runs that raised it.
"""
from __future__ import annotations

import datetime as dt
import importlib
import os
import platform
import socket
import subprocess
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
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
WARNINGS_KEY = "warnings"      # a record's warnings on their way to the driver (not stored)
LINE_UPDATE_SECONDS = 2.0      # a notebook's progress line is rewritten at most this often
VERSIONED_PACKAGES = ("odtlib", "numpy", "pandas", "scikit-learn", "pyomo", "highspy", "pyscipopt")


@dataclass
class GridSummary:
    """What one `run_grid` call did: configs in the grid, skipped (already stored), run, failed, and the
    wall-clock seconds it took."""

    total: int
    skipped: int
    ran: int
    failed: int
    seconds: float = field(default=0.0, compare=False)

    def line(self, label: str) -> str:
        """One line saying what the grid did, e.g. ``"paper002 direct: 180/180 runs in 3.2 min, 0 failed"``."""
        pending = self.total - self.skipped
        if pending == 0:
            return f"{label}: all {self.total} runs already stored"
        if self.ran == 0:
            return f"{label}: {self.skipped} of {self.total} runs stored, {pending} not computed"
        stored = f" ({self.skipped} already stored)" if self.skipped else ""
        return f"{label}: {self.ran}/{pending} runs in {duration_text(self.seconds)}, {self.failed} failed{stored}"


def duration_text(seconds: float) -> str:
    """``"42 s"``, ``"3.2 min"`` or ``"1.5 h"``."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


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


def _run_recording_warnings(run: RunFunction, config: Mapping[str, Any]) -> dict:
    """`run_one` with the warnings the run raised put in its record (``WARNINGS_KEY``: category and message),
    where `run_grid` collects them, whatever process ran it, to show each once per grid (never stored)."""
    with warnings.catch_warnings(record=True) as caught:
        record = run_one(run, config)
    record[WARNINGS_KEY] = [_warning_entry(warning) for warning in caught]
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
    progress : show one progress line: in a Jupyter kernel rewritten in place and left as `GridSummary.line`,
        elsewhere a tqdm bar.
    desc : the progress line's label (default: the store's folder name).
    on_record : called with each record after it is stored (e.g. to export a checkpoint).

    The runs' warnings are shown once at the end, each distinct one with the number of runs that raised it.
    """
    store = store if isinstance(store, ResultStore) else ResultStore(store)
    configs = _unique(grid)
    pending = [c for c in configs if not _is_done(store, c, retry_failed)]
    if threads_per_run is None:
        threads_per_run = max((int(c.get("threads", 1) or 1) for c in configs), default=1)
    summary = GridSummary(total=len(configs), skipped=len(configs) - len(pending), ran=0, failed=0)
    line = progress_line(len(pending), desc or store.path.name, progress)
    raised: dict[tuple[str, str], int] = {}
    tic = time.perf_counter()
    try:
        for record in _execute(run, pending, n_jobs, scheduler, threads_per_run) if pending else ():
            for entry in {tuple(entry) for entry in record.pop(WARNINGS_KEY, None) or []}:
                raised[entry] = raised.get(entry, 0) + 1
            store.put(record)
            if on_record is not None:
                on_record(record)
            summary.ran += 1
            summary.failed += record["status"] == "failed"
            line.update(summary.failed)
    finally:
        summary.seconds = time.perf_counter() - tic
        line.close(summary.line(desc or store.path.name))
    _warn_once_each(raised, summary.ran)
    return summary


def _warning_entry(warning: warnings.WarningMessage) -> tuple[str, str]:
    """A caught warning as (its category's import path, its message): plain text, so that a record from a
    worker process always unpickles."""
    category = warning.category
    return f"{category.__module__}.{category.__qualname__}", str(warning.message)


def _warning_category(path: str) -> type[Warning]:
    """The warning class at ``path`` (``module.Class``), or UserWarning when it does not import here."""
    module, _, name = path.rpartition(".")
    try:
        category = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        return UserWarning
    return category if isinstance(category, type) and issubclass(category, Warning) else UserWarning


def _warn_once_each(raised: Mapping[tuple[str, str], int], ran: int) -> None:
    """Each distinct (category, message) the grid's runs raised, once, at the caller's line, with the count of
    runs that raised it."""
    from odtlib.models._base import warn_user

    for (path, message), n_runs in raised.items():
        category = _warning_category(path)
        shown = message if category is not UserWarning or path.endswith(".UserWarning") else f"{path}: {message}"
        warn_user(f"{shown} [in {n_runs} of {ran} runs of this grid]", category)


class _BarLine:
    """A grid's progress as a tqdm bar (a terminal or a log)."""

    def __init__(self, total: int, desc: str):
        self.bar = tqdm(total=total, desc=desc, disable=total == 0)

    def update(self, failed: int) -> None:
        self.bar.update()
        if failed:
            self.bar.set_postfix(failed=failed)

    def close(self, _final: str) -> None:
        self.bar.close()


class _DisplayLine:
    """A grid's progress as one output of a Jupyter cell, rewritten in place (an IPython display update) at
    most every `LINE_UPDATE_SECONDS`; an executed notebook keeps only the final text."""

    def __init__(self, total: int, desc: str):
        from IPython.display import display

        self.total, self.desc, self.done, self.failed = total, desc, 0, 0
        self.tic = self.last = time.monotonic()
        self.handle = display(self._raw(self._text()), raw=True, display_id=True)

    def update(self, failed: int) -> None:
        self.done, self.failed = self.done + 1, failed
        if time.monotonic() - self.last >= LINE_UPDATE_SECONDS:
            self.handle.update(self._raw(self._text()), raw=True)
            self.last = time.monotonic()

    def close(self, final: str) -> None:
        self.handle.update(self._raw(final), raw=True)

    def _text(self) -> str:
        elapsed = duration_text(time.monotonic() - self.tic)
        return f"{self.desc}: {self.done}/{self.total} runs, {self.failed} failed, {elapsed} so far"

    @staticmethod
    def _raw(text: str) -> dict:
        return {"text/plain": text}


class _NoLine:
    """No progress shown."""

    def update(self, failed: int) -> None:
        pass

    def close(self, final: str) -> None:
        pass


def progress_line(total: int, desc: str, enabled: bool):
    """A grid's progress line for ``total`` runs, advanced by ``update(failed_so_far)`` after each run and ended
    by ``close(final_text)``: a display rewritten in place in a Jupyter kernel (left showing the final text),
    else a tqdm bar; nothing if not ``enabled``."""
    if not enabled:
        return _NoLine()
    return _DisplayLine(total, desc) if _in_jupyter_kernel() else _BarLine(total, desc)


def _in_jupyter_kernel() -> bool:
    """Does this code run in a Jupyter kernel (a notebook, or papermill executing one)?"""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


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
            yield _run_recording_warnings(run, config)
        return
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_parallel, return_as="generator_unordered")
    yield from parallel(delayed(_run_recording_warnings)(run, config) for config in configs)


def _execute_dask(run: RunFunction, configs: list[dict], scheduler: Any):
    from distributed import Client, as_completed

    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        futures = {client.submit(_run_recording_warnings, run, config, pure=False): config for config in configs}
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
