"""The snapshot viewer: background open with progress and cancel, views filled from the analysis."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import pytest

from gpudesk.oom.snapshot.analysis import analyse
from gpudesk.oom.snapshot.convert import to_snapshot
from gpudesk.ui.oom.snapshot_view import SnapshotView

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "oom"))
import snapshot_builder as sb
from helpers.real_snapshots import real_snapshot


@pytest.fixture
def view(qtbot):  # type: ignore[no-untyped-def]
    v = SnapshotView()
    qtbot.addWidget(v)
    v.resize(1200, 800)
    return v


def test_open_in_background_fills_every_view(view, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "oom.pickle"
    path.write_bytes(pickle.dumps(sb.fragmentation_oom("2.5")))
    with qtbot.waitSignal(view.loaded, timeout=20_000):
        view.open_file(path)
    qtbot.waitUntil(lambda: not view.is_loading(), timeout=5_000)
    text = view.explanation.toPlainText()
    assert "This is fragmentation." in text
    assert "1. Fragmented allocator cache" in text
    assert view.device_combo.currentText() == "GPU 0 (OOM)"
    assert view.timeline.drawn_points() > 0
    assert view.segments.canvas.rows() == 1 + 5  # the failed request and five segments
    assert view.tables.frames.rowCount() >= 1
    view.tables.allocations.selectRow(0)
    assert "train.py" in view.tables.stack.toPlainText()


def test_unsafe_file_shows_a_message_not_a_traceback(view, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    class Evil:
        def __reduce__(self):  # type: ignore[no-untyped-def]
            return (print, ("hi",))

    path = tmp_path / "evil.pickle"
    path.write_bytes(pickle.dumps({"segments": [Evil()]}))
    with qtbot.waitSignal(view.failed, timeout=20_000) as sig:
        view.open_file(path)
    assert "not a plain memory snapshot" in sig.args[0]
    assert "not a plain memory snapshot" in view.status.text()


def test_cancel_stops_a_large_open(view, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "big.pickle"
    path.write_bytes(pickle.dumps(sb.many_events(400_000)))
    with qtbot.waitSignal(view.failed, timeout=30_000) as sig:
        view.open_file(path)
        view.cancel()
    assert "cancelled" in sig.args[0]
    qtbot.waitUntil(lambda: not view.is_loading(), timeout=5_000)
    assert view.open_button.isEnabled()


def test_leak_and_real_snapshot_render(view, qtbot) -> None:  # type: ignore[no-untyped-def]
    view.set_analysis(analyse(to_snapshot(sb.leak_run())))
    assert "Possible leak: 8 allocations from train.py:44 train_step" in view.explanation.toPlainText()
    with qtbot.waitSignal(view.loaded, timeout=20_000):
        view.open_file(real_snapshot("eor_nn_counterfactuals.json.gz"))
    assert "no OOM event on GPU 0" in view.explanation.toPlainText()
    assert view.segments.canvas.rows() == 10


def test_timeline_draws_two_million_events_decimated(view, qtbot) -> None:  # type: ignore[no-untyped-def]
    analysis = analyse(to_snapshot(sb.many_events(2_000_000)))
    view.set_analysis(analysis)
    assert view.timeline.drawn_points() <= 2 * max(200, view.timeline.plot.width()) + 2
