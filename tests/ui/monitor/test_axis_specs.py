"""The time axis lays out its ticks and labels with gpudesk.ui.monitor.axis_specs (issue 15: less work per
refresh); the layout must be AxisItem's own, tick for tick and label for label, for every window of the tab
(1 min to 72 h), sliding, in every time basis."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from helpers.monitor_plots import shown_plots
from PySide6.QtGui import QPainter, QPicture

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core import timebase
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.monitor.axis_specs import handles

from gpudesk.ui.monitor.sources import HISTORY_METRICS


def _specs(axis, make) -> tuple:
    picture = QPicture()
    painter = QPainter(picture)
    try:
        specs = make(painter)
    finally:
        painter.end()
    if specs is None:
        return ()
    (pen, a, b), ticks, texts = specs
    return ((pen.color().rgba(), a.x(), a.y(), b.x(), b.y()),
            [(p.color().rgba(), p.widthF(), p1.x(), p1.y(), p2.x(), p2.y()) for p, p1, p2 in ticks],
            [(r.x(), r.y(), r.width(), r.height(), int(flags), text) for r, flags, text in texts])


@pytest.mark.parametrize("basis", [timebase.LOCAL, timebase.PRINTED, timebase.RELATIVE])
def test_time_axis_layout_is_axisitems_own(qtbot, basis):
    buffer = HistoryBuffer(2, HISTORY_METRICS)
    start = 0.0 if basis == timebase.RELATIVE else 1_764_547_200.0 - 3 * 86400  # 3 days before a month's end
    buffer.load(start + np.arange(0, 4 * 86400, 60.0), {metric: np.ones((5760, 2), np.float32) for metric in HISTORY_METRICS})
    plots = shown_plots(qtbot, buffer)
    plots.set_time_basis(basis)
    compared = 0
    for window in (60.0, 300.0, 900.0, 3600.0, 21600.0, 86400.0, 259200.0):
        for step in range(12):
            t0 = start + 86400 + step * window / 7.0
            plots.set_follow(False)
            plots.plots[m.GPU_UTIL].setXRange(t0, t0 + window, padding=0)
            for metric in (m.PCIE_TX, m.MEM_UTIL):  # the two shown time axes (left and right column)
                axis = plots.plots[metric].getAxis("bottom")
                assert handles(axis)
                ours = _specs(axis, axis.generateDrawSpecs)
                theirs = _specs(axis, lambda p, a=axis: pg.DateAxisItem.generateDrawSpecs(a, p))
                assert ours == theirs, (basis, window, step, metric)
                compared += bool(ours and ours[2])
    assert compared > 100  # labelled layouts were compared, not empty ones
