"""UCI datasets for the papers: a registry (``datasets.toml``), sources (cache, mirror, UCI archive) and parsing.

>>> from odtlib.data import list_datasets, list_variants, load_dataset
>>> ds = load_dataset("monks", "monks-1-train")      # 124 rows, 6 categorical features
>>> ds.X, ds.y, ds.feature_kinds

See ``data/README.md`` for the cache folder, the offline mirror and the environment variables.
"""
from odtlib.data.dataset import Dataset, list_datasets, list_variants, load_dataset
from odtlib.data.errors import DataIntegrityError, DatasetNotFoundError, DataUnavailableError
from odtlib.data.uci import fetch_uci

# the papers' encoded data (odtlib/data/papers.py, owned by the encoders helper)
from odtlib.data.papers import list_paper_datasets, paper_dataset

__all__ = [
    "Dataset", "DataIntegrityError", "DatasetNotFoundError", "DataUnavailableError",
    "fetch_uci", "list_datasets", "list_paper_datasets", "list_variants", "load_dataset", "paper_dataset",
]
