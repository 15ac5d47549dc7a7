"""Errors raised by :mod:`odtlib.data`.

Messages are one line: what failed and how to fix it. `DataUnavailableError` keeps the details
(the places looked in) in attributes.
"""
from __future__ import annotations


class DatasetNotFoundError(KeyError):
    """The dataset (or variant) name is not in the registry."""

    def __str__(self) -> str:  # KeyError would print the message with quotes
        return str(self.args[0]) if self.args else ""


class DataUnavailableError(FileNotFoundError, RuntimeError):
    """The raw files could not be obtained from the cache, the mirror or the UCI archive.

    A ``FileNotFoundError`` (so the CLI reports it on one line) and, as before, a ``RuntimeError``.

    Attributes: ``dataset`` (slug, or ``None``), ``files`` (the raw files that could not be
    obtained) and ``tried`` (one ``"place: outcome"`` line per source looked in, in order).
    """

    def __init__(self, message: str, dataset: str | None = None, files: tuple[str, ...] = (),
                 tried: tuple[str, ...] = ()):
        super().__init__(message)
        self.dataset = dataset
        self.files = tuple(files)
        self.tried = tuple(tried)


class DataIntegrityError(ValueError, RuntimeError):
    """A raw file does not match the registry (sha256) or parses to unexpected counts.

    A ``ValueError`` (so the CLI reports it on one line) and, as before, a ``RuntimeError``.
    """
