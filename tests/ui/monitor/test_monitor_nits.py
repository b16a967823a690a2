"""Monitor nits (issue 29, item 9): the GPU table's State follows the findings; a failed import clears its
"Reading..." status; an empty panel names the field the log lacks; short logs show clock times on the axis."""

from __future__ import annotations

import re

from PySide6.QtCore import QPointF, Qt

from gpudesk.store import open_store
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import DeviceInfo
from gpudesk.telemetry.rules.base import CRITICAL, INFO, WARNING, Finding
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor import actions
from gpudesk.ui.monitor.display import shown
from gpudesk.ui.monitor.gpu_table import COLUMNS, GpuTableModel
from gpudesk.ui.monitor.import_dialog import ImportChoice
from gpudesk.ui.monitor.tab import MonitorTab

DISPLAY, TOOLTIP = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole
STATE = [k for k, _h in COLUMNS].index("state")


def make_tab(qtbot, messages):  # type: ignore[no-untyped-def]
    ctx = AppContext(store=open_store(), notify=lambda text, level="info": messages.append((level, text)))
    tab = MonitorTab(ctx, nvml=None, autostart=False)
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    tab.resize(1280, 800)
    tab.show()
    return tab


def test_state_column_shows_the_worst_finding_of_each_gpu(qtbot) -> None:  # type: ignore[no-untyped-def]
    model = GpuTableModel()
    model.set_devices([DeviceInfo(i, name="NVIDIA A100") for i in range(3)], {})
    model.set_findings([
        Finding("thermal-throttling", 0, CRITICAL, "GPU 0 throttles for heat."),
        Finding("power-throttling", 0, INFO, "GPU 0 touches its power cap."),
        Finding("low-utilization", 1, WARNING, "GPU 1 idles."),
        Finding("low-utilization", None, WARNING, "The machine idles."),  # about no GPU in particular
    ])
    assert [model.data(model.index(r, STATE), DISPLAY) for r in range(3)] == ["critical", "warning", "ok"]
    assert "GPU 0 throttles for heat." in model.data(model.index(0, STATE), TOOLTIP)
    model.set_devices([DeviceInfo(0, name="NVIDIA A100")], {})  # another source: its findings are not these
    assert model.data(model.index(0, STATE), DISPLAY) == "ok"


def test_demo_gpu_with_a_critical_finding_is_not_ok(qtbot) -> None:  # type: ignore[no-untyped-def]
    tab = make_tab(qtbot, [])
    actions.play_demo(tab)
    qtbot.waitUntil(lambda: bool(tab.findings.findings) and tab.findings.analyze_button.isEnabled(), timeout=20000)
    critical = {f.gpu for f in tab.findings.findings if f.severity == CRITICAL and f.gpu is not None}
    assert critical, "the demo has a GPU with a critical finding"
    model = tab.gpu_model
    for row, device in enumerate(model.devices):
        state = model.data(model.index(row, STATE), DISPLAY)
        assert (state == "critical") == (device.index in critical), (device.index, state)


def test_failed_import_clears_its_reading_status(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    messages: list[tuple[str, str]] = []
    tab = make_tab(qtbot, messages)
    before = tab.toolbar.source_label.text()
    path = tmp_path / "pmon.log"  # a pmon log is refused with a message
    path.write_text("# gpu        pid  type    sm   mem   enc   dec   command\n"
                    "# Idx          #   C/G     %     %     %     %   name\n"
                    "    0      12345     C    90    40     -     -   python\n", encoding="utf-8")
    actions.import_dmon(tab, ImportChoice("file", str(path), None, None, None, None, 1.0))
    assert tab.toolbar.source_label.text().startswith("Reading")
    qtbot.waitUntil(lambda: any(level == "error" for level, _ in messages), timeout=20000)
    assert tab.toolbar.source_label.text() == before


def _import_log(qtbot, tab, tmp_path, text: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "dmon.log"
    path.write_text(text, encoding="utf-8")
    actions.import_dmon(tab, ImportChoice("file", str(path), None, None, None, None, 1.0))
    qtbot.waitUntil(lambda: tab.ctl.loaded is not None, timeout=20000)
    tab.plots.refresh()


def test_empty_panel_names_the_field_the_log_lacks(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    tab = make_tab(qtbot, [])
    rows = "".join(f"20240101 00:{s // 60:02d}:{s % 60:02d}      0     10     20\n" for s in range(120))
    _import_log(qtbot, tab, tmp_path, "#Date       Time        gpu     sm    mem\n"
                                      "#YYYYMMDD   HH:MM:SS    Idx      %      %\n" + rows)  # sm and mem only
    notes = tab.plots.empty_notes
    power, temp = shown(m.POWER).label, shown(m.GPU_TEMP).label  # "Power draw" (cached: maybe another language)
    assert notes[m.POWER].isVisible() and notes[m.POWER].text() == f"This log has no column for {power}."
    assert notes[m.GPU_TEMP].isVisible() and notes[m.GPU_TEMP].text() == f"This log has no column for {temp}."
    assert not notes[m.GPU_UTIL].isVisible() and not notes[m.MEM_UTIL].isVisible()  # sm and mem are drawn


def test_heat_map_bins_of_a_short_log_name_clock_times(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    tab = make_tab(qtbot, [])
    rows = "".join(f"20240101 10:{s // 60:02d}:{s % 60:02d}      0     10     20\n" for s in range(600))  # 10 min
    _import_log(qtbot, tab, tmp_path, "#Date       Time        gpu     sm    mem\n"
                                      "#YYYYMMDD   HH:MM:SS    Idx      %      %\n" + rows)
    view = tab.heatmap
    tab.subtabs.setCurrentWidget(view)
    view.refresh()
    qtbot.waitUntil(lambda: view.edges.size > 0, timeout=20000)
    assert not view._per_round  # 600 rounds in fewer bins: each bin spans a few seconds
    x = float(view.edges[100] + view.edges[101]) / 2
    view._mouse_moved((view.plot.getViewBox().mapViewToScene(QPointF(x, 0.5)),))
    stamp = view.hover.text()
    assert re.search(r"2024-01-01 10:0\d:\d\d – 10:0\d:\d\d", stamp), stamp  # seconds, not "10:01 – 10:01"
