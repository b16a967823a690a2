"""Benchmark (issue 17): redraw of the snapshot timeline at 2M trace events (aim < 50 ms).

One redraw = min/max decimation of the visible range for both curves plus pyqtgraph's setData, then a paint of
the plot (``grab``), as after a zoom or pan.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpudesk.oom.snapshot.analysis import analyse
from gpudesk.oom.snapshot.convert import to_snapshot
from gpudesk.ui.oom.snapshot_timeline import SnapshotTimeline

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oom"))
import snapshot_builder as sb


@pytest.fixture(scope="module")
def two_million():  # type: ignore[no-untyped-def]
    return analyse(to_snapshot(sb.many_events(2_000_000))).device()


def test_bench_timeline_redraw_2m(benchmark, qtbot, two_million) -> None:  # type: ignore[no-untyped-def]
    view = SnapshotTimeline()
    qtbot.addWidget(view)
    view.resize(1280, 500)
    view.show()
    view.set_analysis(two_million)
    assert len(two_million.timeline) >= 2_000_000

    def redraw() -> None:
        view._redraw()
        view.plot.grab()

    benchmark(redraw)
    assert view.drawn_points() <= 2 * 1280
