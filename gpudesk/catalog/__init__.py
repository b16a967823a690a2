"""The bundled, read-only catalog: GPUs, links, servers, model shapes, precision support, scenarios.

``open_catalog(path=None) -> Catalog``; errors are :class:`CatalogError` and its subclasses
:class:`UnknownItemError` and :class:`AmbiguousItemError` (``.matches``). Qt-free.
"""

from gpudesk.catalog.catalog import SCHEMA_VERSION, Catalog, open_catalog
from gpudesk.catalog.errors import AmbiguousItemError, CatalogError, UnknownItemError
from gpudesk.catalog.records import (
    GPU,
    CudaArchSupport,
    Link,
    ModelShape,
    PrecisionSupport,
    Price,
    Scenario,
    SoftwareStack,
    Server,
)

__all__ = [
    "GPU",
    "SCHEMA_VERSION",
    "AmbiguousItemError",
    "Catalog",
    "CatalogError",
    "CudaArchSupport",
    "Link",
    "ModelShape",
    "PrecisionSupport",
    "Price",
    "Scenario",
    "SoftwareStack",
    "Server",
    "UnknownItemError",
    "open_catalog",
]
