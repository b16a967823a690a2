"""Open and explain PyTorch CUDA memory snapshots offline (issue 17).

``load_snapshot(path)`` reads the pickle of ``torch.cuda.memory._dump_snapshot()`` or the ``_snapshot()`` dict
saved as JSON without torch and without running code from the file; ``analyse(snapshot)`` explains it per
device; ``diagnose_snapshot(analysis)`` ranks the causes with the OOM doctor's rules;
``load_and_analyse(path)`` does the first two with one progress callback (what the UI runs in the background).
"""

from __future__ import annotations

import threading
from pathlib import Path

from gpudesk.oom.snapshot.analysis import DeviceAnalysis, SnapshotAnalysis, analyse
from gpudesk.oom.snapshot.convert import ProgressFn
from gpudesk.oom.snapshot.errors import (
    SnapshotCancelled,
    SnapshotError,
    SnapshotFormatError,
    SnapshotUnsafe,
)
from gpudesk.oom.snapshot.model import Snapshot
from gpudesk.oom.snapshot.reader import load_snapshot

__all__ = [
    "DeviceAnalysis",
    "Snapshot",
    "SnapshotAnalysis",
    "SnapshotCancelled",
    "SnapshotError",
    "SnapshotFormatError",
    "SnapshotUnsafe",
    "analyse",
    "load_and_analyse",
    "load_snapshot",
]


def load_and_analyse(
    path: str | Path,
    *,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> SnapshotAnalysis:
    """Read and analyse the snapshot in ``path``. Raises SnapshotError (SnapshotCancelled when cancelled)."""
    return analyse(load_snapshot(path, progress=progress, cancel=cancel), progress=progress, cancel=cancel)
