"""The OOM doctor tab opens memory snapshots: dropped on the tab, chosen on the text page, or kept by a launched
job; the snapshot page loads in the background (progress, cancel) and explains what the snapshot shows."""

from __future__ import annotations

import gzip
import json
import pickle
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from gpudesk.store import open_store
from gpudesk.ui.context import AppContext
from gpudesk.ui.oom.controller import is_snapshot_file
from gpudesk.ui.oom.tab import OomTab

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "oom"))
import snapshot_builder as sb


@pytest.fixture
def tab(qtbot):  # type: ignore[no-untyped-def]
    messages: list[tuple[str, str]] = []
    ctx = AppContext(store=open_store(), notify=lambda text, level="info": messages.append((text, level)))
    widget = OomTab(ctx)
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    widget.show()
    return widget


def _drop(tab: OomTab, path: Path) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    assert tab.drops.handle(event)


def test_dropped_snapshot_pickle_opens_on_the_snapshot_page(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "oom.pickle"
    path.write_bytes(pickle.dumps(sb.fragmentation_oom("2.5")))
    with qtbot.waitSignal(tab.snapshot.loaded, timeout=20_000):
        _drop(tab, path)
        assert tab.pages.currentWidget() is tab.snapshot
        assert tab.snapshot.is_loading() and tab.snapshot.cancel_button.isVisible()
    qtbot.waitUntil(lambda: not tab.snapshot.is_loading(), timeout=5_000)
    assert not tab.snapshot.cancel_button.isVisible()
    assert "This is fragmentation." in tab.snapshot.explanation.toPlainText()
    assert tab.results.diagnosis is None, "a snapshot is not read as a text log"


def test_snapshot_json_gz_chosen_on_the_text_page_opens_it(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "snap.json.gz"
    path.write_bytes(gzip.compress(json.dumps(sb.fragmentation_oom("2.5")).encode()))
    with qtbot.waitSignal(tab.snapshot.loaded, timeout=20_000):
        tab.picker.text_input.open_path(str(path))
    assert tab.pages.currentWidget() is tab.snapshot
    assert tab.snapshot.device_combo.currentText() == "GPU 0 (OOM)"


def test_progress_reaches_the_bar(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "big.pickle"
    path.write_bytes(pickle.dumps(sb.many_events(400_000)))
    seen: list[int] = []
    tab.snapshot.progress.valueChanged.connect(seen.append)
    with qtbot.waitSignal(tab.snapshot.loaded, timeout=60_000):
        _drop(tab, path)
    assert any(v > 0 for v in seen), seen  # the bar moved while reading, before the result arrived


def test_cancel_stops_the_reading(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "big.pickle"
    path.write_bytes(pickle.dumps(sb.many_events(400_000)))
    with qtbot.waitSignal(tab.snapshot.failed, timeout=60_000) as sig:
        _drop(tab, path)
        assert tab.snapshot.is_loading()
        qtbot.keyClick(tab.snapshot.cancel_button, Qt.Key.Key_Space)  # at once: well before 400k events are read
    assert "cancelled" in sig.args[0]
    qtbot.waitUntil(lambda: not tab.snapshot.is_loading(), timeout=5_000)
    assert tab.snapshot.open_button.isEnabled()


def test_a_dropped_log_is_still_diagnosed_as_text(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "train.log"
    log.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                   "capacity of 79.15 GiB of which 1.02 GiB is free.\n", encoding="utf-8")
    _drop(tab, log)
    qtbot.waitUntil(lambda: tab.results.diagnosis is not None, timeout=5000)
    assert tab.snapshot.analysis is None and not tab.snapshot.is_loading()


def test_a_launched_job_s_kept_snapshot_opens(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "123-oom-snapshot.pickle"
    path.write_bytes(pickle.dumps(sb.fragmentation_oom("2.5")))
    with qtbot.waitSignal(tab.snapshot.loaded, timeout=20_000):
        tab.ctl.launch_ended(SimpleNamespace(snapshot_paths=[str(path)]))
    assert tab.pages.currentWidget() is tab.snapshot


def test_snapshot_endings() -> None:
    assert all(is_snapshot_file(n) for n in ("a.pickle", "A.PKL", "b.json", "c.json.gz", "d.pickle.gz"))
    assert not any(is_snapshot_file(n) for n in ("train.log", "core.bin", "x.gz", "err.txt"))
