"""Monitor tab (issue 15): the plots are not redrawn while the window is minimised, and catch up once it is back."""

from __future__ import annotations

from helpers.fake_pynvml import FakeDevice, make_fake_pynvml
from PySide6.QtCore import Qt

from gpudesk.telemetry.core import model as m
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor.tab import MonitorTab


def test_minimised_window_skips_redraws_and_catches_up(qtbot):
    tab = MonitorTab(AppContext(), nvml=make_fake_pynvml([FakeDevice(i) for i in range(2)]))
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    tab.resize(1000, 700)
    tab.show()
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= 2, timeout=20000)
    refreshes: list[int] = []
    original = tab.plots.refresh
    tab.plots.refresh = lambda: (refreshes.append(tab.ctl.buffer.count), original())  # type: ignore[method-assign]
    tab.setWindowState(Qt.WindowState.WindowMinimized)
    assert tab.window().isMinimized()
    minimised_at = tab.ctl.buffer.count
    qtbot.waitUntil(lambda: tab.ctl.buffer.count >= minimised_at + 2, timeout=20000)
    assert refreshes == []  # sampled on, drawn never
    tab.setWindowState(Qt.WindowState.WindowNoState)
    qtbot.waitUntil(lambda: bool(refreshes), timeout=5000)
    x, _y = tab.plots._curves[(m.GPU_UTIL, 1)].getData()  # noqa: SLF001 - the drawn curve is the point
    assert x[-1] == tab.ctl.buffer.times[-1]  # the newest sample is drawn once the window is back
