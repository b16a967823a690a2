"""Following a live run, the plots' time ranges are set directly (issue 15) and must be the ones pyqtgraph's
x-links give them: each plot of the first column lined up with the first plot pixel for pixel (a wider value
axis shows a little less time), the second column the same range."""

from __future__ import annotations

import numpy as np
from helpers.monitor_plots import shown_plots

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.monitor.plots import MonitorPlots
from gpudesk.ui.monitor.sources import HISTORY_METRICS


def _ranges(plots: MonitorPlots) -> dict[str, list[float]]:
    return {metric: list(plot.getViewBox().viewRange()[0]) for metric, plot in plots.plots.items()}


def test_direct_time_ranges_equal_the_linked_ones(qtbot):
    buffer = HistoryBuffer(2, HISTORY_METRICS)
    data = {metric: np.full((600, 2), 5.0, np.float32) for metric in HISTORY_METRICS}
    buffer.load(1.767e9 + np.arange(600.0), data)
    plots = shown_plots(qtbot, buffer)
    plots.set_window(300.0)
    plots.plots[m.MEM_USED].getAxis("left").setWidth(80)  # a wider value axis than its column's others
    qtbot.wait(50)  # the layout takes it
    first = plots.plots[m.GPU_UTIL]
    lined_up = 0
    for t0 in (1.767e9 + 100.25, 1.767e9 + 250.0, 1.767e9 + 299.9):
        plots.set_follow(False)
        first.setXRange(t0 - 1000, t0 - 700, padding=0)  # elsewhere first
        first.setXRange(t0, t0 + 300, padding=0)  # pyqtgraph's links move the others
        linked = _ranges(plots)
        first.setXRange(t0 - 1000, t0 - 700, padding=0)
        plots._set_time_range(t0, t0 + 300)  # set directly
        assert _ranges(plots) == linked
        lined_up += linked[m.MEM_USED] != linked[m.GPU_UTIL]
    assert lined_up == 3  # the memory plot's wider axis: its range was lined up, not copied
