"""Errors raised by :mod:`odtlib.data`."""
from __future__ import annotations


class DatasetNotFoundError(KeyError):
    """The dataset (or variant) name is not in the registry."""

    def __str__(self) -> str:  # KeyError would print the message with quotes
        return str(self.args[0]) if self.args else ""


class DataUnavailableError(RuntimeError):
    """The raw files could not be obtained from the cache, the mirror or the UCI archive."""


class DataIntegrityError(RuntimeError):
    """A raw file does not match the registry (sha256) or parses to unexpected counts."""
