"""The user's own database: plans, recordings, diagnoses, price overrides (sqlite-utils, WAL)."""

from gpudesk.store.db import open_store
from gpudesk.store.errors import (
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreLockedError,
    StoreNewerVersionError,
    StoreUnwritableError,
)

__all__ = [
    "open_store",
    "StoreError",
    "StoreFullError",
    "StoreCorruptError",
    "StoreLockedError",
    "StoreNewerVersionError",
    "StoreUnwritableError",
]
