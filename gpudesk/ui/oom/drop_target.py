"""Drops of files or text anywhere on a widget (the OOM doctor tab), as signals, through an event filter."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtGui import QDragMoveEvent, QDropEvent

from gpudesk.ui.oom.text_input import local_files


class DropTarget(QObject):
    """Install with ``widget.installEventFilter(target)`` (the widget must ``setAcceptDrops(True)``).

    Signals: fileDropped(str): the first local file dropped. textDropped(str): dropped text (no file).
    """

    fileDropped = Signal(str)
    """Files were dropped on the watched widget: the path of the first local file."""
    textDropped = Signal(str)
    """Text (no file) was dropped on the watched widget: the text."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        return self.handle(event)

    def handle(self, event: QEvent) -> bool:
        """Accept a drag of files or text, and turn a drop into a signal; True when ``event`` was handled."""
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and isinstance(event, QDragMoveEvent):
            if local_files(event.mimeData()) or event.mimeData().hasText():
                event.acceptProposedAction()
                return True
            return False
        if kind == QEvent.Type.Drop and isinstance(event, QDropEvent):
            files = local_files(event.mimeData())
            if files:
                event.acceptProposedAction()
                self.fileDropped.emit(files[0])
                return True
            if event.mimeData().hasText():
                event.acceptProposedAction()
                self.textDropped.emit(event.mimeData().text())
                return True
        return False
