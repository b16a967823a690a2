"""Save screenshots of the snapshot viewer into docs/screenshots/oom-snapshot-*.png.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/oom_snapshot_screenshots.py``. Uses the built
fragmentation-OOM snapshot (tests/oom/snapshot_builder.py) and the real public ones of EoR_NN and
code_location (an OOM).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tests" / "oom"))
sys.path.insert(0, str(REPO))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import snapshot_builder as sb
from PySide6.QtWidgets import QApplication

from gpudesk.oom.snapshot import load_snapshot
from gpudesk.oom.snapshot.analysis import analyse
from gpudesk.oom.snapshot.convert import to_snapshot
from gpudesk.ui.oom.snapshot_view import SnapshotView

OUT = REPO / "docs" / "screenshots"


def shoot(view: SnapshotView, app: QApplication, tab: int, name: str) -> None:
    view.tabs.setCurrentIndex(tab)
    for _ in range(10):
        app.processEvents()
    view.grab().save(str(OUT / name))
    print(OUT / name)


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    OUT.mkdir(parents=True, exist_ok=True)
    view = SnapshotView()
    view.resize(1280, 800)
    view.show()
    snap = to_snapshot(sb.fragmentation_oom("2.5"))
    snap.source_name = "fragmentation-oom.pickle"
    view.set_analysis(analyse(snap))
    shoot(view, app, 1, "oom-snapshot-segments.png")
    shoot(view, app, 0, "oom-snapshot-timeline.png")
    view.tables.allocations.selectRow(0)
    view.tables.tabs.setCurrentIndex(1)
    shoot(view, app, 2, "oom-snapshot-top-allocations.png")
    view.set_analysis(analyse(load_snapshot(Path(os.environ.get("GPUDESK_REAL_SNAPSHOTS", REPO.parent / "shared/data/snapshots")) / "eor_nn_counterfactuals.json.gz")))
    shoot(view, app, 0, "oom-snapshot-real-eor-timeline.png")
    shoot(view, app, 1, "oom-snapshot-real-eor-segments.png")
    view.set_analysis(analyse(load_snapshot(Path(os.environ.get("GPUDESK_REAL_SNAPSHOTS", REPO.parent / "shared/data/snapshots")) / "code_location_gnn_oom.json.gz")))
    shoot(view, app, 0, "oom-snapshot-real-oom-timeline.png")
    shoot(view, app, 1, "oom-snapshot-real-oom-segments.png")


if __name__ == "__main__":
    main()
