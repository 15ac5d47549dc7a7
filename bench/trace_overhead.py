"""What recording the search trace costs HiGHS: FlowOCT depth 2 on 124 rows of monk1, side by side in one process,
with the trace recorded (as shipped: HiGHS's improving-solution and interrupt callbacks) and with the callbacks
not subscribed (``trace=None`` in the in-process run). Alternating order, 3 rounds; prints the median solve times
and their ratio.

    .venv/bin/python bench/trace_overhead.py
"""
import statistics
from odtlib.data import paper_dataset
from odtlib.models import FlowOCT
from odtlib.solvers import highs

X, y, _ = paper_dataset("001", "monk1")
X, y = X.to_numpy()[:124], y.to_numpy()[:124]
original = highs.HighsBackend._run_here

def untraced(self, *a, **k):
    saved, self.trace = self.trace, None
    try:
        return original(self, *a, **k)
    finally:
        self.trace = saved

times = {"traced": [], "untraced": []}
for r in range(3):
    for mode in (("traced", "untraced") if r % 2 == 0 else ("untraced", "traced")):
        highs.HighsBackend._run_here = original if mode == "traced" else untraced
        est = FlowOCT(depth=2, solver="highs").fit(X, y)
        times[mode].append(est.solve_result_.solve_time)
        print(mode, f"{est.solve_result_.solve_time:.2f}s", est.solve_result_.objective, len(est.solve_result_.trace))
for k, v in times.items(): print(k, "median", f"{statistics.median(v):.2f}")
print("ratio traced/untraced", statistics.median(times["traced"]) / statistics.median(times["untraced"]))
