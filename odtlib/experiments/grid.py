"""Declaring a grid of runs: the cross product of named axes, optionally filtered and concatenated."""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any


def _as_axis(name: str, values: Any) -> list:
    """Axis values as a list; a string or a non-iterable value is a single (fixed) value."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        return [values]
    values = list(values)
    if not values:
        raise ValueError(f"grid axis {name!r} is empty")
    return values


class Grid:
    """The cross product of named axes; each element is one run's config (a plain dict).

    A list/range/tuple is an axis; a string, number or None is a fixed value shared by every config.

    >>> g = Grid(dataset=["monk1", "monk2"], depth=[2, 3], seed=range(2), solver="highs")
    >>> len(g), list(g)[0]
    (8, {'dataset': 'monk1', 'depth': 2, 'seed': 0, 'solver': 'highs'})
    >>> len(g.where(lambda c: not (c["dataset"] == "monk2" and c["depth"] == 3)))
    6
    >>> len(g + Grid(dataset="monk1", depth=4, seed=[0], solver="scip"))  # concatenation
    9
    """

    def __init__(self, **axes: Any):
        self._parts: list[tuple[dict[str, list], Callable[[dict], bool] | None]] = [
            ({name: _as_axis(name, values) for name, values in axes.items()}, None)
        ]

    def where(self, keep: Callable[[dict], bool]) -> Grid:
        """A copy that keeps only the configs for which ``keep(config)`` is true."""
        new = Grid()
        new._parts = [(axes, _both(cond, keep)) for axes, cond in self._parts]
        return new

    def __add__(self, other: Grid) -> Grid:
        if not isinstance(other, Grid):
            return NotImplemented
        new = Grid()
        new._parts = self._parts + other._parts
        return new

    def __iter__(self) -> Iterator[dict]:
        for axes, cond in self._parts:
            names = list(axes)
            for values in itertools.product(*(axes[name] for name in names)):
                config = dict(zip(names, values))
                if config and (cond is None or cond(config)):
                    yield config

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"Grid({len(self)} configs)"


def _both(first: Callable[[dict], bool] | None, second: Callable[[dict], bool]) -> Callable[[dict], bool]:
    if first is None:
        return second
    return lambda config: first(config) and second(config)
