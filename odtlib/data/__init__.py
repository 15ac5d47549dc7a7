"""UCI datasets for the papers: a registry (``datasets.toml``), sources (cache, mirror, UCI archive) and parsing.

>>> from odtlib.data import list_datasets, list_variants, load_dataset
>>> ds = load_dataset("monks", "monks-1-train")      # 124 rows, 6 categorical features
>>> ds.X, ds.y, ds.feature_kinds

* ``list_datasets()``, ``list_variants(name)``: the registered datasets and their paper variants. Every
  loader also takes the papers' names for a dataset (``house-votes-84``, ``car_evaluation``), any case, with
  ``_`` or spaces for ``-`` (:func:`odtlib.data.registry.resolve_name`).
* ``load_dataset(name, variant=None, shuffle=False, random_state=0)``: a :class:`Dataset` with the
  original columns. Many UCI files are sorted and scikit-learn's ``cv=<int>`` folds are not
  shuffled: pass ``shuffle=True`` (a fixed order per ``random_state``) before cross-validating.
* ``list_paper_datasets(paper)``: the dataset names of paper ``"000"``, ``"001"``, ``"003"``, ...
  in the order of the paper's table; ``paper_dataset(paper, name, encoding=None)`` gives the
  binary ``(X, y, groups)`` that paper trained on.
* ``fetch_uci(uci_id)``: any other UCI dataset through ``ucimlrepo`` (needs internet, nothing pinned).

Errors: :class:`DatasetNotFoundError` (unknown name or variant, with the close names),
:class:`DataUnavailableError` (files found nowhere, or ``ODTLIB_DATA_MIRROR`` is not a folder; the
places tried are in its ``tried`` attribute) and :class:`DataIntegrityError` (a file that does not
match the registry). Their messages are one line with the fix.

See ``data/README.md`` for the cache folder, the offline mirror and the environment variables.
"""
from odtlib.data.dataset import Dataset, list_datasets, list_variants, load_dataset
from odtlib.data.errors import DataIntegrityError, DatasetNotFoundError, DataUnavailableError
from odtlib.data.uci import fetch_uci

# the papers' encoded data (odtlib/data/papers.py)
from odtlib.data.papers import list_paper_datasets, paper_dataset

__all__ = [
    "Dataset", "DataIntegrityError", "DatasetNotFoundError", "DataUnavailableError",
    "fetch_uci", "list_datasets", "list_paper_datasets", "list_variants", "load_dataset", "paper_dataset",
]
