"""Live PyTorch allocated / reserved curve for a launched job (pyqtgraph), one pair of curves per device.

Samples arrive from the launch worker as (seconds since start, device index, allocated bytes, reserved
bytes); they are kept in growable numpy buffers (capped, oldest dropped) and drawn in GiB. A sample whose
value is None (not readable) leaves a gap; it is never drawn as 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gpudesk.units import GIB
MAX_POINTS = 20_000  # per curve; about 5.5 h at 1 sample/s

_DEVICE_COLORS = ("#1f5fa8", "#b0413e", "#2e8b57", "#8a5cb8", "#c77d1a", "#3c8d9e", "#777777", "#a0522d")


class _Series:
    """A growable (time, value) buffer for one curve; NaN marks an unknown value (drawn as a gap)."""

    def __init__(self) -> None:
        self.t = np.empty(256, dtype=np.float64)
        self.v = np.empty(256, dtype=np.float64)
        self.n = 0

    def append(self, t_s: float, value: float | None) -> None:
        if self.n == len(self.t):
            if self.n >= MAX_POINTS:
                keep = MAX_POINTS // 2
                self.t[:keep] = self.t[self.n - keep : self.n]
                self.v[:keep] = self.v[self.n - keep : self.n]
                self.n = keep
            else:
                self.t = np.resize(self.t, self.n * 2)
                self.v = np.resize(self.v, self.n * 2)
        self.t[self.n] = t_s
        self.v[self.n] = np.nan if value is None else value / GIB
        self.n += 1

    def data(self) -> tuple[np.ndarray, np.ndarray]:
        return self.t[: self.n], self.v[: self.n]


class LiveMemoryCurve(QWidget):
    """Plot of allocated (solid) and reserved (dashed) GiB over seconds since launch, per device, and
    the job's host RSS (dotted) once it has ended.

    The status line above the plot says what the job reported ("torch not imported", "CUDA not
    initialised", the OOM moment) as plain text.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.status = QLabel(self.tr("No job launched."), self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.plot = pg.PlotWidget(self)
        self.plot.setBackground("w")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.setLabel("bottom", self.tr("time since launch"), units="s")
        self.plot.setLabel("left", self.tr("memory (GiB)"))
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)
        self.plot.getPlotItem().getViewBox().setLimits(yMin=0)
        self.plot.addLegend(offset=(10, 10))
        self.plot.setMinimumHeight(180)
        self.plot.setToolTip(self.tr("PyTorch memory_allocated and memory_reserved of the launched job, in GiB"))
        layout.addWidget(self.plot, 1)
        self._series: dict[tuple[int, str], _Series] = {}
        self._curves: dict[tuple[int, str], pg.PlotDataItem] = {}
        self._markers: list[pg.InfiniteLine] = []
        self._host_curve: pg.PlotDataItem | None = None
        self._empty = pg.TextItem("", color="#555555", anchor=(0.5, 0.5))
        self._empty.setPos(0.5, 0.5)
        self.plot.addItem(self._empty, ignoreBounds=True)
        self.set_empty_text(self.tr("Launch a command to see its memory over time."))

    def clear(self) -> None:
        """Remove all curves and markers (a new launch starts)."""
        for curve in self._curves.values():
            self.plot.removeItem(curve)
        for marker in self._markers:
            self.plot.removeItem(marker)
        if self._host_curve is not None:
            self.plot.removeItem(self._host_curve)
            self._host_curve = None
        self._series.clear()
        self._curves.clear()
        self._markers.clear()
        self.status.setText(self.tr("No job launched."))
        self.set_empty_text(self.tr("Waiting for the first memory sample …"))

    def set_empty_text(self, text: str) -> None:
        """The text shown in the middle of the plot while it has no curve (plain text)."""
        self._empty.setPlainText(text)
        self._empty.setVisible(not self._curves and self._host_curve is None)

    def set_host_rss(self, samples: list[tuple[float, int]]) -> None:
        """Draw the job's host resident memory (psutil RSS, bytes) over time as a dotted grey curve."""
        if not samples:
            return
        t = np.array([s[0] for s in samples], dtype=np.float64)
        v = np.array([s[1] for s in samples], dtype=np.float64) / GIB
        if self._host_curve is None:
            self._host_curve = self.plot.plot(
                [], [], pen=pg.mkPen("#777777", width=2, style=Qt.PenStyle.DotLine), name=self.tr("host RSS (CPU memory)")
            )
        self._host_curve.setData(t, v)
        self._empty.setVisible(False)

    def set_status(self, text: str) -> None:
        """Show a plain-text status line (e.g. "CUDA not initialised in the launched process")."""
        self.status.setText(text)

    def add_sample(
        self, t_s: float, device: int, allocated_bytes: int | None, reserved_bytes: int | None
    ) -> None:
        """Append one sample for ``device``; ``None`` values leave a gap in the curve."""
        self._append(device, "allocated", t_s, allocated_bytes)
        self._append(device, "reserved", t_s, reserved_bytes)

    def add_launch_sample(self, sample: Any) -> None:
        """Append a launched job's ``MemorySample`` (one without a device index is not drawn)."""
        if sample.device_index is not None:
            self.add_sample(sample.t_s, sample.device_index, sample.allocated_bytes, sample.reserved_bytes)

    def mark(self, t_s: float, text: str) -> None:
        """A vertical line at ``t_s`` labelled ``text`` (e.g. the OOM moment)."""
        line = pg.InfiniteLine(
            pos=t_s,
            angle=90,
            pen=pg.mkPen("#b0413e", width=1.5, style=Qt.PenStyle.DashDotLine),
            label=text,
            labelOpts={"position": 0.9, "color": "#b0413e", "movable": False},
        )
        self.plot.addItem(line)
        self._markers.append(line)

    def point_count(self) -> int:
        """Total samples held over all curves (for tests and the status line)."""
        return sum(series.n for series in self._series.values())

    def series_data(self, device: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """(seconds, GiB with NaN for unknown) of one curve; ``kind`` is "allocated" or "reserved"."""
        return self._series[(device, kind)].data()

    def has_host_rss(self) -> bool:
        """Whether the host RSS curve is drawn."""
        return self._host_curve is not None

    def curve_keys(self) -> list[tuple[int, str]]:
        return sorted(self._curves)

    def _append(self, device: int, kind: str, t_s: float, value: int | None) -> None:
        key = (device, kind)
        series = self._series.get(key)
        if series is None:
            series = self._series[key] = _Series()
            color = _DEVICE_COLORS[device % len(_DEVICE_COLORS)]
            style = Qt.PenStyle.SolidLine if kind == "allocated" else Qt.PenStyle.DashLine
            name = (
                self.tr("GPU %1 allocated") if kind == "allocated" else self.tr("GPU %1 reserved")
            ).replace("%1", str(device))
            self._curves[key] = self.plot.plot(
                [], [], pen=pg.mkPen(color, width=2, style=style), name=name, connect="finite"
            )
        self._empty.setVisible(False)
        series.append(t_s, value)
        t, v = series.data()
        self._curves[key].setData(t, v, connect="finite")
