"""How long each teaching and paper notebook takes, per solver: the times of notebooks/SYLLABUS.md.

Runs every notebook the syllabus lists with papermill (profile ``quick`` by default) on each solver (one at a
time, or ``--parallel 2`` at a time, one per core: the notebooks run their grids on one core), and writes
``notebooks/lecture_times.csv``: notebook, profile, solver, seconds, status (``ok``, ``failed: <error>`` or
``timeout``), the machine's 1-minute load average before and after, the CPU count.
Then it rewrites the times table of ``notebooks/SYLLABUS.md`` (between its ``lecture times`` markers) from the
CSV. An exercise notebook is expected to stop at its first TODO: it is timed up to there (status ``stops at
TODO``).

    .venv/bin/python bench/lecture_times.py                    # every notebook, GLPK and HiGHS, quick
    .venv/bin/python bench/lecture_times.py --parallel 2       # two at a time on a 2-core machine
    .venv/bin/python bench/lecture_times.py --solvers highs --notebooks tutorial_mip_trees
    .venv/bin/python bench/lecture_times.py --table-only       # only re-render SYLLABUS.md from the CSV
"""
from __future__ import annotations

import argparse
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
import re
import tempfile
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
CSV = NOTEBOOKS / "lecture_times.csv"
SYLLABUS = NOTEBOOKS / "SYLLABUS.md"
BEGIN, END = "<!-- lecture times: begin (bench/lecture_times.py) -->", "<!-- lecture times: end -->"


def syllabus_notebooks() -> list[str]:
    """The notebooks the syllabus names (``name.ipynb``), in order of first mention."""
    names = re.findall(r"`([a-z0-9_]+)\.ipynb`", SYLLABUS.read_text(encoding="utf-8"))
    return [name for name in dict.fromkeys(names) if (NOTEBOOKS / f"{name}.ipynb").exists()]


def time_notebook(name: str, solver: str, profile: str, timeout: float) -> dict:
    """Run one notebook and measure its wall time."""
    import papermill as pm

    from odtlib.experiments import ensure_kernel

    load_before = os.getloadavg()[0]
    status = "ok"
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        try:
            pm.execute_notebook(str(NOTEBOOKS / f"{name}.ipynb"), str(Path(tmp) / f"{name}.ipynb"),
                                parameters={"profile": profile, "solver": solver, "output_dir": tmp},
                                kernel_name=ensure_kernel(), cwd=str(NOTEBOOKS), progress_bar=False,
                                execution_timeout=timeout)
        except pm.PapermillExecutionError as error:
            status = "stops at TODO" if error.ename == "ExerciseNotDone" else f"failed: {error.ename}"
        except Exception as error:          # the kernel's per-cell timeout and dead kernels end up here
            status = "timeout" if "timed out" in str(error).lower() else f"failed: {type(error).__name__}"
        seconds = time.perf_counter() - started
    return {"notebook": name, "profile": profile, "solver": solver, "seconds": round(seconds, 1), "status": status,
            "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
            "cpus": os.cpu_count()}


def record(rows: list[dict]) -> pd.DataFrame:
    """Merge new measurements into the CSV (a new row replaces the one of the same notebook, profile, solver)."""
    keys = ["notebook", "profile", "solver"]
    old = pd.read_csv(CSV) if CSV.exists() else pd.DataFrame(columns=[*keys])
    frame = pd.concat([old, pd.DataFrame(rows)], ignore_index=True).drop_duplicates(keys, keep="last")
    frame.to_csv(CSV, index=False)
    return frame


def times_table(frame: pd.DataFrame) -> str:
    """The Markdown table of the syllabus: one row per notebook, one column per solver."""
    def cell(row) -> str:
        minutes = f"{row.seconds / 60:.1f} min" if row.seconds >= 60 else f"{row.seconds:.0f} s"
        return minutes if row.status == "ok" else f"{minutes} ({row.status})"
    solvers = sorted(frame["solver"].unique())
    lines = [f"| notebook (profile) | {' | '.join(solvers)} | load during the runs |",
             f"|---|{'---|' * len(solvers)}---|"]
    for (name, profile), group in frame.groupby(["notebook", "profile"], sort=False):
        by_solver = {row.solver: cell(row) for row in group.itertuples()}
        load = f"{group['load_before'].min():.1f}-{group['load_after'].max():.1f}"
        lines.append(f"| `{name}.ipynb` ({profile}) | {' | '.join(by_solver.get(s, '-') for s in solvers)} | {load} |")
    return "\n".join(lines)


def render_syllabus(frame: pd.DataFrame) -> None:
    text = SYLLABUS.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{SYLLABUS} has no {BEGIN} ... {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    SYLLABUS.write_text(f"{head}{BEGIN}\n{times_table(frame)}\n{END}{tail}", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solvers", nargs="+", default=["glpk", "highs"])
    parser.add_argument("--notebooks", nargs="+", help="default: every notebook SYLLABUS.md names")
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per cell before the run counts as timeout")
    parser.add_argument("--parallel", type=int, default=1, help="notebooks run at once (at most one per core)")
    parser.add_argument("--table-only", action="store_true")
    args = parser.parse_args()
    if not args.table_only:
        runs = [(name, solver) for name in args.notebooks or syllabus_notebooks() for solver in args.solvers]
        runs.sort(key=lambda run: not run[0].startswith("paper"))       # the long paper notebooks first
        with ProcessPoolExecutor(max_workers=args.parallel) as pool:
            futures = [pool.submit(time_notebook, name, solver, args.profile, args.timeout) for name, solver in runs]
            for future in as_completed(futures):
                row = future.result()
                print(row, flush=True)
                record([row])
    render_syllabus(pd.read_csv(CSV))


if __name__ == "__main__":
    main()
