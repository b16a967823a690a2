"""Segment map of a snapshot: each segment a bar (to scale), blocks coloured by state, the failed request drawn
against the largest free block, so fragmentation is seen at a glance.

Colours: allocated blocks blue, free (cached) blocks light grey, the largest free block that could serve the
request outlined in orange, the failed request in red on the top row. Segments are drawn largest first; at
most :data:`MAX_ROWS` of them, the rest counted in the last line.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QColor, QHelpEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QScrollArea, QToolTip, QWidget

from gpudesk.oom.snapshot.analysis import DeviceAnalysis
from gpudesk.oom.snapshot.layout import SegmentState
from gpudesk.units import format_bytes

MAX_ROWS = 300
ROW_H = 22
BAR_H = 14
LABEL_W = 260
MARGIN = 8

ALLOCATED = QColor("#1f5fa8")
FREE = QColor("#d9d9d9")
LARGEST = QColor("#c77d1a")
REQUEST = QColor("#b0413e")
TEXT = QColor("#222222")


class SegmentMapCanvas(QWidget):
    """The painted map; put it in a scroll area (see :class:`SegmentMap`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._segments: list[SegmentState] = []
        self._request: int | None = None
        self._largest: tuple[int, int] | None = None  # (address, size) of the largest usable free piece
        self._hidden = 0
        self._scale_bytes = 1
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def set_analysis(self, device: DeviceAnalysis) -> None:
        segments = sorted(device.fragmentation.segments, key=lambda s: (-s.total_size_bytes, s.address))
        self._hidden = max(0, len(segments) - MAX_ROWS)
        self._segments = segments[:MAX_ROWS]
        self._request = device.oom.requested_bytes if device.oom is not None else None
        self._largest = None
        candidates = [
            (size, addr)
            for s in device.fragmentation.segments
            if device.oom is None or s.can_serve(device.oom.requested_bytes, device.oom.stream)
            for addr, size in s.free_pieces
        ]
        if candidates:
            size, addr = max(candidates)
            self._largest = (addr, size)
        self._scale_bytes = max([s.total_size_bytes for s in self._segments] + [self._request or 0, 1])
        self.updateGeometry()
        self.setMinimumHeight(self.sizeHint().height())
        self.update()

    def rows(self) -> int:
        return len(self._segments) + (1 if self._request is not None else 0) + (1 if self._hidden else 0)

    def sizeHint(self) -> QSize:
        return QSize(LABEL_W + 500, MARGIN * 2 + max(1, self.rows()) * ROW_H)

    def _bar_width(self) -> int:
        return max(50, self.width() - LABEL_W - 2 * MARGIN)

    def _x(self, offset_bytes: int) -> int:
        return MARGIN + LABEL_W + int(offset_bytes / self._scale_bytes * self._bar_width())

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("white"))
        y = MARGIN
        if not self._segments and self._request is None:
            p.setPen(TEXT)
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.tr("No segments in this snapshot."))
            return
        if self._request is not None:
            p.setPen(TEXT)
            p.drawText(QRect(MARGIN, y, LABEL_W - 6, ROW_H), Qt.AlignmentFlag.AlignVCenter,
                       self.tr("failed request {0}").format(format_bytes(self._request)))
            p.fillRect(QRect(self._x(0), y + (ROW_H - BAR_H) // 2, max(2, self._x(self._request) - self._x(0)),
                             BAR_H), REQUEST)
            y += ROW_H
        for seg in self._segments:
            p.setPen(TEXT)
            p.drawText(QRect(MARGIN, y, LABEL_W - 6, ROW_H), Qt.AlignmentFlag.AlignVCenter,
                       self.tr("{0} {1}, {2} free").format(seg.segment_type, format_bytes(seg.total_size_bytes),
                                                           format_bytes(seg.free_bytes)))
            top = y + (ROW_H - BAR_H) // 2
            x0 = self._x(0)
            p.fillRect(QRect(x0, top, max(1, self._x(seg.total_size_bytes) - x0), BAR_H), ALLOCATED)
            for addr, size in seg.free_pieces:
                a = self._x(addr - seg.address)
                b = self._x(addr - seg.address + size)
                p.fillRect(QRect(a, top, max(1, b - a), BAR_H), FREE)
                if self._largest == (addr, size):
                    p.setPen(QPen(LARGEST, 2))
                    p.drawRect(QRect(a, top, max(1, b - a), BAR_H))
            y += ROW_H
        if self._hidden:
            p.setPen(TEXT)
            p.drawText(QRect(MARGIN, y, self.width(), ROW_H), Qt.AlignmentFlag.AlignVCenter,
                       self.tr("… and {0} smaller segments").format(self._hidden))

    def segment_at(self, y: int) -> SegmentState | None:
        row = (y - MARGIN) // ROW_H - (1 if self._request is not None else 0)
        return self._segments[row] if 0 <= row < len(self._segments) else None

    def event(self, ev: object) -> bool:
        if isinstance(ev, QHelpEvent):
            seg = self.segment_at(ev.pos().y())
            if seg is not None:
                QToolTip.showText(ev.globalPos(), self.tr(
                    "Segment at {0}: {1} ({2} pool, stream {3}); {4} allocated, {5} free in {6} pieces, "
                    "largest {7}").format(hex(seg.address), format_bytes(seg.total_size_bytes), seg.segment_type,
                                          seg.stream, format_bytes(seg.allocated_bytes), format_bytes(seg.free_bytes),
                                          len(seg.free_pieces), format_bytes(seg.largest_free_bytes)), self)
            else:
                QToolTip.hideText()
            return True
        return super().event(ev)  # type: ignore[arg-type]


class SegmentMap(QScrollArea):
    """The segment map in a scroll area (keyboard: arrows and Page Up/Down scroll)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.canvas = SegmentMapCanvas(self)
        self.setWidget(self.canvas)
        self.setWidgetResizable(True)
        self.setToolTip(self.tr("Segments to scale: blue allocated, grey free, orange the largest usable free "
                                "block, red the failed request"))

    def set_analysis(self, device: DeviceAnalysis) -> None:
        self.canvas.set_analysis(device)
