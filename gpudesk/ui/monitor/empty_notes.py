"""The note an empty panel shows: which field the source lacks ("This log has no column for Power draw."), or
the reason the source gave for it being N/A, centred in the plot; hidden as soon as the field has a value.

Whether a field ever had a value is found by scanning only the samples added since the last look, so a live
source that never reports a field costs one small scan per tick, not one of the whole history.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QGraphicsSimpleTextItem

from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.monitor.display import shown


class EmptyNotes:
    """One note per plot (``notes[metric]``, a child of the plot's view box, centred on resize)."""

    def __init__(self, plots: dict[str, pg.PlotItem]):
        self.notes: dict[str, QGraphicsSimpleTextItem] = {}
        self._buffer: HistoryBuffer | None = None
        self._seen: set[str] = set()  # metrics with at least one finite sample
        self._scanned: dict[str, int] = {}  # metric -> samples looked at so far (counted from the first ever)
        for metric, plot in plots.items():
            vb = plot.getViewBox()
            note = QGraphicsSimpleTextItem(vb)
            note.setBrush(QBrush(QColor("#707070")))
            note.setVisible(False)
            self.notes[metric] = note
            vb.sigResized.connect(lambda _vb, note=note, vb=vb: self._centre(note, vb))

    def set_buffer(self, buffer: HistoryBuffer) -> None:
        self._buffer = buffer
        self._seen = set()
        self._scanned = {}

    def update(self, metric: str, gpus: list[int]) -> None:
        """Show or hide ``metric``'s note: shown when the source has no value of it at all."""
        note = self.notes[metric]
        text = self._text(metric, gpus)
        if text != (note.text() if note.isVisible() else ""):
            note.setText(text)
            note.setVisible(bool(text))
            self._centre(note, note.parentItem())

    def _text(self, metric: str, gpus: list[int]) -> str:
        buffer = self._buffer
        if buffer is None or not buffer.count or not gpus or self._has_values(buffer, metric):
            return ""
        field = shown(metric).label
        reason = next((buffer.reasons[(g, metric)] for g in gpus if (g, metric) in buffer.reasons), "")
        if reason:
            return QCoreApplication.translate("Monitor", "No {field}: {reason}").format(field=field, reason=reason)
        return QCoreApplication.translate("Monitor", "This log has no column for {field}.").format(field=field)

    def _has_values(self, buffer: HistoryBuffer, metric: str) -> bool:
        if metric in self._seen:
            return True
        if metric not in buffer.metrics:
            return False
        start = max(0, self._scanned.get(metric, 0) - buffer.dropped)
        self._scanned[metric] = buffer.dropped + buffer.count
        if np.isfinite(buffer.series(metric)[start:]).any():
            self._seen.add(metric)
            return True
        return False

    @staticmethod
    def _centre(note: QGraphicsSimpleTextItem, vb) -> None:  # type: ignore[no-untyped-def]
        if vb is None:
            return
        box, size = vb.boundingRect(), note.boundingRect()
        note.setPos(box.center().x() - size.width() / 2, box.center().y() - size.height() / 2)
