"""Helpers shared by the bench scripts: one measurement in a fresh interpreter with a hard wall-clock kill
(peers and free solvers may overrun their own time limits), and rows appended to a CSV as they finish."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from pathlib import Path


def run_in_subprocess(script: str, spec: dict, grace: float) -> dict:
    """``python script --child <spec as JSON>``, killed ``grace`` seconds after ``spec["time_limit"]``.

    The child prints its result as one line ``RESULT <json>``; a kill, a crash or a missing line gives a
    dict with status "killed" / "error", the wall time and a message."""
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, script, "--child", json.dumps(spec)], capture_output=True,
                              text=True, timeout=spec["time_limit"] + grace)
    except subprocess.TimeoutExpired:
        return dict(status="killed", wall_s=time.perf_counter() - start,
                    message=f"no answer {grace:.0f}s past the time limit")
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return dict(status="error", wall_s=time.perf_counter() - start, message=tail[0][:200])
    return json.loads(lines[-1][len("RESULT "):])


def answer_as_child(spec_json: str | None, child) -> bool:
    """In a child process (``--child SPEC``): run ``child(spec)`` and print its result on the RESULT line that
    :func:`run_in_subprocess` reads; returns False in the parent (no spec)."""
    if not spec_json:
        return False
    print("RESULT " + json.dumps(child(json.loads(spec_json))), flush=True)
    return True


def append_row(path: Path, row: dict, fields: list[str]) -> None:
    """Append ``row`` (only ``fields``) to the CSV at ``path``, writing the header first for a new file."""
    new = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerow(row)
