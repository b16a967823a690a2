"""Errors raised while opening a PyTorch memory snapshot.

Hierarchy (all :class:`gpudesk.errors.GpudeskError`)::

    SnapshotError          the file cannot be read as a snapshot (missing, unreadable, damaged)
    ├── SnapshotUnsafe     the pickle asks to import or call something: refused, nothing was run
    ├── SnapshotFormatError the content is not a memory snapshot (wrong keys or shapes)
    ├── SnapshotTooLarge   a compressed file inflates past the cap (a decompression bomb)
    └── SnapshotCancelled  the user cancelled the reading
"""

from __future__ import annotations

from gpudesk.errors import GpudeskError


class SnapshotError(GpudeskError):
    """A memory snapshot file could not be read."""


class SnapshotUnsafe(SnapshotError):
    """The pickle refers to a Python global (a class or function): it could run code, so it is refused."""


class SnapshotFormatError(SnapshotError):
    """The file was decoded but does not hold a PyTorch memory snapshot."""


class SnapshotCancelled(SnapshotError):
    """Reading was cancelled before it finished."""


class SnapshotTooLarge(SnapshotError):
    """A compressed snapshot decompresses to more than the cap allows: reading stopped there."""
