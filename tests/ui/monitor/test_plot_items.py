"""The Monitor's plots and views answer Qt's bounding-rectangle and shape queries in C++ (issue 15); the answer
must be the rectangle pyqtgraph's Python ``GraphicsWidget.boundingRect`` computes for them."""

from __future__ import annotations

import types

import numpy as np
from helpers.monitor_plots import shown_plots
from pyqtgraph.graphicsItems.GraphicsWidget import GraphicsWidget

from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.monitor.plot_items import TimePlot, TimeView
from gpudesk.ui.monitor.sources import HISTORY_METRICS


def test_bounding_rects_and_shapes_are_pyqtgraphs_rectangles(qtbot):
    buffer = HistoryBuffer(2, HISTORY_METRICS)
    buffer.load(1.767e9 + np.arange(100.0), {metric: np.full((100, 2), 5.0, np.float32) for metric in HISTORY_METRICS})
    plots = shown_plots(qtbot, buffer)
    for plot in plots.plots.values():
        for item in (plot, plot.getViewBox()):
            assert isinstance(item, (TimePlot, TimeView))
            python_rect = GraphicsWidget.boundingRect(item)
            assert python_rect.width() > 50 and python_rect.height() > 20
            assert item.boundingRect() == python_rect
            assert item.shape().boundingRect() == python_rect
    for cls in (TimePlot, TimeView):  # Qt's own methods: PySide calls no Python for them
        assert not isinstance(cls.boundingRect, types.FunctionType)
        assert not isinstance(cls.shape, types.FunctionType)
