"""Outside text in tooltips is shown literally, never as Qt rich text (issue 14: process command line, GPU name,
recording name)."""

from __future__ import annotations

from types import SimpleNamespace

from PySide6.QtCore import Qt

from gpudesk.telemetry.core.model import DeviceInfo
from gpudesk.ui.monitor.gpu_table import GpuTableModel
from gpudesk.ui.monitor.process_table import ProcessModel
from gpudesk.ui.tooltips import plain_tooltip

EVIL = "<img src='file:///etc/passwd'><b>python</b> train.py"
TIP = Qt.ItemDataRole.ToolTipRole


def test_plain_tooltip_escapes_markup():
    tip = plain_tooltip(EVIL)
    assert "<b>" not in tip and "<img" not in tip and "&lt;b&gt;python&lt;/b&gt;" in tip
    assert plain_tooltip("") == "" and plain_tooltip(None) == ""


def test_process_command_line_tooltip_is_plain(qtbot):
    model = ProcessModel()
    proc = SimpleNamespace(gpu_index=0, pid=1234, user="alice", name="python", cmdline=EVIL, used_memory_bytes=2**30,
                           type="compute", visible=True, memory_reason=None, host_reason=None)
    model.set_processes([proc])
    tip = model.data(model.index(0, 4), TIP)
    assert "&lt;img" in tip and "<img" not in tip


def test_gpu_name_tooltip_is_plain(qtbot):
    model = GpuTableModel()
    model.set_devices([DeviceInfo(0, uuid="GPU-1", name="<a href='x'>NVIDIA</a> H100")], {0: (None, "unknown")})
    tip = model.data(model.index(0, 0), TIP)
    assert "&lt;a href=" in tip and "<a href" not in tip


def test_recording_name_tooltip_is_plain(qtbot):
    from gpudesk.store import open_store
    from gpudesk.telemetry.recording.recorder import Recorder
    from gpudesk.ui.context import AppContext
    from gpudesk.ui.monitor.recordings_view import RecordingsView

    store = open_store()
    recorder = Recorder(store)
    recorder.start([], source="test", name=EVIL, notes="")
    recorder.stop()
    view = RecordingsView(AppContext(store=store))
    qtbot.addWidget(view)
    view.reload()
    tips = [view.table.item(0, c).toolTip() for c in range(view.table.columnCount()) if view.table.item(0, c)]
    named = [tip for tip in tips if "python" in tip]
    assert named and all("<img" not in tip and "<b>" not in tip for tip in named)
    assert any("&lt;img" in tip for tip in named)
    store.close()
