"""Where the tests find real PyTorch memory snapshots taken from public repositories.

Those files are third-party data: they are not committed here. Each one's source is recorded beside the name in
``tests/fixtures/oom/snapshots/*.url``; the files themselves are looked for in ``$GPUDESK_REAL_SNAPSHOTS`` and in
``../shared/data/snapshots`` beside the checkout, and a test that needs an absent one is skipped with its name.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "tests" / "fixtures" / "oom" / "snapshots"


def _folders() -> list[Path]:
    folders = []
    if os.environ.get("GPUDESK_REAL_SNAPSHOTS"):
        folders.append(Path(os.environ["GPUDESK_REAL_SNAPSHOTS"]))
    folders.append(REPO.parent / "shared" / "data" / "snapshots")
    return folders


def real_snapshot(name: str) -> Path:
    """The path of the real snapshot ``name``, or skip the test saying where it was looked for."""
    if not (SOURCES / f"{name}.url").exists():
        raise LookupError(f"no source recorded for snapshot {name!r} in {SOURCES}")
    for folder in _folders():
        if (folder / name).is_file():
            return folder / name
    pytest.skip(f"real snapshot {name} (source in {name}.url) not found in " + ", ".join(map(str, _folders())))
