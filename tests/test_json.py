"""The one JSON sanitiser of solve results and run records (odtlib/_json.py)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from odtlib._json import json_default, json_safe
from odtlib.solvers.result import SolveResult


def test_json_safe_turns_numpy_paths_sets_and_non_finite_floats_into_plain_json():
    value = {1: np.int64(3), "a": [np.float32(0.5), (math.inf, -math.inf)], "b": np.array([[1, 2]]),
             "c": Path("x/y"), "d": {3, 1, 2}, "e": math.nan, "f": "text", "g": None}
    expected = {"1": 3, "a": [0.5, [None, None]], "b": [[1, 2]], "c": "x/y", "d": [1, 2, 3], "e": None,
                "f": "text", "g": None}
    assert json_safe(value) == expected
    assert json.loads(json.dumps(json_safe(value), allow_nan=False)) == expected


def test_json_default_refuses_what_it_cannot_write_and_names_the_type():
    with pytest.raises(TypeError, match="object"):
        json_default(object())


def test_a_solve_result_dict_is_plain_json():
    result = SolveResult(status="time_limit", objective=np.float64(7.0), bound=math.inf, solver="highs")
    as_dict = result.to_dict()
    assert as_dict["objective"] == 7.0 and type(as_dict["objective"]) is float and as_dict["bound"] is None
    json.dumps(as_dict, allow_nan=False)
