"""Active-memory timeline of a snapshot: allocated and reserved GiB over trace events, up to the OOM.

Millions of events are drawn through a min/max envelope of the visible range (one minimum and one maximum per
pixel column, :class:`gpudesk.oom.snapshot.timeline.Envelope`), recomputed when the view is zoomed or panned,
so a spike of one event is never lost and a redraw stays in milliseconds.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gpudesk.oom.snapshot.analysis import DeviceAnalysis
from gpudesk.oom.snapshot.timeline import Envelope
from gpudesk.units import GIB, format_bytes

MIN_BUCKETS = 200


class SnapshotTimeline(QWidget):
    """Allocated (solid blue) and reserved (dashed grey) memory in GiB against the trace event index."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel(self.tr("No snapshot opened."), self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setWordWrap(True)
        layout.addWidget(self.caption)
        self.plot = pg.PlotWidget(self)
        self.plot.setBackground("w")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.setLabel("bottom", self.tr("trace event (index)"))
        self.plot.setLabel("left", self.tr("memory (GiB)"))
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)
        self.plot.addLegend(offset=(10, 10))
        self.plot.setMinimumHeight(200)
        self.plot.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.plot.setToolTip(self.tr("Allocated and reserved memory after each allocator event, in GiB; "
                                     "drag to pan, wheel to zoom"))
        layout.addWidget(self.plot, 1)
        self.allocated_curve = self.plot.plot([], [], pen=pg.mkPen("#1f5fa8", width=2),
                                              name=self.tr("allocated (GiB)"))
        self.reserved_curve = self.plot.plot([], [], pen=pg.mkPen("#777777", width=2, style=Qt.PenStyle.DashLine),
                                             name=self.tr("reserved (GiB)"))
        self._markers: list[pg.GraphicsObject] = []
        self._peak_label: pg.TextItem | None = None
        self._allocated = Envelope(np.zeros(0, dtype=np.int64))
        self._reserved = Envelope(np.zeros(0, dtype=np.int64))
        self.plot.getPlotItem().getViewBox().sigXRangeChanged.connect(self._redraw)

    def set_analysis(self, device: DeviceAnalysis) -> None:
        tl = device.timeline
        end = device.at_index + 1 if device.at_index is not None else len(tl)
        self._allocated = Envelope(tl.allocated_bytes[:end])
        self._reserved = Envelope(tl.reserved_bytes[:end])
        for marker in self._markers:
            self.plot.removeItem(marker)
        self._markers.clear()
        if device.peak_index is not None and device.peak_index < end:
            self._mark(device.peak_index, "#2e8b57", "", 0.8)
            # The label sits on the peak itself (allocated GiB at the peak event), not at a fixed plot height.
            self._peak_label = pg.TextItem(self.tr("peak"), color="#2e8b57", anchor=(0, 1))
            self._peak_label.setPos(device.peak_index, float(tl.allocated_bytes[device.peak_index]) / GIB)
            self.plot.addItem(self._peak_label)
            self._markers.append(self._peak_label)
        if device.oom is not None:
            self._mark(device.oom.index, "#b0413e", self.tr("OOM"), 0.5)  # below the peak label on the curve
        shown = len(self._allocated)
        self.plot.setVisible(shown >= 2)
        if not shown:
            self.caption.setText(self.tr("This snapshot has no trace events on GPU {0}: allocator history was "
                                         "not recorded.").format(device.device))
        elif shown < 2:
            self.caption.setText(self.tr("Only one trace event on GPU {0}: nothing to draw over time. Allocated "
                                         "{1}, reserved {2} after it.").format(
                device.device, format_bytes(int(tl.allocated_bytes[0])), format_bytes(int(tl.reserved_bytes[0]))))
        else:
            upto = self.tr(" (up to the OOM)") if shown < len(tl) else ""
            self.caption.setText(self.tr("Trace events #0 to #{0} of the {1} on GPU {2}{3}; peak allocated {4}, peak "
                                         "reserved {5}.").format(
                f"{shown - 1:,}", f"{len(tl):,}", device.device, upto, format_bytes(device.peak_allocated_bytes),
                format_bytes(device.peak_reserved_bytes)))
        self.plot.getPlotItem().getViewBox().setLimits(xMin=0, xMax=max(1, len(self._allocated)), yMin=0)
        self.plot.setXRange(0, max(1, len(self._allocated)), padding=0.02)
        self._redraw()
        self.plot.enableAutoRange(axis="y")

    def _mark(self, index: int, color: str, label: str, height: float) -> None:
        """A dotted vertical line at event ``index``, its label at ``height`` (0-1) of the plot so that the
        peak and the OOM, often neighbours, do not overlap."""
        line = pg.InfiniteLine(pos=index, angle=90, pen=pg.mkPen(color, width=1, style=Qt.PenStyle.DotLine),
                               label=label or None,
                               labelOpts={"color": color, "position": height, "anchors": [(1, 0), (1, 0)]})
        self.plot.addItem(line)
        self._markers.append(line)

    def _redraw(self, *_args: object) -> None:
        """Decimate the visible slice to one min/max pair per pixel column and redraw both curves."""
        n = len(self._allocated)
        if n == 0:
            self.allocated_curve.setData([], [])
            self.reserved_curve.setData([], [])
            return
        (x0, x1), _y = self.plot.getPlotItem().getViewBox().viewRange()
        lo = max(0, int(np.floor(x0)))
        hi = min(n, int(np.ceil(x1)) + 1)
        if hi - lo < 2:
            lo, hi = 0, n
        buckets = max(MIN_BUCKETS, int(self.plot.width()))
        for values, curve in ((self._allocated, self.allocated_curve), (self._reserved, self.reserved_curve)):
            x, y = values.window(lo, hi, buckets)
            curve.setData(x, y / GIB)

    def drawn_points(self) -> int:
        """Points currently drawn by the allocated curve (for tests and benchmarks)."""
        x, _y = self.allocated_curve.getData()
        return 0 if x is None else len(x)
