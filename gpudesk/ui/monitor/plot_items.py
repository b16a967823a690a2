"""The Monitor's plot and view items: pyqtgraph's, with Qt's own bounding rectangle and shape (issue 15).

Qt asks a graphics item for its ``boundingRect`` and ``shape`` many times per repaint (dirty regions, exposure,
painting): about 70 times a tick for the seven plots and their views. pyqtgraph's ``GraphicsWidget`` answers in
Python with ``mapRectFromParent(geometry())``, which for an item without a transform of its own is the widget's
``rect()``, the rectangle ``QGraphicsWidget::boundingRect`` returns in C++. Naming Qt's own method in the class
keeps PySide from calling into Python at all (it dispatches to Python only for a Python override). ``ViewBox``
adds half a pixel for its border pen; these views have no border. About 2 % of the app's CPU at 1 Hz, measured side
by side.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QGraphicsWidget


class TimePlot(pg.PlotItem):
    """A ``PlotItem`` whose bounding rectangle and shape are Qt's (the widget's rectangle)."""

    boundingRect = QGraphicsWidget.boundingRect
    shape = QGraphicsWidget.shape


class TimeView(pg.ViewBox):
    """A ``ViewBox`` whose bounding rectangle and shape are Qt's (the widget's rectangle): for views without a
    border (``ViewBox(border=None)``, the default)."""

    boundingRect = QGraphicsWidget.boundingRect
    shape = QGraphicsWidget.shape

