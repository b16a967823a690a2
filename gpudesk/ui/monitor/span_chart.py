"""A timeline that shows where the findings are: the utilization heat map (one row per GPU) when one is given,
else one bar for the run, with the spans of warning and critical findings outlined (red: critical, orange:
warning) on the GPU's row, or on every row for a finding about the whole job. Clicking inside a span emits
``spanClicked(t0, t1)``; the current selection is drawn thicker. Self-contained: it takes a
``gpudesk.telemetry.rules.heatmap.Heatmap`` and a list of findings, and can paint itself into a QImage (PDF export).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from gpudesk.telemetry.rules.heatmap import Heatmap
from gpudesk.telemetry.rules.base import CRITICAL, WARNING, Finding
from gpudesk.units import format_duration
from gpudesk.ui.tooltips import plain_tooltip

SPAN_COLOUR = {CRITICAL: QColor("#c0392b"), WARNING: QColor("#e67e22")}
NA = QColor(200, 200, 200)
# viridis at 0, 25, 50, 75, 100 % (matplotlib's colour map, the same the Monitor's heat map uses)
_STOPS = np.array([[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]], dtype=float)


def colour_for(pct: float) -> QColor:
    if np.isnan(pct):
        return NA
    x = min(max(pct / 100.0, 0.0), 1.0) * (len(_STOPS) - 1)
    i = min(int(x), len(_STOPS) - 2)
    c = _STOPS[i] + (x - i) * (_STOPS[i + 1] - _STOPS[i])
    return QColor(int(c[0]), int(c[1]), int(c[2]))


def spans_of(f: Finding) -> list[tuple[float, float]]:
    """The spans a finding covers: the ones it lists (a recurring pattern grouped into one finding) or its own."""
    listed = f.evidence.get("spans")
    if isinstance(listed, list) and listed:
        return [(float(s["start_s"]), float(s["end_s"])) for s in listed if isinstance(s, dict)]
    return [f.span] if f.span else []


class SpanChart(QWidget):
    spanClicked = Signal(float, float)
    """A span was clicked: its start and end t0, t1 (s on the history's time axis)."""

    LEFT = 56
    ROW_H = 18
    AXIS_H = 18

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heatmap: Heatmap | None = None
        self.findings: list[Finding] = []
        self.run_span: tuple[float, float] = (0.0, 1.0)
        self.selected: tuple[float, float] | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the findings list is the keyboard path to every span
        self.setAccessibleName(self.tr("Timeline of the findings' spans"))

    def set_data(self, findings: Sequence[Finding], run_span: tuple[float, float] | None,
                 heatmap: Heatmap | None = None) -> None:
        self.findings = [f for f in findings if f.severity in SPAN_COLOUR and f.span]
        self.heatmap = heatmap
        if heatmap is not None and heatmap.edges.size > 1:
            self.run_span = (float(heatmap.edges[0]), float(heatmap.edges[-1]))
        elif run_span is not None:
            self.run_span = run_span
        self.selected = None
        self.setFixedHeight(self.sizeHint().height())
        self.update()

    def select(self, span: tuple[float, float] | None) -> None:
        self.selected = span
        self.update()

    def rows(self) -> list[str]:
        if self.heatmap is not None and self.heatmap.gpus:
            return [self.tr("GPU {gpu}").format(gpu=g) for g in self.heatmap.gpus]
        return [self.tr("Run")]

    def sizeHint(self) -> QSize:
        return QSize(600, len(self.rows()) * self.ROW_H + self.AXIS_H + 4)

    def _x(self, t: float, width: float) -> float:
        t0, t1 = self.run_span
        return self.LEFT + (t - t0) / max(t1 - t0, 1e-9) * (width - self.LEFT - 4)

    def _row_of(self, f: Finding) -> list[int]:
        n = len(self.rows())
        if self.heatmap is None or f.gpu is None or f.gpu not in self.heatmap.gpus:
            return list(range(n))
        return [self.heatmap.gpus.index(f.gpu)]

    def paint_into(self, painter: QPainter, width: float) -> None:
        rows = self.rows()
        painter.setPen(self.palette().text().color())
        for i, label in enumerate(rows):
            painter.drawText(QRectF(2, i * self.ROW_H, self.LEFT - 4, self.ROW_H),
                             int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), label)
        hm = self.heatmap
        if hm is not None and hm.values.size:
            n_bins = hm.values.shape[1]
            x0, x1 = self._x(float(hm.edges[0]), width), self._x(float(hm.edges[-1]), width)
            cell = (x1 - x0) / max(n_bins, 1)
            for i in range(hm.values.shape[0]):
                for j in range(n_bins):
                    painter.fillRect(QRectF(x0 + j * cell, i * self.ROW_H + 1, cell + 0.6, self.ROW_H - 2),
                                     colour_for(float(hm.values[i, j])))
        else:
            painter.fillRect(QRectF(self.LEFT, 1, width - self.LEFT - 4, self.ROW_H - 2), QColor(230, 230, 230))
        for f in sorted(self.findings, key=lambda f: f.severity == CRITICAL):  # critical drawn last, on top
            chosen = self.selected is not None and self.selected == f.span
            painter.setPen(QPen(SPAN_COLOUR[f.severity], 3.5 if chosen else 2.0))
            for t_a, t_b in spans_of(f):
                a, b = self._x(t_a, width), self._x(t_b, width)
                for i in self._row_of(f):
                    painter.drawRect(QRectF(a, i * self.ROW_H + 1, max(b - a, 2.0), self.ROW_H - 2))
        painter.setPen(self.palette().text().color())
        y = len(rows) * self.ROW_H + 2
        t0, t1 = self.run_span
        painter.drawText(QRectF(self.LEFT, y, 200, self.AXIS_H), int(Qt.AlignmentFlag.AlignLeft), self.tr("start"))
        painter.drawText(QRectF(width - 204, y, 200, self.AXIS_H), int(Qt.AlignmentFlag.AlignRight),
                         self.tr("+{length}").format(length=format_duration(t1 - t0)))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        self.paint_into(painter, float(self.width()))
        painter.end()

    def to_image(self, width: int = 1200) -> QImage:
        """The chart painted on a white image (for the PDF export)."""
        image = QImage(width, self.sizeHint().height(), QImage.Format.Format_RGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        self.paint_into(painter, float(width))
        painter.end()
        return image

    def finding_at(self, pos: QPointF) -> Finding | None:
        row = int(pos.y() // self.ROW_H)
        hits = [f for f in self.findings if f.span and row in self._row_of(f)
                and self._x(f.span[0], self.width()) - 3 <= pos.x() <= self._x(f.span[1], self.width()) + 3]
        return min(hits, key=lambda f: (f.span[1] - f.span[0]) if f.span else 0.0) if hits else None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        hit = self.finding_at(event.position())
        if hit is not None and hit.span is not None:
            self.select(hit.span)
            self.spanClicked.emit(hit.span[0], hit.span[1])

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        hit = self.finding_at(event.position())
        self.setToolTip(plain_tooltip(hit.summary) if hit is not None else "")
