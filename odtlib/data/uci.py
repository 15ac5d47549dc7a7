"""`fetch_uci`: any UCI dataset through ``ucimlrepo``, returned as a `Dataset`.

Unlike `load_dataset`, nothing is pinned: no checksum, no cache beyond what ucimlrepo does, and the
column kinds come from the UCI metadata (Continuous/Integer -> numeric, Binary -> binary, else categorical).
"""
from __future__ import annotations

import pandas as pd

from odtlib.data.dataset import Dataset
from odtlib.data.errors import DatasetNotFoundError, DataUnavailableError

NUMERIC_TYPES = {"continuous", "integer"}


def _kind(uci_type: object) -> str:
    text = str(uci_type).strip().lower()
    if text in NUMERIC_TYPES:
        return "numeric"
    return "binary" if text == "binary" else "categorical"


def fetch_uci(uci_id: int, target: str | None = None) -> Dataset:
    """Download UCI dataset `uci_id` with ``ucimlrepo.fetch_ucirepo`` and wrap it as a `Dataset`.

    `target` picks the label column when UCI declares several targets. Rows without a label are
    dropped; '?' and empty cells are missing (NaN).
    """
    from ucimlrepo import fetch_ucirepo
    from ucimlrepo.fetch import DatasetNotFoundError as UciNotFound

    try:
        repo = fetch_ucirepo(id=int(uci_id))
    except ConnectionError as exc:
        raise DataUnavailableError(
            f"cannot reach the UCI archive for dataset id {uci_id} ({exc}); check the network, or use "
            "load_dataset(name) with ODTLIB_DATA_MIRROR=/path/to/uci for the registered datasets",
            tried=(f"UCI archive (ucimlrepo): {exc}",),
        ) from exc
    except UciNotFound as exc:
        raise DatasetNotFoundError(f"UCI dataset id {uci_id}: {exc}") from exc

    features, targets = repo.data.features, repo.data.targets
    if features is None or targets is None:
        raise DatasetNotFoundError(f"UCI dataset id {uci_id} declares no features or no target column")
    if target is None:
        if targets.shape[1] != 1:
            raise ValueError(f"UCI dataset id {uci_id} has targets {list(targets.columns)}; pass target=")
        target = targets.columns[0]
    if target not in targets.columns:
        raise ValueError(f"target {target!r} is not a target of UCI dataset {uci_id}: {list(targets.columns)}")

    y = targets[target].replace({"?": pd.NA, "": pd.NA})
    keep = y.notna().to_numpy()
    types = dict(zip(repo.variables["name"], repo.variables["type"]))
    X = pd.DataFrame(index=range(int(keep.sum())))
    kinds = {}
    for column in features.columns:
        values = features[column][keep].replace({"?": pd.NA, "": pd.NA}).reset_index(drop=True)
        kinds[column] = _kind(types.get(column))
        if kinds[column] == "numeric":
            X[column] = pd.to_numeric(values, errors="raise").astype(float)
        else:
            X[column] = pd.Categorical(values.infer_objects())
    name = str(repo.metadata.get("name", f"uci-{uci_id}")) if repo.metadata else f"uci-{uci_id}"
    return Dataset(X=X, y=y[keep].reset_index(drop=True).rename(target), name=name, variant=None,
                   uci_id=int(uci_id), feature_kinds=kinds, description="fetched with ucimlrepo")
