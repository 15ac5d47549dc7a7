"""The README's "Your own data" examples run as written and give a sensible tree."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def own_data_examples() -> list[str]:
    """The Python blocks of the section: OptimalTreeClassifier first, then the pipeline one picks oneself."""
    section = README.read_text(encoding="utf-8").split("## Your own data", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def printed_by(code: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    return out.getvalue().splitlines()


def test_the_optimal_tree_classifier_example_runs_as_written():
    first, path, *tree = printed_by(own_data_examples()[0])
    accuracy, status = first.split()
    assert float(accuracy) >= 0.9 and status == "optimal"      # CART at depth 2 reaches 0.96 on iris
    assert path.startswith("univariate splits by ThresholdTreeSearch on none (exact search); encoding: UnitScaler")
    assert re.fullmatch(r"if petal_\w+ (<=|>) \d+\.\d+:", tree[0]), tree[0]   # original columns and units
    assert any("(n=" in line for line in tree)                   # leaves show their class counts


def test_the_pick_it_yourself_example_runs_as_written():
    first, *tree = printed_by(own_data_examples()[1])
    accuracy, status = first.split()
    assert float(accuracy) >= 0.9 and status == "optimal"
    assert tree[0].startswith("if petal_") and "<=" in tree[0]   # original columns, no "== 0" tests
    assert any("(n=" in line for line in tree)
