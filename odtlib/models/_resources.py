"""What the exact subroutines of two families share: memory budgets (size the arrays before allocating them)
and one BLAS thread for their small count products.

The exact subroutines (paper 003's D2S in :mod:`odtlib.models.univariate.accel`, paper 000's subset-subtree
bounds in :mod:`odtlib.models.categorical.subtree_bounds`) build count arrays whose size grows with a power of the
number of binary columns F: D2S (paper 003, Appendix B.1) holds pair counts of shape (K, F, F), the depth-3
root scan triple counts of shape (K, F, F, F). On the class-change thresholds of a continuous dataset F is in
the thousands (banknote: 1,515 columns, so (2, F, F, F) is 51.8 GiB), so every subroutine now works in chunks
of root features sized to a budget ``max_memory`` (bytes), lowers its height when even one root feature does
not fit, and refuses data it cannot handle at all with the size it would need and how to lower it.

``max_memory=None`` means :func:`default_max_memory`: a quarter of the machine's physical memory.
"""
from __future__ import annotations

import math
import numbers
import os
from functools import cache

from threadpoolctl import ThreadpoolController

__all__ = ["MemoryBudgetError", "DEFAULT_FRACTION", "default_max_memory", "physical_memory", "resolve_max_memory",
           "format_bytes", "one_blas_thread"]

DEFAULT_FRACTION = 0.25
_FALLBACK_RAM = 8 * 2**30          # when the platform does not report its physical memory


class MemoryBudgetError(ValueError):
    """An exact subroutine cannot run within ``max_memory`` even in its smallest chunks."""


def physical_memory() -> int:
    """Bytes of physical memory of the machine (8 GiB when the platform does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return _FALLBACK_RAM


def default_max_memory() -> int:
    """The default budget: :data:`DEFAULT_FRACTION` (25 %) of the physical memory."""
    return int(DEFAULT_FRACTION * physical_memory())


def resolve_max_memory(max_memory: float | None) -> int:
    """``max_memory`` in bytes (None: :func:`default_max_memory`); a positive number is required."""
    if max_memory is None:
        return default_max_memory()
    if isinstance(max_memory, bool) or not isinstance(max_memory, numbers.Real) \
            or not math.isfinite(max_memory) or max_memory <= 0:
        raise ValueError(f"max_memory must be a positive number of bytes or None, got {max_memory!r}")
    return int(max_memory)


def format_bytes(n_bytes: float) -> str:
    """``1536`` -> ``"1.5 KiB"``, ``55_600_000_000`` -> ``"51.8 GiB"``."""
    value = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


@cache
def _blas_controller() -> ThreadpoolController:
    """The process's BLAS thread pools, found once (a few ms); ``limit`` is then cheap (~0.1 ms)."""
    return ThreadpoolController()


def one_blas_thread():
    """A context in which BLAS runs on one thread: the count products of the exact subroutines are small, and
    a second thread only costs (bench/README.md, "Measured design choices"). Used by D2S (paper 003) and the
    subset-subtree bounds (paper 000)."""
    return _blas_controller().limit(limits=1, user_api="blas")
