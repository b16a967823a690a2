"""Errors raised by the catalog. Each message says what is wrong and what to do."""

from __future__ import annotations

from typing import Any

from gpudesk.errors import GpudeskError


class CatalogError(GpudeskError):
    """The bundled catalog is missing, unreadable or from another schema version, or a query failed."""


class UnknownItemError(CatalogError, LookupError):
    """No GPU, model, link or server matches the id or name given."""


class AmbiguousItemError(CatalogError, LookupError):
    """A name fragment matches more than one item.

    Attributes:
        matches: the matching items (GPU, ModelShape ...) in catalog order.
    """

    def __init__(self, message: str, matches: list[Any]):
        super().__init__(message)
        self.matches = list(matches)
