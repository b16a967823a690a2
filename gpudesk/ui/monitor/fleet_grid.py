"""Nodes x GPUs heat map of one metric over a window: one row per host (or job), one cell per GPU / MIG instance.

Fed with plain data (:class:`GridCell` lists per group), drawn with QPainter only (512 cells redraw in well
under 16 ms). A cell without a readable value is grey and says "N/A" with the reason, never 0. Click or Enter
on a cell emits :attr:`FleetGrid.gpuActivated` with the GPU's fleet position; arrow keys move the selection.
Labels from servers are plain text (tooltips are escaped).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

NA_COLOUR = QColor(200, 200, 200)
CELL_W = 34
CELL_H = 22
GAP = 2


@dataclass(frozen=True)
class GridCell:
    """One GPU in the grid: its fleet position, short text, value (None = N/A) and tooltip lines."""

    position: int
    text: str
    value: float | None
    tooltip: str


def _lut() -> list[QColor]:
    table = pg.colormap.get("viridis").getLookupTable(0.0, 1.0, 256, alpha=False)
    return [QColor(int(r), int(g), int(b)) for r, g, b in np.asarray(table)[:, :3]]


class FleetGrid(QWidget):
    """The heat-map grid. ``set_cells(groups, lo, hi, unit)``; ``gpuActivated(position)`` on click / Enter."""

    gpuActivated = Signal(int)
    """A GPU tile was clicked, or Enter/Space pressed on it: its position in the fleet history's keys."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._groups: list[tuple[str, list[GridCell]]] = []
        self._lo = 0.0
        self._hi = 100.0
        self._unit = "%"
        self._lut = _lut()
        self._sel: tuple[int, int] | None = None
        self._label_w = 120
        self._empty_text = ""
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAccessibleName(self.tr("GPU fleet heat map"))

    # --- data -------------------------------------------------------------------------------------------
    def set_cells(self, groups: list[tuple[str, list[GridCell]]], lo: float, hi: float, unit: str) -> None:
        self._groups = groups
        self._lo, self._hi = float(lo), float(hi) if hi > lo else float(lo) + 1.0
        self._unit = unit
        fm = QFontMetrics(self.font())
        self._label_w = min(260, max([fm.horizontalAdvance(name) for name, _ in groups] + [60]) + 12)
        if self._sel and (self._sel[0] >= len(groups) or self._sel[1] >= len(groups[self._sel[0]][1])):
            self._sel = None
        self.updateGeometry()
        self.update()

    def set_empty_text(self, text: str) -> None:
        """Text drawn while the grid has no cells ("Connecting…", "No data: <reason>"); "" for none."""
        self._empty_text = text
        self.setToolTip(text)
        self.update()

    def empty_text(self) -> str:
        return self._empty_text

    def cell_count(self) -> int:
        return sum(len(cells) for _, cells in self._groups)

    def selected_position(self) -> int | None:
        if self._sel is None:
            return None
        return self._groups[self._sel[0]][1][self._sel[1]].position

    def colour(self, value: float | None) -> QColor:
        if value is None or math.isnan(value):
            return NA_COLOUR
        x = (value - self._lo) / (self._hi - self._lo)
        return self._lut[int(min(255, max(0, round(x * 255))))]

    # --- geometry ---------------------------------------------------------------------------------------
    def sizeHint(self) -> QSize:
        cols = max([len(c) for _, c in self._groups] + [8])
        return QSize(self._label_w + cols * (CELL_W + GAP) + 8, max(1, len(self._groups)) * (CELL_H + GAP) + 30)

    def _cell_rect(self, row: int, col: int) -> QRect:
        return QRect(self._label_w + col * (CELL_W + GAP), 4 + row * (CELL_H + GAP), CELL_W, CELL_H)

    def _hit(self, pos: QPoint) -> tuple[int, int] | None:
        x, y = pos.x() - self._label_w, pos.y() - 4
        if x < 0 or y < 0:
            return None
        col, row = x // (CELL_W + GAP), y // (CELL_H + GAP)
        if row < len(self._groups) and col < len(self._groups[row][1]):
            return (row, col)
        return None

    # --- painting ---------------------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        pal = self.palette()  # kept alive: brushes below reference it
        p = QPainter(self)
        p.fillRect(self.rect(), pal.base())
        small = QFont(self.font())
        small.setPointSizeF(max(6.0, self.font().pointSizeF() * 0.8))
        text_pen = QPen(pal.text().color())
        if not self._groups and self._empty_text:
            p.setPen(QPen(pal.placeholderText().color()))
            p.drawText(self.rect().adjusted(12, 12, -12, -12),
                       Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self._empty_text)
        for row, (name, cells) in enumerate(self._groups):
            top = 4 + row * (CELL_H + GAP)
            p.setPen(text_pen)
            p.setFont(self.font())
            p.drawText(QRect(4, top, self._label_w - 8, CELL_H), Qt.AlignmentFlag.AlignVCenter, name)
            p.setFont(small)
            for col, cell in enumerate(cells):
                rect = self._cell_rect(row, col)
                colour = self.colour(cell.value)
                p.fillRect(rect, colour)
                p.setPen(QColor(0, 0, 0) if colour.lightness() > 128 else QColor(255, 255, 255))
                p.drawText(rect, Qt.AlignmentFlag.AlignCenter, cell.text)
        if self._sel is not None:
            p.setPen(QPen(pal.highlight().color(), 2))
            p.drawRect(self._cell_rect(*self._sel).adjusted(-1, -1, 1, 1))
        p.end()

    # --- interaction ------------------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        hit = self._hit(event.position().toPoint())
        if hit is not None:
            self._sel = hit
            self.update()
            self.gpuActivated.emit(self._groups[hit[0]][1][hit[1]].position)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        hit = self._hit(event.position().toPoint())
        if hit is None:
            QToolTip.hideText()
            return
        cell = self._groups[hit[0]][1][hit[1]]
        QToolTip.showText(event.globalPosition().toPoint(), "<pre>" + html.escape(cell.tooltip) + "</pre>", self)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self._groups:
            super().keyPressEvent(event)
            return
        row, col = self._sel or (0, 0)
        key = Qt.Key(event.key())
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and self._sel is not None:
            self.gpuActivated.emit(self._groups[row][1][col].position)
            return
        moves = {Qt.Key.Key_Left: (0, -1), Qt.Key.Key_Right: (0, 1), Qt.Key.Key_Up: (-1, 0),
                 Qt.Key.Key_Down: (1, 0)}
        if key not in moves:
            super().keyPressEvent(event)
            return
        if self._sel is not None:
            dr, dc = moves[key]
            row = min(max(0, row + dr), len(self._groups) - 1)
            col = min(max(0, col + dc), len(self._groups[row][1]) - 1)
        self._sel = (row, col)
        self.update()
