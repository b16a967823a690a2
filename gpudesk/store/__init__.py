"""The user's own database: plans, recordings, diagnoses, price overrides (sqlite-utils, WAL).

``open_store`` is imported on first use (it brings sqlite-utils): importing the errors or the read-only price
query costs nothing at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpudesk.store.errors import (
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreLockedError,
    StoreNewerVersionError,
    StoreUnwritableError,
)

__all__ = [
    "StoreCorruptError",
    "StoreError",
    "StoreFullError",
    "StoreLockedError",
    "StoreNewerVersionError",
    "StoreUnwritableError",
    "open_store",
]

if TYPE_CHECKING:
    from gpudesk.store.db import open_store


def __getattr__(name: str) -> Any:
    if name == "open_store":
        from gpudesk.store.db import (
            open_store as opener,  # lazily: sqlite-utils only when a store is opened
        )

        return opener
    raise AttributeError(f"module 'gpudesk.store' has no attribute {name!r}")
