"""Plain JSON for what odtlib stores: one sanitiser for solve results (`odtlib.solvers.result`) and run records
(`odtlib.experiments.store`), so that a value is written the same way wherever it ends up."""
from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["json_default", "json_safe"]


def json_default(value: Any) -> Any:
    """``json.dumps``'s ``default``: numpy scalars and arrays, paths and sets as plain JSON types; anything else
    is refused with its type named."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (os.PathLike)):
        return os.fspath(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"value of type {type(value).__name__} is not JSON serializable: {value!r}")


def json_safe(value: Any) -> Any:
    """A deep copy of ``value`` in plain JSON types (mappings with string keys, lists, numbers, strings, None),
    with non-finite floats as None, so that the stored JSON is standard (``allow_nan=False`` holds)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, (np.generic, np.ndarray, os.PathLike, set, frozenset)):
        return json_safe(json_default(value))
    return value
