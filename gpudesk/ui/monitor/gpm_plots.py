"""The busy-vs-productive panels under the Monitor's plots: SM active, SM occupancy, tensor pipe active and DRAM
active, one panel each, over the same time span as the main plots.

The values are GPM metrics (NVML ``nvmlGpmMetricsGet``, Hopper and later; :mod:`gpudesk.nvml.gpm`) or DCGM
profiling fields (dcgmi ``SMACT``/``SMOCC``/``TENSO``/``DRAMA``, a ratio 0..1 that the readers store x 100,
:mod:`gpudesk.telemetry.core.dcgm_fields`), so each is a percentage of time (or of the SM's warp slots) by construction:
drawn on a fixed 0-100 % axis and clipped to 100 %, never shown as a "utilization above 100 %".

A panel is shown only when its metric has a readable value for a shown GPU in the history; when none has, the
panels are hidden and one line says why (the reason the source recorded, e.g. NVML's "not supported on this
GPU"). The panels are separate views (hiding one frees its space) and draw with the main plots' series item
(:class:`gpudesk.ui.monitor.plots._Series`), so a followed view only extends their paths each tick.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QGraphicsView, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.monitor.plot_items import TimePlot, TimeView
from gpudesk.ui.monitor.plots import SPARSE_TICKS, _Series
from gpudesk.ui.monitor.time_axis import TimeAxis

GPM_PLOTTED = (df.SM_ACTIVE, df.SM_OCCUPANCY, df.TENSOR_ACTIVE, df.DRAM_ACTIVE)
PANEL_HEIGHT_PX = 150


def panel_title(metric: str) -> str:
    titles = {
        df.SM_ACTIVE: QCoreApplication.translate("GpmPlots", "SM active"),
        df.SM_OCCUPANCY: QCoreApplication.translate("GpmPlots", "SM occupancy"),
        df.TENSOR_ACTIVE: QCoreApplication.translate("GpmPlots", "Tensor pipe active"),
        df.DRAM_ACTIVE: QCoreApplication.translate("GpmPlots", "DRAM active"),
    }
    return titles[metric]


def panel_tip(metric: str) -> str:
    tips = {
        df.SM_ACTIVE: QCoreApplication.translate(
            "GpmPlots", "Share of time each SM had at least one warp resident, averaged over all SMs (NVML GPM or "
            "DCGM SMACT, ratio x 100)."),
        df.SM_OCCUPANCY: QCoreApplication.translate(
            "GpmPlots", "Warps resident on the SMs as a share of the most they can hold (NVML GPM or DCGM SMOCC, "
            "ratio x 100)."),
        df.TENSOR_ACTIVE: QCoreApplication.translate(
            "GpmPlots", "Share of time the tensor pipes were busy (NVML GPM or DCGM TENSO, ratio x 100)."),
        df.DRAM_ACTIVE: QCoreApplication.translate(
            "GpmPlots", "Share of time device memory was sending or receiving data (NVML GPM or DCGM DRAMA, "
            "ratio x 100)."),
    }
    return tips[metric]


def as_percent(y: np.ndarray) -> np.ndarray:
    """Stored percentages (ratio x 100) for drawing: clipped to 0..100 (NaN, unreadable, stays a gap)."""
    return np.clip(y, np.float32(0.0), np.float32(100.0))


class _Panel(QWidget):
    def __init__(self, metric: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.metric_name = metric
        self.view = pg.GraphicsLayoutWidget(self)
        self.view.setBackground("w")
        self.view.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)  # as the main plots (issue 15)
        self.axis = TimeAxis()
        self.plot = TimePlot(viewBox=TimeView(), axisItems={"bottom": self.axis})
        self.view.addItem(self.plot)
        for side in ("left", "bottom"):
            self.plot.getAxis(side).setPen(pg.mkPen("#bbbbbb"))
            self.plot.getAxis(side).setTextPen(pg.mkPen("#404040"))
        for side in ("left", "top", "right"):
            self.plot.getAxis(side).enableAutoSIPrefix(False)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.getViewBox().setMouseEnabled(x=False, y=False)
        self.plot.getViewBox().disableAutoRange()
        self.plot.setTitle(panel_title(metric), size="9pt")
        self.setToolTip(panel_tip(metric))
        self.plot.setLabel("left", "%")
        self.plot.setYRange(0.0, 100.0, padding=0.05)
        self.series = _Series()
        self.plot.addItem(self.series)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)


class GpmPlots(QWidget):
    """The four GPM panels in a row, or the line that says why there are none."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.panels = {metric: _Panel(metric, self) for metric in GPM_PLOTTED}
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setTextFormat(pg.QtCore.Qt.TextFormat.PlainText)
        self.note.setStyleSheet("color: #606060;")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        for panel in self.panels.values():
            row.addWidget(panel, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.note)
        for panel in self.panels.values():
            panel.setFixedHeight(PANEL_HEIGHT_PX)
            panel.hide()
        self.note.hide()

    def set_time_basis(self, basis: str) -> None:
        for panel in self.panels.values():
            panel.axis.set_basis(basis)

    def shown_metrics(self) -> list[str]:
        return [metric for metric, panel in self.panels.items() if not panel.isHidden()]

    def column(self, metric: str, gpu: int) -> tuple[np.ndarray, np.ndarray]:
        """The drawn (x, y in %) of ``gpu`` in ``metric``'s panel."""
        return self.panels[metric].series.column(gpu)

    def refresh(self, buffer: HistoryBuffer | None, gpus: list[int], t0: float, t1: float, max_points: int) -> None:
        """Draw ``t0 .. t1`` of the shown GPUs; show the panels with a readable value, or the note."""
        any_shown = False
        for metric, panel in self.panels.items():
            readable = False
            if buffer is not None and metric in buffer.metrics and gpus and math.isfinite(t0) and math.isfinite(t1):
                x, y = buffer.decimated_columns(metric, gpus, t0, t1, max_points)
                readable = bool(y.size) and bool(np.isfinite(y).any())
                if readable:
                    panel.series.set_columns(x, as_percent(y), gpus, dots=buffer.count <= SPARSE_TICKS)
                    panel.plot.getViewBox().setXRange(t0, t1, padding=0)
            panel.setVisible(readable)
            any_shown = any_shown or readable
        if any_shown or buffer is None or not buffer.count:
            self.note.hide()
            return
        self.note.setText(self._why_none(buffer, gpus))
        self.note.show()

    @staticmethod
    def _why_none(buffer: HistoryBuffer, gpus: list[int]) -> str:
        reasons = sorted({buffer.reasons[(g, df.SM_ACTIVE)] for g in gpus if (g, df.SM_ACTIVE) in buffer.reasons})
        if reasons:
            return QCoreApplication.translate("GpmPlots", "SM activity, occupancy, tensor and DRAM activity: {why}").format(
                why=" ".join(reasons))
        return QCoreApplication.translate(
            "GpmPlots", "SM activity, occupancy, tensor and DRAM activity are not supported on this GPU or not in this "
            "source (they need NVML GPM on a Hopper or later GPU, or DCGM profiling fields).")
