"""Heat map of GPU utilization: one row per GPU, one column per time bin (for long runs, e.g. a 72-hour
burn-in). Each cell is the mean of the readable samples in the bin; a bin without any readable value is
drawn grey (N/A), never as 0 %. Hovering a cell shows the GPU, the bin's time span and the value.

A history with fewer sampling rounds than the chosen number of bins gets one bin per round, each one sampling
interval wide (a one-round log is one column, not 288 empty bins of 0 s).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.monitor.display import shown, time_basis, when
from gpudesk.units import format_duration
from gpudesk.ui.monitor.time_axis import TimeAxis

HEAT_METRICS = (m.GPU_UTIL, m.MEM_UTIL, m.POWER, m.GPU_TEMP)
NA_RGBA = (200, 200, 200, 255)


def colour_table() -> np.ndarray:
    """256-entry RGBA lookup table (viridis), index 0 .. 255 for the metric's range."""
    return pg.colormap.get("viridis").getLookupTable(0.0, 1.0, 256, alpha=True)


class HeatmapView(QWidget):
    """GPU x time-bin image of one metric from a :class:`HistoryBuffer`."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.buffer: HistoryBuffer | None = None
        self.gpu_labels: dict[int, str] = {}
        self.edges = np.empty(0)
        self.values = np.empty((0, 0))
        self.metric_key = m.GPU_UTIL
        self._per_round = False
        self.choice = QComboBox(self)
        for metric in HEAT_METRICS:
            s = shown(metric)
            self.choice.addItem(f"{s.label} ({s.unit})", metric)
        self.choice.currentIndexChanged.connect(self._metric_changed)
        self.choice.setToolTip(self.tr("Metric drawn in the heat map"))
        self.bins = QComboBox(self)
        for n in (60, 120, 288, 432, 720):
            self.bins.addItem(self.tr("{n} time bins").format(n=n), n)
        self.bins.setCurrentIndex(2)
        self.bins.currentIndexChanged.connect(self.refresh)
        self.info = QLabel(self)
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Metric:"), self))
        top.addWidget(self.choice)
        top.addWidget(self.bins)
        top.addWidget(self.info, 1)
        self.plot = pg.PlotWidget(self, axisItems={"bottom": TimeAxis()})
        self.plot.setBackground("w")
        self.plot.setMenuEnabled(False)
        self.plot.getPlotItem().hideButtons()
        self.plot.setLabel("left", self.tr("GPU"))
        self.plot.getViewBox().invertY(True)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.colorbar = pg.ColorBarItem(values=(0, 100), colorMap=pg.colormap.get("viridis"), interactive=False)
        self.plot.getPlotItem().layout.addItem(self.colorbar, 2, 5)
        self.hover = QLabel(self.tr("Hover a cell for its value."), self)
        self.hover.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.hover)
        self._proxy = pg.SignalProxy(self.plot.scene().sigMouseMoved, rateLimit=20, slot=self._mouse_moved)

    def set_source(self, buffer: HistoryBuffer, gpu_labels: dict[int, str]) -> None:
        self.buffer = buffer
        self.gpu_labels = dict(gpu_labels)
        self.plot.getAxis("bottom").set_basis(time_basis())
        ticks = [(i + 0.5, gpu_labels.get(i, str(i))) for i in range(buffer.n_gpus)]
        step = max(1, buffer.n_gpus // 16)
        self.plot.getAxis("left").setTicks([ticks[::step]])
        self.refresh()

    def _metric_changed(self) -> None:
        self.metric_key = self.choice.currentData()
        self.refresh()

    def refresh(self) -> None:
        """Recompute the bins from the whole history (cost: one pass over the samples)."""
        span = self.buffer.span() if self.buffer is not None else None
        if self.buffer is None or span is None:
            self.image.clear()  # an empty source (a new fleet connection) leaves no picture of the last one
            self.info.setText(self.tr("No samples yet."))
            return
        chosen = int(self.bins.currentData())
        ticks = self.buffer.count
        per_round = self._per_round = ticks <= chosen
        if per_round:  # fewer rounds than bins: one bin per sampling round, one interval wide
            first, last = span
            step = self.buffer.typical_interval()
            bins = max(1, ticks)
            self.edges, self.values = self.buffer.binned_mean(self.metric_key, bins, first - step / 2, last + step / 2)
        else:
            bins = chosen
            self.edges, self.values = self.buffer.binned_mean(self.metric_key, bins)
        t0, t1 = float(self.edges[0]), float(self.edges[-1])
        if self.metric_key in (m.GPU_UTIL, m.MEM_UTIL):
            lo, hi = 0.0, 100.0
        else:
            finite = self.values[np.isfinite(self.values)]
            lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            if hi <= lo:
                hi = lo + 1.0
        rgba = self.to_rgba(self.values, lo, hi)
        self.image.setImage(rgba, autoLevels=False)
        self.image.setRect(t0, 0, t1 - t0, self.buffer.n_gpus)
        self.colorbar.setLevels((lo, hi))
        self.colorbar.getAxis("left").setLabel(shown(self.metric_key).unit)
        self.plot.setXRange(t0, t1, padding=0)
        self.plot.setYRange(0, self.buffer.n_gpus, padding=0)
        missing = int(np.isnan(self.values).sum())
        if per_round:
            rounds = self.tr("1 sampling round: one column") if ticks == 1 else \
                self.tr("{n} sampling rounds: one column per round").format(n=ticks)
            self.info.setText(self.tr("{gpus} GPU(s), {rounds}; {na} cell(s) N/A (grey).").format(
                gpus=self.buffer.n_gpus, rounds=rounds, na=missing))
        else:
            self.info.setText(self.tr("{gpus} GPUs, {bins} bins of {w} each over {span}; {na} cells N/A (grey).")
                              .format(gpus=self.buffer.n_gpus, bins=bins, w=format_duration((t1 - t0) / bins),
                                      span=format_duration(t1 - t0), na=missing))

    @staticmethod
    def to_rgba(values: np.ndarray, lo: float, hi: float) -> np.ndarray:
        """Map values (gpus, bins) to an RGBA image; NaN becomes grey."""
        lut = colour_table()
        scaled = np.clip((np.nan_to_num(values, nan=lo) - lo) / (hi - lo), 0, 1)
        rgba = lut[(scaled * 255).astype(np.int64)]
        rgba[np.isnan(values)] = NA_RGBA
        return rgba.astype(np.uint8)

    def _mouse_moved(self, event) -> None:
        if self.buffer is None or not self.edges.size:
            return
        point = self.plot.getViewBox().mapSceneToView(event[0])
        gpu = int(math.floor(point.y()))
        col = int(np.searchsorted(self.edges, point.x(), "right") - 1)
        if not (0 <= gpu < self.values.shape[0] and 0 <= col < self.values.shape[1]):
            return
        value = self.values[gpu, col]
        if self._per_round:  # one column per sampling round: name the round's own time
            stamp = when((self.edges[col] + self.edges[col + 1]) / 2)
        else:
            t0, t1 = self.edges[col], self.edges[col + 1]
            seconds = ":%S" if t1 - t0 < 600 else ""  # bins of a short log: clock times, not "10:03 – 10:03"
            stamp = f"{when(t0, '%Y-%m-%d %H:%M' + seconds)} – {when(t1, '%H:%M' + seconds)}"
        s = shown(self.metric_key)
        text = self.tr("N/A (no readable sample in this bin)") if math.isnan(value) else \
            f"{value * s.scale:.{s.decimals}f} {s.unit}"
        self.hover.setText(f"{self.gpu_labels.get(gpu, str(gpu))}, {stamp}: {text}")
