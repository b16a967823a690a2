"""A followed view's time ranges are placed without pyqtgraph's signal chain (gpudesk.ui.monitor.view_range, issue
15); every plot must end up as ``ViewBox.setXRange`` leaves it: the same view and target ranges, the same
transform of its items, the same shown time axes and the same pixels."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from helpers.monitor_plots import shown_plots
from pyqtgraph.graphicsItems.GraphicsItem import GraphicsItem

from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.monitor import plots as plots_module
from gpudesk.ui.monitor import view_range
from gpudesk.ui.monitor.plots import MonitorPlots
from gpudesk.ui.monitor.sources import HISTORY_METRICS

T0 = 1.767e9


def _buffer(rows: int) -> HistoryBuffer:
    buffer = HistoryBuffer(2, HISTORY_METRICS)
    t = np.arange(rows, dtype=np.float64)
    data = {metric: np.stack([50 + 30 * np.sin(t / (7 + k)), 40 + 20 * np.cos(t / (5 + k))], axis=1).astype(np.float32)
            for k, metric in enumerate(HISTORY_METRICS)}
    buffer.load(T0 + t, data)
    return buffer


def _state(plots: MonitorPlots) -> list:
    plots.view.scene().prepareForPaint()
    out = []
    for metric, plot in plots.plots.items():
        vb = plot.getViewBox()
        shown_axes = [plot.getAxis(side).range for side in ("bottom", "top") if plot.getAxis(side).isVisible()]
        out.append((metric, vb.viewRange(), vb.state["targetRange"], vb.childGroup.transform(), shown_axes))
    return out


def _follow(qtbot, monkeypatch, direct: bool) -> tuple[list, int, np.ndarray]:
    """Follow a growing run (5-min window) in a shown widget; the states after each refresh, how many ranges
    were placed directly and the last image."""
    placed = []
    if direct:
        def counted(vb, x1, x2):
            placed.append(vb)
            return view_range.place_x_range(vb, x1, x2)
        monkeypatch.setattr(plots_module, "place_x_range", counted)
    else:
        monkeypatch.setattr(plots_module, "can_place_x_range", lambda *_args: False)
    buffer = _buffer(400)
    plots = shown_plots(qtbot, buffer)
    plots.set_window(300.0)
    states = []
    for i in range(400, 420):
        buffer.append(T0 + i, {gpu: {metric: 10.0 + i % 7 + gpu for metric in HISTORY_METRICS} for gpu in range(2)})
        plots.refresh()
        states.append(_state(plots))
    plots.set_window(60.0)
    states.append(_state(plots))
    image = plots.grab().toImage()
    pixels = np.array(image.constBits(), dtype=np.uint8).copy()
    monkeypatch.undo()
    return states, len(placed), pixels


def test_placed_ranges_leave_every_plot_as_set_x_range_does(qtbot, monkeypatch):
    direct_states, placed, direct_pixels = _follow(qtbot, monkeypatch, direct=True)
    linked_states, none_placed, linked_pixels = _follow(qtbot, monkeypatch, direct=False)
    assert placed >= 7 * 21 and none_placed == 0  # every plot's range, every refresh, was placed directly
    assert direct_states == linked_states
    assert np.array_equal(direct_pixels, linked_pixels)
    # the run really scrolled: the first plot's range moved by one second per refresh
    first_ranges = [state[0][1][0] for state in direct_states[:20]]
    assert [b[0] - a[0] for a, b in zip(first_ranges, first_ranges[1:])] == [1.0] * 19


def test_items_in_the_views_need_no_range_signal(qtbot):
    """The signal left out tells every item in a view of its range (``viewRangeChanged``); the Monitor's items
    (curves, crosshair, statistics span) leave it as pyqtgraph's no-op. An item that acts on it needs the signal."""
    plots = shown_plots(qtbot, _buffer(50))
    plots.show_region(True)
    for plot in plots.plots.values():
        for item in plot.getViewBox().allChildren():
            if isinstance(item, GraphicsItem):
                assert type(item).viewRangeChanged is GraphicsItem.viewRangeChanged, type(item)


@pytest.mark.parametrize("change", ["auto_range", "limits", "log", "aspect", "tiny"])
def test_views_in_other_states_go_through_pyqtgraph(qtbot, change):
    vb = pg.ViewBox()
    vb.setRange(xRange=(0.0, 10.0), yRange=(0.0, 1.0), padding=0)
    x1, x2 = 2.0, 12.0
    if change == "auto_range":
        vb.enableAutoRange(x=True)
    elif change == "limits":
        vb.setLimits(xMax=11.0)
    elif change == "log":
        vb.state["logMode"][0] = True
    elif change == "aspect":
        vb.setAspectLocked(True)
    else:
        x1, x2 = T0, T0 + 1e-7
    assert not view_range.can_place_x_range(vb, x1, x2)
    plain = pg.ViewBox()
    plain.setRange(xRange=(0.0, 10.0), yRange=(0.0, 1.0), padding=0)
    assert view_range.can_place_x_range(plain, 2.0, 12.0)
