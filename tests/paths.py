"""Where the tests find the repository and the shared folder beside its clone (papers, UCI mirror)."""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def data_mirror() -> Path:
    """``ODTLIB_DATA_MIRROR`` when set, else ``../shared/uci`` beside the clone (as ``.ci/run`` sets it)."""
    return Path(os.environ.get("ODTLIB_DATA_MIRROR") or SHARED / "uci")
